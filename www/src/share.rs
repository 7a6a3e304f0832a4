//! Sharing what a person did: the page starts from a share link (`#s=…`) when it has one, the Share button
//! makes one, and a scenario goes out as a YAML file and comes back in from one. Links and files take the same
//! path: the engine checks the scenario ([`open_link`], [`open_file`]) and replays it ([`Session::replay`]);
//! anything wrong is said in a banner above a working default cluster.

use kubeglass::scenario::session::{open_file, open_link, Line, Session};
use kubeglass::scenario::url::MAX_LINK_BYTES;
use kubeglass::scenario::{encode, to_yaml};
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

use crate::app::use_sim;
use crate::mark;

/// Where the page starts.
pub struct Start {
    pub session: Session,
    /// What the replayed steps printed.
    pub lines: Vec<Line>,
    /// Notes for the terminal.
    pub notes: Vec<String>,
    /// Why the link could not be opened.
    pub problem: Option<String>,
}

/// The page's first session: the link's scenario replayed, or else the cluster the address's `?nodes=…`
/// describes, its install still to run (with a problem to show when the link was bad).
pub fn initial_session(query: &str, hash: &str, seed: u64) -> Start {
    let (spec, notes) = crate::shape::config_from_query(query);
    let mut problem = None;
    if !hash.trim_start_matches('#').is_empty() {
        match open_link(hash) {
            Ok(scenario) => {
                // scripts/measure-web.mjs reads these marks to time the engine in the page.
                mark("kubeglass-replay-start");
                let (session, lines) = Session::replay(&scenario);
                mark("kubeglass-replay-end");
                let note = format!(
                    "Replayed the shared scenario {:?}: {}, {} of simulated time.",
                    scenario.name,
                    steps(scenario.steps.len()),
                    kubeglass::sim::time::go_duration(session.elapsed_ms())
                );
                return Start { session, lines, notes: vec![note], problem: None };
            }
            Err(e) => problem = Some(e),
        }
    }
    // The page shows this cluster at once and runs its install over the next frames (see `Sim::frame`).
    Start { session: Session::installing(spec, seed), lines: Vec::new(), notes, problem }
}

/// What the banner says: why a link or file could not be opened.
#[derive(Clone, Copy)]
pub struct LinkNotice(pub RwSignal<Option<String>>);

#[component]
pub fn LinkBanner() -> impl IntoView {
    let LinkNotice(notice) = expect_context::<LinkNotice>();
    move || {
        notice.get().map(|message| {
            view! {
                <div class="banner" role="alert">
                    <p>
                        <strong>"This scenario could not be opened. "</strong>
                        "You are looking at a fresh default cluster instead."
                    </p>
                    <pre class="banner-error">{message}</pre>
                    <button type="button" class="button" on:click=move |_| notice.set(None)>"Dismiss"</button>
                </div>
            }
        })
    }
}

/// The page's address without its query and fragment.
fn page_base() -> String {
    let location = window().location();
    format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default())
}

/// `3 steps`, `1 step`.
fn steps(n: usize) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}

/// `text` as a `data:` URL (percent-encoded UTF-8).
fn data_url(mime: &str, text: &str) -> String {
    let mut url = format!("data:{mime};charset=utf-8,");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// The file name a scenario downloads as.
fn file_name(scenario_name: &str) -> String {
    let stem: String =
        scenario_name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
    format!("{}.yaml", if stem.is_empty() { "scenario" } else { &stem })
}

#[component]
pub fn SharePanel() -> impl IntoView {
    let sim = use_sim();
    let LinkNotice(notice) = expect_context::<LinkNotice>();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    let scenario_yaml = move || sim.with_session(|s| to_yaml(&s.shared_scenario())).unwrap_or_default();

    let share = move |_| {
        let yaml = scenario_yaml();
        let url = format!("{}#{}", page_base(), encode(&yaml));
        if url.len() > MAX_LINK_BYTES {
            status.set(format!(
                "This session is too long for a link ({} bytes; at most {MAX_LINK_BYTES}): download it as a file instead.",
                url.len()
            ));
            link.set(None);
            return;
        }
        let steps = sim.with_session(|s| s.scenario().steps.len()).unwrap_or(0);
        let steps = self::steps(steps);
        status.set(format!("A link to this cluster and its {steps} (copying…)"));
        link.set(Some(url.clone()));
        let clipboard = window().navigator().clipboard();
        leptos::task::spawn_local(async move {
            let copied = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&url)).await.is_ok();
            status.set(if copied {
                format!("Copied to the clipboard: a link to this cluster and its {steps}.")
            } else {
                format!("A link to this cluster and its {steps}: copy it from the box.")
            });
        });
    };

    let download = move |_| {
        let yaml = scenario_yaml();
        let name = sim.with_session(|s| file_name(&s.scenario().name)).unwrap_or_else(|| "scenario.yaml".into());
        let Ok(anchor) = document().create_element("a") else { return };
        let _ = anchor.set_attribute("href", &data_url("application/yaml", &yaml));
        let _ = anchor.set_attribute("download", &name);
        if let Ok(anchor) = anchor.dyn_into::<web_sys::HtmlElement>() {
            anchor.click();
        }
        status.set(format!("Downloaded {name}."));
    };

    let upload = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
        input.set_value("");
        let name = file.name();
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            let Some(text) = text.ok().and_then(|t| t.as_string()) else {
                notice.set(Some(format!("{name}: the file could not be read as text")));
                return;
            };
            match open_file(&text, &name) {
                Ok(scenario) => {
                    notice.set(None);
                    sim.load(&scenario);
                    status.set(format!("Opened {name}."));
                }
                Err(e) => notice.set(Some(e)),
            }
        });
    };

    view! {
        <section class="panel share" aria-labelledby="share-title">
            <div class="panel-head">
                <h2 id="share-title">"Share"</h2>
                <span class="hint">"everything you did, with its simulated times"</span>
            </div>
            <div class="share-actions">
                <button type="button" class="button primary" on:click=share>"Share"</button>
                <button type="button" class="button" on:click=download>"Download"</button>
                <label class="button file-button">
                    "Open file…"
                    <input type="file" accept=".yaml,.yml,text/yaml" aria-label="Open scenario file" on:change=upload/>
                </label>
            </div>
            <p class="share-status" role="status">{move || status.get()}</p>
            {move || {
                link.get()
                    .map(|url| {
                        view! {
                            <input
                                class="share-link"
                                type="text"
                                readonly=true
                                aria-label="Share link"
                                prop:value=url
                                on:focus=|ev| {
                                    if let Some(input) = ev
                                        .target()
                                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                                    {
                                        input.select();
                                    }
                                }
                            />
                        }
                    })
            }}
            <p class="hint footnote">
                "Seed " {crate::app::SEED}
                " · every component and message is simulated in your browser; nothing is sent anywhere."
            </p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_link_gives_the_default_cluster_and_says_why() {
        let start = initial_session("", "#s=%%%", 1);
        assert!(start.problem.as_deref().is_some_and(|p| p.contains("bad %-escape")), "{:?}", start.problem);
        assert_eq!(start.session.scenario().cluster, kubeglass::scenario::ClusterSpec::default());
        assert!(start.session.scenario().steps.is_empty());
        let nothing = initial_session("?nodes=1", "", 1);
        assert!(nothing.problem.is_none());
        assert_eq!(nothing.session.scenario().cluster.nodes.len(), 1);
    }

    #[test]
    fn a_good_link_replays_its_steps() {
        let mut live = Session::new_default();
        live.cluster_mut().advance_ms(1_000);
        live.kubectl("kubectl run web --image=nginx").unwrap();
        live.cluster_mut().advance_ms(3_000);
        let hash = format!("#{}", encode(&to_yaml(&live.shared_scenario())));
        let start = initial_session("?nodes=7", &hash, 1);
        assert!(start.problem.is_none());
        assert_eq!(start.session.scenario(), &live.shared_scenario());
        assert_eq!(start.session.cluster().now(), live.cluster().now());
        assert_eq!(start.session.scenario().cluster.nodes.len(), 2, "the link's cluster, not the query's");
        assert!(start.notes[0].contains(": 2 steps, 4s of simulated time"), "{:?}", start.notes);
    }

    #[test]
    fn data_urls_and_file_names() {
        assert_eq!(data_url("text/plain", "a b\n"), "data:text/plain;charset=utf-8,a%20b%0A");
        assert_eq!(file_name("my-session"), "my-session.yaml");
        assert_eq!(file_name("a b/c"), "a-b-c.yaml");
        assert_eq!(file_name(""), "scenario.yaml");
    }
}
