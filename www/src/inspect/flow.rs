//! The Data flow panel beside the diagram: a history of the person's kubectl commands (the latest is
//! followed unless one is picked), the path of the command's own requests through kube-apiserver's stages
//! with the stage that stopped it, and the numbered steps of its chain as `<ol aria-label="Data flow">`
//! (hovering or focusing a step highlights it on the diagram). Also the Trace tab: every delivery of the
//! chain with its send and delivery times, and every request of the chain through the apiserver.

use kubeglass::view::flow::RequestPath;
use kubeglass::view::steps::circled;
use leptos::prelude::*;

use super::{seconds, use_inspect};
use crate::app::use_sim;

/// The client name of the person's kubectl in the engine.
const KUBECTL: &str = "kubectl";

#[component]
pub fn DataFlow() -> impl IntoView {
    let sim = use_sim();
    let inspect = use_inspect();
    let mine = Memo::new(move |_| {
        inspect.flow.with(|f| {
            f.as_ref()
                .map(|f| f.requests.iter().filter(|r| r.client == KUBECTL).cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    let chain = inspect.chain;
    let on_pick = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        inspect.chosen.set(value.parse().ok());
        inspect.focused.set(None);
    };
    view! {
        <section class="panel flow" aria-labelledby="flow-title">
            <div class="panel-head">
                <h2 id="flow-title">"Data flow"</h2>
                <select class="flow-pick" aria-label="Request" on:change=on_pick>
                    <option value="latest" selected=move || inspect.chosen.get().is_none()>
                        "Latest request"
                    </option>
                    {move || {
                        sim.requests
                            .get()
                            .into_iter()
                            .rev()
                            .map(|r| {
                                let c = r.chain;
                                view! {
                                    <option value=c.to_string() selected=move || inspect.chosen.get() == Some(c)>
                                        {format!("{} {}", seconds(r.at_ms), r.line)}
                                    </option>
                                }
                            })
                            .collect_view()
                    }}
                </select>
            </div>
            {move || {
                chain
                    .get()
                    .is_none()
                    .then(|| {
                        view! {
                            <p class="hint">
                                "Run a kubectl command: its requests are numbered here and on the diagram."
                            </p>
                        }
                    })
            }}
            <div class="paths">
                <For each=move || mine.get() key=|p| (p.at_ms, p.summary.clone(), p.code) let:path>
                    <RequestPathRow path/>
                </For>
            </div>
            <ol class="steps" aria-label="Data flow">
                <For
                    each=move || inspect.steps.get()
                    key=move |s| (chain.get_untracked(), s.number)
                    let:step
                >
                    {
                        let n = step.number;
                        let focus = move || inspect.focused.set(Some(n));
                        let blur = move || inspect.focused.update(|f| if *f == Some(n) { *f = None });
                        view! {
                            <li
                                tabindex="0"
                                data-step=n.to_string()
                                class:focused=move || inspect.focused.get() == Some(n)
                                class:dropped=step.outcome != "delivered"
                                on:mouseenter=move |_| focus()
                                on:mouseleave=move |_| blur()
                                on:focus=move |_| focus()
                                on:blur=move |_| blur()
                            >
                                <span class="num" aria-hidden="true">{circled(n)}</span>
                                <span class="when">{seconds(step.delivered_ms)}</span>
                                <span class="route">{format!("{} → {}", step.from, step.to)}</span>
                                <span class="what">
                                    {step.label.clone()}
                                    {(step.outcome != "delivered").then(|| format!(" ({})", step.outcome))}
                                </span>
                                <span class="obj">
                                    {step.object.clone().unwrap_or_default()}
                                    {step.revision.map(|r| format!(" · rev {r}"))}
                                </span>
                            </li>
                        }
                    }
                </For>
            </ol>
        </section>
    }
}

/// The mark of a stage's state: passed, failed, or not reached.
fn stage_mark(state: &str) -> &'static str {
    match state {
        "passed" => "✓",
        "failed" => "✗",
        _ => "·",
    }
}

/// One request of the person through the apiserver's stages.
#[component]
fn RequestPathRow(path: RequestPath) -> impl IntoView {
    let verdict = match &path.stopped_at {
        Some(stage) => format!("stopped at {stage} ({})", path.code),
        None => format!("{} · {}", path.code, if path.user.is_empty() { "anonymous" } else { &path.user }),
    };
    view! {
        <div class="path" class:refused=path.stopped_at.is_some()>
            <div class="path-head">
                <span class="path-what">{path.summary.clone()} {path.object.clone().map(|o| format!(" {o}"))}</span>
                <span class="path-verdict">{verdict}</span>
            </div>
            <ol class="stages" aria-label=format!("Path of {} through kube-apiserver", path.summary)>
                {path
                    .stages
                    .iter()
                    .map(|s| {
                        let mark = stage_mark(&s.state);
                        view! {
                            <li
                                class=format!("stage stage-{}", s.state.replace(' ', "-"))
                                data-stage=s.name.clone()
                                data-state=s.state.clone()
                                title=s.detail.clone()
                            >
                                <span aria-hidden="true">{mark}</span>
                                {format!(" {}", s.name)}
                                {(s.state == "not reached").then(|| view! { <span class="sr-only">" (not reached)"</span> })}
                                {(s.state == "failed").then(|| view! { <span class="sr-only">" (refused)"</span> })}
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            {path
                .stages
                .iter()
                .find(|s| s.state == "failed")
                .map(|s| view! { <p class="path-why">{s.detail.clone()}</p> })}
        </div>
    }
}

/// The Trace tab: every delivery of the chain and every request of it through the apiserver.
#[component]
pub fn Trace() -> impl IntoView {
    let inspect = use_inspect();
    view! {
        {move || {
            let Some(flow) = inspect.flow.get() else {
                return view! { <p class="hint">"Run a kubectl command to trace it."</p> }.into_any();
            };
            view! {
                <div class="trace">
                    <h3>{format!("Chain {}: {} deliveries", flow.chain, flow.steps.len())}</h3>
                    <div class="table-wrap">
                        <table class="grid">
                            <thead>
                                <tr>
                                    <th scope="col">"#"</th>
                                    <th scope="col">"Sent"</th>
                                    <th scope="col">"Delivered"</th>
                                    <th scope="col">"From → to"</th>
                                    <th scope="col">"Message"</th>
                                    <th scope="col">"Object"</th>
                                    <th scope="col">"Outcome"</th>
                                </tr>
                            </thead>
                            <tbody>
                                {flow
                                    .steps
                                    .iter()
                                    .map(|s| {
                                        view! {
                                            <tr>
                                                <td>{circled(s.number)}</td>
                                                <td>{seconds(s.sent_ms)}</td>
                                                <td>{seconds(s.delivered_ms)}</td>
                                                <td>{format!("{} → {}", s.from, s.to)}</td>
                                                <td>{s.label.clone()}</td>
                                                <td>
                                                    {s.object.clone().unwrap_or_default()}
                                                    {s.revision.map(|r| format!(" rev {r}"))}
                                                </td>
                                                <td>{s.outcome.clone()}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <h3>{format!("{} requests through kube-apiserver", flow.requests.len())}</h3>
                    <ul class="trace-requests">
                        {flow
                            .requests
                            .iter()
                            .map(|r| {
                                let stages = r
                                    .stages
                                    .iter()
                                    .map(|s| {
                                        let mark = stage_mark(&s.state);
                                        if s.detail.is_empty() {
                                            format!("{} {mark}", s.name)
                                        } else {
                                            format!("{} {mark} {}", s.name, s.detail)
                                        }
                                    })
                                    .collect::<Vec<_>>()
                                    .join(" → ");
                                view! {
                                    <li>
                                        <span class="when">{seconds(r.at_ms)}</span>
                                        " "
                                        <strong>{r.client.clone()}</strong>
                                        {format!(" {} {} → {}", r.summary, r.object.clone().unwrap_or_default(), r.code)}
                                        <div class="trace-stages">{stages}</div>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                </div>
            }
                .into_any()
        }}
    }
}
