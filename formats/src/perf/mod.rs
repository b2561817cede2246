//! The per-dispatch counter files: Radeon Compute Profiler's `SESSION.csv`
//! (performance counters) and `SESSION.occupancy` (kernel occupancy), and
//! rocprofiler v1's `results.csv`. `docs/counter-files.md` describes each
//! column and every place where cltap knowingly differs from the originals.
//!
//! The layouts follow the writers named in each file: `csv` (RCP's
//! `CLGPAProfiler`/`HSAGPAProfiler` through `CSVFileWriter`), `occupancy`
//! (RCP's `CLOccupancyFile`/`OccupancyInfoEntry`), `results` (rocprof's tool
//! library and `tblextr.py`/`sqlitedb.py`), `header` (the comment headers and
//! the list separator), `cells` (splitting, quoting, `NA`, number forms).
//! Each file has a writer (whole file, or head and rows for streaming), a
//! reader, and round-trip tests.

mod cells;
mod csv;
mod header;
mod occupancy;
mod results;

#[cfg(test)]
mod tests;

pub use cells::{ReadError, NA};
pub use csv::{
    hsa_method, ocl_method, read_csv, split_method, write_csv, write_csv_head, write_csv_row, MethodParts, PerfCsv,
    PerfRow, STANDARD_COLUMNS,
};
pub use header::{
    list_separator, lookup, Api, CsvHeaderInfo, DeviceHeader, OccupancyHeaderInfo, DEFAULT_SEPARATOR,
    PROFILE_FILE_VERSION,
};
pub use occupancy::{
    read_occupancy, write_occupancy, write_occupancy_head, write_occupancy_row, OccupancyFile, OccupancyRow,
    LIMITING_FACTOR_COLUMN, OCCUPANCY_COLUMNS,
};
pub use results::{
    read_results, write_results, write_results_head, write_results_row, DispatchTimes, ResultsCsv, ResultsRow, NONE,
    RESULTS_COLUMNS, TIME_COLUMNS,
};
