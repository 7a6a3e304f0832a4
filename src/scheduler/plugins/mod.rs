//! The default profile's plugins, run in its order: PreFilter (work out what the filters need, reject the
//! pod outright, or skip a filter), Filter per node (the first failing filter ends the node's run), PreScore
//! and Score over the feasible nodes, normalized to 0–100 and weighted (TaintToleration 3, NodeAffinity 2,
//! NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1,
//! ImageLocality 1). Counterpart: `pkg/scheduler/apis/config/v1/default_plugins.go`,
//! `pkg/scheduler/framework/runtime/framework.go`.

pub mod images;
pub mod interpod;
pub mod node;
pub mod ports;
pub mod resources;
pub mod spread;
pub mod volumes;

use std::sync::Arc;

use serde::Serialize;

use super::cache::Cache;
use super::listers::Listers;
use super::nodeinfo::NodeInfo;
use super::podinfo::PodInfo;

pub use node::{term_matches, tolerates};

/// The filter plugins, in the profile's order.
pub const FILTERS: [&str; 9] = [
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeBinding",
    "PodTopologySpread",
    "InterPodAffinity",
];

/// The score plugins with their weights, in the profile's order.
pub const SCORES: [(&str, i64); 7] = [
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodeResourcesFit", 1),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
];

/// A plugin's refusal: the FitError reasons, and whether preemption could help.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    pub plugin: &'static str,
    pub reasons: Vec<String>,
    /// UnschedulableAndUnresolvable: removing pods from the node would not help.
    pub unresolvable: bool,
}

impl Rejection {
    pub fn new(plugin: &'static str, reason: impl Into<String>, unresolvable: bool) -> Rejection {
        Rejection { plugin, reasons: vec![reason.into()], unresolvable }
    }

    /// The status message: the reasons joined as the framework joins them.
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}

/// Pods to count on the node being filtered besides its own: nominated pods added, preemption victims
/// removed. (The node's own sums are adjusted on a copy; the cluster-wide counts through this.)
#[derive(Debug, Clone, Copy, Default)]
pub struct Overlay<'a> {
    pub added: &'a [Arc<PodInfo>],
    pub removed: &'a [Arc<PodInfo>],
}

/// What PreFilter worked out for one scheduling attempt.
#[derive(Debug, Clone)]
pub struct CycleState {
    pub pod: Arc<PodInfo>,
    /// Filter plugins PreFilter skipped (nothing for them to check).
    pub skipped: Vec<&'static str>,
    /// NodeAffinity's PreFilter result: only these nodes can fit (None: any node).
    pub only_nodes: Option<std::collections::BTreeSet<String>>,
    check_node_affinity: bool,
    volumes: Option<volumes::VolumeState>,
    spread: Option<spread::FilterState>,
    interpod: Option<interpod::FilterState>,
}

/// Why PreFilter stopped the attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreFilterFailure {
    /// No node can take the pod (the message goes before the preemption part of the FitError).
    Rejected(Rejection),
}

/// Runs the PreFilter plugins in order.
pub fn prefilter(cache: &mut Cache, pod: Arc<PodInfo>, listers: &Listers) -> Result<CycleState, PreFilterFailure> {
    let mut skipped = Vec::new();
    let check_node_affinity = node::has_required_affinity(pod.pod());
    if !check_node_affinity {
        skipped.push("NodeAffinity");
    }
    let only_nodes = node::named_nodes(pod.pod());
    if only_nodes.as_ref().is_some_and(|n| n.is_empty()) {
        return Err(PreFilterFailure::Rejected(Rejection::new("NodeAffinity", node::ERR_TERMS_CONFLICT, true)));
    }
    if pod.host_ports.is_empty() {
        skipped.push("NodePorts");
    }
    let volumes = match volumes::prefilter(&pod, listers) {
        Ok(v) => v,
        Err(message) => {
            return Err(PreFilterFailure::Rejected(Rejection::new("VolumeBinding", message, true)));
        }
    };
    if volumes.is_none() {
        skipped.push("VolumeBinding");
    }
    let spread = spread::prefilter(cache, &pod);
    if spread.is_none() {
        skipped.push("PodTopologySpread");
    }
    let interpod = interpod::prefilter(cache, &pod, listers);
    if interpod.is_none() {
        skipped.push("InterPodAffinity");
    }
    Ok(CycleState { pod, skipped, only_nodes, check_node_affinity, volumes, spread, interpod })
}

/// Runs the filters against one node; the first refusal ends the run.
pub fn run_filters(
    state: &CycleState,
    cache: &Cache,
    node: &NodeInfo,
    overlay: &Overlay,
    listers: &Listers,
) -> Option<Rejection> {
    let pod = &state.pod;
    node::node_unschedulable(pod, node)
        .or_else(|| node::node_name(pod, node))
        .or_else(|| node::taint_toleration(pod, node))
        .or_else(|| state.check_node_affinity.then(|| node::node_affinity(pod, node)).flatten())
        .or_else(|| ports::filter(pod, node))
        .or_else(|| resources::filter(pod, node))
        .or_else(|| state.volumes.as_ref().and_then(|v| volumes::filter(v, node, listers)))
        .or_else(|| state.spread.as_ref().and_then(|s| spread::filter(s, cache, pod, node, overlay)))
        .or_else(|| state.interpod.as_ref().and_then(|s| interpod::filter(s, cache, pod, node, overlay, listers)))
}

/// One plugin's score for one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PluginScore {
    pub plugin: &'static str,
    /// What Score returned, before NormalizeScore.
    pub raw: i64,
    /// 0–100 after NormalizeScore.
    pub score: i64,
    pub weight: i64,
}

/// The default normalization: scaled so the highest is 100 (reversed: fewer is better, all 100 if all 0).
fn default_normalize(raw: &[i64], reverse: bool) -> Vec<i64> {
    let max = raw.iter().copied().max().unwrap_or(0);
    raw.iter()
        .map(|s| {
            if max == 0 {
                if reverse {
                    resources::MAX_NODE_SCORE
                } else {
                    0
                }
            } else {
                let v = resources::MAX_NODE_SCORE * s / max;
                if reverse {
                    resources::MAX_NODE_SCORE - v
                } else {
                    v
                }
            }
        })
        .collect()
}

/// The scores of the plugins that ran, one column per plugin (in the profile's order), one row per node.
#[derive(Debug, Clone, Default)]
pub struct ScoreTable {
    columns: Vec<(&'static str, i64, Vec<i64>, Vec<i64>)>,
    /// Score plugins skipped at PreScore.
    pub skipped: Vec<&'static str>,
}

impl ScoreTable {
    /// Node `i`'s weighted total.
    pub fn total(&self, i: usize) -> i64 {
        self.columns.iter().map(|(_, weight, normalized, _)| normalized[i] * weight).sum()
    }

    /// Node `i`'s scores plugin by plugin.
    pub fn row(&self, i: usize) -> Vec<PluginScore> {
        self.columns
            .iter()
            .map(|(plugin, weight, normalized, raw)| PluginScore {
                plugin,
                raw: raw[i],
                score: normalized[i],
                weight: *weight,
            })
            .collect()
    }
}

/// PreScore and Score over the feasible nodes (slots).
pub fn score_nodes(cache: &mut Cache, state: &CycleState, listers: &Listers, feasible: &[usize]) -> ScoreTable {
    let pod = &state.pod;
    let spread_state = spread::prescore(cache, pod, listers, feasible);
    let interpod_state = interpod::prescore(cache, pod, listers);
    let cache = &*cache;
    let nodes: Vec<&NodeInfo> = feasible.iter().filter_map(|n| cache.node_at(*n)).collect();
    let mut columns: Vec<(&'static str, Vec<i64>, Vec<i64>)> = Vec::new();
    let mut skipped = Vec::new();
    let raw_of = |f: &dyn Fn(&NodeInfo) -> i64| nodes.iter().map(|n| f(n)).collect::<Vec<i64>>();
    for (plugin, _) in SCORES {
        let column = match plugin {
            "TaintToleration" => {
                let raw = raw_of(&|n| node::intolerable_prefer_no_schedule(pod, n));
                Some((default_normalize(&raw, true), raw))
            }
            "NodeAffinity" if node::has_preferred_affinity(pod) => {
                let raw = raw_of(&|n| node::preferred_affinity_weight(pod, n));
                Some((default_normalize(&raw, false), raw))
            }
            "NodeResourcesFit" => {
                let raw = raw_of(&|n| resources::least_allocated(pod, n));
                Some((raw.clone(), raw))
            }
            "PodTopologySpread" => spread_state.as_ref().map(|s| {
                let raw = spread::scores(s, cache, &nodes);
                (spread::normalize(&raw), raw.iter().map(|r| r.unwrap_or(0)).collect())
            }),
            "InterPodAffinity" => interpod_state.as_ref().map(|s| {
                let raw = raw_of(&|n| interpod::score(s, n));
                (interpod::normalize(&raw), raw)
            }),
            "NodeResourcesBalancedAllocation" if resources::balanced_applies(pod) => {
                let raw = raw_of(&|n| resources::balanced_allocation(pod, n));
                Some((raw.clone(), raw))
            }
            "ImageLocality" => {
                let wanted = images::pod_images(pod);
                let raw = raw_of(&|n| images::score(&wanted, n, cache));
                Some((raw.clone(), raw))
            }
            _ => None,
        };
        match column {
            Some((normalized, raw)) => columns.push((plugin, normalized, raw)),
            None => skipped.push(plugin),
        }
    }
    let weight = |plugin: &str| SCORES.iter().find(|(p, _)| *p == plugin).map_or(0, |(_, w)| *w);
    let columns = columns.into_iter().map(|(p, normalized, raw)| (p, weight(p), normalized, raw)).collect();
    ScoreTable { columns, skipped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_normalization_scales_to_the_highest_or_reverses() {
        assert_eq!(default_normalize(&[0, 2, 4], false), vec![0, 50, 100]);
        assert_eq!(default_normalize(&[0, 1, 2], true), vec![100, 50, 0]);
        assert_eq!(default_normalize(&[0, 0], true), vec![100, 100]);
        assert_eq!(default_normalize(&[0, 0], false), vec![0, 0]);
    }
}
