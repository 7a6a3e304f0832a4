//! Small formatting rules shared by the printers: label sets (`app=web,tier=db` / `<none>`), label
//! selectors as apimachinery renders them (`app=web,env in (a,b),!canary`), host:port joining, and the
//! Go spellings kubectl's output inherits (`strconv.Quote`, `%v` of floats).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// `labels.FormatLabels`: `k=v` pairs sorted by key and comma-joined, or `<none>`.
pub fn format_labels(labels: Option<&BTreeMap<String, String>>) -> String {
    match labels {
        Some(map) if !map.is_empty() => map.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
        _ => "<none>".to_string(),
    }
}

/// `metav1.LabelSelectorAsSelector(sel).String()`: `""` for a nil or empty selector, `Err` for an
/// operator apimachinery rejects.
pub fn selector_string(selector: Option<&LabelSelector>) -> Result<String, String> {
    let Some(sel) = selector else {
        return Ok(String::new());
    };
    let mut reqs: Vec<(String, String)> = Vec::new();
    for (k, v) in sel.match_labels.iter().flatten() {
        reqs.push((k.clone(), format!("{k}={v}")));
    }
    for expr in sel.match_expressions.iter().flatten() {
        let mut values: Vec<String> = expr.values.clone().unwrap_or_default();
        values.sort();
        let key = &expr.key;
        let text = match expr.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    return Err("for 'in', 'notin' operators, values set can't be empty".to_string());
                }
                let op = if expr.operator == "In" { "in" } else { "notin" };
                format!("{key} {op} ({})", values.join(","))
            }
            "Exists" => key.clone(),
            "DoesNotExist" => format!("!{key}"),
            other => return Err(format!("{other:?} is not a valid label selector operator")),
        };
        reqs.push((key.clone(), text));
    }
    reqs.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(reqs.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(","))
}

/// `metav1.FormatLabelSelector`: the selector string, `<none>` when it selects nothing or everything,
/// `<error>` when it is invalid.
pub fn format_label_selector(selector: Option<&LabelSelector>) -> String {
    match selector_string(selector) {
        Ok(s) if s.is_empty() => "<none>".to_string(),
        Ok(s) => s,
        Err(_) => "<error>".to_string(),
    }
}

/// `net.JoinHostPort`: brackets IPv6 hosts.
pub fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// `strconv.Quote` (also what `%q` and `%#v` print for a string): the engine's one implementation.
pub fn go_quote(s: &str) -> String {
    crate::apiserver::validation::field::quote(s)
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also what `%v` prints for a float64.
pub fn go_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Shortest round-trip digits and decimal exponent, from Rust's own shortest formatting.
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    // Go picks %e when the exponent is below -4 or at least 6 for the shortest representation.
    if !(-4..6).contains(&exp) {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    #[test]
    fn label_sets_print_sorted_or_none() {
        let mut m = BTreeMap::new();
        assert_eq!(format_labels(Some(&m)), "<none>");
        m.insert("tier".to_string(), "db".to_string());
        m.insert("app".to_string(), "web".to_string());
        assert_eq!(format_labels(Some(&m)), "app=web,tier=db");
        assert_eq!(format_labels(None), "<none>");
    }

    #[test]
    fn selectors_render_like_apimachinery() {
        let sel = LabelSelector {
            match_labels: Some(BTreeMap::from([("app".to_string(), "web".to_string())])),
            match_expressions: Some(vec![
                LabelSelectorRequirement {
                    key: "env".into(),
                    operator: "In".into(),
                    values: Some(vec!["prod".into(), "dev".into()]),
                },
                LabelSelectorRequirement { key: "canary".into(), operator: "DoesNotExist".into(), values: None },
            ]),
        };
        assert_eq!(format_label_selector(Some(&sel)), "app=web,!canary,env in (dev,prod)");
        assert_eq!(format_label_selector(None), "<none>");
        assert_eq!(format_label_selector(Some(&LabelSelector::default())), "<none>");
        let bad = LabelSelector {
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "x".into(),
                operator: "Near".into(),
                values: None,
            }]),
            ..Default::default()
        };
        assert_eq!(format_label_selector(Some(&bad)), "<error>");
    }

    #[test]
    fn go_spellings_match_strconv() {
        assert_eq!(go_quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(go_quote("héllo"), "\"héllo\"");
        assert_eq!(go_float_g(1.5), "1.5");
        assert_eq!(go_float_g(1e6), "1e+06");
        assert_eq!(go_float_g(123456.0), "123456");
        assert_eq!(go_float_g(0.0001), "0.0001");
        assert_eq!(go_float_g(0.00001), "1e-05");
        assert_eq!(go_float_g(-2.5e-7), "-2.5e-07");
        assert_eq!(join_host_port("10.0.0.1", "80"), "10.0.0.1:80");
        assert_eq!(join_host_port("fd00::1", "80"), "[fd00::1]:80");
    }
}
