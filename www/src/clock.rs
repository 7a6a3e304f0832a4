//! The header: the simulated clock and its controls (play/pause, speed).

use leptos::prelude::*;

use crate::app::{use_sim, SPEEDS};

/// `hh:mm:ss.mmm` of a simulated time in milliseconds.
pub fn format_sim_time(ms: u64) -> String {
    let (hours, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (minutes, rest) = (rest / 60_000, rest % 60_000);
    let (seconds, millis) = (rest / 1000, rest % 1000);
    format!("{hours:02}:{minutes:02}:{seconds:02}.{millis:03}")
}

#[component]
pub fn Header() -> impl IntoView {
    let sim = use_sim();
    let view = sim.view();
    let time_ms = Memo::new(move |_| view.with(|v| v.time_ms));
    let playing = sim.playing;
    let speed = sim.speed;

    view! {
        <header class="header">
            <div class="brand">
                <span class="logo" aria-hidden="true">"◈"</span>
                <h1>"kubeglass"</h1>
                <span class="subtitle">"a Kubernetes v1.34 cluster, simulated"</span>
            </div>
            <div class="controls">
                <div class="clock" title="Simulated time since the cluster started">
                    <span class="clock-label">"sim time"</span>
                    <output id="sim-clock" data-ms=move || time_ms.get().to_string()>
                        {move || format_sim_time(time_ms.get())}
                    </output>
                </div>
                <button
                    type="button"
                    class="play"
                    class:playing=move || playing.get()
                    on:click=move |_| playing.update(|p| *p = !*p)
                >
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                <label class="speed">
                    <span>"Speed"</span>
                    <select
                        id="speed"
                        on:change=move |ev| {
                            if let Ok(value) = event_target_value(&ev).parse() {
                                speed.set(value);
                            }
                        }
                    >
                        {SPEEDS
                            .into_iter()
                            .map(|s| {
                                view! {
                                    <option value=s.to_string() selected=move || speed.get() == s>
                                        {format!("{s}×")}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
            </div>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::format_sim_time;

    #[test]
    fn formats_hours_minutes_seconds_millis() {
        assert_eq!(format_sim_time(0), "00:00:00.000");
        assert_eq!(format_sim_time(1_234), "00:00:01.234");
        assert_eq!(format_sim_time(3_723_004), "01:02:03.004");
    }
}
