//! The event history of one MVCC store: every change since the compact revision, in revision order, as
//! watches replay it and `etcdctl get --rev` reads it.
//!
//! Real etcd keeps old revisions as serialized bytes on disk; kubeglass keeps them in memory. Recent events
//! hold the objects themselves (the watch stream reads them as soon as they are applied), but once the event
//! that replaced a value is more than [`HOT_REVISIONS`] old, and nothing outside the history still holds the
//! value, it is kept as its JSON instead, shared by the event that wrote it and the event that replaced it
//! (its `prev`). A replaced pod revision then costs its JSON (about 2 KB) instead of the typed object (about
//! 5 KB), which is most of what a large cluster's history holds. Reading an old event decodes it again.
//!
//! The distance is large because the apiserver's watch cache keeps the last 100 × 1024 events of each
//! resource, which at scale span a few hundred thousand revisions: a value the cache still holds is left
//! alone (encoding it would add a copy, not remove one), and each event is looked at only once.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use super::{Event, EventType, KeyValue};
use crate::api::{Kind, Object};

/// How many revisions back events keep their objects as they are.
pub const HOT_REVISIONS: u64 = 400_000;

/// A value in the history: the object, or its JSON once it is cold.
#[derive(Debug, Clone)]
enum Held {
    Live(Arc<Object>),
    Cold { kind: Kind, json: Arc<[u8]> },
}

impl Held {
    fn cold(object: &Object) -> Held {
        Held::Cold { kind: object.kind(), json: object.to_json_bytes().into() }
    }

    fn is_live(&self) -> bool {
        matches!(self, Held::Live(_))
    }

    /// The object, decoded when cold. `None` only if the bytes this module wrote fail to decode.
    fn object(&self) -> Option<Arc<Object>> {
        match self {
            Held::Live(o) => Some(Arc::clone(o)),
            Held::Cold { kind, json } => Object::from_json_bytes(*kind, json).ok().map(Arc::new),
        }
    }
}

/// A key's MVCC metadata at one revision.
#[derive(Debug, Clone, Copy)]
struct Meta {
    create_revision: u64,
    mod_revision: u64,
    version: u64,
}

impl Meta {
    fn of(kv: &KeyValue) -> Meta {
        Meta { create_revision: kv.create_revision, mod_revision: kv.mod_revision, version: kv.version }
    }

    fn key_value(self, key: &str, value: Arc<Object>) -> KeyValue {
        KeyValue {
            key: key.to_string(),
            value,
            create_revision: self.create_revision,
            mod_revision: self.mod_revision,
            version: self.version,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    kind: EventType,
    key: String,
    meta: Meta,
    value: Held,
    prev: Option<(Meta, Held)>,
}

impl Entry {
    fn event(&self) -> Option<Event> {
        let kv = self.meta.key_value(&self.key, self.value.object()?);
        let prev = match &self.prev {
            Some((meta, held)) => Some(meta.key_value(&self.key, held.object()?)),
            None => None,
        };
        Some(Event { kind: self.kind, kv, prev })
    }
}

#[derive(Debug, Clone)]
pub struct History {
    entries: VecDeque<Entry>,
    /// Events at or before this revision have been cooled.
    cooled_to: u64,
    /// How many revisions back values stay objects ([`HOT_REVISIONS`] but in tests).
    hot: u64,
}

impl Default for History {
    fn default() -> Self {
        History::with_hot_revisions(HOT_REVISIONS)
    }
}

impl History {
    pub fn with_hot_revisions(hot: u64) -> History {
        History { entries: VecDeque::new(), cooled_to: 0, hot }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// How many events hold their value as JSON (a delete shares the JSON of the put it removed).
    pub fn cold_values(&self) -> usize {
        self.entries.iter().filter(|e| !e.value.is_live()).count()
    }

    pub fn push(&mut self, event: Event) {
        let prev = event.prev.map(|p| (Meta::of(&p), Held::Live(p.value)));
        let meta = Meta::of(&event.kv);
        self.entries.push_back(Entry {
            kind: event.kind,
            key: event.kv.key,
            meta,
            value: Held::Live(event.kv.value),
            prev,
        });
    }

    fn first_at(&self, revision: u64) -> usize {
        self.entries.partition_point(|e| e.meta.mod_revision < revision)
    }

    /// Events under `prefix` from `start` on, oldest first.
    pub fn since(&self, prefix: &str, start: u64) -> Vec<Event> {
        let from = self.first_at(start);
        self.entries.range(from..).filter(|e| e.key.starts_with(prefix)).filter_map(Entry::event).collect()
    }

    /// The events of exactly one revision.
    pub fn at(&self, revision: u64) -> Vec<Event> {
        let from = self.first_at(revision);
        self.entries.range(from..).take_while(|e| e.meta.mod_revision == revision).filter_map(Entry::event).collect()
    }

    /// Undoes, in `keys`, every change after `revision` to the keys `wanted` selects: what the store held then.
    pub fn undo_after(&self, revision: u64, wanted: impl Fn(&str) -> bool, keys: &mut BTreeMap<String, KeyValue>) {
        for e in self.entries.iter().rev().take_while(|e| e.meta.mod_revision > revision) {
            if !wanted(&e.key) {
                continue;
            }
            match &e.prev {
                Some((meta, held)) => {
                    if let Some(value) = held.object() {
                        keys.insert(e.key.clone(), meta.key_value(&e.key, value));
                    }
                }
                None => {
                    keys.remove(&e.key);
                }
            }
        }
    }

    /// Drops every event at or before `revision`.
    pub fn compact(&mut self, revision: u64) {
        let keep_from = self.entries.partition_point(|e| e.meta.mod_revision <= revision);
        self.entries.drain(..keep_from);
    }

    /// Turns replaced values into JSON once the event that replaced them is more than [`HOT_REVISIONS`]
    /// before `now`, when nothing outside the history still holds them (the apiserver's watch cache keeps a
    /// window of recent events; an object it still holds would only be duplicated). Each event is visited
    /// once, so a write costs at most one encoding of the value it replaced.
    pub fn cool(&mut self, now: u64) {
        let Some(upto) = now.checked_sub(self.hot) else { return };
        if upto <= self.cooled_to {
            return;
        }
        let mut i = self.first_at(self.cooled_to + 1);
        while i < self.entries.len() && self.entries[i].meta.mod_revision <= upto {
            self.cool_prev(i);
            i += 1;
        }
        self.cooled_to = upto;
    }

    /// Cools the value entry `i` replaced (its `prev`), together with the event that wrote it when that is
    /// still here, so both share one JSON; a delete's own value is that same value.
    fn cool_prev(&mut self, i: usize) {
        let Some((meta, Held::Live(prev))) = &self.entries[i].prev else { return };
        let revision = meta.mod_revision;
        let key = &self.entries[i].key;
        let from = self.first_at(revision);
        let writer = (from..i)
            .take_while(|&j| self.entries[j].meta.mod_revision == revision)
            .find(|&j| self.entries[j].key == *key && self.entries[j].kind == EventType::Put);
        let writer_shares =
            writer.is_some_and(|j| matches!(&self.entries[j].value, Held::Live(v) if Arc::ptr_eq(v, prev)));
        let is_delete = self.entries[i].kind == EventType::Delete;
        // Holders inside the history: this prev, the writer's value, and a delete's own value.
        let inside = 1 + usize::from(writer_shares) + usize::from(is_delete);
        if Arc::strong_count(prev) > inside {
            return;
        }
        let cold = Held::cold(prev);
        if let (Some(j), true) = (writer, writer_shares) {
            self.entries[j].value = cold.clone();
        }
        if is_delete {
            self.entries[i].value = cold.clone();
        }
        if let Some((_, slot)) = &mut self.entries[i].prev {
            *slot = cold;
        }
    }
}
