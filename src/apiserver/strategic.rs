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
    fn service_ports_merge_by_port() {
        let mut s = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}]}});
        apply(&mut s, &json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}), root_type("v1", "Service"));
        assert_eq!(s["spec"]["ports"], json!([{"port": 80, "protocol": "TCP", "targetPort": 9090}]));
    }
}
