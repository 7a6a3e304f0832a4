//! kubectl's JSONPath dialect (`k8s.io/client-go/util/jsonpath`) over JSON values: text and `{…}`
//! actions, `.field`, `['key']`, `[n]`, `[start:end:step]`, `[*]`, `.*`, `..field`, unions `[a,b]`,
//! filters `[?(@.type=="Ready")]` (`==`, `!=`, `<`, `>`, `<=`, `>=`, existence), quoted literals
//! (`{"\n"}`), and `{range …}…{end}`. Results print as kubectl prints them: scalars as text,
//! maps and lists as compact JSON, several results of one action separated by spaces. Errors use
//! client-go's wording; missing keys are allowed (kubectl's default).

use serde_json::Value;

use crate::apiserver::printers::util::{go_float_g, go_quote};
use crate::apiserver::validation::field::json_string;

/// A parsed template.
#[derive(Debug, Clone)]
pub struct JsonPath {
    items: Vec<Item>,
}

#[derive(Debug, Clone)]
enum Item {
    Text(String),
    Action(Vec<Node>),
}

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Field(String),
    Wildcard,
    Recursive,
    Array([Param; 3]),
    Union(Vec<Vec<Node>>),
    Filter { left: Vec<Node>, right: Vec<Node>, op: String },
    Int(i64),
    Float(f64),
    Bool(bool),
    Identifier(String),
}

#[derive(Debug, Clone, Copy, Default)]
struct Param {
    value: i64,
    known: bool,
    derived: bool,
}

impl JsonPath {
    /// Parses a template; the error is client-go's parser message (`unclosed action`, …).
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let mut p = Parser { chars: text.chars().collect(), pos: 0 };
        Ok(JsonPath { items: p.parse_text()? })
    }

    /// Evaluates the template against `data` and returns the printed text (`Execute`).
    pub fn execute(&self, data: &Value, allow_missing: bool) -> Result<String, String> {
        let mut out = String::new();
        let ev = Eval { allow_missing };
        ev.run(&self.items, data, &mut out)?;
        Ok(out)
    }

    /// Every result of the template as separate groups, one per action (`FindResults`), for
    /// custom columns.
    pub fn find_results(&self, data: &Value) -> Result<Vec<Vec<Value>>, String> {
        let ev = Eval { allow_missing: true };
        let mut groups = Vec::new();
        ev.collect(&self.items, data, &mut groups)?;
        Ok(groups)
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn rest_starts_with(&self, prefix: &str) -> bool {
        let want: Vec<char> = prefix.chars().collect();
        self.chars.get(self.pos..self.pos + want.len()) == Some(&want[..])
    }

    fn parse_text(&mut self) -> Result<Vec<Item>, String> {
        let mut items = Vec::new();
        let mut text = String::new();
        while self.pos < self.chars.len() {
            if self.chars[self.pos] == '{' {
                if !text.is_empty() {
                    items.push(Item::Text(std::mem::take(&mut text)));
                }
                self.pos += 1;
                let mut nodes = Vec::new();
                self.parse_inside(&mut nodes)?;
                items.push(Item::Action(nodes));
                continue;
            }
            text.push(self.chars[self.pos]);
            self.pos += 1;
        }
        if !text.is_empty() {
            items.push(Item::Text(text));
        }
        Ok(items)
    }

    /// Parses the inside of an action up to and including its closing `}`.
    fn parse_inside(&mut self, nodes: &mut Vec<Node>) -> Result<(), String> {
        loop {
            if self.rest_starts_with("}") {
                self.pos += 1;
                return Ok(());
            }
            if self.rest_starts_with("[?(") {
                self.pos += 3;
                nodes.push(self.parse_filter()?);
                continue;
            }
            if self.rest_starts_with("..") {
                if matches!(nodes.last(), Some(Node::Recursive)) {
                    return Err("invalid multiple recursive descent".to_string());
                }
                self.pos += 2;
                nodes.push(Node::Recursive);
                if self.chars.get(self.pos).is_some_and(|c| is_alphanumeric(*c)) {
                    nodes.push(self.parse_field());
                }
                continue;
            }
            let Some(&c) = self.chars.get(self.pos) else {
                return Err("unclosed action".to_string());
            };
            self.pos += 1;
            match c {
                '\r' | '\n' => return Err("unclosed action".to_string()),
                ' ' | '@' | '$' => {}
                '[' => nodes.extend(self.parse_array()?),
                '"' | '\'' => nodes.push(self.parse_quote(c)?),
                '.' => nodes.push(self.parse_field()),
                '+' | '-' | '0'..='9' => {
                    self.pos -= 1;
                    nodes.push(self.parse_number()?);
                }
                c if is_alphanumeric(c) => {
                    self.pos -= 1;
                    let start = self.pos;
                    while self.pos < self.chars.len() && !is_terminator(self.chars[self.pos]) {
                        self.pos += 1;
                    }
                    let word: String = self.chars[start..self.pos].iter().collect();
                    nodes.push(match word.as_str() {
                        "true" => Node::Bool(true),
                        "false" => Node::Bool(false),
                        _ => Node::Identifier(word),
                    });
                }
                other => {
                    return Err(format!(
                        "unrecognized character in action: U+{:04X} {}",
                        other as u32,
                        go_quote_rune(other)
                    ))
                }
            }
        }
    }

    fn parse_field(&mut self) -> Node {
        let mut value = String::new();
        while let Some(&c) = self.chars.get(self.pos) {
            if c == '\\' {
                self.pos += 1;
                if let Some(&next) = self.chars.get(self.pos) {
                    value.push(next);
                    self.pos += 1;
                }
                continue;
            }
            if is_terminator(c) {
                break;
            }
            value.push(c);
            self.pos += 1;
        }
        if value == "*" {
            Node::Wildcard
        } else {
            Node::Field(value)
        }
    }

    fn parse_number(&mut self) -> Result<Node, String> {
        let start = self.pos;
        if matches!(self.chars.get(self.pos), Some('+') | Some('-')) {
            self.pos += 1;
        }
        while self.chars.get(self.pos).is_some_and(|c| *c == '.' || c.is_ascii_digit()) {
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Node::Int(i));
        }
        match text.parse::<f64>() {
            Ok(f) if !text.ends_with('.') || text.len() > 1 => Ok(Node::Float(f)),
            _ => Err(format!("cannot parse number {text}")),
        }
    }

    fn parse_array(&mut self) -> Result<Vec<Node>, String> {
        let start = self.pos;
        loop {
            match self.chars.get(self.pos) {
                None | Some('\n') => return Err("unterminated array".to_string()),
                Some(']') => break,
                _ => self.pos += 1,
            }
        }
        let mut text: String = self.chars[start..self.pos].iter().collect();
        self.pos += 1;
        if text == "*" {
            text = ":".to_string();
        }
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            let mut union = Vec::new();
            for part in parts {
                let mut p = Parser { chars: format!("[{}]}}", part.trim_matches(' ')).chars().collect(), pos: 0 };
                let mut nodes = Vec::new();
                p.parse_inside(&mut nodes)?;
                union.push(nodes);
            }
            return Ok(vec![Node::Union(union)]);
        }
        if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') && !text[1..text.len() - 1].contains('\'')
        {
            let mut p = Parser { chars: format!(".{}}}", &text[1..text.len() - 1]).chars().collect(), pos: 0 };
            let mut nodes = Vec::new();
            p.parse_inside(&mut nodes)?;
            return Ok(nodes);
        }
        let groups = slice_groups(&text).ok_or_else(|| format!("invalid array index {text}"))?;
        let mut params = [Param::default(); 3];
        for (i, g) in groups.iter().enumerate() {
            if !g.is_empty() {
                let v = if i > 0 { &g[1..] } else { g.as_str() };
                if i > 0 && v.is_empty() {
                    params[i].known = false;
                } else {
                    params[i].known = true;
                    params[i].value = v.parse().map_err(|_| format!("array index {v} is not a number"))?;
                }
            } else if i == 1 {
                params[1] = Param { value: params[0].value.saturating_add(1), known: true, derived: true };
            }
        }
        Ok(vec![Node::Array(params)])
    }

    fn parse_filter(&mut self) -> Result<Node, String> {
        let start = self.pos;
        let mut begin = false;
        let mut end = false;
        let mut pair = '\0';
        loop {
            let Some(&c) = self.chars.get(self.pos) else {
                return Err("unterminated filter".to_string());
            };
            self.pos += 1;
            match c {
                '\n' => return Err("unterminated filter".to_string()),
                '"' | '\'' => {
                    if !begin {
                        begin = true;
                        pair = c;
                        continue;
                    }
                    if self.pos >= 2 && self.chars[self.pos - 2] != '\\' && c == pair {
                        end = true;
                    }
                }
                ')' if begin == end => break,
                _ => {}
            }
        }
        if self.chars.get(self.pos) != Some(&']') {
            return Err("unclosed array expect ]".to_string());
        }
        let text: String = self.chars[start..self.pos - 1].iter().collect();
        self.pos += 1;
        let parse = |t: &str| -> Result<Vec<Node>, String> {
            let mut p = Parser { chars: format!("{t}}}").chars().collect(), pos: 0 };
            let mut nodes = Vec::new();
            p.parse_inside(&mut nodes)?;
            Ok(nodes)
        };
        match split_comparison(&text) {
            None => Ok(Node::Filter { left: parse(&text)?, right: Vec::new(), op: "exists".to_string() }),
            Some((l, op, r)) => Ok(Node::Filter { left: parse(l)?, right: parse(r)?, op: op.to_string() }),
        }
    }

    fn parse_quote(&mut self, quote: char) -> Result<Node, String> {
        let start = self.pos - 1;
        loop {
            match self.chars.get(self.pos) {
                None | Some('\n') => return Err("unterminated quoted string".to_string()),
                Some(&c) if c == quote && self.chars[self.pos - 1] != '\\' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let raw: String = self.chars[start..self.pos].iter().collect();
        let inner = &raw[1..raw.len() - 1];
        unquote(inner, quote).map(Node::Text).ok_or_else(|| format!("unquote string {raw} error invalid syntax"))
    }
}

/// `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`, returning the three groups (empty when absent).
fn slice_groups(text: &str) -> Option<[String; 3]> {
    let mut groups = [String::new(), String::new(), String::new()];
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let number = |i: &mut usize, out: &mut String| {
        if chars.get(*i) == Some(&'-') {
            out.push('-');
            *i += 1;
        }
        while let Some(c) = chars.get(*i).filter(|c| c.is_ascii_digit()) {
            out.push(*c);
            *i += 1;
        }
    };
    number(&mut i, &mut groups[0]);
    for g in groups.iter_mut().skip(1) {
        if chars.get(i) == Some(&':') {
            g.push(':');
            i += 1;
            number(&mut i, g);
        }
    }
    (i == chars.len()).then_some(groups)
}

/// `^([^!<>=]+)([!<>=]+)(.+?)$`.
fn split_comparison(text: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let op_start = text.find(is_op)?;
    if op_start == 0 {
        return None;
    }
    let after = &text[op_start..];
    let op_len = after.find(|c| !is_op(c)).unwrap_or(after.len());
    let right = &after[op_len..];
    if right.is_empty() {
        return None;
    }
    Some((&text[..op_start], &after[..op_len], right))
}

/// Go's `strconv.UnquoteChar` loop for a quoted literal's inside.
fn unquote(s: &str, quote: char) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == quote {
                return None;
            }
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' => out.push('\\'),
            '\'' | '"' if e == quote => out.push(e),
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                let v = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(v)?);
            }
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    v = v * 8 + chars.next()?.to_digit(8)?;
                }
                out.push(char::from_u32(v)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

fn go_quote_rune(c: char) -> String {
    let q = go_quote(&c.to_string());
    format!("'{}'", &q[1..q.len() - 1])
}

fn is_terminator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

struct Eval {
    allow_missing: bool,
}

impl Eval {
    fn run(&self, items: &[Item], data: &Value, out: &mut String) -> Result<(), String> {
        let mut groups = Vec::new();
        self.collect(items, data, &mut groups)?;
        for g in groups {
            out.push_str(&print_results(&g));
        }
        Ok(())
    }

    /// `FindResults`: one result group per item, range bodies expanded per element.
    fn collect(&self, items: &[Item], data: &Value, groups: &mut Vec<Vec<Value>>) -> Result<(), String> {
        let mut i = 0;
        while i < items.len() {
            match &items[i] {
                Item::Text(t) => groups.push(vec![Value::String(t.clone())]),
                Item::Action(nodes) => {
                    if matches!(nodes.first(), Some(Node::Identifier(id)) if id == "end") {
                        return Err("not in range, nothing to end".to_string());
                    }
                    if matches!(nodes.first(), Some(Node::Identifier(id)) if id == "range") {
                        let results = self.list(std::slice::from_ref(data), &nodes[1..])?;
                        let end = matching_end(items, i + 1);
                        let body = &items[i + 1..end.unwrap_or(items.len())];
                        for r in &results {
                            self.collect(body, r, groups)?;
                        }
                        // Without {end}, client-go goes on with the rest at the outer level.
                        if let Some(e) = end {
                            i = e;
                        }
                    } else {
                        groups.push(self.list(std::slice::from_ref(data), nodes)?);
                    }
                }
            }
            i += 1;
        }
        Ok(())
    }

    fn list(&self, input: &[Value], nodes: &[Node]) -> Result<Vec<Value>, String> {
        let mut cur = input.to_vec();
        for node in nodes {
            cur = self.walk(&cur, node)?;
        }
        Ok(cur)
    }

    fn walk(&self, input: &[Value], node: &Node) -> Result<Vec<Value>, String> {
        match node {
            Node::Text(t) => Ok(vec![Value::String(t.clone())]),
            Node::Int(i) => Ok(input.iter().map(|_| Value::from(*i)).collect()),
            Node::Float(f) => Ok(input.iter().map(|_| Value::from(*f)).collect()),
            Node::Bool(b) => Ok(input.iter().map(|_| Value::Bool(*b)).collect()),
            Node::Identifier(id) => match id.as_str() {
                "range" => Ok(input.to_vec()),
                "end" => Err("not in range, nothing to end".to_string()),
                other => Err(format!("unrecognized identifier {other}")),
            },
            Node::Field(name) => {
                let mut out = Vec::new();
                for v in input {
                    if let Value::Object(map) = v {
                        if let Some(x) = map.get(name) {
                            out.push(x.clone());
                        }
                    }
                }
                if out.is_empty() && !input.is_empty() && !self.allow_missing {
                    return Err(format!("{name} is not found"));
                }
                Ok(out)
            }
            Node::Wildcard => {
                let mut out = Vec::new();
                for v in input {
                    out.extend(children(v));
                }
                Ok(out)
            }
            Node::Recursive => {
                let mut out = Vec::new();
                recursive(input, &mut out);
                Ok(out)
            }
            Node::Array(params) => {
                let mut out = Vec::new();
                for v in input {
                    if v.is_null() {
                        continue;
                    }
                    let Value::Array(items) = v else {
                        return Err(format!("{} is not array or slice", go_type(v)));
                    };
                    let len = items.len() as i64;
                    let mut p = *params;
                    if !p[0].known {
                        p[0].value = 0;
                    }
                    if p[0].value < 0 {
                        p[0].value = p[0].value.saturating_add(len);
                    }
                    if !p[1].known {
                        p[1].value = len;
                    }
                    if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
                        p[1].value = p[1].value.saturating_add(len);
                    }
                    if p[1].value == p[0].value {
                        return Ok(out);
                    }
                    if p[0].value >= len || p[0].value < 0 {
                        return Err(format!("array index out of bounds: index {}, length {len}", p[0].value));
                    }
                    if p[1].value > len || p[1].value < 0 {
                        return Err(format!(
                            "array index out of bounds: index {}, length {len}",
                            p[1].value.saturating_sub(1)
                        ));
                    }
                    if p[0].value > p[1].value {
                        return Err(format!(
                            "starting index {} is greater than ending index {}",
                            p[0].value, p[1].value
                        ));
                    }
                    let step = if p[2].known {
                        if p[2].value <= 0 {
                            return Err("step must be > 0".to_string());
                        }
                        p[2].value as usize
                    } else {
                        1
                    };
                    let slice = &items[p[0].value as usize..p[1].value as usize];
                    out.extend(slice.iter().step_by(step).cloned());
                }
                Ok(out)
            }
            Node::Union(lists) => {
                let mut out = Vec::new();
                for l in lists {
                    out.extend(self.list(input, l)?);
                }
                Ok(out)
            }
            Node::Filter { left, right, op } => {
                let mut out = Vec::new();
                for v in input {
                    let Value::Array(items) = v else {
                        return Err(format!("{} is not array or slice and cannot be filtered", go_v(v)));
                    };
                    for item in items {
                        let one = [item.clone()];
                        let lefts = self.list(&one, left);
                        if op == "exists" {
                            if lefts.is_ok_and(|l| !l.is_empty()) {
                                out.push(item.clone());
                            }
                            continue;
                        }
                        let lefts = lefts?;
                        if lefts.is_empty() {
                            continue;
                        }
                        if lefts.len() > 1 {
                            return Err("can only compare one element at a time".to_string());
                        }
                        let rights = self.list(&one, right)?;
                        if rights.is_empty() {
                            continue;
                        }
                        if rights.len() > 1 {
                            return Err("can only compare one element at a time".to_string());
                        }
                        if compare(&lefts[0], &rights[0], op)? {
                            out.push(item.clone());
                        }
                    }
                }
                Ok(out)
            }
        }
    }
}

/// The index of the `{end}` closing the range that starts before `from`.
fn matching_end(items: &[Item], from: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, item) in items.iter().enumerate().skip(from) {
        if let Item::Action(nodes) = item {
            match nodes.first() {
                Some(Node::Identifier(id)) if id == "range" => depth += 1,
                Some(Node::Identifier(id)) if id == "end" => {
                    if depth == 0 {
                        return Some(i);
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
    }
    None
}

fn children(v: &Value) -> Vec<Value> {
    match v {
        Value::Object(map) => map.values().cloned().collect(),
        Value::Array(items) => items.clone(),
        Value::String(s) => s.bytes().map(Value::from).collect(),
        _ => Vec::new(),
    }
}

fn recursive(input: &[Value], out: &mut Vec<Value>) {
    for v in input {
        let kids = children(v);
        if !kids.is_empty() {
            out.push(v.clone());
            recursive(&kids, out);
        }
    }
}

#[derive(PartialEq)]
enum BasicKind {
    Int,
    Float,
    Str,
    Bool,
}

fn basic_kind(v: &Value) -> Result<BasicKind, String> {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(BasicKind::Int),
        Value::Number(_) => Ok(BasicKind::Float),
        Value::String(_) => Ok(BasicKind::Str),
        Value::Bool(_) => Ok(BasicKind::Bool),
        _ => Err("invalid type for comparison".to_string()),
    }
}

/// text/template's `eq`, `ne`, `lt`, `le`, `gt`, `ge` on two basic values.
fn compare(left: &Value, right: &Value, op: &str) -> Result<bool, String> {
    let (kl, kr) = (basic_kind(left)?, basic_kind(right)?);
    if kl != kr {
        return Err("incompatible types for comparison".to_string());
    }
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (left, right) {
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (Value::Bool(a), Value::Bool(b)) => {
            if op == "==" || op == "!=" {
                Some(a.cmp(b))
            } else {
                return Err("invalid type for comparison".to_string());
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            if kl == BasicKind::Int {
                Some(
                    a.as_i64()
                        .map(i128::from)
                        .or(a.as_u64().map(i128::from))
                        .cmp(&b.as_i64().map(i128::from).or(b.as_u64().map(i128::from))),
                )
            } else {
                a.as_f64().partial_cmp(&b.as_f64())
            }
        }
        _ => None,
    };
    let Some(ord) = ord else {
        return Ok(op == "!=");
    };
    Ok(match op {
        "==" => ord == Ordering::Equal,
        "!=" => ord != Ordering::Equal,
        "<" => ord == Ordering::Less,
        ">" => ord == Ordering::Greater,
        "<=" => ord != Ordering::Greater,
        ">=" => ord != Ordering::Less,
        other => return Err(format!("unrecognized filter operator {other}")),
    })
}

/// `PrintResults`: maps and lists as compact JSON, everything else as text, space-separated.
fn print_results(results: &[Value]) -> String {
    results
        .iter()
        .map(|r| match r {
            Value::Object(_) | Value::Array(_) => go_json(r, None),
            Value::Null => "null".to_string(),
            other => go_v(other),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Go's type name for an unstructured value, as error messages print it.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::Null => "interface {}",
    }
}

/// `fmt.Sprint` of an unstructured value (`map[k:v]`, `[a b]`, `<nil>`).
pub fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_v(n),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            format!("[{}]", items.iter().map(go_v).collect::<Vec<_>>().join(" "))
        }
        Value::Object(map) => {
            format!("map[{}]", map.iter().map(|(k, v)| format!("{k}:{}", go_v(v))).collect::<Vec<_>>().join(" "))
        }
    }
}

/// `fmt.Sprintf("%#v")` of an unstructured value, as kubectl's jsonpath error dump prints it.
pub fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_v(n),
        Value::String(s) => go_quote(s),
        Value::Array(items) => {
            format!("[]interface {{}}{{{}}}", items.iter().map(go_sharp_v).collect::<Vec<_>>().join(", "))
        }
        Value::Object(map) => format!(
            "map[string]interface {{}}{{{}}}",
            map.iter().map(|(k, v)| format!("{}:{}", go_quote(k), go_sharp_v(v))).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn number_v(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        go_float_g(n.as_f64().unwrap_or(0.0))
    }
}

/// Go's `encoding/json` text of a value: sorted keys, HTML-safe escaping (`\u003c`), Go's float
/// spelling; `indent` gives `MarshalIndent` layout.
pub fn go_json(v: &Value, indent: Option<&str>) -> String {
    let mut out = String::new();
    write_json(&mut out, v, indent, 0);
    out
}

fn write_json(out: &mut String, v: &Value, indent: Option<&str>, depth: usize) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(ind) = indent {
            out.push('\n');
            for _ in 0..depth {
                out.push_str(ind);
            }
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&json_number(n)),
        Value::String(s) => out.push_str(&json_string(s)),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_json(out, item, indent, depth + 1);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                out.push_str(&json_string(k));
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(out, item, indent, depth + 1);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

fn json_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Go writes %e here and trims a leading zero from a two-digit negative exponent.
        let g = format!("{f:e}");
        let (mant, exp) = g.split_once('e').unwrap_or((g.as_str(), "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        let digits = if exp.abs() < 10 && exp >= 0 { format!("0{}", exp.abs()) } else { exp.abs().to_string() };
        return format!("{mant}e{sign}{digits}");
    }
    format!("{f}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, data: &Value) -> Result<String, String> {
        JsonPath::parse(template)?.execute(data, true)
    }

    fn pods() -> Value {
        json!({
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"resourceVersion": ""},
            "items": [
                {"metadata": {"name": "a", "labels": {"app": "web"}},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}],
                            "containerStatuses": [{"restartCount": 2}]}},
                {"metadata": {"name": "b"},
                 "status": {"conditions": [{"type": "Ready", "status": "False"}],
                            "containerStatuses": [{"restartCount": 0}]}}
            ]
        })
    }

    #[test]
    fn fields_wildcards_and_indexes_select_values() {
        let d = pods();
        assert_eq!(run("{.items[*].metadata.name}", &d).unwrap(), "a b");
        assert_eq!(run("{.items[0].metadata.name}", &d).unwrap(), "a");
        assert_eq!(run("{.items[-1].metadata.name}", &d).unwrap(), "b");
        assert_eq!(run("{.items[0:1].metadata.name}", &d).unwrap(), "a");
        assert_eq!(run("{.kind}", &d).unwrap(), "List");
        assert_eq!(run("{.items[0].metadata.labels}", &d).unwrap(), "{\"app\":\"web\"}");
        assert_eq!(run("{.items[0].metadata.labels['app']}", &d).unwrap(), "web");
        assert_eq!(run("{.missing.field}", &d).unwrap(), "");
        assert_eq!(run("{..name}", &d).unwrap(), "a b");
        assert_eq!(run("{.items[*].status.containerStatuses[0].restartCount}", &d).unwrap(), "2 0");
        // A quoted key is split on dots like a path, as client-go does.
        assert_eq!(run("{.items[0]['metadata.name']}", &d).unwrap(), "a");
        assert_eq!(run("{.items[0].metadata['name','labels']}", &d).unwrap(), "a {\"app\":\"web\"}");
    }

    #[test]
    fn ranges_and_literals_build_lines() {
        let d = pods();
        assert_eq!(
            run("{range .items[*]}{.metadata.name}{\"\\t\"}{.status.conditions[0].status}{\"\\n\"}{end}", &d).unwrap(),
            "a\tTrue\nb\tFalse\n"
        );
        assert_eq!(run("names: {.items[*].metadata.name}\n", &d).unwrap(), "names: a b\n");
        assert_eq!(
            run("{range .items[*]}[{range .status.conditions[*]}{.type}={.status};{end}]{end}", &d).unwrap(),
            "[Ready=True;PodScheduled=True;][Ready=False;]"
        );
    }

    #[test]
    fn filters_compare_fields_with_literals() {
        let d = pods();
        assert_eq!(run("{.items[*].status.conditions[?(@.type==\"Ready\")].status}", &d).unwrap(), "True False");
        assert_eq!(run("{.items[?(@.metadata.labels.app)].metadata.name}", &d).unwrap(), "a");
        assert_eq!(run("{.items[?(@.status.containerStatuses[0].restartCount>1)].metadata.name}", &d).unwrap(), "a");
        assert_eq!(run("{.items[?(@.metadata.name!='a')].metadata.name}", &d).unwrap(), "b");
    }

    #[test]
    fn errors_use_client_go_wording() {
        let d = pods();
        assert_eq!(run("{.items[5]}", &d).unwrap_err(), "array index out of bounds: index 5, length 2");
        assert_eq!(
            run("{.items[0]}", &json!({"items": []})).unwrap_err(),
            "array index out of bounds: index 0, length 0"
        );
        assert_eq!(run("{.kind[0]}", &d).unwrap_err(), "string is not array or slice");
        assert_eq!(
            run("{.metadata[*]}{.metadata[0]}", &d).unwrap_err(),
            "map[string]interface {} is not array or slice"
        );
        assert_eq!(run("{end}", &d).unwrap_err(), "not in range, nothing to end");
        assert_eq!(JsonPath::parse("{.x").unwrap_err(), "unclosed action");
        assert_eq!(JsonPath::parse("{#}").unwrap_err(), "unrecognized character in action: U+0023 '#'");
        assert_eq!(JsonPath::parse("{.a[\"x\"]}").unwrap_err(), "invalid array index \"x\"");
        assert_eq!(
            run("{.items[?(@.status.containerStatuses[0].restartCount==\"2\")]}", &d).unwrap_err(),
            "incompatible types for comparison"
        );
        let strict = JsonPath::parse("{.nope}").unwrap().execute(&d, false);
        assert_eq!(strict.unwrap_err(), "nope is not found");
    }

    #[test]
    fn go_value_spellings_match_fmt() {
        let v = json!({"b": [1, "x", null], "a": 1.5, "c": true});
        assert_eq!(go_v(&v), "map[a:1.5 b:[1 x <nil>] c:true]");
        assert_eq!(
            go_sharp_v(&v),
            "map[string]interface {}{\"a\":1.5, \"b\":[]interface {}{1, \"x\", interface {}(nil)}, \"c\":true}"
        );
        assert_eq!(go_json(&json!({"h": "<a>&b"}), None), "{\"h\":\"\\u003ca\\u003e\\u0026b\"}");
        assert_eq!(
            go_json(&json!({"a": [], "b": {}, "c": [1]}), Some("    ")),
            "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        1\n    ]\n}"
        );
        assert_eq!(go_json(&json!(1e-7), None), "1e-7");
        assert_eq!(go_json(&json!(1e21), None), "1e+21");
        assert_eq!(go_json(&json!(2.5), None), "2.5");
    }
}
