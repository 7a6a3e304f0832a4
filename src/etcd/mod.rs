//! etcd: the MVCC key-value store ([`store`]) and the member process ([`member`]) that replicates it with
//! Raft (leader, terms, majority commit, elections). Only kube-apiserver (and etcdctl on the control-plane
//! node) talks to etcd; these are the messages they exchange.
//!
//! Watches: a client sends [`EtcdMessage::Watch`] with a key prefix and a start revision; the member replies
//! with every event since that revision (or `WatchCanceled` with the compact revision when it is too old),
//! then streams new events as they are applied.

mod history;
pub mod member;
mod raft_log;
pub mod store;

use std::sync::Arc;

use crate::api::Object;

/// One key's current value and its MVCC metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    pub key: String,
    pub value: Arc<Object>,
    /// Revision of the put that created the key (since its last deletion).
    pub create_revision: u64,
    /// Revision of the last put.
    pub mod_revision: u64,
    /// Number of puts since creation (1 after create).
    pub version: u64,
}

/// Which field of a key a comparison checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareTarget {
    ModRevision,
    CreateRevision,
    Version,
}

/// `target(key) == value`; a missing key has all fields 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    pub key: String,
    pub target: CompareTarget,
    pub value: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Put {
        key: String,
        value: Arc<Object>,
    },
    Delete {
        key: String,
    },
    /// A key, or every key under a prefix when `prefix` is set, as of `revision` (0: the current one).
    Range {
        key: String,
        prefix: bool,
        revision: u64,
    },
    /// The keys under `prefix` from `from` on, as of `revision` (0: the current one), at most `limit` of them,
    /// and how many there are in all (etcd's range with a range end, a limit and its `count`).
    Page {
        prefix: String,
        from: String,
        revision: u64,
        limit: usize,
    },
}

/// An etcd transaction: if every compare holds, run `success`, else `failure`. Writes bump the revision once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Txn {
    pub compare: Vec<Compare>,
    pub success: Vec<Op>,
    pub failure: Vec<Op>,
}

impl Txn {
    /// A single read (what `Range` requests and consistent reads use).
    pub fn range(key: &str, prefix: bool) -> Txn {
        Txn::range_at(key, prefix, 0)
    }

    /// A read as of an older revision (a paged list's later pages read the first page's revision).
    pub fn range_at(key: &str, prefix: bool, revision: u64) -> Txn {
        Txn { success: vec![Op::Range { key: key.to_string(), prefix, revision }], ..Txn::default() }
    }

    pub fn is_read_only(&self) -> bool {
        self.success.iter().chain(&self.failure).all(|op| matches!(op, Op::Range { .. } | Op::Page { .. }))
    }

    /// The first key the transaction touches (for labels).
    pub fn first_key(&self) -> Option<&str> {
        self.success.iter().chain(&self.failure).next().map(|op| match op {
            Op::Put { key, .. } | Op::Delete { key } | Op::Range { key, .. } => key.as_str(),
            Op::Page { prefix, .. } => prefix.as_str(),
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum OpResult {
    Put {
        prev: Option<KeyValue>,
    },
    Delete {
        deleted: Vec<KeyValue>,
    },
    Range {
        kvs: Vec<KeyValue>,
    },
    /// A page's keys, and how many keys the range holds from its start on.
    Page {
        kvs: Vec<KeyValue>,
        count: usize,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TxnResponse {
    pub succeeded: bool,
    /// The store's revision after the transaction (unchanged for reads and failed compares).
    pub revision: u64,
    pub results: Vec<OpResult>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Put,
    Delete,
}

/// One change, as a watch delivers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: EventType,
    /// For a put: the new value. For a delete: the key with the deleted value and `mod_revision` = the
    /// revision of the delete.
    pub kv: KeyValue,
    pub prev: Option<KeyValue>,
}

/// Errors etcd returns, with etcd's own texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EtcdError {
    /// `etcdserver: request timed out`: no quorum committed the proposal in time.
    Timeout,
    /// `mvcc: required revision has been compacted`.
    Compacted { compact_revision: u64 },
    /// `etcdserver: no leader`.
    NoLeader,
    /// `mvcc: required revision is a future revision`.
    FutureRevision,
}

impl std::fmt::Display for EtcdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EtcdError::Timeout => f.write_str("etcdserver: request timed out"),
            EtcdError::Compacted { .. } => f.write_str("mvcc: required revision has been compacted"),
            EtcdError::NoLeader => f.write_str("etcdserver: no leader"),
            EtcdError::FutureRevision => f.write_str("mvcc: required revision is a future revision"),
        }
    }
}

/// One entry of the replicated log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub term: u64,
    pub index: u64,
    pub txn: Txn,
    /// Which member received the proposal and the client request id to answer (0 for none).
    pub origin: u32,
    pub request_id: u64,
    /// A replicated compaction: when set, applying the entry compacts history up to this revision (the
    /// transaction is then empty).
    pub compact: Option<u64>,
}

/// Messages to and from etcd members.
#[derive(Debug, Clone, PartialEq)]
pub enum EtcdMessage {
    /// Client → member: run a transaction (reads included: they go through Raft, so they need a quorum).
    Txn { request_id: u64, txn: Txn },
    /// Member → client.
    TxnResult { request_id: u64, result: Result<TxnResponse, EtcdError> },
    /// Client → member: watch every key under `prefix` from `start_revision` (0 = from now on).
    Watch { watch_id: u64, prefix: String, start_revision: u64 },
    /// Member → client: events of a watch, in revision order.
    WatchEvents { watch_id: u64, events: Vec<Event> },
    /// Member → client: the watch cannot start that early (history compacted).
    WatchCanceled { watch_id: u64, compact_revision: u64 },
    /// Client → member: ask for a progress notification on a watch (etcd's `WatchProgressRequest`).
    WatchProgress { watch_id: u64 },
    /// Member → client: every event up to `revision` has been sent on this watch (a progress notification: an
    /// empty watch response whose header carries the store's current revision).
    WatchProgressNotify { watch_id: u64, revision: u64 },
    /// Client → member: this member's status (etcd's Maintenance `Status`, answered locally).
    Status { request_id: u64 },
    /// Member → client.
    StatusResult { request_id: u64, status: Box<member::MemberStatus> },
    /// Client → member: a key or prefix as of an older revision (`etcdctl get --rev`), answered from this
    /// member's store without going through Raft (a serializable read).
    RangeAt { request_id: u64, key: String, prefix: bool, revision: u64 },
    /// Member → client.
    RangeAtResult { request_id: u64, result: Result<Vec<KeyValue>, EtcdError> },
    /// Client → member: the cluster's members (etcd's Cluster `MemberList`), by index.
    MemberList { request_id: u64 },
    /// Member → client.
    MemberListResult { request_id: u64, members: Vec<u32> },
    /// Client → member: the member's whole store (etcd's Maintenance `Snapshot` stream, here in one piece).
    SnapshotSave { request_id: u64 },
    /// Member → client.
    SnapshotData { request_id: u64, snapshot: Box<store::Snapshot> },
    /// Client → member: compact history up to `revision` (the apiserver does it every 5 minutes).
    Compact { revision: u64 },
    /// Client → member: compact history up to `revision` and say when it is done (`etcdctl compaction`).
    CompactRequest { request_id: u64, revision: u64 },
    /// Member → client: the compaction was applied at `revision`, or why it was refused.
    CompactResult { request_id: u64, result: Result<u64, EtcdError> },
    /// Client → member: rewrite the member's database file without its free pages (`etcdctl defrag`).
    Defragment { request_id: u64 },
    /// Member → client.
    DefragmentResult { request_id: u64 },
    /// Raft: follower forwards a client proposal to the leader.
    Propose { entry_txn: Txn, origin: u32, request_id: u64 },
    /// Raft: leader → follower, log entries and heartbeat.
    AppendEntries {
        term: u64,
        leader: u32,
        prev_index: u64,
        prev_term: u64,
        entries: Vec<LogEntry>,
        leader_commit: u64,
    },
    /// Raft: follower → leader.
    AppendResult { term: u64, from: u32, success: bool, match_index: u64 },
    /// Raft: leader → a follower whose next entries were already dropped from the leader's log: the leader's
    /// whole store as of `last_index` (etcd's `MsgSnap`). Answered with `AppendResult`.
    InstallSnapshot { term: u64, leader: u32, last_index: u64, last_term: u64, snapshot: Box<store::Snapshot> },
    /// Raft: candidate → all.
    RequestVote { term: u64, candidate: u32, last_index: u64, last_term: u64 },
    /// Raft: voter → candidate.
    Vote { term: u64, from: u32, granted: bool },
}

impl EtcdMessage {
    pub fn label(&self) -> String {
        match self {
            EtcdMessage::Txn { txn, .. } => {
                if txn.is_read_only() {
                    "etcd range".into()
                } else if txn.success.iter().any(|o| matches!(o, Op::Delete { .. })) {
                    "etcd txn delete".into()
                } else {
                    "etcd txn put".into()
                }
            }
            EtcdMessage::TxnResult { result: Ok(r), .. } => format!("etcd ok rev {}", r.revision),
            EtcdMessage::TxnResult { result: Err(e), .. } => e.to_string(),
            EtcdMessage::Watch { .. } => "etcd watch".into(),
            EtcdMessage::WatchEvents { events, .. } => {
                let kind =
                    events.first().map(|e| if e.kind == EventType::Put { "PUT" } else { "DELETE" }).unwrap_or("PUT");
                format!("etcd watch {kind}")
            }
            EtcdMessage::WatchCanceled { .. } => "etcd watch canceled".into(),
            EtcdMessage::WatchProgress { .. } => "etcd watch progress request".into(),
            EtcdMessage::Status { .. } => "etcd status".into(),
            EtcdMessage::StatusResult { status, .. } => format!("etcd status rev {}", status.revision),
            EtcdMessage::MemberList { .. } => "etcd member list".into(),
            EtcdMessage::RangeAt { revision, .. } => format!("etcd range at rev {revision}"),
            EtcdMessage::RangeAtResult { result: Ok(kvs), .. } => format!("etcd range {} keys", kvs.len()),
            EtcdMessage::RangeAtResult { result: Err(e), .. } => e.to_string(),
            EtcdMessage::MemberListResult { members, .. } => format!("etcd {} members", members.len()),
            EtcdMessage::SnapshotSave { .. } => "etcd snapshot".into(),
            EtcdMessage::SnapshotData { snapshot, .. } => format!("etcd snapshot rev {}", snapshot.revision),
            EtcdMessage::WatchProgressNotify { revision, .. } => format!("etcd watch progress rev {revision}"),
            EtcdMessage::Compact { revision } | EtcdMessage::CompactRequest { revision, .. } => {
                format!("etcd compact {revision}")
            }
            EtcdMessage::CompactResult { result: Ok(r), .. } => format!("etcd compacted {r}"),
            EtcdMessage::CompactResult { result: Err(e), .. } => e.to_string(),
            EtcdMessage::Defragment { .. } => "etcd defragment".into(),
            EtcdMessage::DefragmentResult { .. } => "etcd defragmented".into(),
            EtcdMessage::Propose { .. } => "raft propose".into(),
            EtcdMessage::AppendEntries { entries, .. } => {
                if entries.is_empty() {
                    "raft heartbeat".into()
                } else {
                    "raft append".into()
                }
            }
            EtcdMessage::AppendResult { .. } => "raft append ack".into(),
            EtcdMessage::InstallSnapshot { .. } => "raft snapshot".into(),
            EtcdMessage::RequestVote { .. } => "raft request vote".into(),
            EtcdMessage::Vote { granted, .. } => {
                format!("raft vote {}", if *granted { "yes" } else { "no" })
            }
        }
    }

    pub fn key(&self) -> Option<&str> {
        match self {
            EtcdMessage::Txn { txn, .. } | EtcdMessage::Propose { entry_txn: txn, .. } => txn.first_key(),
            EtcdMessage::WatchEvents { events, .. } => events.first().map(|e| e.kv.key.as_str()),
            _ => None,
        }
    }

    pub fn revision(&self) -> Option<u64> {
        match self {
            EtcdMessage::TxnResult { result: Ok(r), .. } => Some(r.revision),
            EtcdMessage::WatchEvents { events, .. } => events.last().map(|e| e.kv.mod_revision),
            EtcdMessage::InstallSnapshot { snapshot, .. } => Some(snapshot.revision),
            EtcdMessage::WatchProgressNotify { revision, .. } => Some(*revision),
            EtcdMessage::SnapshotData { snapshot, .. } => Some(snapshot.revision),
            EtcdMessage::StatusResult { status, .. } => Some(status.revision),
            _ => None,
        }
    }

    /// The request a reply answers.
    pub fn reply_to(&self) -> Option<u64> {
        match self {
            EtcdMessage::TxnResult { request_id, .. }
            | EtcdMessage::StatusResult { request_id, .. }
            | EtcdMessage::MemberListResult { request_id, .. }
            | EtcdMessage::RangeAtResult { request_id, .. }
            | EtcdMessage::CompactResult { request_id, .. }
            | EtcdMessage::DefragmentResult { request_id }
            | EtcdMessage::SnapshotData { request_id, .. } => Some(*request_id),
            _ => None,
        }
    }

    /// Requests a client sends and waits on (a refused one fails at once).
    pub fn request_id(&self) -> Option<u64> {
        match self {
            EtcdMessage::Txn { request_id, .. }
            | EtcdMessage::Status { request_id }
            | EtcdMessage::MemberList { request_id }
            | EtcdMessage::RangeAt { request_id, .. }
            | EtcdMessage::CompactRequest { request_id, .. }
            | EtcdMessage::Defragment { request_id }
            | EtcdMessage::SnapshotSave { request_id } => Some(*request_id),
            EtcdMessage::Watch { watch_id, .. } => Some(*watch_id),
            _ => None,
        }
    }
}
