//! Network programs inside containers: `wget` (busybox) and `curl` run by `kubectl exec`, by a container's
//! own command and by `kubectl run --rm -i`, reach Services by name through the pod's resolv.conf, CoreDNS
//! and its node's kube-proxy rules, exactly as the node shell's curl does; what they print is the program's
//! own text.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

/// nginx pod `web-a` behind Service `web`, a Service `empty` with no endpoints, and a busybox client pod.
const PODS: &str = "apiVersion: v1
kind: Pod
metadata: {name: web-a, labels: {app: web}}
spec:
  nodeName: node01
  containers: [{name: nginx, image: 'nginx:1.27'}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: empty}
spec:
  selector: {app: nobody}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  nodeName: node02
  containers: [{name: c, image: busybox, command: [sleep, '3600']}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: other}
spec:
  nodeName: node01
  containers: [{name: c, image: busybox, command: [sleep, '3600']}]
";

fn cluster() -> Cluster {
    let mut c = Cluster::new_default(11);
    let (out, code) = apply(&mut c, PODS);
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(30_000);
    c
}

fn welcome(out: &str) -> bool {
    out.starts_with("<!DOCTYPE html>") && out.contains("<title>Welcome to nginx!</title>")
}

#[test]
fn exec_wget_reaches_a_service_by_name_and_a_pod_by_address() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "exec client -- wget -qO- web");
    assert!(welcome(&out), "{out}");
    assert_eq!(code, Some(0));
    let ip = kubectl(&mut c, "get pod web-a -o jsonpath={.status.podIP}").0;
    let (out, _) = kubectl(&mut c, &format!("exec client -- wget -qO- http://{ip}/"));
    assert!(welcome(&out), "{out}");
    // Not quiet: busybox's lines on stderr around the body (kubectl prints both streams).
    let svc = kubectl(&mut c, "get svc web -o jsonpath={.spec.clusterIP}").0;
    let (out, _) = kubectl(&mut c, "exec client -- wget -O- web");
    assert!(out.starts_with(&format!("Connecting to web ({svc}:80)\n")), "{out}");
    assert!(out.contains("\n-                    100% |********************************|   "), "{out}");
    assert!(out.ends_with("written to stdout\n"), "{out}");
}

#[test]
fn names_resolve_through_the_pods_own_search_list() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "exec -n other client -- wget -qO- web");
    assert_eq!((out.as_str(), code), ("wget: bad address 'web'\ncommand terminated with exit code 1\n", Some(1)));
    let (out, code) = kubectl(&mut c, "exec -n other client -- wget -qO- web.default");
    assert!(welcome(&out), "{out}");
    assert_eq!(code, Some(0));
    let (out, _) = kubectl(&mut c, "exec -n other client -- wget -qO- web.default.svc.cluster.local");
    assert!(welcome(&out), "{out}");
}

#[test]
fn kube_proxy_rejects_a_service_without_endpoints_and_the_script_goes_on() {
    let mut c = cluster();
    let svc = kubectl(&mut c, "get svc empty -o jsonpath={.spec.clusterIP}").0;
    let (out, code) = kubectl(&mut c, "exec client -- sh -c 'wget -qO- empty || echo failed $?'");
    assert_eq!(out, format!("wget: can't connect to remote host ({svc}): Connection refused\nfailed 1\n"));
    assert_eq!(code, Some(0));
}

#[test]
fn curl_where_the_image_has_it_and_a_pods_localhost_is_its_own() {
    let mut c = cluster();
    let (out, code) = kubectl(&mut c, "exec web-a -- curl -s localhost");
    assert!(welcome(&out), "{out}");
    assert_eq!(code, Some(0));
    // busybox has no curl: the runtime cannot start it, and its shell does not find it.
    let (out, code) = kubectl(&mut c, "exec client -- curl web");
    assert!(out.contains("exec: \"curl\": executable file not found in $PATH"), "{out}");
    assert_eq!(code, Some(1));
    let (out, code) = kubectl(&mut c, "exec client -- sh -c 'curl web'");
    assert_eq!((out.as_str(), code), ("sh: curl: not found\ncommand terminated with exit code 127\n", Some(127)));
}

#[test]
fn a_containers_own_command_fetches_and_ends_with_wgets_exit_code() {
    let mut c = cluster();
    let (out, _) = kubectl(&mut c, "run fetch --image=busybox --restart=Never -- wget -qO- web");
    assert_eq!(out, "pod/fetch created\n");
    let (out, _) =
        kubectl(&mut c, "run miss --image=busybox --restart=Never -- sh -c 'wget -q -O- nosuch; echo after $?'");
    assert_eq!(out, "pod/miss created\n");
    c.advance_ms(30_000);
    let (out, _) = kubectl(&mut c, "logs fetch");
    assert!(welcome(&out), "{out}");
    let (out, _) = kubectl(&mut c, "get pod fetch -o jsonpath={.status.phase}");
    assert_eq!(out, "Succeeded");
    let (out, _) = kubectl(&mut c, "logs miss");
    assert_eq!(out, "wget: bad address 'nosuch'\nafter 1\n");
}

#[test]
fn run_rm_i_wget_prints_the_page_and_deletes_the_pod() {
    let mut c = cluster();
    let r = c.kubectl("run tmp --rm -i --image=busybox --restart=Never -- wget -qO- web", None, 120_000);
    assert!(r.output.contains("<title>Welcome to nginx!</title>"), "{}", r.output);
    assert!(r.output.ends_with("</html>\npod \"tmp\" deleted from default namespace\n"), "{}", r.output);
    assert_eq!(r.exit, Some(0));
}

#[test]
fn a_shell_on_an_attached_stdin_runs_wget_too() {
    let mut c = cluster();
    let input = "wget -qO- empty; echo status $?\nwget -q -O- web\nexit\n";
    let r = c.kubectl("run t --rm -i --image=busybox -- sh", Some(input.into()), 120_000);
    let svc = kubectl(&mut c, "get svc empty -o jsonpath={.spec.clusterIP}").0;
    let refused = format!("wget: can't connect to remote host ({svc}): Connection refused\nstatus 1\n");
    assert!(r.output.contains(&refused), "{}", r.output);
    assert!(r.output.contains("Welcome to nginx!"), "{}", r.output);
    assert!(r.output.ends_with("pod \"t\" deleted from default namespace\n"), "{}", r.output);
}

#[test]
fn a_scripts_connectors_and_redirections_follow_the_programs_status() {
    let mut c = cluster();
    let script = "wget -q -O- web > /dev/null && echo fetched; wget -q -O- nosuch || exit 3; echo never";
    kubectl(&mut c, &format!("run s --image=busybox --restart=Never -- sh -c '{script}'"));
    c.advance_ms(30_000);
    let (out, _) = kubectl(&mut c, "logs s");
    assert_eq!(out, "fetched\nwget: bad address 'nosuch'\n");
    let (out, _) = kubectl(&mut c, "get pod s -o jsonpath={.status.containerStatuses[0].state.terminated.exitCode}");
    assert_eq!(out, "3");
}

#[test]
fn a_process_waiting_for_the_network_outlives_a_containerd_restart() {
    let mut c = cluster();
    kubectl(&mut c, "run w --image=busybox --restart=Never -- sh -c 'sleep 10; wget -q -O- web; echo after $?'");
    c.advance_ms(8_000);
    let node = kubectl(&mut c, "get pod w -o jsonpath={.spec.nodeName}").0;
    let r = c.shell(&node, "systemctl restart containerd", 30_000);
    assert_eq!(r.exit, Some(0), "{}", r.output);
    c.advance_ms(30_000);
    let (out, _) = kubectl(&mut c, "logs w");
    assert!(welcome(&out) && out.ends_with("</html>\nafter 0\n"), "{out}");
    assert_eq!(kubectl(&mut c, "get pod w -o jsonpath={.status.phase}").0, "Succeeded");
}

#[test]
fn an_exec_probe_waiting_for_a_black_hole_times_out_as_its_probe_says() {
    let mut c = cluster();
    let manifest = "apiVersion: v1
kind: Pod
metadata: {name: probed}
spec:
  containers:
  - name: c
    image: busybox
    command: [sleep, '3600']
    readinessProbe:
      exec: {command: [wget, -q, -O-, 'http://10.255.0.1/']}
      timeoutSeconds: 1
      periodSeconds: 5
";
    crate::apply(&mut c, manifest);
    c.advance_ms(40_000);
    let (out, _) = kubectl(&mut c, "describe pod probed");
    // The runtime's deadline passes while wget still waits for a SYN answer (127 s): the probe fails then.
    assert!(out.contains("Readiness probe failed: command \"wget -q -O- http://10.255.0.1/\" timed out"), "{out}");
    let (out, _) = kubectl(&mut c, "get pod probed --no-headers");
    assert!(out.split_whitespace().nth(1) == Some("0/1"), "{out}");
}
