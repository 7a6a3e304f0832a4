//! The Job controller: runs each Job's pods to completion. Watches: Jobs, Pods. Writes: Pods (created from
//! the template with `generateName: <job>-`, the `batch.kubernetes.io/job-tracking` finalizer and a controller
//! ownerReference; deleted when there are too many, when the Job is suspended or once it failed; finalizer
//! removed once a finished pod is counted, or when its Job is gone), Job status (`active`, `ready`,
//! `terminating`, `succeeded`, `failed`, `uncountedTerminatedPods`, `startTime`, `completionTime`,
//! `completedIndexes`, conditions `SuccessCriteriaMet` then `Complete`, `FailureTarget` then `Failed`,
//! `Suspended`), Events `SuccessfulCreate`/`FailedCreate`/`SuccessfulDelete` (as the pod control writes them),
//! `Completed`, `BackoffLimitExceeded`, `DeadlineExceeded`, `Suspended`/`Resumed`.
//! Counterpart: `pkg/controller/job/job_controller.go` (v1.34, `JobPodReplacementPolicy` and `JobManagedBy`
//! on, so terminal conditions wait for terminating pods).
//!
//! As the real loop, a finished pod is counted in two steps that survive a restart at any point: its uid is
//! first written to `status.uncountedTerminatedPods`, then its finalizer is removed, then the counter moves.
//! Pod events wake a Job after a 1 s batching delay, Job creations and spec changes at once. Replacements for
//! failed pods wait out [`backoff`]; `backoffLimit` counts failed pods (and container restarts with
//! `restartPolicy: OnFailure`); `activeDeadlineSeconds` runs from `startTime`.
//!
//! Pods are found through an index of controller ownerReferences kept from the pod watch, so a sync costs
//! the Job's own pods. Not simulated: `podFailurePolicy` and `successPolicy` rules, `backoffLimitPerIndex`,
//! adoption of orphan pods that match a Job's selector.

mod backoff;
mod indexed;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::batch::v1::{Job, JobCondition, JobStatus};
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

use crate::api::{ApiResponse, Kind, Object, ObjectMeta};
use crate::apiserver::registry::k8s_time;
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::owned::Owned;
use super::queue::{InFlight, Queue, Written};
use super::replicaset::{controller_ref, deletion_rank, owner_ref_to, ready_since, sim_time};
use super::{Controller, Cx};

pub use indexed::INDEX_KEY;

/// The finalizer that keeps a pod until its Job counted it.
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
/// The controller name a Job's `spec.managedBy` must hold (or leave empty) for this loop to act.
const MANAGED_BY: &str = "kubernetes.io/job-controller";
/// `syncJobBatchPeriod`: pod events and status changes wake a Job this much later.
const BATCH_MS: u64 = 1_000;
/// Retry delay after a failed write (`DefaultJobApiBackOff`, doubling to `MaxJobApiBackOff`).
const API_BACKOFF_MS: u64 = 1_000;
const API_BACKOFF_MAX_MS: u64 = 60_000;
/// `MaxUncountedPods`, `MaxPodCreateDeletePerSync`.
const MAX_UNCOUNTED: usize = 500;
const MAX_PER_SYNC: i32 = 500;

const COMPLETIONS_REACHED: (&str, &str) = ("CompletionsReached", "Reached expected number of succeeded pods");
const BACKOFF_LIMIT: (&str, &str) = ("BackoffLimitExceeded", "Job has reached the specified backoff limit");
const DEADLINE: (&str, &str) = ("DeadlineExceeded", "Job was active longer than specified deadline");

fn has_finalizer(meta: &ObjectMeta) -> bool {
    meta.finalizers.iter().flatten().any(|f| f == TRACKING_FINALIZER)
}

fn phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn uid(pod: &Pod) -> String {
    pod.metadata.uid.clone().unwrap_or_default()
}

fn key_of(meta: &ObjectMeta) -> String {
    format!("{}/{}", meta.namespace.as_deref().unwrap_or(""), meta.name.as_deref().unwrap_or(""))
}

/// `IsJobFinished`: a `Complete` or `Failed` condition that is true.
pub fn finished(job: &Job) -> Option<&JobCondition> {
    job.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")
}

fn condition<'a>(job: &'a Job, type_: &str) -> Option<&'a JobCondition> {
    job.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == type_)
}

fn new_condition(type_: &str, status: &str, reason: &str, message: &str, now: SimTime) -> JobCondition {
    JobCondition {
        type_: type_.into(),
        status: status.into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_probe_time: Some(k8s_time(now)),
        last_transition_time: Some(k8s_time(now)),
    }
}

/// `ensureJobConditionStatus`: sets a condition, or adds it unless it would be added as False.
fn ensure_condition(list: &mut Vec<JobCondition>, c: JobCondition) -> bool {
    match list.iter_mut().find(|x| x.type_ == c.type_) {
        Some(x) if x.status != c.status || x.reason != c.reason || x.message != c.message => {
            *x = c;
            true
        }
        Some(_) => false,
        None if c.status != "False" => {
            list.push(c);
            true
        }
        None => false,
    }
}

fn is_ready(pod: &Pod) -> bool {
    ready_since(pod).is_some()
}

/// Not being deleted and not finished: a pod that counts as active.
fn is_active(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none() && !matches!(phase(pod), "Succeeded" | "Failed")
}

fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some() && !matches!(phase(pod), "Succeeded" | "Failed")
}

/// Only failed pods are replaced (`podReplacementPolicy: Failed`, or any pod failure policy).
fn only_replace_failed(job: &Job) -> bool {
    let spec = job.spec.as_ref();
    spec.and_then(|s| s.pod_replacement_policy.as_deref()) == Some("Failed")
        || spec.is_some_and(|s| s.pod_failure_policy.is_some())
}

/// `isPodFailed`: failed, or (unless only failed pods are replaced) deleted before it succeeded.
fn is_failed(pod: &Pod, job: &Job) -> bool {
    if phase(pod) == "Failed" {
        return true;
    }
    !only_replace_failed(job) && pod.metadata.deletion_timestamp.is_some() && phase(pod) != "Succeeded"
}

fn suspended(job: &Job) -> bool {
    job.spec.as_ref().and_then(|s| s.suspend) == Some(true)
}

fn indexed(job: &Job) -> bool {
    job.spec.as_ref().and_then(|s| s.completion_mode.as_deref()) == Some("Indexed")
}

/// `pastBackoffLimitOnFailure`: with `restartPolicy: OnFailure`, container restarts of running and pending
/// pods count against the limit.
fn past_backoff_limit_on_failure(job: &Job, pods: &[&Pod], limit: i32) -> bool {
    let template = job.spec.as_ref().and_then(|s| s.template.spec.as_ref());
    if template.and_then(|s| s.restart_policy.as_deref()) != Some("OnFailure") {
        return false;
    }
    let restarts: i64 = pods
        .iter()
        .filter(|p| matches!(phase(p), "Running" | "Pending"))
        .filter_map(|p| p.status.as_ref())
        .flat_map(|s| s.init_container_statuses.iter().flatten().chain(s.container_statuses.iter().flatten()))
        .map(|c| i64::from(c.restart_count))
        .sum();
    if limit == 0 {
        restarts > 0
    } else {
        restarts >= i64::from(limit)
    }
}

/// A Job's pod from its template, as `manageJob` builds it.
fn pod_for(job: &Job, index: Option<i32>) -> Pod {
    let name = job.metadata.name.clone().unwrap_or_default();
    let mut template = job.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
    let generate_name = match index {
        Some(i) => {
            indexed::stamp(&mut template, &name, i);
            indexed::generate_name(&name, i)
        }
        None => format!("{name}-"),
    };
    let tmeta = template.metadata.unwrap_or_default();
    let mut finalizers = tmeta.finalizers.unwrap_or_default();
    if !finalizers.iter().any(|f| f == TRACKING_FINALIZER) {
        finalizers.push(TRACKING_FINALIZER.into());
    }
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(generate_name),
            namespace: job.metadata.namespace.clone(),
            labels: tmeta.labels,
            annotations: tmeta.annotations,
            finalizers: Some(finalizers),
            owner_references: Some(vec![owner_ref_to(&job.metadata, "batch/v1", "Job")]),
            ..ObjectMeta::default()
        },
        spec: template.spec,
        status: None,
    }
}

/// Pods this loop expects to see created or deleted before it trusts its cache again.
#[derive(Debug, Default, Clone, Copy)]
struct Expectations {
    adds: i64,
    dels: i64,
}

/// A slow-start creation in progress: the batch in flight, what is still to create after it.
#[derive(Debug, Default)]
struct Creating {
    in_flight: u32,
    remaining: Vec<Option<i32>>,
    batch: usize,
    failed: bool,
}

#[derive(Debug)]
enum Op {
    Create {
        job: String,
    },
    Delete {
        job: String,
        pod: String,
        uid: String,
    },
    /// A status write; on success the backoff record is kept and, if it finished the Job, its event recorded.
    Status {
        job: String,
        backoff: backoff::Record,
        finished: Option<JobCondition>,
    },
    /// `held`: the Job's next sync waits for this answer.
    RemoveFinalizer {
        job: Option<String>,
        uid: String,
        pod: String,
        held: bool,
    },
}

#[derive(Debug, Default)]
pub struct JobController {
    /// Job key → keys of the pods whose controller ownerReference names it.
    pods: Owned,
    expectations: BTreeMap<String, Expectations>,
    /// Pod uids whose deletion this loop asked for and has not seen yet.
    deleting: BTreeMap<String, BTreeSet<String>>,
    /// Pod uids whose finalizer removal was sent (`finalizerExpectations`).
    removing: BTreeMap<String, BTreeSet<String>>,
    creating: BTreeMap<String, Creating>,
    backoff: BTreeMap<String, backoff::Record>,
    queue: Queue,
    /// Status writes and finalizer patches in flight per Job: its next sync waits for them.
    in_flight: InFlight,
    written: Written,
    pending: BTreeMap<u64, Op>,
    /// Orphan pods (by key) whose finalizer removal is in flight.
    orphans: BTreeSet<String>,
    /// Pod uids with a delete sent and not yet seen: never deleted twice.
    doomed: BTreeSet<String>,
    next: u64,
}

impl JobController {
    fn tag(&mut self, op: Op) -> u64 {
        self.next += 1;
        self.pending.insert(self.next, op);
        self.next
    }

    /// A write for `key` answered; once none is left the Job syncs again at once (the rest of the real
    /// loop's synchronous sync).
    fn release(&mut self, key: &str, cx: &mut Cx) {
        if self.in_flight.release(key).is_some() {
            self.sync(key, cx);
        }
    }

    fn retry(&mut self, key: &str, cx: &mut Cx) {
        self.queue.add_rate_limited(key, API_BACKOFF_MS, API_BACKOFF_MAX_MS, cx);
    }

    fn forget(&mut self, key: &str) {
        self.expectations.remove(key);
        self.deleting.remove(key);
        self.removing.remove(key);
        self.creating.remove(key);
        self.backoff.remove(key);
        self.queue.forget(key);
        self.written.remove(key);
    }

    /// The Job `pod` belongs to, if its controller ownerReference names a Job.
    fn job_key_of(pod: &Pod) -> Option<String> {
        let r = controller_ref(&pod.metadata).filter(|r| r.kind == "Job" && r.api_version == "batch/v1")?;
        Some(format!("{}/{}", pod.metadata.namespace.as_deref().unwrap_or(""), r.name))
    }

    /// The live Job a pod's ownerReference resolves to (same name and uid).
    fn owner(pod: &Pod, cx: &Cx) -> Option<Arc<Object>> {
        let r = controller_ref(&pod.metadata)?;
        let key = Self::job_key_of(pod)?;
        cx.get(Kind::Job, &key).filter(|j| j.meta().uid.as_deref() == Some(r.uid.as_str()))
    }

    /// Removes the tracking finalizer from a pod no unfinished Job of this loop owns (`syncOrphanPod`).
    fn release_orphan(&mut self, pod: &Pod, cx: &mut Cx) {
        if !has_finalizer(&pod.metadata) {
            return;
        }
        if let Some(r) = controller_ref(&pod.metadata) {
            if r.kind != "Job" || r.api_version != "batch/v1" {
                return;
            }
            let alive = Self::owner(pod, cx).is_some_and(|o| match o.as_ref() {
                Object::Job(j) => finished(j).is_none(),
                _ => false,
            });
            if alive {
                return;
            }
        }
        let key = key_of(&pod.metadata);
        if !self.orphans.insert(key.clone()) {
            return;
        }
        let tag = self.tag(Op::RemoveFinalizer { job: None, uid: uid(pod), pod: key, held: false });
        cx.patch(&Object::Pod(Box::new(pod.clone())), None, remove_finalizer_patch(), tag);
    }

    fn observe_pod(&mut self, pod: &Pod, added: bool, gone: bool, cx: &mut Cx) {
        let Some(key) = Self::job_key_of(pod) else {
            self.release_orphan(pod, cx);
            return;
        };
        let pod_key = key_of(&pod.metadata);
        self.pods.set(&key, &pod_key, !gone);
        let id = uid(pod);
        if added && pod.metadata.deletion_timestamp.is_none() {
            if let Some(e) = self.expectations.get_mut(&key) {
                e.adds -= 1;
            }
        }
        if gone || pod.metadata.deletion_timestamp.is_some() {
            self.doomed.remove(&id);
            if self.deleting.get_mut(&key).is_some_and(|s| s.remove(&id)) {
                if let Some(e) = self.expectations.get_mut(&key) {
                    e.dels -= 1;
                }
            }
        }
        if gone || !has_finalizer(&pod.metadata) {
            if let Some(s) = self.removing.get_mut(&key) {
                s.remove(&id);
            }
        }
        let owned = Self::owner(pod, cx);
        match owned.as_deref() {
            Some(Object::Job(j)) if finished(j).is_none() => self.queue.add_after(&key, BATCH_MS, cx),
            _ if !gone => self.release_orphan(pod, cx),
            _ => {}
        }
    }

    /// The pods of a Job, from the index.
    fn pods_of(&self, key: &str, cx: &Cx) -> Vec<Arc<Object>> {
        self.pods.cached(key, Kind::Pod, cx)
    }

    fn sync(&mut self, key: &str, cx: &mut Cx) {
        if self.in_flight.defer(key) {
            return;
        }
        let Some(obj) = self.written.newest(Kind::Job, key, cx) else {
            self.forget(key);
            return;
        };
        let Object::Job(job) = obj.as_ref() else { return };
        if job.spec.as_ref().and_then(|s| s.managed_by.as_deref()).is_some_and(|m| m != MANAGED_BY) {
            return;
        }
        if finished(job).is_some() {
            self.backoff.remove(key);
            return;
        }
        let Some(spec) = job.spec.clone() else { return };
        let mode = spec.completion_mode.as_deref().unwrap_or("NonIndexed");
        if mode != "NonIndexed" && mode != "Indexed" {
            cx.event(&obj, "Warning", "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown");
            return;
        }
        let now = cx.now;
        let mut status = job.status.clone().unwrap_or_default();
        let uncounted = status.uncounted_terminated_pods.clone().unwrap_or_default();
        let uncounted_ok: BTreeSet<String> = uncounted.succeeded.iter().flatten().cloned().collect();
        let uncounted_failed: BTreeSet<String> = uncounted.failed.iter().flatten().cloned().collect();
        let exp = self.expectations.get(key).copied().unwrap_or_default();
        let satisfied = exp.adds <= 0 && exp.dels <= 0 && !self.creating.contains_key(key);
        let expected_rm = self.removing.get(key).cloned().unwrap_or_default();

        let pod_objs = self.pods_of(key, cx);
        let pods: Vec<&Pod> = pod_objs
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::Pod(p) => Some(&**p),
                _ => None,
            })
            .collect();
        let active_pods: Vec<&Pod> = pods.iter().copied().filter(|p| is_active(p)).collect();
        let mut ready = active_pods.iter().filter(|p| is_ready(p)).count() as i32;
        let mut terminating = pods.iter().filter(|p| is_terminating(p)).count() as i32;
        let completions = spec.completions;
        let index_ok =
            |p: &Pod| !indexed(job) || indexed::completion_index(p).is_some_and(|i| i < completions.unwrap_or(0));
        let countable = |p: &&Pod| has_finalizer(&p.metadata) && !expected_rm.contains(&uid(p)) && index_ok(p);
        let new_ok: Vec<&Pod> = pods
            .iter()
            .copied()
            .filter(countable)
            .filter(|p| !uncounted_ok.contains(&uid(p)) && phase(p) == "Succeeded")
            .collect();
        let new_failed: Vec<&Pod> = pods
            .iter()
            .copied()
            .filter(countable)
            .filter(|p| !uncounted_failed.contains(&uid(p)) && is_failed(p, job))
            .collect();
        let mut succeeded = status.succeeded.unwrap_or(0).saturating_add((new_ok.len() + uncounted_ok.len()) as i32);
        let failed = status.failed.unwrap_or(0).saturating_add((new_failed.len() + uncounted_failed.len()) as i32);
        let start_missing = status.start_time.is_none() && !suspended(job);
        if start_missing {
            status.start_time = Some(k8s_time(now));
        }
        let started = sim_time(status.start_time.as_ref());
        let new_backoff = self.backoff.get(key).copied().unwrap_or_default().after(&new_ok, &new_failed);

        // The finishing condition, as `syncJob` decides it.
        let limit = spec.backoff_limit.unwrap_or(6);
        let mut finishing: Option<JobCondition> = None;
        if let Some(c) = condition(job, "SuccessCriteriaMet").filter(|c| c.status == "True") {
            finishing = Some(c.clone());
        } else if let Some(c) = condition(job, "FailureTarget").filter(|c| c.status == "True") {
            let reason = c.reason.clone().unwrap_or_default();
            finishing = Some(new_condition("Failed", "True", &reason, c.message.as_deref().unwrap_or(""), now));
        }
        let deadline = spec.active_deadline_seconds.filter(|_| !suspended(job));
        if finishing.is_none() {
            let past_deadline =
                deadline.zip(started).is_some_and(|(d, s)| now.since(s) >= (d.max(0) as u64).saturating_mul(1000));
            if failed > limit || past_backoff_limit_on_failure(job, &pods, limit) {
                finishing = Some(new_condition("FailureTarget", "True", BACKOFF_LIMIT.0, BACKOFF_LIMIT.1, now));
            } else if past_deadline {
                finishing = Some(new_condition("FailureTarget", "True", DEADLINE.0, DEADLINE.1, now));
            } else if let (Some(d), Some(s)) = (deadline, started) {
                let end = s.plus_ms((d.max(0) as u64).saturating_mul(1000));
                self.queue.add_after(key, end.since(now), cx);
            }
        }
        let mut succeeded_indexes = BTreeSet::new();
        let mut prev_indexes = BTreeSet::new();
        if indexed(job) {
            let completions = completions.unwrap_or(0);
            prev_indexes = indexed::parse(status.completed_indexes.as_deref().unwrap_or(""), completions);
            succeeded_indexes = prev_indexes.clone();
            for p in &pods {
                if phase(p) == "Succeeded" && has_finalizer(&p.metadata) {
                    if let Some(i) = indexed::completion_index(p).filter(|i| *i < completions) {
                        succeeded_indexes.insert(i);
                    }
                }
            }
            succeeded = succeeded_indexes.len() as i32;
        }

        let mut active = active_pods.len() as i32;
        let mut suspend_changed = false;
        let mut conditions = status.conditions.clone().unwrap_or_default();
        if finishing.is_some() {
            let deleted_ready = active_pods.iter().filter(|p| is_ready(p)).count() as i32;
            for p in &active_pods {
                self.delete_pod(key, p, false, cx);
            }
            if !satisfied {
                // Pods may still be on their way into the cache: not finished yet.
                finishing = None;
            }
            terminating += active;
            ready -= deleted_ready;
            active = 0;
        } else {
            let mut managed = false;
            if satisfied && job.metadata.deletion_timestamp.is_none() {
                let ctx =
                    Manage { succeeded, terminating, backoff: new_backoff, succeeded_indexes: &succeeded_indexes };
                let (a, removed, removed_ready) = self.manage(key, job, &active_pods, ctx, cx);
                active = a;
                terminating += removed;
                ready -= removed_ready;
                managed = true;
            } else {
                // Creations and deletions still on their way count as done.
                active += (exp.adds.max(0) - exp.dels.max(0)) as i32;
            }
            let complete = match completions {
                None => succeeded > 0 && active == 0,
                Some(c) => succeeded >= c && active == 0,
            };
            if complete {
                finishing = Some(new_condition(
                    "SuccessCriteriaMet",
                    "True",
                    COMPLETIONS_REACHED.0,
                    COMPLETIONS_REACHED.1,
                    now,
                ));
            } else if managed {
                let (cond, event) = if suspended(job) {
                    (
                        new_condition("Suspended", "True", "JobSuspended", "Job suspended", now),
                        ("Suspended", "Job suspended"),
                    )
                } else {
                    (new_condition("Suspended", "False", "JobResumed", "Job resumed", now), ("Resumed", "Job resumed"))
                };
                if ensure_condition(&mut conditions, cond) {
                    suspend_changed = true;
                    cx.event(&obj, "Normal", event.0, event.1);
                    if !suspended(job) {
                        // A resumed Job's deadline runs from now.
                        status.start_time = Some(k8s_time(now));
                    }
                }
            }
        }
        let opt = |n: i32| (n != 0).then_some(n);
        let needs_update = suspend_changed
            || start_missing
            || opt(active) != status.active
            || Some(ready) != status.ready
            || Some(terminating) != status.terminating;
        status.active = opt(active);
        status.ready = Some(ready);
        status.terminating = Some(terminating);
        status.conditions = (!conditions.is_empty()).then_some(conditions);
        let track = Track {
            pods: &pods,
            expected_rm: &expected_rm,
            finishing,
            needs_flush: needs_update,
            new_backoff,
            prev_indexes: &prev_indexes,
            succeeded_indexes,
            terminating,
        };
        self.track(key, job, status, track, cx);
    }

    /// `manageJob`: deletes surplus pods or creates missing ones (after the failure backoff). Returns the
    /// active count, pods removed and ready pods removed.
    fn manage(&mut self, key: &str, job: &Job, active_pods: &[&Pod], m: Manage, cx: &mut Cx) -> (i32, i32, i32) {
        let spec = job.spec.clone().unwrap_or_default();
        let active = active_pods.len() as i32;
        if suspended(job) {
            let removed_ready = active_pods.iter().filter(|p| is_ready(p)).count() as i32;
            self.remove_pods(key, active_pods.to_vec(), cx);
            return (0, active, removed_ready);
        }
        let parallelism = spec.parallelism.unwrap_or(1).max(0);
        let want = match spec.completions {
            None if m.succeeded > 0 => active,
            None => parallelism,
            Some(c) => c.saturating_sub(m.succeeded).min(parallelism).max(0),
        };
        let mut victims: Vec<&Pod> = Vec::new();
        if indexed(job) {
            // Pods with a duplicated or out-of-range index go first.
            let completions = spec.completions.unwrap_or(0);
            let mut seen = BTreeSet::new();
            let mut ranked = active_pods.to_vec();
            ranked.sort_by_key(|p| deletion_rank(p));
            ranked.reverse();
            for p in ranked {
                match indexed::completion_index(p).filter(|i| *i < completions) {
                    Some(i) if seen.insert(i) => {}
                    _ => victims.push(p),
                }
            }
        }
        let rm_at_least = active.saturating_sub(want).max(0) as usize;
        if victims.len() < rm_at_least {
            let mut left: Vec<&Pod> =
                active_pods.iter().copied().filter(|p| !victims.iter().any(|v| uid(v) == uid(p))).collect();
            left.sort_by_key(|p| deletion_rank(p));
            let more = rm_at_least - victims.len();
            victims.extend(left.into_iter().take(more));
        }
        victims.truncate(MAX_PER_SYNC as usize);
        if !victims.is_empty() {
            let removed = victims.len() as i32;
            let removed_ready = victims.iter().filter(|p| is_ready(p)).count() as i32;
            self.remove_pods(key, victims, cx);
            return (active - removed, removed, removed_ready);
        }
        let terminating = if only_replace_failed(job) { m.terminating } else { 0 };
        let diff = want.saturating_sub(terminating).saturating_sub(active);
        if diff <= 0 {
            return (active, 0, 0);
        }
        let remaining = m.backoff.remaining_ms(cx.now);
        if remaining > 0 {
            self.queue.add_after(key, remaining.max(BATCH_MS), cx);
            // As the real loop does, the status then reports no active pods until the replacements start.
            return (0, 0, 0);
        }
        let diff = diff.min(MAX_PER_SYNC);
        let slots: Vec<Option<i32>> = if indexed(job) {
            let held: BTreeSet<i32> = active_pods.iter().filter_map(|p| indexed::completion_index(p)).collect();
            let completions = spec.completions.unwrap_or(0);
            indexed::first_pending(m.succeeded_indexes, &held, diff as usize, completions)
                .into_iter()
                .map(Some)
                .collect()
        } else {
            vec![None; diff as usize]
        };
        let n = slots.len() as i32;
        self.expectations.insert(key.to_string(), Expectations { adds: i64::from(n), dels: 0 });
        self.creating.insert(key.to_string(), Creating { in_flight: 0, remaining: slots, batch: 0, failed: false });
        self.create_batch(key, job, cx);
        (active + n, 0, 0)
    }

    /// Sends the next slow-start batch (1, 2, 4, … pods) of a creation in progress.
    fn create_batch(&mut self, key: &str, job: &Job, cx: &mut Cx) {
        let Some(c) = self.creating.get_mut(key) else { return };
        if c.in_flight > 0 {
            return;
        }
        if c.remaining.is_empty() || c.failed {
            // After a failure the rest are not attempted: they will never be observed.
            let skipped = c.remaining.len() as i64;
            self.creating.remove(key);
            if let Some(e) = self.expectations.get_mut(key) {
                e.adds -= skipped;
            }
            return;
        }
        c.batch = if c.batch == 0 { 1 } else { c.batch * 2 }.min(c.remaining.len());
        let batch: Vec<Option<i32>> = c.remaining.drain(..c.batch).collect();
        c.in_flight = batch.len() as u32;
        for index in batch {
            let tag = self.tag(Op::Create { job: key.to_string() });
            cx.create(Object::Pod(Box::new(pod_for(job, index))), tag);
        }
    }

    /// `deleteJobPods`: drops the finalizer (the pod is not counted), then deletes.
    fn remove_pods(&mut self, key: &str, pods: Vec<&Pod>, cx: &mut Cx) {
        self.expectations.insert(key.to_string(), Expectations { adds: 0, dels: pods.len() as i64 });
        for p in pods {
            if has_finalizer(&p.metadata) {
                self.removing.entry(key.to_string()).or_default().insert(uid(p));
                let op = Op::RemoveFinalizer {
                    job: Some(key.to_string()),
                    uid: uid(p),
                    pod: key_of(&p.metadata),
                    held: false,
                };
                let tag = self.tag(op);
                cx.patch(&Object::Pod(Box::new(p.clone())), None, remove_finalizer_patch(), tag);
            }
            self.delete_pod(key, p, true, cx);
        }
    }

    fn delete_pod(&mut self, key: &str, pod: &Pod, expected: bool, cx: &mut Cx) {
        let id = uid(pod);
        if !self.doomed.insert(id.clone()) {
            return;
        }
        if expected {
            self.deleting.entry(key.to_string()).or_default().insert(id.clone());
        }
        let op = Op::Delete { job: key.to_string(), pod: pod.metadata.name.clone().unwrap_or_default(), uid: id };
        let tag = self.tag(op);
        cx.delete(&Object::Pod(Box::new(pod.clone())), None, None, tag);
    }

    /// `trackJobStatusAndRemoveFinalizers`, one write at a time: first the newly finished pods' uids (and an
    /// interim condition) go into the status, then their finalizers come off, then the counters move and,
    /// once nothing is uncounted or terminating, the terminal condition is written.
    fn track(&mut self, key: &str, job: &Job, mut status: JobStatus, t: Track, cx: &mut Cx) {
        let now = cx.now;
        let is_indexed = indexed(job);
        let completions = job.spec.as_ref().and_then(|s| s.completions).unwrap_or(0);
        let with_finalizer: BTreeSet<String> = t
            .pods
            .iter()
            .filter(|p| has_finalizer(&p.metadata) && !t.expected_rm.contains(&uid(p)))
            .map(|p| uid(p))
            .collect();
        let mut needs_flush = t.needs_flush;
        let mut uncounted = status.uncounted_terminated_pods.clone().unwrap_or_default();
        // Uncounted pods whose finalizer is gone are counted now.
        let (ok, failed) =
            (uncounted.succeeded.take().unwrap_or_default(), uncounted.failed.take().unwrap_or_default());
        let (ok_left, ok_done): (Vec<String>, Vec<String>) = ok.into_iter().partition(|u| with_finalizer.contains(u));
        let (failed_left, failed_done): (Vec<String>, Vec<String>) =
            failed.into_iter().partition(|u| with_finalizer.contains(u));
        if !ok_done.is_empty() || !failed_done.is_empty() {
            needs_flush = true;
            status.succeeded =
                Some(status.succeeded.unwrap_or(0).saturating_add(ok_done.len() as i32)).filter(|n| *n != 0);
            status.failed =
                Some(status.failed.unwrap_or(0).saturating_add(failed_done.len() as i32)).filter(|n| *n != 0);
        }
        let mut ok_now = ok_left;
        let mut failed_now = failed_left;
        let mut to_release: Vec<&Pod> = Vec::new();
        let mut new_indexes: Vec<i32> = Vec::new();
        let mut reached_max = false;
        let failing = t.finishing.as_ref().is_some_and(|c| c.type_ != "SuccessCriteriaMet");
        for p in t.pods {
            let id = uid(p);
            if !has_finalizer(&p.metadata) || t.expected_rm.contains(&id) {
                continue;
            }
            let consider_failed = is_failed(p, job);
            let can_release = job.metadata.deletion_timestamp.is_some()
                || t.finishing.is_some()
                || phase(p) == "Succeeded"
                || consider_failed;
            if !can_release {
                continue;
            }
            to_release.push(p);
            let index = indexed::completion_index(p);
            if phase(p) == "Succeeded" && !failed_now.contains(&id) {
                if is_indexed {
                    if let Some(i) = index.filter(|i| *i < completions && !t.prev_indexes.contains(i)) {
                        new_indexes.push(i);
                        needs_flush = true;
                    }
                } else if !ok_now.contains(&id) {
                    needs_flush = true;
                    ok_now.push(id);
                }
            } else if (consider_failed || failing)
                && !failed_now.contains(&id)
                && (!is_indexed || index.is_some_and(|i| i < completions))
            {
                needs_flush = true;
                failed_now.push(id);
            }
            if new_indexes.len() + ok_now.len() + failed_now.len() >= MAX_UNCOUNTED {
                reached_max = true;
                break;
            }
        }
        if is_indexed {
            let mut all = t.succeeded_indexes.clone();
            all.extend(new_indexes);
            let text = indexed::format(&all);
            if status.completed_indexes.as_deref().unwrap_or("") != text {
                needs_flush = true;
            }
            status.succeeded = Some(all.len() as i32).filter(|n| *n != 0);
            status.completed_indexes = (!text.is_empty()).then_some(text);
        }
        uncounted.succeeded = (!ok_now.is_empty()).then_some(ok_now);
        uncounted.failed = (!failed_now.is_empty()).then_some(failed_now);
        status.uncounted_terminated_pods = Some(uncounted);

        let mut finishing = t.finishing;
        let mut conditions = status.conditions.take().unwrap_or_default();
        if let Some(c) = finishing.clone() {
            if c.type_ == "FailureTarget" {
                let (reason, message) = (c.reason.clone().unwrap_or_default(), c.message.clone().unwrap_or_default());
                conditions.push(c);
                needs_flush = true;
                finishing = Some(new_condition("Failed", "True", &reason, &message, now));
            } else if c.type_ == "SuccessCriteriaMet" {
                if !conditions.iter().any(|x| x.type_ == "SuccessCriteriaMet") {
                    conditions.push(c.clone());
                    needs_flush = true;
                }
                let (reason, message) = (c.reason.clone().unwrap_or_default(), c.message.clone().unwrap_or_default());
                finishing = Some(new_condition("Complete", "True", &reason, &message, now));
            }
        }

        // The uids are recorded before any finalizer comes off.
        if needs_flush && !to_release.is_empty() {
            status.conditions = (!conditions.is_empty()).then_some(conditions);
            self.write_status(key, job, status, t.new_backoff, None, cx);
            return;
        }
        if !to_release.is_empty() {
            let removing = self.removing.entry(key.to_string()).or_default();
            for p in &to_release {
                removing.insert(uid(p));
            }
            for p in to_release {
                self.in_flight.hold(key);
                let op = Op::RemoveFinalizer {
                    job: Some(key.to_string()),
                    uid: uid(p),
                    pod: key_of(&p.metadata),
                    held: true,
                };
                let tag = self.tag(op);
                cx.patch(&Object::Pod(Box::new(p.clone())), None, remove_finalizer_patch(), tag);
            }
            return;
        }
        // `enactJobFinished`: nothing uncounted or terminating is left.
        let nothing_uncounted =
            status.uncounted_terminated_pods.as_ref().is_none_or(|u| u.succeeded.is_none() && u.failed.is_none());
        let mut done = None;
        if let Some(c) = finishing.filter(|_| !reached_max && nothing_uncounted && t.terminating == 0) {
            ensure_condition(&mut conditions, c.clone());
            if c.type_ == "Complete" {
                status.completion_time = c.last_transition_time.clone();
            }
            done = Some(c);
            needs_flush = true;
        }
        status.conditions = (!conditions.is_empty()).then_some(conditions);
        if needs_flush {
            self.write_status(key, job, status, t.new_backoff, done, cx);
        }
    }

    fn write_status(
        &mut self,
        key: &str,
        job: &Job,
        status: JobStatus,
        backoff: backoff::Record,
        finished: Option<JobCondition>,
        cx: &mut Cx,
    ) {
        let mut updated = job.clone();
        updated.status = Some(status);
        self.in_flight.hold(key);
        let tag = self.tag(Op::Status { job: key.to_string(), backoff, finished });
        cx.update_status(Object::Job(Box::new(updated)), tag);
    }

    /// `recordJobFinished`: the Job's terminal event.
    fn record_finished(&mut self, job: &Arc<Object>, c: &JobCondition, cx: &mut Cx) {
        let Object::Job(j) = job.as_ref() else { return };
        if c.type_ == "Complete" {
            let completions = j.spec.as_ref().and_then(|s| s.completions);
            let succeeded = j.status.as_ref().and_then(|s| s.succeeded).unwrap_or(0);
            if completions.is_some_and(|n| succeeded > n) {
                let msg = "Too many succeeded pods running after completion count reached";
                cx.event(job, "Warning", "TooManySucceededPods", msg);
            }
            cx.event(job, "Normal", "Completed", "Job completed");
        } else {
            let reason = c.reason.clone().unwrap_or_default();
            cx.event(job, "Warning", &reason, c.message.as_deref().unwrap_or(""));
        }
    }

    /// Pods of a finished or deleted Job that still carry the finalizer lose it (`cleanupPodFinalizers`).
    fn cleanup_finalizers(&mut self, key: &str, cx: &mut Cx) {
        for o in self.pods_of(key, cx) {
            if let Object::Pod(p) = o.as_ref() {
                self.release_orphan(p, cx);
            }
        }
    }
}

struct Manage<'a> {
    succeeded: i32,
    terminating: i32,
    backoff: backoff::Record,
    succeeded_indexes: &'a BTreeSet<i32>,
}

struct Track<'a> {
    pods: &'a [&'a Pod],
    expected_rm: &'a BTreeSet<String>,
    finishing: Option<JobCondition>,
    needs_flush: bool,
    new_backoff: backoff::Record,
    prev_indexes: &'a BTreeSet<i32>,
    succeeded_indexes: BTreeSet<i32>,
    terminating: i32,
}

fn remove_finalizer_patch() -> serde_json::Value {
    json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}})
}

fn error_of(result: &Result<ApiResponse, ClientError>) -> Option<String> {
    match result {
        Ok(ApiResponse::Error(s)) => Some(s.message.clone()),
        Ok(_) => None,
        Err(e) => Some(format!("{e:?}")),
    }
}

fn not_found(result: &Result<ApiResponse, ClientError>) -> bool {
    matches!(result, Ok(ApiResponse::Error(s)) if s.code == 404)
}

impl Controller for JobController {
    fn name(&self) -> &'static str {
        "job-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Job, Kind::Pod]
    }

    fn on_start(&mut self) {
        *self = JobController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.pods.clear();
        for o in cx.list(Kind::Pod) {
            if let Object::Pod(p) = o.as_ref() {
                if let Some(key) = Self::job_key_of(p) {
                    self.pods.set(&key, &o.ns_name(), true);
                } else if has_finalizer(&p.metadata) {
                    self.release_orphan(p, cx);
                }
            }
        }
        for j in cx.list(Kind::Job) {
            let key = j.ns_name();
            if let Object::Job(job) = j.as_ref() {
                if finished(job).is_some() {
                    self.cleanup_finalizers(&key, cx);
                }
            }
            self.sync(&key, cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::Job, Change::Added(o)) => self.sync(&o.ns_name(), cx),
            (Kind::Job, Change::Modified { old, new }) => {
                let key = new.ns_name();
                let (Object::Job(a), Object::Job(b)) = (old.as_ref(), new.as_ref()) else { return };
                if finished(b).is_some() {
                    self.cleanup_finalizers(&key, cx);
                }
                if a.metadata.generation == b.metadata.generation {
                    self.queue.add_after(&key, BATCH_MS, cx);
                } else {
                    self.sync(&key, cx);
                }
            }
            (Kind::Job, Change::Deleted(o)) => {
                let key = o.ns_name();
                self.forget(&key);
                self.cleanup_finalizers(&key, cx);
            }
            (Kind::Pod, Change::Added(o)) => {
                if let Object::Pod(p) = o.as_ref() {
                    self.observe_pod(p, true, false, cx);
                }
            }
            (Kind::Pod, Change::Modified { old, new }) => {
                let (Object::Pod(a), Object::Pod(b)) = (old.as_ref(), new.as_ref()) else { return };
                let (before, after) = (Self::job_key_of(a), Self::job_key_of(b));
                if before.is_some() && before != after {
                    // The controller reference changed: the old Job loses the pod.
                    self.observe_pod(a, false, true, cx);
                }
                self.observe_pod(b, false, false, cx);
            }
            (Kind::Pod, Change::Deleted(o)) => {
                if let Object::Pod(p) = o.as_ref() {
                    self.observe_pod(p, false, true, cx);
                }
            }
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
        let error = error_of(result);
        match op {
            Op::Create { job } => {
                let owner = self.written.newest(Kind::Job, &job, cx);
                match (&error, result) {
                    (None, Ok(ApiResponse::Object(pod))) => {
                        if let Some(owner) = &owner {
                            cx.event(owner, "Normal", "SuccessfulCreate", &format!("Created pod: {}", pod.name()));
                        }
                    }
                    (err, _) => {
                        if let Some(e) = self.expectations.get_mut(&job) {
                            e.adds -= 1;
                        }
                        if let Some(c) = self.creating.get_mut(&job) {
                            c.failed = true;
                        }
                        let msg = err.clone().unwrap_or_default();
                        let terminating_ns = msg.contains("because it is being terminated");
                        if let (Some(owner), false) = (&owner, terminating_ns) {
                            cx.event(owner, "Warning", "FailedCreate", &format!("Error creating: {msg}"));
                        }
                        self.retry(&job, cx);
                    }
                }
                if let Some(c) = self.creating.get_mut(&job) {
                    c.in_flight = c.in_flight.saturating_sub(1);
                }
                if let Some(Object::Job(j)) = owner.as_deref() {
                    let j = j.clone();
                    self.create_batch(&job, &j, cx);
                } else {
                    self.creating.remove(&job);
                }
            }
            Op::Delete { job, pod, uid } => {
                let owner = self.written.newest(Kind::Job, &job, cx);
                match error {
                    None => {
                        if let Some(owner) = owner {
                            cx.event(&owner, "Normal", "SuccessfulDelete", &format!("Deleted pod: {pod}"));
                        }
                    }
                    Some(msg) => {
                        self.doomed.remove(&uid);
                        if self.deleting.get_mut(&job).is_some_and(|s| s.remove(&uid)) {
                            if let Some(e) = self.expectations.get_mut(&job) {
                                e.dels -= 1;
                            }
                        }
                        if !not_found(result) {
                            if let Some(owner) = owner {
                                cx.event(&owner, "Warning", "FailedDelete", &format!("Error deleting: {msg}"));
                            }
                            self.retry(&job, cx);
                        }
                    }
                }
            }
            Op::Status { job, backoff, finished } => {
                match (error, result) {
                    (None, Ok(ApiResponse::Object(o))) => {
                        self.queue.forget(&job);
                        self.backoff.insert(job.clone(), backoff);
                        self.written.insert(&job, o.clone());
                        if let Some(c) = finished {
                            self.record_finished(o, &c, cx);
                        }
                    }
                    _ => self.retry(&job, cx),
                }
                self.release(&job, cx);
            }
            Op::RemoveFinalizer { job, uid, pod, held } => {
                self.orphans.remove(&pod);
                if error.is_some() && !not_found(result) {
                    if let Some(j) = &job {
                        if let Some(s) = self.removing.get_mut(j) {
                            s.remove(&uid);
                        }
                        self.retry(j, cx);
                    }
                }
                if let (Some(j), true) = (job, held) {
                    self.release(&j, cx);
                }
            }
        }
    }
}
