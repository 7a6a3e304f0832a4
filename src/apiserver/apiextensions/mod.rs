//! apiextensions-apiserver inside kube-apiserver: CustomResourceDefinitions and the custom resources they
//! add. A definition is served once its names are accepted ([`controllers`] set the conditions through the
//! apiserver's loopback client, as the naming and establishing controllers do); from then on its group,
//! versions and resource are found by [`resolve`] from the watch cache's copy of the definitions, each request
//! body is pruned, defaulted and validated against the version's structural schema ([`schema`]), its objects
//! are printed with the version's `additionalPrinterColumns` ([`columns`]), and deleting the definition
//! deletes them first (the `customresourcecleanup.apiextensions.k8s.io` finalizer).
//!
//! Watches: CustomResourceDefinitions (its controllers, through the loopback client). Writes: definition
//! status (names, conditions), the custom resources of a definition being deleted. Counterpart:
//! `staging/src/k8s.io/apiextensions-apiserver` (`pkg/apiserver/customresource_handler.go`,
//! `pkg/registry/customresourcedefinition`, `pkg/registry/customresource`).

pub mod columns;
pub mod controllers;
pub mod schema;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames,
    CustomResourceDefinitionStatus, CustomResourceDefinitionVersion,
};
use serde_json::Value;

use super::cache::WatchCache;
use crate::api::custom::{self, CustomObject};
use crate::api::{Cause, FieldValidation, Kind, Object, ResourceInfo, Status};
use crate::sim::SimTime;

/// The finalizer a definition being deleted carries until its custom resources are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// A custom resource the apiserver serves now: its definition and the resource row of the version asked for.
#[derive(Debug, Clone)]
pub struct Served {
    pub crd: Arc<Object>,
    pub row: &'static ResourceInfo,
}

impl Served {
    pub fn definition(&self) -> &CustomResourceDefinition {
        match self.crd.as_ref() {
            Object::CustomResourceDefinition(d) => d,
            _ => unreachable!("resolve only keeps definitions"),
        }
    }

    /// The served version's entry of `spec.versions`.
    pub fn version(&self) -> Option<&CustomResourceDefinitionVersion> {
        self.definition().spec.versions.iter().find(|v| v.name == self.row.version)
    }

    /// The version's `openAPIV3Schema` as JSON.
    pub fn schema(&self) -> Option<Value> {
        let schema = self.version()?.schema.as_ref()?.open_api_v3_schema.as_ref()?;
        serde_json::to_value(schema).ok()
    }

    /// Whether the version has the `status` subresource.
    pub fn has_status(&self) -> bool {
        self.version().and_then(|v| v.subresources.as_ref()).is_some_and(|s| s.status.is_some())
    }

    /// Whether the version has the `scale` subresource.
    pub fn has_scale(&self) -> bool {
        self.version().and_then(|v| v.subresources.as_ref()).is_some_and(|s| s.scale.is_some())
    }

    /// The version objects are stored at.
    pub fn storage_version(&self) -> &str {
        storage_version(self.definition()).unwrap_or(self.row.version)
    }

    /// Whether the definition is being deleted (no new objects are taken then).
    pub fn terminating(&self) -> bool {
        condition_true(self.definition(), "Terminating")
    }
}

fn storage_version(crd: &CustomResourceDefinition) -> Option<&str> {
    crd.spec.versions.iter().find(|v| v.storage).map(|v| v.name.as_str())
}

/// Whether the definition's condition `type_` is `True`.
pub fn condition_true(crd: &CustomResourceDefinition, type_: &str) -> bool {
    crd.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == type_ && c.status == "True"))
}

/// The names a definition is served under: the accepted ones once the naming controller has accepted them.
fn accepted_names(crd: &CustomResourceDefinition) -> Option<&CustomResourceDefinitionNames> {
    crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()).filter(|n| !n.plural.is_empty() && !n.kind.is_empty())
}

/// The custom kind a definition's objects are.
pub fn kind_of(crd: &CustomResourceDefinition) -> Kind {
    let names = accepted_names(crd).unwrap_or(&crd.spec.names);
    let singular = names.singular.clone().unwrap_or_else(|| names.kind.to_ascii_lowercase());
    custom::kind(&crd.spec.group, &names.plural, &singular, &names.kind, crd.spec.scope == "Namespaced")
}

/// Whether the apiserver serves a definition's resources: once its names are accepted or it is established
/// (the CRD handler's gate).
pub fn is_served(crd: &CustomResourceDefinition) -> bool {
    accepted_names(crd).is_some() && (condition_true(crd, "NamesAccepted") || condition_true(crd, "Established"))
}

/// The definitions the apiserver serves, in name order.
pub fn served_definitions(cache: &WatchCache) -> Vec<Arc<Object>> {
    cache
        .list(Kind::CustomResourceDefinition, None)
        .into_iter()
        .filter(|o| matches!(o.as_ref(), Object::CustomResourceDefinition(d) if is_served(d)))
        .collect()
}

/// The resource a request for `group`/`version`/`resource` names, if a definition serves it.
pub fn resolve(cache: &WatchCache, group: &str, version: &str, resource: &str) -> Option<Served> {
    let crd = cache.get(Kind::CustomResourceDefinition, None, &format!("{resource}.{group}"))?;
    let Object::CustomResourceDefinition(d) = crd.as_ref() else { return None };
    if !is_served(d) || !d.spec.versions.iter().any(|v| v.name == version && v.served) {
        return None;
    }
    let Kind::Custom(def) = kind_of(d) else { return None };
    if def.resource != resource {
        return None;
    }
    let row = custom::row(def, version);
    Some(Served { crd, row })
}

/// How long the CRD handler sleeps before a create of an object whose definition became Established less
/// than that long ago (protection for apiservers that have not seen the definition yet).
pub const JUST_ESTABLISHED_WAIT_MS: u64 = 2_000;

/// Whether a create of `served`'s objects waits: its definition became Established less than
/// [`JUST_ESTABLISHED_WAIT_MS`] ago.
pub fn just_established(served: &Served, now: SimTime) -> bool {
    let conditions = served.definition().status.as_ref().and_then(|s| s.conditions.as_ref());
    let established = conditions.and_then(|cs| cs.iter().find(|c| c.type_ == "Established" && c.status == "True"));
    let Some(at) = established.and_then(|c| c.last_transition_time.as_ref()) else { return false };
    super::printers::duration::sim_ms(now) - at.0.as_millisecond() < JUST_ESTABLISHED_WAIT_MS as i64
}

/// Whether any served definition serves `group`/`version` (an unknown group-version is no route at all).
pub fn serves_group_version(cache: &WatchCache, group: &str, version: &str) -> bool {
    served_definitions(cache).iter().any(|o| match o.as_ref() {
        Object::CustomResourceDefinition(d) => {
            d.spec.group == group && d.spec.versions.iter().any(|v| v.name == version && v.served)
        }
        _ => false,
    })
}

/// The custom resources the definitions in a watch cache serve, as the HTTP router asks for them.
pub struct Definitions<'a>(pub &'a WatchCache);

impl super::rest::CustomResources for Definitions<'_> {
    fn serves(&self, group: &str, version: &str) -> bool {
        serves_group_version(self.0, group, version)
    }

    fn resource(&self, group: &str, version: &str, resource: &str) -> Option<&'static ResourceInfo> {
        resolve(self.0, group, version, resource).map(|s| s.row)
    }
}

/// A custom resource request body made into the object to store: `apiVersion` and `kind` checked against
/// the endpoint, unknown fields pruned (refused under Strict, a warning each under Warn), defaults filled in.
/// The warnings come back with the object.
///
/// `patched`: the body is the current object with a patch applied, whose unknown fields Strict refuses as
/// the patcher does (a 422 naming the patched object).
pub fn decode(
    served: &Served,
    raw: &Value,
    mode: FieldValidation,
    patched: bool,
) -> Result<(Object, Vec<String>), Status> {
    let mut value = raw.clone();
    let row = served.row;
    let api_version = raw.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = raw.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version != row.api_version() || kind != row.kind.name() {
        return Err(Status::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            row.api_version()
        )));
    }
    let mut warnings = Vec::new();
    if let Some(schema) = served.schema() {
        let dropped = schema::prune(&mut value, &schema);
        match mode {
            FieldValidation::Strict if !dropped.is_empty() => {
                let list: Vec<String> = dropped.iter().map(|f| format!("unknown field {f:?}")).collect();
                if patched {
                    let detail = format!("strict decoding error: {}", list.join(", "));
                    let cause = Cause::invalid("patch", &format!("{:?}", raw.to_string()), &detail);
                    return Err(Status::invalid("", "", "", vec![cause]));
                }
                return Err(Status::bad_request(format!(
                    "{kind} in version {:?} cannot be handled as a {kind}: strict decoding error: {}",
                    row.version,
                    list.join(", ")
                )));
            }
            FieldValidation::Warn => warnings.extend(dropped.iter().map(|f| format!("unknown field {f:?}"))),
            _ => {}
        }
        schema::default(&mut value, &schema);
    }
    let Kind::Custom(def) = row.kind else { return Err(Status::internal("not a custom resource")) };
    let object = CustomObject::from_value(def, value).map_err(|e| {
        Status::bad_request(format!("{kind} in version {:?} cannot be handled as a {kind}: {e}", row.version))
    })?;
    Ok((Object::Custom(Box::new(object)), warnings))
}

/// What the schema finds wrong with an object about to be stored (`old`: the object an update replaces).
pub fn validate(served: &Served, object: &Object, old: Option<&Object>) -> Vec<Cause> {
    match served.schema() {
        Some(schema) => schema::validate(&object.to_json(), old.map(Object::to_json).as_ref(), &schema),
        None => Vec::new(),
    }
}

/// The version's scale subresource: where the desired and observed replicas and the selector live.
fn scale_paths(served: &Served) -> Option<(String, String, Option<String>)> {
    let scale = served.version()?.subresources.as_ref()?.scale.as_ref()?;
    Some((scale.spec_replicas_path.clone(), scale.status_replicas_path.clone(), scale.label_selector_path.clone()))
}

/// The value at a `.a.b.c` path.
fn at_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.trim_start_matches('.').split('.').try_fold(value, |v, key| v.get(key))
}

/// The `autoscaling/v1` Scale of a custom object whose version has the scale subresource: its metadata,
/// the replicas at `specReplicasPath` and `statusReplicasPath` (0 where absent), and the selector string
/// at `labelSelectorPath`.
pub fn scale_of(served: &Served, object: &Object) -> Option<Object> {
    let (spec, status, selector) = scale_paths(served)?;
    let v = object.to_json();
    let m = object.meta();
    let replicas = |path: Option<&str>| path.and_then(|p| at_path(&v, p)).and_then(Value::as_i64).unwrap_or(0);
    let mut status_json = serde_json::json!({ "replicas": replicas(Some(&status)) });
    if let Some(selector) = selector.as_deref().and_then(|p| at_path(&v, p)).and_then(Value::as_str) {
        status_json["selector"] = selector.into();
    }
    let scale = serde_json::json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": m.name, "namespace": m.namespace, "uid": m.uid, "resourceVersion": m.resource_version,
                     "creationTimestamp": m.creation_timestamp},
        "spec": {"replicas": replicas(Some(&spec))},
        "status": status_json,
    });
    Object::from_json_as(Kind::Scale, scale).ok()
}

/// A patch of a custom object's `scale`: the patched Scale's `spec.replicas` written at `specReplicasPath`.
pub fn apply_scale(served: &Served, current: &Object, patch: &crate::api::PatchBody) -> Result<Object, Status> {
    let (spec, _, _) = scale_paths(served).ok_or_else(Status::no_such_resource)?;
    let scale = scale_of(served, current).ok_or_else(Status::no_such_resource)?;
    let patched = super::registry::patched_document(&scale, patch)?;
    let replicas = match patched.pointer("/spec/replicas") {
        Some(v) => v.as_i64().ok_or_else(|| Status::bad_request("spec.replicas must be an integer"))?,
        None => return Ok(current.clone()),
    };
    if replicas < 0 {
        let cause =
            Cause::new("spec.replicas", format!("Invalid value: {replicas}: must be greater than or equal to 0"));
        return Err(Status::invalid("Scale.autoscaling", "Scale", current.name(), vec![cause]));
    }
    let mut value = current.to_json();
    let mut target = &mut value;
    let keys: Vec<&str> = spec.trim_start_matches('.').split('.').collect();
    for key in &keys[..keys.len().saturating_sub(1)] {
        if !target[*key].is_object() {
            target[*key] = serde_json::json!({});
        }
        target = &mut target[*key];
    }
    if let Some(last) = keys.last() {
        target[*last] = replicas.into();
    }
    Object::from_json_as(current.kind(), value).map_err(|e| Status::bad_request(e.to_string()))
}

/// The custom resource strategy's PrepareForCreate: a new object starts at generation 1, and without the
/// status it may only get through `/status` when the version has that subresource.
pub fn prepare_create(served: &Served, object: &mut Object) {
    object.meta_mut().generation = Some(1);
    if let Object::Custom(o) = object {
        o.api_version = format!("{}/{}", served.row.group, served.storage_version());
        if served.has_status() {
            o.content.remove("status");
        }
    }
}

/// The custom resource strategies' PrepareForUpdate: `/status` changes only the status; the main resource
/// keeps the stored status when the version has the subresource; the generation moves with any change but
/// to metadata (and to status, when that is a subresource).
pub fn prepare_update(served: &Served, current: &Object, new: Object, subresource: Option<&str>) -> Object {
    let (Object::Custom(cur), Object::Custom(mut next)) = (current, new.clone()) else { return new };
    if subresource == Some("status") {
        let mut merged = cur.as_ref().clone();
        match next.content.remove("status") {
            Some(s) => merged.content.insert("status".into(), s),
            None => merged.content.remove("status"),
        };
        return Object::Custom(Box::new(merged));
    }
    let meta = &mut next.metadata;
    meta.uid = cur.metadata.uid.clone();
    meta.creation_timestamp = cur.metadata.creation_timestamp.clone();
    meta.deletion_timestamp = cur.metadata.deletion_timestamp.clone();
    meta.deletion_grace_period_seconds = cur.metadata.deletion_grace_period_seconds;
    meta.namespace = cur.metadata.namespace.clone();
    meta.generation = cur.metadata.generation;
    if meta.resource_version.as_deref().is_none_or(str::is_empty) {
        meta.resource_version = cur.metadata.resource_version.clone();
    }
    next.api_version = format!("{}/{}", served.row.group, served.storage_version());
    if served.has_status() {
        match cur.content.get("status") {
            Some(s) => next.content.insert("status".into(), s.clone()),
            None => next.content.remove("status"),
        };
    }
    let spec_of = |content: &serde_json::Map<String, Value>| {
        let mut c = content.clone();
        if served.has_status() {
            c.remove("status");
        }
        c
    };
    if spec_of(&cur.content) != spec_of(&next.content) {
        next.metadata.generation = Some(cur.metadata.generation.unwrap_or(1) + 1);
    }
    Object::Custom(next)
}

/// The definition strategy's defaults and PrepareForCreate: `singular` and `listKind` from the kind, the
/// `None` conversion, and a status of its own (the storage version stored, nothing accepted yet).
pub fn prepare_definition(crd: &mut CustomResourceDefinition) {
    default_definition(crd);
    let stored = storage_version(crd).map(|v| vec![v.to_string()]).unwrap_or_default();
    crd.status = Some(CustomResourceDefinitionStatus {
        accepted_names: Some(CustomResourceDefinitionNames::default()),
        conditions: None,
        stored_versions: Some(stored),
    });
}

/// `SetDefaults_CustomResourceDefinitionSpec`.
fn default_definition(crd: &mut CustomResourceDefinition) {
    let names = &mut crd.spec.names;
    if names.singular.as_deref().is_none_or(str::is_empty) {
        names.singular = Some(names.kind.to_ascii_lowercase());
    }
    if names.list_kind.as_deref().is_none_or(str::is_empty) {
        names.list_kind = Some(format!("{}List", names.kind));
    }
    crd.spec
        .conversion
        .get_or_insert_with(|| serde_json::from_value(serde_json::json!({"strategy": "None"})).unwrap_or_default());
}

/// A definition's `/status` write: the status, and the metadata too (the status strategy resets the
/// metadata from the new object itself, so the finalizer removes its finalizer there); the spec stays.
pub fn prepare_definition_status(current: &Object, new: Object) -> Object {
    let (Object::CustomResourceDefinition(cur), Object::CustomResourceDefinition(next)) = (current, &new) else {
        return new;
    };
    let mut merged = cur.clone();
    merged.status = next.status.clone();
    merged.metadata.finalizers = next.metadata.finalizers.clone();
    merged.metadata.labels = next.metadata.labels.clone();
    merged.metadata.annotations = next.metadata.annotations.clone();
    Object::CustomResourceDefinition(merged)
}

/// The definition strategy's PrepareForUpdate beyond the generic one: the spec's defaults again, and a new
/// storage version joins `status.storedVersions`.
pub fn prepare_definition_update(crd: &mut CustomResourceDefinition) {
    default_definition(crd);
    let Some(storage) = storage_version(crd).map(str::to_string) else { return };
    let status = crd.status.get_or_insert_with(Default::default);
    let stored = status.stored_versions.get_or_insert_with(Vec::new);
    if !stored.contains(&storage) {
        stored.push(storage);
    }
}

/// The definition's own validation (a part of `ValidateCustomResourceDefinition`): the name is
/// `<plural>.<group>`, the scope is known, and exactly one served version stores.
pub fn validate_definition(crd: &CustomResourceDefinition) -> Vec<Cause> {
    let mut causes = Vec::new();
    let spec = &crd.spec;
    let name = crd.metadata.name.clone().unwrap_or_default();
    if name != format!("{}.{}", spec.names.plural, spec.group) {
        causes.push(Cause::invalid(
            "metadata.name",
            &format!("{name:?}"),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if spec.group.is_empty() {
        causes.push(Cause::required("spec.group"));
    } else if !spec.group.contains('.') {
        causes.push(Cause::invalid(
            "spec.group",
            &format!("{:?}", spec.group),
            "should be a domain with at least one dot",
        ));
    }
    if !matches!(spec.scope.as_str(), "Namespaced" | "Cluster") {
        causes.push(Cause::new(
            "spec.scope",
            format!("Unsupported value: {:?}: supported values: \"Cluster\", \"Namespaced\"", spec.scope),
        ));
    }
    if spec.names.plural.is_empty() {
        causes.push(Cause::required("spec.names.plural"));
    }
    if spec.names.kind.is_empty() {
        causes.push(Cause::required("spec.names.kind"));
    }
    if spec.versions.is_empty() {
        causes.push(Cause::invalid("spec.versions", "null", "must have exactly one version marked as storage version"));
    } else if spec.versions.iter().filter(|v| v.storage).count() != 1 {
        causes.push(Cause::invalid(
            "spec.versions",
            &go_versions(&spec.versions),
            "must have exactly one version marked as storage version",
        ));
    }
    causes
}

/// How a list of versions prints in a field error: Go's `%#v` of the slice is long; kubeglass names the
/// versions instead.
fn go_versions(versions: &[CustomResourceDefinitionVersion]) -> String {
    let names: Vec<&str> = versions.iter().map(|v| v.name.as_str()).collect();
    format!("{names:?}")
}

/// The definition's condition `type_` set to `status` with `reason` and `message`, as `SetCRDCondition`
/// does: a new condition is appended; an existing one keeps its transition time unless its status changed.
pub fn set_condition(
    crd: &mut CustomResourceDefinition,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: SimTime,
) {
    let conditions = crd.status.get_or_insert_with(Default::default).conditions.get_or_insert_with(Vec::new);
    let time = Some(super::registry::k8s_time(now));
    match conditions.iter_mut().find(|c| c.type_ == type_) {
        Some(c) => {
            if c.status != status {
                c.last_transition_time = time;
            }
            c.status = status.to_string();
            c.reason = Some(reason.to_string());
            c.message = Some(message.to_string());
        }
        None => conditions.push(CustomResourceDefinitionCondition {
            type_: type_.to_string(),
            status: status.to_string(),
            last_transition_time: time,
            reason: Some(reason.to_string()),
            message: Some(message.to_string()),
        }),
    }
}

/// What deleting a definition does first (its REST Delete): the deletion timestamp, the cleanup finalizer,
/// and the `Terminating` condition; the object stays until the finalizer is removed.
pub fn mark_deleted(crd: &CustomResourceDefinition, now: SimTime) -> CustomResourceDefinition {
    let mut marked = crd.clone();
    marked.metadata.deletion_timestamp = Some(super::registry::k8s_time(now));
    let finalizers = marked.metadata.finalizers.get_or_insert_with(Vec::new);
    if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
        finalizers.push(CLEANUP_FINALIZER.to_string());
    }
    set_condition(
        &mut marked,
        "Terminating",
        "True",
        "InstanceDeletionPending",
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        now,
    );
    marked
}
