//! `kubeglass check`: simulation testing with random faults, after TigerBeetle's VOPR and FoundationDB's
//! simulator. One seed stands for one run ([`generate`]): a cluster, a workload and a fault schedule,
//! written as a [`Scenario`], so a run is a scenario and a failing one can be saved as a file. The run has two
//! phases. In the fault phase the scenario's steps play while the [`observer`] checks the safety invariants
//! ([`invariants`], "always") after every delivery. Then the faults end: every component is started, every
//! node uncordoned, and within a bound the convergence checks ([`converge`], "eventually") must all hold.
//! A failure names the broken invariant or the checks that never held, with the trace's last deliveries and
//! the command that replays it; [`shrink`] cuts the steps down to a minimal scenario that still fails.

pub mod converge;
pub mod generate;
pub mod invariants;
pub mod observer;
pub mod shrink;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use crate::cluster::Cluster;
use crate::scenario::{runner, Scenario};
use crate::sim::time::go_duration;

pub use generate::{generate, Faults, Size};
pub use observer::Found;

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A safety invariant broke; `step` is the index of the step that was playing (None: after the steps).
    Invariant { found: Found, step: Option<usize> },
    /// After the faults ended, these checks did not all hold within [`converge::BOUND_MS`].
    Converge { unmet: Vec<(String, String)>, at_ms: u64, recent: Vec<String> },
}

impl Failure {
    /// What broke and where, for shrinking: a candidate is kept only when it fails the same way. An invariant
    /// is named with the subject its report starts with (`pod default/web-1`, `watch 3`); a convergence
    /// failure by each unmet check and what it was about (`deployments-available(deployment default/web)`),
    /// without the counts and states that vary from run to run.
    pub fn signature(&self) -> String {
        let subject = |detail: &str| {
            let words: Vec<&str> = detail.split_whitespace().take(2).collect();
            words.join(" ").trim_end_matches(':').to_string()
        };
        match self {
            Failure::Invariant { found, .. } => {
                format!("{}({})", found.violation.invariant, subject(&found.violation.detail))
            }
            Failure::Converge { unmet, .. } => {
                let mut each: Vec<String> = unmet.iter().map(|(n, d)| format!("{n}({})", subject(d))).collect();
                each.sort();
                each.dedup();
                format!("convergence: {}", each.join(", "))
            }
        }
    }

    /// What broke, by name: the invariant, or `convergence:` and the checks that never held.
    pub fn name(&self) -> String {
        match self {
            Failure::Invariant { found, .. } => found.violation.invariant.to_string(),
            Failure::Converge { unmet, .. } => {
                let mut names: Vec<&str> = unmet.iter().map(|(n, _)| n.as_str()).collect();
                names.dedup();
                format!("convergence: {}", names.join(", "))
            }
        }
    }
}

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub trace_hash: u64,
    pub deliveries: u64,
    /// Simulated time at the end of the run.
    pub end_ms: u64,
    /// Invariant checks evaluated.
    pub checks: u64,
    pub failure: Option<Failure>,
    /// The most frequent kinds of delivery among the trace's last ones at the end: (`from -> to label`,
    /// count), most frequent first; a storm shows here.
    pub busiest: Vec<(String, u64)>,
}

/// Plays `s` under the invariants, heals the cluster and checks convergence.
pub fn run(s: &Scenario) -> Outcome {
    let mut cluster = Cluster::new(runner::cluster_config(s), s.seed);
    let checker = Rc::new(RefCell::new(observer::Checker::default()));
    cluster.set_observer(Some(checker.clone()));
    let start = cluster.now().ms();
    let mut failure = None;
    for (i, step) in s.steps.iter().enumerate() {
        if let Some(at) = step.at_ms {
            let target = start + at;
            if target > cluster.now().ms() {
                cluster.advance_ms(target - cluster.now().ms());
            }
        }
        runner::run_step(&mut cluster, step);
        if let Some(found) = checker.borrow().found.clone() {
            failure = Some(Failure::Invariant { found, step: Some(i) });
            break;
        }
    }
    if failure.is_none() {
        failure = heal_and_converge(&mut cluster, &checker);
    }
    cluster.set_observer(None);
    let checks = checker.borrow().checks;
    let mut counts: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for d in cluster.kernel().trace.recent() {
        let k = cluster.kernel();
        *counts.entry(format!("{} -> {} {}", k.name(d.from), k.name(d.to), d.label)).or_default() += 1;
    }
    let mut busiest: Vec<(String, u64)> = counts.into_iter().collect();
    busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    busiest.truncate(12);
    Outcome {
        trace_hash: cluster.kernel().trace.hash(),
        deliveries: cluster.kernel().trace.count(),
        end_ms: cluster.now().ms(),
        checks,
        failure,
        busiest,
    }
}

/// The run seed `seed` stands for.
pub fn run_seed(seed: u64, size: Size, faults: Faults) -> Outcome {
    run(&generate(seed, size, faults))
}

/// Ends the faults (every component started, every node schedulable) and waits for convergence.
fn heal_and_converge(cluster: &mut Cluster, checker: &Rc<RefCell<observer::Checker>>) -> Option<Failure> {
    // Machines first: powering one on reboots it, and its kubelet then starts its static pods.
    let off: Vec<String> =
        cluster.config().all_nodes().map(|n| n.name.clone()).filter(|n| cluster.is_powered_off(n)).collect();
    for node in &off {
        let _ = cluster.start(node);
    }
    for name in cluster.component_names() {
        if cluster.is_started(&name) == Ok(false) {
            let _ = cluster.start(&name);
        }
    }
    let deadline = cluster.now().ms() + converge::BOUND_MS;
    let mut held_since: Option<u64> = None;
    loop {
        if let Some(found) = checker.borrow().found.clone() {
            return Some(Failure::Invariant { found, step: None });
        }
        uncordon(cluster);
        let now = cluster.now().ms();
        let unmet = converge::unmet(cluster);
        if unmet.is_empty() {
            let since = *held_since.get_or_insert(now);
            if now - since >= converge::HOLD_MS {
                checker.borrow_mut().check_all(cluster);
                return checker.borrow().found.clone().map(|found| Failure::Invariant { found, step: None });
            }
        } else {
            held_since = None;
            if now >= deadline {
                let recent = cluster
                    .kernel()
                    .trace
                    .recent()
                    .rev()
                    .take(observer::RECENT_LINES)
                    .map(|d| d.line())
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let unmet = unmet.into_iter().map(|(n, d)| (n.to_string(), d)).collect();
                return Some(Failure::Converge { unmet, at_ms: now, recent });
            }
        }
        cluster.advance_ms(converge::POLL_MS);
    }
}

/// Makes every cordoned node schedulable again (`kubectl uncordon`), as the apiserver's cache shows them:
/// asked at every poll, since the apiserver may still be starting when the faults end.
fn uncordon(cluster: &mut Cluster) {
    let cordoned: Vec<String> = cluster
        .apiserver()
        .map(|a| {
            a.cache()
                .list(crate::api::Kind::Node, None)
                .iter()
                .filter(|n| {
                    matches!(n.as_ref(), crate::api::Object::Node(n)
                    if n.spec.as_ref().and_then(|s| s.unschedulable) == Some(true))
                })
                .map(|n| n.name().to_string())
                .collect()
        })
        .unwrap_or_default();
    for node in cordoned {
        runner::kubectl(cluster, &format!("uncordon {node}"), None);
    }
}

/// The command that replays seed `seed`; `flags` are the generator's (`--size small`).
pub fn replay_command(seed: u64, flags: &str) -> String {
    format!("kubeglass check --seed {seed} {flags}").trim_end().to_string()
}

/// A failure as the CLI prints it: what broke, when, the deliveries that led to it, and how to replay it.
pub fn describe(s: &Scenario, failure: &Failure, replay: &str) -> String {
    let mut out = String::new();
    match failure {
        Failure::Invariant { found, step } => {
            let during = match step {
                Some(i) => format!("step {} ({})", i + 1, step_title(&s.steps[*i].action)),
                None => "the heal phase (after the faults ended)".to_string(),
            };
            let _ = writeln!(
                out,
                "seed {}: invariant {} broken at {} during {during}\n  {}",
                s.seed,
                found.violation.invariant,
                go_duration(found.at_ms),
                found.violation.detail
            );
            let _ = writeln!(out, "the last {} deliveries before it:", found.recent.len());
            for l in &found.recent {
                let _ = writeln!(out, "  {l}");
            }
        }
        Failure::Converge { unmet, at_ms, recent } => {
            let _ = writeln!(
                out,
                "seed {}: no convergence within {} after the faults ended (at {}):",
                s.seed,
                go_duration(converge::BOUND_MS),
                go_duration(*at_ms)
            );
            for (n, d) in unmet {
                let _ = writeln!(out, "  {n}: {d}");
            }
            let _ = writeln!(out, "the last {} deliveries:", recent.len());
            for l in recent {
                let _ = writeln!(out, "  {l}");
            }
        }
    }
    let _ = writeln!(out, "replay: {replay}");
    out
}

/// A step as one line: `stop kube-scheduler`, `kubectl scale …`.
pub fn step_title(a: &crate::scenario::Action) -> String {
    use crate::scenario::Action;
    match a {
        Action::Apply { manifest } => {
            let kind = manifest.lines().find_map(|l| l.strip_prefix("kind: ")).unwrap_or("?");
            format!("apply {kind}")
        }
        Action::Kubectl { command } => format!("kubectl {command}"),
        Action::Stop(c) => format!("stop {c}"),
        Action::Start(c) => format!("start {c}"),
        Action::Crash(c) => format!("crash {c}"),
        Action::Wait { ms } => format!("wait {}", go_duration(*ms)),
        Action::WaitFor { command, .. } => format!("waitFor kubectl {command}"),
        Action::Shell { node, command } => format!("on {node}: {command}"),
        Action::As { user } => format!("as {user}"),
        Action::Interrupt => "press Ctrl+C".into(),
    }
}

/// Many seeds' results, as `kubeglass check --seeds` prints them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    pub seeds: u64,
    pub passed: u64,
    pub deliveries: u64,
    pub checks: u64,
    pub simulated_ms: u64,
    /// (seed, what broke).
    pub failed: Vec<(u64, String)>,
}

impl Summary {
    pub fn add(&mut self, seed: u64, o: &Outcome) {
        self.seeds += 1;
        self.deliveries += o.deliveries;
        self.checks += o.checks;
        self.simulated_ms += o.end_ms;
        match &o.failure {
            None => self.passed += 1,
            Some(f) => self.failed.push((seed, f.name())),
        }
    }

    pub fn text(&self, flags: &str) -> String {
        let mut out = format!(
            "{} seeds: {} passed, {} failed; {} deliveries, {} invariant checks, {} simulated\n",
            self.seeds,
            self.passed,
            self.failed.len(),
            self.deliveries,
            self.checks,
            go_duration(self.simulated_ms)
        );
        for (seed, name) in &self.failed {
            let _ = writeln!(out, "  seed {seed}: {name}   (replay: {})", replay_command(*seed, flags));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converge(unmet: &[(&str, &str)]) -> Failure {
        Failure::Converge {
            unmet: unmet.iter().map(|(n, d)| (n.to_string(), d.to_string())).collect(),
            at_ms: 0,
            recent: Vec::new(),
        }
    }

    #[test]
    fn a_signature_names_what_failed_not_the_counts_that_vary() {
        let a = converge(&[("deployments-available", "deployment default/web: 2 available, 3 updated of 3; pods: …")]);
        let b = converge(&[("deployments-available", "deployment default/web: 1 available, 2 updated of 3; pods: …")]);
        let other = converge(&[("deployments-available", "deployment default/api: 2 available, 3 updated of 3")]);
        assert_eq!(a.signature(), "convergence: deployments-available(deployment default/web)");
        assert_eq!(a.signature(), b.signature());
        assert_ne!(a.signature(), other.signature());
        assert_eq!(a.name(), other.name(), "the name alone cannot tell them apart");
        let both = converge(&[
            ("static-pods-mirrored", "manifest /etc/kubernetes/manifests/etcd.yaml has no mirror pod"),
            ("nodes-ready", "node controlplane Ready=absent"),
        ]);
        assert_eq!(
            both.signature(),
            "convergence: nodes-ready(node controlplane), static-pods-mirrored(manifest /etc/kubernetes/manifests/etcd.yaml)"
        );
        let found = |detail: &str| Failure::Invariant {
            found: observer::Found {
                violation: invariants::Violation { invariant: "bind-once", detail: detail.into() },
                at_ms: 0,
                recent: Vec::new(),
            },
            step: None,
        };
        assert_eq!(
            found("pod default/a (uid u) was bound to n1 and is now on n2").signature(),
            "bind-once(pod default/a)"
        );
    }
}
