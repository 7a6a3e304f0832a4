//! Label selectors (`app=web,tier!=db,env in (a,b),!legacy,gpu`) and field selectors (`spec.nodeName=node01`),
//! parsed as the apimachinery `labels` and `fields` packages parse them, and matched against objects.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

use super::{Kind, Object};

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        }
    }
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    pub requirements: Vec<Requirement>,
}

impl LabelSelector {
    pub fn everything() -> LabelSelector {
        LabelSelector::default()
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, labels: Option<&BTreeMap<String, String>>) -> bool {
        let empty = BTreeMap::new();
        let labels = labels.unwrap_or(&empty);
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Parses the string form used by `-l` and `labelSelector=`.
    pub fn parse(text: &str) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            requirements.push(parse_requirement(part)?);
        }
        Ok(LabelSelector { requirements })
    }

    /// From an API `LabelSelector` (matchLabels + matchExpressions).
    pub fn from_api(sel: &ApiLabelSelector) -> Result<LabelSelector, String> {
        let mut requirements = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            requirements.push(Requirement::Equals(k.clone(), v.clone()));
        }
        for e in sel.match_expressions.iter().flatten() {
            let values = e.values.clone().unwrap_or_default();
            requirements.push(match e.operator.as_str() {
                "In" => Requirement::In(e.key.clone(), values),
                "NotIn" => Requirement::NotIn(e.key.clone(), values),
                "Exists" => Requirement::Exists(e.key.clone()),
                "DoesNotExist" => Requirement::DoesNotExist(e.key.clone()),
                op => return Err(format!("{op:?} is not a valid label selector operator")),
            });
        }
        Ok(LabelSelector { requirements })
    }

    /// The API form `metav1.ParseToLabelSelector` builds from the string form: equalities in `matchLabels`,
    /// the other operators in `matchExpressions`, sorted by key with sorted values; `!=` has no API form.
    pub fn to_api_json(&self) -> Result<serde_json::Value, String> {
        let mut labels = serde_json::Map::new();
        let mut expressions: Vec<(String, serde_json::Value)> = Vec::new();
        for r in &self.requirements {
            let (key, operator, values) = match r {
                Requirement::Equals(k, v) => {
                    labels.insert(k.clone(), serde_json::json!(v));
                    continue;
                }
                Requirement::NotEquals(..) => return Err("\"!=\" is not a valid label selector operator".into()),
                Requirement::In(k, vs) => (k, "In", Some(vs)),
                Requirement::NotIn(k, vs) => (k, "NotIn", Some(vs)),
                Requirement::Exists(k) => (k, "Exists", None),
                Requirement::DoesNotExist(k) => (k, "DoesNotExist", None),
            };
            let mut e = serde_json::json!({"key": key, "operator": operator});
            if let Some(vs) = values {
                let mut vs = vs.clone();
                vs.sort();
                vs.dedup();
                e["values"] = serde_json::json!(vs);
            }
            expressions.push((key.clone(), e));
        }
        expressions.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = serde_json::Map::new();
        if !expressions.is_empty() {
            out.insert("matchExpressions".into(), expressions.into_iter().map(|(_, e)| e).collect());
        }
        if !labels.is_empty() {
            out.insert("matchLabels".into(), serde_json::Value::Object(labels));
        }
        Ok(serde_json::Value::Object(out))
    }

    /// The `app=web,tier=db` string form (what the SELECTOR column prints).
    pub fn to_string_form(&self) -> String {
        self.requirements
            .iter()
            .map(|r| match r {
                Requirement::Equals(k, v) => format!("{k}={v}"),
                Requirement::NotEquals(k, v) => format!("{k}!={v}"),
                Requirement::In(k, vs) => format!("{k} in ({})", vs.join(",")),
                Requirement::NotIn(k, vs) => format!("{k} notin ({})", vs.join(",")),
                Requirement::Exists(k) => k.clone(),
                Requirement::DoesNotExist(k) => format!("!{k}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(valid_key(key.trim())?));
    }
    if let Some((k, v)) = part.split_once("!=") {
        return Ok(Requirement::NotEquals(valid_key(k.trim())?, v.trim().to_string()));
    }
    if let Some((k, v)) = part.split_once("==") {
        return Ok(Requirement::Equals(valid_key(k.trim())?, v.trim().to_string()));
    }
    if let Some((k, v)) = part.split_once('=') {
        return Ok(Requirement::Equals(valid_key(k.trim())?, v.trim().to_string()));
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if words.len() == 2 {
        let rest = words[1].trim();
        let (op, list) = if let Some(l) = rest.strip_prefix("notin") {
            ("notin", l)
        } else if let Some(l) = rest.strip_prefix("in") {
            ("in", l)
        } else {
            return Err(format!("unable to parse requirement: found '{rest}', expected: in, notin, =, ==, !=, gt, lt"));
        };
        let list = list.trim();
        let inner = list
            .strip_prefix('(')
            .and_then(|l| l.strip_suffix(')'))
            .ok_or_else(|| format!("unable to parse requirement: found '{list}', expected: '('"))?;
        let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect();
        let key = valid_key(words[0])?;
        return Ok(if op == "in" { Requirement::In(key, values) } else { Requirement::NotIn(key, values) });
    }
    Ok(Requirement::Exists(valid_key(part)?))
}

fn valid_key(key: &str) -> Result<String, String> {
    let name = key.rsplit('/').next().unwrap_or(key);
    let ok = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(key.to_string())
    } else {
        Err(format!(
            "key: Invalid value: {key:?}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ))
    }
}

/// One term of a field selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTerm {
    pub field: String,
    pub value: String,
    pub negated: bool,
}

/// A parsed field selector; only fields the resource supports are accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    pub terms: Vec<FieldTerm>,
}

impl FieldSelector {
    pub fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, value, negated) = if let Some((f, v)) = part.split_once("!=") {
                (f, v, true)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, v, false)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, v, false)
            } else {
                return Err(format!("invalid selector: '{text}'; can't understand '{part}'"));
            };
            let field = if field.trim() == "spec.host" { "spec.nodeName" } else { field.trim() };
            terms.push(FieldTerm { field: field.to_string(), value: value.trim().to_string(), negated });
        }
        Ok(FieldSelector { terms })
    }

    /// Checks that every field is one the kind can be selected by (`field label not supported: x` otherwise).
    pub fn check_supported(&self, kind: Kind) -> Result<(), String> {
        for t in &self.terms {
            if field_value_of(kind, &t.field).is_none() {
                return Err(format!("field label not supported: {}", t.field));
            }
        }
        Ok(())
    }

    pub fn matches(&self, obj: &Object) -> bool {
        self.terms.iter().all(|t| {
            let actual = field_value(obj, &t.field).unwrap_or_default();
            (actual == t.value) != t.negated
        })
    }

    /// The value this selector requires for `field` with `=` (used to index watchers by node name).
    pub fn required_value(&self, field: &str) -> Option<&str> {
        self.terms.iter().find(|t| t.field == field && !t.negated).map(|t| t.value.as_str())
    }
}

/// Whether `field` is selectable on `kind` (the fields of pkg/apis/core/v1/conversion.go, plus metadata).
fn field_value_of(kind: Kind, field: &str) -> Option<()> {
    let common = matches!(field, "metadata.name" | "metadata.namespace");
    let specific = match kind {
        Kind::Pod => matches!(
            field,
            "spec.nodeName"
                | "spec.restartPolicy"
                | "spec.schedulerName"
                | "spec.serviceAccountName"
                | "spec.hostNetwork"
                | "status.phase"
                | "status.podIP"
                | "status.podIPs"
                | "status.nominatedNodeName"
        ),
        Kind::Node => field == "spec.unschedulable",
        Kind::Event => matches!(
            field,
            "involvedObject.kind"
                | "involvedObject.namespace"
                | "involvedObject.name"
                | "involvedObject.uid"
                | "involvedObject.apiVersion"
                | "involvedObject.resourceVersion"
                | "involvedObject.fieldPath"
                | "reason"
                | "reportingComponent"
                | "source"
                | "type"
        ),
        Kind::Secret => field == "type",
        Kind::Namespace => field == "status.phase",
        Kind::ReplicaSet | Kind::Job => field == "status.replicas" || field == "status.successful",
        _ => false,
    };
    (common || specific).then_some(())
}

/// The current value of a selectable field of an object.
pub fn field_value(obj: &Object, field: &str) -> Option<String> {
    let meta = obj.meta();
    match field {
        "metadata.name" => return meta.name.clone(),
        "metadata.namespace" => return Some(meta.namespace.clone().unwrap_or_default()),
        _ => {}
    }
    match obj {
        Object::Pod(p) => {
            let spec = p.spec.as_ref();
            let status = p.status.as_ref();
            Some(match field {
                "spec.nodeName" => spec.and_then(|s| s.node_name.clone()).unwrap_or_default(),
                "spec.restartPolicy" => spec.and_then(|s| s.restart_policy.clone()).unwrap_or_default(),
                "spec.schedulerName" => spec.and_then(|s| s.scheduler_name.clone()).unwrap_or_default(),
                "spec.serviceAccountName" => spec.and_then(|s| s.service_account_name.clone()).unwrap_or_default(),
                "spec.hostNetwork" => spec.and_then(|s| s.host_network).unwrap_or(false).to_string(),
                "status.phase" => status.and_then(|s| s.phase.clone()).unwrap_or_default(),
                "status.podIP" => status.and_then(|s| s.pod_ip.clone()).unwrap_or_default(),
                "status.nominatedNodeName" => status.and_then(|s| s.nominated_node_name.clone()).unwrap_or_default(),
                _ => return None,
            })
        }
        Object::Node(n) => match field {
            "spec.unschedulable" => Some(n.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false).to_string()),
            _ => None,
        },
        Object::Event(e) => Some(match field {
            "involvedObject.kind" => e.involved_object.kind.clone().unwrap_or_default(),
            "involvedObject.namespace" => e.involved_object.namespace.clone().unwrap_or_default(),
            "involvedObject.name" => e.involved_object.name.clone().unwrap_or_default(),
            "involvedObject.uid" => e.involved_object.uid.clone().unwrap_or_default(),
            "involvedObject.fieldPath" => e.involved_object.field_path.clone().unwrap_or_default(),
            "reason" => e.reason.clone().unwrap_or_default(),
            "type" => e.type_.clone().unwrap_or_default(),
            "source" => e.source.as_ref().and_then(|s| s.component.clone()).unwrap_or_default(),
            "reportingComponent" => e.reporting_component.clone().unwrap_or_default(),
            _ => return None,
        }),
        Object::Secret(s) => (field == "type").then(|| s.type_.clone().unwrap_or_default()),
        Object::Namespace(n) => {
            (field == "status.phase").then(|| n.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn the_api_form_splits_equalities_from_expressions_sorted_by_key() {
        let s = LabelSelector::parse("z=1,app in (b,a),!gone,x").unwrap().to_api_json().unwrap();
        assert_eq!(
            s,
            serde_json::json!({
                "matchExpressions": [
                    {"key": "app", "operator": "In", "values": ["a", "b"]},
                    {"key": "gone", "operator": "DoesNotExist"},
                    {"key": "x", "operator": "Exists"},
                ],
                "matchLabels": {"z": "1"},
            })
        );
        assert!(LabelSelector::parse("a!=b").unwrap().to_api_json().is_err());
    }

    #[test]
    fn label_selectors_parse_every_operator() {
        let s = LabelSelector::parse("app=web,tier!=db,env in (prod, staging),!legacy,gpu").unwrap();
        assert_eq!(s.requirements.len(), 5);
        assert!(s.matches(Some(&labels(&[("app", "web"), ("env", "prod"), ("gpu", "")]))));
        assert!(!s.matches(Some(&labels(&[("app", "web"), ("env", "dev"), ("gpu", "")]))));
        assert!(!s.matches(Some(&labels(&[("app", "web"), ("env", "prod"), ("gpu", ""), ("legacy", "y")]))));
        assert!(LabelSelector::parse("").unwrap().matches(None));
        assert!(LabelSelector::parse("a notin (x)").unwrap().matches(None));
        assert!(LabelSelector::parse("-bad-=x").is_err());
    }

    #[test]
    fn field_selectors_reject_unsupported_fields() {
        let f = FieldSelector::parse("spec.foo=bar").unwrap();
        assert_eq!(f.check_supported(Kind::Pod), Err("field label not supported: spec.foo".to_string()));
        let f = FieldSelector::parse("spec.host=node01,status.phase!=Failed").unwrap();
        assert_eq!(f.check_supported(Kind::Pod), Ok(()));
        assert_eq!(f.required_value("spec.nodeName"), Some("node01"));
    }
}
