//! The install run in pieces: a page shows the cluster as soon as its components exist and lets the install
//! go on over the next animation frames, instead of building it all before the first paint.
//!
//! [`Cluster::new`] runs the same pieces back to back. Where the pieces are cut changes nothing: each piece
//! handles whole events in the order the kernel gives them, exactly as [`Cluster::run_until_exit`] and
//! [`Cluster::advance_ms`] would, so a cluster installed in pieces is the very cluster built at once (same
//! objects, etcd revision, clock and trace).

use crate::sim::SimTime;

use super::{bootstrap, Cluster};

/// Polling the cluster for the end of the install: it is checked this often in simulated time.
const SETTLE_STEP_MS: u64 = 100;

/// An install in progress: see [`Cluster::installing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Install {
    stage: Stage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Nothing has run yet: kubeadm's program is to be started (at time zero).
    Starting,
    /// kubeadm's program creates the cluster's objects: runs until it exits, or until the deadline.
    Creating {
        process: (u64, u64),
        deadline: SimTime,
    },
    /// Every node Ready and every mirror pod Running is awaited, [`SETTLE_STEP_MS`] at a time (`until` is the
    /// end of the step under way), until the deadline.
    Settling {
        deadline: SimTime,
        until: Option<SimTime>,
    },
    Done,
}

impl Install {
    fn starting() -> Install {
        Install { stage: Stage::Starting }
    }

    pub(super) fn creating(process: (u64, u64), deadline: SimTime) -> Install {
        Install { stage: Stage::Creating { process, deadline } }
    }

    /// Whether the cluster has been handed over.
    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }
}

impl Cluster {
    /// Builds a cluster whose components run from time zero, with its install to run: the first piece of
    /// [`Cluster::continue_install`] starts it (nothing else may touch the cluster before), and pieces after it
    /// run it, as many as the caller likes. [`Cluster::new`] is this with the install run to its end.
    pub fn installing(config: super::ClusterConfig, seed: u64) -> (Cluster, Install) {
        (Cluster::build(config, seed), Install::starting())
    }

    /// Runs the install while `more()` says so (asked before each event). Returns true once it is done:
    /// kubeadm's objects exist and every node is Ready with every mirror pod running (or the install's time
    /// limit passed).
    pub fn continue_install(&mut self, install: &mut Install, mut more: impl FnMut() -> bool) -> bool {
        loop {
            match install.stage {
                Stage::Done => return true,
                Stage::Starting => {
                    if !more() {
                        return false;
                    }
                    *install = bootstrap::start_install(self);
                }
                Stage::Creating { process: (pid, _), deadline } => {
                    let exited = self.process_status(pid).is_none_or(|s| s.exit.is_some());
                    let next = self.kernel.next_time().filter(|t| *t <= deadline);
                    if !exited && next.is_some() {
                        if !more() {
                            return false;
                        }
                        self.step();
                        continue;
                    }
                    if !exited {
                        self.kernel.advance_to(deadline);
                    }
                    install.stage = Stage::Settling { deadline: bootstrap::settle_deadline(self), until: None };
                }
                Stage::Settling { deadline, until: None } => {
                    install.stage = if bootstrap::settled(self) || self.now() >= deadline {
                        Stage::Done
                    } else {
                        Stage::Settling { deadline, until: Some(self.now().plus_ms(SETTLE_STEP_MS)) }
                    };
                }
                Stage::Settling { deadline, until: Some(until) } => {
                    if self.kernel.next_time().is_some_and(|t| t <= until) {
                        if !more() {
                            return false;
                        }
                        self.step();
                        continue;
                    }
                    self.kernel.advance_to(until);
                    install.stage = Stage::Settling { deadline, until: None };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::{Cluster, ClusterConfig, NodeConfig};

    /// What two clusters must share to be the same: the clock, the trace of deliveries, etcd's revision and
    /// every stored object.
    fn fingerprint(c: &Cluster) -> (u64, u64, u64, usize, usize) {
        let api = c.apiserver().expect("an apiserver");
        let revision = c.etcd_member(0).expect("an etcd member").store().revision();
        (
            c.now().ms(),
            c.kernel().trace.hash(),
            revision,
            api.cache().count(crate::api::Kind::Pod),
            api.cache().count(crate::api::Kind::Node),
        )
    }

    #[test]
    fn an_install_in_pieces_builds_the_very_cluster_an_install_at_once_builds() {
        let whole = Cluster::new_default(7);
        let (mut pieces, mut install) = Cluster::installing(ClusterConfig::default(), 7);
        assert_eq!(pieces.now().ms(), 0, "the components exist before any time passes");
        assert!(!install.done());
        // One event per piece, with a piece that runs nothing in between.
        let mut calls = 0;
        let mut pieces_run = 0;
        while !pieces.continue_install(&mut install, || {
            calls += 1;
            calls % 2 == 1
        }) {
            pieces_run += 1;
            calls = 0;
        }
        assert!(install.done());
        assert!(pieces_run > 100, "{pieces_run} pieces");
        assert_eq!(fingerprint(&pieces), fingerprint(&whole));
        assert!(pieces.now().ms() > 0);
        // Done stays done and runs nothing more.
        assert!(pieces.continue_install(&mut install, || panic!("nothing is left to run")));
        assert_eq!(fingerprint(&pieces), fingerprint(&whole));
    }

    #[test]
    fn a_piece_that_may_run_nothing_changes_nothing() {
        let (mut cluster, mut install) = Cluster::installing(ClusterConfig::default(), 1);
        let before = fingerprint_early(&cluster);
        assert!(!cluster.continue_install(&mut install, || false));
        assert_eq!(fingerprint_early(&cluster), before, "not even kubeadm's program started");
        let mut events = 0;
        assert!(!cluster.continue_install(&mut install, || {
            events += 1;
            events <= 20
        }));
        let midway = fingerprint_early(&cluster);
        assert_ne!(midway, before);
        assert!(!cluster.continue_install(&mut install, || false));
        assert_eq!(fingerprint_early(&cluster), midway);
    }

    fn fingerprint_early(c: &Cluster) -> (u64, u64, Option<u64>) {
        (c.now().ms(), c.kernel().trace.hash(), c.next_event_ms())
    }

    #[test]
    fn a_bigger_cluster_installed_in_pieces_matches_too() {
        let mut config = ClusterConfig::default();
        config.nodes.extend((3..=6).map(|i| NodeConfig::worker(&format!("node{i:02}"))));
        let whole = Cluster::new(config.clone(), 3);
        let (mut pieces, mut install) = Cluster::installing(config, 3);
        let mut budget = 0;
        while !pieces.continue_install(&mut install, || {
            budget += 1;
            budget % 50 != 0
        }) {}
        assert_eq!(fingerprint(&pieces), fingerprint(&whole));
        assert_eq!(pieces.apiserver().unwrap().cache().count(crate::api::Kind::Node), 7);
    }
}
