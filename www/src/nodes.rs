//! The nodes and their pods as tables, plus the pods no node runs yet. Until the engine reports nodes and
//! pods the panel says so. In a big cluster the tables show the first [`NODES_SHOWN`] nodes and the first
//! [`PODS_SHOWN`] pods of each (the diagram counts the rest), so the page stays fast.

use kubeglass::view::{NodeView, PodView};
use leptos::prelude::*;

use crate::app::use_sim;
use crate::diagram::status::node_ready;

const NODES_SHOWN: usize = 12;
const PODS_SHOWN: usize = 15;

/// `items` cut to `max`, and how many were left out.
fn first<T: Clone>(items: &[T], max: usize) -> (Vec<T>, usize) {
    (items.iter().take(max).cloned().collect(), items.len().saturating_sub(max))
}

/// A node with its first pods.
fn trimmed(node: &NodeView) -> (NodeView, usize) {
    let (pods, hidden) = first(&node.pods, PODS_SHOWN);
    (NodeView { pods, ..node.clone() }, hidden)
}

#[component]
pub fn NodeList() -> impl IntoView {
    let view = use_sim().view();
    let nodes = Memo::new(move |_| {
        view.with(|v| {
            let (shown, hidden) = first(&v.nodes, NODES_SHOWN);
            (shown.iter().map(trimmed).collect::<Vec<_>>(), hidden)
        })
    });
    let unscheduled = Memo::new(move |_| view.with(|v| first(&v.unscheduled, PODS_SHOWN)));

    view! {
        <section class="panel nodes-panel" aria-labelledby="nodes-title">
            <div class="panel-head">
                <h2 id="nodes-title">"Nodes and pods"</h2>
            </div>
            {move || {
                let (nodes, hidden_nodes) = nodes.get();
                let (unscheduled, hidden_pods) = unscheduled.get();
                if nodes.is_empty() && unscheduled.is_empty() {
                    return view! { <p class="empty">"No pods yet"</p> }.into_any();
                }
                view! {
                    <div class="nodes">
                        {nodes.into_iter().map(|(node, hidden)| view! { <NodeCard node hidden/> }).collect_view()}
                        {(hidden_nodes > 0)
                            .then(|| {
                                view! {
                                    <p class="empty">
                                        {format!("{hidden_nodes} more nodes: the diagram counts their pods")}
                                    </p>
                                }
                            })}
                        {(!unscheduled.is_empty())
                            .then(|| {
                                view! {
                                    <article class="node node-pending" aria-label="Unscheduled pods">
                                        <header class="node-head-row">
                                            <h3>"Unscheduled"</h3>
                                            <span class="badge">"Pending"</span>
                                        </header>
                                        <PodTable pods=unscheduled hidden=hidden_pods/>
                                    </article>
                                }
                            })}
                    </div>
                }
                    .into_any()
            }}
        </section>
    }
}

#[component]
fn NodeCard(node: NodeView, hidden: usize) -> impl IntoView {
    let ready = node_ready(&node.status);
    view! {
        <article class="node" aria-label=format!("Node {}", node.name)>
            <header class="node-head-row">
                <h3>{node.name.clone()}</h3>
                <span class="badge" class:bad=!ready>{node.status.clone()}</span>
                {(!node.roles.is_empty() && node.roles != "<none>")
                    .then(|| view! { <span class="roles">{node.roles.clone()}</span> })}
            </header>
            {(!node.taints.is_empty())
                .then(|| view! { <p class="taints-text">"Taints: " {node.taints.join(", ")}</p> })}
            {if node.pods.is_empty() {
                view! { <p class="empty">"No pods yet"</p> }.into_any()
            } else {
                view! { <PodTable pods=node.pods hidden/> }.into_any()
            }}
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_tables_are_cut_with_a_count_of_the_rest() {
        assert_eq!(first(&[1, 2, 3], 2), (vec![1, 2], 1));
        assert_eq!(first(&[1, 2], 5), (vec![1, 2], 0));
        let pod = PodView { namespace: "d".into(), name: "p".into(), status: "Running".into(), ready: "1/1".into() };
        let node = NodeView {
            name: "n".into(),
            status: "Ready".into(),
            roles: "<none>".into(),
            taints: vec![],
            pods: vec![pod; PODS_SHOWN + 3],
        };
        let (cut, hidden) = trimmed(&node);
        assert_eq!((cut.pods.len(), hidden), (PODS_SHOWN, 3));
        assert_eq!(cut.name, "n");
    }
}

#[component]
fn PodTable(pods: Vec<PodView>, hidden: usize) -> impl IntoView {
    view! {
        <table class="pods">
            <thead>
                <tr>
                    <th scope="col">"Namespace"</th>
                    <th scope="col">"Name"</th>
                    <th scope="col">"Ready"</th>
                    <th scope="col">"Status"</th>
                </tr>
            </thead>
            <tbody>
                {pods
                    .into_iter()
                    .map(|pod| {
                        view! {
                            <tr>
                                <td>{pod.namespace}</td>
                                <td class="pod-name">{pod.name}</td>
                                <td>{pod.ready}</td>
                                <td>{pod.status}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
                {(hidden > 0)
                    .then(|| {
                        view! {
                            <tr>
                                <td colspan="4" class="more">{format!("… and {hidden} more")}</td>
                            </tr>
                        }
                    })}
            </tbody>
        </table>
    }
}
