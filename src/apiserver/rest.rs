//! The apiserver's HTTP face, without the sockets: which API request a method, path, query and body name
//! (k8s.io/apiserver's `RequestInfoFactory` and the REST handlers' decoding of query parameters, bodies and
//! `DeleteOptions`), and how answers are written (the JSON serializer's field order, lists, `Status` bodies,
//! watch event frames). `kubeglass serve` turns each HTTP request into what [`route`] returns and sends it
//! into the kernel; `kubectl get --raw` reads API paths the same way.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::printers;
use crate::api::{
    ApiRequest, ApiResponse, Credentials, ExecEnd, ExecResult, FieldValidation, More, Object, PatchBody, ResourceInfo,
    Status, Verb, WatchEvent, WatchEventType, RESOURCES,
};
use crate::sim::SimTime;

/// One HTTP request as it reached the server: method, path and query (undecoded), `Content-Type`, body.
#[derive(Debug, Clone, Copy)]
pub struct HttpRequest<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
}

/// What a request path names.
#[derive(Debug)]
pub enum Routed {
    /// A resource request (its credentials are the caller's to fill in).
    Api(Box<ApiRequest>),
    /// A path outside the resources (`/version`, `/readyz?verbose`, discovery), path and query as sent.
    NonResource(String),
}

/// An answer as written on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    pub code: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl HttpAnswer {
    pub fn json(code: u16, body: String) -> HttpAnswer {
        HttpAnswer { code, content_type: "application/json", body }
    }

    pub fn text(code: u16, body: impl Into<String>) -> HttpAnswer {
        HttpAnswer { code, content_type: "text/plain; charset=utf-8", body: body.into() }
    }

    pub fn status(status: &Status) -> HttpAnswer {
        HttpAnswer::json(status.code, format!("{}\n", status.to_json()))
    }

    /// The mux's answer for a path nothing serves.
    pub fn page_not_found() -> HttpAnswer {
        HttpAnswer::text(404, "404 page not found\n")
    }
}

/// An API path's resource, namespace, name and subresource (`/apis/apps/v1/namespaces/x/deployments/web/scale`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub info: &'static ResourceInfo,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// What the router asks of the custom resources the definitions serve (see
/// [`super::apiextensions::Definitions`]); [`NoCustom`] serves none.
pub trait CustomResources {
    /// Whether some definition serves `group`/`version`.
    fn serves(&self, group: &str, version: &str) -> bool;
    /// The resource row of `group`/`version`/`resource`, if a definition serves it.
    fn resource(&self, group: &str, version: &str, resource: &str) -> Option<&'static ResourceInfo>;
}

/// No custom resources: what the router knows without the apiserver's state.
pub struct NoCustom;

impl CustomResources for NoCustom {
    fn serves(&self, _: &str, _: &str) -> bool {
        false
    }

    fn resource(&self, _: &str, _: &str, _: &str) -> Option<&'static ResourceInfo> {
        None
    }
}

/// Reads an API path: `None` for a path outside `/api` and `/apis` or a discovery document (`/api`, `/apis`,
/// `/apis/apps/v1`), `Some(Err)` with the answer for an API path that names nothing served.
pub fn target(path: &str) -> Option<Result<Target, HttpAnswer>> {
    target_with(path, &NoCustom)
}

/// [`target`] with the custom resources the definitions serve. A custom group-version's path that names
/// nothing served falls through to the mux's plain 404, as apiextensions' handler passes it on.
pub fn target_with(path: &str, custom: &dyn CustomResources) -> Option<Result<Target, HttpAnswer>> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api"] | ["apis"] | ["apis", _] | ["api", _] | ["apis", _, _] => return None,
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let built_in = RESOURCES.iter().any(|r| r.group == group && r.version == version);
    if !built_in && !custom.serves(group, version) {
        return Some(Err(HttpAnswer::page_not_found()));
    }
    let not_found =
        || if built_in { HttpAnswer::status(&Status::no_such_resource()) } else { HttpAnswer::page_not_found() };
    let (namespace, resource, name, sub) = match rest {
        ["namespaces", ns] => (None, "namespaces", Some(*ns), None),
        ["namespaces", ns, sub @ ("status" | "finalize")] => (None, "namespaces", Some(*ns), Some(*sub)),
        ["namespaces", ns, resource] => (Some(*ns), *resource, None, None),
        ["namespaces", ns, resource, name] => (Some(*ns), *resource, Some(*name), None),
        ["namespaces", ns, resource, name, sub] => (Some(*ns), *resource, Some(*name), Some(*sub)),
        [resource] => (None, *resource, None, None),
        [resource, name] => (None, *resource, Some(*name), None),
        [resource, name, sub] => (None, *resource, Some(*name), Some(*sub)),
        _ => return Some(Err(not_found())),
    };
    let info = RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.resource == resource)
        .or_else(|| custom.resource(group, version, resource));
    let Some(info) = info else { return Some(Err(not_found())) };
    // A cluster-scoped resource has no namespaced path; a namespaced one is read by name only in its namespace.
    if (namespace.is_some() && !info.namespaced) || (info.namespaced && namespace.is_none() && name.is_some()) {
        return Some(Err(not_found()));
    }
    Some(Ok(Target {
        info,
        namespace: namespace.map(str::to_string),
        name: name.map(str::to_string),
        subresource: sub.map(str::to_string),
    }))
}

/// The API request an HTTP request names, or the answer that refuses it.
pub fn route(req: &HttpRequest) -> Result<Routed, HttpAnswer> {
    route_with(req, &NoCustom)
}

/// [`route`] with the custom resources the definitions serve.
pub fn route_with(req: &HttpRequest, custom: &dyn CustomResources) -> Result<Routed, HttpAnswer> {
    let t = match target_with(req.path, custom) {
        None if req.method == "GET" => {
            let full = if req.query.is_empty() { req.path.to_string() } else { format!("{}?{}", req.path, req.query) };
            return Ok(Routed::NonResource(full));
        }
        None => return Err(HttpAnswer::page_not_found()),
        Some(t) => t?,
    };
    let query: Vec<(String, String)> = form_urlencoded::parse(req.query.as_bytes()).into_owned().collect();
    let param = |key: &str| query.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    // strconv.ParseBool's true spellings (the Python client sends `watch=True`).
    let flag = |key: &str| param(key).is_some_and(|v| matches!(v.as_str(), "1" | "t" | "T" | "true" | "TRUE" | "True"));
    let verb = match (req.method, &t.name) {
        ("GET", Some(_)) => Verb::Get,
        ("GET", None) if flag("watch") => Verb::Watch,
        ("GET", None) => Verb::List,
        ("POST", _) if t.name.is_none() || t.subresource.is_some() => Verb::Create,
        ("PUT", Some(_)) => Verb::Update,
        ("PATCH", Some(_)) => Verb::Patch,
        ("DELETE", Some(_)) => Verb::Delete,
        ("DELETE", None) => Verb::DeleteCollection,
        (method, _) => {
            return Err(HttpAnswer::status(&Status::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            ))))
        }
    };
    let mut api = ApiRequest::new(Credentials::Anonymous, verb, t.info);
    api.namespace = t.namespace;
    api.name = t.name;
    api.subresource = t.subresource;
    let p = &mut api.params;
    p.label_selector = param("labelSelector").filter(|s| !s.is_empty());
    p.field_selector = param("fieldSelector").filter(|s| !s.is_empty());
    p.resource_version = param("resourceVersion");
    p.allow_bookmarks = flag("allowWatchBookmarks");
    p.dry_run = param("dryRun").is_some_and(|v| v == "All");
    p.field_manager = param("fieldManager");
    p.field_validation = FieldValidation::from_param(param("fieldValidation").as_deref());
    p.propagation_policy = param("propagationPolicy");
    p.grace_period_seconds = int(&param("gracePeriodSeconds"), "gracePeriodSeconds")?;
    p.limit = int(&param("limit"), "limit")?;
    p.timeout_seconds = int(&param("timeoutSeconds"), "timeoutSeconds")?;
    p.continue_token = param("continue").filter(|s| !s.is_empty());
    p.container = param("container");
    p.tail_lines = int(&param("tailLines"), "tailLines")?;
    p.since_seconds = int(&param("sinceSeconds"), "sinceSeconds")?;
    p.since_time = param("sinceTime");
    p.limit_bytes = int(&param("limitBytes"), "limitBytes")?;
    p.previous = flag("previous");
    p.timestamps = flag("timestamps");
    p.follow = flag("follow");
    p.command = query.iter().filter(|(k, _)| k == "command").map(|(_, v)| v.clone()).collect();
    p.tty = flag("tty");
    // Exec: a stdin to be read from the stream (the transport fills it in).
    p.stdin = flag("stdin").then(String::new);
    match verb {
        _ if is_connect(api.subresource.as_deref()) => {}
        Verb::Create | Verb::Update => {
            let (api_version, kind) = super::discovery::body_kind(t.info, api.subresource.as_deref());
            api.raw_body = Some(body_value(req, (&api_version, kind))?)
        }
        Verb::Patch => api.patch = Some(patch_body(req)?),
        Verb::Delete | Verb::DeleteCollection if !req.body.is_empty() => delete_options(req, &mut api)?,
        _ => {}
    }
    Ok(Routed::Api(Box::new(api)))
}

/// A numeric query parameter; one that is not a number is refused as the parameter codec refuses it.
fn int(value: &Option<String>, name: &str) -> Result<Option<i64>, HttpAnswer> {
    match value {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| {
            HttpAnswer::status(&Status::bad_request(format!(
                "failed to parse parameter {name}: strconv.ParseInt: parsing {v:?}: invalid syntax"
            )))
        }),
    }
}

/// A create or update body: JSON, YAML when the client says so, or (in `kubeglass serve`) the protobuf
/// encoding client-go's typed clients send. `expected` is the apiVersion and kind the endpoint takes.
#[cfg_attr(not(feature = "serve"), allow(unused_variables))]
fn body_value(req: &HttpRequest, expected: (&str, &str)) -> Result<Value, HttpAnswer> {
    let media = req.content_type.unwrap_or("application/json").split(';').next().unwrap_or("").trim();
    let parsed = match media {
        "application/yaml" => serde_yaml::from_slice::<Value>(req.body).map_err(|e| e.to_string()),
        "application/json" | "" => serde_json::from_slice::<Value>(req.body).map_err(|e| e.to_string()),
        #[cfg(feature = "serve")]
        super::protobuf::MEDIA_TYPE => {
            return super::protobuf::decode(req.body, expected)
                .map_err(|failure| HttpAnswer::status(&Status::bad_request(failure.message_for(expected.1, req.body))))
        }
        _ => return Err(unsupported_media(BODY_MEDIA_TYPES)),
    };
    parsed.map_err(|e| {
        HttpAnswer::status(&Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))
    })
}

/// The body media types the server decodes.
#[cfg(feature = "serve")]
const BODY_MEDIA_TYPES: &[&str] = &["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
#[cfg(not(feature = "serve"))]
const BODY_MEDIA_TYPES: &[&str] = &["application/json", "application/yaml"];

fn unsupported_media(accepted: &[&str]) -> HttpAnswer {
    HttpAnswer::status(&Status::unsupported_media_type(accepted))
}

/// A PATCH body by its content type.
fn patch_body(req: &HttpRequest) -> Result<PatchBody, HttpAnswer> {
    let media = req.content_type.unwrap_or("").split(';').next().unwrap_or("").trim();
    let accepted =
        ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"];
    let make: fn(Value) -> PatchBody = match media {
        "application/json-patch+json" => PatchBody::Json,
        "application/merge-patch+json" => PatchBody::Merge,
        "application/strategic-merge-patch+json" => PatchBody::Strategic,
        _ => return Err(unsupported_media(&accepted)),
    };
    let value: Value = serde_json::from_slice(req.body)
        .map_err(|e| HttpAnswer::status(&Status::bad_request(format!("error decoding patch: {e}"))))?;
    Ok(make(value))
}

/// A DELETE body: `DeleteOptions` (propagation policy, grace period, dry run) over the query's.
fn delete_options(req: &HttpRequest, api: &mut ApiRequest) -> Result<(), HttpAnswer> {
    let media = req.content_type.unwrap_or("application/json").split(';').next().unwrap_or("").trim();
    let options: Value = match media {
        #[cfg(feature = "serve")]
        super::protobuf::MEDIA_TYPE => {
            super::protobuf::decode(req.body, ("meta.k8s.io/v1", "DeleteOptions")).map_err(|failure| {
                HttpAnswer::status(&Status::bad_request(failure.message_for("DeleteOptions", req.body)))
            })?
        }
        _ => serde_json::from_slice(req.body)
            .map_err(|e| HttpAnswer::status(&Status::bad_request(format!("error decoding DeleteOptions: {e}"))))?,
    };
    if let Some(p) = options.get("propagationPolicy").and_then(Value::as_str) {
        api.params.propagation_policy = Some(p.to_string());
    }
    if let Some(g) = options.get("gracePeriodSeconds").and_then(Value::as_i64) {
        api.params.grace_period_seconds = Some(g);
    }
    if options.get("dryRun").and_then(Value::as_array).is_some_and(|d| d.iter().any(|v| v == "All")) {
        api.params.dry_run = true;
    }
    Ok(())
}

/// An object as the apiserver's JSON serializer writes it: `kind`, `apiVersion`, `metadata` first (the rest
/// in alphabetical order, where Go keeps its struct order); `with_type: false` leaves out `kind` and
/// `apiVersion`, as a list's items are written.
pub fn object_json(object: &Object, with_type: bool) -> String {
    let Value::Object(mut map) = object.to_json() else { return "null".into() };
    let mut parts = Vec::new();
    for key in ["kind", "apiVersion"] {
        if let Some(v) = map.remove(key) {
            if with_type {
                parts.push(format!("{key:?}:{v}"));
            }
        }
    }
    if let Some(v) = map.remove("metadata") {
        parts.push(format!("\"metadata\":{v}"));
    }
    for (k, v) in map {
        parts.push(format!("{}:{v}", Value::String(k)));
    }
    format!("{{{}}}", parts.join(","))
}

/// A list as the apiserver writes it: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":…,
/// "continue":…,"remainingItemCount":…},"items":[…]}`.
pub fn list_json(info: &ResourceInfo, items: &[Arc<Object>], revision: u64, more: Option<&More>) -> String {
    let items: Vec<String> = items.iter().map(|o| object_json(o, false)).collect();
    format!(
        "{{\"kind\":\"{}List\",\"apiVersion\":{:?},\"metadata\":{},\"items\":[{}]}}",
        info.kind.name(),
        info.api_version(),
        list_meta(revision, more),
        items.join(",")
    )
}

/// `metav1.ListMeta` as JSON, fields in the Go struct's order.
pub fn list_meta(revision: u64, more: Option<&More>) -> String {
    let mut meta = format!("{{\"resourceVersion\":\"{revision}\"");
    if let Some(more) = more {
        meta.push_str(&format!(",\"continue\":{}", Value::from(more.token.as_str())));
        if let Some(n) = more.remaining {
            meta.push_str(&format!(",\"remainingItemCount\":{n}"));
        }
    }
    meta.push('}');
    meta
}

/// Whether a success answers `201 Created`: every create, of an object or through a subresource (binding,
/// eviction), as the REST create handler writes it; the streaming subresources POST too but are connects.
pub fn answers_created(request: &ApiRequest) -> bool {
    request.verb == Verb::Create && !is_connect(request.subresource.as_deref()) && request.non_resource_path.is_none()
}

/// What a streaming subresource answers a request that was not upgraded to a stream protocol kubeglass
/// speaks (exec and attach: WebSocket's `v5.channel.k8s.io`/`v4.channel.k8s.io`, not SPDY/3.1;
/// port-forward: SPDY/3.1, tunnelled through WebSocket or not).
pub const UPGRADE_REQUIRED: &str = "Upgrade request required: kubeglass serve streams exec over WebSocket \
(v5.channel.k8s.io, v4.channel.k8s.io; kubectl 1.30 and later), not SPDY/3.1, and port-forward over SPDY/3.1";

/// Whether a subresource is a stream (exec, attach, port-forward, proxy): the REST connecters.
pub fn is_connect(subresource: Option<&str>) -> bool {
    matches!(subresource, Some("exec" | "attach" | "portforward" | "proxy"))
}

/// The answer to a request for `target` (None: a non-resource path), as written on the wire. A watch's
/// start and an exec stream are the transport's to write; here they get what a plain GET would.
pub fn answer(info: Option<&ResourceInfo>, response: &ApiResponse) -> HttpAnswer {
    match response {
        ApiResponse::Object(o) => HttpAnswer::json(200, format!("{}\n", object_json(o, true))),
        ApiResponse::List { items, resource_version, more } => match info {
            Some(info) => {
                HttpAnswer::json(200, format!("{}\n", list_json(info, items, *resource_version, more.as_ref())))
            }
            None => HttpAnswer::json(200, "{}\n".into()),
        },
        ApiResponse::Error(s) => HttpAnswer::status(s),
        ApiResponse::Text(t) | ApiResponse::LogStream { text: t, .. } => HttpAnswer::text(200, t.clone()),
        ApiResponse::Raw { code, body } => {
            // Health checks answer text; `/version` and discovery documents are JSON.
            let json = body.starts_with('{') && *code < 300;
            HttpAnswer {
                code: *code,
                content_type: if json { "application/json" } else { "text/plain; charset=utf-8" },
                body: body.clone(),
            }
        }
        // A stream the kubelet refused is its plain-text answer; one that ran needed an upgrade this
        // answer cannot give (the transport upgrades WebSocket requests before they get here).
        ApiResponse::Exec(ExecResult { end: ExecEnd::NotUpgraded(body), .. }) => HttpAnswer::text(500, body.clone()),
        ApiResponse::Exec(_) => HttpAnswer::status(&Status::bad_request(UPGRADE_REQUIRED)),
        ApiResponse::WatchStarted { .. } => HttpAnswer::json(200, "{}\n".into()),
        ApiResponse::Table(t) => {
            HttpAnswer::json(200, format!("{}\n", custom_table_json(t, IncludeObject::Metadata, true)))
        }
    }
}

/// A custom resource's Table as the apiserver writes it: column definitions (unless `headers` is false),
/// a row of typed cells per object with the object as `include` says, and the list's metadata.
pub fn custom_table_json(table: &crate::api::Table, include: IncludeObject, headers: bool) -> String {
    let rows: Vec<String> = table
        .rows
        .iter()
        .map(|(cells, o)| format!("{{\"cells\":{}{}}}", Value::Array(cells.clone()), row_object(o, include)))
        .collect();
    let revision = table.list.as_ref().map(|(rv, more)| (*rv, more.as_ref()));
    let definitions = table.columns.iter().map(crate::api::TableColumn::definition).collect();
    table_document(revision, headers.then_some(definitions), &rows)
}

/// A row's `object`: nothing, the object's metadata as a PartialObjectMetadata, or the whole object.
fn row_object(o: &Object, include: IncludeObject) -> String {
    match include {
        IncludeObject::None => String::new(),
        IncludeObject::Object => format!(",\"object\":{}", object_json(o, true)),
        IncludeObject::Metadata => {
            let meta = serde_json::to_string(o.meta()).unwrap_or_else(|_| "{}".into());
            format!(",\"object\":{{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{meta}}}")
        }
    }
}

/// How much of each object a Table row carries (`includeObject`; `Metadata` unless asked otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    Metadata,
    Object,
}

impl IncludeObject {
    /// From the request's query.
    pub fn from_query(query: &str) -> IncludeObject {
        let value = form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "includeObject").map(|(_, v)| v);
        match value.as_deref() {
            Some("None") => IncludeObject::None,
            Some("Object") => IncludeObject::Object,
            _ => IncludeObject::Metadata,
        }
    }
}

/// Whether an `Accept` header asks for a `meta.k8s.io` Table (what `kubectl get` sends first).
pub fn wants_table(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| a.split(',').any(|m| m.contains("as=Table") && m.contains("g=meta.k8s.io")))
}

/// A `meta.k8s.io/v1` Table of `objects` as the apiserver's TableConvertor writes it at `now`: every column
/// with its priority (1: `-o wide`), a row of cells per object and the object as `include` says.
/// `headers: false` leaves the column definitions out (the watch events after the first).
pub fn table_json(
    info: &ResourceInfo,
    objects: &[Arc<Object>],
    revision: Option<(u64, Option<&More>)>,
    now: SimTime,
    include: IncludeObject,
    headers: bool,
) -> String {
    let columns = printers::columns(info.kind);
    let definitions: Vec<String> = if headers {
        columns
            .iter()
            .map(|c| {
                format!(
                    "{{\"name\":{},\"type\":\"string\",\"format\":\"{}\",\"description\":\"\",\"priority\":{}}}",
                    Value::from(c.name),
                    if c.is_name { "name" } else { "" },
                    u8::from(c.wide)
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let rows: Vec<String> = printers::row_order(info.kind, objects)
        .iter()
        .map(|o| {
            let mut cells = printers::cells(o, info.kind, now);
            cells.resize(columns.len(), String::new());
            let cells: Vec<String> = cells.into_iter().map(|c| Value::from(c).to_string()).collect();
            format!("{{\"cells\":[{}]{}}}", cells.join(","), row_object(o, include))
        })
        .collect();
    table_document(revision, headers.then_some(definitions), &rows)
}

/// A Table's JSON around its parts: the list's metadata (empty for one object), the column definitions
/// (None: left out, as the watch events after the first leave them) and the rows, each already written.
fn table_document(revision: Option<(u64, Option<&More>)>, definitions: Option<Vec<String>>, rows: &[String]) -> String {
    let metadata = match revision {
        Some((rv, more)) => list_meta(rv, more),
        None => "{}".into(),
    };
    let definitions = definitions.map_or_else(String::new, |d| format!(",\"columnDefinitions\":[{}]", d.join(",")));
    format!(
        "{{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{metadata}{definitions},\"rows\":[{}]}}",
        rows.join(",")
    )
}

/// [`answer`] for a client that asked for a Table: an object or a list as its table, anything else as
/// [`answer`] writes it.
pub fn table_answer(info: &ResourceInfo, response: &ApiResponse, now: SimTime, include: IncludeObject) -> HttpAnswer {
    match response {
        ApiResponse::Object(o) if o.info().kind == info.kind => {
            HttpAnswer::json(200, format!("{}\n", table_json(info, std::slice::from_ref(o), None, now, include, true)))
        }
        ApiResponse::List { items, resource_version, more } => {
            let revision = Some((*resource_version, more.as_ref()));
            HttpAnswer::json(200, format!("{}\n", table_json(info, items, revision, now, include, true)))
        }
        ApiResponse::Table(t) => HttpAnswer::json(200, format!("{}\n", custom_table_json(t, include, true))),
        other => answer(Some(info), other),
    }
}

/// A watch frame whose object is a one-row Table (`headers` on the first event only); a custom resource's
/// row is made with the `columns` the apiserver gave when the watch started.
pub fn watch_event_table_json(
    info: &ResourceInfo,
    columns: Option<&Arc<[crate::api::TableColumn]>>,
    event: &WatchEvent,
    now: SimTime,
    include: IncludeObject,
    headers: bool,
) -> String {
    match (event.kind, &event.object) {
        (WatchEventType::Added | WatchEventType::Modified | WatchEventType::Deleted, Some(o)) => {
            let table = match columns {
                Some(columns) => {
                    let cells = super::apiextensions::columns::cells(columns, o, now);
                    let rows = vec![(cells, Arc::clone(o))];
                    custom_table_json(
                        &crate::api::Table { columns: Arc::clone(columns), rows, list: None },
                        include,
                        headers,
                    )
                }
                None => table_json(info, std::slice::from_ref(o), None, now, include, headers),
            };
            format!("{{\"type\":\"{}\",\"object\":{table}}}\n", event.kind.as_str())
        }
        _ => watch_event_json(info, event),
    }
}

/// One frame of a watch stream: `{"type":"ADDED","object":{…}}` and a newline. A BOOKMARK's object carries
/// only its kind, apiVersion and resourceVersion; an ERROR's is a `Status`.
pub fn watch_event_json(info: &ResourceInfo, event: &WatchEvent) -> String {
    let object = match (event.kind, &event.object, &event.status) {
        (WatchEventType::Error, _, Some(status)) => status.to_json(),
        (WatchEventType::Bookmark, _, _) => {
            let mut m = Map::new();
            m.insert("kind".into(), info.kind.name().into());
            m.insert("apiVersion".into(), info.api_version().into());
            m.insert("metadata".into(), serde_json::json!({"resourceVersion": event.resource_version.to_string()}));
            Value::Object(m).to_string()
        }
        (_, Some(o), _) => object_json(o, true),
        _ => "null".into(),
    };
    format!("{{\"type\":\"{}\",\"object\":{object}}}\n", event.kind.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, query: &str) -> Result<Routed, HttpAnswer> {
        route(&HttpRequest { method: "GET", path, query, content_type: None, body: b"" })
    }

    fn api(r: Result<Routed, HttpAnswer>) -> ApiRequest {
        match r {
            Ok(Routed::Api(a)) => *a,
            other => panic!("not an API request: {other:?}"),
        }
    }

    #[test]
    fn paths_name_their_resource_namespace_name_and_subresource() {
        let t = target("/apis/apps/v1/namespaces/kube-system/deployments/coredns/scale").unwrap().unwrap();
        assert_eq!(
            (t.info.resource, t.namespace.as_deref(), t.name.as_deref(), t.subresource.as_deref()),
            ("deployments", Some("kube-system"), Some("coredns"), Some("scale"))
        );
        let t = target("/api/v1/namespaces/default").unwrap().unwrap();
        assert_eq!((t.info.resource, t.namespace, t.name.as_deref()), ("namespaces", None, Some("default")));
        let t = target("/api/v1/namespaces/default/finalize").unwrap().unwrap();
        assert_eq!((t.info.resource, t.subresource.as_deref()), ("namespaces", Some("finalize")));
        let t = target("/api/v1/pods").unwrap().unwrap();
        assert_eq!((t.info.resource, t.namespace), ("pods", None));
        assert!(target("/api").is_none() && target("/apis/apps/v1").is_none() && target("/readyz").is_none());
    }

    #[test]
    fn a_path_naming_nothing_served_is_refused_as_the_apiserver_refuses_it() {
        // An unknown group-version is no route at all; an unknown resource in a served one is a NotFound Status.
        assert_eq!(target("/apis/widgets.example.com/v1/widgets").unwrap().unwrap_err(), HttpAnswer::page_not_found());
        let e = target("/api/v1/widgets").unwrap().unwrap_err();
        assert_eq!(e.code, 404);
        assert!(e.body.contains("\"message\":\"the server could not find the requested resource\""), "{}", e.body);
        assert!(target("/api/v1/nodes/node01/x/y").unwrap().is_err());
        assert!(target("/api/v1/namespaces/default/nodes").unwrap().is_err(), "nodes are cluster-scoped");
        assert!(target("/api/v1/pods/web").unwrap().is_err(), "a pod is read by name only in its namespace");
    }

    #[test]
    fn query_parameters_become_the_requests_parameters() {
        let a = api(get(
            "/api/v1/namespaces/default/pods",
            "labelSelector=app%3Dweb&limit=500&watch=1&resourceVersion=42&allowWatchBookmarks=true",
        ));
        assert_eq!(a.verb, Verb::Watch);
        assert_eq!(a.params.label_selector.as_deref(), Some("app=web"));
        assert_eq!(a.params.resource_version.as_deref(), Some("42"));
        assert!(a.params.allow_bookmarks);
        let a = api(get("/api/v1/namespaces/default/pods/web/log", "container=c&tailLines=10&follow=true"));
        assert_eq!(
            (a.verb, a.subresource.as_deref(), a.params.tail_lines, a.params.follow),
            (Verb::Get, Some("log"), Some(10), true)
        );
        let e = get("/api/v1/namespaces/default/pods/web/log", "tailLines=ten").unwrap_err();
        assert_eq!(e.code, 400);
        assert!(e.body.contains("failed to parse parameter tailLines"), "{}", e.body);
    }

    #[test]
    fn methods_and_bodies_become_verbs() {
        let body = br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#;
        let post = HttpRequest {
            method: "POST",
            path: "/api/v1/namespaces/default/pods",
            query: "fieldManager=kubectl-run",
            content_type: Some("application/json"),
            body,
        };
        let a = api(route(&post));
        assert_eq!((a.verb, a.params.field_manager.as_deref()), (Verb::Create, Some("kubectl-run")));
        assert_eq!(a.raw_body.unwrap()["metadata"]["name"], "p");
        let patch = HttpRequest {
            method: "PATCH",
            path: "/apis/apps/v1/namespaces/default/deployments/web",
            query: "",
            content_type: Some("application/strategic-merge-patch+json"),
            body: br#"{"spec":{"replicas":3}}"#,
        };
        assert!(matches!(api(route(&patch)).patch, Some(PatchBody::Strategic(_))));
        let bad = HttpRequest { content_type: Some("text/plain"), ..patch };
        assert_eq!(route(&bad).unwrap_err().code, 415);
        let delete = HttpRequest {
            method: "DELETE",
            path: "/api/v1/namespaces/default/pods",
            query: "labelSelector=app%3Dweb",
            content_type: Some("application/json"),
            body: br#"{"propagationPolicy":"Foreground","gracePeriodSeconds":0}"#,
        };
        let a = api(route(&delete));
        assert_eq!(a.verb, Verb::DeleteCollection);
        assert_eq!(
            (a.params.propagation_policy.as_deref(), a.params.grace_period_seconds),
            (Some("Foreground"), Some(0))
        );
        let broken = HttpRequest { body: b"{not json", ..post };
        let e = route(&broken).unwrap_err();
        assert_eq!(e.code, 400);
        assert!(e.body.contains("couldn't get version/kind; json parse error"), "{}", e.body);
    }

    #[cfg(feature = "serve")]
    #[test]
    fn protobuf_bodies_are_decoded_and_an_unknown_media_type_names_the_three_taken() {
        // ConfigMap{metadata: {name: "cfg"}} in a runtime.Unknown without type meta: the endpoint's kind.
        let raw = [0x0a, 0x05, 0x0a, 0x03, b'c', b'f', b'g'];
        let mut body = b"k8s\0\x12\x07".to_vec();
        body.extend(raw);
        let post = HttpRequest {
            method: "POST",
            path: "/api/v1/namespaces/default/configmaps",
            query: "",
            content_type: Some("application/vnd.kubernetes.protobuf"),
            body: &body,
        };
        let a = api(route(&post));
        let created = a.raw_body.as_ref().unwrap();
        assert_eq!((&created["kind"], &created["metadata"]["name"]), (&"ConfigMap".into(), &"cfg".into()));
        assert!(answers_created(&a));
        let eviction = HttpRequest { path: "/api/v1/namespaces/default/pods/web/eviction", ..post };
        let a = api(route(&eviction));
        assert_eq!(a.raw_body.unwrap()["kind"], "Eviction", "a subresource's body is its own kind");
        let text = HttpRequest { content_type: Some("text/plain"), ..post };
        let e = route(&text).unwrap_err();
        assert_eq!(e.code, 415);
        assert!(
            e.body.contains("accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf\""),
            "{}",
            e.body
        );
        let json_as_protobuf = HttpRequest { body: b"{}", ..post };
        let e = route(&json_as_protobuf).unwrap_err();
        assert!(e.body.contains("the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message"), "{}", e.body);
    }

    #[test]
    fn a_status_body_is_written_as_metav1_status() {
        let s = Status::not_found("deployments.apps", "web");
        assert_eq!(
            s.to_json(),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}"#
        );
    }
}
