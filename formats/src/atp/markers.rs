//! Perf-marker lines (`AMDTActivityLogger.cpp`: `amdtBeginMarker`,
//! `amdtEndMarkerEx`).

use std::borrow::Cow;

use super::fields::{escaped, number, Columns, Small};
use super::{Marker, EMPTY_FIELD};

/// RCP's stand-in for a space inside perf-marker names and groups (and kernel
/// names, `Common/Defs.h`'s `SPACE`).
pub(super) const MARKER_SPACE: &str = "&nbsp;";

/// RCP's group for markers begun without one.
const DEFAULT_MARKER_GROUP: &str = "Default";

/// Marker names this long or longer leave RCP's 50-column field.
const MARKER_NAME_WIDTH: usize = 50;

/// `clBeginPerfMarker name time   group` / `clEndPerfMarker time`, in the
/// ActivityLogger's columns. Whitespace in names and groups is stored as
/// `&nbsp;`; an empty group is RCP's `Default`, an empty name
/// [`EMPTY_FIELD`].
pub fn write_marker(out: &mut String, m: &Marker) {
    let mut line = Columns::new(out);
    match m {
        Marker::Begin { name, time, group } => {
            let name = marker_text(name, EMPTY_FIELD);
            let time = Small::dec(*time);
            if name.len() < MARKER_NAME_WIDTH {
                line.col("clBeginPerfMarker", 20);
                line.col(&name, MARKER_NAME_WIDTH);
                line.col(time.as_str(), 20);
            } else {
                // amdtBeginMarker's layout for names too long for the column.
                line.raw("clBeginPerfMarker   ");
                line.raw(&name);
                line.raw("   ");
                line.raw(time.as_str());
            }
            line.raw("   ");
            line.raw(&marker_text(group, DEFAULT_MARKER_GROUP));
        }
        Marker::End { time } => {
            line.col("clEndPerfMarker", 20);
            line.col(Small::dec(*time).as_str(), 20);
        }
    }
    out.push('\n');
}

fn marker_text<'s>(s: &'s str, if_empty: &'static str) -> Cow<'s, str> {
    escaped(s, if_empty, |c| c.is_whitespace().then_some(MARKER_SPACE))
}

pub(super) fn parse_marker(l: &str) -> Result<Marker, String> {
    let f: Vec<&str> = l.split_whitespace().collect();
    match f.as_slice() {
        ["clBeginPerfMarker", name, time, group @ ..] if !group.is_empty() => Ok(Marker::Begin {
            name: name.replace(MARKER_SPACE, " "),
            time: number(time, "marker time")?,
            // Old ActivityLogger builds left spaces in groups unescaped.
            group: group.join(" ").replace(MARKER_SPACE, " "),
        }),
        ["clEndPerfMarker", time] => Ok(Marker::End { time: number(time, "marker time")? }),
        // Newer ActivityLogger builds name the marker they end; the name is
        // redundant with the matching begin and is not kept.
        ["clEndPerfMarkerEx", time, _name, _group, ..] => Ok(Marker::End { time: number(time, "marker time")? }),
        ["clBeginPerfMarker" | "clEndPerfMarker" | "clEndPerfMarkerEx", ..] => {
            Err(format!("perf-marker line with {} fields", f.len()))
        }
        _ => Err("expected clBeginPerfMarker, clEndPerfMarker or clEndPerfMarkerEx".into()),
    }
}
