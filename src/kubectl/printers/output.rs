//! `kubectl get -o …`: parsing the output flag and printing objects as tables (through [`get`]),
//! `yaml`, `json`, `name`, `jsonpath=…`, `jsonpath-as-json=…` and `custom-columns=…`.
//!
//! As in kubectl, several objects (or any listing) print as one `v1` `List`
//! (`apiVersion: v1 / items / kind: List / metadata.resourceVersion: ""`); a single named object
//! prints alone. `-o yaml`/`-o json` omit `metadata.managedFields` unless asked. Errors are returned
//! as kubectl's message without its `error: ` prefix.
//!
//! [`get`]: super::get

use std::sync::Arc;

use serde_json::{json, Value};

use super::get::{get_table, GetOptions};
use super::jsonpath::{go_json, go_sharp_v, go_v, JsonPath};
use super::table::{escape_terminal, TabWriter};
use super::util::go_quote;
use super::yaml::to_yaml;
use crate::api::{Kind, Object};
use crate::sim::SimTime;

/// A parsed `-o` / `--output` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputFormat {
    /// No `-o`: the table.
    Table,
    /// `-o wide`.
    Wide,
    Yaml,
    Json,
    Name,
    /// `-o jsonpath=TEMPLATE`.
    JsonPath(String),
    /// `-o jsonpath-as-json=TEMPLATE`.
    JsonPathAsJson(String),
    /// `-o custom-columns=HEADER:PATH,…`: (header, `{.path}` template) pairs.
    CustomColumns(Vec<(String, String)>),
}

const ALLOWED: &str = "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml";

impl OutputFormat {
    /// Parses the `-o` flag of `kubectl get`.
    pub fn parse(flag: &str) -> Result<OutputFormat, String> {
        match flag {
            "" => return Ok(OutputFormat::Table),
            "wide" => return Ok(OutputFormat::Wide),
            "yaml" => return Ok(OutputFormat::Yaml),
            "json" => return Ok(OutputFormat::Json),
            "name" => return Ok(OutputFormat::Name),
            _ => {}
        }
        for (prefix, as_json) in [("jsonpath", false), ("jsonpath-as-json", true)] {
            let template =
                if flag == prefix { Some("") } else { flag.strip_prefix(prefix).and_then(|r| r.strip_prefix('=')) };
            if let Some(template) = template {
                if template.is_empty() {
                    return Err("template format specified but no template given".to_string());
                }
                JsonPath::parse(template).map_err(|e| format!("error parsing jsonpath {template}, {e}"))?;
                return Ok(if as_json {
                    OutputFormat::JsonPathAsJson(template.to_string())
                } else {
                    OutputFormat::JsonPath(template.to_string())
                });
            }
        }
        // Template files: the simulated kubectl has no filesystem to read them from.
        if let Some(file) = flag.strip_prefix("jsonpath-file=") {
            return Err(format!("error reading --template {file}, open {file}: no such file or directory"));
        }
        if let Some(file) = flag.strip_prefix("custom-columns-file=") {
            return Err(format!("error reading template {file}, open {file}: no such file or directory\n"));
        }
        let spec = if flag == "custom-columns" { Some("") } else { flag.strip_prefix("custom-columns=") };
        if let Some(spec) = spec {
            if spec.is_empty() {
                return Err("custom-columns format specified but no custom columns given".to_string());
            }
            let mut columns = Vec::new();
            for part in spec.split(',') {
                let Some((header, path)) = part.split_once(':') else {
                    return Err(format!("unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"));
                };
                columns.push((header.to_string(), relaxed_jsonpath(path)?));
            }
            return Ok(OutputFormat::CustomColumns(columns));
        }
        Err(format!(
            "unable to match a printer suitable for the output format {}, allowed formats are: {ALLOWED}",
            go_quote(flag)
        ))
    }
}

/// `RelaxedJSONPathExpression`: `metadata.name`, `.metadata.name`, `{metadata.name}` and
/// `{.metadata.name}` all become `{.metadata.name}`.
pub(crate) fn relaxed_jsonpath(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Ok(String::new());
    }
    let inner = if let Some(body) = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
        body.strip_prefix('.').unwrap_or(body)
    } else {
        path.strip_prefix('.').unwrap_or(path)
    };
    if inner.is_empty() || inner.contains(['{', '}']) {
        return Err(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
                .to_string(),
        );
    }
    Ok(format!("{{.{inner}}}"))
}

/// How objects are printed besides the format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// One object asked for by name (`kubectl get pod x`): printed alone, not in a `List`.
    pub single: bool,
    /// `--no-headers` (tables and custom columns).
    pub no_headers: bool,
    /// `--show-managed-fields` (yaml and json).
    pub show_managed_fields: bool,
    /// Table decorations (`-A`, `--show-labels`, …); `wide` is taken from the format.
    pub get: GetOptions,
}

/// What `kubectl get` prints on stdout for `objects` of `kind` in `format`.
pub fn print_objects(
    kind: Kind,
    objects: &[Arc<Object>],
    format: &OutputFormat,
    now: SimTime,
    opts: &PrintOptions,
) -> Result<String, String> {
    match format {
        OutputFormat::Table | OutputFormat::Wide => {
            let mut get = opts.get.clone();
            get.wide = *format == OutputFormat::Wide;
            Ok(get_table(kind, objects, now, &get).render(opts.no_headers))
        }
        OutputFormat::Yaml => Ok(to_yaml(&document(objects, opts, !opts.show_managed_fields))),
        OutputFormat::Json => {
            let mut text = go_json(&document(objects, opts, !opts.show_managed_fields), Some("    "));
            text.push('\n');
            Ok(text)
        }
        OutputFormat::Name => Ok(objects.iter().map(|o| name_line(o)).collect()),
        OutputFormat::JsonPath(t) => run_jsonpath(t, &document(objects, opts, false), false),
        OutputFormat::JsonPathAsJson(t) => run_jsonpath(t, &document(objects, opts, false), true),
        OutputFormat::CustomColumns(columns) => custom_columns(columns, objects, opts.no_headers),
    }
}

/// The `-o` output of `kubectl get` for any non-table format, in the shape the kubectl verbs call:
/// `single` when one object was asked for by name. An error is kubectl's whole stderr text
/// (`error: …`). Tables need the kind and the time: use [`get_table`] (or [`print_objects`]).
pub fn render(format: &str, objects: &[Arc<Object>], single: bool) -> Result<String, String> {
    let parsed = OutputFormat::parse(format).map_err(|e| format!("error: {e}"))?;
    let Some(kind) = objects.first().map(|o| o.kind()) else {
        if matches!(parsed, OutputFormat::Table | OutputFormat::Wide) {
            return Ok(String::new());
        }
        return print_objects(Kind::Pod, objects, &parsed, SimTime::ZERO, &PrintOptions::default())
            .map_err(|e| format!("error: {e}"));
    };
    let opts = PrintOptions { single, ..Default::default() };
    print_objects(kind, objects, &parsed, SimTime::ZERO, &opts).map_err(|e| format!("error: {e}"))
}

/// `kind[.group]/name`, as `-o name` and most write commands print an object.
pub fn name_line(obj: &Object) -> String {
    let info = obj.info();
    let name = if obj.name().is_empty() { "<unknown>" } else { obj.name() };
    let kind = obj.kind().name().to_ascii_lowercase();
    if info.group.is_empty() {
        format!("{kind}/{name}\n")
    } else {
        format!("{kind}.{}/{name}\n", info.group)
    }
}

/// The JSON value kubectl prints: the object itself, or a `List` of them.
fn document(objects: &[Arc<Object>], opts: &PrintOptions, omit_managed_fields: bool) -> Value {
    let item = |o: &Arc<Object>| {
        let mut v = o.to_json();
        add_go_null_times(o.kind(), &mut v);
        if omit_managed_fields {
            if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("managedFields");
            }
        }
        v
    };
    if opts.single && objects.len() == 1 {
        return item(&objects[0]);
    }
    json!({
        "apiVersion": "v1",
        "items": objects.iter().map(item).collect::<Vec<_>>(),
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    })
}

/// Timestamps that Go declares as non-pointer `metav1.Time` with plain `omitempty` are written as
/// `null` when unset (the typed model here cannot hold that `null`, so it is restored for printing):
/// e.g. every pod condition's `lastProbeTime: null`, an event's `eventTime: null`.
fn add_go_null_times(kind: Kind, v: &mut Value) {
    let paths: &[&[&str]] = match kind {
        Kind::Pod => &[
            &["status", "conditions", "*", "lastProbeTime"],
            &["status", "conditions", "*", "lastTransitionTime"],
            &["status", "containerStatuses", "*", "state", "running", "startedAt"],
            &["status", "containerStatuses", "*", "state", "terminated", "startedAt"],
            &["status", "containerStatuses", "*", "state", "terminated", "finishedAt"],
            &["status", "containerStatuses", "*", "lastState", "running", "startedAt"],
            &["status", "containerStatuses", "*", "lastState", "terminated", "startedAt"],
            &["status", "containerStatuses", "*", "lastState", "terminated", "finishedAt"],
            &["status", "initContainerStatuses", "*", "state", "running", "startedAt"],
            &["status", "initContainerStatuses", "*", "state", "terminated", "startedAt"],
            &["status", "initContainerStatuses", "*", "state", "terminated", "finishedAt"],
            &["status", "initContainerStatuses", "*", "lastState", "terminated", "startedAt"],
            &["status", "initContainerStatuses", "*", "lastState", "terminated", "finishedAt"],
        ],
        Kind::PersistentVolumeClaim | Kind::Job => {
            &[&["status", "conditions", "*", "lastProbeTime"], &["status", "conditions", "*", "lastTransitionTime"]]
        }
        Kind::Node => {
            &[&["status", "conditions", "*", "lastHeartbeatTime"], &["status", "conditions", "*", "lastTransitionTime"]]
        }
        Kind::Deployment => {
            &[&["status", "conditions", "*", "lastUpdateTime"], &["status", "conditions", "*", "lastTransitionTime"]]
        }
        Kind::Namespace
        | Kind::ReplicaSet
        | Kind::StatefulSet
        | Kind::DaemonSet
        | Kind::HorizontalPodAutoscaler
        | Kind::PodDisruptionBudget => &[&["status", "conditions", "*", "lastTransitionTime"]],
        Kind::Event => &[&["firstTimestamp"], &["lastTimestamp"], &["eventTime"], &["series", "lastObservedTime"]],
        _ => &[],
    };
    for path in paths {
        ensure_null(v, path);
    }
}

fn ensure_null(v: &mut Value, path: &[&str]) {
    match path {
        [] => {}
        [last] => {
            if let Value::Object(map) = v {
                map.entry(last.to_string()).or_insert(Value::Null);
            }
        }
        ["*", rest @ ..] => {
            if let Value::Array(items) = v {
                for item in items {
                    ensure_null(item, rest);
                }
            }
        }
        [first, rest @ ..] => {
            if let Some(child) = v.get_mut(*first) {
                ensure_null(child, rest);
            }
        }
    }
}

pub(crate) fn run_jsonpath(template: &str, data: &Value, as_json: bool) -> Result<String, String> {
    let jp = JsonPath::parse(template).map_err(|e| format!("error parsing jsonpath {template}, {e}"))?;
    let result = if as_json {
        jp.find_results(data).map(|groups| {
            groups
                .into_iter()
                .map(|g| {
                    let mut s = go_json(&Value::Array(g), Some("    "));
                    s.push('\n');
                    s
                })
                .collect::<String>()
        })
    } else {
        jp.execute(data, true)
    };
    result.map_err(|e| {
        format!(
            "error executing jsonpath {}: Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{template}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n\n",
            go_quote(template),
            go_sharp_v(data)
        )
    })
}

fn custom_columns(columns: &[(String, String)], objects: &[Arc<Object>], no_headers: bool) -> Result<String, String> {
    let mut parsers = Vec::new();
    for (_, template) in columns {
        parsers.push(JsonPath::parse(template)?);
    }
    let mut text = String::new();
    if !no_headers {
        let headers: Vec<&str> = columns.iter().map(|(h, _)| h.as_str()).collect();
        text.push_str(&headers.join("\t"));
        text.push('\n');
    }
    for obj in objects {
        let data = obj.to_json();
        let mut cells = Vec::new();
        for p in &parsers {
            let groups = p.find_results(&data)?;
            let mut values: Vec<String> = Vec::new();
            if groups.first().is_none_or(|g| g.is_empty()) {
                values.push("<none>".to_string());
            }
            for g in &groups {
                for v in g {
                    values.push(escape_terminal(&go_v(v)));
                }
            }
            cells.push(values.join(","));
        }
        text.push_str(&cells.join("\t"));
        text.push('\n');
    }
    Ok(TabWriter::kubectl().format(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(kind: Kind, yaml: &str) -> Arc<Object> {
        let value: Value = serde_yaml::from_str(yaml).expect("yaml");
        Arc::new(Object::from_json_as(kind, value).expect("object"))
    }

    fn deploy() -> Arc<Object> {
        obj(
            Kind::Deployment,
            r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web}
  annotations: {deployment.kubernetes.io/revision: "1"}
  creationTimestamp: "2025-09-01T00:00:00Z"
  managedFields: [{manager: kubectl, operation: Update}]
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
        resources: {}
status: {}
"#,
        )
    }

    fn single() -> PrintOptions {
        PrintOptions { single: true, ..Default::default() }
    }

    #[test]
    fn output_flags_parse_like_kubectl() {
        assert_eq!(OutputFormat::parse("").unwrap(), OutputFormat::Table);
        assert_eq!(OutputFormat::parse("wide").unwrap(), OutputFormat::Wide);
        assert_eq!(
            OutputFormat::parse("jsonpath={.metadata.name}").unwrap(),
            OutputFormat::JsonPath("{.metadata.name}".to_string())
        );
        assert_eq!(
            OutputFormat::parse("custom-columns=NAME:.metadata.name,IMAGE:spec.containers[*].image").unwrap(),
            OutputFormat::CustomColumns(vec![
                ("NAME".to_string(), "{.metadata.name}".to_string()),
                ("IMAGE".to_string(), "{.spec.containers[*].image}".to_string()),
            ])
        );
        assert_eq!(
            OutputFormat::parse("xml").unwrap_err(),
            "unable to match a printer suitable for the output format \"xml\", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml"
        );
        assert_eq!(OutputFormat::parse("jsonpath").unwrap_err(), "template format specified but no template given");
        assert_eq!(OutputFormat::parse("jsonpath={.x").unwrap_err(), "error parsing jsonpath {.x, unclosed action");
        assert_eq!(
            OutputFormat::parse("custom-columns=").unwrap_err(),
            "custom-columns format specified but no custom columns given"
        );
        assert_eq!(
            OutputFormat::parse("jsonpath-file=t.txt").unwrap_err(),
            "error reading --template t.txt, open t.txt: no such file or directory"
        );
        assert_eq!(
            OutputFormat::parse("custom-columns=NAME").unwrap_err(),
            "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
        );
    }

    #[test]
    fn yaml_prints_sorted_keys_without_managed_fields() {
        let out = print_objects(Kind::Deployment, &[deploy()], &OutputFormat::Yaml, SimTime(0), &single()).unwrap();
        assert_eq!(
            out,
            "apiVersion: apps/v1\n\
             kind: Deployment\n\
             metadata:\n\
             \x20 annotations:\n\
             \x20   deployment.kubernetes.io/revision: \"1\"\n\
             \x20 creationTimestamp: \"2025-09-01T00:00:00Z\"\n\
             \x20 labels:\n\
             \x20   app: web\n\
             \x20 name: web\n\
             \x20 namespace: default\n\
             spec:\n\
             \x20 replicas: 1\n\
             \x20 selector:\n\
             \x20   matchLabels:\n\
             \x20     app: web\n\
             \x20 template:\n\
             \x20   metadata:\n\
             \x20     labels:\n\
             \x20       app: web\n\
             \x20   spec:\n\
             \x20     containers:\n\
             \x20     - image: nginx\n\
             \x20       name: nginx\n\
             \x20       resources: {}\n\
             status: {}\n"
        );
    }

    #[test]
    fn several_objects_print_as_a_list() {
        let out =
            print_objects(Kind::Deployment, &[], &OutputFormat::Yaml, SimTime(0), &PrintOptions::default()).unwrap();
        assert_eq!(out, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n");
        let out =
            print_objects(Kind::Deployment, &[], &OutputFormat::Json, SimTime(0), &PrintOptions::default()).unwrap();
        assert_eq!(
            out,
            "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
        );
        let out =
            print_objects(Kind::Deployment, &[deploy()], &OutputFormat::Yaml, SimTime(0), &PrintOptions::default())
                .unwrap();
        assert!(
            out.starts_with("apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n"),
            "{out}"
        );
        assert!(out.ends_with("  status: {}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"), "{out}");
    }

    #[test]
    fn json_uses_four_spaces_and_escapes_html() {
        let cm = obj(
            Kind::ConfigMap,
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {html: \"<a>&b</a>\", e: \"\"}\n",
        );
        let out = print_objects(Kind::ConfigMap, &[cm], &OutputFormat::Json, SimTime(0), &single()).unwrap();
        assert_eq!(
            out,
            "{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"e\": \"\",\n        \"html\": \"\\u003ca\\u003e\\u0026b\\u003c/a\\u003e\"\n    },\n    \"kind\": \"ConfigMap\",\n    \"metadata\": {\n        \"name\": \"c\"\n    }\n}\n"
        );
    }

    #[test]
    fn names_carry_the_group() {
        let pod = obj(Kind::Pod, "metadata: {name: x}\n");
        let out = print_objects(Kind::Pod, &[pod], &OutputFormat::Name, SimTime(0), &PrintOptions::default()).unwrap();
        assert_eq!(out, "pod/x\n");
        assert_eq!(name_line(&deploy()), "deployment.apps/web\n");
    }

    #[test]
    fn jsonpath_runs_on_the_list_or_the_single_object() {
        let list = print_objects(
            Kind::Deployment,
            &[deploy(), deploy()],
            &OutputFormat::JsonPath("{.items[*].metadata.name}".to_string()),
            SimTime(0),
            &PrintOptions::default(),
        )
        .unwrap();
        assert_eq!(list, "web web");
        let one = print_objects(
            Kind::Deployment,
            &[deploy()],
            &OutputFormat::JsonPath("{.spec.template.spec.containers[0].image}{\"\\n\"}".to_string()),
            SimTime(0),
            &single(),
        )
        .unwrap();
        assert_eq!(one, "nginx\n");
        let err = print_objects(
            Kind::ConfigMap,
            &[obj(Kind::ConfigMap, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")],
            &OutputFormat::JsonPath("{.metadata.name[0]}".to_string()),
            SimTime(0),
            &single(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "error executing jsonpath \"{.metadata.name[0]}\": Error executing template: string is not array or slice. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.metadata.name[0]}\n\tobject given to jsonpath engine was:\n\t\tmap[string]interface {}{\"apiVersion\":\"v1\", \"kind\":\"ConfigMap\", \"metadata\":map[string]interface {}{\"name\":\"c\"}}\n\n\n"
        );
        let as_json = print_objects(
            Kind::Deployment,
            &[deploy()],
            &OutputFormat::JsonPathAsJson("{.metadata.name}".to_string()),
            SimTime(0),
            &single(),
        )
        .unwrap();
        assert_eq!(as_json, "[\n    \"web\"\n]\n");
    }

    #[test]
    fn custom_columns_print_a_table_of_jsonpath_values() {
        let format = OutputFormat::parse(
            "custom-columns=NAME:.metadata.name,IMAGES:.spec.template.spec.containers[*].image,MISSING:.spec.nope,LABELS:.metadata.labels",
        )
        .unwrap();
        let out = print_objects(Kind::Deployment, &[deploy()], &format, SimTime(0), &PrintOptions::default()).unwrap();
        assert_eq!(out, "NAME   IMAGES   MISSING   LABELS\nweb    nginx    <none>    map[app:web]\n");
        let empty = print_objects(Kind::Deployment, &[], &format, SimTime(0), &PrintOptions::default()).unwrap();
        assert_eq!(empty, "NAME   IMAGES   MISSING   LABELS\n");
    }

    #[test]
    fn unset_go_timestamps_print_as_null() {
        let pod = obj(
            Kind::Pod,
            r#"
apiVersion: v1
kind: Pod
metadata: {name: p}
status:
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2025-09-01T00:00:05Z"}]
  containerStatuses: [{name: c, ready: true, restartCount: 0, image: i, imageID: "", state: {running: {startedAt: "2025-09-01T00:00:04Z"}}, lastState: {}}]
"#,
        );
        let out = print_objects(Kind::Pod, &[pod], &OutputFormat::Yaml, SimTime(0), &single()).unwrap();
        assert_eq!(
            out,
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nstatus:\n  conditions:\n  - lastProbeTime: null\n    lastTransitionTime: \"2025-09-01T00:00:05Z\"\n    status: \"True\"\n    type: Ready\n  containerStatuses:\n  - image: i\n    imageID: \"\"\n    lastState: {}\n    name: c\n    ready: true\n    restartCount: 0\n    state:\n      running:\n        startedAt: \"2025-09-01T00:00:04Z\"\n"
        );
        let ev = obj(
            Kind::Event,
            "apiVersion: v1\nkind: Event\nmetadata: {name: e}\ninvolvedObject: {kind: Pod, name: p}\neventTime: \"2025-09-01T00:00:01.000000Z\"\nreportingComponent: default-scheduler\n",
        );
        let out = print_objects(Kind::Event, &[ev], &OutputFormat::Yaml, SimTime(0), &single()).unwrap();
        assert!(out.contains("eventTime: \"2025-09-01T00:00:01.000000Z\"\nfirstTimestamp: null\n"), "{out}");
        assert!(out.contains("lastTimestamp: null\n"), "{out}");
    }

    #[test]
    fn render_takes_the_raw_flag_and_prefixes_errors() {
        assert_eq!(render("name", &[deploy()], false).unwrap(), "deployment.apps/web\n");
        assert!(render("yaml", &[deploy()], true).unwrap().starts_with("apiVersion: apps/v1\nkind: Deployment\n"));
        assert!(render("yaml", &[], false).unwrap().starts_with("apiVersion: v1\nitems: []\n"));
        assert!(render("xml", &[deploy()], false).unwrap_err().starts_with("error: unable to match a printer"));
        let err = render("jsonpath={.items[3]}", &[deploy()], false).unwrap_err();
        assert!(err.starts_with("error: error executing jsonpath \"{.items[3]}\": Error executing template: array index out of bounds: index 3, length 1."));
        assert!(err.ends_with("\n\n\n"));
    }

    #[test]
    fn tables_go_through_the_get_printers() {
        let out = print_objects(
            Kind::Deployment,
            &[deploy()],
            &OutputFormat::Table,
            SimTime(120_000),
            &PrintOptions::default(),
        )
        .unwrap();
        assert_eq!(out, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    0/1     0            0           2m\n");
    }
}
