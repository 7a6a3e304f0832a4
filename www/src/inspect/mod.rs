//! The glass: the selected request's numbered data flow (beside the diagram, with badges on the diagram's
//! connections) and the inspectors (any object as YAML, the etcd browser, the scheduler's decision table,
//! kube-proxy's rules, the event stream, the request's trace) in a tabbed panel under the diagram.
//!
//! Everything here reads the engine through its read-only accessors (`Cluster::flow`, `object_view`,
//! `etcd_level`, `decision_view`, …); nothing here changes the cluster. Each inspector recomputes only while
//! its tab is shown, whenever a new view is published.

pub mod badges;
pub mod complete;
pub mod flow;
mod panels;

use kubeglass::view::flow::FlowView;
use kubeglass::view::steps::FlowStep;
use leptos::prelude::*;

use crate::app::{use_sim, Sim};

/// The history keeps this many requests.
const REQUESTS_MAX: usize = 50;

/// A kubectl command the person ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub chain: u64,
    pub line: String,
    pub at_ms: u64,
}

/// Records a command the person ran (its chain is what the Data flow panel shows).
pub fn record_request(sim: &Sim, line: &str, chain: u64) {
    let at_ms = sim.with_cluster(|c| c.now().ms()).unwrap_or(0);
    sim.requests.update(|r| {
        r.push(Request { chain, line: line.to_string(), at_ms });
        let excess = r.len().saturating_sub(REQUESTS_MAX);
        r.drain(..excess);
    });
}

/// The inspectors' tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Object,
    Etcd,
    Scheduler,
    Proxy,
    Events,
    Trace,
}

impl Tab {
    pub const ALL: [Tab; 6] = [Tab::Object, Tab::Etcd, Tab::Scheduler, Tab::Proxy, Tab::Events, Tab::Trace];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Object => "Object",
            Tab::Etcd => "etcd",
            Tab::Scheduler => "Scheduler",
            Tab::Proxy => "kube-proxy",
            Tab::Events => "Events",
            Tab::Trace => "Trace",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Tab::Object => "object",
            Tab::Etcd => "etcd",
            Tab::Scheduler => "scheduler",
            Tab::Proxy => "proxy",
            Tab::Events => "events",
            Tab::Trace => "trace",
        }
    }
}

/// What the inspectors show, shared with the diagram (badges, pod chips) and the terminal.
#[derive(Clone, Copy)]
pub struct Inspect {
    /// The request picked from the history; None follows the latest.
    pub chosen: RwSignal<Option<u64>>,
    /// The chain shown.
    pub chain: Memo<Option<u64>>,
    pub flow: Memo<Option<FlowView>>,
    pub steps: Memo<Vec<FlowStep>>,
    /// The step hovered or focused in the Data flow list.
    pub focused: RwSignal<Option<usize>>,
    pub tab: RwSignal<Tab>,
    /// The object inspector's resource and `namespace/name` (or `name`).
    pub resource: RwSignal<String>,
    pub object: RwSignal<String>,
    pub etcd_prefix: RwSignal<String>,
    pub etcd_key: RwSignal<Option<String>>,
    /// The pod whose scheduling decision is shown (`namespace/name`).
    pub decision_pod: RwSignal<String>,
    pub proxy_node: RwSignal<String>,
    /// The dock's pane: opening something shows the Inspect pane.
    pane: RwSignal<crate::dock::Pane>,
}

impl Inspect {
    /// Shows `namespace/name` of a pod in the object inspector.
    pub fn open_pod(&self, key: &str) {
        self.open("pods", key);
    }

    /// Shows an object in the object inspector.
    pub fn open(&self, resource: &str, key: &str) {
        self.resource.set(resource.to_string());
        self.object.set(key.to_string());
        self.tab.set(Tab::Object);
        self.pane.set(crate::dock::Pane::Inspect);
    }
}

/// Makes the inspectors' state (call once, after the simulation's context).
pub fn provide() {
    let sim = use_sim();
    let view = sim.view();
    let chosen = RwSignal::new(None);
    let chain = Memo::new(move |_| chosen.get().or_else(|| sim.requests.with(|r| r.last().map(|q| q.chain))));
    let flow = Memo::new(move |_| {
        view.track();
        let chain = chain.get()?;
        sim.with_cluster(|c| c.flow(chain))
    });
    let steps = Memo::new(move |_| flow.with(|f| f.as_ref().map(|f| f.steps.clone()).unwrap_or_default()));
    provide_context(Inspect {
        chosen,
        chain,
        flow,
        steps,
        focused: RwSignal::new(None),
        tab: RwSignal::new(Tab::Object),
        resource: RwSignal::new("pods".to_string()),
        object: RwSignal::new(String::new()),
        etcd_prefix: RwSignal::new("/registry/".to_string()),
        etcd_key: RwSignal::new(None),
        decision_pod: RwSignal::new(String::new()),
        proxy_node: RwSignal::new(String::new()),
        pane: crate::dock::use_pane(),
    });
}

pub fn use_inspect() -> Inspect {
    expect_context::<Inspect>()
}

/// The tabbed inspectors panel.
#[component]
pub fn Inspectors() -> impl IntoView {
    let inspect = use_inspect();
    let tab = inspect.tab;
    view! {
        <section class="panel inspectors" aria-labelledby="inspectors-title">
            <div class="panel-head">
                <h2 id="inspectors-title">"Inspect"</h2>
                <div class="tabs" role="tablist" aria-label="Inspectors">
                    {Tab::ALL
                        .iter()
                        .map(|&t| {
                            view! {
                                <button
                                    type="button"
                                    role="tab"
                                    id=format!("tab-{}", t.id())
                                    aria-controls="inspector-panel"
                                    aria-selected=move || (tab.get() == t).to_string()
                                    tabindex=move || if tab.get() == t { "0" } else { "-1" }
                                    class="tab"
                                    on:click=move |_| tab.set(t)
                                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                                        let i = Tab::ALL.iter().position(|x| *x == t).unwrap_or(0);
                                        let n = Tab::ALL.len();
                                        let to = match ev.key().as_str() {
                                            "ArrowRight" => (i + 1) % n,
                                            "ArrowLeft" => (i + n - 1) % n,
                                            _ => return,
                                        };
                                        ev.prevent_default();
                                        tab.set(Tab::ALL[to]);
                                        focus_tab(Tab::ALL[to]);
                                    }
                                >
                                    {t.title()}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            </div>
            <div
                id="inspector-panel"
                role="tabpanel"
                aria-labelledby=move || format!("tab-{}", tab.get().id())
                class="inspector"
            >
                {move || match tab.get() {
                    Tab::Object => view! { <panels::ObjectInspector/> }.into_any(),
                    Tab::Etcd => view! { <panels::EtcdBrowser/> }.into_any(),
                    Tab::Scheduler => view! { <panels::DecisionTable/> }.into_any(),
                    Tab::Proxy => view! { <panels::ProxyRules/> }.into_any(),
                    Tab::Events => view! { <panels::EventStream/> }.into_any(),
                    Tab::Trace => view! { <flow::Trace/> }.into_any(),
                }}
            </div>
        </section>
    }
}

fn focus_tab(t: Tab) {
    use leptos::wasm_bindgen::JsCast;
    if let Some(el) =
        document().get_element_by_id(&format!("tab-{}", t.id())).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// `12.345s`.
pub fn seconds(ms: u64) -> String {
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}
