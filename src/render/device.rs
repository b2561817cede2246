//! The device's results and the facts of the process's end, read back from
//! the trace (`KIND_CL_COMMAND`, `KIND_CL_UNTIMED`, `KIND_END`): the first
//! sink to finish, it hands the timed commands to the sinks that draw them
//! (through [`End::commands`]) and both to the summary (through
//! [`Results`]). The process's own outputs are made from these records as
//! `cltap render`'s are, so the two are the same bytes.

use super::sink::{End, Kinds, NewPart, Part, Results, Sink};
use crate::devtime::{Command, Commands};
use crate::trace::record::{
    View, END_COUNTED, END_DUMPS, END_HSA, END_HSA_KERNEL, END_HSA_PACKETS, END_NOTE, END_PENDING, END_TALLY,
    KIND_CL_COMMAND, KIND_CL_UNTIMED, KIND_END,
};
use std::sync::Arc;

pub use super::end_facts::{EndFacts, HsaExtra};

/// One record of the kinds this sink takes, decoded.
enum Item {
    Timed(Command),
    Untimed(u64, &'static str, String),
    End(u64, Vec<u64>, Option<String>),
}

fn item(v: &View<'_>) -> Option<Item> {
    let h = &v.header;
    match h.kind {
        KIND_CL_COMMAND => crate::decode::command(v).map(Item::Timed),
        KIND_CL_UNTIMED => {
            let api = crate::meta::FUNCTIONS.get(h.fn_id as usize).map_or("?", |f| f.name);
            Some(Item::Untimed(h.cmd_id, api, v.kernel_name().unwrap_or_default()))
        }
        KIND_END => Some(Item::End(h.cmd_id, v.args.to_vec(), v.kernel_name())),
        _ => None,
    }
}

pub struct Device {
    commands: Commands,
    end: EndFacts,
    /// Some `KIND_END` record was read: the process wrote its end's facts.
    ended: bool,
}

#[derive(Default)]
struct Items(Vec<Item>);

impl Part for Items {
    fn record(&mut self, v: &View<'_>) {
        self.0.extend(item(v));
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Device {
    /// `spill`: where the commands may move past a few MiB (a file unlinked
    /// at once).
    pub fn sink(spill: Option<std::path::PathBuf>) -> Box<dyn Sink> {
        Box::new(Device { commands: Commands::new(spill), end: EndFacts::default(), ended: false })
    }

    fn add(&mut self, i: Item) {
        match i {
            Item::Timed(c) => self.commands.add(&c),
            Item::Untimed(id, api, why) => self.commands.add_untimed(id, api, why),
            Item::End(what, words, name) => {
                self.ended = true;
                let w = |i: usize| words.get(i).copied().unwrap_or(0);
                let e = &mut self.end;
                match what {
                    END_PENDING => e.pending = w(0) as i64,
                    END_NOTE => e.notes.extend(name),
                    END_HSA => e.hsa = Some(e.hsa.take().unwrap_or_default()),
                    END_HSA_PACKETS => {
                        e.hsa.get_or_insert_with(Default::default).packets.push((name.unwrap_or_default(), w(0)))
                    }
                    END_HSA_KERNEL => e.hsa.get_or_insert_with(Default::default).kernels.push((
                        w(0),
                        name.filter(|_| w(2) != 0),
                        w(1),
                    )),
                    END_COUNTED => e.counted = true,
                    END_TALLY => e.tally.push((name.unwrap_or_default(), w(0), w(1))),
                    END_DUMPS => {
                        e.dumps = Some(crate::dumps::facts::DumpFacts::from_record(&words, &name.unwrap_or_default()))
                    }
                    _ => {}
                }
            }
        }
    }
}

impl Sink for Device {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[KIND_CL_COMMAND, KIND_CL_UNTIMED, KIND_END])
    }

    fn record(&mut self, v: &View<'_>) {
        if let Some(i) = item(v) {
            self.add(i);
        }
    }

    fn parts(&self) -> Option<NewPart> {
        Some(Arc::new(|| Box::new(Items::default()) as Box<dyn Part>))
    }

    fn merge(&mut self, part: Box<dyn Part>) {
        if let Ok(items) = part.into_any().downcast::<Items>() {
            for i in items.0 {
                self.add(i);
            }
        }
    }

    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results) {
        let commands = Arc::new(self.commands);
        end.set_commands(commands.clone());
        results.device = Some(commands);
        results.end = self.ended.then_some(self.end);
    }
}
