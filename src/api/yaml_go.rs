//! Manifests as kubectl reads them: `sigs.k8s.io/yaml` turns YAML into JSON through go-yaml v2, which
//! resolves plain (unquoted) scalars by YAML 1.1, not the YAML 1.2 core schema `serde_yaml` follows:
//! `yes`, `no`, `on`, `off`, `y`, `n` (in their three spellings) are booleans, `0777` is octal, `1_000`
//! is 1000, `0b101` binary; map keys that resolve to something else become its JSON text (`on:` is the key
//! `"true"`); `<<` merges mappings; an integral float is written as an integer, as Go's JSON encoder writes
//! it. So `enabled: on` in a ConfigMap is refused by the apiserver as a bool where a string belongs,
//! exactly as with the real kubectl. Syntax errors are `serde_yaml`'s to report (see
//! [`super::manifest`]); this reads only what it has already accepted.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The documents of `text` with go-yaml v2's values, or None if this reader cannot take them (the caller
/// keeps its own).
pub fn documents(text: &str) -> Option<Vec<Value>> {
    let mut composer = Composer::default();
    Parser::new_from_str(text).load(&mut composer, true).ok()?;
    (!composer.failed).then_some(composer.documents)
}

enum Frame {
    Sequence { items: Vec<Value>, anchor: usize },
    Mapping { entries: Map<String, Value>, key: Option<Key>, merged: Vec<Map<String, Value>>, anchor: usize },
}

/// A mapping key: its JSON text, or the merge key.
enum Key {
    Text(String),
    Merge,
}

#[derive(Default)]
struct Composer {
    stack: Vec<Frame>,
    anchors: BTreeMap<usize, Value>,
    documents: Vec<Value>,
    /// Something sigs.k8s.io/yaml would refuse, or this reader does not take (a collection as a key).
    failed: bool,
}

impl MarkedEventReceiver for Composer {
    fn on_event(&mut self, event: Event, _mark: Marker) {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let is_key = matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. }));
                if is_key {
                    let key = if style == TScalarStyle::Plain && text == "<<" && tag.is_none() {
                        Key::Merge
                    } else {
                        Key::Text(key_text(&scalar(&text, style, tag.as_deref())))
                    };
                    if let Some(Frame::Mapping { key: slot, .. }) = self.stack.last_mut() {
                        *slot = Some(key);
                    }
                    return;
                }
                let value = scalar(&text, style, tag.as_deref());
                self.finish(value, anchor);
            }
            Event::Alias(id) => {
                let value = self.anchors.get(&id).cloned();
                match value {
                    Some(v) if matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. })) => {
                        let key = Key::Text(key_text(&v));
                        if let Some(Frame::Mapping { key: slot, .. }) = self.stack.last_mut() {
                            *slot = Some(key);
                        }
                    }
                    Some(v) => self.finish(v, 0),
                    None => self.failed = true,
                }
            }
            Event::SequenceStart(anchor, _) => self.open(Frame::Sequence { items: Vec::new(), anchor }),
            Event::MappingStart(anchor, _) => {
                self.open(Frame::Mapping { entries: Map::new(), key: None, merged: Vec::new(), anchor })
            }
            Event::SequenceEnd => {
                if let Some(Frame::Sequence { items, anchor }) = self.stack.pop() {
                    self.finish(Value::Array(items), anchor);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Mapping { mut entries, merged, anchor, .. }) = self.stack.pop() {
                    // Merged keys never override the mapping's own.
                    for map in merged {
                        for (k, v) in map {
                            entries.entry(k).or_insert(v);
                        }
                    }
                    self.finish(Value::Object(entries), anchor);
                }
            }
            Event::DocumentStart | Event::DocumentEnd | Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
        }
    }
}

impl Composer {
    fn open(&mut self, frame: Frame) {
        if matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. })) {
            // A sequence or mapping as a key: JSON has no such thing.
            self.failed = true;
        }
        self.stack.push(frame);
    }

    /// A complete value: into its parent, or a document of its own.
    fn finish(&mut self, value: Value, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, value.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(value),
            Some(Frame::Sequence { items, .. }) => items.push(value),
            Some(Frame::Mapping { entries, key, merged, .. }) => match key.take() {
                Some(Key::Text(k)) => {
                    entries.insert(k, value);
                }
                Some(Key::Merge) => match value {
                    Value::Object(m) => merged.push(m),
                    Value::Array(maps) if maps.iter().all(Value::is_object) => {
                        merged.extend(maps.into_iter().filter_map(|m| match m {
                            Value::Object(m) => Some(m),
                            _ => None,
                        }))
                    }
                    _ => self.failed = true,
                },
                None => self.failed = true,
            },
        }
    }
}

/// A scalar's value: quoted and block scalars are strings; a plain one is resolved as go-yaml v2 does.
fn scalar(text: &str, style: TScalarStyle, tag: Option<&str>) -> Value {
    match tag {
        Some("!!str" | "tag:yaml.org,2002:str") => return Value::String(text.to_string()),
        Some(_) => return resolve(text),
        None => {}
    }
    match style {
        TScalarStyle::Plain => resolve(text),
        _ => Value::String(text.to_string()),
    }
}

/// go-yaml v2's `resolve` for a plain scalar, as sigs.k8s.io/yaml then writes it in JSON.
fn resolve(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => return Value::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    if !text.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) {
        return Value::String(text.to_string());
    }
    let plain = text.replace('_', "");
    if let Some(n) = go_int(&plain) {
        return n;
    }
    if is_yaml_float(&plain) {
        if let Ok(f) = plain.parse::<f64>() {
            return json_float(f);
        }
    }
    Value::String(text.to_string())
}

/// Go's `strconv.ParseInt(s, 0, 64)` (then `ParseUint`): a sign, then `0x`, `0o`, `0b` or a leading `0`
/// (octal) choose the base.
fn go_int(s: &str) -> Option<Value> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (digits, radix) = if let Some(d) = lower.strip_prefix("0x") {
        (d, 16)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (d, 8)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (d, 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (&lower[1..], 8)
    } else {
        (lower.as_str(), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        let n = i64::try_from(magnitude).ok().map(|m| -m).or((magnitude == 1 << 63).then_some(i64::MIN))?;
        Some(Value::Number(n.into()))
    } else {
        Some(Value::Number(magnitude.into()))
    }
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// A float as Go's JSON encoder writes it: integral values below 1e21 without a fraction.
fn json_float(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        if f >= 0.0 && f <= u64::MAX as f64 {
            return Value::Number((f as u64).into());
        }
        if f < 0.0 && f >= i64::MIN as f64 {
            return Value::Number((f as i64).into());
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// A key's JSON text (sigs.k8s.io/yaml makes every key a string).
fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn one(text: &str) -> Value {
        documents(text).expect("parsed").remove(0)
    }

    #[test]
    fn plain_scalars_resolve_by_yaml_1_1_and_quoted_ones_stay_strings() {
        let v = one("a: yes\nb: Off\nc: y\nd: 'on'\ne: \"no\"\nf: ~\ng: true\nh: maybe\n");
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": true, "d": "on", "e": "no", "f": null, "g": true, "h": "maybe"})
        );
    }

    #[test]
    fn numbers_take_go_bases_underscores_and_integral_floats() {
        let v = one("a: 0777\nb: 0x1F\nc: 1_000\nd: 0b101\ne: 08\nf: 1e3\ng: 1.5\nh: -7\ni: 1.10\nj: 1.2.3\nk: '80'\n");
        assert_eq!(
            v,
            json!({"a": 511, "b": 31, "c": 1000, "d": 5, "e": 8, "f": 1000, "g": 1.5, "h": -7, "i": 1.1, "j": "1.2.3", "k": "80"})
        );
    }

    #[test]
    fn keys_become_json_text_and_merge_keys_merge() {
        let v = one("on: x\n1: z\nbase: &b {a: 1, b: 2}\nderived:\n  <<: *b\n  b: 3\n");
        assert_eq!(v, json!({"true": "x", "1": "z", "base": {"a": 1, "b": 2}, "derived": {"a": 1, "b": 3}}));
    }

    #[test]
    fn documents_and_block_scalars_are_kept_apart() {
        let docs = documents("a: 1\n---\nb: |\n  yes\n---\n").expect("parsed");
        assert_eq!(docs, vec![json!({"a": 1}), json!({"b": "yes\n"}), Value::Null]);
    }
}
