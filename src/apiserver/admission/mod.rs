//! Admission: the plugins the apiserver runs between authorization and storage, in kube-apiserver's
//! order (`pkg/kubeapiserver/options/plugins.go`, `AllOrderedPlugins`).
//!
//! Mutating, before the registry names, prepares and validates the object: NamespaceLifecycle,
//! LimitRanger (defaults), ServiceAccount, Priority, DefaultTolerationSeconds.
//!
//! Validating, after validation and before etcd: LimitRanger (min/max), PodSecurity,
//! ValidatingAdmissionPolicy, ResourceQuota. Validating plugins may add warnings, which the apiserver
//! returns with the response (kubectl prints them as `Warning: …` lines), refused or not.
//!
//! ValidatingWebhookConfigurations and MutatingWebhookConfigurations are stored and served like any
//! object, but no webhook is ever called: the simulation has no webhook servers, so the webhook plugins
//! (and their `failurePolicy`) never take part in a request. MutatingAdmissionPolicy (beta, off by default
//! in v1.34) is not served.
//!
//! Each plugin lives in its own file.
//! Counterpart: `plugin/pkg/admission/*`, `staging/src/k8s.io/apiserver/pkg/admission`.

mod default_toleration_seconds;
pub mod limit_ranger;
mod namespace_lifecycle;
pub mod pod_security;
mod priority;
pub mod resource_quota;
mod service_account;
pub mod validating_policy;

use std::sync::Arc;

use crate::api::{Kind, Object, Status, Verb};

use super::authn::UserInfo;
use super::cache::WatchCache;

/// What admission needs to know about the request.
pub struct AdmissionRequest<'a> {
    pub verb: Verb,
    pub kind: Kind,
    pub subresource: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// The object's name (on create, after name generation).
    pub name: &'a str,
    /// The namespace was just read from etcd (a cache miss is not proof it is missing).
    pub namespace_confirmed: bool,
    /// That namespace, as read from etcd, for the plugins that look at its labels.
    pub namespace_object: Option<&'a Object>,
    pub user: &'a UserInfo,
    pub dry_run: bool,
    /// Objects of the same kind and namespace admitted by creates whose etcd write has not finished, so not in
    /// the watch cache yet: the ResourceQuota plugin charges them, where the real one has already written
    /// their usage into the quota's status.
    pub charged: &'a [std::sync::Arc<Object>],
}

impl AdmissionRequest<'_> {
    /// The request's namespace: from the watch cache, or as read from etcd when the cache has not seen it.
    pub fn namespace_object(&self, cache: &WatchCache) -> Option<Arc<Object>> {
        let ns = self.namespace.filter(|n| !n.is_empty())?;
        cache
            .get(Kind::Namespace, None, ns)
            .or_else(|| self.namespace_object.filter(|o| o.name() == ns).map(|o| Arc::new(o.clone())))
    }

    /// The name admission errors use (`Unknown` when there is none, as `extractResourceName` does).
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "Unknown"
        } else {
            self.name
        }
    }

    /// `admission.NewForbidden`: `pods "x" is forbidden: <detail>`.
    pub fn forbidden(&self, detail: &str) -> Status {
        Status::forbidden(&self.kind.info().qualified(), self.display_name(), detail)
    }
}

/// Runs the mutating plugins in order; the first refusal ends the chain.
pub fn mutate(req: &AdmissionRequest, obj: &mut Object, cache: &WatchCache) -> Result<(), Status> {
    namespace_lifecycle::admit(req, cache)?;
    if req.verb == Verb::Create && req.subresource.is_none() {
        if let Object::Pod(pod) = obj {
            limit_ranger::admit(req, pod, cache);
            service_account::admit(pod);
            priority::admit(pod, cache)?;
            default_toleration_seconds::admit(pod);
        }
    }
    Ok(())
}

/// Runs the validating plugins in order on the validated object (`obj`; None for deletes) and the stored
/// one (`old`; None for creates). Warnings accumulate in `warnings`, also when a plugin refuses.
pub fn validate(
    req: &AdmissionRequest,
    obj: Option<&Object>,
    old: Option<&Object>,
    cache: &WatchCache,
    warnings: &mut Vec<String>,
) -> Result<(), Status> {
    limit_ranger::validate(req, obj, cache)?;
    pod_security::validate(req, obj, old, cache, warnings)?;
    validating_policy::validate(req, obj, old, cache, warnings)?;
    resource_quota::validate(req, obj, cache)
}
