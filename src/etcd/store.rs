//! The MVCC key-value store inside one etcd member (real counterpart: etcd's `server/storage/mvcc`).
//!
//! Reads: transactions ([`Txn`]), watch history requests. Writes: the keys, the global revision, and the
//! event history that watches replay.
//!
//! Semantics follow etcd: the revision of an empty store is 1; a transaction that changes anything bumps it
//! exactly once and all of its puts and deletes share that revision; reads, failed-compare branches without
//! writes and deletes of missing keys do not bump it. Each key carries `create_revision`, `mod_revision` and
//! `version` (puts since creation). History is a queue of [`Event`]s in revision order, dropped up to the
//! compact revision by [`Store::compact`]; asking for events at or before it fails with
//! [`EtcdError::Compacted`].

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use super::history::History;
use super::{Compare, CompareTarget, EtcdError, Event, EventType, KeyValue, Op, OpResult, Txn, TxnResponse};
use crate::api::Object;

/// The current keys and revision of a store: what a member persists as a Raft snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    pub keys: BTreeMap<String, KeyValue>,
    pub revision: u64,
    /// The store's compact revision when the snapshot was taken.
    pub compact_revision: u64,
}

/// The value as the apiserver's decoder reads it back: with `metadata.resourceVersion` set to the revision
/// of its put. Real etcd holds opaque bytes and the apiserver fills the field in on every decode; doing it
/// once, when the revision is assigned, lets the watch cache keep the very object etcd holds instead of a
/// second copy of every revision. Nothing else reads the field here (compares use the key's revisions),
/// and `etcdctl` prints values without it.
fn stamped(value: &Arc<Object>, revision: u64) -> Arc<Object> {
    if value.resource_version() == revision {
        return Arc::clone(value);
    }
    let mut value = Arc::clone(value);
    Arc::make_mut(&mut value).meta_mut().resource_version = Some(revision.to_string());
    value
}

/// One member's MVCC store.
#[derive(Debug, Clone)]
pub struct Store {
    keys: BTreeMap<String, KeyValue>,
    revision: u64,
    compact_revision: u64,
    /// Every change after `compact_revision`, in revision order (and in op order within a revision).
    history: History,
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Store {
    /// An empty store at revision 1, as a fresh etcd cluster starts.
    pub fn new() -> Store {
        Store { keys: BTreeMap::new(), revision: 1, compact_revision: 0, history: History::default() }
    }

    /// A store whose history turns replaced values into JSON `hot` revisions later (the default is
    /// [`super::history::HOT_REVISIONS`]).
    pub fn with_hot_revisions(hot: u64) -> Store {
        Store { history: History::with_hot_revisions(hot), ..Store::new() }
    }

    /// The revision of the last change (1 for a store that never changed).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// History at or before this revision is gone (0 before any compaction).
    pub fn compact_revision(&self) -> u64 {
        self.compact_revision
    }

    /// How many keys the store holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// How many events the history holds (for the UI and memory checks).
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// How many of the history's values are kept as JSON ([`super::history`]).
    pub fn history_cold_values(&self) -> usize {
        self.history.cold_values()
    }

    /// One key's current value.
    pub fn get(&self, key: &str) -> Option<&KeyValue> {
        self.keys.get(key)
    }

    /// Every key under `prefix`, in key order (a `BTreeMap` range, not a scan).
    pub fn prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a KeyValue> + 'a {
        self.keys
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(_, kv)| kv)
    }

    /// Every key from `start` on, in key order (a `BTreeMap` range: browsing jumps instead of scanning).
    pub fn keys_from(&self, start: &str) -> impl Iterator<Item = &KeyValue> + '_ {
        self.keys.range::<str, _>((Bound::Included(start), Bound::Unbounded)).map(|(_, kv)| kv)
    }

    /// Runs a transaction: the compares pick a branch, whose ops run in order (a range sees earlier puts of
    /// the same transaction).
    pub fn apply(&mut self, txn: &Txn) -> TxnResponse {
        let succeeded = txn.compare.iter().all(|c| self.holds(c));
        let ops = if succeeded { &txn.success } else { &txn.failure };
        let next = self.revision + 1;
        let mut changed = false;
        let results = ops.iter().map(|op| self.run(op, next, &mut changed)).collect();
        if changed {
            self.revision = next;
            self.history.cool(next);
        }
        TxnResponse { succeeded, revision: self.revision, results }
    }

    /// Whether every read of `txn` can be served: one at a compacted or future revision fails the whole
    /// transaction, as etcd fails it.
    pub fn check_reads(&self, txn: &Txn) -> Result<(), EtcdError> {
        for op in txn.success.iter().chain(&txn.failure) {
            if let Op::Range { revision, .. } | Op::Page { revision, .. } = op {
                self.check_revision(*revision)?;
            }
        }
        Ok(())
    }

    fn holds(&self, compare: &Compare) -> bool {
        let kv = self.keys.get(&compare.key);
        let actual = match compare.target {
            CompareTarget::ModRevision => kv.map_or(0, |kv| kv.mod_revision),
            CompareTarget::CreateRevision => kv.map_or(0, |kv| kv.create_revision),
            CompareTarget::Version => kv.map_or(0, |kv| kv.version),
        };
        actual == compare.value
    }

    fn run(&mut self, op: &Op, next: u64, changed: &mut bool) -> OpResult {
        match op {
            Op::Put { key, value } => {
                *changed = true;
                OpResult::Put { prev: self.put(key, value, next) }
            }
            Op::Delete { key } => {
                let deleted: Vec<KeyValue> = self.delete(key, next).into_iter().collect();
                *changed |= !deleted.is_empty();
                OpResult::Delete { deleted }
            }
            Op::Range { key, prefix, revision } => {
                OpResult::Range { kvs: self.range_at(key, *prefix, *revision).unwrap_or_default() }
            }
            Op::Page { prefix, from, revision, limit } => {
                let (kvs, count) = self.page_at(prefix, from, *revision, *limit).unwrap_or_default();
                OpResult::Page { kvs, count }
            }
        }
    }

    fn put(&mut self, key: &str, value: &Arc<Object>, revision: u64) -> Option<KeyValue> {
        let prev = self.keys.get(key).cloned();
        let kv = KeyValue {
            key: key.to_string(),
            value: stamped(value, revision),
            create_revision: prev.as_ref().map_or(revision, |p| p.create_revision),
            mod_revision: revision,
            version: prev.as_ref().map_or(1, |p| p.version + 1),
        };
        self.keys.insert(key.to_string(), kv.clone());
        self.history.push(Event { kind: EventType::Put, kv, prev: prev.clone() });
        prev
    }

    /// Removes a key; the delete event carries the last value with `mod_revision` = the delete's revision
    /// and, like etcd's tombstones, `create_revision` and `version` 0.
    fn delete(&mut self, key: &str, revision: u64) -> Option<KeyValue> {
        let prev = self.keys.remove(key)?;
        let tombstone = KeyValue {
            key: key.to_string(),
            value: Arc::clone(&prev.value),
            create_revision: 0,
            mod_revision: revision,
            version: 0,
        };
        self.history.push(Event { kind: EventType::Delete, kv: tombstone, prev: Some(prev.clone()) });
        Some(prev)
    }

    /// A key, or every key under a prefix.
    pub fn range(&self, key: &str, prefix: bool) -> Vec<KeyValue> {
        if prefix {
            self.prefix(key).cloned().collect()
        } else {
            self.keys.get(key).cloned().into_iter().collect()
        }
    }

    /// Whether `revision` (0: now) can be read: not compacted, not in the future.
    fn check_revision(&self, revision: u64) -> Result<(), EtcdError> {
        if revision == 0 || revision == self.revision {
            return Ok(());
        }
        if revision > self.revision {
            return Err(EtcdError::FutureRevision);
        }
        if revision < self.compact_revision {
            return Err(EtcdError::Compacted { compact_revision: self.compact_revision });
        }
        Ok(())
    }

    /// The keys under `prefix` from `from` on as of `revision` (0: now), the first `limit` of them, and how
    /// many there are: at the current revision only the page is copied; an older one is rebuilt from the
    /// history first.
    pub fn page_at(
        &self,
        prefix: &str,
        from: &str,
        revision: u64,
        limit: usize,
    ) -> Result<(Vec<KeyValue>, usize), EtcdError> {
        self.check_revision(revision)?;
        let start = from.max(prefix);
        if revision == 0 || revision == self.revision {
            let mut keys = self.keys.range::<str, _>((std::ops::Bound::Included(start), std::ops::Bound::Unbounded));
            let in_range: Vec<&KeyValue> =
                keys.by_ref().map(|(_, kv)| kv).take_while(|kv| kv.key.starts_with(prefix)).take(limit).collect();
            let rest = keys.map(|(_, kv)| kv).take_while(|kv| kv.key.starts_with(prefix)).count();
            let count = in_range.len() + rest;
            return Ok((in_range.into_iter().cloned().collect(), count));
        }
        let all = self.range_at(prefix, true, revision)?;
        let after: Vec<KeyValue> = all.into_iter().filter(|kv| kv.key.as_str() >= start).collect();
        let count = after.len();
        Ok((after.into_iter().take(limit).collect(), count))
    }

    /// A key, or every key under a prefix, as of `revision` (0: now): the current keys with the history
    /// after `revision` undone, newest first. Compacted and future revisions fail as in etcd.
    pub fn range_at(&self, key: &str, prefix: bool, revision: u64) -> Result<Vec<KeyValue>, EtcdError> {
        if revision == 0 || revision == self.revision {
            return Ok(self.range(key, prefix));
        }
        if revision > self.revision {
            return Err(EtcdError::FutureRevision);
        }
        // etcd's `rangeKeys`: the compact revision itself can still be read (`rev < compactMainRev` fails).
        if revision < self.compact_revision {
            return Err(EtcdError::Compacted { compact_revision: self.compact_revision });
        }
        let wanted = |k: &str| if prefix { k.starts_with(key) } else { k == key };
        let mut keys: BTreeMap<String, KeyValue> =
            self.range(key, prefix).into_iter().map(|kv| (kv.key.clone(), kv)).collect();
        self.history.undo_after(revision, wanted, &mut keys);
        Ok(keys.into_values().collect())
    }

    /// Events under `prefix` with revision >= `start_revision`, oldest first. 0 means "from now on" (no
    /// history). A start at or before the compact revision fails as etcd's `ErrCompacted` does.
    pub fn events_since(&self, prefix: &str, start_revision: u64) -> Result<Vec<Event>, EtcdError> {
        if start_revision == 0 {
            return Ok(Vec::new());
        }
        if start_revision <= self.compact_revision {
            return Err(EtcdError::Compacted { compact_revision: self.compact_revision });
        }
        Ok(self.history.since(prefix, start_revision))
    }

    /// The events of exactly one revision (what a watch streams after that revision is applied).
    pub fn events_at(&self, revision: u64) -> Vec<Event> {
        self.history.at(revision)
    }

    /// Drops history at or before `revision` (clamped to the current revision). Compacting at or before the
    /// current compact revision fails with [`EtcdError::Compacted`], as in etcd. Returns the new compact
    /// revision.
    pub fn compact(&mut self, revision: u64) -> Result<u64, EtcdError> {
        if revision <= self.compact_revision {
            return Err(EtcdError::Compacted { compact_revision: self.compact_revision });
        }
        let revision = revision.min(self.revision);
        self.history.compact(revision);
        self.compact_revision = revision;
        Ok(revision)
    }

    /// The current keys and revision.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { keys: self.keys.clone(), revision: self.revision, compact_revision: self.compact_revision }
    }

    /// What `etcdutl snapshot restore` builds: the snapshot's keys at its revision, or `bump` revisions later
    /// (`--bump-revision`); with `mark_compacted` (`--mark-compacted`) everything up to the new revision counts
    /// as compacted, so watches that had seen later revisions are canceled instead of waiting silently.
    pub fn from_backup(snapshot: Snapshot, bump: u64, mark_compacted: bool) -> Store {
        let revision = snapshot.revision.max(1).saturating_add(bump);
        let compact_revision = if mark_compacted { revision } else { snapshot.compact_revision };
        Store { keys: snapshot.keys, revision, compact_revision, history: History::default() }
    }

    /// A store holding exactly the snapshot's keys at its revision. The snapshot carries no history, so the
    /// restored store's compact revision is the snapshot revision: older watches are told they were compacted.
    pub fn restore(snapshot: Snapshot) -> Store {
        Store {
            keys: snapshot.keys,
            revision: snapshot.revision.max(1),
            compact_revision: snapshot.revision,
            history: History::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::ConfigMap;
    use crate::api::ObjectMeta;

    fn cm(name: &str) -> Arc<Object> {
        Arc::new(Object::ConfigMap(Box::new(ConfigMap {
            metadata: ObjectMeta { name: Some(name.to_string()), ..ObjectMeta::default() },
            ..ConfigMap::default()
        })))
    }

    fn put(key: &str) -> Op {
        Op::Put { key: key.to_string(), value: cm(key) }
    }

    fn del(key: &str) -> Op {
        Op::Delete { key: key.to_string() }
    }

    fn txn(ops: Vec<Op>) -> Txn {
        Txn { success: ops, ..Txn::default() }
    }

    fn keys(kvs: &[KeyValue]) -> Vec<&str> {
        kvs.iter().map(|kv| kv.key.as_str()).collect()
    }

    /// A put's value reads back with its revision as resourceVersion (what the apiserver's decoder fills in),
    /// and the history's event holds that same value rather than a copy.
    #[test]
    fn a_put_stamps_its_revision_into_the_value_once() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/registry/configmaps/default/a")]));
        store.apply(&txn(vec![put("/registry/configmaps/default/a"), put("/registry/configmaps/default/b")]));
        let a = store.get("/registry/configmaps/default/a").expect("stored");
        assert_eq!((a.mod_revision, a.value.resource_version()), (3, 3));
        assert_eq!(store.get("/registry/configmaps/default/b").map(|kv| kv.value.resource_version()), Some(3));
        let second = &store.events_since("", 1).expect("history")[1];
        assert_eq!(second.kv.key, "/registry/configmaps/default/a");
        assert!(Arc::ptr_eq(&second.kv.value, &a.value), "the event shares the current value");
        assert_eq!(second.prev.as_ref().map(|p| p.value.resource_version()), Some(2));
    }

    /// Old revisions of replaced values are kept as JSON once they are far enough back, and read back equal:
    /// watches from old revisions, `range_at` and deletes see the same objects as before.
    #[test]
    fn old_replaced_values_are_kept_as_json_and_read_back_unchanged() {
        // What a read returns, as text, so the test itself holds none of the store's objects.
        let text = |events: &[Event]| format!("{events:?}");
        let mut store = Store::with_hot_revisions(100);
        let a = "/registry/configmaps/default/a";
        for _ in 0..3 {
            store.apply(&txn(vec![put(a)]));
        }
        store.apply(&txn(vec![put("/registry/configmaps/default/gone")]));
        store.apply(&txn(vec![Op::Delete { key: "/registry/configmaps/default/gone".into() }]));
        let before = text(&store.events_since("/registry/configmaps/", 1).expect("history"));
        let at_three = format!("{:?}", store.range_at(a, false, 3).expect("range"));
        let held_outside = store.events_at(2);
        for i in 0..110 {
            store.apply(&txn(vec![put(&format!("/registry/configmaps/default/filler-{i}"))]));
        }
        // a@3, and the put and delete of `gone` (sharing one JSON); a@2 is still held outside the store
        // (as the watch cache would hold it), so turning it into JSON would only duplicate it.
        assert_eq!(store.history_cold_values(), 3);
        let after = store.events_since("/registry/configmaps/", 1).expect("history");
        assert_eq!(text(&after[..5]), before);
        assert_eq!(format!("{:?}", store.range_at(a, false, 3).expect("range")), at_three);
        assert_eq!(held_outside[0].kv.value.resource_version(), 2);
        let current = store.get(a).expect("current");
        assert!(Arc::ptr_eq(&current.value, &store.events_at(4)[0].kv.value), "the current value stays as it is");
    }

    fn range_kvs(store: &mut Store, key: &str, prefix: bool) -> Vec<KeyValue> {
        match store.apply(&Txn::range(key, prefix)).results.pop() {
            Some(OpResult::Range { kvs }) => kvs,
            other => panic!("expected a range result, got {other:?}"),
        }
    }

    #[test]
    fn a_fresh_store_is_empty_at_revision_one() {
        let store = Store::new();
        assert_eq!(store.revision(), 1);
        assert_eq!(store.compact_revision(), 0);
        assert_eq!(store.len(), 0);
        assert!(store.is_empty());
    }

    #[test]
    fn a_page_stops_at_its_limit_counts_the_rest_and_reads_old_revisions() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/p/a"), put("/p/b"), put("/p/c"), put("/p/d"), put("/q/a")]));
        let old = store.revision();
        store.apply(&txn(vec![del("/p/b"), put("/p/e")]));
        let (page, count) = store.page_at("/p/", "/p/b", 0, 2).unwrap();
        assert_eq!((keys(&page), count), (vec!["/p/c", "/p/d"], 3), "from /p/b on now: c d e");
        let (page, count) = store.page_at("/p/", "/p/b", old, 2).unwrap();
        assert_eq!((keys(&page), count), (vec!["/p/b", "/p/c"], 3), "at the older revision: b c d");
        let (page, count) = store.page_at("/p/", "/p/z", 0, 2).unwrap();
        assert_eq!((page.len(), count), (0, 0));
        assert_eq!(store.page_at("/p/", "/p/a", old + 5, 1), Err(EtcdError::FutureRevision));
    }

    #[test]
    fn a_write_transaction_bumps_the_revision_once_for_all_its_ops() {
        let mut store = Store::new();
        let r = store.apply(&txn(vec![put("/a"), put("/b"), put("/a")]));
        assert!(r.succeeded);
        assert_eq!(r.revision, 2);
        assert_eq!(store.revision(), 2);
        let a = store.get("/a").unwrap();
        let b = store.get("/b").unwrap();
        assert_eq!((a.create_revision, a.mod_revision, a.version), (2, 2, 2));
        assert_eq!((b.create_revision, b.mod_revision, b.version), (2, 2, 1));
        assert_eq!(store.apply(&txn(vec![put("/b")])).revision, 3);
    }

    #[test]
    fn versions_count_puts_since_creation_and_restart_after_a_delete() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/k")]));
        store.apply(&txn(vec![put("/k")]));
        let kv = store.get("/k").unwrap().clone();
        assert_eq!((kv.create_revision, kv.mod_revision, kv.version), (2, 3, 2));
        let r = store.apply(&txn(vec![del("/k")]));
        assert_eq!(r.revision, 4);
        assert_eq!(r.results, vec![OpResult::Delete { deleted: vec![kv.clone()] }]);
        assert!(store.get("/k").is_none());
        store.apply(&txn(vec![put("/k")]));
        let again = store.get("/k").unwrap();
        assert_eq!((again.create_revision, again.mod_revision, again.version), (5, 5, 1));
    }

    #[test]
    fn read_only_and_empty_transactions_do_not_bump_the_revision() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/a")]));
        assert_eq!(store.apply(&Txn::range("/a", false)).revision, 2);
        assert_eq!(store.apply(&Txn::default()).revision, 2);
        assert_eq!(store.revision(), 2);
        assert_eq!(store.history_len(), 1);
    }

    #[test]
    fn a_failed_compare_runs_the_failure_branch_and_does_not_bump_when_it_only_reads() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/a")]));
        let guarded = Txn {
            compare: vec![Compare { key: "/a".into(), target: CompareTarget::ModRevision, value: 99 }],
            success: vec![put("/a")],
            failure: vec![Op::Range { key: "/a".into(), prefix: false, revision: 0 }],
        };
        let r = store.apply(&guarded);
        assert!(!r.succeeded);
        assert_eq!(r.revision, 2);
        match &r.results[..] {
            [OpResult::Range { kvs }] => assert_eq!(kvs[0].mod_revision, 2),
            other => panic!("unexpected results {other:?}"),
        }
        let ok = Txn {
            compare: vec![Compare { key: "/a".into(), target: CompareTarget::ModRevision, value: 2 }],
            ..guarded
        };
        assert!(store.apply(&ok).succeeded);
        assert_eq!(store.revision(), 3);
    }

    #[test]
    fn a_missing_key_compares_as_zero_on_every_target() {
        let mut store = Store::new();
        let create_if_absent = |target| Txn {
            compare: vec![Compare { key: "/new".into(), target, value: 0 }],
            success: vec![put("/new")],
            failure: vec![],
        };
        for target in [CompareTarget::ModRevision, CompareTarget::CreateRevision, CompareTarget::Version] {
            let mut fresh = Store::new();
            assert!(fresh.apply(&create_if_absent(target)).succeeded);
        }
        assert!(store.apply(&create_if_absent(CompareTarget::Version)).succeeded);
        let second = store.apply(&create_if_absent(CompareTarget::Version));
        assert!(!second.succeeded);
        assert_eq!(second.revision, 2);
    }

    #[test]
    fn a_prefix_range_returns_only_keys_under_the_prefix_in_key_order() {
        let mut store = Store::new();
        store.apply(&txn(vec![
            put("/registry/pods/b"),
            put("/registry/pods/a"),
            put("/registry/podsx/c"),
            put("/registry/pod"),
            put("/registry/services/s"),
        ]));
        let kvs = range_kvs(&mut store, "/registry/pods/", true);
        assert_eq!(keys(&kvs), vec!["/registry/pods/a", "/registry/pods/b"]);
        assert_eq!(range_kvs(&mut store, "/registry/pod", false).len(), 1);
        assert!(range_kvs(&mut store, "/registry/zzz/", true).is_empty());
        assert_eq!(range_kvs(&mut store, "", true).len(), 5);
    }

    #[test]
    fn deleting_a_missing_key_does_not_bump_the_revision() {
        let mut store = Store::new();
        let r = store.apply(&txn(vec![del("/nothing")]));
        assert_eq!(r.revision, 1);
        assert_eq!(r.results, vec![OpResult::Delete { deleted: vec![] }]);
        assert_eq!(store.history_len(), 0);
    }

    #[test]
    fn history_lists_events_in_revision_order_with_their_previous_values() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/p/a")]));
        store.apply(&txn(vec![put("/q/x")]));
        store.apply(&txn(vec![put("/p/a")]));
        store.apply(&txn(vec![del("/p/a")]));
        let events = store.events_since("/p/", 2).unwrap();
        let summary: Vec<(EventType, u64, Option<u64>)> =
            events.iter().map(|e| (e.kind, e.kv.mod_revision, e.prev.as_ref().map(|p| p.mod_revision))).collect();
        assert_eq!(
            summary,
            vec![(EventType::Put, 2, None), (EventType::Put, 4, Some(2)), (EventType::Delete, 5, Some(4)),]
        );
        assert_eq!(store.events_since("/p/", 5).unwrap().len(), 1);
        assert!(store.events_since("/p/", 6).unwrap().is_empty());
        assert!(store.events_since("/p/", 0).unwrap().is_empty());
        assert_eq!(store.events_at(3).len(), 1);
    }

    #[test]
    fn events_at_or_before_the_compact_revision_are_an_error() {
        let mut store = Store::new();
        for _ in 0..5 {
            store.apply(&txn(vec![put("/a")]));
        }
        assert_eq!(store.compact(4), Ok(4));
        assert_eq!(store.compact_revision(), 4);
        assert_eq!(store.events_since("/", 4), Err(EtcdError::Compacted { compact_revision: 4 }));
        let left = store.events_since("/", 5).unwrap();
        assert_eq!(left.len(), 2);
        assert_eq!(store.history_len(), 2);
        assert!(store.compact(3).is_err());
        assert_eq!(store.compact(100), Ok(6));
        assert_eq!(store.history_len(), 0);
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_range_at_an_older_revision_undoes_later_puts_and_deletes() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/p/a")]));
        store.apply(&txn(vec![put("/p/b")]));
        store.apply(&txn(vec![put("/p/a"), del("/p/b")]));
        store.apply(&txn(vec![put("/p/c")]));
        let at = |rev| {
            store
                .range_at("/p/", true, rev)
                .map(|kvs| kvs.iter().map(|kv| (kv.key.clone(), kv.mod_revision)).collect::<Vec<_>>())
        };
        assert_eq!(at(2), Ok(vec![("/p/a".to_string(), 2)]));
        assert_eq!(at(3), Ok(vec![("/p/a".to_string(), 2), ("/p/b".to_string(), 3)]));
        assert_eq!(at(4), Ok(vec![("/p/a".to_string(), 4)]));
        assert_eq!(at(0), at(5));
        assert_eq!(at(6), Err(EtcdError::FutureRevision));
        assert_eq!(store.range_at("/p/b", false, 3).map(|k| k.len()), Ok(1));
        store.compact(3).unwrap();
        assert_eq!(store.range_at("/p/", true, 3).map(|kvs| kvs.len()), Ok(2));
        assert_eq!(store.range_at("/p/", true, 2), Err(EtcdError::Compacted { compact_revision: 3 }));
    }

    #[test]
    fn a_backup_restored_with_a_revision_bump_and_compaction_cancels_older_watches() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/a")]));
        let snap = store.snapshot();
        let plain = Store::from_backup(snap.clone(), 0, false);
        assert_eq!((plain.revision(), plain.compact_revision()), (2, 0));
        assert_eq!(plain.events_since("/", 50), Ok(vec![]));
        let bumped = Store::from_backup(snap, 1000, true);
        assert_eq!((bumped.revision(), bumped.compact_revision()), (1002, 1002));
        assert!(bumped.events_since("/", 50).is_err());
        assert_eq!(bumped.get("/a").map(|kv| kv.mod_revision), Some(2));
    }

    #[test]
    fn restoring_a_snapshot_rolls_back_keys_and_revision() {
        let mut store = Store::new();
        store.apply(&txn(vec![put("/a"), put("/b")]));
        let snap = store.snapshot();
        store.apply(&txn(vec![del("/a"), put("/c")]));
        store.apply(&txn(vec![put("/b")]));
        assert_eq!(store.revision(), 4);
        let mut restored = Store::restore(snap.clone());
        assert_eq!(restored.revision(), 2);
        assert_eq!(restored.len(), 2);
        assert!(restored.get("/c").is_none());
        assert_eq!(restored.get("/b").unwrap().version, 1);
        assert_eq!(restored.snapshot().keys, snap.keys);
        assert!(restored.events_since("/", 2).is_err());
        assert_eq!(restored.apply(&txn(vec![put("/d")])).revision, 3);
    }
}
