//! The app's root: one simulated cluster, the clock loop that drives it, and the page layout.
//!
//! The engine is plain Rust and holds no reactive state: the app advances it, toggles its components, and
//! publishes a fresh [`View`] into a signal after each change. Everything on the page renders from that
//! signal.

use gloo_timers::future::TimeoutFuture;
use kubeglass::view::View;
use kubeglass::Cluster;
use leptos::prelude::*;

use crate::clock::Header;
use crate::components::ComponentGrid;
use crate::nodes::NodeList;

/// The seed of the cluster the page shows.
pub const SEED: u64 = 1;
/// Wall-clock milliseconds between two steps of the simulation.
pub const TICK_MS: u32 = 100;
/// The speeds offered, as simulated milliseconds per wall-clock millisecond.
pub const SPEEDS: [u64; 5] = [1, 2, 5, 10, 50];

/// Handles to the simulation, shared with every component through the context.
#[derive(Clone, Copy)]
pub struct Sim {
    cluster: StoredValue<Cluster, LocalStorage>,
    view: RwSignal<View>,
    /// Whether the clock loop advances the cluster.
    pub playing: RwSignal<bool>,
    /// Simulated milliseconds per wall-clock millisecond.
    pub speed: RwSignal<u64>,
}

impl Sim {
    fn new(seed: u64) -> Sim {
        let cluster = Cluster::new_default(seed);
        let view = RwSignal::new(cluster.view());
        Sim { cluster: StoredValue::new_local(cluster), view, playing: RwSignal::new(true), speed: RwSignal::new(1) }
    }

    /// The latest view of the cluster.
    pub fn view(&self) -> ReadSignal<View> {
        self.view.read_only()
    }

    fn publish(&self) {
        if let Some(view) = self.cluster.try_with_value(Cluster::view) {
            self.view.set(view);
        }
    }

    /// One step of the clock loop. Returns false once the app is gone.
    fn tick(&self) -> bool {
        let (Some(playing), Some(speed)) = (self.playing.try_get_untracked(), self.speed.try_get_untracked()) else {
            return false;
        };
        if playing {
            self.cluster.update_value(|cluster| cluster.advance_ms(u64::from(TICK_MS) * speed));
            self.publish();
        }
        true
    }

    /// Stops a running component or starts a stopped one.
    pub fn toggle(&self, name: &str) {
        match self.cluster.try_update_value(|cluster| cluster.toggle(name)) {
            Some(Ok(_)) => self.publish(),
            Some(Err(error)) => leptos::logging::warn!("toggle {name}: {error}"),
            None => {}
        }
    }
}

/// The simulation handles provided by [`App`].
pub fn use_sim() -> Sim {
    expect_context::<Sim>()
}

#[component]
pub fn App() -> impl IntoView {
    let sim = Sim::new(SEED);
    provide_context(sim);
    leptos::task::spawn_local(async move {
        loop {
            TimeoutFuture::new(TICK_MS).await;
            if !sim.tick() {
                break;
            }
        }
    });

    view! {
        <div class="shell">
            <Header/>
            <main class="content">
                <ComponentGrid/>
                <NodeList/>
            </main>
            <footer class="footer">
                "Seed " {SEED} " · every component and message is simulated in your browser; nothing is sent anywhere."
            </footer>
        </div>
    }
}
