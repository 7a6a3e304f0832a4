//! The scheduler cache: a NodeInfo per node kept up to date from the pod and node informers (add, update,
//! delete), pods assumed on a node as soon as the scheduler sends their binding (before the watch confirms
//! it) and forgotten if the binding fails, and the indexes the plugins read: the walking order of the nodes,
//! how many nodes carry each label value, how many nodes report each image, and running pod counts per node
//! and topology domain for the label selections and inter-pod affinity specs in use.
//! Counterpart: `pkg/scheduler/backend/cache` (cache.go, node_tree.go, snapshot.go).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::selector::{LabelSelector, Requirement};
use crate::api::Object;

use super::counts::Counter;
use super::nodeinfo::NodeInfo;
use super::nodetree::{zone_key, NodeTree};
use super::podinfo::PodInfo;

/// At most this many label selections are counted; the least recently used goes first.
pub const MAX_SELECTIONS: usize = 2048;

/// A set of assigned pods to count: those in the namespaces (any when None) whose labels match the
/// selector (in its text form), terminating pods included or not.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Selection {
    pub namespaces: Option<Vec<String>>,
    pub selector: String,
    pub include_terminating: bool,
}

#[derive(Debug, Clone)]
struct SelectionCounter {
    selector: LabelSelector,
    counter: Counter,
    last_used: u64,
}

impl SelectionCounter {
    fn selects(&self, sel: &Selection, pod: &PodInfo) -> bool {
        (sel.include_terminating || !pod.terminating)
            && sel.namespaces.as_ref().is_none_or(|ns| ns.contains(&pod.namespace))
            && self.selector.matches(pod.labels())
    }
}

/// The assigned pods that share one namespace and pod (anti-)affinity spec.
#[derive(Debug, Clone)]
pub struct AffinityGroup {
    /// One of them: its terms are every member's terms.
    pub pod: Arc<PodInfo>,
    members: usize,
    pub counter: Counter,
}

/// A pod the cache has placed on a node.
#[derive(Debug, Clone)]
pub struct PodState {
    pub info: Arc<PodInfo>,
    pub node: Arc<str>,
    /// Bound by this scheduler, not yet confirmed by the informer.
    pub assumed: bool,
}

/// The NodeInfos in slots (the walk indexes them directly), found by name through an index.
#[derive(Debug, Default)]
struct Slab {
    slots: Vec<Option<NodeInfo>>,
    free: Vec<usize>,
    index: BTreeMap<Arc<str>, usize>,
}

impl Slab {
    fn slot(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    fn get(&self, name: &str) -> Option<&NodeInfo> {
        self.slot(name).and_then(|i| self.slots[i].as_ref())
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut NodeInfo> {
        let i = self.slot(name)?;
        self.slots[i].as_mut()
    }

    fn entry(&mut self, name: &str) -> &mut NodeInfo {
        let i = match self.slot(name) {
            Some(i) => i,
            None => {
                let info = NodeInfo::new(name);
                let key = info.name.clone();
                let i = match self.free.pop() {
                    Some(i) => {
                        self.slots[i] = Some(info);
                        i
                    }
                    None => {
                        self.slots.push(Some(info));
                        self.slots.len() - 1
                    }
                };
                self.index.insert(key, i);
                i
            }
        };
        self.slots[i].get_or_insert_with(|| NodeInfo::new(name))
    }

    fn remove(&mut self, name: &str) {
        if let Some(i) = self.index.remove(name) {
            self.slots[i] = None;
            self.free.push(i);
        }
    }
}

#[derive(Debug, Default)]
pub struct Cache {
    nodes: Slab,
    tree: NodeTree,
    /// Slots in walking order.
    order: Vec<usize>,
    order_stale: bool,
    pods: BTreeMap<String, PodState>,
    /// Node label key → value → how many nodes carry it.
    label_values: BTreeMap<String, BTreeMap<String, usize>>,
    /// Node label key → how many nodes carry it.
    key_nodes: BTreeMap<String, usize>,
    image_nodes: BTreeMap<String, usize>,
    selections: BTreeMap<Selection, SelectionCounter>,
    /// Label key → value → selections requiring it (so a pod event only checks selections it may match).
    selection_index: BTreeMap<String, BTreeMap<String, BTreeSet<Selection>>>,
    unindexed: BTreeSet<Selection>,
    groups: BTreeMap<String, AffinityGroup>,
    uses: u64,
}

fn node_labels(obj: &Object) -> BTreeMap<String, String> {
    obj.meta().labels.clone().unwrap_or_default()
}

impl Cache {
    // ---- nodes ----

    /// Nodes with a Node object (the ones that can be scheduled to).
    pub fn node_count(&self) -> usize {
        self.tree.len()
    }

    pub fn node(&self, name: &str) -> Option<&NodeInfo> {
        self.nodes.get(name).filter(|n| n.has_node())
    }

    /// The slot of a node with a Node object.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.nodes.slot(name).filter(|i| self.node_at(*i).is_some())
    }

    /// The node in `slot` (see [`Cache::order`]).
    pub fn node_at(&self, slot: usize) -> Option<&NodeInfo> {
        self.nodes.slots.get(slot).and_then(Option::as_ref).filter(|n| n.has_node())
    }

    /// Every NodeInfo, including those of deleted nodes whose pods are still accounted.
    pub fn nodes(&self) -> impl Iterator<Item = &NodeInfo> {
        self.nodes.slots.iter().flatten()
    }

    /// The nodes' slots in walking order (zones interleaved); call [`Cache::refresh`] first.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Brings the walking order up to date after nodes came or went.
    pub fn refresh(&mut self) {
        if self.order_stale {
            self.order = self.tree.list().iter().filter_map(|n| self.nodes.slot(n)).collect();
            self.order_stale = false;
        }
    }

    /// A node was added or changed.
    pub fn set_node(&mut self, obj: Arc<Object>) {
        let Object::Node(node) = obj.as_ref() else { return };
        let name = obj.name().to_string();
        let new_labels = node_labels(&obj);
        let new_zone = zone_key(node);
        let existing = self.nodes.get(name.as_str()).filter(|n| n.has_node());
        let (old_labels, old_zone, old_images) = match existing.and_then(|n| n.node()) {
            Some(old) => (
                old.metadata.labels.clone().unwrap_or_default(),
                Some(zone_key(old)),
                existing.map(|n| n.images.keys().cloned().collect::<Vec<_>>()).unwrap_or_default(),
            ),
            None => (BTreeMap::new(), None, Vec::new()),
        };
        let info = self.nodes.entry(&name);
        let key = info.name.clone();
        info.set_node(obj.clone());
        let new_images: Vec<String> = info.images.keys().cloned().collect();
        if old_zone.as_deref() != Some(new_zone.as_str()) {
            if let Some(z) = &old_zone {
                self.tree.remove(z, &name);
            }
            self.tree.add(&new_zone, key);
            self.order_stale = true;
        }
        if old_zone.is_none() || old_labels != new_labels {
            self.count_labels(&old_labels, -1);
            self.count_labels(&new_labels, 1);
            self.invalidate_topologies();
        }
        if old_images != new_images {
            for i in old_images {
                Self::bump(&mut self.image_nodes, &i, -1);
            }
            for i in new_images {
                Self::bump(&mut self.image_nodes, &i, 1);
            }
        }
    }

    /// A node was deleted; its pods stay accounted until they are deleted too.
    pub fn remove_node(&mut self, name: &str) {
        let Some(info) = self.nodes.get_mut(name) else { return };
        let Some(node) = info.node() else { return };
        let labels = node.metadata.labels.clone().unwrap_or_default();
        let zone = zone_key(node);
        let images: Vec<String> = info.images.keys().cloned().collect();
        info.clear_node();
        if info.pods.is_empty() {
            self.nodes.remove(name);
        }
        self.tree.remove(&zone, name);
        self.order_stale = true;
        self.count_labels(&labels, -1);
        for i in images {
            Self::bump(&mut self.image_nodes, &i, -1);
        }
        self.invalidate_topologies();
    }

    fn bump(map: &mut BTreeMap<String, usize>, key: &str, delta: i64) {
        let entry = map.entry(key.to_string()).or_default();
        *entry = (*entry as i64 + delta).max(0) as usize;
        if *entry == 0 {
            map.remove(key);
        }
    }

    fn count_labels(&mut self, labels: &BTreeMap<String, String>, delta: i64) {
        for (k, v) in labels {
            Self::bump(&mut self.key_nodes, k, delta);
            let values = self.label_values.entry(k.clone()).or_default();
            Self::bump(values, v, delta);
            if values.is_empty() {
                self.label_values.remove(k);
            }
        }
    }

    fn invalidate_topologies(&mut self) {
        for s in self.selections.values_mut() {
            s.counter.invalidate_topo();
        }
        for g in self.groups.values_mut() {
            g.counter.invalidate_topo();
        }
    }

    /// How many distinct values of the label `key` nodes carry (the topology domains of `key`).
    pub fn domains(&self, key: &str) -> usize {
        self.label_values.get(key).map_or(0, BTreeMap::len)
    }

    /// The values of the label `key` over all nodes.
    pub fn domain_values(&self, key: &str) -> impl Iterator<Item = &String> {
        self.label_values.get(key).into_iter().flat_map(|m| m.keys())
    }

    /// How many nodes carry the label `key`.
    pub fn nodes_with_key(&self, key: &str) -> usize {
        self.key_nodes.get(key).copied().unwrap_or(0)
    }

    /// How many nodes report the image `name`.
    pub fn image_nodes(&self, name: &str) -> usize {
        self.image_nodes.get(name).copied().unwrap_or(0)
    }

    // ---- pods ----

    pub fn pod(&self, key: &str) -> Option<&PodState> {
        self.pods.get(key)
    }

    pub fn pod_count(&self) -> usize {
        self.pods.len()
    }

    pub fn is_assumed(&self, key: &str) -> bool {
        self.pods.get(key).is_some_and(|p| p.assumed)
    }

    /// The scheduler sent the pod's binding to `node`: account it there now.
    pub fn assume(&mut self, info: Arc<PodInfo>, node: &str) {
        self.place(info, node, true);
    }

    /// The binding failed: take back an assumed pod. Confirmed pods are left alone.
    pub fn forget(&mut self, key: &str) -> bool {
        if self.is_assumed(key) {
            self.unplace(key);
            true
        } else {
            false
        }
    }

    /// The informer shows the pod assigned to its node (a new pod, an update, or the confirmation of an
    /// assumed one, possibly on another node than assumed).
    pub fn add_pod(&mut self, info: Arc<PodInfo>) {
        let Some(node) = info.node_name().map(str::to_string) else { return };
        self.place(info, &node, false);
    }

    /// The pod is gone (deleted, or finished: terminal pods hold nothing).
    pub fn remove_pod(&mut self, key: &str) -> Option<PodState> {
        self.unplace(key)
    }

    /// Drops every pod that is not assumed (before a relist adds the current ones back).
    pub fn clear_confirmed_pods(&mut self) {
        let confirmed: Vec<String> = self.pods.iter().filter(|(_, p)| !p.assumed).map(|(k, _)| k.clone()).collect();
        for key in confirmed {
            self.unplace(&key);
        }
    }

    /// Pods assumed but not yet confirmed.
    pub fn assumed_pods(&self) -> impl Iterator<Item = &PodState> {
        self.pods.values().filter(|p| p.assumed)
    }

    fn place(&mut self, info: Arc<PodInfo>, node: &str, assumed: bool) {
        self.unplace(&info.key);
        let ni = self.nodes.entry(node);
        let name = ni.name.clone();
        ni.add_pod(info.clone());
        self.count(&info, node, 1);
        self.pods.insert(info.key.clone(), PodState { info, node: name, assumed });
    }

    fn unplace(&mut self, key: &str) -> Option<PodState> {
        let state = self.pods.remove(key)?;
        self.count(&state.info, &state.node, -1);
        if let Some(ni) = self.nodes.get_mut(&state.node) {
            ni.remove_pod(key);
            if !ni.has_node() && ni.pods.is_empty() {
                self.nodes.remove(&state.node);
            }
        }
        Some(state)
    }

    /// Updates the selections and the affinity groups for a pod arriving on or leaving `node`.
    fn count(&mut self, pod: &Arc<PodInfo>, node: &str, delta: i64) {
        let Some(ni) = self.nodes.get(node) else { return };
        let labels = pod.labels();
        let indexed = labels.into_iter().flatten().filter_map(|(k, v)| self.selection_index.get(k)?.get(v));
        for sel in indexed.flatten().chain(self.unindexed.iter()) {
            if let Some(sc) = self.selections.get_mut(sel) {
                if sc.selects(sel, pod) {
                    sc.counter.add(ni, delta);
                }
            }
        }
        let Some(sig) = &pod.affinity_signature else { return };
        if delta > 0 {
            let group = self.groups.entry(sig.clone()).or_insert_with(|| AffinityGroup {
                pod: pod.clone(),
                members: 0,
                counter: Counter::default(),
            });
            group.members += 1;
            group.counter.add(ni, 1);
        } else if let Some(group) = self.groups.get_mut(sig) {
            group.counter.add(ni, -1);
            group.members = group.members.saturating_sub(1);
            if group.members == 0 {
                self.groups.remove(sig);
            }
        }
    }

    // ---- counts for the plugins ----

    /// Starts counting `sel` (parsed as `selector`) if it is not counted yet, and marks it used.
    pub fn ensure_selection(&mut self, sel: &Selection, selector: &LabelSelector) {
        self.uses += 1;
        let uses = self.uses;
        if let Some(sc) = self.selections.get_mut(sel) {
            sc.last_used = uses;
            return;
        }
        if self.selections.len() >= MAX_SELECTIONS {
            self.evict_selection();
        }
        let mut sc = SelectionCounter { selector: selector.clone(), counter: Counter::default(), last_used: uses };
        for p in self.pods.values() {
            if sc.selects(sel, &p.info) {
                if let Some(ni) = self.nodes.get(&p.node) {
                    sc.counter.add(ni, 1);
                }
            }
        }
        let index_key = selector.requirements.iter().find_map(|r| match r {
            Requirement::Equals(k, v) => Some((k.clone(), vec![v.clone()])),
            Requirement::In(k, vs) => Some((k.clone(), vs.clone())),
            _ => None,
        });
        match index_key {
            Some((k, vs)) => {
                for v in vs {
                    self.selection_index.entry(k.clone()).or_default().entry(v).or_default().insert(sel.clone());
                }
            }
            None => {
                self.unindexed.insert(sel.clone());
            }
        }
        self.selections.insert(sel.clone(), sc);
    }

    fn evict_selection(&mut self) {
        let Some(oldest) = self.selections.iter().min_by_key(|(_, s)| s.last_used).map(|(k, _)| k.clone()) else {
            return;
        };
        self.selections.remove(&oldest);
        self.unindexed.remove(&oldest);
        for values in self.selection_index.values_mut() {
            for set in values.values_mut() {
                set.remove(&oldest);
            }
        }
    }

    /// The counts of a selection made available with [`Cache::ensure_selection`].
    pub fn selection(&self, sel: &Selection) -> Option<&Counter> {
        self.selections.get(sel).map(|s| &s.counter)
    }

    /// Makes the counts of `sel` by the node label `key` available.
    pub fn ensure_selection_topology(&mut self, sel: &Selection, key: &str) {
        if let Some(sc) = self.selections.get_mut(sel) {
            sc.counter.ensure_topo(key, &|n| self.nodes.get(n));
        }
    }

    /// The affinity groups (pods with pod affinity or anti-affinity, by spec).
    pub fn groups(&self) -> impl Iterator<Item = (&String, &AffinityGroup)> {
        self.groups.iter()
    }

    pub fn group(&self, signature: &str) -> Option<&AffinityGroup> {
        self.groups.get(signature)
    }

    /// Makes a group's counts by the node label `key` available.
    pub fn ensure_group_topology(&mut self, signature: &str, key: &str) {
        if let Some(g) = self.groups.get_mut(signature) {
            g.counter.ensure_topo(key, &|n| self.nodes.get(n));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, labels: &str) -> Arc<Object> {
        let yaml = format!("metadata: {{name: {name}, labels: {{{labels}}}}}\nstatus: {{allocatable: {{cpu: '2', memory: 4Gi, pods: '110'}}, images: [{{names: [nginx:1.27], sizeBytes: 1000}}]}}");
        let v: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        Arc::new(Object::Node(serde_json::from_value(v).unwrap()))
    }

    fn pod(name: &str, node: &str, labels: &str) -> Arc<PodInfo> {
        let yaml = format!("metadata: {{name: {name}, namespace: d, labels: {{{labels}}}}}\nspec: {{nodeName: '{node}', containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}");
        let v: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        Arc::new(PodInfo::new(&Arc::new(Object::Pod(serde_json::from_value(v).unwrap()))).unwrap())
    }

    fn web() -> (Selection, LabelSelector) {
        let sel =
            Selection { namespaces: Some(vec!["d".into()]), selector: "app=web".into(), include_terminating: false };
        (sel, LabelSelector::parse("app=web").unwrap())
    }

    #[test]
    fn counts_follow_pods_and_node_labels() {
        let mut c = Cache::default();
        c.set_node(node("n1", "zone: a"));
        c.set_node(node("n2", "zone: b"));
        c.add_pod(pod("p1", "n1", "app: web"));
        let (sel, selector) = web();
        c.ensure_selection(&sel, &selector);
        c.add_pod(pod("p2", "n2", "app: web"));
        c.add_pod(pod("p3", "n2", "app: db"));
        c.ensure_selection_topology(&sel, "zone");
        let counts = c.selection(&sel).unwrap();
        assert_eq!((counts.on_node("n1"), counts.on_node("n2")), (1, 1));
        assert_eq!(counts.topo("zone").unwrap().get("b"), 1);
        // n2 moves to zone a: the counts by zone follow.
        c.set_node(node("n2", "zone: a"));
        c.ensure_selection_topology(&sel, "zone");
        assert_eq!(c.selection(&sel).unwrap().topo("zone").unwrap().get("a"), 2);
        assert_eq!((c.domains("zone"), c.nodes_with_key("zone"), c.image_nodes("nginx:1.27")), (1, 2, 2));
        c.remove_pod("d/p1");
        assert_eq!(c.selection(&sel).unwrap().topo("zone").unwrap().get("a"), 1);
    }

    #[test]
    fn an_assumed_pod_is_accounted_until_forgotten_or_confirmed() {
        let mut c = Cache::default();
        c.set_node(node("n1", ""));
        c.assume(pod("p", "", ""), "n1");
        assert_eq!(c.node("n1").unwrap().requested.milli_cpu, 100);
        assert!(c.forget("d/p"));
        assert_eq!(c.node("n1").unwrap().requested.milli_cpu, 0);
        c.assume(pod("p", "", ""), "n1");
        c.add_pod(pod("p", "n1", ""));
        assert!(!c.is_assumed("d/p") && !c.forget("d/p"));
        assert_eq!((c.node("n1").unwrap().pods.len(), c.pod_count()), (1, 1));
    }

    #[test]
    fn pods_of_a_deleted_node_stay_until_deleted_and_the_node_leaves_the_order() {
        let mut c = Cache::default();
        c.set_node(node("n1", ""));
        c.set_node(node("n2", ""));
        c.add_pod(pod("p", "n1", ""));
        c.remove_node("n1");
        c.refresh();
        assert_eq!(c.order().len(), 1);
        assert!(c.node("n1").is_none());
        assert_eq!(c.nodes().find(|n| &*n.name == "n1").unwrap().pods.len(), 1);
        c.remove_pod("d/p");
        assert!(c.nodes().all(|n| &*n.name != "n1"));
    }
}
