//! Name and key formats, as apimachinery's `util/validation` checks them and words their failures: RFC 1123
//! labels and subdomains, RFC 1035 labels, qualified names (label and annotation keys), label values,
//! ConfigMap keys, port names, percentages, environment variable names, path segments; plus label maps,
//! annotation maps and label selectors (validation, parsing into requirements, matching).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::field::{self, Path};
use crate::api::Cause;

pub const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
pub const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
pub const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
pub const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
pub const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
pub const DNS1035_LABEL_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_MAP_KEY_FMT: &str = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_ERR: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const PERCENT_FMT: &str = "[0-9]+%";
const PERCENT_ERR: &str = "a valid percent string must be a numeric string followed by an ending '%'";
const HTTP_HEADER_FMT: &str = "[-A-Za-z0-9]+";
const HTTP_HEADER_ERR: &str = "a valid HTTP header must consist of alphanumeric characters or '-'";
const RELAXED_ENV_ERR: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";

/// Total size allowed for all annotations of one object (256 KiB).
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// `must be no more than N characters`.
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `must be between lo and hi, inclusive`.
pub fn inclusive_range_error(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// apimachinery's `RegexError`: the message, the examples and the regex.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

fn is_lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn matches_dns1123_label(v: &str) -> bool {
    let b = v.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            is_lower_alnum(f) && is_lower_alnum(l) && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

fn matches_dns1123_subdomain(v: &str) -> bool {
    !v.is_empty() && v.split('.').all(matches_dns1123_label)
}

fn matches_dns1035_label(v: &str) -> bool {
    let b = v.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_lowercase() && is_lower_alnum(l) && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

fn matches_qualified_name_part(v: &str) -> bool {
    let b = v.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// RFC 1123 label (namespaces, container names, port names of services, …).
pub fn is_dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !matches_dns1123_label(v) {
        if matches_dns1123_subdomain(v) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, &["my-name", "123-abc"]));
        }
    }
    errs
}

/// RFC 1123 subdomain (most object names).
pub fn is_dns1123_subdomain(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !matches_dns1123_subdomain(v) {
        errs.push(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// RFC 1035 label (Service names).
pub fn is_dns1035_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !matches_dns1035_label(v) {
        errs.push(regex_error(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errs
}

/// A qualified name (`example.com/MyName`): label keys, annotation keys, finalizers, condition types.
pub fn is_qualified_name(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = v.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in is_dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !matches_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// A label value: empty, or a qualified name part of at most 63 characters.
pub fn is_valid_label_value(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !v.is_empty() && !matches_qualified_name_part(v) {
        errs.push(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, &["MyValue", "my_value", "12345"]));
    }
    errs
}

fn ch_dir_prefix(v: &str) -> Option<String> {
    if v == "." {
        Some("must not be '.'".to_string())
    } else if v == ".." {
        Some("must not be '..'".to_string())
    } else if v.starts_with("..") {
        Some("must not start with '..'".to_string())
    } else {
        None
    }
}

/// A key of a ConfigMap or Secret.
pub fn is_config_map_key(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push(max_len_error(253));
    }
    let ok = !v.is_empty() && v.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'));
    if !ok {
        errs.push(regex_error(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, &["key.name", "KEY_NAME", "key-name"]));
    }
    errs.extend(ch_dir_prefix(v));
    errs
}

/// An IANA service name used as a port name (`http`, `metrics`).
pub fn is_valid_port_name(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 15 {
        errs.push(max_len_error(15));
    }
    if v.is_empty() || !v.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_string());
    }
    if !v.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_string());
    }
    if v.contains("--") {
        errs.push("must not contain consecutive hyphens".to_string());
    }
    if v.starts_with('-') || v.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_string());
    }
    errs
}

/// A port number 1–65535.
pub fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range_error(1, 65535)]
    }
}

/// `25%`.
pub fn is_valid_percent(v: &str) -> Vec<String> {
    let digits = v.strip_suffix('%').unwrap_or("");
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        Vec::new()
    } else {
        vec![regex_error(PERCENT_ERR, PERCENT_FMT, &["1%", "93%"])]
    }
}

/// An HTTP header name (`X-Header-Name`).
pub fn is_http_header_name(v: &str) -> Vec<String> {
    if !v.is_empty() && v.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-') {
        Vec::new()
    } else {
        vec![regex_error(HTTP_HEADER_ERR, HTTP_HEADER_FMT, &["X-Header-Name"])]
    }
}

/// The relaxed environment variable name rule (GA in v1.34): printable ASCII except `=`.
pub fn is_relaxed_env_var_name(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.is_empty() {
        errs.push("environment variable name must be non-empty".to_string());
    }
    if v.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
        errs.push(RELAXED_ENV_ERR.to_string());
    }
    errs
}

/// A name that must be a valid URL path segment (RBAC objects).
pub fn is_valid_path_segment_name(v: &str) -> Vec<String> {
    for bad in [".", ".."] {
        if v == bad {
            return vec![format!("may not be '{bad}'")];
        }
    }
    ["/", "%"].iter().filter(|bad| v.contains(*bad)).map(|bad| format!("may not contain '{bad}'")).collect()
}

/// The naming rule of a kind (`ValidateNameFunc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    Subdomain,
    Label,
    Dns1035,
    PathSegment,
}

/// Applies a naming rule; `prefix` is true for `generateName` (a trailing dash is allowed).
pub fn check_name(rule: NameRule, name: &str, prefix: bool) -> Vec<String> {
    let masked;
    let name = if prefix && rule != NameRule::PathSegment {
        masked = mask_trailing_dash(name);
        masked.as_str()
    } else {
        name
    };
    match rule {
        NameRule::Subdomain => is_dns1123_subdomain(name),
        NameRule::Label => is_dns1123_label(name),
        NameRule::Dns1035 => is_dns1035_label(name),
        NameRule::PathSegment if prefix => {
            ["/", "%"].iter().filter(|bad| name.contains(*bad)).map(|bad| format!("may not contain '{bad}'")).collect()
        }
        NameRule::PathSegment => is_valid_path_segment_name(name),
    }
}

/// `abc-` becomes `aba` for prefix validation (apimachinery replaces the last two bytes by `a`).
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let cut = name.len().saturating_sub(2);
        match name.get(..cut) {
            Some(head) => format!("{head}a"),
            None => name.to_string(),
        }
    } else {
        name.to_string()
    }
}

/// `ValidateLabelName`: one error per failed rule, on `path` (not on the key).
pub fn validate_label_name(key: &str, path: &Path) -> Vec<Cause> {
    is_qualified_name(key).iter().map(|m| field::invalid_str(path, key, m)).collect()
}

/// `ValidateLabels`: keys must be qualified names, values label values; errors carry the map's path.
pub fn validate_labels(labels: Option<&BTreeMap<String, String>>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for (k, v) in labels.into_iter().flatten() {
        errs.extend(validate_label_name(k, path));
        for m in is_valid_label_value(v) {
            errs.push(field::invalid_str(path, v, &m));
        }
    }
    errs
}

/// `ValidateAnnotations`: keys (lower-cased) must be qualified names; total size at most 256 KiB.
pub fn validate_annotations(annotations: Option<&BTreeMap<String, String>>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut total = 0usize;
    for (k, v) in annotations.into_iter().flatten() {
        for m in is_qualified_name(&k.to_lowercase()) {
            errs.push(field::invalid_str(path, k, &m));
        }
        total = total.saturating_add(k.len()).saturating_add(v.len());
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(field::too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT));
    }
    errs
}

/// One parsed requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Req {
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A label selector as `metav1.LabelSelectorAsSelector` builds it: a missing selector selects nothing,
/// an empty one everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Nothing,
    Requirements(Vec<ReqHandle>),
}

/// Opaque requirement (kept private so callers only match through [`Selector::matches`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReqHandle(Req);

/// Whether a k8s-openapi selector stands for Go's nil selector (a required selector that was left out
/// decodes to the default, empty value).
pub fn selector_is_nil(sel: &LabelSelector) -> bool {
    sel.match_labels.is_none() && sel.match_expressions.is_none()
}

/// Number of requirements written in a selector (`len(matchLabels)+len(matchExpressions)`).
pub fn selector_len(sel: &LabelSelector) -> usize {
    sel.match_labels.as_ref().map_or(0, |m| m.len()) + sel.match_expressions.as_ref().map_or(0, |m| m.len())
}

impl Selector {
    /// Parses a selector; `None` when `LabelSelectorAsSelector` would fail.
    pub fn from_label_selector(sel: Option<&LabelSelector>) -> Option<Selector> {
        let Some(sel) = sel else {
            return Some(Selector::Nothing);
        };
        let mut reqs = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            if !is_qualified_name(k).is_empty() || !is_valid_label_value(v).is_empty() {
                return None;
            }
            reqs.push(ReqHandle(Req::In(k.clone(), vec![v.clone()])));
        }
        for e in sel.match_expressions.iter().flatten() {
            let values = e.values.clone().unwrap_or_default();
            if !is_qualified_name(&e.key).is_empty() || values.iter().any(|v| !is_valid_label_value(v).is_empty()) {
                return None;
            }
            let req = match e.operator.as_str() {
                "In" | "NotIn" if values.is_empty() => return None,
                "In" => Req::In(e.key.clone(), values),
                "NotIn" => Req::NotIn(e.key.clone(), values),
                "Exists" | "DoesNotExist" if !values.is_empty() => return None,
                "Exists" => Req::Exists(e.key.clone()),
                "DoesNotExist" => Req::DoesNotExist(e.key.clone()),
                _ => return None,
            };
            reqs.push(ReqHandle(req));
        }
        Some(Selector::Requirements(reqs))
    }

    /// `selector.Empty()`: true only for a selector with no requirements (not for `Nothing`).
    pub fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }

    pub fn matches(&self, labels: Option<&BTreeMap<String, String>>) -> bool {
        let empty = BTreeMap::new();
        let labels = labels.unwrap_or(&empty);
        match self {
            Selector::Nothing => false,
            Selector::Requirements(reqs) => reqs.iter().all(|ReqHandle(r)| match r {
                Req::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
                Req::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
                Req::Exists(k) => labels.contains_key(k),
                Req::DoesNotExist(k) => !labels.contains_key(k),
            }),
        }
    }
}

/// `ValidateLabelSelector` (strict label values).
pub fn validate_label_selector(sel: Option<&LabelSelector>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let Some(sel) = sel else {
        return errs;
    };
    errs.extend(validate_labels(sel.match_labels.as_ref(), &path.child("matchLabels")));
    for (i, e) in sel.match_expressions.iter().flatten().enumerate() {
        let p = path.child("matchExpressions").index(i);
        let values = e.values.as_deref().unwrap_or(&[]);
        match e.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    errs.push(field::required(
                        &p.child("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    errs.push(field::forbidden(
                        &p.child("values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            op => errs.push(field::invalid(
                &p.child("operator"),
                &field::json_string(op),
                "not a valid selector operator",
            )),
        }
        errs.extend(validate_label_name(&e.key, &p.child("key")));
        for (vi, v) in values.iter().enumerate() {
            for m in is_valid_label_value(v) {
                errs.push(field::invalid_str(&p.child("values").index(vi), v, &m));
            }
        }
    }
    errs
}

/// A `*metav1.LabelSelector` as `encoding/json` prints it (omitempty fields left out); nil is `null`.
pub fn selector_json(sel: Option<&LabelSelector>) -> String {
    let Some(sel) = sel else {
        return "null".to_string();
    };
    let mut parts = Vec::new();
    if let Some(m) = sel.match_labels.as_ref().filter(|m| !m.is_empty()) {
        parts.push(format!("\"matchLabels\":{}", field::json_map(Some(m))));
    }
    if let Some(exprs) = sel.match_expressions.as_ref().filter(|e| !e.is_empty()) {
        let items: Vec<String> = exprs
            .iter()
            .map(|e| {
                let mut s = format!(
                    "{{\"key\":{},\"operator\":{}",
                    field::json_string(&e.key),
                    field::json_string(&e.operator)
                );
                if let Some(v) = e.values.as_ref().filter(|v| !v.is_empty()) {
                    s.push_str(&format!(",\"values\":{}", field::json_strings(Some(v))));
                }
                s.push('}');
                s
            })
            .collect();
        parts.push(format!("\"matchExpressions\":[{}]", items.join(",")));
    }
    format!("{{{}}}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    #[test]
    fn an_uppercase_name_fails_the_subdomain_rule_with_the_exact_message() {
        assert_eq!(
            is_dns1123_subdomain("Web"),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string()]
        );
        assert!(is_dns1123_subdomain("web.example-1.com").is_empty());
        assert!(!is_dns1123_subdomain("web..x").is_empty());
    }

    #[test]
    fn a_label_with_dots_is_told_it_must_not_contain_dots() {
        assert_eq!(is_dns1123_label("a.b"), vec!["must not contain dots"]);
        assert_eq!(
            is_dns1123_label("Dev"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
    }

    #[test]
    fn long_names_report_the_63_and_253_limits() {
        let long = "a".repeat(64);
        assert_eq!(is_dns1123_label(&long), vec!["must be no more than 63 characters"]);
        let very_long = "a".repeat(254);
        assert_eq!(is_dns1123_subdomain(&very_long), vec!["must be no more than 253 characters"]);
    }

    #[test]
    fn service_names_must_start_with_a_letter() {
        assert_eq!(
            is_dns1035_label("1web"),
            vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert!(is_dns1035_label("web-1").is_empty());
    }

    #[test]
    fn qualified_names_check_prefix_and_name_parts() {
        assert!(is_qualified_name("app.kubernetes.io/name").is_empty());
        assert_eq!(is_qualified_name("/x"), vec!["prefix part must be non-empty"]);
        assert_eq!(
            is_qualified_name("a/b/c"),
            vec!["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
        );
        assert_eq!(is_qualified_name("").len(), 2);
        assert_eq!(
            is_qualified_name("-bad")[0],
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
    }

    #[test]
    fn label_values_may_be_empty_but_not_malformed() {
        assert!(is_valid_label_value("").is_empty());
        assert_eq!(
            is_valid_label_value("a b"),
            vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
        );
    }

    #[test]
    fn config_map_keys_reject_slashes_and_dot_dot() {
        assert!(is_config_map_key("app.properties").is_empty());
        assert_eq!(is_config_map_key("..x"), vec!["must not start with '..'"]);
        assert_eq!(
            is_config_map_key("a/b"),
            vec!["a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]
        );
    }

    #[test]
    fn port_names_follow_iana_service_name_rules() {
        assert!(is_valid_port_name("http").is_empty());
        assert_eq!(is_valid_port_name("80"), vec!["must contain at least one letter (a-z)"]);
        assert_eq!(is_valid_port_name("a--b"), vec!["must not contain consecutive hyphens"]);
    }

    #[test]
    fn generate_name_prefixes_may_end_with_a_dash() {
        assert!(check_name(NameRule::Subdomain, "web-", true).is_empty());
        assert!(!check_name(NameRule::Subdomain, "web-", false).is_empty());
        assert_eq!(check_name(NameRule::PathSegment, "a/b", false), vec!["may not contain '/'"]);
    }

    #[test]
    fn selectors_parse_match_and_render_as_json() {
        let mut ml = BTreeMap::new();
        ml.insert("app".to_string(), "web".to_string());
        let sel = LabelSelector {
            match_labels: Some(ml.clone()),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "tier".into(),
                operator: "In".into(),
                values: Some(vec!["fe".into()]),
            }]),
        };
        let parsed = Selector::from_label_selector(Some(&sel)).unwrap();
        let mut labels = ml.clone();
        assert!(!parsed.matches(Some(&labels)));
        labels.insert("tier".into(), "fe".into());
        assert!(parsed.matches(Some(&labels)));
        assert_eq!(
            selector_json(Some(&sel)),
            "{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"fe\"]}]}"
        );
        assert!(!Selector::Nothing.matches(Some(&labels)));
        assert!(!Selector::Nothing.is_empty());
    }
}
