//! Light and dark themes. `index.html` picks one before the page paints (the person's earlier choice, else
//! the system's `prefers-color-scheme`) and sets `data-theme` on the root element; this toggle switches it
//! and remembers the choice in the browser's local storage.

use leptos::prelude::*;

/// The local-storage key `index.html` reads too.
const STORAGE_KEY: &str = "kubeglass-theme";

fn current_theme() -> String {
    document().document_element().and_then(|root| root.get_attribute("data-theme")).unwrap_or_else(|| "light".into())
}

fn set_theme(theme: &str) {
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-theme", theme);
    }
    if let Ok(Some(storage)) = window().local_storage() {
        let _ = storage.set_item(STORAGE_KEY, theme);
    }
}

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let dark = RwSignal::new(current_theme() == "dark");
    let toggle = move |_| {
        // Read the page, not the signal: the system theme may have changed it since.
        let next = if current_theme() == "dark" { "light" } else { "dark" };
        set_theme(next);
        dark.set(next == "dark");
    };
    view! {
        <button
            type="button"
            class="button theme"
            aria-label="Dark theme"
            aria-pressed=move || dark.get().to_string()
            title="Switch between the light and the dark theme"
            on:click=toggle
        >
            <span aria-hidden="true">{move || if dark.get() { "☾ Dark" } else { "☀ Light" }}</span>
        </button>
    }
}
