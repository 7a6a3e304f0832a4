//! Tab in the terminal: asks the engine for the completions of the line at the cursor
//! (`Cluster::complete`), puts in the single one or the common prefix, and lists the choices when there
//! are several.

use crate::app::Sim;

/// At most this many choices are listed.
const CHOICES_SHOWN: usize = 40;

pub fn on_tab(sim: Sim, field: &web_sys::HtmlInputElement) {
    let line = field.value();
    let cursor = field.selection_start().ok().flatten().map_or(line.chars().count(), |c| c as usize);
    let Some(completion) = sim.with_cluster(|c| c.complete(&line, cursor)) else { return };
    let (new_line, new_cursor) = completion.apply(&line);
    if new_line != line {
        field.set_value(&new_line);
        let _ = field.set_selection_range(new_cursor as u32, new_cursor as u32);
        return;
    }
    if completion.candidates.len() > 1 {
        let shown: Vec<&str> = completion.candidates.iter().take(CHOICES_SHOWN).map(String::as_str).collect();
        let more = completion.candidates.len().saturating_sub(CHOICES_SHOWN);
        let mut text = shown.join("  ");
        if more > 0 {
            text.push_str(&format!("  … and {more} more"));
        }
        sim.print("info", text);
    }
}
