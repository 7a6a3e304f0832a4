//! Resource quantities (`500m`, `128Mi`, `2`) as apimachinery's `resource.Quantity` handles them for
//! display: parsing any accepted spelling, adding, comparing, and printing the canonical form
//! (`0.5` → `500m`, `1024Mi` → `1Gi`, `1500` → `1500`, zero → `0`).
//!
//! Values are kept as a count of nano-units in an `i128`, which covers every quantity Kubernetes
//! accepts (at most 2^63-1 units, at least 1n) exactly.

use std::cmp::Ordering;

const NANO: i128 = 1_000_000_000;

/// Which family of suffix a quantity was written with; it decides how it prints back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `m`, `k`, `M`, … or no suffix.
    DecimalSi,
    /// `Ki`, `Mi`, `Gi`, …
    BinarySi,
    /// `1e3`, `5E-3`.
    DecimalExponent,
    /// The zero value of an absent quantity (prints `0`).
    None,
}

/// A parsed quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantity {
    nanos: i128,
    format: Format,
}

impl Default for Quantity {
    fn default() -> Self {
        Quantity { nanos: 0, format: Format::None }
    }
}

impl Quantity {
    /// Parses `text` the way `resource.ParseQuantity` does; `None` when it is not a quantity.
    pub fn parse(text: &str) -> Option<Quantity> {
        let s = text.trim();
        if s.is_empty() {
            return None;
        }
        let bytes = s.as_bytes();
        let mut i = 0;
        let mut negative = false;
        if bytes[0] == b'+' || bytes[0] == b'-' {
            negative = bytes[0] == b'-';
            i = 1;
        }
        let int_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &s[int_start..i];
        let mut frac_part = "";
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            let frac_start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &s[frac_start..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let suffix = &s[i..];
        let (base2, exponent, format) = match suffix {
            "" => (false, 0, Format::DecimalSi),
            "n" => (false, -9, Format::DecimalSi),
            "u" => (false, -6, Format::DecimalSi),
            "m" => (false, -3, Format::DecimalSi),
            "k" => (false, 3, Format::DecimalSi),
            "M" => (false, 6, Format::DecimalSi),
            "G" => (false, 9, Format::DecimalSi),
            "T" => (false, 12, Format::DecimalSi),
            "P" => (false, 15, Format::DecimalSi),
            "E" => (false, 18, Format::DecimalSi),
            "Ki" => (true, 10, Format::BinarySi),
            "Mi" => (true, 20, Format::BinarySi),
            "Gi" => (true, 30, Format::BinarySi),
            "Ti" => (true, 40, Format::BinarySi),
            "Pi" => (true, 50, Format::BinarySi),
            "Ei" => (true, 60, Format::BinarySi),
            other => {
                let rest = other.strip_prefix(['e', 'E'])?;
                let exp: i32 = rest.parse().ok()?;
                if !(-40..=40).contains(&exp) {
                    return None;
                }
                (false, exp, Format::DecimalExponent)
            }
        };
        let digits = format!("{int_part}{frac_part}");
        let digits = digits.trim_start_matches('0');
        if digits.len() > 30 {
            return None;
        }
        let mantissa: i128 = if digits.is_empty() { 0 } else { digits.parse().ok()? };
        let frac_len = frac_part.len() as i32;
        let nanos = if base2 {
            let scaled = mantissa.checked_mul(1i128 << exponent)?.checked_mul(NANO)?;
            div_ceil_abs(scaled, pow10(frac_len)?)
        } else {
            let shift = exponent - frac_len + 9;
            if shift >= 0 {
                mantissa.checked_mul(pow10(shift)?)?
            } else {
                div_ceil_abs(mantissa, pow10(-shift)?)
            }
        };
        Some(Quantity { nanos: if negative { -nanos } else { nanos }, format })
    }

    /// Parses, treating anything unparseable as zero (what a Go map lookup of a bad value would give).
    pub fn parse_or_zero(text: &str) -> Quantity {
        Quantity::parse(text).unwrap_or_default()
    }

    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    /// Adds `other`; an empty quantity takes the other's format (as `Quantity.Add` does).
    pub fn add(&mut self, other: &Quantity) {
        if self.nanos == 0 {
            self.format = other.format;
        }
        self.nanos = self.nanos.saturating_add(other.nanos);
    }

    /// The value in whole units, rounded up (`Quantity.Value`).
    pub fn value(&self) -> i64 {
        clamp_i64(div_ceil_abs(self.nanos, NANO))
    }

    /// The value in thousandths, rounded up (`Quantity.MilliValue`).
    pub fn milli_value(&self) -> i64 {
        clamp_i64(div_ceil_abs(self.nanos, 1_000_000))
    }

    /// `Quantity.String()`: the canonical spelling.
    pub fn canonical(&self) -> String {
        if self.nanos == 0 {
            return "0".to_string();
        }
        let mut format = self.format;
        if format == Format::BinarySi && (self.nanos.unsigned_abs() < (1024 * NANO) as u128 || self.nanos % NANO != 0) {
            format = Format::DecimalSi;
        }
        match format {
            Format::BinarySi => {
                let mut units = self.nanos / NANO;
                let mut exp = 0;
                while units % 1024 == 0 && exp < 6 {
                    units /= 1024;
                    exp += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][exp];
                format!("{units}{suffix}")
            }
            Format::DecimalSi | Format::DecimalExponent | Format::None => {
                let mut mantissa = self.nanos;
                let mut exp: i32 = -9;
                while mantissa % 10 == 0 {
                    mantissa /= 10;
                    exp += 1;
                }
                let down = exp.rem_euclid(3);
                for _ in 0..down {
                    mantissa = mantissa.saturating_mul(10);
                }
                exp -= down;
                let suffix = if format == Format::DecimalSi {
                    match exp {
                        -9 => "n".to_string(),
                        -6 => "u".to_string(),
                        -3 => "m".to_string(),
                        0 => String::new(),
                        3 => "k".to_string(),
                        6 => "M".to_string(),
                        9 => "G".to_string(),
                        12 => "T".to_string(),
                        15 => "P".to_string(),
                        18 => "E".to_string(),
                        other => format!("e{other}"),
                    }
                } else if exp == 0 {
                    String::new()
                } else {
                    format!("e{exp}")
                };
                format!("{mantissa}{suffix}")
            }
        }
    }
}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.nanos.cmp(&other.nanos))
    }
}

/// The canonical spelling of a quantity string (unparseable text comes back unchanged).
pub fn canonical(text: &str) -> String {
    match Quantity::parse(text) {
        Some(q) => q.canonical(),
        None => text.to_string(),
    }
}

fn pow10(exp: i32) -> Option<i128> {
    if !(0..=38).contains(&exp) {
        return None;
    }
    10i128.checked_pow(exp as u32)
}

/// Divides rounding away from zero, as `inf.RoundUp` does.
fn div_ceil_abs(value: i128, divisor: i128) -> i128 {
    let q = value / divisor;
    if value % divisor != 0 {
        if value > 0 {
            q + 1
        } else {
            q - 1
        }
    } else {
        q
    }
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_print_in_canonical_form() {
        for (input, want) in [
            ("500m", "500m"),
            ("0.5", "500m"),
            ("1", "1"),
            ("1000m", "1"),
            ("1500", "1500"),
            ("2000", "2k"),
            ("128Mi", "128Mi"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("1.5Gi", "1536Mi"),
            ("8025588Ki", "8025588Ki"),
            ("512", "512"),
            ("0.5Ki", "512"),
            ("1e3", "1e3"),
            ("0", "0"),
            ("0Mi", "0"),
            ("100M", "100M"),
            ("93478772582", "93478772582"),
            ("110", "110"),
        ] {
            assert_eq!(canonical(input), want, "{input}");
        }
        assert_eq!(Quantity::default().canonical(), "0");
        assert_eq!(canonical("nonsense"), "nonsense");
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
        assert_eq!(Quantity::parse_or_zero("1500m").value(), 2);
        assert_eq!(Quantity::parse_or_zero("128Mi").value(), 134_217_728);
        assert!(Quantity::parse_or_zero("1") > Quantity::parse_or_zero("999m"));
        for format in [Format::BinarySi, Format::DecimalSi] {
            for nanos in [i128::MIN, i128::MAX] {
                assert!(!Quantity { nanos, format }.canonical().is_empty());
            }
        }
    }
}
