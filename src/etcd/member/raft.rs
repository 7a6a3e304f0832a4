//! The Raft half of an etcd member (real counterpart: etcd's `raft` package, `raft.go` and `tracker/`):
//! elections, log replication, commit by majority of all members, and catch-up by snapshot.
//!
//! Watches: `Propose`, `AppendEntries`, `AppendResult`, `InstallSnapshot`, `RequestVote`, `Vote` from peers,
//! and the election and heartbeat timers. Writes: the member's term, vote, log, commit index and (through
//! `apply_committed`) its store.
//!
//! CheckQuorum (etcd turns it on): every election timeout the leader counts the peers that answered since the
//! last count; without a majority (itself included) it steps down to follower with no leader known (raft's
//! `stepped down to follower since quorum is not active`), so proposals then wait for a new leader instead of
//! sitting in a log that cannot commit. A member that heard from its leader less than an election timeout ago
//! ignores vote requests of a higher term (the leader lease).
//!
//! Not modelled: pre-vote and leader transfer.

use super::{
    token, EtcdMember, PeerState, Progress, Role, ELECTION_TIMEOUT_MS, HEARTBEAT_MS, MAX_APPEND_ENTRIES,
    TOKEN_ELECTION, TOKEN_HEARTBEAT,
};
use crate::etcd::store::{Snapshot, Store};
use crate::etcd::{EtcdMessage, LogEntry, Txn};
use crate::sim::Ctx;

/// A leader that heard nothing back resends a snapshot after this long.
const SNAPSHOT_RETRY_MS: u64 = 2 * ELECTION_TIMEOUT_MS;

/// The fields of an `AppendEntries`.
struct Append {
    term: u64,
    leader: u32,
    prev_index: u64,
    prev_term: u64,
    entries: Vec<LogEntry>,
    leader_commit: u64,
}

/// The fields of an `InstallSnapshot`.
struct InstallSnapshot {
    term: u64,
    leader: u32,
    last_index: u64,
    last_term: u64,
    snapshot: Snapshot,
}

impl EtcdMember {
    pub(super) fn on_raft(&mut self, ctx: &mut Ctx, msg: EtcdMessage) {
        match msg {
            EtcdMessage::Propose { entry_txn, origin, request_id } => self.propose(ctx, entry_txn, origin, request_id),
            EtcdMessage::AppendEntries { term, leader, prev_index, prev_term, entries, leader_commit } => {
                self.on_append(ctx, Append { term, leader, prev_index, prev_term, entries, leader_commit })
            }
            EtcdMessage::AppendResult { term, from, success, match_index } => {
                self.on_append_result(ctx, term, from, success, match_index)
            }
            EtcdMessage::InstallSnapshot { term, leader, last_index, last_term, snapshot } => {
                self.on_snapshot(ctx, InstallSnapshot { term, leader, last_index, last_term, snapshot: *snapshot })
            }
            EtcdMessage::RequestVote { term, candidate, last_index, last_term } => {
                self.on_request_vote(ctx, term, candidate, (last_term, last_index))
            }
            EtcdMessage::Vote { term, from, granted } => self.on_vote(ctx, term, from, granted),
            _ => {}
        }
    }

    /// Routes a proposal: the leader appends it; a follower forwards it to the leader it knows; without a
    /// leader, this member's own proposals wait (until a leader appears or they time out), others are dropped.
    pub(super) fn propose(&mut self, ctx: &mut Ctx, txn: Txn, origin: u32, request_id: u64) {
        match self.leader {
            _ if self.role == Role::Leader => self.append(ctx, txn, None, origin, request_id),
            Some(l) if l != self.index => {
                let msg = EtcdMessage::Propose { entry_txn: txn, origin, request_id };
                self.send_to(ctx, l, msg);
            }
            _ if origin == self.index => {
                self.held.insert(request_id, txn);
            }
            _ => {}
        }
    }

    /// Leader: appends one entry of the current term and streams it to the peers that keep up.
    pub(super) fn append(&mut self, ctx: &mut Ctx, txn: Txn, compact: Option<u64>, origin: u32, request_id: u64) {
        let entry = LogEntry { term: self.term, index: self.log.last_index() + 1, txn, origin, request_id, compact };
        self.log.push(entry);
        for p in self.peer_indexes() {
            if self.progress[p as usize].state == PeerState::Replicate {
                self.send_append(ctx, p);
            }
        }
        self.maybe_commit(ctx);
    }

    fn peer_indexes(&self) -> Vec<u32> {
        (0..self.members.len() as u32).filter(|i| *i != self.index).collect()
    }

    /// Sends peer `p` the entries from its next index (none for a heartbeat), or a snapshot when those
    /// entries were already dropped.
    fn send_append(&mut self, ctx: &mut Ctx, p: u32) {
        let Some(pr) = self.progress.get(p as usize).copied() else {
            return;
        };
        if pr.next <= self.log.offset() {
            self.send_snapshot(ctx, p);
            return;
        }
        let prev_index = pr.next - 1;
        let entries = self.log.entries_from(pr.next, MAX_APPEND_ENTRIES);
        if pr.state == PeerState::Replicate {
            if let Some(last) = entries.last() {
                self.progress[p as usize].next = last.index + 1;
            }
        }
        let msg = EtcdMessage::AppendEntries {
            term: self.term,
            leader: self.index,
            prev_index,
            prev_term: self.log.term_at(prev_index).unwrap_or(0),
            entries,
            leader_commit: self.commit,
        };
        self.send_to(ctx, p, msg);
    }

    fn send_snapshot(&mut self, ctx: &mut Ctx, p: u32) {
        let pr = &mut self.progress[p as usize];
        if let PeerState::Snapshot { sent } = pr.state {
            if ctx.now.since(sent) < SNAPSHOT_RETRY_MS {
                return;
            }
        }
        pr.state = PeerState::Snapshot { sent: ctx.now };
        let msg = EtcdMessage::InstallSnapshot {
            term: self.term,
            leader: self.index,
            last_index: self.applied,
            last_term: self.log.term_at(self.applied).unwrap_or(self.term),
            snapshot: Box::new(self.store.snapshot()),
        };
        self.send_to(ctx, p, msg);
    }

    fn broadcast_append(&mut self, ctx: &mut Ctx) {
        for p in self.peer_indexes() {
            self.send_append(ctx, p);
        }
    }

    /// Leader: commits the highest index of its own term that a majority of all members hold.
    fn maybe_commit(&mut self, ctx: &mut Ctx) {
        let mut matched: Vec<u64> = (0..self.members.len())
            .map(|i| if i == self.index as usize { self.log.last_index() } else { self.progress[i].matched })
            .collect();
        matched.sort_unstable_by(|a, b| b.cmp(a));
        let Some(&n) = matched.get(self.quorum() - 1) else {
            return;
        };
        if n > self.commit && self.log.term_at(n) == Some(self.term) {
            self.commit = n;
            self.apply_committed(ctx);
            for p in self.peer_indexes() {
                if self.progress[p as usize].state == PeerState::Replicate {
                    self.send_append(ctx, p);
                }
            }
        }
    }

    fn on_append_result(&mut self, ctx: &mut Ctx, term: u64, from: u32, ok: bool, index: u64) {
        if term > self.term {
            self.become_follower(ctx, term, None);
            return;
        }
        let valid = from != self.index && (from as usize) < self.progress.len();
        if self.role != Role::Leader || term < self.term || !valid {
            return;
        }
        self.progress[from as usize].recent_active = true;
        if ok {
            self.on_append_accepted(ctx, from, index);
        } else {
            self.on_append_rejected(ctx, from, index);
        }
    }

    fn on_append_accepted(&mut self, ctx: &mut Ctx, p: u32, index: u64) {
        let pr = &mut self.progress[p as usize];
        pr.matched = pr.matched.max(index);
        pr.next = pr.next.max(index + 1);
        pr.state = PeerState::Replicate;
        self.maybe_commit(ctx);
        self.trim_log();
        if self.progress[p as usize].next <= self.log.last_index() {
            self.send_append(ctx, p);
        }
    }

    /// The peer's log did not match at the probed index: back off to its hint and probe again.
    fn on_append_rejected(&mut self, ctx: &mut Ctx, p: u32, hint: u64) {
        let pr = &mut self.progress[p as usize];
        if matches!(pr.state, PeerState::Snapshot { .. }) {
            return;
        }
        let next = pr.next.min(hint + 1).max(pr.matched + 1);
        let unchanged = pr.state == PeerState::Probe && pr.next == next;
        pr.next = next;
        pr.state = PeerState::Probe;
        if !unchanged {
            self.send_append(ctx, p);
        }
    }

    /// Follower side of `AppendEntries`: the log-matching check, then append and follow the commit index.
    fn on_append(&mut self, ctx: &mut Ctx, a: Append) {
        if a.term < self.term || self.peer(a.leader).is_none() {
            self.reply_append(ctx, a.leader, false, 0);
            return;
        }
        self.follow(ctx, a.term, a.leader);
        let leader_commit = a.leader_commit;
        let leader = a.leader;
        let (ok, matched) = self.match_and_append(a);
        if ok {
            self.commit = self.commit.max(leader_commit.min(matched));
            self.apply_committed(ctx);
        }
        self.reply_append(ctx, leader, ok, matched);
    }

    fn reply_append(&self, ctx: &mut Ctx, to: u32, success: bool, match_index: u64) {
        let msg = EtcdMessage::AppendResult { term: self.term, from: self.index, success, match_index };
        self.send_to(ctx, to, msg);
    }

    /// Accepts the leader of `term` (stepping down or catching up the term as needed).
    fn follow(&mut self, ctx: &mut Ctx, term: u64, leader: u32) {
        if term > self.term || self.role != Role::Follower || self.leader != Some(leader) {
            self.become_follower(ctx, term, Some(leader));
        }
        self.leader_contact = ctx.now;
        self.reset_election_timer(ctx);
    }

    /// Returns whether the log matched at `prev_index`, and how far it now matches the leader's (on
    /// success) or where the leader should probe next (on failure).
    fn match_and_append(&mut self, a: Append) -> (bool, u64) {
        let last = self.log.last_index();
        if a.prev_index > last {
            return (false, last);
        }
        let offset = self.log.offset();
        if a.prev_index >= offset && self.log.term_at(a.prev_index) != Some(a.prev_term) {
            return (false, a.prev_index.saturating_sub(1).max(self.commit));
        }
        let matched = a.prev_index + a.entries.len() as u64;
        for entry in a.entries {
            if entry.index <= offset {
                continue;
            }
            match self.log.term_at(entry.index) {
                Some(t) if t == entry.term => continue,
                Some(_) if entry.index <= self.commit => continue,
                Some(_) => self.log.truncate_from(entry.index),
                None => {}
            }
            if entry.index != self.log.last_index() + 1 {
                break;
            }
            self.log.push(entry);
        }
        // Entries up to the offset were committed, so they are in every later leader's log too.
        (true, matched.max(offset))
    }

    /// Follower side of `InstallSnapshot`: replace store and log when the snapshot is ahead of the commit.
    fn on_snapshot(&mut self, ctx: &mut Ctx, s: InstallSnapshot) {
        if s.term < self.term || self.peer(s.leader).is_none() {
            self.reply_append(ctx, s.leader, false, 0);
            return;
        }
        self.follow(ctx, s.term, s.leader);
        if s.last_index > self.commit {
            self.store = Store::restore(s.snapshot);
            self.log.reset(s.last_index, s.last_term);
            self.commit = s.last_index;
            self.applied = s.last_index;
            self.cancel_lagging_watches(ctx);
        }
        self.reply_append(ctx, s.leader, true, self.commit.max(s.last_index));
    }

    fn on_request_vote(&mut self, ctx: &mut Ctx, term: u64, candidate: u32, last: (u64, u64)) {
        let in_lease = self.leader.is_some() && ctx.now.since(self.leader_contact) < ELECTION_TIMEOUT_MS;
        if term > self.term && in_lease {
            // raft ignores the request (no reply, no term change) while it still trusts its leader.
            return;
        }
        if term > self.term {
            self.become_follower(ctx, term, None);
        }
        let up_to_date = last >= (self.log.last_term(), self.log.last_index());
        let free = self.voted_for.is_none() || self.voted_for == Some(candidate);
        let granted = term == self.term && free && up_to_date && self.peer(candidate).is_some();
        if granted {
            self.voted_for = Some(candidate);
            self.reset_election_timer(ctx);
        }
        let msg = EtcdMessage::Vote { term: self.term, from: self.index, granted };
        self.send_to(ctx, candidate, msg);
    }

    fn on_vote(&mut self, ctx: &mut Ctx, term: u64, from: u32, granted: bool) {
        if term > self.term {
            self.become_follower(ctx, term, None);
            return;
        }
        if self.role != Role::Candidate || term != self.term || !granted {
            return;
        }
        if self.peer(from).is_some() {
            self.votes.insert(from);
        }
        if self.votes.len() >= self.quorum() {
            self.become_leader(ctx);
        }
    }

    /// Steps down to follower of `term`; a newer term clears the vote. A known leader gets the held requests.
    fn become_follower(&mut self, ctx: &mut Ctx, term: u64, leader: Option<u32>) {
        if term > self.term {
            self.term = term;
            self.voted_for = None;
        }
        self.role = Role::Follower;
        self.leader = leader;
        self.votes.clear();
        self.reset_election_timer(ctx);
        if leader.is_some() {
            self.flush_held(ctx);
        }
    }

    /// Candidate: a new term, a vote for itself, and vote requests to every peer.
    fn campaign(&mut self, ctx: &mut Ctx) {
        self.term += 1;
        self.role = Role::Candidate;
        self.voted_for = Some(self.index);
        self.leader = None;
        self.votes.clear();
        self.votes.insert(self.index);
        self.reset_election_timer(ctx);
        if self.votes.len() >= self.quorum() {
            self.become_leader(ctx);
            return;
        }
        for p in self.peer_indexes() {
            let msg = EtcdMessage::RequestVote {
                term: self.term,
                candidate: self.index,
                last_index: self.log.last_index(),
                last_term: self.log.last_term(),
            };
            self.send_to(ctx, p, msg);
        }
    }

    /// Leader: probe every peer, append an empty entry of the new term (so earlier entries commit), start
    /// heartbeats, and take the requests held while no leader was known.
    pub(super) fn become_leader(&mut self, ctx: &mut Ctx) {
        self.role = Role::Leader;
        self.leader = Some(self.index);
        self.voted_for = Some(self.index);
        self.votes.clear();
        self.timer_generation += 1;
        self.election_timer_at = None;
        self.leader_contact = ctx.now;
        let next = self.log.last_index() + 1;
        self.progress = vec![Progress::fresh(next); self.members.len()];
        self.append(ctx, Txn::default(), None, self.index, 0);
        self.broadcast_append(ctx);
        ctx.timer(HEARTBEAT_MS, token(TOKEN_HEARTBEAT, self.timer_generation));
        self.flush_held(ctx);
    }

    /// Sends (or, as leader, appends) the proposals held while no leader was known.
    fn flush_held(&mut self, ctx: &mut Ctx) {
        let held = std::mem::take(&mut self.held);
        for (id, txn) in held {
            self.propose(ctx, txn, self.index, id);
        }
        if let Some(revision) = self.held_compact.take() {
            self.client_compact(ctx, revision);
        }
    }

    pub(super) fn on_heartbeat_timer(&mut self, ctx: &mut Ctx) {
        if self.role != Role::Leader {
            return;
        }
        if ctx.now.since(self.leader_contact) >= ELECTION_TIMEOUT_MS && !self.check_quorum(ctx) {
            return;
        }
        self.broadcast_append(ctx);
        ctx.timer(HEARTBEAT_MS, token(TOKEN_HEARTBEAT, self.timer_generation));
    }

    /// Leader, once per election timeout: steps down when fewer than a majority (itself included) answered
    /// since the last check; otherwise starts a new count. Returns whether it still leads.
    fn check_quorum(&mut self, ctx: &mut Ctx) -> bool {
        let me = self.index as usize;
        let active = self.progress.iter().enumerate().filter(|(i, p)| *i == me || p.recent_active).count();
        if active < self.quorum() {
            let term = self.term;
            self.become_follower(ctx, term, None);
            return false;
        }
        for p in &mut self.progress {
            p.recent_active = false;
        }
        self.leader_contact = ctx.now;
        true
    }

    /// Draws a new election deadline in [timeout, 2 × timeout) and makes sure a timer will look at it.
    pub(super) fn reset_election_timer(&mut self, ctx: &mut Ctx) {
        let wait = ctx.rng.between(ELECTION_TIMEOUT_MS, 2 * ELECTION_TIMEOUT_MS - 1);
        self.election_deadline = ctx.now.plus_ms(wait);
        self.arm_election_timer(ctx);
    }

    fn arm_election_timer(&mut self, ctx: &mut Ctx) {
        let deadline = self.election_deadline;
        if self.election_timer_at.is_some_and(|at| at <= deadline) {
            return;
        }
        self.election_timer_at = Some(deadline);
        let token = token(TOKEN_ELECTION, self.timer_generation);
        ctx.timer(deadline.since(ctx.now), token);
    }

    /// An election timer fired: campaign if the deadline passed without news from a leader, else wait on.
    pub(super) fn on_election_timer(&mut self, ctx: &mut Ctx) {
        if self.election_timer_at.is_some_and(|at| at <= ctx.now) {
            self.election_timer_at = None;
        }
        if self.role == Role::Leader {
            return;
        }
        if ctx.now >= self.election_deadline {
            self.campaign(ctx);
        } else {
            self.arm_election_timer(ctx);
        }
    }
}
