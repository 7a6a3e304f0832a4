//! Resource quantities (`500m`, `1Gi`, `2`, `1e3`) parsed and printed the way apimachinery's
//! `resource.Quantity` does: the same scanner and error messages, the same rounding (up, to nano units, then
//! to milli units by defaulting), and the same canonical string (`2000m` prints as `2`, `0.5Gi` as `512Mi`,
//! while an already canonical input keeps its spelling).
//!
//! Values are held exactly as signed nano-units in an `i128`. Inputs whose magnitude does not fit (beyond
//! about 1.7e29) are rejected as `unable to parse numeric part of quantity` where Kubernetes would accept
//! them with arbitrary precision; BinarySI values are capped at 2^63-1 as Kubernetes caps them.

use std::cmp::Ordering;

/// The regex in Kubernetes' format error.
pub const QUANTITY_REGEX: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// Why a string is not a quantity (`ErrFormatWrong`, `ErrNumeric`, `ErrSuffix`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityError {
    Format,
    Numeric,
    Suffix,
}

impl std::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QuantityError::Format => write!(f, "quantities must match the regular expression '{QUANTITY_REGEX}'"),
            QuantityError::Numeric => f.write_str("unable to parse numeric part of quantity"),
            QuantityError::Suffix => f.write_str("unable to parse quantity's suffix"),
        }
    }
}

/// How a quantity prints its suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityFormat {
    /// `m`, `k`, `M`, …
    DecimalSI,
    /// `Ki`, `Mi`, …
    BinarySI,
    /// `e3`
    DecimalExponent,
}

const NANO: i128 = 1_000_000_000;
const BINARY_CAP_UNITS: i128 = i64::MAX as i128;

/// A parsed quantity.
#[derive(Debug, Clone)]
pub struct Quantity {
    nanos: i128,
    format: QuantityFormat,
    /// The input, kept when it was already canonical (Kubernetes' cached string).
    cached: Option<String>,
    /// Scale of the fast int64 representation, when the input took that path.
    fast_scale: Option<i32>,
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

struct Scanned<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// apimachinery's `parseQuantityString`.
fn scan(s: &str) -> Result<Scanned<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    let zero = |positive| Scanned { positive, num: "0", denom: "", suffix: "" };
    loop {
        match b.get(pos) {
            None => return Ok(zero(positive)),
            Some(b'0') => pos += 1,
            Some(_) => break,
        }
    }
    let num_start = pos;
    while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    let mut num = s.get(num_start..pos).unwrap_or("");
    if pos >= end {
        return Ok(Scanned { positive, num, denom: "", suffix: "" });
    }
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        let denom_start = pos;
        while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        denom = s.get(denom_start..pos).unwrap_or("");
        if pos >= end {
            return Ok(Scanned { positive, num, denom, suffix: "" });
        }
    }
    let suffix_start = pos;
    while pos < end && b.get(pos).is_some_and(|c| b"eEinumkKMGTP".contains(c)) {
        pos += 1;
    }
    if pos < end && matches!(b.get(pos), Some(b'-') | Some(b'+')) {
        pos += 1;
    }
    while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::Format);
    }
    Ok(Scanned { positive, num, denom, suffix: s.get(suffix_start..).unwrap_or("") })
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits only.
fn go_parse_i64(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// apimachinery's suffix table: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(u32, i32, QuantityFormat)> {
    use QuantityFormat::*;
    let decimal = |e| Some((10, e, DecimalSI));
    let binary = |e| Some((2, e, BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            // Go truncates the parsed int64 to int32.
            go_parse_i64(s.get(1..)?).map(|e| (10, e as i32, DecimalExponent))
        }
        _ => None,
    }
}

fn pow10(e: u32) -> Option<u128> {
    10u128.checked_pow(e)
}

/// `v × 10^e`, rounding a fractional result up (away from zero, on a magnitude).
fn scale10_ceil(v: u128, e: i64) -> Option<u128> {
    if v == 0 {
        return Some(0);
    }
    if e >= 0 {
        let p = pow10(u32::try_from(e).ok()?)?;
        v.checked_mul(p)
    } else {
        let s = e.unsigned_abs();
        if s > 38 {
            return Some(1);
        }
        let p = pow10(s as u32)?;
        let q = v / p;
        Some(if v.is_multiple_of(p) { q } else { q + 1 })
    }
}

fn ceil_div_away(n: i128, d: i128) -> i128 {
    if d == 0 {
        return n;
    }
    let q = n / d;
    if n % d == 0 {
        q
    } else if n > 0 {
        q + 1
    } else {
        q - 1
    }
}

/// Parses a quantity as Kubernetes' `ParseQuantity` does.
pub fn parse_quantity(s: &str) -> Result<Quantity, QuantityError> {
    if s.is_empty() {
        return Err(QuantityError::Format);
    }
    if s == "0" {
        return Ok(Quantity {
            nanos: 0,
            format: QuantityFormat::DecimalSI,
            cached: Some("0".to_string()),
            fast_scale: Some(0),
        });
    }
    let sc = scan(s)?;
    let (base, exponent, mut format) = interpret(sc.suffix).ok_or(QuantityError::Suffix)?;

    // The fast int64 path decides whether Kubernetes keeps the input string as the printed form.
    let shifted = format!("{}{}", sc.num, sc.denom);
    let mut cached = None;
    let mut fast_scale = None;
    match format {
        QuantityFormat::DecimalSI | QuantityFormat::DecimalExponent => {
            let precision = 18 - (sc.num.len() + sc.denom.len()) as i64;
            let scale = exponent as i64 - sc.denom.len() as i64;
            if precision >= 0 && scale >= -9 {
                fast_scale = Some(scale as i32);
                if scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0') {
                    cached = Some(s.to_string());
                }
            }
        }
        QuantityFormat::BinarySI => {
            if sc.denom.is_empty() {
                let precision = 15 - sc.num.len() as i64 - ((exponent as f32) * 3.0 / 10.0) as i64 - 1;
                if precision >= 0 {
                    let value = sc.num.parse::<i64>().unwrap_or(0);
                    let fits = value.checked_mul(1i64.checked_shl(exponent as u32).unwrap_or(0)).is_some();
                    if fits {
                        fast_scale = Some(0);
                        if exponent % 10 == 0 && value & 0x07 != 0 {
                            cached = Some(s.to_string());
                        }
                    }
                }
            }
        }
    }

    // The exact value in nano-units.
    let denom = sc.denom.trim_end_matches('0');
    let digits = format!("{}{}", sc.num, denom);
    let digits = digits.trim_start_matches('0');
    let d: u128 = if digits.is_empty() {
        0
    } else if digits.len() > 38 {
        return Err(QuantityError::Numeric);
    } else {
        digits.parse().map_err(|_| QuantityError::Numeric)?
    };
    let magnitude = if base == 10 {
        scale10_ceil(d, exponent as i64 - denom.len() as i64 + 9)
    } else {
        d.checked_mul(1u128 << (exponent.clamp(0, 60) as u32)).and_then(|m| scale10_ceil(m, 9 - denom.len() as i64))
    };
    let magnitude = match magnitude.and_then(|m| i128::try_from(m).ok()) {
        Some(m) => m,
        None if format == QuantityFormat::BinarySI => BINARY_CAP_UNITS * NANO,
        None => return Err(QuantityError::Numeric),
    };
    let magnitude = if format == QuantityFormat::BinarySI { magnitude.min(BINARY_CAP_UNITS * NANO) } else { magnitude };
    if fast_scale.is_none() && format == QuantityFormat::BinarySI && magnitude > 0 && magnitude < NANO {
        format = QuantityFormat::DecimalSI;
    }
    let nanos = if sc.positive { magnitude } else { -magnitude };
    Ok(Quantity { nanos, format, cached, fast_scale })
}

impl Default for Quantity {
    fn default() -> Quantity {
        Quantity { nanos: 0, format: QuantityFormat::DecimalSI, cached: None, fast_scale: None }
    }
}

impl Quantity {
    /// Parses a quantity, or None when it is not one.
    pub fn parse(text: &str) -> Option<Quantity> {
        parse_quantity(text).ok()
    }

    /// Parses, treating anything unparseable as zero (what a Go map lookup of a bad value would give).
    pub fn parse_or_zero(text: &str) -> Quantity {
        Quantity::parse(text).unwrap_or_default()
    }

    /// Adds `other` in place (`Quantity.Add`); see [`Quantity::plus`].
    pub fn add(&mut self, other: &Quantity) {
        *self = self.plus(other);
    }

    /// The value in thousandths, rounded up and clamped to i64 (`Quantity.MilliValue`).
    pub fn milli_value(&self) -> i64 {
        i64::try_from(self.milli()).unwrap_or(if self.nanos < 0 { i64::MIN } else { i64::MAX })
    }

    /// The value in whole units, rounded up and clamped to i64 (`Quantity.Value`).
    pub fn value_i64(&self) -> i64 {
        i64::try_from(self.value()).unwrap_or(if self.nanos < 0 { i64::MIN } else { i64::MAX })
    }

    /// A computed quantity (no input spelling): `NewQuantity`, `NewMilliQuantity` and the results of `Add`.
    pub fn from_nanos(nanos: i128, format: QuantityFormat) -> Quantity {
        Quantity { nanos, format, cached: None, fast_scale: None }
    }

    /// `resource.NewQuantity(n, DecimalSI)`: a count (`pods=1`).
    pub fn count(n: i64) -> Quantity {
        Quantity::from_nanos(n as i128 * NANO, QuantityFormat::DecimalSI)
    }

    /// `q.Add(y)` on a copy: the sum keeps this quantity's format unless it is zero, in which case it takes
    /// `other`'s (apimachinery's rule); the printed form is recomputed. Saturates instead of overflowing.
    pub fn plus(&self, other: &Quantity) -> Quantity {
        let format = if self.nanos == 0 { other.format } else { self.format };
        Quantity::from_nanos(self.nanos.saturating_add(other.nanos), format)
    }

    /// `q.Sub(y)` on a copy, with the same format rule as [`Quantity::plus`].
    pub fn minus(&self, other: &Quantity) -> Quantity {
        let format = if self.nanos == 0 { other.format } else { self.format };
        Quantity::from_nanos(self.nanos.saturating_sub(other.nanos), format)
    }

    /// The value in nano-units (exact).
    pub fn nanos(&self) -> i128 {
        self.nanos
    }

    /// The value in milli-units, rounded up (away from zero) as `MilliValue` does.
    pub fn milli(&self) -> i128 {
        ceil_div_away(self.nanos, 1_000_000)
    }

    /// The value in whole units (bytes for memory), rounded up (away from zero) as `Value` does.
    pub fn value(&self) -> i128 {
        ceil_div_away(self.nanos, NANO)
    }

    pub fn format(&self) -> QuantityFormat {
        self.format
    }

    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    pub fn is_negative(&self) -> bool {
        self.nanos < 0
    }

    /// `RoundUp(resource.Milli)`, which defaulting applies to every resource list: sub-milli values are
    /// rounded up and lose their original spelling.
    pub fn round_up_to_milli(&mut self) {
        if self.fast_scale.is_some_and(|s| s >= -3) {
            return;
        }
        self.cached = None;
        self.fast_scale = None;
        self.nanos = ceil_div_away(self.nanos, 1_000_000).saturating_mul(1_000_000);
    }

    /// The canonical form (`CanonicalizeBytes`), ignoring any kept input spelling.
    pub fn canonical(&self) -> String {
        if self.nanos == 0 {
            return "0".to_string();
        }
        if self.format == QuantityFormat::BinarySI
            && self.nanos.unsigned_abs() >= 1024 * NANO as u128
            && self.nanos % NANO == 0
        {
            let mut v = self.nanos / NANO;
            let mut k = 0usize;
            while v.unsigned_abs() >= 1024 && v % 1024 == 0 {
                v /= 1024;
                k += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(k).copied().unwrap_or("");
            return format!("{v}{suffix}");
        }
        let mut mantissa = self.nanos;
        let mut exp: i32 = -9;
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exp += 1;
        }
        while exp % 3 != 0 {
            mantissa = mantissa.saturating_mul(10);
            exp -= 1;
        }
        let suffix = if self.format == QuantityFormat::DecimalExponent {
            if exp == 0 {
                String::new()
            } else {
                format!("e{exp}")
            }
        } else {
            match exp {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => "",
            }
            .to_string()
        };
        format!("{mantissa}{suffix}")
    }
}

impl std::fmt::Display for Quantity {
    /// `Quantity.String()`: the kept input when it was canonical, else the canonical form.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cached {
            Some(s) => f.write_str(s),
            None => f.write_str(&self.canonical()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        parse_quantity(s).unwrap()
    }

    #[test]
    fn millicores_bytes_units_and_exponents_parse_to_exact_values() {
        assert_eq!(q("500m").milli(), 500);
        assert_eq!(q("2").milli(), 2000);
        assert_eq!(q("1e3").milli(), 1_000_000);
        assert_eq!(q("1Gi").value(), 1 << 30);
        assert_eq!(q("1.5").milli(), 1500);
        assert_eq!(q("-1").milli(), -1000);
        assert_eq!(q("100M").value(), 100_000_000);
    }

    #[test]
    fn malformed_quantities_report_kubernetes_errors() {
        assert_eq!(
            parse_quantity("abc").unwrap_err().to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(parse_quantity("").unwrap_err(), QuantityError::Format);
        assert_eq!(parse_quantity("1Kb").unwrap_err(), QuantityError::Format);
        assert_eq!(parse_quantity("1kk").unwrap_err().to_string(), "unable to parse quantity's suffix");
        assert_eq!(parse_quantity("1e").unwrap_err(), QuantityError::Suffix);
    }

    #[test]
    fn canonical_inputs_keep_their_spelling_and_others_are_canonicalized() {
        assert_eq!(q("500m").to_string(), "500m");
        assert_eq!(q("100Mi").to_string(), "100Mi");
        assert_eq!(q("1e3").to_string(), "1e3");
        assert_eq!(q("2000m").to_string(), "2");
        assert_eq!(q("1.5").to_string(), "1500m");
        assert_eq!(q("0.5Gi").to_string(), "512Mi");
        assert_eq!(q("1024Mi").to_string(), "1Gi");
        assert_eq!(q("1000").to_string(), "1k");
        assert_eq!(q("0.1").to_string(), "100m");
        assert_eq!(q("0").to_string(), "0");
        assert_eq!(q("0Gi").to_string(), "0");
    }

    #[test]
    fn defaulting_rounds_sub_milli_values_up() {
        let mut v = q("100u");
        assert_eq!(v.to_string(), "100u");
        v.round_up_to_milli();
        assert_eq!(v.to_string(), "1m");
        let mut kept = q("250m");
        kept.round_up_to_milli();
        assert_eq!(kept.to_string(), "250m");
    }

    #[test]
    fn comparisons_use_the_numeric_value() {
        assert!(q("2") > q("1"));
        assert_eq!(q("1000m"), q("1"));
        assert!(q("1Gi") > q("1G"));
    }

    #[test]
    fn huge_or_tiny_values_never_panic() {
        assert_eq!(q("1e-50").nanos(), 1);
        assert!(parse_quantity("1e100").is_err());
        assert_eq!(q("99999999Ei").value(), i64::MAX as i128);
        assert!(parse_quantity(&"9".repeat(60)).is_err());
        assert_eq!(q("+").nanos(), 0);
    }
}

/// The canonical spelling of a quantity string (unparseable text comes back unchanged).
pub fn canonical_text(text: &str) -> String {
    match Quantity::parse(text) {
        Some(q) => q.canonical(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod printing_tests {
    use super::*;

    #[test]
    fn quantities_print_in_canonical_form() {
        for (input, want) in [
            ("500m", "500m"),
            ("0.5", "500m"),
            ("1000m", "1"),
            ("2000", "2k"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("0Mi", "0"),
            ("93478772582", "93478772582"),
        ] {
            assert_eq!(canonical_text(input), want, "{input}");
        }
        assert_eq!(Quantity::default().canonical(), "0");
        assert_eq!(canonical_text("nonsense"), "nonsense");
        assert!(Quantity::parse("1K").is_none());
    }

    #[test]
    fn sums_keep_the_first_operands_format() {
        let mut total = Quantity::default();
        total.add(&Quantity::parse_or_zero("100m"));
        total.add(&Quantity::parse_or_zero("250m"));
        assert_eq!(total.canonical(), "350m");
        let mut mem = Quantity::parse_or_zero("128Mi");
        mem.add(&Quantity::parse_or_zero("64Mi"));
        assert_eq!(mem.canonical(), "192Mi");
        assert_eq!(Quantity::parse_or_zero("250m").milli_value(), 250);
        assert_eq!(Quantity::parse_or_zero("1500m").value_i64(), 2);
        assert!(Quantity::parse_or_zero("1") > Quantity::parse_or_zero("999m"));
    }
}
