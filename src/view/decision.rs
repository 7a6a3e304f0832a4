//! The scheduler's decision table for one pod ("why Pending / why here"), from kube-scheduler's own record
//! of its last attempt ([`crate::scheduler::decision`]): a row per evaluated node with each filter plugin's
//! verdict and reason, the score plugins' normalised scores and weights, the weighted total, and the chosen
//! node; or the FitError message and what preemption did.

use serde::{Deserialize, Serialize};

use crate::scheduler::decision::{Decision, Verdict};
use crate::scheduler::plugins::{FILTERS, SCORES};

/// At most this many node rows (the chosen and best-scored first, then refused ones).
pub const ROWS_MAX: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCell {
    /// `passed`, `failed`, `skipped` (PreFilter found nothing to check) or `not run`.
    pub verdict: String,
    /// The refusal's reasons.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRow {
    pub node: String,
    /// One per [`DecisionView::filters`].
    pub filters: Vec<VerdictCell>,
    /// One per [`DecisionView::scores`]: the normalised 0–100 score, when the node was scored.
    pub scores: Vec<Option<i64>>,
    /// Σ score × weight.
    pub total: Option<i64>,
    pub chosen: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreColumn {
    pub plugin: String,
    pub weight: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionView {
    pub pod: String,
    pub at_ms: u64,
    pub nodes_total: usize,
    pub feasible: usize,
    pub filters: Vec<String>,
    pub scores: Vec<ScoreColumn>,
    pub rows: Vec<DecisionRow>,
    /// Evaluated nodes left out of `rows`.
    pub rows_hidden: usize,
    pub chosen: Option<String>,
    /// The FailedScheduling message when no node was chosen.
    pub message: Option<String>,
    /// What preemption did: `nominated node02, victims: default/low` or why it did not help.
    pub preemption: Option<String>,
}

fn cell(verdict: &Verdict) -> VerdictCell {
    let (verdict, reason) = match verdict {
        Verdict::Passed => ("passed", String::new()),
        Verdict::Skipped => ("skipped", String::new()),
        Verdict::NotRun => ("not run", String::new()),
        Verdict::Failed(r) => ("failed", r.reasons.join(", ")),
    };
    VerdictCell { verdict: verdict.to_string(), reason }
}

/// The table for one decision record.
pub fn decision_view(d: &Decision) -> DecisionView {
    let mut order: Vec<&str> = Vec::new();
    order.extend(d.chosen.as_deref());
    order.extend(d.scored.iter().map(|s| &*s.node).filter(|n| Some(*n) != d.chosen.as_deref()));
    order.extend(d.refused.iter().flat_map(|g| g.nodes.iter().map(|n| &**n)));
    let evaluated = order.len();
    let rows = order
        .into_iter()
        .take(ROWS_MAX)
        .map(|node| {
            let filters = d.verdicts(node).unwrap_or_default().iter().map(|(_, v)| cell(v)).collect();
            let scored = d.score_of(node);
            let scores = SCORES
                .iter()
                .map(|(plugin, _)| scored.and_then(|s| s.scores.iter().find(|p| p.plugin == *plugin)).map(|p| p.score))
                .collect();
            DecisionRow {
                node: node.to_string(),
                filters,
                scores,
                total: scored.map(|s| s.total),
                chosen: d.chosen.as_deref() == Some(node),
            }
        })
        .collect();
    let preemption = d.preemption.as_ref().map(|p| match (&p.nominated, &p.message) {
        (Some(node), _) => format!("nominated {node}; victims: {}", p.victims.join(", ")),
        (None, Some(m)) => m.clone(),
        (None, None) => "preemption found nothing to do".to_string(),
    });
    DecisionView {
        pod: d.pod.clone(),
        at_ms: d.at_ms,
        nodes_total: d.nodes_total,
        feasible: d.feasible,
        filters: FILTERS.iter().map(|f| f.to_string()).collect(),
        scores: SCORES.iter().map(|(p, w)| ScoreColumn { plugin: p.to_string(), weight: *w }).collect(),
        rows,
        rows_hidden: evaluated.saturating_sub(ROWS_MAX),
        chosen: d.chosen.as_deref().map(str::to_string),
        message: d.message.clone(),
        preemption,
    }
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn a_scheduled_pod_shows_every_node_its_verdicts_and_the_chosen_one_with_the_best_total() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl run web --image=nginx", None, 30_000);
        assert_eq!(r.exit, Some(0));
        cluster.advance_ms(2_000);
        let v = cluster.decision_view("default/web").unwrap();
        assert_eq!(v.pod, "default/web");
        assert_eq!(v.nodes_total, 3);
        let chosen = v.chosen.clone().expect("scheduled");
        assert_eq!(v.rows[0].node, chosen);
        assert!(v.rows[0].chosen && v.rows[0].filters.iter().all(|c| c.verdict == "passed" || c.verdict == "skipped"));
        let best = v.rows.iter().filter_map(|r| r.total).max();
        assert_eq!(v.rows[0].total, best);
        assert_eq!(v.rows[0].scores.len(), v.scores.len());
        // The control-plane node's taint refuses the pod there, with the reason.
        let cp = v.rows.iter().find(|r| r.node == "controlplane").unwrap();
        let taint = v.filters.iter().position(|f| f == "TaintToleration").unwrap();
        assert_eq!(cp.filters[taint].verdict, "failed");
        assert!(cp.filters[taint].reason.contains("node-role.kubernetes.io/control-plane"), "{cp:?}");
        assert!(cp.filters[taint + 1..].iter().all(|c| c.verdict == "not run"));
        assert_eq!(cp.total, None);
        assert_eq!(v.message, None);
    }

    #[test]
    fn a_pod_that_fits_nowhere_explains_why_it_is_pending() {
        let mut cluster = Cluster::new_default(1);
        let manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  containers:\n  - name: big\n    image: nginx\n    resources:\n      requests:\n        cpu: \"64\"\n";
        let r = cluster.kubectl("kubectl create -f -", Some(manifest.to_string()), 30_000);
        assert_eq!(r.exit, Some(0), "{}", r.output);
        cluster.advance_ms(2_000);
        let v = cluster.decision_view("default/big").unwrap();
        assert_eq!(v.chosen, None);
        assert!(v.message.as_deref().unwrap().starts_with("0/3 nodes are available:"), "{v:?}");
        let fit = v.filters.iter().position(|f| f == "NodeResourcesFit").unwrap();
        assert!(v.rows.iter().any(|r| r.filters[fit].reason == "Insufficient cpu"), "{v:?}");
        assert!(v.rows.iter().all(|r| r.total.is_none()));
    }

    #[test]
    fn no_record_yet_says_why() {
        let mut cluster = Cluster::new_default(1);
        cluster.stop("kube-scheduler").unwrap();
        let r = cluster.kubectl("kubectl run web --image=nginx", None, 30_000);
        assert_eq!(r.exit, Some(0));
        let e = cluster.decision_view("default/web").unwrap_err();
        assert_eq!(e, "kube-scheduler has not tried to schedule default/web (kube-scheduler is stopped)");
    }
}
