//! The inspectors' tabs: any object as YAML with its owners as links, the etcd browser, the scheduler's
//! decision table for a pod, kube-proxy's rules on a node, and the event stream. Each renders what the
//! engine's read-only accessors return, refreshed with every published view while its tab is shown.

use kubeglass::view::object::PICKABLE;
use leptos::prelude::*;

use super::use_inspect;
use crate::app::use_sim;

/// The pickers list at most this many objects.
const PICK_MAX: usize = 300;

#[component]
pub fn ObjectInspector() -> impl IntoView {
    let sim = use_sim();
    let inspect = use_inspect();
    let view = sim.view();
    let (resource, object) = (inspect.resource, inspect.object);
    let names = Memo::new(move |_| {
        view.track();
        let r = resource.get();
        sim.with_cluster(|c| c.object_names(&r, PICK_MAX)).unwrap_or_default()
    });
    let shown = Memo::new(move |_| {
        view.track();
        let (r, key) = (resource.get(), object.get());
        if key.is_empty() {
            return None;
        }
        let (ns, name) = match key.split_once('/') {
            Some((ns, name)) => (Some(ns.to_string()), name.to_string()),
            None => (None, key.clone()),
        };
        sim.with_cluster(|c| c.object_view(&r, ns.as_deref(), &name))
    });
    view! {
        <div class="pickers">
            <label>
                "Kind "
                <select
                    aria-label="Kind"
                    on:change=move |ev| {
                        resource.set(event_target_value(&ev));
                        object.set(String::new());
                    }
                >
                    {PICKABLE
                        .iter()
                        .map(|r| view! { <option value=*r selected=move || resource.get() == *r>{*r}</option> })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Name "
                <select aria-label="Object" on:change=move |ev| object.set(event_target_value(&ev))>
                    <option value="" selected=move || object.get().is_empty()>
                        "Pick one…"
                    </option>
                    {move || {
                        names
                            .get()
                            .into_iter()
                            .map(|n| {
                                let (value, selected) = (n.clone(), n.clone());
                                view! {
                                    <option value=value selected=move || object.get() == selected>
                                        {n}
                                    </option>
                                }
                            })
                            .collect_view()
                    }}
                </select>
            </label>
            <span class="hint">"or click a pod on the diagram"</span>
        </div>
        {move || match shown.get() {
            None => view! { <p class="hint">"Pick an object to see it as kubectl get -o yaml prints it."</p> }.into_any(),
            Some(Err(e)) => view! { <p class="error" role="status">{e}</p> }.into_any(),
            Some(Ok(o)) => {
                let key = o.namespace.as_ref().map_or(o.name.clone(), |ns| format!("{ns}/{}", o.name));
                let is_pod = o.resource == "pods";
                let etcd_key = o.etcd_key.clone();
                view! {
                    <div class="object" data-object=format!("{}/{}", o.resource, key.clone())>
                        <div class="object-head">
                            <h3>{format!("{} {}", o.kind, key.clone())}</h3>
                            <button
                                type="button"
                                class="link-button"
                                on:click=move |_| {
                                    let prefix = etcd_key.rsplit_once('/').map(|(p, _)| format!("{p}/")).unwrap_or_default();
                                    inspect.etcd_prefix.set(prefix);
                                    inspect.etcd_key.set(Some(etcd_key.clone()));
                                    inspect.tab.set(super::Tab::Etcd);
                                }
                            >
                                {format!("etcd: {}", o.etcd_key)}
                            </button>
                            {is_pod
                                .then(|| {
                                    let key = key.clone();
                                    view! {
                                        <button
                                            type="button"
                                            class="link-button"
                                            on:click=move |_| {
                                                inspect.decision_pod.set(key.clone());
                                                inspect.tab.set(super::Tab::Scheduler);
                                            }
                                        >
                                            "Scheduling decision"
                                        </button>
                                    }
                                })}
                        </div>
                        {(!o.owners.is_empty())
                            .then(|| {
                                view! {
                                    <p class="owners">
                                        "Owned by "
                                        {o
                                            .owners
                                            .iter()
                                            .map(|owner| {
                                                let (r, k) = (
                                                    owner.resource.clone(),
                                                    owner.namespace.as_ref().map_or(owner.name.clone(), |ns| format!("{ns}/{}", owner.name)),
                                                );
                                                let label = format!(
                                                    "{} {}{}",
                                                    owner.kind,
                                                    owner.name,
                                                    if owner.present { "" } else { " (gone)" },
                                                );
                                                view! {
                                                    <button
                                                        type="button"
                                                        class="link-button owner"
                                                        on:click=move |_| inspect.open(&r, &k)
                                                    >
                                                        {label}
                                                    </button>
                                                }
                                            })
                                            .collect_view()}
                                    </p>
                                }
                            })}
                        <pre class="code yaml" aria-label="YAML">{o.yaml}</pre>
                    </div>
                }
                    .into_any()
            }
        }}
    }
}

#[component]
pub fn EtcdBrowser() -> impl IntoView {
    let sim = use_sim();
    let inspect = use_inspect();
    let view = sim.view();
    let (prefix, key) = (inspect.etcd_prefix, inspect.etcd_key);
    let level = Memo::new(move |_| {
        view.track();
        let p = prefix.get();
        sim.with_cluster(|c| c.etcd_level(&p)).unwrap_or_default()
    });
    let detail = Memo::new(move |_| {
        view.track();
        let k = key.get()?;
        sim.with_cluster(|c| c.etcd_key(&k)).flatten()
    });
    let members = Memo::new(move |_| view.with(|v| v.etcd.clone()));
    // `/registry/pods/default/` → `/`, `/registry/`, `/registry/pods/`, `/registry/pods/default/`.
    let crumbs = move || {
        let p = prefix.get();
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(i) = p[at..].find('/') {
            at += i + 1;
            out.push(p[..at].to_string());
        }
        out
    };
    view! {
        <div class="etcd-members">
            {move || {
                members
                    .get()
                    .into_iter()
                    .map(|m| {
                        view! {
                            <span class="member" class:down=!m.running>
                                <strong>{m.name.clone()}</strong>
                                {format!(" {} · rev {} · {} keys{}", m.role, m.revision, m.keys, if m.running { "" } else { " · stopped" })}
                            </span>
                        }
                    })
                    .collect_view()
            }}
        </div>
        <nav class="crumbs" aria-label="etcd prefix">
            {move || {
                crumbs()
                    .into_iter()
                    .map(|c| {
                        let label = c.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string();
                        let label = if label.is_empty() { "/".to_string() } else { format!("{label}/") };
                        let to = c.clone();
                        view! {
                            <button type="button" class="link-button" on:click=move |_| prefix.set(to.clone())>
                                {label}
                            </button>
                        }
                    })
                    .collect_view()
            }}
        </nav>
        <div class="etcd">
            <ul class="etcd-keys" aria-label="etcd keys">
                {move || {
                    let l = level.get();
                    let more = l.more;
                    let rows = l
                        .entries
                        .into_iter()
                        .map(|e| {
                            let k = e.key.clone();
                            let short = k[l.prefix.len().min(k.len())..].to_string();
                            if e.folder {
                                view! {
                                    <li class="folder">
                                        <button type="button" class="link-button" on:click=move |_| prefix.set(k.clone())>
                                            {format!("📁 {short}")}
                                        </button>
                                    </li>
                                }
                                    .into_any()
                            } else {
                                let chosen = k.clone();
                                view! {
                                    <li class:selected=move || key.get().as_deref() == Some(chosen.as_str())>
                                        <button
                                            type="button"
                                            class="link-button"
                                            data-key=k.clone()
                                            on:click=move |_| key.set(Some(k.clone()))
                                        >
                                            {short}
                                        </button>
                                        <span class="revs">
                                            {format!("create {} · mod {} · v{}", e.create_revision, e.mod_revision, e.version)}
                                        </span>
                                    </li>
                                }
                                    .into_any()
                            }
                        })
                        .collect_view();
                    view! {
                        {rows}
                        {more.then(|| view! { <li class="hint">"… more keys (the first 200 are listed)"</li> })}
                    }
                }}
            </ul>
            <div class="etcd-value">
                {move || match detail.get() {
                    None => view! { <p class="hint">"Pick a key to see its value and which member holds which revision."</p> }.into_any(),
                    Some(d) => view! {
                        <h3 class="key">{d.key.clone()}</h3>
                        <p class="revs">
                            {format!("create_revision {} · mod_revision {} · version {}", d.create_revision, d.mod_revision, d.version)}
                        </p>
                        <table class="grid members">
                            <thead>
                                <tr>
                                    <th scope="col">"Member"</th>
                                    <th scope="col">"Role"</th>
                                    <th scope="col">"Store revision"</th>
                                    <th scope="col">"This key's mod revision"</th>
                                </tr>
                            </thead>
                            <tbody>
                                {d.members
                                    .iter()
                                    .map(|m| {
                                        view! {
                                            <tr class:stale=!m.current>
                                                <td>{m.member.clone()} {(!m.running).then_some(" (stopped)")}</td>
                                                <td>{m.role.clone()}</td>
                                                <td>{m.revision}</td>
                                                <td>{m.mod_revision.map_or("missing".to_string(), |r| r.to_string())}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                        <pre class="code" aria-label="Value">{d.value.clone()}</pre>
                    }
                        .into_any(),
                }}
            </div>
        </div>
    }
}

#[component]
pub fn DecisionTable() -> impl IntoView {
    let sim = use_sim();
    let inspect = use_inspect();
    let view = sim.view();
    let pod = inspect.decision_pod;
    let pods = Memo::new(move |_| {
        view.with(|v| {
            v.unscheduled
                .iter()
                .chain(v.nodes.iter().flat_map(|n| n.pods.iter()))
                .take(PICK_MAX)
                .map(|p| format!("{}/{}", p.namespace, p.name))
                .collect::<Vec<_>>()
        })
    });
    // Until a pod is picked: the first one waiting for a node, else none.
    let chosen = Memo::new(move |_| {
        let p = pod.get();
        if p.is_empty() {
            view.with(|v| v.unscheduled.first().map(|p| format!("{}/{}", p.namespace, p.name)))
        } else {
            Some(p)
        }
    });
    let table = Memo::new(move |_| {
        view.track();
        let p = chosen.get()?;
        sim.with_cluster(|c| c.decision_view(&p))
    });
    view! {
        <div class="pickers">
            <label>
                "Pod "
                <select aria-label="Pod" on:change=move |ev| pod.set(event_target_value(&ev))>
                    <option value="" selected=move || chosen.get().is_none()>
                        "Pick a pod…"
                    </option>
                    {move || {
                        pods.get()
                            .into_iter()
                            .map(|p| {
                                let (value, s) = (p.clone(), p.clone());
                                view! { <option value=value selected=move || chosen.get().as_deref() == Some(s.as_str())>{p}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </label>
        </div>
        {move || match table.get() {
            None => view! { <p class="hint">"Pick a pod to see why it is where it is, or why it is Pending."</p> }.into_any(),
            Some(Err(e)) => view! { <p class="hint" role="status">{e}</p> }.into_any(),
            Some(Ok(d)) => {
                let verdict = match (&d.chosen, &d.message) {
                    (Some(node), _) => format!("Bound to {node}: {} of {} nodes feasible, best weighted total wins.", d.feasible, d.nodes_total),
                    (None, Some(m)) => format!("Pending: {m}"),
                    (None, None) => "No node chosen.".to_string(),
                };
                view! {
                    <div class="decision" data-pod=d.pod.clone()>
                        <p class="decision-verdict" class:pending=d.chosen.is_none()>{verdict}</p>
                        {d
                            .preemption
                            .clone()
                            .filter(|p| !d.message.as_deref().unwrap_or_default().contains(p.as_str()))
                            .map(|p| view! { <p class="hint">{format!("Preemption: {p}")}</p> })}
                        <div class="table-wrap">
                            <table class="grid decision-table" aria-label=format!("Scheduling decision for {}", d.pod)>
                                <thead>
                                    <tr>
                                        <th scope="col">"Node"</th>
                                        {d.filters.iter().map(|f| view! { <th scope="col" class="filter">{f.clone()}</th> }).collect_view()}
                                        {d.scores
                                            .iter()
                                            .map(|s| view! { <th scope="col" class="score">{format!("{} ×{}", s.plugin, s.weight)}</th> })
                                            .collect_view()}
                                        <th scope="col">"Total"</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {d.rows
                                        .iter()
                                        .map(|r| {
                                            view! {
                                                <tr class:chosen=r.chosen data-node=r.node.clone()>
                                                    <th scope="row">{r.node.clone()} {r.chosen.then_some(" ✓")}</th>
                                                    {r.filters
                                                        .iter()
                                                        .map(|c| {
                                                            let mark = match c.verdict.as_str() {
                                                                "passed" => "✓".to_string(),
                                                                "failed" => format!("✗ {}", c.reason),
                                                                "skipped" => "skip".to_string(),
                                                                _ => "–".to_string(),
                                                            };
                                                            view! {
                                                                <td class=format!("verdict v-{}", c.verdict.replace(' ', "-")) title=c.reason.clone()>
                                                                    {mark}
                                                                </td>
                                                            }
                                                        })
                                                        .collect_view()}
                                                    {r.scores
                                                        .iter()
                                                        .map(|s| view! { <td class="score">{s.map(|v| v.to_string()).unwrap_or_default()}</td> })
                                                        .collect_view()}
                                                    <td class="total">{r.total.map(|t| t.to_string()).unwrap_or_default()}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        </div>
                        {(d.rows_hidden > 0).then(|| view! { <p class="hint">{format!("… and {} more nodes", d.rows_hidden)}</p> })}
                    </div>
                }
                    .into_any()
            }
        }}
    }
}

#[component]
pub fn ProxyRules() -> impl IntoView {
    let sim = use_sim();
    let inspect = use_inspect();
    let view = sim.view();
    let nodes = Memo::new(move |_| sim.with_cluster(|c| c.node_names()).unwrap_or_default());
    let node = Memo::new(move |_| {
        let n = inspect.proxy_node.get();
        if n.is_empty() {
            nodes.with(|ns| ns.first().cloned().unwrap_or_default())
        } else {
            n
        }
    });
    let rules = Memo::new(move |_| {
        view.track();
        let n = node.get();
        sim.with_cluster(|c| (c.iptables_save(&n, None), c.kube_proxy_running(&n))).unwrap_or((None, false))
    });
    view! {
        <div class="pickers">
            <label>
                "Node "
                <select aria-label="Node" on:change=move |ev| inspect.proxy_node.set(event_target_value(&ev))>
                    {move || {
                        nodes
                            .get()
                            .into_iter()
                            .map(|n| {
                                let (value, s) = (n.clone(), n.clone());
                                view! { <option value=value selected=move || node.get() == s>{n}</option> }
                            })
                            .collect_view()
                    }}
                </select>
            </label>
            {move || {
                (!rules.get().1).then(|| view! { <span class="warn">"kube-proxy is stopped: these rules stay as it left them"</span> })
            }}
        </div>
        <pre class="code rules" aria-label="iptables-save">
            {move || rules.get().0.unwrap_or_else(|| "no rules".to_string())}
        </pre>
    }
}

#[component]
pub fn EventStream() -> impl IntoView {
    let sim = use_sim();
    let view = sim.view();
    let events = Memo::new(move |_| {
        view.track();
        sim.with_cluster(|c| c.events_view()).unwrap_or_default()
    });
    view! {
        {move || {
            let e = events.get();
            if e.rows.is_empty() {
                return view! { <p class="hint">"No events yet."</p> }.into_any();
            }
            view! {
                <p class="hint">{format!("{} events, newest first", e.total)}</p>
                <div class="table-wrap">
                    <table class="grid events" aria-label="Events">
                        <thead>
                            <tr>{e.headers.iter().map(|h| view! { <th scope="col">{h.clone()}</th> }).collect_view()}</tr>
                        </thead>
                        <tbody>
                            {e.rows
                                .iter()
                                .map(|row| {
                                    let warning = row.get(2).is_some_and(|t| t == "Warning");
                                    view! {
                                        <tr class:warning=warning>
                                            {row.iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view()}
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
    }
}
