use super::*;

fn row(index: u64, name: &str) -> ResultsRow {
    ResultsRow {
        index,
        kernel_name: name.into(),
        gpu_id: Some(0),
        queue_id: Some(0),
        queue_index: Some(1 + index),
        pid: 12345,
        tid: 12346,
        grd: 1024,
        wgr: Some(256),
        lds: Some(0),
        scr: Some(0),
        vgpr: Some(8),
        sgpr: Some(16),
        fbar: Some(0),
        sig: Some(0x7f3a_2c00_1040),
        obj: Some(0x7f3a_2c00_0700),
        values: vec![Some(16.0), Some(37.5)],
        times: Some(DispatchTimes { dispatch: 1000, begin: 2000, end: 5000, complete: 6000 }),
    }
}

/// As `sqlitedb.py`'s `dump_csv` writes the table `tblextr.py` fills.
const GOLDEN: &str = "\
\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\",\
\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\",\"SQ_WAVES\",\"VALUBusy\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"
0,\"add_one\",0,0,1,12345,12346,1024,256,0,0,8,16,0,\"0x7f3a2c001040\",\"0x7f3a2c000700\",16,37.5,1000,2000,5000,6000,3000
1,\"void f<int, float>(int*)\",0,0,2,12345,12346,1024,256,0,0,8,16,0,\"0x7f3a2c001040\",\"0x7f3a2c000700\",None,1.5e-05,None,None,None,None,None
";

fn golden() -> ResultsCsv {
    let mut second = row(1, "void f<int, float>(int*)");
    second.values = vec![None, Some(1.5e-5)];
    second.times = None;
    ResultsCsv {
        counters: vec!["SQ_WAVES".into(), "VALUBusy".into()],
        timestamps: true,
        rows: vec![row(0, "add_one"), second],
    }
}

#[test]
fn writes_rocprof_layout() {
    assert_eq!(write_results(&golden()), GOLDEN);
}

#[test]
fn reads_back_what_it_wrote() {
    assert_eq!(read_results(GOLDEN).unwrap(), golden());
}

#[test]
fn streaming_pieces_make_the_whole_file() {
    let f = golden();
    let mut s = String::new();
    write_results_head(&mut s, &f.counters, true);
    for r in &f.rows {
        write_results_row(&mut s, 2, true, r);
    }
    assert_eq!(s, write_results(&f));
}

#[test]
fn without_timestamps_there_are_no_time_columns() {
    let mut f = golden();
    f.timestamps = false;
    for r in &mut f.rows {
        r.times = None;
    }
    let text = write_results(&f);
    assert!(text.starts_with("\"Index\",") && text.lines().next().unwrap().ends_with("\"VALUBusy\""));
    assert!(!text.contains("Ns"), "{text}");
    assert_eq!(read_results(&text).unwrap(), f);
}

#[test]
fn duration_may_be_negative_and_is_not_read_back() {
    let mut f = golden();
    f.rows[0].times = Some(DispatchTimes { dispatch: 9, begin: 10, end: 4, complete: 11 });
    let text = write_results(&f);
    assert!(text.contains(",9,10,4,11,-6\n"), "{text}");
    let tampered = text.replace(",-6\n", ",12345\n");
    assert_eq!(read_results(&tampered).unwrap(), f);
}

#[test]
fn unquoted_names_and_decimal_handles_read_too() {
    let text = "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,vgpr,sgpr,fbar,sig,obj\n\
                3,k,1,2,3,4,5,6,7,8,9,10,11,12,4096,0x10\n";
    let f = read_results(text).unwrap();
    assert!(!f.timestamps);
    assert_eq!((f.rows[0].kernel_name.as_str(), f.rows[0].sig, f.rows[0].obj), ("k", Some(4096), Some(16)));
}

fn random_row(r: &mut Rng, index: u64, counters: usize) -> ResultsRow {
    let mut row =
        ResultsRow { index, pid: r.next() >> r.below(64), tid: r.next(), grd: r.next(), ..ResultsRow::default() };
    for v in [
        &mut row.gpu_id,
        &mut row.queue_id,
        &mut row.queue_index,
        &mut row.wgr,
        &mut row.lds,
        &mut row.scr,
        &mut row.vgpr,
        &mut row.sgpr,
        &mut row.fbar,
        &mut row.sig,
        &mut row.obj,
    ] {
        *v = opt(r, |r| r.next() >> r.below(64));
    }
    row.kernel_name = pick_name(r);
    row.values = (0..counters)
        .map(|_| {
            opt(r, |r| match r.below(3) {
                0 => r.below(1 << 53) as f64,
                // Any double: the cell keeps the shortest digits that read
                // back, as Python's repr does.
                1 => f64::from_bits(r.next() >> 2) * if r.below(2) == 0 { 1.0 } else { -1.0 },
                _ => r.below(1000) as f64 / 7.0,
            })
        })
        .collect();
    row.times = opt(r, |r| DispatchTimes { dispatch: r.next(), begin: r.next(), end: r.next(), complete: r.next() });
    row
}

#[test]
fn generated_files_round_trip() {
    let mut r = Rng(0xd1b5_4a32_d192_ed03);
    for _ in 0..300 {
        let counters: Vec<String> = (0..r.below(5))
            .map(|_| r.pick(&["SQ_WAVES", "GRBM_COUNT", "TA_BUSY[3]", "odd, name", "say \"x\""]).to_string())
            .collect();
        let timestamps = r.below(2) == 0;
        let rows = (0..r.below(5))
            .map(|i| {
                let mut row = random_row(&mut r, i, counters.len());
                if !timestamps {
                    row.times = None;
                }
                row
            })
            .collect();
        let f = ResultsCsv { counters, timestamps, rows };
        let text = write_results(&f);
        let back = read_results(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, f, "{text}");
        assert_eq!(write_results(&back), text);
    }
}

#[test]
fn damaged_files_name_the_line() {
    fails_at(read_results("\"Index\",\"KernelName\"\n"), 1, "no \"gpu-id\" column");
    let cols = RESULTS_COLUMNS.map(|c| format!("\"{c}\"")).join(",");
    fails_at(read_results(&format!("{cols},\"BeginNs\"\n")), 1, "not all of the timestamp");
    let ok_row = "0,\"k\",0,0,0,0,0,0,0,0,0,0,0,0,\"0x1\",\"0x2\"";
    fails_at(read_results(&format!("{cols}\n{ok_row}\n{ok_row},7\n")), 3, "17 cells, but 16 columns");
    fails_at(read_results(&format!("{cols}\n{}\n", ok_row.replace("\"0x1\"", "\"0xzz\""))), 2, "sig");
    fails_at(read_results(&format!("{cols},\"X\"\n{ok_row},many\n")), 2, "counter");
}

/// A dispatch with no HSA side (an OpenCL driver other than AMD's): what the
/// run did not give is `None`, as rocprof writes an SQL NULL, never a 0 or
/// a `"0x0"` handle; and it reads back absent.
#[test]
fn absent_values_are_none_and_read_back_absent() {
    let f = ResultsCsv {
        counters: vec!["Wavefronts".into()],
        timestamps: false,
        rows: vec![ResultsRow {
            index: 0,
            kernel_name: "vecadd".into(),
            pid: 7,
            tid: 8,
            grd: 1024,
            wgr: Some(64),
            lds: Some(0),
            values: vec![None],
            ..ResultsRow::default()
        }],
    };
    let text = write_results(&f);
    assert_eq!(
        text.lines().nth(1),
        Some("0,\"vecadd\",None,None,None,7,8,1024,64,0,None,None,None,None,None,None,None")
    );
    assert_eq!(read_results(&text).unwrap(), f);
    // A quoted "None" is a text, not an absent value: not a number.
    let quoted = text.replace("1024,64,0,None", "1024,64,0,\"None\"");
    assert!(read_results(&quoted).is_err(), "{quoted}");
}
