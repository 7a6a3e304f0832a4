//! What a clock that shows the simulation to a person needs from the cluster: when the next event is due,
//! whether a message is on the wire, running one instant at a time, stepping to the next message, and
//! skipping ahead until the work that requests caused has settled. Nothing here changes what the cluster does;
//! it only chooses how far to run it.

use super::Cluster;

/// A skip until quiet in progress: see [`Cluster::start_skip`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skip {
    quiet_ms: u64,
    limit: u64,
    /// Since when no message a request caused has been on the wire or delivered.
    quiet_since: Option<u64>,
}

impl Cluster {
    /// When the next delivery or timer is due, in simulated milliseconds.
    pub fn next_event_ms(&self) -> Option<u64> {
        self.kernel.next_time().map(|t| t.ms())
    }

    /// Whether any message is on the wire (sent, not yet delivered).
    pub fn messages_in_flight(&self) -> bool {
        self.kernel.on_wire().0 > 0
    }

    /// Runs every event due at the next event time and moves the clock there; returns that time, or None
    /// when nothing is scheduled.
    pub fn run_next_instant(&mut self) -> Option<u64> {
        let at = self.next_event_ms()?;
        self.advance_ms(at.saturating_sub(self.now().ms()));
        Some(at)
    }

    /// Runs instant after instant until one delivers a message or puts a new one on the wire (timers that
    /// send nothing are passed over), at most `limit_ms` ahead. Returns whether a message moved.
    pub fn step_message(&mut self, limit_ms: u64) -> bool {
        let deadline = self.now().ms().saturating_add(limit_ms);
        while self.next_event_ms().is_some_and(|t| t <= deadline) {
            let (delivered, (on_wire, _)) = (self.kernel.trace.count(), self.kernel.on_wire());
            self.run_next_instant();
            if self.kernel.trace.count() != delivered || self.kernel.on_wire().0 > on_wire {
                return true;
            }
        }
        false
    }

    /// Runs until `quiet_ms` of simulated time pass in which no message a request caused (chain ≠ 0) is on
    /// the wire or delivered, and at most `limit_ms`. Periodic background traffic (lease renewals, status
    /// reports, resyncs start no chain) does not count as activity. Returns the simulated ms skipped.
    pub fn skip_until_quiet(&mut self, quiet_ms: u64, limit_ms: u64) -> u64 {
        let start = self.now().ms();
        let mut skip = self.start_skip(quiet_ms, limit_ms);
        while !self.continue_skip(&mut skip, || true) {}
        self.now().ms() - start
    }

    /// The state of a skip until quiet that may run in pieces (a page runs a piece per animation frame).
    pub fn start_skip(&self, quiet_ms: u64, limit_ms: u64) -> Skip {
        let now = self.now().ms();
        Skip {
            quiet_ms,
            limit: now.saturating_add(limit_ms),
            quiet_since: (!self.caused_messages_in_flight()).then_some(now),
        }
    }

    /// Runs instant after instant of a skip while `more()` says so (asked before each instant). Returns true
    /// once the skip is done: the clock then stands at the end of the quiet window, or at the limit. Where
    /// the pieces are cut changes nothing in the simulation.
    pub fn continue_skip(&mut self, skip: &mut Skip, mut more: impl FnMut() -> bool) -> bool {
        loop {
            let deadline = skip.quiet_since.map_or(skip.limit, |q| q.saturating_add(skip.quiet_ms).min(skip.limit));
            match self.next_event_ms() {
                Some(t) if t <= deadline => {
                    if !more() {
                        return false;
                    }
                    let delivered = self.kernel.trace.count();
                    self.run_next_instant();
                    let new = usize::try_from(self.kernel.trace.count() - delivered).unwrap_or(usize::MAX);
                    let caused = self.kernel.trace.recent().rev().take(new).any(|d| d.chain != 0);
                    if self.caused_messages_in_flight() {
                        skip.quiet_since = None;
                    } else if caused || skip.quiet_since.is_none() {
                        skip.quiet_since = Some(t);
                    }
                }
                _ => {
                    self.advance_ms(deadline.saturating_sub(self.now().ms()));
                    return true;
                }
            }
        }
    }

    fn caused_messages_in_flight(&self) -> bool {
        self.kernel.on_wire().1 > 0
    }
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn the_kernel_counts_the_messages_on_the_wire() {
        let mut cluster = Cluster::new_default(1);
        cluster.start_kubectl("kubectl create deployment web --image=nginx", None);
        for _ in 0..300 {
            let on_wire = cluster.kernel().in_flight();
            let caused = on_wire.iter().filter(|e| e.chain != 0).count();
            assert_eq!(cluster.kernel().on_wire(), (on_wire.len(), caused));
            assert_eq!(cluster.messages_in_flight(), !on_wire.is_empty());
            cluster.run_next_instant();
        }
    }

    #[test]
    fn running_one_instant_moves_the_clock_to_the_next_event_only() {
        let mut cluster = Cluster::new_default(1);
        let next = cluster.next_event_ms().expect("an installed cluster has timers");
        assert!(next >= cluster.now().ms());
        assert_eq!(cluster.run_next_instant(), Some(next));
        assert_eq!(cluster.now().ms(), next);
        assert!(cluster.next_event_ms().is_some_and(|t| t > next));
    }

    #[test]
    fn a_step_stops_at_the_first_instant_a_message_moves() {
        let mut cluster = Cluster::new_default(1);
        cluster.toggle("kube-scheduler").unwrap();
        cluster.toggle("kube-scheduler").unwrap();
        // The restarted scheduler lists and watches: its requests are on the wire now.
        assert!(cluster.messages_in_flight());
        let first_delivery = cluster.kernel().in_flight()[0].deliver.ms();
        let (delivered, on_wire) = (cluster.kernel().trace.count(), cluster.kernel().in_flight().len());
        assert!(cluster.step_message(60_000));
        assert!(cluster.now().ms() <= first_delivery, "the step ends at the latest when the first message arrives");
        assert!(cluster.kernel().trace.count() > delivered || cluster.kernel().in_flight().len() > on_wire);
        // Stepping again moves on to a later instant.
        let after_first = cluster.now().ms();
        assert!(cluster.step_message(60_000));
        assert!(cluster.now().ms() > after_first);
    }

    #[test]
    fn skipping_until_quiet_runs_a_deployment_to_its_end_and_stops_soon_after() {
        let mut cluster = Cluster::new_default(1);
        cluster.start_kubectl("kubectl create deployment web --image=nginx --replicas=2", None);
        let skipped = cluster.skip_until_quiet(5_000, 600_000);
        assert!(skipped < 600_000, "the cluster settles well before the limit ({skipped} ms)");
        assert!(!cluster.caused_messages_in_flight());
        let view = cluster.view();
        let web: Vec<_> =
            view.nodes.iter().flat_map(|n| &n.pods).filter(|p| p.name.starts_with("web-")).map(|p| &p.status).collect();
        assert_eq!(web, ["Running", "Running"]);
        // Quiet means quiet for the whole window: the last caused delivery is at least that long ago.
        let last_caused = cluster.kernel().trace.recent().filter(|d| d.chain != 0).map(|d| d.delivered.ms()).max();
        assert!(last_caused.is_some_and(|t| cluster.now().ms() - t >= 5_000));
    }

    #[test]
    fn a_skip_cut_into_pieces_ends_where_one_in_a_piece_does() {
        let run = |piece: usize| {
            let mut cluster = Cluster::new_default(1);
            cluster.start_kubectl("kubectl create deployment web --image=nginx --replicas=2", None);
            let mut skip = cluster.start_skip(5_000, 600_000);
            let mut pieces = 1;
            loop {
                let mut budget = piece;
                let more = || {
                    budget = budget.saturating_sub(1);
                    budget > 0
                };
                if cluster.continue_skip(&mut skip, more) {
                    break;
                }
                pieces += 1;
            }
            (cluster.now().ms(), cluster.kernel().trace.hash(), pieces)
        };
        let (whole_time, whole_hash, _) = run(usize::MAX);
        let (time, hash, pieces) = run(7);
        assert!(pieces > 10, "{pieces} pieces");
        assert_eq!((time, hash), (whole_time, whole_hash));
    }

    #[test]
    fn skipping_stops_at_the_limit_when_the_cluster_never_settles() {
        let mut cluster = Cluster::new_default(1);
        cluster.start_kubectl("kubectl create deployment web --image=nginx --replicas=2", None);
        let start = cluster.now().ms();
        assert_eq!(cluster.skip_until_quiet(5_000, 3), 3);
        assert_eq!(cluster.now().ms(), start + 3);
    }
}
