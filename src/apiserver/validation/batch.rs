//! Jobs and CronJobs (`pkg/apis/batch/validation` and the job strategy): the generated selector and its
//! labels, completions/parallelism/backoff limits, indexed jobs, pod failure and replacement policies, the
//! template's restart policy (`OnFailure` or `Never`), immutable fields on update; CronJob schedules
//! (robfig/cron syntax), time zones, concurrency policy and job templates.

use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{CronJob, CronJobSpec, Job, JobSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule, Selector};
use super::pod;
use crate::api::cron;
use crate::api::Cause;

const NOT_NEGATIVE: &str = "must be greater than or equal to 0";
pub const LEGACY_CONTROLLER_UID_LABEL: &str = "controller-uid";
pub const LEGACY_JOB_NAME_LABEL: &str = "job-name";
pub const CONTROLLER_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

fn nonneg(v: Option<i64>, path: &Path, errs: &mut Vec<Cause>) {
    if let Some(n) = v.filter(|n| *n < 0) {
        errs.push(field::invalid_int(path, n, NOT_NEGATIVE));
    }
}

/// The job strategy's `PrepareForCreate` selector generation (needs the UID the registry assigned):
/// the template gets `batch.kubernetes.io/job-name`, `job-name`, `batch.kubernetes.io/controller-uid` and
/// `controller-uid` labels unless set, and the selector matches `batch.kubernetes.io/controller-uid`.
/// Does nothing when `spec.manualSelector` is true.
pub fn generate_selector(job: &mut Job) {
    let name = job.metadata.name.clone().unwrap_or_default();
    let uid = job.metadata.uid.clone().unwrap_or_default();
    let Some(spec) = job.spec.as_mut() else {
        return;
    };
    if spec.manual_selector == Some(true) {
        return;
    }
    let labels =
        spec.template.metadata.get_or_insert_with(ObjectMeta::default).labels.get_or_insert_with(BTreeMap::new);
    for key in [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL] {
        labels.entry(key.to_string()).or_insert_with(|| name.clone());
    }
    for key in [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL] {
        labels.entry(key.to_string()).or_insert_with(|| uid.clone());
    }
    // The defaulting that runs again when the Job is read from storage copies the template's labels onto a
    // Job that has none, so such a Job shows the generated ones.
    if job.metadata.labels.as_ref().is_none_or(BTreeMap::is_empty) {
        job.metadata.labels = Some(labels.clone());
    }
    spec.selector
        .get_or_insert_with(LabelSelector::default)
        .match_labels
        .get_or_insert_with(BTreeMap::new)
        .entry(CONTROLLER_UID_LABEL.to_string())
        .or_insert(uid);
}

fn validate_has_label(meta: Option<&ObjectMeta>, key: &str, expected: &str) -> Vec<Cause> {
    let path = Path::new("spec").children(&["template", "metadata", "labels"]);
    let labels = meta.and_then(|m| m.labels.as_ref());
    match labels.and_then(|l| l.get(key)) {
        None => vec![field::required(&path.key(key), &format!("must be '{expected}'"))],
        Some(v) if v != expected => {
            vec![field::invalid(&path.key(key), &field::json_map(labels), &format!("must be '{expected}'"))]
        }
        Some(_) => Vec::new(),
    }
}

/// `validateGeneratedSelector` with the prefixed-label requirement of new jobs.
fn validate_generated_selector(job: &Job, spec: &JobSpec) -> Vec<Cause> {
    let mut errs = Vec::new();
    if spec.manual_selector == Some(true) {
        return errs;
    }
    let Some(selector) = &spec.selector else {
        return errs;
    };
    let uid = s(&job.metadata.uid);
    let name = s(&job.metadata.name);
    if uid.is_empty() {
        errs.push(field::required(&Path::new("metadata").child("uid"), ""));
    }
    let tmeta = spec.template.metadata.as_ref();
    errs.extend(validate_has_label(tmeta, LEGACY_CONTROLLER_UID_LABEL, uid));
    errs.extend(validate_has_label(tmeta, LEGACY_JOB_NAME_LABEL, name));
    errs.extend(validate_has_label(tmeta, CONTROLLER_UID_LABEL, uid));
    errs.extend(validate_has_label(tmeta, JOB_NAME_LABEL, name));
    let mut expected = BTreeMap::new();
    for (k, v) in [
        (CONTROLLER_UID_LABEL, uid),
        (JOB_NAME_LABEL, name),
        (LEGACY_CONTROLLER_UID_LABEL, uid),
        (LEGACY_JOB_NAME_LABEL, name),
    ] {
        expected.insert(k.to_string(), v.to_string());
    }
    if let Some(sel) = Selector::from_label_selector(Some(selector)) {
        if !sel.matches(Some(&expected)) {
            errs.push(field::invalid(
                &Path::new("spec").child("selector"),
                &names::selector_json(Some(selector)),
                "`selector` not auto-generated",
            ));
        }
    }
    errs
}

/// `validateJobSpec`: the parts shared by Jobs and CronJob job templates.
fn validate_job_spec_common(spec: &JobSpec, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    nonneg(spec.parallelism.map(i64::from), &path.child("parallelism"), &mut errs);
    nonneg(spec.completions.map(i64::from), &path.child("completions"), &mut errs);
    nonneg(spec.active_deadline_seconds, &path.child("activeDeadlineSeconds"), &mut errs);
    nonneg(spec.backoff_limit.map(i64::from), &path.child("backoffLimit"), &mut errs);
    nonneg(spec.ttl_seconds_after_finished.map(i64::from), &path.child("ttlSecondsAfterFinished"), &mut errs);
    nonneg(spec.backoff_limit_per_index.map(i64::from), &path.child("backoffLimitPerIndex"), &mut errs);
    if let Some(mfi) = spec.max_failed_indexes {
        nonneg(Some(mfi as i64), &path.child("maxFailedIndexes"), &mut errs);
        if spec.backoff_limit_per_index.is_none() {
            errs.push(field::required(&path.child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
        }
    }
    if let Some(mb) = &spec.managed_by {
        let mp = path.child("managedBy");
        match mb.split_once('/') {
            Some((host, rest)) if !host.is_empty() && !rest.is_empty() => {
                for m in names::is_dns1123_subdomain(host) {
                    errs.push(field::invalid_str(&mp, host, &m));
                }
            }
            _ => errs.push(field::invalid_str(&mp, mb, "must be a domain-prefixed path (such as \"acme.io/foo\")")),
        }
        if mb.len() > 63 {
            errs.push(field::too_long(&mp, 63));
        }
    }
    let indexed = s(&spec.completion_mode) == "Indexed";
    if let Some(mode) = &spec.completion_mode {
        if mode != "NonIndexed" && mode != "Indexed" {
            errs.push(field::not_supported(
                &path.child("completionMode"),
                &field::json_string(mode),
                &["NonIndexed", "Indexed"],
            ));
        }
        if indexed {
            if spec.completions.is_none() {
                errs.push(field::required(&path.child("completions"), "when completion mode is Indexed"));
            }
            if let Some(p) = spec.parallelism.filter(|p| *p > 100_000) {
                errs.push(field::invalid_int(
                    &path.child("parallelism"),
                    p as i64,
                    "must be less than or equal to 100000 when completion mode is Indexed",
                ));
            }
            if let (Some(c), Some(m)) = (spec.completions, spec.max_failed_indexes) {
                if m > c {
                    errs.push(field::invalid_int(
                        &path.child("maxFailedIndexes"),
                        m as i64,
                        "must be less than or equal to completions",
                    ));
                }
            }
        }
    }
    if !indexed {
        if let Some(b) = spec.backoff_limit_per_index {
            errs.push(field::invalid_int(
                &path.child("backoffLimitPerIndex"),
                b as i64,
                "requires indexed completion mode",
            ));
        }
        if let Some(m) = spec.max_failed_indexes {
            errs.push(field::invalid_int(
                &path.child("maxFailedIndexes"),
                m as i64,
                "requires indexed completion mode",
            ));
        }
    }
    if let Some(rp) = &spec.pod_replacement_policy {
        let pp = path.child("podReplacementPolicy");
        if spec.pod_failure_policy.is_some() {
            if rp != "Failed" {
                errs.push(field::not_supported(&pp, &field::json_string(rp), &["Failed"]));
            }
        } else if !matches!(rp.as_str(), "Failed" | "TerminatingOrFailed") {
            errs.push(field::not_supported(&pp, &field::json_string(rp), &["Failed", "TerminatingOrFailed"]));
        }
    }
    errs.extend(pod::validate_pod_template_spec(&spec.template, &path.child("template")));
    let restart = spec.template.spec.as_ref().map(|p| s(&p.restart_policy)).unwrap_or("");
    let rp = path.children(&["template", "spec", "restartPolicy"]);
    if restart == "Always" || restart.is_empty() {
        errs.push(field::required(&rp, "valid values: \"OnFailure\", \"Never\""));
    } else if restart != "OnFailure" && restart != "Never" {
        errs.push(field::not_supported(&rp, &field::json_string(restart), &["OnFailure", "Never"]));
    } else if spec.pod_failure_policy.is_some() && restart != "Never" {
        errs.push(field::invalid(
            &rp,
            &field::json_string(restart),
            "only \"Never\" is supported when podFailurePolicy is specified",
        ));
    }
    errs
}

/// `ValidateJobSpec`: the common rules plus the selector.
fn validate_job_spec(spec: &JobSpec) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = validate_job_spec_common(spec, &path);
    match &spec.selector {
        None => errs.push(field::required(&path.child("selector"), "")),
        Some(sel) => errs.extend(names::validate_label_selector(Some(sel), &path.child("selector"))),
    }
    if let Some(sel) = Selector::from_label_selector(spec.selector.as_ref()) {
        let labels = spec.template.metadata.as_ref().and_then(|m| m.labels.as_ref());
        if !sel.matches(labels) {
            errs.push(field::invalid(
                &path.children(&["template", "metadata", "labels"]),
                &field::json_map(labels),
                "`selector` does not match template `labels`",
            ));
        }
    }
    errs
}

pub fn validate_job_create(job: &Job) -> Vec<Cause> {
    let spec = job.spec.clone().unwrap_or_default();
    let mut errs = meta::validate_object_meta(&job.metadata, true, NameRule::Subdomain);
    errs.extend(validate_generated_selector(job, &spec));
    errs.extend(validate_job_spec(&spec));
    if s(&spec.completion_mode) == "Indexed" {
        if let Some(c) = spec.completions.filter(|c| *c > 0) {
            let host = format!("{}-{}", s(&job.metadata.name), c - 1);
            if !names::is_dns1123_label(&host).is_empty() {
                errs.push(field::invalid_str(
                    &Path::new("metadata").child("name"),
                    s(&job.metadata.name),
                    &format!("will not able to create pod with invalid DNS label: {host}"),
                ));
            }
        }
    }
    errs
}

fn normalized(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null() && !matches!(v, Value::Array(a) if a.is_empty()))
                .map(|(k, v)| (k, normalized(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(normalized).collect()),
        other => other,
    }
}

fn immutable_json<T: serde::Serialize + PartialEq>(new: &T, old: &T, path: &Path, errs: &mut Vec<Cause>) {
    let n = normalized(serde_json::to_value(new).unwrap_or(Value::Null));
    let o = normalized(serde_json::to_value(old).unwrap_or(Value::Null));
    if n != o {
        let rendered = serde_json::to_string(&n).unwrap_or_else(|_| "null".to_string());
        errs.push(field::invalid(path, &rendered, "field is immutable"));
    }
}

pub fn validate_job_update(new: &Job, old: &Job) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    let path = Path::new("spec");
    errs.extend(validate_job_spec(&spec));
    if spec.completions != old_spec.completions {
        let elastic = s(&spec.completion_mode) == "Indexed";
        if !elastic {
            errs.push(field::invalid(
                &path.child("completions"),
                &field::json_opt_int(spec.completions.map(i64::from)),
                "field is immutable",
            ));
        } else if let Some(c) = spec.completions {
            if Some(c) != spec.parallelism {
                errs.push(field::invalid_int(
                    &path.child("completions"),
                    c as i64,
                    "can only be modified in tandem with spec.parallelism",
                ));
            }
        }
    }
    let sel_new = spec.selector.clone().unwrap_or_default();
    let sel_old = old_spec.selector.clone().unwrap_or_default();
    if sel_new.match_labels.clone().unwrap_or_default() != sel_old.match_labels.clone().unwrap_or_default()
        || sel_new.match_expressions.clone().unwrap_or_default()
            != sel_old.match_expressions.clone().unwrap_or_default()
    {
        errs.push(field::invalid(
            &path.child("selector"),
            &names::selector_json(spec.selector.as_ref()),
            "field is immutable",
        ));
    }
    // Scheduling directives stay mutable while a job is suspended and has never started.
    let mutable_scheduling =
        old_spec.suspend == Some(true) && old.status.as_ref().is_none_or(|st| st.start_time.is_none());
    let mut old_template = old_spec.template.clone();
    if mutable_scheduling {
        if let (Some(os), Some(ns)) = (old_template.spec.as_mut(), spec.template.spec.as_ref()) {
            os.node_selector = ns.node_selector.clone();
            os.tolerations = ns.tolerations.clone();
            os.scheduling_gates = ns.scheduling_gates.clone();
            match (os.affinity.as_mut(), ns.affinity.as_ref()) {
                (Some(oa), Some(na)) => oa.node_affinity = na.node_affinity.clone(),
                (Some(oa), None) => {
                    oa.node_affinity = None;
                    if oa.pod_affinity.is_none() && oa.pod_anti_affinity.is_none() {
                        os.affinity = None;
                    }
                }
                (None, Some(na)) => {
                    os.affinity = Some(k8s_openapi::api::core::v1::Affinity {
                        node_affinity: na.node_affinity.clone(),
                        ..Default::default()
                    })
                }
                (None, None) => {}
            }
        }
        if let (Some(om), Some(nm)) = (old_template.metadata.as_mut(), spec.template.metadata.as_ref()) {
            om.labels = nm.labels.clone();
            om.annotations = nm.annotations.clone();
        }
    }
    immutable_json(&spec.template, &old_template, &path.child("template"), &mut errs);
    for (name, n, o) in [
        ("completionMode", &spec.completion_mode, &old_spec.completion_mode),
        ("managedBy", &spec.managed_by, &old_spec.managed_by),
    ] {
        if n != o {
            errs.push(field::invalid(&path.child(name), &field::json_opt_string(n.as_deref()), "field is immutable"));
        }
    }
    immutable_json(&spec.pod_failure_policy, &old_spec.pod_failure_policy, &path.child("podFailurePolicy"), &mut errs);
    if spec.backoff_limit_per_index != old_spec.backoff_limit_per_index {
        errs.push(field::invalid(
            &path.child("backoffLimitPerIndex"),
            &field::json_opt_int(spec.backoff_limit_per_index.map(i64::from)),
            "field is immutable",
        ));
    }
    immutable_json(&spec.success_policy, &old_spec.success_policy, &path.child("successPolicy"), &mut errs);
    errs
}

fn validate_cron_job_spec(spec: &CronJobSpec, old: Option<&CronJobSpec>) -> Vec<Cause> {
    let path = Path::new("spec");
    let mut errs = Vec::new();
    let sp = path.child("schedule");
    if spec.schedule.is_empty() {
        errs.push(field::required(&sp, ""));
    } else {
        let allow_tz = old.is_some_and(|o| o.schedule.contains("TZ"));
        if let Err(e) = cron::parse_standard(&spec.schedule) {
            errs.push(field::invalid_str(&sp, &spec.schedule, &e));
        }
        if allow_tz && spec.schedule.contains("TZ") && spec.time_zone.is_some() {
            errs.push(field::invalid_str(
                &sp,
                &spec.schedule,
                "cannot use both timeZone field and TZ or CRON_TZ in schedule",
            ));
        } else if !allow_tz && spec.schedule.contains("TZ") {
            errs.push(field::invalid_str(
                &sp,
                &spec.schedule,
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            ));
        }
    }
    if let Some(sds) = spec.starting_deadline_seconds {
        nonneg(Some(sds), &path.child("startingDeadlineSeconds"), &mut errs);
    }
    if old.is_none_or(|o| o.time_zone != spec.time_zone) {
        if let Some(tz) = &spec.time_zone {
            let tp = path.child("timeZone");
            let rendered = field::json_string(tz);
            if tz.is_empty() {
                errs.push(field::invalid(&tp, &rendered, "timeZone must be nil or non-empty string"));
            } else if tz.split('/').any(|part| {
                part == "."
                    || part == ".."
                    || part.starts_with('-')
                    || part.is_empty()
                    || part.len() > 14
                    || !part.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'+'))
            }) {
                errs.push(field::invalid(&tp, &rendered, &format!("unknown time zone {tz}")));
            } else if tz.eq_ignore_ascii_case("Local") {
                errs.push(field::invalid(
                    &tp,
                    &rendered,
                    "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
                ));
            }
        }
    }
    let cp = path.child("concurrencyPolicy");
    match s(&spec.concurrency_policy) {
        "Allow" | "Forbid" | "Replace" => {}
        "" => errs.push(field::required(&cp, "")),
        other => errs.push(field::not_supported(&cp, &field::json_string(other), &["Allow", "Forbid", "Replace"])),
    }
    let jp = path.child("jobTemplate");
    let job_spec = spec.job_template.spec.clone().unwrap_or_default();
    errs.extend(validate_job_spec_common(&job_spec, &jp.child("spec")));
    if job_spec.selector.is_some() {
        errs.push(field::invalid(
            &jp.children(&["spec", "selector"]),
            &names::selector_json(job_spec.selector.as_ref()),
            "`selector` will be auto-generated",
        ));
    }
    if job_spec.manual_selector == Some(true) {
        errs.push(field::not_supported(&jp.children(&["spec", "manualSelector"]), "true", &["nil", "false"]));
    }
    nonneg(spec.successful_jobs_history_limit.map(i64::from), &path.child("successfulJobsHistoryLimit"), &mut errs);
    nonneg(spec.failed_jobs_history_limit.map(i64::from), &path.child("failedJobsHistoryLimit"), &mut errs);
    errs
}

pub fn validate_cron_job_create(cj: &CronJob) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&cj.metadata, true, NameRule::Subdomain);
    errs.extend(validate_cron_job_spec(&cj.spec.clone().unwrap_or_default(), None));
    let name = s(&cj.metadata.name);
    if name.len() > 52 {
        errs.push(field::invalid_str(&Path::new("metadata").child("name"), name, "must be no more than 52 characters"));
    }
    errs
}

pub fn validate_cron_job_update(new: &CronJob, old: &CronJob) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let old_spec = old.spec.clone().unwrap_or_default();
    errs.extend(validate_cron_job_spec(&new.spec.clone().unwrap_or_default(), Some(&old_spec)));
    errs
}
