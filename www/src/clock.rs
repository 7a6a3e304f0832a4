//! The simulated clock and its controls: play/pause, step to the next message, speed, skip until quiet.
//!
//! How wall time maps to simulated time: a message takes 1–4 simulated ms on the wire, which at real time
//! would be invisible. So the clock has two paces. While no message is on the wire it runs at the chosen
//! speed (1× = one simulated second per second), and jumps straight to the next event. While any message is
//! on the wire it runs [`SLOW_MOTION`] times slower, so at 1× a 1 ms hop takes 0.2 s on screen and a 4 ms
//! hop 0.8 s. Every arrow is drawn exactly where its message is at the shown simulated instant, concurrent
//! messages move together, and nothing is queued or replayed: the picture is the simulation, slowed down
//! while there is something to see.

use leptos::prelude::*;

use crate::app::{use_sim, QUIET_MS};

/// The speeds offered (the pace while no message is on the wire, relative to real time).
pub const SPEEDS: [f64; 9] = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 100.0];
pub const DEFAULT_SPEED: f64 = 1.0;
/// How many times slower the clock runs while a message is on the wire.
pub const SLOW_MOTION: f64 = 200.0;
/// A frame never moves the clock by more than this much wall time (a tab that was hidden does not leap).
pub const FRAME_MS_MAX: f64 = 100.0;

/// Simulated ms per wall ms.
pub fn rate(speed: f64, messages_in_flight: bool) -> f64 {
    if messages_in_flight {
        speed / SLOW_MOTION
    } else {
        speed
    }
}

/// Where the shown time gets to in `wall_ms` at `rate`, given the next event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Advance {
    /// The wall time runs out first: the shown time reaches this.
    Reached(f64),
    /// The next event comes first, at `at`, with `wall_left` wall ms to spend after running it.
    Event { at: u64, wall_left: f64 },
}

pub fn advance(shown: f64, wall_ms: f64, rate: f64, next_event: Option<u64>) -> Advance {
    let reach = shown + wall_ms * rate;
    match next_event {
        Some(at) if at as f64 <= reach => {
            let spent = if rate > 0.0 { (at as f64 - shown).max(0.0) / rate } else { 0.0 };
            Advance::Event { at, wall_left: (wall_ms - spent).max(0.0) }
        }
        _ => Advance::Reached(reach),
    }
}

/// `0.1×`, `1×`, `100×`.
pub fn speed_label(speed: f64) -> String {
    format!("{speed}×")
}

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
    let shown_ms = Memo::new(move |_| sim.time.get().floor() as u64);
    let in_flight = Memo::new(move |_| view.with(|v| v.in_flight.len()));
    let playing = sim.playing;
    let speed = sim.speed;

    view! {
        <header class="header">
            <div class="brand">
                <span class="logo" aria-hidden="true">"◈"</span>
                <h1>"kubeglass"</h1>
                <span class="subtitle">"a Kubernetes v1.34 cluster, simulated"</span>
            </div>
            <div class="controls" role="group" aria-label="Time">
                <div class="clock" title="Simulated time since the cluster started">
                    <span class="clock-label">"sim time"</span>
                    <output
                        id="sim-clock"
                        data-ms=move || shown_ms.get().to_string()
                        data-installing=move || sim.installing.get().to_string()
                    >
                        {move || format_sim_time(shown_ms.get())}
                    </output>
                    <span
                        class="slowmo"
                        class:active=move || { playing.get() && in_flight.get() > 0 && !sim.installing.get() }
                        title=format!(
                            "While a message is on the wire the clock runs {SLOW_MOTION}× slower, so every hop can be followed",
                        )
                    >
                        {move || match in_flight.get() {
                            _ if sim.installing.get() => "installing the cluster…".to_string(),
                            0 => "no messages on the wire".to_string(),
                            1 => "1 message on the wire".to_string(),
                            n => format!("{n} messages on the wire"),
                        }}
                    </span>
                </div>
                <button
                    type="button"
                    class="button primary play"
                    class:playing=move || playing.get()
                    on:click=move |_| playing.update(|p| *p = !*p)
                >
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                <button
                    type="button"
                    class="button"
                    title="Pause, then run to the next moment a message is sent or delivered"
                    on:click=move |_| sim.step()
                >
                    "Step"
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
                                        {speed_label(s)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                <button
                    type="button"
                    class="button skip"
                    class:skipping=move || sim.skipping.get()
                    data-skipping=move || sim.skipping.get().to_string()
                    title=format!(
                        "Run ahead until {} s pass with no message a request caused (background heartbeats do not count); press again to stop",
                        QUIET_MS / 1000,
                    )
                    on:click=move |_| sim.skip_until_quiet()
                >
                    {move || if sim.skipping.get() { "Skipping… stop" } else { "Skip until quiet" }}
                </button>
                <crate::theme::ThemeToggle/>
            </div>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_hours_minutes_seconds_millis() {
        assert_eq!(format_sim_time(0), "00:00:00.000");
        assert_eq!(format_sim_time(1_234), "00:00:01.234");
        assert_eq!(format_sim_time(3_723_004), "01:02:03.004");
    }

    #[test]
    fn speeds_run_from_a_tenth_to_a_hundred_and_label_plainly() {
        assert_eq!(SPEEDS.first(), Some(&0.1));
        assert_eq!(SPEEDS.last(), Some(&100.0));
        assert!(SPEEDS.windows(2).all(|w| w[0] < w[1]));
        assert!(SPEEDS.contains(&DEFAULT_SPEED));
        assert_eq!(speed_label(0.1), "0.1×");
        assert_eq!(speed_label(1.0), "1×");
        assert_eq!(speed_label(100.0), "100×");
    }

    #[test]
    fn at_one_times_a_quiet_cluster_runs_in_real_time_and_a_hop_is_slowed_to_be_seen() {
        assert_eq!(rate(1.0, false), 1.0);
        // A 1 ms hop takes SLOW_MOTION wall ms; a 4 ms hop four times that.
        assert_eq!(1.0 / rate(1.0, true), SLOW_MOTION);
        assert!(4.0 / rate(1.0, true) >= 500.0, "the slowest hop is on screen for at least half a second");
        assert_eq!(rate(100.0, true), 100.0 / SLOW_MOTION);
    }

    #[test]
    fn advancing_stops_at_the_next_event_with_the_wall_time_left() {
        // 16 wall ms at 1×, idle: an event 10 ms ahead comes first, with 6 wall ms left.
        assert_eq!(advance(100.0, 16.0, 1.0, Some(110)), Advance::Event { at: 110, wall_left: 6.0 });
        // The event is further than the frame reaches: the shown time moves by the frame's worth.
        assert_eq!(advance(100.0, 16.0, 1.0, Some(200)), Advance::Reached(116.0));
        assert_eq!(advance(100.0, 16.0, 1.0, None), Advance::Reached(116.0));
        // In slow motion a frame moves 16/200 of a millisecond.
        let Advance::Reached(t) = advance(100.0, 16.0, rate(1.0, true), Some(101)) else { panic!("reached") };
        assert!((t - 100.08).abs() < 1e-9, "{t}");
        // An event already due (at or before the shown time) runs at once, costing no wall time.
        assert_eq!(advance(100.5, 16.0, 1.0, Some(100)), Advance::Event { at: 100, wall_left: 16.0 });
    }
}
