//! The ROCP_METRICS reader: files it accepts and what it says about the ones
//! it refuses (every message exactly, positions into the original file).

use super::{fails, load};
use crate::metrics::{gfx9_defaults, Block, Catalog, MetricKind};

const INHERIT: &str = "\
# base section
<gfx9>
  <metric name=\"A\" block=SQ event=4 descr=\"first\"></metric>
  <metric name=B block=SQ event=5 descr='x & y < z'></metric>
</gfx9>
<gfx906 base=\"gfx9\">
  <metric name=B block=SQ event=6></metric>   # override
  <metric name=C block=TCC event=20 />
</gfx906>
<global>
  <metric name=D expr=A+B></metric>
</global>
";

fn event_of(cat: &Catalog, name: &str) -> (Block, u32) {
    let c = cat.metric(name).and_then(|m| m.counter()).unwrap_or_else(|| panic!("{name} is not a counter"));
    (c.block, c.event)
}

#[test]
fn inheritance_overrides_and_adds() {
    let cat = load(INHERIT, "gfx906").unwrap();
    assert_eq!(cat.section(), "gfx906");
    assert_eq!(event_of(&cat, "A"), (Block::SQ, 4));
    assert_eq!(event_of(&cat, "B"), (Block::SQ, 6));
    assert_eq!(cat.metric("B").unwrap().section, "gfx906");
    assert_eq!(cat.metric("C").unwrap().counter().unwrap().instances, 16);
    // Inherited entries first, then the section's own, then <global>.
    let names: Vec<&str> = cat.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
    assert_eq!(cat.metric("A").unwrap().descr, "first");
    assert_eq!(cat.metric("D").unwrap().origin.to_string(), "m.xml:11:16");

    let base = load(INHERIT, "gfx9").unwrap();
    assert_eq!(event_of(&base, "B"), (Block::SQ, 5));
    assert_eq!(base.metric("B").unwrap().descr, "x & y < z");
    assert!(base.metric("C").is_none());
}

#[test]
fn gpu_names_select_sections() {
    assert_eq!(load(INHERIT, "gfx906:sramecc+:xnack-").unwrap().section(), "gfx906");
    // No gfx900 section: the family section.
    assert_eq!(load(INHERIT, "gfx900").unwrap().section(), "gfx9");
    assert_eq!(load(INHERIT, "gfx90a").unwrap().section(), "gfx9");
    assert_eq!(fails(INHERIT, "gfx1100"), "m.xml: no section for GPU 'gfx1100' (sections: gfx9, gfx906)");
    assert_eq!(fails(INHERIT, "global"), "m.xml: no section for GPU 'global' (sections: gfx9, gfx906)");
}

#[test]
fn rocprofiler_layout_merged_sections_and_wrapper() {
    // As rocprofiler's test/tool files: counters in <gfx9>, expressions in
    // <gfx9_expr>, and a second <gfx9 base=...> that ties them together.
    let text = "\
<gfx9>
  <metric name=\"TCC_HIT\" block=TCC event=20 descr=\"hits\"></metric>
</gfx9>
<gfx9_expr>
  <metric name=\"TCC_HIT_sum\" expr=sum(TCC_HIT,16) descr=\"all hits\"></metric>
</gfx9_expr>
<gfx9 base=\"gfx9_expr\"></gfx9>
";
    let cat = load(text, "gfx906").unwrap();
    assert_eq!(cat.section(), "gfx9");
    assert!(cat.metric("TCC_HIT_sum").unwrap().derived().is_some());

    let wrapped = "<metrics>\n  <gfx9>\n    <metric name=S block=SQ event=4></metric>\n  </gfx9>\n</metrics>\n";
    assert_eq!(event_of(&load(wrapped, "gfx9").unwrap(), "S"), (Block::SQ, 4));
}

#[test]
fn comments_inside_tags_and_multiline_entries() {
    let text = "\
<gfx9>
  <metric
    # a comment inside the tag
    name=\"S\"
    block=SQ   # and after a value
    event=0x1f
    descr=\"a # inside quotes\"
  ></metric>
</gfx9>
";
    let cat = load(text, "gfx9").unwrap();
    assert_eq!(event_of(&cat, "S"), (Block::SQ, 31));
    assert_eq!(cat.metric("S").unwrap().descr, "a # inside quotes");
}

#[test]
fn includes_are_relative_to_the_including_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inc")).unwrap();
    std::fs::write(
        dir.path().join("inc/counters.xml"),
        "#include \"more.xml\"\n<gfx9>\n  <metric name=S block=SQ event=4></metric>\n</gfx9>\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("inc/more.xml"), "<gfx9>\n  <metric name=T block=SQ event=5></metric>\n</gfx9>\n")
        .unwrap();
    std::fs::write(
        dir.path().join("top.xml"),
        "#include \"inc/counters.xml\"\n<global>\n  <metric name=D expr=S+T></metric>\n</global>\n",
    )
    .unwrap();
    let cat = Catalog::load(Some(&dir.path().join("top.xml")), "gfx906", &gfx9_defaults()).unwrap();
    assert_eq!(event_of(&cat, "T"), (Block::SQ, 5));
    assert!(matches!(cat.metric("D").unwrap().kind, MetricKind::Derived(_)));
    // Positions in an included file name that file.
    let t = cat.metric("T").unwrap().origin.to_string();
    assert!(t.ends_with("inc/more.xml:2:16"), "{t}");
    assert_eq!(cat.metric("D").unwrap().origin.to_string(), format!("{}:3:16", dir.path().join("top.xml").display()));

    // An error inside an included file names it.
    std::fs::write(dir.path().join("inc/more.xml"), "<gfx9>\n  <metric name=T block=QQ event=5></metric>\n</gfx9>\n")
        .unwrap();
    let e = Catalog::load(Some(&dir.path().join("top.xml")), "gfx906", &gfx9_defaults()).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:2:24: unknown block name 'QQ'", dir.path().join("inc").join("more.xml").display())),
        "{e}"
    );
}

#[test]
fn include_cycles_and_missing_includes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.xml");
    let b = dir.path().join("b.xml");
    std::fs::write(&a, "#include \"b.xml\"\n").unwrap();
    std::fs::write(&b, "\n#include \"a.xml\"\n").unwrap();
    let e = Catalog::load(Some(&a), "gfx9", &gfx9_defaults()).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("{}:2:11: include cycle: {} -> {} -> {}", b.display(), a.display(), b.display(), a.display())
    );

    std::fs::write(&a, "<gfx9></gfx9>\n#include \"nope.xml\"\n").unwrap();
    let e = Catalog::load(Some(&a), "gfx9", &gfx9_defaults()).unwrap_err().to_string();
    let nope = dir.path().join("nope.xml");
    assert!(e.starts_with(&format!("{}:2:11: cannot read included file '{}': ", a.display(), nope.display())), "{e}");

    let e = Catalog::load(Some(&nope), "gfx9", &gfx9_defaults()).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: ", nope.display())), "{e}");
}

/// Each malformed file and the exact line it produces.
#[test]
fn malformed_files() {
    let blocks = Block::names();
    let cases: Vec<(&str, String)> = vec![
        (
            "<gfx9>\n  <metric name=A block=XYZ event=1></metric>\n</gfx9>\n",
            format!("m.xml:2:24: unknown block name 'XYZ' (AQLprofile blocks: {blocks})"),
        ),
        (
            "<gfx9>\n  <metric name=A block=SQ event=1></metric>\n  <metric name=A block=SQ event=2></metric>\n</gfx9>\n",
            "m.xml:3:16: duplicate metric 'A' (first defined at m.xml:2:16)".into(),
        ),
        (
            "<gfx9>\n  <metric name=A block=SQ event=1></metric>\n</gfx9>\n<global>\n  <metric name=A expr=2></metric>\n</global>\n",
            "m.xml:5:16: duplicate metric 'A' (first defined at m.xml:2:16)".into(),
        ),
        ("<gfx9 base=gfx8></gfx9>\n", "m.xml:1:12: section <gfx9> names unknown base 'gfx8'".into()),
        ("<gfx9 base=b></gfx9>\n<b base=gfx9></b>\n", "m.xml:2:9: base cycle between sections: gfx9 -> b -> gfx9".into()),
        (
            "<gfx9>\n  <metric name=S block=SQ event=4></metric>\n</gfx9>\n<global>\n  <metric name=A expr=B+S></metric>\n  <metric name=B expr=2*A></metric>\n</global>\n",
            "m.xml:5:23: reference cycle between derived metrics: A -> B -> A".into(),
        ),
        ("<gfx9>\n  <metric name=A expr=A+1></metric>\n</gfx9>\n", "m.xml:2:23: reference cycle between derived metrics: A -> A".into()),
        (
            "<gfx9>\n  <metric name=SQ_WAVES block=SQ event=4></metric>\n  <metric name=A expr=2*SQ_WAVEZ></metric>\n</gfx9>\n",
            "m.xml:3:25: unknown metric 'SQ_WAVEZ' in expression (did you mean 'SQ_WAVES'?)".into(),
        ),
        ("<gfx9>\n  <metric name=A expr=2*NOTHING_LIKE_IT></metric>\n</gfx9>\n", "m.xml:2:25: unknown metric 'NOTHING_LIKE_IT' in expression".into()),
        (
            "<gfx9>\n  <metric name=A expr=avg(SQ_WAVES,2)></metric>\n</gfx9>\n",
            "m.xml:2:23: unknown function 'avg' (known: sum, avr, min, max)".into(),
        ),
        ("<gfx9>\n  <metric name=A expr=(1+2></metric>\n</gfx9>\n", "m.xml:2:23: expression syntax error: '(' is never closed".into()),
        (
            "<gfx9>\n  <metric name=A expr=1+*2></metric>\n</gfx9>\n",
            "m.xml:2:25: expression syntax error: expected a number, a name or '(' but found '*'".into(),
        ),
        ("<gfx9>\n  <metric name=A expr=1+2)></metric>\n</gfx9>\n", "m.xml:2:26: expression syntax error: ')' without a matching '('".into()),
        ("<gfx9>\n  <metric name=A expr=\"1 % 2\"></metric>\n</gfx9>\n", "m.xml:2:26: expression syntax error: unexpected character '%'".into()),
        (
            "<gfx9>\n  <metric name=A expr=sum(SQ_WAVES)></metric>\n</gfx9>\n",
            "m.xml:2:35: expression syntax error: expected ',' but found ')'".into(),
        ),
        ("<gfx9>\n  <metric block=SQ event=1></metric>\n</gfx9>\n", "m.xml:2:3: <metric> without name=".into()),
        ("<gfx9>\n  <metric name=\"A B\" block=SQ event=1></metric>\n</gfx9>\n", "m.xml:2:17: metric name 'A B' is not a name an expression can use (letters, digits, _)".into()),
        (
            "<gfx9>\n  <metric name=A block=SQ event=1 expr=2></metric>\n</gfx9>\n",
            "m.xml:2:16: metric 'A' has both expr= and block=/event=".into(),
        ),
        (
            "<gfx9>\n  <metric name=A block=SQ></metric>\n</gfx9>\n",
            "m.xml:2:16: metric 'A' needs block= and event= (a counter) or expr= (a derived metric)".into(),
        ),
        ("<gfx9>\n  <metric name=A block=SQ event=x4></metric>\n</gfx9>\n", "m.xml:2:33: event 'x4' of metric 'A' is not a number".into()),
        ("<metric name=A block=SQ event=1></metric>\n", "m.xml:1:1: <metric> outside a section (put it in <gfx9>, <global>, ...)".into()),
        ("<gfx9>\n  <counter name=A></counter>\n</gfx9>\n", "m.xml:2:3: unexpected <counter> in section <gfx9> (only <metric> entries)".into()),
        (
            "<gfx9>\n  <metric name=A block=SQ event=1><x/></metric>\n</gfx9>\n",
            "m.xml:2:35: unexpected <x> inside <metric> (entries have no children)".into(),
        ),
        ("<gfx9>\n  SQ_WAVES\n</gfx9>\n", "m.xml:2:3: unexpected text 'SQ_WAVES' outside a tag".into()),
        ("<gfx9>\n  <metric name=A block=SQ event=1></metric>\n", "m.xml:1:1: <gfx9> is never closed".into()),
        (
            "<gfx9>\n  <metric name=A block=SQ event=1>\n</gfx9>\n",
            "m.xml:3:1: malformed XML: ill-formed document: expected `</metric>`, but `</gfx9>` was found".into(),
        ),
        ("<gfx9>\n  <metric name=\"A block=SQ event=1></metric>\n</gfx9>\n", "m.xml:2:16: quoted value is never closed".into()),
        (
            "<gfx9>\n  <metric name=A name=B block=SQ event=1></metric>\n</gfx9>\n",
            "m.xml:2:18: bad attribute in <metric>: attribute given twice (first at m.xml:2:11)".into(),
        ),
        ("#include gfx.xml\n<gfx9></gfx9>\n", "m.xml:1:1: malformed #include: expected #include \"FILE\"".into()),
        (
            "<gfx9>\n  <metric name=CU_NUM block=SQ event=1></metric>\n</gfx9>\n",
            "m.xml:2:16: 'CU_NUM' is a constant name and cannot be defined as a metric".into(),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(fails(text, "gfx9"), want, "\n{text}");
    }
}

/// Errors that depend on the GPU's blocks.
#[test]
fn instance_and_block_errors() {
    let counters =
        "<gfx9>\n  <metric name=TCC_HIT block=TCC event=20></metric>\n  <metric name=S block=SQ event=4></metric>\n";
    let with = |expr: &str| format!("{counters}  <metric name=X expr={expr}></metric>\n</gfx9>\n");
    assert_eq!(
        fails(&with("TCC_HIT[16]"), "gfx906"),
        "m.xml:4:23: TCC_HIT[16]: gfx906 has 16 instance(s) of TCC (0..15)"
    );
    assert_eq!(
        fails(&with("sum(TCC_HIT,32)"), "gfx906"),
        "m.xml:4:27: sum(TCC_HIT,32) needs 32 instances of TCC; gfx906 has 16"
    );
    assert_eq!(
        fails(&with("sum(TCC_HIT,0)"), "gfx906"),
        "m.xml:4:35: expression syntax error: the instance count must be at least 1"
    );
    let derived =
        format!("{counters}  <metric name=Y expr=2*S></metric>\n  <metric name=X expr=max(Y,2)></metric>\n</gfx9>\n");
    assert_eq!(fails(&derived, "gfx906"), "m.xml:5:27: max() needs a hardware counter; 'Y' is a derived metric");
    assert_eq!(
        fails("<gfx9>\n  <metric name=L2 block=GL2C event=1></metric>\n</gfx9>\n", "gfx906"),
        "m.xml:2:16: block GL2C has no counters on gfx906"
    );
    // Within range: fine, and the single-instance SQ accepts [0].
    assert!(load(&with("TCC_HIT[15]+S[0]+sum(TCC_HIT,16)"), "gfx906").is_ok());
}

/// Duplicates and errors in sections the GPU does not use do not matter,
/// as in rocprofiler, which only imports the GPU's sections.
#[test]
fn other_sections_do_not_break_a_gpu() {
    let text = "<gfx9>\n  <metric name=S block=SQ event=4></metric>\n</gfx9>\n<gfx10>\n  <metric name=S block=SQ event=4></metric>\n  <metric name=S block=SQ event=5></metric>\n  <metric name=G block=GL2C event=1></metric>\n</gfx10>\n";
    assert!(load(text, "gfx906").is_ok());
    assert_eq!(fails(text, "gfx1030"), "m.xml:6:16: duplicate metric 'S' (first defined at m.xml:5:16)");
}
