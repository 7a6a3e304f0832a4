//! A custom resource's structural schema at work on a request body, in the order the apiserver applies it:
//! pruning (fields the schema does not declare are dropped, or refused under `fieldValidation=Strict`),
//! defaulting (`default:` values filled in where a field is absent), then validation (types, `required`,
//! `enum`, bounds, lengths, patterns, item and property counts), each failure a cause worded as
//! kube-openapi's validators word it, and, once those pass, the schema's `x-kubernetes-validations` CEL
//! rules (`self`, and `oldSelf` on an update that had a value there). Counterpart: `apiextensions-apiserver/pkg/apiserver/schema` (pruning,
//! defaulting) and `k8s.io/kube-openapi/pkg/validation/validate`.

use serde_json::{Map, Value};

use crate::api::Cause;

/// The fields an object's root always keeps, whatever its schema says.
const ROOT_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Drops the fields of `value` that `schema` does not declare, and returns their paths (`spec.foo`), as
/// the pruning of a structural schema does: an object keeps only its `properties` (or every field, with
/// `x-kubernetes-preserve-unknown-fields` or a schema for `additionalProperties`); arrays prune their items.
pub fn prune(value: &mut Value, schema: &Value) -> Vec<String> {
    let mut dropped = Vec::new();
    prune_at(value, schema, "", true, &mut dropped);
    dropped
}

fn prune_at(value: &mut Value, schema: &Value, path: &str, root: bool, dropped: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            let preserve = schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
                || schema.get("additionalProperties") == Some(&Value::Bool(true));
            let embedded = schema.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                let kept_by_root = (root || embedded) && ROOT_FIELDS.contains(&key.as_str());
                let child_schema = properties.and_then(|p| p.get(&key)).or(additional);
                match child_schema {
                    Some(s) => {
                        if let Some(child) = map.get_mut(&key) {
                            prune_at(child, s, &child_path, false, dropped);
                        }
                    }
                    None if kept_by_root || preserve => {}
                    None => {
                        map.remove(&key);
                        dropped.push(child_path);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    prune_at(item, item_schema, &format!("{path}[{i}]"), false, dropped);
                }
            }
        }
        _ => {}
    }
}

/// Fills in the `default` of every absent field whose schema has one, outside in (a defaulted object then
/// gets its own fields' defaults).
pub fn default(value: &mut Value, schema: &Value) {
    match value {
        Value::Object(map) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (key, prop) in properties {
                    if !map.contains_key(key) {
                        if let Some(d) = prop.get("default") {
                            map.insert(key.clone(), d.clone());
                        }
                    }
                    if let Some(child) = map.get_mut(key) {
                        default(child, prop);
                    }
                }
            } else if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for child in map.values_mut() {
                    default(child, additional);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    default(item, item_schema);
                }
            }
        }
        _ => {}
    }
}

/// Validates `value` against `schema` (`old`: the stored value an update replaces): every failure as a
/// cause with its field path. The CEL rules run only on a value the structural checks found valid.
pub fn validate(value: &Value, old: Option<&Value>, schema: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    validate_at(value, schema, "", &mut causes);
    if causes.is_empty() {
        rules_at(value, old, schema, "", &mut causes);
    }
    causes
}

/// The cost one rule may spend (the per-expression limit of the apiserver's CEL environment).
const RULE_COST_LIMIT: u64 = 1_000_000;

/// The `x-kubernetes-validations` of `schema` and of the schemas below it.
fn rules_at(value: &Value, old: Option<&Value>, schema: &Value, path: &str, causes: &mut Vec<Cause>) {
    for rule in schema.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten() {
        if let Some(cause) = rule_cause(value, old, schema, rule, path) {
            causes.push(cause);
        }
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, child) in map {
                let Some(s) = properties.and_then(|p| p.get(key)).or(additional) else { continue };
                let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                rules_at(child, old.and_then(|o| o.get(key)), s, &child_path, causes);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    let old_item = old.and_then(|o| old_list_item(schema, item, o));
                    rules_at(item, old_item, item_schema, &format!("{path}[{i}]"), causes);
                }
            }
        }
        _ => {}
    }
}

/// The old item a list item is compared with: only a `x-kubernetes-list-type: map` list pairs its items,
/// by their `x-kubernetes-list-map-keys`; items of other lists have no old value.
fn old_list_item<'a>(schema: &Value, item: &Value, old: &'a Value) -> Option<&'a Value> {
    if schema.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
        return None;
    }
    let keys: Vec<&str> =
        schema.get("x-kubernetes-list-map-keys")?.as_array()?.iter().filter_map(Value::as_str).collect();
    old.as_array()?.iter().find(|o| keys.iter().all(|k| o.get(k) == item.get(k)))
}

/// One rule on one value: None when it holds (or, being a transition rule, has no old value to compare).
fn rule_cause(value: &Value, old: Option<&Value>, schema: &Value, rule: &Value, path: &str) -> Option<Cause> {
    let source = rule.get("rule").and_then(Value::as_str)?;
    let transition = source.contains("oldSelf");
    if transition && old.is_none() {
        return None;
    }
    let mut variables = std::collections::BTreeSet::from(["self".to_string()]);
    if transition {
        variables.insert("oldSelf".to_string());
    }
    let shown = Value::String(schema.get("type").and_then(Value::as_str).unwrap_or("object").to_string());
    // A nil field path (a rule on the root) prints as `<nil>`.
    let at = if path.is_empty() { "<nil>" } else { path };
    let field = match rule.get("fieldPath").and_then(Value::as_str) {
        Some(extra) if path.is_empty() => extra.trim_start_matches('.').to_string(),
        Some(extra) => format!("{path}{extra}"),
        None => at.to_string(),
    };
    let decls = crate::apiserver::cel::Declarations { variables, composited: None };
    let program = match crate::apiserver::cel::compile(source, &decls) {
        Ok(p) => p,
        Err(e) => return Some(invalid(at, &shown, format!("compilation failed: {e}"))),
    };
    let mut vars = std::collections::BTreeMap::new();
    vars.insert("self".to_string(), crate::apiserver::cel::Val::from_json(value));
    if let Some(old) = old.filter(|_| transition) {
        vars.insert("oldSelf".to_string(), crate::apiserver::cel::Val::from_json(old));
    }
    let activation = crate::apiserver::cel::Activation { vars, variables: None };
    let message = rule.get("message").and_then(Value::as_str).map(str::trim).filter(|m| !m.is_empty());
    match program.eval(&activation, RULE_COST_LIMIT).0 {
        Ok(crate::apiserver::cel::Val::Bool(true)) => None,
        // An error names the rule (or its message) and keeps to the rule's own node.
        Err(e) => Some(invalid(at, &shown, format!("{e} evaluating rule: {}", message.unwrap_or(source.trim())))),
        Ok(_) => {
            let message = message.map_or_else(|| format!("failed rule: {}", source.trim()), str::to_string);
            Some(match rule.get("reason").and_then(Value::as_str) {
                Some("FieldValueForbidden") => cause(&field, format!("Forbidden: {message}")),
                Some("FieldValueRequired") => cause(&field, format!("Required value: {message}")),
                Some("FieldValueDuplicate") => cause(&field, format!("Duplicate value: {}", go_value(&shown))),
                _ => invalid(&field, &shown, message),
            })
        }
    }
}

fn cause(field: &str, message: String) -> Cause {
    Cause::new(field, message)
}

/// `Invalid value: <value>: <message>`, as field.Invalid renders a value.
fn invalid(path: &str, value: &Value, detail: String) -> Cause {
    cause(path, format!("Invalid value: {}: {detail}", go_value(value)))
}

/// How field errors print a value: strings quoted, numbers and booleans bare, objects and lists as Go
/// prints a map or slice (`"object"` and `"array"` here, as the validators name what they did not expect).
fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => go_number(value),
        Value::Object(_) => "\"object\"".into(),
        Value::Array(_) => "\"array\"".into(),
    }
}

/// A bound as Go's `%v` prints the float64 the schema holds it in (`1`, `1.5`).
fn go_number(value: &Value) -> String {
    crate::api::jsonpath::go_v(value)
}

/// The JSON type of a value, as the schema names types.
fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(wanted: &str, value: &Value) -> bool {
    match (wanted, type_of(value)) {
        (w, t) if w == t => true,
        ("number", "integer") => true,
        ("integer", "number") => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

fn validate_at(value: &Value, schema: &Value, path: &str, causes: &mut Vec<Cause>) {
    let shown = if path.is_empty() { "body" } else { path };
    if value.is_null() && (schema.get("nullable") == Some(&Value::Bool(true)) || schema.get("type").is_none()) {
        return;
    }
    if let Some(wanted) = schema.get("type").and_then(Value::as_str) {
        if !type_matches(wanted, value) {
            // InvalidType's value is the name of the type found, not the value.
            let got = Value::String(type_of(value).to_string());
            causes.push(invalid(
                path,
                &got,
                format!("{shown} in body must be of type {wanted}: \"{}\"", type_of(value)),
            ));
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let list: Vec<String> = allowed.iter().map(go_value).collect();
            causes.push(cause(
                path,
                format!("Unsupported value: {}: supported values: {}", go_value(value), list.join(", ")),
            ));
        }
    }
    match value {
        Value::Number(n) => number_bounds(n.as_f64().unwrap_or(0.0), value, schema, path, shown, causes),
        Value::String(s) => string_bounds(s, value, schema, path, shown, causes),
        Value::Array(items) => {
            let len = items.len() as u64;
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64).filter(|m| len < *m) {
                causes.push(cause(
                    path,
                    format!("Invalid value: {len}: {shown} in body should have at least {min} items"),
                ));
            }
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64).filter(|m| len > *m) {
                causes.push(cause(
                    path,
                    format!("Too many: {len}: must have at most {max} {}", if max == 1 { "item" } else { "items" }),
                ));
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    validate_at(item, item_schema, &format!("{path}[{i}]"), causes);
                }
            }
        }
        Value::Object(map) => object(map, schema, path, shown, causes),
        _ => {}
    }
}

fn number_bounds(n: f64, value: &Value, schema: &Value, path: &str, shown: &str, causes: &mut Vec<Cause>) {
    let exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    if let Some(min) = schema.get("minimum") {
        let m = min.as_f64().unwrap_or(f64::MIN);
        let (failed, words) = if exclusive("exclusiveMinimum") {
            (n <= m, "should be greater than")
        } else {
            (n < m, "should be greater than or equal to")
        };
        if failed {
            causes.push(invalid(path, value, format!("{shown} in body {words} {}", go_number(min))));
        }
    }
    if let Some(max) = schema.get("maximum") {
        let m = max.as_f64().unwrap_or(f64::MAX);
        let (failed, words) = if exclusive("exclusiveMaximum") {
            (n >= m, "should be less than")
        } else {
            (n > m, "should be less than or equal to")
        };
        if failed {
            causes.push(invalid(path, value, format!("{shown} in body {words} {}", go_number(max))));
        }
    }
    if let Some(of) = schema.get("multipleOf").and_then(Value::as_f64).filter(|m| *m != 0.0) {
        if (n / of).fract() != 0.0 {
            let of = go_number(&schema["multipleOf"]);
            causes.push(invalid(path, value, format!("{shown} in body should be a multiple of {of}")));
        }
    }
}

fn string_bounds(s: &str, value: &Value, schema: &Value, path: &str, shown: &str, causes: &mut Vec<Cause>) {
    let len = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64).filter(|m| len < *m) {
        causes.push(invalid(path, value, format!("{shown} in body should be at least {min} chars long")));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64).filter(|m| len > *m) {
        causes.push(cause(
            path,
            format!("Too long: may not be more than {max} {}", if max == 1 { "byte" } else { "bytes" }),
        ));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        if regex_lite::Regex::new(pattern).is_ok_and(|re| !re.is_match(s)) {
            causes.push(invalid(path, value, format!("{shown} in body should match '{pattern}'")));
        }
    }
}

fn object(map: &Map<String, Value>, schema: &Value, path: &str, shown: &str, causes: &mut Vec<Cause>) {
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if map.get(key).is_none_or(Value::is_null) {
                causes.push(cause(&join(key), "Required value".into()));
            }
        }
    }
    let count = map.len() as u64;
    if let Some(min) = schema.get("minProperties").and_then(Value::as_u64).filter(|m| count < *m) {
        causes.push(cause(
            path,
            format!("Invalid value: {count}: {shown} in body should have at least {min} properties"),
        ));
    }
    if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64).filter(|m| count > *m) {
        causes.push(cause(path, format!("Too many: {count}: must have at most {max} items")));
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    for (key, child) in map {
        if path.is_empty() && ROOT_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if let Some(s) = properties.and_then(|p| p.get(key)).or(additional) {
            validate_at(child, s, &join(key), causes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "required": ["cronSpec"], "properties": {
                "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
                "image": {"type": "string", "default": "nginx"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}})
    }

    #[test]
    fn pruning_drops_what_the_schema_does_not_declare_and_says_where() {
        let mut v = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "c"},
            "spec": {"cronSpec": "* * * * */5", "colour": "red", "labels": {"a": "b"}, "extra": {"any": {"thing": 1}}},
            "top": 1});
        let dropped = prune(&mut v, &schema());
        assert_eq!(dropped, vec!["spec.colour".to_string(), "top".to_string()]);
        assert_eq!(v["spec"]["extra"]["any"]["thing"], 1);
        assert_eq!(v["spec"]["labels"]["a"], "b");
        assert_eq!(v["metadata"]["name"], "c");
    }

    #[test]
    fn defaults_fill_absent_fields_only() {
        let mut v = json!({"spec": {"cronSpec": "* * * * */5"}});
        default(&mut v, &schema());
        assert_eq!(v["spec"]["image"], "nginx");
        let mut set = json!({"spec": {"image": "httpd"}});
        default(&mut set, &schema());
        assert_eq!(set["spec"]["image"], "httpd");
    }

    #[test]
    fn cel_rules_hold_or_say_which_failed_and_transition_rules_need_an_old_value() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas cannot be larger than maxReplicas"},
                {"rule": "self.maxReplicas <= 100"},
                {"rule": "self.minReplicas >= oldSelf.minReplicas", "reason": "FieldValueForbidden", "message": "may not shrink"}],
            "properties": {"minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}}}}});
        let messages = |v: Value, old: Option<Value>| -> Vec<String> {
            validate(&v, old.as_ref(), &schema).iter().map(|c| format!("{}: {}", c.field, c.message)).collect()
        };
        assert!(messages(json!({"spec": {"minReplicas": 1, "maxReplicas": 5}}), None).is_empty());
        assert_eq!(
            messages(json!({"spec": {"minReplicas": 600, "maxReplicas": 500}}), None),
            vec![
                "spec: Invalid value: \"object\": minReplicas cannot be larger than maxReplicas",
                "spec: Invalid value: \"object\": failed rule: self.maxReplicas <= 100",
            ]
        );
        let old = json!({"spec": {"minReplicas": 3, "maxReplicas": 5}});
        assert_eq!(
            messages(json!({"spec": {"minReplicas": 2, "maxReplicas": 5}}), Some(old)),
            vec!["spec: Forbidden: may not shrink"]
        );
        let root = json!({"type": "object", "x-kubernetes-validations": [{"rule": "has(self.spec)"}]});
        let causes = validate(&json!({"metadata": {}}), None, &root);
        assert_eq!(
            (causes[0].field.as_str(), causes[0].message.as_str()),
            ("<nil>", "Invalid value: \"object\": failed rule: has(self.spec)")
        );
        assert_eq!(
            messages(json!({"spec": {"maxReplicas": 5}}), None),
            vec!["spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: minReplicas cannot be larger than maxReplicas"]
        );
    }

    #[test]
    fn validation_names_each_failure_as_the_validators_word_it() {
        let v = json!({"spec": {"cronSpec": "often", "replicas": "two", "mode": "Medium"}});
        let messages: Vec<String> =
            validate(&v, None, &schema()).iter().map(|c| format!("{}: {}", c.field, c.message)).collect();
        assert_eq!(
            messages,
            vec![
                "spec.cronSpec: Invalid value: \"often\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
                "spec.mode: Unsupported value: \"Medium\": supported values: \"Fast\", \"Slow\"",
                "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
            ]
        );
        let v = json!({"spec": {"replicas": 0}});
        let messages: Vec<String> =
            validate(&v, None, &schema()).iter().map(|c| format!("{}: {}", c.field, c.message)).collect();
        assert_eq!(
            messages,
            vec![
                "spec.cronSpec: Required value",
                "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
            ]
        );
    }
}
