//! `kubectl debug`: an ephemeral container patched into a running pod through
//! `pods/<name>/ephemeralcontainers` (the kubelet starts it once, reports it in
//! `status.ephemeralContainerStatuses`, and attaches to it), and a debugging pod on a node sharing the
//! node's namespaces. The apiserver validates the change as `ValidatePodEphemeralContainersUpdate` does.

use kubeglass::cluster::Cluster;

use crate::kubectl;

const LEGACY: &str = "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".\n";
const RECORDED: &str = "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.\nIf you don't see a command prompt, try pressing enter.\n";

fn cluster() -> Cluster {
    let mut c = Cluster::new_default(5);
    c.advance_ms(2_000);
    let (out, _) = kubectl(&mut c, "run web --image=nginx");
    assert_eq!(out, "pod/web created\n");
    c.advance_ms(20_000);
    c
}

/// The generated name from `Defaulting debug container name to debugger-xxxxx.`.
fn defaulted(out: &str) -> String {
    let line = out.lines().find(|l| l.starts_with("Defaulting debug container name to ")).unwrap_or_default();
    let name = line.trim_start_matches("Defaulting debug container name to ").trim_end_matches('.');
    assert!(name.starts_with("debugger-") && name.len() == 14, "{out}");
    assert!(name[9..].bytes().all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)), "{out}");
    name.to_string()
}

#[test]
fn an_ephemeral_container_joins_the_running_pod_and_shows_in_its_status() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "debug web --image=busybox -- sleep 3600");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with(LEGACY), "{out}");
    let name = defaulted(&out);
    c.advance_ms(10_000);
    let (out, _) = kubectl(&mut c, "get pod web -o jsonpath={.spec.ephemeralContainers[0].name}");
    assert_eq!(out, name);
    let jsonpath = "{.status.ephemeralContainerStatuses[0].state.running.startedAt}";
    assert!(!kubectl(&mut c, &format!("get pod web -o jsonpath={jsonpath}")).0.is_empty());
    // The pod itself stays as it was: one container, still ready.
    let (out, _) = kubectl(&mut c, "get pod web --no-headers");
    let words: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(words[..4], ["web", "1/1", "Running", "0"], "{out}");
    let (out, _) = kubectl(&mut c, "describe pod web");
    let section = out.split("Ephemeral Containers:\n").nth(1).unwrap_or_default();
    assert!(section.starts_with(&format!("  {name}:\n    Container ID:  containerd://")), "{out}");
    assert!(section.contains("    Command:\n      sleep\n      3600\n"), "{out}");
    assert!(section.contains("    State:          Running\n"), "{out}");
    assert!(section.contains("    Ready:          False\n"), "{out}");
    // Ephemeral containers cannot be removed, and exec reaches them.
    let (out, code) = kubectl(&mut c, &format!("exec web -c {name} -- hostname"));
    assert_eq!((out.as_str(), code), ("web\n", Some(0)));
}

#[test]
fn debug_i_attaches_to_a_shell_in_the_pods_network() {
    let mut c = cluster();
    let input = "hostname\nwget -qO- localhost\nexit\n";
    let r = c.kubectl("debug web -i --image=busybox --profile=general", Some(input.into()), 120_000);
    assert!(!r.output.contains("deprecated"), "{}", r.output);
    let name = defaulted(&r.output);
    let after = r.output.split(&format!("to {name}.\n")).nth(1).unwrap_or_default();
    assert!(after.starts_with(&format!("{RECORDED}web\n<!DOCTYPE html>")), "{}", r.output);
    assert_eq!(r.exit, Some(0));
    // The profile let the container trace processes; the shell's exit ended it for good.
    let (out, _) = kubectl(&mut c, "get pod web -o jsonpath={.spec.ephemeralContainers[0].securityContext}");
    assert_eq!(out, r#"{"capabilities":{"add":["SYS_PTRACE"]}}"#);
    c.advance_ms(5_000);
    let jsonpath = "{.status.ephemeralContainerStatuses[0].state.terminated.reason}";
    assert_eq!(kubectl(&mut c, &format!("get pod web -o jsonpath={jsonpath}")).0, "Completed");
}

#[test]
fn debug_refuses_what_kubectl_and_the_apiserver_refuse() {
    let mut c = cluster();
    let cases = [
        ("debug web", "error: you must specify --image when not using --copy-to.\n"),
        ("debug web -t --image=busybox", "error: -i/--stdin is required for containers with -t/--tty=true\n"),
        ("debug web --image=busybox --profile=odd", "error: unknown profile: odd\n"),
        ("debug --image=busybox", "error: NAME or filename is required for debug\n"),
    ];
    for (line, expected) in cases {
        let (out, code) = kubectl(&mut c, line);
        assert_eq!((out.as_str(), code), (expected, Some(1)), "{line}");
    }
    let (out, code) = kubectl(&mut c, "debug nope --image=busybox");
    assert_eq!(
        (out.as_str(), code),
        (format!("{LEGACY}Error from server (NotFound): pods \"nope\" not found\n").as_str(), Some(1))
    );
    let (out, _) = kubectl(&mut c, "debug web --image=busybox --target=nope -c dbg");
    assert!(out.starts_with("Targeting container \"nope\". If you don't see processes"), "{out}");
    assert!(
        out.ends_with(
            "The Pod \"web\" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"\n"
        ),
        "{out}"
    );
    let (out, _) = kubectl(&mut c, "debug web --image=busybox -c web");
    assert!(
        out.ends_with("The Pod \"web\" is invalid: spec.ephemeralContainers[0].name: Duplicate value: \"web\"\n"),
        "{out}"
    );
    // Nothing was added by the refused attempts.
    let (out, _) = kubectl(&mut c, "get pod web -o jsonpath={.spec.ephemeralContainers}");
    assert_eq!(out, "");
}

#[test]
fn debug_node_runs_a_pod_in_the_nodes_namespaces() {
    let mut c = cluster();
    let r = c.kubectl("debug node/node01 -i --image=busybox", Some("hostname\nexit\n".into()), 120_000);
    let line = r.output.lines().find(|l| l.starts_with("Creating debugging pod ")).unwrap_or_default().to_string();
    assert!(line.starts_with("Creating debugging pod node-debugger-node01-"), "{}", r.output);
    assert!(line.ends_with(" with container debugger on node node01."), "{}", r.output);
    assert!(r.output.ends_with(&format!("{RECORDED}node01\n")), "{}", r.output);
    let pod = line.split_whitespace().nth(3).unwrap_or_default().to_string();
    let fields = "{.spec.hostNetwork} {.spec.hostPID} {.spec.hostIPC} {.spec.restartPolicy} {.spec.volumes[0].hostPath.path} {.spec.containers[0].volumeMounts[0].mountPath} {.metadata.labels}";
    let (out, _) = kubectl(&mut c, &format!("get pod {pod} -o jsonpath='{fields}'"));
    assert_eq!(out, r#"true true true Never / /host {"app.kubernetes.io/managed-by":"kubectl-debug"}"#);
    let (out, code) = kubectl(&mut c, "debug node/nope --image=busybox");
    assert_eq!(
        (out.as_str(), code),
        (format!("{LEGACY}Error from server (NotFound): nodes \"nope\" not found\n").as_str(), Some(1))
    );
}

#[test]
fn an_ephemeral_container_starts_while_an_init_container_is_stuck_and_its_log_is_read() {
    let mut c = cluster();
    let manifest = "apiVersion: v1
kind: Pod
metadata: {name: stuck}
spec:
  initContainers: [{name: wait, image: busybox, command: [sleep, '3600']}]
  containers: [{name: app, image: nginx}]
";
    crate::apply(&mut c, manifest);
    c.advance_ms(20_000);
    let (out, _) = kubectl(&mut c, "debug stuck --image=busybox -c dbg --profile=general -- sh -c 'echo looking'");
    assert_eq!(out, "");
    c.advance_ms(10_000);
    let state = "{.status.ephemeralContainerStatuses[0].state.terminated.reason}";
    assert_eq!(kubectl(&mut c, &format!("get pod stuck -o jsonpath={state}")).0, "Completed");
    assert_eq!(kubectl(&mut c, "logs stuck -c dbg"), ("looking\n".to_string(), Some(0)));
    // The pod is still initializing: the debugging container did not wait for it.
    let (out, _) = kubectl(&mut c, "get pod stuck --no-headers");
    assert!(out.contains("Init:0/1"), "{out}");
}

#[test]
fn debug_i_of_a_command_that_ends_first_prints_its_log() {
    let mut c = cluster();
    // kubectl saw it running, but it had ended by the time the attach reached the kubelet.
    let r = c.kubectl("debug web -i --image=busybox -c quick --profile=general -- echo hi", None, 120_000);
    let warning = "warning: couldn't attach to pod/web, falling back to streaming logs: Internal error occurred: unable to upgrade connection: container not found (\"quick\")\n";
    assert_eq!(r.output, format!("{RECORDED}{warning}hi\n"));
    assert_eq!(r.exit, Some(0));
}

#[test]
fn the_pod_itself_cannot_change_its_ephemeral_containers() {
    let mut c = cluster();
    let patch = r#"[{"op":"add","path":"/spec/ephemeralContainers","value":[{"name":"dbg","image":"busybox"}]}]"#;
    let (out, code) = kubectl(&mut c, &format!("patch pod web --type=json -p '{patch}'"));
    assert!(
        out.starts_with("The Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"),
        "{out}"
    );
    assert_eq!(code, Some(1));
    assert_eq!(kubectl(&mut c, "get pod web -o jsonpath={.spec.ephemeralContainers}").0, "");
}
