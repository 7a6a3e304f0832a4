//! `kubectl apply -f` and `kubectl create -f`: manifests (multi-document YAML, JSON, `List`) become
//! create requests, or for apply a client-side three-way merge against the live object, keeping the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation as real kubectl does.

use serde_json::Value;

use crate::api::manifest::{parse_documents, Document};
use crate::api::{ApiResponse, FieldValidation, Object, PatchBody, ResourceInfo, Verb};
use crate::apiserver::registry::merge_patch;

use super::{common, kind_name, Context, Failure};

pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manifests named by `-f` (only `-` is available in the simulation: the editor or a scenario step).
pub(super) fn documents(ctx: &Context, verb: &str) -> Result<(Vec<Document>, String), Failure> {
    let (docs, source) = any_documents(ctx)?;
    if docs.is_empty() {
        return Err(Failure(format!("error: no objects passed to {verb}")));
    }
    Ok((docs, source))
}

/// The manifests named by `-f`, perhaps none.
pub(super) fn any_documents(ctx: &Context) -> Result<(Vec<Document>, String), Failure> {
    let file =
        ctx.args.get(&["f", "filename"]).ok_or_else(|| Failure("error: must specify one of -f and -k".into()))?;
    let (source, text) = match (file, &ctx.stdin) {
        ("-", Some(text)) => ("STDIN".to_string(), text.clone()),
        ("-", None) => ("STDIN".to_string(), String::new()),
        (path, _) => return Err(Failure(format!("error: the path \"{path}\" does not exist"))),
    };
    let docs = parse_documents(&text, &source).map_err(|e| Failure(e.to_string()))?;
    Ok((docs, source))
}

/// A document's resource and the namespace it goes to (its own, else the context's).
pub(super) async fn placed(
    ctx: &Context,
    doc: &Value,
    source: &str,
) -> Result<(&'static ResourceInfo, String), Failure> {
    let default_ns = ctx.namespace();
    let info = info_for(ctx, doc, source, &default_ns).await?;
    Ok((info, doc["metadata"]["namespace"].as_str().unwrap_or(&default_ns).to_string()))
}

/// A document's resource, found by its `apiVersion` and `kind` (through discovery for a kind that is not
/// built in), or kubectl's mapping error.
pub(super) async fn info_for(
    ctx: &Context,
    doc: &Value,
    source: &str,
    ns: &str,
) -> Result<&'static ResourceInfo, Failure> {
    let api_version = doc["apiVersion"].as_str().unwrap_or("");
    let kind = doc["kind"].as_str().unwrap_or("");
    // The resource builder decodes each document's metadata into ObjectMeta as it comes to it.
    if let Some(wrong) = crate::api::go_json::metadata_type_error(&doc["metadata"]) {
        return Err(Failure(format!("error: unable to decode {source:?}: {wrong}")));
    }
    super::discovery::resolve_kind(ctx, api_version, kind).await?.ok_or_else(|| {
        let name = doc["metadata"]["name"].as_str().unwrap_or("");
        let ns = doc["metadata"]["namespace"].as_str().unwrap_or(ns);
        Failure(format!(
            "error: resource mapping not found for name: {name:?} namespace: {ns:?} from {source:?}: no matches for kind {kind:?} in version {api_version:?}\nensure CRDs are installed first"
        ))
    })
}

/// How kubectl reports failures of a manifest's documents: each is printed once the next one comes, and the
/// last is the command's own.
#[derive(Default)]
pub(super) struct DocumentErrors(Option<String>);

impl DocumentErrors {
    pub(super) fn record(&mut self, ctx: &Context, result: Result<(), Failure>) {
        if let Err(Failure(line)) = result {
            if let Some(prev) = self.0.replace(line) {
                ctx.println(&prev);
            }
        }
    }

    pub(super) fn finish(self) -> Result<(), Failure> {
        self.0.map_or(Ok(()), |l| Err(Failure(l)))
    }
}

pub async fn apply(ctx: &Context) -> Result<(), Failure> {
    let validation = common::field_validation(ctx)?;
    let (docs, source) = documents(ctx, "apply")?;
    let mut errors = DocumentErrors::default();
    for doc in docs {
        errors.record(ctx, apply_one(ctx, doc.value, &source, validation).await);
    }
    errors.finish()
}

async fn apply_one(ctx: &Context, mut doc: Value, source: &str, validation: FieldValidation) -> Result<(), Failure> {
    let default_ns = ctx.namespace();
    let info = info_for(ctx, &doc, source, &default_ns).await?;
    let ns = doc["metadata"]["namespace"].as_str().unwrap_or(&default_ns).to_string();
    let name = doc["metadata"]["name"].as_str().unwrap_or("").to_string();
    if name.is_empty() {
        return Err(Failure(format!(
            "error: error when retrieving current configuration of:\n{}\nfrom server for: {source:?}: resource name may not be empty",
            info_string(info, &name, &ns)
        )));
    }
    if let Some(m) = doc["metadata"].as_object_mut() {
        if info.namespaced && !m.contains_key("namespace") {
            m.insert("namespace".into(), Value::String(ns.clone()));
        }
        // The configuration is recorded with its annotations minus this one, an empty map when there are
        // none (GetModifiedConfiguration sets the map before encoding).
        let annotations = m.entry("annotations").or_insert_with(|| Value::Object(Default::default()));
        if let Some(a) = annotations.as_object_mut() {
            a.remove(LAST_APPLIED);
        }
    }
    let encoded = serde_json::to_string(&doc).unwrap_or_default();
    let live = match ctx.api.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(&name)).await? {
        ApiResponse::Object(o) => Some(o),
        ApiResponse::Error(s) if s.code == 404 && s.message.starts_with(&format!("{} ", info.qualified())) => None,
        ApiResponse::Error(s) => {
            let what =
                format!("retrieving current configuration of:\n{}\nfrom server for:", info_string(info, &name, &ns));
            return Err(Failure(s.with_source(&what, source).kubectl_line()));
        }
        _ => None,
    };
    doc["metadata"]["annotations"][LAST_APPLIED] = Value::String(encoded + "\n");
    match live {
        None => {
            let mut req = ctx.request(Verb::Create, info).namespace(Some(&ns));
            req.raw_body = Some(doc);
            req.params.field_validation = validation;
            let created = ctx.api.call(req).await?;
            match created {
                ApiResponse::Object(o) => ctx.println(&format!("{} created", kind_name(&o))),
                ApiResponse::Error(s) => return Err(Failure(s.with_source("creating", source).kubectl_line())),
                _ => {}
            }
        }
        Some(live) => {
            let patch = three_way_patch(&live, &doc);
            if patch.as_object().is_some_and(|m| m.is_empty()) || changes_nothing(&live, &patch) {
                ctx.println(&format!("{} unchanged", kind_name(&live)));
                return Ok(());
            }
            let mut req = ctx.request(Verb::Patch, info).namespace(Some(&ns)).name(&name);
            // An object of a kind kubectl has no Go type for (a custom resource) gets a JSON merge patch.
            req.patch = Some(match info.kind {
                crate::api::Kind::Custom(_) => PatchBody::Merge(patch),
                _ => PatchBody::Strategic(patch),
            });
            req.params.field_validation = validation;
            match ctx.api.call(req).await? {
                ApiResponse::Object(o) => ctx.println(&format!("{} configured", kind_name(&o))),
                ApiResponse::Error(s) => {
                    return Err(Failure(s.with_source("applying patch:\n", source).kubectl_line()))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Whether the patch, merged into the live object as the apiserver merges it, leaves it as it is (kubectl's
/// schema-aware three-way patch is then empty: fields the server defaulted, such as a port's protocol, are
/// no change).
fn changes_nothing(live: &Object, patch: &Value) -> bool {
    if !matches!(live.kind(), crate::api::Kind::Custom(_)) {
        let before = live.to_json();
        let mut after = before.clone();
        let root = crate::apiserver::strategic::root_type(&live.info().api_version(), live.kind().name());
        crate::apiserver::strategic::apply(&mut after, patch, root);
        return after == before;
    }
    false
}

/// cli-runtime's `Info.String()`: the resource, kind, name and namespace kubectl names in apply errors.
fn info_string(info: &ResourceInfo, name: &str, ns: &str) -> String {
    let gv = format!("{}/{}", info.group, info.version);
    let ns = if info.namespaced { ns } else { "" };
    format!(
        "Resource: \"{gv}, Resource={}\", GroupVersionKind: \"{gv}, Kind={}\"\nName: {name:?}, Namespace: {ns:?}",
        info.resource,
        info.kind.name()
    )
}

/// The patch from the live object to the new configuration: fields the last applied configuration set
/// and the new one dropped are deleted (null); everything in the new configuration is set.
pub(super) fn three_way_patch(live: &Object, new: &Value) -> Value {
    let live_json = live.to_json();
    let previous: Value = live
        .meta()
        .annotations
        .as_ref()
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or(Value::Null);
    let mut patch = diff(&live_json, new);
    add_deletions(&previous, new, &mut patch);
    patch
}

/// Fields of `new` whose value differs from `live` (recursively for maps).
fn diff(live: &Value, new: &Value) -> Value {
    match (live, new) {
        (Value::Object(l), Value::Object(n)) => {
            let mut out = serde_json::Map::new();
            for (k, v) in n {
                match l.get(k) {
                    Some(lv) if lv == v => {}
                    Some(lv) if lv.is_object() && v.is_object() => {
                        let d = diff(lv, v);
                        if d.as_object().is_some_and(|m| !m.is_empty()) {
                            out.insert(k.clone(), d);
                        }
                    }
                    _ if subsumed(l.get(k), v) => {}
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(out)
        }
        _ => new.clone(),
    }
}

/// Whether the live value already holds everything `v` asks for (server defaults added the rest).
fn subsumed(live: Option<&Value>, v: &Value) -> bool {
    let Some(live) = live else { return false };
    let mut merged = live.clone();
    merge_patch(&mut merged, v, true);
    &merged == live
}

fn add_deletions(previous: &Value, new: &Value, patch: &mut Value) {
    if let (Value::Object(p), Value::Object(n)) = (previous, new) {
        for (k, pv) in p {
            match n.get(k) {
                None => {
                    if let Some(m) = patch.as_object_mut() {
                        m.insert(k.clone(), Value::Null);
                    }
                }
                Some(nv) if pv.is_object() && nv.is_object() => {
                    let mut sub = patch.get(k).cloned().unwrap_or_else(|| Value::Object(Default::default()));
                    add_deletions(pv, nv, &mut sub);
                    if sub.as_object().is_some_and(|m| !m.is_empty()) {
                        patch[k] = sub;
                    }
                }
                _ => {}
            }
        }
    }
}

pub async fn create(ctx: &Context) -> Result<(), Failure> {
    if ctx.args.get(&["f", "filename"]).is_none() {
        return Err(Failure(format!(
            "error: unknown command {:?} for \"kubectl create\"",
            ctx.args.positional.get(1).cloned().unwrap_or_default()
        )));
    }
    let validation = common::field_validation(ctx)?;
    let (docs, source) = documents(ctx, "create")?;
    let mut errors = DocumentErrors::default();
    for doc in docs {
        let result = async {
            let (info, ns) = placed(ctx, &doc.value, &source).await?;
            let mut req = ctx.request(Verb::Create, info).namespace(Some(&ns));
            req.raw_body = Some(doc.value.clone());
            req.params.field_validation = validation;
            match ctx.api.call(req).await? {
                ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), "created", common::DryRun::None),
                ApiResponse::Error(s) => Err(Failure(s.with_source("creating", &source).kubectl_line())),
                _ => Ok(()),
            }
        }
        .await;
        errors.record(ctx, result);
    }
    errors.finish()
}
