//! Validation of ValidatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1): the
//! required fields, supported values, rules, and the compilation of every CEL expression, whose failures
//! read `spec.validations[0].expression: Invalid value: "…": compilation failed: ERROR: <input>:1:7: …`
//! followed by the source line and a caret, as cel-go reports them (the detail of a syntax error is
//! kubeglass's parser's, not ANTLR's). Counterpart: `pkg/apis/admissionregistration/validation`.

use k8s_openapi::api::admissionregistration::v1::{
    MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};

use super::field::{self, Path};
use super::meta;
use super::names::{check_name, validate_label_selector, NameRule};
use crate::api::Cause;
use crate::apiserver::admission::validating_policy;
use crate::apiserver::cel;

fn validate_rule(rule: &NamedRuleWithOperations, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let ops = rule.operations.clone().unwrap_or_default();
    if ops.is_empty() {
        errs.push(field::required(&path.child("operations"), ""));
    }
    for (i, op) in ops.iter().enumerate() {
        if !["*", "CONNECT", "CREATE", "DELETE", "UPDATE"].contains(&op.as_str()) {
            errs.push(field::not_supported(
                &path.child("operations").index(i),
                &field::quote(op),
                &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"],
            ));
        }
    }
    let groups = rule.api_groups.clone().unwrap_or_default();
    if groups.is_empty() {
        errs.push(field::required(&path.child("apiGroups"), ""));
    }
    if groups.len() > 1 && groups.iter().any(|g| g == "*") {
        errs.push(field::invalid(
            &path.child("apiGroups"),
            &field::go_string_slice(&groups),
            "if '*' is present, must not specify other API groups",
        ));
    }
    let versions = rule.api_versions.clone().unwrap_or_default();
    if versions.is_empty() {
        errs.push(field::required(&path.child("apiVersions"), ""));
    }
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errs.push(field::required(&path.child("apiVersions").index(i), ""));
        }
    }
    if rule.resources.as_ref().is_none_or(Vec::is_empty) {
        errs.push(field::required(&path.child("resources"), ""));
    }
    if let Some(scope) = rule.scope.as_deref() {
        if !["*", "Cluster", "Namespaced"].contains(&scope) {
            errs.push(field::not_supported(
                &path.child("scope"),
                &field::quote(scope),
                &["*", "Cluster", "Namespaced"],
            ));
        }
    }
    errs
}

fn validate_match_resources(mr: &MatchResources, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    match mr.match_policy.as_deref() {
        None => errs.push(field::required(&path.child("matchPolicy"), "")),
        Some(p) if !["Equivalent", "Exact"].contains(&p) => {
            errs.push(field::not_supported(&path.child("matchPolicy"), &field::quote(p), &["Equivalent", "Exact"]))
        }
        _ => {}
    }
    match mr.namespace_selector.as_ref() {
        None => errs.push(field::required(&path.child("namespaceSelector"), "")),
        Some(sel) => errs.extend(validate_label_selector(Some(sel), &path.child("namespaceSelector"))),
    }
    match mr.object_selector.as_ref() {
        None => errs.push(field::required(&path.child("objectSelector"), "")),
        Some(sel) => errs.extend(validate_label_selector(Some(sel), &path.child("objectSelector"))),
    }
    for (i, r) in mr.resource_rules.iter().flatten().enumerate() {
        errs.extend(validate_rule(r, &path.child("resourceRules").index(i)));
    }
    for (i, r) in mr.exclude_resource_rules.iter().flatten().enumerate() {
        errs.extend(validate_rule(r, &path.child("excludeResourceRules").index(i)));
    }
    errs
}

/// `ValidateValidatingAdmissionPolicy`.
pub fn validate_policy(p: &ValidatingAdmissionPolicy) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&p.metadata, false, NameRule::Subdomain);
    let path = Path::new("spec");
    let default_spec = Default::default();
    let spec = p.spec.as_ref().unwrap_or(&default_spec);
    match spec.failure_policy.as_deref() {
        None => errs.push(field::required(&path.child("failurePolicy"), "")),
        Some(f) if !["Fail", "Ignore"].contains(&f) => {
            errs.push(field::not_supported(&path.child("failurePolicy"), &field::quote(f), &["Fail", "Ignore"]))
        }
        _ => {}
    }
    if let Some(pk) = spec.param_kind.as_ref() {
        let pk_path = path.child("paramKind");
        if pk.api_version.as_deref().unwrap_or("").is_empty() {
            errs.push(field::required(&pk_path.child("apiVersion"), ""));
        }
        if pk.kind.as_deref().unwrap_or("").is_empty() {
            errs.push(field::required(&pk_path.child("kind"), ""));
        }
    }
    match spec.match_constraints.as_ref() {
        None => errs.push(field::required(&path.child("matchConstraints"), "")),
        Some(mc) => {
            errs.extend(validate_match_resources(mc, &path.child("matchConstraints")));
            if mc.resource_rules.as_ref().is_none_or(Vec::is_empty) {
                errs.push(field::required(&path.child("matchConstraints").child("resourceRules"), ""));
            }
        }
    }
    for (i, c) in spec.match_conditions.iter().flatten().enumerate() {
        let cpath = path.child("matchConditions").index(i);
        if c.expression.trim().is_empty() {
            errs.push(field::required(&cpath.child("expression"), ""));
        }
        if c.name.is_empty() {
            errs.push(field::required(&cpath.child("name"), ""));
        }
    }
    for (i, v) in spec.variables.iter().flatten().enumerate() {
        let vpath = path.child("variables").index(i);
        if v.name.trim().is_empty() {
            errs.push(field::required(&vpath.child("name"), "name is not specified"));
        } else if !is_cel_identifier(&v.name) {
            errs.push(field::invalid_str(&vpath.child("name"), &v.name, "name is not a valid CEL identifier"));
        }
        if v.expression.trim().is_empty() {
            errs.push(field::required(&vpath.child("expression"), "expression is not specified"));
        }
    }
    let validations = spec.validations.clone().unwrap_or_default();
    if validations.is_empty() && spec.audit_annotations.as_ref().is_none_or(Vec::is_empty) {
        let detail = "validations or auditAnnotations must contain at least one item";
        errs.push(field::required(&path.child("validations"), detail));
        errs.push(field::required(&path.child("auditAnnotations"), detail));
    }
    for (i, v) in validations.iter().enumerate() {
        let vpath = path.child("validations").index(i);
        if v.expression.trim().is_empty() {
            errs.push(field::required(&vpath.child("expression"), "expression is not specified"));
        }
        if let Some(m) = v.message_expression.as_deref() {
            if !m.is_empty() && m.trim().is_empty() {
                errs.push(field::invalid_str(&vpath.child("messageExpression"), m, "must be non-empty if specified"));
            }
        }
        if let Some(m) = v.message.as_deref() {
            if !m.is_empty() && m.trim().is_empty() {
                errs.push(field::invalid_str(&vpath.child("message"), m, "message must be non-empty if specified"));
            } else if m.trim().contains(['\n', '\r']) {
                errs.push(field::invalid_str(&vpath.child("message"), m, "message must not contain line breaks"));
            }
        }
        if let Some(r) = v.reason.as_deref() {
            let supported = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
            if !supported.contains(&r) {
                errs.push(field::not_supported(&vpath.child("reason"), &field::quote(r), &supported));
            }
        }
    }
    errs.extend(validating_policy::compile_errors(p));
    errs
}

/// Whether a variable name is a CEL identifier (`[_a-zA-Z][_a-zA-Z0-9]*`, not a reserved word).
fn is_cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && !cel::parser::RESERVED.contains(&name)
}

/// `ValidateValidatingAdmissionPolicyBinding`.
pub fn validate_binding(b: &ValidatingAdmissionPolicyBinding) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&b.metadata, false, NameRule::Subdomain);
    let path = Path::new("spec");
    let default_spec = Default::default();
    let spec = b.spec.as_ref().unwrap_or(&default_spec);
    match spec.policy_name.as_deref().unwrap_or("") {
        "" => errs.push(field::required(&path.child("policyName"), "")),
        name => {
            for msg in check_name(NameRule::Subdomain, name, false) {
                errs.push(field::invalid_str(&path.child("policyName"), name, &msg));
            }
        }
    }
    if let Some(pr) = spec.param_ref.as_ref() {
        let ppath = path.child("paramRef");
        let has_name = pr.name.as_deref().is_some_and(|n| !n.is_empty());
        if has_name && pr.selector.is_some() {
            errs.push(field::forbidden(&ppath.child("name"), "name and selector are mutually exclusive"));
        }
        if let Some(sel) = pr.selector.as_ref() {
            errs.extend(validate_label_selector(Some(sel), &ppath.child("selector")));
            if has_name {
                errs.push(field::forbidden(&ppath.child("selector"), "name and selector are mutually exclusive"));
            }
        }
        if !has_name && pr.selector.is_none() {
            errs.push(field::required(&ppath, "one of name or selector must be specified"));
        }
        match pr.parameter_not_found_action.as_deref().unwrap_or("") {
            "" => errs.push(field::required(&ppath.child("parameterNotFoundAction"), "")),
            "Deny" | "Allow" => {}
            other => errs.push(field::not_supported(
                &ppath.child("parameterNotFoundAction"),
                &field::quote(other),
                &["Deny", "Allow"],
            )),
        }
    }
    if let Some(mr) = spec.match_resources.as_ref() {
        errs.extend(validate_match_resources(mr, &path.child("matchResources")));
    }
    let actions = spec.validation_actions.clone().unwrap_or_default();
    let apath = path.child("validationActions");
    let mut seen: Vec<&str> = Vec::new();
    for (i, a) in actions.iter().enumerate() {
        if !["Audit", "Deny", "Warn"].contains(&a.as_str()) {
            errs.push(field::not_supported(&apath.index(i), &field::quote(a), &["Audit", "Deny", "Warn"]));
        }
        if seen.contains(&a.as_str()) {
            errs.push(field::duplicate(&apath.index(i), &field::quote(a)));
        }
        seen.push(a);
    }
    if seen.contains(&"Deny") && seen.contains(&"Warn") {
        errs.push(field::invalid(
            &apath,
            &field::go_string_slice(&actions),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if seen.is_empty() {
        errs.push(field::required(&apath, "at least one validation action is required"));
    }
    errs
}
