//! Strategic merge patches by the schema: each list field merges as its Go type's `patchStrategy` and
//! `patchMergeKey` tags say (`src/api/schema/patch.txt`): containers by `name`, container ports by
//! `containerPort`, volume mounts by `mountPath`, service ports by `port`, finalizers as a set; lists without
//! a strategy are replaced whole. Kubernetes' counterpart: `k8s.io/apimachinery/pkg/util/strategicpatch`.

use serde_json::Value;

use crate::api::schema::Table;

/// Applies `patch` to `target`, an object whose root type is `root` in the schema table. Without a type
/// (kinds the table does not cover) the patch merges as the untyped merge does, lists of named objects by
/// name.
pub fn apply(target: &mut Value, patch: &Value, root: Option<&str>) {
    let table = Table::load();
    merge(&table, target, patch, root);
}

/// The strategic merge patch that turns `original` into `modified` (`CreateTwoWayMergePatch`, as kubectl's
/// `set` commands compute theirs): changed fields set, removed fields null; lists with the `merge` strategy
/// patched element by element (`$patch: delete` for a removed element, `$deleteFromPrimitiveList/` for a
/// removed scalar, `$setElementOrder/` with the new order), other lists replaced whole. `{}` when nothing
/// changed.
pub fn two_way(original: &Value, modified: &Value, root: Option<&str>) -> Value {
    let table = Table::load();
    match (original, modified) {
        (Value::Object(o), Value::Object(m)) => Value::Object(diff_map(&table, o, m, root)),
        _ => modified.clone(),
    }
}

type Map = serde_json::Map<String, Value>;

fn diff_map(table: &Table<'static>, original: &Map, modified: &Map, ty: Option<&str>) -> Map {
    let mut out = Map::new();
    let fields = ty.map(|t| table.fields(t)).unwrap_or_default();
    for (k, m) in modified {
        let Some(o) = original.get(k) else {
            out.insert(k.clone(), m.clone());
            continue;
        };
        if o == m {
            continue;
        }
        let field_type = fields.iter().find(|f| f.name == k).map(|f| f.table_type());
        match (o, m, field_type) {
            (Value::Array(o), Value::Array(m), Some(list)) if list.starts_with("[]") => {
                let element = &list[2..];
                match ty.and_then(|t| table.patch_strategy(t, k)) {
                    Some((strategy, key)) if strategy.split(',').any(|s| s == "merge") => {
                        let element = table.has_type(element).then_some(element);
                        diff_list(table, &mut out, k, o, m, key, element);
                    }
                    _ => {
                        out.insert(k.clone(), Value::Array(m.clone()));
                    }
                }
            }
            (Value::Object(o), Value::Object(m), field_type) => {
                let inner = field_type.filter(|t| table.has_type(t));
                let d = diff_map(table, o, m, inner);
                if !d.is_empty() {
                    out.insert(k.clone(), Value::Object(d));
                }
            }
            _ => {
                out.insert(k.clone(), m.clone());
            }
        }
    }
    for k in original.keys() {
        if !modified.contains_key(k) {
            out.insert(k.clone(), Value::Null);
        }
    }
    out
}

/// The patch of a list with the `merge` strategy, written into `out` under `field` and its directives.
fn diff_list(
    table: &Table<'static>,
    out: &mut Map,
    field: &str,
    original: &[Value],
    modified: &[Value],
    key: Option<&str>,
    element: Option<&str>,
) {
    let order: Vec<Value>;
    match key {
        Some(key) => {
            let mut items = Vec::new();
            for m in modified {
                let id = m.get(key);
                match original.iter().find(|o| id.is_some() && o.get(key) == id) {
                    None => items.push(m.clone()),
                    Some(o) if o == m => {}
                    Some(o) => {
                        let (Value::Object(om), Value::Object(mm)) = (o, m) else {
                            items.push(m.clone());
                            continue;
                        };
                        let mut d = diff_map(table, om, mm, element);
                        d.insert(key.to_string(), id.cloned().unwrap_or(Value::Null));
                        items.push(Value::Object(d));
                    }
                }
            }
            for o in original {
                let id = o.get(key);
                if !modified.iter().any(|m| m.get(key) == id) {
                    let mut gone = Map::new();
                    gone.insert("$patch".into(), "delete".into());
                    gone.insert(key.to_string(), id.cloned().unwrap_or(Value::Null));
                    items.push(Value::Object(gone));
                }
            }
            if items.is_empty() {
                return;
            }
            order = modified
                .iter()
                .map(|m| {
                    let mut entry = Map::new();
                    entry.insert(key.to_string(), m.get(key).cloned().unwrap_or(Value::Null));
                    Value::Object(entry)
                })
                .collect();
            out.insert(field.to_string(), Value::Array(items));
        }
        None => {
            let added: Vec<Value> = modified.iter().filter(|m| !original.contains(m)).cloned().collect();
            let removed: Vec<Value> = original.iter().filter(|o| !modified.contains(o)).cloned().collect();
            if added.is_empty() && removed.is_empty() {
                return;
            }
            if !added.is_empty() {
                out.insert(field.to_string(), Value::Array(added));
            }
            if !removed.is_empty() {
                out.insert(format!("$deleteFromPrimitiveList/{field}"), Value::Array(removed));
            }
            order = modified.to_vec();
        }
    }
    out.insert(format!("$setElementOrder/{field}"), Value::Array(order));
}

/// The root type of an object of `api_version` and `kind`.
pub fn root_type(api_version: &str, kind: &str) -> Option<&'static str> {
    Table::load().root(api_version, kind)
}

fn merge(table: &Table<'static>, target: &mut Value, patch: &Value, ty: Option<&str>) {
    let Some(ty) = ty else {
        super::registry::merge_patch(target, patch, true);
        return;
    };
    let (Value::Object(t), Value::Object(p)) = (&mut *target, patch) else {
        *target = patch.clone();
        return;
    };
    if p.get("$patch").and_then(Value::as_str) == Some("replace") {
        let mut replaced = p.clone();
        replaced.remove("$patch");
        *target = Value::Object(replaced);
        return;
    }
    let fields = table.fields(ty);
    for (k, v) in p {
        if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(list)), Value::Array(gone)) = (t.get_mut(field), v) {
                list.retain(|x| !gone.contains(x));
                if list.is_empty() {
                    t.remove(field);
                }
            }
            continue;
        }
        if k.starts_with('$') {
            // `$setElementOrder/…`, `$retainKeys`: orders and retained keys of what is merged here.
            continue;
        }
        if v.is_null() {
            t.remove(k);
            continue;
        }
        let field_type = fields.iter().find(|f| f.name == k).map(|f| f.table_type());
        let slot = t.entry(k.clone()).or_insert(Value::Null);
        match field_type {
            Some(list) if list.starts_with("[]") => {
                let element = &list[2..];
                match table.patch_strategy(ty, k) {
                    Some((strategy, key)) if strategy.split(',').any(|s| s == "merge") => {
                        merge_list(table, slot, v, key, table.has_type(element).then_some(element));
                    }
                    _ => *slot = strip_directives(v),
                }
            }
            Some(map) if map.starts_with("map[string]") => {
                let element = &map["map[string]".len()..];
                let element = table.has_type(element).then_some(element);
                if !slot.is_object() || !v.is_object() {
                    *slot = strip_directives(v);
                    continue;
                }
                let (Value::Object(entries), Value::Object(changes)) = (slot, v) else { continue };
                for (key, value) in changes {
                    if value.is_null() {
                        entries.remove(key);
                    } else if let Some(element) = element {
                        merge(table, entries.entry(key.clone()).or_insert(Value::Null), value, Some(element));
                    } else {
                        entries.insert(key.clone(), value.clone());
                    }
                }
            }
            Some(object) if table.has_type(object) => {
                if slot.is_object() {
                    merge(table, slot, v, Some(object));
                } else {
                    *slot = strip_directives(v);
                }
            }
            // A scalar, or a field the table does not know: set as given.
            _ => *slot = strip_directives(v),
        }
    }
}

/// A list with the `merge` strategy: objects merged by their merge key (an element `{"$patch": "delete"}`
/// removes its match), scalars added as a set.
fn merge_list(table: &Table<'static>, slot: &mut Value, patch: &Value, key: Option<&str>, element: Option<&str>) {
    let Value::Array(items) = patch else {
        *slot = patch.clone();
        return;
    };
    if !slot.is_array() {
        *slot = Value::Array(Vec::new());
    }
    let Value::Array(list) = slot else { return };
    match key {
        Some(key) => {
            for item in items {
                let id = item.get(key);
                let at = list.iter().position(|x| id.is_some() && x.get(key) == id);
                let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
                match (at, delete) {
                    (Some(i), true) => {
                        list.remove(i);
                    }
                    (None, true) => {}
                    (Some(i), false) => merge(table, &mut list[i], item, element),
                    (None, false) => list.push(strip_directives(item)),
                }
            }
        }
        None => {
            for item in items {
                if !list.contains(item) {
                    list.push(item.clone());
                }
            }
        }
    }
}

/// A value set whole: without the patch's directives.
fn strip_directives(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter().filter(|(k, _)| !k.starts_with('$')).map(|(k, v)| (k.clone(), strip_directives(v))).collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_directives).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": ["a"]}, "spec": {
            "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "volumeMounts": [{"name": "v", "mountPath": "/data"}]}],
            "tolerations": [{"key": "a", "operator": "Exists"}]}})
    }

    #[test]
    fn container_ports_merge_by_container_port_and_mounts_by_path() {
        let mut p = pod();
        let patch = json!({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}, {"containerPort": 443}],
            "volumeMounts": [{"name": "w", "mountPath": "/data"}]}]}});
        apply(&mut p, &patch, root_type("v1", "Pod"));
        let c = &p["spec"]["containers"][0];
        assert_eq!(c["ports"], json!([{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443}]));
        assert_eq!(c["volumeMounts"], json!([{"name": "w", "mountPath": "/data"}]));
        assert_eq!(c["image"], "nginx");
    }

    #[test]
    fn lists_without_a_strategy_are_replaced_and_sets_are_unions() {
        let mut p = pod();
        let patch = json!({"metadata": {"finalizers": ["b", "a"]}, "spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}});
        apply(&mut p, &patch, root_type("v1", "Pod"));
        assert_eq!(p["metadata"]["finalizers"], json!(["a", "b"]));
        assert_eq!(p["spec"]["tolerations"], json!([{"key": "b", "operator": "Exists"}]));
    }

    #[test]
    fn a_delete_directive_removes_the_matching_element_and_null_removes_a_field() {
        let mut p = pod();
        let patch =
            json!({"spec": {"containers": [{"name": "c", "$patch": "delete"}]}, "metadata": {"finalizers": null}});
        apply(&mut p, &patch, root_type("v1", "Pod"));
        assert_eq!(p["spec"]["containers"], json!([]));
        assert!(p["metadata"].get("finalizers").is_none());
    }

    #[test]
    fn a_two_way_patch_applied_to_the_original_gives_the_modified_object() {
        let original = pod();
        let mut modified = pod();
        modified["metadata"]["finalizers"] = json!(["b"]);
        modified["metadata"]["labels"] = json!({"app": "web"});
        modified["spec"]["containers"][0]["env"] = json!([{"name": "A", "value": "1"}]);
        modified["spec"]["containers"][0]["ports"] = json!([]);
        modified["spec"]["containers"].as_array_mut().unwrap().push(json!({"name": "d", "image": "busybox"}));
        modified["spec"]["tolerations"] = json!([{"key": "z", "operator": "Exists"}]);
        let root = root_type("v1", "Pod");
        let patch = two_way(&original, &modified, root);
        assert_eq!(patch["spec"]["$setElementOrder/containers"], json!([{"name": "c"}, {"name": "d"}]));
        assert_eq!(patch["metadata"]["$deleteFromPrimitiveList/finalizers"], json!(["a"]));
        assert_eq!(patch["spec"]["containers"][0]["ports"][0], json!({"$patch": "delete", "containerPort": 80}));
        let mut patched = original.clone();
        apply(&mut patched, &patch, root);
        assert_eq!(patched, modified);
        assert_eq!(two_way(&original, &original, root), json!({}));
    }

    #[test]
    fn service_ports_merge_by_port() {
        let mut s = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}]}});
        apply(&mut s, &json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}), root_type("v1", "Service"));
        assert_eq!(s["spec"]["ports"], json!([{"port": 80, "protocol": "TCP", "targetPort": 9090}]));
    }
}
