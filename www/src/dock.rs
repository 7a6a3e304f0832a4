//! The dock under the terminal, beside the diagram: one pane at a time behind tabs, so that the diagram, the
//! terminal and the pane in use fit a 1280×720 window without scrolling the page. Every pane stays mounted
//! while hidden (the editor keeps its text and cursor, the inspectors their choices); the page switches panes
//! itself when something opens in one (a pod chip opens the Inspect pane, `kubectl edit` the Manifest pane).

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

/// The dock's panes, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Flow,
    Manifest,
    Inspect,
    Scenarios,
    Nodes,
    Log,
}

impl Pane {
    pub const ALL: [Pane; 6] = [Pane::Flow, Pane::Manifest, Pane::Inspect, Pane::Scenarios, Pane::Nodes, Pane::Log];

    /// The tab's name.
    pub fn title(self) -> &'static str {
        match self {
            // Not "Data flow" and "Manifest": those name the step list and the editor's text area.
            Pane::Flow => "Flow",
            Pane::Manifest => "Editor",
            Pane::Inspect => "Inspect",
            Pane::Scenarios => "Scenarios",
            Pane::Nodes => "Nodes",
            Pane::Log => "Log",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Pane::Flow => "flow",
            Pane::Manifest => "manifest",
            Pane::Inspect => "inspect",
            Pane::Scenarios => "scenarios",
            Pane::Nodes => "nodes",
            Pane::Log => "log",
        }
    }

    /// The pane an arrow key moves to from this one (tabs wrap around).
    pub fn step(self, forward: bool) -> Pane {
        let n = Pane::ALL.len();
        let i = Pane::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Pane::ALL[if forward { (i + 1) % n } else { (i + n - 1) % n }]
    }
}

/// Which pane the dock shows (provided by the app; the inspectors and the editor switch it).
#[derive(Clone, Copy)]
pub struct DockPane(pub RwSignal<Pane>);

pub fn use_pane() -> RwSignal<Pane> {
    expect_context::<DockPane>().0
}

#[component]
pub fn Dock() -> impl IntoView {
    let pane = use_pane();
    let tab = move |p: Pane| {
        view! {
            <button
                type="button"
                role="tab"
                id=format!("dock-tab-{}", p.id())
                class="dock-tab"
                aria-controls=format!("dock-{}", p.id())
                aria-selected=move || (pane.get() == p).to_string()
                tabindex=move || if pane.get() == p { "0" } else { "-1" }
                on:click=move |_| pane.set(p)
                on:keydown=move |ev: KeyboardEvent| {
                    let to = match ev.key().as_str() {
                        "ArrowRight" => p.step(true),
                        "ArrowLeft" => p.step(false),
                        _ => return,
                    };
                    ev.prevent_default();
                    pane.set(to);
                    focus(&format!("dock-tab-{}", to.id()));
                }
            >
                {p.title()}
            </button>
        }
    };
    let panel = move |p: Pane, children: AnyView| {
        view! {
            <div
                role="tabpanel"
                id=format!("dock-{}", p.id())
                class=format!("dock-pane dock-pane-{}", p.id())
                aria-labelledby=format!("dock-tab-{}", p.id())
                hidden=move || pane.get() != p
            >
                {children}
            </div>
        }
    };
    view! {
        <section class="panel dock" aria-label="Panels">
            <div class="dock-tabs" role="tablist" aria-label="Panels">
                {Pane::ALL.into_iter().map(tab).collect_view()}
            </div>
            {panel(Pane::Flow, view! { <crate::inspect::flow::DataFlow/> }.into_any())}
            {panel(Pane::Manifest, view! { <crate::editor::Editor/> }.into_any())}
            {panel(Pane::Inspect, view! { <crate::inspect::Inspectors/> }.into_any())}
            {panel(
                Pane::Scenarios,
                view! {
                    <crate::gallery::Gallery/>
                    <crate::share::SharePanel/>
                }
                    .into_any(),
            )}
            {panel(Pane::Nodes, view! { <crate::nodes::NodeList/> }.into_any())}
            {panel(Pane::Log, view! { <crate::side::DeliveryLog/> }.into_any())}
        </section>
    }
}

fn focus(id: &str) {
    if let Some(el) = document().get_element_by_id(id).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_go_round_the_tabs() {
        assert_eq!(Pane::Flow.step(true), Pane::Manifest);
        assert_eq!(Pane::Flow.step(false), Pane::Log);
        assert_eq!(Pane::Log.step(true), Pane::Flow);
        for p in Pane::ALL {
            assert_eq!(p.step(true).step(false), p);
        }
    }

    #[test]
    fn every_pane_has_its_own_name_and_id() {
        let titles: std::collections::BTreeSet<_> = Pane::ALL.iter().map(|p| p.title()).collect();
        let ids: std::collections::BTreeSet<_> = Pane::ALL.iter().map(|p| p.id()).collect();
        assert_eq!((titles.len(), ids.len()), (Pane::ALL.len(), Pane::ALL.len()));
    }
}
