//! Derives `kubectl explain`'s structure table (`types.txt`) from the `k8s-openapi` types the engine stores,
//! so the checked-in table cannot drift from them: a test regenerates it and compares.
//!
//! The types are read by driving their `Deserialize` impls with a probe deserializer: each struct names
//! itself and its fields (`deserialize_struct`), and each field's value asks for what it is (a string, an
//! integer, a sequence, a map, another struct, or one of the named wrappers `Quantity`, `Time`, …); the probe
//! answers with one sample of everything so that every field is visited. Whether a field is required is read
//! back from serialization: `k8s-openapi` always writes its required (non-`Option`) fields, so an object whose
//! struct of interest was given no fields at all serializes exactly those.
//!
//! Run `KUBEGLASS_WRITE_EXPLAIN_TYPES=1 cargo test --lib api::schema::derive` to rewrite `types.txt`
//! after a `k8s-openapi` upgrade or a new kind.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

use serde::de::value::{Error, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::api::{Kind, Object, RESOURCES};

/// What a value is, as kubectl names it.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Leaf(&'static str),
    Seq(Box<Shape>),
    Map(Box<Shape>),
    /// A struct, by its key while probing.
    Struct(String),
}

impl Shape {
    /// kubectl's type string: `[]Container`, `map[string]string`, `integer`, `ObjectMeta`, with a struct
    /// named as `name` names it.
    fn render(&self, name: &dyn Fn(&str) -> String) -> String {
        match self {
            Shape::Leaf(t) => t.to_string(),
            Shape::Seq(s) => format!("[]{}", s.render(name)),
            Shape::Map(s) => format!("map[string]{}", s.render(name)),
            Shape::Struct(key) => name(key),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Field(&'static str),
    Item,
    Value,
}

struct Type {
    name: &'static str,
    fields: &'static [&'static str],
    shapes: BTreeMap<&'static str, Shape>,
    /// The first kind, and the path in it, where the type was met.
    root: Kind,
    path: Vec<Step>,
}

#[derive(Default)]
struct Recorder {
    /// Types by key: the Go type name, with `~2`, `~3` … for a later, different type of the same name.
    types: BTreeMap<String, Type>,
    order: Vec<String>,
    stack: Vec<String>,
    root: Option<Kind>,
    /// The required-fields pass: this type is given no fields but these (the few whose absence its
    /// `Deserialize` refuses, which are required by that very fact).
    empty: Option<String>,
    insisted: Vec<String>,
}

impl Recorder {
    /// The type's key while probing: its name and the API group of the kind it was met in, because two groups
    /// can have different types of one name and the same fields (core's and discovery's `EndpointPort` differ
    /// only in what is required). [`generate`] merges the ones that turn out identical.
    fn register(&mut self, name: &'static str, fields: &'static [&'static str], path: &[Step]) -> String {
        let group = self.root.map_or("", |k| k.info().group);
        let mut n = 1;
        loop {
            let key = format!("{name}@{group}#{n}");
            match self.types.get(&key) {
                Some(t) if t.fields == fields => return key,
                Some(_) => n += 1,
                None => {
                    let root = self.root.unwrap_or(Kind::Pod);
                    let t = Type { name, fields, shapes: BTreeMap::new(), root, path: path.to_vec() };
                    self.types.insert(key.clone(), t);
                    self.order.push(key.clone());
                    return key;
                }
            }
        }
    }
}

type Slot = Rc<RefCell<Option<Shape>>>;

/// The sample every string gets: any string field accepts it, and `Time`/`MicroTime` parse it.
const SAMPLE: &str = "1970-01-01T00:00:00Z";

#[derive(Clone)]
struct Probe {
    rec: Rc<RefCell<Recorder>>,
    slot: Slot,
    path: Vec<Step>,
    /// Inside a named wrapper, which already said what it is: only feed values.
    quiet: bool,
    /// `Option` layers asked for since the field, item or map value began, and how many a plain value has
    /// (a field's value is always read as an `Option`): one more is `ByteString`, which wants base64.
    options: u8,
    plain_options: u8,
}

impl Probe {
    fn set(&self, shape: Shape) {
        if !self.quiet {
            *self.slot.borrow_mut() = Some(shape);
        }
    }

    fn child(&self, step: Step) -> Probe {
        let mut path = self.path.clone();
        path.push(step);
        let plain_options = u8::from(matches!(step, Step::Field(_)));
        Probe {
            rec: self.rec.clone(),
            slot: Rc::new(RefCell::new(None)),
            path,
            quiet: false,
            options: 0,
            plain_options,
        }
    }

    fn string<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.set(Shape::Leaf("string"));
        if self.options > self.plain_options {
            visitor.visit_str("YQ==")
        } else {
            visitor.visit_str(SAMPLE)
        }
    }
}

macro_rules! leaf {
    ($($method:ident => $shape:literal, $visit:ident($value:expr);)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.set(Shape::Leaf($shape));
            visitor.$visit($value)
        })*
    };
}

macro_rules! strings {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.string(visitor)
        })*
    };
}

impl<'de> Deserializer<'de> for Probe {
    type Error = Error;

    leaf! {
        deserialize_bool => "boolean", visit_bool(false);
        deserialize_i8 => "integer", visit_i64(0);
        deserialize_i16 => "integer", visit_i64(0);
        deserialize_i32 => "integer", visit_i64(0);
        deserialize_i64 => "integer", visit_i64(0);
        deserialize_u8 => "integer", visit_u64(0);
        deserialize_u16 => "integer", visit_u64(0);
        deserialize_u32 => "integer", visit_u64(0);
        deserialize_u64 => "integer", visit_u64(0);
        deserialize_f32 => "number", visit_f64(0.5);
        deserialize_f64 => "number", visit_f64(0.5);
    }

    strings!(
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_identifier
    );

    /// `IntOrString` asks for anything; inside `RawExtension`/`FieldsV1` this is arbitrary JSON. The
    /// CustomResourceDefinition schema's "X or Y" types ask too, and say which they are: kubectl names them
    /// by their schema's name; each gets the one sample it accepts that does not recurse (a bool, an empty
    /// list).
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let expecting = format!("{}", &visitor as &dyn de::Expected);
        match expecting.as_str() {
            "JSONSchemaPropsOrBool" => {
                self.set(Shape::Leaf("JSONSchemaPropsOrBool"));
                visitor.visit_bool(true)
            }
            "JSONSchemaPropsOrArray" | "JSONSchemaPropsOrStringArray" => {
                self.set(Shape::Leaf(if expecting == "JSONSchemaPropsOrArray" {
                    "JSONSchemaPropsOrArray"
                } else {
                    "JSONSchemaPropsOrStringArray"
                }));
                visitor.visit_seq(One { item: None })
            }
            _ => {
                self.set(Shape::Leaf("IntOrString"));
                visitor.visit_str(SAMPLE)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(Probe { options: self.options + 1, ..self })
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        // kubectl shows a reference to a schema with a primitive type as that type, others by name.
        self.set(Shape::Leaf(match name {
            "Time" | "MicroTime" => "string",
            other => other,
        }));
        visitor.visit_newtype_struct(Probe { quiet: true, options: 0, plain_options: 0, ..self })
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let child = self.child(Step::Item);
        let slot = child.slot.clone();
        let value = visitor.visit_seq(One { item: Some(child) })?;
        let inner = slot.borrow_mut().take().unwrap_or(Shape::Leaf("Object"));
        self.set(Shape::Seq(Box::new(inner)));
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let child = self.child(Step::Value);
        let slot = child.slot.clone();
        let value = visitor.visit_map(Entries { fields: vec![("k", Some(child))], next: None })?;
        let inner = slot.borrow_mut().take().unwrap_or(Shape::Leaf("Object"));
        self.set(Shape::Map(Box::new(inner)));
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let key = self.rec.borrow_mut().register(name, fields, &self.path);
        self.set(Shape::Struct(key.clone()));
        let (recursive, only) = {
            let rec = self.rec.borrow();
            (rec.stack.contains(&key), (rec.empty.as_ref() == Some(&key)).then(|| rec.insisted.clone()))
        };
        if recursive {
            return visitor.visit_map(Entries { fields: Vec::new(), next: None });
        }
        // apiVersion and kind are checked against the type's own constants: leave them out.
        let probes: Vec<(&'static str, Probe)> = fields
            .iter()
            .filter(|f| !matches!(**f, "apiVersion" | "kind"))
            .filter(|f| only.as_ref().is_none_or(|o| o.iter().any(|i| i == *f)))
            .map(|f| (*f, self.child(Step::Field(f))))
            .collect();
        let slots: Vec<(&'static str, Slot)> = probes.iter().map(|(f, p)| (*f, p.slot.clone())).collect();
        self.rec.borrow_mut().stack.push(key.clone());
        let value =
            visitor.visit_map(Entries { fields: probes.into_iter().map(|(f, p)| (f, Some(p))).collect(), next: None });
        let mut rec = self.rec.borrow_mut();
        rec.stack.pop();
        let value = value?;
        let t = rec.types.get_mut(&key).expect("registered above");
        for (field, slot) in slots {
            if let Some(shape) = slot.borrow_mut().take() {
                t.shapes.entry(field).or_insert(shape);
            }
        }
        for field in ["apiVersion", "kind"] {
            if fields.contains(&field) {
                t.shapes.entry(field).or_insert(Shape::Leaf("string"));
            }
        }
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Error> {
        Err(de::Error::custom(format!("the probe does not know enums ({name})")))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// A sequence of one sample item.
struct One {
    item: Option<Probe>,
}

impl<'de> SeqAccess<'de> for One {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.item.take().map(|p| seed.deserialize(p)).transpose()
    }
}

/// A map (or struct) with the given keys, each value answered by its probe.
struct Entries {
    fields: Vec<(&'static str, Option<Probe>)>,
    next: Option<Probe>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if self.fields.is_empty() {
            return Ok(None);
        }
        let (name, probe) = self.fields.remove(0);
        self.next = probe;
        seed.deserialize(StrDeserializer::<Error>::new(name)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.next.take() {
            Some(p) => seed.deserialize(p),
            None => Err(de::Error::custom("value without a key")),
        }
    }
}

fn probe(rec: &Rc<RefCell<Recorder>>, kind: Kind) -> Result<Object, Error> {
    let p = Probe {
        rec: rec.clone(),
        slot: Rc::new(RefCell::new(None)),
        path: Vec::new(),
        quiet: false,
        options: 0,
        plain_options: 0,
    };
    Object::deserialize_as(kind, p)
}

fn at<'a>(value: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, step| match step {
        Step::Field(f) => v.get(f),
        Step::Item => v.get(0),
        Step::Value => v.get("k"),
    })
}

/// The table as `types.txt` holds it: a line `=apiVersion Kind TypeKey` per kind kubectl api-resources lists,
/// then each type's key and its fields, one per line: ` name type` with ` -required-` after required ones.
pub fn generate() -> Result<String, String> {
    let rec = Rc::new(RefCell::new(Recorder::default()));
    let mut roots = Vec::new();
    // The kinds discovery lists: the stored ones and the create-only ones (bindings, the reviews).
    for info in RESOURCES.iter().filter(|r| r.discovered()) {
        rec.borrow_mut().root = Some(info.kind);
        let before = rec.borrow().order.len();
        probe(&rec, info.kind).map_err(|e| format!("{}: {e}", info.kind.name()))?;
        let key = rec.borrow().order.get(before).cloned().unwrap_or_default();
        roots.push((info.api_version(), info.kind.name(), key));
    }
    let order = rec.borrow().order.clone();
    let mut required: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for key in &order {
        let (root, path) = {
            let r = rec.borrow();
            let t = &r.types[key];
            (t.root, t.path.clone())
        };
        rec.borrow_mut().root = Some(root);
        rec.borrow_mut().empty = Some(key.clone());
        rec.borrow_mut().insisted.clear();
        let object = loop {
            match probe(&rec, root) {
                Ok(object) => break object,
                Err(e) => {
                    let message = e.to_string();
                    let missing = message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`'));
                    match missing {
                        Some(m) if !rec.borrow().insisted.iter().any(|i| i == m) => {
                            rec.borrow_mut().insisted.push(m.to_string())
                        }
                        _ => return Err(format!("{key}: {message}")),
                    }
                }
            }
        };
        rec.borrow_mut().empty = None;
        let json = object.to_json();
        let found = at(&json, &path).and_then(Value::as_object).ok_or(format!("{key}: not found at {path:?}"))?;
        required.insert(key.clone(), found.keys().cloned().collect());
    }
    let rec = rec.borrow();
    // Each type's lines, with structs named by their Go name only; identical ones share one table key.
    let go_name = |key: &str| rec.types.get(key).map_or("Object", |t| t.name).to_string();
    let lines = |key: &String| {
        let t = &rec.types[key];
        let resource = t.fields.contains(&"kind") && t.fields.contains(&"metadata");
        let mut fields: Vec<&&str> = t.fields.iter().collect();
        fields.sort();
        fields
            .into_iter()
            .map(|field| {
                let shape = t.shapes.get(field).cloned().unwrap_or(Shape::Leaf("Object"));
                let envelope = resource && matches!(*field, "apiVersion" | "kind" | "metadata");
                (*field, shape, !envelope && required[key].iter().any(|r| r == field))
            })
            .collect::<Vec<_>>()
    };
    let signature = |key: &String| {
        let l = lines(key);
        l.iter().map(|(f, s, r)| format!("{f} {} {r}\n", s.render(&go_name))).collect::<String>()
    };
    let mut table_key: BTreeMap<String, String> = BTreeMap::new();
    let mut kept: Vec<(String, String, String)> = Vec::new(); // (table key, Go name, signature)
    for key in &order {
        let name = go_name(key);
        let sig = signature(key);
        let same = kept.iter().find(|(_, n, s)| *n == name && *s == sig);
        let new_key = match same {
            Some((k, _, _)) => k.clone(),
            None => {
                let taken = kept.iter().filter(|(_, n, _)| *n == name).count();
                let k = if taken == 0 { name.clone() } else { format!("{name}~{}", taken + 1) };
                kept.push((k.clone(), name, sig));
                k
            }
        };
        table_key.insert(key.clone(), new_key);
    }
    let named = |key: &str| table_key.get(key).cloned().unwrap_or_else(|| "Object".into());
    let mut out = String::from("# Generated by src/api/schema/derive.rs from the k8s-openapi types; do not edit.\n");
    for (api_version, kind, key) in roots {
        let _ = writeln!(out, "={api_version} {kind} {}", named(&key));
    }
    let mut written = Vec::new();
    for key in &order {
        let k = named(key);
        if written.contains(&k) {
            continue;
        }
        out.push_str(&k);
        out.push('\n');
        for (field, shape, req) in lines(key) {
            let _ = writeln!(out, " {field} {}{}", shape.render(&named), if req { " -required-" } else { "" });
        }
        written.push(k);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_structure_table_matches_the_api_types() {
        let generated = generate().unwrap();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/schema/types.txt");
        if std::env::var_os("KUBEGLASS_WRITE_EXPLAIN_TYPES").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "src/api/schema/types.txt is out of date; rerun with KUBEGLASS_WRITE_EXPLAIN_TYPES=1"
        );
    }
}
