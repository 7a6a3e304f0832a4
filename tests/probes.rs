//! The kubelet's probes, init containers, OOM kills and graceful termination, seen through kubectl: what
//! `get pods` shows over time, the container states and the kubelet's events in `describe pod`.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

/// The `get pods` row of one pod with its cells joined by one space (AGE dropped).
fn row(c: &mut Cluster, name: &str) -> String {
    let out = get(c, &format!("get pod {name} --no-headers"));
    let cells: Vec<&str> = out.split_whitespace().collect();
    let n = cells.len();
    cells[..n.saturating_sub(1)].join(" ")
}

/// The Events table of `describe pod`, each line's cells separated by one space (the column widths depend
/// on the other rows).
fn events(c: &mut Cluster, name: &str) -> String {
    let d = get(c, &format!("describe pod {name}"));
    let table = d.split_once("Events:\n").map(|(_, e)| e.to_string()).unwrap_or(d);
    table.lines().map(|l| format!("{}\n", l.split_whitespace().collect::<Vec<_>>().join(" "))).collect()
}

fn jsonpath(c: &mut Cluster, name: &str, path: &str) -> String {
    get(c, &format!("get pod {name} -o jsonpath='{{{path}}}'"))
}

/// Advances to `secs` after `start`.
fn at(c: &mut Cluster, start: u64, secs: u64) {
    let target = start + secs * 1000;
    let now = c.now().ms();
    if target > now {
        c.advance_ms(target - now);
    }
}

const LIVENESS_EXEC: &str = "apiVersion: v1
kind: Pod
metadata:
  name: liveness-exec
spec:
  nodeName: node01
  containers:
  - name: liveness
    image: registry.k8s.io/busybox
    args: [/bin/sh, -c, touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600]
    livenessProbe:
      exec:
        command: [cat, /tmp/healthy]
      initialDelaySeconds: 5
      periodSeconds: 5
";

fn pod(name: &str, spec: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: {name}}}\nspec:\n  nodeName: node01\n{spec}")
}

/// The STATUS values `get pod` shows, sampled every 500 ms for `secs` seconds, each change once. The first
/// sample is taken as the apply returns: whether the kubelet has already posted its first status then (the
/// pod is past `Pending`) is a matter of a few milliseconds of latency, so a leading `Pending` is dropped.
fn statuses(c: &mut Cluster, name: &str, secs: u64) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for _ in 0..secs * 2 {
        let status = row(c, name).split(' ').nth(2).unwrap_or("").to_string();
        if seen.last() != Some(&status) {
            seen.push(status);
        }
        c.advance_ms(500);
    }
    if seen.first().is_some_and(|s| s == "Pending") {
        seen.remove(0);
    }
    seen
}

#[test]
fn a_liveness_probe_that_starts_failing_when_the_file_is_removed_kills_and_restarts_the_container() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, LIVENESS_EXEC);
    let start = c.now().ms();
    // Started at 3 s: /tmp/healthy is there until 33 s; probes at 8, 13, …; 33, 38 and 43 fail.
    at(&mut c, start, 42);
    assert_eq!(row(&mut c, "liveness-exec"), "liveness-exec 1/1 Running 0");
    assert!(!events(&mut c, "liveness-exec").contains("Killing"));
    // Killed at 43 s; busybox's shell ignores SIGTERM, so it dies at the end of the 30 s grace period.
    at(&mut c, start, 72);
    assert_eq!(row(&mut c, "liveness-exec"), "liveness-exec 1/1 Running 0");
    at(&mut c, start, 80);
    assert_eq!(row(&mut c, "liveness-exec"), "liveness-exec 1/1 Running 1 (7s ago)");
    let ev = events(&mut c, "liveness-exec");
    for line in [
        "Warning Unhealthy 37s (x3 over 47s) kubelet Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
        "Normal Killing 37s kubelet Container liveness failed liveness probe, will be restarted\n",
        // Restarted at 73 s: pulling busybox again (imagePullPolicy Always for an untagged image) only
        // fetches its manifest now that the node has its layers.
        "Normal Started 7s (x2 over 77s) kubelet Started container liveness\n",
    ] {
        assert!(ev.contains(line), "missing {line:?} in\n{ev}");
    }
    let last = jsonpath(&mut c, "liveness-exec", ".status.containerStatuses[0].lastState.terminated");
    assert!(last.contains("\"exitCode\":137") && last.contains("\"reason\":\"Error\""), "{last}");
    let describe = get(&mut c, "describe pod liveness-exec");
    assert!(describe
        .contains("    Liveness:       exec [cat /tmp/healthy] delay=5s timeout=1s period=5s #success=1 #failure=3\n"));
    // The new container has the file again: no new failure for the next 30 s.
    at(&mut c, start, 100);
    assert!(events(&mut c, "liveness-exec")
        .contains("Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"));
    assert_eq!(row(&mut c, "liveness-exec"), "liveness-exec 1/1 Running 1 (27s ago)");
}

#[test]
fn a_failing_readiness_probe_keeps_the_pod_running_but_out_of_its_services_endpoints() {
    let mut c = Cluster::new_default(1);
    let probe = |path: &str| {
        format!("  containers:\n  - name: web\n    image: nginx:1.27\n    readinessProbe:\n      httpGet: {{path: {path}, port: 80}}\n      periodSeconds: 5\n")
    };
    apply(&mut c, &pod("bad", &probe("/healthz")).replace("app: bad", "app: web"));
    apply(&mut c, &pod("good", &probe("/")).replace("app: good", "app: web"));
    apply(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n",
    );
    let start = c.now().ms();
    at(&mut c, start, 20);
    assert_eq!(row(&mut c, "bad"), "bad 0/1 Running 0");
    assert_eq!(row(&mut c, "good"), "good 1/1 Running 0");
    let good_ip = jsonpath(&mut c, "good", ".status.podIP");
    let (out, _) = kubectl(&mut c, "get endpoints web --no-headers");
    let warning = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n";
    assert_eq!(out, format!("{warning}web   {good_ip}:80   20s\n"));
    assert_eq!(
        jsonpath(&mut c, "bad", ".status.conditions[?(@.type==\"Ready\")].message"),
        "containers with unready status: [web]"
    );
    let ev = events(&mut c, "bad");
    assert!(ev.contains("Warning Unhealthy 2s (x4 over 17s) kubelet Readiness probe failed: HTTP probe failed with statuscode: 404\n"), "{ev}");
    assert!(!ev.contains("Killing"), "readiness never restarts: {ev}");
}

#[test]
fn a_startup_probe_holds_back_liveness_and_readiness_and_kills_a_container_that_never_starts() {
    let mut c = Cluster::new_default(1);
    let spec = |port: u16| {
        format!("  containers:\n  - name: app\n    image: nginx:1.27\n    startupProbe:\n      tcpSocket: {{port: {port}}}\n      periodSeconds: 5\n      failureThreshold: 2\n    livenessProbe:\n      httpGet: {{path: /nope, port: 80}}\n      periodSeconds: 1\n      failureThreshold: 1\n    readinessProbe:\n      tcpSocket: {{port: 80}}\n")
    };
    apply(&mut c, &pod("never", &spec(8080)));
    let start = c.now().ms();
    at(&mut c, start, 7);
    assert_eq!(row(&mut c, "never"), "never 0/1 Running 0");
    assert_eq!(jsonpath(&mut c, "never", ".status.containerStatuses[0].started"), "false");
    at(&mut c, start, 9);
    let ev = events(&mut c, "never");
    let ip = jsonpath(&mut c, "never", ".status.podIP");
    assert!(ev.contains(&format!("Warning Unhealthy 1s (x3 over 6s) kubelet Startup probe failed: dial tcp {ip}:8080: connect: connection refused\n")), "{ev}");
    assert!(ev.contains("Normal Killing 1s kubelet Container app failed startup probe, will be restarted\n"), "{ev}");
    assert!(!ev.contains("Liveness probe"), "liveness waits for startup: {ev}");
    // nginx stops on SIGTERM at once: its last state is a clean exit, and it is started again.
    assert_eq!(jsonpath(&mut c, "never", ".status.containerStatuses[0].lastState.terminated.reason"), "Completed");
    assert_eq!(jsonpath(&mut c, "never", ".status.containerStatuses[0].restartCount"), "1");

    // Once the startup probe passes the container is started, and readiness and liveness run.
    apply(&mut c, &pod("starts", &spec(80).replace("/nope", "/")));
    c.advance_ms(10_000);
    assert_eq!(jsonpath(&mut c, "starts", ".status.containerStatuses[0].started"), "true");
    assert_eq!(row(&mut c, "starts"), "starts 1/1 Running 0");
    assert!(!events(&mut c, "starts").contains("Unhealthy"));
}

#[test]
fn an_http_liveness_probe_restarts_a_server_once_it_answers_500() {
    let mut c = Cluster::new_default(1);
    let spec = "  containers:\n  - name: web\n    image: nginx:1.27\n    livenessProbe:\n      httpGet: {path: /, port: 80}\n      periodSeconds: 3\n";
    let manifest = pod("flaky", spec)
        .replace("  labels:", "  annotations: {kubeglass.dev/unhealthy-after-seconds: '10'}\n  labels:");
    apply(&mut c, &manifest);
    let start = c.now().ms();
    // Started at 2.7 s and probed every 3 s from then: answers 500 from 12.7 s, so the probes at 14.7,
    // 17.7 and 20.7 s fail.
    at(&mut c, start, 20);
    assert_eq!(row(&mut c, "flaky"), "flaky 1/1 Running 0");
    // Killed at 20.7 s; nginx exits on SIGTERM and is started again at once.
    at(&mut c, start, 24);
    assert_eq!(row(&mut c, "flaky"), "flaky 1/1 Running 1 (3s ago)");
    let ev = events(&mut c, "flaky");
    assert!(
        ev.contains(
            "Warning Unhealthy 3s (x3 over 9s) kubelet Liveness probe failed: HTTP probe failed with statuscode: 500\n"
        ),
        "{ev}"
    );
    assert!(ev.contains("Normal Killing 3s kubelet Container web failed liveness probe, will be restarted\n"), "{ev}");
    assert_eq!(jsonpath(&mut c, "flaky", ".status.containerStatuses[0].lastState.terminated.exitCode"), "0");
}

#[test]
fn init_containers_run_one_after_another_before_the_app_container() {
    let mut c = Cluster::new_default(1);
    let spec = "  initContainers:\n  - name: first\n    image: busybox:1.36\n    command: [sleep, '5']\n  - name: second\n    image: busybox:1.36\n    command: [sh, -c, 'sleep 5']\n  containers:\n  - name: app\n    image: httpd:2.4\n";
    apply(&mut c, &pod("init", spec));
    let seen = statuses(&mut c, "init", 20);
    assert_eq!(seen, ["Init:0/2", "Init:1/2", "PodInitializing", "Running"]);
    assert_eq!(row(&mut c, "init"), "init 1/1 Running 0");
    assert_eq!(
        jsonpath(&mut c, "init", ".status.initContainerStatuses[*].state.terminated.reason"),
        "Completed Completed"
    );
    assert_eq!(jsonpath(&mut c, "init", ".status.initContainerStatuses[*].ready"), "true true");
    let first = jsonpath(&mut c, "init", ".status.initContainerStatuses[0].state.terminated.finishedAt");
    let second = jsonpath(&mut c, "init", ".status.initContainerStatuses[1].state.terminated.startedAt");
    assert_eq!(first, second, "the second starts when the first ends");
}

#[test]
fn a_failing_init_container_fails_the_pod_with_never_and_crash_loops_otherwise() {
    let mut c = Cluster::new_default(1);
    let spec = |policy: &str| {
        format!("  restartPolicy: {policy}\n  initContainers:\n  - name: check\n    image: busybox:1.36\n    command: [sh, -c, 'sleep 1; exit 3']\n  containers:\n  - name: app\n    image: nginx:1.27\n")
    };
    apply(&mut c, &pod("never", &spec("Never")));
    apply(&mut c, &pod("always", &spec("Always")));
    let start = c.now().ms();
    at(&mut c, start, 8);
    assert_eq!(row(&mut c, "never"), "never 0/1 Init:Error 0");
    assert_eq!(jsonpath(&mut c, "never", ".status.phase"), "Failed");
    assert_eq!(
        jsonpath(&mut c, "never", ".status.conditions[?(@.type==\"Initialized\")].message"),
        "containers with incomplete status: [check]"
    );
    assert_eq!(jsonpath(&mut c, "never", ".status.containerStatuses[0].state.waiting.reason"), "PodInitializing");
    // The restart ended 3–5 s before: its image pull may have waited for the other pod's (the kubelet pulls
    // one image at a time), and where the second boundary falls depends on milliseconds of latency.
    let always = row(&mut c, "always");
    assert!((3..=5).any(|s| always == format!("always 0/1 Init:CrashLoopBackOff 1 ({s}s ago)")), "{always}");
    assert_eq!(jsonpath(&mut c, "always", ".status.phase"), "Pending");
    assert!(!get(&mut c, "describe pod always").contains("Created container: app"));
}

#[test]
fn a_sidecar_init_container_starts_before_the_app_and_keeps_running_beside_it() {
    let mut c = Cluster::new_default(1);
    let spec = "  initContainers:\n  - name: proxy\n    image: nginx:1.27\n    restartPolicy: Always\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sleep, infinity]\n";
    apply(&mut c, &pod("sidecar", spec));
    c.advance_ms(10_000);
    assert_eq!(row(&mut c, "sidecar"), "sidecar 2/2 Running 0");
    assert_eq!(jsonpath(&mut c, "sidecar", ".status.initContainerStatuses[0].state.running.startedAt").len(), 20);
    let proxy = jsonpath(&mut c, "sidecar", ".status.initContainerStatuses[0].state.running.startedAt");
    let app = jsonpath(&mut c, "sidecar", ".status.containerStatuses[0].state.running.startedAt");
    assert!(proxy <= app, "{proxy} {app}");
}

#[test]
fn a_container_using_more_memory_than_its_limit_is_oom_killed_and_restarted_with_back_off() {
    let mut c = Cluster::new_default(1);
    let spec = "  containers:\n  - name: memory-demo-ctr\n    image: polinux/stress\n    resources:\n      requests: {memory: 50Mi}\n      limits: {memory: 100Mi}\n    command: [stress]\n    args: [--vm, '1', --vm-bytes, 250M, --vm-hang, '1']\n";
    apply(&mut c, &pod("memory-demo", spec));
    let seen = statuses(&mut c, "memory-demo", 30);
    assert_eq!(seen[..3], ["ContainerCreating", "Running", "OOMKilled"], "{seen:?}");
    assert!(seen.contains(&"CrashLoopBackOff".to_string()), "{seen:?}");
    let last = jsonpath(&mut c, "memory-demo", ".status.containerStatuses[0].lastState.terminated");
    assert!(last.contains("\"exitCode\":137") && last.contains("\"reason\":\"OOMKilled\""), "{last}");
    // Within its limit the same command runs.
    apply(&mut c, &pod("roomy", &spec.replace("limits: {memory: 100Mi}", "limits: {memory: 300Mi}")));
    c.advance_ms(10_000);
    assert_eq!(row(&mut c, "roomy"), "roomy 1/1 Running 0");
}

#[test]
fn a_pre_stop_hook_runs_before_the_container_is_signalled_and_uses_the_grace_period() {
    let mut c = Cluster::new_default(1);
    let spec = |hook: &str| format!("  containers:\n  - name: web\n    image: nginx:1.27\n{hook}");
    apply(&mut c, &pod("plain", &spec("")));
    apply(&mut c, &pod("hooked", &spec("    lifecycle:\n      preStop:\n        sleep: {seconds: 5}\n")));
    apply(
        &mut c,
        &pod("exec", &spec("    lifecycle:\n      preStop:\n        exec: {command: [sh, -c, 'sleep 3']}\n")),
    );
    c.advance_ms(10_000);
    kubectl(&mut c, "delete pod plain hooked exec --wait=false");
    let start = c.now().ms();
    at(&mut c, start, 2);
    assert_eq!(kubectl(&mut c, "get pod plain").0, "Error from server (NotFound): pods \"plain\" not found\n");
    assert_eq!(row(&mut c, "exec"), "exec 1/1 Terminating 0");
    at(&mut c, start, 4);
    assert_eq!(row(&mut c, "hooked"), "hooked 1/1 Terminating 0");
    assert_eq!(kubectl(&mut c, "get pod exec").0, "Error from server (NotFound): pods \"exec\" not found\n");
    at(&mut c, start, 6);
    assert_eq!(kubectl(&mut c, "get pod hooked").0, "Error from server (NotFound): pods \"hooked\" not found\n");
}

#[test]
fn a_restarted_kubelet_keeps_ready_containers_ready() {
    let mut c = Cluster::new_default(1);
    let spec = "  containers:\n  - name: web\n    image: nginx:1.27\n    readinessProbe:\n      httpGet: {path: /, port: 80}\n      initialDelaySeconds: 20\n";
    apply(&mut c, &pod("web", spec));
    c.advance_ms(30_000);
    assert_eq!(row(&mut c, "web"), "web 1/1 Running 0");
    c.stop("node01/kubelet").unwrap();
    c.start("node01/kubelet").unwrap();
    for _ in 0..10 {
        c.advance_ms(1_000);
        assert_eq!(row(&mut c, "web"), "web 1/1 Running 0");
    }
}

#[test]
fn a_liveness_kill_runs_the_pre_stop_hook_and_then_waits_out_the_grace_period() {
    let mut c = Cluster::new_default(1);
    let spec = "  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sleep, infinity]\n    livenessProbe:\n      exec: {command: [cat, /nope]}\n      initialDelaySeconds: 3\n      failureThreshold: 1\n    lifecycle:\n      preStop:\n        exec: {command: [sh, -c, 'exit 1']}\n";
    apply(&mut c, &pod("hooked", spec));
    let start = c.now().ms();
    // Probed 3 s after the start: killed; the hook fails at once and sleep ignores SIGTERM for the 5 s.
    at(&mut c, start, 9);
    assert_eq!(row(&mut c, "hooked"), "hooked 1/1 Running 0");
    let ev = events(&mut c, "hooked");
    assert!(
        ev.contains(
            "Warning Unhealthy 5s kubelet Liveness probe failed: cat: can't open '/nope': No such file or directory\n"
        ),
        "{ev}"
    );
    assert!(ev.contains("Normal Killing 5s kubelet Container app failed liveness probe, will be restarted\n"), "{ev}");
    assert!(ev.contains("Warning FailedPreStopHook 5s kubelet PreStopHook failed\n"), "{ev}");
    at(&mut c, start, 11);
    assert_eq!(row(&mut c, "hooked"), "hooked 1/1 Running 1 (2s ago)");
    assert_eq!(jsonpath(&mut c, "hooked", ".status.containerStatuses[0].lastState.terminated.exitCode"), "137");
}

#[test]
fn a_failing_post_start_hook_kills_the_container_and_a_passing_one_lets_it_run() {
    let mut c = Cluster::new_default(1);
    let spec = |script: &str| {
        format!("  containers:\n  - name: web\n    image: nginx:1.27\n    lifecycle:\n      postStart:\n        exec: {{command: [sh, -c, '{script}']}}\n")
    };
    apply(&mut c, &pod("fails", &spec("exit 1")));
    apply(&mut c, &pod("passes", &spec("echo hi")));
    c.advance_ms(8_000);
    let ev = events(&mut c, "fails");
    assert!(ev.contains(" kubelet PostStartHook failed\n") && ev.contains("Warning FailedPostStartHook "), "{ev}");
    assert!(ev.contains(" kubelet FailedPostStartHook\n") && ev.contains("Normal Killing "), "{ev}");
    assert_ne!(jsonpath(&mut c, "fails", ".status.containerStatuses[0].restartCount"), "0");
    assert_eq!(row(&mut c, "passes"), "passes 1/1 Running 0");
    assert!(!events(&mut c, "passes").contains("Failed"));
}

#[test]
fn a_sidecar_with_a_startup_probe_holds_the_app_back_until_the_probe_passes() {
    let mut c = Cluster::new_default(1);
    let spec = "  initContainers:\n  - name: proxy\n    image: nginx:1.27\n    restartPolicy: Always\n    startupProbe:\n      tcpSocket: {port: 80}\n      initialDelaySeconds: 4\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sleep, infinity]\n";
    apply(&mut c, &pod("gated", spec));
    c.advance_ms(15_000);
    assert_eq!(row(&mut c, "gated"), "gated 2/2 Running 0");
    let time = |c: &mut Cluster, path: &str| kubeglass::sim::time::parse_rfc3339(&jsonpath(c, "gated", path));
    let proxy = time(&mut c, ".status.initContainerStatuses[0].state.running.startedAt");
    let app = time(&mut c, ".status.containerStatuses[0].state.running.startedAt");
    let (Some(proxy), Some(app)) = (proxy, app) else { panic!("both run") };
    assert!(app.since(proxy) >= 4_000, "the app started {} ms after the sidecar", app.since(proxy));
}

#[test]
fn an_exec_probe_that_outlives_its_timeout_fails_with_the_kubelets_text_and_never_means_no_restart() {
    let mut c = Cluster::new_default(1);
    let spec = "  restartPolicy: Never\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sleep, infinity]\n    livenessProbe:\n      exec: {command: [sleep, \"5\"]}\n      initialDelaySeconds: 2\n      timeoutSeconds: 1\n      failureThreshold: 1\n";
    apply(&mut c, &pod("slow", spec));
    let start = c.now().ms();
    at(&mut c, start, 12);
    let ev = events(&mut c, "slow");
    assert!(ev.contains("kubelet Liveness probe failed: command \"sleep 5\" timed out\n"), "{ev}");
    assert!(ev.contains("Normal Killing "), "{ev}");
    assert!(ev.contains(" kubelet Container app failed liveness probe\n"), "without ', will be restarted': {ev}");
    assert_eq!(jsonpath(&mut c, "slow", ".status.containerStatuses[0].restartCount"), "0");
}

#[test]
fn a_probe_that_cannot_run_is_reported_as_errored_and_never_kills() {
    let mut c = Cluster::new_default(1);
    let spec = "  containers:\n  - name: app\n    image: nginx:1.27\n    livenessProbe:\n      tcpSocket: {port: nope}\n      failureThreshold: 1\n      periodSeconds: 2\n";
    apply(&mut c, &pod("badport", spec));
    let start = c.now().ms();
    at(&mut c, start, 30);
    let ev = events(&mut c, "badport");
    assert!(
        ev.contains(
            "kubelet Liveness probe errored and resulted in unknown state: strconv.Atoi: parsing \"nope\": invalid syntax\n"
        ),
        "{ev}"
    );
    assert!(!ev.contains("Killing"), "an errored probe is thrown away: {ev}");
    assert_eq!(row(&mut c, "badport"), "badport 1/1 Running 0");
}

#[test]
fn an_exec_probes_event_keeps_the_output_as_the_command_wrote_it() {
    let mut c = Cluster::new_default(1);
    let spec = "  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sleep, infinity]\n    readinessProbe:\n      exec: {command: [cat, /nope]}\n";
    apply(&mut c, &pod("reader", spec));
    let start = c.now().ms();
    at(&mut c, start, 15);
    let json = get(&mut c, "get events --field-selector reason=Unhealthy -o json");
    assert!(
        json.contains("\"message\": \"Readiness probe failed: cat: can't open '/nope': No such file or directory\\n\""),
        "{json}"
    );
}
