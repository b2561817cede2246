//! The counter files as a sink (`.csv`, `.occupancy`, `results.csv`): the
//! collector gathers the rows; at the end a one-pass request writes the
//! files and a pass of a multi-pass one is kept (`<stem>.pass<N>.json`) for
//! `cltap run` to join.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::counters::collect::{Collector, Request};
use crate::counters::files;
use crate::trace::record::View;

pub struct CounterFiles {
    collector: Collector,
}

impl CounterFiles {
    pub fn sink(_cx: &Open<'_>, request: Request) -> Box<dyn Sink> {
        Box::new(CounterFiles { collector: Collector::new(request) })
    }
}

impl Sink for CounterFiles {
    fn kinds(&self) -> Kinds {
        Kinds::ALL
    }

    fn record(&mut self, v: &View<'_>) {
        if v.returned() {
            self.collector.record(v);
        }
    }

    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results) {
        let mut commands = Vec::new();
        end.commands().for_each(|c| commands.push(c));
        let mut pass = self.collector.finish(commands);
        pass.pid = end.reader.header.pid;
        let (dir, stem) = (&end.outputs.dir, &end.outputs.stem);
        results.counter_passes = Some(pass.passes);
        if pass.passes > 1 {
            let p = files::pass_path(dir, stem, pass.pass);
            if let Err(e) = files::save_pass(&p, &pass) {
                crate::warn!("cannot write {}: {e}", p.display());
            }
            return;
        }
        let process = super::outputs::process_of(end.reader);
        files::unavailable(&pass);
        match files::write(dir, stem, &pass, &process) {
            Ok(paths) => results.files.extend(paths),
            Err(e) => crate::warn!("cannot write the counter files in {}: {e}", dir.display()),
        }
    }
}
