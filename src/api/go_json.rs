//! What Go's JSON decoder says of a value of the wrong type, from the Go types the protobuf schema
//! (`proto.txt`) records: `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
//! of type int32`. The apiserver decodes a body with sigs.k8s.io/json, encoding/json's fork, whose
//! `UnmarshalTypeError` names the innermost struct, the JSON path from the object's root (field names
//! only: neither list indices nor map keys) and the Go type; a number that does not fit an integer is
//! quoted (`number 1.5`). The first error in the body's order wins, and the body's keys come sorted, as
//! kubectl's YAML-to-JSON conversion writes them. kubectl itself decodes a manifest's `metadata` into
//! ObjectMeta before sending anything (`unable to decode "STDIN": …`).

use serde_json::Value;

use super::schema::go_types::{resolve, schema, Ty};

/// The type error Go's decoder meets first in `value`, an object of `kind` in `api_version`; None when
/// every field has a type Go accepts (or the kind is not in the schema).
pub fn type_error(value: &Value, api_version: &str, kind: &str) -> Option<String> {
    let root = resolve(api_version, kind)?;
    message(value, &root, &mut Vec::new())
}

/// The type error in a manifest's `metadata`, as kubectl decodes it into ObjectMeta.
pub fn metadata_type_error(metadata: &Value) -> Option<String> {
    if !metadata.is_object() {
        return None;
    }
    message(metadata, "meta/v1.ObjectMeta", &mut vec!["metadata".to_string()])
}

fn message(value: &Value, go_type: &str, path: &mut Vec<String>) -> Option<String> {
    let wrong = fields(value, go_type, path)?;
    Some(format!(
        "json: cannot unmarshal {} into Go struct field {}.{} of type {}",
        wrong.value, wrong.strukt, wrong.path, wrong.go_type
    ))
}

struct Wrong {
    value: String,
    strukt: String,
    path: String,
    go_type: String,
}

/// The fields of an object decoded into struct `go_type` (fields of inline structs are its own).
fn fields(value: &Value, go_type: &str, path: &mut Vec<String>) -> Option<Wrong> {
    let Value::Object(map) = value else { return None };
    let strukt = go_type.rsplit('.').next().unwrap_or(go_type);
    for (key, v) in map {
        let Some((ty, leaf)) = field_type(go_type, key) else { continue };
        path.push(key.clone());
        let wrong = check(v, &ty, leaf.as_deref(), strukt, path);
        path.pop();
        if wrong.is_some() {
            return wrong;
        }
    }
    None
}

/// The type of JSON field `key` of struct `go_type`, looking into inline (embedded) structs, and the named
/// Go type of its scalar.
fn field_type(go_type: &str, key: &str) -> Option<(Ty, Option<String>)> {
    for field in schema().types.get(go_type)? {
        match (&field.json, &field.ty) {
            (Some(name), ty) if name == key => return Some((ty.clone(), field.go_name.clone())),
            (None, Ty::Message(inner)) => {
                if let Some(ty) = field_type(inner, key) {
                    return Some(ty);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first wrong value in `value` of type `ty`, whose scalar is named `leaf` in Go (`v1.RestartPolicy`).
fn check(value: &Value, ty: &Ty, leaf: Option<&str>, strukt: &str, path: &[String]) -> Option<Wrong> {
    let wrong = |value: String, go_type: String| {
        Some(Wrong { value, strukt: strukt.to_string(), path: path.join("."), go_type })
    };
    let kind = json_kind(value);
    match (ty, value) {
        (_, Value::Null) => None,
        (Ty::Str, Value::String(_)) | (Ty::Bool, Value::Bool(_)) | (Ty::Float64, Value::Number(_)) => None,
        (Ty::Int32 | Ty::Int64, Value::Number(n)) => {
            let fits = match ty {
                Ty::Int32 => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
                _ => n.as_i64().is_some(),
            };
            (!fits).then(|| Wrong {
                value: format!("number {n}"),
                strukt: strukt.to_string(),
                path: path.join("."),
                go_type: go_name(ty, leaf),
            })
        }
        (Ty::List(item), Value::Array(items)) => items.iter().find_map(|v| check(v, item, leaf, strukt, path)),
        (Ty::Strings, Value::Array(items)) => items.iter().find_map(|v| check(v, &Ty::Str, None, strukt, path)),
        (Ty::Map(item), Value::Object(entries)) => entries.values().find_map(|v| check(v, item, leaf, strukt, path)),
        (Ty::Message(name), Value::Object(_)) => fields(value, name, &mut path.to_vec()),
        // Custom decoders: a time is read as a JSON string; an IntOrString as a string or an int32.
        (Ty::Time | Ty::MicroTime, Value::String(_)) => None,
        (Ty::Time | Ty::MicroTime, _) => wrong(kind, "string".into()),
        (Ty::IntOrString, Value::String(_)) => None,
        (Ty::IntOrString, _) => check(value, &Ty::Int32, None, strukt, path),
        // Quantities, bytes and free-form JSON have decoders of their own, with other errors.
        (Ty::Quantity | Ty::Bytes | Ty::RawExtension | Ty::FieldsV1, _) => None,
        _ => wrong(kind, go_name(ty, leaf)),
    }
}

/// How encoding/json names a JSON value's kind in its error.
fn json_kind(value: &Value) -> String {
    crate::api::manifest::json_type(value).to_string()
}

/// A Go type as `reflect.Type.String()` prints it: `int32`, `[]v1.Container`, `map[string]string`; a
/// scalar named `leaf` by that name (`v1.RestartPolicy`, `[]v1.Capability`).
fn go_name(ty: &Ty, leaf: Option<&str>) -> String {
    match (ty, leaf) {
        (Ty::Str | Ty::Bool | Ty::Int32 | Ty::Int64 | Ty::Float64, Some(name)) => name.into(),
        _ => go_name_of(ty, leaf),
    }
}

fn go_name_of(ty: &Ty, leaf: Option<&str>) -> String {
    match ty {
        Ty::Str => "string".into(),
        Ty::Bool => "bool".into(),
        Ty::Int32 => "int32".into(),
        Ty::Int64 => "int64".into(),
        Ty::Float64 => "float64".into(),
        Ty::Bytes => "[]uint8".into(),
        Ty::List(item) => format!("[]{}", go_name(item, leaf)),
        Ty::Map(item) => format!("map[string]{}", go_name(item, leaf)),
        Ty::Strings => "v1.ExtraValue".into(),
        Ty::Time => "v1.Time".into(),
        Ty::MicroTime => "v1.MicroTime".into(),
        Ty::Quantity => "resource.Quantity".into(),
        Ty::IntOrString => "intstr.IntOrString".into(),
        Ty::RawExtension => "runtime.RawExtension".into(),
        Ty::FieldsV1 => "v1.FieldsV1".into(),
        // `apps/v1.DeploymentSpec` is package v1's DeploymentSpec.
        Ty::Message(name) => name.rsplit_once('/').map_or(name.clone(), |(_, short)| short.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn named_scalar_types_are_named_as_go_names_them() {
        let pod = json!({"spec": {"restartPolicy": 5, "containers": []}});
        assert_eq!(
            type_error(&pod, "v1", "Pod").as_deref(),
            Some("json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy")
        );
        let caps = json!({"spec": {"containers": [{"name": "c", "securityContext": {"capabilities": {"add": [1]}}}]}});
        assert_eq!(
            type_error(&caps, "v1", "Pod").as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field Capabilities.spec.containers.securityContext.\
                 capabilities.add of type v1.Capability"
            )
        );
        let ns = json!({"spec": {"finalizers": "kubernetes"}});
        assert_eq!(
            type_error(&ns, "v1", "Namespace").as_deref(),
            Some(
                "json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type \
                 []v1.FinalizerName"
            )
        );
        let uid = json!({"metadata": {"uid": 1}});
        assert_eq!(
            metadata_type_error(&uid["metadata"]).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID")
        );
    }

    #[test]
    fn errors_name_the_innermost_struct_the_path_and_the_go_type() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": "two"}});
        assert_eq!(
            type_error(&d, "apps/v1", "Deployment").as_deref(),
            Some("json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
        );
        let p = json!({"spec": {"containers": [{"name": "c", "image": 5}]}});
        assert_eq!(
            type_error(&p, "v1", "Pod").as_deref(),
            Some("json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string")
        );
        let s = json!({"spec": {"ports": [{"port": 1.5}]}});
        assert_eq!(
            type_error(&s, "v1", "Service").as_deref(),
            Some("json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.port of type int32")
        );
        let spec = json!({"spec": "x"});
        assert_eq!(
            type_error(&spec, "apps/v1", "Deployment").as_deref(),
            Some("json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec")
        );
        assert_eq!(
            type_error(&json!({"spec": {"replicas": 2}, "metadata": {"name": "x"}}), "apps/v1", "Deployment"),
            None
        );
    }

    #[test]
    fn metadata_errors_read_as_kubectls_decode_of_object_meta() {
        assert_eq!(
            metadata_type_error(&json!({"labels": {"ok": true}})).as_deref(),
            Some("json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string")
        );
        assert_eq!(
            metadata_type_error(&json!({"labels": ["x"]})).as_deref(),
            Some("json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string")
        );
        assert_eq!(
            metadata_type_error(&json!({"finalizers": [1]})).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string")
        );
    }
}
