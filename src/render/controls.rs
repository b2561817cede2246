//! The controls' part of the summary (`cltap::controls::Report`): the
//! notes of the event checks and of finish-after-enqueue, and whether the
//! trace asked for device-time histograms. It writes no file.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::trace::record::{View, KIND_NOTE};

pub struct Controls(crate::controls::Report);

impl Controls {
    pub fn sink(cx: &Open<'_>) -> Box<dyn Sink> {
        let histogram = cx.reader.info("histogram") == Some("1");
        Box::new(Controls(crate::controls::Report { histogram, ..Default::default() }))
    }
}

impl Sink for Controls {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[KIND_NOTE])
    }

    fn record(&mut self, v: &View<'_>) {
        if !v.args.is_empty() {
            self.0.note(&v.args, v.kernel_name());
        }
    }

    fn finish(self: Box<Self>, _end: &End<'_>, results: &mut Results) {
        results.controls = self.0;
    }
}
