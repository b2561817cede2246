use super::super::cells::*;

fn texts(line: &str, sep: char) -> Vec<(String, bool)> {
    split_cells(line, sep).unwrap().into_iter().map(|c| (c.text, c.quoted)).collect()
}

fn t(s: &str, quoted: bool) -> (String, bool) {
    (s.to_string(), quoted)
}

#[test]
fn cells_are_trimmed_of_spaces_and_unquoted() {
    assert_eq!(
        texts("a, b ,   c,,d,", ','),
        [t("a", false), t("b", false), t("c", false), t("", false), t("d", false), t("", false)]
    );
    assert_eq!(
        texts(r#""x, y" ,"say ""hi""",NA,"NA", "" "#, ','),
        [t("x, y", true), t("say \"hi\"", true), t("NA", false), t("NA", true), t("", true)]
    );
    assert_eq!(texts("a,b;c", ';'), [t("a,b", false), t("c", false)]);
}

#[test]
fn broken_quotes_are_errors() {
    assert!(split_cells("\"open, cell", ',').unwrap_err().contains("unclosed"));
    assert!(split_cells("\"a\"b,c", ',').unwrap_err().contains("after a closing quote"));
}

#[test]
fn text_is_quoted_only_when_it_would_not_read_back() {
    let q = |s: &str, sep: char| {
        let mut o = String::new();
        push_text(&mut o, s, sep);
        o
    };
    assert_eq!(q("add_one", ','), "add_one");
    assert_eq!(q("a b", ','), "a b");
    assert_eq!(q("a;b", ','), "a;b");
    assert_eq!(q("a;b", ';'), "\"a;b\"");
    assert_eq!(q("f<int, float>", ','), "\"f<int, float>\"");
    assert_eq!(q("NA", ','), "\"NA\"");
    assert_eq!(q("", ','), "\"\"");
    assert_eq!(q(" lead", ','), "\" lead\"");
    assert_eq!(q("say \"hi\"", ','), "\"say \"\"hi\"\"\"");
    assert_eq!(q("two\nlines", ','), "\"two lines\"");
}

#[test]
fn rcp_values_are_integers_or_two_decimals() {
    let v = |x: Option<f64>| {
        let mut o = String::new();
        push_rcp_value(&mut o, x);
        o
    };
    assert_eq!(v(Some(1024.0)), "1024");
    assert_eq!(v(Some(37.5)), "       37.50");
    assert_eq!(v(Some(-0.125)), "       -0.12");
    assert_eq!(v(Some(123456789012.345)), "123456789012.35");
    assert_eq!(v(None), "NA");
    assert_eq!(v(Some(f64::NAN)), "NA");
    assert_eq!(v(Some(f64::INFINITY)), "NA");
}

#[test]
fn g6_matches_printf_percent_g() {
    // Expected strings from glibc's printf("%g", ...).
    let g = |x: f64| {
        let mut o = String::new();
        push_g6(&mut o, x);
        o
    };
    assert_eq!(g(37.5), "37.5");
    assert_eq!(g(100.0), "100");
    assert_eq!(g(20.833333333), "20.8333");
    assert_eq!(g(999999.5), "1e+06");
    assert_eq!(g(0.00001234), "1.234e-05");
    assert_eq!(g(1234567.0), "1.23457e+06");
    assert_eq!(g(0.0), "0");
    assert_eq!(g(-1.0), "-1");
}

#[test]
fn py_numbers_match_sqlite_then_python() {
    // Expected strings from Python 3's repr() of the same doubles; whole
    // numbers are integers because SQLite's INTEGER affinity converts them.
    let p = |x: f64| {
        let mut o = String::new();
        push_py_number(&mut o, x);
        o
    };
    assert_eq!(p(0.25), "0.25");
    assert_eq!(p(1.5e-5), "1.5e-05");
    assert_eq!(p(1e-4), "0.0001");
    assert_eq!(p(0.0001234), "0.0001234");
    assert_eq!(p(123456789.125), "123456789.125");
    assert_eq!(p(-2.5e-7), "-2.5e-07");
    assert_eq!(p(3.0), "3");
    assert_eq!(p(1e16), "10000000000000000");
    assert_eq!(p(1e19), "1e+19");
    assert_eq!(p(1.0 / 3.0), "0.3333333333333333");
}
