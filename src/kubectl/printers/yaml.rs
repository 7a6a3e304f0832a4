//! `-o yaml` as kubectl writes it: the object goes through JSON and then go-yaml v2's emitter
//! (`sigs.k8s.io/yaml`). This module reproduces that emitter's observable rules for JSON-shaped
//! values: two-space indentation, sequences not indented under their key, go-yaml's key order
//! (non-letters before letters, digit runs compared as numbers), strings quoted only when they would
//! read back as something else (`"1"`, `"true"`, `""`, timestamps) or contain indicators (`'*x'`,
//! `'a: b'`), literal blocks (`|`, `|-`, `|+`, `|2-`) for multi-line text, `\U0001F600`-style escapes
//! for characters outside the printable set, and folding of long scalars past column 80.

use std::cmp::Ordering;

use serde_json::Value;

use super::util::go_float_g;

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: usize = 80;

/// The YAML text of `value`, as `sigs.k8s.io/yaml.Marshal` produces it (ends with a newline).
pub fn to_yaml(value: &Value) -> String {
    let mut e =
        Emitter { out: String::new(), column: 0, indent: -1, indents: Vec::new(), whitespace: true, indention: true };
    e.node(value, false, false);
    // Document end: a final line break.
    e.write_indent_at(0);
    e.out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

struct Emitter {
    out: String,
    column: usize,
    indent: i64,
    indents: Vec<i64>,
    whitespace: bool,
    indention: bool,
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn put_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        self.write_indent_at(indent);
    }

    fn write_indent_at(&mut self, indent: usize) {
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn indicator(&mut self, text: &str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.put_str(text);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// Emits a node; `mapping` and `simple_key` are go-yaml's context flags.
    fn node(&mut self, value: &Value, mapping: bool, simple_key: bool) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, simple_key),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, Style::Plain, simple_key),
            Value::Number(n) => self.scalar(&yaml_number(n), Style::Plain, simple_key),
            Value::String(s) => {
                // kubectl re-reads its JSON as YAML: a raw NEL inside a JSON string folds to a space.
                let s = s.replace('\u{85}', " ");
                let style = string_style(&s);
                self.scalar(&s, style, simple_key)
            }
            Value::Array(items) if items.is_empty() => self.flow_empty("[", "]"),
            Value::Object(map) if map.is_empty() => self.flow_empty("{", "}"),
            Value::Array(items) => {
                let indentless = mapping && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.indicator("-", true, false, true);
                    self.node(item, false, false);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort_by(|a, b| key_order(a, b));
                for key in keys {
                    self.write_indent();
                    let simple = !key.contains(['\n', '\r', '\u{2028}', '\u{2029}']) && key.len() <= 128;
                    let key_value = Value::String(key.clone());
                    if simple {
                        self.node(&key_value, true, true);
                        self.indicator(":", false, false, false);
                    } else {
                        self.indicator("?", true, false, true);
                        self.node(&key_value, true, false);
                        self.write_indent();
                        self.indicator(":", true, false, true);
                    }
                    self.node(&map[key], true, false);
                }
                self.pop_indent();
            }
        }
    }

    fn flow_empty(&mut self, open: &str, close: &str) {
        self.indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.pop_indent();
        self.indicator(close, false, false, false);
    }

    fn scalar(&mut self, text: &str, requested: Style, simple_key: bool) {
        let a = analyze(text);
        let mut style = requested;
        if simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (text.is_empty() && simple_key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block_allowed || simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.plain(text, allow_breaks),
            Style::Single => self.single_quoted(text, allow_breaks),
            Style::Double => self.double_quoted(text, allow_breaks),
            Style::Literal => self.literal(text),
        }
        self.pop_indent();
    }

    fn plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i + 1 < chars.len() && !next_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                if c == '\n' {
                    self.put_break();
                } else {
                    self.out.push(c);
                    self.column = 0;
                }
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{b}' => self.put('v'),
                    '\u{c}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1b}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    other => {
                        let v = other as u32;
                        let text = if v <= 0xff {
                            format!("x{v:02X}")
                        } else if v <= 0xffff {
                            format!("u{v:04X}")
                        } else {
                            format!("U{v:08X}")
                        };
                        self.put_str(&text);
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i + 1 < chars.len() {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, text: &str) {
        self.indicator("|", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        if chars.first().is_some_and(|c| *c == ' ' || is_break(*c)) {
            self.indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let chomp = match chars.last() {
            None => Some("-"),
            Some(c) if !is_break(*c) => Some("-"),
            Some(_) if chars.len() == 1 => Some("+"),
            Some(_) if is_break(chars[chars.len() - 2]) => Some("+"),
            Some(_) => None,
        };
        if let Some(h) = chomp {
            self.indicator(h, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                if c == '\n' {
                    self.put_break();
                } else {
                    self.out.push(c);
                    self.column = 0;
                }
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// How go-yaml's encoder asks for a string to be written.
fn string_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if resolves_to_string(s) && !is_base60_float(s) {
        Style::Plain
    } else {
        Style::Double
    }
}

/// A JSON number as go-yaml prints what Go's JSON encoder wrote.
fn yaml_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 9.2e18 {
        return format!("{}", f as i64);
    }
    match go_float_g(f).as_str() {
        "+Inf" => ".inf".to_string(),
        "-Inf" => "-.inf".to_string(),
        "NaN" => ".nan".to_string(),
        other => other.to_string(),
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// The YAML printable set as go-yaml tests it.
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0a
        || (0x20..=0x7e).contains(&v)
        || (0xa0..=0xd7ff).contains(&v)
        || ((0xe000..=0xfffd).contains(&v) && v != 0xfeff)
}

#[derive(Debug)]
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// go-yaml's scalar analysis: which styles can represent `text` faithfully.
fn analyze(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = text.chars().collect();
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let mut line_breaks = false;
    let mut special = false;
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i == last || matches!(chars[i + 1], ' ' | '\t');
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => {
                    block_indicators = true
                }
                '?' | ':' if followed_by_whitespace => block_indicators = true,
                '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i == last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i == last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Whether go-yaml v2 would read `s`, unquoted, back as a string (not a bool, null, number or
/// timestamp).
fn resolves_to_string(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false; // "" is null
    };
    match first {
        'y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O' | '~' => !matches!(
            s,
            "y" | "Y"
                | "yes"
                | "Yes"
                | "YES"
                | "true"
                | "True"
                | "TRUE"
                | "on"
                | "On"
                | "ON"
                | "n"
                | "N"
                | "no"
                | "No"
                | "NO"
                | "false"
                | "False"
                | "FALSE"
                | "off"
                | "Off"
                | "OFF"
                | "~"
                | "null"
                | "Null"
                | "NULL"
        ),
        '.' => {
            if matches!(s, ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF") {
                return false;
            }
            go_parse_float(s).is_none()
        }
        '+' | '-' | '0'..='9' => {
            if matches!(s, "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF") {
                return false;
            }
            if is_timestamp(s) {
                return false;
            }
            let plain: String = s.chars().filter(|c| *c != '_').collect();
            if go_parse_int(&plain) || is_yaml_float(&plain) {
                return false;
            }
            if let Some(bits) = plain.strip_prefix("0b").or_else(|| plain.strip_prefix("-0b")) {
                if !bits.is_empty() && bits.chars().all(|c| c == '0' || c == '1') {
                    return false;
                }
            }
            true
        }
        _ => true,
    }
}

/// `strconv.ParseInt(s, 0, 64)` or `strconv.ParseUint(s, 0, 64)` succeeding.
fn go_parse_int(s: &str) -> bool {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() {
        return false;
    }
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return false;
    }
    match u128::from_str_radix(digits, radix) {
        Ok(v) if neg => v <= (i64::MAX as u128) + 1,
        Ok(v) => v <= u64::MAX as u128,
        Err(_) => false,
    }
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `strconv.ParseFloat(s, 64)` succeeding, for strings starting with '.'.
fn go_parse_float(s: &str) -> Option<f64> {
    if is_yaml_float(s) {
        s.parse().ok()
    } else {
        None
    }
}

/// go-yaml's timestamp check: a four-digit year and a dash, then a valid date, optionally followed
/// by `T` + time + zone (`Z` or `±hh:mm`) or a space + time without zone.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: i64 = s[..4].parse().unwrap_or(0);
    let rest = &s[5..];
    let (date, time, zoned) = match rest.find(['T', 't', ' ']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..]), rest.as_bytes()[i] != b' '),
        None => (rest, None, false),
    };
    let small = |p: &str| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit());
    let Some((m, d)) = date.split_once('-') else {
        return false;
    };
    if !small(m) || !small(d) {
        return false;
    }
    let (m, d): (i64, i64) = (m.parse().unwrap_or(0), d.parse().unwrap_or(0));
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if d < 1 || d > days {
        return false;
    }
    let Some(time) = time else {
        return true;
    };
    let (clock, zone_ok) = if zoned {
        if let Some(c) = time.strip_suffix('Z') {
            (c, true)
        } else if time.len() > 6 {
            let (c, z) = time.split_at(time.len() - 6);
            let zb = z.as_bytes();
            let ok = (zb[0] == b'+' || zb[0] == b'-')
                && zb[1..3].iter().all(u8::is_ascii_digit)
                && zb[3] == b':'
                && zb[4..].iter().all(u8::is_ascii_digit);
            (c, ok)
        } else {
            (time, false)
        }
    } else {
        (time, true)
    };
    if !zone_ok {
        return false;
    }
    let (hms, frac) = match clock.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (clock, None),
    };
    if frac.is_some_and(|f| f.is_empty() || f.len() > 9 || !f.chars().all(|c| c.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    parts.len() == 3
        && parts.iter().all(|p| small(p))
        && parts[0].parse::<u32>().is_ok_and(|h| h < 24)
        && parts[1].parse::<u32>().is_ok_and(|m| m < 60)
        && parts[2].parse::<u32>().is_ok_and(|s| s < 60)
}

/// go-yaml's `isBase60Float`: `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?`.
fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if let Some(f) = frac {
        if !f.chars().all(|c| c.is_ascii_digit() || c == '_') {
            return false;
        }
    }
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    if !head.starts_with(|c: char| c.is_ascii_digit()) || !head.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    let mut count = 0;
    for p in parts {
        count += 1;
        let ok = match p.len() {
            1 => p.chars().all(|c| c.is_ascii_digit()),
            2 => {
                let mut cs = p.chars();
                matches!(cs.next(), Some('0'..='5')) && cs.all(|c| c.is_ascii_digit())
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    count > 0
}

/// go-yaml v2's map key order: letters after non-letters, digit runs by numeric value.
fn key_order(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let digit = |c: char| c.to_digit(10).map(i64::from);
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && digit(ar[j - 1]).is_some() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_numeric() {
            an = an.wrapping_mul(10).wrapping_add(digit(ar[ai]).unwrap_or(0));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_numeric() {
            bn = bn.wrapping_mul(10).wrapping_add(digit(br[bi]).unwrap_or(0));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mappings_and_sequences_use_kubectls_layout() {
        let v = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {}},
            "spec": {
                "replicas": 3,
                "template": {"spec": {"containers": [
                    {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}], "args": []},
                ]}},
                "paused": false,
                "x": null,
                "nested": [[1, 2], []]
            }
        });
        assert_eq!(
            to_yaml(&v),
            "apiVersion: apps/v1\n\
             kind: Deployment\n\
             metadata:\n  annotations: {}\n  labels:\n    app: web\n  name: web\n\
             spec:\n  nested:\n  - - 1\n    - 2\n  - []\n  paused: false\n  replicas: 3\n\
             \x20 template:\n    spec:\n      containers:\n      - args: []\n        image: nginx\n        name: nginx\n        ports:\n        - containerPort: 80\n\
             \x20 x: null\n"
        );
    }

    #[test]
    fn strings_are_quoted_exactly_when_go_yaml_quotes_them() {
        let cases = [
            ("", "\"\""),
            ("123", "\"123\""),
            ("1.5", "\"1.5\""),
            ("1e3", "\"1e3\""),
            (".5", "\".5\""),
            ("0x1F", "\"0x1F\""),
            ("0755", "\"0755\""),
            ("1_000", "\"1_000\""),
            ("-1", "\"-1\""),
            ("+1", "\"+1\""),
            ("1.", "\"1.\""),
            ("1:20", "\"1:20\""),
            ("true", "\"true\""),
            ("on", "\"on\""),
            ("Off", "\"Off\""),
            ("Y", "\"Y\""),
            ("no", "\"no\""),
            ("null", "\"null\""),
            ("~", "\"~\""),
            ("2025-09-01T00:00:00Z", "\"2025-09-01T00:00:00Z\""),
            ("a: b", "'a: b'"),
            ("x:", "'x:'"),
            ("a #b", "'a #b'"),
            ("*star", "'*star'"),
            ("- x", "'- x'"),
            ("-", "'-'"),
            ("---x", "'---x'"),
            ("...", "'...'"),
            ("[a]", "'[a]'"),
            ("{a}", "'{a}'"),
            ("%x", "'%x'"),
            ("@x", "'@x'"),
            ("`x", "'`x'"),
            ("? x", "'? x'"),
            (" leading", "' leading'"),
            ("trailing ", "'trailing '"),
            ("'quoted'", "'''quoted'''"),
            ("\"q\"", "'\"q\"'"),
            ("[]", "'[]'"),
            ("a\tb", "\"a\\tb\""),
            ("a\u{7}b", "\"a\\ab\""),
            ("a\r\nb", "\"a\\r\\nb\""),
            ("a \nb", "\"a \\nb\""),
            ("smile \u{1F600}", "\"smile \\U0001F600\""),
            ("it's", "it's"),
            ("?x", "?x"),
            ("a,b", "a,b"),
            ("$x", "$x"),
            ("<none>", "<none>"),
            ("héllo wörld", "héllo wörld"),
            ("nginx:1.27", "nginx:1.27"),
            ("10.96.0.1", "10.96.0.1"),
            ("v1.34.0", "v1.34.0"),
        ];
        for (input, want) in cases {
            assert_eq!(to_yaml(&json!({ "k": input })), format!("k: {want}\n"), "{input:?}");
        }
    }

    #[test]
    fn multi_line_strings_become_literal_blocks() {
        assert_eq!(to_yaml(&json!({"k": "line1\nline2\n"})), "k: |\n  line1\n  line2\n");
        assert_eq!(to_yaml(&json!({"k": "line1\nline2"})), "k: |-\n  line1\n  line2\n");
        assert_eq!(to_yaml(&json!({"k": "line1\n\n"})), "k: |+\n  line1\n\n");
        assert_eq!(to_yaml(&json!({"k": "\nfoo"})), "k: |2-\n\n  foo\n");
        assert_eq!(to_yaml(&json!({"k": "  two\nlines"})), "k: |2-\n    two\n  lines\n");
        assert_eq!(to_yaml(&json!({"data": {"k": "line1\nline2\n"}})), "data:\n  k: |\n    line1\n    line2\n");
    }

    #[test]
    fn long_scalars_fold_after_column_eighty() {
        let v = json!({"data": {
            "long": "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
            "longplain": "Back-off restarting failed container app in pod web-7c5ddbdf54-x2x9q_default(0b8e4b1c-1d2e-4f3a-9b8c-7d6e5f4a3b2c) and more words here to wrap it",
            "longdq": "this is a very long string that must be double quoted because it contains a tab\there and continues on and on and on past eighty",
            "twospaces": "word word word word word word word word word word word word word word  word word word word"
        }});
        assert_eq!(
            to_yaml(&v),
            "data:\n\
             \x20 long: '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane:\n\
             \x20   }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not\n\
             \x20   helpful for scheduling, 2 No preemption victims found for incoming pod.'\n\
             \x20 longdq: \"this is a very long string that must be double quoted because it contains\n\
             \x20   a tab\\there and continues on and on and on past eighty\"\n\
             \x20 longplain: Back-off restarting failed container app in pod web-7c5ddbdf54-x2x9q_default(0b8e4b1c-1d2e-4f3a-9b8c-7d6e5f4a3b2c)\n\
             \x20   and more words here to wrap it\n\
             \x20 twospaces: word word word word word word word word word word word word word word  word\n\
             \x20   word word word\n"
        );
    }

    #[test]
    fn keys_sort_like_go_yaml() {
        let v = json!({"labels": {"item10": "a", "item9": "b", "Ax": "y", "_x": "1", "app": "web", "app.kubernetes.io/name": "x"}});
        assert_eq!(
            to_yaml(&v),
            "labels:\n  _x: \"1\"\n  Ax: \"y\"\n  app: web\n  app.kubernetes.io/name: x\n  item9: b\n  item10: a\n"
        );
        assert_eq!(to_yaml(&json!({"": 1, "true": "on"})), "\"\": 1\n\"true\": \"on\"\n");
    }

    #[test]
    fn numbers_print_as_go_would_after_a_json_round_trip() {
        assert_eq!(to_yaml(&json!({"a": 1.0, "b": 0.5, "c": -3, "d": 1e21})), "a: 1\nb: 0.5\nc: -3\nd: 1e+21\n");
        assert_eq!(to_yaml(&json!([])), "[]\n");
        assert_eq!(to_yaml(&json!({})), "{}\n");
    }
}
