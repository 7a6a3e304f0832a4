//! CronJob schedules checked as the apiserver checks them: the standard five-field parser of
//! `robfig/cron/v3` (`ParseStandard`, with `@hourly`-style descriptors and `@every <duration>`), returning the
//! library's exact error text, which Kubernetes puts after `spec.schedule: Invalid value: "<schedule>": `.
//!
//! Time zone names (`CRON_TZ=…`) are not looked up in a tz database: any name made of letters, digits,
//! `_`, `-`, `+` and `/` is accepted, so `provided bad location` is only reported for other characters.

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

/// Go's `strconv.Atoi` error text for `s`.
fn atoi(s: &str) -> Result<i64, String> {
    let quoted = super::field::quote(s);
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

fn get_range(expr: &str, r: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let first = range_and_step.first().copied().unwrap_or("");
    let low_and_high: Vec<&str> = first.split('-').collect();
    let single = low_and_high.len() == 1;
    let low = low_and_high.first().copied().unwrap_or("");
    let (start, mut end) = if low == "*" || low == "?" {
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
    Ok(())
}

fn get_field(field: &str, r: &Bounds) -> Result<(), String> {
    field.split(',').filter(|p| !p.is_empty()).try_for_each(|expr| get_range(expr, r))
}

/// Go's `time.ParseDuration` acceptance (values are not needed, only the error text).
fn parse_duration(s: &str) -> Result<(), String> {
    let invalid = || format!("time: invalid duration {}", super::field::quote(s));
    let mut rest = s.strip_prefix(['+', '-']).unwrap_or(s);
    if rest == "0" {
        return Ok(());
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut consumed = int_len;
        let mut frac_len = 0;
        if rest.as_bytes().get(consumed) == Some(&b'.') {
            consumed += 1;
            frac_len = rest.get(consumed..).unwrap_or("").bytes().take_while(u8::is_ascii_digit).count();
            consumed += frac_len;
        }
        if int_len == 0 && frac_len == 0 {
            return Err(invalid());
        }
        rest = rest.get(consumed..).unwrap_or("");
        let unit_len =
            rest.char_indices().find(|(_, c)| *c == '.' || c.is_ascii_digit()).map_or(rest.len(), |(i, _)| i);
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", super::field::quote(s)));
        }
        let unit = rest.get(..unit_len).unwrap_or("");
        if !matches!(unit, "ns" | "us" | "µs" | "μs" | "ms" | "s" | "m" | "h") {
            return Err(format!(
                "time: unknown unit {} in duration {}",
                super::field::quote(unit),
                super::field::quote(s)
            ));
        }
        rest = rest.get(unit_len..).unwrap_or("");
    }
    Ok(())
}

fn parse_descriptor(descriptor: &str) -> Result<(), String> {
    match descriptor {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => Ok(()),
        d => match d.strip_prefix("@every ") {
            Some(dur) => parse_duration(dur).map_err(|e| format!("failed to parse duration {descriptor}: {e}")),
            None => Err(format!("unrecognized descriptor: {descriptor}")),
        },
    }
}

/// `cron.ParseStandard(spec)`: `Ok` when the schedule is accepted, else the library's error text.
pub fn parse_standard(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty spec string".to_string());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let eq = spec.find('=').unwrap_or(0);
        let space = spec.find(' ').unwrap_or(spec.len());
        let loc = spec.get(eq + 1..space).unwrap_or("");
        let known = loc.is_empty()
            || loc.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'.'));
        if !known {
            return Err(format!("provided bad location {loc}: unknown time zone {loc}"));
        }
        spec = spec.get(space..).unwrap_or("").trim();
    }
    if spec.starts_with('@') {
        return parse_descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
    }
    let bounds = [&MINUTES, &HOURS, &DOM, &MONTHS, &DOW];
    fields.iter().zip(bounds).try_for_each(|(f, b)| get_field(f, b))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(parse_standard("").unwrap_err(), "empty spec string");
    }

    #[test]
    fn out_of_range_and_unparsable_values_read_like_robfig_cron() {
        assert_eq!(parse_standard("60 * * * *").unwrap_err(), "end of range (60) above maximum (59): 60");
        assert_eq!(parse_standard("* * 0 * *").unwrap_err(), "beginning of range (0) below minimum (1): 0");
        assert_eq!(
            parse_standard("x * * * *").unwrap_err(),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(parse_standard("5-2 * * * *").unwrap_err(), "beginning of range (5) beyond end of range (2): 5-2");
        assert_eq!(parse_standard("*/0 * * * *").unwrap_err(), "step of range should be a positive number: */0");
        assert_eq!(parse_standard("1-2-3 * * * *").unwrap_err(), "too many hyphens: 1-2-3");
        assert_eq!(parse_standard("@fortnightly").unwrap_err(), "unrecognized descriptor: @fortnightly");
        assert_eq!(
            parse_standard("@every 5x").unwrap_err(),
            "failed to parse duration @every 5x: time: unknown unit \"x\" in duration \"5x\""
        );
    }
}
