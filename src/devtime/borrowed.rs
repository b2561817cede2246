//! A timed command's fields borrowed, as the trace, the store and the
//! spill file take it: a read hands each completed command over from the
//! enqueue's own record (`enqueue::Enqueued`) without copying it into a
//! [`Command`], so that reading a command allocates nothing.

use super::Command;

/// See the module; the fields are [`Command`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandRef<'a> {
    pub cmd_id: u64,
    pub api: &'static str,
    pub tid: u32,
    pub queue: u64,
    pub context: u64,
    pub device: &'a str,
    pub cmd_type: u32,
    pub kernel: Option<&'a str>,
    pub global: &'a [usize],
    pub local: Option<&'a [usize]>,
    pub bytes: Option<u64>,
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
    pub status: i32,
    pub enqueue_tsc: u64,
    pub enqueue_end_tsc: u64,
    pub to_host: Option<i64>,
}

impl Command {
    pub fn as_ref(&self) -> CommandRef<'_> {
        CommandRef {
            cmd_id: self.cmd_id,
            api: self.api,
            tid: self.tid,
            queue: self.queue,
            context: self.context,
            device: &self.device,
            cmd_type: self.cmd_type,
            kernel: self.kernel.as_deref(),
            global: &self.global,
            local: self.local.as_deref(),
            bytes: self.bytes,
            queued: self.queued,
            submit: self.submit,
            start: self.start,
            end: self.end,
            status: self.status,
            enqueue_tsc: self.enqueue_tsc,
            enqueue_end_tsc: self.enqueue_end_tsc,
            to_host: self.to_host,
        }
    }

    pub fn duration_ns(&self) -> u64 {
        self.as_ref().duration_ns()
    }

    /// Transfer direction, for the transfer table.
    pub fn direction(&self) -> Option<&'static str> {
        self.as_ref().direction()
    }
}

impl CommandRef<'_> {
    pub fn duration_ns(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Transfer direction, for the transfer table.
    pub fn direction(&self) -> Option<&'static str> {
        Some(match self.api {
            "clEnqueueReadBuffer" | "clEnqueueReadBufferRect" | "clEnqueueReadImage" => "device to host",
            "clEnqueueWriteBuffer" | "clEnqueueWriteBufferRect" | "clEnqueueWriteImage" => "host to device",
            "clEnqueueCopyBuffer"
            | "clEnqueueCopyBufferRect"
            | "clEnqueueCopyImage"
            | "clEnqueueCopyImageToBuffer"
            | "clEnqueueCopyBufferToImage" => "device to device",
            "clEnqueueFillBuffer" | "clEnqueueFillImage" => "fill",
            "clEnqueueSVMMemcpy" => "SVM copy",
            _ => return None,
        })
    }

    /// The command, owned.
    pub fn to_command(&self) -> Command {
        Command {
            cmd_id: self.cmd_id,
            api: self.api,
            tid: self.tid,
            queue: self.queue,
            context: self.context,
            device: self.device.into(),
            cmd_type: self.cmd_type,
            kernel: self.kernel.map(str::to_string),
            global: self.global.to_vec(),
            local: self.local.map(<[usize]>::to_vec),
            bytes: self.bytes,
            queued: self.queued,
            submit: self.submit,
            start: self.start,
            end: self.end,
            status: self.status,
            enqueue_tsc: self.enqueue_tsc,
            enqueue_end_tsc: self.enqueue_end_tsc,
            to_host: self.to_host,
        }
    }
}
