//! The RCP `.atp` goldens (`formats/src/atp/tests/golden.txt`, which the
//! writer's unit tests `golden_lines_match_rcp` and `hsa_golden_lines_match_rcp` read) are what their
//! generator, `formats/src/atp/tests/golden.cpp`, prints: it is compiled
//! with the machine's g++ and run, and its output must be the committed
//! file byte for byte. The generator lays the lines out with the C++
//! library's `std::left`/`std::setw` and pointer output, as RCP's writer
//! does, so the goldens' columns do not come from cltap's writer.

mod common;
use common::*;

#[test]
fn the_committed_goldens_are_what_their_generator_prints() {
    let dir = scratch("atp-golden");
    let src = root().join("formats/src/atp/tests/golden.cpp");
    let exe = dir.join("golden");
    let st = std::process::Command::new("g++")
        .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("run g++");
    assert!(st.success(), "building the .atp goldens' generator failed");
    let o = std::process::Command::new(&exe).output().expect("run the generator");
    assert!(o.status.success(), "{o:?}");
    let committed = std::fs::read(root().join("formats/src/atp/tests/golden.txt")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&committed),
        "golden.txt is not what golden.cpp prints: regenerate it (see golden.cpp's first lines)"
    );
    // Every case the unit test reads is there (a case left out of the
    // generator would make the unit test fail, not pass).
    let text = String::from_utf8_lossy(&committed);
    let cases: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("@@ ")).collect();
    assert_eq!(cases.len(), 16, "{cases:?}");
}
