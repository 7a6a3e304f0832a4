//! Authorization: decides whether an authenticated user may perform a request. Counterpart: the
//! apiserver's authorizer union `Node,RBAC` behind the privileged-group shortcut for `system:masters`.
//! RBAC reads Roles, ClusterRoles and their bindings from the apiserver's own watch cache.

use crate::api::api::rbac::v1::{PolicyRule, Subject};
use crate::api::{Kind, Object, Verb};

use super::authn::UserInfo;
use super::cache::WatchCache;

/// What is being asked, in RBAC's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attributes<'a> {
    pub verb: &'a str,
    pub api_group: &'a str,
    pub resource: &'a str,
    pub subresource: Option<&'a str>,
    pub name: Option<&'a str>,
    pub namespace: Option<&'a str>,
}

impl Attributes<'_> {
    /// The forbidden message RBAC denial produces (responsewriters `forbiddenMessage`).
    pub fn forbidden_detail(&self, user: &str) -> String {
        let resource = match self.subresource {
            Some(sub) => format!("{}/{}", self.resource, sub),
            None => self.resource.to_string(),
        };
        let scope = match self.namespace {
            Some(ns) if !ns.is_empty() => format!("in the namespace {ns:?}"),
            _ => "at the cluster scope".to_string(),
        };
        format!("User {user:?} cannot {} resource {resource:?} in API group {:?} {scope}", self.verb, self.api_group)
    }
}

/// Whether `user` may do what `attrs` describes.
pub fn authorize(user: &UserInfo, attrs: &Attributes, cache: &WatchCache) -> bool {
    decide(user, attrs, cache).is_some()
}

/// The authorizer union's decision: `Some(reason)` when allowed, with the reason of the authorizer that
/// allowed it (empty for the `system:masters` shortcut and the Node authorizer, `RBAC: allowed by …` for
/// RBAC), as a SubjectAccessReview reports it; `None` when no authorizer allows it.
pub fn decide(user: &UserInfo, attrs: &Attributes, cache: &WatchCache) -> Option<String> {
    if user.in_group("system:masters") || node_authorizer(user, attrs) {
        return Some(String::new());
    }
    rbac_allows(user, attrs, cache)
}

/// The Node authorizer, simplified: a kubelet (`system:node:<name>` in `system:nodes`) may read what its
/// pods need and write its own Node, Lease, pod status and events.
fn node_authorizer(user: &UserInfo, attrs: &Attributes) -> bool {
    if !user.in_group("system:nodes") || !user.name.starts_with("system:node:") {
        return false;
    }
    matches!(
        (attrs.resource, attrs.verb),
        (
            "nodes"
                | "pods"
                | "leases"
                | "events"
                | "services"
                | "endpoints"
                | "endpointslices"
                | "configmaps"
                | "secrets"
                | "persistentvolumeclaims"
                | "persistentvolumes"
                | "namespaces"
                | "csinodes",
            _
        )
    ) && (attrs.verb != "delete" || attrs.resource == "pods")
}

/// RBAC's allow reason (`rbac.go` with `ruleAccumulator`'s source description): the first binding that
/// grants it, its role and the subject that matched.
fn rbac_allows(user: &UserInfo, attrs: &Attributes, cache: &WatchCache) -> Option<String> {
    for obj in cache.list(Kind::ClusterRoleBinding, None) {
        if let Object::ClusterRoleBinding(b) = obj.as_ref() {
            if let Some(subject) = matching_subject(b.subjects.as_deref(), user, None) {
                if role_allows(&b.role_ref.kind, &b.role_ref.name, None, attrs, cache) {
                    let binding = format!("ClusterRoleBinding {:?}", b.metadata.name.as_deref().unwrap_or(""));
                    return Some(allowed_by(&binding, &b.role_ref.kind, &b.role_ref.name, &subject));
                }
            }
        }
    }
    let ns = attrs.namespace.filter(|ns| !ns.is_empty())?;
    for obj in cache.list(Kind::RoleBinding, Some(ns)) {
        if let Object::RoleBinding(b) = obj.as_ref() {
            if let Some(subject) = matching_subject(b.subjects.as_deref(), user, Some(ns)) {
                if role_allows(&b.role_ref.kind, &b.role_ref.name, Some(ns), attrs, cache) {
                    let binding = format!("RoleBinding \"{}/{ns}\"", b.metadata.name.as_deref().unwrap_or(""));
                    return Some(allowed_by(&binding, &b.role_ref.kind, &b.role_ref.name, &subject));
                }
            }
        }
    }
    None
}

fn allowed_by(binding: &str, role_kind: &str, role: &str, subject: &str) -> String {
    format!("RBAC: allowed by {binding} of {role_kind} {role:?} to {subject}")
}

fn subjects_match(subjects: Option<&[Subject]>, user: &UserInfo, binding_ns: Option<&str>) -> bool {
    matching_subject(subjects, user, binding_ns).is_some()
}

/// The first subject that names `user`, described as RBAC describes it (`User "alice"`, `Group "dev"`,
/// `ServiceAccount "name/namespace"`).
fn matching_subject(subjects: Option<&[Subject]>, user: &UserInfo, binding_ns: Option<&str>) -> Option<String> {
    subjects.unwrap_or(&[]).iter().find_map(|s| match s.kind.as_str() {
        "User" if s.name == user.name => Some(format!("User {:?}", s.name)),
        "Group" if user.in_group(&s.name) => Some(format!("Group {:?}", s.name)),
        "ServiceAccount" => {
            let ns = s.namespace.as_deref().or(binding_ns).unwrap_or("");
            (user.name == format!("system:serviceaccount:{ns}:{}", s.name))
                .then(|| format!("ServiceAccount \"{}/{ns}\"", s.name))
        }
        _ => None,
    })
}

fn role_allows(kind: &str, name: &str, ns: Option<&str>, attrs: &Attributes, cache: &WatchCache) -> bool {
    let rules = match (kind, ns) {
        ("ClusterRole", _) => match cache.get(Kind::ClusterRole, None, name).as_deref() {
            Some(Object::ClusterRole(r)) => r.rules.clone(),
            _ => None,
        },
        ("Role", Some(ns)) => match cache.get(Kind::Role, Some(ns), name).as_deref() {
            Some(Object::Role(r)) => r.rules.clone(),
            _ => None,
        },
        _ => None,
    };
    rules.unwrap_or_default().iter().any(|r| rule_allows(r, attrs))
}

fn has(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

/// One PolicyRule against the attributes (resource rules and `resource/subresource` forms).
pub fn rule_allows(rule: &PolicyRule, attrs: &Attributes) -> bool {
    if !has(&rule.verbs, attrs.verb) {
        return false;
    }
    let groups = rule.api_groups.clone().unwrap_or_default();
    let resources = rule.resources.clone().unwrap_or_default();
    if !has(&groups, attrs.api_group) {
        return false;
    }
    let combined = attrs.subresource.map(|s| format!("{}/{}", attrs.resource, s));
    let resource_ok = match &combined {
        Some(c) => {
            resources.iter().any(|r| r == "*" || r == c || r == &format!("*/{}", attrs.subresource.unwrap_or("")))
        }
        None => has(&resources, attrs.resource),
    };
    if !resource_ok {
        return false;
    }
    let names = rule.resource_names.clone().unwrap_or_default();
    names.is_empty() || attrs.name.is_some_and(|n| names.iter().any(|x| x == n))
}

/// Whether `user` may use a non-resource URL (`get /healthz`): `system:masters`, or a ClusterRole bound
/// cluster-wide whose `nonResourceURLs` match the path exactly or by a trailing `*`.
pub fn authorize_non_resource(user: &UserInfo, verb: &str, path: &str, cache: &WatchCache) -> bool {
    if user.in_group("system:masters") {
        return true;
    }
    cache.list(Kind::ClusterRoleBinding, None).iter().any(|obj| match obj.as_ref() {
        Object::ClusterRoleBinding(b) if subjects_match(b.subjects.as_deref(), user, None) => {
            match cache.get(Kind::ClusterRole, None, &b.role_ref.name).as_deref() {
                Some(Object::ClusterRole(r)) if b.role_ref.kind == "ClusterRole" => {
                    r.rules.iter().flatten().any(|rule| {
                        has(&rule.verbs, verb)
                            && rule.non_resource_urls.iter().flatten().any(|u| {
                                u == path || u == "*" || u.strip_suffix('*').is_some_and(|p| path.starts_with(p))
                            })
                    })
                }
                _ => false,
            }
        }
        _ => false,
    })
}

/// Every RBAC rule that applies to `user` in `namespace` (cluster-wide bindings first, then the namespace's),
/// as a SelfSubjectRulesReview reports them.
pub fn rules_for(user: &UserInfo, namespace: &str, cache: &WatchCache) -> Vec<PolicyRule> {
    let mut out = Vec::new();
    let mut collect = |kind: &str, name: &str, ns: Option<&str>| {
        let rules = match (kind, ns) {
            ("ClusterRole", _) => match cache.get(Kind::ClusterRole, None, name).as_deref() {
                Some(Object::ClusterRole(r)) => r.rules.clone(),
                _ => None,
            },
            ("Role", Some(ns)) => match cache.get(Kind::Role, Some(ns), name).as_deref() {
                Some(Object::Role(r)) => r.rules.clone(),
                _ => None,
            },
            _ => None,
        };
        out.extend(rules.unwrap_or_default());
    };
    for obj in cache.list(Kind::ClusterRoleBinding, None) {
        if let Object::ClusterRoleBinding(b) = obj.as_ref() {
            if subjects_match(b.subjects.as_deref(), user, None) {
                collect(&b.role_ref.kind, &b.role_ref.name, None);
            }
        }
    }
    if !namespace.is_empty() {
        for obj in cache.list(Kind::RoleBinding, Some(namespace)) {
            if let Object::RoleBinding(b) = obj.as_ref() {
                if subjects_match(b.subjects.as_deref(), user, Some(namespace)) {
                    collect(&b.role_ref.kind, &b.role_ref.name, Some(namespace));
                }
            }
        }
    }
    out
}

/// The RBAC verb of a request (`get` vs `list` vs `watch` are distinct).
pub fn rbac_verb(verb: Verb) -> &'static str {
    verb.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_detail_names_user_verb_resource_group_and_scope() {
        let a = Attributes {
            verb: "create",
            api_group: "",
            resource: "pods",
            subresource: None,
            name: None,
            namespace: Some("default"),
        };
        assert_eq!(
            a.forbidden_detail("jane"),
            r#"User "jane" cannot create resource "pods" in API group "" in the namespace "default""#
        );
        let n = Attributes {
            verb: "list",
            api_group: "",
            resource: "nodes",
            subresource: None,
            name: None,
            namespace: None,
        };
        assert_eq!(
            n.forbidden_detail("jane"),
            r#"User "jane" cannot list resource "nodes" in API group "" at the cluster scope"#
        );
        let s = Attributes {
            verb: "get",
            api_group: "",
            resource: "pods",
            subresource: Some("log"),
            name: Some("x"),
            namespace: Some("dev"),
        };
        assert_eq!(
            s.forbidden_detail("bob"),
            r#"User "bob" cannot get resource "pods/log" in API group "" in the namespace "dev""#
        );
    }

    #[test]
    fn rules_match_verbs_groups_resources_subresources_and_names() {
        let rule = PolicyRule {
            api_groups: Some(vec!["".into()]),
            resources: Some(vec!["pods".into(), "pods/log".into()]),
            verbs: vec!["get".into(), "list".into()],
            resource_names: None,
            non_resource_urls: None,
        };
        let mut a = Attributes {
            verb: "get",
            api_group: "",
            resource: "pods",
            subresource: None,
            name: Some("x"),
            namespace: Some("d"),
        };
        assert!(rule_allows(&rule, &a));
        a.subresource = Some("log");
        assert!(rule_allows(&rule, &a));
        a.subresource = Some("exec");
        assert!(!rule_allows(&rule, &a));
        a.subresource = None;
        a.verb = "delete";
        assert!(!rule_allows(&rule, &a));
        a.verb = "get";
        a.api_group = "apps";
        assert!(!rule_allows(&rule, &a));
    }
}
