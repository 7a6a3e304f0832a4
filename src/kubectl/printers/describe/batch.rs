//! `kubectl describe` for Jobs and CronJobs (`JobDescriber`, `CronJobDescriber` in kubectl's
//! `pkg/describe/describe.go`).

use k8s_openapi::api::batch::v1 as batch;

use super::super::duration::{human_duration, rfc1123z, time_ms};
use super::super::util::selector_string;
use super::{annotations_block, controller_of, events_block, labels_block, name, namespace, pod_template_block};
use super::{Related, Writer};
use crate::sim::SimTime;

fn selector_line(w: &mut Writer, selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>) {
    match selector_string(selector) {
        Ok(s) => w.write(0, &format!("Selector:\t{s}\n")),
        Err(e) => w.write(0, &format!("Selector:\tFailed to get selector: {e}\n")),
    }
}

fn or_unset(v: Option<impl std::fmt::Display>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "<unset>".to_string())
}

pub(super) fn describe_job(w: &mut Writer, job: &batch::Job, related: &Related, now: SimTime) {
    let meta = &job.metadata;
    let spec = job.spec.clone().unwrap_or_default();
    let status = job.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    selector_line(w, spec.selector.as_ref());
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    if let Some(r) = controller_of(meta) {
        w.write(0, &format!("Controlled By:\t{}/{}\n", r.kind, r.name));
    }
    if let Some(p) = spec.parallelism {
        w.write(0, &format!("Parallelism:\t{p}\n"));
    }
    w.write(0, &format!("Completions:\t{}\n", or_unset(spec.completions)));
    if let Some(m) = &spec.completion_mode {
        w.write(0, &format!("Completion Mode:\t{m}\n"));
    }
    if let Some(s) = spec.suspend {
        w.write(0, &format!("Suspend:\t{s}\n"));
    }
    if let Some(b) = spec.backoff_limit {
        w.write(0, &format!("Backoff Limit:\t{b}\n"));
    }
    if let Some(t) = spec.ttl_seconds_after_finished {
        w.write(0, &format!("TTL Seconds After Finished:\t{t}\n"));
    }
    if status.start_time.is_some() {
        w.write(0, &format!("Start Time:\t{}\n", rfc1123z(status.start_time.as_ref())));
    }
    if status.completion_time.is_some() {
        w.write(0, &format!("Completed At:\t{}\n", rfc1123z(status.completion_time.as_ref())));
    }
    if let (Some(start), Some(end)) = (&status.start_time, &status.completion_time) {
        w.write(0, &format!("Duration:\t{}\n", human_duration(time_ms(end) - time_ms(start))));
    }
    if let Some(d) = spec.active_deadline_seconds {
        w.write(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    let (active, succeeded, failed) =
        (status.active.unwrap_or(0), status.succeeded.unwrap_or(0), status.failed.unwrap_or(0));
    match status.ready {
        None => w.write(0, &format!("Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n")),
        Some(ready) => w.write(
            0,
            &format!("Pods Statuses:\t{active} Active ({ready} Ready) / {succeeded} Succeeded / {failed} Failed\n"),
        ),
    }
    if spec.completion_mode.as_deref() == Some("Indexed") {
        let indexes = status.completed_indexes.clone().unwrap_or_default();
        w.write(0, &format!("Completed Indexes:\t{}\n", cap_indexes(&indexes, 50)));
    }
    pod_template_block(w, Some(&spec.template));
    events_block(w, &related.events, now);
}

/// `capIndexesListOrNone`: the list cut after the first comma past `soft_limit` characters.
fn cap_indexes(indexes: &str, soft_limit: usize) -> String {
    if indexes.is_empty() {
        return "<none>".to_string();
    }
    let cut = indexes.get(soft_limit..).and_then(|rest| rest.find(',')).and_then(|i| indexes.get(..soft_limit + i + 1));
    match cut {
        Some(head) => format!("{head}..."),
        None => indexes.to_string(),
    }
}

pub(super) fn describe_cron_job(w: &mut Writer, cj: &batch::CronJob, related: &Related, now: SimTime) {
    let meta = &cj.metadata;
    let spec = cj.spec.clone().unwrap_or_default();
    let status = cj.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("Schedule:\t{}\n", spec.schedule));
    w.write(0, &format!("Concurrency Policy:\t{}\n", spec.concurrency_policy.clone().unwrap_or_default()));
    // `printBoolPtr`: True/False.
    let suspend = spec.suspend.map(|s| if s { "True" } else { "False" });
    w.write(0, &format!("Suspend:\t{}\n", or_unset(suspend)));
    w.write(0, &format!("Successful Job History Limit:\t{}\n", or_unset(spec.successful_jobs_history_limit)));
    w.write(0, &format!("Failed Job History Limit:\t{}\n", or_unset(spec.failed_jobs_history_limit)));
    w.write(
        0,
        &format!("Starting Deadline Seconds:\t{}\n", or_unset(spec.starting_deadline_seconds.map(|s| format!("{s}s")))),
    );
    let job = spec.job_template.spec.clone().unwrap_or_default();
    match &job.selector {
        Some(sel) => selector_line(w, Some(sel)),
        None => w.write(0, "Selector:\t<unset>\n"),
    }
    w.write(0, &format!("Parallelism:\t{}\n", or_unset(job.parallelism)));
    w.write(0, &format!("Completions:\t{}\n", or_unset(job.completions)));
    if let Some(d) = job.active_deadline_seconds {
        w.write(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    pod_template_block(w, Some(&job.template));
    w.write(
        0,
        &format!(
            "Last Schedule Time:\t{}\n",
            match &status.last_schedule_time {
                Some(t) => rfc1123z(Some(t)),
                None => "<unset>".to_string(),
            }
        ),
    );
    let active: Vec<String> = status.active.iter().flatten().map(|r| r.name.clone().unwrap_or_default()).collect();
    w.write(
        0,
        &format!("Active Jobs:\t{}\n", if active.is_empty() { "<none>".to_string() } else { active.join(", ") }),
    );
    events_block(w, &related.events, now);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_index_lists_are_cut_after_a_comma() {
        assert_eq!(cap_indexes("", 50), "<none>");
        assert_eq!(cap_indexes("0-2,4", 50), "0-2,4");
        let long: Vec<String> = (0..40).map(|i| (i * 2).to_string()).collect();
        let text = long.join(",");
        let capped = cap_indexes(&text, 50);
        assert!(capped.ends_with(",..."), "{capped}");
        assert!(capped.len() > 50 && capped.len() < 60, "{capped}");
    }
}
