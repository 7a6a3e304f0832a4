//! The latest deliveries, for the UI's message log: what arrived where, when, and whether the receiver took
//! it (a stopped receiver drops it; one that was not running refused the connection).

use serde::{Deserialize, Serialize};

use crate::sim::Kernel;

/// How many of the latest deliveries a [`super::View`] carries.
pub const RECENT_IN_VIEW: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryView {
    pub id: u64,
    pub from: String,
    pub to: String,
    pub label: String,
    pub object: Option<String>,
    pub sent_ms: u64,
    pub delivered_ms: u64,
    /// `delivered`, `dropped` or `refused`.
    pub outcome: String,
    pub chain: u64,
}

/// The last `max` deliveries of the kernel's trace, oldest first.
pub fn recent_deliveries(kernel: &Kernel, max: usize) -> Vec<DeliveryView> {
    let mut latest: Vec<DeliveryView> = kernel
        .trace
        .recent()
        .rev()
        .take(max)
        .map(|d| DeliveryView {
            id: d.id,
            from: kernel.name(d.from).to_string(),
            to: kernel.name(d.to).to_string(),
            label: d.label.clone(),
            object: d.object.clone(),
            sent_ms: d.sent.ms(),
            delivered_ms: d.delivered.ms(),
            outcome: super::steps::outcome_name(d.outcome).to_string(),
            chain: d.chain,
        })
        .collect();
    latest.reverse();
    latest
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn the_view_carries_the_latest_deliveries_oldest_first() {
        let mut cluster = Cluster::new_default(1);
        cluster.stop("kube-scheduler").unwrap();
        cluster.advance_ms(5);
        let view = cluster.view();
        assert_eq!(view.recent.len(), super::RECENT_IN_VIEW);
        assert!(view.recent.windows(2).all(|w| w[0].delivered_ms <= w[1].delivered_ms));
        let newest = cluster.kernel().trace.recent().last().unwrap();
        assert_eq!(view.recent.last().unwrap().id, newest.id);
        // The apiserver learns that the stopped scheduler's connections are gone.
        assert!(view
            .recent
            .iter()
            .any(|d| d.from == "kube-scheduler" && d.to == "kube-apiserver" && d.label == "connection reset"));
    }
}
