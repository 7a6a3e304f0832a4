//! The kube-apiserver's per-kind admission of objects before storage: scheme defaulting on decode
//! ([`defaults`]) and the registry strategies' validation with Kubernetes' exact field-error wording
//! ([`validation`]).

pub mod defaults;
pub mod validation;
