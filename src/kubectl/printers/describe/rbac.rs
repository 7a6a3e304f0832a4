//! `kubectl describe` for RBAC (`RoleDescriber`, `ClusterRoleDescriber`, `RoleBindingDescriber`,
//! `ClusterRoleBindingDescriber` in kubectl's `pkg/describe/describe.go`): a role's rules broken down to one
//! verb each, compacted per resource again (`pkg/util/rbac`), and sorted by the rule's Go `String()`
//! (verbs first, so `pods/log` sorts before `pods`); a binding's role and subjects. None of them has a
//! namespace line or events.

use std::collections::BTreeMap;

use k8s_openapi::api::rbac::v1::{PolicyRule, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{annotations_block, labels_block, name, Writer};

/// One broken-down rule: a single group, resource, verb and at most one resource name; or a non-resource URL.
fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let mut out = Vec::new();
    let one = |v: &str| Some(vec![v.to_string()]);
    for group in rule.api_groups.iter().flatten() {
        for resource in rule.resources.iter().flatten() {
            for verb in &rule.verbs {
                let names = rule.resource_names.iter().flatten();
                let base = PolicyRule {
                    api_groups: one(group),
                    resources: one(resource),
                    verbs: vec![verb.clone()],
                    ..Default::default()
                };
                if rule.resource_names.as_ref().is_some_and(|n| !n.is_empty()) {
                    out.extend(names.map(|n| PolicyRule { resource_names: one(n), ..base.clone() }));
                } else {
                    out.push(base);
                }
            }
        }
    }
    for url in rule.non_resource_urls.iter().flatten() {
        for verb in &rule.verbs {
            out.push(PolicyRule { non_resource_urls: one(url), verbs: vec![verb.clone()], ..Default::default() });
        }
    }
    out
}

/// `CompactRules`: the simple rules (one group, one resource, at most one name) of one resource merged,
/// their verbs in the order met.
fn compact(rules: Vec<PolicyRule>) -> Vec<PolicyRule> {
    let mut simple: BTreeMap<(String, String, Option<String>), PolicyRule> = BTreeMap::new();
    let mut out = Vec::new();
    for rule in rules {
        let single = |v: &Option<Vec<String>>| v.as_ref().filter(|v| v.len() == 1).map(|v| v[0].clone());
        let (group, resource) = (single(&rule.api_groups), single(&rule.resources));
        let names = rule.resource_names.clone().unwrap_or_default();
        let simple_rule = rule.non_resource_urls.as_ref().is_none_or(|u| u.is_empty()) && names.len() <= 1;
        match (group, resource) {
            (Some(g), Some(r)) if simple_rule => {
                let entry = simple
                    .entry((g, r, names.first().cloned()))
                    .or_insert_with(|| PolicyRule { verbs: Vec::new(), ..rule.clone() });
                for verb in rule.verbs {
                    if !entry.verbs.contains(&verb) {
                        entry.verbs.push(verb);
                    }
                }
            }
            _ => out.push(rule),
        }
    }
    out.extend(simple.into_values());
    out
}

/// Go's `%v` of a string slice: `[a b c]`.
fn go_list(v: Option<&Vec<String>>) -> String {
    format!("[{}]", v.map(|v| v.join(" ")).unwrap_or_default())
}

/// The generated `PolicyRule.String()` the rules are sorted by.
fn go_string(r: &PolicyRule) -> String {
    format!(
        "&PolicyRule{{Verbs:{},APIGroups:{},Resources:{},ResourceNames:{},NonResourceURLs:{},}}",
        go_list(Some(&r.verbs)),
        go_list(r.api_groups.as_ref()),
        go_list(r.resources.as_ref()),
        go_list(r.resource_names.as_ref()),
        go_list(r.non_resource_urls.as_ref())
    )
}

/// `CombineResourceGroup`: `deployments.apps`, `deployments.apps/scale`, `pods`.
fn resource_group(r: &PolicyRule) -> String {
    let Some(resource) = r.resources.as_ref().and_then(|v| v.first()) else { return String::new() };
    let (base, sub) = match resource.split_once('/') {
        Some((b, s)) => (b, Some(s)),
        None => (resource.as_str(), None),
    };
    let mut out = base.to_string();
    if let Some(group) = r.api_groups.as_ref().and_then(|g| g.first()).filter(|g| !g.is_empty()) {
        out = format!("{out}.{group}");
    }
    if let Some(sub) = sub {
        out = format!("{out}/{sub}");
    }
    out
}

pub(super) fn describe_role(w: &mut Writer, meta: &ObjectMeta, rules: Option<&Vec<PolicyRule>>) {
    let mut rules = compact(rules.into_iter().flatten().flat_map(breakdown).collect());
    rules.sort_by_cached_key(go_string);
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, "PolicyRule:\n");
    w.write(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n");
    w.write(1, "---------\t-----------------\t--------------\t-----\n");
    for r in &rules {
        w.write(
            1,
            &format!(
                "{}\t{}\t{}\t{}\n",
                resource_group(r),
                go_list(r.non_resource_urls.as_ref()),
                go_list(r.resource_names.as_ref()),
                go_list(Some(&r.verbs))
            ),
        );
    }
}

pub(super) fn describe_binding(w: &mut Writer, meta: &ObjectMeta, role: &RoleRef, subjects: Option<&Vec<Subject>>) {
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, "Role:\n");
    w.write(1, &format!("Kind:\t{}\n", role.kind));
    w.write(1, &format!("Name:\t{}\n", role.name));
    w.write(0, "Subjects:\n");
    w.write(1, "Kind\tName\tNamespace\n");
    w.write(1, "----\t----\t---------\n");
    for s in subjects.into_iter().flatten() {
        w.write(1, &format!("{}\t{}\t{}\n", s.kind, s.name, s.namespace.as_deref().unwrap_or("")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
        let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        PolicyRule {
            api_groups: v(groups),
            resources: v(resources),
            verbs: verbs.iter().map(|x| x.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn rules_are_broken_down_compacted_per_resource_and_sorted_as_go_prints_them() {
        let rules = [
            rule(&[""], &["pods", "pods/log"], &["get", "list"]),
            rule(&["apps"], &["deployments"], &["get"]),
            rule(&[""], &["pods"], &["watch", "get"]),
        ];
        let mut compacted = compact(rules.iter().flat_map(breakdown).collect());
        compacted.sort_by_cached_key(go_string);
        let shown: Vec<(String, String)> =
            compacted.iter().map(|r| (resource_group(r), go_list(Some(&r.verbs)))).collect();
        assert_eq!(
            shown,
            // Verbs come first in the string: `[get list watch]` sorts before `[get list]` (a space before `]`).
            [
                ("pods".to_string(), "[get list watch]".to_string()),
                ("pods/log".to_string(), "[get list]".to_string()),
                ("deployments.apps".to_string(), "[get]".to_string()),
            ]
        );
    }
}
