//! `SESSION.occupancy`, RCP's kernel occupancy file: a `# Key=Value` header,
//! the column line, one row per dispatch (`CLOccupancyFile.cpp`,
//! `OccupancyInfoEntry::ToString`). Cells are separated by the
//! `ListSeparator` alone, with no padding.
//!
//! cltap adds one column after RCP's last: `Limiting factor`. RCP's reader
//! (`OccupancyFileInfoDataHandler::ParseOccupancyFile`) finds every column by
//! name, so a trailing column it does not know is harmless.

use super::cells::{
    err, opt_text, parse_opt_f64, parse_opt_u64, parse_u64, push_g6, push_line, push_opt_u64, push_text, split_cells,
    Cell, ReadError, NA,
};
use super::header::{list_separator, read_header, write_header, Lines};

/// RCP's columns (`ProfilerOutputFileDefs.h`), in its order, then cltap's.
pub const OCCUPANCY_COLUMNS: [&str; 27] = [
    "Thread ID",
    "Kernel Name",
    "Device Name",
    "Number of compute units",
    "Max. number of wavefronts per CU",
    "Max. number of work-group per CU",
    "Max. number of VGPR",
    "Max. number of SGPR",
    "Max. amount of LDS",
    "Number of VGPR used",
    "Number of SGPR used",
    "Amount of LDS used",
    "Size of wavefront",
    "Work-group size",
    "Wavefronts per work-group",
    "Max work-group size",
    "Max wavefronts per work-group",
    "Global work size",
    "Maximum global work size",
    "Nbr VGPR-limited waves",
    "Nbr SGPR-limited waves",
    "Nbr LDS-limited waves",
    "Nbr of WG-limited waves",
    "Kernel occupancy",
    "Graphics IP Version",
    "Number of SIMDs per CU",
    LIMITING_FACTOR_COLUMN,
];

/// cltap's trailing column: what bounds the number of waves (see
/// `docs/occupancy.md` for the words it holds).
pub const LIMITING_FACTOR_COLUMN: &str = "Limiting factor";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct OccupancyFile {
    /// `# Key=Value` lines, in file order (see [`super::OccupancyHeaderInfo`]).
    pub header: Vec<(String, String)>,
    pub rows: Vec<OccupancyRow>,
}

/// One dispatch; every number that cltap cannot know is `None` (`NA`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OccupancyRow {
    pub thread_id: u64,
    pub kernel: String,
    pub device: String,
    pub compute_units: Option<u64>,
    pub max_waves_per_cu: Option<u64>,
    pub max_wg_per_cu: Option<u64>,
    /// Per SIMD lane (gfx9: 256).
    pub max_vgprs: Option<u64>,
    /// Per wave (gfx9: 102).
    pub max_sgprs: Option<u64>,
    /// Bytes per CU.
    pub max_lds: Option<u64>,
    pub vgprs_used: Option<u64>,
    pub sgprs_used: Option<u64>,
    pub lds_used: Option<u64>,
    pub wave_size: Option<u64>,
    pub wg_size: Option<u64>,
    pub waves_per_wg: Option<u64>,
    pub max_wg_size: Option<u64>,
    pub max_waves_per_wg: Option<u64>,
    pub global_size: Option<u64>,
    pub max_global_size: Option<u64>,
    pub vgpr_limited_waves: Option<u64>,
    pub sgpr_limited_waves: Option<u64>,
    pub lds_limited_waves: Option<u64>,
    pub wg_limited_waves: Option<u64>,
    /// Percent; written as C++ streams a float (6 significant digits).
    pub occupancy: Option<f64>,
    /// The major GFX IP number (9 for gfx906), as RCP writes it.
    pub gfx_ip: Option<u64>,
    pub simds_per_cu: Option<u64>,
    pub limiting_factor: Option<String>,
}

impl OccupancyRow {
    /// The counts in column order, from "Number of compute units" to "Nbr of
    /// WG-limited waves".
    fn counts(&self) -> [Option<u64>; 20] {
        [
            self.compute_units,
            self.max_waves_per_cu,
            self.max_wg_per_cu,
            self.max_vgprs,
            self.max_sgprs,
            self.max_lds,
            self.vgprs_used,
            self.sgprs_used,
            self.lds_used,
            self.wave_size,
            self.wg_size,
            self.waves_per_wg,
            self.max_wg_size,
            self.max_waves_per_wg,
            self.global_size,
            self.max_global_size,
            self.vgpr_limited_waves,
            self.sgpr_limited_waves,
            self.lds_limited_waves,
            self.wg_limited_waves,
        ]
    }

    pub(super) fn counts_mut(&mut self) -> [&mut Option<u64>; 20] {
        [
            &mut self.compute_units,
            &mut self.max_waves_per_cu,
            &mut self.max_wg_per_cu,
            &mut self.max_vgprs,
            &mut self.max_sgprs,
            &mut self.max_lds,
            &mut self.vgprs_used,
            &mut self.sgprs_used,
            &mut self.lds_used,
            &mut self.wave_size,
            &mut self.wg_size,
            &mut self.waves_per_wg,
            &mut self.max_wg_size,
            &mut self.max_waves_per_wg,
            &mut self.global_size,
            &mut self.max_global_size,
            &mut self.vgpr_limited_waves,
            &mut self.sgpr_limited_waves,
            &mut self.lds_limited_waves,
            &mut self.wg_limited_waves,
        ]
    }
}

/// The whole file: [`write_occupancy_head`], then [`write_occupancy_row`]
/// for each row.
pub fn write_occupancy(file: &OccupancyFile) -> String {
    let mut out = String::new();
    write_occupancy_head(&mut out, &file.header);
    let sep = list_separator(&file.header);
    for row in &file.rows {
        write_occupancy_row(&mut out, sep, row);
    }
    out
}

/// The header lines and the column line.
pub fn write_occupancy_head(out: &mut String, header: &[(String, String)]) {
    write_header(out, header, "# ");
    let sep = list_separator(header);
    let cells: Vec<String> = OCCUPANCY_COLUMNS.iter().map(|c| c.to_string()).collect();
    push_line(out, &cells, sep, "");
}

pub fn write_occupancy_row(out: &mut String, sep: char, row: &OccupancyRow) {
    let text = |s: &str| {
        let mut c = String::new();
        push_text(&mut c, s, sep);
        c
    };
    let num = |v: Option<u64>| {
        let mut c = String::new();
        push_opt_u64(&mut c, v);
        c
    };
    let mut cells = vec![row.thread_id.to_string(), text(&row.kernel), text(&row.device)];
    cells.extend(row.counts().into_iter().map(num));
    cells.push(match row.occupancy.filter(|v| v.is_finite()) {
        Some(v) => {
            let mut c = String::new();
            push_g6(&mut c, v);
            c
        }
        None => NA.to_string(),
    });
    cells.push(num(row.gfx_ip));
    cells.push(num(row.simds_per_cu));
    cells.push(match &row.limiting_factor {
        Some(f) => text(f),
        None => NA.to_string(),
    });
    push_line(out, &cells, sep, "");
}

/// Parses a whole file. Columns are found by name, as RCP's reader does: a
/// file without `Limiting factor` (RCP's own) reads with it `None`, and so
/// does any other column it lacks, except the first three.
pub fn read_occupancy(text: &str) -> Result<OccupancyFile, ReadError> {
    let mut lines = Lines::new(text);
    let header = read_header(&mut lines, "# ")?;
    let sep = list_separator(&header);
    let Some((col_line, l)) = lines.take() else {
        return Ok(OccupancyFile { header, rows: Vec::new() });
    };
    let columns = split_cells(l, sep).map_err(|r| err(col_line, r))?;
    let mut at = [None; OCCUPANCY_COLUMNS.len()];
    for (i, c) in columns.iter().enumerate() {
        if let Some(k) = OCCUPANCY_COLUMNS.iter().position(|n| *n == c.text) {
            at[k].get_or_insert(i);
        }
    }
    for (k, name) in OCCUPANCY_COLUMNS.iter().enumerate().take(3) {
        if at[k].is_none() {
            return Err(err(col_line, format!("no {name:?} column")));
        }
    }
    let mut rows = Vec::new();
    while let Some((no, l)) = lines.take() {
        let cells = split_cells(l, sep).map_err(|r| err(no, r))?;
        if cells.len() > columns.len() {
            return Err(err(no, format!("{} cells, but {} columns", cells.len(), columns.len())));
        }
        rows.push(parse_row(&cells, &at).map_err(|r| err(no, r))?);
    }
    Ok(OccupancyFile { header, rows })
}

fn parse_row(cells: &[Cell], at: &[Option<usize>; 27]) -> Result<OccupancyRow, String> {
    let na = Cell { text: NA.to_string(), quoted: false };
    let cell = |k: usize| at[k].and_then(|i| cells.get(i)).unwrap_or(&na);
    let mut row = OccupancyRow {
        thread_id: parse_u64(cell(0), OCCUPANCY_COLUMNS[0])?,
        kernel: cell(1).text.clone(),
        device: cell(2).text.clone(),
        ..OccupancyRow::default()
    };
    for (k, slot) in row.counts_mut().into_iter().enumerate() {
        *slot = parse_opt_u64(cell(3 + k), OCCUPANCY_COLUMNS[3 + k])?;
    }
    row.occupancy = parse_opt_f64(cell(23), OCCUPANCY_COLUMNS[23], NA)?;
    row.gfx_ip = parse_opt_u64(cell(24), OCCUPANCY_COLUMNS[24])?;
    row.simds_per_cu = parse_opt_u64(cell(25), OCCUPANCY_COLUMNS[25])?;
    row.limiting_factor = opt_text(cell(26));
    Ok(row)
}
