//! The Raft log of one etcd member (real counterpart: etcd's `raft/log.go` with its `unstable` and
//! `storage` parts, and the WAL they persist). Written only by [`super::member`].
//!
//! Entries before `offset` have been dropped after a snapshot; `offset_term` remembers the term of the
//! entry at `offset` so the log-matching check still works at the boundary.

use std::collections::VecDeque;

use super::LogEntry;

#[derive(Debug, Clone, Default)]
pub struct RaftLog {
    /// Index of the last entry covered by the snapshot (0 for a log that never dropped anything).
    offset: u64,
    offset_term: u64,
    entries: VecDeque<LogEntry>,
}

impl RaftLog {
    pub fn offset(&self) -> u64 {
        self.offset
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn last_index(&self) -> u64 {
        self.offset + self.entries.len() as u64
    }

    pub fn last_term(&self) -> u64 {
        self.entries.back().map_or(self.offset_term, |e| e.term)
    }

    /// The term of the entry at `index`, if the log still knows it.
    pub fn term_at(&self, index: u64) -> Option<u64> {
        if index == self.offset {
            return Some(self.offset_term);
        }
        self.get(index).map(|e| e.term)
    }

    pub fn get(&self, index: u64) -> Option<&LogEntry> {
        let at = index.checked_sub(self.offset + 1)?;
        self.entries.get(usize::try_from(at).ok()?)
    }

    pub fn push(&mut self, entry: LogEntry) {
        self.entries.push_back(entry);
    }

    /// Drops the entry at `index` and everything after it (a conflicting suffix).
    pub fn truncate_from(&mut self, index: u64) {
        let keep = index.saturating_sub(self.offset + 1);
        self.entries.truncate(usize::try_from(keep).unwrap_or(usize::MAX));
    }

    /// Up to `max` entries starting at `index` (which must be after the offset).
    pub fn entries_from(&self, index: u64, max: usize) -> Vec<LogEntry> {
        let skip = usize::try_from(index.saturating_sub(self.offset + 1)).unwrap_or(usize::MAX);
        let start = skip.min(self.entries.len());
        self.entries.range(start..).take(max).cloned().collect()
    }

    /// Forgets entries up to and including `index` (they are in the store's snapshot).
    pub fn compact_to(&mut self, index: u64) {
        if index <= self.offset || index > self.last_index() {
            return;
        }
        if let Some(term) = self.term_at(index) {
            let drop = usize::try_from(index - self.offset).unwrap_or(usize::MAX);
            self.entries.drain(..drop.min(self.entries.len()));
            self.offset = index;
            self.offset_term = term;
        }
    }

    /// Replaces the whole log by a snapshot boundary (after installing a leader's snapshot).
    pub fn reset(&mut self, index: u64, term: u64) {
        self.entries.clear();
        self.offset = index;
        self.offset_term = term;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::Txn;

    fn entry(index: u64, term: u64) -> LogEntry {
        LogEntry { term, index, txn: Txn::default(), origin: 0, request_id: 0, compact: None }
    }

    #[test]
    fn the_log_keeps_terms_across_truncation_and_compaction() {
        let mut log = RaftLog::default();
        for (i, t) in [(1, 1), (2, 1), (3, 2), (4, 2)] {
            log.push(entry(i, t));
        }
        assert_eq!((log.last_index(), log.last_term()), (4, 2));
        log.truncate_from(4);
        assert_eq!(log.last_index(), 3);
        log.compact_to(2);
        assert_eq!(log.offset(), 2);
        assert_eq!(log.term_at(2), Some(1));
        assert_eq!(log.term_at(1), None);
        assert_eq!(log.get(3).map(|e| e.term), Some(2));
        assert_eq!(log.entries_from(3, 10).len(), 1);
        log.reset(10, 3);
        assert_eq!((log.last_index(), log.last_term(), log.len()), (10, 3, 0));
    }
}
