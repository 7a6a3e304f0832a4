//! The review APIs, answered from authentication and authorization and never stored: a
//! `SelfSubjectAccessReview` (authorization.k8s.io/v1) asks the authorizer whether the requesting user may
//! do something, a `SelfSubjectRulesReview` lists the RBAC rules that apply to the user in a namespace, and
//! a `SelfSubjectReview` (authentication.k8s.io/v1) returns who the user is. Like the real registries
//! (`pkg/registry/authorization/selfsubjectaccessreview`, `pkg/registry/authentication/selfsubjectreview`),
//! a create is evaluated for the user the request was authenticated (or impersonated) as, and the answer is
//! the submitted object with its status filled in.

use std::sync::Arc;

use k8s_openapi::api::authentication::v1::{SelfSubjectReviewStatus, UserInfo as ApiUserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceRule, ResourceRule, SubjectAccessReviewStatus, SubjectRulesReviewStatus,
};

use crate::api::{ApiRequest, ApiResponse, Cause, Kind, Object, Status, Verb};

use super::access_review;
use super::authn::UserInfo;
use super::authz;
use super::cache::WatchCache;

/// Whether a request is for one of the review resources (which have no storage).
pub fn is_review(req: &ApiRequest) -> bool {
    matches!(
        req.resource.kind,
        Kind::SelfSubjectAccessReview
            | Kind::SelfSubjectRulesReview
            | Kind::SelfSubjectReview
            | Kind::TokenReview
            | Kind::SubjectAccessReview
            | Kind::LocalSubjectAccessReview
    )
}

/// The 405 of a verb a create-only resource (a review, bindings) has no route for.
pub fn not_allowed(req: &ApiRequest) -> ApiResponse {
    ApiResponse::Error(Status::method_not_allowed(format!(
        "the server does not allow this method on the requested resource ({} {})",
        req.verb.as_str(),
        req.resource.qualified()
    )))
}

/// Answers a review request for `user`.
pub fn answer(
    user: &UserInfo,
    req: &ApiRequest,
    cache: &WatchCache,
    authenticate: &dyn Fn(&crate::api::Credentials) -> Option<UserInfo>,
) -> ApiResponse {
    if req.verb != Verb::Create {
        return not_allowed(req);
    }
    let body = match (&req.body, &req.raw_body) {
        (Some(b), _) => b.clone(),
        (None, Some(raw)) => match crate::api::manifest::decode_strict(raw) {
            Ok(o) => o,
            Err(s) => return ApiResponse::Error(s),
        },
        _ => return ApiResponse::Error(Status::bad_request("the request has no body")),
    };
    if body.kind() != req.resource.kind {
        return ApiResponse::Error(Status::bad_request(format!(
            "the object kind {} does not match the resource {}",
            body.kind().name(),
            req.resource.resource
        )));
    }
    let answered = match body {
        Object::TokenReview(review) => match access_review::token_review(review, authenticate) {
            Ok(o) => o,
            Err(status) => return ApiResponse::Error(status),
        },
        review @ (Object::SubjectAccessReview(_) | Object::LocalSubjectAccessReview(_)) => {
            match access_review::subject_access_review(review, req.namespace.as_deref(), cache) {
                Ok(o) => o,
                Err(status) => return ApiResponse::Error(status),
            }
        }
        Object::SelfSubjectAccessReview(mut review) => {
            let spec = &review.spec;
            let allowed = match (&spec.resource_attributes, &spec.non_resource_attributes) {
                (Some(ra), None) => authz::authorize(user, &access_review::attributes(ra), cache),
                (None, Some(nra)) => authz::authorize_non_resource(
                    user,
                    nra.verb.as_deref().unwrap_or(""),
                    nra.path.as_deref().unwrap_or(""),
                    cache,
                ),
                (ra, _) => {
                    let shown = if ra.is_some() { "{...}" } else { "null" };
                    return ApiResponse::Error(Status::invalid(
                        "SelfSubjectAccessReview.authorization.k8s.io",
                        "SelfSubjectAccessReview",
                        "",
                        vec![Cause::new(
                            "spec.resourceAttributes",
                            format!(
                                "Invalid value: \"{shown}\": exactly one of nonResourceAttributes or resourceAttributes must be specified"
                            ),
                        )],
                    ));
                }
            };
            review.status = Some(SubjectAccessReviewStatus { allowed, ..Default::default() });
            Object::SelfSubjectAccessReview(review)
        }
        Object::SelfSubjectRulesReview(mut review) => {
            let namespace = review.spec.namespace.clone().unwrap_or_default();
            let mut status = SubjectRulesReviewStatus::default();
            for rule in authz::rules_for(user, &namespace, cache) {
                if rule.non_resource_urls.as_ref().is_some_and(|u| !u.is_empty()) {
                    status.non_resource_rules.push(NonResourceRule {
                        non_resource_urls: rule.non_resource_urls.clone(),
                        verbs: rule.verbs.clone(),
                    });
                }
                if rule.resources.as_ref().is_some_and(|r| !r.is_empty()) {
                    status.resource_rules.push(ResourceRule {
                        api_groups: rule.api_groups.clone(),
                        resource_names: rule.resource_names.clone(),
                        resources: rule.resources.clone(),
                        verbs: rule.verbs.clone(),
                    });
                }
            }
            review.status = Some(status);
            Object::SelfSubjectRulesReview(review)
        }
        Object::SelfSubjectReview(mut review) => {
            review.status = Some(SelfSubjectReviewStatus {
                user_info: Some(ApiUserInfo {
                    username: Some(user.name.clone()),
                    uid: (!user.uid.is_empty()).then(|| user.uid.clone()),
                    groups: (!user.groups.is_empty()).then(|| user.groups.clone()),
                    extra: (!user.extra.is_empty()).then(|| user.extra.clone()),
                }),
            });
            Object::SelfSubjectReview(review)
        }
        other => {
            return ApiResponse::Error(Status::bad_request(format!("{} is not a review", other.kind().name())));
        }
    };
    ApiResponse::Object(Arc::new(answered))
}
