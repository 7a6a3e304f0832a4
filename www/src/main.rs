//! Mounts the kubeglass app: for now the default cluster's components and nodes, advancing live.

use leptos::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let cluster = StoredValue::new_local(kubeglass::Cluster::new_default(1));
    let view = RwSignal::new(cluster.with_value(|c| c.view()));
    let handle = set_interval_with_handle(
        move || {
            cluster.update_value(|c| c.advance_ms(100));
            view.set(cluster.with_value(|c| c.view()));
        },
        std::time::Duration::from_millis(100),
    );
    on_cleanup(move || {
        if let Ok(h) = handle {
            h.clear();
        }
    });
    view! {
        <main>
            <h1>"kubeglass"</h1>
            <p>"Simulated time: " {move || format!("{:.1}s", view.get().time_ms as f64 / 1000.0)}</p>
            <h2>"Components"</h2>
            <ul class="components">
                {move || view.get().components.into_iter().map(|c| {
                    let name = c.name.clone();
                    view! {
                        <li role="button" tabindex="0" aria-label=name.clone() aria-pressed=(!c.running).to_string()
                            on:click=move |_| { cluster.update_value(|cl| { let _ = cl.toggle(&name); }); }>
                            {c.name.clone()} {if c.running { "" } else { " (stopped)" }}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <h2>"Nodes"</h2>
            <ul class="nodes">
                {move || view.get().nodes.into_iter().map(|n| view! {
                    <li>{format!("{} {} {}", n.name, n.status, n.roles)}
                        <ul>{n.pods.into_iter().map(|p| view! { <li>{format!("{}/{} {} {}", p.namespace, p.name, p.ready, p.status)}</li> }).collect_view()}</ul>
                    </li>
                }).collect_view()}
            </ul>
        </main>
    }
}
