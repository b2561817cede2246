use super::*;

fn head(kernels: usize) -> Vec<(String, String)> {
    OccupancyHeaderInfo {
        profiler_version: "5.6.0".into(),
        application: "/usr/bin/app".into(),
        application_args: "-n 4".into(),
    }
    .to_header(kernels)
}

/// gfx906, 256-item groups, 128 VGPRs: 2 waves per SIMD, 8 per CU.
fn vgpr_bound() -> OccupancyRow {
    OccupancyRow {
        thread_id: 4242,
        kernel: "wide".into(),
        device: "gfx906".into(),
        compute_units: Some(60),
        max_waves_per_cu: Some(40),
        max_wg_per_cu: Some(16),
        max_vgprs: Some(256),
        max_sgprs: Some(102),
        max_lds: Some(65536),
        vgprs_used: Some(128),
        sgprs_used: Some(16),
        lds_used: Some(0),
        wave_size: Some(64),
        wg_size: Some(256),
        waves_per_wg: Some(4),
        max_wg_size: Some(1024),
        max_waves_per_wg: Some(16),
        global_size: Some(1 << 20),
        max_global_size: Some(u32::MAX as u64),
        vgpr_limited_waves: Some(8),
        sgpr_limited_waves: Some(40),
        lds_limited_waves: Some(40),
        wg_limited_waves: Some(40),
        occupancy: Some(20.0),
        gfx_ip: Some(9),
        simds_per_cu: Some(4),
        limiting_factor: Some("VGPR".into()),
    }
}

/// A CPU device: nothing register-related is known.
fn pocl() -> OccupancyRow {
    OccupancyRow {
        thread_id: 7,
        kernel: "void f<int, float>(int*)".into(),
        device: "cpu-haswell-AMD EPYC".into(),
        compute_units: Some(16),
        max_lds: Some(4_194_304),
        lds_used: Some(0),
        wg_size: Some(256),
        max_wg_size: Some(4096),
        global_size: Some(1024),
        ..OccupancyRow::default()
    }
}

const GOLDEN: &str = "\
# ProfilerVersion=5.6.0
# Application=/usr/bin/app
# ApplicationArgs=-n 4
# ListSeparator=,
# KernelCount=2
Thread ID,Kernel Name,Device Name,Number of compute units,Max. number of wavefronts per CU,\
Max. number of work-group per CU,Max. number of VGPR,Max. number of SGPR,Max. amount of LDS,\
Number of VGPR used,Number of SGPR used,Amount of LDS used,Size of wavefront,Work-group size,\
Wavefronts per work-group,Max work-group size,Max wavefronts per work-group,Global work size,\
Maximum global work size,Nbr VGPR-limited waves,Nbr SGPR-limited waves,Nbr LDS-limited waves,\
Nbr of WG-limited waves,Kernel occupancy,Graphics IP Version,Number of SIMDs per CU,Limiting factor
4242,wide,gfx906,60,40,16,256,102,65536,128,16,0,64,256,4,1024,16,1048576,4294967295,8,40,40,40,20,9,4,VGPR
7,\"void f<int, float>(int*)\",cpu-haswell-AMD EPYC,16,NA,NA,NA,NA,4194304,NA,NA,0,NA,256,NA,4096,NA,1024,NA,NA,NA,NA,NA,NA,NA,NA,NA
";

fn golden() -> OccupancyFile {
    OccupancyFile { header: head(2), rows: vec![vgpr_bound(), pocl()] }
}

#[test]
fn writes_rcp_columns_then_the_limiting_factor() {
    assert_eq!(write_occupancy(&golden()), GOLDEN);
}

#[test]
fn reads_back_what_it_wrote() {
    assert_eq!(read_occupancy(GOLDEN).unwrap(), golden());
}

#[test]
fn streaming_pieces_make_the_whole_file() {
    let f = golden();
    let mut s = String::new();
    write_occupancy_head(&mut s, &f.header);
    for r in &f.rows {
        write_occupancy_row(&mut s, ',', r);
    }
    assert_eq!(s, write_occupancy(&f));
}

#[test]
fn reads_an_rcp_file_without_the_limiting_factor() {
    // RCP's writer: no trailing column, a blank line after the column line
    // (SaveToOccupancyFile writes endl after the header), a fractional
    // occupancy as a float streams.
    let mut text = GOLDEN.replace(",Limiting factor\n", "\n\n");
    text = text.replace(",20,9,4,VGPR\n", ",37.5,9,4\n");
    text = text.replace(",NA,NA,NA,NA\n", ",NA,NA,NA\n");
    let f = read_occupancy(&text).unwrap();
    assert_eq!(f.rows[0].limiting_factor, None);
    assert_eq!(f.rows[0].occupancy, Some(37.5));
    assert_eq!(f.rows[1], pocl());
}

#[test]
fn columns_are_found_by_name() {
    let text = "# ListSeparator=;\nKernel Name;Thread ID;Device Name;Kernel occupancy\nk;3;dev;12.5\n";
    let f = read_occupancy(text).unwrap();
    let r = &f.rows[0];
    assert_eq!((r.thread_id, r.kernel.as_str(), r.device.as_str()), (3, "k", "dev"));
    assert_eq!(r.occupancy, Some(12.5));
    assert_eq!(r.compute_units, None);
}

fn random_row(r: &mut Rng) -> OccupancyRow {
    let mut row = OccupancyRow {
        thread_id: r.next(),
        kernel: pick_name(r),
        device: pick_name(r),
        // Values with few digits: the cell keeps 6 significant digits.
        occupancy: opt(r, |r| r.below(801) as f64 / 8.0),
        gfx_ip: opt(r, |r| r.below(13)),
        simds_per_cu: opt(r, |r| r.below(5)),
        limiting_factor: opt(r, pick_name),
        ..OccupancyRow::default()
    };
    for slot in row.counts_mut() {
        *slot = opt(r, |r| r.next() >> r.below(64));
    }
    row
}

#[test]
fn generated_files_round_trip() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let rows: Vec<OccupancyRow> = (0..r.below(5)).map(|_| random_row(&mut r)).collect();
        let mut header = head(rows.len());
        if r.below(3) == 0 {
            header[3].1 = r.pick(&[";", "\t", "|"]).into();
        }
        let f = OccupancyFile { header, rows };
        let text = write_occupancy(&f);
        let back = read_occupancy(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, f, "{text}");
        assert_eq!(write_occupancy(&back), text);
    }
}

#[test]
fn damaged_files_name_the_line() {
    fails_at(read_occupancy("# KernelCount=1\nThread ID,Kernel Name\n"), 2, "\"Device Name\"");
    let head = "# ListSeparator=,\nThread ID,Kernel Name,Device Name,Kernel occupancy\n";
    fails_at(read_occupancy(&format!("{head}1,k,d,12,13\n")), 3, "5 cells, but 4 columns");
    fails_at(read_occupancy(&format!("{head}x,k,d,12\n")), 3, "Thread ID");
    fails_at(read_occupancy(&format!("{head}1,k,d,lots\n")), 3, "Kernel occupancy");
}
