//! The TTL-after-finished controller: deletes a finished Job `spec.ttlSecondsAfterFinished` seconds after it
//! finished (the `lastTransitionTime` of its `Complete` or `Failed` condition), with background propagation
//! so the garbage collector removes its pods. Watches: Jobs. Writes: Job deletes. No events.
//! Counterpart: `pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`.
//!
//! The real loop re-reads the Job from the apiserver and deletes with a uid and resourceVersion
//! precondition; here the cached Job is checked again when its timer fires, and a Job replaced under the
//! same name in between (another uid) is left alone.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::batch::v1::Job;

use crate::api::{ApiResponse, Kind, Object};
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::job::finished;
use super::replicaset::sim_time;
use super::{Controller, Cx};

/// When a finished Job with a TTL expires.
fn expires_at(job: &Job) -> Option<SimTime> {
    let ttl = job.spec.as_ref()?.ttl_seconds_after_finished?;
    let done = sim_time(finished(job)?.last_transition_time.as_ref())?;
    Some(done.plus_ms((ttl.max(0) as u64).saturating_mul(1000)))
}

#[derive(Debug, Default)]
pub struct TtlAfterFinishedController {
    /// Job key → the uid and expiry time its timer is set for.
    scheduled: BTreeMap<String, (String, SimTime)>,
    timers: BTreeMap<u64, String>,
    /// Deletes in flight: tag → Job key, and the keys themselves.
    pending: BTreeMap<u64, String>,
    deleting: BTreeSet<String>,
    next: u64,
}

impl TtlAfterFinishedController {
    fn consider(&mut self, obj: &Object, cx: &mut Cx) {
        let Object::Job(job) = obj else { return };
        if job.metadata.deletion_timestamp.is_some() {
            return;
        }
        let Some(at) = expires_at(job) else { return };
        let key = obj.ns_name();
        let uid = job.metadata.uid.clone().unwrap_or_default();
        if at <= cx.now {
            if self.deleting.insert(key.clone()) {
                self.next += 1;
                self.pending.insert(self.next, key);
                cx.delete(obj, Some("Background"), None, self.next);
            }
        } else if self.scheduled.get(&key) != Some(&(uid.clone(), at)) {
            self.scheduled.insert(key.clone(), (uid, at));
            self.next += 1;
            self.timers.insert(self.next, key);
            cx.timer(at.since(cx.now), self.next);
        }
    }
}

impl Controller for TtlAfterFinishedController {
    fn name(&self) -> &'static str {
        "ttl-after-finished-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Job]
    }

    fn on_start(&mut self) {
        *self = TtlAfterFinishedController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for j in cx.list(Kind::Job) {
            self.consider(&j, cx);
        }
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, cx: &mut Cx) {
        match change {
            Change::Added(o) | Change::Modified { new: o, .. } => self.consider(o, cx),
            Change::Deleted(o) => {
                self.scheduled.remove(&o.ns_name());
            }
            Change::Resynced => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        let Some(key) = self.timers.remove(&token) else { return };
        let Some((uid, at)) = self.scheduled.get(&key).cloned() else { return };
        if at > cx.now {
            return;
        }
        self.scheduled.remove(&key);
        let Some(obj) = cx.get(Kind::Job, &key) else { return };
        if obj.meta().uid.as_deref() == Some(uid.as_str()) {
            self.consider(&obj, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, _result: &Result<ApiResponse, ClientError>, _cx: &mut Cx) {
        if let Some(key) = self.pending.remove(&tag) {
            self.deleting.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_job_expires_its_ttl_after_the_terminal_condition() {
        let job = |ttl: &str, cond: &str| -> Job {
            serde_yaml::from_str(&format!(
                "metadata: {{name: j}}\nspec: {{template: {{}}{ttl}}}\nstatus:\n  conditions:\n{cond}"
            ))
            .unwrap()
        };
        let done = "  - {type: Complete, status: 'True', lastTransitionTime: '2025-09-01T00:01:00Z'}\n";
        assert_eq!(expires_at(&job(", ttlSecondsAfterFinished: 30", done)), Some(SimTime(90_000)));
        assert_eq!(expires_at(&job("", done)), None, "no TTL, kept forever");
        let failed = "  - {type: Failed, status: 'True', lastTransitionTime: '2025-09-01T00:00:10Z'}\n";
        assert_eq!(expires_at(&job(", ttlSecondsAfterFinished: 0", failed)), Some(SimTime(10_000)));
        let running = "  - {type: Suspended, status: 'False', lastTransitionTime: '2025-09-01T00:00:10Z'}\n";
        assert_eq!(expires_at(&job(", ttlSecondsAfterFinished: 5", running)), None, "not finished");
    }
}
