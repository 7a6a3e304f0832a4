//! The app's root: one simulated cluster, the clock loop that drives it, and the page layout.
//!
//! The engine is plain Rust and holds no reactive state: the app advances it, toggles its components, runs
//! kubectl in it, and publishes a fresh [`View`] into a signal after each change. Everything on the page
//! renders from that signal and from the shown time, which moves every animation frame (see
//! [`crate::clock`] for how wall time maps to simulated time).

use kubeglass::cluster::Skip;
use kubeglass::scenario::session::{Line, Session};
use kubeglass::scenario::Scenario;
use kubeglass::view::View;
use kubeglass::Cluster;
use leptos::prelude::*;

use crate::clock::{advance, rate, Advance, Header, DEFAULT_SPEED, FRAME_MS_MAX};
use crate::diagram::Diagram;
use crate::side::{Legend, SidePanel};

/// The seed of the cluster the page shows.
pub const SEED: u64 = 1;
/// Wall-clock milliseconds of simulation work per animation frame: a frame stays short at any speed and in any
/// cluster (the clock then runs slower than asked), and a long skip runs in pieces while the page stays live.
const FRAME_WORK_MS: f64 = 12.0;
/// While skipping or installing (nothing to animate) a frame works longer, and the view is published at most this
/// often.
const SKIP_FRAME_WORK_MS: f64 = 40.0;
const SKIP_PUBLISH_MS: f64 = 400.0;
/// Above this speed a message is on screen for a frame or two at most, so the view (which a big cluster makes
/// costly to rebuild and render) is published at most every [`FAST_PUBLISH_MS`].
const FAST_SPEED: f64 = 10.0;
const FAST_PUBLISH_MS: f64 = 100.0;
/// How far "Step" looks for the next message before giving up.
const STEP_LIMIT_MS: u64 = 600_000;
/// "Skip until quiet": this long without a message that a request caused …
pub const QUIET_MS: u64 = 5_000;
/// … and never more than this far ahead.
pub const SKIP_LIMIT_MS: u64 = 600_000;
/// The terminal keeps this many lines.
const TERMINAL_LINES_MAX: usize = 400;

/// What the terminal says before the first command.
const WELCOME: [&str; 4] = [
    "Type a kubectl command, for example:",
    "  kubectl get pods -A",
    "  kubectl create deployment web --image=nginx",
    "Its requests travel on the diagram.",
];

/// One line of the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermLine {
    pub id: u64,
    /// `input`, `output` or `info`.
    pub kind: &'static str,
    pub text: String,
}

/// Handles to the simulation, shared with every component through the context.
#[derive(Clone, Copy)]
pub struct Sim {
    /// The cluster and everything done to it: every action goes through it and is recorded as a step.
    session: StoredValue<Session, LocalStorage>,
    view: RwSignal<View>,
    /// The simulated time shown, in ms: the kernel's clock is its whole part, the fraction animates messages.
    pub time: RwSignal<f64>,
    /// Whether the clock moves.
    pub playing: RwSignal<bool>,
    /// The pace while no message is on the wire, in simulated ms per wall ms.
    pub speed: RwSignal<f64>,
    /// A skip until quiet in progress (it runs a piece per frame).
    skip: StoredValue<Option<Skip>>,
    pub skipping: RwSignal<bool>,
    /// Whether the cluster's install still runs (a piece per frame, after the page has shown the cluster).
    pub installing: RwSignal<bool>,
    /// When the view was last published (wall ms).
    published_at: StoredValue<f64>,
    /// Whether the cluster changed since the view was last published.
    stale: StoredValue<bool>,
    /// The kubectl apply the manifest editor started, whose output goes beside the editor.
    editor_pid: StoredValue<Option<u64>>,
    /// The text that apply was given (to place its errors).
    editor_manifest: StoredValue<String>,
    pub editor_output: RwSignal<crate::editor::EditorOutput>,
    /// Text a `kubectl edit` asked to open: the editor takes it (and clears this).
    pub editor_load: RwSignal<Option<String>>,
    pub terminal: RwSignal<Vec<TermLine>>,
    next_line: StoredValue<u64>,
    /// The kubectl commands the person ran, oldest first (the Data flow panel's history).
    pub requests: RwSignal<Vec<crate::inspect::Request>>,
}

impl Sim {
    fn new(session: Session) -> Sim {
        let view = RwSignal::new(session.cluster().view());
        let time = RwSignal::new(session.cluster().now().ms() as f64);
        let installing = RwSignal::new(!session.installed());
        Sim {
            session: StoredValue::new_local(session),
            view,
            time,
            playing: RwSignal::new(true),
            speed: RwSignal::new(DEFAULT_SPEED),
            skip: StoredValue::new(None),
            skipping: RwSignal::new(false),
            installing,
            published_at: StoredValue::new(0.0),
            stale: StoredValue::new(false),
            editor_pid: StoredValue::new(None),
            editor_manifest: StoredValue::new(String::new()),
            editor_output: RwSignal::new(Default::default()),
            editor_load: RwSignal::new(None),
            terminal: RwSignal::new(
                WELCOME
                    .iter()
                    .zip(1..)
                    .map(|(text, id)| TermLine { id, kind: "info", text: text.to_string() })
                    .collect(),
            ),
            next_line: StoredValue::new(WELCOME.len() as u64),
            requests: RwSignal::new(Vec::new()),
        }
    }

    /// The latest view of the cluster.
    pub fn view(&self) -> ReadSignal<View> {
        self.view.read_only()
    }

    /// Reads the cluster (the view, the inspectors: read-only).
    pub fn with_cluster<T>(&self, f: impl FnOnce(&Cluster) -> T) -> Option<T> {
        self.session.try_with_value(|s| f(s.cluster()))
    }

    /// Lets the cluster's time pass (which no step records).
    fn update_cluster<T>(&self, f: impl FnOnce(&mut Cluster) -> T) -> Option<T> {
        self.session.try_update_value(|s| f(s.cluster_mut()))
    }

    /// Does something a person asked for: the session records it as a step.
    pub fn act<T>(&self, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let result = self.session.try_update_value(f);
        self.publish();
        result
    }

    /// Reads the session (its scenario so far).
    pub fn with_session<T>(&self, f: impl FnOnce(&Session) -> T) -> Option<T> {
        self.session.try_with_value(f)
    }

    /// Replaces the cluster with `scenario` played back (a gallery entry, an uploaded file); the clock goes on
    /// from where it ends.
    pub fn load(&self, scenario: &Scenario) {
        let (session, lines) = Session::replay(scenario);
        let now = session.cluster().now().ms() as f64;
        self.session.set_value(session);
        self.skip.set_value(None);
        self.skipping.set(false);
        self.installing.set(false);
        self.editor_pid.set_value(None);
        self.time.set(now);
        self.print("info", format!("# scenario {:?} replayed", scenario.name));
        self.print_lines(lines);
        self.publish();
    }

    /// Prints what a replay printed.
    pub fn print_lines(&self, lines: Vec<Line>) {
        for line in lines {
            match line {
                Line::Input(text) => self.print("input", text),
                Line::Output(text) => self.print("output", text),
                Line::Info(text) => self.print("info", text),
            }
        }
    }

    fn publish(&self) {
        // An action may have run the cluster ahead of the shown time (a stop that waits for the kubelet or for
        // pods to end): the clock shows where the cluster is, and goes on from there.
        self.show_kernel_time();
        if let Some(view) = self.with_cluster(Cluster::view) {
            self.view.set(view);
        }
        self.published_at.set_value(wall_now());
        self.stale.set_value(false);
        self.poll_processes();
    }

    /// One animation frame, `wall_ms` after the previous one. Returns false once the app is gone.
    fn frame(&self, wall_ms: f64) -> bool {
        let started = wall_now();
        let within_budget = move || wall_now() - started < FRAME_WORK_MS;
        let (Some(playing), Some(speed), Some(mut shown), Some(skip)) = (
            self.playing.try_get_untracked(),
            self.speed.try_get_untracked(),
            self.time.try_get_untracked(),
            self.skip.try_get_value(),
        ) else {
            return false;
        };
        if self.installing.get_untracked() {
            self.install_piece(started);
            return true;
        }
        if let Some(mut skip) = skip {
            let more = move || wall_now() - started < SKIP_FRAME_WORK_MS;
            let done = self.update_cluster(|c| c.continue_skip(&mut skip, more)).unwrap_or(true);
            self.skip.set_value((!done).then_some(skip));
            self.show_kernel_time();
            if done || wall_now() - self.published_at.get_value() > SKIP_PUBLISH_MS {
                self.publish();
            }
            if done {
                self.skipping.set(false);
            }
            return true;
        }
        if !playing {
            return true;
        }
        let mut changed = false;
        self.update_cluster(|cluster| {
            let mut wall = wall_ms.clamp(0.0, FRAME_MS_MAX);
            while within_budget() {
                let rate = rate(speed, cluster.messages_in_flight());
                match advance(shown, wall, rate, cluster.next_event_ms()) {
                    Advance::Reached(t) => {
                        shown = t;
                        break;
                    }
                    Advance::Event { at, wall_left } => {
                        cluster.run_next_instant();
                        shown = shown.max(at as f64);
                        wall = wall_left;
                        changed = true;
                    }
                }
            }
            // Nothing is due before the shown time's whole part: this only moves the kernel's clock.
            let whole = shown.floor() as u64;
            cluster.advance_ms(whole.saturating_sub(cluster.now().ms()));
        });
        self.time.set(shown);
        if changed {
            self.stale.set_value(true);
        }
        let due = speed <= FAST_SPEED || wall_now() - self.published_at.get_value() >= FAST_PUBLISH_MS;
        if due && self.stale.get_value() {
            self.publish();
        }
        true
    }

    /// Runs a piece of the cluster's install (started at wall time `started`); the clock starts once it is done.
    /// Whatever a person does meanwhile finishes the install first (see [`Session::installing`]).
    fn install_piece(&self, started: f64) {
        let more = move || wall_now() - started < SKIP_FRAME_WORK_MS;
        let done = self.session.try_update_value(|s| s.continue_install(more)).unwrap_or(true);
        self.show_kernel_time();
        if done {
            self.installing.set(false);
            crate::mark("kubeglass-installed");
            self.publish();
        } else if wall_now() - self.published_at.get_value() > SKIP_PUBLISH_MS {
            self.publish();
        }
    }

    /// Shows the kernel's time (never going back from a fraction already shown).
    fn show_kernel_time(&self) {
        if let Some(now) = self.with_cluster(|c| c.now().ms() as f64) {
            self.time.update(|t| *t = t.max(now));
        }
    }

    /// Pauses and runs to the next instant a message is delivered or sent.
    pub fn step(&self) {
        self.playing.set(false);
        self.update_cluster(|cluster| cluster.step_message(STEP_LIMIT_MS));
        self.show_kernel_time();
        self.publish();
    }

    /// Starts running ahead, without animation, until the work that requests caused has settled (a piece per
    /// frame); pressed again while it runs, stops it.
    pub fn skip_until_quiet(&self) {
        if self.skip.get_value().is_some() {
            self.skip.set_value(None);
            self.skipping.set(false);
            return;
        }
        // Through the mutable cluster: an install still running ends first.
        let Some(skip) = self.update_cluster(|c| c.start_skip(QUIET_MS, SKIP_LIMIT_MS)) else { return };
        self.skip.set_value(Some(skip));
        self.skipping.set(true);
    }

    /// Stops a running component or starts a stopped one.
    pub fn toggle(&self, name: &str) {
        match self.session.try_update_value(|session| session.toggle(name)) {
            Some(Ok(_)) => self.publish(),
            Some(Err(error)) => leptos::logging::warn!("toggle {name}: {error}"),
            None => {}
        }
    }

    pub fn print(&self, kind: &'static str, text: String) {
        let id = self.next_line.try_update_value(|n| {
            *n += 1;
            *n
        });
        let Some(id) = id else { return };
        self.terminal.update(|lines| {
            lines.push(TermLine { id, kind, text });
            let excess = lines.len().saturating_sub(TERMINAL_LINES_MAX);
            lines.drain(..excess);
        });
    }

    /// Runs a kubectl command line in the cluster; its output arrives as simulated time passes.
    pub fn run_command(&self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        self.print("input", format!("$ {line}"));
        if line.split_whitespace().next() != Some("kubectl") {
            self.print("info", "This prompt runs kubectl commands, for example: kubectl get pods -A".into());
            return;
        }
        if let Some(Some((_pid, chain))) = self.act(|session| session.kubectl(line)) {
            crate::inspect::record_request(self, line, chain);
        }
    }

    /// Ends every running command, as Ctrl-C does (the session records it, so a share link replays it).
    pub fn interrupt(&self) {
        if !self.busy_terminal() {
            return;
        }
        self.poll_processes();
        let Some(Some(ended)) = self.session.try_update_value(Session::interrupt) else { return };
        for out in ended {
            for line in out.text.lines() {
                self.print("output", line.to_string());
            }
        }
        if self.editor_pid.try_get_value().flatten().is_some() {
            // An apply from the editor that was still running ended too.
            self.editor_pid.set_value(None);
            self.editor_output.update(|o| o.add("^C\n", Some(130), ""));
        }
        self.print("info", "^C".into());
        self.publish();
    }

    /// Whether a command is still running.
    pub fn busy_terminal(&self) -> bool {
        let editor = self.editor_pid.try_get_value().flatten();
        self.session.try_with_value(|s| s.running().iter().any(|pid| Some(*pid) != editor)).unwrap_or(false)
    }

    /// Moves what running commands printed into the terminal and forgets the ones that exited.
    fn poll_processes(&self) {
        let Some(outputs) = self.session.try_update_value(Session::poll) else { return };
        let editor = self.editor_pid.try_get_value().flatten();
        for out in outputs {
            if Some(out.pid) == editor {
                let manifest = self.editor_manifest.get_value();
                self.editor_output.update(|o| o.add(&out.text, out.exit, &manifest));
                if out.exit.is_some() {
                    self.editor_pid.set_value(None);
                }
                continue;
            }
            if let Some(edit) = out.edit {
                // The page has an editor: the object opens there instead of kubectl's "no editor" message.
                self.print(
                    "info",
                    format!("Opened {} in the Manifest editor: change it and press Apply.", edit.objects.join(", ")),
                );
                self.editor_load.set(Some(edit.text));
                continue;
            }
            for line in out.text.lines() {
                self.print("output", line.to_string());
            }
        }
    }

    /// `kubectl apply -f -` of the editor's text; its output appears beside the editor.
    pub fn apply_manifest(&self, manifest: &str) {
        match self.act(|session| session.apply(manifest)) {
            Some(Ok(pid)) => {
                self.editor_pid.set_value(Some(pid));
                self.editor_manifest.set_value(manifest.to_string());
                self.editor_output.set(crate::editor::EditorOutput::running());
            }
            Some(Err(problem)) => self.editor_output.set(crate::editor::EditorOutput::refused(problem)),
            None => {}
        }
    }
}

/// The simulation handles provided by [`App`].
pub fn use_sim() -> Sim {
    expect_context::<Sim>()
}

/// Wall-clock milliseconds (the page's own clock, never seen by the engine).
fn wall_now() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// Drives the clock once per animation frame.
fn schedule_frame(sim: Sim, last: f64) {
    request_animation_frame(move || {
        let now = wall_now();
        if sim.frame(now - last) {
            schedule_frame(sim, now);
        }
    });
}

#[component]
pub fn App() -> impl IntoView {
    let query = window().location().search().unwrap_or_default();
    let hash = window().location().hash().unwrap_or_default();
    let start = crate::share::initial_session(&query, &hash, SEED);
    crate::mark("kubeglass-booted");
    let sim = Sim::new(start.session);
    crate::mark("kubeglass-viewed");
    for note in start.notes {
        sim.print("info", note);
    }
    sim.print_lines(start.lines);
    provide_context(sim);
    provide_context(crate::share::LinkNotice(RwSignal::new(start.problem)));
    provide_context(crate::menu::MenuState(RwSignal::new(None)));
    provide_context(crate::dock::DockPane(RwSignal::new(crate::dock::Pane::Flow)));
    crate::inspect::provide();
    // This frame's callbacks run before the page first paints the app: the clock's loop (and the install's
    // pieces) start on the next frame, once the diagram is on screen.
    request_animation_frame(move || {
        request_animation_frame(|| crate::mark("kubeglass-painted"));
        schedule_frame(sim, wall_now());
    });

    view! {
        <div class="shell">
            <Header/>
            <crate::share::LinkBanner/>
            <main class="content">
                <section class="panel diagram-panel" aria-label="Architecture diagram">
                    <Diagram/>
                    <Legend/>
                </section>
                <SidePanel/>
            </main>
            <crate::menu::ComponentMenu/>
        </div>
    }
}
