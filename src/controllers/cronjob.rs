//! The CronJob controller: starts a Job at each scheduled time. Watches: CronJobs, Jobs. Writes: Jobs (named
//! `<cronjob>-<scheduled time in minutes since the Unix epoch>`, from `spec.jobTemplate`, with a controller
//! ownerReference and the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation), deletes of Jobs
//! (background propagation: replaced by `concurrencyPolicy: Replace`, or beyond `successfulJobsHistoryLimit`
//! / `failedJobsHistoryLimit`), CronJob status (`active`, `lastScheduleTime`, `lastSuccessfulTime`), Events
//! `SuccessfulCreate`, `SawCompletedJob`, `SuccessfulDelete`, `JobAlreadyActive`, `MissSchedule`,
//! `UnexpectedJob`, `MissingJob`, `FailedCreate`, `UnparseableSchedule`, `InvalidSchedule`,
//! `UnknownTimeZone`, `UnsupportedSchedule`, `TooManyMissedTimes`.
//! Counterpart: `pkg/controller/cronjob/cronjob_controllerv2.go`, `utils.go`.
//!
//! Schedules are read by [`crate::api::cron`] in simulated time (UTC, or `spec.timeZone` when the engine
//! knows the zone). As the real loop, each sync looks for the most recent unmet schedule time since
//! `lastScheduleTime` (or the CronJob's creation), starts at most one Job for it, and sleeps until 100 ms
//! after the next one. Jobs are found through an index of controller ownerReferences kept from the Job watch.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::ObjectReference;

use crate::api::cron::{self, Schedule};
use crate::api::{ApiResponse, Kind, Object, ObjectMeta};
use crate::apiserver::registry::k8s_time;
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::time::{rfc1123z_from_epoch_ms, rfc3339_in_zone, EPOCH_MS};
use crate::sim::SimTime;

use super::job::finished;
use super::owned::Owned;
use super::queue::{InFlight, Queue, Written};
use super::replicaset::{controller_ref, owner_ref_to, sim_time};
use super::{Controller, Cx};

pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/// `nextScheduleDelta`: wake this long after a scheduled time.
const NEXT_DELTA_MS: i64 = 100;
const API_BACKOFF_MS: u64 = 5;
const API_BACKOFF_MAX_MS: u64 = 1_000_000;

/// Unix milliseconds of a simulated time.
fn unix_ms(t: SimTime) -> i64 {
    (EPOCH_MS + t.ms()) as i64
}

/// How many schedule times passed unmet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missed {
    None,
    Few,
    Many,
}

/// `mostRecentScheduleTime`: the latest schedule time at or before `now_ms` after `earliest_ms`, in Unix
/// seconds, and how many were missed; an error for schedules that never fire twice.
fn most_recent(earliest_ms: i64, now_ms: i64, s: &Schedule, offset: i64) -> Result<(Option<i64>, Missed), String> {
    let too_close = || "time difference between two schedules is less than 1 second".to_string();
    let Some(t1) = s.next(earliest_ms, offset) else { return Err(too_close()) };
    if now_ms < t1 * 1000 {
        return Ok((None, Missed::None));
    }
    let Some(t2) = s.next(t1 * 1000, offset) else { return Err(too_close()) };
    if now_ms < t2 * 1000 {
        return Ok((Some(t1), Missed::None));
    }
    let between = t2 - t1;
    if between < 1 {
        return Err(too_close());
    }
    let elapsed = (now_ms - t1 * 1000) / 1000;
    let missed = elapsed / between + 1;
    let mut most = None;
    let mut t = s.next((t1 + (missed - 2) * between) * 1000, offset);
    // The library walks to now; bounded here so a pathological schedule cannot stall the loop.
    for _ in 0..100_000 {
        match t {
            Some(x) if x * 1000 <= now_ms => {
                most = Some(x);
                t = s.next(x * 1000, offset);
            }
            _ => break,
        }
    }
    let class = if missed > 100 { Missed::Many } else { Missed::Few };
    Ok((most, class))
}

/// `nextScheduleTimeDuration`: milliseconds from `now_ms` until 100 ms after the next schedule time.
fn next_wake_ms(earliest_ms: i64, now_ms: i64, s: &Schedule, offset: i64) -> Option<u64> {
    let from = match most_recent(earliest_ms, now_ms, s, offset) {
        Err(_) => now_ms,
        Ok((Some(t), _)) => t * 1000,
        Ok((None, Missed::None)) => earliest_ms,
        Ok((None, _)) => now_ms,
    };
    let next = s.next(from, offset)?;
    Some((next * 1000 + NEXT_DELTA_MS - now_ms).max(0) as u64)
}

fn in_active(cj: &CronJob, uid: &str) -> bool {
    cj.status.iter().flat_map(|s| s.active.iter().flatten()).any(|r| r.uid.as_deref() == Some(uid))
}

fn remove_from_active(cj: &mut CronJob, uid: &str) {
    if let Some(status) = cj.status.as_mut() {
        if let Some(active) = status.active.as_mut() {
            active.retain(|r| r.uid.as_deref() != Some(uid));
        }
        // An empty list is left out, as `omitempty` prints it.
        if status.active.as_ref().is_some_and(Vec::is_empty) {
            status.active = None;
        }
    }
}

fn finished_type(job: &Job) -> Option<&str> {
    finished(job).map(|c| c.type_.as_str())
}

/// An `ObjectReference` to a Job, as `ref.GetReference` builds it.
fn reference(job: &Object) -> ObjectReference {
    let meta = job.meta();
    ObjectReference {
        api_version: Some("batch/v1".into()),
        kind: Some("Job".into()),
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        resource_version: meta.resource_version.clone(),
        uid: meta.uid.clone(),
        field_path: None,
    }
}

/// `getJobFromTemplate2`.
fn job_for(cj: &CronJob, scheduled_s: i64, offset: i64) -> Job {
    let spec = cj.spec.clone().unwrap_or_default();
    let template_meta = spec.job_template.metadata.clone().unwrap_or_default();
    let mut annotations = template_meta.annotations.unwrap_or_default();
    annotations.insert(SCHEDULED_TIMESTAMP.into(), rfc3339_in_zone(scheduled_s, offset));
    Job {
        metadata: ObjectMeta {
            name: Some(format!("{}-{}", cj.metadata.name.as_deref().unwrap_or(""), scheduled_s.div_euclid(60))),
            namespace: cj.metadata.namespace.clone(),
            labels: template_meta.labels,
            annotations: Some(annotations),
            owner_references: Some(vec![owner_ref_to(&cj.metadata, "batch/v1", "CronJob")]),
            ..ObjectMeta::default()
        },
        spec: spec.job_template.spec,
        status: None,
    }
}

#[derive(Debug)]
enum Op {
    /// A Job for a schedule time; on success it joins `status.active` of `then` and that status is written.
    Create {
        cj: String,
        scheduled_s: i64,
        then: Box<CronJob>,
        update: bool,
    },
    Delete {
        cj: String,
        job: String,
    },
    Status {
        cj: String,
    },
}

/// What one sync decided beside the status.
struct Plan {
    requeue_ms: Option<u64>,
    update: bool,
    create: Option<(Job, i64)>,
}

#[derive(Debug, Default)]
pub struct CronJobController {
    /// CronJob key → keys of the Jobs whose controller ownerReference names it.
    jobs: Owned,
    /// Uids of Jobs this loop created that the cache has not shown yet.
    created: BTreeSet<String>,
    /// Writes in flight per CronJob: its next sync waits for them.
    in_flight: InFlight,
    written: Written,
    queue: Queue,
    pending: BTreeMap<u64, Op>,
    next: u64,
}

impl CronJobController {
    fn tag(&mut self, op: Op) -> u64 {
        self.next += 1;
        self.pending.insert(self.next, op);
        self.next
    }

    fn retry(&mut self, key: &str, cx: &mut Cx) {
        self.queue.add_rate_limited(key, API_BACKOFF_MS, API_BACKOFF_MAX_MS, cx);
    }

    fn release(&mut self, key: &str, cx: &mut Cx) {
        if self.in_flight.release(key) == Some(true) {
            self.sync(key, cx);
        }
    }

    /// The CronJob a Job's controller ownerReference names (by name, as the real lister lookup does).
    fn owner_key(job: &ObjectMeta) -> Option<String> {
        let r = controller_ref(job).filter(|r| r.kind == "CronJob")?;
        Some(format!("{}/{}", job.namespace.as_deref().unwrap_or(""), r.name))
    }

    fn observe_job(&mut self, job: &Object, gone: bool, cx: &mut Cx) {
        let meta = job.meta();
        if !gone {
            self.created.remove(meta.uid.as_deref().unwrap_or(""));
        }
        let Some(key) = Self::owner_key(meta) else { return };
        self.jobs.set(&key, &job.ns_name(), !gone);
        let uid = controller_ref(meta).map(|r| r.uid.clone());
        let owner = cx.get(Kind::CronJob, &key);
        if owner.is_some_and(|o| o.meta().uid == uid) {
            self.queue.add_after(&key, 0, cx);
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx) {
        if self.in_flight.defer(key) {
            return;
        }
        let Some(obj) = self.written.newest(Kind::CronJob, key, cx) else {
            self.queue.forget(key);
            return;
        };
        let Object::CronJob(cj) = obj.as_ref() else { return };
        let jobs = self.jobs.cached(key, Kind::Job, cx);
        let mut copy = cj.clone();
        let mut update = self.cleanup_finished(key, &mut copy, &jobs, cx);
        let plan = self.plan(key, &obj, &mut copy, &jobs, cx);
        update |= plan.update;
        if let Some(ms) = plan.requeue_ms {
            self.queue.add_after(key, ms, cx);
        }
        if let Some((job, scheduled_s)) = plan.create {
            self.in_flight.hold(key);
            let op = Op::Create { cj: key.to_string(), scheduled_s, then: copy, update };
            let tag = self.tag(op);
            cx.create(Object::Job(Box::new(job)), tag);
        } else if update {
            self.write_status(key, *copy, cx);
        }
    }

    fn write_status(&mut self, key: &str, cj: CronJob, cx: &mut Cx) {
        self.in_flight.hold(key);
        let tag = self.tag(Op::Status { cj: key.to_string() });
        cx.update_status(Object::CronJob(Box::new(cj)), tag);
    }

    fn delete_job(&mut self, key: &str, cj: &mut CronJob, job: &Object, cx: &mut Cx) {
        remove_from_active(cj, job.meta().uid.as_deref().unwrap_or(""));
        let tag = self.tag(Op::Delete { cj: key.to_string(), job: job.name().to_string() });
        cx.delete(job, Some("Background"), None, tag);
    }

    /// `cleanupFinishedJobs`: finished Jobs beyond the history limits go, oldest start first.
    fn cleanup_finished(&mut self, key: &str, cj: &mut CronJob, jobs: &[Arc<Object>], cx: &mut Cx) -> bool {
        let spec = cj.spec.clone().unwrap_or_default();
        let mut update = false;
        for (kind, limit) in
            [("Complete", spec.successful_jobs_history_limit), ("Failed", spec.failed_jobs_history_limit)]
        {
            let Some(limit) = limit else { continue };
            let mut list: Vec<&Arc<Object>> = jobs
                .iter()
                .filter(|o| matches!(o.as_ref(), Object::Job(j) if finished_type(j) == Some(kind)))
                .filter(|o| o.meta().deletion_timestamp.is_none())
                .collect();
            let surplus = list.len().saturating_sub(limit.max(0) as usize);
            if surplus == 0 {
                continue;
            }
            // byJobStartTime: no start time sorts last, ties by name.
            list.sort_by_key(|o| {
                let start = match o.as_ref() {
                    Object::Job(j) => sim_time(j.status.as_ref().and_then(|s| s.start_time.as_ref())),
                    _ => None,
                };
                (start.is_none(), start, o.name().to_string())
            });
            for o in list.into_iter().take(surplus) {
                self.delete_job(key, cj, o, cx);
                update = true;
            }
        }
        update
    }

    /// `syncCronJob`: active list bookkeeping, then whether a Job is due now.
    fn plan(&mut self, key: &str, obj: &Arc<Object>, cj: &mut CronJob, jobs: &[Arc<Object>], cx: &mut Cx) -> Plan {
        let now_ms = unix_ms(cx.now);
        let mut update = false;
        let mut children = BTreeSet::new();
        for o in jobs {
            let Object::Job(j) = o.as_ref() else { continue };
            let uid = j.metadata.uid.clone().unwrap_or_default();
            children.insert(uid.clone());
            let found = in_active(cj, &uid);
            if !found && finished(j).is_none() {
                let msg = format!("Saw a job that the controller did not create or forgot: {}", o.name());
                cx.event(obj, "Warning", "UnexpectedJob", &msg);
            } else if found && finished(j).is_some() {
                remove_from_active(cj, &uid);
                let status = finished_type(j).unwrap_or("");
                cx.event(
                    obj,
                    "Normal",
                    "SawCompletedJob",
                    &format!("Saw completed job: {}, status: {status}", o.name()),
                );
                update = true;
            } else if finished_type(j) == Some("Complete") {
                let completed = j.status.as_ref().and_then(|s| s.completion_time.clone());
                let status = cj.status.get_or_insert_with(Default::default);
                let newer = match (&status.last_successful_time, &completed) {
                    (None, _) => true,
                    (Some(last), Some(c)) => sim_time(Some(c)) > sim_time(Some(last)),
                    (Some(_), None) => false,
                };
                if newer {
                    status.last_successful_time = completed;
                    update = true;
                }
            }
        }
        let gone: Vec<ObjectReference> = cj
            .status
            .iter()
            .flat_map(|s| s.active.iter().flatten())
            .filter(|r| {
                let uid = r.uid.clone().unwrap_or_default();
                !children.contains(&uid) && !self.created.contains(&uid)
            })
            .cloned()
            .collect();
        for r in gone {
            let name = r.name.clone().unwrap_or_default();
            let ns = r.namespace.clone().unwrap_or_default();
            let live = cx.get(Kind::Job, &format!("{ns}/{name}")).is_some_and(|j| j.meta().uid == r.uid);
            if !live {
                cx.event(obj, "Normal", "MissingJob", &format!("Active job went missing: {name}"));
                remove_from_active(cj, r.uid.as_deref().unwrap_or(""));
                update = true;
            }
        }
        let idle = |update| Plan { requeue_ms: None, update, create: None };
        if cj.metadata.deletion_timestamp.is_some() {
            return idle(update);
        }
        let spec = cj.spec.clone().unwrap_or_default();
        let mut offset = 0;
        if let Some(tz) = &spec.time_zone {
            match cron::zone_offset(tz) {
                Ok(o) => offset = o,
                Err(e) => {
                    cx.event(obj, "Warning", "UnknownTimeZone", &format!("invalid timeZone: {tz:?}: {e}"));
                    return idle(update);
                }
            }
        }
        if spec.suspend == Some(true) {
            return idle(update);
        }
        // `formatSchedule`: a zone in the schedule itself is used as written, with a warning.
        let text = if spec.schedule.contains("TZ") {
            let msg = format!(
                "CRON_TZ or TZ used in schedule {:?} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
                spec.schedule
            );
            cx.event(obj, "Warning", "UnsupportedSchedule", &msg);
            spec.schedule.clone()
        } else if let Some(tz) = &spec.time_zone {
            format!("TZ={tz} {}", spec.schedule)
        } else {
            spec.schedule.clone()
        };
        let parsed = cron::parse(&text).and_then(|s| match s.zone() {
            Some(z) => {
                cron::zone_offset(z).map(|o| (s.clone(), o)).map_err(|e| format!("provided bad location {z}: {e}"))
            }
            None => Ok((s, offset)),
        });
        let (sched, offset) = match parsed {
            Ok(p) => p,
            Err(e) => {
                let msg = format!("unparseable schedule: {:?} : {e}", spec.schedule);
                cx.event(obj, "Warning", "UnparseableSchedule", &msg);
                return idle(update);
            }
        };
        let created_ms = sim_time(cj.metadata.creation_timestamp.as_ref()).map(unix_ms).unwrap_or(now_ms);
        let last_ms = sim_time(cj.status.as_ref().and_then(|s| s.last_schedule_time.as_ref())).map(unix_ms);
        let earliest = last_ms.unwrap_or(created_ms);
        let wake = next_wake_ms(earliest, now_ms, &sched, offset);
        let waiting = |update| Plan { requeue_ms: wake, update, create: None };
        // `nextScheduleTime`: the starting deadline moves the earliest time considered.
        let deadline_floor = spec.starting_deadline_seconds.map(|s| now_ms - s.max(0).saturating_mul(1000));
        let from = deadline_floor.map_or(earliest, |d| d.max(earliest));
        let scheduled = match most_recent(from, now_ms, &sched, offset) {
            Err(e) => {
                let msg = format!("invalid schedule: {} : {e}", spec.schedule);
                cx.event(obj, "Warning", "InvalidSchedule", &msg);
                return idle(update);
            }
            Ok((None, _)) => return waiting(update),
            Ok((Some(t), missed)) => {
                if missed == Missed::Many {
                    let msg = "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";
                    cx.event(obj, "Warning", "TooManyMissedTimes", msg);
                }
                t
            }
        };
        let too_late =
            spec.starting_deadline_seconds.is_some_and(|s| scheduled.saturating_add(s).saturating_mul(1000) < now_ms);
        if too_late {
            let msg = format!("Missed scheduled time to start a job: {}", rfc1123z_from_epoch_ms(scheduled * 1000));
            cx.event(obj, "Warning", "MissSchedule", &msg);
            return waiting(update);
        }
        let name = format!("{}-{}", cj.metadata.name.as_deref().unwrap_or(""), scheduled.div_euclid(60));
        let active = cj.status.iter().flat_map(|s| s.active.iter().flatten()).cloned().collect::<Vec<_>>();
        if active.iter().any(|r| r.name.as_deref() == Some(name.as_str())) || last_ms == Some(scheduled * 1000) {
            return waiting(update);
        }
        let policy = spec.concurrency_policy.as_deref().unwrap_or("Allow");
        if policy == "Forbid" && !active.is_empty() {
            let msg = "Not starting job because prior execution is running and concurrency policy is Forbid";
            cx.event(obj, "Normal", "JobAlreadyActive", msg);
            return waiting(update);
        }
        if policy == "Replace" {
            for r in &active {
                let ns = r.namespace.clone().unwrap_or_default();
                let job_key = format!("{ns}/{}", r.name.as_deref().unwrap_or(""));
                if let Some(job) = cx.get(Kind::Job, &job_key) {
                    self.delete_job(key, cj, &job, cx);
                    update = true;
                }
            }
        }
        // The wake-up after this one counts from the time being started now.
        let requeue_ms = next_wake_ms(scheduled * 1000, now_ms, &sched, offset);
        Plan { requeue_ms, update, create: Some((job_for(cj, scheduled, offset), scheduled)) }
    }
}

impl Controller for CronJobController {
    fn name(&self) -> &'static str {
        "cronjob-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::CronJob, Kind::Job]
    }

    fn on_start(&mut self) {
        *self = CronJobController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.jobs.clear();
        for j in cx.list(Kind::Job) {
            if let Some(key) = Self::owner_key(j.meta()) {
                self.jobs.set(&key, &j.ns_name(), true);
            }
        }
        for cj in cx.list(Kind::CronJob) {
            self.sync(&cj.ns_name(), cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::CronJob, Change::Added(o)) => self.queue.add_after(&o.ns_name(), 0, cx),
            (Kind::CronJob, Change::Modified { old, new }) => {
                let key = new.ns_name();
                let (Object::CronJob(a), Object::CronJob(b)) = (old.as_ref(), new.as_ref()) else { return };
                let (sa, sb) = (a.spec.as_ref(), b.spec.as_ref());
                let rescheduled = sa.map(|s| (&s.schedule, &s.time_zone)) != sb.map(|s| (&s.schedule, &s.time_zone));
                let parsed = sb.map(|s| cron::parse(&s.schedule));
                match parsed {
                    Some(Ok(sched)) if rescheduled => {
                        let offset = sb.and_then(|s| s.time_zone.as_deref()).and_then(|z| cron::zone_offset(z).ok());
                        let created = sim_time(b.metadata.creation_timestamp.as_ref()).map(unix_ms);
                        let last = sim_time(b.status.as_ref().and_then(|s| s.last_schedule_time.as_ref())).map(unix_ms);
                        let now = unix_ms(cx.now);
                        let earliest = last.or(created).unwrap_or(now);
                        if let Some(ms) = next_wake_ms(earliest, now, &sched, offset.unwrap_or(0)) {
                            self.queue.add_after(&key, ms, cx);
                        }
                    }
                    Some(Err(_)) if rescheduled => {
                        let msg = format!(
                            "unparseable schedule for cronjob: {}",
                            sb.map(|s| s.schedule.as_str()).unwrap_or("")
                        );
                        cx.event(new, "Warning", "UnParseableCronJobSchedule", &msg);
                    }
                    _ => self.queue.add_after(&key, 0, cx),
                }
            }
            (Kind::CronJob, Change::Deleted(o)) => {
                let key = o.ns_name();
                self.written.remove(&key);
                self.queue.forget(&key);
            }
            (Kind::Job, Change::Added(o)) => self.observe_job(o, false, cx),
            (Kind::Job, Change::Modified { old, new }) => {
                if Self::owner_key(old.meta()) != Self::owner_key(new.meta()) {
                    self.observe_job(old, true, cx);
                }
                self.observe_job(new, false, cx);
            }
            (Kind::Job, Change::Deleted(o)) => self.observe_job(o, true, cx),
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.queue.fire(token) {
            self.sync(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(op) = self.pending.remove(&tag) else { return };
        let error = match result {
            Ok(ApiResponse::Error(s)) => Some((s.code, s.message.clone())),
            Ok(_) => None,
            Err(e) => Some((0, format!("{e:?}"))),
        };
        match op {
            Op::Create { cj, scheduled_s, then, update } => {
                let mut then = *then;
                let owner = self.written.newest(Kind::CronJob, &cj, cx);
                let mut update = update;
                match (error, result) {
                    (None, Ok(ApiResponse::Object(job))) => {
                        self.queue.forget(&cj);
                        self.created.insert(job.meta().uid.clone().unwrap_or_default());
                        if let Some(owner) = &owner {
                            cx.event(owner, "Normal", "SuccessfulCreate", &format!("Created job {}", job.name()));
                        }
                        let status = then.status.get_or_insert_with(Default::default);
                        status.active.get_or_insert_with(Vec::new).push(reference(job));
                        status.last_schedule_time =
                            Some(k8s_time(SimTime((scheduled_s * 1000).saturating_sub(EPOCH_MS as i64).max(0) as u64)));
                        update = true;
                    }
                    (Some((409, _)), _) => {
                        // Created before (the status write was lost): take it back into the active list.
                        let ns = then.metadata.namespace.clone().unwrap_or_default();
                        let name =
                            format!("{}-{}", then.metadata.name.as_deref().unwrap_or(""), scheduled_s.div_euclid(60));
                        if let Some(job) = cx.get(Kind::Job, &format!("{ns}/{name}")) {
                            let ours =
                                controller_ref(job.meta()).is_some_and(|r| Some(&r.uid) == then.metadata.uid.as_ref());
                            if ours && !in_active(&then, job.meta().uid.as_deref().unwrap_or("")) {
                                let status = then.status.get_or_insert_with(Default::default);
                                status.active.get_or_insert_with(Vec::new).push(reference(&job));
                                status.last_schedule_time = Some(k8s_time(SimTime(
                                    (scheduled_s * 1000).saturating_sub(EPOCH_MS as i64).max(0) as u64,
                                )));
                                update = true;
                            }
                        }
                    }
                    (Some((_, msg)), _) => {
                        if let (Some(owner), false) = (&owner, msg.contains("because it is being terminated")) {
                            cx.event(owner, "Warning", "FailedCreate", &format!("Error creating job: {msg}"));
                        }
                        self.retry(&cj, cx);
                    }
                    _ => {}
                }
                if update {
                    self.write_status(&cj, then, cx);
                }
                self.release(&cj, cx);
            }
            Op::Delete { cj, job } => {
                let Some(owner) = self.written.newest(Kind::CronJob, &cj, cx) else { return };
                match error {
                    None => cx.event(&owner, "Normal", "SuccessfulDelete", &format!("Deleted job {job}")),
                    Some((404, _)) => {}
                    Some((_, msg)) => cx.event(&owner, "Warning", "FailedDelete", &format!("Deleted job: {msg}")),
                }
            }
            Op::Status { cj } => {
                match (error, result) {
                    (None, Ok(ApiResponse::Object(o))) => {
                        self.queue.forget(&cj);
                        self.written.insert(&cj, o.clone());
                    }
                    _ => self.retry(&cj, cx),
                }
                self.release(&cj, cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i64 {
        unix_ms(crate::sim::time::parse_rfc3339(text).expect("time"))
    }

    fn secs(text: &str) -> i64 {
        at(text) / 1000
    }

    #[test]
    fn the_most_recent_unmet_time_and_how_many_were_missed() {
        let every = cron::parse("*/1 * * * *").unwrap();
        let created = at("2025-09-01T00:00:03Z");
        assert_eq!(most_recent(created, at("2025-09-01T00:00:59Z"), &every, 0), Ok((None, Missed::None)));
        assert_eq!(
            most_recent(created, at("2025-09-01T00:01:00Z"), &every, 0),
            Ok((Some(secs("2025-09-01T00:01:00Z")), Missed::None))
        );
        assert_eq!(
            most_recent(created, at("2025-09-01T00:05:30Z"), &every, 0),
            Ok((Some(secs("2025-09-01T00:05:00Z")), Missed::Few))
        );
        assert_eq!(
            most_recent(created, at("2025-09-01T03:00:00Z"), &every, 0),
            Ok((Some(secs("2025-09-01T03:00:00Z")), Missed::Many))
        );
        let never = cron::parse("0 0 30 2 *").unwrap();
        assert_eq!(
            most_recent(created, at("2025-09-01T03:00:00Z"), &never, 0).unwrap_err(),
            "time difference between two schedules is less than 1 second"
        );
    }

    #[test]
    fn the_loop_wakes_100ms_after_the_next_time() {
        let hourly = cron::parse("@hourly").unwrap();
        let now = at("2025-09-01T05:20:00Z");
        assert_eq!(next_wake_ms(now, now, &hourly, 0), Some(40 * 60_000 + 100));
        // Missed times count from the most recent one.
        assert_eq!(next_wake_ms(at("2025-09-01T01:00:00Z"), now, &hourly, 0), Some(40 * 60_000 + 100));
        let every_ten = cron::parse("@every 10m").unwrap();
        assert_eq!(next_wake_ms(at("2025-09-01T05:15:00Z"), now, &every_ten, 0), Some(5 * 60_000 + 100));
    }

    #[test]
    fn jobs_are_named_by_their_minute_and_carry_the_scheduled_time() {
        let cj: CronJob = serde_yaml::from_str(
            "metadata: {name: hello, namespace: default, uid: u1}\nspec:\n  schedule: '*/1 * * * *'\n  jobTemplate:\n    metadata: {labels: {team: a}}\n    spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}\n",
        )
        .unwrap();
        let job = job_for(&cj, secs("2025-09-01T00:01:00Z"), 9 * 3600);
        assert_eq!(job.metadata.name.as_deref(), Some("hello-29278081"));
        let ann = job.metadata.annotations.unwrap();
        assert_eq!(ann[SCHEDULED_TIMESTAMP], "2025-09-01T09:01:00+09:00");
        assert_eq!(job.metadata.labels.unwrap()["team"], "a");
        let owner = &job.metadata.owner_references.unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.controller), ("CronJob", "hello", Some(true)));
    }
}
