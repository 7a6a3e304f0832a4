//! Beside the diagram: a kubectl prompt (its output streams in as simulated time passes) above the dock
//! ([`crate::dock`]), one of whose panes is the latest deliveries, newest first. Under the diagram: the legend.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::app::use_sim;
use crate::diagram::flights::CLASSES;
use crate::diagram::status::PodClass;

/// The log lists this many deliveries.
const LOG_ROWS: usize = 14;

#[component]
pub fn SidePanel() -> impl IntoView {
    view! {
        <aside class="side">
            <Terminal/>
            <crate::dock::Dock/>
        </aside>
    }
}

#[component]
fn Terminal() -> impl IntoView {
    let sim = use_sim();
    let input = NodeRef::<leptos::html::Input>::new();
    let output = NodeRef::<leptos::html::Div>::new();
    let history = StoredValue::new(Vec::<String>::new());
    // Where ↑/↓ is in the history: its length means "the line being typed".
    let cursor = StoredValue::new(0usize);

    // Keep the newest output in sight.
    Effect::new(move |_| {
        sim.terminal.track();
        if let Some(div) = output.get() {
            div.set_scroll_top(div.scroll_height());
        }
    });

    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(field) = input.get() else { return };
        let line = field.value();
        if !line.trim().is_empty() {
            history.update_value(|h| h.push(line.trim().to_string()));
        }
        cursor.set_value(history.with_value(Vec::len));
        field.set_value("");
        sim.run_command(&line);
    };
    let on_key = move |ev: KeyboardEvent| {
        let Some(field) = input.get() else { return };
        let len = history.with_value(Vec::len);
        let at = cursor.get_value().min(len);
        let to = match ev.key().as_str() {
            "ArrowUp" if at > 0 => at - 1,
            "ArrowDown" if at < len => at + 1,
            "Tab" => {
                ev.prevent_default();
                crate::inspect::complete::on_tab(sim, &field);
                return;
            }
            "c" if ev.ctrl_key() && sim.busy_terminal() => {
                ev.prevent_default();
                sim.interrupt();
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        cursor.set_value(to);
        field.set_value(&history.with_value(|h| h.get(to).cloned().unwrap_or_default()));
    };

    view! {
        <section class="panel terminal" aria-labelledby="terminal-title">
            <div class="panel-head">
                <h2 id="terminal-title">"Terminal"</h2>
                <span class="hint">"kubectl · Tab completes · ↑/↓ history · Ctrl+C stops"</span>
            </div>
            <div class="term-log" role="log" aria-label="Terminal output" node_ref=output>
                <For each=move || sim.terminal.get() key=|line| line.id let:line>
                    <div class=format!("term-line term-{}", line.kind)>{line.text}</div>
                </For>
            </div>
            <form class="term-prompt" on:submit=submit>
                <span class="prompt" aria-hidden="true">"$"</span>
                <input
                    node_ref=input
                    type="text"
                    aria-label="Command"
                    placeholder="kubectl run web --image=nginx"
                    autocomplete="off"
                    autocapitalize="off"
                    spellcheck="false"
                    on:keydown=on_key
                />
            </form>
        </section>
    }
}

/// `12.345s`.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

#[component]
pub fn DeliveryLog() -> impl IntoView {
    let view = use_sim().view();
    let rows = Memo::new(move |_| {
        view.with(|v| {
            v.recent.iter().rev().filter(|d| !d.label.starts_with("raft ")).take(LOG_ROWS).cloned().collect::<Vec<_>>()
        })
    });
    view! {
        <section class="panel log" aria-labelledby="log-title">
            <div class="panel-head">
                <h2 id="log-title">"Latest deliveries"</h2>
            </div>
            <ol class="deliveries" aria-labelledby="log-title">
                <For
                    each=move || rows.get()
                    key=|d| d.id
                    let:d
                >
                    <li class:dropped=d.outcome != "delivered" title=d.object.clone().unwrap_or_default()>
                        <span class="when">{seconds(d.delivered_ms)}</span>
                        <span class="route">{format!("{} → {}", d.from, d.to)}</span>
                        <span class="what">
                            {d.label.clone()}
                            {(d.outcome != "delivered").then(|| format!(" ({})", d.outcome))}
                        </span>
                    </li>
                </For>
            </ol>
        </section>
    }
}

/// What the diagram's colours and lines mean.
#[component]
pub fn Legend() -> impl IntoView {
    view! {
        <div class="legend" role="group" aria-label="Legend">
            <ul class="legend-row">
                {CLASSES
                    .iter()
                    .map(|(class, label)| {
                        view! {
                            <li>
                                <svg class="swatch" viewBox="0 0 28 10" aria-hidden="true">
                                    <g class=format!("flight flight-{class}")>
                                        <line class="trail" x1="1" y1="5" x2="20" y2="5"></line>
                                        <path class="head" d="M27,5 L18,0.5 L18,9.5 Z"></path>
                                    </g>
                                </svg>
                                {*label}
                            </li>
                        }
                    })
                    .collect_view()}
                <li>
                    <svg class="swatch" viewBox="0 0 28 10" aria-hidden="true">
                        <line class="link" x1="1" y1="5" x2="20" y2="5"></line>
                        <path class="link-head" d="M27,5 L18,0.5 L18,9.5 Z"></path>
                    </svg>
                    "Connection: points at the server it calls"
                </li>
            </ul>
            <ul class="legend-row">
                {PodClass::ALL
                    .iter()
                    .map(|class| {
                        view! {
                            <li>
                                <span class=format!("chip-swatch pod-{}", class.css()) aria-hidden="true"></span>
                                {class.legend()}
                            </li>
                        }
                    })
                    .collect_view()}
                <li>
                    <span class="stopped-swatch" aria-hidden="true"></span>
                    "Stopped (click to start)"
                </li>
            </ul>
        </div>
    }
}
