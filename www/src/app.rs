//! The app's root: one simulated cluster, the clock loop that drives it, and the page layout.
//!
//! The engine is plain Rust and holds no reactive state: the app advances it, toggles its components, runs
//! kubectl in it, and publishes a fresh [`View`] into a signal after each change. Everything on the page
//! renders from that signal and from the shown time, which moves every animation frame (see
//! [`crate::clock`] for how wall time maps to simulated time).

use kubeglass::cluster::{ClusterConfig, Skip};
use kubeglass::view::View;
use kubeglass::Cluster;
use leptos::prelude::*;

use crate::clock::{advance, rate, Advance, Header, DEFAULT_SPEED, FRAME_MS_MAX};
use crate::diagram::Diagram;
use crate::nodes::NodeList;
use crate::side::{Legend, SidePanel};

/// The seed of the cluster the page shows.
pub const SEED: u64 = 1;
/// Wall-clock milliseconds of simulation work per animation frame: a frame stays short at any speed and in any
/// cluster (the clock then runs slower than asked), and a long skip runs in pieces while the page stays live.
const FRAME_WORK_MS: f64 = 12.0;
/// While skipping (nothing to animate) a frame works longer, and the view is published at most this often.
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
    cluster: StoredValue<Cluster, LocalStorage>,
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
    /// When the view was last published (wall ms).
    published_at: StoredValue<f64>,
    /// Whether the cluster changed since the view was last published.
    stale: StoredValue<bool>,
    /// kubectl processes still running, by pid.
    processes: StoredValue<Vec<u64>, LocalStorage>,
    pub terminal: RwSignal<Vec<TermLine>>,
    next_line: StoredValue<u64>,
}

impl Sim {
    fn new(seed: u64, config: ClusterConfig) -> Sim {
        let cluster = Cluster::new(config, seed);
        let view = RwSignal::new(cluster.view());
        let time = RwSignal::new(cluster.now().ms() as f64);
        Sim {
            cluster: StoredValue::new_local(cluster),
            view,
            time,
            playing: RwSignal::new(true),
            speed: RwSignal::new(DEFAULT_SPEED),
            skip: StoredValue::new(None),
            skipping: RwSignal::new(false),
            published_at: StoredValue::new(0.0),
            stale: StoredValue::new(false),
            processes: StoredValue::new_local(Vec::new()),
            terminal: RwSignal::new(
                WELCOME
                    .iter()
                    .zip(1..)
                    .map(|(text, id)| TermLine { id, kind: "info", text: text.to_string() })
                    .collect(),
            ),
            next_line: StoredValue::new(WELCOME.len() as u64),
        }
    }

    /// The latest view of the cluster.
    pub fn view(&self) -> ReadSignal<View> {
        self.view.read_only()
    }

    fn publish(&self) {
        if let Some(view) = self.cluster.try_with_value(Cluster::view) {
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
        if let Some(mut skip) = skip {
            let more = move || wall_now() - started < SKIP_FRAME_WORK_MS;
            let done = self.cluster.try_update_value(|c| c.continue_skip(&mut skip, more)).unwrap_or(true);
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
        self.cluster.update_value(|cluster| {
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

    /// Shows the kernel's time (never going back from a fraction already shown).
    fn show_kernel_time(&self) {
        if let Some(now) = self.cluster.try_with_value(|c| c.now().ms() as f64) {
            self.time.update(|t| *t = t.max(now));
        }
    }

    /// Pauses and runs to the next instant a message is delivered or sent.
    pub fn step(&self) {
        self.playing.set(false);
        self.cluster.update_value(|cluster| {
            cluster.step_message(STEP_LIMIT_MS);
        });
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
        let Some(skip) = self.cluster.try_with_value(|c| c.start_skip(QUIET_MS, SKIP_LIMIT_MS)) else { return };
        self.skip.set_value(Some(skip));
        self.skipping.set(true);
    }

    /// Stops a running component or starts a stopped one.
    pub fn toggle(&self, name: &str) {
        match self.cluster.try_update_value(|cluster| cluster.toggle(name)) {
            Some(Ok(_)) => self.publish(),
            Some(Err(error)) => leptos::logging::warn!("toggle {name}: {error}"),
            None => {}
        }
    }

    fn print(&self, kind: &'static str, text: String) {
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
        let Some((pid, _chain)) = self.cluster.try_update_value(|cluster| cluster.start_kubectl(line, None)) else {
            return;
        };
        self.processes.update_value(|p| p.push(pid));
        self.publish();
    }

    /// Ends every running command, as Ctrl-C does.
    pub fn interrupt(&self) {
        let pids = self.processes.try_get_value().unwrap_or_default();
        if pids.is_empty() {
            return;
        }
        self.poll_processes();
        self.cluster.update_value(|cluster| pids.iter().for_each(|pid| cluster.interrupt(*pid)));
        self.processes.set_value(Vec::new());
        self.print("info", "^C".into());
    }

    /// Whether a command is still running.
    pub fn busy_terminal(&self) -> bool {
        self.processes.try_with_value(|p| !p.is_empty()).unwrap_or(false)
    }

    /// Moves what running commands printed into the terminal and forgets the ones that exited.
    fn poll_processes(&self) {
        let pids = self.processes.try_get_value().unwrap_or_default();
        if pids.is_empty() {
            return;
        }
        let mut output = String::new();
        let mut running = Vec::new();
        self.cluster.update_value(|cluster| {
            for pid in pids {
                output.push_str(&cluster.take_output(pid));
                if cluster.process_status(pid).is_some_and(|s| s.exit.is_none()) {
                    running.push(pid);
                } else {
                    // Exited: forget it (ending an exited process changes nothing else).
                    cluster.interrupt(pid);
                }
            }
        });
        self.processes.set_value(running);
        for line in output.lines() {
            self.print("output", line.to_string());
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
    let (config, notes) = crate::shape::config_from_query(&query);
    let sim = Sim::new(SEED, config);
    for note in notes {
        sim.print("info", note);
    }
    provide_context(sim);
    schedule_frame(sim, wall_now());

    view! {
        <div class="shell">
            <Header/>
            <main class="content">
                <section class="panel diagram-panel" aria-label="Architecture diagram">
                    <Diagram/>
                    <Legend/>
                </section>
                <SidePanel/>
                <NodeList/>
            </main>
            <footer class="footer">
                "Seed " {SEED} " · every component and message is simulated in your browser; nothing is sent anywhere."
            </footer>
        </div>
    }
}
