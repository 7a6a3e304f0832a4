//! The cluster's components grouped as control plane, etcd, and one group per node. Each is a toggle
//! button: pressed means stopped. Click, Enter or Space stops a running component or starts a stopped one.

use kubeglass::view::ComponentView;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::app::use_sim;

/// One box of the grid: a title and the components in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub title: String,
    /// A CSS class naming the kind of group: `control-plane`, `etcd`, `node`, `other`.
    pub kind: &'static str,
    /// The node, for a node's group.
    pub node: Option<String>,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The scenario name, e.g. `node01/kubelet`.
    pub name: String,
    /// What the tile shows inside its group, e.g. `kubelet`.
    pub label: String,
}

/// Groups components by role (control plane, etcd, then each node in order of appearance, then the rest),
/// keeping the engine's order inside each group. Clients (the person's kubectl) are not cluster components
/// and cannot be stopped, so they are not listed here.
pub fn group_components(components: &[ComponentView]) -> Vec<Group> {
    let mut groups: Vec<(u8, Group)> = Vec::new();
    for component in components.iter().filter(|c| c.role != "client") {
        let (rank, kind, title) = match (component.role.as_str(), &component.node) {
            ("control-plane", _) => (0, "control-plane", "Control plane".to_string()),
            ("etcd", _) => (1, "etcd", "etcd".to_string()),
            ("node", Some(node)) => (2, "node", format!("Node {node}")),
            (role, _) => (3, "other", role.to_string()),
        };
        let label = match (kind, component.name.split_once('/')) {
            ("node", Some((_, part))) => part.to_string(),
            _ => component.name.clone(),
        };
        let member = Member { name: component.name.clone(), label };
        match groups.iter_mut().find(|(_, g)| g.title == title) {
            Some((_, group)) => group.members.push(member),
            None => groups.push((
                rank,
                Group {
                    title,
                    kind,
                    node: (kind == "node").then(|| component.node.clone()).flatten(),
                    members: vec![member],
                },
            )),
        }
    }
    groups.sort_by_key(|(rank, _)| *rank);
    groups.into_iter().map(|(_, group)| group).collect()
}

#[component]
pub fn ComponentGrid() -> impl IntoView {
    let view = use_sim().view();
    let groups = Memo::new(move |_| view.with(|v| group_components(&v.components)));

    view! {
        <section class="panel" aria-labelledby="components-title">
            <div class="panel-head">
                <h2 id="components-title">"Components"</h2>
                <p class="hint">"Click a component, or focus it and press Enter or Space, to stop or start it."</p>
            </div>
            <div class="groups">
                <For each=move || groups.get() key=|group| group.title.clone() let:group>
                    <div class=format!("group group-{}", group.kind) role="group" aria-label=group.title.clone()>
                        <h3>
                            {match group.node.clone() {
                                Some(node) => view! { "Node " <code>{node}</code> }.into_any(),
                                None => group.title.clone().into_any(),
                            }}
                        </h3>
                        <div class="tiles">
                            <For each=move || group.members.clone() key=|member| member.name.clone() let:member>
                                <ComponentTile name=member.name label=member.label/>
                            </For>
                        </div>
                    </div>
                </For>
            </div>
        </section>
    }
}

#[component]
fn ComponentTile(name: String, label: String) -> impl IntoView {
    let sim = use_sim();
    let view = sim.view();
    let running = {
        let name = name.clone();
        Memo::new(move |_| view.with(|v| v.components.iter().any(|c| c.name == name && c.running)))
    };
    let toggle = {
        let name = name.clone();
        move || sim.toggle(&name)
    };
    let on_key = {
        let toggle = toggle.clone();
        move |ev: KeyboardEvent| {
            if matches!(ev.key().as_str(), "Enter" | " " | "Spacebar") {
                ev.prevent_default();
                if !ev.repeat() {
                    toggle();
                }
            }
        }
    };

    view! {
        <div
            class="component"
            class:stopped=move || !running.get()
            role="button"
            tabindex="0"
            aria-label=name.clone()
            aria-pressed=move || if running.get() { "false" } else { "true" }
            title=move || format!("{name}: {} (click to {})",
                if running.get() { "running" } else { "stopped" },
                if running.get() { "stop" } else { "start" })
            on:click=move |_| toggle()
            on:keydown=on_key
        >
            <span class="dot" aria-hidden="true"></span>
            <span class="component-text">
                <span class="component-name">{label}</span>
                <span class="component-state" aria-hidden="true">
                    {move || if running.get() { "running" } else { "stopped" }}
                </span>
            </span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(name: &str, role: &str, node: Option<&str>) -> ComponentView {
        ComponentView { name: name.to_string(), role: role.to_string(), node: node.map(str::to_string), running: true }
    }

    #[test]
    fn groups_by_role_then_node() {
        let groups = group_components(&[
            component("node01/kubelet", "node", Some("node01")),
            component("etcd-0", "etcd", Some("controlplane")),
            component("kube-apiserver", "control-plane", Some("controlplane")),
            component("node01/kube-proxy", "node", Some("node01")),
            component("node02/kubelet", "node", Some("node02")),
            component("kubectl", "client", None),
            component("cloud-controller-manager", "cloud", Some("controlplane")),
        ]);
        let titles: Vec<_> = groups.iter().map(|g| g.title.as_str()).collect();
        assert_eq!(titles, ["Control plane", "etcd", "Node node01", "Node node02", "cloud"]);
        let node01: Vec<_> = groups[2].members.iter().map(|m| (m.name.as_str(), m.label.as_str())).collect();
        assert_eq!(node01, [("node01/kubelet", "kubelet"), ("node01/kube-proxy", "kube-proxy")]);
    }

    #[test]
    fn groups_the_default_cluster() {
        let view = kubeglass::Cluster::new_default(1).view();
        let groups = group_components(&view.components);
        assert_eq!(groups[0].title, "Control plane");
        assert_eq!(groups[1].members[0].name, "etcd-0");
        let titles: Vec<_> = groups.iter().map(|g| g.title.as_str()).collect();
        assert_eq!(titles, ["Control plane", "etcd", "Node controlplane", "Node node01", "Node node02", "addon"]);
        assert_eq!(groups[5].members[0].name, "coredns");
        assert!(groups.iter().all(|g| !g.members.is_empty()));
    }
}
