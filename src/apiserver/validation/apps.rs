//! Workloads of the `apps` group (`pkg/apis/apps/validation` and the registry strategies): Deployments,
//! ReplicaSets (and the core group's ReplicationControllers, which share their template rules), DaemonSets
//! and StatefulSets — selectors that must match the template labels, templates that
//! must restart `Always`, rolling-update parameters, and on update the immutable selector (checked by the
//! strategies for `apps/v1`) and the StatefulSet spec fields that may not change.
//!
//! Values of internal structs (strategies) are printed the way `encoding/json` prints Kubernetes' internal
//! types: Go field names, no `omitempty`.

use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, Deployment, DeploymentSpec, ReplicaSet, ReplicaSetSpec, StatefulSet, StatefulSetSpec,
};
use k8s_openapi::api::core::v1::{PodTemplateSpec, ReplicationController, ReplicationControllerSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule, Selector};
use super::pod;
use crate::api::Cause;

const NOT_NEGATIVE: &str = "must be greater than or equal to 0";

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

fn nonneg(v: Option<i32>, path: &Path, errs: &mut Vec<Cause>) {
    if let Some(n) = v.filter(|n| *n < 0) {
        errs.push(field::invalid_int(path, n as i64, NOT_NEGATIVE));
    }
}

/// An `intstr.IntOrString` as JSON: a number or a quoted string.
pub fn int_or_string_json(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => field::json_string(s),
    }
}

fn opt_int_or_string_json(v: Option<&IntOrString>) -> String {
    v.map(int_or_string_json).unwrap_or_else(|| "0".to_string())
}

fn percent_value(v: &IntOrString) -> Option<i64> {
    match v {
        IntOrString::String(s) if names::is_valid_percent(s).is_empty() => {
            let digits = s.trim_end_matches('%');
            Some(digits.parse::<i64>().unwrap_or(i64::MAX))
        }
        _ => None,
    }
}

/// `getIntOrPercentValue`: the percentage, the integer, or a string read as an integer (0 if not one).
fn int_or_percent_value(v: &IntOrString) -> i64 {
    match (percent_value(v), v) {
        (Some(p), _) => p,
        (None, IntOrString::Int(n)) => *n as i64,
        (None, IntOrString::String(s)) => s.parse::<i64>().unwrap_or(0),
    }
}

/// `ValidatePositiveIntOrPercent`.
fn validate_positive_int_or_percent(v: &IntOrString, path: &Path) -> Vec<Cause> {
    match v {
        IntOrString::String(s) => {
            names::is_valid_percent(s).iter().map(|m| field::invalid(path, &int_or_string_json(v), m)).collect()
        }
        IntOrString::Int(n) if *n < 0 => vec![field::invalid_int(path, *n as i64, NOT_NEGATIVE)],
        IntOrString::Int(_) => Vec::new(),
    }
}

/// `IsNotMoreThan100Percent`.
fn not_more_than_100_percent(v: &IntOrString, path: &Path) -> Vec<Cause> {
    match percent_value(v) {
        Some(p) if p > 100 => vec![field::invalid(path, &int_or_string_json(v), "must not be greater than 100%")],
        _ => Vec::new(),
    }
}

/// Semantic equality of selectors (a missing map equals an empty one).
fn selectors_equal(a: &LabelSelector, b: &LabelSelector) -> bool {
    a.match_labels.clone().unwrap_or_default() == b.match_labels.clone().unwrap_or_default()
        && a.match_expressions.clone().unwrap_or_default() == b.match_expressions.clone().unwrap_or_default()
}

fn selector_immutable(new: &LabelSelector, old: &LabelSelector) -> Vec<Cause> {
    if selectors_equal(new, old) {
        Vec::new()
    } else {
        let rendered = if names::selector_is_nil(new) { "null".to_string() } else { names::selector_json(Some(new)) };
        vec![field::invalid(&Path::new("spec").child("selector"), &rendered, "field is immutable")]
    }
}

/// The selector as Go sees it: a left-out selector is nil.
fn go_selector(sel: &LabelSelector) -> Option<&LabelSelector> {
    (!names::selector_is_nil(sel)).then_some(sel)
}

fn template_labels(tpl: &PodTemplateSpec) -> Option<&std::collections::BTreeMap<String, String>> {
    tpl.metadata.as_ref().and_then(|m| m.labels.as_ref())
}

fn template_spec_field(tpl: &PodTemplateSpec) -> (&str, Option<i64>) {
    match &tpl.spec {
        Some(spec) => (s(&spec.restart_policy), spec.active_deadline_seconds),
        None => ("", None),
    }
}

/// The required-selector checks shared by Deployments and ReplicaSets (`empty selector is invalid for
/// deployment` is Kubernetes' wording for both) and StatefulSets.
fn validate_required_selector(sel: &LabelSelector, kind_word: &str, errs: &mut Vec<Cause>) {
    let path = Path::new("spec").child("selector");
    match go_selector(sel) {
        None => errs.push(field::required(&path, "")),
        Some(sel) => {
            errs.extend(names::validate_label_selector(Some(sel), &path));
            if names::selector_len(sel) == 0 {
                errs.push(field::invalid(
                    &path,
                    &names::selector_json(Some(sel)),
                    &format!("empty selector is invalid for {kind_word}"),
                ));
            }
        }
    }
}

/// `ValidatePodTemplateSpecForReplicaSet` (also used for Deployments).
fn validate_template_for_replica_set(tpl: &PodTemplateSpec, selector: &Selector, path: &Path) -> Vec<Cause> {
    validate_replica_template(tpl, selector, path, "ReplicaSet")
}

/// The template checks of `ValidatePodTemplateSpecForReplicaSet` and `ValidatePodTemplateSpecForRC`, whose
/// `activeDeadlineSeconds` message names `owner`.
fn validate_replica_template(tpl: &PodTemplateSpec, selector: &Selector, path: &Path, owner: &str) -> Vec<Cause> {
    let mut errs = Vec::new();
    if !selector.is_empty() && !selector.matches(template_labels(tpl)) {
        errs.push(field::invalid(
            &path.children(&["metadata", "labels"]),
            &field::json_map(template_labels(tpl)),
            "`selector` does not match template `labels`",
        ));
    }
    errs.extend(pod::validate_pod_template_spec(tpl, path));
    let (restart, ads) = template_spec_field(tpl);
    if restart != "Always" {
        errs.push(field::not_supported(
            &path.children(&["spec", "restartPolicy"]),
            &field::json_string(restart),
            &["Always"],
        ));
    }
    if ads.is_some() {
        errs.push(field::forbidden(
            &path.children(&["spec", "activeDeadlineSeconds"]),
            &format!("activeDeadlineSeconds in {owner} is not Supported"),
        ));
    }
    errs
}

fn validate_selector_and_template(sel: &LabelSelector, tpl: &PodTemplateSpec, errs: &mut Vec<Cause>) {
    let spec_path = Path::new("spec");
    match Selector::from_label_selector(go_selector(sel)) {
        None => errs.push(field::invalid(
            &spec_path.child("selector"),
            &names::selector_json(go_selector(sel)),
            "invalid label selector",
        )),
        Some(selector) => errs.extend(validate_template_for_replica_set(tpl, &selector, &spec_path.child("template"))),
    }
}

fn deployment_strategy_json(spec: &DeploymentSpec) -> String {
    let strategy = spec.strategy.clone().unwrap_or_default();
    let rolling = match &strategy.rolling_update {
        None => "null".to_string(),
        Some(r) => format!(
            "{{\"MaxUnavailable\":{},\"MaxSurge\":{}}}",
            opt_int_or_string_json(r.max_unavailable.as_ref()),
            opt_int_or_string_json(r.max_surge.as_ref())
        ),
    };
    format!("{{\"Type\":{},\"RollingUpdate\":{rolling}}}", field::json_string(s(&strategy.type_)))
}

/// `ValidateDeploymentSpec`.
fn validate_deployment_spec(spec: &DeploymentSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    nonneg(Some(spec.replicas.unwrap_or(0)), &path.child("replicas"), &mut errs);
    validate_required_selector(&spec.selector, "deployment", &mut errs);
    validate_selector_and_template(&spec.selector, &spec.template, &mut errs);

    let sp = path.child("strategy");
    let strategy = spec.strategy.clone().unwrap_or_default();
    match s(&strategy.type_) {
        "Recreate" => {
            if strategy.rolling_update.is_some() {
                errs.push(field::forbidden(
                    &sp.child("rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        "RollingUpdate" => match &strategy.rolling_update {
            None => errs.push(field::required(&sp.child("rollingUpdate"), "this should be defaulted and never be nil")),
            Some(r) => {
                let rp = sp.child("rollingUpdate");
                let zero = IntOrString::Int(0);
                let mu = r.max_unavailable.as_ref().unwrap_or(&zero);
                let ms = r.max_surge.as_ref().unwrap_or(&zero);
                errs.extend(validate_positive_int_or_percent(mu, &rp.child("maxUnavailable")));
                errs.extend(validate_positive_int_or_percent(ms, &rp.child("maxSurge")));
                if int_or_percent_value(mu) == 0 && int_or_percent_value(ms) == 0 {
                    errs.push(field::invalid(
                        &rp.child("maxUnavailable"),
                        &int_or_string_json(mu),
                        "may not be 0 when `maxSurge` is 0",
                    ));
                }
                errs.extend(not_more_than_100_percent(mu, &rp.child("maxUnavailable")));
            }
        },
        _ => errs.push(field::not_supported(&sp, &deployment_strategy_json(spec), &["Recreate", "RollingUpdate"])),
    }
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    nonneg(Some(min_ready), &path.child("minReadySeconds"), &mut errs);
    nonneg(spec.revision_history_limit, &path.child("revisionHistoryLimit"), &mut errs);
    if let Some(pds) = spec.progress_deadline_seconds {
        nonneg(Some(pds), &path.child("progressDeadlineSeconds"), &mut errs);
        if pds <= min_ready {
            errs.push(field::invalid_int(
                &path.child("progressDeadlineSeconds"),
                pds as i64,
                "must be greater than minReadySeconds",
            ));
        }
    }
    errs
}

pub fn validate_deployment_create(d: &Deployment) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&d.metadata, true, NameRule::Subdomain);
    errs.extend(validate_deployment_spec(&d.spec.clone().unwrap_or_default()));
    errs
}

pub fn validate_deployment_update(new: &Deployment, old: &Deployment) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let new_spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    errs.extend(validate_deployment_spec(&new_spec));
    errs.extend(selector_immutable(&new_spec.selector, &old_spec.selector));
    errs
}

fn validate_replica_set_spec(spec: &ReplicaSetSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    nonneg(Some(spec.replicas.unwrap_or(0)), &path.child("replicas"), &mut errs);
    nonneg(Some(spec.min_ready_seconds.unwrap_or(0)), &path.child("minReadySeconds"), &mut errs);
    validate_required_selector(&spec.selector, "deployment", &mut errs);
    let tpl = spec.template.clone().unwrap_or_default();
    validate_selector_and_template(&spec.selector, &tpl, &mut errs);
    errs
}

pub fn validate_replica_set_create(rs: &ReplicaSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&rs.metadata, true, NameRule::Subdomain);
    errs.extend(validate_replica_set_spec(&rs.spec.clone().unwrap_or_default()));
    errs
}

pub fn validate_replica_set_update(new: &ReplicaSet, old: &ReplicaSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let new_spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    errs.extend(validate_replica_set_spec(&new_spec));
    errs.extend(selector_immutable(&new_spec.selector, &old_spec.selector));
    errs
}

/// `ValidateReplicationControllerSpec` (core/v1): a map selector that may not be empty, and
/// `ValidatePodTemplateSpecForRC` on a template that must be there.
fn validate_replication_controller_spec(spec: &ReplicationControllerSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    nonneg(Some(spec.min_ready_seconds.unwrap_or(0)), &path.child("minReadySeconds"), &mut errs);
    let labels = spec.selector.clone().unwrap_or_default();
    if labels.is_empty() {
        errs.push(field::required(&path.child("selector"), ""));
    }
    errs.extend(names::validate_labels(Some(&labels), &path.child("selector")));
    nonneg(Some(spec.replicas.unwrap_or(0)), &path.child("replicas"), &mut errs);
    let template_path = path.child("template");
    match &spec.template {
        None => errs.push(field::required(&template_path, "")),
        Some(tpl) => {
            let selector = LabelSelector { match_labels: Some(labels), match_expressions: None };
            let selector = Selector::from_label_selector(Some(&selector)).unwrap_or(Selector::Requirements(Vec::new()));
            errs.extend(validate_replica_template(tpl, &selector, &template_path, "ReplicationController"));
        }
    }
    errs
}

pub fn validate_replication_controller_create(rc: &ReplicationController) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&rc.metadata, true, NameRule::Subdomain);
    errs.extend(validate_replication_controller_spec(&rc.spec.clone().unwrap_or_default()));
    errs
}

pub fn validate_replication_controller_update(new: &ReplicationController, old: &ReplicationController) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    errs.extend(validate_replication_controller_spec(&new.spec.clone().unwrap_or_default()));
    errs
}

fn daemon_set_strategy_json(spec: &DaemonSetSpec) -> String {
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    let rolling = match &strategy.rolling_update {
        None => "null".to_string(),
        Some(r) => format!(
            "{{\"MaxUnavailable\":{},\"MaxSurge\":{}}}",
            opt_int_or_string_json(r.max_unavailable.as_ref()),
            opt_int_or_string_json(r.max_surge.as_ref())
        ),
    };
    format!("{{\"Type\":{},\"RollingUpdate\":{rolling}}}", field::json_string(s(&strategy.type_)))
}

fn validate_daemon_set_spec(spec: &DaemonSetSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    let sel = go_selector(&spec.selector);
    errs.extend(names::validate_label_selector(sel, &path.child("selector")));
    if let Some(selector) = Selector::from_label_selector(sel) {
        if !selector.matches(template_labels(&spec.template)) {
            errs.push(field::invalid(
                &path.children(&["template", "metadata", "labels"]),
                &field::json_map(template_labels(&spec.template)),
                "`selector` does not match template `labels`",
            ));
        }
    }
    if sel.is_some_and(|s| names::selector_len(s) == 0) {
        errs.push(field::invalid(
            &path.child("selector"),
            &names::selector_json(sel),
            "empty selector is invalid for daemonset",
        ));
    }
    errs.extend(pod::validate_pod_template_spec(&spec.template, &path.child("template")));
    let (restart, ads) = template_spec_field(&spec.template);
    if restart != "Always" {
        errs.push(field::not_supported(
            &path.children(&["template", "spec", "restartPolicy"]),
            &field::json_string(restart),
            &["Always"],
        ));
    }
    if ads.is_some() {
        errs.push(field::forbidden(
            &path.children(&["template", "spec", "activeDeadlineSeconds"]),
            "activeDeadlineSeconds in DaemonSet is not Supported",
        ));
    }
    nonneg(Some(spec.min_ready_seconds.unwrap_or(0)), &path.child("minReadySeconds"), &mut errs);
    let up = path.child("updateStrategy");
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    match s(&strategy.type_) {
        "OnDelete" => {}
        "RollingUpdate" => match &strategy.rolling_update {
            None => errs.push(field::required(&up.child("rollingUpdate"), "")),
            Some(r) => {
                let rp = up.child("rollingUpdate");
                let zero = IntOrString::Int(0);
                let mu = r.max_unavailable.as_ref().unwrap_or(&zero);
                let ms = r.max_surge.as_ref().unwrap_or(&zero);
                errs.extend(validate_positive_int_or_percent(mu, &rp.child("maxUnavailable")));
                errs.extend(validate_positive_int_or_percent(ms, &rp.child("maxSurge")));
                errs.extend(not_more_than_100_percent(mu, &rp.child("maxUnavailable")));
                errs.extend(not_more_than_100_percent(ms, &rp.child("maxSurge")));
                let has_unavailable = int_or_percent_value(mu) != 0;
                let has_surge = int_or_percent_value(ms) != 0;
                if has_unavailable && has_surge {
                    errs.push(field::invalid(
                        &rp.child("maxSurge"),
                        &int_or_string_json(ms),
                        "may not be set when maxUnavailable is non-zero",
                    ));
                } else if !has_unavailable && !has_surge {
                    errs.push(field::required(&rp.child("maxUnavailable"), "cannot be 0 when maxSurge is 0"));
                }
            }
        },
        _ => errs.push(field::not_supported(&up, &daemon_set_strategy_json(spec), &["RollingUpdate", "OnDelete"])),
    }
    nonneg(spec.revision_history_limit, &path.child("revisionHistoryLimit"), &mut errs);
    errs
}

pub fn validate_daemon_set_create(ds: &DaemonSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&ds.metadata, true, NameRule::Subdomain);
    errs.extend(validate_daemon_set_spec(&ds.spec.clone().unwrap_or_default()));
    errs
}

pub fn validate_daemon_set_update(new: &DaemonSet, old: &DaemonSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let new_spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    errs.extend(validate_daemon_set_spec(&new_spec));
    errs.extend(selector_immutable(&new_spec.selector, &old_spec.selector));
    errs
}

fn stateful_set_strategy_json(spec: &StatefulSetSpec) -> String {
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    format!(
        "{{\"Type\":{},\"RollingUpdate\":{}}}",
        field::json_string(s(&strategy.type_)),
        stateful_set_rolling_json(spec)
    )
}

fn stateful_set_rolling_json(spec: &StatefulSetSpec) -> String {
    match spec.update_strategy.as_ref().and_then(|u| u.rolling_update.as_ref()) {
        None => "null".to_string(),
        Some(r) => format!(
            "{{\"Partition\":{},\"MaxUnavailable\":{}}}",
            r.partition.unwrap_or(0),
            r.max_unavailable.as_ref().map(int_or_string_json).unwrap_or_else(|| "null".to_string())
        ),
    }
}

fn validate_stateful_set_spec(spec: &StatefulSetSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    match s(&spec.pod_management_policy) {
        "" => errs.push(field::required(&path.child("podManagementPolicy"), "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(field::invalid(
            &path.child("podManagementPolicy"),
            &field::json_string(other),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let up = path.child("updateStrategy");
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    match s(&strategy.type_) {
        "" => errs.push(field::required(&up, "")),
        "OnDelete" => {
            if strategy.rolling_update.is_some() {
                errs.push(field::invalid(
                    &up.child("rollingUpdate"),
                    &stateful_set_rolling_json(spec),
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        "RollingUpdate" => {
            if let Some(r) = &strategy.rolling_update {
                let rp = up.child("rollingUpdate");
                nonneg(Some(r.partition.unwrap_or(0)), &rp.child("partition"), &mut errs);
                if let Some(mu) = &r.max_unavailable {
                    let mp = rp.child("maxUnavailable");
                    errs.extend(validate_positive_int_or_percent(mu, &mp));
                    if int_or_percent_value(mu) == 0 {
                        errs.push(field::invalid(&mp, &int_or_string_json(mu), "cannot be 0"));
                    }
                    errs.extend(not_more_than_100_percent(mu, &mp));
                }
            }
        }
        _ => errs.push(field::invalid(&up, &stateful_set_strategy_json(spec), "must be 'RollingUpdate' or 'OnDelete'")),
    }
    if let Some(policy) = &spec.persistent_volume_claim_retention_policy {
        let pp = path.child("persistentVolumeClaimRetentionPolicy");
        for (name, v) in [("whenDeleted", &policy.when_deleted), ("whenScaled", &policy.when_scaled)] {
            let v = s(v);
            if !matches!(v, "Retain" | "Delete") {
                errs.push(field::not_supported(&pp.child(name), &field::json_string(v), &["Retain", "Delete"]));
            }
        }
    }
    nonneg(Some(spec.replicas.unwrap_or(0)), &path.child("replicas"), &mut errs);
    nonneg(Some(spec.min_ready_seconds.unwrap_or(0)), &path.child("minReadySeconds"), &mut errs);
    if let Some(o) = &spec.ordinals {
        nonneg(Some(o.start.unwrap_or(0)), &path.child("ordinals.start"), &mut errs);
    }
    validate_required_selector(&spec.selector, "statefulset", &mut errs);
    let sel = go_selector(&spec.selector);
    match Selector::from_label_selector(sel) {
        None => errs.push(field::invalid(&path.child("selector"), &names::selector_json(sel), "")),
        Some(selector) => {
            let tp = path.child("template");
            let labels = template_labels(&spec.template);
            if !selector.is_empty() && !selector.matches(labels) {
                errs.push(field::invalid(
                    &tp.children(&["metadata", "labels"]),
                    &field::json_map(labels),
                    "`selector` does not match template `labels`",
                ));
            }
            let default_meta = Default::default();
            let tmeta = spec.template.metadata.as_ref().unwrap_or(&default_meta);
            errs.extend(names::validate_labels(tmeta.labels.as_ref(), &tp.child("labels")));
            errs.extend(names::validate_annotations(tmeta.annotations.as_ref(), &tp.child("annotations")));
            errs.extend(pod::validate_pod_specific_annotations(
                tmeta.annotations.as_ref(),
                &spec.template.spec.clone().unwrap_or_default(),
                &tp.child("annotations"),
            ));
        }
    }
    let (restart, ads) = template_spec_field(&spec.template);
    if restart != "Always" {
        errs.push(field::not_supported(
            &path.children(&["template", "spec", "restartPolicy"]),
            &field::json_string(restart),
            &["Always"],
        ));
    }
    if ads.is_some() {
        errs.push(field::forbidden(
            &path.children(&["template", "spec", "activeDeadlineSeconds"]),
            "activeDeadlineSeconds in StatefulSet is not Supported",
        ));
    }
    errs
}

pub fn validate_stateful_set_create(sts: &StatefulSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&sts.metadata, true, NameRule::Label);
    errs.extend(validate_stateful_set_spec(&sts.spec.clone().unwrap_or_default()));
    errs
}

fn normalized(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| {
                    !v.is_null()
                        && !matches!(v, Value::Array(a) if a.is_empty())
                        && !matches!(v, Value::Object(o) if o.is_empty())
                })
                .map(|(k, v)| (k, normalized(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(normalized).collect()),
        other => other,
    }
}

pub fn validate_stateful_set_update(new: &StatefulSet, old: &StatefulSet) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let new_spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    errs.extend(validate_stateful_set_spec(&new_spec));
    let mut clone = new_spec;
    clone.replicas = old_spec.replicas;
    clone.template = old_spec.template.clone();
    clone.update_strategy = old_spec.update_strategy.clone();
    clone.min_ready_seconds = old_spec.min_ready_seconds;
    clone.ordinals = old_spec.ordinals.clone();
    clone.persistent_volume_claim_retention_policy = old_spec.persistent_volume_claim_retention_policy.clone();
    let a = normalized(serde_json::to_value(&clone).unwrap_or(Value::Null));
    let b = normalized(serde_json::to_value(&old_spec).unwrap_or(Value::Null));
    if a != b {
        errs.push(field::forbidden(
            &Path::new("spec"),
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ));
    }
    errs
}
