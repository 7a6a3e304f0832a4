//! How long the Job controller waits before replacing failed pods: 10 s after the first failure since the
//! last success, doubling with each further failure up to 10 min (`DefaultJobPodFailureBackOff`,
//! `MaxJobPodFailureBackOff`), counted from when the last failed pod finished. A success resets it.
//! Counterpart: `pkg/controller/job/backoff_utils.go`.

use k8s_openapi::api::core::v1::Pod;

use crate::controllers::replicaset::sim_time;
use crate::sim::SimTime;

pub const INITIAL_MS: u64 = 10_000;
pub const MAX_MS: u64 = 600_000;

/// Failures since the last success and when the last of them finished.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Record {
    pub failures: u32,
    pub last_failure: Option<SimTime>,
}

/// When a pod finished: the latest container finish if every container terminated, else when it stopped
/// being ready, else its deletion time less the grace period, else its creation.
pub fn finished_at(pod: &Pod) -> SimTime {
    let status = pod.status.as_ref();
    let finishes: Option<Vec<SimTime>> = status.and_then(|s| s.container_statuses.as_ref()).map(|cs| {
        cs.iter()
            .map(|c| {
                c.state.as_ref().and_then(|st| st.terminated.as_ref()).and_then(|t| sim_time(t.finished_at.as_ref()))
            })
            .collect::<Option<Vec<SimTime>>>()
            .unwrap_or_default()
    });
    if let Some(latest) = finishes.and_then(|f| f.into_iter().max()) {
        return latest;
    }
    let unready = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .filter(|c| c.status == "False")
        .and_then(|c| sim_time(c.last_transition_time.as_ref()));
    if let Some(t) = unready {
        return t;
    }
    if let Some(deleted) = sim_time(pod.metadata.deletion_timestamp.as_ref()) {
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0).max(0) as u64;
        return SimTime(deleted.ms().saturating_sub(grace * 1000));
    }
    sim_time(pod.metadata.creation_timestamp.as_ref()).unwrap_or(SimTime::ZERO)
}

impl Record {
    /// The record after newly finished pods are counted (`newBackoffRecord`).
    pub fn after(self, succeeded: &[&Pod], failed: &[&Pod]) -> Record {
        let mut fails: Vec<SimTime> = failed.iter().map(|p| finished_at(p)).collect();
        fails.sort();
        let Some(last_success) = succeeded.iter().map(|p| finished_at(p)).max() else {
            return match fails.last() {
                None => self,
                Some(last) => {
                    Record { failures: self.failures.saturating_add(fails.len() as u32), last_failure: Some(*last) }
                }
            };
        };
        // Only failures after the last success count.
        let after: Vec<SimTime> = fails.into_iter().filter(|t| *t > last_success).collect();
        Record { failures: after.len() as u32, last_failure: after.last().copied() }
    }

    /// The delay the next failure-replacing pod still waits at `now`.
    pub fn remaining_ms(&self, now: SimTime) -> u64 {
        let Some(last) = self.last_failure.filter(|_| self.failures > 0) else { return 0 };
        let mut delay = INITIAL_MS;
        for _ in 1..self.failures {
            delay *= 2;
            if delay >= MAX_MS {
                delay = MAX_MS;
                break;
            }
        }
        delay.saturating_sub(now.since(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(finished: &str) -> Pod {
        let yaml = format!(
            "metadata: {{name: p, creationTimestamp: '2025-09-01T00:00:00Z'}}\nstatus:\n  containerStatuses:\n  - {{name: c, image: i, imageID: '', ready: false, restartCount: 0, state: {{terminated: {{exitCode: 1, finishedAt: '{finished}'}}}}}}\n"
        );
        serde_yaml::from_str(&yaml).expect("pod")
    }

    fn secs(s: u64) -> SimTime {
        SimTime(s * 1000)
    }

    #[test]
    fn the_delay_doubles_from_ten_seconds_and_stops_at_ten_minutes() {
        let at = |failures| Record { failures, last_failure: Some(secs(0)) }.remaining_ms(secs(0)) / 1000;
        let delays: Vec<u64> = (1..=9).map(at).collect();
        assert_eq!(delays, [10, 20, 40, 80, 160, 320, 600, 600, 600]);
        assert_eq!(Record::default().remaining_ms(secs(5)), 0);
        let two = Record { failures: 2, last_failure: Some(secs(100)) };
        assert_eq!(two.remaining_ms(secs(105)), 15_000, "counted from the last failure");
        assert_eq!(two.remaining_ms(secs(200)), 0);
    }

    #[test]
    fn failures_accumulate_and_a_later_success_resets_them() {
        let (a, b) = (pod("2025-09-01T00:00:10Z"), pod("2025-09-01T00:00:30Z"));
        let one = Record::default().after(&[], &[&a]);
        assert_eq!(one, Record { failures: 1, last_failure: Some(secs(10)) });
        let two = one.after(&[], &[&b]);
        assert_eq!(two, Record { failures: 2, last_failure: Some(secs(30)) });
        let ok = pod("2025-09-01T00:00:40Z");
        assert_eq!(two.after(&[&ok], &[]), Record::default());
        // A failure after the success still counts.
        let late = pod("2025-09-01T00:00:50Z");
        assert_eq!(two.after(&[&ok], &[&b, &late]), Record { failures: 1, last_failure: Some(secs(50)) });
    }
}
