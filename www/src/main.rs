//! Mounts the kubeglass app into `#app`, replacing the static fallback message `index.html` shows until the
//! WebAssembly module runs.

mod app;
mod check;
mod clock;
mod diagram;
mod dock;
mod editor;
mod gallery;
mod inspect;
mod menu;
mod nodes;
mod shape;
mod share;
mod side;
mod theme;

use leptos::wasm_bindgen::JsCast;

fn main() {
    console_error_panic_hook::set_once();
    mark("kubeglass-start");
    let document = leptos::prelude::document();
    let root = document
        .get_element_by_id("app")
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
        .unwrap_or_else(|| leptos::prelude::document().body().expect("the page has a body"));
    let query = leptos::prelude::window().location().search().unwrap_or_default();
    if let Some(seed) = check::requested(&query) {
        root.set_inner_html(&check::run(seed));
        return;
    }
    root.set_inner_html("");
    leptos::mount::mount_to(root, app::App).forget();
    // The browser tests read this mark to measure the time to first render.
    mark("kubeglass-mounted");
}

/// A performance mark: scripts/measure-web.mjs reads them to time the start-up's phases and the engine in the
/// page (nothing on the page reads them). None in native unit tests.
pub fn mark(name: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(performance) = leptos::prelude::window().performance() {
        let _ = performance.mark(name);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = name;
}
