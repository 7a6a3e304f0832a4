//! The cluster the page builds, from its address: `?nodes=40&etcd=3&cloud=1` asks for 40 worker nodes, three
//! etcd members and a cloud-controller-manager. Without parameters it is the default cluster (controlplane,
//! node01, node02, one etcd member). Values out of range are clamped or ignored, with a note saying so.

use kubeglass::scenario::{ClusterSpec, NodeSpec};

/// The most worker nodes the page builds (the engine goes further; a browser tab should stay responsive).
pub const NODES_MAX: usize = kubeglass::scenario::session::PAGE_MAX_NODES;

/// The cluster `query` (a URL's `?…` part, with or without the `?`) describes, and notes on what was
/// ignored or clamped.
pub fn config_from_query(query: &str) -> (ClusterSpec, Vec<String>) {
    let mut config = ClusterSpec::default();
    let mut notes = Vec::new();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "nodes" => match value.parse::<usize>() {
                Ok(n) => {
                    if n > NODES_MAX {
                        notes.push(format!("nodes={n} is more than this page builds: using {NODES_MAX}"));
                    }
                    let n = n.min(NODES_MAX);
                    config.nodes = (1..=n).map(|i| NodeSpec::new(&format!("node{i:02}"))).collect();
                }
                Err(_) => notes.push(format!("nodes={value:?} is not a number of nodes: ignored")),
            },
            "etcd" => match value.parse::<u8>() {
                Ok(n @ (1 | 3 | 5)) => config.etcd_members = n,
                _ => notes.push(format!("etcd={value:?}: etcd runs 1, 3 or 5 members here; ignored")),
            },
            "cloud" => config.cloud = matches!(value, "" | "1" | "true" | "yes"),
            _ => notes.push(format!("unknown parameter {key:?}: ignored")),
        }
    }
    (config, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_parameters_give_the_default_cluster() {
        assert_eq!(config_from_query(""), (ClusterSpec::default(), vec![]));
        assert_eq!(config_from_query("?"), (ClusterSpec::default(), vec![]));
    }

    #[test]
    fn nodes_etcd_members_and_the_cloud() {
        let (config, notes) = config_from_query("?nodes=40&etcd=3&cloud=1");
        assert!(notes.is_empty());
        assert_eq!(config.nodes.len(), 40);
        assert_eq!(config.nodes[0].name, "node01");
        assert_eq!(config.nodes[39].name, "node40");
        assert_eq!(config.etcd_members, 3);
        assert!(config.cloud);
        assert_eq!(config_from_query("nodes=1").0.nodes.len(), 1);
        assert_eq!(config_from_query("nodes=0").0.nodes.len(), 0);
    }

    #[test]
    fn bad_values_are_ignored_or_clamped_with_a_note() {
        let (config, notes) = config_from_query("?nodes=99999&etcd=2&nodes=&colour=blue");
        assert_eq!(config.nodes.len(), NODES_MAX);
        assert_eq!(config.etcd_members, 1);
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("using 1000"));
    }
}
