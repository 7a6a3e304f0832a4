//! The manifest editor: YAML typed or pasted into a textarea labelled "Manifest", applied as
//! `kubectl apply -f -` (the session records it), with kubectl's output beside it and, for an error, the
//! line and column it points at. The text is kept in the browser's local storage on every change, so an
//! error, a reload or a bad link never loses it. Example manifests are one click away; one is added after
//! what is already there (as another YAML document) rather than replacing it.

use kubeglass::scenario::examples::EXAMPLES;
use kubeglass::scenario::session::{locate_error, ManifestProblem};
use leptos::prelude::*;

use crate::app::use_sim;

/// The local-storage key of the editor's text.
const STORAGE_KEY: &str = "kubeglass-manifest";

/// What the last Apply printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditorOutput {
    pub state: ApplyState,
    /// kubectl's output, exactly.
    pub text: String,
    /// The 1-based line and column an error points at.
    pub at: Option<(usize, Option<usize>)>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApplyState {
    #[default]
    Idle,
    Running,
    Ok,
    Failed,
}

impl EditorOutput {
    pub fn running() -> EditorOutput {
        EditorOutput { state: ApplyState::Running, ..EditorOutput::default() }
    }

    /// kubectl refused the text before sending it (a YAML error, no kind).
    pub fn refused(problem: ManifestProblem) -> EditorOutput {
        EditorOutput { state: ApplyState::Failed, text: problem.message, at: problem.line.map(|l| (l, problem.column)) }
    }

    /// More output of the running apply; `exit` once it ended. `manifest` places an error.
    pub fn add(&mut self, text: &str, exit: Option<i32>, manifest: &str) {
        self.text.push_str(text);
        self.state = match exit {
            None => ApplyState::Running,
            Some(0) => ApplyState::Ok,
            Some(_) => ApplyState::Failed,
        };
        if self.state == ApplyState::Failed {
            self.at = locate_error(manifest, &self.text).map(|(l, c)| (l, Some(c)));
        }
    }
}

/// The text with `example` added: alone when the editor is blank, else after it as another document.
fn with_example(text: &str, example: &str) -> String {
    if text.trim().is_empty() {
        return example.to_string();
    }
    let mut out = text.trim_end().to_string();
    out.push_str("\n---\n");
    out.push_str(example);
    out
}

/// The character offset where 1-based `line` and `column` are in `text` (in UTF-16 units, as a textarea counts).
fn offset_of(text: &str, line: usize, column: usize) -> u32 {
    let mut offset = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            let within: usize = l.chars().take(column.saturating_sub(1)).map(char::len_utf16).sum();
            return (offset + within) as u32;
        }
        offset += l.encode_utf16().count() + 1;
    }
    offset as u32
}

fn stored_text() -> String {
    window().local_storage().ok().flatten().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()).unwrap_or_default()
}

fn store_text(text: &str) {
    if let Ok(Some(storage)) = window().local_storage() {
        let _ = storage.set_item(STORAGE_KEY, text);
    }
}

#[component]
pub fn Editor() -> impl IntoView {
    let sim = use_sim();
    let text = RwSignal::new(stored_text());
    let area = NodeRef::<leptos::html::Textarea>::new();
    let set_text = move |value: String| {
        store_text(&value);
        text.set(value);
    };
    let apply = move |_| {
        let manifest = text.get_untracked();
        sim.apply_manifest(&manifest);
    };
    let go_to = move |line: usize, column: usize| {
        let Some(el) = area.get() else { return };
        let at = offset_of(&text.get_untracked(), line, column);
        let _ = el.focus();
        let _ = el.set_selection_range(at, at);
    };
    let output = sim.editor_output;
    let pane = crate::dock::use_pane();
    // `kubectl edit` in the terminal opens its object here, added after any text already there (as an
    // example is), so nothing typed is lost.
    Effect::new(move |_| {
        if let Some(opened) = sim.editor_load.get() {
            sim.editor_load.set(None);
            set_text(with_example(&text.get_untracked(), &opened));
            pane.set(crate::dock::Pane::Manifest);
            if let Some(el) = area.get_untracked() {
                let _ = el.focus();
            }
        }
    });

    view! {
        <section class="panel editor">
            <div class="panel-head">
                <h2 id="editor-title">"Manifest"</h2>
                <div class="examples" role="group" aria-label="Examples">
                    <span class="hint">"Examples:"</span>
                    {EXAMPLES
                        .iter()
                        .map(|(label, example)| {
                            view! {
                                <button
                                    type="button"
                                    class="chip-button"
                                    title=format!("Add the {label} example to the editor")
                                    on:click=move |_| set_text(with_example(&text.get_untracked(), example))
                                >
                                    {*label}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            </div>
            <div class="editor-body">
                <textarea
                    node_ref=area
                    id="manifest"
                    aria-label="Manifest"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="Paste or type YAML (several documents separated by ---), then Apply"
                    prop:value=move || text.get()
                    on:input=move |ev| set_text(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                            ev.prevent_default();
                            sim.apply_manifest(&text.get_untracked());
                        }
                    }
                ></textarea>
                <div class="editor-result">
                    <div class="editor-actions">
                        <button type="button" class="button primary" on:click=apply>"Apply"</button>
                        <span class="hint">"kubectl apply -f - · Ctrl+Enter"</span>
                    </div>
                    <div
                        class=move || format!("apply-output apply-{:?}", output.get().state).to_lowercase()
                        role="status"
                        aria-live="polite"
                        aria-label="Apply output"
                    >
                        {move || {
                            let out = output.get();
                            match out.state {
                                ApplyState::Idle => view! { <p class="hint">"Output of Apply appears here."</p> }.into_any(),
                                ApplyState::Running if out.text.is_empty() => view! { <p class="hint">"Applying…"</p> }.into_any(),
                                _ => view! {
                                    <pre class="apply-text">{out.text.clone()}</pre>
                                    {out.at.map(|(line, column)| {
                                        let label = match column {
                                            Some(c) => format!("Line {line}, column {c}"),
                                            None => format!("Line {line}"),
                                        };
                                        view! {
                                            <button type="button" class="chip-button error-at" on:click=move |_| go_to(line, column.unwrap_or(1))>
                                                {label}
                                            </button>
                                        }
                                    })}
                                }.into_any(),
                            }
                        }}
                    </div>
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_example_is_added_after_the_text_not_over_it() {
        assert_eq!(with_example("  \n", "kind: A\n"), "kind: A\n");
        assert_eq!(with_example("kind: B\n\n", "kind: A\n"), "kind: B\n---\nkind: A\n");
    }

    #[test]
    fn offsets_count_utf16_units_as_a_textarea_does() {
        let text = "a: 1\nb: é😀x\nc: 3";
        assert_eq!(offset_of(text, 1, 1), 0);
        assert_eq!(offset_of(text, 2, 1), 5);
        assert_eq!(offset_of(text, 2, 6), 5 + 3 + 1 + 2);
        assert_eq!(offset_of(text, 9, 1), text.encode_utf16().count() as u32 + 1);
    }

    #[test]
    fn output_of_a_failed_apply_points_at_the_field() {
        let manifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containerz: []\n";
        let mut out = EditorOutput::running();
        out.add("Error from server (BadRequest): error when creating \"STDIN\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containerz\"\n", Some(1), manifest);
        assert_eq!(out.state, ApplyState::Failed);
        assert_eq!(out.at, Some((5, Some(3))));
        let mut ok = EditorOutput::running();
        ok.add("pod/x created\n", Some(0), manifest);
        assert_eq!((ok.state, ok.at), (ApplyState::Ok, None));
    }
}
