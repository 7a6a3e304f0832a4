//! The numbered data-flow steps of one request: every delivery its chain caused, in order, as seed 003
//! numbers them (① create request → ② stored in etcd → ③ acknowledged → ④ the scheduler's watch sees it …).

use serde::{Deserialize, Serialize};

use crate::sim::{ChainId, Kernel, Outcome};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStep {
    /// 1-based.
    pub number: usize,
    pub sent_ms: u64,
    pub delivered_ms: u64,
    pub from: String,
    pub to: String,
    pub label: String,
    pub object: Option<String>,
    pub revision: Option<u64>,
    /// `delivered`, `dropped` (receiver stopped) or `refused` (nothing listening).
    pub outcome: String,
}

impl FlowStep {
    /// `① 0.012s kubectl → kube-apiserver  create deployments  deployments default/web`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} {:>8} {} → {}  {}",
            circled(self.number),
            crate::sim::SimTime(self.delivered_ms).to_string(),
            self.from,
            self.to,
            self.label
        );
        if let Some(o) = &self.object {
            s.push_str("  ");
            s.push_str(o);
        }
        if let Some(r) = self.revision {
            s.push_str(&format!("  rev {r}"));
        }
        if self.outcome != "delivered" {
            s.push_str(&format!("  ({})", self.outcome));
        }
        s
    }
}

/// ①…⑳ for the first twenty steps, then `(21)`, `(22)`, ….
pub fn circled(n: usize) -> String {
    match n {
        1..=20 => char::from_u32(0x2460 + n as u32 - 1).map(String::from).unwrap_or_default(),
        _ => format!("({n})"),
    }
}

/// The steps of `chain`, numbered in delivery order. Raft's own bookkeeping (heartbeats, acks) is left out:
/// it is the mechanism of a step, not a step.
pub fn data_flow(kernel: &Kernel, chain: ChainId) -> Vec<FlowStep> {
    let mut records: Vec<_> = kernel.trace.chain(chain).iter().filter(|d| !d.label.starts_with("raft ")).collect();
    records.sort_by_key(|d| (d.delivered, d.id));
    records
        .into_iter()
        .enumerate()
        .map(|(i, d)| FlowStep {
            number: i + 1,
            sent_ms: d.sent.ms(),
            delivered_ms: d.delivered.ms(),
            from: kernel.name(d.from).to_string(),
            to: kernel.name(d.to).to_string(),
            label: d.label.clone(),
            object: d.object.clone(),
            revision: d.revision,
            outcome: outcome_name(d.outcome).to_string(),
        })
        .collect()
}

/// `delivered`, `dropped` or `refused`.
pub fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Delivered => "delivered",
        Outcome::Dropped => "dropped",
        Outcome::Refused => "refused",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_numbered_with_circled_digits_then_parentheses() {
        assert_eq!(circled(1), "①");
        assert_eq!(circled(10), "⑩");
        assert_eq!(circled(20), "⑳");
        assert_eq!(circled(21), "(21)");
    }
}
