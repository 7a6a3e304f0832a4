//! The order in which the scheduler walks nodes: zone by zone in turn (one node of each zone, then the next
//! of each), zones in the order they first appeared, nodes in the order they were added, a removed node's
//! place taken by the zone's last node. Counterpart: `pkg/scheduler/backend/cache/node_tree.go`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::api::core::v1::Node;

/// `region:\x00:zone` as `utilnode.GetZoneKey` builds it; empty when the node has neither label.
pub fn zone_key(node: &Node) -> String {
    let labels = node.metadata.labels.as_ref();
    let get = |k: &str| labels.and_then(|l| l.get(k)).map(String::as_str).unwrap_or("");
    let region = get("topology.kubernetes.io/region");
    let zone = get("topology.kubernetes.io/zone");
    if region.is_empty() && zone.is_empty() {
        String::new()
    } else {
        format!("{region}:\u{0}:{zone}")
    }
}

#[derive(Debug, Clone, Default)]
pub struct NodeTree {
    zones: Vec<String>,
    tree: BTreeMap<String, Vec<Arc<str>>>,
    count: usize,
}

impl NodeTree {
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn add(&mut self, zone: &str, name: Arc<str>) {
        let nodes = self.tree.entry(zone.to_string()).or_default();
        if nodes.contains(&name) {
            return;
        }
        if nodes.is_empty() {
            self.zones.push(zone.to_string());
        }
        nodes.push(name);
        self.count += 1;
    }

    pub fn remove(&mut self, zone: &str, name: &str) {
        let Some(nodes) = self.tree.get_mut(zone) else { return };
        let Some(i) = nodes.iter().position(|n| &**n == name) else { return };
        nodes.swap_remove(i);
        self.count -= 1;
        if nodes.is_empty() {
            self.tree.remove(zone);
            self.zones.retain(|z| z != zone);
        }
    }

    /// Every node, interleaving the zones.
    pub fn list(&self) -> Vec<Arc<str>> {
        let mut out = Vec::with_capacity(self.count);
        let mut index = 0;
        while out.len() < self.count {
            let before = out.len();
            for zone in &self.zones {
                if let Some(n) = self.tree.get(zone).and_then(|nodes| nodes.get(index)) {
                    out.push(n.clone());
                }
            }
            if out.len() == before {
                break;
            }
            index += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_take_turns_and_removal_moves_the_last_node_into_the_gap() {
        let mut t = NodeTree::default();
        for (zone, name) in [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1"), ("c", "c1"), ("c", "c2")] {
            t.add(zone, Arc::from(name));
        }
        let names = |t: &NodeTree| t.list().iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",");
        assert_eq!(names(&t), "a1,b1,c1,a2,c2,a3");
        t.remove("a", "a1");
        t.remove("b", "b1");
        assert_eq!(names(&t), "a3,c1,a2,c2");
        assert_eq!(t.len(), 4);
    }
}
