//! The record of one scheduling attempt ("why is this pod where it is / why is it Pending"): which nodes
//! were evaluated from where, each filter's verdict per node (refusals grouped by reason, so a record stays
//! small at 5,000 nodes), the scores of the best nodes plugin by plugin with weights and totals, the chosen
//! node, what preemption did, and the FitError message. Also the FitError message grammar itself.
//! Counterpart: `pkg/scheduler/framework/types.go` (FitError, Diagnosis).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::plugins::{PluginScore, Rejection, FILTERS};

/// Scores are kept for at most this many nodes per attempt (the best ones, and always the chosen one).
pub const SCORED_NODES_KEPT: usize = 100;

/// Nodes a filter refused for the same reasons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedNodes {
    pub rejection: Rejection,
    pub nodes: Vec<Arc<str>>,
}

/// A feasible node's scores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeScore {
    pub node: Arc<str>,
    pub scores: Vec<PluginScore>,
    /// Σ score × weight.
    pub total: i64,
}

/// What preemption (the DefaultPreemption PostFilter) did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreemptionRecord {
    /// The node the pod was nominated to, victims deleted there.
    pub nominated: Option<String>,
    pub victims: Vec<String>,
    /// Why it did not help (the `preemption: …` part of the message).
    pub message: Option<String>,
}

/// One filter's verdict on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Verdict {
    Passed,
    /// PreFilter found nothing for the plugin to check.
    Skipped,
    Failed(Rejection),
    /// An earlier filter already refused the node.
    NotRun,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Decision {
    /// `namespace/name`.
    pub pod: String,
    /// Simulated time of the attempt, in milliseconds.
    pub at_ms: u64,
    pub nodes_total: usize,
    /// How many feasible nodes the attempt looked for (percentageOfNodesToScore).
    pub feasible_wanted: usize,
    /// Where in the node order the walk started (nextStartNodeIndex).
    pub start_index: usize,
    /// A PreFilter refusal that ended the attempt before any node was filtered.
    pub prefilter: Option<Rejection>,
    /// Filters PreFilter skipped for this pod.
    pub skipped_filters: Vec<&'static str>,
    /// The only nodes evaluated when NodeAffinity's PreFilter named them (a DaemonSet pod's node).
    pub only_nodes: Option<Vec<Arc<str>>>,
    pub refused: Vec<RefusedNodes>,
    /// How many nodes passed every filter.
    pub feasible: usize,
    /// Score plugins skipped for this pod at PreScore.
    pub skipped_scores: Vec<&'static str>,
    /// The best-scored nodes, best first (all feasible nodes up to [`SCORED_NODES_KEPT`]).
    pub scored: Vec<NodeScore>,
    pub chosen: Option<Arc<str>>,
    pub preemption: Option<PreemptionRecord>,
    /// The FailedScheduling message when no node was chosen.
    pub message: Option<String>,
    /// What VolumeBinding's PreBind wrote for claims waiting for their first consumer (`default/data →
    /// local-1`, `default/data: provisioned on node02`); the pod is bound once they are all Bound.
    pub prebind: Vec<String>,
}

impl Decision {
    /// Every filter's verdict on `node`, in the profile's order; None when the node was not evaluated.
    pub fn verdicts(&self, node: &str) -> Option<Vec<(&'static str, Verdict)>> {
        if let Some(r) = &self.prefilter {
            return Some(
                FILTERS
                    .iter()
                    .map(|p| (*p, if *p == r.plugin { Verdict::Failed(r.clone()) } else { Verdict::NotRun }))
                    .collect(),
            );
        }
        let refusal = self.refused.iter().find(|g| g.nodes.iter().any(|n| &**n == node)).map(|g| &g.rejection);
        let passed =
            refusal.is_none() && (self.scored.iter().any(|s| &*s.node == node) || self.chosen.as_deref() == Some(node));
        if refusal.is_none() && !passed {
            return None;
        }
        let mut out = Vec::new();
        let mut done = false;
        for plugin in FILTERS {
            let v = if done {
                Verdict::NotRun
            } else if refusal.is_some_and(|r| r.plugin == plugin) {
                done = true;
                Verdict::Failed(refusal.cloned().unwrap_or_else(|| Rejection::new(plugin, "", false)))
            } else if self.skipped_filters.contains(&plugin) {
                Verdict::Skipped
            } else {
                Verdict::Passed
            };
            out.push((plugin, v));
        }
        Some(out)
    }

    /// The scores of `node` if they were kept.
    pub fn score_of(&self, node: &str) -> Option<&NodeScore> {
        self.scored.iter().find(|s| &*s.node == node)
    }

    /// Records a node's refusal.
    pub fn refuse(&mut self, node: Arc<str>, rejection: &Rejection) {
        match self.refused.iter_mut().find(|g| g.rejection == *rejection) {
            Some(g) => g.nodes.push(node),
            None => self.refused.push(RefusedNodes { rejection: rejection.clone(), nodes: vec![node] }),
        }
    }
}

/// The FitError text: `0/N nodes are available: <PreFilter message>.` or `… <count reason>, ….` (sorted as
/// strings), then the PostFilter message. Nodes without an explicit status count `absent` reasons.
pub fn fit_message<'a>(
    nodes_total: usize,
    prefilter: Option<&str>,
    statuses: impl Iterator<Item = &'a Rejection>,
    absent: Option<&str>,
    postfilter: Option<&str>,
) -> String {
    let mut msg = format!("0/{nodes_total} nodes are available:");
    match prefilter {
        Some(p) => msg.push_str(&format!(" {p}.")),
        None => {
            let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
            let mut explicit = 0;
            for s in statuses {
                explicit += 1;
                for r in &s.reasons {
                    *reasons.entry(r.as_str()).or_default() += 1;
                }
            }
            if let Some(a) = absent {
                if nodes_total > explicit {
                    *reasons.entry(a).or_default() += nodes_total - explicit;
                }
            }
            let mut entries: Vec<String> = reasons.iter().map(|(r, c)| format!("{c} {r}")).collect();
            entries.sort();
            if !entries.is_empty() {
                msg.push_str(&format!(" {}.", entries.join(", ")));
            }
        }
    }
    if let Some(p) = postfilter {
        msg.push(' ');
        msg.push_str(p);
    }
    msg
}

/// Event and condition messages are cut at 1024 bytes with ` ...` (`truncateMessage`).
pub fn truncate_message(message: &str) -> String {
    const LIMIT: usize = 1024;
    if message.len() <= LIMIT {
        return message.to_string();
    }
    let mut cut = LIMIT - 4;
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} ...", &message[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_sorts_as_strings_and_counts_absent_nodes() {
        let taint = Rejection::new("TaintToleration", "node(s) had untolerated taint {a: }", true);
        let cpu = Rejection::new("NodeResourcesFit", "Insufficient cpu", false);
        let both = Rejection {
            plugin: "NodeResourcesFit",
            reasons: vec!["Insufficient cpu".into(), "Insufficient memory".into()],
            unresolvable: false,
        };
        let statuses = [taint, cpu.clone(), both];
        let msg = fit_message(4, None, statuses.iter(), None, Some("preemption: x."));
        assert_eq!(
            msg,
            "0/4 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {a: }, 2 Insufficient cpu. preemption: x."
        );
        let pre = fit_message(3, None, [cpu].iter(), Some("Preemption is not helpful for scheduling"), None);
        assert_eq!(pre, "0/3 nodes are available: 1 Insufficient cpu, 2 Preemption is not helpful for scheduling.");
        assert_eq!(
            fit_message(3, Some("pod has unbound immediate PersistentVolumeClaims"), std::iter::empty(), None, None),
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."
        );
    }

    #[test]
    fn long_messages_are_cut_with_an_ellipsis() {
        let long = "x".repeat(2000);
        let cut = truncate_message(&long);
        assert_eq!(cut.len(), 1024);
        assert!(cut.ends_with("x ..."));
        assert_eq!(truncate_message("short"), "short");
    }

    #[test]
    fn verdicts_expand_a_refusal_into_every_filter() {
        let mut d = Decision { skipped_filters: vec!["NodePorts"], ..Decision::default() };
        d.refuse(Arc::from("n1"), &Rejection::new("NodeResourcesFit", "Too many pods", false));
        let v = d.verdicts("n1").unwrap();
        assert_eq!(v[4], ("NodePorts", Verdict::Skipped));
        assert!(matches!(&v[5], ("NodeResourcesFit", Verdict::Failed(r)) if r.reasons == ["Too many pods"]));
        assert_eq!(v[8], ("InterPodAffinity", Verdict::NotRun));
        assert!(d.verdicts("n2").is_none());
    }
}
