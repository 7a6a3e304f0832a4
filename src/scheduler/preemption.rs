//! DefaultPreemption, the PostFilter: when no node fits, find nodes where evicting lower-priority pods would
//! make room (a dry run per node: remove every lower-priority pod, check the pod fits, then give back as
//! many as still fit, most important first, PodDisruptionBudget-violating ones first), pick one node
//! (fewest PDB violations, lowest highest victim priority, smallest priority sum, fewest victims, latest
//! start), and return the victims for the scheduler to delete. When nothing helps, the `preemption: …`
//! message. Counterpart: `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`,
//! `pkg/scheduler/framework/preemption/preemption.go`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::selector::LabelSelector;
use crate::api::Object;
use crate::sim::Rng;

use super::algorithm::{filter_with_nominated, Diagnosis, Nominator};
use super::cache::Cache;
use super::decision::fit_message;
use super::listers::Listers;
use super::plugins::{CycleState, Rejection};
use super::podinfo::PodInfo;

pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
pub const POLICY_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
pub const TERMINATING_ON_NOMINATED: &str = "not eligible due to a terminating pod on the nominated node.";
/// DefaultPreemptionArgs: at least this percentage of the candidate nodes is dry-run…
const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
/// …and at least this many.
const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// The node chosen for the pod and what has to go.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub node: Arc<str>,
    /// Most important first.
    pub victims: Vec<Arc<PodInfo>>,
    pub pdb_violations: usize,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    Nominate(Candidate),
    /// Preemption cannot help; the PostFilter message (with its `preemption: ` prefix).
    NotHelpful(String),
}

/// A PodDisruptionBudget as preemption reads it.
struct Budget {
    namespace: String,
    selector: LabelSelector,
    allowed: i64,
    disrupted: Vec<String>,
}

fn budgets(listers: &Listers) -> Vec<Budget> {
    listers
        .pdbs
        .objects()
        .filter_map(|o| match o.as_ref() {
            Object::PodDisruptionBudget(p) => {
                let selector = p.spec.as_ref()?.selector.as_ref()?;
                let selector = LabelSelector::from_api(selector).ok().filter(|s| !s.is_empty())?;
                Some(Budget {
                    namespace: p.metadata.namespace.clone().unwrap_or_default(),
                    selector,
                    allowed: p.status.as_ref().map_or(0, |s| i64::from(s.disruptions_allowed)),
                    disrupted: p
                        .status
                        .as_ref()
                        .and_then(|s| s.disrupted_pods.as_ref())
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default(),
                })
            }
            _ => None,
        })
        .collect()
}

/// Splits pods (in order) into those whose eviction would break a budget and the others.
fn split_by_budget(pods: &[Arc<PodInfo>], budgets: &[Budget]) -> (Vec<Arc<PodInfo>>, Vec<Arc<PodInfo>>) {
    let mut allowed: Vec<i64> = budgets.iter().map(|b| b.allowed).collect();
    let (mut violating, mut fine) = (Vec::new(), Vec::new());
    for p in pods {
        let mut violates = false;
        if p.labels().is_some_and(|l| !l.is_empty()) {
            for (i, b) in budgets.iter().enumerate() {
                if b.namespace != p.namespace
                    || !b.selector.matches(p.labels())
                    || b.disrupted.iter().any(|d| d == p.name())
                {
                    continue;
                }
                allowed[i] -= 1;
                if allowed[i] < 0 {
                    violates = true;
                }
            }
        }
        if violates {
            violating.push(p.clone());
        } else {
            fine.push(p.clone());
        }
    }
    (violating, fine)
}

/// Higher priority first, then the one started earlier (MoreImportantPod).
fn more_important_first(a: &Arc<PodInfo>, b: &Arc<PodInfo>) -> std::cmp::Ordering {
    b.priority.cmp(&a.priority).then(a.start_time.unwrap_or(i64::MAX).cmp(&b.start_time.unwrap_or(i64::MAX)))
}

/// The minimal set of lower-priority pods on `node` whose removal lets the pod fit, or why there is none.
fn select_victims(
    state: &CycleState,
    cache: &Cache,
    node: &str,
    nominator: &Nominator,
    budgets: &[Budget],
    listers: &Listers,
) -> Result<Candidate, Rejection> {
    let pod = &state.pod;
    let Some(info) = cache.node(node) else { return Err(Rejection::new("DefaultPreemption", NOT_HELPFUL, true)) };
    let mut potential: Vec<Arc<PodInfo>> = info.pods.values().filter(|p| p.priority < pod.priority).cloned().collect();
    if potential.is_empty() {
        return Err(Rejection::new("DefaultPreemption", NO_VICTIMS, true));
    }
    let mut without = info.clone();
    for p in &potential {
        without.remove_pod(&p.key);
    }
    let mut removed = potential.clone();
    if let Some(r) = filter_with_nominated(state, cache, &without, nominator, &removed, listers) {
        return Err(r);
    }
    potential.sort_by(more_important_first);
    let (violating, fine) = split_by_budget(&potential, budgets);
    let mut victims = Vec::new();
    let mut pdb_violations = 0;
    for (p, breaks_budget) in violating.iter().map(|p| (p, true)).chain(fine.iter().map(|p| (p, false))) {
        without.add_pod(p.clone());
        removed.retain(|r| r.key != p.key);
        if filter_with_nominated(state, cache, &without, nominator, &removed, listers).is_some() {
            without.remove_pod(&p.key);
            removed.push(p.clone());
            victims.push(p.clone());
            if breaks_budget {
                pdb_violations += 1;
            }
        }
    }
    if !violating.is_empty() && !fine.is_empty() {
        victims.sort_by(more_important_first);
    }
    Ok(Candidate { node: info.name.clone(), victims, pdb_violations })
}

/// PodEligibleToPreemptOthers: None when the pod may preempt, else why not.
fn ineligible(pod: &PodInfo, cache: &Cache, diagnosis: &Diagnosis) -> Option<&'static str> {
    if pod.never_preempts() {
        return Some(POLICY_NEVER);
    }
    let nominated =
        pod.pod().status.as_ref().and_then(|s| s.nominated_node_name.as_deref()).filter(|n| !n.is_empty())?;
    if diagnosis.status(nominated).is_some_and(|r| r.unresolvable) {
        return None;
    }
    let node = cache.node(nominated)?;
    node.pods
        .values()
        .any(|p| p.priority < pod.priority && p.terminating && p.preempted)
        .then_some(TERMINATING_ON_NOMINATED)
}

/// pickOneNodeForPreemption: each rule in turn narrows the candidates until one is left.
fn pick(mut candidates: Vec<Candidate>) -> Option<Candidate> {
    type Rule = fn(&Candidate) -> i64;
    let rules: [Rule; 5] = [
        |c| -(c.pdb_violations as i64),
        |c| -i64::from(c.victims.first().map_or(i32::MIN, |v| v.priority)),
        |c| -c.victims.iter().map(|v| i64::from(v.priority) + i64::from(i32::MAX) + 1).sum::<i64>(),
        |c| -(c.victims.len() as i64),
        |c| {
            let top = c.victims.first().map_or(i32::MIN, |v| v.priority);
            c.victims.iter().filter(|v| v.priority == top).filter_map(|v| v.start_time).min().unwrap_or(i64::MIN)
        },
    ];
    for rule in rules {
        if candidates.len() <= 1 {
            break;
        }
        let best = candidates.iter().map(rule).max().unwrap_or(i64::MIN);
        candidates.retain(|c| rule(c) == best);
    }
    candidates.into_iter().next()
}

/// Runs DefaultPreemption for a pod no node fits.
#[allow(clippy::too_many_arguments)]
pub fn preempt(
    state: Option<&CycleState>,
    cache: &Cache,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
    nominator: &Nominator,
    listers: &Listers,
    rng: &mut Rng,
) -> Outcome {
    if let Some(reason) = ineligible(pod, cache, diagnosis) {
        return Outcome::NotHelpful(format!("preemption: {reason}"));
    }
    let total = diagnosis.nodes_total;
    let not_helpful = |statuses: &BTreeMap<Arc<str>, Rejection>| {
        let m = fit_message(total, None, statuses.values(), Some(NOT_HELPFUL), None);
        Outcome::NotHelpful(format!("preemption: {m}"))
    };
    // Nodes PreFilter left out (diagnosis.absent) are unresolvable too: only refused nodes can be candidates.
    let potential: Vec<Arc<str>> = match (&diagnosis.prefilter, state) {
        (None, Some(_)) => diagnosis.statuses.iter().filter(|(_, r)| !r.unresolvable).map(|(n, _)| n.clone()).collect(),
        _ => Vec::new(),
    };
    let Some(state) = state.filter(|_| !potential.is_empty()) else {
        return not_helpful(&BTreeMap::new());
    };
    let budgets = budgets(listers);
    let offset = rng.below(potential.len() as u64) as usize;
    let wanted =
        (potential.len() * MIN_CANDIDATE_NODES_PERCENTAGE / 100).max(MIN_CANDIDATE_NODES_ABSOLUTE).min(potential.len());
    let (mut fine, mut violating) = (Vec::new(), Vec::new());
    let mut statuses: BTreeMap<Arc<str>, Rejection> = BTreeMap::new();
    for i in 0..potential.len() {
        let node = &potential[(offset + i) % potential.len()];
        match select_victims(state, cache, node, nominator, &budgets, listers) {
            Ok(c) if c.victims.is_empty() => {
                let r = Rejection::new(
                    "DefaultPreemption",
                    format!("expected at least one victim pod on node {node:?}"),
                    false,
                );
                statuses.insert(node.clone(), r);
            }
            Ok(c) => {
                if c.pdb_violations == 0 {
                    fine.push(c);
                } else {
                    violating.push(c);
                }
                if !fine.is_empty() && fine.len() + violating.len() >= wanted {
                    break;
                }
            }
            Err(r) => {
                statuses.insert(node.clone(), r);
            }
        }
    }
    fine.extend(violating);
    match pick(fine) {
        Some(c) => Outcome::Nominate(c),
        None => not_helpful(&statuses),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, priority: i32, start: i64) -> Arc<PodInfo> {
        let obj = Arc::new(Object::Pod(Box::new(crate::api::api::core::v1::Pod {
            metadata: crate::api::ObjectMeta {
                name: Some(name.into()),
                namespace: Some("d".into()),
                ..Default::default()
            },
            ..Default::default()
        })));
        let mut info = PodInfo::new(&obj).unwrap();
        info.priority = priority;
        info.start_time = Some(start);
        Arc::new(info)
    }

    fn candidate(node: &str, victims: Vec<Arc<PodInfo>>, pdb: usize) -> Candidate {
        Candidate { node: Arc::from(node), victims, pdb_violations: pdb }
    }

    #[test]
    fn the_node_with_the_least_important_victims_is_picked() {
        let pick_node = |c: Vec<Candidate>| pick(c).map(|c| c.node.to_string());
        // Fewer PDB violations first.
        assert_eq!(
            pick_node(vec![candidate("a", vec![pod("x", 1, 0)], 1), candidate("b", vec![pod("y", 5, 0)], 0)]),
            Some("b".into())
        );
        // Then the lower highest victim priority.
        assert_eq!(
            pick_node(vec![candidate("a", vec![pod("x", 5, 0)], 0), candidate("b", vec![pod("y", 3, 0)], 0)]),
            Some("b".into())
        );
        // Then fewer victims (same priorities, same sum is impossible with more pods of equal priority).
        assert_eq!(
            pick_node(vec![
                candidate("a", vec![pod("x", 1, 0), pod("y", 1, 0)], 0),
                candidate("b", vec![pod("z", 1, 0)], 0)
            ]),
            Some("b".into())
        );
        // Then the latest start of the highest-priority victims.
        assert_eq!(
            pick_node(vec![candidate("a", vec![pod("x", 1, 10)], 0), candidate("b", vec![pod("y", 1, 20)], 0)]),
            Some("b".into())
        );
    }

    #[test]
    fn more_important_pods_sort_first() {
        let mut v = [pod("low", 1, 0), pod("late", 5, 20), pod("early", 5, 10)];
        v.sort_by(more_important_first);
        let names: Vec<&str> = v.iter().map(|p| p.name()).collect();
        assert_eq!(names, ["early", "late", "low"]);
    }
}
