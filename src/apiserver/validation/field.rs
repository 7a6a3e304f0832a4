//! Field paths and field errors in the words of apimachinery's `util/validation/field` package: the
//! `Required value`, `Invalid value: <v>: <detail>`, `Unsupported value: …: supported values: …` bodies, and
//! the two ways v1.34 prints a bad value — Go's `%q` for plain strings and numbers as they are, `encoding/json`
//! for everything else (maps, selectors, named string types, structs).

use std::collections::BTreeMap;

use crate::api::Cause;

/// A field path as Kubernetes prints it: `spec.template.spec.containers[0].image`, `metadata.labels[app]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path(String);

impl Path {
    /// A root path (`metadata`, `spec`); `""` is the empty path used for whole-object errors.
    pub fn new(root: &str) -> Path {
        Path(root.to_string())
    }

    pub fn child(&self, name: &str) -> Path {
        if self.0.is_empty() {
            return Path(name.to_string());
        }
        let mut s = String::with_capacity(self.0.len() + 1 + name.len());
        s.push_str(&self.0);
        s.push('.');
        s.push_str(name);
        Path(s)
    }

    /// `a.b` then `c` gives `a.b.c`; several segments at once (`Child("spec", "template")`).
    pub fn children(&self, names: &[&str]) -> Path {
        names.iter().fold(self.clone(), |p, n| p.child(n))
    }

    pub fn index(&self, i: usize) -> Path {
        let mut s = String::with_capacity(self.0.len() + 8);
        s.push_str(&self.0);
        s.push('[');
        s.push_str(itoa(i).as_str());
        s.push(']');
        Path(s)
    }

    pub fn key(&self, k: &str) -> Path {
        let mut s = String::with_capacity(self.0.len() + 2 + k.len());
        s.push_str(&self.0);
        s.push('[');
        s.push_str(k);
        s.push(']');
        Path(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Decimal digits of `n` without the formatting machinery (paths are built for every field validated).
fn itoa(mut n: usize) -> String {
    let mut digits = Vec::with_capacity(20);
    loop {
        digits.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn body(kind: &str, value: Option<&str>, detail: &str) -> String {
    let mut s = kind.to_string();
    if let Some(v) = value {
        s.push_str(": ");
        s.push_str(v);
    }
    if !detail.is_empty() {
        s.push_str(": ");
        s.push_str(detail);
    }
    s
}

/// `Required value` (with `: detail` when there is one).
pub fn required(path: &Path, detail: &str) -> Cause {
    Cause::new(path.as_str(), body("Required value", None, detail))
}

/// `Invalid value: <rendered>: <detail>`; `rendered` is already a Go rendering (see [`quote`], [`json_string`]).
pub fn invalid(path: &Path, rendered: &str, detail: &str) -> Cause {
    Cause::new(path.as_str(), body("Invalid value", Some(rendered), detail))
}

/// `Invalid value: "<s>": <detail>` for a plain Go string.
pub fn invalid_str(path: &Path, value: &str, detail: &str) -> Cause {
    invalid(path, &quote(value), detail)
}

/// `Invalid value: <n>: <detail>` for an integer.
pub fn invalid_int(path: &Path, value: i64, detail: &str) -> Cause {
    invalid(path, &value.to_string(), detail)
}

/// `Unsupported value: <rendered>: supported values: "A", "B"` (values quoted with Go's `%q`, in the order given).
pub fn not_supported(path: &Path, rendered: &str, valid: &[&str]) -> Cause {
    let detail = if valid.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = valid.iter().map(|v| quote(v)).collect();
        format!("supported values: {}", quoted.join(", "))
    };
    Cause::new(path.as_str(), body("Unsupported value", Some(rendered), &detail))
}

/// `Forbidden: <detail>`.
pub fn forbidden(path: &Path, detail: &str) -> Cause {
    Cause::new(path.as_str(), body("Forbidden", None, detail))
}

/// `Duplicate value: <rendered>`.
pub fn duplicate(path: &Path, rendered: &str) -> Cause {
    Cause::new(path.as_str(), body("Duplicate value", Some(rendered), ""))
}

/// `Not found: <rendered>`.
pub fn not_found(path: &Path, rendered: &str) -> Cause {
    Cause::new(path.as_str(), body("Not found", Some(rendered), ""))
}

/// `Too long: may not be more than <n> bytes` (the value itself is never printed).
pub fn too_long(path: &Path, max: usize) -> Cause {
    let unit = if max == 1 { "byte" } else { "bytes" };
    Cause::new(path.as_str(), format!("Too long: may not be more than {max} {unit}"))
}

/// `Too many: <actual>: must have at most <max> items`.
pub fn too_many(path: &Path, actual: usize, max: usize) -> Cause {
    let unit = if max == 1 { "item" } else { "items" };
    Cause::new(path.as_str(), format!("Too many: {actual}: must have at most {max} {unit}"))
}

/// Characters Go's `unicode.IsPrint` rejects even though they are not control characters (format characters).
fn is_format_char(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

fn is_go_printable(c: char) -> bool {
    c == ' ' || !(c.is_control() || c.is_whitespace() || is_format_char(c))
}

/// Go's `strconv.Quote` (what `%q` prints): printable runes as they are, the rest escaped.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A string as Go's `encoding/json` marshals it (HTML-safe: `<`, `>`, `&` escaped).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `map[string]string` as JSON (keys sorted, as Go sorts them); a missing map is `null`.
pub fn json_map(m: Option<&BTreeMap<String, String>>) -> String {
    match m {
        None => "null".to_string(),
        Some(m) => {
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{}:{}", json_string(k), json_string(v))).collect();
            format!("{{{}}}", parts.join(","))
        }
    }
}

/// A `[]string` as JSON; a missing list is `null`.
pub fn json_strings(v: Option<&[String]>) -> String {
    match v {
        None => "null".to_string(),
        Some(v) => {
            let parts: Vec<String> = v.iter().map(|s| json_string(s)).collect();
            format!("[{}]", parts.join(","))
        }
    }
}

/// An optional named string (`*RestartPolicy`, `*IPFamilyPolicy`) as JSON: the quoted value or `null`.
pub fn json_opt_string(v: Option<&str>) -> String {
    v.map(json_string).unwrap_or_else(|| "null".to_string())
}

/// An optional integer pointer as JSON.
pub fn json_opt_int(v: Option<i64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_else(|| "null".to_string())
}

/// Go's `%#v` of a `[]string` (`[]string{"a", "b"}`), used by a few older messages.
pub fn go_string_slice(v: &[String]) -> String {
    let parts: Vec<String> = v.iter().map(|s| quote(s)).collect();
    format!("[]string{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_children_indexes_and_keys_like_field_path() {
        let p = Path::new("spec").children(&["template", "spec"]).child("containers").index(0).child("image");
        assert_eq!(p.as_str(), "spec.template.spec.containers[0].image");
        assert_eq!(Path::new("metadata").child("labels").key("app").as_str(), "metadata.labels[app]");
        assert_eq!(Path::new("").child("data").as_str(), "data");
        assert_eq!(Path::new("items").index(1207).as_str(), "items[1207]");
    }

    #[test]
    fn go_quoting_escapes_like_strconv_quote() {
        assert_eq!(quote("Web"), "\"Web\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("tab\there\n"), "\"tab\\there\\n\"");
        assert_eq!(quote("\u{1}"), "\"\\x01\"");
        assert_eq!(quote("héllo"), "\"héllo\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
    }

    #[test]
    fn json_rendering_escapes_html_characters_like_encoding_json() {
        assert_eq!(json_string("a<b>&"), "\"a\\u003cb\\u003e\\u0026\"");
        let mut m = BTreeMap::new();
        m.insert("tier".to_string(), "db".to_string());
        m.insert("app".to_string(), "web".to_string());
        assert_eq!(json_map(Some(&m)), "{\"app\":\"web\",\"tier\":\"db\"}");
        assert_eq!(json_map(None), "null");
    }

    #[test]
    fn error_bodies_match_apimachinery_wording() {
        let p = Path::new("spec").child("restartPolicy");
        assert_eq!(
            not_supported(&p, "\"Never\"", &["Always"]).render(),
            "spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""
        );
        assert_eq!(required(&p, "").render(), "spec.restartPolicy: Required value");
        assert_eq!(forbidden(&p, "nope").render(), "spec.restartPolicy: Forbidden: nope");
        assert_eq!(invalid(&p, "{}", "").render(), "spec.restartPolicy: Invalid value: {}");
        assert_eq!(too_long(&Path::new("data"), 1048576).message, "Too long: may not be more than 1048576 bytes");
    }
}
