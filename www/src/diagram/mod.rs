//! The architecture diagram, drawn as SVG from the [`layout`]: panels, standing connections, every component
//! as a toggle button (click, Enter or Space stops or starts it), each node's card or tile, pods as chips,
//! and the messages on the wire ([`flights`]).
//!
//! The contract for assistive technology and tests: every component is a focusable element with
//! `role="button"`, an `aria-label` equal to its scenario name (`kube-scheduler`, `etcd-0`, `node01/kubelet`,
//! and `node01` for a whole node) and `aria-pressed="true"` while stopped (`mixed` for a node some of whose
//! parts are stopped). A stopped component is greyed, dashed and badged "stopped".

pub mod flights;
pub mod geometry;
pub mod layout;
pub mod status;

use std::collections::BTreeMap;

use kubeglass::view::View;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::app::use_sim;
use layout::{BoxKind, ComponentBox, Layout, NodeCard, NodeTile, Toggleable};

/// What the boxes show besides their geometry: which components run, and what each etcd member says of
/// itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct States {
    running: BTreeMap<String, bool>,
    /// Per node: how many of its parts (kubelet, containerd, kube-proxy) run, of how many.
    node_parts: BTreeMap<String, (usize, usize)>,
    /// Per etcd member: `leader` / `follower` / `candidate`, and its store's revision.
    etcd: BTreeMap<String, (String, u64)>,
}

impl States {
    pub fn of(view: &View) -> States {
        let mut states = States::default();
        for c in &view.components {
            states.running.insert(c.name.clone(), c.running);
            if let (Some(node), "node") = (&c.node, c.role.as_str()) {
                let entry = states.node_parts.entry(node.clone()).or_default();
                entry.0 += usize::from(c.running);
                entry.1 += 1;
            }
        }
        for m in &view.etcd {
            states.etcd.insert(m.name.clone(), (m.role.clone(), m.revision));
        }
        states
    }

    /// Unknown names count as running (the person's kubectl always is).
    pub fn running(&self, name: &str) -> bool {
        self.running.get(name).copied().unwrap_or(true)
    }

    /// `aria-pressed` of a node: `true` when all its parts are stopped, `mixed` when some are.
    pub fn node_pressed(&self, node: &str) -> &'static str {
        match self.node_parts.get(node) {
            Some((0, total)) if *total > 0 => "true",
            Some((running, total)) if running < total => "mixed",
            _ => "false",
        }
    }
}

/// Press state as ARIA spells it.
fn pressed(stopped: bool) -> &'static str {
    if stopped {
        "true"
    } else {
        "false"
    }
}

#[component]
pub fn Diagram() -> impl IntoView {
    let view = use_sim().view();
    let layout = Memo::new(move |_| view.with(layout::layout));
    let states = Memo::new(move |_| view.with(States::of));
    provide_context(states);

    view! {
        // The diagram scales to fit its panel, but never below half size: a tall one (many nodes) scrolls.
        <div class="diagram-scroll">
        <svg
            class="diagram"
            role="group"
            aria-label="Cluster architecture: click a component to stop or start it"
            viewBox=move || layout.with(|l| format!("0 0 {} {}", l.width, l.height))
            style:min-height=move || layout.with(|l| format!("{}px", l.height / 2))
        >
            <defs>
                <marker
                    id="link-head"
                    viewBox="0 0 10 10"
                    refX="9"
                    refY="5"
                    markerWidth="7"
                    markerHeight="7"
                    orient="auto"
                >
                    <path d="M0,0 L10,5 L0,10 z"></path>
                </marker>
                {crate::inspect::badges::marker()}
            </defs>
            <g class="panels">{move || layout.with(panels)}</g>
            <g class="links">{move || layout.with(links)}</g>
            <g class="cards">{move || layout.with(cards)}</g>
            <g class="clients">{move || layout.with(clients)}</g>
            // One list in reading order, so Tab goes through the control plane, then node by node.
            <g class="toggles">
                <For each=move || layout.with(Layout::toggles) key=|item| item.clone() let:item>
                    {match item {
                        Toggleable::Part(part) => view! { <Part part/> }.into_any(),
                        Toggleable::Node(card) => view! { <NodeHead card/> }.into_any(),
                        Toggleable::Tile(tile) => view! { <Tile tile/> }.into_any(),
                    }}
                </For>
            </g>
            <g class="pods">{move || layout.with(chips)}</g>
            <g class="notes">{move || layout.with(notes)}</g>
            <flights::Flights layout/>
            <crate::inspect::badges::StepBadges layout/>
        </svg>
        </div>
    }
}

fn panels(l: &Layout) -> impl IntoView {
    l.panels
        .iter()
        .map(|p| {
            let r = p.rect;
            let kind = format!("{:?}", p.kind).to_lowercase();
            view! {
                <g class=format!("zone zone-{kind}")>
                    <rect x=r.x y=r.y width=r.w height=r.h rx="12"></rect>
                    <text class="zone-title" x=r.x + 12 y=r.y + 18>
                        {p.title.clone()}
                    </text>
                </g>
            }
        })
        .collect_view()
}

fn links(l: &Layout) -> impl IntoView {
    l.links
        .iter()
        .map(|k| {
            view! {
                <line
                    class=format!("link link-{}", k.kind.css())
                    data-from=k.from.clone()
                    data-to=k.to.clone()
                    x1=k.a.x
                    y1=k.a.y
                    x2=k.b.x
                    y2=k.b.y
                    marker-end="url(#link-head)"
                ></line>
            }
        })
        .collect_view()
}

/// Each node card's background and taint line (its header is a toggle, drawn with the others).
fn cards(l: &Layout) -> impl IntoView {
    l.cards
        .iter()
        .map(|card| {
            let r = card.rect;
            let taints = card.taint_line.map(|t| {
                let room = usize::try_from(t.w).unwrap_or(0).saturating_sub(50) / 6;
                view! {
                    <text class="taints" x=t.x + 2 y=f64::from(t.y) + f64::from(t.h) / 2.0>
                        <title>{format!("Taints: {}", card.taints)}</title>
                        {format!("taint {}", status::shorten(&card.taints, room))}
                    </text>
                }
            });
            view! {
                <g
                    class="node-card"
                    class:not-ready=!card.ready
                    class:control-plane=card.control_plane
                    data-node=card.name.clone()
                >
                    <rect class="card" x=r.x y=r.y width=r.w height=r.h rx="10"></rect>
                    {taints}
                </g>
            }
        })
        .collect_view()
}

/// The person's kubectl: not a cluster component, so not a toggle.
fn clients(l: &Layout) -> impl IntoView {
    l.boxes
        .iter()
        .filter(|b| b.kind == BoxKind::Client)
        .map(|b| {
            let r = b.rect;
            view! {
                <g class="comp comp-client">
                    <title>"kubectl: the person's command line (the terminal beside the diagram)"</title>
                    <rect class="frame" x=r.x y=r.y width=r.w height=r.h rx="16"></rect>
                    <text class="comp-label" x=r.centre().x y=f64::from(r.y) + f64::from(r.h) / 2.0 text-anchor="middle">
                        {format!("{} · you", b.label)}
                    </text>
                </g>
            }
        })
        .collect_view()
}

fn chips(l: &Layout) -> impl IntoView {
    // A chip opens the pod in the inspector (click, or Enter).
    let inspect = crate::inspect::use_inspect();
    l.chips
        .iter()
        .map(|c| {
            let r = c.rect;
            let (key, on_key) = (c.key.clone(), c.key.clone());
            view! {
                <g
                    class=format!("pod pod-{}", c.class.css())
                    data-pod=c.key.clone()
                    data-status=c.status.clone()
                    role="link"
                    tabindex="0"
                    aria-label=format!("Inspect pod {}", c.key)
                    on:click=move |_| inspect.open_pod(&key)
                    on:keydown=move |ev: KeyboardEvent| {
                        if ev.key() == "Enter" {
                            inspect.open_pod(&on_key);
                        }
                    }
                >
                    <title>{format!("{}: {}", c.key, c.status)}</title>
                    <rect x=r.x y=r.y width=r.w height=r.h rx="5"></rect>
                    <text x=r.x + 6 y=f64::from(r.y) + f64::from(r.h) / 2.0>
                        {c.label.clone()}
                    </text>
                </g>
            }
        })
        .collect_view()
}

fn notes(l: &Layout) -> impl IntoView {
    l.notes
        .iter()
        .map(|n| {
            let anchor = if n.class == "empty" && n.text.starts_with("No nodes") { "middle" } else { "start" };
            view! {
                <text class=format!("note note-{}", n.class) x=n.x y=n.y text-anchor=anchor>
                    {n.text.clone()}
                </text>
            }
        })
        .collect_view()
}

/// A focusable toggle for the component (or node) `name`: click, Enter or Space stops or starts it.
#[component]
fn Toggle(
    name: String,
    #[prop(into)] class: Signal<String>,
    #[prop(into)] pressed: Signal<&'static str>,
    #[prop(into)] title: Signal<String>,
    children: Children,
) -> impl IntoView {
    let sim = use_sim();
    let (on_click, on_key, on_menu, on_menu_key) = (name.clone(), name.clone(), name.clone(), name.clone());
    let menu = use_context::<crate::menu::MenuState>();
    view! {
        <g
            role="button"
            tabindex="0"
            aria-label=name
            aria-pressed=pressed
            class=class
            aria-keyshortcuts="Shift+F10"
            on:click=move |_| sim.toggle(&on_click)
            on:contextmenu=move |ev| {
                ev.prevent_default();
                crate::menu::open_from(menu, &ev, &on_menu);
            }
            on:keydown=move |ev: KeyboardEvent| {
                if crate::menu::is_menu_key(&ev) {
                    ev.prevent_default();
                    crate::menu::open_from(menu, &ev, &on_menu_key);
                } else if matches!(ev.key().as_str(), "Enter" | " " | "Spacebar") {
                    ev.prevent_default();
                    if !ev.repeat() {
                        sim.toggle(&on_key);
                    }
                }
            }
        >
            <title>{title}</title>
            {children()}
        </g>
    }
}

fn use_states() -> Memo<States> {
    expect_context::<Memo<States>>()
}

/// The "stopped" badge, right-aligned on a box's top edge.
fn stopped_badge(right: i32, top: i32) -> impl IntoView {
    view! {
        <g class="badge-stopped">
            <rect x=right - 62 y=top - 8 width="56" height="16" rx="8"></rect>
            <text x=right - 34 y=top text-anchor="middle">
                "stopped"
            </text>
        </g>
    }
}

fn toggle_title(name: &str, running: bool) -> String {
    if running {
        format!("{name}: running. Click, Enter or Space to stop it; right-click or Shift+F10 for more.")
    } else {
        format!("{name}: not running. Click, Enter or Space to start it; right-click or Shift+F10 for more.")
    }
}

#[component]
fn Part(part: ComponentBox) -> impl IntoView {
    let states = use_states();
    let r = part.rect;
    let mid = f64::from(r.y) + f64::from(r.h) / 2.0;
    let kind = part.kind;
    let running = {
        let name = part.name.clone();
        Memo::new(move |_| states.with(|s| s.running(&name)))
    };
    let etcd_tag = {
        let name = part.name.clone();
        Memo::new(move |_| {
            states.with(|s| {
                s.etcd.get(&name).map(|(role, revision)| {
                    if role == "leader" && s.running(&name) {
                        format!("★ leader · rev {revision}")
                    } else {
                        format!("{role} · rev {revision}")
                    }
                })
            })
        })
    };
    let class = move || format!("comp comp-{}{}", kind.css(), if running.get() { "" } else { " stopped" });
    let title = {
        let name = part.name.clone();
        move || toggle_title(&name, running.get())
    };
    let label_x = if kind == BoxKind::ApiServer { r.centre().x } else { f64::from(r.x) + 24.0 };
    let anchor = if kind == BoxKind::ApiServer { "middle" } else { "start" };
    let label_y = if kind == BoxKind::ApiServer { mid - 8.0 } else { mid };
    view! {
        <Toggle
            name=part.name.clone()
            class=Signal::derive(class)
            pressed=Signal::derive(move || pressed(!running.get()))
            title=Signal::derive(title)
        >
            <rect class="frame" x=r.x y=r.y width=r.w height=r.h rx="8"></rect>
            {(kind != BoxKind::ApiServer)
                .then(|| {
                    view! { <circle class="dot" cx=r.x + 12 cy=mid r="4"></circle> }
                })}
            <text class="comp-label" x=label_x y=label_y text-anchor=anchor>
                {part.label.clone()}
            </text>
            {(kind == BoxKind::ApiServer)
                .then(|| {
                    view! {
                        <text class="comp-sub" x=r.centre().x y=mid + 12.0 text-anchor="middle">
                            "authn · authz · admission · storage"
                        </text>
                    }
                })}
            {move || {
                etcd_tag
                    .get()
                    .map(|tag| {
                        let leader = tag.starts_with('★');
                        view! {
                            <text
                                class="comp-tag"
                                class:leader=leader
                                x=r.right() - 8
                                y=mid
                                text-anchor="end"
                            >
                                {tag}
                            </text>
                        }
                    })
            }}
            {move || (!running.get()).then(|| stopped_badge(r.right(), r.y))}
        </Toggle>
    }
}

/// A node's header: its name, role and STATUS, and the toggle for its kubelet, containerd and kube-proxy.
#[component]
fn NodeHead(card: NodeCard) -> impl IntoView {
    let states = use_states();
    let h = card.head;
    let mid = f64::from(h.y) + f64::from(h.h) / 2.0;
    let name = card.name.clone();
    let node_pressed = {
        let name = name.clone();
        Memo::new(move |_| states.with(|s| s.node_pressed(&name)))
    };
    let status_w = card.status.chars().count() as i32 * 7 + 14;
    let title = {
        let name = name.clone();
        move || match node_pressed.get() {
            "true" => {
                format!("{name}: kubelet, containerd and kube-proxy stopped. Click, Enter or Space to start them.")
            }
            "mixed" => format!("{name}: some of its parts are stopped. Click, Enter or Space to start them."),
            _ => format!("{name}: kubelet, containerd and kube-proxy running. Click, Enter or Space to stop them."),
        }
    };
    let role_x = h.x + 10 + name.chars().count() as i32 * 8 + 8;
    view! {
        <Toggle
            name=name.clone()
            class=Signal::derive(move || {
                format!("node-head{}", if node_pressed.get() == "true" { " stopped" } else { "" })
            })
            pressed=Signal::derive(move || node_pressed.get())
            title=Signal::derive(title)
        >
            <rect class="frame" x=h.x y=h.y width=h.w height=h.h rx="7"></rect>
            <text class="node-name" x=h.x + 10 y=mid>
                {name.clone()}
            </text>
            {card.control_plane.then(|| view! { <text class="node-role" x=role_x y=mid>"control plane"</text> })}
            <g class="node-status" class:bad=!card.ready>
                <rect x=h.right() - status_w - 6 y=h.y + 6 width=status_w height=h.h - 12 rx="8"></rect>
                <text x=h.right() - 6 - status_w / 2 y=mid text-anchor="middle">
                    {card.status.clone()}
                </text>
            </g>
            {move || (node_pressed.get() == "true").then(|| stopped_badge(h.right() - status_w - 10, h.y))}
        </Toggle>
    }
}

#[component]
fn Tile(tile: NodeTile) -> impl IntoView {
    let states = use_states();
    let r = tile.rect;
    let node_pressed = {
        let name = tile.name.clone();
        Memo::new(move |_| states.with(|s| s.node_pressed(&name)))
    };
    let title = {
        let summary = format!("{}: {}, {} pods", tile.name, tile.status, tile.pods);
        move || format!("{summary}. Click, Enter or Space to stop or start its kubelet, containerd and kube-proxy.")
    };
    let ready = tile.ready;
    view! {
        <Toggle
            name=tile.name.clone()
            class=Signal::derive(move || {
                format!(
                    "tile{}{}",
                    if ready { "" } else { " not-ready" },
                    if node_pressed.get() == "true" { " stopped" } else { "" },
                )
            })
            pressed=Signal::derive(move || node_pressed.get())
            title=Signal::derive(title)
        >
            <rect class="frame" x=r.x y=r.y width=r.w height=r.h rx="6"></rect>
            <circle class="dot" cx=r.x + 9 cy=r.y + 11 r="3.5"></circle>
            <text class="tile-name" x=r.x + 17 y=r.y + 11>
                {tile.label.clone()}
            </text>
            <text class="tile-pods" x=r.x + 9 y=r.y + 25>
                {format!("{} pods", tile.pods)}
            </text>
        </Toggle>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_pressed_when_all_its_parts_stop_and_mixed_when_some_do() {
        let mut cluster = kubeglass::Cluster::new_default(1);
        assert_eq!(States::of(&cluster.view()).node_pressed("node01"), "false");
        cluster.stop("node01/kubelet").unwrap();
        let states = States::of(&cluster.view());
        assert_eq!(states.node_pressed("node01"), "mixed");
        assert!(!states.running("node01/kubelet"));
        assert!(states.running("node01/kube-proxy"));
        cluster.stop("node01").unwrap();
        assert_eq!(States::of(&cluster.view()).node_pressed("node01"), "true");
        assert_eq!(States::of(&cluster.view()).node_pressed("node02"), "false");
        assert_eq!(States::of(&cluster.view()).node_pressed("nobody"), "false");
    }

    #[test]
    fn etcd_members_report_their_role_and_revision() {
        let view = kubeglass::Cluster::new_default(1).view();
        let states = States::of(&view);
        let (role, revision) = states.etcd.get("etcd-0").cloned().unwrap();
        assert_eq!(role, "leader");
        assert!(revision > 0);
    }
}
