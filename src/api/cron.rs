//! Cron schedules as Kubernetes reads them: the standard five-field parser of `robfig/cron/v3`
//! (`ParseStandard`, with the `@hourly`-style descriptors, `@every <duration>` and a `TZ=`/`CRON_TZ=` prefix)
//! and its `Next`, shared by the apiserver (which validates `spec.schedule` and puts the library's error text
//! after `spec.schedule: Invalid value: "<schedule>": `) and the CronJob controller (which computes fire times
//! in simulated time).
//!
//! Day of month and day of week combine as in cron: when either field is `*` (or `?`) both must match,
//! otherwise either may (`0 0 13 * 5` fires on the 13th and on every Friday). A `*/N` step with N > 1 counts
//! as a restriction, not as `*`.
//!
//! Time zones: there is no tz database here. [`zone_offset`] knows `UTC` and its aliases, `Etc/GMT±N`, and a
//! table of IANA zones whose offset is fixed today (no daylight saving time, e.g. `Asia/Seoul`, `Asia/Tokyo`,
//! `Asia/Kolkata`); other names are reported as `unknown time zone <name>`. The parser itself accepts any
//! plausible zone name, as validation needs to.

use crate::apiserver::validation::field::quote;
use crate::sim::time::{civil_from_days, days_from_civil};

/// `robfig/cron`'s marker for a field written as `*` or `?`.
const STAR: u64 = 1 << 63;

struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[] };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[] };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[] };
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)],
};

/// The five fields as bit sets (bit n set: value n matches), with [`STAR`] where the field was `*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fields {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Fields(Fields),
    /// `@every <duration>`: this many whole seconds after the previous time.
    Every(u64),
}

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    kind: Kind,
    zone: Option<String>,
}

/// Go's `strconv.Atoi` error text for `s`.
fn atoi(s: &str) -> Result<i64, String> {
    let quoted = quote(s);
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {quoted}: invalid syntax"));
    }
    s.parse::<i64>().map_err(|_| format!("strconv.Atoi: parsing {quoted}: value out of range"))
}

fn must_parse_int(expr: &str) -> Result<u64, String> {
    let num = atoi(expr).map_err(|e| format!("failed to parse int from {expr}: {e}"))?;
    if num < 0 {
        return Err(format!("negative number ({num}) not allowed: {expr}"));
    }
    Ok(num as u64)
}

fn parse_int_or_name(expr: &str, r: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    if let Some((_, v)) = r.names.iter().find(|(n, _)| *n == lower) {
        return Ok(*v);
    }
    must_parse_int(expr)
}

fn bits(start: u64, end: u64, step: u64) -> u64 {
    (start..=end).step_by(step as usize).fold(0, |acc, v| acc | (1 << v))
}

/// Every value of a field's range, marked as `*`.
fn all(r: &Bounds) -> u64 {
    bits(r.min, r.max, 1) | STAR
}

fn get_range(expr: &str, r: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let first = range_and_step.first().copied().unwrap_or("");
    let low_and_high: Vec<&str> = first.split('-').collect();
    let single = low_and_high.len() == 1;
    let low = low_and_high.first().copied().unwrap_or("");
    let mut extra = 0;
    let (start, mut end) = if low == "*" || low == "?" {
        extra = STAR;
        (r.min, r.max)
    } else {
        let start = parse_int_or_name(low, r)?;
        let end = match low_and_high.as_slice() {
            [_] => start,
            [_, high] => parse_int_or_name(high, r)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end)
    };
    let step = match range_and_step.as_slice() {
        [_] => 1,
        [_, step] => {
            let step = must_parse_int(step)?;
            if single {
                end = r.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < r.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr}", r.min));
    }
    if end > r.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr}", r.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(bits(start, end, step) | extra)
}

fn get_field(field: &str, r: &Bounds) -> Result<u64, String> {
    field.split(',').filter(|p| !p.is_empty()).try_fold(0, |acc, expr| Ok(acc | get_range(expr, r)?))
}

/// Go's `time.ParseDuration`, in nanoseconds, with its error texts.
fn parse_duration(s: &str) -> Result<i128, String> {
    let invalid = || format!("time: invalid duration {}", quote(s));
    let negative = s.starts_with('-');
    let mut rest = s.strip_prefix(['+', '-']).unwrap_or(s);
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = rest.get(..int_len).unwrap_or("");
        let mut consumed = int_len;
        let mut frac = "";
        if rest.as_bytes().get(consumed) == Some(&b'.') {
            consumed += 1;
            let frac_len = rest.get(consumed..).unwrap_or("").bytes().take_while(u8::is_ascii_digit).count();
            frac = rest.get(consumed..consumed + frac_len).unwrap_or("");
            consumed += frac_len;
        }
        if int_part.is_empty() && frac.is_empty() {
            return Err(invalid());
        }
        rest = rest.get(consumed..).unwrap_or("");
        let unit_len =
            rest.char_indices().find(|(_, c)| *c == '.' || c.is_ascii_digit()).map_or(rest.len(), |(i, _)| i);
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(s)));
        }
        let unit = rest.get(..unit_len).unwrap_or("");
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(format!("time: unknown unit {} in duration {}", quote(unit), quote(s))),
        };
        rest = rest.get(unit_len..).unwrap_or("");
        // Digits beyond what an int64 of nanoseconds can hold overflow, as Go reports.
        if int_part.len() > 19 {
            return Err(invalid());
        }
        let whole: i128 = int_part.parse::<i128>().unwrap_or(0) * scale;
        let mut fraction: i128 = 0;
        let mut place = scale;
        for d in frac.bytes().take(20) {
            place /= 10;
            fraction += i128::from(d - b'0') * place;
        }
        total += whole + fraction;
        if total > i128::from(i64::MAX) {
            return Err(invalid());
        }
    }
    Ok(if negative { -total } else { total })
}

fn parse_descriptor(descriptor: &str) -> Result<Kind, String> {
    let at =
        |minute: u64, hour: u64, dom: u64, month: u64, dow: u64| Kind::Fields(Fields { minute, hour, dom, month, dow });
    Ok(match descriptor {
        "@yearly" | "@annually" => at(1, 1, 1 << 1, 1 << 1, all(&DOW)),
        "@monthly" => at(1, 1, 1 << 1, all(&MONTHS), all(&DOW)),
        "@weekly" => at(1, 1, all(&DOM), all(&MONTHS), 1),
        "@daily" | "@midnight" => at(1, 1, all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => at(1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        d => match d.strip_prefix("@every ") {
            Some(dur) => {
                let ns = parse_duration(dur).map_err(|e| format!("failed to parse duration {descriptor}: {e}"))?;
                // `cron.Every`: at least a second, whole seconds only.
                Kind::Every(u64::try_from(ns / 1_000_000_000).unwrap_or(0).max(1))
            }
            None => return Err(format!("unrecognized descriptor: {descriptor}")),
        },
    })
}

/// `cron.ParseStandard(spec)`: the schedule, or the library's error text.
pub fn parse(spec: &str) -> Result<Schedule, String> {
    if spec.is_empty() {
        return Err("empty spec string".to_string());
    }
    let mut spec = spec;
    let mut zone = None;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let eq = spec.find('=').unwrap_or(0);
        let space = spec.find(' ').unwrap_or(spec.len());
        let loc = spec.get(eq + 1..space).unwrap_or("");
        let plausible = loc.is_empty()
            || loc.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'.'));
        if !plausible {
            return Err(format!("provided bad location {loc}: unknown time zone {loc}"));
        }
        zone = Some(loc.to_string());
        spec = spec.get(space..).unwrap_or("").trim();
    }
    if spec.starts_with('@') {
        return Ok(Schedule { kind: parse_descriptor(spec)?, zone });
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    let [minute, hour, dom, month, dow] = fields.as_slice() else {
        return Err(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
    };
    let fields = Fields {
        minute: get_field(minute, &MINUTES)?,
        hour: get_field(hour, &HOURS)?,
        dom: get_field(dom, &DOM)?,
        month: get_field(month, &MONTHS)?,
        dow: get_field(dow, &DOW)?,
    };
    Ok(Schedule { kind: Kind::Fields(fields), zone })
}

/// `cron.ParseStandard(spec)` for validation: `Ok` when the schedule is accepted, else the error text.
pub fn parse_standard(spec: &str) -> Result<(), String> {
    parse(spec).map(|_| ())
}

/// The UTC offset in seconds of a time zone name, if this engine knows it (see the module header);
/// else Go's `time.LoadLocation` error text.
pub fn zone_offset(name: &str) -> Result<i64, String> {
    const H: i64 = 3600;
    let fixed: &[(&str, i64)] = &[
        ("", 0),
        ("UTC", 0),
        ("Etc/UTC", 0),
        ("Etc/UCT", 0),
        ("UCT", 0),
        ("GMT", 0),
        ("Etc/GMT", 0),
        ("Etc/GMT0", 0),
        ("Etc/Greenwich", 0),
        ("Etc/Universal", 0),
        ("Etc/Zulu", 0),
        ("Universal", 0),
        ("Zulu", 0),
        ("Asia/Seoul", 9 * H),
        ("ROK", 9 * H),
        ("Asia/Tokyo", 9 * H),
        ("Japan", 9 * H),
        ("Asia/Pyongyang", 9 * H),
        ("Asia/Shanghai", 8 * H),
        ("PRC", 8 * H),
        ("Asia/Hong_Kong", 8 * H),
        ("Asia/Taipei", 8 * H),
        ("Asia/Singapore", 8 * H),
        ("Asia/Manila", 8 * H),
        ("Asia/Kuala_Lumpur", 8 * H),
        ("Australia/Perth", 8 * H),
        ("Asia/Jakarta", 7 * H),
        ("Asia/Bangkok", 7 * H),
        ("Asia/Ho_Chi_Minh", 7 * H),
        ("Asia/Dhaka", 6 * H),
        ("Asia/Kolkata", 5 * H + 1800),
        ("Asia/Calcutta", 5 * H + 1800),
        ("Asia/Kathmandu", 5 * H + 2700),
        ("Asia/Karachi", 5 * H),
        ("Asia/Tashkent", 5 * H),
        ("Asia/Dubai", 4 * H),
        ("Europe/Moscow", 3 * H),
        ("Europe/Istanbul", 3 * H),
        ("Asia/Riyadh", 3 * H),
        ("Africa/Nairobi", 3 * H),
        ("Africa/Johannesburg", 2 * H),
        ("Africa/Cairo", 2 * H),
        ("Africa/Lagos", H),
        ("Atlantic/Reykjavik", 0),
        ("America/Sao_Paulo", -3 * H),
        ("America/Argentina/Buenos_Aires", -3 * H),
        ("America/Bogota", -5 * H),
        ("America/Lima", -5 * H),
        ("America/Phoenix", -7 * H),
        ("Pacific/Honolulu", -10 * H),
        ("Australia/Brisbane", 10 * H),
    ];
    if let Some((_, off)) = fixed.iter().find(|(n, _)| *n == name) {
        return Ok(*off);
    }
    // `Etc/GMT+5` is five hours behind UTC (POSIX signs).
    if let Some(rest) = name.strip_prefix("Etc/GMT") {
        let (sign, digits) = match rest.split_at_checked(1) {
            Some(("+", d)) => (-1, d),
            Some(("-", d)) => (1, d),
            _ => (0, ""),
        };
        if let Ok(h) = digits.parse::<i64>() {
            if (1..=14).contains(&h) && !digits.starts_with('0') && sign != 0 {
                return Ok(sign * h * H);
            }
        }
    }
    Err(format!("unknown time zone {name}"))
}

impl Schedule {
    /// The zone named by a `TZ=`/`CRON_TZ=` prefix, if any.
    pub fn zone(&self) -> Option<&str> {
        self.zone.as_deref()
    }

    /// `Schedule.Next(t)`: the first fire time strictly after `after_ms` (Unix milliseconds), in Unix
    /// seconds, reading the fields in a zone `offset_s` seconds east of UTC; `None` when nothing matches
    /// within five years (`0 0 30 2 *`), as the library then returns the zero time.
    pub fn next(&self, after_ms: i64, offset_s: i64) -> Option<i64> {
        let after_s = after_ms.div_euclid(1000);
        match &self.kind {
            Kind::Every(secs) => after_s.checked_add(i64::try_from(*secs).ok()?),
            Kind::Fields(f) => {
                // The upcoming second, then the first whole minute from there (seconds always match 0).
                let local = after_s.checked_add(1)?.checked_add(offset_s)?;
                let start = local.div_euclid(60).checked_add(i64::from(local.rem_euclid(60) != 0))? * 60;
                next_in_fields(f, start).map(|t| t - offset_s)
            }
        }
    }
}

/// Whether a day matches: both fields when either is `*`, else either.
fn day_matches(f: &Fields, day: u32, weekday: u32) -> bool {
    let dom = f.dom & (1 << day) != 0;
    let dow = f.dow & (1 << weekday) != 0;
    if f.dom & STAR != 0 || f.dow & STAR != 0 {
        dom && dow
    } else {
        dom || dow
    }
}

/// The first local time (seconds, a whole minute) at or after `start` the fields match.
fn next_in_fields(f: &Fields, start: i64) -> Option<i64> {
    let day_of = |t: i64| t.div_euclid(86_400);
    let year_limit = civil_from_days(day_of(start)).0 + 5;
    let mut t = start;
    loop {
        let days = day_of(t);
        let (y, m, d) = civil_from_days(days);
        if y > year_limit {
            return None;
        }
        let secs = t.rem_euclid(86_400);
        let (hour, minute) = (secs / 3600, (secs % 3600) / 60);
        // 1970-01-01 was a Thursday.
        let weekday = (days + 4).rem_euclid(7) as u32;
        if f.month & (1 << m) == 0 {
            let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, i64::from(m) + 1) };
            t = days_from_civil(ny, nm, 1) * 86_400;
        } else if !day_matches(f, d, weekday) {
            t = (days + 1) * 86_400;
        } else if f.hour & (1 << hour) == 0 {
            t = days * 86_400 + (hour + 1) * 3600;
        } else if f.minute & (1 << minute) == 0 {
            t += 60;
        } else {
            return Some(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::rfc3339_from_epoch_ms;

    /// Unix milliseconds of an RFC 3339 UTC time.
    fn at(text: &str) -> i64 {
        let t = crate::sim::time::parse_rfc3339(text).expect("time");
        (t.ms() + crate::sim::time::EPOCH_MS) as i64
    }

    /// The next `n` fire times after `from`, as RFC 3339 UTC.
    fn fires(spec: &str, from: &str, n: usize) -> Vec<String> {
        fires_in(spec, from, n, 0)
    }

    fn fires_in(spec: &str, from: &str, n: usize, offset: i64) -> Vec<String> {
        let s = parse(spec).expect("valid schedule");
        let mut t = at(from);
        let mut out = Vec::new();
        for _ in 0..n {
            let Some(next) = s.next(t, offset) else { break };
            out.push(rfc3339_from_epoch_ms(next as u64 * 1000));
            t = next * 1000;
        }
        out
    }

    #[test]
    fn every_minute_fires_on_the_next_whole_minute_strictly_after() {
        assert_eq!(
            fires("*/1 * * * *", "2025-09-01T00:00:00Z", 3),
            ["2025-09-01T00:01:00Z", "2025-09-01T00:02:00Z", "2025-09-01T00:03:00Z"]
        );
        assert_eq!(fires("* * * * *", "2025-09-01T00:00:59Z", 1), ["2025-09-01T00:01:00Z"]);
        let s = parse("* * * * *").unwrap();
        // 00:00:59.500 is still before the minute: the upcoming second is 01:00 itself.
        assert_eq!(s.next(at("2025-09-01T00:00:59Z") + 500, 0), Some(at("2025-09-01T00:01:00Z") / 1000));
    }

    #[test]
    fn ranges_steps_and_lists_combine() {
        assert_eq!(
            fires("*/15 9-10 * * *", "2025-09-01T09:50:00Z", 4),
            ["2025-09-01T10:00:00Z", "2025-09-01T10:15:00Z", "2025-09-01T10:30:00Z", "2025-09-01T10:45:00Z"]
        );
        assert_eq!(
            fires("5,35 1-5/2 * * *", "2025-09-01T00:00:00Z", 5),
            [
                "2025-09-01T01:05:00Z",
                "2025-09-01T01:35:00Z",
                "2025-09-01T03:05:00Z",
                "2025-09-01T03:35:00Z",
                "2025-09-01T05:05:00Z"
            ]
        );
        // `N/step` runs from N to the maximum.
        assert_eq!(
            fires("50/5 * * * *", "2025-09-01T00:00:00Z", 3),
            ["2025-09-01T00:50:00Z", "2025-09-01T00:55:00Z", "2025-09-01T01:50:00Z"]
        );
        assert_eq!(
            fires("0 0 1 jan,Jul *", "2025-09-01T00:00:00Z", 2),
            ["2026-01-01T00:00:00Z", "2026-07-01T00:00:00Z"]
        );
    }

    #[test]
    fn day_of_month_and_day_of_week_are_either_unless_one_is_a_star() {
        // 2025-09-01 is a Monday. The 13th or any Friday:
        assert_eq!(
            fires("0 0 13 * 5", "2025-09-01T00:00:00Z", 4),
            ["2025-09-05T00:00:00Z", "2025-09-12T00:00:00Z", "2025-09-13T00:00:00Z", "2025-09-19T00:00:00Z"]
        );
        // With a star in day of month only the weekday restricts.
        assert_eq!(fires("0 0 * * fri", "2025-09-01T00:00:00Z", 2), ["2025-09-05T00:00:00Z", "2025-09-12T00:00:00Z"]);
        // A step over every day of month is a restriction, not a star: either field may match.
        assert_eq!(
            fires("0 0 */2 * 1", "2025-09-01T00:00:00Z", 3),
            ["2025-09-03T00:00:00Z", "2025-09-05T00:00:00Z", "2025-09-07T00:00:00Z"]
        );
        assert_eq!(fires("0 0 */2 * 1", "2025-09-06T00:00:00Z", 2), ["2025-09-07T00:00:00Z", "2025-09-08T00:00:00Z"]);
    }

    #[test]
    fn descriptors_mean_their_five_field_forms() {
        let from = "2025-09-03T10:20:00Z";
        assert_eq!(fires("@hourly", from, 1), ["2025-09-03T11:00:00Z"]);
        assert_eq!(fires("@daily", from, 1), ["2025-09-04T00:00:00Z"]);
        assert_eq!(fires("@midnight", from, 1), fires("0 0 * * *", from, 1));
        assert_eq!(fires("@weekly", from, 1), ["2025-09-07T00:00:00Z"]);
        assert_eq!(fires("@monthly", from, 1), ["2025-10-01T00:00:00Z"]);
        assert_eq!(fires("@yearly", from, 1), ["2026-01-01T00:00:00Z"]);
        assert_eq!(fires("@annually", from, 1), fires("@yearly", from, 1));
        assert_eq!(fires("@every 1h30m", from, 2), ["2025-09-03T11:50:00Z", "2025-09-03T13:20:00Z"]);
    }

    #[test]
    fn impossible_dates_never_fire_and_leap_days_wait_for_a_leap_year() {
        assert_eq!(fires("0 0 30 2 *", "2025-09-01T00:00:00Z", 1), Vec::<String>::new());
        assert_eq!(fires("0 0 29 2 *", "2025-09-01T00:00:00Z", 1), ["2028-02-29T00:00:00Z"]);
        assert_eq!(fires("0 0 31 * *", "2025-09-01T00:00:00Z", 2), ["2025-10-31T00:00:00Z", "2025-12-31T00:00:00Z"]);
    }

    #[test]
    fn time_zones_shift_the_fields() {
        // 09:00 in Seoul is 00:00 UTC.
        let seoul = zone_offset("Asia/Seoul").unwrap();
        assert_eq!(
            fires_in("0 9 * * *", "2025-09-01T00:00:00Z", 2, seoul),
            ["2025-09-02T00:00:00Z", "2025-09-03T00:00:00Z"]
        );
        assert_eq!(zone_offset("Etc/GMT+5"), Ok(-5 * 3600));
        assert_eq!(zone_offset("Asia/Kolkata"), Ok(19_800));
        assert_eq!(zone_offset("Mars/Olympus").unwrap_err(), "unknown time zone Mars/Olympus");
        assert_eq!(parse("CRON_TZ=Asia/Seoul 0 9 * * *").unwrap().zone(), Some("Asia/Seoul"));
    }

    #[test]
    fn standard_schedules_and_descriptors_are_accepted() {
        for ok in [
            "*/5 * * * *",
            "0 0 * * 0",
            "30 2 1-15 jan,FEB mon-fri",
            "@hourly",
            "@daily",
            "@every 1h30m",
            "0 0 ? * *",
            "CRON_TZ=UTC 0 * * * *",
        ] {
            assert_eq!(parse_standard(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn wrong_field_counts_name_the_fields_found() {
        assert_eq!(parse_standard("* * *").unwrap_err(), "expected exactly 5 fields, found 3: [* * *]");
        assert_eq!(parse_standard("* * * * * *").unwrap_err(), "expected exactly 5 fields, found 6: [* * * * * *]");
        assert_eq!(parse_standard("").unwrap_err(), "empty spec string");
    }

    #[test]
    fn out_of_range_and_unparsable_values_read_like_robfig_cron() {
        assert_eq!(parse_standard("60 * * * *").unwrap_err(), "end of range (60) above maximum (59): 60");
        assert_eq!(parse_standard("* * 0 * *").unwrap_err(), "beginning of range (0) below minimum (1): 0");
        assert_eq!(parse_standard("* * * * 7").unwrap_err(), "end of range (7) above maximum (6): 7");
        assert_eq!(
            parse_standard("x * * * *").unwrap_err(),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            parse_standard("-1 * * * *").unwrap_err(),
            "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"
        );
        assert_eq!(parse_standard("5-2 * * * *").unwrap_err(), "beginning of range (5) beyond end of range (2): 5-2");
        assert_eq!(parse_standard("*/0 * * * *").unwrap_err(), "step of range should be a positive number: */0");
        assert_eq!(parse_standard("1-2-3 * * * *").unwrap_err(), "too many hyphens: 1-2-3");
        assert_eq!(parse_standard("1/2/3 * * * *").unwrap_err(), "too many slashes: 1/2/3");
        assert_eq!(parse_standard("@fortnightly").unwrap_err(), "unrecognized descriptor: @fortnightly");
        assert_eq!(
            parse_standard("@every 5x").unwrap_err(),
            "failed to parse duration @every 5x: time: unknown unit \"x\" in duration \"5x\""
        );
        assert_eq!(
            parse_standard("@every 5").unwrap_err(),
            "failed to parse duration @every 5: time: missing unit in duration \"5\""
        );
    }

    #[test]
    fn absurd_inputs_neither_panic_nor_loop() {
        for spec in
            ["@every 99999999999999999999h", "@every 0.0000000001s", "@every -5s", ",,, * * * *", "0 0 31 4,6,9,11 *"]
        {
            if let Ok(s) = parse(spec) {
                let _ = s.next(i64::MAX / 2, 0);
                let _ = s.next(0, -14 * 3600);
            }
        }
        assert_eq!(parse("@every 0.5s").unwrap().next(1_000, 0), Some(2));
        assert_eq!(parse("0 0 31 4,6,9,11 *").unwrap().next(0, 0), None);
    }
}
