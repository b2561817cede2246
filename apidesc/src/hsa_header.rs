//! The layout of ROCr's API tables, read from the text of
//! `hsa_api_trace.h` (a C++ header: `decltype` members, so it is scanned,
//! not compiled), and the checks that hold `api/hsa.api` to it: the entries
//! of each `@table` section are the header's members, in its order, and the
//! sizes cltap assumes are the header's. `icd-layer/build.rs` runs them on
//! every build.

use crate::{types, Api, HSA_TABLES};

/// The header's struct for each `@table` name, in `HsaApiTable`'s order.
pub const STRUCTS: [(&str, &str); 4] =
    [("core", "CoreApiTable"), ("amd", "AmdExtTable"), ("finalizer", "FinalizerExtTable"), ("image", "ImageExtTable")];

/// The `#define` that gives each table's major version (`ApiTableVersion::major_id`).
pub const MAJORS: [(&str, &str); 5] = [
    ("HsaApiTable", "HSA_API_TABLE_MAJOR_VERSION"),
    ("CoreApiTable", "HSA_CORE_API_TABLE_MAJOR_VERSION"),
    ("AmdExtTable", "HSA_AMD_EXT_API_TABLE_MAJOR_VERSION"),
    ("FinalizerExtTable", "HSA_FINALIZER_API_TABLE_MAJOR_VERSION"),
    ("ImageExtTable", "HSA_IMAGE_API_TABLE_MAJOR_VERSION"),
];

/// `HsaApiTable`'s pointer member for each `@table` name.
pub const ROOT_MEMBERS: [(&str, &str); 4] =
    [("core", "core_"), ("amd", "amd_ext_"), ("finalizer", "finalizer_ext_"), ("image", "image_ext_")];

/// One API table of the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderTable {
    /// The struct's name (`CoreApiTable`).
    pub name: String,
    /// Its function-pointer members in order, each without `_fn`.
    pub entries: Vec<String>,
    /// `sizeof`: the version, then one pointer per entry.
    pub bytes: usize,
    /// The major version ROCr gives it (its `#define`).
    pub major: u32,
}

/// What the header says of the tables' layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `sizeof(ApiTableVersion)`.
    pub version_bytes: usize,
    pub tables: Vec<HeaderTable>,
    /// `HsaApiTable`'s members after its version: (pointee type, member name, offset).
    pub root: Vec<(String, String, usize)>,
    /// `sizeof(HsaApiTable)`.
    pub root_bytes: usize,
    /// `HsaApiTable`'s major version.
    pub root_major: u32,
}

impl Header {
    pub fn table(&self, name: &str) -> Option<&HeaderTable> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The offset in `HsaApiTable` of the pointer to table `api_name` (`core`).
    pub fn root_offset(&self, api_name: &str) -> Option<usize> {
        let member = ROOT_MEMBERS.iter().find(|(n, _)| *n == api_name)?.1;
        self.root.iter().find(|(_, m, _)| m == member).map(|(_, _, o)| *o)
    }
}

/// The text without `//` and `/* */` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (None, None) => {
                out.push_str(rest);
                return out;
            }
            (Some(l), b) if !matches!(b, Some(b) if b < l) => {
                out.push_str(&rest[..l]);
                rest = &rest[l..];
                rest = rest.find('\n').map_or("", |e| &rest[e..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..].find("*/").map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => unreachable!(),
        }
    }
}

/// The members of `struct NAME { ... };`, each trimmed, without `;`.
fn struct_members(text: &str, name: &str) -> Result<Vec<String>, String> {
    let key = format!("struct {name}");
    let mut from = 0;
    while let Some(i) = text[from..].find(&key) {
        let at = from + i + key.len();
        let after = text[at..].trim_start();
        if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or(format!("struct {name} has no closing brace"))?;
            return Ok(body[..end]
                .split(';')
                .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|m| !m.is_empty())
                .collect());
        }
        from = at;
    }
    Err(format!("no definition of struct {name}"))
}

/// The value of `#define NAME value` (decimal or 0x hex).
fn define(text: &str, name: &str) -> Result<u32, String> {
    for line in text.lines() {
        let mut w = line.split_whitespace();
        if w.next() == Some("#define") && w.next() == Some(name) {
            let v = w.next().unwrap_or("");
            let n = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
                Some(h) => u32::from_str_radix(h, 16),
                None => v.parse(),
            };
            return n.map_err(|_| format!("#define {name} {v} is not a number"));
        }
    }
    Err(format!("no #define {name}"))
}

fn major_of(text: &str, s: &str) -> Result<u32, String> {
    define(text, MAJORS.iter().find(|(t, _)| *t == s).expect("every table has a major").1)
}

/// Reads the tables' layout from `hsa_api_trace.h`.
pub fn scan(text: &str) -> Result<Header, String> {
    let text = strip_comments(text);
    let version = struct_members(&text, "ApiTableVersion")?;
    let mut version_bytes = 0;
    for m in &version {
        match m.split_once(' ') {
            Some(("uint32_t", _)) => version_bytes += 4,
            _ => return Err(format!("ApiTableVersion: member `{m}` is not a uint32_t")),
        }
    }
    let mut tables = Vec::new();
    for (_, s) in STRUCTS {
        let members = struct_members(&text, s)?;
        if members.first().map(String::as_str) != Some("ApiTableVersion version") {
            return Err(format!("{s}: the first member is not `ApiTableVersion version`"));
        }
        let mut entries = Vec::new();
        for m in &members[1..] {
            // `decltype(hsa_init)* hsa_init_fn`, spaces anywhere.
            let compact: String = m.chars().filter(|c| !c.is_whitespace()).collect();
            let parsed = compact
                .strip_prefix("decltype(")
                .and_then(|r| r.split_once(")*"))
                .and_then(|(f, member)| member.strip_suffix("_fn").filter(|stem| *stem == f).map(str::to_string));
            match parsed {
                Some(n) => entries.push(n),
                None => return Err(format!("{s}: member `{m}` is not `decltype(NAME)* NAME_fn`")),
            }
        }
        tables.push(HeaderTable {
            name: s.to_string(),
            bytes: version_bytes + 8 * entries.len(),
            entries,
            major: major_of(&text, s)?,
        });
    }
    let members = struct_members(&text, "HsaApiTable")?;
    if members.first().map(String::as_str) != Some("ApiTableVersion version") {
        return Err("HsaApiTable: the first member is not `ApiTableVersion version`".into());
    }
    let mut root = Vec::new();
    for m in &members[1..] {
        let compact = m.replace(' ', "");
        match compact.split_once('*') {
            Some((t, member)) if !t.is_empty() && !member.is_empty() && !member.contains('*') => {
                root.push((t.to_string(), member.to_string(), version_bytes + 8 * root.len()))
            }
            _ => return Err(format!("HsaApiTable: member `{m}` is not a pointer to a table")),
        }
    }
    let root_bytes = version_bytes + 8 * root.len();
    Ok(Header { version_bytes, tables, root, root_bytes, root_major: major_of(&text, "HsaApiTable")? })
}

/// Holds `api/hsa.api` to the header: each `@table` section lists its
/// table's members in order, every table is described, and `HsaApiTable`
/// points at the tables in the order cltap reads them.
pub fn check(api: &Api, h: &Header) -> Result<(), String> {
    for (i, (api_name, s)) in STRUCTS.iter().enumerate() {
        let ht = h.table(s).ok_or(format!("the header has no {s}"))?;
        let t = api
            .tables
            .iter()
            .find(|t| t.name == *api_name)
            .ok_or(format!("api/hsa.api: no `@table {api_name}` ({s})"))?;
        let ours: Vec<&str> = api.functions[t.first..t.first + t.entries].iter().map(|f| f.name.as_str()).collect();
        for (k, (a, b)) in ours.iter().zip(&ht.entries).enumerate() {
            if a != b {
                let line = api.functions[t.first + k].line;
                return Err(format!(
                    "api/hsa.api:{line}: entry {k} of `@table {api_name}` is {a}, but {s}'s member {k} is {b}_fn"
                ));
            }
        }
        if ours.len() != ht.entries.len() {
            return Err(format!(
                "api/hsa.api:{}: `@table {api_name}` has {} entries, {s} has {}",
                t.line,
                ours.len(),
                ht.entries.len()
            ));
        }
        let (want_type, want_member) = (s, ROOT_MEMBERS[i].1);
        match h.root.get(i) {
            Some((t, m, _)) if t == want_type && m == want_member => {}
            other => return Err(format!("HsaApiTable: member {i} is {other:?}, expected {want_type}* {want_member}")),
        }
    }
    if h.root.len() != HSA_TABLES.len() {
        return Err(format!("HsaApiTable points at {} tables, cltap knows {}", h.root.len(), HSA_TABLES.len()));
    }
    Ok(())
}

/// Splits at the commas outside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// Holds every declaration of `api/hsa.api` to the signature clang read
/// from the real header (`hsa-api/hsa_api_list.h`, lines
/// `DBL_CORE(ret, name, (params), (args), stub)`): the table, the result,
/// and each parameter's name and C type (a callback's through
/// [`types::HSA_CALLBACKS`]). A wrong width here would mis-forward a call.
pub fn check_signatures(api: &Api, list: &str) -> Result<usize, String> {
    let tables = [("DBL_CORE(", "core"), ("DBL_AMD(", "amd"), ("DBL_FIN(", "finalizer"), ("DBL_IMG(", "image")];
    let mut seen = 0;
    for line in list.lines() {
        let Some((prefix, table)) = tables.iter().find(|(p, _)| line.starts_with(p)) else { continue };
        let body = line[prefix.len()..].trim_end().strip_suffix(')').ok_or(format!("list: cannot read `{line}`"))?;
        let parts = split_top(body);
        let [ret, name, params, ..] = parts.as_slice() else { return Err(format!("list: cannot read `{line}`")) };
        let f =
            api.functions.iter().find(|f| f.name == *name).ok_or(format!("api/hsa.api does not describe {name}"))?;
        let at = |msg: String| format!("api/hsa.api:{}: {name}: {msg} (the header says `{line}`)", f.line);
        if f.ext != *table {
            return Err(at(format!("in `@table {}`, the header's table is {table}", f.ext)));
        }
        if crate::parse::norm_type(ret) != f.ret_type {
            return Err(at(format!("returns `{}`", f.ret_type)));
        }
        let inner =
            params.trim().strip_prefix('(').and_then(|p| p.strip_suffix(')')).ok_or(at("bad parameter list".into()))?;
        let theirs: Vec<&str> = if inner.trim() == "void" { Vec::new() } else { split_top(inner) };
        if theirs.len() != f.params.len() {
            return Err(at(format!("has {} parameters, the header {}", f.params.len(), theirs.len())));
        }
        for (p, t) in f.params.iter().zip(theirs) {
            // The name is the trailing identifier: `hsa_queue_t **p_queue`.
            let split = t.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_').len();
            let (ty, pname) = t.split_at(split);
            if ty.trim().is_empty() {
                return Err(at(format!("cannot read parameter `{t}`")));
            }
            if pname != format!("p_{}", p.name) {
                return Err(at(format!(
                    "parameter `{}` is `{}` in the header",
                    p.name,
                    pname.trim_start_matches("p_")
                )));
            }
            let ty = ty.trim();
            let ok = match ty.strip_prefix("__typeof__(").and_then(|r| r.strip_suffix(')')) {
                Some(fnptr) => types::hsa_callback(&p.c_type) == Some(fnptr),
                None => {
                    crate::parse::norm_type(ty) == p.c_type
                        || types::hsa_callback(&p.c_type) == Some(crate::parse::norm_type(ty).as_str())
                }
            };
            if !ok {
                return Err(at(format!("parameter `{}` is `{}`, the header's is `{ty}`", p.name, p.c_type)));
            }
        }
        seen += 1;
    }
    if seen != api.functions.len() {
        return Err(format!("the list has {seen} functions, api/hsa.api {}", api.functions.len()));
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"
#define HSA_API_TABLE_MAJOR_VERSION               0x01
#define HSA_CORE_API_TABLE_MAJOR_VERSION          0x01
#define HSA_AMD_EXT_API_TABLE_MAJOR_VERSION       0x01
#define HSA_FINALIZER_API_TABLE_MAJOR_VERSION     0x01
#define HSA_IMAGE_API_TABLE_MAJOR_VERSION         0x02
// a comment with struct CoreApiTable { in it
struct ApiTableVersion {
  uint32_t major_id;
  uint32_t minor_id; /* block */
  uint32_t step_id;
  uint32_t reserved;
};
struct FinalizerExtTable {
  ApiTableVersion version;
	decltype(hsa_ext_program_create)* hsa_ext_program_create_fn;
};
struct ImageExtTable {
  ApiTableVersion version;
	decltype(hsa_ext_image_destroy)* hsa_ext_image_destroy_fn;
};
struct AmdExtTable {
  ApiTableVersion version;
  decltype(hsa_amd_coherency_get_type)* hsa_amd_coherency_get_type_fn;
  decltype(hsa_amd_profiling_async_copy_enable) *hsa_amd_profiling_async_copy_enable_fn;
};
struct CoreApiTable {
  ApiTableVersion version;
	decltype(hsa_init)* hsa_init_fn;
	decltype(hsa_shut_down)* hsa_shut_down_fn;
};
struct HsaApiTable {
  ApiTableVersion version;
	CoreApiTable* core_;
	AmdExtTable* amd_ext_;
	FinalizerExtTable* finalizer_ext_;
	ImageExtTable* image_ext_;
};
"#;

    const API: &str = "@table core\n0 hsa_status_t hsa_init() [init];\n1 hsa_status_t hsa_shut_down() [shutdown];\n\
        @table amd\n0 hsa_status_t hsa_amd_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type);\n\
        1 hsa_status_t hsa_amd_profiling_async_copy_enable(bool enable);\n\
        @table finalizer\n0 hsa_status_t hsa_ext_program_create(uint32_t a);\n\
        @table image\n0 hsa_status_t hsa_ext_image_destroy(hsa_agent_t agent, hsa_ext_image_t image);\n";

    #[test]
    fn scans_sizes_members_and_the_root() {
        let h = scan(HEADER).unwrap();
        assert_eq!(h.version_bytes, 16);
        let core = h.table("CoreApiTable").unwrap();
        assert_eq!(core.entries, ["hsa_init", "hsa_shut_down"]);
        assert_eq!(core.bytes, 32);
        assert_eq!(h.table("AmdExtTable").unwrap().entries[1], "hsa_amd_profiling_async_copy_enable");
        assert_eq!(h.root_bytes, 48);
        assert_eq!(h.root_offset("core"), Some(16));
        assert_eq!(h.root_offset("image"), Some(40));
        assert_eq!((h.root_major, core.major, h.table("ImageExtTable").unwrap().major), (1, 1, 2));
        check(&crate::parse_hsa(API).unwrap(), &h).unwrap();
    }

    #[test]
    fn a_table_out_of_order_names_the_line() {
        let h = scan(HEADER).unwrap();
        let swapped = API.replace(
            "0 hsa_status_t hsa_init() [init];\n1 hsa_status_t hsa_shut_down() [shutdown];",
            "0 hsa_status_t hsa_shut_down() [shutdown];\n1 hsa_status_t hsa_init() [init];",
        );
        let e = check(&crate::parse_hsa(&swapped).unwrap(), &h).unwrap_err();
        assert!(e.starts_with("api/hsa.api:2: entry 0 of `@table core` is hsa_shut_down"), "{e}");
        let short = API.replace("1 hsa_status_t hsa_amd_profiling_async_copy_enable(bool enable);\n", "");
        let e = check(&crate::parse_hsa(&short).unwrap(), &h).unwrap_err();
        assert!(e.contains("`@table amd` has 1 entries, AmdExtTable has 2"), "{e}");
    }

    #[test]
    fn a_member_that_is_not_a_function_pointer_is_refused() {
        let bad = HEADER.replace("decltype(hsa_init)* hsa_init_fn;", "uint64_t extra;");
        assert!(scan(&bad).unwrap_err().contains("CoreApiTable: member `uint64_t extra`"));
        let missing = HEADER.replace("struct HsaApiTable", "struct Other");
        assert!(scan(&missing).unwrap_err().contains("HsaApiTable"));
    }

    #[test]
    fn signatures_against_the_generated_list() {
        let api = crate::parse_hsa(API).unwrap();
        let list = "DBL_CORE(hsa_status_t, hsa_init, (void), (), STUB_STATUS)\n\
            DBL_CORE(hsa_status_t, hsa_shut_down, (void), (), STUB_STATUS)\n\
            DBL_AMD(hsa_status_t, hsa_amd_coherency_get_type, (hsa_agent_t p_agent, hsa_amd_coherency_type_t *p_type), (p_agent, p_type), STUB_STATUS)\n\
            DBL_AMD(hsa_status_t, hsa_amd_profiling_async_copy_enable, (bool p_enable), (p_enable), STUB_STATUS)\n\
            DBL_FIN(hsa_status_t, hsa_ext_program_create, (uint32_t p_a), (p_a), STUB_STATUS)\n\
            DBL_IMG(hsa_status_t, hsa_ext_image_destroy, (hsa_agent_t p_agent, hsa_ext_image_t p_image), (p_agent, p_image), STUB_STATUS)\n";
        assert_eq!(check_signatures(&api, list).unwrap(), 6);
        let wide = list.replace("(bool p_enable)", "(uint64_t p_enable)");
        let e = check_signatures(&api, &wide).unwrap_err();
        assert!(e.contains("parameter `enable` is `bool`, the header's is `uint64_t`"), "{e}");
        let cb = "DBL_CORE(hsa_status_t, hsa_iterate_agents, (__typeof__(hsa_status_t (*)(hsa_agent_t, void *)) p_callback, void *p_data), (p_callback, p_data), STUB_STATUS)\n";
        let one =
            crate::parse_hsa("@table core\n0 hsa_status_t hsa_iterate_agents(hsa_cb_agent callback, void* data);\n")
                .unwrap();
        assert_eq!(check_signatures(&one, cb).unwrap(), 1);
        let other =
            crate::parse_hsa("@table core\n0 hsa_status_t hsa_iterate_agents(hsa_cb_region callback, void* data);\n")
                .unwrap();
        assert!(check_signatures(&other, cb).is_err());
    }
}
