//! The API's schema: every served kind's types and fields, the one source the apiserver's OpenAPI documents
//! (`src/apiserver/openapi.rs`) and `kubectl explain` read. Four text files are compiled in: `types.txt`
//! (generated structure: a line `=apiVersion Kind Type` per kind, then each type's key on a line of its own
//! and its fields below it, one per line, indented by one space), `docs.txt` (our own descriptions: a type's
//! key and its description, then its fields indented by two, each with its description), `enums.txt`
//! (`Type.field value value …`) and `patch.txt` (`Type.field strategy [mergeKey]`: the strategic-merge
//! directives of list fields, as the Go types' `patchStrategy`/`patchMergeKey` tags give them). Lookups
//! search the text itself rather than building maps from it: an explain makes a few hundred of them at
//! most, and the wasm carries no map code for them.

#[cfg(test)]
mod derive;
pub mod go_types;

const TYPES: &str = include_str!("types.txt");
const DOCS: &str = include_str!("docs.txt");
const ENUMS: &str = include_str!("enums.txt");
const PATCH: &str = include_str!("patch.txt");

/// The pseudo-type in `docs.txt` whose field descriptions apply to every kind's own fields (apiVersion,
/// kind, metadata) unless the kind describes them itself.
const EVERY_KIND: &str = "*";

/// One field: `name`, kubectl's type string (structs by table key, `Event~2` for the second type named
/// `Event`), and whether it is required.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field<'t> {
    pub name: &'t str,
    ty: &'t str,
    pub required: bool,
}

impl<'t> Field<'t> {
    /// The type as the table spells it: `[]Container`, `map[string]Quantity`, `Event~2`, `integer`.
    pub fn table_type(&self) -> &'t str {
        self.ty
    }

    /// The type as kubectl prints it: the table key without its `~N` disambiguation.
    pub fn display_type(&self) -> &str {
        self.ty.split_once('~').map_or(self.ty, |(name, _)| name)
    }
}

pub struct Table<'t> {
    types: &'t str,
    docs: &'t str,
    enums: &'t str,
    patch: &'t str,
}

/// `word rest`: the first word and what follows the run of spaces after it, if anything.
fn split_word(line: &str) -> (&str, Option<&str>) {
    match line.split_once(' ') {
        Some((word, rest)) => (word, Some(rest.trim_start()).filter(|r| !r.is_empty())),
        None => (line, None),
    }
}

/// The section of `text` headed by a line whose first word is `key`: that word, the rest of the line, and
/// the indented lines below it. (A substring search finds the line: most of the text is never split.)
fn section<'t>(text: &'t str, key: &str) -> Option<(&'t str, Option<&'t str>, impl Iterator<Item = &'t str>)> {
    let mut from = 0;
    while let Some(i) = text[from..].find(key) {
        let at = from + i;
        let starts_line = at == 0 || text.as_bytes()[at - 1] == b'\n';
        let ends_word = matches!(text.as_bytes().get(at + key.len()), None | Some(b'\n' | b' '));
        if starts_line && ends_word {
            let mut lines = text[at..].lines();
            let (word, rest) = split_word(lines.next().unwrap_or_default());
            return Some((word, rest, lines.take_while(|l| l.starts_with(' '))));
        }
        from = at + 1;
    }
    None
}

impl Table<'static> {
    pub fn load() -> Table<'static> {
        Table { types: TYPES, docs: DOCS, enums: ENUMS, patch: PATCH }
    }
}

impl<'t> Table<'t> {
    /// The `apiVersion Kind Type` lines at the top of types.txt.
    fn roots(&self) -> impl Iterator<Item = &'t str> {
        self.types.lines().skip_while(|l| l.starts_with('#')).map_while(|l| l.strip_prefix('='))
    }

    /// The root type of a kind.
    pub fn root(&self, api_version: &str, kind: &str) -> Option<&'t str> {
        self.roots().find_map(|l| {
            let mut words = l.split(' ');
            (words.next() == Some(api_version) && words.next() == Some(kind)).then(|| words.next()).flatten()
        })
    }

    /// Every kind the table covers, as (apiVersion, kind, root type key), in the table's order.
    pub fn kinds(&self) -> impl Iterator<Item = (&'t str, &'t str, &'t str)> {
        self.roots().filter_map(|l| {
            let mut words = l.split(' ');
            Some((words.next()?, words.next()?, words.next()?))
        })
    }

    /// Every type key the table defines, in the table's order.
    pub fn keys(&self) -> impl Iterator<Item = &'t str> {
        self.types.lines().filter(|l| !l.is_empty() && !l.starts_with([' ', '#', '=']))
    }

    /// Whether `ty` (a field's table type with `[]`/`map[string]` taken off) is a type of the table.
    pub fn has_type(&self, ty: &str) -> bool {
        self.key(ty).is_some()
    }

    /// A list field's strategic-merge directives: the strategy (`merge`, `retainKeys`, `merge,retainKeys`)
    /// and the merge key of a list of objects.
    pub fn patch_strategy(&self, key: &str, field: &str) -> Option<(&'t str, Option<&'t str>)> {
        self.patch.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next()?.split_once('.')? == (key, field)).then(|| (words.next().unwrap_or("merge"), words.next()))
        })
    }

    fn is_root(&self, key: &str) -> bool {
        self.roots().any(|l| l.rsplit(' ').next() == Some(key))
    }

    /// The type's key as the table spells it, when the table has the type.
    fn key(&self, key: &str) -> Option<&'t str> {
        section(self.types, key).map(|(word, _, _)| word)
    }

    /// A type's fields, sorted by name.
    pub fn fields(&self, key: &str) -> Vec<Field<'t>> {
        let Some((_, _, lines)) = section(self.types, key) else { return Vec::new() };
        lines
            .filter_map(|l| {
                let mut words = l[1..].split(' ');
                let (name, ty) = (words.next()?, words.next()?);
                Some(Field { name, ty, required: words.next() == Some("-required-") })
            })
            .collect()
    }

    pub fn field(&self, key: &str, name: &str) -> Option<Field<'t>> {
        self.fields(key).into_iter().find(|f| f.name == name)
    }

    /// The type a field's value (or its items, or its map values) has, when it is a type with fields.
    pub fn target(&self, field: &Field<'t>) -> Option<&'t str> {
        let mut ty = field.ty;
        while let Some(rest) = ty.strip_prefix("[]").or_else(|| ty.strip_prefix("map[string]")) {
            ty = rest;
        }
        self.key(ty)
    }

    pub fn type_doc(&self, key: &str) -> Option<&'t str> {
        section(self.docs, key).and_then(|(_, doc, _)| doc)
    }

    pub fn field_doc(&self, key: &str, field: &str) -> Option<&'t str> {
        let in_section = |key: &str| {
            section(self.docs, key)?.2.find_map(|l| match split_word(l.trim_start()) {
                (name, doc) if name == field => doc,
                _ => None,
            })
        };
        in_section(key).or_else(|| if self.is_root(key) { in_section(EVERY_KIND) } else { None })
    }

    /// The allowed values of an enum field, in kubectl's order; empty for other fields.
    pub fn enumeration(&self, key: &str, field: &str) -> Vec<&'t str> {
        let mut words = self
            .enums
            .lines()
            .map(str::split_whitespace)
            .find(|w| w.clone().next().and_then(|first| first.split_once('.')) == Some((key, field)));
        words.as_mut().map(|w| w.skip(1).collect()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `Key`/`  field` pair a description file names.
    fn described(text: &str) -> Vec<(&str, Option<&str>)> {
        let mut out = Vec::new();
        let mut key = "";
        for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            match line.strip_prefix("  ") {
                Some(field) => out.push((key, Some(split_word(field).0))),
                None => {
                    key = split_word(line).0;
                    out.push((key, None));
                }
            }
        }
        out
    }

    #[test]
    fn every_description_and_enum_names_a_type_and_field_of_the_table() {
        let table = Table::load();
        for (key, field) in described(DOCS).into_iter().filter(|(k, _)| *k != EVERY_KIND) {
            assert!(table.key(key).is_some(), "docs.txt describes unknown type {key}");
            if let Some(field) = field {
                assert!(table.field(key, field).is_some(), "docs.txt describes unknown field {key}.{field}");
            }
        }
        for line in ENUMS.lines().filter(|l| !l.starts_with('#')) {
            let (key, field) = line.split(' ').next().and_then(|w| w.split_once('.')).unwrap_or_default();
            assert!(table.field(key, field).is_some(), "enums.txt lists unknown field {key}.{field}");
        }
        for line in PATCH.lines().filter(|l| !l.starts_with('#')) {
            let (key, field) = line.split(' ').next().and_then(|w| w.split_once('.')).unwrap_or_default();
            assert!(table.field(key, field).is_some(), "patch.txt lists unknown field {key}.{field}");
            let (strategy, _) = table.patch_strategy(key, field).unwrap();
            assert!(["merge", "retainKeys", "merge,retainKeys"].contains(&strategy), "{line}");
        }
    }

    #[test]
    fn no_type_or_field_is_described_twice() {
        let mut seen = described(DOCS);
        let all = seen.len();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), all);
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
        let table = Table {
            types: "=v1 Pod Pod\nPod\n a []B -required-\n m map[string]B\n s string\nB\n x integer\n",
            docs: "*\n  s  Shared.\nB  The B.\n  x  An x.\n",
            enums: "B.x 1 2\n",
            patch: "Pod.a merge x\n",
        };
        let a = table.field("Pod", "a").unwrap();
        assert!(a.required);
        assert_eq!((a.display_type(), table.target(&a)), ("[]B", Some("B")));
        assert_eq!(table.target(&table.field("Pod", "m").unwrap()), Some("B"));
        assert_eq!(table.target(&table.field("Pod", "s").unwrap()), None);
        assert_eq!(table.root("v1", "Pod"), Some("Pod"));
        assert_eq!((table.type_doc("B"), table.field_doc("B", "x")), (Some("The B."), Some("An x.")));
        assert_eq!((table.field_doc("Pod", "s"), table.field_doc("B", "s")), (Some("Shared."), None));
        assert_eq!((table.enumeration("B", "x"), table.enumeration("Pod", "s")), (vec!["1", "2"], vec![]));
        assert_eq!(
            (table.patch_strategy("Pod", "a"), table.patch_strategy("Pod", "m")),
            (Some(("merge", Some("x"))), None)
        );
        assert_eq!(table.kinds().collect::<Vec<_>>(), vec![("v1", "Pod", "Pod")]);
        assert_eq!(table.keys().collect::<Vec<_>>(), vec!["Pod", "B"]);
        assert!(table.has_type("B") && !table.has_type("string"));
    }
}
