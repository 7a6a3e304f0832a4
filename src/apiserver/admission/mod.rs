//! Admission: the built-in mutating plugins (NamespaceLifecycle, ServiceAccount, DefaultTolerationSeconds,
//! Priority) and validating plugins (ResourceQuota) the apiserver runs between authorization and storage,
//! in the real order. Counterpart: `plugin/pkg/admission/*` and the apiserver's admission chain.

use crate::api::api::core::v1::Toleration;
use crate::api::{Kind, Object, Status, Verb};

use super::cache::WatchCache;

/// What admission needs to know about the request.
pub struct AdmissionRequest<'a> {
    pub verb: Verb,
    pub kind: Kind,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// The namespace was just read from etcd (a cache miss is not proof it is missing).
    pub namespace_confirmed: bool,
}

/// Runs the mutating plugins in order; the first refusal ends the chain.
pub fn mutate(req: &AdmissionRequest, obj: &mut Object, cache: &WatchCache) -> Result<(), Status> {
    namespace_lifecycle(req, cache)?;
    if req.verb == Verb::Create && req.subresource.is_none() {
        if let Object::Pod(pod) = obj {
            service_account(pod);
            default_toleration_seconds(pod);
            priority(pod, cache)?;
        }
    }
    Ok(())
}

/// NamespaceLifecycle: no new content in a missing or terminating namespace.
fn namespace_lifecycle(req: &AdmissionRequest, cache: &WatchCache) -> Result<(), Status> {
    if req.verb != Verb::Create || !req.kind.info().namespaced || req.subresource.is_some() {
        return Ok(());
    }
    let Some(ns) = req.namespace else {
        return Ok(());
    };
    match cache.get(Kind::Namespace, None, ns).as_deref() {
        None if req.namespace_confirmed => Ok(()),
        None => Err(Status::not_found("namespaces", ns)),
        Some(Object::Namespace(n))
            if n.metadata.deletion_timestamp.is_some()
                || n.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Terminating") =>
        {
            Err(Status::forbidden(
                &req.kind.info().qualified(),
                req.name,
                &format!("unable to create new content in namespace {ns} because it is being terminated"),
            ))
        }
        _ => Ok(()),
    }
}

/// ServiceAccount: pods run as `default` unless they name another account.
fn service_account(pod: &mut crate::api::api::core::v1::Pod) {
    if let Some(spec) = pod.spec.as_mut() {
        if spec.service_account_name.as_deref().is_none_or(str::is_empty) {
            spec.service_account_name = Some("default".to_string());
        }
    }
}

/// DefaultTolerationSeconds: tolerate not-ready and unreachable nodes for 300 s unless already tolerated.
fn default_toleration_seconds(pod: &mut crate::api::api::core::v1::Pod) {
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let tolerated = tolerations.iter().any(|t| {
            let key_ok = t.key.as_deref() == Some(key)
                || (t.key.as_deref().unwrap_or("").is_empty() && t.operator.as_deref() == Some("Exists"));
            let effect_ok = t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "NoExecute");
            key_ok && effect_ok
        });
        if !tolerated {
            tolerations.push(Toleration {
                key: Some(key.to_string()),
                operator: Some("Exists".to_string()),
                effect: Some("NoExecute".to_string()),
                toleration_seconds: Some(300),
                value: None,
            });
        }
    }
}

/// Priority: resolves `priorityClassName` to `priority` (0 without one); an unknown class is refused.
fn priority(pod: &mut crate::api::api::core::v1::Pod, cache: &WatchCache) -> Result<(), Status> {
    let name = pod.metadata.name.clone().unwrap_or_default();
    let Some(spec) = pod.spec.as_mut() else {
        return Ok(());
    };
    let value = match spec.priority_class_name.as_deref() {
        None | Some("") => 0,
        Some(class) => match cache.get(Kind::PriorityClass, None, class).as_deref() {
            Some(Object::PriorityClass(pc)) => {
                if spec.preemption_policy.is_none() {
                    spec.preemption_policy = pc.preemption_policy.clone();
                }
                pc.value
            }
            _ => {
                return Err(Status::forbidden("pods", &name, &format!("no PriorityClass with name {class} was found")))
            }
        },
    };
    spec.priority = Some(value);
    if spec.preemption_policy.is_none() {
        spec.preemption_policy = Some("PreemptLowerPriority".to_string());
    }
    Ok(())
}
