//! The guided gallery: the engine's built-in scenarios (one per trap the seeds describe), listed by title.
//! Choosing one replays it the way a share link is replayed, and its explanation says what to watch.

use kubeglass::scenario::gallery::GALLERY;
use leptos::prelude::*;

use crate::app::use_sim;
use crate::share::LinkNotice;

#[component]
pub fn Gallery() -> impl IntoView {
    let sim = use_sim();
    let LinkNotice(notice) = expect_context::<LinkNotice>();
    // The chosen entry's index and explanation.
    let chosen = RwSignal::new(None::<(usize, String)>);
    let choose = move |index: usize| {
        let Some(entry) = GALLERY.get(index) else { return };
        match entry.scenario() {
            Ok(scenario) => {
                sim.load(&scenario);
                chosen.set(Some((index, scenario.description.clone())));
            }
            Err(e) => notice.set(Some(e.to_string())),
        }
    };

    view! {
        <section class="panel gallery" aria-labelledby="gallery-title">
            <div class="panel-head">
                <h2 id="gallery-title">"Guided gallery"</h2>
                <span class="hint">"each replays a trap; then try it yourself"</span>
            </div>
            <ul class="gallery-list" aria-label="Gallery scenarios">
                {GALLERY
                    .iter()
                    .enumerate()
                    .map(|(index, entry)| {
                        view! {
                            <li>
                                <button
                                    type="button"
                                    class="chip-button"
                                    aria-pressed=move || {
                                        (chosen.with(|c| c.as_ref().map(|(i, _)| *i)) == Some(index)).to_string()
                                    }
                                    on:click=move |_| choose(index)
                                >
                                    {entry.title}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            {move || {
                chosen
                    .get()
                    .map(|(index, text)| {
                        view! {
                            <div class="explanation" role="region" aria-label="Explanation">
                                <h3>{GALLERY[index].title}</h3>
                                <p>{text}</p>
                            </div>
                        }
                    })
            }}
        </section>
    }
}
