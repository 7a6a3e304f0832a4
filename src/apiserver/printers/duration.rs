//! Elapsed-time spellings: apimachinery's `duration.HumanDuration` (the AGE column, `5s`, `2m30s`,
//! `3h15m`, `3d4h`, `400d`, `2y10d`), the `translateTimestampSince` wrapper (`<unknown>` for a missing
//! timestamp), and the `Mon, 02 Jan 2006 15:04:05 -0700` timestamps `kubectl describe` prints.
//!
//! Simulated time ([`SimTime`]) counts from [`EPOCH_MS`]; API timestamps are real instants, so both are
//! compared as Unix milliseconds. Describe timestamps are printed in UTC (`+0000`): the simulated
//! kubectl has no local time zone.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};

use crate::sim::time::{civil_from_days, SimTime, EPOCH_MS};

/// `duration.HumanDuration` for a signed number of milliseconds.
pub fn human_duration(ms: i64) -> String {
    // Go truncates the seconds toward zero, so -1.9s still counts as "almost now".
    let seconds = ms / 1000;
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        return format!("{hours}h{m}m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        return format!("{}d{}h", hours / 24, h);
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        return format!("{}y{}d", hours / 24 / 365, dy);
    }
    format!("{}y", hours / 24 / 365)
}

/// Unix milliseconds of an API timestamp.
pub fn time_ms(t: &Time) -> i64 {
    t.0.as_millisecond()
}

/// Unix milliseconds of an API micro-timestamp.
pub fn micro_time_ms(t: &MicroTime) -> i64 {
    t.0.as_millisecond()
}

/// Unix milliseconds of a simulated instant.
pub fn sim_ms(now: SimTime) -> i64 {
    i64::try_from(EPOCH_MS.saturating_add(now.ms())).unwrap_or(i64::MAX)
}

/// `translateTimestampSince`: the HumanDuration from `t` to `now`, `<unknown>` when `t` is absent.
pub fn age(created: Option<&Time>, now: SimTime) -> String {
    match created {
        Some(t) => human_duration(sim_ms(now).saturating_sub(time_ms(t))),
        None => "<unknown>".to_string(),
    }
}

/// [`age`] for a micro-timestamp (event times).
pub fn age_micro(t: Option<&MicroTime>, now: SimTime) -> String {
    match t {
        Some(t) => human_duration(sim_ms(now).saturating_sub(micro_time_ms(t))),
        None => "<unknown>".to_string(),
    }
}

/// [`age`] for an RFC 3339 string (`2025-09-01T00:00:00Z`); unparseable or absent → `<unknown>`.
pub fn age_str(created: Option<&str>, now: SimTime) -> String {
    let parsed =
        created.and_then(|text| serde_json::from_value::<Time>(serde_json::Value::String(text.to_string())).ok());
    age(parsed.as_ref(), now)
}

/// Go's `time.RFC1123Z` layout in UTC: `Mon, 01 Sep 2025 00:00:00 +0000`. A missing time prints as
/// Go's zero time does.
pub fn rfc1123z(t: Option<&Time>) -> String {
    match t {
        Some(t) => rfc1123z_ms(time_ms(t)),
        None => "Mon, 01 Jan 0001 00:00:00 +0000".to_string(),
    }
}

/// [`rfc1123z`] for Unix milliseconds.
pub fn rfc1123z_ms(ms: i64) -> String {
    crate::sim::time::rfc1123z_from_epoch_ms(ms)
}

/// `time.Time.UTC().Format(time.RFC3339)` for Unix milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// An event's age as `kubectl events` and `describe` print it: `<last> (xN over <first>)` when it repeated.
pub fn event_interval(e: &k8s_openapi::api::core::v1::Event, now: SimTime) -> String {
    let first = if e.event_time.is_some() {
        age_micro(e.event_time.as_ref(), now)
    } else {
        age(e.first_timestamp.as_ref(), now)
    };
    if let Some(series) = &e.series {
        format!("{} (x{} over {first})", age_micro(series.last_observed_time.as_ref(), now), series.count.unwrap_or(0))
    } else if e.count.unwrap_or(0) > 1 {
        format!("{} (x{} over {first})", age(e.last_timestamp.as_ref(), now), e.count.unwrap_or(0))
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000;
    const M: i64 = 60 * S;
    const H: i64 = 60 * M;
    const D: i64 = 24 * H;

    #[test]
    fn human_duration_follows_the_apimachinery_table() {
        for (ms, want) in [
            (-3 * S, "<invalid>"),
            (-2 * S, "<invalid>"),
            (-1900, "0s"),
            (-1, "0s"),
            (0, "0s"),
            (999, "0s"),
            (5 * S, "5s"),
            (90 * S, "90s"),
            (119 * S, "119s"),
            (119_999, "119s"),
            (120 * S, "2m"),
            (150 * S, "2m30s"),
            (9 * M + 59 * S, "9m59s"),
            (10 * M, "10m"),
            (45 * M, "45m"),
            (179 * M, "179m"),
            (3 * H, "3h"),
            (3 * H + 15 * M, "3h15m"),
            (7 * H + 59 * M, "7h59m"),
            (8 * H, "8h"),
            (47 * H, "47h"),
            (2 * D, "2d"),
            (3 * D + 4 * H, "3d4h"),
            (8 * D, "8d"),
            (400 * D, "400d"),
            (730 * D, "2y"),
            (740 * D, "2y10d"),
            (9 * 365 * D, "9y"),
        ] {
            assert_eq!(human_duration(ms), want, "{ms}ms");
        }
    }

    #[test]
    fn ages_count_from_the_creation_timestamp_to_now() {
        let created: Time = serde_json::from_value(serde_json::json!("2025-09-01T00:00:00Z")).unwrap();
        assert_eq!(age(Some(&created), SimTime(150_000)), "2m30s");
        assert_eq!(age(None, SimTime(150_000)), "<unknown>");
        assert_eq!(age_str(Some("2025-09-01T00:00:10Z"), SimTime(20_500)), "10s");
        assert_eq!(age_str(Some("garbage"), SimTime(0)), "<unknown>");
        assert_eq!(age_str(Some("2025-08-31T00:00:00Z"), SimTime(0)), "24h");
        let future: Time = serde_json::from_value(serde_json::json!("2025-09-01T00:01:00Z")).unwrap();
        assert_eq!(age(Some(&future), SimTime(0)), "<invalid>");
    }

    #[test]
    fn describe_timestamps_use_rfc1123z_in_utc() {
        let t: Time = serde_json::from_value(serde_json::json!("2025-09-01T08:05:09Z")).unwrap();
        assert_eq!(rfc1123z(Some(&t)), "Mon, 01 Sep 2025 08:05:09 +0000");
        assert_eq!(rfc1123z(None), "Mon, 01 Jan 0001 00:00:00 +0000");
        assert_eq!(rfc3339_ms(sim_ms(SimTime(61_000))), "2025-09-01T00:01:01Z");
    }
}
