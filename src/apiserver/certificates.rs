//! CertificateSigningRequests (certificates.k8s.io/v1), the apiserver's side: the strategy fills in who asked
//! (`spec.username`, `groups`) and clears the status on create; validation checks the request's PEM block,
//! the usages, the signer name and the requested duration; the `approval` subresource is the one way to
//! add an Approved or Denied condition (what `kubectl certificate approve|deny` writes), and the two
//! exclude each other. Counterparts: `pkg/registry/certificates/certificates/strategy.go`,
//! `pkg/apis/certificates/validation/validation.go` (v1.34 texts). Signing is kube-controller-manager's.

use k8s_openapi::api::certificates::v1::CertificateSigningRequest;

use crate::api::{Cause, Object, Status};
use crate::apiserver::registry::k8s_time;
use crate::sim::SimTime;

use super::authn::UserInfo;
use super::validation::field::{self, Path};
use super::validation::meta;
use super::validation::names::NameRule;

/// Every key usage the API knows (`allValidUsages`), sorted as the error lists them.
const USAGES: &[&str] = &[
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
];

/// `PrepareForCreate`: the requester is whoever sent it; the status starts empty.
pub fn prepare_for_create(csr: &mut CertificateSigningRequest, user: &UserInfo) {
    csr.spec.username = Some(user.name.clone());
    csr.spec.groups = (!user.groups.is_empty()).then(|| user.groups.clone());
    csr.spec.uid = None;
    csr.spec.extra = None;
    csr.status = None;
}

/// The request as its error messages show it: the bytes as sent (base64 in JSON).
fn request_json(csr: &CertificateSigningRequest) -> String {
    serde_json::to_string(&csr.spec.request).unwrap_or_else(|_| "\"\"".into())
}

/// The PEM block type of the request, when it is PEM at all.
fn pem_type(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let start = text.find("-----BEGIN ")? + "-----BEGIN ".len();
    let end = text[start..].find("-----")?;
    Some(&text[start..start + end])
}

/// `validateCertificateSigningRequest` on create.
pub fn validate_create(csr: &CertificateSigningRequest) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&csr.metadata, false, NameRule::PathSegment);
    let spec = Path::new("spec");
    if pem_type(&csr.spec.request.0) != Some("CERTIFICATE REQUEST") {
        errs.push(field::invalid(
            &spec.child("request"),
            &request_json(csr),
            "PEM block type must be CERTIFICATE REQUEST",
        ));
    }
    let usages = csr.spec.usages.clone().unwrap_or_default();
    if usages.is_empty() {
        errs.push(field::required(&spec.child("usages"), ""));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, usage) in usages.iter().enumerate() {
        let path = spec.child("usages").index(i);
        if !USAGES.contains(&usage.as_str()) {
            errs.push(field::not_supported(&path, &field::quote(usage), USAGES));
        } else if seen.contains(&usage.as_str()) {
            errs.push(field::duplicate(&path, &field::quote(usage)));
        }
        seen.push(usage);
    }
    errs.extend(validate_signer_name(&csr.spec.signer_name, &spec.child("signerName")));
    if let Some(seconds) = csr.spec.expiration_seconds.filter(|s| *s < 600) {
        errs.push(field::invalid_int(
            &spec.child("expirationSeconds"),
            i64::from(seconds),
            "may not specify a duration less than 600 seconds (10 minutes)",
        ));
    }
    errs
}

/// `ValidateSignerName`: a fully qualified `domain/path`, and not the legacy signer through v1.
fn validate_signer_name(name: &str, path: &Path) -> Vec<Cause> {
    if name.is_empty() {
        return vec![field::required(path, "")];
    }
    if name == "kubernetes.io/legacy-unknown" {
        return vec![field::invalid(
            path,
            &field::quote(name),
            "the legacy signerName is not allowed via this API version",
        )];
    }
    let parts: Vec<&str> = name.split('/').collect();
    if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
        return vec![field::invalid(
            path,
            &field::quote(name),
            "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        )];
    }
    if parts[0].split('.').count() < 2 {
        return vec![field::invalid(
            path,
            &field::quote(parts[0]),
            "should be a domain with at least two segments separated by dots",
        )];
    }
    Vec::new()
}

/// The condition types only the approval subresource may add.
const DECISIONS: [&str; 2] = ["Approved", "Denied"];

fn condition_types(csr: &CertificateSigningRequest) -> Vec<String> {
    csr.status.iter().flat_map(|s| s.conditions.iter().flatten()).map(|c| c.type_.clone()).collect()
}

/// `validateCertificateSigningRequestUpdate`: decisions are not removed, only the approval subresource adds
/// them, and a request is not both approved and denied.
pub fn validate_update(old: &CertificateSigningRequest, new: &CertificateSigningRequest, approval: bool) -> Vec<Cause> {
    let mut errs = Vec::new();
    let conditions = Path::new("status").child("conditions");
    let (before, after) = (condition_types(old), condition_types(new));
    for t in DECISIONS.iter().chain(["Failed"].iter()) {
        if before.iter().any(|b| b == t) && !after.iter().any(|a| a == t) {
            errs.push(field::forbidden(&conditions, &format!("updates may not remove a condition of type {t:?}")));
        }
    }
    if !approval {
        for t in DECISIONS {
            if after.iter().any(|a| a == t) && !before.iter().any(|b| b == t) {
                errs.push(field::forbidden(&conditions, &format!("updates may not add a condition of type {t:?}")));
            }
        }
    }
    if after.iter().any(|a| a == "Approved") {
        if let Some(i) = after.iter().position(|a| a == "Denied") {
            errs.push(field::invalid(
                &conditions.index(i).child("type"),
                "\"Denied\"",
                "Approved and Denied conditions are mutually exclusive",
            ));
        }
    }
    errs
}

/// The approval subresource's update: everything from the stored object but the conditions, whose
/// timestamps the server fills in (`populateConditionTimestamps`).
pub fn prepare_approval(current: &Object, new: Object, now: SimTime) -> Result<Object, Status> {
    let (Object::CertificateSigningRequest(cur), Object::CertificateSigningRequest(next)) = (current, new) else {
        return Err(Status::no_such_resource());
    };
    let mut merged = cur.clone();
    let old_conditions: Vec<_> = cur.status.iter().flat_map(|s| s.conditions.clone().unwrap_or_default()).collect();
    let mut conditions = next.status.and_then(|s| s.conditions).unwrap_or_default();
    for c in &mut conditions {
        if c.last_update_time.is_none() {
            c.last_update_time = Some(k8s_time(now));
        }
        if c.last_transition_time.is_none() {
            let previous = old_conditions.iter().find(|o| o.type_ == c.type_ && o.status == c.status);
            c.last_transition_time =
                Some(previous.and_then(|o| o.last_transition_time.clone()).unwrap_or_else(|| k8s_time(now)));
        }
    }
    merged.status.get_or_insert_with(Default::default).conditions = Some(conditions);
    merged.metadata.resource_version = next.metadata.resource_version.or(cur.metadata.resource_version.clone());
    Ok(Object::CertificateSigningRequest(merged))
}
