use super::*;
use crate::atp::api::parse_api_call;

#[test]
fn arguments_split_only_on_top_level_semicolons() {
    let tricky = call(
        "CL_SUCCESS",
        "clBuildProgram",
        &["0x1", "[{a;b},(c;d)]", "\"-DX=1; -DY=\\\"2;3\\\"\"", "(x;[y;{z}])", "", "f(a;b)"],
    );
    let line = one_line(|s| write_api_call(s, &tricky));
    assert_eq!(
        line,
        "CL_SUCCESS = clBuildProgram ( 0x1;[{a;b},(c;d)];\"-DX=1; -DY=\\\"2;3\\\"\";(x;[y;{z}]);;f(a;b) )\n"
    );
    assert_eq!(parse_api_call(&line).unwrap(), tricky);
    assert_eq!(parse_api_call("R = f (  )").unwrap().args, Vec::<String>::new());
    assert_eq!(parse_api_call("R = f()").unwrap().args, Vec::<String>::new());
}

#[test]
fn unsafe_text_is_quoted() {
    let c = call("x = y", "clFoo", &["a;b", "[open", "two\nlines", "back\\slash;"]);
    let line = one_line(|s| write_api_call(s, &c));
    assert_eq!(line, "\"x = y\" = clFoo ( \"a;b\";\"[open\";\"two\\nlines\";\"back\\\\slash;\" )\n");
    let back = parse_api_call(&line).unwrap();
    assert_eq!(back.ret, "\"x = y\"");
    assert_eq!(back.args, ["\"a;b\"", "\"[open\"", "\"two\\nlines\"", "\"back\\\\slash;\""]);
    // One empty argument is not the same as none.
    let one_empty = one_line(|s| write_api_call(s, &call("CL_SUCCESS", "clFoo", &[""])));
    assert_eq!(parse_api_call(&one_empty).unwrap().args, ["\"\""]);
    // RCP writes nothing before ` = ` for functions returning void.
    let void = call("", "clSVMFree", &["0x55d0c8a1f010", "0x7f3a10000000"]);
    let line = one_line(|s| write_api_call(s, &void));
    assert_eq!(line, " = clSVMFree ( 0x55d0c8a1f010;0x7f3a10000000 )\n");
    let text = format!("{API_SECTION}\n7\n2\n{line}{line}");
    assert_eq!(read(&text).unwrap().api[0].items, [void.clone(), void]);
    let none = one_line(|s| write_api_call(s, &call("void", "clFoo", &[])));
    assert_eq!(none, "void = clFoo (  )\n");
    assert_eq!(parse_api_call(&none).unwrap().args, Vec::<String>::new());
}
