//! Writing YAML by hand for the canonical scenario text: scalars plain when they read back as the same
//! string, double-quoted otherwise, multi-line strings as block literals when that is exact, and nesting
//! of line lists (under a key, or as a sequence item).
//!
//! Every function returns lines relative to column 0 of the node being written; the callers nest them.
//! A block literal's content sits two columns right of its key, which is what the indentation indicator
//! `|2` means when the key belongs to a block mapping.

/// Characters YAML reads as line breaks or refuses, which only a double-quoted scalar can carry.
fn needs_escape(c: char) -> bool {
    let cp = c as u32;
    cp < 0x20
        || (0x7f..=0x9f).contains(&cp)
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// Whether `s`, written plain, reads back as this same string (and not a number, a bool or null).
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s
        || s.chars().any(|c| needs_escape(c) || c.is_whitespace() && c != ' ')
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    let reserved = ["null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "+.inf", ".nan"];
    if reserved.contains(&lower.as_str()) {
        return false;
    }
    let numeric_start = first.is_ascii_digit() || first == '+' || first == '.';
    let numeric_chars = s.chars().all(|c| c.is_ascii_hexdigit() || "xXoO_.:+-".contains(c));
    !(numeric_start && numeric_chars)
}

/// A double-quoted scalar with every special character escaped.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if needs_escape(c) && (c as u32) <= 0xff => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as a one-line scalar.
pub fn scalar(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// `key: value` on one line.
pub fn key_value(key: &str, value: &str) -> String {
    format!("{key}: {}", scalar(value))
}

/// `key: value`, as a block literal when the value has several lines (and a literal can carry it exactly).
pub fn string_value(key: &str, value: &str) -> Vec<String> {
    if value.contains('\n') {
        literal_lines(key, value)
    } else {
        vec![key_value(key, value)]
    }
}

/// `key: |` and the value's lines, two columns in; falls back to a double-quoted scalar for text a literal
/// cannot hold (control characters, carriage returns, nothing but blank lines).
pub fn literal_lines(key: &str, value: &str) -> Vec<String> {
    let body = value.trim_end_matches('\n');
    let trailing = value.len() - body.len();
    if body.trim().is_empty() || value.chars().any(|c| needs_escape(c) && c != '\n' && c != '\t') {
        return vec![key_value(key, value)];
    }
    let first = body.split('\n').next().unwrap_or_default();
    let indicator = if first.is_empty() || first.starts_with([' ', '\t']) { "2" } else { "" };
    let chomping = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let mut lines = vec![format!("{key}: |{indicator}{chomping}")];
    lines.extend(body.split('\n').map(|l| if l.is_empty() { String::new() } else { format!("  {l}") }));
    lines.extend((1..trailing).map(|_| String::new()));
    lines
}

/// The lines of a mapping value, two columns in (empty lines stay empty).
pub fn nest_under(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().map(|l| if l.is_empty() { l } else { format!("  {l}") }).collect()
}

/// The lines of a sequence item: `- ` before the first, two columns in for the rest.
pub fn nest_item(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| match (i, l.is_empty()) {
            (0, _) => format!("- {l}"),
            (_, true) => l,
            _ => format!("  {l}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(yaml: &str) -> String {
        let map: std::collections::BTreeMap<String, String> =
            serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        map.get("k").cloned().unwrap_or_default()
    }

    #[test]
    fn plain_scalars_are_used_only_when_they_read_back_the_same() {
        for s in ["get pods -o wide", "4Gi", "12.5s", "node01", "café ☕", "a#b", "x:y"] {
            assert_eq!(scalar(s), s);
        }
        for s in [
            "",
            "2",
            "110",
            "1.5",
            "0x1F",
            "true",
            "No",
            "~",
            "null",
            ".inf",
            "- x",
            "a: b",
            "a #b",
            "end:",
            " lead",
            "trail ",
            "tab\there",
            "\"q\"",
            "'q'",
            "*alias",
            "&anchor",
            "!tag",
            "%",
            "@",
            "{a}",
            "[a]",
            "#c",
            "a\nb",
            "\u{0}",
            "\u{85}",
            "\u{2028}",
            "\u{feff}",
            "nb\u{a0}sp",
        ] {
            let written = scalar(s);
            assert_ne!(written, s, "{s:?} must be quoted");
            assert_eq!(read_back(&format!("k: {written}")), s);
        }
    }

    #[test]
    fn block_literals_keep_every_line_break_and_indent() {
        for s in [
            "a\nb\n",
            "a\nb",
            "a\nb\n\n\n",
            "  indented\nnot\n",
            "\nleading blank\n",
            "a\n\n  \n\tb\n",
            "tab\n\tx",
            "ends with spaces  \n",
            "a\n  ",
        ] {
            let yaml = literal_lines("k", s).join("\n") + "\n";
            assert_eq!(read_back(&yaml), s, "{yaml}");
        }
    }

    #[test]
    fn text_a_literal_cannot_hold_is_double_quoted() {
        for s in ["\n\n", "a\r\nb\n", "a\u{0}\nb", "   \n  "] {
            let lines = literal_lines("k", s);
            assert_eq!(lines.len(), 1, "{lines:?}");
            assert_eq!(read_back(&lines[0]), s);
        }
    }

    #[test]
    fn nesting_indents_all_but_empty_lines() {
        let lines = vec!["a: |".to_string(), "  x".into(), String::new(), "b: 1".into()];
        assert_eq!(nest_item(lines.clone()), ["- a: |", "    x", "", "  b: 1"]);
        assert_eq!(nest_under(lines), ["  a: |", "    x", "", "  b: 1"]);
    }
}
