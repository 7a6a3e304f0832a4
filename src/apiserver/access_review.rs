//! The reviews a component asks about someone else, never stored: a `TokenReview` (authentication.k8s.io/v1)
//! runs a bearer token through the authenticator, as a webhook or an extension apiserver does to learn who
//! sent it; a `SubjectAccessReview` asks the authorizer whether a named user and groups may do something,
//! and a `LocalSubjectAccessReview` asks the same inside one namespace. Counterparts:
//! `pkg/registry/authentication/tokenreview`, `pkg/registry/authorization/subjectaccessreview` and
//! `localsubjectaccessreview`, `pkg/apis/authorization/validation` (the v1.34 per-field error paths).

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewStatus, UserInfo as ApiUserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus,
};

use crate::api::{Cause, Credentials, Object, Status};

use super::authn::UserInfo;
use super::authz::{self, Attributes};
use super::cache::WatchCache;

/// The audience the apiserver's own tokens carry (kubeadm's `--service-account-issuer`).
pub const API_AUDIENCE: &str = "https://kubernetes.default.svc.cluster.local";

/// A TokenReview answered: who the token's holder is, or why the token was not accepted.
pub fn token_review(
    mut review: Box<TokenReview>,
    authenticate: &dyn Fn(&Credentials) -> Option<UserInfo>,
) -> Result<Object, Status> {
    let token = review.spec.token.clone().unwrap_or_default();
    if token.is_empty() {
        return Err(Status::bad_request("token is required for TokenReview in authentication"));
    }
    let audiences =
        review.spec.audiences.clone().filter(|a| !a.is_empty()).unwrap_or_else(|| vec![API_AUDIENCE.into()]);
    let status = match authenticate(&Credentials::Token(token)) {
        Some(user) => TokenReviewStatus {
            authenticated: Some(true),
            user: Some(ApiUserInfo {
                username: Some(user.name),
                uid: (!user.uid.is_empty()).then_some(user.uid),
                groups: (!user.groups.is_empty()).then_some(user.groups),
                extra: (!user.extra.is_empty()).then_some(user.extra),
            }),
            audiences: Some(audiences),
            error: None,
        },
        None => TokenReviewStatus {
            error: Some("invalid bearer token".into()),
            user: Some(ApiUserInfo::default()),
            ..Default::default()
        },
    };
    review.status = Some(status);
    Ok(Object::TokenReview(review))
}

/// `ValidateSubjectAccessReviewSpec`: exactly one kind of attributes, and a user or a group.
fn validate_spec(spec: &SubjectAccessReviewSpec) -> Vec<Cause> {
    let mut causes = Vec::new();
    match (&spec.resource_attributes, &spec.non_resource_attributes) {
        (Some(_), Some(nra)) => causes.push(Cause::invalid(
            "spec.nonResourceAttributes",
            &non_resource_json(nra),
            "cannot be specified in combination with resourceAttributes",
        )),
        (None, None) => causes.push(Cause::invalid(
            "spec.resourceAttributes",
            "null",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )),
        _ => {}
    }
    let user = spec.user.as_deref().unwrap_or("");
    if user.is_empty() && spec.groups.as_ref().is_none_or(|g| g.is_empty()) {
        causes.push(Cause::invalid("spec.user", "\"\"", "at least one of user or group must be specified"));
    }
    causes
}

/// The internal `NonResourceAttributes` as field errors print it (Go field names, no tags).
fn non_resource_json(nra: &NonResourceAttributes) -> String {
    serde_json::json!({"Path": nra.path.as_deref().unwrap_or(""), "Verb": nra.verb.as_deref().unwrap_or("")})
        .to_string()
}

/// The review's own Invalid answer: the internal object has no kind, so the details name none and kubectl
/// says `The request is invalid`.
fn invalid(group: &str, causes: Vec<Cause>) -> Status {
    Status::invalid(&format!(".{group}"), "", "", causes)
}

/// The authorizer's verdict on the spec's attributes for the spec's user.
fn evaluate(spec: &SubjectAccessReviewSpec, cache: &WatchCache) -> SubjectAccessReviewStatus {
    let user = UserInfo {
        name: spec.user.clone().unwrap_or_default(),
        groups: spec.groups.clone().unwrap_or_default(),
        ..Default::default()
    };
    let decision = match (&spec.resource_attributes, &spec.non_resource_attributes) {
        (Some(ra), _) => authz::decide(&user, &attributes(ra), cache),
        (None, Some(nra)) => {
            let (verb, path) = (nra.verb.as_deref().unwrap_or(""), nra.path.as_deref().unwrap_or(""));
            authz::authorize_non_resource(&user, verb, path, cache).then(String::new)
        }
        (None, None) => None,
    };
    SubjectAccessReviewStatus {
        allowed: decision.is_some(),
        reason: decision.filter(|r| !r.is_empty()),
        ..Default::default()
    }
}

/// The authorizer's attributes for a review's `resourceAttributes`.
pub(super) fn attributes(ra: &ResourceAttributes) -> Attributes<'_> {
    Attributes {
        verb: ra.verb.as_deref().unwrap_or(""),
        api_group: ra.group.as_deref().unwrap_or(""),
        resource: ra.resource.as_deref().unwrap_or(""),
        subresource: ra.subresource.as_deref().filter(|s| !s.is_empty()),
        name: ra.name.as_deref().filter(|s| !s.is_empty()),
        namespace: ra.namespace.as_deref().filter(|s| !s.is_empty()),
    }
}

/// A SubjectAccessReview or LocalSubjectAccessReview answered (`namespace`: the URL's, for the local one).
pub fn subject_access_review(body: Object, namespace: Option<&str>, cache: &WatchCache) -> Result<Object, Status> {
    match body {
        Object::SubjectAccessReview(mut review) => {
            let causes = validate_spec(&review.spec);
            if !causes.is_empty() {
                return Err(invalid("authorization.k8s.io", causes));
            }
            review.status = Some(evaluate(&review.spec, cache));
            Ok(Object::SubjectAccessReview(review))
        }
        Object::LocalSubjectAccessReview(mut review) => {
            let mut causes = validate_spec(&review.spec);
            let own = review.metadata.namespace.clone().unwrap_or_default();
            if let Some(ra) = &review.spec.resource_attributes {
                let asked = ra.namespace.clone().unwrap_or_default();
                if asked != own {
                    causes.push(Cause::invalid(
                        "spec.resourceAttributes.namespace",
                        &format!("{asked:?}"),
                        "must match metadata.namespace",
                    ));
                }
            }
            if let Some(nra) = &review.spec.non_resource_attributes {
                causes.push(Cause::invalid(
                    "spec.nonResourceAttributes",
                    &non_resource_json(nra),
                    "disallowed on this kind of request",
                ));
            }
            if !causes.is_empty() {
                return Err(invalid("authorization.k8s.io", causes));
            }
            let url_namespace = namespace.unwrap_or("");
            if url_namespace.is_empty() {
                return Err(Status::bad_request("namespace is required on this type: "));
            }
            if url_namespace != own {
                return Err(Status::bad_request(format!(
                    "spec.resourceAttributes.namespace must match namespace: {url_namespace}"
                )));
            }
            review.status = Some(evaluate(&review.spec, cache));
            Ok(Object::LocalSubjectAccessReview(review))
        }
        other => Err(Status::bad_request(format!("{} is not a review", other.kind().name()))),
    }
}
