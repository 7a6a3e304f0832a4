//! InterPodAffinity: the incoming pod's required affinity (some selected pod in the node's topology domain),
//! its required anti-affinity (none there), and the existing pods' required anti-affinity toward it; the
//! preferred terms of both sides (and existing pods' required affinity, weight 1) as a score.
//! Matching pods are counted by the cache per label selection and per affinity spec, so a cycle reads counts
//! instead of walking every pod. Counterpart: `pkg/scheduler/framework/plugins/interpodaffinity`
//! (filtering.go, scoring.go).

use std::collections::BTreeMap;

use crate::api::selector::LabelSelector;

use super::super::cache::{Cache, Selection};
use super::super::listers::Listers;
use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::{AffinityTerm, PodInfo};
use super::resources::MAX_NODE_SCORE;
use super::{Overlay, Rejection};

pub const ERR_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const ERR_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const ERR_EXISTING_ANTI_AFFINITY: &str = "node(s) didn't satisfy existing pods anti-affinity rules";
/// The weight existing pods' required affinity terms score with (`hardPodAffinityWeight`).
const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// A term's pods as a counted selection (the namespace selector resolved to namespaces now).
fn resolve(terms: &[&AffinityTerm], listers: &Listers) -> Option<(Selection, LabelSelector)> {
    let mut namespaces: Option<Vec<String>> = None;
    let mut requirements = Vec::new();
    for t in terms {
        let selector = t.selector.as_ref()?;
        requirements.extend(selector.requirements.iter().cloned());
        let all = t.namespace_selector.as_ref().is_some_and(LabelSelector::is_empty);
        if all {
            continue;
        }
        let mut mine: Vec<String> = t.namespaces.iter().cloned().collect();
        if let Some(sel) = &t.namespace_selector {
            mine.extend(listers.namespaces_matching(sel));
        }
        mine.sort();
        mine.dedup();
        namespaces = Some(match namespaces {
            None => mine,
            Some(prev) => prev.into_iter().filter(|n| mine.contains(n)).collect(),
        });
    }
    let selector = LabelSelector { requirements };
    let sel = Selection { namespaces, selector: selector.to_string_form(), include_terminating: true };
    Some((sel, selector))
}

/// Registers a term's selection and its counts by the term's topology key.
fn counted(cache: &mut Cache, terms: &[&AffinityTerm], key: &str, listers: &Listers) -> Option<Selection> {
    let (sel, selector) = resolve(terms, listers)?;
    cache.ensure_selection(&sel, &selector);
    cache.ensure_selection_topology(&sel, key);
    Some(sel)
}

fn selection_count(cache: &Cache, sel: Option<&Selection>, key: &str, value: &str) -> i64 {
    sel.and_then(|s| cache.selection(s)).and_then(|c| c.topo(key)).map_or(0, |t| t.get(value))
}

#[derive(Debug, Clone)]
pub struct FilterState {
    /// Existing pods' required anti-affinity terms that select the incoming pod: (affinity spec, term).
    blocking: Vec<(String, usize)>,
    /// The pods matching all of the incoming pod's required affinity terms (None: no pod can).
    affinity: Option<Selection>,
    affinity_keys: Vec<String>,
    /// Whether no pod matching all the affinity terms sits on a node with a term's key.
    affinity_nowhere: bool,
    self_matches: bool,
    /// Per required anti-affinity term of the incoming pod.
    anti: Vec<(Option<Selection>, String)>,
}

/// PreFilter: None when neither the pod nor any existing pod has required terms that concern it (skipped).
pub fn prefilter(cache: &mut Cache, pod: &PodInfo, listers: &Listers) -> Option<FilterState> {
    let ns_labels = listers.namespace_labels(&pod.namespace);
    let mut blocking = Vec::new();
    for (sig, group) in cache.groups() {
        for (i, t) in group.pod.required_anti_affinity.iter().enumerate() {
            if t.matches(&pod.namespace, pod.labels(), ns_labels.as_ref()) {
                blocking.push((sig.clone(), i, t.topology_key.clone()));
            }
        }
    }
    if blocking.is_empty() && pod.required_affinity.is_empty() && pod.required_anti_affinity.is_empty() {
        return None;
    }
    for (sig, _, key) in &blocking {
        cache.ensure_group_topology(sig, key);
    }
    let terms: Vec<&AffinityTerm> = pod.required_affinity.iter().collect();
    let affinity_keys: Vec<String> = terms.iter().map(|t| t.topology_key.clone()).collect();
    let mut affinity = None;
    if !terms.is_empty() {
        if let Some((sel, selector)) = resolve(&terms, listers) {
            cache.ensure_selection(&sel, &selector);
            for k in &affinity_keys {
                cache.ensure_selection_topology(&sel, k);
            }
            affinity = Some(sel);
        }
    }
    let affinity_nowhere = affinity
        .as_ref()
        .and_then(|s| cache.selection(s))
        .is_none_or(|c| affinity_keys.iter().all(|k| c.topo(k).is_none_or(|t| t.is_empty())));
    let self_matches = !terms.is_empty() && terms.iter().all(|t| t.matches(&pod.namespace, pod.labels(), None));
    let anti = pod
        .required_anti_affinity
        .iter()
        .map(|t| (counted(cache, &[t], &t.topology_key, listers), t.topology_key.clone()))
        .collect();
    Some(FilterState {
        blocking: blocking.into_iter().map(|(s, i, _)| (s, i)).collect(),
        affinity,
        affinity_keys,
        affinity_nowhere,
        self_matches,
        anti,
    })
}

fn matches_all(terms: &[AffinityTerm], p: &PodInfo) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(&p.namespace, p.labels(), None))
}

pub fn filter(
    state: &FilterState,
    cache: &Cache,
    pod: &PodInfo,
    node: &NodeInfo,
    overlay: &Overlay,
    listers: &Listers,
) -> Option<Rejection> {
    // The incoming pod's affinity: a matching pod in the node's domain for every term.
    if !pod.required_affinity.is_empty() {
        let delta = overlay.added.iter().filter(|p| matches_all(&pod.required_affinity, p)).count() as i64
            - overlay.removed.iter().filter(|p| matches_all(&pod.required_affinity, p)).count() as i64;
        let mut pods_exist = true;
        for key in &state.affinity_keys {
            let Some(value) = node.label(key) else {
                return Some(Rejection::new("InterPodAffinity", ERR_AFFINITY, true));
            };
            if selection_count(cache, state.affinity.as_ref(), key, value) + delta <= 0 {
                pods_exist = false;
            }
        }
        let first_of_its_kind = state.affinity_nowhere && delta <= 0 && state.self_matches;
        if !pods_exist && !first_of_its_kind {
            return Some(Rejection::new("InterPodAffinity", ERR_AFFINITY, true));
        }
    }
    // The incoming pod's anti-affinity: no selected pod in the node's domain.
    for (t, (sel, key)) in pod.required_anti_affinity.iter().zip(&state.anti) {
        let Some(value) = node.label(key) else { continue };
        let selected = |p: &PodInfo| t.matches(&p.namespace, p.labels(), None);
        let delta = overlay.added.iter().filter(|p| selected(p)).count() as i64
            - overlay.removed.iter().filter(|p| selected(p)).count() as i64;
        if selection_count(cache, sel.as_ref(), key, value) + delta > 0 {
            return Some(Rejection::new("InterPodAffinity", ERR_ANTI_AFFINITY, false));
        }
    }
    // Existing pods' anti-affinity toward the incoming pod.
    for (sig, i) in &state.blocking {
        let Some(group) = cache.group(sig) else { continue };
        let key = &group.pod.required_anti_affinity[*i].topology_key;
        let Some(value) = node.label(key) else { continue };
        let removed = overlay.removed.iter().filter(|p| p.affinity_signature.as_deref() == Some(sig)).count() as i64;
        if group.counter.topo(key).map_or(0, |t| t.get(value)) - removed > 0 {
            return Some(Rejection::new("InterPodAffinity", ERR_EXISTING_ANTI_AFFINITY, false));
        }
    }
    let ns_labels = if overlay.added.is_empty() { None } else { listers.namespace_labels(&pod.namespace) };
    for p in overlay.added {
        for t in &p.required_anti_affinity {
            if node.label(&t.topology_key).is_some() && t.matches(&pod.namespace, pod.labels(), ns_labels.as_ref()) {
                return Some(Rejection::new("InterPodAffinity", ERR_EXISTING_ANTI_AFFINITY, false));
            }
        }
    }
    None
}

/// Topology key → label value → score every node in that domain gets.
#[derive(Debug, Clone, Default)]
pub struct ScoreState {
    topology_score: BTreeMap<String, BTreeMap<String, i64>>,
}

impl ScoreState {
    fn add(&mut self, key: &str, counts: impl Iterator<Item = (String, i64)>, weight: i64) {
        for (value, count) in counts {
            *self.topology_score.entry(key.to_string()).or_default().entry(value).or_default() += weight * count;
        }
    }
}

/// PreScore: None when no preferred term (of the pod or of existing pods) applies (skipped).
pub fn prescore(cache: &mut Cache, pod: &PodInfo, listers: &Listers) -> Option<ScoreState> {
    let mut state = ScoreState::default();
    let weighted = pod
        .preferred_affinity
        .iter()
        .map(|(w, t)| (*w, t))
        .chain(pod.preferred_anti_affinity.iter().map(|(w, t)| (-*w, t)));
    for (weight, t) in weighted {
        let Some(sel) = counted(cache, &[t], &t.topology_key, listers) else { continue };
        let topo = cache.selection(&sel).and_then(|c| c.topo(&t.topology_key));
        let counts: Vec<(String, i64)> =
            topo.into_iter().flat_map(|t| t.values()).map(|(v, c)| (v.clone(), *c)).collect();
        state.add(&t.topology_key, counts.into_iter(), weight);
    }
    let ns_labels = listers.namespace_labels(&pod.namespace);
    let selects = |t: &AffinityTerm| t.matches(&pod.namespace, pod.labels(), ns_labels.as_ref());
    let mut wanted: Vec<(String, String, i64)> = Vec::new();
    for (sig, group) in cache.groups() {
        let rep = &group.pod;
        let required = rep.required_affinity.iter().map(|t| (HARD_POD_AFFINITY_WEIGHT, t));
        let preferred = rep.preferred_affinity.iter().map(|(w, t)| (*w, t));
        let avoided = rep.preferred_anti_affinity.iter().map(|(w, t)| (-*w, t));
        for (weight, t) in required.chain(preferred).chain(avoided) {
            if weight != 0 && selects(t) {
                wanted.push((sig.clone(), t.topology_key.clone(), weight));
            }
        }
    }
    for (sig, key, weight) in wanted {
        cache.ensure_group_topology(&sig, &key);
        let topo = cache.group(&sig).and_then(|g| g.counter.topo(&key));
        let counts: Vec<(String, i64)> =
            topo.into_iter().flat_map(|t| t.values()).map(|(v, c)| (v.clone(), *c)).collect();
        state.add(&key, counts.into_iter(), weight);
    }
    (!state.topology_score.is_empty()).then_some(state)
}

pub fn score(state: &ScoreState, node: &NodeInfo) -> i64 {
    state.topology_score.iter().filter_map(|(key, values)| node.label(key).and_then(|v| values.get(v))).sum()
}

/// 100 × (score − min) / (max − min) over the scored nodes; all 0 when they are equal.
pub fn normalize(raw: &[i64]) -> Vec<i64> {
    let min = raw.iter().copied().min().unwrap_or(0);
    let max = raw.iter().copied().max().unwrap_or(0);
    let diff = max - min;
    raw.iter()
        .map(|s| if diff > 0 { (MAX_NODE_SCORE as f64 * ((s - min) as f64 / diff as f64)) as i64 } else { 0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizing_spreads_scores_between_the_lowest_and_the_highest() {
        assert_eq!(normalize(&[-2, 0, 2]), vec![0, 50, 100]);
        assert_eq!(normalize(&[3, 3]), vec![0, 0]);
    }
}
