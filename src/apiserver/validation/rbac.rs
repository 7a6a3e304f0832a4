//! RBAC objects (`pkg/apis/rbac/validation`): names that must be valid path segments, policy rules that
//! need verbs and either resources or non-resource URLs, role references and subjects; on update a
//! binding's `roleRef` cannot change.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject};

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule};
use crate::api::Cause;

const GROUP: &str = "rbac.authorization.k8s.io";

fn validate_policy_rule(rule: &PolicyRule, namespaced: bool, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if rule.verbs.is_empty() {
        errs.push(field::required(&path.child("verbs"), "verbs must contain at least one value"));
    }
    let non_resource = rule.non_resource_urls.as_deref().unwrap_or(&[]);
    let groups = rule.api_groups.as_deref().unwrap_or(&[]);
    let resources = rule.resources.as_deref().unwrap_or(&[]);
    let resource_names = rule.resource_names.as_deref().unwrap_or(&[]);
    if !non_resource.is_empty() {
        let rendered = field::json_strings(rule.non_resource_urls.as_deref());
        if namespaced {
            errs.push(field::invalid(
                &path.child("nonResourceURLs"),
                &rendered,
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if !groups.is_empty() || !resources.is_empty() || !resource_names.is_empty() {
            errs.push(field::invalid(
                &path.child("nonResourceURLs"),
                &rendered,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return errs;
    }
    if groups.is_empty() {
        errs.push(field::required(&path.child("apiGroups"), "resource rules must supply at least one api group"));
    }
    if resources.is_empty() {
        errs.push(field::required(&path.child("resources"), "resource rules must supply at least one resource"));
    }
    if !resource_names.is_empty() && resources.len() > 1 {
        errs.push(field::required(&path.child("resourceNames"), "resource names cannot apply to multiple resources"));
    }
    errs
}

fn validate_rules(rules: Option<&Vec<PolicyRule>>, namespaced: bool) -> Vec<Cause> {
    rules
        .into_iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, r)| validate_policy_rule(r, namespaced, &Path::new("rules").index(i)))
        .collect()
}

fn validate_subject(subject: &Subject, namespaced: bool, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if subject.name.is_empty() {
        errs.push(field::required(&path.child("name"), ""));
    }
    let api_group = subject.api_group.as_deref().unwrap_or("");
    match subject.kind.as_str() {
        "ServiceAccount" => {
            if !subject.name.is_empty() {
                for m in names::is_dns1123_subdomain(&subject.name) {
                    errs.push(field::invalid_str(&path.child("name"), &subject.name, &m));
                }
            }
            if !api_group.is_empty() {
                errs.push(field::not_supported(&path.child("apiGroup"), &field::quote(api_group), &[""]));
            }
            if !namespaced && subject.namespace.as_deref().unwrap_or("").is_empty() {
                errs.push(field::required(&path.child("namespace"), ""));
            }
        }
        kind @ ("User" | "Group") => {
            if subject.name.is_empty() {
                let who = if kind == "User" { "user" } else { "group" };
                errs.push(field::invalid_str(&path.child("name"), "", &format!("{who} name cannot be empty")));
            }
            if api_group != GROUP {
                errs.push(field::not_supported(&path.child("apiGroup"), &field::quote(api_group), &[GROUP]));
            }
        }
        other => errs.push(field::not_supported(
            &path.child("kind"),
            &field::quote(other),
            &["ServiceAccount", "User", "Group"],
        )),
    }
    errs
}

fn validate_role_ref(role_ref: &RoleRef, kinds: &[&str]) -> Vec<Cause> {
    let mut errs = Vec::new();
    let path = Path::new("roleRef");
    if role_ref.api_group != GROUP {
        errs.push(field::not_supported(&path.child("apiGroup"), &field::quote(&role_ref.api_group), &[GROUP]));
    }
    if !kinds.contains(&role_ref.kind.as_str()) {
        errs.push(field::not_supported(&path.child("kind"), &field::quote(&role_ref.kind), kinds));
    }
    if role_ref.name.is_empty() {
        errs.push(field::required(&path.child("name"), ""));
    } else {
        for m in names::is_valid_path_segment_name(&role_ref.name) {
            errs.push(field::invalid_str(&path.child("name"), &role_ref.name, &m));
        }
    }
    errs
}

/// The internal `rbac.RoleRef` as `encoding/json` prints it.
fn role_ref_json(r: &RoleRef) -> String {
    format!(
        "{{\"APIGroup\":{},\"Kind\":{},\"Name\":{}}}",
        field::json_string(&r.api_group),
        field::json_string(&r.kind),
        field::json_string(&r.name)
    )
}

fn role_ref_unchanged(new: &RoleRef, old: &RoleRef) -> Vec<Cause> {
    if new == old {
        Vec::new()
    } else {
        vec![field::invalid(&Path::new("roleRef"), &role_ref_json(new), "cannot change roleRef")]
    }
}

pub fn validate_role(r: &Role) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&r.metadata, true, NameRule::PathSegment);
    errs.extend(validate_rules(r.rules.as_ref(), true));
    errs
}

pub fn validate_cluster_role(r: &ClusterRole) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&r.metadata, false, NameRule::PathSegment);
    errs.extend(validate_rules(r.rules.as_ref(), false));
    errs
}

pub fn validate_role_binding(b: &RoleBinding) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&b.metadata, true, NameRule::PathSegment);
    errs.extend(validate_role_ref(&b.role_ref, &["Role", "ClusterRole"]));
    for (i, s) in b.subjects.iter().flatten().enumerate() {
        errs.extend(validate_subject(s, true, &Path::new("subjects").index(i)));
    }
    errs
}

pub fn validate_cluster_role_binding(b: &ClusterRoleBinding) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&b.metadata, false, NameRule::PathSegment);
    errs.extend(validate_role_ref(&b.role_ref, &["ClusterRole"]));
    for (i, s) in b.subjects.iter().flatten().enumerate() {
        errs.extend(validate_subject(s, false, &Path::new("subjects").index(i)));
    }
    errs
}

pub fn validate_role_update(new: &Role, old: &Role) -> Vec<Cause> {
    let mut errs = validate_role(new);
    errs.extend(meta::validate_object_meta_update(&new.metadata, &old.metadata));
    errs
}

pub fn validate_cluster_role_update(new: &ClusterRole, old: &ClusterRole) -> Vec<Cause> {
    let mut errs = validate_cluster_role(new);
    errs.extend(meta::validate_object_meta_update(&new.metadata, &old.metadata));
    errs
}

pub fn validate_role_binding_update(new: &RoleBinding, old: &RoleBinding) -> Vec<Cause> {
    let mut errs = validate_role_binding(new);
    errs.extend(meta::validate_object_meta_update(&new.metadata, &old.metadata));
    errs.extend(role_ref_unchanged(&new.role_ref, &old.role_ref));
    errs
}

pub fn validate_cluster_role_binding_update(new: &ClusterRoleBinding, old: &ClusterRoleBinding) -> Vec<Cause> {
    let mut errs = validate_cluster_role_binding(new);
    errs.extend(meta::validate_object_meta_update(&new.metadata, &old.metadata));
    errs.extend(role_ref_unchanged(&new.role_ref, &old.role_ref));
    errs
}
