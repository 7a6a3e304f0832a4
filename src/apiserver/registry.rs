//! Storage strategies: how create, update, patch, delete and the binding subresource turn into one etcd
//! transaction given the object's current state (what `registry/generic/registry/store.go` and the
//! per-kind strategies do): name generation, uid, timestamps, generation, status subresources, graceful
//! deletion with finalizers, ClusterIP and NodePort allocation, optimistic concurrency.

use std::sync::Arc;

use serde_json::Value;

use crate::api::api::core::v1::{Pod, PodCondition, PodStatus};
use crate::api::{FieldValidation, Kind, Object, PatchBody, Status};
use crate::etcd::{Compare, CompareTarget, KeyValue, Op, Txn};
use crate::sim::{Rng, SimTime};

/// The 27 characters the apiserver's name generator draws from (no vowels, no confusable digits).
pub const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `generateName` + 5 random characters, the base cut to 58 characters (SimpleNameGenerator).
pub fn generate_name(base: &str, rng: &mut Rng) -> String {
    let base: String = base.chars().take(58).collect();
    format!("{base}{}", rng.string_from(NAME_ALPHABET, 5))
}

/// A random version-4 UUID from the seeded stream.
pub fn uid(rng: &mut Rng) -> String {
    let a = rng.next_u64();
    let b = rng.next_u64();
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-4{}-{}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        ["8", "9", "a", "b"][(b >> 62) as usize],
        &hex[17..20],
        &hex[20..32]
    )
}

/// Kinds whose objects carry `metadata.generation`, bumped when their spec changes.
pub fn has_generation(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Pod
            | Kind::Deployment
            | Kind::ReplicaSet
            | Kind::ReplicationController
            | Kind::DaemonSet
            | Kind::StatefulSet
            | Kind::Job
            | Kind::CronJob
            | Kind::HorizontalPodAutoscaler
            | Kind::PodDisruptionBudget
            | Kind::NetworkPolicy
            | Kind::Ingress
            | Kind::CustomResourceDefinition
    )
}

/// Kinds with a `status` subresource: the main resource ignores status changes and `/status` ignores the rest.
pub fn has_status_subresource(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Pod
            | Kind::Node
            | Kind::Namespace
            | Kind::Service
            | Kind::Deployment
            | Kind::ReplicaSet
            | Kind::ReplicationController
            | Kind::DaemonSet
            | Kind::StatefulSet
            | Kind::Job
            | Kind::CronJob
            | Kind::ResourceQuota
            | Kind::PersistentVolume
            | Kind::PersistentVolumeClaim
            | Kind::HorizontalPodAutoscaler
            | Kind::PodDisruptionBudget
            | Kind::Ingress
            | Kind::ValidatingAdmissionPolicy
            | Kind::CertificateSigningRequest
            | Kind::APIService
            | Kind::CustomResourceDefinition
            | Kind::FlowSchema
            | Kind::PriorityLevelConfiguration
            | Kind::ServiceCIDR
            | Kind::VolumeAttachment
            | Kind::ResourceClaim
    )
}

/// The object as stored: resourceVersion cleared (etcd's mod revision stands for it).
pub fn for_storage(mut obj: Object) -> Arc<Object> {
    obj.meta_mut().resource_version = None;
    Arc::new(obj)
}

/// An object read from etcd, with its resourceVersion filled in from the key's mod revision: etcd's own
/// value when it already carries it (every put does), a copy otherwise (a deletion's revision).
pub fn from_storage(kv: &KeyValue) -> Arc<Object> {
    if kv.value.resource_version() == kv.mod_revision {
        return Arc::clone(&kv.value);
    }
    let mut o = kv.value.as_ref().clone();
    o.meta_mut().resource_version = Some(kv.mod_revision.to_string());
    Arc::new(o)
}

/// A create: only if the key does not exist (create revision 0); otherwise read it back for AlreadyExists.
/// `value` carries no resourceVersion (etcd never stores one).
pub fn create_txn(key: &str, value: Arc<Object>) -> Txn {
    Txn {
        compare: vec![Compare { key: key.to_string(), target: CompareTarget::CreateRevision, value: 0 }],
        success: vec![Op::Put { key: key.to_string(), value }],
        failure: vec![Op::Range { key: key.to_string(), prefix: false, revision: 0 }],
    }
}

/// A write guarded by the mod revision it was computed from; on failure the current value comes back.
pub fn guarded_txn(key: &str, mod_revision: u64, op: Op) -> Txn {
    Txn {
        compare: vec![Compare { key: key.to_string(), target: CompareTarget::ModRevision, value: mod_revision }],
        success: vec![op],
        failure: vec![Op::Range { key: key.to_string(), prefix: false, revision: 0 }],
    }
}

/// Fills in what the server owns on create.
pub fn prepare_create(obj: &mut Object, now: SimTime, rng: &mut Rng) {
    let kind = obj.kind();
    let meta = obj.meta_mut();
    meta.uid = Some(uid(rng));
    meta.creation_timestamp = Some(k8s_time(now));
    meta.resource_version = None;
    meta.deletion_timestamp = None;
    meta.generation = has_generation(kind).then_some(1);
    if let Object::Pod(pod) = obj {
        let qos = qos_class(pod);
        pod.status =
            Some(PodStatus { phase: Some("Pending".into()), qos_class: Some(qos.into()), ..Default::default() });
    }
    if let Object::Namespace(ns) = obj {
        let status = ns.status.get_or_insert_with(Default::default);
        status.phase = Some("Active".to_string());
        let spec = ns.spec.get_or_insert_with(Default::default);
        spec.finalizers.get_or_insert_with(|| vec!["kubernetes".to_string()]);
    }
}

/// The pod's QoS class: Guaranteed when every container's cpu and memory requests equal their limits,
/// BestEffort when no container asks for anything, Burstable otherwise.
pub fn qos_class(pod: &Pod) -> &'static str {
    let Some(spec) = pod.spec.as_ref() else { return "BestEffort" };
    let containers: Vec<_> = spec.containers.iter().chain(spec.init_containers.iter().flatten()).collect();
    let mut any = false;
    let mut guaranteed = true;
    for c in containers {
        let requests = c.resources.as_ref().and_then(|r| r.requests.clone()).unwrap_or_default();
        let limits = c.resources.as_ref().and_then(|r| r.limits.clone()).unwrap_or_default();
        any |= !requests.is_empty() || !limits.is_empty();
        for res in ["cpu", "memory"] {
            let limit = limits.get(res);
            let request = requests.get(res).or(limit);
            if limit.is_none() || request != limit {
                guaranteed = false;
            }
        }
    }
    match (any, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

pub fn k8s_time(t: SimTime) -> k8s_openapi::apimachinery::pkg::apis::meta::v1::Time {
    serde_json::from_value(Value::String(t.rfc3339())).unwrap_or_else(|_| unreachable_time())
}

fn unreachable_time() -> k8s_openapi::apimachinery::pkg::apis::meta::v1::Time {
    serde_json::from_value(Value::String("2025-09-01T00:00:00Z".into())).expect("a fixed valid timestamp parses")
}

fn json_without(obj: &Object, field: &str) -> Value {
    let mut v = obj.to_json();
    if let Value::Object(m) = &mut v {
        m.remove(field);
        m.remove("metadata");
    }
    v
}

/// An update of the main resource or of `/status`, merged onto `current` the way the strategies do.
pub fn prepare_update(current: &Object, mut new: Object, subresource: Option<&str>) -> Result<Object, Status> {
    let kind = current.kind();
    if let (Some("finalize"), Object::Namespace(cur), Object::Namespace(next)) = (subresource, current, &new) {
        // namespaces/finalize changes spec.finalizers and nothing else.
        let mut ns = cur.clone();
        ns.spec.get_or_insert_with(Default::default).finalizers = next.spec.as_ref().and_then(|s| s.finalizers.clone());
        return Ok(Object::Namespace(ns));
    }
    if let (Some("ephemeralcontainers"), Object::Pod(cur), Object::Pod(next)) = (subresource, current, &new) {
        // pods/ephemeralcontainers changes spec.ephemeralContainers and nothing else.
        let mut pod = cur.clone();
        let ephemeral = next.spec.as_ref().and_then(|s| s.ephemeral_containers.clone());
        pod.spec.get_or_insert_with(Default::default).ephemeral_containers = ephemeral;
        return Ok(Object::Pod(pod));
    }
    if subresource == Some("status") {
        let mut merged = current.clone();
        if status::copy(&new, &mut merged, true) {
            return Ok(merged);
        }
        let mut merged = current.to_json();
        if let Some(status) = new.to_json().get("status") {
            merged["status"] = status.clone();
        }
        return Object::from_json_as(kind, merged).map_err(|e| Status::bad_request(e.to_string()));
    }
    {
        let (cm, nm) = (current.meta(), new.meta_mut());
        nm.uid = cm.uid.clone();
        nm.creation_timestamp = cm.creation_timestamp.clone();
        nm.deletion_timestamp = cm.deletion_timestamp.clone();
        nm.deletion_grace_period_seconds = cm.deletion_grace_period_seconds;
        nm.generation = cm.generation;
        nm.namespace = cm.namespace.clone();
        if nm.resource_version.as_deref().is_none_or(str::is_empty) {
            // An unconditional update: it applies to whatever is stored now.
            nm.resource_version = cm.resource_version.clone();
        }
    }
    if has_status_subresource(kind) && !status::copy(current, &mut new, false) {
        let mut merged = new.to_json();
        match current.to_json().get("status") {
            Some(s) => merged["status"] = s.clone(),
            None => {
                if let Value::Object(m) = &mut merged {
                    m.remove("status");
                }
            }
        }
        new = Object::from_json_as(kind, merged).map_err(|e| Status::bad_request(e.to_string()))?;
    }
    if has_generation(kind)
        && !status::same_spec(current, &new)
            .unwrap_or_else(|| json_without(current, "status") == json_without(&new, "status"))
    {
        new.meta_mut().generation = Some(current.meta().generation.unwrap_or(1) + 1);
    }
    Ok(new)
}

/// Typed status handling for the kinds whose objects change most often, so an update does not round-trip
/// them through JSON; other kinds take the JSON path (same result, slower).
mod status {
    use crate::api::Object;

    macro_rules! with_status_kinds {
        ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr, $otherwise:expr) => {
            match ($a, $b) {
                (Object::Pod($x), Object::Pod($y)) => $body,
                (Object::Node($x), Object::Node($y)) => $body,
                (Object::Namespace($x), Object::Namespace($y)) => $body,
                (Object::Service($x), Object::Service($y)) => $body,
                (Object::Deployment($x), Object::Deployment($y)) => $body,
                (Object::ReplicaSet($x), Object::ReplicaSet($y)) => $body,
                (Object::DaemonSet($x), Object::DaemonSet($y)) => $body,
                (Object::StatefulSet($x), Object::StatefulSet($y)) => $body,
                (Object::Job($x), Object::Job($y)) => $body,
                (Object::CronJob($x), Object::CronJob($y)) => $body,
                _ => $otherwise,
            }
        };
    }

    /// Copies `from`'s status into `into` (when `only_if_set`, a missing status keeps `into`'s); false when
    /// the kinds differ or the kind is not handled here.
    pub fn copy(from: &Object, into: &mut Object, only_if_set: bool) -> bool {
        with_status_kinds!(
            from,
            into,
            |f, i| {
                if !only_if_set || f.status.is_some() {
                    i.status = f.status.clone();
                }
                true
            },
            false
        )
    }

    /// Whether `a` and `b` are equal apart from metadata and status (`None` for kinds not handled here).
    pub fn same_spec(a: &Object, b: &Object) -> Option<bool> {
        with_status_kinds!(a, b, |x, y| Some(x.spec == y.spec), None)
    }
}

/// Applies a merge, strategic merge or JSON patch to the current object's JSON.
pub fn apply_patch(current: &Object, patch: &PatchBody) -> Result<Object, Status> {
    apply_patch_validated(current, patch, FieldValidation::Strict).map(|(object, _)| object)
}

/// [`apply_patch`] under a `fieldValidation` directive: the patched object and Warn's warnings.
pub fn apply_patch_validated(
    current: &Object,
    patch: &PatchBody,
    mode: FieldValidation,
) -> Result<(Object, Vec<String>), Status> {
    let doc = patched_document(current, patch)?;
    crate::api::manifest::decode_validated(&doc, mode)
}

/// The current object as JSON with `patch` applied, not yet decoded.
pub fn patched_document(current: &Object, patch: &PatchBody) -> Result<Value, Status> {
    let mut doc = current.to_json();
    match patch {
        PatchBody::Merge(p) if !p.is_object() => return Err(Status::bad_request("Invalid JSON Patch")),
        PatchBody::Strategic(p) if !p.is_object() => {
            let kind = match p {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "bool",
                _ => "null",
            };
            return Err(Status::bad_request(format!(
                "json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
            )));
        }
        PatchBody::Merge(p) => merge_patch(&mut doc, p, false),
        PatchBody::Strategic(p) => {
            let root = super::strategic::root_type(&current.info().api_version(), current.kind().name());
            super::strategic::apply(&mut doc, p, root);
        }
        PatchBody::Json(p) => {
            super::json_patch::decode(p).map_err(Status::bad_request)?;
            super::json_patch::apply(&mut doc, p).map_err(|_| Status::unprocessable())?;
        }
    }
    Ok(doc)
}

/// A patch of the `scale` subresource (Deployments, ReplicaSets, StatefulSets): only `spec.replicas` of the
/// patched Scale reaches the object; other kinds have no such subresource (404).
/// The `autoscaling/v1` Scale the scale subresource answers with for a Deployment, ReplicaSet,
/// StatefulSet or ReplicationController: the object's metadata (name, namespace, uid, resourceVersion, creationTimestamp), the
/// desired replicas, and the observed replicas with the label selector as a string. None for other kinds.
pub fn scale_of(obj: &Object) -> Option<Object> {
    if !matches!(obj.kind(), Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet | Kind::ReplicationController) {
        return None;
    }
    let v = obj.to_json();
    let m = obj.meta();
    // A ReplicationController's selector is a plain label map.
    let selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector> = match obj {
        Object::ReplicationController(rc) => Some(crate::api::replication::selector(rc)),
        _ => serde_json::from_value(v["spec"]["selector"].clone()).ok(),
    };
    let selector = selector.and_then(|s| crate::apiserver::printers::util::selector_string(Some(&s)).ok());
    let meta = serde_json::json!({
        "name": m.name,
        "namespace": m.namespace,
        "uid": m.uid,
        "resourceVersion": m.resource_version,
        "creationTimestamp": m.creation_timestamp,
    });
    let scale = serde_json::json!({
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": meta,
        "spec": {"replicas": v["spec"]["replicas"].as_i64().unwrap_or(1)},
        "status": {"replicas": v["status"]["replicas"].as_i64().unwrap_or(0), "selector": selector},
    });
    Object::from_json_as(Kind::Scale, scale).ok()
}

pub fn apply_scale(current: &Object, patch: &PatchBody) -> Result<Object, Status> {
    if !matches!(current.kind(), Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet | Kind::ReplicationController)
    {
        return Err(Status::no_such_resource());
    }
    let scale;
    let p = match patch {
        PatchBody::Merge(p) | PatchBody::Strategic(p) => p,
        PatchBody::Json(ops) => {
            // A JSON patch works on the Scale object itself.
            let mut doc = serde_json::json!({"spec": {"replicas": current.to_json()["spec"]["replicas"].clone()}});
            super::json_patch::decode(ops).map_err(Status::bad_request)?;
            super::json_patch::apply(&mut doc, ops).map_err(|_| Status::unprocessable())?;
            scale = doc;
            &scale
        }
    };
    let replicas = match p.pointer("/spec/replicas") {
        None => return apply_patch(current, &PatchBody::Merge(Value::Object(Default::default()))),
        Some(v) => v.as_i64().ok_or_else(|| Status::bad_request("spec.replicas must be an integer"))?,
    };
    if replicas < 0 {
        let name = current.name().to_string();
        return Err(Status::invalid(
            "Scale.autoscaling",
            "Scale",
            &name,
            vec![crate::api::Cause::new(
                "spec.replicas",
                format!("Invalid value: {replicas}: must be greater than or equal to 0"),
            )],
        ));
    }
    apply_patch(current, &PatchBody::Merge(serde_json::json!({"spec": {"replicas": replicas}})))
}

/// RFC 7386, and with `strategic` lists of objects that carry a `name` merge element by element by name.
pub fn merge_patch(target: &mut Value, patch: &Value, strategic: bool) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                // `$deleteFromPrimitiveList/<field>: [values]` removes those values from a list of scalars
                // (how controllers drop one finalizer without racing other writers).
                if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/").filter(|_| strategic) {
                    if let (Some(Value::Array(list)), Value::Array(gone)) = (t.get_mut(field), v) {
                        list.retain(|x| !gone.contains(x));
                        if list.is_empty() {
                            t.remove(field);
                        }
                    }
                    continue;
                }
                if strategic && k.starts_with("$setElementOrder/") {
                    continue;
                }
                if v.is_null() {
                    t.remove(k);
                } else {
                    let slot = t.entry(k.clone()).or_insert(Value::Null);
                    merge_patch(slot, v, strategic);
                }
            }
        }
        (Value::Array(t), Value::Array(p)) if strategic && merge_key(p).is_some() && merge_key(p) == merge_key(t) => {
            let key = merge_key(p).unwrap_or("name");
            for item in p {
                let name = item.get(key).cloned();
                match t.iter_mut().find(|x| x.get(key) == name.as_ref()) {
                    Some(existing) => merge_patch(existing, item, true),
                    None => t.push(item.clone()),
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

/// The strategic-merge key of a list of objects: `name` (containers, ports, volumes) or `type` (conditions).
fn merge_key(items: &[Value]) -> Option<&'static str> {
    ["name", "type"]
        .into_iter()
        .find(|k| !items.is_empty() && items.iter().all(|i| i.get(*k).is_some_and(Value::is_string)))
}

/// What a delete does to an object: remove it now, or mark it (graceful deletion, finalizers).
pub enum DeletePlan {
    Remove,
    Mark(Box<Object>),
}

/// Real deletion waits for finalizers and, for pods on a node, for the kubelet to finish the grace period.
pub fn plan_delete(current: &Object, now: SimTime, grace: Option<i64>, propagation: Option<&str>) -> DeletePlan {
    let mut marked = current.clone();
    let mut finalizers = marked.meta().finalizers.clone().unwrap_or_default();
    // A ReplicationController left to its default orphans its pods (`rcStrategy.DefaultGarbageCollectionPolicy`
    // keeps v1's old behaviour); kubectl asks for Background.
    let propagation = match (propagation, current.kind()) {
        (None, Kind::ReplicationController) => Some("Orphan"),
        (p, _) => p,
    };
    match propagation {
        Some("Foreground") if !finalizers.iter().any(|f| f == "foregroundDeletion") => {
            finalizers.push("foregroundDeletion".into())
        }
        Some("Orphan") if !finalizers.iter().any(|f| f == "orphan") => finalizers.push("orphan".into()),
        _ => {}
    }
    let already = marked.meta().deletion_timestamp.is_some();
    if let Object::Namespace(ns) = &mut marked {
        // A namespace with spec.finalizers waits, Terminating, for the namespace controller to empty it.
        if ns.spec.as_ref().and_then(|s| s.finalizers.as_ref()).is_some_and(|f| !f.is_empty()) {
            if ns.metadata.deletion_timestamp.is_none() {
                ns.metadata.deletion_timestamp = Some(k8s_time(now));
                ns.metadata.deletion_grace_period_seconds = Some(0);
            }
            ns.status.get_or_insert_with(Default::default).phase = Some("Terminating".into());
            if !finalizers.is_empty() {
                ns.metadata.finalizers = Some(finalizers);
            }
            return DeletePlan::Mark(Box::new(marked));
        }
    }
    let meta = marked.meta_mut();
    let pod_grace = match current {
        Object::Pod(p) => {
            let bound = p.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_some_and(|n| !n.is_empty());
            let finished = matches!(p.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"));
            let default = p.spec.as_ref().and_then(|s| s.termination_grace_period_seconds).unwrap_or(30);
            let g = grace.unwrap_or(default).max(0);
            (bound && !finished && g > 0).then_some(g)
        }
        _ => None,
    };
    if finalizers.is_empty() && pod_grace.is_none() {
        return DeletePlan::Remove;
    }
    if already && pod_grace.is_none() && meta.finalizers.as_ref().map(Vec::len) == Some(finalizers.len()) {
        // A delete with no grace left ends a graceful deletion in progress; the finalizers still hold the
        // object, and it goes as soon as they are removed.
        if meta.deletion_grace_period_seconds.is_some_and(|g| g > 0) {
            meta.deletion_grace_period_seconds = Some(0);
            meta.deletion_timestamp = Some(k8s_time(now));
        }
        return DeletePlan::Mark(Box::new(marked));
    }
    if !already {
        let g = pod_grace.unwrap_or(0);
        meta.deletion_timestamp = Some(k8s_time(now.plus_ms(g as u64 * 1000)));
        meta.deletion_grace_period_seconds = Some(g);
    }
    meta.finalizers = (!finalizers.is_empty()).then_some(finalizers);
    if has_generation(current.kind()) {
        meta.generation = Some(meta.generation.unwrap_or(1) + 1);
    }
    DeletePlan::Mark(Box::new(marked))
}

/// A namespace is only removed once its spec.finalizers (`kubernetes`) are gone too.
pub fn spec_finalizers_done(obj: &Object) -> bool {
    match obj {
        Object::Namespace(ns) => ns.spec.as_ref().and_then(|s| s.finalizers.as_ref()).is_none_or(Vec::is_empty),
        _ => true,
    }
}

/// The binding subresource: set `spec.nodeName` and the PodScheduled condition, once.
pub fn bind(current: &Object, node: &str) -> Result<Object, Status> {
    let Object::Pod(pod) = current else {
        return Err(Status::bad_request("binding is only for pods"));
    };
    let name = pod.metadata.name.clone().unwrap_or_default();
    if let Some(existing) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).filter(|n| !n.is_empty()) {
        return Err(Status::conflict(
            "pods/binding",
            &name,
            &format!("pod {name} is already assigned to node {existing:?}"),
        ));
    }
    if pod.metadata.deletion_timestamp.is_some() {
        return Err(Status::conflict(
            "pods/binding",
            &name,
            &format!("pod {name} is being deleted, cannot be assigned to a host"),
        ));
    }
    let mut pod = pod.clone();
    pod.spec.get_or_insert_with(Default::default).node_name = Some(node.to_string());
    let status = pod.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "PodScheduled");
    conditions.push(PodCondition { type_: "PodScheduled".into(), status: "True".into(), ..Default::default() });
    Ok(Object::Pod(pod))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_use_the_apiservers_alphabet() {
        let mut rng = Rng::new(1);
        let n = generate_name("web-7c5ddbdf54-", &mut rng);
        assert!(n.starts_with("web-7c5ddbdf54-"));
        let suffix = &n["web-7c5ddbdf54-".len()..];
        assert_eq!(suffix.len(), 5);
        assert!(suffix.bytes().all(|b| NAME_ALPHABET.contains(&b)));
        let long = generate_name(&"x".repeat(80), &mut rng);
        assert_eq!(long.len(), 63);
    }

    fn deployment(replicas: i32, ready: i32) -> Object {
        let yaml = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default, generation: 3, uid: u1}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: nginx}}]}}\nstatus: {{readyReplicas: {ready}}}\n"
        );
        let value: Value = serde_yaml::from_str(&yaml).unwrap();
        crate::api::manifest::decode_strict(&value).unwrap()
    }

    /// The typed path for frequently updated kinds gives what the JSON path gives for every other kind.
    #[test]
    fn status_and_main_updates_each_keep_the_other_half_of_the_stored_object() {
        let current = deployment(2, 1);
        let status = prepare_update(&current, deployment(5, 2), Some("status")).unwrap();
        let Object::Deployment(d) = &status else { panic!("{status:?}") };
        assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(2), "/status ignores the spec");
        assert_eq!(d.status.as_ref().and_then(|s| s.ready_replicas), Some(2));
        assert_eq!(d.metadata.generation, Some(3), "a status update is not a new generation");

        let main = prepare_update(&current, deployment(5, 2), None).unwrap();
        let Object::Deployment(d) = &main else { panic!("{main:?}") };
        assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(5));
        assert_eq!(d.status.as_ref().and_then(|s| s.ready_replicas), Some(1), "the main resource ignores status");
        assert_eq!(d.metadata.generation, Some(4), "a spec change is a new generation");

        let same = prepare_update(&current, deployment(2, 7), None).unwrap();
        assert_eq!(same.meta().generation, Some(3), "no spec change, no new generation");
    }

    #[test]
    fn uids_look_like_version_4_uuids() {
        let u = uid(&mut Rng::new(5));
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!("89ab".contains(&u[19..20]));
    }

    #[test]
    fn strategic_merge_merges_containers_by_name() {
        let mut t =
            serde_json::json!({"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
        merge_patch(&mut t, &serde_json::json!({"spec": {"containers": [{"name": "b", "image": "z"}]}}), true);
        assert_eq!(t["spec"]["containers"][1]["image"], "z");
        assert_eq!(t["spec"]["containers"][0]["image"], "x");
        let mut m = serde_json::json!({"a": {"b": 1, "c": 2}});
        merge_patch(&mut m, &serde_json::json!({"a": {"b": null, "d": 3}}), false);
        assert_eq!(m, serde_json::json!({"a": {"c": 2, "d": 3}}));
    }

    #[test]
    fn strategic_merge_deletes_values_from_a_primitive_list() {
        let mut t = serde_json::json!({"metadata": {"finalizers": ["a", "batch.kubernetes.io/job-tracking"]}});
        let drop = serde_json::json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["batch.kubernetes.io/job-tracking"]}});
        merge_patch(&mut t, &drop, true);
        assert_eq!(t, serde_json::json!({"metadata": {"finalizers": ["a"]}}));
        let last = serde_json::json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}});
        merge_patch(&mut t, &last, true);
        assert_eq!(t, serde_json::json!({"metadata": {}}), "an emptied list is left out");
        merge_patch(&mut t, &last, true);
        assert_eq!(t, serde_json::json!({"metadata": {}}), "deleting what is not there changes nothing");
    }

    #[test]
    fn field_validation_refuses_warns_about_or_drops_an_unknown_field_of_a_patch() {
        let pod = crate::api::manifest::decode_strict(&serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "x"}]},
        }))
        .unwrap();
        let patch = PatchBody::Strategic(serde_json::json!({"spec": {"nodeNme": "n1"}}));
        let err = apply_patch_validated(&pod, &patch, FieldValidation::Strict).unwrap_err();
        assert_eq!(
            err.message,
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.nodeNme\""
        );
        let (_, warned) = apply_patch_validated(&pod, &patch, FieldValidation::Warn).unwrap();
        assert_eq!(warned, vec!["unknown field \"spec.nodeNme\"".to_string()]);
        let (patched, ignored) = apply_patch_validated(&pod, &patch, FieldValidation::Ignore).unwrap();
        assert!(ignored.is_empty());
        assert_eq!(patched.to_json()["spec"], pod.to_json()["spec"]);
    }
}
