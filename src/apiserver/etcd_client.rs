//! kube-apiserver's etcd client: clientv3 over one gRPC channel balanced across `--etcd-servers`. It picks
//! the member a request goes to and decides what a refusal means. A member that refuses (stopped, or its
//! machine powered off) is skipped for the next one; when every member has refused, the channel is in
//! gRPC's `TRANSIENT_FAILURE` and clientv3's calls wait for it to be ready again (`WaitForReady`), so a
//! request neither fails at once nor hammers the members: it waits until the connection is back or its
//! context's deadline (the apiserver's `--request-timeout`) has passed. The channel reconnects on gRPC's
//! connection backoff (1 s base, ×1.6 per attempt, ±20 % jitter, at most 120 s), reset once a member answers.
//!
//! Kubernetes counterpart: `go.etcd.io/etcd/client/v3` as `k8s.io/apiserver/pkg/storage/storagebackend/factory`
//! builds it, with grpc-go's `internal/backoff` defaults. Deviation: one request is tried on the next member
//! when its own member refuses, where gRPC's round-robin picker moves every later request instead; the
//! effect (requests reach a live member) is the same.

use std::collections::BTreeSet;

use crate::sim::{ComponentId, Rng};

/// gRPC's connection backoff (`backoff.DefaultConfig`): base delay, multiplier 1.6 (as 16/10), jitter ±20 %
/// (in per mille), maximum. Integer arithmetic, so every platform draws the same delays.
pub const RECONNECT_BASE_MS: u64 = 1_000;
pub const RECONNECT_MAX_MS: u64 = 120_000;
const JITTER_PER_MILLE: u64 = 200;

/// The channel to the etcd members.
#[derive(Debug)]
pub struct EtcdClient {
    endpoints: Vec<ComponentId>,
    /// The member requests go to.
    index: usize,
    /// Members that refused since the channel last reconnected.
    refusing: BTreeSet<ComponentId>,
    /// The backoff of the next reconnect attempt, before jitter (the base once a member answered).
    backoff_ms: u64,
    /// A reconnect is scheduled.
    reconnecting: bool,
    rng: Rng,
}

impl EtcdClient {
    pub fn new(endpoints: Vec<ComponentId>, rng: Rng) -> EtcdClient {
        EtcdClient {
            endpoints,
            index: 0,
            refusing: BTreeSet::new(),
            backoff_ms: RECONNECT_BASE_MS,
            reconnecting: false,
            rng,
        }
    }

    /// A new process: a new channel, starting with the first member, no backoff, no reconnect scheduled (the
    /// old process's timers died with it).
    pub fn reset(&mut self) {
        self.index = 0;
        self.refusing.clear();
        self.backoff_ms = RECONNECT_BASE_MS;
        self.reconnecting = false;
    }

    /// The member the next request goes to.
    pub fn endpoint(&self) -> ComponentId {
        self.endpoints[self.index % self.endpoints.len()]
    }

    /// Whether `peer` is one of the members.
    pub fn is_member(&self, peer: ComponentId) -> bool {
        self.endpoints.contains(&peer)
    }

    /// Every member refused: requests wait for the channel instead of being sent.
    pub fn is_down(&self) -> bool {
        self.endpoints.iter().all(|e| self.refusing.contains(e))
    }

    /// A member answered: the channel is up and its backoff starts again from the base delay.
    pub fn answered(&mut self, from: ComponentId) {
        self.refusing.remove(&from);
        self.backoff_ms = RECONNECT_BASE_MS;
    }

    /// `from` refused a request (or the connection to it broke). Moves on to a member that has not refused,
    /// if any is left; false when every member has refused (the channel is down).
    pub fn refused(&mut self, from: ComponentId) -> bool {
        self.refusing.insert(from);
        for _ in 0..self.endpoints.len() {
            if !self.refusing.contains(&self.endpoint()) {
                return true;
            }
            self.index += 1;
        }
        false
    }

    /// The delay before the next reconnect, when none is scheduled yet (None: one is already).
    pub fn schedule_reconnect(&mut self) -> Option<u64> {
        if self.reconnecting {
            return None;
        }
        self.reconnecting = true;
        let backoff = self.backoff_ms;
        self.backoff_ms = (backoff * 16 / 10).min(RECONNECT_MAX_MS);
        // A uniform factor in [1 - jitter, 1 + jitter], drawn from the seeded generator.
        let per_mille = 1_000 - JITTER_PER_MILLE + self.rng.below(2 * JITTER_PER_MILLE + 1);
        Some(backoff * per_mille / 1_000)
    }

    /// The reconnect timer fired: every member may be tried again, starting with the next one.
    pub fn reconnect(&mut self) {
        self.reconnecting = false;
        self.refusing.clear();
        self.index += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(n: u32) -> EtcdClient {
        EtcdClient::new((0..n).map(ComponentId).collect(), Rng::new(1))
    }

    #[test]
    fn a_refusing_member_is_skipped_and_the_channel_is_down_only_when_all_refused() {
        let mut c = client(3);
        assert_eq!(c.endpoint(), ComponentId(0));
        assert!(c.refused(ComponentId(0)));
        assert_eq!(c.endpoint(), ComponentId(1));
        // A late refusal from the member already left behind does not move past a good one.
        assert!(c.refused(ComponentId(0)));
        assert_eq!(c.endpoint(), ComponentId(1));
        assert!(c.refused(ComponentId(2)));
        assert_eq!(c.endpoint(), ComponentId(1));
        assert!(!c.is_down());
        assert!(!c.refused(ComponentId(1)));
        assert!(c.is_down());
        c.reconnect();
        assert!(!c.is_down());
    }

    #[test]
    fn reconnects_back_off_as_grpc_does_and_start_over_once_a_member_answers() {
        let mut c = client(1);
        let mut delays = Vec::new();
        for _ in 0..12 {
            c.refused(ComponentId(0));
            delays.push(c.schedule_reconnect().expect("none scheduled"));
            assert_eq!(c.schedule_reconnect(), None, "one reconnect at a time");
            c.reconnect();
        }
        let bounds = |base: f64| ((base * 0.8).floor() as u64, (base * 1.2).ceil() as u64);
        for (i, d) in delays.iter().enumerate() {
            let base = (1000.0 * 1.6f64.powi(i as i32)).min(120_000.0);
            let (lo, hi) = bounds(base);
            assert!((lo..=hi).contains(d), "attempt {i}: {d} ms outside {lo}..={hi}");
        }
        c.answered(ComponentId(0));
        c.refused(ComponentId(0));
        let d = c.schedule_reconnect().unwrap();
        assert!((800..=1200).contains(&d), "{d}");
    }
}
