//! The default profile's plugins that decide where a pod goes: filters (NodeUnschedulable, NodeName,
//! TaintToleration, NodeAffinity via nodeSelector, NodeResourcesFit) and scores (TaintToleration ×3,
//! NodeResourcesFit LeastAllocated ×1, NodeResourcesBalancedAllocation ×1), with the real reason strings
//! and FitError message. Counterpart: `pkg/scheduler/framework/plugins`, `framework/types.go` (FitError).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::api::api::core::v1::{Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration};
use crate::apiserver::validation::quantity::parse_quantity;

/// A node with what the scheduler accounts on it.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub node: Node,
    pub requested_milli_cpu: i128,
    pub requested_memory: i128,
    pub pods: usize,
}

fn quantity(q: Option<&k8s_openapi::apimachinery::pkg::api::resource::Quantity>, milli: bool) -> i128 {
    q.and_then(|q| parse_quantity(&q.0).ok()).map(|q| if milli { q.milli() } else { q.value() }).unwrap_or(0)
}

/// The pod's effective requests: the sum over containers, or the largest init container if larger.
pub fn pod_requests(pod: &Pod) -> (i128, i128) {
    let Some(spec) = pod.spec.as_ref() else { return (0, 0) };
    let req = |c: &k8s_openapi::api::core::v1::Container| {
        let r = c.resources.as_ref().and_then(|r| r.requests.as_ref());
        (quantity(r.and_then(|m| m.get("cpu")), true), quantity(r.and_then(|m| m.get("memory")), false))
    };
    let (mut cpu, mut mem) = spec.containers.iter().map(req).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    for ic in spec.init_containers.iter().flatten() {
        let (c, m) = req(ic);
        cpu = cpu.max(c);
        mem = mem.max(m);
    }
    (cpu, mem)
}

impl NodeInfo {
    pub fn new(node: Node) -> NodeInfo {
        NodeInfo { node, requested_milli_cpu: 0, requested_memory: 0, pods: 0 }
    }

    pub fn name(&self) -> &str {
        self.node.metadata.name.as_deref().unwrap_or("")
    }

    pub fn add_pod(&mut self, pod: &Pod) {
        let (cpu, mem) = pod_requests(pod);
        self.requested_milli_cpu += cpu;
        self.requested_memory += mem;
        self.pods += 1;
    }

    fn allocatable(&self) -> (i128, i128, i128) {
        let a = self.node.status.as_ref().and_then(|s| s.allocatable.as_ref());
        (
            quantity(a.and_then(|m| m.get("cpu")), true),
            quantity(a.and_then(|m| m.get("memory")), false),
            quantity(a.and_then(|m| m.get("pods")), false),
        )
    }

    fn taints(&self) -> &[Taint] {
        self.node.spec.as_ref().and_then(|s| s.taints.as_deref()).unwrap_or(&[])
    }
}

/// A filter's verdict on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilterResult {
    pub plugin: String,
    /// None: the node passed. Some(reason): the FitError reason string.
    pub reason: Option<String>,
    /// UnschedulableAndUnresolvable: preemption cannot help.
    pub unresolvable: bool,
}

/// Everything decided about one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeVerdict {
    pub node: String,
    pub filters: Vec<FilterResult>,
    /// Plugin → (raw score 0–100, weight); empty when a filter failed.
    pub scores: BTreeMap<String, (i64, i64)>,
    pub total: i64,
}

impl NodeVerdict {
    pub fn feasible(&self) -> bool {
        self.filters.iter().all(|f| f.reason.is_none())
    }
}

/// One scheduling attempt: every node's verdicts, the chosen node or the FitError message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub nodes: Vec<NodeVerdict>,
    pub chosen: Option<String>,
    /// `0/3 nodes are available: …` when nothing fits.
    pub message: Option<String>,
}

/// Whether some toleration tolerates the taint (key, operator, value and effect rules).
pub fn tolerates(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| {
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
    })
}

fn fail(plugin: &str, reason: String, unresolvable: bool) -> FilterResult {
    FilterResult { plugin: plugin.into(), reason: Some(reason), unresolvable }
}

fn pass(plugin: &str) -> FilterResult {
    FilterResult { plugin: plugin.into(), reason: None, unresolvable: false }
}

/// A filter plugin: None when the node passes, else the FitError reason and whether it is unresolvable.
type Filter = fn(&Pod, &NodeInfo) -> Option<(String, bool)>;

/// The default profile's filters, in order.
const FILTERS: [(&str, Filter); 5] = [
    ("NodeUnschedulable", node_unschedulable),
    ("NodeName", node_name),
    ("TaintToleration", taint_toleration),
    ("NodeAffinity", node_affinity),
    ("NodeResourcesFit", node_resources_fit),
];

fn tolerations(pod: &Pod) -> &[Toleration] {
    pod.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[])
}

fn node_unschedulable(pod: &Pod, info: &NodeInfo) -> Option<(String, bool)> {
    let cordoned = info.node.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false);
    let taint =
        Taint { key: "node.kubernetes.io/unschedulable".into(), effect: "NoSchedule".into(), ..Taint::default() };
    (cordoned && !tolerates(tolerations(pod), &taint)).then(|| ("node(s) were unschedulable".to_string(), true))
}

fn node_name(pod: &Pod, info: &NodeInfo) -> Option<(String, bool)> {
    let wanted = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).filter(|n| !n.is_empty())?;
    (wanted != info.name()).then(|| ("node(s) didn't match the requested node name".to_string(), true))
}

fn taint_toleration(pod: &Pod, info: &NodeInfo) -> Option<(String, bool)> {
    info.taints()
        .iter()
        .find(|t| matches!(t.effect.as_str(), "NoSchedule" | "NoExecute") && !tolerates(tolerations(pod), t))
        .map(|t| (format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value.as_deref().unwrap_or("")), true))
}

fn node_affinity(pod: &Pod, info: &NodeInfo) -> Option<(String, bool)> {
    let labels = info.node.metadata.labels.clone().unwrap_or_default();
    let spec = pod.spec.as_ref();
    let selector = spec.and_then(|s| s.node_selector.as_ref());
    let selector_ok = selector.iter().flat_map(|m| m.iter()).all(|(k, v)| labels.get(k) == Some(v));
    let required = spec
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    let affinity_ok =
        required.is_none_or(|r| r.node_selector_terms.iter().any(|t| term_matches(t, info.name(), &labels)));
    (!(selector_ok && affinity_ok)).then(|| ("node(s) didn't match Pod's node affinity/selector".to_string(), true))
}

/// One NodeSelectorTerm: all its label expressions and field expressions hold (terms are ORed by the caller).
pub fn term_matches(term: &NodeSelectorTerm, node_name: &str, labels: &BTreeMap<String, String>) -> bool {
    let exprs = term.match_expressions.iter().flatten();
    let fields = term.match_fields.iter().flatten();
    if term.match_expressions.as_ref().is_none_or(Vec::is_empty) && term.match_fields.as_ref().is_none_or(Vec::is_empty)
    {
        return false;
    }
    exprs.into_iter().all(|r| requirement_holds(r, labels.get(&r.key).map(String::as_str)))
        && fields.into_iter().all(|r| r.key == "metadata.name" && requirement_holds(r, Some(node_name)))
}

fn requirement_holds(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let values = r.values.clone().unwrap_or_default();
    let number = |v: &str| v.parse::<i64>().ok();
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.iter().any(|x| x == v)),
        "NotIn" => value.is_none_or(|v| !values.iter().any(|x| x == v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a > b),
        "Lt" => matches!((value.and_then(number), values.first().and_then(|v| number(v))), (Some(a), Some(b)) if a < b),
        _ => false,
    }
}

fn node_resources_fit(pod: &Pod, info: &NodeInfo) -> Option<(String, bool)> {
    let (cpu, mem, pods) = info.allocatable();
    let (want_cpu, want_mem) = pod_requests(pod);
    if info.pods as i128 + 1 > pods {
        return Some(("Too many pods".into(), false));
    }
    if want_cpu > 0 && info.requested_milli_cpu + want_cpu > cpu {
        return Some(("Insufficient cpu".into(), false));
    }
    if want_mem > 0 && info.requested_memory + want_mem > mem {
        return Some(("Insufficient memory".into(), false));
    }
    None
}

/// Runs the filters in the profile's order; the first failing filter ends the node's run (as the framework does).
pub fn filter(pod: &Pod, info: &NodeInfo) -> Vec<FilterResult> {
    let mut results = Vec::new();
    for (plugin, check) in FILTERS {
        match check(pod, info) {
            Some((reason, unresolvable)) => {
                results.push(fail(plugin, reason, unresolvable));
                return results;
            }
            None => results.push(pass(plugin)),
        }
    }
    results
}

/// Scores a feasible node: plugin → (score 0–100, weight).
pub fn score(pod: &Pod, info: &NodeInfo) -> BTreeMap<String, (i64, i64)> {
    let (cpu, mem, _) = info.allocatable();
    let (want_cpu, want_mem) = pod_requests(pod);
    // Pods without requests count as 100m cpu / 200Mi memory for scoring (non-zero defaults).
    let want_cpu = if want_cpu == 0 { 100 } else { want_cpu };
    let want_mem = if want_mem == 0 { 200 * 1024 * 1024 } else { want_mem };
    let used_cpu = info.requested_milli_cpu + want_cpu;
    let used_mem = info.requested_memory + want_mem;
    let free = |used: i128, cap: i128| if cap <= 0 || used > cap { 0 } else { ((cap - used) * 100 / cap) as i64 };
    let least = (free(used_cpu, cpu) + free(used_mem, mem)) / 2;
    let frac = |used: i128, cap: i128| if cap <= 0 { 1.0 } else { (used as f64 / cap as f64).min(1.0) };
    let (fc, fm) = (frac(used_cpu, cpu), frac(used_mem, mem));
    let balanced = ((1.0 - (fc - fm).abs()) * 100.0) as i64;
    let prefer_no_schedule = info
        .taints()
        .iter()
        .filter(|t| {
            t.effect == "PreferNoSchedule"
                && !tolerates(pod.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[]), t)
        })
        .count() as i64;
    let taint_score = 100 - (prefer_no_schedule * 100).min(100);
    BTreeMap::from([
        ("NodeResourcesBalancedAllocation".to_string(), (balanced, 1)),
        ("NodeResourcesFit".to_string(), (least, 1)),
        ("TaintToleration".to_string(), (taint_score, 3)),
    ])
}

/// One scheduling attempt over `nodes` (every node is evaluated: clusters under 100 nodes score them all).
pub fn decide(pod: &Pod, nodes: &[NodeInfo]) -> Decision {
    let mut verdicts: Vec<NodeVerdict> = nodes
        .iter()
        .map(|n| {
            let filters = filter(pod, n);
            let feasible = filters.iter().all(|f| f.reason.is_none());
            let scores = if feasible { score(pod, n) } else { BTreeMap::new() };
            let total = scores.values().map(|(s, w)| s * w).sum();
            NodeVerdict { node: n.name().to_string(), filters, scores, total }
        })
        .collect();
    verdicts.sort_by(|a, b| a.node.cmp(&b.node));
    let chosen = verdicts
        .iter()
        .filter(|v| v.feasible())
        .max_by(|a, b| a.total.cmp(&b.total).then(b.node.cmp(&a.node)))
        .map(|v| v.node.clone());
    let message = chosen.is_none().then(|| fit_error(&verdicts));
    Decision { nodes: verdicts, chosen, message }
}

/// `0/N nodes are available: <histogram>. preemption: 0/N nodes are available: <histogram>.`
pub fn fit_error(verdicts: &[NodeVerdict]) -> String {
    let n = verdicts.len();
    if n == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut preemption: BTreeMap<&str, usize> = BTreeMap::new();
    for v in verdicts {
        for f in v.filters.iter().filter(|f| f.reason.is_some()) {
            *reasons.entry(f.reason.clone().unwrap_or_default()).or_default() += 1;
            let p = if f.unresolvable {
                "Preemption is not helpful for scheduling"
            } else {
                "No preemption victims found for incoming pod"
            };
            *preemption.entry(p).or_default() += 1;
        }
    }
    let histogram = |m: Vec<String>| {
        let mut entries = m;
        entries.sort();
        entries.join(", ")
    };
    let main = histogram(reasons.iter().map(|(r, c)| format!("{c} {r}")).collect());
    let pre = histogram(preemption.iter().map(|(r, c)| format!("{c} {r}")).collect());
    format!("0/{n} nodes are available: {main}. preemption: 0/{n} nodes are available: {pre}.")
}
