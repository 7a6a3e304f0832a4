//! The Job, CronJob and TTL-after-finished loops of kube-controller-manager, with pods the kubelets run to
//! completion.

use kubeglass::cluster::Cluster;
use kubeglass::sim::time::parse_rfc3339;

use crate::{apply, kubectl};

/// A cluster whose nodes have registered.
fn cluster() -> Cluster {
    let mut c = Cluster::new_default(1);
    c.advance_ms(3_000);
    c
}

fn out(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

/// Seconds since the simulation began for an RFC 3339 timestamp.
fn secs(t: &str) -> u64 {
    parse_rfc3339(t).unwrap_or_else(|| panic!("not a timestamp: {t:?}")).ms() / 1000
}

/// `(type, reason, message)` of the events about `name`, oldest first.
fn events(c: &mut Cluster, name: &str) -> Vec<(String, String, String)> {
    let line = format!(
        "get events --field-selector involvedObject.name={name} -o custom-columns=T:.type,R:.reason,M:.message --no-headers"
    );
    out(c, &line)
        .lines()
        .map(|l| {
            let mut parts = l.split_whitespace();
            let t = parts.next().unwrap_or("").to_string();
            let r = parts.next().unwrap_or("").to_string();
            (t, r, parts.collect::<Vec<_>>().join(" "))
        })
        .collect()
}

fn count(events: &[(String, String, String)], reason: &str) -> usize {
    events.iter().filter(|e| e.1 == reason).count()
}

/// The pods of a Job: name, phase, creation and container finish time, finalizers.
fn pods_of(c: &mut Cluster, job: &str) -> Vec<Vec<String>> {
    let cols = "NAME:.metadata.name,PHASE:.status.phase,CREATED:.metadata.creationTimestamp,FINISHED:.status.containerStatuses[0].state.terminated.finishedAt,FIN:.metadata.finalizers";
    let line = format!("get pods -l batch.kubernetes.io/job-name={job} -o custom-columns={cols} --no-headers");
    let mut rows: Vec<Vec<String>> =
        out(c, &line).lines().map(|l| l.split_whitespace().map(str::to_string).collect()).collect();
    rows.sort_by(|a, b| (&a[2], &a[0]).cmp(&(&b[2], &b[0])));
    rows
}

fn job_manifest(name: &str, spec: &str, command: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}}}\nspec:\n{spec}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: w\n        image: busybox:1.36\n        command: {command}\n"
    )
}

#[test]
fn a_job_of_three_completions_two_at_a_time_runs_its_pods_and_completes() {
    let mut c = cluster();
    let job = job_manifest("work", "  completions: 3\n  parallelism: 2\n", "[sh, -c, 'sleep 5']");
    assert_eq!(apply(&mut c, &job).0, "job.batch/work created\n");
    let mut most_active = 0;
    for _ in 0..30 {
        c.advance_ms(1_000);
        let active = out(&mut c, "get job work -o jsonpath={.status.active}");
        most_active = most_active.max(active.parse::<u32>().unwrap_or(0));
    }
    assert_eq!(most_active, 2, "parallelism caps the active pods");
    let pods = pods_of(&mut c, "work");
    assert_eq!(pods.len(), 3, "{pods:?}");
    for p in &pods {
        assert!(p[0].starts_with("work-") && p[0].len() == "work-".len() + 5, "{p:?}");
        assert!(p[0][5..].chars().all(|ch| "bcdfghjklmnpqrstvwxz2456789".contains(ch)), "{p:?}");
        assert_eq!((p[1].as_str(), p[4].as_str()), ("Succeeded", "<none>"), "counted pods lose the finalizer: {p:?}");
    }
    // The third pod starts once one of the first two succeeded.
    assert!(secs(&pods[2][2]) >= secs(&pods[0][3]), "{pods:?}");
    let uid = out(&mut c, "get job work -o jsonpath={.metadata.uid}");
    let labels = out(&mut c, &format!("get pod {} -o jsonpath={{.metadata.labels}}", pods[0][0]));
    for (k, v) in [
        ("batch.kubernetes.io/controller-uid", uid.as_str()),
        ("batch.kubernetes.io/job-name", "work"),
        ("controller-uid", uid.as_str()),
        ("job-name", "work"),
    ] {
        assert!(labels.contains(&format!("\"{k}\":\"{v}\"")), "{labels}");
    }
    let owner = out(&mut c, &format!("get pod {} -o jsonpath={{.metadata.ownerReferences[0].kind}}", pods[0][0]));
    assert_eq!(owner, "Job");

    let row = out(&mut c, "get job work --no-headers");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[..3], ["work", "Complete", "3/3"], "{row}");
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get job work -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "succeeded"), "3");
    assert_eq!(status(&mut c, "uncountedTerminatedPods"), "{}");
    assert_eq!(status(&mut c, "conditions[*].type"), "SuccessCriteriaMet Complete");
    assert_eq!(status(&mut c, "conditions[*].reason"), "CompletionsReached CompletionsReached");
    assert_eq!(status(&mut c, "conditions[1].message"), "Reached expected number of succeeded pods");
    let finished = pods.iter().map(|p| secs(&p[3])).max().unwrap_or(0);
    let completed = secs(&status(&mut c, "completionTime"));
    assert!(completed >= finished && completed <= finished + 3, "completed {completed}, last pod {finished}");

    let ev = events(&mut c, "work");
    let created: Vec<&str> = ev.iter().filter(|e| e.1 == "SuccessfulCreate").map(|e| e.2.as_str()).collect();
    let mut names: Vec<String> = pods.iter().map(|p| format!("Created pod: {}", p[0])).collect();
    let mut seen: Vec<String> = created.iter().map(|s| s.to_string()).collect();
    names.sort();
    seen.sort();
    assert_eq!(seen, names);
    assert_eq!(
        ev.last().map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str())),
        Some(("Normal", "Completed", "Job completed"))
    );

    let describe = out(&mut c, "describe job work");
    for line in [
        "Parallelism:      2\n",
        "Completions:      3\n",
        "Completion Mode:  NonIndexed\n",
        "Backoff Limit:    6\n",
        "Pods Statuses:    0 Active (0 Ready) / 3 Succeeded / 0 Failed\n",
        "  Normal  Completed         ",
    ] {
        assert!(describe.contains(line), "missing {line:?} in\n{describe}");
    }
}

#[test]
fn a_failing_job_backs_off_10_then_20_seconds_and_fails_at_the_backoff_limit() {
    let mut c = cluster();
    let job = job_manifest("fail", "  backoffLimit: 2\n", "[sh, -c, 'sleep 2; exit 1']");
    apply(&mut c, &job);
    c.advance_ms(120_000);
    let pods = pods_of(&mut c, "fail");
    assert_eq!(pods.len(), 3, "backoffLimit + 1 failures, then no more pods: {pods:?}");
    assert!(pods.iter().all(|p| p[1] == "Failed" && p[4] == "<none>"), "{pods:?}");
    for (i, want) in [(1, 10), (2, 20)] {
        let waited = secs(&pods[i][2]) - secs(&pods[i - 1][3]);
        assert!((want..want + 2).contains(&waited), "pod {i} started {waited}s after the failure: {pods:?}");
    }
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get job fail -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "failed"), "3");
    assert_eq!(status(&mut c, "conditions[*].type"), "FailureTarget Failed");
    assert_eq!(status(&mut c, "conditions[1].reason"), "BackoffLimitExceeded");
    assert_eq!(status(&mut c, "conditions[1].message"), "Job has reached the specified backoff limit");
    assert_eq!(status(&mut c, "completionTime"), "", "a failed Job has no completion time");
    let row = out(&mut c, "get job fail --no-headers");
    assert_eq!(row.split_whitespace().take(3).collect::<Vec<_>>(), ["fail", "Failed", "0/1"], "{row}");
    let ev = events(&mut c, "fail");
    assert_eq!(count(&ev, "SuccessfulCreate"), 3);
    let last = ev.last().cloned().unwrap_or_default();
    assert_eq!(
        (last.0.as_str(), last.1.as_str(), last.2.as_str()),
        ("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
    );
}

#[test]
fn restarts_under_on_failure_count_against_the_backoff_limit() {
    let mut c = cluster();
    let job = job_manifest("flaky", "  backoffLimit: 1\n", "[sh, -c, 'exit 3']").replace("Never", "OnFailure");
    apply(&mut c, &job);
    c.advance_ms(60_000);
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get job flaky -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "conditions[1].reason"), "BackoffLimitExceeded");
    let ev = events(&mut c, "flaky");
    assert_eq!(count(&ev, "SuccessfulCreate"), 1, "the container restarts in place: {ev:?}");
    assert_eq!(count(&ev, "SuccessfulDelete"), 1, "the restarting pod is deleted when the Job fails: {ev:?}");
}

#[test]
fn active_deadline_seconds_deletes_the_running_pods_and_fails_the_job_once_they_are_gone() {
    let mut c = cluster();
    let spec = "  activeDeadlineSeconds: 10\n  completions: 4\n  parallelism: 2\n";
    apply(&mut c, &job_manifest("slow", spec, "[sleep, '60']"));
    let start = c.now().ms() / 1000;
    c.advance_ms(12_000);
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get job slow -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "conditions[*].type"), "FailureTarget");
    assert_eq!(status(&mut c, "conditions[0].reason"), "DeadlineExceeded");
    let target = secs(&status(&mut c, "conditions[0].lastTransitionTime"));
    assert!((start + 10..start + 12).contains(&target), "deadline {target}, started {start}");
    assert_eq!(status(&mut c, "terminating"), "2");
    let pods = out(&mut c, "get pods -l job-name=slow --no-headers");
    assert_eq!(pods.matches("Terminating").count(), 2, "{pods}");
    let deleted = events(&mut c, "slow");
    assert_eq!(count(&deleted, "SuccessfulDelete"), 2, "{deleted:?}");
    assert!(deleted.iter().any(|e| e.2.starts_with("Deleted pod: slow-")), "{deleted:?}");

    // `sleep` as PID 1 ignores SIGTERM: the pods go when their 30 s grace period ends, then the Job fails.
    c.advance_ms(40_000);
    assert_eq!(out(&mut c, "get pods -l job-name=slow"), "No resources found in default namespace.\n");
    assert_eq!(status(&mut c, "conditions[*].type"), "FailureTarget Failed");
    let failed_at = secs(&status(&mut c, "conditions[1].lastTransitionTime"));
    assert!(failed_at >= target + 30, "Failed only after the pods terminated: {failed_at} vs {target}");
    assert_eq!(status(&mut c, "failed"), "2");
    assert_eq!(status(&mut c, "terminating"), "0");
    let last = events(&mut c, "slow").last().cloned().unwrap_or_default();
    assert_eq!(
        (last.0.as_str(), last.1.as_str(), last.2.as_str()),
        ("Warning", "DeadlineExceeded", "Job was active longer than specified deadline")
    );
}

#[test]
fn an_indexed_job_gives_each_pod_its_index_and_reports_the_completed_ones() {
    let mut c = cluster();
    let spec = "  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n";
    apply(&mut c, &job_manifest("idx", spec, "[sh, -c, 'sleep 2']"));
    c.advance_ms(4_000);
    let mut indexes = Vec::new();
    for p in pods_of(&mut c, "idx") {
        let index = out(
            &mut c,
            &format!(
                "get pod {} -o 'jsonpath={{.metadata.labels.batch\\.kubernetes\\.io/job-completion-index}}'",
                p[0]
            ),
        );
        assert!(p[0].starts_with(&format!("idx-{index}-")), "{p:?} has index {index}");
        let host = out(&mut c, &format!("get pod {} -o jsonpath={{.spec.hostname}}", p[0]));
        assert_eq!(host, format!("idx-{index}"));
        let env = out(&mut c, &format!("get pod {} -o jsonpath={{.spec.containers[0].env[0].name}}", p[0]));
        assert_eq!(env, "JOB_COMPLETION_INDEX");
        indexes.push(index);
    }
    indexes.sort();
    assert_eq!(indexes, ["0", "1", "2"]);
    c.advance_ms(10_000);
    assert_eq!(out(&mut c, "get job idx -o jsonpath={.status.completedIndexes}"), "0-2");
    assert_eq!(out(&mut c, "get job idx -o jsonpath={.status.succeeded}"), "3");
    assert!(out(&mut c, "describe job idx").contains("Completed Indexes:  0-2\n"));
}

#[test]
fn a_suspended_job_starts_no_pods_until_it_is_resumed() {
    let mut c = cluster();
    let job = job_manifest("later", "  suspend: true\n", "[sh, -c, 'sleep 1']");
    apply(&mut c, &job);
    c.advance_ms(5_000);
    assert_eq!(out(&mut c, "get pods -l job-name=later"), "No resources found in default namespace.\n");
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get job later -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "conditions[0].type"), "Suspended");
    assert_eq!(status(&mut c, "startTime"), "", "a suspended Job has not started");
    assert_eq!(out(&mut c, "get job later --no-headers").split_whitespace().nth(1), Some("Suspended"));
    apply(&mut c, &job.replace("suspend: true", "suspend: false"));
    c.advance_ms(10_000);
    assert_eq!(status(&mut c, "conditions[*].type"), "Suspended SuccessCriteriaMet Complete");
    assert_eq!(status(&mut c, "conditions[0].status"), "False");
    assert_eq!(status(&mut c, "conditions[0].reason"), "JobResumed");
    let ev = events(&mut c, "later");
    let reasons: Vec<&str> = ev.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(reasons, ["Suspended", "Resumed", "SuccessfulCreate", "Completed"]);
}

fn cron_manifest(name: &str, extra: &str, command: &str) -> String {
    format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: {name}}}\nspec:\n  schedule: '*/1 * * * *'\n{extra}  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n          - name: w\n            image: busybox:1.36\n            command: {command}\n"
    )
}

/// `(name, creationTimestamp, status)` of the Jobs a CronJob owns, oldest first.
fn jobs_of(c: &mut Cluster) -> Vec<(String, u64, String)> {
    let rows = out(c, "get jobs -o custom-columns=N:.metadata.name,C:.metadata.creationTimestamp --no-headers");
    let mut jobs: Vec<(String, u64, String)> = rows
        .lines()
        .filter(|l| !l.starts_with("No resources found"))
        .filter_map(|l| {
            let mut p = l.split_whitespace();
            let (n, t) = (p.next()?.to_string(), p.next()?);
            Some((n, secs(t), String::new()))
        })
        .collect();
    for j in &mut jobs {
        let row = out(c, &format!("get job {} --no-headers", j.0));
        j.2 = row.split_whitespace().nth(1).unwrap_or("").to_string();
    }
    jobs.sort_by_key(|j| (j.1, j.0.clone()));
    jobs
}

/// The Job name for the scheduled minute `m` after the simulation began (2025-09-01T00:00:00Z).
fn minute_job(cron: &str, m: u64) -> String {
    format!("{cron}-{}", 1_756_684_800 / 60 + m)
}

#[test]
fn a_cron_job_every_minute_starts_a_job_each_minute_and_keeps_its_history_limits() {
    let mut c = cluster();
    apply(&mut c, &cron_manifest("tick", "  successfulJobsHistoryLimit: 2\n", "[sh, -c, 'sleep 5']"));
    c.advance_ms(50_000);
    assert!(jobs_of(&mut c).is_empty(), "nothing before the first minute");
    c.advance_ms(5 * 60_000);
    let jobs = jobs_of(&mut c);
    let names: Vec<&str> = jobs.iter().map(|j| j.0.as_str()).collect();
    assert_eq!(names, [minute_job("tick", 4), minute_job("tick", 5)], "two kept, older ones deleted: {jobs:?}");
    for (j, m) in jobs.iter().zip([4, 5]) {
        assert!((m * 60..m * 60 + 2).contains(&j.1), "{} created at {}s", j.0, j.1);
        assert_eq!(j.2, "Complete");
        let ts = out(
            &mut c,
            &format!(
                "get job {} -o 'jsonpath={{.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}}'",
                j.0
            ),
        );
        assert_eq!(ts, format!("2025-09-01T00:0{m}:00Z"));
    }
    let status = |c: &mut Cluster, path: &str| out(c, &format!("get cj tick -o jsonpath={{.status.{path}}}"));
    assert_eq!(status(&mut c, "lastScheduleTime"), "2025-09-01T00:05:00Z");
    let last_ok = secs(&status(&mut c, "lastSuccessfulTime"));
    assert!((5 * 60 + 5..5 * 60 + 10).contains(&last_ok), "{last_ok}");
    assert_eq!(status(&mut c, "active"), "", "the last run finished");
    // The pods of deleted Jobs went with them.
    let pods = out(&mut c, "get pods --no-headers");
    assert_eq!(pods.lines().count(), 2, "{pods}");
    let ev = events(&mut c, "tick");
    for m in 1..=5 {
        assert!(ev
            .iter()
            .any(|e| e.1 == "SuccessfulCreate" && e.2 == format!("Created job {}", minute_job("tick", m))));
        let saw = format!("Saw completed job: {}, status: Complete", minute_job("tick", m));
        assert!(ev.iter().any(|e| e.1 == "SawCompletedJob" && e.2 == saw), "{ev:?}");
    }
    for m in 1..=3 {
        assert!(ev
            .iter()
            .any(|e| e.1 == "SuccessfulDelete" && e.2 == format!("Deleted job {}", minute_job("tick", m))));
    }
    let row = out(&mut c, "get cronjob tick --no-headers");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[..8], ["tick", "*/1", "*", "*", "*", "*", "<none>", "False"], "{row}");
    let describe = out(&mut c, "describe cronjob tick");
    for line in [
        "Schedule:                      */1 * * * *\n",
        "Successful Job History Limit:  2\n",
        "Last Schedule Time:  Mon, 01 Sep 2025 00:05:00 +0000\n",
        "Active Jobs:         <none>\n",
        "Suspend:                       False\n",
    ] {
        assert!(describe.contains(line), "missing {line:?} in\n{describe}");
    }
}

#[test]
fn forbid_never_runs_two_jobs_at_once_and_starts_a_skipped_run_late() {
    let mut c = cluster();
    apply(&mut c, &cron_manifest("solo", "  concurrencyPolicy: Forbid\n", "[sh, -c, 'sleep 90']"));
    let mut most = 0;
    for _ in 0..(5 * 60 / 5) {
        c.advance_ms(5_000);
        let active = out(&mut c, "get cj solo -o jsonpath={.status.active[*].name}");
        most = most.max(active.split_whitespace().count());
    }
    assert_eq!(most, 1, "never more than one active Job");
    let jobs = jobs_of(&mut c);
    assert_eq!(jobs[0].0, minute_job("solo", 1));
    // The 00:02 run was skipped while the first ran, then started as soon as that one finished.
    assert_eq!(jobs[1].0, minute_job("solo", 2));
    assert!(jobs[1].1 >= jobs[0].1 + 90, "started late, after the first finished: {jobs:?}");
    let ev = events(&mut c, "solo");
    let skipped = ev.iter().find(|e| e.1 == "JobAlreadyActive").map(|e| e.2.clone());
    assert_eq!(
        skipped.as_deref(),
        Some("Not starting job because prior execution is running and concurrency policy is Forbid")
    );
}

#[test]
fn replace_deletes_the_running_job_when_the_next_one_is_due() {
    let mut c = cluster();
    apply(&mut c, &cron_manifest("swap", "  concurrencyPolicy: Replace\n", "[sleep, '600']"));
    c.advance_ms(2 * 60_000 + 5_000);
    let jobs = jobs_of(&mut c);
    assert_eq!(jobs.iter().map(|j| j.0.as_str()).collect::<Vec<_>>(), [minute_job("swap", 2)], "{jobs:?}");
    let ev = events(&mut c, "swap");
    let deleted = format!("Deleted job {}", minute_job("swap", 1));
    assert!(ev.iter().any(|e| e.1 == "SuccessfulDelete" && e.2 == deleted), "{ev:?}");
    assert_eq!(out(&mut c, "get cj swap -o jsonpath={.status.active[*].name}"), minute_job("swap", 2));
    // The replaced Job's pod is stopped by the garbage collector and the kubelet.
    let old = format!("job-name={}", minute_job("swap", 1));
    c.advance_ms(40_000);
    assert_eq!(out(&mut c, &format!("get pods -l {old}")), "No resources found in default namespace.\n");
}

#[test]
fn a_suspended_cron_job_starts_nothing_and_a_manual_run_is_an_unexpected_job() {
    let mut c = cluster();
    let made = out(&mut c, "create cronjob nightly --image=busybox:1.36 --schedule='0 3 * * *' -- sh -c true");
    assert_eq!(made, "cronjob.batch/nightly created\n");
    c.advance_ms(2_000);
    assert_eq!(out(&mut c, "create job now --from=cronjob/nightly"), "job.batch/now created\n");
    c.advance_ms(10_000);
    let row = out(&mut c, "get job now --no-headers");
    assert_eq!(row.split_whitespace().nth(1), Some("Complete"), "{row}");
    let ann = out(&mut c, r"get job now -o 'jsonpath={.metadata.annotations.cronjob\.kubernetes\.io/instantiate}'");
    assert_eq!(ann, "manual");
    let ev = events(&mut c, "nightly");
    assert!(
        ev.iter()
            .any(|e| e.1 == "UnexpectedJob" && e.2 == "Saw a job that the controller did not create or forgot: now"),
        "{ev:?}"
    );
    apply(&mut c, &cron_manifest("paused", "  suspend: true\n", "[sh, -c, 'true']"));
    c.advance_ms(3 * 60_000);
    assert!(jobs_of(&mut c).iter().all(|j| !j.0.starts_with("paused")));
}

#[test]
fn ttl_seconds_after_finished_deletes_the_job_and_its_pods() {
    let mut c = cluster();
    let job = job_manifest("brief", "  ttlSecondsAfterFinished: 20\n", "[sh, -c, 'sleep 3']");
    apply(&mut c, &job);
    c.advance_ms(10_000);
    let completed = secs(&out(&mut c, "get job brief -o jsonpath={.status.completionTime}"));
    let pod = out(&mut c, "get pods -l job-name=brief -o name");
    assert_eq!(pod.lines().count(), 1, "{pod}");
    // Still there just before the TTL runs out…
    let until = (completed + 19) * 1000;
    c.advance_ms(until - c.now().ms());
    assert_eq!(out(&mut c, "get job brief -o name"), "job.batch/brief\n");
    // …and gone, with its pod, right after.
    c.advance_ms(3_000);
    assert_eq!(out(&mut c, "get job brief"), "Error from server (NotFound): jobs.batch \"brief\" not found\n");
    assert_eq!(out(&mut c, "get pods -l job-name=brief"), "No resources found in default namespace.\n");
}

#[test]
fn pods_of_a_deleted_job_lose_their_tracking_finalizer_and_go() {
    let mut c = cluster();
    apply(&mut c, &job_manifest("gone", "", "[sleep, '600']"));
    c.advance_ms(5_000);
    let pod = out(&mut c, "get pods -l job-name=gone -o jsonpath={.items[0].metadata.finalizers}");
    assert_eq!(pod, "[\"batch.kubernetes.io/job-tracking\"]");
    assert_eq!(out(&mut c, "delete job gone"), "job.batch \"gone\" deleted from default namespace\n");
    c.advance_ms(40_000);
    assert_eq!(out(&mut c, "get pods -l job-name=gone"), "No resources found in default namespace.\n");
}

#[test]
fn a_deleted_pod_is_replaced_while_terminating_unless_only_failed_pods_are_replaced() {
    let mut c = cluster();
    apply(&mut c, &job_manifest("eager", "", "[sleep, '600']"));
    apply(&mut c, &job_manifest("patient", "  podReplacementPolicy: Failed\n", "[sleep, '600']"));
    c.advance_ms(5_000);
    let mut first = Vec::new();
    for job in ["eager", "patient"] {
        let pod = pods_of(&mut c, job)[0][0].clone();
        out(&mut c, &format!("delete pod {pod} --wait=false"));
        first.push(pod);
    }
    let deleted_at = c.now().ms() / 1000;
    c.advance_ms(15_000);
    // The default policy counts the deleted pod as failed and replaces it after the 10 s backoff.
    let eager = pods_of(&mut c, "eager");
    assert_eq!(eager.len(), 2, "{eager:?}");
    let new = eager.iter().find(|p| p[0] != first[0]).cloned().unwrap_or_default();
    assert!((deleted_at + 10..deleted_at + 13).contains(&secs(&new[2])), "{eager:?} deleted at {deleted_at}");
    assert_eq!(out(&mut c, "get job eager -o jsonpath={.status.failed}"), "1");
    // `Failed` waits for the old pod to have failed: `sleep` ignores SIGTERM for its 30 s grace period.
    assert_eq!(pods_of(&mut c, "patient").len(), 1);
    assert_eq!(out(&mut c, "get job patient -o jsonpath={.status.terminating}"), "1");
    c.advance_ms(30_000);
    let patient = pods_of(&mut c, "patient");
    assert_eq!(patient.len(), 1, "the failed pod went once counted: {patient:?}");
    assert_ne!(patient[0][0], first[1]);
    assert!(secs(&patient[0][2]) >= deleted_at + 40, "replaced 10 s after it failed: {patient:?}");
    assert_eq!(out(&mut c, "get job patient -o jsonpath={.status.failed}"), "1");
    assert_eq!(out(&mut c, "get job patient -o jsonpath={.status.terminating}"), "0");
}

#[test]
fn extreme_counts_and_deadlines_neither_panic_nor_misbehave() {
    let mut c = cluster();
    let spec = "  completions: 2147483647\n  parallelism: 2\n  backoffLimit: 2147483647\n  activeDeadlineSeconds: 9223372036854775807\n";
    apply(&mut c, &job_manifest("huge", spec, "[sleep, '600']"));
    let cron = cron_manifest("late", "  startingDeadlineSeconds: 9223372036854775807\n", "[sh, -c, 'true']");
    apply(&mut c, &cron);
    c.advance_ms(65_000);
    assert_eq!(out(&mut c, "get job huge -o jsonpath={.status.active}"), "2");
    assert_eq!(out(&mut c, "get job huge --no-headers").split_whitespace().nth(2), Some("0/2147483647"));
    assert_eq!(jobs_of(&mut c).iter().filter(|j| j.0 == minute_job("late", 1)).count(), 1);
}

#[test]
fn a_restarted_controller_manager_counts_pods_that_finished_while_it_was_down_exactly_once() {
    let mut c = cluster();
    apply(&mut c, &job_manifest("steady", "  completions: 3\n", "[sh, -c, 'sleep 3']"));
    c.advance_ms(3_000);
    c.stop("kube-controller-manager").unwrap();
    c.advance_ms(10_000);
    let pods = pods_of(&mut c, "steady");
    assert_eq!(pods.len(), 1, "{pods:?}");
    assert_eq!(pods[0][1], "Succeeded");
    assert_eq!(pods[0][4], "[batch.kubernetes.io/job-tracking]", "nobody counted it yet");
    c.start("kube-controller-manager").unwrap();
    c.advance_ms(30_000);
    assert_eq!(out(&mut c, "get job steady -o jsonpath={.status.succeeded}"), "3");
    assert_eq!(pods_of(&mut c, "steady").len(), 3);
    assert_eq!(count(&events(&mut c, "steady"), "Completed"), 1);
}
