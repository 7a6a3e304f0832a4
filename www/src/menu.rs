//! A small menu of a diagram component's other actions, besides the click that stops and starts it: crash it
//! (the kubelet restarts a control-plane static pod, systemd a node service), and for a node power it off or
//! on, cordon, uncordon or drain it (as the kubectl commands). It opens with a right-click, or from the
//! keyboard with Shift+F10 or the context-menu key on a focused component; arrows move, Escape closes. Every
//! action goes through the session, so it is recorded like a click.

use kubeglass::view::View;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

use crate::app::{use_sim, Sim};

/// The open menu: which component, and where (viewport pixels).
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

/// The menu's state, provided by the app.
#[derive(Clone, Copy)]
pub struct MenuState(pub RwSignal<Option<Open>>);

/// One entry of a component's menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Stop,
    Start,
    Crash,
    PowerOff,
    PowerOn,
    /// A part of a powered-off machine: only powering the machine on can start it.
    PowerOnItsNode,
    Cordon,
    Uncordon,
    Drain,
}

impl Item {
    pub fn label(self) -> &'static str {
        match self {
            Item::Stop => "Stop",
            Item::Start => "Start",
            Item::Crash => "Crash (it is restarted)",
            Item::PowerOff => "Power off",
            Item::PowerOn => "Power on",
            Item::PowerOnItsNode => "Power on its node (it is off)",
            Item::Cordon => "Cordon",
            Item::Uncordon => "Uncordon",
            Item::Drain => "Drain",
        }
    }
}

/// Whether `name` is a whole node (its parts are `name/kubelet`, …).
fn is_node(view: &View, name: &str) -> bool {
    let kubelet = format!("{name}/kubelet");
    view.components.iter().any(|c| c.name == kubelet)
}

/// What the menu of `name` offers, given the cluster now.
pub fn items(view: &View, name: &str) -> Vec<Item> {
    let off = |node: &str| view.powered_off.iter().any(|n| n == node);
    if is_node(view, name) {
        let parts = [format!("{name}/kubelet"), format!("{name}/containerd"), format!("{name}/kube-proxy")];
        let all_running = parts.iter().all(|p| view.components.iter().any(|c| &c.name == p && c.running));
        let cordoned = view.nodes.iter().any(|n| n.name == name && n.status.contains("SchedulingDisabled"));
        let cordon = if cordoned { Item::Uncordon } else { Item::Cordon };
        // A machine that is on but has services stopped by hand: starting it starts them, without a reboot.
        let power = match (off(name), all_running) {
            (true, _) => vec![Item::PowerOn],
            (false, true) => vec![Item::PowerOff],
            (false, false) => vec![Item::Start, Item::PowerOff],
        };
        return power.into_iter().chain([cordon, Item::Drain]).collect();
    }
    if node_of(view, name).is_some_and(|n| off(&n)) {
        return vec![Item::PowerOnItsNode];
    }
    let running = match name {
        "etcd" => view.components.iter().filter(|c| c.role == "etcd").all(|c| c.running),
        _ => view.components.iter().any(|c| c.name == name && c.running),
    };
    if running {
        vec![Item::Stop, Item::Crash]
    } else {
        vec![Item::Start]
    }
}

/// The machine component `name` runs on, if any.
fn node_of(view: &View, name: &str) -> Option<String> {
    view.components.iter().find(|c| c.name == name).and_then(|c| c.node.clone())
}

/// Does `item` to `name`, through the session.
fn act(sim: Sim, name: &str, item: Item) {
    let component = |verb: &str, result: Option<Result<(), String>>| {
        sim.print("info", format!("# {verb} {name}"));
        if let Some(Err(e)) = result {
            sim.print("output", e);
        }
    };
    match item {
        Item::Stop | Item::PowerOff => component("stop", sim.act(|s| s.stop(name))),
        Item::Start | Item::PowerOn => component("start", sim.act(|s| s.start(name))),
        Item::Crash => component("crash", sim.act(|s| s.crash(name))),
        Item::PowerOnItsNode => {
            if let Some(node) = sim.view().with_untracked(|v| node_of(v, name)) {
                sim.print("info", format!("# start {node}"));
                if let Some(Err(e)) = sim.act(|s| s.start(&node)) {
                    sim.print("output", e);
                }
            }
        }
        Item::Cordon => sim.run_command(&format!("kubectl cordon {name}")),
        Item::Uncordon => sim.run_command(&format!("kubectl uncordon {name}")),
        Item::Drain => {
            sim.run_command(&format!("kubectl drain {name} --ignore-daemonsets --delete-emptydir-data --force"))
        }
    }
}

/// Opens the menu of `name` beside the element an event came from (a right-click or a key on a component).
pub fn open_from(menu: Option<MenuState>, ev: &web_sys::Event, name: &str) {
    let Some(MenuState(state)) = menu else { return };
    let rect =
        ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|e| e.get_bounding_client_rect());
    let (x, y) = match (rect, ev.dyn_ref::<web_sys::MouseEvent>()) {
        (_, Some(mouse)) => (f64::from(mouse.client_x()), f64::from(mouse.client_y())),
        (Some(r), None) => (r.left() + 8.0, r.bottom() + 2.0),
        (None, None) => (16.0, 16.0),
    };
    state.set(Some(Open { name: name.to_string(), x, y }));
}

/// Whether a key press on a component asks for its menu (Shift+F10 or the context-menu key).
pub fn is_menu_key(ev: &KeyboardEvent) -> bool {
    ev.key() == "ContextMenu" || (ev.key() == "F10" && ev.shift_key())
}

/// The menu itself, drawn over the page while open.
#[component]
pub fn ComponentMenu() -> impl IntoView {
    let sim = use_sim();
    let MenuState(state) = expect_context::<MenuState>();
    let menu = NodeRef::<leptos::html::Div>::new();
    let close = move || {
        let name = state.get_untracked().map(|o| o.name);
        state.set(None);
        // Focus goes back to the component the menu was for.
        if let Some(name) = name {
            let selector = format!("svg.diagram [role=\"button\"][aria-label=\"{name}\"]");
            if let Some(el) = document()
                .query_selector(&selector)
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::SvgElement>().ok())
            {
                let _ = el.focus();
            }
        }
    };
    // Focus the first item when the menu opens.
    Effect::new(move |_| {
        if state.with(Option::is_some) {
            if let Some(div) = menu.get() {
                if let Ok(Some(first)) = div.query_selector("[role=\"menuitem\"]") {
                    if let Ok(first) = first.dyn_into::<web_sys::HtmlElement>() {
                        let _ = first.focus();
                    }
                }
            }
        }
    });
    let on_key = move |ev: KeyboardEvent| {
        let Some(div) = menu.get() else { return };
        let Ok(items) = div.query_selector_all("[role=\"menuitem\"]") else { return };
        let count = items.length();
        let at = document()
            .active_element()
            .and_then(|e| e.get_attribute("data-index"))
            .and_then(|i| i.parse::<u32>().ok())
            .filter(|i| *i < count);
        let to = match ev.key().as_str() {
            "Escape" | "Tab" => {
                ev.prevent_default();
                close();
                return;
            }
            "ArrowDown" => at.map_or(0, |i| (i + 1) % count),
            "ArrowUp" => at.map_or(count.saturating_sub(1), |i| (i + count - 1) % count),
            "Home" => 0,
            "End" => count.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        if let Some(el) = items.item(to).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    };

    move || {
        state.get().map(|open| {
            // Read once when it opens: a menu that re-rendered with every view would lose its focus.
            let entries = sim.view().with_untracked(|v| items(v, &open.name));
            let width = window().inner_width().ok().and_then(|w| w.as_f64()).unwrap_or(1280.0);
            let left = open.x.min(width - 220.0).max(4.0);
            let name = open.name.clone();
            view! {
                <div class="menu-backdrop" on:click=move |_| close() on:contextmenu=move |ev| {
                    ev.prevent_default();
                    close();
                }></div>
                <div
                    class="comp-menu"
                    role="menu"
                    aria-label=format!("{name} actions")
                    node_ref=menu
                    style=format!("left: {left:.0}px; top: {:.0}px", open.y)
                    on:keydown=on_key
                >
                    <div class="comp-menu-title" aria-hidden="true">{name.clone()}</div>
                    {entries
                        .into_iter()
                        .enumerate()
                        .map(|(index, item)| {
                            let name = name.clone();
                            view! {
                                <button
                                    type="button"
                                    role="menuitem"
                                    tabindex="-1"
                                    data-index=index
                                    on:click=move |_| {
                                        state.set(None);
                                        act(sim, &name, item);
                                    }
                                >
                                    {item.label()}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass::scenario::session::Session;

    #[test]
    fn control_plane_parts_crash_and_nodes_power_cordon_and_drain() {
        let mut s = Session::new_default();
        let view = s.cluster().view();
        assert_eq!(items(&view, "kube-scheduler"), vec![Item::Stop, Item::Crash]);
        assert_eq!(items(&view, "node01/kubelet"), vec![Item::Stop, Item::Crash]);
        assert_eq!(items(&view, "node01"), vec![Item::PowerOff, Item::Cordon, Item::Drain]);
        s.stop("kube-scheduler").unwrap();
        s.stop("node02/kube-proxy").unwrap();
        s.kubectl("cordon node01").unwrap();
        s.cluster_mut().advance_ms(2_000);
        let view = s.cluster().view();
        assert_eq!(items(&view, "kube-scheduler"), vec![Item::Start]);
        assert_eq!(items(&view, "node02"), vec![Item::Start, Item::PowerOff, Item::Cordon, Item::Drain]);
        assert_eq!(items(&view, "node01"), vec![Item::PowerOff, Item::Uncordon, Item::Drain]);
    }

    #[test]
    fn a_powered_off_machine_offers_power_on_and_its_parts_offer_nothing_else() {
        let mut s = Session::new_default();
        s.stop("node01").unwrap();
        let view = s.cluster().view();
        assert_eq!(view.powered_off, vec!["node01".to_string()]);
        assert_eq!(items(&view, "node01"), vec![Item::PowerOn, Item::Cordon, Item::Drain]);
        assert_eq!(items(&view, "node01/kubelet"), vec![Item::PowerOnItsNode]);
        assert_eq!(items(&view, "node02/kubelet"), vec![Item::Stop, Item::Crash]);
        s.start("node01").unwrap();
        let view = s.cluster().view();
        assert!(view.powered_off.is_empty());
        assert_eq!(items(&view, "node01/kubelet"), vec![Item::Stop, Item::Crash]);
    }
}
