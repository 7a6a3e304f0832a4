//! systemd's restart jobs: a node service whose process dies (`crash: node01/kubelet`) is started again
//! after its unit's `RestartSec` (`Restart=always` in kubelet.service and containerd.service), unless
//! someone stops the unit first. One process `systemd` keeps the jobs of every node; it watches nothing and
//! writes nothing: when a job is due it asks the cluster to start the component ([`Ctx::lifecycle`]).
//! Counterpart: systemd's service manager (`src/core/service.c`, `service_enter_restart`).

use std::collections::BTreeMap;

use crate::sim::Ctx;

/// The restart jobs waiting for their time.
#[derive(Debug, Default)]
pub struct Systemd {
    /// Timer token → the component to start (`node01/kubelet`).
    jobs: BTreeMap<u64, String>,
    next: u64,
}

impl Systemd {
    pub fn new() -> Systemd {
        Systemd::default()
    }

    /// Starts `component` again after `after_ms`.
    pub fn schedule_restart(&mut self, ctx: &mut Ctx, component: &str, after_ms: u64) {
        self.cancel(component);
        self.next += 1;
        self.jobs.insert(self.next, component.to_string());
        ctx.timer_in_chain(after_ms, self.next);
    }

    /// Drops the restart job of `component` (the unit was stopped or started by hand).
    pub fn cancel(&mut self, component: &str) {
        self.jobs.retain(|_, c| c != component);
    }

    /// Whether a restart of `component` is pending (`activating (auto-restart)`).
    pub fn restart_pending(&self, component: &str) -> bool {
        self.jobs.values().any(|c| c == component)
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if let Some(component) = self.jobs.remove(&token) {
            ctx.lifecycle(&component, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Command, ComponentId, Rng, SimTime};

    #[test]
    fn a_due_job_starts_its_component_and_a_cancelled_one_does_not() {
        let mut rng = Rng::new(1);
        let mut out = Vec::new();
        let mut s = Systemd::new();
        let mut ctx = Ctx { now: SimTime::ZERO, me: ComponentId(0), chain: 0, rng: &mut rng, out: &mut out };
        s.schedule_restart(&mut ctx, "node01/kubelet", 10_000);
        s.schedule_restart(&mut ctx, "node02/kubelet", 10_000);
        assert!(s.restart_pending("node01/kubelet"));
        s.cancel("node02/kubelet");
        s.on_timer(&mut ctx, 1);
        s.on_timer(&mut ctx, 2);
        let started: Vec<&str> = out
            .iter()
            .filter_map(|c| match c {
                Command::Lifecycle { name, run: true } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(started, vec!["node01/kubelet"]);
        assert!(!s.restart_pending("node01/kubelet"));
    }
}
