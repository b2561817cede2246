//! One dispatch counting one group for a tool: from the dispatch callback
//! (the group is "pending") to the values (written into the features, then
//! the tool's handler), or to nothing, if the dispatch is not counted after
//! all (dropping the collection un-pends the group, so `get_data` never
//! waits for a dispatch that will not report).

use super::context::Context;
use super::error::RocpError;
use crate::hsa::aqlprofile;
use std::collections::BTreeMap;
use std::sync::Arc;

pub struct Collection {
    ctx: Arc<Context>,
    group: u32,
    done: bool,
}

impl Collection {
    /// Group `group` of `ctx` is to be counted around a dispatch; returns
    /// the collection and the group's events.
    pub fn start(ctx: Arc<Context>, group: u32) -> Result<(Collection, Vec<aqlprofile::Event>), RocpError> {
        let events = ctx.events(group)?.to_vec();
        ctx.begin(group)?;
        Ok((Collection { ctx, group, done: false }, events))
    }

    /// The dispatch's values (summed per event): into the features, then
    /// the tool's handler, as rocprofiler v1 calls it when the group's stop
    /// packet completed.
    pub fn finish(mut self, values: &BTreeMap<aqlprofile::Event, u64>) {
        self.done = true;
        if self.ctx.finish(self.group, values) {
            self.ctx.call_handler(self.group);
        }
    }
}

impl Drop for Collection {
    fn drop(&mut self) {
        if !self.done {
            self.ctx.abandon(self.group);
        }
    }
}
