//! PodTopologySpread: `DoNotSchedule` constraints filter nodes whose domain would exceed `maxSkew` over the
//! least loaded domain; `ScheduleAnyway` constraints (or, for pods without constraints, the system defaults
//! — hostname maxSkew 3 and zone maxSkew 5 over the selectors of the pod's Services and controller) score
//! emptier domains higher. Counts come from the cache's running counts; only pods whose node affinity or
//! taint policy narrows the eligible nodes make a cycle walk the nodes.
//! Counterpart: `pkg/scheduler/framework/plugins/podtopologyspread` (filtering.go, scoring.go, plugin.go).

use std::collections::BTreeSet;

use crate::api::selector::LabelSelector;

use super::super::cache::{Cache, Selection};
use super::super::counts::{Counter, TopoCounts};
use super::super::listers::Listers;
use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::{PodInfo, SpreadConstraint};
use super::node::{has_required_affinity, required_affinity_matches, untolerated_taint};
use super::resources::MAX_NODE_SCORE;
use super::{Overlay, Rejection};

pub const ERR_CONSTRAINTS: &str = "node(s) didn't match pod topology spread constraints";
pub const ERR_MISSING_LABEL: &str = "node(s) didn't match pod topology spread constraints (missing required label)";
pub const HOSTNAME: &str = "kubernetes.io/hostname";
pub const ZONE: &str = "topology.kubernetes.io/zone";

/// One constraint with where its counts are.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub constraint: SpreadConstraint,
    /// The counted selection; None when the selector selects nothing to count.
    selection: Option<Selection>,
    /// Counts built for this cycle when not every node is eligible; None: the cache's counts.
    own: Option<TopoCounts>,
    /// How many domains (label values) the eligible nodes have.
    domains: usize,
}

impl Prepared {
    fn counts<'a>(&'a self, cache: &'a Cache) -> Option<&'a TopoCounts> {
        match &self.own {
            Some(t) => Some(t),
            None => cache.selection(self.selection.as_ref()?)?.topo(&self.constraint.topology_key),
        }
    }

    /// Whether a pod counts for this constraint (same namespace, selected, not terminating).
    fn counts_pod(&self, owner: &PodInfo, p: &PodInfo) -> bool {
        self.selection.is_some()
            && !p.terminating
            && p.namespace == owner.namespace
            && self.constraint.selector.as_ref().is_some_and(|s| s.matches(p.labels()))
    }
}

#[derive(Debug, Clone)]
pub struct FilterState {
    pub constraints: Vec<Prepared>,
}

fn selection_of(pod: &PodInfo, selector: Option<&LabelSelector>) -> Option<Selection> {
    let selector = selector.filter(|s| !s.is_empty())?;
    Some(Selection {
        namespaces: Some(vec![pod.namespace.clone()]),
        selector: selector.to_string_form(),
        include_terminating: false,
    })
}

/// Whether a node counts for a constraint (the inclusion policies).
fn eligible(c: &SpreadConstraint, pod: &PodInfo, node: &NodeInfo) -> bool {
    (!c.honor_node_affinity || required_affinity_matches(pod.pod(), node))
        && (!c.honor_taints || untolerated_taint(pod.pod(), node).is_none())
}

/// Whether every eligible node is every node, so the cache's counts can be read as they are.
fn all_nodes_count(constraints: &[SpreadConstraint], pod: &PodInfo, cache: &Cache, require_all_keys: bool) -> bool {
    let narrowed =
        constraints.iter().any(|c| (c.honor_node_affinity && has_required_affinity(pod.pod())) || c.honor_taints);
    let keys_everywhere =
        !require_all_keys || constraints.iter().all(|c| cache.nodes_with_key(&c.topology_key) == cache.node_count());
    !narrowed && keys_everywhere
}

fn has_all_keys<'a>(mut keys: impl Iterator<Item = &'a SpreadConstraint>, node: &NodeInfo) -> bool {
    keys.all(|c| node.label(&c.topology_key).is_some())
}

/// Counts every constraint over the eligible nodes, the cache's way or walking the nodes.
fn prepare(
    cache: &mut Cache,
    pod: &PodInfo,
    constraints: Vec<SpreadConstraint>,
    require_all_keys: bool,
) -> Vec<Prepared> {
    for c in &constraints {
        if let (Some(sel), Some(selector)) = (selection_of(pod, c.selector.as_ref()), c.selector.as_ref()) {
            cache.ensure_selection(&sel, selector);
            cache.ensure_selection_topology(&sel, &c.topology_key);
        }
    }
    let fast = all_nodes_count(&constraints, pod, cache, require_all_keys);
    let mut out: Vec<Prepared> = constraints
        .iter()
        .map(|c| Prepared {
            selection: selection_of(pod, c.selector.as_ref()),
            own: (!fast).then(TopoCounts::default),
            domains: if fast { cache.domains(&c.topology_key) } else { 0 },
            constraint: c.clone(),
        })
        .collect();
    if fast {
        return out;
    }
    let mut domains: Vec<BTreeSet<&str>> = vec![BTreeSet::new(); out.len()];
    for slot in cache.order() {
        let Some(node) = cache.node_at(*slot) else { continue };
        let name = &*node.name;
        if require_all_keys && !has_all_keys(constraints.iter(), node) {
            continue;
        }
        for (i, p) in out.iter_mut().enumerate() {
            if !eligible(&p.constraint, pod, node) {
                continue;
            }
            let value = node.label(&p.constraint.topology_key);
            if let Some(v) = value {
                domains[i].insert(v);
            }
            let n = p.selection.as_ref().and_then(|s| cache.selection(s)).map_or(0, |c| c.on_node(name));
            if let Some(own) = p.own.as_mut() {
                own.add(value, n);
            }
        }
    }
    for (p, d) in out.iter_mut().zip(domains) {
        p.domains = d.len();
    }
    out
}

/// PreFilter: None when the pod has no `DoNotSchedule` constraint (the filter is skipped).
pub fn prefilter(cache: &mut Cache, pod: &PodInfo) -> Option<FilterState> {
    let hard: Vec<SpreadConstraint> = pod.spread.iter().filter(|c| c.hard).cloned().collect();
    if hard.is_empty() {
        return None;
    }
    Some(FilterState { constraints: prepare(cache, pod, hard, true) })
}

pub fn filter(
    state: &FilterState,
    cache: &Cache,
    pod: &PodInfo,
    node: &NodeInfo,
    overlay: &Overlay,
) -> Option<Rejection> {
    for p in &state.constraints {
        let c = &p.constraint;
        let Some(value) = node.label(&c.topology_key) else {
            return Some(Rejection::new("PodTopologySpread", ERR_MISSING_LABEL, true));
        };
        let delta = overlay.added.iter().filter(|q| p.counts_pod(pod, q)).count() as i64
            - overlay.removed.iter().filter(|q| p.counts_pod(pod, q)).count() as i64;
        let counts = p.counts(cache);
        let matching = counts.map_or(0, |t| t.get(value)) + delta;
        let mut min = counts.map_or(0, |t| t.min_after(p.domains, value, delta));
        if c.min_domains.is_some_and(|m| (p.domains as i64) < m) {
            min = 0;
        }
        let self_match = i64::from(c.selector.as_ref().is_some_and(|s| s.matches(pod.labels())));
        if matching + self_match - min > c.max_skew {
            return Some(Rejection::new("PodTopologySpread", ERR_CONSTRAINTS, false));
        }
    }
    None
}

/// The system default constraints: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
pub fn system_defaults(selector: LabelSelector) -> Vec<SpreadConstraint> {
    [(HOSTNAME, 3), (ZONE, 5)]
        .into_iter()
        .map(|(key, skew)| SpreadConstraint {
            max_skew: skew,
            topology_key: key.to_string(),
            hard: false,
            selector: Some(selector.clone()),
            min_domains: None,
            honor_node_affinity: true,
            honor_taints: false,
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct ScoreState {
    constraints: Vec<Prepared>,
    require_all_keys: bool,
    /// ln(domains among the feasible nodes + 2) per constraint.
    weights: Vec<f64>,
    /// Per constraint: the label values the feasible nodes have (missing as "").
    present: Vec<BTreeSet<String>>,
}

/// PreScore: None when the pod has no soft constraint and the system defaults do not apply (skipped).
pub fn prescore(cache: &mut Cache, pod: &PodInfo, listers: &Listers, feasible: &[usize]) -> Option<ScoreState> {
    let (constraints, require_all_keys) = if pod.spread.is_empty() {
        (system_defaults(listers.default_selector(pod)?), false)
    } else {
        (pod.spread.iter().filter(|c| !c.hard).cloned().collect::<Vec<_>>(), true)
    };
    if constraints.is_empty() {
        return None;
    }
    let constraints = prepare(cache, pod, constraints, require_all_keys);
    let mut present = vec![BTreeSet::new(); constraints.len()];
    let mut scored_nodes = 0usize;
    if require_all_keys {
        for node in feasible.iter().filter_map(|n| cache.node_at(*n)) {
            if !has_all_keys(constraints.iter().map(|p| &p.constraint), node) {
                continue;
            }
            scored_nodes += 1;
            for (i, p) in constraints.iter().enumerate() {
                if p.constraint.topology_key != HOSTNAME {
                    note_value(&mut present[i], node.label(&p.constraint.topology_key).unwrap_or(""));
                }
            }
        }
    } else {
        // Every feasible node is scored; a constraint's walk ends once it has seen every value the cluster's
        // nodes have for its key (a zone or three, usually, among hundreds of nodes).
        scored_nodes = feasible.iter().filter(|n| cache.node_at(**n).is_some()).count();
        for (i, p) in constraints.iter().enumerate() {
            let key = &p.constraint.topology_key;
            if key == HOSTNAME {
                continue;
            }
            let possible = cache.domains(key) + usize::from(cache.nodes_with_key(key) < cache.node_count());
            for node in feasible.iter().filter_map(|n| cache.node_at(*n)) {
                if present[i].len() >= possible {
                    break;
                }
                note_value(&mut present[i], node.label(key).unwrap_or(""));
            }
        }
    }
    let weights = constraints
        .iter()
        .zip(&present)
        .map(|(p, values)| {
            let size = if p.constraint.topology_key == HOSTNAME { scored_nodes } else { values.len() };
            ((size + 2) as f64).ln()
        })
        .collect();
    Some(ScoreState { constraints, require_all_keys, weights, present })
}

fn note_value(values: &mut BTreeSet<String>, value: &str) {
    if !values.contains(value) {
        values.insert(value.to_string());
    }
}

/// The raw scores of `nodes` (matching pods weighted, lower is better); None for a node the plugin ignores.
/// The counts each constraint reads are looked up once for all the nodes, not once per node.
pub fn scores(state: &ScoreState, cache: &Cache, nodes: &[&NodeInfo]) -> Vec<Option<i64>> {
    let sources: Vec<(Option<&Counter>, Option<&TopoCounts>)> = state
        .constraints
        .iter()
        .map(|p| match p.constraint.topology_key == HOSTNAME {
            true => (p.selection.as_ref().and_then(|s| cache.selection(s)), None),
            false => (None, p.counts(cache)),
        })
        .collect();
    let score = |node: &NodeInfo| {
        if state.require_all_keys && !has_all_keys(state.constraints.iter().map(|p| &p.constraint), node) {
            return None;
        }
        let mut total = 0.0;
        for (i, (p, (host, topo))) in state.constraints.iter().zip(&sources).enumerate() {
            let c = &p.constraint;
            let Some(value) = node.label(&c.topology_key) else { continue };
            let count = if c.topology_key == HOSTNAME {
                host.map_or(0, |k| k.on_node(&node.name))
            } else if !state.present[i].contains(value) {
                0
            } else {
                let missing =
                    if value.is_empty() && !state.require_all_keys { topo.map_or(0, |t| t.missing) } else { 0 };
                topo.map_or(0, |t| t.get(value)) + missing
            };
            total += count as f64 * state.weights[i] + (c.max_skew - 1) as f64;
        }
        Some(total.round() as i64)
    };
    nodes.iter().map(|n| score(n)).collect()
}

/// Fewer matching pods score higher: 100 × (max + min − score) / max over the scored nodes.
pub fn normalize(raw: &[Option<i64>]) -> Vec<i64> {
    let valid = raw.iter().flatten();
    let min = valid.clone().copied().min().unwrap_or(0);
    let max = valid.copied().max().unwrap_or(0);
    raw.iter()
        .map(|s| match s {
            None => 0,
            Some(_) if max == 0 => MAX_NODE_SCORE,
            Some(s) => MAX_NODE_SCORE * (max + min - s) / max,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizing_favours_fewer_matching_pods_and_zeroes_ignored_nodes() {
        assert_eq!(normalize(&[Some(2), Some(4), None]), vec![100, 50, 0]);
        assert_eq!(normalize(&[Some(0), Some(0)]), vec![100, 100]);
    }
}
