//! Simulated time: milliseconds since the cluster was created, and Go-style durations (`30s`, `1m30s`, `250ms`).

use std::fmt;

/// A point on the simulated clock, in milliseconds since the simulation began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);

    pub fn ms(self) -> u64 {
        self.0
    }

    pub fn plus_ms(self, ms: u64) -> SimTime {
        SimTime(self.0.saturating_add(ms))
    }

    /// Milliseconds elapsed from `earlier` to `self` (zero if `earlier` is later).
    pub fn since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The wall-clock instant this simulated time stands for, as RFC 3339 (what `creationTimestamp` shows).
    pub fn rfc3339(self) -> String {
        rfc3339_from_epoch_ms(EPOCH_MS + self.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        write!(f, "{}.{:03}s", ms / 1000, ms % 1000)
    }
}

/// Simulated time zero is this instant (2025-09-01T00:00:00Z), so timestamps look like a real cluster's.
pub const EPOCH_MS: u64 = 1_756_684_800_000;

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (seconds precision, as Kubernetes timestamps are).
pub fn rfc3339_from_epoch_ms(epoch_ms: u64) -> String {
    let secs = epoch_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// An HTTP `Date` header's value (`http.TimeFormat`) for Unix milliseconds: `Mon, 01 Sep 2025 00:00:00 GMT`.
pub fn http_date_from_epoch_ms(ms: i64) -> String {
    let z = rfc1123z_from_epoch_ms(ms);
    format!("{} GMT", z.trim_end_matches(" +0000"))
}

/// Go's `time.RFC1123Z` layout in UTC for Unix milliseconds: `Mon, 01 Sep 2025 00:00:00 +0000`.
pub fn rfc1123z_from_epoch_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    let weekday = WEEKDAYS[days.rem_euclid(7) as usize];
    let month = MONTHS[(m as usize).saturating_sub(1).min(11)];
    format!("{weekday}, {d:02} {month} {y:04} {:02}:{:02}:{:02} +0000", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// Go's `time.RFC3339` for Unix seconds shown in a zone `offset_s` seconds east of UTC:
/// `2025-09-01T09:00:00+09:00`, or with `Z` for UTC.
pub fn rfc3339_in_zone(unix_s: i64, offset_s: i64) -> String {
    let local = unix_s + offset_s;
    let (y, m, d) = civil_from_days(local.div_euclid(86_400));
    let rem = local.rem_euclid(86_400);
    let zone = if offset_s == 0 {
        "Z".to_string()
    } else {
        let sign = if offset_s < 0 { '-' } else { '+' };
        let o = offset_s.abs();
        format!("{sign}{:02}:{:02}", o / 3600, (o % 3600) / 60)
    };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{zone}", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// Month abbreviations, as Go's and C's time formats print them.
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// A wall-clock instant broken into its UTC calendar fields (what log and status lines print).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u64,
    pub minute: u64,
    pub second: u64,
    pub millis: u64,
    /// 0 = Sunday.
    pub weekday: u32,
}

impl Civil {
    pub fn of(t: SimTime) -> Civil {
        let epoch_ms = EPOCH_MS + t.0;
        let secs = epoch_ms / 1000;
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: (rem % 3600) / 60,
            second: rem % 60,
            millis: epoch_ms % 1000,
            // 1970-01-01 was a Thursday.
            weekday: ((days + 4).rem_euclid(7)) as u32,
        }
    }

    /// `Sep`.
    pub fn month_abbr(&self) -> &'static str {
        MONTHS[(self.month.clamp(1, 12) - 1) as usize]
    }

    /// `Mon`.
    pub fn weekday_abbr(&self) -> &'static str {
        ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][self.weekday as usize % 7]
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SSZ` back into simulated time (None if malformed or before the epoch).
pub fn parse_rfc3339(text: &str) -> Option<SimTime> {
    let b = text.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let days = days_from_civil(num(0..4)?, num(5..7)?, num(8..10)?);
    let secs = days * 86_400 + num(11..13)? * 3600 + num(14..16)? * 60 + num(17..19)?;
    let ms = u64::try_from(secs).ok()? * 1000;
    ms.checked_sub(EPOCH_MS).map(SimTime)
}

// Howard Hinnant's days-from-civil algorithms (public domain arithmetic): days since 1970-01-01 ↔ (year, month, day).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Parses a Go duration (`300ms`, `30s`, `1m30s`, `2h`, `1.5s`) into milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let err = || format!("time: invalid duration {text:?}");
    let s = text.trim();
    if s.is_empty() {
        return Err(err());
    }
    if s == "0" {
        return Ok(0);
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("time: missing unit in duration {text:?}"))?;
        if num_len == 0 {
            return Err(err());
        }
        let value: f64 = rest[..num_len].parse().map_err(|_| err())?;
        rest = &rest[num_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "" => return Err(format!("time: missing unit in duration {text:?}")),
            unit => return Err(format!("time: unknown unit {unit:?} in duration {text:?}")),
        };
        total += value * factor;
        rest = &rest[unit_len..];
    }
    Ok(total.round() as u64)
}

/// Go's `time.Duration.String()` for whole milliseconds: `5m0s`, `1m30s`, `10s`, `250ms`.
pub fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let h = ms / 3_600_000;
    let m = (ms / 60_000) % 60;
    let s = (ms % 60_000) as f64 / 1000.0;
    let secs = if ms.is_multiple_of(1000) { format!("{}s", s as u64) } else { format!("{}s", trim_float(s)) };
    match (h, m) {
        (0, 0) => secs,
        (0, m) => format!("{m}m{secs}"),
        (h, m) => format!("{h}h{m}m{secs}"),
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse_like_time_parse_duration() {
        assert_eq!(parse_duration_ms("30s"), Ok(30_000));
        assert_eq!(parse_duration_ms("1m30s"), Ok(90_000));
        assert_eq!(parse_duration_ms("250ms"), Ok(250));
        assert_eq!(parse_duration_ms("1.5s"), Ok(1500));
        assert_eq!(parse_duration_ms("2h"), Ok(7_200_000));
        assert!(parse_duration_ms("30").unwrap_err().contains("missing unit"));
        assert!(parse_duration_ms("3d").unwrap_err().contains("unknown unit \"d\""));
        assert!(parse_duration_ms("").is_err());
    }

    #[test]
    fn go_duration_strings_match_time_duration_string() {
        assert_eq!(go_duration(300_000), "5m0s");
        assert_eq!(go_duration(90_000), "1m30s");
        assert_eq!(go_duration(10_000), "10s");
        assert_eq!(go_duration(250), "250ms");
        assert_eq!(go_duration(3_723_000), "1h2m3s");
    }

    #[test]
    fn go_time_layouts_in_utc_and_in_a_zone() {
        let zero = EPOCH_MS as i64;
        assert_eq!(rfc1123z_from_epoch_ms(zero + 3_723_000), "Mon, 01 Sep 2025 01:02:03 +0000");
        assert_eq!(rfc3339_in_zone(zero / 1000, 0), "2025-09-01T00:00:00Z");
        assert_eq!(rfc3339_in_zone(zero / 1000, 9 * 3600), "2025-09-01T09:00:00+09:00");
        assert_eq!(rfc3339_in_zone(zero / 1000, -(5 * 3600 + 1800)), "2025-08-31T18:30:00-05:30");
    }

    #[test]
    fn timestamps_round_trip_through_rfc3339() {
        assert_eq!(SimTime::ZERO.rfc3339(), "2025-09-01T00:00:00Z");
        assert_eq!(SimTime(61_000).rfc3339(), "2025-09-01T00:01:01Z");
        for t in [0u64, 59_000, 86_400_000 * 400 + 3_723_000] {
            assert_eq!(parse_rfc3339(&SimTime(t).rfc3339()), Some(SimTime(t)));
        }
        assert_eq!(parse_rfc3339("not a time"), None);
    }

    #[test]
    fn civil_fields_name_the_weekday_and_month() {
        let c = Civil::of(SimTime(86_400_000 + 3_723_250));
        assert_eq!((c.year, c.month, c.day, c.hour, c.minute, c.second, c.millis), (2025, 9, 2, 1, 2, 3, 250));
        assert_eq!((c.weekday_abbr(), c.month_abbr()), ("Tue", "Sep"));
        assert_eq!(Civil::of(SimTime::ZERO).weekday_abbr(), "Mon");
    }
}
