//! The watch cache: the apiserver's copy of every object, kept current from its etcd watch, with a
//! window of recent events per resource for watches that resume from a resourceVersion, an index of pods
//! by node (kubelets watch `spec.nodeName=<node>`), and the registry of client watches it fans events out
//! to. Counterpart: `staging/src/k8s.io/apiserver/pkg/storage/cacher`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use crate::api::selector::{FieldSelector, LabelSelector};
use crate::api::{Kind, Object, WatchEventType};
use crate::sim::{ComponentId, SimTime};

/// How long events stay in the window (the cacher's eventFreshDuration), and how many are kept at least
/// (its lower bound capacity) …
pub const WINDOW_MS: u64 = 75_000;
pub const WINDOW_MIN_EVENTS: usize = 100;
/// … and at most, however fresh (its upper bound capacity, 100 × 1024): a burst of writes pushes older
/// events out sooner, and a watch resuming from before them gets 410 Gone, as from the real cacher.
pub const WINDOW_MAX_EVENTS: usize = 100 * 1024;

/// One change as the cache saw it.
#[derive(Debug, Clone)]
pub struct CachedEvent {
    pub revision: u64,
    pub at: SimTime,
    pub old: Option<Arc<Object>>,
    pub new: Option<Arc<Object>>,
}

impl CachedEvent {
    fn namespace(&self) -> Option<&str> {
        self.new.as_ref().or(self.old.as_ref()).and_then(|o| o.namespace())
    }
}

/// A client's watch.
#[derive(Debug, Clone)]
pub struct Watcher {
    pub client: ComponentId,
    pub kind: Kind,
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub bookmarks: bool,
    /// The client watches `events.events.k8s.io`: core Events are converted before they are sent.
    pub events_v1: bool,
    /// A custom resource watched at a version other than the one its objects are stored at: the row of
    /// the version each object is shown at.
    pub served_as: Option<&'static crate::api::ResourceInfo>,
}

impl Watcher {
    pub fn matches(&self, obj: &Object) -> bool {
        self.namespace.as_deref().is_none_or(|ns| obj.namespace() == Some(ns))
            && self.labels.matches(obj.meta().labels.as_ref())
            && self.fields.matches(obj)
    }

    /// The event type this watcher sees for a change from `old` to `new` (None: not its business).
    pub fn event_for(&self, old: Option<&Object>, new: Option<&Object>) -> Option<WatchEventType> {
        let was = old.is_some_and(|o| self.matches(o));
        let is = new.is_some_and(|n| self.matches(n));
        match (was, is) {
            (false, true) => Some(WatchEventType::Added),
            (true, true) => Some(WatchEventType::Modified),
            (true, false) => Some(WatchEventType::Deleted),
            (false, false) => None,
        }
    }
}

fn node_of(obj: &Object) -> Option<&str> {
    match obj {
        Object::Pod(p) => p.spec.as_ref().and_then(|s| s.node_name.as_deref()).filter(|n| !n.is_empty()),
        _ => None,
    }
}

fn key_of(obj: &Object) -> String {
    obj.ns_name()
}

#[derive(Debug, Default)]
pub struct WatchCache {
    revision: u64,
    objects: BTreeMap<Kind, BTreeMap<String, Arc<Object>>>,
    pods_by_node: BTreeMap<String, BTreeSet<String>>,
    window: BTreeMap<Kind, VecDeque<CachedEvent>>,
    /// Oldest revision each resource's window can replay from (events at or after it are all present).
    window_start: BTreeMap<Kind, u64>,
    watchers: BTreeMap<u64, Watcher>,
    by_kind: BTreeMap<Kind, BTreeSet<u64>>,
    /// Pod watchers with a `spec.nodeName=<node>` selector, by node: a pod event reaches only its node's kubelet.
    by_node: BTreeMap<String, BTreeSet<u64>>,
}

impl WatchCache {
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Moves the revision forward without a change (an etcd progress notification).
    pub fn advance(&mut self, revision: u64) {
        self.revision = self.revision.max(revision);
    }

    /// Replaces the whole content (after the initial list from etcd at `revision`).
    pub fn reset(&mut self, revision: u64, objects: impl IntoIterator<Item = Arc<Object>>) {
        self.objects.clear();
        self.pods_by_node.clear();
        self.window.clear();
        self.window_start.clear();
        self.revision = revision;
        for o in objects {
            self.index(&o);
            self.objects.entry(o.kind()).or_default().insert(key_of(&o), o);
        }
    }

    fn index(&mut self, o: &Object) {
        if let Some(node) = node_of(o) {
            self.pods_by_node.entry(node.to_string()).or_default().insert(key_of(o));
        }
    }

    fn unindex(&mut self, o: &Object) {
        if let Some(node) = node_of(o) {
            if let Some(set) = self.pods_by_node.get_mut(node) {
                set.remove(&key_of(o));
            }
        }
    }

    pub fn get(&self, kind: Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Object>> {
        let key = match namespace {
            Some(ns) if kind.info().namespaced => format!("{ns}/{name}"),
            _ => name.to_string(),
        };
        self.objects.get(&kind)?.get(&key).cloned()
    }

    /// Objects of a kind, in one namespace or all, in key order.
    pub fn list(&self, kind: Kind, namespace: Option<&str>) -> Vec<Arc<Object>> {
        let Some(map) = self.objects.get(&kind) else {
            return Vec::new();
        };
        match namespace {
            Some(ns) if kind.info().namespaced => {
                let start = format!("{ns}/");
                map.range(start.clone()..).take_while(|(k, _)| k.starts_with(&start)).map(|(_, v)| v.clone()).collect()
            }
            _ => map.values().cloned().collect(),
        }
    }

    /// Pods bound to `node`, via the index.
    pub fn pods_on(&self, node: &str) -> Vec<Arc<Object>> {
        let Some(keys) = self.pods_by_node.get(node) else {
            return Vec::new();
        };
        let pods = self.objects.get(&Kind::Pod);
        keys.iter().filter_map(|k| pods.and_then(|p| p.get(k)).cloned()).collect()
    }

    /// How many events the windows of every resource hold (for the benchmarks' memory figures).
    pub fn window_len(&self) -> usize {
        self.window.values().map(VecDeque::len).sum()
    }

    pub fn count(&self, kind: Kind) -> usize {
        self.objects.get(&kind).map_or(0, BTreeMap::len)
    }

    /// Applies one change from etcd and records it in the window; returns the cached event.
    pub fn apply(
        &mut self,
        revision: u64,
        at: SimTime,
        new: Option<Arc<Object>>,
        deleted: Option<Arc<Object>>,
    ) -> CachedEvent {
        self.revision = self.revision.max(revision);
        let sample = new.as_ref().or(deleted.as_ref()).cloned();
        let (kind, key) = match &sample {
            Some(o) => (o.kind(), key_of(o)),
            None => return CachedEvent { revision, at, old: None, new: None },
        };
        let old = self.objects.get(&kind).and_then(|m| m.get(&key)).cloned();
        if let Some(o) = &old {
            self.unindex(o);
        }
        match &new {
            Some(n) => {
                self.index(n);
                self.objects.entry(kind).or_default().insert(key, n.clone());
            }
            None => {
                if let Some(m) = self.objects.get_mut(&kind) {
                    m.remove(&key);
                }
            }
        }
        let event = CachedEvent { revision, at, old, new };
        let window = self.window.entry(kind).or_default();
        window.push_back(event.clone());
        while window.len() > WINDOW_MAX_EVENTS
            || (window.len() > WINDOW_MIN_EVENTS && window.front().is_some_and(|e| at.since(e.at) > WINDOW_MS))
        {
            let dropped = window.pop_front().map(|e| e.revision).unwrap_or(0);
            self.window_start.insert(kind, dropped + 1);
        }
        event
    }

    /// Events of `kind` after `revision`, or Err(oldest replayable revision) when the window no longer has them.
    pub fn events_since(&self, kind: Kind, revision: u64, namespace: Option<&str>) -> Result<Vec<CachedEvent>, u64> {
        let start = self.window_start.get(&kind).copied().unwrap_or(0);
        if revision + 1 < start {
            return Err(start);
        }
        let events = self
            .window
            .get(&kind)
            .map(|w| w.iter().filter(|e| e.revision > revision).cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        Ok(events.into_iter().filter(|e| namespace.is_none_or(|ns| e.namespace() == Some(ns))).collect())
    }

    pub fn add_watcher(&mut self, id: u64, watcher: Watcher) {
        match (watcher.kind, watcher.fields.required_value("spec.nodeName")) {
            (Kind::Pod, Some(node)) => self.by_node.entry(node.to_string()).or_default().insert(id),
            _ => self.by_kind.entry(watcher.kind).or_default().insert(id),
        };
        self.watchers.insert(id, watcher);
    }

    pub fn remove_watcher(&mut self, id: u64) {
        if let Some(w) = self.watchers.remove(&id) {
            if let Some(set) = self.by_kind.get_mut(&w.kind) {
                set.remove(&id);
            }
            if let Some(node) = w.fields.required_value("spec.nodeName") {
                if let Some(set) = self.by_node.get_mut(node) {
                    set.remove(&id);
                }
            }
        }
    }

    /// Removes every client watch, returning (watch id, client) pairs.
    pub fn drain_watchers(&mut self) -> Vec<(u64, ComponentId)> {
        self.by_kind.clear();
        self.by_node.clear();
        std::mem::take(&mut self.watchers).into_iter().map(|(id, w)| (id, w.client)).collect()
    }

    /// Drops every watch of a client (its connection is gone).
    pub fn remove_client(&mut self, client: ComponentId) {
        let ids: Vec<u64> = self.watchers.iter().filter(|(_, w)| w.client == client).map(|(id, _)| *id).collect();
        for id in ids {
            self.remove_watcher(id);
        }
    }

    pub fn watcher(&self, id: u64) -> Option<&Watcher> {
        self.watchers.get(&id)
    }

    /// The watches a change may concern (by kind, and for pods by old and new node), in id order.
    pub fn interested(&self, event: &CachedEvent) -> Vec<u64> {
        let Some(sample) = event.new.as_ref().or(event.old.as_ref()) else {
            return Vec::new();
        };
        let kind = sample.kind();
        let mut ids: BTreeSet<u64> = self.by_kind.get(&kind).cloned().unwrap_or_default();
        if kind == Kind::Pod {
            for o in [event.old.as_ref(), event.new.as_ref()].into_iter().flatten() {
                if let Some(node) = node_of(o) {
                    ids.extend(self.by_node.get(node).into_iter().flatten());
                }
            }
        }
        ids.into_iter().collect()
    }

    pub fn watcher_count(&self) -> usize {
        self.watchers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::pod;

    /// Writes `count` pods (one event each) at `at`, from revision `first` on.
    fn fill(cache: &mut WatchCache, first: u64, count: usize, at: SimTime) {
        for i in 0..count as u64 {
            let obj = Arc::new(pod("default", &format!("p{}", first + i), None));
            cache.apply(first + i, at, Some(obj), None);
        }
    }

    #[test]
    fn the_window_keeps_fresh_events_up_to_its_upper_bound_and_older_resumes_are_gone() {
        let mut cache = WatchCache::default();
        let extra = 10;
        fill(&mut cache, 1, WINDOW_MAX_EVENTS + extra, SimTime::ZERO);
        let last = (WINDOW_MAX_EVENTS + extra) as u64;
        // All fresh, but only the newest 100 × 1024 stay: resuming from revision 1 is too old.
        let oldest_kept = last - WINDOW_MAX_EVENTS as u64 + 1;
        assert_eq!(cache.events_since(Kind::Pod, 1, None).map(|e| e.len()), Err(oldest_kept));
        let resumed = cache.events_since(Kind::Pod, oldest_kept - 1, None).expect("within the window");
        assert_eq!(resumed.len(), WINDOW_MAX_EVENTS);
        assert_eq!(resumed.first().map(|e| e.revision), Some(oldest_kept));
        assert_eq!(cache.count(Kind::Pod), WINDOW_MAX_EVENTS + extra, "the objects themselves all stay");
    }

    #[test]
    fn events_older_than_the_fresh_duration_go_once_more_than_the_lower_bound_are_kept() {
        let mut cache = WatchCache::default();
        fill(&mut cache, 1, 150, SimTime::ZERO);
        assert_eq!(cache.events_since(Kind::Pod, 0, None).map(|e| e.len()), Ok(150), "fresh: all kept");
        fill(&mut cache, 151, 1, SimTime::ZERO.plus_ms(WINDOW_MS + 1));
        // Stale events go until only the lower bound's 100 remain (the newest one among them).
        let kept = cache.events_since(Kind::Pod, 0, None);
        assert_eq!(kept.as_ref().map(|e| e.len()).map_err(|s| *s), Err(52));
        assert_eq!(cache.events_since(Kind::Pod, 51, None).map(|e| e.len()), Ok(100));
    }
}
