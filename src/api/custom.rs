//! Custom resources: the kinds a CustomResourceDefinition adds while the cluster runs. The built-in kinds are
//! a static table ([`super::RESOURCES`]); a custom kind is made from a definition's names, so its identity
//! ([`CustomDef`]) and its resource rows (one per served version) are interned: each distinct one is
//! allocated once for the life of the process and shared from then on, so [`super::Kind`] stays `Copy` and a
//! request can keep naming its resource by `&'static ResourceInfo`, as it does for the built-in kinds.
//!
//! A custom object ([`CustomObject`]) is what the apiserver stores for a custom resource: its `apiVersion`,
//! its metadata, and every other field as JSON, pruned and validated against the definition's schema by the
//! apiserver before it is written.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::kinds::{Kind, ResourceInfo};
use super::ObjectMeta;

/// The identity of a custom kind: what its stored objects are (group, plural resource, kind, scope). The
/// version is not part of it: one store holds the objects of every version a definition serves.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CustomDef {
    pub group: &'static str,
    /// The plural resource name (`crontabs`).
    pub resource: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

impl CustomDef {
    /// The row that names this kind without a version (what [`Kind::info`] gives): its key prefix, scope and
    /// names. A request names its version with [`row`].
    pub fn home(&'static self) -> &'static ResourceInfo {
        row(self, "")
    }
}

/// Interned custom definitions and rows. The engine never iterates them: they only map names to shared
/// values, so nothing about the order of interning can reach a trace.
struct Interned {
    groups: std::collections::BTreeSet<&'static str>,
    defs: BTreeMap<(String, String, String, String, bool), &'static CustomDef>,
    rows: BTreeMap<(&'static CustomDef, String), &'static ResourceInfo>,
}

static INTERNED: Mutex<Interned> =
    Mutex::new(Interned { groups: std::collections::BTreeSet::new(), defs: BTreeMap::new(), rows: BTreeMap::new() });

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn interned() -> std::sync::MutexGuard<'static, Interned> {
    // A panic while the table was held cannot leave it half-written (inserts are single calls).
    INTERNED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An API group's name as a shared string (a custom resource's group, as error details name it).
pub fn group_name(group: &str) -> &'static str {
    let mut table = interned();
    if let Some(g) = table.groups.get(group) {
        return g;
    }
    let g = leak(group);
    table.groups.insert(g);
    g
}

/// The custom kind with these names.
pub fn kind(group: &str, resource: &str, singular: &str, kind: &str, namespaced: bool) -> Kind {
    let key = (group.to_string(), resource.to_string(), singular.to_string(), kind.to_string(), namespaced);
    let mut table = interned();
    if let Some(def) = table.defs.get(&key) {
        return Kind::Custom(def);
    }
    let def: &'static CustomDef = Box::leak(Box::new(CustomDef {
        group: leak(group),
        resource: leak(resource),
        singular: leak(singular),
        kind: leak(kind),
        namespaced,
    }));
    table.defs.insert(key, def);
    Kind::Custom(def)
}

/// The resource row of a custom kind at `version` (`""`: the kind's home row, which names no version).
pub fn row(def: &'static CustomDef, version: &str) -> &'static ResourceInfo {
    let mut table = interned();
    if let Some(row) = table.rows.get(&(def, version.to_string())) {
        return row;
    }
    let etcd = leak(&format!("{}/{}", def.group, def.resource));
    let row: &'static ResourceInfo = Box::leak(Box::new(ResourceInfo {
        kind: Kind::Custom(def),
        resource: def.resource,
        singular: def.singular,
        short_names: &[],
        group: def.group,
        version: leak(version),
        namespaced: def.namespaced,
        etcd,
        stored: true,
        in_all: false,
    }));
    table.rows.insert((def, version.to_string()), row);
    row
}

/// An object of a custom kind: its `apiVersion`, metadata, and the rest of its fields as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomObject {
    pub def: &'static CustomDef,
    /// `group/version`: the version it was written or converted to.
    pub api_version: String,
    pub metadata: ObjectMeta,
    /// Every field but `apiVersion`, `kind` and `metadata`.
    pub content: Map<String, Value>,
}

impl CustomObject {
    /// The version part of `apiVersion`.
    pub fn version(&self) -> &str {
        self.api_version.rsplit_once('/').map_or(self.api_version.as_str(), |(_, v)| v)
    }

    /// Reads an object of custom kind `def` from JSON. Only the metadata has a fixed type; a metadata that
    /// does not decode is the error.
    pub fn from_value(def: &'static CustomDef, value: Value) -> Result<CustomObject, serde_json::Error> {
        let mut content = match value {
            Value::Object(map) => map,
            other => {
                return Err(<serde_json::Error as serde::de::Error>::custom(format!(
                    "expected an object, found {other}"
                )))
            }
        };
        let api_version = match content.remove("apiVersion") {
            Some(Value::String(s)) => s,
            _ => format!("{}/", def.group),
        };
        content.remove("kind");
        let metadata = match content.remove("metadata") {
            Some(Value::Null) | None => ObjectMeta::default(),
            Some(m) => serde_json::from_value(m)?,
        };
        Ok(CustomObject { def, api_version, metadata, content })
    }

    /// The object as JSON, `apiVersion`, `kind` and `metadata` with the rest.
    pub fn to_value(&self) -> Value {
        let mut map = self.content.clone();
        map.insert("apiVersion".into(), Value::String(self.api_version.clone()));
        map.insert("kind".into(), Value::String(self.def.kind.to_string()));
        map.insert("metadata".into(), serde_json::to_value(&self.metadata).unwrap_or(Value::Null));
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_names_give_the_same_kind_and_rows() {
        let a = kind("stable.example.com", "crontabs", "crontab", "CronTab", true);
        let b = kind("stable.example.com", "crontabs", "crontab", "CronTab", true);
        assert_eq!(a, b);
        let Kind::Custom(def) = a else { panic!("a custom kind") };
        assert!(std::ptr::eq(row(def, "v1"), row(def, "v1")));
        assert_eq!(row(def, "v1").api_version(), "stable.example.com/v1");
        assert_eq!(row(def, "v1").key(Some("default"), "c"), "/registry/stable.example.com/crontabs/default/c");
        assert_eq!(row(def, "v1").qualified(), "crontabs.stable.example.com");
        assert_eq!(a.name(), "CronTab");
        assert_eq!(a.info().kind, a);
        let cluster = kind("stable.example.com", "crontabs", "crontab", "CronTab", false);
        assert_ne!(a, cluster, "the scope is part of the identity");
    }

    #[test]
    fn a_custom_object_keeps_every_field_and_its_type() {
        let Kind::Custom(def) = kind("stable.example.com", "crontabs", "crontab", "CronTab", true) else {
            unreachable!()
        };
        let value = serde_json::json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "c", "namespace": "default"}, "spec": {"cronSpec": "* * * * */5", "replicas": 2}});
        let o = CustomObject::from_value(def, value.clone()).unwrap();
        assert_eq!((o.version(), o.metadata.name.as_deref()), ("v1", Some("c")));
        assert_eq!(o.to_value(), value);
        assert!(CustomObject::from_value(def, serde_json::json!({"metadata": {"name": 3}})).is_err());
    }
}
