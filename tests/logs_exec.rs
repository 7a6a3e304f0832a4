//! `kubectl logs`, `kubectl exec` and `kubectl top`: logs and exec travel kubectl → kube-apiserver (which
//! reads the pod) → the pod's kubelet on :10250 → containerd, and back; their errors come from whichever
//! of them refuses.

use kubeglass::api::{ApiRequest, ApiResponse, Credentials, Verb};
use kubeglass::cluster::{Cluster, ClusterConfig, UserConfig};
use kubeglass::view::steps::data_flow;

use crate::{apply, kubectl};

fn pod(name: &str, image: &str, command: &str) -> String {
    let command = if command.is_empty() { String::new() } else { format!("    command: {command}\n") };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  nodeName: node01\n  containers:\n  - name: {name}\n    image: {image}\n{command}"
    )
}

/// A cluster with `manifest` applied and `ms` of simulated time run.
fn running(manifest: &str, ms: u64) -> Cluster {
    let mut c = Cluster::new_default(3);
    let (out, code) = apply(&mut c, manifest);
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(ms);
    c
}

/// The data-flow arrows of a command: `from → to label`.
fn arrows(c: &Cluster, chain: u64) -> Vec<String> {
    data_flow(c.kernel(), chain).iter().map(|s| format!("{} → {} {}", s.from, s.to, s.label)).collect()
}

#[test]
fn nginx_logs_come_from_containerd_through_the_kubelet_and_the_apiserver() {
    let mut c = running(&pod("web", "nginx:1.27", ""), 5_000);
    let r = c.kubectl("logs web", None, 10_000);
    assert_eq!(r.exit, Some(0), "{}", r.output);
    let lines: Vec<&str> = r.output.lines().collect();
    assert_eq!(
        lines[0],
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration"
    );
    assert!(lines.contains(&"/docker-entrypoint.sh: Configuration complete; ready for start up"), "{}", r.output);
    assert!(lines.iter().any(|l| l.ends_with(" [notice] 1#1: nginx/1.27.5")), "{}", r.output);
    assert_eq!(lines.iter().filter(|l| l.contains("start worker process ")).count(), 2, "{}", r.output);
    let flow = arrows(&c, r.chain);
    for step in [
        "kubectl → kube-apiserver get pods/log",
        "kube-apiserver → node01/kubelet GET /containerLogs",
        "node01/kubelet → node01/containerd ContainerStatus",
        "node01/containerd → node01/kubelet OK",
        "node01/kubelet → kube-apiserver 200 OK",
    ] {
        assert!(flow.iter().any(|f| f == step), "missing {step:?} in {flow:#?}");
    }
    let record = c.apiserver().and_then(|a| a.requests().for_chain(r.chain).last().copied().cloned());
    let path = record.map(|r| r.path_line()).unwrap_or_default();
    assert!(path.contains("etcd ✓ pod web → kubelet ✓ 200"), "{path}");
}

#[test]
fn a_script_prints_its_echoes_when_its_sleeps_have_passed_and_tail_and_timestamps_shape_them() {
    let script = "[sh, -c, 'echo one; sleep 2; echo two; sleep 2; echo three; sleep 3600']";
    let mut c = running(&pod("talker", "busybox:1.36", script), 2_000);
    let started =
        kubectl(&mut c, "get pod talker -o jsonpath={.status.containerStatuses[0].state.running.startedAt}").0;
    assert!(!started.is_empty(), "not running yet");
    let early = kubectl(&mut c, "logs talker").0;
    assert!(early.starts_with("one\n") && !early.contains("three"), "{early}");
    c.advance_ms(5_000);
    assert_eq!(kubectl(&mut c, "logs talker").0, "one\ntwo\nthree\n");
    assert_eq!(kubectl(&mut c, "logs talker --tail 1").0, "three\n");
    assert_eq!(kubectl(&mut c, "logs talker --tail=0").0, "");
    let stamped = kubectl(&mut c, "logs talker --timestamps").0;
    let times: Vec<&str> = stamped.lines().map(|l| l.split(' ').next().unwrap_or("")).collect();
    assert_eq!(
        stamped.lines().map(|l| l.split_once(' ').map_or("", |x| x.1)).collect::<Vec<_>>(),
        ["one", "two", "three"]
    );
    let secs = |t: &str| {
        t[17..19].parse::<f64>().unwrap_or(-1.0) + t[19..].trim_end_matches('Z').parse::<f64>().unwrap_or(0.0)
    };
    assert!(times.iter().all(|t| t.starts_with("2025-09-01T00:00:") && t.ends_with('Z')), "{stamped}");
    assert!((secs(times[1]) - secs(times[0]) - 2.0).abs() < 0.01, "{stamped}");
    assert!((secs(times[2]) - secs(times[1]) - 2.0).abs() < 0.01, "{stamped}");
    // --since-time keeps the lines written from then on, --limit-bytes cuts the text.
    let second = &times[1][..19];
    assert_eq!(kubectl(&mut c, &format!("logs talker --since-time={second}Z")).0, "two\nthree\n");
    assert_eq!(kubectl(&mut c, "logs talker --limit-bytes=6").0, "one\ntw");
    assert_eq!(kubectl(&mut c, "logs talker --since=1h").0, "one\ntwo\nthree\n");
    assert_eq!(kubectl(&mut c, "logs talker --since=1ms").0, "");
    // -f prints what exists, then keeps following the running container (here until the time limit).
    let r = c.kubectl("logs -f talker", None, 5_000);
    assert_eq!((r.output.as_str(), r.exit), ("one\ntwo\nthree\n", None));
}

#[test]
fn a_waiting_container_has_no_logs_and_the_kubelet_says_why() {
    let mut c = Cluster::new_default(3);
    apply(&mut c, &pod("web", "nginx:1.27", ""));
    assert_eq!(
        kubectl(&mut c, "logs web"),
        (
            "Error from server (BadRequest): container \"web\" in pod \"web\" is waiting to start: ContainerCreating\n"
                .into(),
            Some(1)
        )
    );
    apply(&mut c, &pod("broken", "nginx:doesnotexist", ""));
    // Its pull takes its turn after web's (the kubelet pulls one image at a time).
    c.advance_ms(6_000);
    assert_eq!(
        kubectl(&mut c, "logs broken").0,
        "Error from server (BadRequest): container \"broken\" in pod \"broken\" is waiting to start: image can't be pulled\n"
    );
    // Between pulls the container waits in ImagePullBackOff, and the message follows the waiting reason.
    let mut seen = Vec::new();
    for _ in 0..60 {
        c.advance_ms(1_000);
        let reason =
            kubectl(&mut c, "get pod broken -o jsonpath={.status.containerStatuses[0].state.waiting.reason}").0;
        let logs = kubectl(&mut c, "logs broken").0;
        seen.push((reason, logs));
    }
    let backoff = seen.iter().find(|(r, _)| r == "ImagePullBackOff").map(|(_, l)| l.clone());
    assert_eq!(
        backoff.as_deref(),
        Some("Error from server (BadRequest): container \"broken\" in pod \"broken\" is waiting to start: trying and failing to pull image\n"),
        "{seen:?}"
    );
}

#[test]
fn previous_logs_are_the_last_run_of_a_crashed_container() {
    let mut c = Cluster::new_default(3);
    apply(&mut c, &pod("crash", "busybox:1.36", "[sh, -c, 'echo attempt; date; sleep 5; exit 1']"));
    for _ in 0..50 {
        if kubectl(&mut c, "get pod crash").0.contains("Running") {
            break;
        }
        c.advance_ms(100);
    }
    // The first run has not ended: there is no previous one yet.
    assert_eq!(
        kubectl(&mut c, "logs crash -p").0,
        "Error from server (BadRequest): previous terminated container \"crash\" in pod \"crash\" not found\n"
    );
    c.advance_ms(30_000);
    let restarts = kubectl(&mut c, "get pod crash -o jsonpath={.status.containerStatuses[0].restartCount}").0;
    assert!(restarts.parse::<u32>().unwrap_or(0) >= 1, "{restarts}");
    let previous = kubectl(&mut c, "logs crash --previous");
    assert_eq!(previous.1, Some(0), "{}", previous.0);
    let lines: Vec<&str> = previous.0.lines().collect();
    assert_eq!(lines.first(), Some(&"attempt"));
    assert!(lines.get(1).is_some_and(|l| l.ends_with(" UTC 2025") && l.starts_with("Mon Sep  1 00:00:")), "{lines:?}");
    // While it waits in CrashLoopBackOff, plain logs are the last run's too.
    assert!(kubectl(&mut c, "logs crash").0.starts_with("attempt\n"));
}

#[test]
fn logs_fail_with_the_dial_error_when_the_nodes_kubelet_is_stopped() {
    let mut c = running(&pod("web", "nginx:1.27", ""), 5_000);
    c.stop("node01/kubelet").unwrap();
    let r = c.kubectl("logs web --tail=1", None, 10_000);
    assert_eq!(
        r.output,
        "Error from server: Get \"https://192.168.56.11:10250/containerLogs/default/web/web?tailLines=1\": dial tcp 192.168.56.11:10250: connect: connection refused\n"
    );
    assert_eq!(r.exit, Some(1));
    let flow = data_flow(c.kernel(), r.chain);
    assert!(flow.iter().any(|s| s.to == "node01/kubelet" && s.outcome == "refused"), "{flow:#?}");
    // containerd still runs the container; the kubelet coming back adopts it and serves logs again.
    let id = "get pod web -o jsonpath={.status.containerStatuses[0].containerID}";
    let before = kubectl(&mut c, id).0;
    c.start("node01/kubelet").unwrap();
    c.advance_ms(3_000);
    assert!(kubectl(&mut c, "logs web --tail=1").0.contains("start worker process"));
    c.advance_ms(30_000);
    assert_eq!(kubectl(&mut c, id).0, before);
    let running = c.containerd("node01").map(|d| {
        d.containers()
            .filter(|x| x.name == "web" && x.state == kubeglass::node::runtime::ContainerState::Running)
            .count()
    });
    assert_eq!(running, Some(1), "a kubelet restart leaves the pod's container running");
}

#[test]
fn pods_with_several_containers_need_a_choice() {
    let manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: duo\n  annotations: {kubeglass.dev/logs: \"hello from the annotation\"}\nspec:\n  nodeName: node02\n  containers:\n  - {name: a, image: busybox:1.36, command: [sh, -c, 'echo from-a; sleep 3600']}\n  - {name: b, image: busybox:1.36, command: [sh, -c, 'echo from-b; sleep 3600']}\n";
    let mut c = running(manifest, 5_000);
    assert_eq!(
        kubectl(&mut c, "logs duo").0,
        "Defaulted container \"a\" out of: a, b\nhello from the annotation\nfrom-a\n"
    );
    assert_eq!(kubectl(&mut c, "logs duo -c b").0, "hello from the annotation\nfrom-b\n");
    assert_eq!(kubectl(&mut c, "logs duo b").0, "hello from the annotation\nfrom-b\n");
    assert_eq!(kubectl(&mut c, "logs duo -c zz"), ("error: container zz is not valid for pod duo\n".into(), Some(1)));
    assert_eq!(
        kubectl(&mut c, "logs duo --all-containers --prefix").0,
        "[pod/duo/a] hello from the annotation\n[pod/duo/a] from-a\n[pod/duo/b] hello from the annotation\n[pod/duo/b] from-b\n"
    );
    // The API itself, asked without a container, names the choices.
    let (pid, chain) = c.spawn(None, |api| {
        Box::pin(async move {
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Get, kubeglass::api::lookup("pods").unwrap())
                .namespace(Some("default"))
                .name("duo")
                .subresource("log");
            req.params.tail_lines = Some(1);
            match api.call(req).await {
                Ok(ApiResponse::Error(s)) => {
                    api.print(&s.kubectl_line());
                    0
                }
                _ => 1,
            }
        })
    });
    let r = c.run_until_exit((pid, chain), 5_000);
    assert_eq!(
        r.output,
        "Error from server (BadRequest): a container name must be specified for pod duo, choose one of: [a b]"
    );
}

#[test]
fn logs_of_a_workload_pick_one_of_its_pods_and_a_selector_reads_them_all() {
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: app, image: busybox:1.36, command: [sh, -c, 'echo ready; sleep 3600']}\n";
    let mut c = running(deploy, 10_000);
    let one = kubectl(&mut c, "logs deploy/web").0;
    assert!(one.starts_with("Found 2 pods, using pod/web-") && one.ends_with("\nready\n"), "{one}");
    let all = kubectl(&mut c, "logs -l app=web --prefix").0;
    assert_eq!(all.lines().filter(|l| l.ends_with("/app] ready")).count(), 2, "{all}");
    assert_eq!(kubectl(&mut c, "logs -l app=nothing").0, "No resources found in default namespace.\n");
    assert_eq!(
        kubectl(&mut c, "logs -l app=web web").0,
        "error: only a selector (-l) or a POD name is allowed\nSee 'kubectl logs -h' for help and examples\n"
    );
    assert_eq!(
        kubectl(&mut c, "logs").0,
        "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples\n"
    );
}

#[test]
fn an_unscheduled_pod_has_an_empty_log_and_no_host_to_exec_in() {
    let manifest =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: lost}\nspec:\n  nodeSelector: {disk: none}\n  containers:\n  - {name: lost, image: nginx:1.27}\n";
    let mut c = running(manifest, 2_000);
    assert_eq!(kubectl(&mut c, "logs lost"), (String::new(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "exec lost -- ls"),
        ("Error from server (BadRequest): pod lost does not have a host assigned\n".into(), Some(1))
    );
}

#[test]
fn reading_logs_needs_get_on_pods_log() {
    let config = ClusterConfig {
        users: vec![UserConfig { name: "jane".into(), token: "jane-token".into(), groups: vec![] }],
        ..ClusterConfig::default()
    };
    let mut c = Cluster::new(config, 3);
    apply(&mut c, &pod("web", "nginx:1.27", ""));
    apply(&mut c, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: viewer}\nrules:\n- {apiGroups: [''], resources: [pods], verbs: [get]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: viewer}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: viewer}\nsubjects:\n- {kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}\n");
    c.advance_ms(5_000);
    assert_eq!(
        kubectl(&mut c, "logs web --as jane").0,
        "Error from server (Forbidden): pods \"web\" is forbidden: User \"jane\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"default\"\n"
    );
    assert_eq!(
        kubectl(&mut c, "exec web --as jane -- ls").0,
        "Error from server (Forbidden): pods \"web\" is forbidden: User \"jane\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"default\"\n"
    );
}

#[test]
fn exec_runs_the_command_in_the_container_with_the_kubelet_managed_files() {
    let manifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeName: node01\n  containers:\n  - name: web\n    image: nginx:1.27\n    env:\n    - {name: GREETING, value: hello}\n    - name: MY_POD\n      valueFrom: {fieldRef: {fieldPath: metadata.name}}\n";
    let mut c = running(manifest, 5_000);
    let ip = kubectl(&mut c, "get pod web -o jsonpath={.status.podIP}").0;
    let r = c.kubectl("exec web -- hostname", None, 10_000);
    assert_eq!((r.output.as_str(), r.exit), ("web\n", Some(0)));
    let flow = arrows(&c, r.chain);
    for step in [
        "kubectl → kube-apiserver create pods/exec",
        "kube-apiserver → node01/kubelet POST /exec",
        "node01/kubelet → node01/containerd ExecSync",
        "node01/kubelet → kube-apiserver 101 Switching Protocols",
    ] {
        assert!(flow.iter().any(|f| f == step), "missing {step:?} in {flow:#?}");
    }
    let hosts = kubectl(&mut c, "exec web -- cat /etc/hosts").0;
    assert!(hosts.starts_with("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"), "{hosts}");
    assert!(hosts.ends_with(&format!("\n{ip}\tweb\n")), "{hosts}");
    assert_eq!(
        kubectl(&mut c, "exec web -- cat /etc/resolv.conf").0,
        "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"
    );
    let env = kubectl(&mut c, "exec web -- env").0;
    for line in ["HOSTNAME=web", "GREETING=hello", "MY_POD=web", "KUBERNETES_SERVICE_HOST=10.96.0.1", "HOME=/root"] {
        assert!(env.lines().any(|l| l == line), "missing {line} in {env}");
    }
    assert_eq!(kubectl(&mut c, "exec web -- printenv GREETING").0, "hello\n");
    assert_eq!(kubectl(&mut c, "exec web -- sh -c 'echo \"$MY_POD says $GREETING\"'").0, "web says hello\n");
    let date = kubectl(&mut c, "exec web -- date").0;
    assert!(date.starts_with("Mon Sep  1 00:00:0") && date.ends_with(" UTC 2025\n"), "{date}");
    assert!(kubectl(&mut c, "exec web -- ls /").0.contains("\ndocker-entrypoint.sh\netc\n"));
}

#[test]
fn exit_codes_of_commands_become_kubectls() {
    let mut c = running(&pod("box", "busybox:1.36", "[sleep, infinity]"), 4_000);
    assert_eq!(
        kubectl(&mut c, "exec box -- sh -c 'echo partial; exit 3'"),
        ("partial\ncommand terminated with exit code 3\n".into(), Some(3))
    );
    assert_eq!(kubectl(&mut c, "exec box -- false"), ("command terminated with exit code 1\n".into(), Some(1)));
    assert_eq!(kubectl(&mut c, "exec box -- true"), (String::new(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "exec box -- sh -c 'nslookup2 x || echo fallback'"),
        ("sh: nslookup2: not found\nfallback\n".into(), Some(0))
    );
    assert_eq!(
        kubectl(&mut c, "exec box -- sh -c 'echo out; cat /nope 2>&1; echo hidden >/dev/null; echo err >&2'"),
        ("out\ncat: can't open '/nope': No such file or directory\nerr\n".into(), Some(0))
    );
    assert_eq!(
        kubectl(&mut c, "exec box -- cat /nope"),
        ("cat: can't open '/nope': No such file or directory\ncommand terminated with exit code 1\n".into(), Some(1))
    );
    let (out, code) = kubectl(&mut c, "exec box -- foo --bar");
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec \""),
        "{out}"
    );
    assert!(
        out.ends_with("\": OCI runtime exec failed: exec failed: unable to start container process: exec: \"foo\": executable file not found in $PATH: unknown\n"),
        "{out}"
    );
    // sleep takes simulated time.
    let before = c.now().ms();
    assert_eq!(kubectl(&mut c, "exec box -- sleep 3").1, Some(0));
    assert!(c.now().ms() - before >= 3_000);
    // A Debian-based image's sh is dash.
    let mut c = running(&pod("web", "nginx:1.27", ""), 4_000);
    assert_eq!(
        kubectl(&mut c, "exec web -- sh -c 'true; foo'"),
        ("sh: 1: foo: not found\ncommand terminated with exit code 127\n".into(), Some(127))
    );
}

#[test]
fn exec_needs_a_running_container_and_a_listening_kubelet() {
    let mut c = Cluster::new_default(3);
    apply(&mut c, &pod("web", "nginx:1.27", ""));
    assert_eq!(
        kubectl(&mut c, "exec web -- ls"),
        (
            "error: Internal error occurred: unable to upgrade connection: container not found (\"web\")\n".into(),
            Some(1)
        )
    );
    apply(&mut c, "apiVersion: v1\nkind: Pod\nmetadata: {name: done}\nspec:\n  restartPolicy: Never\n  nodeName: node02\n  containers:\n  - {name: done, image: busybox:1.36, command: ['true']}\n");
    c.advance_ms(6_000);
    assert_eq!(
        kubectl(&mut c, "exec done -- ls"),
        ("error: cannot exec into a container in a completed pod; current phase is Succeeded\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "exec done -c other -- ls").0,
        "error: cannot exec into a container in a completed pod; current phase is Succeeded\n"
    );
    c.advance_ms(5_000);
    assert_eq!(
        kubectl(&mut c, "exec web -c other -- ls"),
        ("Error from server (BadRequest): container other is not valid for pod web\n".into(), Some(1))
    );
    // A stopped containerd: the kubelet cannot reach its runtime.
    c.stop("node01/containerd").unwrap();
    assert_eq!(
        kubectl(&mut c, "exec web -- ls").0,
        "error: Internal error occurred: unable to upgrade connection: rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory\"\n"
    );
    let logs = kubectl(&mut c, "logs web").0;
    assert!(
        logs.starts_with("Error from server (BadRequest): unable to retrieve container logs for containerd://"),
        "{logs}"
    );
    c.start("node01/containerd").unwrap();
    c.stop("node01/kubelet").unwrap();
    assert_eq!(
        kubectl(&mut c, "exec web -- ls"),
        (
            "Error from server: error dialing backend: dial tcp 192.168.56.11:10250: connect: connection refused\n"
                .into(),
            Some(1)
        )
    );
}

#[test]
fn exec_reads_stdin_with_i_and_notes_the_missing_terminal_with_it() {
    let mut c = running(&pod("box", "busybox:1.36", "[sleep, infinity]"), 4_000);
    let r = c.kubectl("exec -i box -- sh", Some("echo from stdin\nhostname\n".into()), 10_000);
    assert_eq!((r.output.as_str(), r.exit), ("from stdin\nbox\n", Some(0)));
    let r = c.kubectl("exec -it box -- sh", None, 10_000);
    assert_eq!(
        (r.output.as_str(), r.exit),
        ("Unable to use a TTY - input is not a terminal or the right kind of file\n", Some(0))
    );
    assert_eq!(
        kubectl(&mut c, "exec box ls"),
        (
            "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples\n".into(),
            Some(1)
        )
    );
    assert_eq!(
        kubectl(&mut c, "exec box"),
        ("error: you must specify at least one command for the container\n".into(), Some(1))
    );
}

#[test]
fn top_needs_the_metrics_api_which_a_kubeadm_cluster_does_not_serve() {
    let mut c = Cluster::new_default(3);
    assert_eq!(kubectl(&mut c, "top nodes"), ("error: Metrics API not available\n".into(), Some(1)));
    assert_eq!(kubectl(&mut c, "top pod -A"), ("error: Metrics API not available\n".into(), Some(1)));
    assert_eq!(
        kubectl(&mut c, "top pod --sort-by=name"),
        ("error: --sort-by accepts only cpu or memory\n".into(), Some(1))
    );
    let (help, code) = kubectl(&mut c, "top");
    assert!(help.starts_with("Display resource (CPU/memory) usage.\n") && code == Some(1), "{help}");
}

#[test]
fn logs_follow_a_running_container_until_it_exits() {
    let manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: steps\nspec:\n  nodeName: node01\n  restartPolicy: Never\n  containers:\n  - name: steps\n    image: busybox\n    command: [sh, -c, 'echo a; sleep 3; echo b; sleep 3; echo c']\n";
    let mut c = running(manifest, 0);
    let mut first = kubectl(&mut c, "logs steps");
    for _ in 0..120 {
        if first.1 == Some(0) && !first.0.is_empty() {
            break;
        }
        c.advance_ms(250);
        first = kubectl(&mut c, "logs steps");
    }
    assert_eq!(first, ("a\n".to_string(), Some(0)), "only the first line so far");
    // -f keeps the stream open: the kubelet passes on each line as it is written, and kubectl ends when the
    // container does.
    let r = c.kubectl("logs -f steps", None, 60_000);
    assert_eq!((r.output.as_str(), r.exit), ("a\nb\nc\n", Some(0)));
    let flow = arrows(&c, r.chain);
    assert!(flow.iter().any(|a| a.ends_with("200 OK (following)")), "{flow:#?}");
    assert!(flow.iter().any(|a| a.starts_with("node01/kubelet") && a.ends_with("log +1 lines")), "{flow:#?}");
    assert!(flow.iter().any(|a| a.ends_with("log end")), "{flow:#?}");
}

#[test]
fn a_followed_log_closed_by_its_client_is_closed_at_the_kubelet() {
    let manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ticker\nspec:\n  nodeName: node01\n  containers:\n  - name: ticker\n    image: busybox\n    command: [sh, -c, 'while true; do echo tick; sleep 2; done']\n";
    let mut c = running(manifest, 5_000);
    let before = kubectl(&mut c, "logs ticker").0.lines().count();
    // Still following at its time limit: the process ends there, as Ctrl-C ends it.
    let r = c.kubectl("logs -f ticker", None, 9_000);
    assert_eq!(r.exit, None, "{}", r.output);
    let followed = r.output.lines().count();
    assert!(r.output.lines().all(|l| l == "tick") && followed >= before + 4, "{before} then {}", r.output);
    // The stream's messages are steps of the command; once kubectl has gone, the kubelet sends no more.
    let passed_on = |c: &Cluster| {
        arrows(c, r.chain).iter().filter(|a| a.starts_with("node01/kubelet") && a.contains("log +")).count()
    };
    let sent = passed_on(&c);
    assert!(sent >= 3, "{:#?}", arrows(&c, r.chain));
    c.advance_ms(10_000);
    assert_eq!(passed_on(&c), sent, "{:#?}", arrows(&c, r.chain));
}
