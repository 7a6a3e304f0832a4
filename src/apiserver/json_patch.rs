//! RFC 6902 JSON patches (`kubectl patch --type json`) with the semantics and messages of the library the
//! apiserver uses (evanphx/json-patch v4): paths are JSON pointers whose parent must exist, `replace` on a
//! missing object key adds it, negative array indices count from the end, a missing key and a `null` one
//! are the same to `test`, and unknown operations fail with `Unexpected kind: <op>`.
//!
//! The apiserver answers a patch it cannot decode with 400 and the decoder's message, and one it cannot
//! apply with a generic 422 (`NewGenericServerResponse`), which kubectl prints as `The request is invalid`.

use serde_json::{Map, Value};

/// Applies `patch` to `doc`; the error is the library's message.
pub fn apply(doc: &mut Value, patch: &Value) -> Result<(), String> {
    for op in decode(patch)? {
        let kind = match op.get("op") {
            Some(Value::String(s)) => s.clone(),
            _ => "unknown".to_string(),
        };
        match kind.as_str() {
            "add" => add(doc, op)?,
            "remove" => remove(doc, op)?,
            "replace" => replace(doc, op)?,
            "move" => move_op(doc, op)?,
            "test" => test(doc, op)?,
            "copy" => copy(doc, op)?,
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}

/// The operations of a patch document, or Go's unmarshal error for a document of the wrong shape.
pub fn decode(patch: &Value) -> Result<Vec<&Map<String, Value>>, String> {
    let items = match patch {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(format!("json: cannot unmarshal {} into Go value of type jsonpatch.Patch", go_kind(other)))
        }
    };
    items
        .iter()
        .map(|i| match i {
            Value::Object(m) => Ok(m),
            other => {
                Err(format!("json: cannot unmarshal {} into Go value of type jsonpatch.Operation", go_kind(other)))
            }
        })
        .collect()
}

fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// A string field of an operation; None when missing or not a string.
fn field<'a>(op: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    op.get(name).and_then(Value::as_str)
}

/// The operation's value (an absent one counts as `null`).
fn value(op: &Map<String, Value>) -> Value {
    op.get("value").cloned().unwrap_or(Value::Null)
}

fn unescape(key: &str) -> String {
    key.replace("~1", "/").replace("~0", "~")
}

/// Go's `strconv.Atoi` on an array index.
fn atoi(key: &str) -> Result<i64, String> {
    let digits = key.strip_prefix(['+', '-']).unwrap_or(key);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {key:?}: invalid syntax"));
    }
    key.parse::<i64>().map_err(|_| format!("strconv.Atoi: parsing {key:?}: value out of range"))
}

fn invalid_index(i: i64) -> String {
    format!("Unable to access invalid index: {i}: invalid index referenced")
}

/// An existing element's index (`get`, `set`, `remove`), negative counting from the end.
fn element_index(key: &str, len: usize) -> Result<usize, String> {
    let i = atoi(key)?;
    let len = len as i64;
    let j = if i < 0 { i + len } else { i };
    if i < -len || j >= len {
        return Err(invalid_index(i));
    }
    Ok(j as usize)
}

/// The container of the pointer's last segment and that segment, when every step before it exists.
fn parent<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 2 {
        return None;
    }
    let key = unescape(parts[parts.len() - 1]);
    let mut cur = doc;
    for part in &parts[1..parts.len() - 1] {
        let part = unescape(part);
        let next = match cur {
            Value::Object(m) => m.get_mut(&part),
            Value::Array(a) => {
                let len = a.len();
                element_index(&part, len).ok().and_then(move |i| a.get_mut(i))
            }
            _ => None,
        }?;
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        cur = next;
    }
    (cur.is_object() || cur.is_array()).then_some((cur, key))
}

/// The value at `key` of a container: None for a missing (or null) object key, an error for a bad index.
fn get(container: &Value, key: &str) -> Result<Option<Value>, String> {
    match container {
        Value::Object(m) => Ok(m.get(key).filter(|v| !v.is_null()).cloned()),
        Value::Array(a) => Ok(a.get(element_index(key, a.len())?).cloned()),
        _ => Ok(None),
    }
}

fn insert(container: &mut Value, key: &str, v: Value) -> Result<(), String> {
    match container {
        Value::Object(m) => {
            m.insert(key.to_string(), v);
            Ok(())
        }
        Value::Array(a) => {
            if key == "-" {
                a.push(v);
                return Ok(());
            }
            let i = atoi(key).map_err(|e| format!("value was not a proper array index: '{key}': {e}"))?;
            let size = a.len() as i64 + 1;
            if i >= size || i < -size {
                return Err(invalid_index(i));
            }
            let at = if i < 0 { i + size } else { i };
            a.insert(at as usize, v);
            Ok(())
        }
        _ => Ok(()),
    }
}

fn delete(container: &mut Value, key: &str) -> Result<(), String> {
    match container {
        Value::Object(m) => match m.remove(key) {
            Some(_) => Ok(()),
            None => Err(format!("Unable to remove nonexistent key: {key}: missing value")),
        },
        Value::Array(a) => {
            let i = element_index(key, a.len())?;
            a.remove(i);
            Ok(())
        }
        _ => Ok(()),
    }
}

fn add(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let path = field(op, "path").ok_or("add operation failed to decode path: missing value")?;
    let (c, key) = parent(doc, path)
        .ok_or_else(|| format!("add operation does not apply: doc is missing path: {path:?}: missing value"))?;
    insert(c, &key, value(op)).map_err(|e| format!("error in add for path: '{path}': {e}"))
}

fn remove(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let path = field(op, "path").ok_or("remove operation failed to decode path: missing value")?;
    let (c, key) = parent(doc, path)
        .ok_or_else(|| format!("remove operation does not apply: doc is missing path: {path:?}: missing value"))?;
    delete(c, &key).map_err(|e| format!("error in remove for path: '{path}': {e}"))
}

fn replace(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let path = field(op, "path")
        .ok_or("replace operation failed to decode path: operation missing path field: missing value")?;
    if path.is_empty() {
        return match value(op) {
            v @ (Value::Object(_) | Value::Array(_)) => {
                *doc = v;
                Ok(())
            }
            _ => Err("replace operation value must be object or array".into()),
        };
    }
    let (c, key) = parent(doc, path)
        .ok_or_else(|| format!("replace operation does not apply: doc is missing path: {path}: missing value"))?;
    get(c, &key).map_err(|_| format!("replace operation does not apply: doc is missing key: {path}: missing value"))?;
    match c {
        Value::Object(m) => {
            m.insert(key, value(op));
        }
        Value::Array(a) => {
            let i = element_index(&key, a.len()).map_err(|e| format!("error in remove for path: '{path}': {e}"))?;
            a[i] = value(op);
        }
        _ => {}
    }
    Ok(())
}

fn move_op(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let from = field(op, "from")
        .ok_or("move operation failed to decode from: operation, missing from field: missing value")?;
    let (c, key) = parent(doc, from)
        .ok_or_else(|| format!("move operation does not apply: doc is missing from path: {from}: missing value"))?;
    let v = get(c, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?.unwrap_or(Value::Null);
    delete(c, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?;
    let path =
        field(op, "path").ok_or("move operation failed to decode path: operation missing path field: missing value")?;
    let (c, key) = parent(doc, path).ok_or_else(|| {
        format!("move operation does not apply: doc is missing destination path: {path}: missing value")
    })?;
    insert(c, &key, v).map_err(|e| format!("error in move for path: '{path}': {e}"))
}

fn test(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let path =
        field(op, "path").ok_or("test operation failed to decode path: operation missing path field: missing value")?;
    let failed = || format!("testing value {path} failed: test failed");
    let want = value(op);
    if path.is_empty() {
        return if *doc == want { Ok(()) } else { Err(failed()) };
    }
    let (c, key) = parent(doc, path)
        .ok_or_else(|| format!("test operation does not apply: is missing path: {path}: missing value"))?;
    let have = get(c, &key).map_err(|e| format!("error in test for path: '{path}': {e}"))?.unwrap_or(Value::Null);
    if have == want {
        Ok(())
    } else {
        Err(failed())
    }
}

fn copy(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let from = field(op, "from")
        .ok_or("copy operation failed to decode from: operation, missing from field: missing value")?;
    let (c, key) = parent(doc, from)
        .ok_or_else(|| format!("copy operation does not apply: doc is missing from path: {from}: missing value"))?;
    let v = get(c, &key).map_err(|e| format!("error in copy for from: '{from}': {e}"))?.unwrap_or(Value::Null);
    let path = field(op, "path").ok_or("copy operation failed to decode path: missing value")?;
    let (c, key) = parent(doc, path).ok_or_else(|| {
        format!("copy operation does not apply: doc is missing destination path: {path}: missing value")
    })?;
    insert(c, &key, v).map_err(|e| format!("error while adding value during copy: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(patch: Value) -> Result<Value, String> {
        let mut doc = json!({"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "nginx"}]}}}});
        apply(&mut doc, &patch).map(|_| doc)
    }

    #[test]
    fn operations_change_the_document_in_order() {
        let doc = run(json!([
            {"op": "replace", "path": "/spec/replicas", "value": 3},
            {"op": "add", "path": "/spec/template/spec/containers/-", "value": {"name": "sidecar"}},
            {"op": "test", "path": "/spec/template/spec/containers/1/name", "value": "sidecar"},
            {"op": "copy", "from": "/spec/replicas", "path": "/spec/copied"},
            {"op": "move", "from": "/spec/copied", "path": "/spec/moved"},
            {"op": "remove", "path": "/spec/template/spec/containers/0"},
        ]))
        .unwrap_or_default();
        assert_eq!(doc["spec"]["replicas"], 3);
        assert_eq!(doc["spec"]["moved"], 3);
        assert!(doc["spec"].get("copied").is_none());
        assert_eq!(doc["spec"]["template"]["spec"]["containers"], json!([{"name": "sidecar"}]));
    }

    #[test]
    fn failures_carry_the_librarys_words() {
        let cases = [
            (json!([{"op": "test", "path": "/spec/replicas", "value": 5}]), "testing value /spec/replicas failed: test failed"),
            (
                json!([{"op": "remove", "path": "/spec/foo"}]),
                "error in remove for path: '/spec/foo': Unable to remove nonexistent key: foo: missing value",
            ),
            (
                json!([{"op": "add", "path": "/spec/foo/bar", "value": 1}]),
                "add operation does not apply: doc is missing path: \"/spec/foo/bar\": missing value",
            ),
            (json!([{"op": "bogus", "path": "/spec"}]), "Unexpected kind: bogus"),
            (json!([{"path": "/spec"}]), "Unexpected kind: unknown"),
            (
                json!([{"op": "add", "path": "/spec/template/spec/containers/5", "value": {}}]),
                "error in add for path: '/spec/template/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
            ),
            (
                json!([{"op": "move", "from": "/spec/x", "path": "/spec/y"}]),
                "error in move for path: 'x': Unable to remove nonexistent key: x: missing value",
            ),
            (
                json!([{"op": "replace", "path": "/spec/replicas/x", "value": 1}]),
                "replace operation does not apply: doc is missing path: /spec/replicas/x: missing value",
            ),
            (json!({"op": "add"}), "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ];
        for (patch, want) in cases {
            assert_eq!(run(patch.clone()).err().as_deref(), Some(want), "{patch}");
        }
    }

    #[test]
    fn the_library_is_lenient_where_it_is_lenient() {
        // replace adds a missing object key; test treats missing as null; copy of a missing key copies null.
        let doc = run(json!([
            {"op": "replace", "path": "/spec/foo", "value": 1},
            {"op": "test", "path": "/spec/nope", "value": null},
            {"op": "copy", "from": "/spec/x", "path": "/spec/y"},
        ]))
        .unwrap_or_default();
        assert_eq!(doc["spec"]["foo"], 1);
        assert_eq!(doc["spec"]["y"], Value::Null);
        assert!(run(json!([{"op": "remove", "path": "/spec/template/spec/containers/-1"}])).is_ok());
        assert!(run(Value::Null).is_ok());
    }
}
