//! The HSA kernel-timestamp section's lines, one per kernel dispatch
//! (`HSAFdnTrace/HSAAqlPacketInfo.cpp`, `HSAAqlKernelDispatchPacket::
//! WritePacketEntry` and `HSAAqlPacketBase::WritePacketEntry`).

use std::borrow::Cow;

use super::fields::{escaped, number, parse_handle, token, Columns, Small};
use super::markers::MARKER_SPACE;
use super::{KernelDispatch, EMPTY_FIELD};

/// RCP's stand-in for a comma in kernel names (`Common/Defs.h`'s `COMMA`).
const KERNEL_COMMA: &str = "&comma;";

/// The kernel-name column; a longer name is followed by one space.
const KERNEL_NAME_WIDTH: usize = 50;

/// Fields before the packet text.
const FIXED_FIELDS: usize = 10;

/// One dispatch in RCP's columns: kernel name 50 (at least), kernel handle 21,
/// start and end 21, agent name 64, agent handle 21, queue index 21, agent
/// index 10, packet type 35, packet id 21, then the packet text. Whitespace in
/// the kernel name is stored as `&nbsp;` and commas as `&comma;`, as RCP's
/// `DemangleKernelName` does; whitespace in the agent name and packet type
/// becomes `_`; line breaks in the packet text become spaces and the text is
/// trimmed. Empty fields are [`EMPTY_FIELD`].
pub fn write_kernel_dispatch(out: &mut String, k: &KernelDispatch) {
    let mut line = Columns::new(out);
    line.col(&kernel_name(&k.kernel_name), KERNEL_NAME_WIDTH);
    line.col(Small::upper_handle(k.kernel_handle).as_str(), 21);
    line.col(Small::dec(k.start).as_str(), 21);
    line.col(Small::dec(k.end).as_str(), 21);
    line.col(&token(&k.agent_name, &[]), 64);
    line.col(&format!("{{{}}}", k.agent_handle), 21);
    line.col(Small::dec(k.queue_index).as_str(), 21);
    line.col(Small::dec(u64::from(k.agent_index)).as_str(), 10);
    line.col(&token(&k.packet_type, &[]), 35);
    line.col(Small::dec(k.packet_id).as_str(), 21);
    line.col(&packet_text(&k.packet), 0);
    out.push('\n');
}

fn kernel_name(s: &str) -> Cow<'_, str> {
    escaped(s, EMPTY_FIELD, |c| match c {
        ',' => Some(KERNEL_COMMA),
        c if c.is_whitespace() => Some(MARKER_SPACE),
        _ => None,
    })
}

fn packet_text(s: &str) -> Cow<'_, str> {
    let s = s.trim();
    if s.is_empty() {
        Cow::Borrowed(EMPTY_FIELD)
    } else if s.contains(['\n', '\r']) {
        Cow::Owned(s.replace(['\n', '\r'], " "))
    } else {
        Cow::Borrowed(s)
    }
}

pub(super) fn parse_kernel_dispatch(l: &str) -> Result<KernelDispatch, String> {
    let mut f = [""; FIXED_FIELDS];
    let mut rest = l;
    for (i, slot) in f.iter_mut().enumerate() {
        let r = rest.trim_start();
        let end = r.find(char::is_whitespace).unwrap_or(r.len());
        if end == 0 {
            return Err(format!("kernel timestamp line has {i} fields, needs {}", FIXED_FIELDS + 1));
        }
        *slot = &r[..end];
        rest = &r[end..];
    }
    let packet = rest.trim();
    if packet.is_empty() {
        return Err("kernel timestamp line ends before the packet text".into());
    }
    Ok(KernelDispatch {
        kernel_name: f[0].replace(MARKER_SPACE, " ").replace(KERNEL_COMMA, ","),
        kernel_handle: parse_handle(f[1], "kernel handle")?,
        start: number(f[2], "start time")?,
        end: number(f[3], "end time")?,
        agent_name: f[4].to_string(),
        agent_handle: parse_agent_handle(f[5])?,
        queue_index: number(f[6], "queue index")?,
        agent_index: number(f[7], "agent index")?,
        packet_type: f[8].to_string(),
        packet_id: number(f[9], "packet id")?,
        packet: packet.to_string(),
    })
}

/// `{N}`, `HSAAgentUtils::GetHSAAgentString`'s form; a bare `N` too.
fn parse_agent_handle(s: &str) -> Result<u64, String> {
    let inner = s.strip_prefix('{').and_then(|s| s.strip_suffix('}')).unwrap_or(s);
    number(inner, "agent handle")
}
