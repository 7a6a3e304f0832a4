//! Running counts of assigned pods, per node and per topology domain, for one selection of pods (a label
//! selector, or the pods sharing an inter-pod affinity spec). The cache keeps them as pods come and go, so
//! topology spread and inter-pod affinity read a count instead of scanning every pod in every cycle.
//! (The real plugins count in PreFilter over all nodes; the result is the same.)

use std::collections::BTreeMap;
use std::sync::Arc;

use super::nodeinfo::NodeInfo;

/// Matching pods per value of one node label.
#[derive(Debug, Clone, Default)]
pub struct TopoCounts {
    /// Label value → matching pods on nodes with that value (only non-zero entries).
    by_value: BTreeMap<String, i64>,
    /// Matching pods on nodes without the label.
    pub missing: i64,
    /// Count → how many values have that (non-zero) count, for the minimum over domains.
    histogram: BTreeMap<i64, usize>,
}

impl TopoCounts {
    /// `delta` matching pods on a node whose label has `value` (None: the node lacks the label).
    pub fn add(&mut self, value: Option<&str>, delta: i64) {
        let Some(value) = value else {
            self.missing += delta;
            return;
        };
        let entry = self.by_value.entry(value.to_string()).or_default();
        let old = *entry;
        *entry += delta;
        let new = *entry;
        if new == 0 {
            self.by_value.remove(value);
        }
        if old != 0 {
            if let Some(n) = self.histogram.get_mut(&old) {
                *n -= 1;
                if *n == 0 {
                    self.histogram.remove(&old);
                }
            }
        }
        if new != 0 {
            *self.histogram.entry(new).or_default() += 1;
        }
    }

    /// Matching pods on nodes whose label has `value`.
    pub fn get(&self, value: &str) -> i64 {
        self.by_value.get(value).copied().unwrap_or(0)
    }

    /// Values with at least one matching pod.
    pub fn values(&self) -> impl Iterator<Item = (&String, &i64)> {
        self.by_value.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.by_value.is_empty()
    }

    /// The smallest count over `domains` label values (values without pods count 0).
    pub fn min(&self, domains: usize) -> i64 {
        if self.by_value.len() < domains {
            0
        } else {
            self.histogram.keys().next().copied().unwrap_or(0)
        }
    }

    /// The minimum over `domains` values if the count of `value` changed by `delta`.
    pub fn min_after(&self, domains: usize, value: &str, delta: i64) -> i64 {
        if delta == 0 {
            return self.min(domains);
        }
        let old = self.get(value);
        let new = old + delta;
        let mut zero_domains = domains.saturating_sub(self.by_value.len()) as i64;
        let mut lowest = i64::MAX;
        if old == 0 {
            zero_domains -= 1;
        }
        if new == 0 {
            zero_domains += 1;
        } else {
            lowest = new;
        }
        if zero_domains > 0 {
            return 0;
        }
        // The smallest count of the other values: skip `old` once if this value held it alone.
        for (count, n) in &self.histogram {
            if *count == old && *n == 1 {
                continue;
            }
            lowest = lowest.min(*count);
            break;
        }
        if lowest == i64::MAX {
            0
        } else {
            lowest
        }
    }
}

/// Matching pods per node, and per value of the node labels asked for so far.
#[derive(Debug, Clone, Default)]
pub struct Counter {
    per_node: BTreeMap<Arc<str>, i64>,
    topo: BTreeMap<String, TopoCounts>,
}

impl Counter {
    /// A matching pod arrived on (`delta` 1) or left (`delta` -1) `node`.
    pub fn add(&mut self, node: &NodeInfo, delta: i64) {
        let entry = self.per_node.entry(node.name.clone()).or_default();
        *entry += delta;
        if *entry == 0 {
            self.per_node.remove(&node.name);
        }
        if node.has_node() {
            for (key, t) in self.topo.iter_mut() {
                t.add(node.label(key), delta);
            }
        }
    }

    /// Matching pods on `node`.
    pub fn on_node(&self, node: &str) -> i64 {
        self.per_node.get(node).copied().unwrap_or(0)
    }

    pub fn nodes(&self) -> impl Iterator<Item = (&Arc<str>, &i64)> {
        self.per_node.iter()
    }

    pub fn total(&self) -> i64 {
        self.per_node.values().sum()
    }

    /// Counts by the values of `key`, if asked for before (see [`Counter::ensure_topo`]).
    pub fn topo(&self, key: &str) -> Option<&TopoCounts> {
        self.topo.get(key)
    }

    /// Makes counts by `key` available, from the per-node counts.
    pub fn ensure_topo<'a>(&mut self, key: &str, nodes: &dyn Fn(&str) -> Option<&'a NodeInfo>) {
        if self.topo.contains_key(key) {
            return;
        }
        let mut t = TopoCounts::default();
        for (name, count) in &self.per_node {
            if let Some(n) = nodes(name).filter(|n| n.has_node()) {
                t.add(n.label(key), *count);
            }
        }
        self.topo.insert(key.to_string(), t);
    }

    /// Node labels changed: the counts by label value are rebuilt when next asked for.
    pub fn invalidate_topo(&mut self) {
        self.topo.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_counts_domains_without_pods_as_zero() {
        let mut t = TopoCounts::default();
        t.add(Some("a"), 2);
        t.add(Some("b"), 1);
        t.add(None, 4);
        assert_eq!((t.get("a"), t.get("c"), t.missing), (2, 0, 4));
        assert_eq!(t.min(2), 1);
        assert_eq!(t.min(3), 0);
        assert_eq!(t.min_after(2, "b", -1), 0);
        assert_eq!(t.min_after(2, "b", 2), 2);
        assert_eq!(t.min_after(2, "a", -2), 0);
        assert_eq!(t.min_after(3, "c", 1), 1);
        t.add(Some("b"), -1);
        assert_eq!(t.min(1), 2);
        assert!(t.values().all(|(v, _)| v == "a"));
    }
}
