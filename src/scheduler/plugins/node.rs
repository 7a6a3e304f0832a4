//! The plugins that judge a node by the node alone: NodeUnschedulable, NodeName, TaintToleration (filter,
//! and the PreferNoSchedule score) and NodeAffinity (nodeSelector and required terms; preferred terms as a
//! score). Counterpart: `pkg/scheduler/framework/plugins/{nodeunschedulable,nodename,tainttoleration,
//! nodeaffinity}`, `k8s.io/component-helpers/scheduling/corev1/nodeaffinity`.

use std::collections::BTreeMap;

use crate::api::api::core::v1::{
    NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm, Taint, Toleration,
};

use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::PodInfo;
use super::Rejection;

pub const ERR_UNSCHEDULABLE: &str = "node(s) were unschedulable";
pub const ERR_NODE_NAME: &str = "node(s) didn't match the requested node name";
pub const ERR_NODE_AFFINITY: &str = "node(s) didn't match Pod's node affinity/selector";

/// Whether some toleration tolerates the taint (key, operator, value and effect rules).
pub fn tolerates(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| tolerates_one(t, taint))
}

fn tolerates_one(t: &Toleration, taint: &Taint) -> bool {
    {
        let effect_ok = t.effect.as_deref().is_none_or(|e| e.is_empty() || e == taint.effect);
        let key_ok = match t.key.as_deref() {
            None | Some("") => t.operator.as_deref() == Some("Exists"),
            Some(k) => k == taint.key,
        };
        let value_ok = match t.operator.as_deref() {
            Some("Exists") => true,
            _ => t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        };
        effect_ok && key_ok && value_ok
    }
}

pub fn tolerations(pod: &Pod) -> &[Toleration] {
    pod.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[])
}

/// One NodeSelectorTerm: all its label expressions and field expressions hold (terms are ORed by the caller).
/// A term with no requirement at all matches no node.
pub fn term_matches(term: &NodeSelectorTerm, node_name: &str, labels: &BTreeMap<String, String>) -> bool {
    if term.match_expressions.as_ref().is_none_or(Vec::is_empty) && term.match_fields.as_ref().is_none_or(Vec::is_empty)
    {
        return false;
    }
    term.match_expressions.iter().flatten().all(|r| requirement_holds(r, labels.get(&r.key).map(String::as_str)))
        && term.match_fields.iter().flatten().all(|r| r.key == "metadata.name" && requirement_holds(r, Some(node_name)))
}

fn requirement_holds(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let values = r.values.as_deref().unwrap_or(&[]);
    let number = |v: &str| v.parse::<i64>().ok();
    let bound = || values.first().and_then(|v| number(v));
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.iter().any(|x| x == v)),
        "NotIn" => value.is_none_or(|v| !values.iter().any(|x| x == v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => matches!((value.and_then(number), bound()), (Some(a), Some(b)) if a > b),
        "Lt" => matches!((value.and_then(number), bound()), (Some(a), Some(b)) if a < b),
        _ => false,
    }
}

fn node_affinity_of(pod: &Pod) -> Option<&NodeAffinity> {
    pod.spec.as_ref().and_then(|s| s.affinity.as_ref()).and_then(|a| a.node_affinity.as_ref())
}

/// Whether the node satisfies the pod's nodeSelector and required node affinity
/// (`nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`).
pub fn required_affinity_matches(pod: &Pod, node: &NodeInfo) -> bool {
    let empty = BTreeMap::new();
    let labels = node.labels().unwrap_or(&empty);
    let spec = pod.spec.as_ref();
    let selector_ok =
        spec.and_then(|s| s.node_selector.as_ref()).into_iter().flatten().all(|(k, v)| labels.get(k) == Some(v));
    let required = node_affinity_of(pod).and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    selector_ok && required.is_none_or(|r| r.node_selector_terms.iter().any(|t| term_matches(t, &node.name, labels)))
}

pub const ERR_TERMS_CONFLICT: &str = "pod affinity terms conflict";

/// NodeAffinity's PreFilter result: the only nodes worth filtering when every required term names nodes
/// (`metadata.name In …`, as DaemonSet pods do). None: all nodes; Some(empty): the terms contradict.
pub fn named_nodes(pod: &Pod) -> Option<std::collections::BTreeSet<String>> {
    let terms =
        &node_affinity_of(pod)?.required_during_scheduling_ignored_during_execution.as_ref()?.node_selector_terms;
    let mut names = std::collections::BTreeSet::new();
    for t in terms {
        let mut term_names: Option<std::collections::BTreeSet<String>> = None;
        for r in t.match_fields.iter().flatten().filter(|r| r.key == "metadata.name" && r.operator == "In") {
            let these: std::collections::BTreeSet<String> = r.values.iter().flatten().cloned().collect();
            term_names = Some(match term_names {
                None => these,
                Some(prev) => prev.intersection(&these).cloned().collect(),
            });
        }
        names.extend(term_names?);
    }
    Some(names)
}

/// Whether the pod restricts nodes at all (nodeSelector or required node affinity).
pub fn has_required_affinity(pod: &Pod) -> bool {
    let spec = pod.spec.as_ref();
    spec.and_then(|s| s.node_selector.as_ref()).is_some_and(|m| !m.is_empty())
        || node_affinity_of(pod).is_some_and(|n| n.required_during_scheduling_ignored_during_execution.is_some())
}

pub fn node_unschedulable(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    if !node.unschedulable() {
        return None;
    }
    let taint =
        Taint { key: "node.kubernetes.io/unschedulable".into(), effect: "NoSchedule".into(), ..Taint::default() };
    (!tolerates(tolerations(pod.pod()), &taint)).then(|| Rejection::new("NodeUnschedulable", ERR_UNSCHEDULABLE, true))
}

pub fn node_name(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let wanted = pod.node_name()?;
    (wanted != &*node.name).then(|| Rejection::new("NodeName", ERR_NODE_NAME, true))
}

/// The first NoSchedule/NoExecute taint the pod does not tolerate.
pub fn untolerated_taint<'a>(pod: &Pod, node: &'a NodeInfo) -> Option<&'a Taint> {
    node.taints()
        .iter()
        .find(|t| matches!(t.effect.as_str(), "NoSchedule" | "NoExecute") && !tolerates(tolerations(pod), t))
}

pub fn taint_toleration(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    untolerated_taint(pod.pod(), node).map(|t| {
        let reason = format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value.as_deref().unwrap_or(""));
        Rejection::new("TaintToleration", reason, true)
    })
}

pub fn node_affinity(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    (!required_affinity_matches(pod.pod(), node)).then(|| Rejection::new("NodeAffinity", ERR_NODE_AFFINITY, true))
}

/// TaintToleration's raw score: the PreferNoSchedule taints the pod does not tolerate (fewer is better).
pub fn intolerable_prefer_no_schedule(pod: &PodInfo, node: &NodeInfo) -> i64 {
    let prefer = |t: &&Toleration| t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "PreferNoSchedule");
    let tolerations = tolerations(pod.pod());
    node.taints()
        .iter()
        .filter(|taint| {
            taint.effect == "PreferNoSchedule" && !tolerations.iter().filter(prefer).any(|t| tolerates_one(t, taint))
        })
        .count() as i64
}

fn preferred_terms(pod: &PodInfo) -> &[PreferredSchedulingTerm] {
    node_affinity_of(pod.pod())
        .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_deref())
        .unwrap_or(&[])
}

/// Whether NodeAffinity scores this pod at all (it has preferred terms).
pub fn has_preferred_affinity(pod: &PodInfo) -> bool {
    !preferred_terms(pod).is_empty()
}

/// NodeAffinity's raw score: the weights of the preferred terms the node matches.
pub fn preferred_affinity_weight(pod: &PodInfo, node: &NodeInfo) -> i64 {
    let empty = BTreeMap::new();
    let labels = node.labels().unwrap_or(&empty);
    preferred_terms(pod)
        .iter()
        .filter(|p| p.weight != 0 && term_matches(&p.preference, &node.name, labels))
        .map(|p| i64::from(p.weight))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.map(str::to_string), effect: effect.into(), ..Taint::default() }
    }

    fn tol(key: Option<&str>, op: &str, value: Option<&str>, effect: Option<&str>) -> Toleration {
        Toleration {
            key: key.map(str::to_string),
            operator: Some(op.into()),
            value: value.map(str::to_string),
            effect: effect.map(str::to_string),
            ..Toleration::default()
        }
    }

    #[test]
    fn tolerations_match_key_value_and_effect() {
        let t = taint("gpu", Some("yes"), "NoSchedule");
        assert!(tolerates(&[tol(Some("gpu"), "Equal", Some("yes"), None)], &t));
        assert!(!tolerates(&[tol(Some("gpu"), "Equal", Some("no"), None)], &t));
        assert!(tolerates(&[tol(Some("gpu"), "Exists", None, Some("NoSchedule"))], &t));
        assert!(!tolerates(&[tol(Some("gpu"), "Exists", None, Some("NoExecute"))], &t));
        assert!(tolerates(&[tol(None, "Exists", None, None)], &t));
    }

    #[test]
    fn gt_and_lt_compare_whole_numbers_only() {
        let r = |op: &str, v: &str| NodeSelectorRequirement {
            key: "k".into(),
            operator: op.into(),
            values: Some(vec![v.into()]),
        };
        assert!(requirement_holds(&r("Gt", "3"), Some("4")));
        assert!(!requirement_holds(&r("Gt", "3"), Some("3")));
        assert!(requirement_holds(&r("Lt", "3"), Some("-1")));
        assert!(!requirement_holds(&r("Lt", "x"), Some("1")));
        assert!(!requirement_holds(&r("Gt", "1"), None));
    }
}
