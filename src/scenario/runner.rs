//! Runs a scenario against a fresh cluster: each step at its time, kubectl and shell output captured
//! into a transcript, `expect` checks evaluated, and a verdict with a readable diff for failed checks.

use std::fmt::Write as _;

use crate::cluster::{Cluster, ClusterConfig, NodeConfig, UserConfig};

use super::file::{Action, Expect, Scenario, Step};

/// The longest a single kubectl command may run in simulated time before the runner stops waiting.
pub const COMMAND_LIMIT_MS: u64 = 120_000;
/// How often `waitFor` re-runs its command.
pub const WAIT_FOR_POLL_MS: u64 = 1_000;

/// One step's record in the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRecord {
    pub line: usize,
    pub at_ms: u64,
    /// `$ kubectl get pods`, `# stop kube-scheduler`, …
    pub title: String,
    pub output: String,
    pub exit: Option<i32>,
    /// Failed `expect` checks, each a readable sentence.
    pub failures: Vec<String>,
    /// The numbered data-flow steps the command caused (filled in at the end of the run).
    pub flow: Vec<crate::view::steps::FlowStep>,
    /// Each request of the command through the apiserver's handler chain.
    pub requests: Vec<crate::apiserver::audit::RequestRecord>,
    chain: u64,
}

/// The result of a whole run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub steps: Vec<StepRecord>,
    pub trace_hash: u64,
    pub end_ms: u64,
}

impl RunReport {
    pub fn passed(&self) -> bool {
        self.steps.iter().all(|s| s.failures.is_empty())
    }

    /// The transcript as the CLI prints it; with `steps`, each command's numbered data flow follows it.
    pub fn transcript(&self, steps: bool) -> String {
        let mut out = String::new();
        for s in &self.steps {
            let _ = writeln!(out, "[{}] {}", crate::sim::time::go_duration(s.at_ms), s.title);
            out.push_str(&s.output);
            if !s.output.is_empty() && !s.output.ends_with('\n') {
                out.push('\n');
            }
            if steps && !s.flow.is_empty() {
                for f in &s.flow {
                    let _ = writeln!(out, "    {}", f.line());
                }
                for r in &s.requests {
                    let _ = writeln!(out, "    kube-apiserver: {}", r.path_line());
                }
            }
            for f in &s.failures {
                let _ = writeln!(out, "!! expectation failed (line {}): {f}", s.line);
            }
        }
        out
    }
}

/// The cluster a scenario describes.
pub fn cluster_config(s: &Scenario) -> ClusterConfig {
    let node = |n: &super::file::NodeSpec| NodeConfig {
        name: n.name.clone(),
        cpu: n.cpu.clone(),
        memory: n.memory.clone(),
        pods: n.pods.clone(),
        labels: n.labels.clone(),
        taints: n.taints.iter().map(|t| (t.key.clone(), t.value.clone(), t.effect.as_str().to_string())).collect(),
    };
    ClusterConfig {
        etcd_members: s.cluster.etcd_members,
        cloud: s.cluster.cloud,
        metrics_server: s.cluster.metrics_server,
        control_plane: node(&s.cluster.control_plane),
        nodes: s.cluster.nodes.iter().map(node).collect(),
        users: s
            .cluster
            .users
            .iter()
            .map(|u| UserConfig { name: u.name.clone(), token: u.token.clone(), groups: u.groups.clone() })
            .collect(),
    }
}

/// Builds the scenario's cluster and runs every step.
pub fn run(s: &Scenario) -> RunReport {
    play(s).1
}

/// [`run`], handing back the cluster as the last step left it (`kubeglass serve SCENARIO` serves it).
pub fn play(s: &Scenario) -> (Cluster, RunReport) {
    let mut cluster = Cluster::new(cluster_config(s), s.seed);
    let start = cluster.now().ms();
    let mut steps = Vec::new();
    for step in &s.steps {
        if let Some(at) = step.at_ms {
            let target = start + at;
            if target > cluster.now().ms() {
                cluster.advance_ms(target - cluster.now().ms());
            }
        }
        steps.push(run_step(&mut cluster, step));
    }
    for record in &mut steps {
        if record.chain != 0 {
            record.flow = crate::view::steps::data_flow(cluster.kernel(), record.chain);
            if let Some(a) = cluster.apiserver() {
                record.requests = a.requests().for_chain(record.chain).into_iter().cloned().collect();
            }
        }
    }
    let report = RunReport { steps, trace_hash: cluster.kernel().trace.hash(), end_ms: cluster.now().ms() };
    (cluster, report)
}

/// Runs one kubectl line as the cluster's current user until it exits: (output, exit, chain).
pub fn kubectl(cluster: &mut Cluster, line: &str, stdin: Option<String>) -> (String, Option<i32>, u64) {
    let r = cluster.kubectl(line, stdin, COMMAND_LIMIT_MS);
    (r.output, r.exit, r.chain)
}

pub(crate) fn run_step(cluster: &mut Cluster, step: &Step) -> StepRecord {
    let at_ms = cluster.now().ms();
    let mut chain = 0;
    let (title, output, exit) = match &step.action {
        Action::Apply { manifest } => {
            let (o, e, c) = kubectl(cluster, "apply -f -", Some(manifest.clone()));
            chain = c;
            ("$ kubectl apply -f -".to_string(), o, e)
        }
        Action::Kubectl { command } => {
            let (o, e, c) = kubectl(cluster, command, None);
            chain = c;
            (format!("$ kubectl {command}"), o, e)
        }
        Action::Stop(name) => component_step(cluster, "stop", name, |c, n| c.stop(n)),
        Action::Start(name) => component_step(cluster, "start", name, |c, n| c.start(n)),
        Action::Crash(name) => component_step(cluster, "crash", name, |c, n| c.crash(n)),
        Action::Wait { ms } => {
            cluster.advance_ms(*ms);
            (format!("# wait {}", crate::sim::time::go_duration(*ms)), String::new(), Some(0))
        }
        Action::WaitFor { command, contains, timeout_ms } => wait_for(cluster, command, contains, *timeout_ms),
        Action::Shell { node, command } => {
            let r = cluster.shell(node, command, COMMAND_LIMIT_MS);
            chain = r.chain;
            (format!("{node}$ {command}"), r.output, r.exit)
        }
        Action::As { user } => match cluster.set_user(user) {
            Ok(()) => (format!("# as {user}"), String::new(), Some(0)),
            Err(e) => (format!("# as {user}"), format!("{e}\n"), Some(1)),
        },
        // Every command here runs to its end before the next step, so none is left to interrupt.
        Action::Interrupt => ("^C".to_string(), String::new(), Some(0)),
    };
    let failures = step.expect.as_ref().map(|e| check(e, &output, exit)).unwrap_or_default();
    StepRecord { line: step.line, at_ms, title, output, exit, failures, flow: Vec::new(), requests: Vec::new(), chain }
}

fn component_step(
    cluster: &mut Cluster,
    verb: &str,
    name: &str,
    f: impl FnOnce(&mut Cluster, &str) -> Result<(), String>,
) -> (String, String, Option<i32>) {
    match f(cluster, name) {
        Ok(()) => (format!("# {verb} {name}"), String::new(), Some(0)),
        Err(e) => (format!("# {verb} {name}"), format!("{e}\n"), Some(1)),
    }
}

pub(crate) fn wait_for(
    cluster: &mut Cluster,
    command: &str,
    contains: &str,
    timeout_ms: u64,
) -> (String, String, Option<i32>) {
    let deadline = cluster.now().ms() + timeout_ms;
    loop {
        let (out, _, _) = kubectl(cluster, command, None);
        if out.contains(contains) {
            return (format!("$ kubectl {command}   # waited for {contains:?}"), out, Some(0));
        }
        if cluster.now().ms() >= deadline {
            let msg = format!(
                "{out}timed out after {} waiting for {contains:?}\n",
                crate::sim::time::go_duration(timeout_ms)
            );
            return (format!("$ kubectl {command}   # waited for {contains:?}"), msg, Some(1));
        }
        cluster.advance_ms(WAIT_FOR_POLL_MS);
    }
}

/// Every failed check of `expect`, each followed by the output it was checked against.
pub fn check(e: &Expect, output: &str, exit: Option<i32>) -> Vec<String> {
    e.failures(output, exit.unwrap_or(-1))
        .into_iter()
        .map(|f| format!("{f}; the output was:\n{}", indent(output)))
        .collect()
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    | {l}")).collect::<Vec<_>>().join("\n")
}
