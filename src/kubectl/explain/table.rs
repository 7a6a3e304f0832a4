//! The schema `kubectl explain` walks, read from three text files compiled in: `types.txt` (generated
//! structure: one line per kind naming its root type, then each type and its fields), `docs.txt` (our own
//! descriptions: a type's key and its description, then its fields indented, each with its description)
//! and `enums.txt` (`Type.field value value …`). The files are parsed on each explain, which is cheap next
//! to printing.

use std::collections::BTreeMap;

const TYPES: &str = include_str!("types.txt");
const DOCS: &str = include_str!("docs.txt");
const ENUMS: &str = include_str!("enums.txt");

/// The pseudo-type in `docs.txt` whose field descriptions apply to every kind's own fields (apiVersion,
/// kind, metadata) unless the kind describes them itself.
const EVERY_KIND: &str = "*";

/// One field: `name`, kubectl's type string (structs by table key, `Event~2` for the second type named
/// `Event`), and whether it is required.
pub struct Field<'t> {
    pub name: &'t str,
    ty: &'t str,
    pub required: bool,
}

impl Field<'_> {
    /// The type as kubectl prints it: the table key without its `~N` disambiguation.
    pub fn display_type(&self) -> String {
        match self.ty.split_once('~') {
            Some((name, _)) => name.to_string(),
            None => self.ty.to_string(),
        }
    }
}

#[derive(Default)]
struct Docs<'t> {
    doc: Option<&'t str>,
    fields: BTreeMap<&'t str, &'t str>,
}

#[derive(Default)]
pub struct Table<'t> {
    /// apiVersion → kind → root type key.
    roots: BTreeMap<&'t str, BTreeMap<&'t str, &'t str>>,
    types: BTreeMap<&'t str, Vec<Field<'t>>>,
    docs: BTreeMap<&'t str, Docs<'t>>,
    /// type → field → values.
    enums: BTreeMap<&'t str, BTreeMap<&'t str, Vec<&'t str>>>,
}

/// `word rest`: the first word and the rest after the run of spaces following it.
fn split_word(line: &str) -> (&str, Option<&str>) {
    match line.split_once(' ') {
        Some((word, rest)) => (word, Some(rest.trim_start()).filter(|r| !r.is_empty())),
        None => (line, None),
    }
}

impl Table<'static> {
    pub fn load() -> Table<'static> {
        Table::parse(TYPES, DOCS, ENUMS)
    }
}

impl<'t> Table<'t> {
    fn parse(types: &'t str, docs: &'t str, enums: &'t str) -> Table<'t> {
        let mut table = Table::default();
        let mut current: Option<&'t str> = None;
        for line in types.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
            if let Some(root) = line.strip_prefix('=') {
                let mut words = root.split(' ');
                if let (Some(api_version), Some(kind), Some(key)) = (words.next(), words.next(), words.next()) {
                    table.roots.entry(api_version).or_default().insert(kind, key);
                }
            } else if let Some(field) = line.strip_prefix(' ') {
                let mut words = field.split(' ');
                let (Some(name), Some(ty)) = (words.next(), words.next()) else { continue };
                let required = words.next() == Some("-required-");
                if let Some(key) = current {
                    table.types.entry(key).or_default().push(Field { name, ty, required });
                }
            } else {
                current = Some(line);
                table.types.entry(line).or_default();
            }
        }
        let mut current: Option<&'t str> = None;
        for line in docs.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            if let Some(field) = line.strip_prefix("  ") {
                let (name, doc) = split_word(field.trim_start());
                if let (Some(key), Some(doc)) = (current, doc) {
                    table.docs.entry(key).or_default().fields.insert(name, doc);
                }
            } else {
                let (key, doc) = split_word(line);
                current = Some(key);
                table.docs.entry(key).or_default().doc = doc;
            }
        }
        for line in enums.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            let Some((key, field)) = words.next().and_then(|w| w.split_once('.')) else { continue };
            table.enums.entry(key).or_default().insert(field, words.collect());
        }
        table
    }

    /// The root type of a kind.
    pub fn root(&self, api_version: &str, kind: &str) -> Option<&'t str> {
        self.roots.get(api_version).and_then(|kinds| kinds.get(kind)).copied()
    }

    /// A type's fields, sorted by name.
    pub fn fields(&self, key: &str) -> &[Field<'t>] {
        self.types.get(key).map_or(&[], Vec::as_slice)
    }

    pub fn field(&self, key: &str, name: &str) -> Option<&Field<'t>> {
        self.fields(key).iter().find(|f| f.name == name)
    }

    /// The type a field's value (or its items, or its map values) has, when it is a type with fields.
    pub fn target(&self, field: &Field<'t>) -> Option<&'t str> {
        let mut ty = field.ty;
        loop {
            if let Some(rest) = ty.strip_prefix("[]") {
                ty = rest;
            } else if let Some(rest) = ty.strip_prefix("map[string]") {
                ty = rest;
            } else {
                break;
            }
        }
        self.types.get_key_value(ty).map(|(k, _)| *k)
    }

    pub fn type_doc(&self, key: &str) -> Option<&'t str> {
        self.docs.get(key).and_then(|d| d.doc)
    }

    pub fn field_doc(&self, key: &str, field: &str) -> Option<&'t str> {
        let own = self.docs.get(key).and_then(|d| d.fields.get(field)).copied();
        let is_kind = self.roots.values().flat_map(BTreeMap::values).any(|r| *r == key);
        own.or_else(|| is_kind.then(|| self.docs.get(EVERY_KIND).and_then(|d| d.fields.get(field)).copied()).flatten())
    }

    pub fn enumeration(&self, key: &str, field: &str) -> &[&'t str] {
        self.enums.get(key).and_then(|fields| fields.get(field)).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_description_and_enum_names_a_type_and_field_of_the_table() {
        let table = Table::load();
        for (key, docs) in &table.docs {
            if *key == EVERY_KIND {
                continue;
            }
            assert!(table.types.contains_key(key), "docs.txt describes unknown type {key}");
            for field in docs.fields.keys() {
                assert!(table.field(key, field).is_some(), "docs.txt describes unknown field {key}.{field}");
            }
        }
        for (key, fields) in &table.enums {
            for field in fields.keys() {
                assert!(table.field(key, field).is_some(), "enums.txt lists unknown field {key}.{field}");
            }
        }
    }

    #[test]
    fn the_common_kinds_and_their_fields_have_our_descriptions() {
        let table = Table::load();
        for kind in ["Pod", "Deployment", "Service", "ConfigMap", "Job", "CronJob", "Ingress", "Node"] {
            assert!(table.type_doc(kind).is_some(), "{kind}");
            for field in table.fields(kind) {
                assert!(table.field_doc(kind, field.name).is_some(), "{kind}.{}", field.name);
            }
        }
        for key in ["PodSpec", "Container", "Probe", "HTTPGetAction", "ObjectMeta", "LabelSelector", "Volume"] {
            for field in table.fields(key) {
                assert!(table.field_doc(key, field.name).is_some(), "{key}.{}", field.name);
            }
        }
    }

    #[test]
    fn a_field_leads_through_lists_and_maps_to_its_type() {
        let table =
            Table::parse("=v1 Pod Pod\nPod\n a []B -required-\n m map[string]B\n s string\nB\n x integer\n", "", "");
        let a = table.field("Pod", "a").unwrap();
        assert!(a.required);
        assert_eq!((a.display_type().as_str(), table.target(a)), ("[]B", Some("B")));
        assert_eq!(table.target(table.field("Pod", "m").unwrap()), Some("B"));
        assert_eq!(table.target(table.field("Pod", "s").unwrap()), None);
        assert_eq!(table.root("v1", "Pod"), Some("Pod"));
    }
}
