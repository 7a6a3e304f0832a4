//! The OpenAPI documents kube-apiserver publishes: `/openapi/v3` (the index of group-versions, each with the
//! address of its document and the document's hash), `/openapi/v3/api/v1` and `/openapi/v3/apis/<g>/<v>`
//! (paths with their operations and parameters, and the schemas of every type the group-version's kinds
//! reach), and `/openapi/v2` (the Swagger 2.0 document of everything). All are written from the one schema
//! table (`crate::api::schema`) that `kubectl explain` reads, so the real kubectl's explain, its
//! field-validation check before `apply` and its strategic-merge patches see exactly the types kubeglass
//! stores. The Kubernetes counterparts are k8s.io/kube-openapi's `handler3` (the v3 index and its hashes)
//! and the apiserver's OpenAPI builder (operation ids, `x-kubernetes-*` extensions).
//!
//! Type names follow the Go packages the types live in (`io.k8s.api.apps.v1.DeploymentSpec`,
//! `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`); the table does not record packages, so a type is
//! placed in the group of the first kind that reaches it, core kinds first, with the few shared types
//! apimachinery and core own named here.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use crate::api::custom;
use crate::api::schema::{Field, Table};
use crate::api::{Object, ResourceInfo};

use super::{apiextensions, discovery};

/// Types defined by apimachinery's meta/v1 package.
const META_V1: [&str; 8] = [
    "ObjectMeta",
    "ListMeta",
    "LabelSelector",
    "LabelSelectorRequirement",
    "ManagedFieldsEntry",
    "OwnerReference",
    "Condition",
    "FieldsV1",
];

/// Core (`io.k8s.api.core.v1`) types that only kinds of other groups reach.
const CORE_SHARED: [&str; 3] = ["PodTemplateSpec", "TopologySelectorTerm", "TopologySelectorLabelRequirement"];

/// The named leaf types: schemas of their own whose values are not objects with fields.
const LEAVES: [(&str, &str); 4] = [
    ("Quantity", "io.k8s.apimachinery.pkg.api.resource.Quantity"),
    ("IntOrString", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"),
    ("FieldsV1", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"),
    ("RawExtension", "io.k8s.apimachinery.pkg.runtime.RawExtension"),
];

/// Query parameters every write takes, as the apiserver documents them.
const DRY_RUN: &str = "When present, indicates that modifications should not be persisted. Valid values: All.";
const FIELD_MANAGER: &str = "The name of the actor or entity making the change.";
const FIELD_VALIDATION: &str =
    "How the server treats unknown or duplicate fields in the object sent: Ignore, Warn or Strict.";

/// The document for an OpenAPI path (`/openapi/v3`, `/openapi/v3/apis/apps/v1?hash=…`, `/openapi/v2`;
/// the query is ignored), or None when the path is not one.
pub fn document(path: &str, crds: &[Arc<Object>]) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
    if path == "/openapi/v3" && !crds.is_empty() {
        // The index with each custom group-version's document and its hash.
        let mut index = index().clone();
        for (group, versions) in discovery::custom_groups(crds) {
            for version in versions {
                let body = format!("{}\n", custom_v3(crds, &group, &version));
                let gv = format!("apis/{group}/{version}");
                index.insert(
                    gv.clone(),
                    json!({ "serverRelativeURL": format!("/openapi/v3/{gv}?hash={}", hash(&body)) }),
                );
            }
        }
        return Some(format!("{}\n", json!({ "paths": index })));
    }
    if let Some(doc) = documents().get(path) {
        return Some(doc.clone());
    }
    let (group, version) = path.strip_prefix("/openapi/v3/apis/")?.split_once('/')?;
    let served =
        discovery::custom_groups(crds).into_iter().any(|(g, vs)| g == group && vs.iter().any(|v| v == version));
    served.then(|| format!("{}\n", custom_v3(crds, group, version)))
}

/// kube-openapi's document hash: the SHA-512 of the body in upper-case hex.
fn hash(body: &str) -> String {
    Sha512::digest(body.as_bytes()).iter().map(|b| format!("{b:02X}")).collect()
}

/// The v3 index's entries of the built-in group-versions.
fn index() -> &'static Map<String, Value> {
    static INDEX: OnceLock<Map<String, Value>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let index = documents().get("/openapi/v3").and_then(|d| serde_json::from_str::<Value>(d).ok());
        index.and_then(|i| i["paths"].as_object().cloned()).unwrap_or_default()
    })
}

/// What a custom resource's schema takes from the built-in types: ObjectMeta's reference, the schemas of
/// ObjectMeta and every type it reaches, and the descriptions of `apiVersion`, `kind` and `metadata`.
struct MetaSchemas {
    reference: Value,
    schemas: Map<String, Value>,
    api_version: String,
    kind: String,
    metadata: String,
}

fn meta_schemas() -> &'static MetaSchemas {
    static META: OnceLock<MetaSchemas> = OnceLock::new();
    META.get_or_init(|| {
        let table = Table::load();
        let graph = Graph::of(&table);
        let names = Names::of(&table, &graph);
        let root = table.root("apps/v1", "Deployment").unwrap_or_default();
        let meta = table.field(root, "metadata").and_then(|f| table.target(&f)).unwrap_or_default();
        let schemas =
            graph.reachable(&[meta]).into_iter().map(|key| (names.name(key), component(&table, &names, key, Ref::V3)));
        let doc = |field: &str| table.field_doc(root, field).unwrap_or_default().to_string();
        MetaSchemas {
            reference: names.reference(meta, Ref::V3),
            schemas: schemas.collect(),
            api_version: doc("apiVersion"),
            kind: doc("kind"),
            metadata: doc("metadata"),
        }
    })
}

/// The v3 document of a custom group-version: each definition's paths, and its schema (the version's
/// `openAPIV3Schema`, with `apiVersion`, `kind` and `metadata` as every kind has them) named after the
/// reversed group (`com.example.stable.v1.CronTab`), beside ObjectMeta's.
fn custom_v3(crds: &[Arc<Object>], group: &str, version: &str) -> Value {
    let meta = meta_schemas();
    let mut paths = Map::new();
    let mut schemas = meta.schemas.clone();
    let reversed: Vec<&str> = group.split('.').rev().collect();
    for d in discovery::serving(crds, group, version) {
        let Some(v) = d.spec.versions.iter().find(|v| v.name == version) else { continue };
        let crate::api::Kind::Custom(def) = apiextensions::kind_of(d) else { continue };
        let row = custom::row(def, version);
        let name = format!("{}.{version}.{}", reversed.join("."), def.kind);
        let given = v.schema.as_ref().and_then(|s| s.open_api_v3_schema.as_ref());
        let mut schema = given
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or_else(|| json!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true }));
        if let Some(object) = schema.as_object_mut() {
            let properties = object.entry("properties").or_insert_with(|| json!({}));
            properties["apiVersion"] = json!({ "type": "string", "description": meta.api_version });
            properties["kind"] = json!({ "type": "string", "description": meta.kind });
            properties["metadata"] = json!({ "allOf": [meta.reference], "description": meta.metadata });
            object.insert("x-kubernetes-group-version-kind".into(), json!([gvk(&row.api_version(), def.kind)]));
        }
        schemas.insert(name.clone(), schema);
        let reference = json!({ "$ref": format!("#/components/schemas/{name}") });
        paths.extend(resource_paths(row, Some(&reference), Ref::V3));
    }
    json!({
        "openapi": "3.0.0",
        "info": { "title": "Kubernetes CRD Swagger", "version": "v0.1.0" },
        "paths": paths,
        "components": { "schemas": schemas },
    })
}

/// Every document by its path, written once: they follow from the compiled-in schema and the resource
/// table alone.
fn documents() -> &'static BTreeMap<String, String> {
    static DOCUMENTS: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        let table = Table::load();
        let graph = Graph::of(&table);
        let names = Names::of(&table, &graph);
        let mut out = BTreeMap::new();
        let mut index = Map::new();
        for (path, group, version) in group_versions() {
            let body = format!("{}\n", v3(&table, &graph, &names, group, version));
            // The hash of the document (uppercase hex SHA-512, as kube-openapi computes it) lets clients
            // cache it for good.
            let hash = hash(&body);
            index.insert(path.clone(), json!({ "serverRelativeURL": format!("/openapi/v3/{path}?hash={hash}") }));
            out.insert(format!("/openapi/v3/{path}"), body);
        }
        out.insert("/openapi/v3".to_string(), format!("{}\n", json!({ "paths": index })));
        out.insert("/openapi/v2".to_string(), format!("{}\n", v2(&table, &graph, &names)));
        out
    })
}

/// The group-versions that have a v3 document, as its path (`api/v1`, `apis/apps/v1`).
fn group_versions() -> Vec<(String, &'static str, &'static str)> {
    let mut out = vec![("api/v1".to_string(), "", "v1")];
    for (group, version) in discovery::groups() {
        out.push((format!("apis/{group}/{version}"), group, version));
    }
    out
}

/// Which types each type's fields lead to.
struct Graph<'t> {
    children: BTreeMap<&'t str, Vec<&'t str>>,
}

impl<'t> Graph<'t> {
    fn of(table: &Table<'t>) -> Graph<'t> {
        let children =
            table.keys().map(|key| (key, table.fields(key).iter().filter_map(|f| table.target(f)).collect())).collect();
        Graph { children }
    }

    /// The types `roots` reach through their fields, each once, in the order first met (depth first).
    fn reachable(&self, roots: &[&'t str]) -> Vec<&'t str> {
        let mut seen = BTreeSet::new();
        let mut order = Vec::new();
        let mut todo: Vec<&'t str> = roots.iter().rev().copied().collect();
        while let Some(key) = todo.pop() {
            if !seen.insert(key) {
                continue;
            }
            order.push(key);
            if let Some(next) = self.children.get(key) {
                todo.extend(next.iter().rev().filter(|k| !seen.contains(*k)));
            }
        }
        order
    }
}

/// The paths of `resources` and the schemas of every type their kinds reach, references written `to`.
fn paths_and_schemas<'r>(
    table: &Table<'_>,
    graph: &Graph<'_>,
    names: &Names<'_>,
    resources: impl Iterator<Item = &'r ResourceInfo>,
    to: Ref,
) -> (Map<String, Value>, Map<String, Value>) {
    let mut paths = Map::new();
    let mut roots = Vec::new();
    for r in resources {
        let root = table.root(&r.api_version(), r.kind.name());
        roots.extend(root);
        let schema = root.map(|key| names.reference(key, to));
        paths.extend(resource_paths(r, schema.as_ref(), to));
    }
    let schemas = graph.reachable(&roots).into_iter().map(|key| (names.name(key), component(table, names, key, to)));
    (paths, schemas.collect())
}

/// The v3 document of one group-version.
fn v3(table: &Table<'_>, graph: &Graph<'_>, names: &Names<'_>, group: &str, version: &str) -> Value {
    let resources = discovery::listed().filter(|r| r.group == group && r.version == version);
    let (paths, mut schemas) = paths_and_schemas(table, graph, names, resources, Ref::V3);
    for (leaf, name) in LEAVES {
        if references_leaf(&schemas, name) {
            schemas.insert(name.to_string(), leaf_schema(leaf));
        }
    }
    json!({
        "openapi": "3.0.0",
        "info": { "title": "Kubernetes", "version": "v1.34.1" },
        "paths": paths,
        "components": { "schemas": schemas },
    })
}

/// `/openapi/v2`: the Swagger 2.0 document of every group-version.
fn v2(table: &Table<'_>, graph: &Graph<'_>, names: &Names<'_>) -> Value {
    let (paths, mut definitions) = paths_and_schemas(table, graph, names, discovery::listed(), Ref::V2);
    for (leaf, name) in LEAVES {
        definitions.insert(name.to_string(), leaf_schema_v2(leaf));
    }
    json!({
        "swagger": "2.0",
        "info": { "title": "Kubernetes", "version": "v1.34.1" },
        "paths": paths,
        "definitions": definitions,
    })
}

/// Where a reference points: v3's `#/components/schemas/…` or v2's `#/definitions/…`.
#[derive(Clone, Copy, PartialEq)]
enum Ref {
    V2,
    V3,
}

/// The Go-package names of the table's types.
struct Names<'t> {
    by_key: BTreeMap<&'t str, String>,
}

impl<'t> Names<'t> {
    /// Names every type: walking the kinds in the table's order (core first), a type takes the package
    /// of the first kind that reaches it.
    fn of(table: &Table<'t>, graph: &Graph<'t>) -> Names<'t> {
        let mut by_key = BTreeMap::new();
        for (api_version, _, root) in table.kinds() {
            let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
            let package = if group.is_empty() { "core" } else { group.split('.').next().unwrap_or(group) };
            for key in graph.reachable(&[root]) {
                by_key.entry(key).or_insert_with(|| {
                    let name = key.split_once('~').map_or(key, |(name, _)| name);
                    if META_V1.contains(&name) {
                        format!("io.k8s.apimachinery.pkg.apis.meta.v1.{name}")
                    } else if CORE_SHARED.contains(&name) {
                        format!("io.k8s.api.core.v1.{name}")
                    } else {
                        format!("io.k8s.api.{package}.{version}.{name}")
                    }
                });
            }
        }
        Names { by_key }
    }

    fn name(&self, key: &str) -> String {
        self.by_key.get(key).cloned().unwrap_or_else(|| key.to_string())
    }

    fn reference(&self, key: &str, to: Ref) -> Value {
        let name = LEAVES.iter().find(|(leaf, _)| *leaf == key).map_or_else(|| self.name(key), |(_, n)| n.to_string());
        match to {
            Ref::V3 => json!({ "$ref": format!("#/components/schemas/{name}") }),
            Ref::V2 => json!({ "$ref": format!("#/definitions/{name}") }),
        }
    }
}

/// Whether a schema in `schemas` refers to the leaf type named `name`.
fn references_leaf(schemas: &Map<String, Value>, name: &str) -> bool {
    let needle = format!("/{name}\"");
    schemas.values().any(|s| s.to_string().contains(&needle))
}

/// A named leaf's schema (v3): a Quantity or an IntOrString is a string or a number, so it has no `type`
/// (kubectl explain then names it by its reference); FieldsV1 and RawExtension are free-form objects.
fn leaf_schema(leaf: &str) -> Value {
    match leaf {
        "Quantity" => json!({ "oneOf": [{ "type": "string" }, { "type": "number" }] }),
        "IntOrString" => json!({ "oneOf": [{ "type": "integer" }, { "type": "string" }], "format": "int-or-string" }),
        _ => json!({ "type": "object" }),
    }
}

/// A named leaf's schema in Swagger 2.0, which has no `oneOf`.
fn leaf_schema_v2(leaf: &str) -> Value {
    match leaf {
        "Quantity" => json!({ "type": "string" }),
        "IntOrString" => json!({ "type": "string", "format": "int-or-string" }),
        _ => json!({ "type": "object" }),
    }
}

/// The schema of a value of the table type `ty` (no description).
fn value_schema(names: &Names<'_>, ty: &str, to: Ref) -> Value {
    if let Some(item) = ty.strip_prefix("[]") {
        return json!({ "type": "array", "items": value_schema(names, item, to) });
    }
    if let Some(value) = ty.strip_prefix("map[string]") {
        return json!({ "type": "object", "additionalProperties": value_schema(names, value, to) });
    }
    match ty {
        "string" => json!({ "type": "string" }),
        "integer" => json!({ "type": "integer" }),
        "boolean" => json!({ "type": "boolean" }),
        named => match to {
            // v3 wraps a reference in `allOf` so that the field can carry its own description.
            Ref::V3 => json!({ "allOf": [names.reference(named, to)], "default": {} }),
            Ref::V2 => names.reference(named, to),
        },
    }
}

/// A field's schema: its value's, with the field's description, allowed values and patch directives.
fn field_schema(table: &Table<'_>, names: &Names<'_>, key: &str, field: &Field<'_>, to: Ref) -> Value {
    let mut schema = value_schema(names, field.table_type(), to);
    let Some(object) = schema.as_object_mut() else { return schema };
    if let Some(doc) = table.field_doc(key, field.name) {
        object.insert("description".into(), json!(doc));
    }
    let values: Vec<&str> =
        table.enumeration(key, field.name).into_iter().map(|v| if v == "\"\"" { "" } else { v }).collect();
    if !values.is_empty() {
        object.insert("enum".into(), json!(values));
    }
    if let Some((strategy, merge_key)) = table.patch_strategy(key, field.name) {
        if let Some(merge_key) = merge_key {
            object.insert("x-kubernetes-patch-merge-key".into(), json!(merge_key));
        }
        object.insert("x-kubernetes-patch-strategy".into(), json!(strategy));
    }
    schema
}

/// A type's schema: an object with its fields, the required ones listed, and for a kind the
/// `x-kubernetes-group-version-kind` clients find it by.
fn component(table: &Table<'_>, names: &Names<'_>, key: &str, to: Ref) -> Value {
    let fields = table.fields(key);
    let properties: Map<String, Value> =
        fields.iter().map(|f| (f.name.to_string(), field_schema(table, names, key, f, to))).collect();
    let mut schema = json!({ "type": "object", "properties": properties });
    if let Some(doc) = table.type_doc(key) {
        schema["description"] = json!(doc);
    }
    let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| f.name).collect();
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    let kinds: Vec<Value> = table
        .kinds()
        .filter(|(_, _, root)| *root == key)
        .map(|(api_version, kind, _)| json!(gvk(api_version, kind)))
        .collect();
    if !kinds.is_empty() {
        schema["x-kubernetes-group-version-kind"] = json!(kinds);
    }
    schema
}

fn gvk(api_version: &str, kind: &str) -> Value {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    json!({ "group": group, "kind": kind, "version": version })
}

/// The paths of one resource and their operations, as the apiserver's installer documents them.
fn resource_paths(r: &ResourceInfo, schema: Option<&Value>, to: Ref) -> Vec<(String, Value)> {
    let prefix = if r.group.is_empty() { "/api/v1".to_string() } else { format!("/apis/{}/{}", r.group, r.version) };
    let kind = gvk(&r.api_version(), r.kind.name());
    let op_id = operation_suffix(r);
    let op = |verb: &str, action: &str, id: String, body: bool| {
        let mut o = json!({
            "operationId": id,
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": kind,
            "responses": { "200": response(schema, to), "401": { "description": "Unauthorized" } },
        });
        let mut parameters = Vec::new();
        if body {
            parameters.push(query("dryRun", DRY_RUN));
            parameters.push(query("fieldManager", FIELD_MANAGER));
            parameters.push(query("fieldValidation", FIELD_VALIDATION));
        }
        if verb == "patch" {
            parameters.push(query("force", "Force is going to \"force\" Apply requests."));
        }
        if !parameters.is_empty() {
            o["parameters"] = json!(parameters);
        }
        if body {
            let media: &[&str] = if verb == "patch" {
                &[
                    "application/json-patch+json",
                    "application/merge-patch+json",
                    "application/strategic-merge-patch+json",
                ]
            } else {
                &["*/*"]
            };
            let body_schema =
                if verb == "patch" { json!({ "type": "object" }) } else { schema.cloned().unwrap_or(json!({})) };
            match to {
                Ref::V3 => {
                    let content: Map<String, Value> =
                        media.iter().map(|m| (m.to_string(), json!({ "schema": body_schema.clone() }))).collect();
                    o["requestBody"] = json!({ "content": content, "required": true });
                }
                Ref::V2 => {
                    if let Some(params) = o["parameters"].as_array_mut() {
                        params.insert(
                            0,
                            json!({ "name": "body", "in": "body", "required": true, "schema": body_schema }),
                        );
                    }
                    o["consumes"] = json!(media);
                }
            }
        }
        o
    };
    let mut out = Vec::new();
    if !r.stored {
        let collection = if r.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}", r.resource)
        } else {
            format!("{prefix}/{}", r.resource)
        };
        out.push((collection, json!({ "post": op("post", "post", format!("create{op_id}"), true) })));
        return out;
    }
    let (ns_word, ns_path) =
        if r.namespaced { ("Namespaced", "/namespaces/{namespace}".to_string()) } else { ("", String::new()) };
    out.push((
        format!("{prefix}{ns_path}/{}", r.resource),
        json!({
            "get": op("get", "list", format!("list{ns_word}{op_id}"), false),
            "post": op("post", "post", format!("create{ns_word}{op_id}"), true),
            "delete": op("delete", "deletecollection", format!("deleteCollection{ns_word}{op_id}"), false),
        }),
    ));
    out.push((
        format!("{prefix}{ns_path}/{}/{{name}}", r.resource),
        json!({
            "get": op("get", "get", format!("read{ns_word}{op_id}"), false),
            "put": op("put", "put", format!("replace{ns_word}{op_id}"), true),
            "patch": op("patch", "patch", format!("patch{ns_word}{op_id}"), true),
            "delete": op("delete", "delete", format!("delete{ns_word}{op_id}"), false),
        }),
    ));
    if r.namespaced {
        out.push((
            format!("{prefix}/{}", r.resource),
            json!({ "get": op("get", "list", format!("list{op_id}ForAllNamespaces"), false) }),
        ));
    }
    out
}

/// `AppsV1Deployment`, `CoreV1Pod`: the part of an operation id after its verb.
fn operation_suffix(r: &ResourceInfo) -> String {
    let group = if r.group.is_empty() { "core" } else { r.group.split('.').next().unwrap_or(r.group) };
    let capital = |s: &str| {
        let mut c = s.chars();
        c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
    };
    format!("{}{}{}", capital(group), capital(r.version), r.kind.name())
}

fn query(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "query", "description": description, "schema": { "type": "string" }, "uniqueItems": true })
}

fn response(schema: Option<&Value>, to: Ref) -> Value {
    let schema = schema.cloned().unwrap_or(json!({}));
    match to {
        Ref::V3 => json!({ "description": "OK", "content": { "application/json": { "schema": schema } } }),
        Ref::V2 => json!({ "description": "OK", "schema": schema }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(path: &str) -> Value {
        serde_json::from_str(&document(path, &[]).unwrap()).unwrap()
    }

    #[test]
    fn the_index_names_every_group_version_with_the_hash_of_its_document() {
        let index = parse("/openapi/v3");
        let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"].as_str().unwrap();
        let (path, hash) = url.split_once("?hash=").unwrap();
        assert_eq!(path, "/openapi/v3/apis/apps/v1");
        let body = document(path, &[]).unwrap();
        let expected: String = Sha512::digest(body.as_bytes()).iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hash, expected);
        assert!(index["paths"]["api/v1"].is_object());
        assert!(document("/openapi/v3/apis/nothing.example.com/v1", &[]).is_none());
    }

    #[test]
    fn a_kind_is_found_by_its_group_version_kind_with_its_fields_and_patch_directives() {
        let doc = parse("/openapi/v3/apis/apps/v1");
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        let deployment = &schemas["io.k8s.api.apps.v1.Deployment"];
        assert_eq!(
            deployment["x-kubernetes-group-version-kind"],
            json!([{ "group": "apps", "kind": "Deployment", "version": "v1" }])
        );
        assert_eq!(
            deployment["properties"]["spec"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"
        );
        let spec = &schemas["io.k8s.api.core.v1.PodSpec"];
        assert_eq!(spec["properties"]["containers"]["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(spec["properties"]["containers"]["x-kubernetes-patch-strategy"], "merge");
        assert!(spec["required"].as_array().unwrap().contains(&json!("containers")));
        assert!(schemas.contains_key("io.k8s.api.core.v1.PodTemplateSpec"));
        assert!(schemas.contains_key("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
        assert!(schemas.contains_key("io.k8s.apimachinery.pkg.util.intstr.IntOrString"));
        // Every reference resolves inside the document.
        let text = doc.to_string();
        for piece in text.split("\"#/components/schemas/").skip(1) {
            let name = &piece[..piece.find('"').unwrap()];
            assert!(schemas.contains_key(name), "dangling reference {name}");
        }
    }

    #[test]
    fn the_patch_operation_of_a_kind_takes_field_validation_and_strategic_merge_patches() {
        let doc = parse("/openapi/v3/apis/apps/v1?hash=whatever");
        let patch = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
        assert_eq!(
            patch["x-kubernetes-group-version-kind"],
            json!({ "group": "apps", "kind": "Deployment", "version": "v1" })
        );
        assert!(patch["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "fieldValidation" && p["in"] == "query"));
        assert!(patch["requestBody"]["content"]["application/strategic-merge-patch+json"].is_object());
        assert_eq!(patch["operationId"], "patchNamespacedAppsV1Deployment");
        let core = parse("/openapi/v3/api/v1");
        assert!(core["paths"]["/api/v1/nodes/{name}"]["get"].is_object());
        assert!(core["paths"]["/api/v1/pods"]["get"].is_object());
    }

    #[test]
    fn enums_list_their_values_and_the_v2_document_covers_every_group() {
        let core = parse("/openapi/v3/api/v1");
        let policy = &core["components"]["schemas"]["io.k8s.api.core.v1.Container"]["properties"]["imagePullPolicy"];
        assert_eq!(policy["enum"], json!(["Always", "IfNotPresent", "Never"]));
        let v2 = parse("/openapi/v2");
        assert_eq!(v2["swagger"], "2.0");
        assert!(v2["definitions"]["io.k8s.api.apps.v1.Deployment"].is_object());
        assert!(v2["definitions"]["io.k8s.api.core.v1.Pod"].is_object());
        assert_eq!(
            v2["definitions"]["io.k8s.api.apps.v1.Deployment"]["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"
        );
    }
}
