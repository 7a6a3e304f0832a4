//! A person's session in the web app, recorded as a scenario, and a scenario played back as a session.
//!
//! The page never touches its cluster directly: every action a person takes (a kubectl line, a manifest
//! applied from the editor, stopping, starting or crashing a component, a node shell line, cordon, drain,
//! power off) goes through a [`Session`], which does it and appends it as a [`Step`] stamped with its
//! simulated time (`at:`, measured from the end of the install, as the runner measures it). Time passing is
//! not recorded: the steps' times say everything. [`Session::scenario`] is then the canonical [`Scenario`]
//! of the cluster the page started from plus everything done to it, which [`to_yaml`](super::to_yaml) writes
//! and a share link carries.
//!
//! [`Session::replay`] builds a scenario's cluster and plays its steps: a step with `at:` runs at that time
//! exactly as the live page ran it (a kubectl command is started and left running while time goes on),
//! a step without one runs as the CLI's runner runs it (to its end, right after the previous step). So a
//! recorded session replays to the very state the person saw (same objects, etcd revision and trace hash),
//! and a hand-written scenario (a gallery entry) plays as `kubeglass run` plays it. Expectations are not
//! checked here: the runner and the tests do that.

use crate::api::manifest::{parse_documents, ManifestError};
use crate::cluster::{Cluster, Install};

use super::file::{Action, ClusterSpec, Component, Scenario, Step, DEFAULT_SEED};
use super::locate::{parent_path, Locations};
use super::runner::{self, COMMAND_LIMIT_MS};

/// The name a recorded session's scenario has until someone names it.
pub const SESSION_NAME: &str = "my-session";
/// The most worker nodes a scenario opened in the page may have (a browser tab should stay responsive).
pub const PAGE_MAX_NODES: usize = 1_000;
/// The most simulated time a scenario opened in the page may take to replay, counting every `wait`,
/// `waitFor` timeout, the latest `at`, and each untimed command at its time limit.
pub const PAGE_MAX_REPLAY_MS: u64 = 2 * 3_600_000;

/// A line for the terminal: what was typed, what a program printed, or a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Input(String),
    Output(String),
    Info(String),
}

/// Output of a running kubectl process since the last [`Session::poll`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutput {
    pub pid: u64,
    pub text: String,
    /// Its exit code once it exited (it is then forgotten).
    pub exit: Option<i32>,
    /// What a `kubectl edit` asked to open in an editor: the page opens it in its manifest editor.
    pub edit: Option<crate::client::EditRequest>,
}

/// A manifest that kubectl would refuse before sending anything, with kubectl's exact line and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestProblem {
    /// What kubectl prints (`error: error parsing STDIN: …`).
    pub message: String,
    /// 1-based, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl From<ManifestError> for ManifestProblem {
    fn from(e: ManifestError) -> ManifestProblem {
        ManifestProblem { message: e.to_string(), line: e.line, column: e.column }
    }
}

/// A cluster and everything done to it, as scenario steps.
pub struct Session {
    cluster: Cluster,
    scenario: Scenario,
    /// The simulated time the install ended: steps' `at` count from here.
    start_ms: u64,
    /// kubectl processes the session started that may still print.
    processes: Vec<u64>,
    /// The install, while it still runs (see [`Session::installing`]).
    install: Option<Install>,
}

impl Session {
    /// A fresh session on the cluster `spec` describes, with `seed`.
    pub fn new(spec: ClusterSpec, seed: u64) -> Session {
        let scenario =
            Scenario { name: SESSION_NAME.into(), description: String::new(), seed, cluster: spec, steps: Vec::new() };
        let cluster = Cluster::new(runner::cluster_config(&scenario), seed);
        let start_ms = cluster.now().ms();
        Session { cluster, scenario, start_ms, processes: Vec::new(), install: None }
    }

    /// The session [`Session::new`] makes, with the cluster's install still to run: a page shows the cluster
    /// at once and runs the install in pieces ([`Session::continue_install`]) over the next frames. Anything
    /// that acts on the cluster or lets its time pass runs the rest of the install first, so the session is
    /// the very one [`Session::new`] makes, whatever was done while it installed.
    pub fn installing(spec: ClusterSpec, seed: u64) -> Session {
        let scenario =
            Scenario { name: SESSION_NAME.into(), description: String::new(), seed, cluster: spec, steps: Vec::new() };
        let (cluster, install) = Cluster::installing(runner::cluster_config(&scenario), seed);
        Session { cluster, scenario, start_ms: 0, processes: Vec::new(), install: Some(install) }
    }

    /// Runs the install while `more()` says so (asked before each event); true once the cluster is installed.
    pub fn continue_install(&mut self, more: impl FnMut() -> bool) -> bool {
        let Some(install) = &mut self.install else { return true };
        if !self.cluster.continue_install(install, more) {
            return false;
        }
        self.install = None;
        self.start_ms = self.cluster.now().ms();
        true
    }

    /// Whether the install has ended (always, but for a session made by [`Session::installing`] in progress).
    pub fn installed(&self) -> bool {
        self.install.is_none()
    }

    fn finish_install(&mut self) {
        self.continue_install(|| true);
    }

    /// A session on the default cluster with the default seed.
    pub fn new_default() -> Session {
        Session::new(ClusterSpec::default(), DEFAULT_SEED)
    }

    /// Builds `scenario`'s cluster and plays its steps (see the module's documentation); returns the session,
    /// which goes on recording after them, and what the steps printed, in order.
    pub fn replay(scenario: &Scenario) -> (Session, Vec<Line>) {
        let mut session = Session::new(scenario.cluster.clone(), scenario.seed);
        session.scenario.name = scenario.name.clone();
        session.scenario.description = scenario.description.clone();
        let mut lines = Vec::new();
        for step in &scenario.steps {
            if let Some(at) = step.at_ms {
                let target = session.start_ms.saturating_add(at);
                let now = session.cluster.now().ms();
                session.cluster.advance_ms(target.saturating_sub(now));
            }
            session.collect(&mut lines);
            session.play(step, &mut lines);
        }
        session.collect(&mut lines);
        (session, lines)
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster, to let time pass (time passing is not a step); an install in progress runs to its end
    /// first.
    pub fn cluster_mut(&mut self) -> &mut Cluster {
        self.finish_install();
        &mut self.cluster
    }

    /// The scenario so far: the starting cluster and every step, with their times.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario to share now: [`Session::scenario`] and, when time went on after the last step, a
    /// `wait: 0s` at this moment, so that a replay ends at the very time the person saw.
    pub fn shared_scenario(&self) -> Scenario {
        let mut scenario = self.scenario.clone();
        let now = self.elapsed_ms();
        let last = scenario.steps.iter().rev().find_map(|s| s.at_ms).unwrap_or(0);
        if now > last || scenario.steps.is_empty() {
            scenario.steps.push(Step { at_ms: Some(now), line: 0, action: Action::Wait { ms: 0 }, expect: None });
        }
        scenario
    }

    /// Simulated ms since the install ended (what the next step's `at` would be); 0 while it runs.
    pub fn elapsed_ms(&self) -> u64 {
        if !self.installed() {
            return 0;
        }
        self.cluster.now().ms().saturating_sub(self.start_ms)
    }

    /// Runs what is due at this very instant first, so that an action lands after everything its time holds,
    /// however the caller paced the clock (a replay does the same by advancing to the step's time). An
    /// install in progress runs to its end before.
    fn settle(&mut self) {
        self.finish_install();
        self.cluster.advance_ms(0);
    }

    fn record(&mut self, action: Action) {
        self.record_at(self.elapsed_ms(), action);
    }

    /// Records a step that began at `at_ms` (an action that lets time pass while it runs, as a stop does
    /// while the kubelet ends a static pod's container, is replayed from the moment it began).
    fn record_at(&mut self, at_ms: u64, action: Action) {
        self.scenario.steps.push(Step { at_ms: Some(at_ms), line: 0, action, expect: None });
    }

    /// Starts a kubectl command line (with or without the leading `kubectl`); its output comes from
    /// [`Session::poll`]. Returns its pid and the chain its requests travel on, or None for an empty line.
    pub fn kubectl(&mut self, line: &str) -> Option<(u64, u64)> {
        let command = command_of(line)?;
        self.settle();
        self.record(Action::Kubectl { command: command.clone() });
        Some(self.spawn(&command, None))
    }

    /// `kubectl apply -f -` with `manifest` on its standard input. A manifest kubectl would refuse before
    /// sending anything (a YAML syntax error, a document without kind) is refused here with kubectl's message
    /// and its line and column, and nothing runs or is recorded; otherwise returns the pid.
    pub fn apply(&mut self, manifest: &str) -> Result<u64, ManifestProblem> {
        check_manifest(manifest)?;
        self.settle();
        self.record(Action::Apply { manifest: manifest.to_string() });
        Ok(self.spawn("apply -f -", Some(manifest.to_string())).0)
    }

    /// Starts a kubectl process; returns its pid and the chain its requests travel on.
    fn spawn(&mut self, command: &str, stdin: Option<String>) -> (u64, u64) {
        let (pid, chain) = self.cluster.start_kubectl(command, stdin);
        self.processes.push(pid);
        (pid, chain)
    }

    /// Checks a component name against the scenario's cluster, so that every recorded step reads back.
    fn component(&self, name: &str) -> Result<(), String> {
        Component::parse(name, &self.scenario.cluster).map(|_| ())
    }

    /// Stops a component (see [`Component`] for the names; a node's name powers the machine off).
    pub fn stop(&mut self, name: &str) -> Result<(), String> {
        self.component(name)?;
        self.settle();
        let at_ms = self.elapsed_ms();
        self.cluster.stop(name)?;
        self.record_at(at_ms, Action::Stop(name.into()));
        Ok(())
    }

    /// Starts a stopped or crashed component.
    pub fn start(&mut self, name: &str) -> Result<(), String> {
        self.component(name)?;
        self.settle();
        let at_ms = self.elapsed_ms();
        self.cluster.start(name)?;
        self.record_at(at_ms, Action::Start(name.into()));
        Ok(())
    }

    /// Kills a component: the kubelet restarts a control-plane static pod, systemd a node service.
    pub fn crash(&mut self, name: &str) -> Result<(), String> {
        self.component(name)?;
        self.settle();
        let at_ms = self.elapsed_ms();
        self.cluster.crash(name)?;
        self.record_at(at_ms, Action::Crash(name.into()));
        Ok(())
    }

    /// Stops a running component or starts a stopped one (recorded as the stop or start it was); Ok(true)
    /// when it runs afterwards.
    pub fn toggle(&mut self, name: &str) -> Result<bool, String> {
        self.component(name)?;
        self.settle();
        let at_ms = self.elapsed_ms();
        let running = self.cluster.toggle(name)?;
        self.record_at(at_ms, if running { Action::Start(name.into()) } else { Action::Stop(name.into()) });
        Ok(running)
    }

    /// A root shell line on `node`: it runs to its end (the clock moves with the programs that take time).
    pub fn shell(&mut self, node: &str, line: &str) -> Result<String, String> {
        if self.scenario.cluster.node(node).is_none() {
            return Err(format!("there is no node {node:?} in this cluster"));
        }
        let line = line.trim();
        if line.is_empty() {
            return Ok(String::new());
        }
        self.settle();
        self.record(Action::Shell { node: node.into(), command: line.into() });
        Ok(self.cluster.shell(node, line, COMMAND_LIMIT_MS).output)
    }

    /// Ctrl+C in the terminal: ends every kubectl process still running (a `-w` watch), recorded as a
    /// `press: Ctrl+C` step so that a replay stops them at the same moment. Returns what they printed before
    /// it (nothing is recorded, and None returned, when none runs).
    pub fn interrupt(&mut self) -> Option<Vec<ProcessOutput>> {
        if !self.busy() {
            return None;
        }
        self.settle();
        self.record(Action::Interrupt);
        Some(self.end_processes())
    }

    /// Collects what the running processes printed, then ends them.
    fn end_processes(&mut self) -> Vec<ProcessOutput> {
        let out = self.poll();
        for pid in std::mem::take(&mut self.processes) {
            self.cluster.interrupt(pid);
        }
        out
    }

    /// Output of the session's kubectl processes since the last call; exited ones are forgotten.
    pub fn poll(&mut self) -> Vec<ProcessOutput> {
        let mut out = Vec::new();
        let mut running = Vec::new();
        for pid in std::mem::take(&mut self.processes) {
            let text = self.cluster.take_output(pid);
            let exit = self.cluster.process_status(pid).map_or(Some(1), |s| s.exit);
            let edit = exit.and(self.cluster.edit_request(pid));
            if exit.is_some() {
                // Ending a process that exited changes nothing else.
                self.cluster.interrupt(pid);
            } else {
                running.push(pid);
            }
            if !text.is_empty() || exit.is_some() {
                out.push(ProcessOutput { pid, text, exit, edit });
            }
        }
        self.processes = running;
        out
    }

    /// Whether a kubectl process of the session still runs.
    pub fn busy(&self) -> bool {
        !self.processes.is_empty()
    }

    /// The kubectl processes still running.
    pub fn running(&self) -> &[u64] {
        &self.processes
    }

    /// Moves what processes printed into `lines`.
    fn collect(&mut self, lines: &mut Vec<Line>) {
        for p in self.poll() {
            lines.extend(p.text.lines().map(|l| Line::Output(l.to_string())));
        }
    }

    /// Plays one step of a scenario being replayed, keeping it as it was written.
    fn play(&mut self, step: &Step, lines: &mut Vec<Line>) {
        self.scenario.steps.push(step.clone());
        let timed = step.at_ms.is_some();
        let component = |verb: &str, name: &str, result: Result<(), String>, lines: &mut Vec<Line>| {
            lines.push(Line::Info(format!("# {verb} {name}")));
            if let Err(e) = result {
                lines.push(Line::Output(e));
            }
        };
        match &step.action {
            Action::Kubectl { command } => {
                lines.push(Line::Input(format!("$ kubectl {command}")));
                self.run_kubectl(command, None, timed, lines);
            }
            Action::Apply { manifest } => {
                lines.push(Line::Input("$ kubectl apply -f -".into()));
                self.run_kubectl("apply -f -", Some(manifest.clone()), timed, lines);
            }
            Action::Stop(name) => component("stop", name, self.cluster.stop(name), lines),
            Action::Start(name) => component("start", name, self.cluster.start(name), lines),
            Action::Crash(name) => component("crash", name, self.cluster.crash(name), lines),
            Action::Wait { ms } => {
                lines.push(Line::Info(format!("# wait {}", crate::sim::time::go_duration(*ms))));
                self.cluster.advance_ms(*ms);
            }
            Action::WaitFor { command, contains, timeout_ms } => {
                let (title, output, _) = runner::wait_for(&mut self.cluster, command, contains, *timeout_ms);
                lines.push(Line::Input(title));
                lines.extend(output.lines().map(|l| Line::Output(l.to_string())));
            }
            Action::Shell { node, command } => {
                lines.push(Line::Input(format!("{node}$ {command}")));
                let output = self.cluster.shell(node, command, COMMAND_LIMIT_MS).output;
                lines.extend(output.lines().map(|l| Line::Output(l.to_string())));
            }
            Action::As { user } => {
                lines.push(Line::Info(format!("# as {user}")));
                if let Err(e) = self.cluster.set_user(user) {
                    lines.push(Line::Output(e));
                }
            }
            Action::Interrupt => {
                for p in self.end_processes() {
                    lines.extend(p.text.lines().map(|l| Line::Output(l.to_string())));
                }
                lines.push(Line::Info("^C".into()));
            }
        }
    }

    /// A timed step starts its command and lets time go on, as the page did; an untimed one runs it to its
    /// end, as the runner does.
    fn run_kubectl(&mut self, command: &str, stdin: Option<String>, timed: bool, lines: &mut Vec<Line>) {
        if timed {
            self.spawn(command, stdin);
            self.collect(lines);
        } else {
            let (output, _, _) = runner::kubectl(&mut self.cluster, command, stdin);
            lines.extend(output.lines().map(|l| Line::Output(l.to_string())));
        }
    }
}

/// The scenario a share link holds, checked to be one the page can replay; the error says what is wrong
/// (for a scenario that does not read, with its line and column).
pub fn open_link(link: &str) -> Result<Scenario, String> {
    let text = super::url::decode(link).map_err(|e| format!("This share link cannot be opened: {e}."))?;
    open_file(&text, "the link's scenario")
        .map_err(|e| format!("This share link holds a scenario that cannot be played: {e}"))
}

/// A scenario file's text, checked to be one the page can replay; `file_name` names it in errors.
pub fn open_file(text: &str, file_name: &str) -> Result<Scenario, String> {
    let scenario = super::parse(text, file_name).map_err(|e| e.to_string())?;
    if scenario.cluster.nodes.len() > PAGE_MAX_NODES {
        return Err(format!(
            "{file_name}: the cluster has {} worker nodes; the page builds at most {PAGE_MAX_NODES}",
            scenario.cluster.nodes.len()
        ));
    }
    let replay_ms = replay_bound_ms(&scenario);
    if replay_ms > PAGE_MAX_REPLAY_MS {
        return Err(format!(
            "{file_name}: replaying it could take {} of simulated time; the page replays at most {}",
            crate::sim::time::go_duration(replay_ms),
            crate::sim::time::go_duration(PAGE_MAX_REPLAY_MS)
        ));
    }
    Ok(scenario)
}

/// The most simulated time a replay of `s` can take.
fn replay_bound_ms(s: &Scenario) -> u64 {
    let mut total: u64 = 0;
    for step in &s.steps {
        if let Some(at) = step.at_ms {
            total = total.max(at);
        }
        let cost = match &step.action {
            Action::Wait { ms } => *ms,
            Action::WaitFor { timeout_ms, .. } => timeout_ms.saturating_add(COMMAND_LIMIT_MS),
            Action::Kubectl { .. } | Action::Apply { .. } | Action::Shell { .. } if step.at_ms.is_none() => {
                COMMAND_LIMIT_MS
            }
            Action::Shell { .. } => COMMAND_LIMIT_MS,
            _ => 0,
        };
        total = total.saturating_add(cost);
    }
    total
}

/// Where in `manifest` the field a kubectl error names is (1-based line and column): strict decoding's
/// `unknown field "spec.x"` or validation's `is invalid: spec.containers[0].image: …`, placed at the field or,
/// when the manifest leaves it out, at the nearest field around it. Only for a manifest of one document.
pub fn locate_error(manifest: &str, output: &str) -> Option<(usize, usize)> {
    let path = if let Some((_, rest)) = output.split_once("unknown field \"") {
        rest.split('"').next()?
    } else {
        let (_, rest) = output.split_once(" is invalid: ")?;
        rest.split(": ").next()?
    };
    if path.is_empty() || path.contains(char::is_whitespace) {
        return None;
    }
    let locations = Locations::scan(manifest);
    if locations.second_document().is_some() {
        return None;
    }
    let mut p = path;
    while !p.is_empty() {
        if locations.has(p) {
            let pos = locations.key(p);
            return Some((pos.line, pos.column));
        }
        p = parent_path(p);
    }
    None
}

/// The kubectl command of a terminal line, without the leading `kubectl`; None when nothing is left.
fn command_of(line: &str) -> Option<String> {
    let line = line.trim();
    let command = match line.split_once(char::is_whitespace) {
        Some(("kubectl", rest)) => rest.trim(),
        _ if line == "kubectl" => "",
        _ => line,
    };
    (!command.is_empty()).then(|| command.to_string())
}

/// What kubectl would say about `manifest` before sending anything: an empty text, a YAML syntax error, a
/// document that is not a mapping or has no kind or apiVersion.
pub fn check_manifest(manifest: &str) -> Result<(), ManifestProblem> {
    let docs = parse_documents(manifest, "STDIN")?;
    if docs.is_empty() {
        return Err(ManifestProblem { message: "error: no objects passed to apply".into(), line: None, column: None });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, to_yaml};

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n";

    /// Runs the clock as a page does: instant by instant, in uneven pieces, polling output now and then.
    fn run_for(session: &mut Session, ms: u64, lines: &mut Vec<String>) {
        let until = session.cluster().now().ms() + ms;
        let mut n = 0;
        while session.cluster().next_event_ms().is_some_and(|t| t <= until) {
            session.cluster_mut().run_next_instant();
            n += 1;
            if n % 7 == 0 {
                for p in session.poll() {
                    lines.push(p.text);
                }
            }
        }
        let now = session.cluster().now().ms();
        session.cluster_mut().advance_ms(until - now);
    }

    fn fingerprint(c: &Cluster) -> (crate::view::View, u64, Option<u64>, u64) {
        let revision = c.etcd_member(0).map(|m| m.store().revision());
        (c.view(), c.kernel().trace.hash(), revision, c.now().ms())
    }

    #[test]
    fn a_session_installed_in_pieces_is_the_session_built_at_once() {
        let mut whole = Session::new_default();
        let mut pieces = Session::installing(ClusterSpec::default(), DEFAULT_SEED);
        assert!(!pieces.installed());
        assert_eq!(pieces.cluster().now().ms(), 0, "the cluster shows before the install has run");
        assert_eq!(pieces.elapsed_ms(), 0);
        let mut budget = 0;
        let mut pieces_run = 0;
        while !pieces.continue_install(|| {
            budget += 1;
            budget % 13 != 0
        }) {
            pieces_run += 1;
        }
        assert!(pieces_run > 10, "{pieces_run} pieces");
        assert!(pieces.installed());
        assert_eq!(fingerprint(pieces.cluster()), fingerprint(whole.cluster()));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for session in [&mut whole, &mut pieces] {
            run_for(session, 1_500, &mut a);
            session.kubectl("kubectl create deployment web --image=nginx --replicas=2").unwrap();
            run_for(session, 4_000, &mut b);
        }
        assert_eq!(fingerprint(pieces.cluster()), fingerprint(whole.cluster()));
        assert_eq!(to_yaml(&pieces.shared_scenario()), to_yaml(&whole.shared_scenario()));
    }

    #[test]
    fn acting_or_letting_time_pass_during_the_install_finishes_it_first() {
        let mut whole = Session::new_default();
        whole.kubectl("kubectl get pods -A").unwrap();
        let mut early = Session::installing(ClusterSpec::default(), DEFAULT_SEED);
        let mut events = 0;
        assert!(!early.continue_install(|| {
            events += 1;
            events < 40
        }));
        // A share link made now replays to the installed cluster, as the page would show it a moment later.
        let (replayed, _) = Session::replay(&early.shared_scenario());
        assert_eq!(fingerprint(replayed.cluster()), fingerprint(Session::new_default().cluster()));
        early.kubectl("kubectl get pods -A").unwrap();
        assert!(early.installed());
        assert_eq!(early.scenario().steps[0].at_ms, Some(0));
        assert_eq!(fingerprint(early.cluster()), fingerprint(whole.cluster()));

        let mut clock = Session::installing(ClusterSpec::default(), DEFAULT_SEED);
        clock.cluster_mut().advance_ms(250);
        assert!(clock.installed());
        let mut reference = Session::new_default();
        reference.cluster_mut().advance_ms(250);
        assert_eq!(fingerprint(clock.cluster()), fingerprint(reference.cluster()));
        assert_eq!(clock.elapsed_ms(), 250);
    }

    #[test]
    fn a_recorded_session_written_read_and_replayed_reaches_the_same_state() {
        let mut live = Session::new_default();
        let mut printed = Vec::new();
        run_for(&mut live, 1_500, &mut printed);
        live.apply(DEPLOYMENT).unwrap();
        run_for(&mut live, 300, &mut printed);
        // A second command while the first may still run, and a watch that streams.
        live.kubectl("kubectl get pods -w").unwrap();
        run_for(&mut live, 2_000, &mut printed);
        live.toggle("kube-scheduler").unwrap();
        live.kubectl("run lonely --image=nginx").unwrap();
        run_for(&mut live, 4_000, &mut printed);
        live.crash("kube-controller-manager").unwrap();
        live.kubectl("cordon node01").unwrap();
        run_for(&mut live, 1_000, &mut printed);
        live.toggle("kube-scheduler").unwrap();
        live.stop("node02").unwrap();
        run_for(&mut live, 12_345, &mut printed);
        let out = live.shell("controlplane", "crictl ps | grep kube-controller").unwrap();
        assert!(out.contains("kube-controller-manager"), "{out}");
        run_for(&mut live, 2_000, &mut printed);
        assert!(printed.concat().contains("deployment.apps/web created"), "{printed:?}");

        let yaml = to_yaml(live.scenario());
        let read = parse(&yaml, "session.yaml").unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(&read, live.scenario());
        assert_eq!(read.steps.len(), 9, "{yaml}");
        assert!(yaml.contains("  - kubectl: get pods -w\n    at: 1.8"), "{yaml}");
        let (mut replayed, lines) = Session::replay(&read);
        assert!(lines.contains(&Line::Input("$ kubectl apply -f -".into())), "{lines:?}");
        let behind = live.cluster().now().ms() - replayed.cluster().now().ms();
        replayed.cluster_mut().advance_ms(behind);
        assert_eq!(fingerprint(replayed.cluster()), fingerprint(live.cluster()));
        // Shared now, it replays to this very moment without help.
        let shared = parse(&to_yaml(&live.shared_scenario()), "shared.yaml").unwrap();
        assert_eq!(
            shared.steps.last().map(|s| (s.at_ms, &s.action)),
            Some((Some(live.elapsed_ms()), &Action::Wait { ms: 0 }))
        );
        assert_eq!(fingerprint(Session::replay(&shared).0.cluster()), fingerprint(live.cluster()));
        // It goes on recording after what it replayed, and the result reads back too.
        replayed.kubectl("get nodes").unwrap();
        assert_eq!(replayed.scenario().steps.len(), 10);
        assert!(parse(&to_yaml(replayed.scenario()), "again.yaml").is_ok());
        // The two go on identically.
        live.kubectl("get nodes").unwrap();
        live.cluster_mut().advance_ms(5_000);
        replayed.cluster_mut().advance_ms(5_000);
        assert_eq!(fingerprint(replayed.cluster()), fingerprint(live.cluster()));
    }

    #[test]
    fn a_session_that_did_something_else_differs() {
        let mut a = Session::new_default();
        let mut b = Session::new_default();
        a.cluster_mut().advance_ms(1_000);
        b.cluster_mut().advance_ms(1_000);
        a.kubectl("run one --image=nginx").unwrap();
        b.kubectl("run two --image=nginx").unwrap();
        a.cluster_mut().advance_ms(5_000);
        b.cluster_mut().advance_ms(5_000);
        assert_ne!(fingerprint(a.cluster()).1, fingerprint(b.cluster()).1);
    }

    #[test]
    fn ctrl_c_stops_a_watch_and_a_replay_stops_it_at_the_same_moment() {
        let mut live = Session::new_default();
        let mut printed = Vec::new();
        run_for(&mut live, 1_000, &mut printed);
        assert!(live.interrupt().is_none(), "nothing runs: nothing to record");
        live.kubectl("get pods -w").unwrap();
        run_for(&mut live, 1_500, &mut printed);
        live.kubectl("run before --image=nginx").unwrap();
        run_for(&mut live, 3_000, &mut printed);
        assert!(printed.concat().contains("before"), "the watch streams: {printed:?}");
        let ended = live.interrupt().expect("a watch was running");
        assert!(ended.iter().all(|p| p.exit.is_none()), "{ended:?}");
        assert!(!live.busy());
        printed.clear();
        live.kubectl("run after --image=nginx").unwrap();
        run_for(&mut live, 3_000, &mut printed);
        let after = printed.concat();
        assert!(after.contains("pod/after created"), "{after}");
        assert!(!after.contains("after   "), "the stopped watch prints no more rows: {after}");

        let yaml = to_yaml(&live.shared_scenario());
        assert!(yaml.contains("  - press: Ctrl+C\n    at: 5.5s\n"), "{yaml}");
        let read = parse(&yaml, "shared.yaml").unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(read.steps.iter().filter(|s| s.action == Action::Interrupt).count(), 1);
        let (replayed, lines) = Session::replay(&read);
        assert!(!replayed.busy(), "the replayed watch was stopped");
        let caret = lines.iter().position(|l| *l == Line::Info("^C".into())).expect("^C in the replay");
        let after_at = lines.iter().position(|l| *l == Line::Input("$ kubectl run after --image=nginx".into()));
        assert!(after_at.is_some_and(|a| a > caret), "{lines:?}");
        assert!(!lines[caret..].iter().any(|l| matches!(l, Line::Output(o) if o.starts_with("after "))), "{lines:?}");
        assert_eq!(fingerprint(replayed.cluster()), fingerprint(live.cluster()));
    }

    #[test]
    fn a_press_step_reads_back_and_only_ctrl_c_is_a_key() {
        let head = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  steps:\n";
        let s =
            parse(&format!("{head}  - kubectl: get pods -w\n    at: 1s\n  - press: Ctrl+C\n    at: 3s\n"), "t.yaml");
        let s = s.unwrap();
        assert_eq!(s.steps[1].action, Action::Interrupt);
        assert_eq!(parse(&to_yaml(&s), "again.yaml").unwrap(), s);
        let report = runner::run(&s);
        assert_eq!(report.steps[1].title, "^C");
        let e = parse(&format!("{head}  - press: Ctrl+Z\n"), "t.yaml").unwrap_err().to_string();
        assert!(e.contains("t.yaml:6:12") && e.contains("press: Ctrl+C is the only key"), "{e}");
    }

    #[test]
    fn untimed_steps_play_as_the_runner_plays_them() {
        let text = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  seed: 3\n  steps:\n  - stop: kube-scheduler\n  - kubectl: run a --image=nginx\n  - wait: 5s\n  - kubectl: get pods\n";
        let scenario = parse(text, "t.yaml").unwrap();
        let report = runner::run(&scenario);
        let (session, lines) = Session::replay(&scenario);
        assert_eq!(session.cluster().kernel().trace.hash(), report.trace_hash);
        assert_eq!(session.cluster().now().ms(), report.end_ms);
        assert!(lines.iter().any(|l| matches!(l, Line::Output(o) if o.starts_with("a ") && o.contains("Pending"))));
        assert_eq!(session.scenario().name, "t");
    }

    #[test]
    fn actions_the_format_cannot_carry_are_refused_and_not_recorded() {
        let mut s = Session::new_default();
        assert!(s.stop("node07").unwrap_err().starts_with("unknown component \"node07\""));
        assert_eq!(s.toggle("coredns"), Ok(false));
        assert_eq!(s.scenario.steps.pop().map(|st| st.action), Some(Action::Stop("coredns".into())));
        s.scenario.steps.clear();
        assert!(s.toggle("kubectl").is_err());
        assert!(s.shell("node09", "ls").is_err());
        assert_eq!(s.kubectl("  kubectl  "), None);
        assert_eq!(s.kubectl(""), None);
        assert!(s.scenario().steps.is_empty());
        assert_eq!(s.shell("node01", "systemctl is-active kubelet").unwrap(), "active\n");
        assert_eq!(s.scenario().steps.len(), 1);
    }

    #[test]
    fn a_link_opens_to_its_scenario_and_a_hostile_one_says_why_not() {
        let mut live = Session::new_default();
        live.cluster_mut().advance_ms(2_000);
        live.kubectl("create deployment web --image=nginx").unwrap();
        let link = format!("http://127.0.0.1:8080/#{}", crate::scenario::encode(&to_yaml(live.scenario())));
        assert_eq!(&open_link(&link).unwrap(), live.scenario());
        let garbage = open_link("#s=%%%not-lz").unwrap_err();
        assert!(garbage.starts_with("This share link cannot be opened: the link has a bad %-escape"), "{garbage}");
        let long = open_link(&format!("#s={}", "A".repeat(300_000))).unwrap_err();
        assert!(long.contains("a share link is at most 262144"), "{long}");
        let not_yaml = format!("#{}", crate::scenario::encode("apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  steps:\n  - wait: 3d\n"));
        let err = open_link(&not_yaml).unwrap_err();
        assert_eq!(
            err,
            "This share link holds a scenario that cannot be played: the link's scenario:6:11: spec.steps[0].wait: time: unknown unit \"d\" in duration \"3d\""
        );
        let endless = "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  steps:\n  - wait: 1000h\n";
        assert!(open_file(endless, "f.yaml").unwrap_err().contains("could take 1000h0m0s of simulated time"));
    }

    #[test]
    fn a_manifest_kubectl_refuses_is_reported_with_its_line_and_column_and_not_recorded() {
        let mut s = Session::new_default();
        let bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   labels: {a: b}\n";
        let problem = s.apply(bad).unwrap_err();
        assert!(
            problem.message.starts_with("error: error parsing STDIN: error converting YAML to JSON: yaml: line 5: "),
            "{problem:?}"
        );
        assert_eq!((problem.line, problem.column.is_some()), (Some(5), true));
        let no_kind = s.apply("apiVersion: v1\nmetadata: {name: x}\n").unwrap_err();
        assert!(no_kind.message.contains("kind not set"), "{no_kind:?}");
        assert_eq!(s.apply("# nothing\n").unwrap_err().message, "error: no objects passed to apply");
        assert!(s.scenario().steps.is_empty());
    }

    #[test]
    fn a_rejected_field_comes_back_as_kubectl_prints_it() {
        let mut s = Session::new_default();
        let pid = s.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containerz: []\n").unwrap();
        s.cluster_mut().advance_ms(2_000);
        let out = s.poll();
        let mine = out.iter().find(|p| p.pid == pid).expect("the apply printed");
        assert_eq!(mine.exit, Some(1));
        assert!(mine.text.contains("strict decoding error: unknown field \"spec.containerz\""), "{}", mine.text);
        assert!(!s.busy());
        let manifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containerz: []\n";
        assert_eq!(locate_error(manifest, &mine.text), Some((5, 3)));
    }

    /// `kubectl edit` hands the object's text to the page (which opens it in the manifest editor); applying
    /// the edited text changes the object. Any other command hands nothing.
    #[test]
    fn kubectl_edit_hands_the_object_to_the_page_and_the_edited_text_applies() {
        let mut s = Session::new_default();
        s.cluster_mut().advance_ms(20_000);
        let (created, _) = s.kubectl("create deployment web --image=nginx --replicas=1").unwrap();
        s.cluster_mut().advance_ms(2_000);
        let out = s.poll();
        assert_eq!(out.iter().find(|p| p.pid == created).map(|p| p.edit.is_none()), Some(true));
        let (pid, _) = s.kubectl("edit deployment web").unwrap();
        s.cluster_mut().advance_ms(2_000);
        let out = s.poll();
        let edit = out.iter().find(|p| p.pid == pid).and_then(|p| p.edit.clone()).expect("an edit request");
        assert_eq!(edit.objects, vec!["deployment.apps/web".to_string()]);
        assert!(edit.text.contains("replicas: 1"), "{}", edit.text);
        let applied = s.apply(&edit.text.replace("replicas: 1", "replicas: 2")).unwrap();
        s.cluster_mut().advance_ms(2_000);
        let out = s.poll();
        let text = out.iter().find(|p| p.pid == applied).map(|p| p.text.clone()).unwrap_or_default();
        assert_eq!(text, "deployment.apps/web configured\n");
    }

    #[test]
    fn a_validation_error_is_placed_at_its_field_or_the_nearest_one() {
        let manifest =
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: c\n    image: \"\"\n";
        let mut s = Session::new_default();
        let pid = s.apply(manifest).unwrap();
        s.cluster_mut().advance_ms(2_000);
        let text = s.poll().into_iter().find(|p| p.pid == pid).unwrap().text;
        assert!(text.contains("is invalid: spec.containers[0].image: Required value"), "{text}");
        assert_eq!(locate_error(manifest, &text), Some((8, 5)));
        let missing = "The Pod \"x\" is invalid: spec.containers[0].ports[0].containerPort: Required value";
        assert_eq!(locate_error(manifest, missing), Some((7, 3)));
        assert_eq!(locate_error(manifest, "pod/x created"), None);
        assert_eq!(locate_error(&format!("{manifest}---\n{manifest}"), &text), None);
    }
}
