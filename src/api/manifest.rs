//! Manifests in and out: multi-document YAML or JSON (and `kind: List`) split into documents with their
//! line numbers, kubectl's client-side errors for text that is not a manifest, and the apiserver's strict
//! decoding of one document into a typed [`Object`] (unknown fields and wrong types as `BadRequest`).

use serde_json::Value;

use super::{lookup_kind, Object, Status};

/// One document of a manifest, still untyped.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub value: Value,
    /// 1-based line where the document starts in the source text.
    pub line: usize,
}

/// A client-side failure to read a manifest: kubectl prints `error: …` and sends nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// kubectl's message (without the `error: ` prefix).
    pub message: String,
    /// 1-based line and column in the source text, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error: {}", self.message)
    }
}

/// Splits `text` (named `source` in messages, e.g. `STDIN` or `web.yaml`) into documents. Empty documents are skipped;
/// a `List` contributes its items.
pub fn parse_documents(text: &str, source: &str) -> Result<Vec<Document>, ManifestError> {
    let starts = document_start_lines(text);
    let mut values = Vec::new();
    for de in serde_yaml::Deserializer::from_str(text) {
        let value: Value = match serde::Deserialize::deserialize(de) {
            Ok(v) => v,
            Err(e) => return Err(yaml_error(&e, source)),
        };
        values.push(value);
    }
    // The syntax is serde_yaml's to judge; the values are what kubectl's YAML 1.1 reading makes of it.
    if let Some(go) = super::yaml_go::documents(text).filter(|go| go.len() == values.len()) {
        values = go;
    }
    let mut docs = Vec::new();
    for (index, value) in values.into_iter().enumerate() {
        let line = starts.get(index).copied().unwrap_or(1);
        if value.is_null() {
            continue;
        }
        if !value.is_object() {
            return Err(ManifestError {
                message: format!(
                    "error parsing {source}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    json_type(&value)
                ),
                line: Some(line),
                column: None,
            });
        }
        check_type_meta(&value, source, line)?;
        if value.get("kind").and_then(Value::as_str) == Some("List") {
            for item in value.get("items").and_then(Value::as_array).into_iter().flatten() {
                check_type_meta(item, source, line)?;
                docs.push(Document { value: item.clone(), line });
            }
        } else {
            docs.push(Document { value, line });
        }
    }
    Ok(docs)
}

/// How Go's encoding/json names a JSON value's kind in its errors.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

fn check_type_meta(value: &Value, source: &str, line: usize) -> Result<(), ManifestError> {
    let missing = |what: &str| {
        ManifestError {
        message: format!(
            "error validating {source:?}: error validating data: {what} not set; if you choose to ignore these errors, turn validation off with --validate=false"
        ),
        line: Some(line),
        column: None,
    }
    };
    match (value.get("apiVersion").and_then(Value::as_str), value.get("kind").and_then(Value::as_str)) {
        (_, None) | (_, Some("")) => Err(missing("kind")),
        (None, _) | (Some(""), _) => Err(missing("apiVersion")),
        _ => Ok(()),
    }
}

/// Lines (1-based) where each YAML document begins: after every `---` separator line.
fn document_start_lines(text: &str) -> Vec<usize> {
    let mut starts = vec![1];
    for (i, l) in text.lines().enumerate() {
        if l.starts_with("---") && l[3..].trim().is_empty() {
            if i == 0 {
                starts[0] = 2;
            } else {
                starts.push(i + 2);
            }
        }
    }
    starts
}

/// kubectl's wording for YAML syntax errors: `error parsing STDIN: error converting YAML to JSON: yaml: line 3: …`.
fn yaml_error(e: &serde_yaml::Error, source: &str) -> ManifestError {
    let (line, column) = e.location().map(|l| (Some(l.line()), Some(l.column()))).unwrap_or((None, None));
    let text = e.to_string();
    let detail = text.split(" at line ").next().unwrap_or(&text).to_string();
    // go-yaml counts a scanner error's line from 0 and names it only when it is not 0: an error the scanner
    // finds on the first line has no `line N: ` (yaml.v2 decode.go's `fail`).
    const SCANNER: [&str; 5] = [
        "mapping values are not allowed in this context",
        "found character that cannot start any token",
        "could not find expected ':'",
        "block sequence entries are not allowed in this context",
        "found a tab character that violates indentation",
    ];
    let unnamed = line == Some(1) && SCANNER.iter().any(|p| detail.starts_with(p));
    let at = line.filter(|_| !unnamed).map(|l| format!("line {l}: ")).unwrap_or_default();
    ManifestError {
        message: format!("error parsing {source}: error converting YAML to JSON: yaml: {at}{detail}"),
        line,
        column,
    }
}

/// A body sent to an endpoint without `apiVersion` or `kind` takes the endpoint's, as the apiserver's
/// decoder does with its default group-version-kind (the Python client's models leave both out unless set).
pub fn with_endpoint_type(raw: &mut Value, info: &super::ResourceInfo) {
    let Some(map) = raw.as_object_mut() else { return };
    for (key, value) in [("apiVersion", info.api_version()), ("kind", info.kind.name().to_string())] {
        if map.get(key).and_then(Value::as_str).is_none_or(str::is_empty) {
            map.insert(key.to_string(), Value::String(value));
        }
    }
}

/// The apiserver's strict decode of a request body into `kind`'s type (`fieldValidation=Strict`, kubectl's default).
pub fn decode_strict(value: &Value) -> Result<Object, Status> {
    decode_validated(value, super::FieldValidation::Strict).map(|(object, _)| object)
}

/// The apiserver's decode of a request body under a `fieldValidation` directive: the object, and the
/// warnings Warn gives for the fields the schema does not know (Strict refuses them, Ignore drops them).
pub fn decode_validated(value: &Value, mode: super::FieldValidation) -> Result<(Object, Vec<String>), Status> {
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    let info = lookup_kind(api_version, kind)
        .ok_or_else(|| Status::bad_request(format!("no kind {kind:?} is registered for version {api_version:?}")))?;
    let version = info.version;
    let prefix = format!("{kind} in version {version:?} cannot be handled as a {kind}");
    // Decoding from an owned copy, not from `&Value`: a second deserializer would instantiate every kind's serde
    // code twice, about a sixth of the shipped wasm (see the README's design notes).
    let object = Object::from_json_as(info.kind, value.clone()).map_err(|e| {
        // Go's decoder names the struct, path and type of the first wrong value; serde's error is the fallback.
        let message = super::go_json::type_error(value, api_version, kind).unwrap_or_else(|| go_json_error(&e, kind));
        Status::bad_request(format!("{prefix}: {message}"))
    })?;
    if mode == super::FieldValidation::Ignore {
        return Ok((object, Vec::new()));
    }
    let mut unknown = Vec::new();
    unknown_fields(value, &object.to_json(), &mut Vec::new(), &mut unknown);
    let list: Vec<String> = unknown.iter().map(|f| format!("unknown field {f:?}")).collect();
    if mode == super::FieldValidation::Strict && !list.is_empty() {
        return Err(Status::bad_request(format!("{prefix}: strict decoding error: {}", list.join(", "))));
    }
    Ok((object, list))
}

/// Collects fields present in `input` that the typed round trip dropped: the fields the schema does not know.
/// `path` holds the segments leading here; a dotted path string is only built for a field that is reported.
fn unknown_fields<'a>(input: &'a Value, typed: &Value, path: &mut Vec<Segment<'a>>, out: &mut Vec<String>) {
    match (input, typed) {
        (Value::Object(i), Value::Object(t)) => {
            for (k, v) in i {
                match t.get(k) {
                    Some(tv) => {
                        path.push(Segment::Field(k));
                        unknown_fields(v, tv, path, out);
                        path.pop();
                    }
                    None if v.is_null() => {}
                    None if path.last().is_some_and(|s| matches!(s, Segment::Field(f) if is_free_form(f))) => {}
                    None => {
                        path.push(Segment::Field(k));
                        out.push(dotted(path));
                        path.pop();
                    }
                }
            }
        }
        (Value::Array(i), Value::Array(t)) => {
            for (n, (iv, tv)) in i.iter().zip(t).enumerate() {
                path.push(Segment::Index(n));
                unknown_fields(iv, tv, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// One step of a field path: `spec`, `[0]`.
#[derive(Debug, Clone, Copy)]
enum Segment<'a> {
    Field(&'a str),
    Index(usize),
}

/// `spec.containers[0].name`.
fn dotted(path: &[Segment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Segment::Field(f) if s.is_empty() => s.push_str(f),
            Segment::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            Segment::Index(n) => s.push_str(&format!("[{n}]")),
        }
    }
    s
}

/// Maps whose keys are data, not schema (labels, annotations, data, …): nothing in them is unknown.
fn is_free_form(field: &str) -> bool {
    matches!(
        field,
        "labels"
            | "annotations"
            | "data"
            | "stringData"
            | "binaryData"
            | "matchLabels"
            | "selector"
            | "nodeSelector"
            | "capacity"
            | "allocatable"
            | "limits"
            | "requests"
            | "hard"
            | "used"
    )
}

/// serde's message rewritten in the words Go's encoding/json uses for the same failure.
fn go_json_error(e: &serde_json::Error, kind: &str) -> String {
    let text = e.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text);
    if let Some(rest) = text.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let found = found.split_whitespace().next().unwrap_or(found);
        let found = match found {
            "integer" | "floating" => "number",
            "boolean" => "bool",
            "sequence" => "array",
            "map" => "object",
            other => other,
        };
        let go_type = match expected {
            "i32" => "int32",
            "i64" => "int64",
            "a boolean" => "bool",
            "a string" => "string",
            e if e.starts_with("a sequence") => "[]",
            e if e.contains("map") || e.starts_with("struct") => "struct",
            e => e,
        };
        return format!("json: cannot unmarshal {found} into Go value of type {go_type} (in {kind})");
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_document_yaml_keeps_each_documents_line() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
        let docs = parse_documents(text, "STDIN").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].line, 5);
        assert_eq!(docs[1].value["metadata"]["name"], "b");
    }

    #[test]
    fn yaml_syntax_errors_read_like_kubectls() {
        let err = parse_documents("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: [\n", "STDIN").unwrap_err();
        assert!(
            err.message.starts_with("error parsing STDIN: error converting YAML to JSON: yaml: line "),
            "{}",
            err.message
        );
        assert!(err.line.is_some());
        // The real kubectl (v1.33) on a scanner error in the first line: no line named.
        let err = parse_documents("this: is: not yaml\n", "STDIN").unwrap_err();
        assert_eq!(
            err.message,
            "error parsing STDIN: error converting YAML to JSON: yaml: mapping values are not allowed in this context"
        );
        assert_eq!(err.line, Some(1), "the editor still marks the line");
    }

    #[test]
    fn a_document_without_kind_is_rejected_before_sending() {
        let err = parse_documents("apiVersion: v1\nmetadata: {name: x}\n", "pod.yaml").unwrap_err();
        assert_eq!(
            err.message,
            "error validating \"pod.yaml\": error validating data: kind not set; if you choose to ignore these errors, turn validation off with --validate=false"
        );
    }

    #[test]
    fn strict_decoding_reports_unknown_fields_with_their_path() {
        let v: Value = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"x": "y"}},
            "spec": {"replica": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": [{"name": "c", "image": "nginx", "imagePull": "x"}]}}}});
        let err = decode_strict(&v).unwrap_err();
        assert_eq!(
            err.message,
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replica\", unknown field \"spec.template.spec.containers[0].imagePull\""
        );
    }

    #[test]
    fn strict_decoding_reports_wrong_types() {
        let v: Value = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": "three"}});
        let err = decode_strict(&v).unwrap_err();
        assert!(
            err.message.starts_with(
                "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string"
            ),
            "{}",
            err.message
        );
    }
}
