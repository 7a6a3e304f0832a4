//! The nodes and their pods, plus the pods no node runs yet. Until the engine reports nodes and pods the
//! panel says so.

use kubeglass::view::{NodeView, PodView};
use leptos::prelude::*;

use crate::app::use_sim;
use crate::diagram::status::node_ready;

#[component]
pub fn NodeList() -> impl IntoView {
    let view = use_sim().view();
    let nodes = Memo::new(move |_| view.with(|v| v.nodes.clone()));
    let unscheduled = Memo::new(move |_| view.with(|v| v.unscheduled.clone()));

    view! {
        <section class="panel nodes-panel" aria-labelledby="nodes-title">
            <div class="panel-head">
                <h2 id="nodes-title">"Nodes and pods"</h2>
            </div>
            {move || {
                let nodes = nodes.get();
                let unscheduled = unscheduled.get();
                if nodes.is_empty() && unscheduled.is_empty() {
                    return view! { <p class="empty">"No pods yet"</p> }.into_any();
                }
                view! {
                    <div class="nodes">
                        {nodes.into_iter().map(|node| view! { <NodeCard node/> }).collect_view()}
                        {(!unscheduled.is_empty())
                            .then(|| {
                                view! {
                                    <article class="node node-pending" aria-label="Unscheduled pods">
                                        <header class="node-head-row">
                                            <h3>"Unscheduled"</h3>
                                            <span class="badge">"Pending"</span>
                                        </header>
                                        <PodTable pods=unscheduled/>
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
fn NodeCard(node: NodeView) -> impl IntoView {
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
                view! { <PodTable pods=node.pods/> }.into_any()
            }}
        </article>
    }
}

#[component]
fn PodTable(pods: Vec<PodView>) -> impl IntoView {
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
            </tbody>
        </table>
    }
}
