//! Validation of objects on create and update, kind by kind, with Kubernetes v1.34's field paths and
//! messages (the causes of a 422 `Invalid` status). Call [`validate_create`] / [`validate_update`] after
//! [`crate::apiserver::defaults::apply_defaults`] and after the registry has filled what it fills before
//! validating: the namespace from the request, a generated name, a Job's UID-based selector
//! ([`batch::generate_selector`]), and on update the stored resourceVersion for unconditional updates.
//!
//! Causes come in Kubernetes' order for one object; where Kubernetes iterates a Go map the order here is
//! the sorted key order. [`decode_error`] reports the quantity strings the real apiserver would already
//! refuse while decoding the body (a 400 `BadRequest`, not a 422).

pub mod admissionregistration;
pub mod apps;
pub mod batch;
pub mod core;
pub mod field;
pub mod meta;
pub mod names;
pub mod pod;
/// Quantities are shared with the rest of the engine; this path stays for the validation code.
pub use crate::api::quantity;
pub mod rbac;
pub mod service;

#[cfg(test)]
mod tests;

use serde_json::Value;

use self::field::Path;
use self::names::NameRule;
use crate::api::{Cause, Kind, Object};

pub use self::quantity::{parse_quantity, Quantity, QuantityError, QuantityFormat};

/// The naming rule of each kind's `metadata.name` (`ValidateNameFunc`).
pub fn name_rule(kind: Kind) -> NameRule {
    match kind {
        Kind::Namespace | Kind::StatefulSet => NameRule::Label,
        Kind::Service => NameRule::Dns1035,
        Kind::Role | Kind::ClusterRole | Kind::RoleBinding | Kind::ClusterRoleBinding => NameRule::PathSegment,
        // `v1.` names the core group's APIService; CSRs may be called anything a path allows.
        Kind::APIService | Kind::CertificateSigningRequest => NameRule::PathSegment,
        _ => NameRule::Subdomain,
    }
}

fn generic_meta(obj: &Object) -> Vec<Cause> {
    meta::validate_object_meta(obj.meta(), obj.info().namespaced, name_rule(obj.kind()))
}

/// kube-aggregator's `ValidateAPIService`, its naming part: an APIService is called `version.group`.
fn validate_api_service(a: &k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&a.metadata, false, NameRule::PathSegment);
    let spec = a.spec.clone().unwrap_or_default();
    let required = format!("{}.{}", spec.version.unwrap_or_default(), spec.group.unwrap_or_default());
    let name = a.metadata.name.clone().unwrap_or_default();
    if name != required {
        errs.push(field::invalid(
            &Path::new("metadata").child("name"),
            &field::quote(&name),
            &format!("must be `spec.version+\".\"+spec.group`: {required:?}"),
        ));
    }
    errs
}

fn validate_binding(b: &k8s_openapi::api::core::v1::Binding) -> Vec<Cause> {
    let mut errs = Vec::new();
    let kind = b.target.kind.as_deref().unwrap_or("");
    if !kind.is_empty() && kind != "Node" {
        errs.push(field::not_supported(&Path::new("target").child("kind"), &field::quote(kind), &["Node", "<empty>"]));
    }
    if b.target.name.as_deref().unwrap_or("").is_empty() {
        errs.push(field::required(&Path::new("target").child("name"), ""));
    }
    errs
}

/// The causes that make the apiserver refuse to create `obj` (empty when it is valid).
pub fn validate_create(obj: &Object) -> Vec<Cause> {
    match obj {
        Object::Pod(p) => pod::validate_pod_create(p),
        Object::Service(s) => service::validate_service_create(s),
        Object::Deployment(d) => apps::validate_deployment_create(d),
        Object::ReplicaSet(r) => apps::validate_replica_set_create(r),
        Object::ReplicationController(r) => apps::validate_replication_controller_create(r),
        Object::DaemonSet(d) => apps::validate_daemon_set_create(d),
        Object::StatefulSet(s) => apps::validate_stateful_set_create(s),
        Object::Job(j) => batch::validate_job_create(j),
        Object::CronJob(c) => batch::validate_cron_job_create(c),
        Object::Namespace(n) => core::validate_namespace(n),
        Object::ConfigMap(c) => core::validate_config_map(c),
        Object::Secret(s) => core::validate_secret(s),
        Object::ServiceAccount(s) => core::validate_service_account(s),
        Object::Node(n) => core::validate_node(n),
        Object::PersistentVolumeClaim(p) => core::validate_pvc(p),
        Object::PersistentVolume(p) => core::validate_pv(p),
        Object::Endpoints(e) => core::validate_endpoints(e),
        Object::ResourceQuota(r) => core::validate_resource_quota(r),
        Object::LimitRange(l) => core::validate_limit_range(l),
        Object::Role(r) => rbac::validate_role(r),
        Object::ClusterRole(r) => rbac::validate_cluster_role(r),
        Object::RoleBinding(b) => rbac::validate_role_binding(b),
        Object::ClusterRoleBinding(b) => rbac::validate_cluster_role_binding(b),
        Object::Binding(b) => validate_binding(b),
        Object::APIService(a) => validate_api_service(a),
        Object::CertificateSigningRequest(c) => crate::apiserver::certificates::validate_create(c),
        Object::ValidatingAdmissionPolicy(p) => admissionregistration::validate_policy(p),
        Object::ValidatingAdmissionPolicyBinding(b) => admissionregistration::validate_binding(b),
        other => generic_meta(other),
    }
}

/// The causes that make the apiserver refuse to replace `old` by `new` (same kind, same object).
pub fn validate_update(old: &Object, new: &Object) -> Vec<Cause> {
    match (old, new) {
        (Object::Pod(o), Object::Pod(n)) => pod::validate_pod_update(n, o),
        (Object::Service(o), Object::Service(n)) => service::validate_service_update(n, o),
        (Object::Deployment(o), Object::Deployment(n)) => apps::validate_deployment_update(n, o),
        (Object::ReplicaSet(o), Object::ReplicaSet(n)) => apps::validate_replica_set_update(n, o),
        (Object::ReplicationController(o), Object::ReplicationController(n)) => {
            apps::validate_replication_controller_update(n, o)
        }
        (Object::DaemonSet(o), Object::DaemonSet(n)) => apps::validate_daemon_set_update(n, o),
        (Object::StatefulSet(o), Object::StatefulSet(n)) => apps::validate_stateful_set_update(n, o),
        (Object::Job(o), Object::Job(n)) => batch::validate_job_update(n, o),
        (Object::CronJob(o), Object::CronJob(n)) => batch::validate_cron_job_update(n, o),
        (Object::Namespace(o), Object::Namespace(n)) => core::validate_namespace_update(n, o),
        (Object::ConfigMap(o), Object::ConfigMap(n)) => core::validate_config_map_update(n, o),
        (Object::Secret(o), Object::Secret(n)) => core::validate_secret_update(n, o),
        (Object::ServiceAccount(o), Object::ServiceAccount(n)) => core::validate_service_account_update(n, o),
        (Object::Node(o), Object::Node(n)) => core::validate_node_update(n, o),
        (Object::PersistentVolumeClaim(o), Object::PersistentVolumeClaim(n)) => core::validate_pvc_update(n, o),
        (Object::Role(o), Object::Role(n)) => rbac::validate_role_update(n, o),
        (Object::ClusterRole(o), Object::ClusterRole(n)) => rbac::validate_cluster_role_update(n, o),
        (Object::RoleBinding(o), Object::RoleBinding(n)) => rbac::validate_role_binding_update(n, o),
        (Object::ClusterRoleBinding(o), Object::ClusterRoleBinding(n)) => {
            rbac::validate_cluster_role_binding_update(n, o)
        }
        (o, n) if o.kind() != n.kind() => {
            vec![field::invalid_str(&Path::new("kind"), n.kind().name(), "field is immutable")]
        }
        (o, n) => {
            let mut errs = meta::validate_object_meta_update(n.meta(), o.meta());
            // Rules of the kind's spec, without the create-only metadata checks.
            errs.extend(validate_create(n).into_iter().filter(|c| !c.field.starts_with("metadata.")));
            errs
        }
    }
}

const RESOURCE_LIST_KEYS: &[&str] = &["limits", "requests", "capacity", "allocatable", "hard", "used", "overhead"];
const LIMIT_RANGE_KEYS: &[&str] = &["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"];
const QUANTITY_KEYS: &[&str] = &["sizeLimit", "divisor"];

fn first_bad_quantity(v: &Value, limit_range: bool) -> Option<QuantityError> {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let is_list =
                    RESOURCE_LIST_KEYS.contains(&k.as_str()) || (limit_range && LIMIT_RANGE_KEYS.contains(&k.as_str()));
                if is_list {
                    if let Value::Object(list) = child {
                        for q in list.values() {
                            if let Some(Err(e)) = q.as_str().map(parse_quantity) {
                                return Some(e);
                            }
                        }
                        continue;
                    }
                }
                if QUANTITY_KEYS.contains(&k.as_str()) {
                    if let Some(Err(e)) = child.as_str().map(parse_quantity) {
                        return Some(e);
                    }
                }
                if let Some(e) = first_bad_quantity(child, limit_range) {
                    return Some(e);
                }
            }
            None
        }
        Value::Array(a) => a.iter().find_map(|x| first_bad_quantity(x, limit_range)),
        _ => None,
    }
}

/// The `400 BadRequest` message the real apiserver gives while decoding a body with an unparsable
/// quantity (`Pod in version "v1" cannot be handled as a Pod: quantities must match the regular
/// expression …`), or `None` when every quantity parses.
pub fn decode_error(obj: &Object) -> Option<String> {
    let err = first_bad_quantity(&obj.to_json(), obj.kind() == Kind::LimitRange)?;
    let kind = obj.kind().name();
    Some(format!("{kind} in version {} cannot be handled as a {kind}: {err}", field::quote(obj.info().version)))
}
