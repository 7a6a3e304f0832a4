//! One etcd member process, `etcd-0` … `etcd-4` (real counterpart: `etcd` itself — `server/etcdserver` on top
//! of the `raft` library, serving the KV and Watch gRPC APIs).
//!
//! Watches: client messages (`Txn`, `Watch`, `Compact`, `CompactRequest`, `Defragment`, `Status`), Raft traffic from the other members, its own timers,
//! and connection resets. Writes: its Raft state (term, vote, log, commit), its applied [`Store`], replies
//! and watch events to clients, and Raft messages to peers. The Raft half lives in [`raft`].
//!
//! Choices, with etcd's defaults: heartbeat every 100 ms, election timeout drawn in [1000, 2000) ms, CheckQuorum on
//! (etcd's `bootstrap.go` sets `CheckQuorum: true`: a leader that has not heard from a majority within an election
//! timeout steps down to follower, and members ignore vote requests while their leader's lease lasts), client
//! requests answered `etcdserver: request timed out` after 7 s (etcd's `ReqTimeout`: 5 s + 2 × election
//! timeout). Every client transaction, reads included, goes through the log (etcd's linearizable reads need
//! a quorum too); the member that received it answers once it applies the entry. Compaction is replicated
//! as a log entry, so every member compacts at the same point of its history.
//!
//! Bootstrap: a fresh cluster starts in term 1 with the member built with `initial_leader` already leading
//! (as if it had won the first election), so the cluster serves requests at time 0.
//!
//! Restart: term, vote, log, commit index and store are on disk and survive; role, known leader, peer
//! progress, client requests in flight and watches are volatile and are lost. The kernel drops the old
//! incarnation's timers, so [`EtcdMember::on_start`] re-arms them.

mod raft;

use std::collections::{BTreeMap, BTreeSet};

use super::raft_log::RaftLog;
use super::store::Store;
use super::{EtcdError, EtcdMessage, Event, LogEntry, Txn};
use crate::sim::rng::fnv1a64;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

/// etcd's `--heartbeat-interval` default.
pub const HEARTBEAT_MS: u64 = 100;
/// etcd's `--election-timeout` default; each wait is drawn in `[this, 2 × this)`.
pub const ELECTION_TIMEOUT_MS: u64 = 1000;
/// etcd's `ReqTimeout()`: 5 s plus twice the election timeout.
pub const REQUEST_TIMEOUT_MS: u64 = 5000 + 2 * ELECTION_TIMEOUT_MS;
/// Most entries one `AppendEntries` carries.
pub const MAX_APPEND_ENTRIES: usize = 256;
/// When the log holds more entries than this, applied ones are dropped down to [`LOG_RETAIN_ENTRIES`]
/// (etcd's `--snapshot-count` 10,000 and `SnapshotCatchUpEntries` 5,000).
pub const LOG_MAX_ENTRIES: usize = 10_000;
pub const LOG_RETAIN_ENTRIES: usize = 5_000;

const TOKEN_SHIFT: u32 = 56;
const TOKEN_MASK: u64 = (1 << TOKEN_SHIFT) - 1;
const TOKEN_ELECTION: u64 = 1;
const TOKEN_HEARTBEAT: u64 = 2;
const TOKEN_REQUEST: u64 = 3;

fn token(kind: u64, value: u64) -> u64 {
    (kind << TOKEN_SHIFT) | (value & TOKEN_MASK)
}

/// A member's Raft role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Leader,
    Follower,
    Candidate,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
            Role::Candidate => "candidate",
        }
    }
}

/// What `etcdctl member list` and `etcdctl endpoint status` print about one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberStatus {
    /// `etcd-0`.
    pub name: String,
    /// The member id in hex, as etcdctl prints it.
    pub id: String,
    pub is_leader: bool,
    /// The id of the leader this member knows, in hex.
    pub leader_id: Option<String>,
    pub role: Role,
    pub term: u64,
    /// The applied store's revision.
    pub revision: u64,
    /// The committed Raft index (etcdctl's `RAFT INDEX`).
    pub raft_index: u64,
    pub raft_applied_index: u64,
    /// etcdctl shows `DB SIZE` in bytes; the simulation counts keys.
    pub db_keys: usize,
    /// The database file's size: the most it ever held since the last defragmentation (bbolt keeps freed
    /// pages), estimated.
    pub db_size: u64,
    /// What the current keys and the uncompacted history take, estimated.
    pub db_size_in_use: u64,
}

/// The bytes a store takes in bbolt, estimated: the initial pages, about 2 KiB per key and 1 KiB per older
/// revision kept in history (until compaction drops it).
pub fn db_in_use(store: &Store) -> u64 {
    20 * 1024 + 2048 * store.len() as u64 + 1024 * store.history_len() as u64
}

/// The component name of member `index`.
pub fn member_name(index: u32) -> String {
    format!("etcd-{index}")
}

/// A stable 64-bit member id (etcd derives it from the peer URLs and cluster token; here from the name).
pub fn member_id(index: u32) -> u64 {
    fnv1a64(member_name(index).as_bytes())
}

/// How the leader replicates to one peer (etcd's `tracker.Progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PeerState {
    /// Unsure where the peer's log ends: one `AppendEntries` per heartbeat until it answers.
    Probe,
    /// The peer keeps up: entries are streamed as they are appended.
    Replicate,
    /// A snapshot is on its way (resent if unanswered for a while).
    Snapshot { sent: SimTime },
}

#[derive(Debug, Clone, Copy)]
struct Progress {
    next: u64,
    matched: u64,
    state: PeerState,
    /// The peer answered since the leader's last quorum check (raft's `RecentActive`).
    recent_active: bool,
}

/// A client transaction this member received and must answer.
#[derive(Debug, Clone, Copy)]
struct Pending {
    client: ComponentId,
    request_id: u64,
}

#[derive(Debug, Clone)]
struct WatchState {
    prefix: String,
    /// The first revision this watch has not been sent yet.
    next_revision: u64,
}

/// One etcd member.
#[derive(Debug)]
pub struct EtcdMember {
    index: u32,
    members: Vec<ComponentId>,
    // On disk: survives a restart.
    term: u64,
    voted_for: Option<u32>,
    log: RaftLog,
    commit: u64,
    applied: u64,
    store: Store,
    /// Local ids of client proposals; never reused, so a late entry cannot answer a newer request.
    next_proposal: u64,
    started: bool,
    log_max: usize,
    log_retain: usize,
    // Volatile: lost on restart.
    role: Role,
    leader: Option<u32>,
    votes: BTreeSet<u32>,
    progress: Vec<Progress>,
    election_deadline: SimTime,
    election_timer_at: Option<SimTime>,
    /// When this member last heard from its leader (as follower) or last found a quorum active (as leader):
    /// CheckQuorum's lease, inside which vote requests of a higher term are ignored.
    leader_contact: SimTime,
    timer_generation: u64,
    pending: BTreeMap<u64, Pending>,
    /// Own proposals waiting for a leader to be known.
    held: BTreeMap<u64, Txn>,
    held_compact: Option<u64>,
    watches: BTreeMap<(ComponentId, u64), WatchState>,
    /// `etcdctl compaction` requests waiting for their compaction to be applied: proposal id → (client,
    /// revision).
    compact_waiters: BTreeMap<u64, (Pending, u64)>,
    /// The database file's size (on disk: survives a restart); see [`MemberStatus::db_size`].
    db_file_size: u64,
}

impl EtcdMember {
    /// Member `index` of `members` (every member's component id, by index, self included). The member built
    /// with `initial_leader` leads term 1 from the start; the others follow it.
    pub fn new(index: u32, members: Vec<ComponentId>, initial_leader: bool) -> EtcdMember {
        let n = members.len();
        EtcdMember {
            index,
            members,
            term: 1,
            voted_for: initial_leader.then_some(index),
            log: RaftLog::default(),
            commit: 0,
            applied: 0,
            store: Store::new(),
            next_proposal: 1,
            started: false,
            log_max: LOG_MAX_ENTRIES,
            log_retain: LOG_RETAIN_ENTRIES,
            role: if initial_leader { Role::Leader } else { Role::Follower },
            leader: initial_leader.then_some(index),
            votes: BTreeSet::new(),
            progress: vec![Progress::fresh(1); n],
            election_deadline: SimTime::ZERO,
            election_timer_at: None,
            leader_contact: SimTime::ZERO,
            timer_generation: 0,
            pending: BTreeMap::new(),
            held: BTreeMap::new(),
            held_compact: None,
            watches: BTreeMap::new(),
            compact_waiters: BTreeMap::new(),
            db_file_size: 0,
        }
    }

    /// Replaces this (stopped) member's data directory with one restored from a snapshot (`etcdutl snapshot
    /// restore`): a new single-history cluster whose store holds the snapshot's keys. Term, log and votes start
    /// over as for a fresh cluster (member 0 leads), so every member must be restored from the same snapshot.
    pub fn restore_data(&mut self, restored: Store) {
        let (max, retain) = (self.log_max, self.log_retain);
        *self = EtcdMember::new(self.index, self.members.clone(), self.index == 0);
        self.set_log_limits(max, retain);
        self.store = restored;
    }

    /// Changes when applied log entries are dropped (`max` entries kept before trimming down to `retain`).
    pub fn set_log_limits(&mut self, max: usize, retain: usize) {
        self.log_max = max.max(1);
        self.log_retain = retain.min(self.log_max);
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn name(&self) -> String {
        member_name(self.index)
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn term(&self) -> u64 {
        self.term
    }

    /// The index of the leader this member knows.
    pub fn leader(&self) -> Option<u32> {
        self.leader
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn commit_index(&self) -> u64 {
        self.commit
    }

    pub fn applied_index(&self) -> u64 {
        self.applied
    }

    pub fn last_index(&self) -> u64 {
        self.log.last_index()
    }

    /// The term of the log entry at `index`, while the log still holds it (None once compacted away or
    /// beyond its end): what comparing two members' histories needs.
    pub fn log_term_at(&self, index: u64) -> Option<u64> {
        self.log.term_at(index)
    }

    /// Entries currently held in memory (bounded by log compaction).
    pub fn log_len(&self) -> usize {
        self.log.len()
    }

    /// The applied store's revision.
    pub fn applied_revision(&self) -> u64 {
        self.store.revision()
    }

    pub fn watch_count(&self) -> usize {
        self.watches.len()
    }

    pub fn status(&self) -> MemberStatus {
        MemberStatus {
            name: self.name(),
            id: format!("{:x}", member_id(self.index)),
            is_leader: self.role == Role::Leader,
            leader_id: self.leader.map(|l| format!("{:x}", member_id(l))),
            role: self.role,
            term: self.term,
            revision: self.store.revision(),
            raft_index: self.commit,
            raft_applied_index: self.applied,
            db_keys: self.store.len(),
            db_size: self.db_file_size.max(db_in_use(&self.store)),
            db_size_in_use: db_in_use(&self.store),
        }
    }

    fn quorum(&self) -> usize {
        self.members.len() / 2 + 1
    }

    fn peer(&self, index: u32) -> Option<ComponentId> {
        self.members.get(index as usize).copied()
    }

    fn send_to(&self, ctx: &mut Ctx, index: u32, msg: EtcdMessage) {
        if let Some(to) = self.peer(index) {
            ctx.send(to, Payload::Etcd(msg));
        }
    }

    /// Called when the process starts: at creation, and after every restart (volatile state is lost).
    pub fn on_start(&mut self, ctx: &mut Ctx) {
        if self.started {
            self.forget_volatile_state();
        }
        self.started = true;
        self.timer_generation += 1;
        self.election_timer_at = None;
        if self.role == Role::Leader {
            self.become_leader(ctx);
        } else {
            self.reset_election_timer(ctx);
        }
    }

    fn forget_volatile_state(&mut self) {
        self.role = Role::Follower;
        self.leader = None;
        self.votes.clear();
        self.pending.clear();
        self.held.clear();
        self.held_compact = None;
        self.watches.clear();
        self.compact_waiters.clear();
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, msg: EtcdMessage) {
        match msg {
            EtcdMessage::Txn { request_id, txn } => self.client_txn(ctx, from, request_id, txn),
            EtcdMessage::Watch { watch_id, prefix, start_revision } => {
                self.client_watch(ctx, from, watch_id, prefix, start_revision)
            }
            EtcdMessage::Compact { revision } => self.client_compact(ctx, revision),
            EtcdMessage::CompactRequest { request_id, revision } => {
                self.client_compact_request(ctx, Pending { client: from, request_id }, revision)
            }
            EtcdMessage::Defragment { request_id } => {
                self.db_file_size = db_in_use(&self.store);
                ctx.send(from, Payload::Etcd(EtcdMessage::DefragmentResult { request_id }));
            }
            EtcdMessage::WatchProgress { watch_id } => self.client_watch_progress(ctx, from, watch_id),
            EtcdMessage::Status { request_id } => {
                let status = Box::new(self.status());
                ctx.send(from, Payload::Etcd(EtcdMessage::StatusResult { request_id, status }));
            }
            EtcdMessage::MemberList { request_id } => {
                let members = (0..self.members.len() as u32).collect();
                ctx.send(from, Payload::Etcd(EtcdMessage::MemberListResult { request_id, members }));
            }
            EtcdMessage::RangeAt { request_id, key, prefix, revision } => {
                let result = self.store.range_at(&key, prefix, revision);
                ctx.send(from, Payload::Etcd(EtcdMessage::RangeAtResult { request_id, result }));
            }
            EtcdMessage::SnapshotSave { request_id } => {
                let snapshot = Box::new(self.store.snapshot());
                ctx.send(from, Payload::Etcd(EtcdMessage::SnapshotData { request_id, snapshot }));
            }
            EtcdMessage::TxnResult { .. }
            | EtcdMessage::StatusResult { .. }
            | EtcdMessage::MemberListResult { .. }
            | EtcdMessage::RangeAtResult { .. }
            | EtcdMessage::SnapshotData { .. }
            | EtcdMessage::CompactResult { .. }
            | EtcdMessage::DefragmentResult { .. }
            | EtcdMessage::WatchEvents { .. }
            | EtcdMessage::WatchCanceled { .. }
            | EtcdMessage::WatchProgressNotify { .. } => {}
            raft => self.on_raft(ctx, raft),
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        let value = token & TOKEN_MASK;
        match token >> TOKEN_SHIFT {
            TOKEN_ELECTION if value == self.timer_generation & TOKEN_MASK => self.on_election_timer(ctx),
            TOKEN_HEARTBEAT if value == self.timer_generation & TOKEN_MASK => self.on_heartbeat_timer(ctx),
            TOKEN_REQUEST => self.on_request_timeout(ctx, value),
            _ => {}
        }
    }

    /// A connection to `peer` is gone: a client's watches and requests end; a member's replication restarts
    /// from probing.
    pub fn on_disconnected(&mut self, _ctx: &mut Ctx, peer: ComponentId) {
        if let Some(i) = self.members.iter().position(|m| *m == peer) {
            if let Some(p) = self.progress.get_mut(i) {
                if p.state == PeerState::Replicate {
                    p.state = PeerState::Probe;
                }
            }
            return;
        }
        self.watches.retain(|(client, _), _| *client != peer);
        self.pending.retain(|_, p| p.client != peer);
        self.compact_waiters.retain(|_, (p, _)| p.client != peer);
        let pending = &self.pending;
        self.held.retain(|id, _| pending.contains_key(id));
    }

    fn client_txn(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, txn: Txn) {
        let id = self.next_proposal;
        self.next_proposal += 1;
        self.pending.insert(id, Pending { client, request_id });
        ctx.timer_in_chain(REQUEST_TIMEOUT_MS, token(TOKEN_REQUEST, id));
        self.propose(ctx, txn, self.index, id);
    }

    fn on_request_timeout(&mut self, ctx: &mut Ctx, id: u64) {
        self.held.remove(&id);
        if let Some((p, _)) = self.compact_waiters.remove(&id) {
            let msg = EtcdMessage::CompactResult { request_id: p.request_id, result: Err(EtcdError::Timeout) };
            ctx.send(p.client, Payload::Etcd(msg));
        }
        if let Some(p) = self.pending.remove(&id) {
            let msg = EtcdMessage::TxnResult { request_id: p.request_id, result: Err(EtcdError::Timeout) };
            ctx.send(p.client, Payload::Etcd(msg));
        }
    }

    fn client_compact(&mut self, ctx: &mut Ctx, revision: u64) {
        match self.leader {
            _ if self.role == Role::Leader => self.append(ctx, Txn::default(), Some(revision), 0, 0),
            Some(l) if l != self.index => self.send_to(ctx, l, EtcdMessage::Compact { revision }),
            _ => self.held_compact = Some(self.held_compact.unwrap_or(0).max(revision)),
        }
    }

    /// `etcdctl compaction REV`: refused at once when the revision is already compacted or not yet written
    /// (etcd's `ErrCompacted`, `ErrFutureRev`), else replicated like the apiserver's and answered once this
    /// member applies it.
    fn client_compact_request(&mut self, ctx: &mut Ctx, client: Pending, revision: u64) {
        let refused = if revision <= self.store.compact_revision() {
            Some(EtcdError::Compacted { compact_revision: self.store.compact_revision() })
        } else if revision > self.store.revision() {
            Some(EtcdError::FutureRevision)
        } else {
            None
        };
        if let Some(e) = refused {
            let msg = EtcdMessage::CompactResult { request_id: client.request_id, result: Err(e) };
            ctx.send(client.client, Payload::Etcd(msg));
            return;
        }
        let id = self.next_proposal;
        self.next_proposal += 1;
        self.compact_waiters.insert(id, (client, revision));
        ctx.timer_in_chain(REQUEST_TIMEOUT_MS, token(TOKEN_REQUEST, id));
        self.client_compact(ctx, revision);
    }

    /// Starts a watch: replays history since `start` (or cancels when that is compacted), then streams.
    fn client_watch(&mut self, ctx: &mut Ctx, client: ComponentId, watch_id: u64, prefix: String, start: u64) {
        let reply = match self.store.events_since(&prefix, start) {
            Ok(events) => {
                let next_revision = start.max(self.store.revision() + 1);
                let state = WatchState { prefix, next_revision };
                self.watches.insert((client, watch_id), state);
                EtcdMessage::WatchEvents { watch_id, events }
            }
            Err(e) => EtcdMessage::WatchCanceled {
                watch_id,
                compact_revision: match e {
                    EtcdError::Compacted { compact_revision } => compact_revision,
                    _ => self.store.compact_revision(),
                },
            },
        };
        ctx.send(client, Payload::Etcd(reply));
    }

    /// A progress notification: watches stream each revision as it is applied, so every event up to the
    /// store's revision has been sent (on the same connection, hence delivered before this reply).
    fn client_watch_progress(&mut self, ctx: &mut Ctx, client: ComponentId, watch_id: u64) {
        if self.watches.contains_key(&(client, watch_id)) {
            let msg = EtcdMessage::WatchProgressNotify { watch_id, revision: self.store.revision() };
            ctx.send(client, Payload::Etcd(msg));
        }
    }

    /// Applies every committed entry not yet applied, answering this member's clients and feeding watches.
    fn apply_committed(&mut self, ctx: &mut Ctx) {
        while self.applied < self.commit {
            let Some(entry) = self.log.get(self.applied + 1).cloned() else {
                break;
            };
            self.applied += 1;
            self.apply_entry(ctx, entry);
        }
        self.db_file_size = self.db_file_size.max(db_in_use(&self.store));
        self.trim_log();
    }

    fn apply_entry(&mut self, ctx: &mut Ctx, entry: LogEntry) {
        if let Some(revision) = entry.compact {
            // Compacting at or below the current compact revision is a no-op, as etcd reports ErrCompacted.
            let _ = self.store.compact(revision);
            let done: Vec<u64> =
                self.compact_waiters.iter().filter(|(_, (_, r))| *r <= revision).map(|(id, _)| *id).collect();
            for id in done {
                if let Some((p, r)) = self.compact_waiters.remove(&id) {
                    let msg = EtcdMessage::CompactResult { request_id: p.request_id, result: Ok(r) };
                    ctx.send(p.client, Payload::Etcd(msg));
                }
            }
            return;
        }
        let mine = (entry.origin == self.index).then(|| self.pending.remove(&entry.request_id)).flatten();
        // Reads change nothing: only the member answering one needs to run it.
        if entry.txn.is_read_only() && mine.is_none() {
            return;
        }
        if let (Some(p), Err(e)) = (&mine, self.store.check_reads(&entry.txn)) {
            let msg = EtcdMessage::TxnResult { request_id: p.request_id, result: Err(e) };
            ctx.send(p.client, Payload::Etcd(msg));
            return;
        }
        let before = self.store.revision();
        let response = self.store.apply(&entry.txn);
        if self.store.revision() != before {
            self.stream_watches(ctx, self.store.revision());
        }
        if let Some(p) = mine {
            let msg = EtcdMessage::TxnResult { request_id: p.request_id, result: Ok(response) };
            ctx.send(p.client, Payload::Etcd(msg));
        }
    }

    /// Sends each watch the events of `revision` under its prefix (one message per revision).
    fn stream_watches(&mut self, ctx: &mut Ctx, revision: u64) {
        let events: Vec<Event> = self.store.events_at(revision);
        for ((client, watch_id), w) in self.watches.iter_mut() {
            if w.next_revision > revision {
                continue;
            }
            w.next_revision = revision + 1;
            let matching: Vec<Event> = events.iter().filter(|e| e.kv.key.starts_with(&w.prefix)).cloned().collect();
            if !matching.is_empty() {
                let msg = EtcdMessage::WatchEvents { watch_id: *watch_id, events: matching };
                ctx.send(*client, Payload::Etcd(msg));
            }
        }
    }

    /// After a snapshot replaced the store, watches that had not reached its revision missed events: they
    /// are canceled with the new compact revision.
    fn cancel_lagging_watches(&mut self, ctx: &mut Ctx) {
        let revision = self.store.revision();
        let compact_revision = self.store.compact_revision();
        let lagging: Vec<(ComponentId, u64)> =
            self.watches.iter().filter(|(_, w)| w.next_revision <= revision).map(|(k, _)| *k).collect();
        for (client, watch_id) in lagging {
            self.watches.remove(&(client, watch_id));
            let msg = EtcdMessage::WatchCanceled { watch_id, compact_revision };
            ctx.send(client, Payload::Etcd(msg));
        }
    }

    /// Drops applied entries every member has (leader), or the oldest applied ones once the log is too long.
    fn trim_log(&mut self) {
        let everyone = if self.role == Role::Leader {
            self.progress
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != self.index as usize)
                .map(|(_, p)| p.matched)
                .min()
                .unwrap_or(self.applied)
        } else {
            0
        };
        let too_long = if self.log.len() > self.log_max {
            self.log.last_index().saturating_sub(self.log_retain as u64)
        } else {
            0
        };
        self.log.compact_to(everyone.max(too_long).min(self.applied));
    }
}

impl Progress {
    fn fresh(next: u64) -> Progress {
        Progress { next, matched: 0, state: PeerState::Probe, recent_active: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::ConfigMap;
    use crate::api::{Object, ObjectMeta};
    use crate::etcd::{Op, OpResult, TxnResponse};
    use crate::sim::{Event as SimEvent, Kernel, Rng};
    use std::sync::Arc;

    const SEEDS: [u64; 3] = [1, 7, 2024];
    const CM: &str = "/registry/configmaps/default/";

    type Reply = (SimTime, Result<TxnResponse, EtcdError>);

    /// A tiny cluster: the kernel, N members and one client component that records what it gets back.
    struct Net {
        seed: u64,
        kernel: Kernel,
        members: Vec<EtcdMember>,
        ids: Vec<ComponentId>,
        rngs: Vec<Rng>,
        client: ComponentId,
        replies: BTreeMap<u64, Reply>,
        watch_events: Vec<(u64, Vec<Event>)>,
        canceled: Vec<(u64, u64)>,
        next_request: u64,
    }

    impl Net {
        fn new(n: usize, seed: u64) -> Net {
            Net::with_limits(n, seed, LOG_MAX_ENTRIES, LOG_RETAIN_ENTRIES)
        }

        fn with_limits(n: usize, seed: u64, max: usize, retain: usize) -> Net {
            let mut kernel = Kernel::new(seed);
            let (client, _) = kernel.register("client");
            let (ids, rngs): (Vec<_>, Vec<_>) = (0..n as u32).map(|i| kernel.register(&member_name(i))).unzip();
            let members = (0..n as u32)
                .map(|i| {
                    let mut m = EtcdMember::new(i, ids.clone(), i == 0);
                    m.set_log_limits(max, retain);
                    m
                })
                .collect();
            let mut net = Net {
                seed,
                kernel,
                members,
                ids,
                rngs,
                client,
                replies: BTreeMap::new(),
                watch_events: Vec::new(),
                canceled: Vec::new(),
                next_request: 1,
            };
            for i in 0..n {
                net.with_member(i, 0, |m, ctx| m.on_start(ctx));
            }
            net
        }

        fn with_member(&mut self, i: usize, chain: u64, f: impl FnOnce(&mut EtcdMember, &mut Ctx)) {
            let mut out = Vec::new();
            let me = self.ids[i];
            let mut ctx = Ctx { now: self.kernel.now(), me, chain, rng: &mut self.rngs[i], out: &mut out };
            f(&mut self.members[i], &mut ctx);
            self.kernel.apply(me, out);
        }

        fn dispatch(&mut self, event: SimEvent) {
            match event {
                SimEvent::Deliver(env) if env.to == self.client => self.collect(env.payload),
                SimEvent::Deliver(env) => {
                    let Some(i) = self.ids.iter().position(|id| *id == env.to) else {
                        return;
                    };
                    let from = env.from;
                    match env.payload {
                        Payload::Etcd(m) => self.with_member(i, env.chain, |me, ctx| me.on_message(ctx, from, m)),
                        Payload::Disconnected { peer, .. } => {
                            self.with_member(i, env.chain, |me, ctx| me.on_disconnected(ctx, peer))
                        }
                        _ => {}
                    }
                }
                SimEvent::Timer { to, token, chain, .. } => {
                    if let Some(i) = self.ids.iter().position(|id| *id == to) {
                        self.with_member(i, chain, |me, ctx| me.on_timer(ctx, token));
                    }
                }
            }
        }

        fn collect(&mut self, payload: Payload) {
            let now = self.kernel.now();
            match payload {
                Payload::Etcd(EtcdMessage::TxnResult { request_id, result }) => {
                    self.replies.insert(request_id, (now, result));
                }
                Payload::Etcd(EtcdMessage::WatchEvents { watch_id, events }) => {
                    self.watch_events.push((watch_id, events));
                }
                Payload::Etcd(EtcdMessage::WatchCanceled { watch_id, compact_revision }) => {
                    self.canceled.push((watch_id, compact_revision))
                }
                _ => {}
            }
        }

        fn run_for(&mut self, ms: u64) {
            let until = self.kernel.now().plus_ms(ms);
            while self.kernel.next_time().is_some_and(|t| t <= until) {
                if let Some(event) = self.kernel.pop() {
                    self.dispatch(event);
                }
            }
            self.kernel.advance_to(until);
        }

        fn send(&mut self, member: usize, msg: EtcdMessage) {
            let chain = self.kernel.new_chain();
            let to = self.ids[member];
            self.kernel.send(self.client, to, Payload::Etcd(msg), chain);
        }

        fn txn(&mut self, member: usize, txn: Txn) -> u64 {
            let request_id = self.next_request;
            self.next_request += 1;
            self.send(member, EtcdMessage::Txn { request_id, txn });
            request_id
        }

        fn put(&mut self, member: usize, name: &str) -> u64 {
            let op = Op::Put { key: format!("{CM}{name}"), value: configmap(name) };
            self.txn(member, Txn { success: vec![op], ..Txn::default() })
        }

        fn watch(&mut self, member: usize, watch_id: u64, prefix: &str, start_revision: u64) {
            let prefix = prefix.to_string();
            let msg = EtcdMessage::Watch { watch_id, prefix, start_revision };
            self.send(member, msg);
        }

        fn stop(&mut self, i: usize) {
            self.kernel.stop(self.ids[i]);
        }

        fn start(&mut self, i: usize) {
            assert!(self.kernel.start(self.ids[i]), "seed {}", self.seed);
            self.with_member(i, 0, |m, ctx| m.on_start(ctx));
        }

        /// The running leader with the highest term.
        fn leader(&self) -> Option<usize> {
            (0..self.members.len())
                .filter(|i| self.kernel.is_running(self.ids[*i]))
                .filter(|i| self.members[*i].role() == Role::Leader)
                .max_by_key(|i| self.members[*i].term())
        }

        fn ok(&self, request_id: u64) -> &TxnResponse {
            match self.replies.get(&request_id) {
                Some((_, Ok(r))) => r,
                other => panic!("seed {}: request {request_id}: {other:?}", self.seed),
            }
        }
    }

    fn configmap(name: &str) -> Arc<Object> {
        Arc::new(Object::ConfigMap(Box::new(ConfigMap {
            metadata: ObjectMeta { name: Some(name.to_string()), ..ObjectMeta::default() },
            ..ConfigMap::default()
        })))
    }

    fn event_revisions(events: &[Event]) -> Vec<u64> {
        events.iter().map(|e| e.kv.mod_revision).collect()
    }

    #[test]
    fn a_single_member_commits_a_write_and_reads_it_back() {
        let mut net = Net::new(1, 3);
        let w = net.put(0, "a");
        net.run_for(50);
        assert_eq!(net.ok(w).revision, 2);
        let r = net.txn(0, Txn::range(CM, true));
        net.run_for(50);
        match &net.ok(r).results[..] {
            [OpResult::Range { kvs }] => {
                assert_eq!(kvs.len(), 1);
                assert_eq!(kvs[0].mod_revision, 2);
            }
            other => panic!("unexpected read {other:?}"),
        }
        assert_eq!(net.ok(r).revision, 2);
        assert!(net.members[0].status().is_leader);
    }

    #[test]
    fn three_members_commit_a_write_only_once_a_majority_holds_it() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(1);
            net.stop(2);
            let w = net.put(0, "a");
            net.run_for(2000);
            assert!(net.replies.is_empty(), "seed {seed}");
            let leader = &net.members[0];
            assert!(leader.last_index() > leader.commit_index(), "seed {seed}");
            assert_eq!(leader.applied_revision(), 1, "seed {seed}");
            net.start(1);
            // The leader stepped down meanwhile (CheckQuorum); it wins the next election, its log being the
            // longest, and commits the entry of its old term with the first of its new one.
            net.run_for(4000);
            assert_eq!(net.ok(w).revision, 2, "seed {seed}");
            assert_eq!(net.members[1].applied_revision(), 2, "seed {seed}");
            assert_eq!(net.members[2].applied_revision(), 1, "seed {seed}");
        }
    }

    #[test]
    fn a_write_without_quorum_times_out_after_seven_seconds_then_works_once_quorum_is_back() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(1);
            net.stop(2);
            let sent = net.kernel.now();
            let w = net.put(0, "a");
            net.run_for(8000);
            let (at, result) = net.replies.get(&w).cloned().expect("a reply");
            let waited = at.since(sent);
            assert!((7000..7020).contains(&waited), "seed {seed}: {waited} ms");
            let err = result.expect_err("a timeout");
            assert_eq!(err.to_string(), "etcdserver: request timed out", "seed {seed}");
            assert_eq!(net.leader(), None, "seed {seed}: the leader stepped down (CheckQuorum)");
            net.start(2);
            net.run_for(4000);
            let again = net.put(0, "b");
            net.run_for(500);
            assert!(net.ok(again).revision >= 2, "seed {seed}");
        }
    }

    /// CheckQuorum: the leader counts who answered once per election timeout, so it steps down between one
    /// and two election timeouts after its peers went away, to a follower that knows no leader.
    #[test]
    fn a_leader_that_cannot_hear_a_majority_steps_down_after_the_election_timeout() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(1);
            net.stop(2);
            let stopped = net.kernel.now();
            net.run_for(ELECTION_TIMEOUT_MS - 1);
            assert!(net.members[0].role() == Role::Leader || net.kernel.now().since(stopped) >= ELECTION_TIMEOUT_MS);
            let mut stepped_down = None;
            for _ in 0..(2 * ELECTION_TIMEOUT_MS / HEARTBEAT_MS + 1) {
                net.run_for(HEARTBEAT_MS);
                if net.members[0].role() != Role::Leader && stepped_down.is_none() {
                    stepped_down = Some(net.kernel.now().since(stopped));
                }
            }
            let after = stepped_down.expect("stepped down");
            assert!(
                (ELECTION_TIMEOUT_MS..=2 * ELECTION_TIMEOUT_MS + HEARTBEAT_MS).contains(&after),
                "seed {seed}: {after} ms"
            );
            assert_eq!(net.members[0].leader(), None, "seed {seed}");
            assert!(!net.members[0].status().is_leader, "seed {seed}");
        }
    }

    /// A proposal made after the step-down waits for a leader and times out; it was never in any log, so
    /// when the peers return and a leader is elected it is not applied.
    #[test]
    fn a_write_sent_after_the_step_down_times_out_and_is_never_applied() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(1);
            net.stop(2);
            net.run_for(2500);
            assert_eq!(net.leader(), None, "seed {seed}");
            let w = net.put(0, "lost");
            net.run_for(7100);
            assert_eq!(net.replies.get(&w).map(|r| r.1.clone()), Some(Err(EtcdError::Timeout)), "seed {seed}");
            net.start(1);
            net.start(2);
            net.run_for(5000);
            assert!(net.leader().is_some(), "seed {seed}");
            let after = net.put(0, "after");
            net.run_for(500);
            assert_eq!(net.ok(after).revision, 2, "seed {seed}: the lost write took no revision");
            for m in &net.members {
                assert!(m.store().get(&format!("{CM}lost")).is_none(), "seed {seed}");
            }
        }
    }

    /// The other side of etcd's timeout: a write the leader appended before it noticed it was alone stays in
    /// its log, and commits when a majority is back, although its client was told the request timed out.
    #[test]
    fn a_write_appended_before_the_step_down_can_still_commit_once_a_majority_returns() {
        let mut net = Net::new(3, 7);
        net.run_for(300);
        net.stop(1);
        net.stop(2);
        let w = net.put(0, "maybe");
        net.run_for(7100);
        assert_eq!(net.replies.get(&w).map(|r| r.1.clone()), Some(Err(EtcdError::Timeout)));
        net.start(1);
        net.run_for(5000);
        assert_eq!(net.leader(), Some(0), "only member 0's log is up to date enough to win");
        assert!(net.members[1].store().get(&format!("{CM}maybe")).is_some());
    }

    #[test]
    fn reads_also_need_a_quorum() {
        let mut net = Net::new(3, 5);
        net.run_for(300);
        net.stop(1);
        net.stop(2);
        let r = net.txn(0, Txn::range(CM, true));
        net.run_for(7500);
        assert_eq!(net.replies[&r].1, Err(EtcdError::Timeout), "seed 5");
    }

    #[test]
    fn stopping_the_leader_elects_a_new_leader_with_a_higher_term_and_writes_succeed() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            let w = net.put(0, "a");
            net.run_for(300);
            assert_eq!(net.ok(w).revision, 2, "seed {seed}");
            net.stop(0);
            net.run_for(3000);
            let leader = net.leader().expect("a new leader");
            assert_ne!(leader, 0, "seed {seed}");
            assert!(net.members[leader].term() > 1, "seed {seed}");
            let follower = 3 - leader;
            assert_eq!(net.members[follower].leader(), Some(leader as u32), "seed {seed}");
            let direct = net.put(leader, "b");
            let forwarded = net.put(follower, "c");
            net.run_for(500);
            assert_eq!(net.ok(direct).revision, 3, "seed {seed}");
            assert_eq!(net.ok(forwarded).revision, 4, "seed {seed}");
        }
    }

    #[test]
    fn a_follower_forwards_client_writes_to_the_leader() {
        let mut net = Net::new(3, 11);
        net.run_for(300);
        let w = net.put(2, "a");
        net.run_for(400);
        assert_eq!(net.ok(w).revision, 2, "seed 11");
        for m in &net.members {
            assert_eq!(m.applied_revision(), 2, "seed 11: {}", m.name());
        }
    }

    #[test]
    fn a_request_sent_before_any_leader_is_known_is_held_then_forwarded() {
        let mut net = Net::new(3, 13);
        let w = net.put(1, "a");
        net.run_for(500);
        assert_eq!(net.ok(w).revision, 2, "seed 13");
    }

    #[test]
    fn a_stopped_follower_catches_up_after_restart() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(2);
            for i in 0..20 {
                net.put(0, &format!("cm-{i}"));
            }
            net.run_for(1000);
            assert_eq!(net.members[0].applied_revision(), 21, "seed {seed}");
            assert_eq!(net.members[2].applied_revision(), 1, "seed {seed}");
            net.start(2);
            net.run_for(1000);
            let (leader, back) = (&net.members[0], &net.members[2]);
            assert_eq!(back.applied_revision(), leader.applied_revision(), "seed {seed}");
            assert_eq!(back.store().len(), 20, "seed {seed}");
            assert_eq!(back.commit_index(), leader.commit_index(), "seed {seed}");
        }
    }

    #[test]
    fn a_follower_whose_entries_were_dropped_catches_up_from_a_snapshot() {
        for seed in SEEDS {
            let mut net = Net::with_limits(3, seed, 10, 5);
            net.run_for(300);
            net.stop(2);
            for i in 0..50 {
                net.put(0, &format!("cm-{i}"));
                net.run_for(20);
            }
            net.run_for(500);
            assert!(net.members[0].log_len() <= 10, "seed {seed}");
            net.start(2);
            net.run_for(1000);
            assert_eq!(net.members[2].applied_revision(), 51, "seed {seed}");
            assert_eq!(net.members[2].store().len(), 50, "seed {seed}");
            let w = net.put(2, "after");
            net.run_for(500);
            assert_eq!(net.ok(w).revision, 52, "seed {seed}");
            assert_eq!(net.members[2].applied_revision(), 52, "seed {seed}");
        }
    }

    #[test]
    fn the_leader_drops_log_entries_every_member_holds() {
        let mut net = Net::new(3, 17);
        for i in 0..30 {
            net.put(0, &format!("cm-{i}"));
        }
        net.run_for(1000);
        assert!(net.members[0].log_len() < 5, "seed 17: {}", net.members[0].log_len());
        assert_eq!(net.members[0].applied_revision(), 31, "seed 17");
    }

    #[test]
    fn five_members_write_with_two_stopped_but_not_with_three() {
        let mut net = Net::new(5, 19);
        net.run_for(300);
        net.stop(3);
        net.stop(4);
        let w = net.put(0, "a");
        net.run_for(500);
        assert_eq!(net.ok(w).revision, 2, "seed 19");
        net.stop(2);
        let lost = net.put(0, "b");
        net.run_for(7500);
        assert_eq!(net.replies[&lost].1, Err(EtcdError::Timeout), "seed 19");
    }

    #[test]
    fn a_watch_from_revision_zero_streams_only_new_writes_under_its_prefix() {
        let mut net = Net::new(3, 23);
        net.put(0, "old");
        net.run_for(300);
        net.watch(1, 7, CM, 0);
        net.run_for(50);
        assert_eq!(net.watch_events, vec![(7, vec![])], "seed 23");
        net.put(0, "new");
        let other = Op::Put { key: "/registry/pods/default/p".into(), value: configmap("p") };
        net.txn(0, Txn { success: vec![other], ..Txn::default() });
        net.run_for(500);
        assert_eq!(net.watch_events.len(), 2, "seed 23");
        let (id, events) = &net.watch_events[1];
        assert_eq!(*id, 7);
        assert_eq!(event_revisions(events), vec![3], "seed 23");
        assert_eq!(events[0].kv.key, format!("{CM}new"));
    }

    #[test]
    fn a_watch_from_an_old_revision_replays_history_then_streams() {
        let mut net = Net::new(3, 29);
        for name in ["a", "b", "a"] {
            net.put(0, name);
            net.run_for(100);
        }
        net.watch(2, 1, CM, 3);
        net.run_for(50);
        let (_, replay) = &net.watch_events[0];
        assert_eq!(event_revisions(replay), vec![3, 4], "seed 29");
        assert_eq!(replay[1].prev.as_ref().map(|p| p.mod_revision), Some(2));
        net.put(1, "c");
        net.run_for(500);
        let streamed: Vec<u64> = net.watch_events[1..].iter().flat_map(|(_, e)| event_revisions(e)).collect();
        assert_eq!(streamed, vec![5], "seed 29");
    }

    #[test]
    fn a_watch_from_a_compacted_revision_is_canceled() {
        let mut net = Net::new(3, 31);
        for name in ["a", "b", "c"] {
            net.put(0, name);
            net.run_for(100);
        }
        net.send(1, EtcdMessage::Compact { revision: 3 });
        net.run_for(500);
        for m in &net.members {
            assert_eq!(m.store().compact_revision(), 3, "seed 31: {}", m.name());
        }
        net.watch(1, 5, CM, 2);
        net.watch(1, 6, CM, 4);
        net.run_for(50);
        assert_eq!(net.canceled, vec![(5, 3)], "seed 31");
        assert_eq!(event_revisions(&net.watch_events[0].1), vec![4]);
    }

    #[test]
    fn a_restarted_member_keeps_its_store_and_term_but_forgets_watches() {
        let mut net = Net::new(3, 37);
        net.put(0, "a");
        net.run_for(300);
        net.watch(1, 1, CM, 0);
        net.run_for(50);
        assert_eq!(net.members[1].watch_count(), 1);
        let term = net.members[1].term();
        net.stop(1);
        net.start(1);
        let m = &net.members[1];
        assert_eq!(m.watch_count(), 0, "seed 37");
        assert_eq!(m.role(), Role::Follower, "seed 37");
        assert_eq!(m.term(), term, "seed 37");
        assert_eq!(m.applied_revision(), 2, "seed 37");
        net.run_for(500);
        assert_eq!(net.members[1].leader(), Some(0), "seed 37");
    }

    #[test]
    fn a_restarted_leader_rejoins_as_a_follower_of_the_new_leader() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(0);
            net.run_for(3000);
            net.start(0);
            net.run_for(500);
            let leader = net.leader().expect("a leader");
            assert_ne!(leader, 0, "seed {seed}");
            assert_eq!(net.members[0].role(), Role::Follower, "seed {seed}");
            assert_eq!(net.members[0].term(), net.members[leader].term(), "seed {seed}");
            let w = net.put(0, "a");
            net.run_for(500);
            assert_eq!(net.ok(w).revision, 2, "seed {seed}");
        }
    }

    #[test]
    fn member_status_describes_each_member_for_etcdctl() {
        let mut net = Net::new(3, 41);
        net.put(0, "a");
        net.run_for(300);
        let leader = net.members[0].status();
        let follower = net.members[1].status();
        assert_eq!(leader.name, "etcd-0");
        assert!(leader.is_leader && !follower.is_leader);
        assert_eq!(follower.leader_id.as_deref(), Some(leader.id.as_str()));
        assert_eq!((leader.term, leader.revision, leader.db_keys), (1, 2, 1));
        assert_eq!(follower.raft_index, leader.raft_index);
        assert_eq!(leader.id, format!("{:x}", member_id(0)));
        assert_ne!(leader.id, follower.id);
    }

    fn scripted_run(seed: u64) -> (u64, u64) {
        let mut net = Net::new(3, seed);
        for i in 0..5 {
            net.put(i % 3, &format!("a{i}"));
        }
        net.watch(1, 1, CM, 0);
        net.run_for(500);
        net.stop(0);
        net.run_for(3000);
        for i in 0..5 {
            net.put(1 + i % 2, &format!("b{i}"));
        }
        net.start(0);
        net.run_for(2000);
        (net.kernel.trace.hash(), net.kernel.trace.count())
    }

    #[test]
    fn the_same_seed_gives_the_same_trace() {
        for seed in SEEDS {
            assert_eq!(scripted_run(seed), scripted_run(seed), "seed {seed}");
        }
        assert_ne!(scripted_run(1).0, scripted_run(2).0);
    }

    #[test]
    fn garbage_from_unknown_members_is_ignored() {
        let mut net = Net::new(3, 43);
        net.run_for(300);
        let bogus = [
            EtcdMessage::AppendResult { term: 1, from: 99, success: true, match_index: 1_000 },
            EtcdMessage::Vote { term: 1, from: 42, granted: true },
            EtcdMessage::AppendEntries {
                term: 1,
                leader: 77,
                prev_index: 5,
                prev_term: 1,
                entries: vec![],
                leader_commit: 9,
            },
        ];
        for msg in bogus {
            net.send(0, msg.clone());
            net.send(1, msg);
        }
        net.run_for(300);
        assert_eq!(net.leader(), Some(0), "seed 43");
        assert_eq!(net.members[0].commit_index(), 1, "seed 43");
        let w = net.put(1, "a");
        net.run_for(300);
        assert_eq!(net.ok(w).revision, 2, "seed 43");
    }

    #[test]
    fn an_uncommitted_entry_of_a_deposed_leader_is_replaced_by_the_new_leaders_log() {
        for seed in SEEDS {
            let mut net = Net::new(3, seed);
            net.run_for(300);
            net.stop(1);
            net.stop(2);
            net.put(0, "lost");
            net.run_for(200);
            let stale_last = net.members[0].last_index();
            assert!(stale_last > net.members[0].commit_index(), "seed {seed}");
            net.stop(0);
            net.start(1);
            net.start(2);
            net.run_for(3000);
            let leader = net.leader().expect("a new leader");
            let w = net.put(leader, "kept");
            net.run_for(500);
            assert_eq!(net.ok(w).revision, 2, "seed {seed}");
            net.start(0);
            net.run_for(1000);
            let old = &net.members[0];
            assert_eq!(old.applied_revision(), 2, "seed {seed}");
            assert!(old.store().get(&format!("{CM}kept")).is_some(), "seed {seed}");
            assert!(old.store().get(&format!("{CM}lost")).is_none(), "seed {seed}");
            assert_eq!(old.last_index(), net.members[leader].last_index(), "seed {seed}");
        }
    }

    #[test]
    fn a_client_that_goes_away_loses_its_watches() {
        let mut net = Net::new(3, 47);
        net.run_for(300);
        net.watch(0, 1, CM, 0);
        net.watch(1, 2, CM, 0);
        net.run_for(50);
        assert_eq!(net.members[0].watch_count() + net.members[1].watch_count(), 2);
        net.kernel.stop(net.client);
        net.run_for(50);
        assert_eq!(net.members[0].watch_count() + net.members[1].watch_count(), 0, "seed 47");
    }
}
