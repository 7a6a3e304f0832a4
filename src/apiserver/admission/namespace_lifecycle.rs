//! NamespaceLifecycle: no new content in a namespace that does not exist or is being terminated.
//! Counterpart: `plugin/pkg/admission/namespace/lifecycle`.

use crate::api::{Kind, Object, Status, Verb};

use super::super::cache::WatchCache;
use super::AdmissionRequest;

/// Refuses creates in a missing namespace (404 on the namespace) or a terminating one (403).
pub fn admit(req: &AdmissionRequest, cache: &WatchCache) -> Result<(), Status> {
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
            Err(req
                .forbidden(&format!("unable to create new content in namespace {ns} because it is being terminated")))
        }
        _ => Ok(()),
    }
}
