//! Where everything goes on the architecture diagram, computed from the engine's [`View`] alone: pure
//! geometry, no rendering, so it is unit-tested natively.
//!
//! The shape follows the seeds' picture. The person's kubectl sits above the control plane; inside it,
//! kube-scheduler, kube-controller-manager (and cloud-controller-manager when present) sit above
//! kube-apiserver, which is at the centre, with etcd and its members on its right and the pods no node runs
//! yet on its left. The nodes (the control-plane node first) sit below, each with its kubelet, containerd and
//! kube-proxy and its pods as chips. Every connection arrow points at kube-apiserver, except the
//! apiserver's own to etcd and each kubelet's to its containerd (CRI). Up to [`DETAILED_NODES_MAX`] nodes are
//! drawn in full; beyond that they collapse into a grid of tiles under aggregate counts.

use std::collections::BTreeMap;

use kubeglass::view::{ComponentView, NodeView, PodView, View};

use super::geometry::{connect, Point, Rect};
use super::status::{node_ready, shorten, PodClass};

/// The diagram's width in user units; its height follows from the cluster.
pub const WIDTH: i32 = 1000;
/// Above this many nodes, nodes are tiles in a compact grid.
pub const DETAILED_NODES_MAX: usize = 12;
/// At most this many node tiles are drawn; the rest are counted.
pub const TILES_MAX: usize = 240;
/// The component every request goes to.
pub const APISERVER: &str = "kube-apiserver";
/// What the links of a compact node grid start from.
pub const NODE_GRID: &str = "nodes";
/// What the apiserver's link to etcd ends at.
pub const ETCD: &str = "etcd";

const MARGIN: i32 = 12;
const PAD: i32 = 14;
const GAP: i32 = 12;
const BOX_H: i32 = 40;
const SIDE_BOX_W: i32 = 200;
/// Half the free gap above the apiserver that the client's arrow comes down through.
const CLIENT_GAP: i32 = 70;
const PANEL_TITLE_H: i32 = 30;
const MEMBER_H: i32 = 28;
const MEMBER_STEP: i32 = 34;
const CHIP_H: i32 = 18;
const CHIP_GAP: i32 = 4;
const CHIP_MIN_W: i32 = 96;
const CHIP_ROWS_MAX: usize = 5;
/// The width of one character of a chip's 10-unit monospace label.
const CHIP_CHAR_W: f64 = 6.1;
const CARD_W_MAX: i32 = 460;
const CARD_HEAD_H: i32 = 28;
const TAINT_LINE_H: i32 = 16;
const AGENT_H: i32 = 30;
const TILE_W: i32 = 88;
const TILE_H: i32 = 34;
const TILE_GAP: i32 = 6;

/// What a box on the diagram is; it decides its look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoxKind {
    /// The person's kubectl: not a cluster component, so not a button.
    Client,
    ApiServer,
    ControlPlane,
    Etcd,
    /// A cluster add-on the engine runs as a component of its own (CoreDNS).
    Addon,
    /// A node's kubelet, containerd or kube-proxy.
    Agent,
}

impl BoxKind {
    pub fn css(self) -> &'static str {
        match self {
            BoxKind::Client => "client",
            BoxKind::ApiServer => "apiserver",
            BoxKind::ControlPlane => "control-plane",
            BoxKind::Etcd => "etcd",
            BoxKind::Addon => "addon",
            BoxKind::Agent => "agent",
        }
    }
}

/// One component's box.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ComponentBox {
    /// The scenario name (`kube-scheduler`, `etcd-0`, `node01/kubelet`).
    pub name: String,
    /// What the box shows (`kubelet` inside node01's card).
    pub label: String,
    pub kind: BoxKind,
    pub rect: Rect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PanelKind {
    ControlPlane,
    Etcd,
    Unscheduled,
    Nodes,
}

/// A titled frame around a group of boxes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Panel {
    pub kind: PanelKind,
    pub title: String,
    pub rect: Rect,
}

/// A node drawn in full: its card, its header (the node's own button) and its state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeCard {
    pub name: String,
    pub rect: Rect,
    pub head: Rect,
    /// The STATUS column of `kubectl get nodes`.
    pub status: String,
    pub ready: bool,
    pub control_plane: bool,
    /// `key=value:Effect`, joined; shown under the header when there are any.
    pub taints: String,
    pub taint_line: Option<Rect>,
}

/// A node drawn as a tile of the compact grid.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeTile {
    pub name: String,
    pub label: String,
    pub rect: Rect,
    pub status: String,
    pub ready: bool,
    pub pods: usize,
}

/// A pod, as a chip coloured by its status.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PodChip {
    /// `namespace/name`.
    pub key: String,
    pub label: String,
    pub status: String,
    pub class: PodClass,
    pub rect: Rect,
}

/// A line of text on the diagram (`no pods`, `+12 more`, the compact grid's counts).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Note {
    pub text: String,
    pub x: i32,
    pub y: i32,
    pub class: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// A client's connection to kube-apiserver.
    Api,
    /// kube-apiserver's connection to etcd.
    Etcd,
    /// A kubelet's connection to its containerd.
    Cri,
}

impl LinkKind {
    pub fn css(self) -> &'static str {
        match self {
            LinkKind::Api => "api",
            LinkKind::Etcd => "etcd",
            LinkKind::Cri => "cri",
        }
    }
}

/// A standing connection, drawn as an arrow from the client to the server it calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub from: String,
    pub to: String,
    pub kind: LinkKind,
    pub a: Point,
    pub b: Point,
}

/// Something the person can stop and start, in the order Tab reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Toggleable {
    Part(ComponentBox),
    /// A node's header on its card: stops or starts its kubelet, containerd and kube-proxy.
    Node(NodeCard),
    Tile(NodeTile),
}

impl Toggleable {
    /// The scenario name it toggles.
    #[cfg(test)]
    pub fn name(&self) -> &str {
        match self {
            Toggleable::Part(b) => &b.name,
            Toggleable::Node(c) => &c.name,
            Toggleable::Tile(t) => &t.name,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub width: i32,
    pub height: i32,
    pub panels: Vec<Panel>,
    pub boxes: Vec<ComponentBox>,
    pub cards: Vec<NodeCard>,
    pub tiles: Vec<NodeTile>,
    pub chips: Vec<PodChip>,
    pub notes: Vec<Note>,
    pub links: Vec<Link>,
    /// Where messages to and from each named thing start and end.
    anchors: BTreeMap<String, Rect>,
}

impl Layout {
    /// The box a message to or from `name` attaches to: its own box, else (for `node01/…` parts the diagram
    /// does not draw, or draws only as a tile) its node's, else the compact node grid.
    pub fn anchor(&self, name: &str) -> Option<Rect> {
        if let Some(rect) = self.anchors.get(name) {
            return Some(*rect);
        }
        let (node, _) = name.split_once('/')?;
        self.anchors.get(node).or_else(|| self.anchors.get(NODE_GRID)).copied()
    }

    /// Every component, node and tile the person can stop and start, in reading order: the control plane
    /// (top to bottom), then each node's header followed by its parts, then the tiles.
    pub fn toggles(&self) -> Vec<Toggleable> {
        let mut out: Vec<Toggleable> = self
            .boxes
            .iter()
            .filter(|b| !matches!(b.kind, BoxKind::Client | BoxKind::Agent))
            .cloned()
            .map(Toggleable::Part)
            .collect();
        for card in &self.cards {
            out.push(Toggleable::Node(card.clone()));
            let parts =
                self.boxes.iter().filter(|b| b.kind == BoxKind::Agent && b.name.split('/').next() == Some(&card.name));
            out.extend(parts.cloned().map(Toggleable::Part));
        }
        out.extend(self.tiles.iter().cloned().map(Toggleable::Tile));
        out
    }

    /// The straight path a message from `from` to `to` travels, border to border.
    pub fn path(&self, from: &str, to: &str) -> Option<(Point, Point)> {
        Some(connect(self.anchor(from)?, self.anchor(to)?))
    }

    fn add_box(&mut self, name: &str, label: &str, kind: BoxKind, rect: Rect) {
        self.anchors.insert(name.to_string(), rect);
        self.boxes.push(ComponentBox { name: name.to_string(), label: label.to_string(), kind, rect });
    }

    fn link(&mut self, from: &str, to: &str, kind: LinkKind) {
        if let Some((a, b)) = self.path(from, to) {
            self.links.push(Link { from: from.to_string(), to: to.to_string(), kind, a, b });
        }
    }

    fn note(&mut self, text: impl Into<String>, x: i32, y: i32, class: &'static str) {
        self.notes.push(Note { text: text.into(), x, y, class });
    }
}

/// Lays out the whole diagram.
pub fn layout(view: &View) -> Layout {
    let mut l = Layout { width: WIDTH, ..Layout::default() };
    let centre = WIDTH / 2;

    let client = Rect::new(centre - 60, MARGIN, 120, 32);
    l.add_box("kubectl", "kubectl", BoxKind::Client, client);

    // Control plane: the other control-plane components above the apiserver, alternately left and right of the
    // gap the client's arrow comes down through.
    let cp_top = client.bottom() + 22;
    let row_a = cp_top + PANEL_TITLE_H + 6;
    let (mut left, mut right) = (centre - CLIENT_GAP, centre + CLIENT_GAP);
    let others = view.components.iter().filter(|c| c.role == "control-plane" && c.name != APISERVER);
    for (i, c) in others.enumerate() {
        let x = if i % 2 == 0 {
            left -= SIDE_BOX_W;
            let x = left;
            left -= GAP;
            x
        } else {
            let x = right;
            right += SIDE_BOX_W + GAP;
            x
        };
        l.add_box(&c.name, &c.name, BoxKind::ControlPlane, Rect::new(x, row_a, SIDE_BOX_W, BOX_H));
    }

    let row_b = row_a + BOX_H + 50;
    let apiserver = Rect::new(centre - 115, row_b, 230, 64);
    l.add_box(APISERVER, APISERVER, BoxKind::ApiServer, apiserver);

    let side_w = apiserver.x - 60 - (MARGIN + PAD);
    let etcd = etcd_panel(&mut l, view, Rect::new(apiserver.right() + 60, row_b - 10, side_w, 0));
    let unscheduled = unscheduled_panel(&mut l, &view.unscheduled, Rect::new(MARGIN + PAD, row_b - 10, side_w, 0));
    let addons = addon_boxes(&mut l, view, etcd);
    let row_b_bottom = apiserver.bottom().max(addons).max(unscheduled.bottom());
    let control_plane = Rect::new(MARGIN, cp_top, WIDTH - 2 * MARGIN, row_b_bottom + 16 - cp_top);
    l.panels.insert(0, Panel { kind: PanelKind::ControlPlane, title: "Control plane".into(), rect: control_plane });

    let nodes_top = control_plane.bottom() + 18;
    let content_top = nodes_top + PANEL_TITLE_H + 4;
    let bottom = if view.nodes.is_empty() {
        l.note("No nodes have registered yet", centre, content_top + 14, "empty");
        content_top + 24
    } else if view.nodes.len() <= DETAILED_NODES_MAX {
        node_cards(&mut l, view, content_top)
    } else {
        node_grid(&mut l, view, content_top)
    };
    let nodes = Rect::new(MARGIN, nodes_top, WIDTH - 2 * MARGIN, bottom + PAD - nodes_top);
    l.panels.push(Panel { kind: PanelKind::Nodes, title: format!("Nodes ({})", view.nodes.len()), rect: nodes });
    l.height = nodes.bottom() + MARGIN;

    // Connections: every client of the apiserver points at it; the apiserver points at etcd.
    l.link("kubectl", APISERVER, LinkKind::Api);
    let clients: Vec<String> = l
        .boxes
        .iter()
        .filter(|b| {
            matches!(b.kind, BoxKind::ControlPlane | BoxKind::Addon)
                || (b.kind == BoxKind::Agent && !is_runtime(&b.name))
        })
        .map(|b| b.name.clone())
        .collect();
    for name in clients {
        l.link(&name, APISERVER, LinkKind::Api);
    }
    if !view.components.iter().any(|c| c.role == "etcd") {
        return l;
    }
    l.link(APISERVER, ETCD, LinkKind::Etcd);
    l
}

fn is_runtime(name: &str) -> bool {
    name.rsplit('/').next() == Some("containerd")
}

/// etcd's members stacked in a panel at `at` (its height is computed); the leader is marked when drawn.
fn etcd_panel(l: &mut Layout, view: &View, at: Rect) -> Rect {
    let members: Vec<&ComponentView> = view.components.iter().filter(|c| c.role == "etcd").collect();
    let count = i32::try_from(members.len()).unwrap_or(i32::MAX / MEMBER_STEP);
    let rect = Rect { h: PANEL_TITLE_H + count * MEMBER_STEP + 4, ..at };
    for (i, member) in (0..).zip(&members) {
        let r = Rect::new(rect.x + 10, rect.y + PANEL_TITLE_H + i * MEMBER_STEP, rect.w - 20, MEMBER_H);
        l.add_box(&member.name, &member.name, BoxKind::Etcd, r);
    }
    l.anchors.insert(ETCD.to_string(), rect);
    let title = if members.len() == 1 { "etcd".to_string() } else { format!("etcd ({} members, Raft)", members.len()) };
    l.panels.push(Panel { kind: PanelKind::Etcd, title, rect });
    rect
}

/// Add-ons the engine runs as components (CoreDNS), stacked under etcd's panel; returns their bottom (etcd's
/// when there are none).
fn addon_boxes(l: &mut Layout, view: &View, etcd: Rect) -> i32 {
    let mut bottom = etcd.bottom();
    for c in view.components.iter().filter(|c| c.role == "addon") {
        let rect = Rect::new(etcd.x + 10, bottom + 14, etcd.w - 20, MEMBER_H + 4);
        l.add_box(&c.name, &c.name, BoxKind::Addon, rect);
        bottom = rect.bottom();
    }
    bottom
}

/// The pods no node runs yet, as chips in a panel at `at`.
fn unscheduled_panel(l: &mut Layout, pods: &[PodView], at: Rect) -> Rect {
    let inner = Rect::new(at.x + 10, at.y + PANEL_TITLE_H, at.w - 20, 0);
    let used = if pods.is_empty() {
        l.note("none", inner.x, inner.y + 12, "empty");
        CHIP_H
    } else {
        chip_grid(l, pods, inner, CHIP_ROWS_MAX)
    };
    let rect = Rect { h: PANEL_TITLE_H + used + 10, ..at };
    let title = format!("Not scheduled yet ({})", pods.len());
    l.panels.push(Panel { kind: PanelKind::Unscheduled, title, rect });
    rect
}

/// Chips for `pods` in rows across `area` (its height is ignored), at most `rows_max` rows: when they do not
/// all fit, the last cell says how many more there are. Returns the height used.
fn chip_grid(l: &mut Layout, pods: &[PodView], area: Rect, rows_max: usize) -> i32 {
    let cols = usize::try_from((area.w + CHIP_GAP) / (CHIP_MIN_W + CHIP_GAP)).unwrap_or(0).max(1);
    let chip_w = (area.w - (cols as i32 - 1) * CHIP_GAP) / cols as i32;
    let capacity = cols * rows_max.max(1);
    let shown = if pods.len() > capacity { capacity - 1 } else { pods.len() };
    let cells = shown + usize::from(pods.len() > shown);
    let cell = |i: usize| {
        let (row, col) = ((i / cols) as i32, (i % cols) as i32);
        Rect::new(area.x + col * (chip_w + CHIP_GAP), area.y + row * (CHIP_H + CHIP_GAP), chip_w, CHIP_H)
    };
    let max_chars = ((f64::from(chip_w) - 12.0) / CHIP_CHAR_W).floor().max(1.0) as usize;
    for (i, pod) in pods.iter().take(shown).enumerate() {
        l.chips.push(PodChip {
            key: format!("{}/{}", pod.namespace, pod.name),
            label: shorten(&pod.name, max_chars),
            status: pod.status.clone(),
            class: PodClass::of(&pod.status, &pod.ready),
            rect: cell(i),
        });
    }
    if shown < pods.len() {
        let r = cell(shown);
        l.note(format!("+{} more", pods.len() - shown), r.x + 6, r.y + CHIP_H / 2, "more");
    }
    let rows = cells.div_ceil(cols).max(1) as i32;
    rows * (CHIP_H + CHIP_GAP) - CHIP_GAP
}

/// The order a node's parts are drawn in: the kubelet next to the runtime it drives, kube-proxy after.
fn agent_rank(part: &str) -> u8 {
    match part {
        "kubelet" => 0,
        "containerd" => 1,
        "kube-proxy" => 2,
        _ => 3,
    }
}

/// Every node in full, in rows of up to four cards; returns the bottom of the last row.
fn node_cards(l: &mut Layout, view: &View, top: i32) -> i32 {
    let inner_x = MARGIN + PAD;
    let inner_w = WIDTH - 2 * (MARGIN + PAD);
    let cols = view.nodes.len().clamp(1, 4) as i32;
    let card_w = ((inner_w - (cols - 1) * GAP) / cols).min(CARD_W_MAX);
    let x0 = inner_x + (inner_w - (cols * card_w + (cols - 1) * GAP)) / 2;
    let mut y = top;
    for row in view.nodes.chunks(cols as usize) {
        let taint_h = if row.iter().any(|n| !n.taints.is_empty()) { TAINT_LINE_H } else { 0 };
        let pods_top = CARD_HEAD_H + 8 + taint_h + 6 + AGENT_H + 10;
        let mut row_h = 0;
        let mut cards = Vec::new();
        for (col, node) in (0..).zip(row) {
            let x = x0 + col * (card_w + GAP);
            let area = Rect::new(x + 8, y + pods_top, card_w - 16, 0);
            let used = if node.pods.is_empty() {
                l.note("no pods", area.x, area.y + 9, "empty");
                CHIP_H
            } else {
                chip_grid(l, &node.pods, area, CHIP_ROWS_MAX)
            };
            row_h = row_h.max(pods_top + used + 10);
            node_parts(l, view, node, Rect::new(x + 8, y + CARD_HEAD_H + 8 + taint_h + 6, card_w - 16, AGENT_H));
            cards.push(card(node, Rect::new(x, y, card_w, 0), taint_h));
        }
        for mut card in cards {
            card.rect.h = row_h;
            l.anchors.insert(card.name.clone(), card.head);
            l.cards.push(card);
        }
        y += row_h + GAP;
    }
    y - GAP
}

fn card(node: &NodeView, at: Rect, taint_h: i32) -> NodeCard {
    let head = Rect::new(at.x + 8, at.y + 8, at.w - 16, CARD_HEAD_H);
    NodeCard {
        name: node.name.clone(),
        rect: at,
        head,
        status: node.status.clone(),
        ready: node_ready(&node.status),
        control_plane: node.roles.split(',').any(|r| r == "control-plane"),
        taints: node.taints.join(", "),
        taint_line: (!node.taints.is_empty() && taint_h > 0)
            .then(|| Rect::new(head.x, head.bottom() + 2, head.w, TAINT_LINE_H)),
    }
}

/// A node's kubelet, containerd and kube-proxy side by side in `row`.
fn node_parts(l: &mut Layout, view: &View, node: &NodeView, row: Rect) {
    let mut parts: Vec<(&str, &str)> = view
        .components
        .iter()
        .filter(|c| c.role == "node" && c.node.as_deref() == Some(node.name.as_str()))
        .map(|c| (c.name.as_str(), c.name.rsplit('/').next().unwrap_or(&c.name)))
        .collect();
    parts.sort_by_key(|(_, part)| agent_rank(part));
    let count = parts.len() as i32;
    if count == 0 {
        return;
    }
    let w = (row.w - (count - 1) * 8) / count;
    for (i, (name, part)) in (0..).zip(parts) {
        l.add_box(name, part, BoxKind::Agent, Rect::new(row.x + i * (w + 8), row.y, w, row.h));
    }
    let kubelet = format!("{}/kubelet", node.name);
    let runtime = format!("{}/containerd", node.name);
    if l.anchors.contains_key(&kubelet) && l.anchors.contains_key(&runtime) {
        l.link(&kubelet, &runtime, LinkKind::Cri);
    }
}

/// Many nodes: aggregate counts, then a grid of tiles (at most [`TILES_MAX`]); returns the bottom.
fn node_grid(l: &mut Layout, view: &View, top: i32) -> i32 {
    let inner_x = MARGIN + PAD;
    let inner_w = WIDTH - 2 * (MARGIN + PAD);
    let ready = view.nodes.iter().filter(|n| node_ready(&n.status)).count();
    let cordoned = view.nodes.iter().filter(|n| n.status.contains("SchedulingDisabled")).count();
    let mut nodes_line = format!("{} nodes: {ready} Ready, {} NotReady", view.nodes.len(), view.nodes.len() - ready);
    if cordoned > 0 {
        nodes_line.push_str(&format!(", {cordoned} SchedulingDisabled"));
    }
    l.note(nodes_line, inner_x, top + 8, "summary");
    l.note(pod_counts(view.nodes.iter().flat_map(|n| &n.pods)), inner_x, top + 26, "summary");

    let cols = ((inner_w + TILE_GAP) / (TILE_W + TILE_GAP)).max(1);
    let x0 = inner_x + (inner_w - (cols * TILE_W + (cols - 1) * TILE_GAP)) / 2;
    let y0 = top + 40;
    let shown = view.nodes.len().min(TILES_MAX);
    for (i, node) in (0..).zip(view.nodes.iter().take(shown)) {
        let rect =
            Rect::new(x0 + (i % cols) * (TILE_W + TILE_GAP), y0 + (i / cols) * (TILE_H + TILE_GAP), TILE_W, TILE_H);
        l.anchors.insert(node.name.clone(), rect);
        l.tiles.push(NodeTile {
            name: node.name.clone(),
            label: shorten(&node.name, 12),
            rect,
            status: node.status.clone(),
            ready: node_ready(&node.status),
            pods: node.pods.len(),
        });
    }
    let rows = (shown as i32 + cols - 1) / cols;
    let mut bottom = y0 + rows * (TILE_H + TILE_GAP) - TILE_GAP;
    if shown < view.nodes.len() {
        l.note(format!("+{} more nodes, counted above", view.nodes.len() - shown), inner_x, bottom + 16, "more");
        bottom += 24;
    }
    let grid = Rect::new(x0, y0, cols * (TILE_W + TILE_GAP) - TILE_GAP, bottom - y0);
    l.anchors.insert(NODE_GRID.to_string(), grid);
    l.link(NODE_GRID, APISERVER, LinkKind::Api);
    bottom
}

/// `3000 pods: 2990 Running, 10 Pending`: how many pods are in each colour class.
pub fn pod_counts<'a>(pods: impl Iterator<Item = &'a PodView>) -> String {
    let mut counts: BTreeMap<PodClass, usize> = BTreeMap::new();
    let mut total = 0;
    for pod in pods {
        *counts.entry(PodClass::of(&pod.status, &pod.ready)).or_default() += 1;
        total += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(class, n)| format!("{n} {}", class.legend())).collect();
    if parts.is_empty() {
        return "0 pods".into();
    }
    format!("{total} pods: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass::view::{ComponentView, NodeView, PodView};

    fn component(name: &str, role: &str, node: Option<&str>) -> ComponentView {
        ComponentView { name: name.into(), role: role.into(), node: node.map(str::to_string), running: true }
    }

    fn pod(name: &str, status: &str) -> PodView {
        PodView { namespace: "default".into(), name: name.into(), status: status.into(), ready: "1/1".into() }
    }

    /// A cluster view with `etcd` members, `nodes` nodes (the first is the control-plane node) and `pods` pods
    /// on each node.
    fn cluster(etcd: usize, nodes: usize, pods: usize, cloud: bool) -> View {
        let mut components = Vec::new();
        for i in 0..etcd {
            components.push(component(&format!("etcd-{i}"), "etcd", Some("controlplane")));
        }
        for name in ["kube-apiserver", "kube-scheduler", "kube-controller-manager"] {
            components.push(component(name, "control-plane", Some("controlplane")));
        }
        if cloud {
            components.push(component("cloud-controller-manager", "control-plane", Some("controlplane")));
        }
        components.push(component("coredns", "addon", None));
        let names: Vec<String> =
            (0..nodes).map(|i| if i == 0 { "controlplane".to_string() } else { format!("node{i:02}") }).collect();
        for name in &names {
            for part in ["kubelet", "containerd", "kube-proxy"] {
                components.push(component(&format!("{name}/{part}"), "node", Some(name)));
            }
        }
        components.push(component("kubectl", "client", None));
        let nodes = names
            .iter()
            .enumerate()
            .map(|(i, name)| NodeView {
                name: name.clone(),
                status: if i == 2 { "NotReady".into() } else { "Ready".into() },
                roles: if i == 0 { "control-plane".into() } else { "<none>".into() },
                taints: if i == 0 { vec!["node-role.kubernetes.io/control-plane:NoSchedule".into()] } else { vec![] },
                pods: (0..pods).map(|p| pod(&format!("{name}-pod-{p}"), "Running")).collect(),
            })
            .collect();
        View { components, nodes, ..View::default() }
    }

    fn rect_of(l: &Layout, name: &str) -> Rect {
        l.boxes.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("no box {name}")).rect
    }

    /// Every box, card, tile and chip: the things that must not overlap one another.
    fn solid_rects(l: &Layout) -> Vec<(String, Rect)> {
        let mut all: Vec<(String, Rect)> = l.boxes.iter().map(|b| (b.name.clone(), b.rect)).collect();
        all.extend(l.cards.iter().map(|c| (format!("head {}", c.name), c.head)));
        all.extend(l.tiles.iter().map(|t| (format!("tile {}", t.name), t.rect)));
        all.extend(l.chips.iter().map(|c| (format!("chip {}", c.key), c.rect)));
        all
    }

    fn assert_tidy(l: &Layout) {
        let all = solid_rects(l);
        let page = Rect::new(0, 0, l.width, l.height);
        for (i, (a, ra)) in all.iter().enumerate() {
            assert!(page.contains(ra), "{a} {ra:?} lies inside the diagram {page:?}");
            for (b, rb) in &all[i + 1..] {
                assert!(!ra.overlaps(rb), "{a} {ra:?} overlaps {b} {rb:?}");
            }
        }
        for card in &l.cards {
            assert!(card.rect.contains(&card.head));
        }
        for (i, a) in l.panels.iter().enumerate() {
            assert!(page.contains(&a.rect), "panel {} inside the diagram", a.title);
            for b in &l.panels[i + 1..] {
                let nested = a.rect.contains(&b.rect) || b.rect.contains(&a.rect);
                assert!(nested || !a.rect.overlaps(&b.rect), "panels {} and {} overlap", a.title, b.title);
            }
        }
    }

    #[test]
    fn the_default_cluster_is_drawn_in_full_and_tidy() {
        let view = kubeglass::Cluster::new_default(1).view();
        let l = layout(&view);
        assert_tidy(&l);
        // Every cluster component has its box; the person's kubectl too, but not the node shell.
        for c in view.components.iter().filter(|c| c.role != "client") {
            assert!(l.boxes.iter().any(|b| b.name == c.name), "{} is drawn", c.name);
        }
        assert!(l.boxes.iter().any(|b| b.name == "kubectl" && b.kind == BoxKind::Client));
        assert!(!l.boxes.iter().any(|b| b.name == "controlplane/shell"));
        let cards: Vec<_> = l.cards.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cards, ["controlplane", "node01", "node02"]);
        assert!(l.cards[0].control_plane && l.cards[0].taint_line.is_some());
        assert!(l.tiles.is_empty());
        // The static pods of the control-plane node are chips on its card.
        let cp = &l.cards[0];
        let on_cp = l.chips.iter().filter(|c| cp.rect.contains(&c.rect)).count();
        assert!(on_cp >= 4, "static pods on the control-plane node: {on_cp}");
        // Usable at 1280×720: the diagram is wider than tall.
        assert!(l.height < l.width, "height {}", l.height);
    }

    #[test]
    fn the_apiserver_is_at_the_centre_with_etcd_beside_it_and_the_others_above() {
        let l = layout(&cluster(3, 3, 2, true));
        let api = rect_of(&l, APISERVER);
        assert!((api.centre().x - f64::from(WIDTH) / 2.0).abs() < 1.0);
        for name in ["kube-scheduler", "kube-controller-manager", "cloud-controller-manager"] {
            assert!(rect_of(&l, name).bottom() < api.y, "{name} is above the apiserver");
        }
        for i in 0..3 {
            let member = rect_of(&l, &format!("etcd-{i}"));
            assert!(member.x > api.right(), "etcd-{i} is right of the apiserver");
        }
        let kubectl = rect_of(&l, "kubectl");
        assert!(kubectl.bottom() < rect_of(&l, "kube-scheduler").y);
        // The client's arrow comes straight down to the apiserver without crossing a box.
        let (a, b) = l.path("kubectl", APISERVER).unwrap();
        assert_eq!(a.x, b.x);
        for bx in l.boxes.iter().filter(|b| b.name != "kubectl" && b.name != APISERVER) {
            let r = bx.rect;
            let level = f64::from(r.y) < b.y && f64::from(r.bottom()) > a.y;
            let across = f64::from(r.x) < a.x && a.x < f64::from(r.right());
            assert!(!(level && across), "{} lies in the way", bx.name);
        }
        assert_tidy(&l);
    }

    #[test]
    fn every_request_arrow_points_at_the_apiserver() {
        let l = layout(&cluster(3, 4, 1, true));
        for link in &l.links {
            match link.kind {
                LinkKind::Api => assert_eq!(link.to, APISERVER, "{} → {}", link.from, link.to),
                LinkKind::Etcd => assert_eq!((link.from.as_str(), link.to.as_str()), (APISERVER, ETCD)),
                LinkKind::Cri => {
                    assert!(link.from.ends_with("/kubelet") && link.to.ends_with("/containerd"));
                    assert_eq!(link.from.split('/').next(), link.to.split('/').next(), "a kubelet drives its own node");
                }
            }
        }
        let from_api: Vec<_> = l.links.iter().filter(|k| k.from == APISERVER).collect();
        assert_eq!(from_api.len(), 1, "the apiserver calls only etcd");
        // kubectl, scheduler, controller managers, CoreDNS, and each node's kubelet and kube-proxy.
        assert_eq!(l.links.iter().filter(|k| k.kind == LinkKind::Api).count(), 1 + 3 + 1 + 4 * 2);
        assert_eq!(l.links.iter().filter(|k| k.kind == LinkKind::Cri).count(), 4);
        // Arrows start at the client's border and end at the server's.
        let (a, b) = (rect_of(&l, "node01/kubelet"), rect_of(&l, APISERVER));
        let link = l.links.iter().find(|k| k.from == "node01/kubelet" && k.kind == LinkKind::Api).unwrap();
        assert!((link.a.y - f64::from(a.y)).abs() < 1e-9, "leaves the kubelet's top");
        assert!((link.b.y - f64::from(b.bottom())).abs() < 1e-9, "enters the apiserver's bottom");
    }

    #[test]
    fn one_to_twelve_nodes_are_drawn_in_full_and_stay_tidy() {
        for nodes in 1..=DETAILED_NODES_MAX {
            for pods in [0, 3, 40] {
                let view = cluster(1, nodes, pods, false);
                let l = layout(&view);
                assert_eq!(l.cards.len(), nodes);
                assert!(l.tiles.is_empty());
                assert_tidy(&l);
                for node in &view.nodes {
                    for part in ["kubelet", "containerd", "kube-proxy"] {
                        assert!(l.anchor(&format!("{}/{part}", node.name)).is_some());
                    }
                }
                // Cards hold their chips.
                for chip in &l.chips {
                    assert!(l.cards.iter().any(|c| c.rect.contains(&chip.rect)), "chip {} in a card", chip.key);
                }
            }
        }
    }

    #[test]
    fn tab_reaches_the_control_plane_then_each_node_and_its_parts() {
        let l = layout(&cluster(3, 3, 0, true));
        let names: Vec<String> = l.toggles().iter().map(|t| t.name().to_string()).collect();
        assert_eq!(
            names,
            [
                "kube-scheduler",
                "kube-controller-manager",
                "cloud-controller-manager",
                "kube-apiserver",
                "etcd-0",
                "etcd-1",
                "etcd-2",
                "coredns",
                "controlplane",
                "controlplane/kubelet",
                "controlplane/containerd",
                "controlplane/kube-proxy",
                "node01",
                "node01/kubelet",
                "node01/containerd",
                "node01/kube-proxy",
                "node02",
                "node02/kubelet",
                "node02/containerd",
                "node02/kube-proxy",
            ]
        );
        let grid = layout(&cluster(1, 20, 0, false));
        let names: Vec<String> = grid.toggles().iter().map(|t| t.name().to_string()).collect();
        assert_eq!(names.len(), 5 + 20, "the control plane, CoreDNS and one tile per node");
        assert_eq!(names[5], "controlplane");
        assert!(matches!(grid.toggles()[5], Toggleable::Tile(_)));
    }

    #[test]
    fn cards_sit_in_rows_of_at_most_four_and_a_lone_node_is_not_stretched() {
        let l = layout(&cluster(1, 9, 0, false));
        let mut rows: Vec<i32> = l.cards.iter().map(|c| c.rect.y).collect();
        rows.dedup();
        assert_eq!(rows.len(), 3);
        assert!(l.cards.iter().filter(|c| c.rect.y == rows[0]).count() == 4);
        let lone = layout(&cluster(1, 1, 0, false));
        assert!(lone.cards[0].rect.w <= CARD_W_MAX);
        let centre = lone.cards[0].rect.centre().x;
        assert!((centre - f64::from(WIDTH) / 2.0).abs() < 1.0, "a lone card is centred");
    }

    #[test]
    fn many_pods_on_a_node_are_capped_with_a_count_of_the_rest() {
        let l = layout(&cluster(1, 3, 100, false));
        let card = &l.cards[1];
        let chips = l.chips.iter().filter(|c| card.rect.contains(&c.rect)).count();
        assert!(chips < 100);
        let more = l.notes.iter().find(|n| n.class == "more" && card.rect.x <= n.x && n.x < card.rect.right());
        assert_eq!(more.map(|n| n.text.clone()), Some(format!("+{} more", 100 - chips)));
    }

    #[test]
    fn many_nodes_collapse_into_a_grid_with_aggregate_counts() {
        let view = cluster(1, 40, 3, false);
        let l = layout(&view);
        assert!(l.cards.is_empty());
        assert_eq!(l.tiles.len(), 40);
        assert!(l.chips.is_empty(), "pods are counted, not drawn");
        assert_tidy(&l);
        let summary: Vec<_> = l.notes.iter().filter(|n| n.class == "summary").map(|n| n.text.as_str()).collect();
        assert_eq!(summary, ["40 nodes: 39 Ready, 1 NotReady", "120 pods: 120 Running"]);
        assert!(l.tiles.iter().all(|t| t.pods == 3));
        assert!(!l.tiles[2].ready);
        // A node's parts are not drawn one by one: messages to them go to the node's tile.
        assert_eq!(l.anchor("node05/kubelet"), Some(l.tiles[5].rect));
        // One arrow stands for every node's kubelet and kube-proxy.
        let grid: Vec<_> = l.links.iter().filter(|k| k.from == NODE_GRID).collect();
        assert_eq!(grid.len(), 1);
        assert_eq!(grid[0].to, APISERVER);
        assert!(l.height < 1000, "40 nodes fit in {} units", l.height);
    }

    #[test]
    fn thousands_of_nodes_draw_a_bounded_number_of_tiles() {
        let view = cluster(1, 5000, 0, false);
        let l = layout(&view);
        assert_eq!(l.tiles.len(), TILES_MAX);
        assert!(l.notes.iter().any(|n| n.text == format!("+{} more nodes, counted above", 5000 - TILES_MAX)));
        // A node without a tile still has somewhere for its messages to go.
        assert_eq!(l.anchor("node4000/kubelet"), l.anchors.get(NODE_GRID).copied());
        assert!(l.height < 1500, "{}", l.height);
    }

    #[test]
    fn etcd_members_stack_beside_the_apiserver_for_one_three_and_five_members() {
        for members in [1, 3, 5] {
            let l = layout(&cluster(members, 3, 0, false));
            assert_tidy(&l);
            let etcd = l.panels.iter().find(|p| p.kind == PanelKind::Etcd).unwrap();
            for i in 0..members {
                assert!(etcd.rect.contains(&rect_of(&l, &format!("etcd-{i}"))));
            }
            assert_eq!(l.anchor(ETCD), Some(etcd.rect));
        }
    }

    #[test]
    fn add_ons_sit_under_etcd_and_call_the_apiserver() {
        for members in [1, 5] {
            let l = layout(&cluster(members, 3, 0, false));
            let dns = rect_of(&l, "coredns");
            let etcd = l.panels.iter().find(|p| p.kind == PanelKind::Etcd).unwrap().rect;
            assert!(dns.y > etcd.bottom() && dns.x > etcd.x && dns.right() < etcd.right());
            let control_plane = l.panels.iter().find(|p| p.kind == PanelKind::ControlPlane).unwrap().rect;
            assert!(control_plane.contains(&dns));
            assert!(l.links.iter().any(|k| k.from == "coredns" && k.to == APISERVER));
            assert_tidy(&l);
        }
    }

    #[test]
    fn pods_without_a_node_wait_beside_the_apiserver() {
        let mut view = cluster(1, 3, 0, false);
        view.unscheduled = vec![pod("web-1", "Pending"), pod("web-2", "Pending")];
        let l = layout(&view);
        let panel = l.panels.iter().find(|p| p.kind == PanelKind::Unscheduled).unwrap();
        assert_eq!(panel.title, "Not scheduled yet (2)");
        let chips: Vec<_> = l.chips.iter().filter(|c| panel.rect.contains(&c.rect)).collect();
        assert_eq!(chips.len(), 2);
        assert!(chips.iter().all(|c| c.class == PodClass::Pending));
        assert!(panel.rect.right() < rect_of(&l, APISERVER).x);
        assert_tidy(&l);
    }

    #[test]
    fn messages_attach_to_boxes_or_to_their_node() {
        let l = layout(&cluster(1, 3, 0, false));
        assert_eq!(l.anchor("node01/kubelet"), Some(rect_of(&l, "node01/kubelet")));
        assert_eq!(l.anchor("controlplane/shell"), Some(l.cards[0].head), "a part not drawn uses its node");
        assert_eq!(l.anchor("nobody"), None);
        let (a, b) = l.path(APISERVER, "node01/kubelet").unwrap();
        let (c, d) = l.path("node01/kubelet", APISERVER).unwrap();
        assert_eq!((a, b), (d, c), "a response travels the request's path backwards");
    }

    #[test]
    fn pod_counts_group_by_class() {
        let pods = [pod("a", "Running"), pod("b", "Pending"), pod("c", "Running"), pod("d", "CrashLoopBackOff")];
        assert_eq!(pod_counts(pods.iter()), "4 pods: 2 Running, 1 Pending / creating, 1 Failed / back-off");
        assert_eq!(pod_counts([].iter()), "0 pods");
    }
}
