//! One scheduling attempt (schedulePod): PreFilter; the pod's nominated node first; otherwise a walk over the
//! nodes from `nextStartNodeIndex` until `numFeasibleNodesToFind` nodes pass the filters (filters run with
//! the nominated pods of equal or higher priority added, then without); scoring when more than one node
//! passed; and a random pick among the best. Counterpart: `pkg/scheduler/schedule_one.go` (schedulePod,
//! findNodesThatFitPod, findNodesThatPassFilters, numFeasibleNodesToFind, prioritizeNodes, selectHost) and
//! `framework/runtime/framework.go` (RunFilterPluginsWithNominatedPods).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::sim::Rng;

use super::cache::Cache;
use super::decision::{fit_message, Decision, NodeScore, SCORED_NODES_KEPT};
use super::listers::Listers;
use super::nodeinfo::NodeInfo;
use super::plugins::{self, CycleState, Overlay, PreFilterFailure, Rejection};
use super::podinfo::PodInfo;

/// Below this many nodes every node is evaluated; above, at least this many feasible nodes are looked for.
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// The adaptive percentage never goes below this.
pub const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// How many feasible nodes to find before scoring: all of them under 100 nodes; else `percentage` of the
/// nodes (0 means adaptive: 50% − 1% per 125 nodes, at least 5%), at least 100.
pub fn num_feasible_nodes_to_find(percentage: u32, num_all_nodes: usize) -> usize {
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
        return num_all_nodes;
    }
    let mut percentage = i64::from(percentage);
    if percentage == 0 {
        percentage = (50 - num_all_nodes as i64 / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
    }
    let n = (num_all_nodes as i64 * percentage / 100) as usize;
    n.max(MIN_FEASIBLE_NODES_TO_FIND)
}

/// Pods nominated to nodes by preemption, waiting for their victims to go.
#[derive(Debug, Clone, Default)]
pub struct Nominator {
    by_node: BTreeMap<String, BTreeMap<String, Arc<PodInfo>>>,
    node_of: BTreeMap<String, String>,
}

impl Nominator {
    pub fn add(&mut self, pod: Arc<PodInfo>, node: &str) {
        self.remove(&pod.key);
        self.node_of.insert(pod.key.clone(), node.to_string());
        self.by_node.entry(node.to_string()).or_default().insert(pod.key.clone(), pod);
    }

    pub fn remove(&mut self, key: &str) {
        if let Some(node) = self.node_of.remove(key) {
            if let Some(pods) = self.by_node.get_mut(&node) {
                pods.remove(key);
                if pods.is_empty() {
                    self.by_node.remove(&node);
                }
            }
        }
    }

    pub fn node_of(&self, key: &str) -> Option<&str> {
        self.node_of.get(key).map(String::as_str)
    }

    pub fn on_node(&self, node: &str) -> impl Iterator<Item = &Arc<PodInfo>> {
        self.by_node.get(node).into_iter().flat_map(|m| m.values())
    }

    pub fn clear(&mut self) {
        self.by_node.clear();
        self.node_of.clear();
    }
}

/// Why no node was found: what the FitError message and preemption read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    pub nodes_total: usize,
    /// PreFilter refused the pod outright (every node shares that status).
    pub prefilter: Option<Rejection>,
    /// Each evaluated node's refusal.
    pub statuses: BTreeMap<Arc<str>, Rejection>,
    /// The status of the nodes PreFilter left out (NodeAffinity naming nodes).
    pub absent: Option<Rejection>,
}

impl Diagnosis {
    pub fn message(&self, postfilter: Option<&str>) -> String {
        let pre = self.prefilter.as_ref().map(Rejection::message);
        let absent = self.absent.as_ref().map(Rejection::message);
        fit_message(self.nodes_total, pre.as_deref(), self.statuses.values(), absent.as_deref(), postfilter)
    }

    /// The node's status (the PreFilter refusal stands for every node).
    pub fn status(&self, node: &str) -> Option<&Rejection> {
        self.prefilter.as_ref().or_else(|| self.statuses.get(node)).or(self.absent.as_ref())
    }
}

pub enum Attempt {
    Chosen(Arc<str>),
    Unschedulable {
        diagnosis: Diagnosis,
        state: Option<Box<CycleState>>,
    },
    /// No node exists at all (`no nodes available to schedule pods`).
    NoNodes,
}

/// Runs the filters with the node's nominated pods (of at least the pod's priority) added, and if that
/// passes and some were added, again without them.
pub fn filter_with_nominated(
    state: &CycleState,
    cache: &Cache,
    node: &NodeInfo,
    nominator: &Nominator,
    removed: &[Arc<PodInfo>],
    listers: &Listers,
) -> Option<Rejection> {
    let pod = &state.pod;
    let added: Vec<Arc<PodInfo>> = nominator
        .on_node(&node.name)
        .filter(|p| p.priority >= pod.priority && p.key != pod.key && !removed.iter().any(|r| r.key == p.key))
        .cloned()
        .collect();
    if added.is_empty() {
        return plugins::run_filters(state, cache, node, &Overlay { added: &[], removed }, listers);
    }
    let mut with = node.clone();
    for p in &added {
        with.add_pod(p.clone());
    }
    if let Some(r) = plugins::run_filters(state, cache, &with, &Overlay { added: &added, removed }, listers) {
        return Some(r);
    }
    plugins::run_filters(state, cache, node, &Overlay { added: &[], removed }, listers)
}

/// The scheduling algorithm's own state across attempts.
#[derive(Debug, Clone, Default)]
pub struct Algorithm {
    /// Where the next walk over the nodes starts.
    pub next_start_node_index: usize,
    /// `percentageOfNodesToScore` (0: adaptive, the default).
    pub percentage_of_nodes_to_score: u32,
}

impl Algorithm {
    #[allow(clippy::too_many_arguments)]
    pub fn schedule(
        &mut self,
        cache: &mut Cache,
        pod: &Arc<PodInfo>,
        listers: &Listers,
        nominator: &Nominator,
        rng: &mut Rng,
        d: &mut Decision,
    ) -> Attempt {
        cache.refresh();
        let total = cache.node_count();
        d.nodes_total = total;
        if total == 0 {
            return Attempt::NoNodes;
        }
        let state = match plugins::prefilter(cache, pod.clone(), listers) {
            Ok(s) => s,
            Err(PreFilterFailure::Rejected(r)) => {
                d.prefilter = Some(r.clone());
                let diagnosis =
                    Diagnosis { nodes_total: total, prefilter: Some(r), statuses: BTreeMap::new(), absent: None };
                return Attempt::Unschedulable { diagnosis, state: None };
            }
        };
        d.skipped_filters = state.skipped.clone();
        let mut statuses: BTreeMap<Arc<str>, Rejection> = BTreeMap::new();
        let mut feasible: Vec<usize> = Vec::new();
        let nominated = pod.pod().status.as_ref().and_then(|s| s.nominated_node_name.clone()).filter(|n| !n.is_empty());
        let nominated_slot = nominated.as_deref().and_then(|n| cache.slot(n));
        if let Some(slot) = nominated_slot {
            if let Some(node) = cache.node_at(slot) {
                match filter_with_nominated(&state, cache, node, nominator, &[], listers) {
                    None => feasible.push(slot),
                    Some(r) => {
                        statuses.insert(node.name.clone(), r);
                    }
                }
            }
            // The walk over the single nominated node leaves the start index at (index + 1) % 1.
            self.next_start_node_index = 0;
        }
        let mut absent = None;
        if feasible.is_empty() {
            let candidates: Vec<usize> = match &state.only_nodes {
                None => cache.order().to_vec(),
                Some(names) => {
                    absent =
                        Some(Rejection::new("NodeAffinity", "node(s) didn't satisfy plugin(s) [NodeAffinity]", true));
                    let wanted: Vec<usize> = cache
                        .order()
                        .iter()
                        .copied()
                        .filter(|slot| cache.node_at(*slot).is_some_and(|n| names.contains(&*n.name)))
                        .collect();
                    d.only_nodes =
                        Some(wanted.iter().filter_map(|s| cache.node_at(*s)).map(|n| n.name.clone()).collect());
                    wanted
                }
            };
            self.walk(cache, &state, &candidates, nominator, listers, d, &mut feasible, &mut statuses);
        }
        for (node, r) in &statuses {
            d.refuse(node.clone(), r);
        }
        d.feasible = feasible.len();
        if feasible.is_empty() {
            let diagnosis = Diagnosis { nodes_total: total, prefilter: None, statuses, absent };
            return Attempt::Unschedulable { diagnosis, state: Some(Box::new(state)) };
        }
        if feasible.len() == 1 {
            let chosen = cache.node_at(feasible[0]).map(|n| n.name.clone()).unwrap_or_else(|| Arc::from(""));
            d.chosen = Some(chosen.clone());
            return Attempt::Chosen(chosen);
        }
        let table = plugins::score_nodes(cache, &state, listers, &feasible);
        let cache = &*cache;
        let name_of = |slot: usize| cache.node_at(slot).map(|n| n.name.clone()).unwrap_or_else(|| Arc::from(""));
        let totals: Vec<i64> = (0..feasible.len()).map(|i| table.total(i)).collect();
        let chosen = select_host(&totals, rng);
        // The record keeps the best nodes (best first, the chosen one always among them).
        let mut best: Vec<usize> = (0..feasible.len()).collect();
        best.sort_by_key(|i| std::cmp::Reverse(totals[*i]));
        best.truncate(SCORED_NODES_KEPT);
        if !best.contains(&chosen) {
            best.pop();
            best.push(chosen);
        }
        d.scored = best
            .into_iter()
            .map(|i| NodeScore { node: name_of(feasible[i]), scores: table.row(i), total: totals[i] })
            .collect();
        d.skipped_scores = table.skipped;
        let chosen_name = name_of(feasible[chosen]);
        d.chosen = Some(chosen_name.clone());
        Attempt::Chosen(chosen_name)
    }

    /// findNodesThatPassFilters over `candidates` (slots), from `nextStartNodeIndex`.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        cache: &Cache,
        state: &CycleState,
        candidates: &[usize],
        nominator: &Nominator,
        listers: &Listers,
        d: &mut Decision,
        feasible: &mut Vec<usize>,
        statuses: &mut BTreeMap<Arc<str>, Rejection>,
    ) {
        let n = candidates.len();
        let wanted = num_feasible_nodes_to_find(self.percentage_of_nodes_to_score, n);
        let start = self.next_start_node_index % n.max(1);
        d.feasible_wanted = wanted;
        d.start_index = start;
        let mut processed = 0;
        for i in 0..n {
            let slot = candidates[(start + i) % n];
            let Some(node) = cache.node_at(slot) else { continue };
            processed += 1;
            match filter_with_nominated(state, cache, node, nominator, &[], listers) {
                None => {
                    statuses.remove(&*node.name);
                    feasible.push(slot);
                    if feasible.len() >= wanted {
                        break;
                    }
                }
                Some(r) => {
                    statuses.insert(node.name.clone(), r);
                }
            }
        }
        self.next_start_node_index = (start + processed) % n.max(1);
    }
}

/// The index of the highest total; ties broken uniformly at random (reservoir sampling, as selectHost does).
pub fn select_host(totals: &[i64], rng: &mut Rng) -> usize {
    let mut best = 0;
    let mut ties = 0u64;
    for (i, t) in totals.iter().enumerate() {
        if i == 0 || *t > totals[best] {
            best = i;
            ties = 1;
        } else if *t == totals[best] {
            ties += 1;
            if rng.below(ties) == 0 {
                best = i;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_clusters_evaluate_every_node() {
        assert_eq!(num_feasible_nodes_to_find(0, 3), 3);
        assert_eq!(num_feasible_nodes_to_find(0, 99), 99);
    }

    #[test]
    fn the_adaptive_percentage_shrinks_with_the_cluster_but_finds_at_least_100() {
        // 100 nodes: 50% → 50, raised to the minimum of 100.
        assert_eq!(num_feasible_nodes_to_find(0, 100), 100);
        // 1,000 nodes: 50 − 8 = 42%.
        assert_eq!(num_feasible_nodes_to_find(0, 1_000), 420);
        // 5,000 nodes: 50 − 40 = 10%.
        assert_eq!(num_feasible_nodes_to_find(0, 5_000), 500);
        // 6,000 nodes: 50 − 48 = 2%, held at 5%.
        assert_eq!(num_feasible_nodes_to_find(0, 6_000), 300);
        // A configured percentage is used as is, still at least 100 nodes.
        assert_eq!(num_feasible_nodes_to_find(30, 1_000), 300);
        assert_eq!(num_feasible_nodes_to_find(5, 1_000), 100);
        assert_eq!(num_feasible_nodes_to_find(100, 250), 250);
    }

    #[test]
    fn ties_are_broken_at_random_but_the_best_always_wins() {
        let totals = [5, 9, 9, 1];
        let mut rng = Rng::new(3);
        let picks: std::collections::BTreeSet<usize> = (0..50).map(|_| select_host(&totals, &mut rng)).collect();
        assert_eq!(picks, [1, 2].into_iter().collect());
    }

    #[test]
    fn the_nominator_tracks_one_node_per_pod() {
        let obj = Arc::new(crate::api::Object::Pod(Box::new(crate::api::api::core::v1::Pod {
            metadata: crate::api::ObjectMeta {
                name: Some("p".into()),
                namespace: Some("d".into()),
                ..Default::default()
            },
            ..Default::default()
        })));
        let pod = Arc::new(PodInfo::new(&obj).unwrap());
        let mut n = Nominator::default();
        n.add(pod.clone(), "n1");
        n.add(pod, "n2");
        assert_eq!(n.on_node("n1").count(), 0);
        assert_eq!(n.node_of("d/p"), Some("n2"));
        n.remove("d/p");
        assert_eq!(n.on_node("n2").count(), 0);
    }
}
