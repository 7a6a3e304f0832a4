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

/// One port-forward piece as `kubeglass serve` hands it to the engine: to `pod`'s `port` (None: the checks
/// made before the stream is upgraded), with what the client wrote. The apiserver's answer.
fn forward(c: &mut Cluster, pod: &str, port: Option<u16>, data: &str) -> kubeglass::api::ApiResponse {
    use kubeglass::api::{lookup, ApiRequest, Credentials, Verb};
    use kubeglass::cluster::RemoteEvent;
    let admin = Credentials::ClientCert {
        common_name: "kubernetes-admin".into(),
        organizations: vec!["kubeadm:cluster-admins".into()],
    };
    let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, lookup("pods").unwrap())
        .namespace(Some("default"))
        .name(pod);
    req.subresource = Some("portforward".into());
    req.params.port = port;
    req.params.stdin = Some(data.to_string());
    let id = c.remote_call("kubectl/v1.32.4", admin, req);
    c.advance_ms(1_000);
    match c.take_remote(id).into_iter().next() {
        Some(RemoteEvent::Answer { result: Ok(answer), .. }) => answer,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_forwarded_connection_reaches_the_pods_own_localhost_through_apiserver_kubelet_and_containerd() {
    use kubeglass::api::{ApiResponse, ExecEnd, ExecResult};
    let mut c = cluster();
    let get = "GET /x HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\n\r\n";
    // Two pipelined requests, each answered in turn; a HEAD without the body.
    let both = format!("{get}{}", get.replacen("GET", "HEAD", 1));
    let ApiResponse::Exec(ExecResult { output, end: ExecEnd::Success }) = forward(&mut c, "web-a", Some(80), &both)
    else {
        panic!("not forwarded")
    };
    let text: String = output.into_iter().map(|(_, t)| t).collect();
    let head = "HTTP/1.1 200 OK\r\nServer: nginx/1.27.5\r\nDate: ";
    assert_eq!(text.matches(head).count(), 2, "{text}");
    assert!(text.contains("\r\nETag: \"67ff9c07-267\"\r\nAccept-Ranges: bytes\r\n\r\n<!DOCTYPE html>"), "{text}");
    assert!(text.ends_with("Accept-Ranges: bytes\r\n\r\n"), "the HEAD's answer has no body: {text}");
    // Not HTTP: nginx's 400 page, then it closes the connection.
    let ApiResponse::Exec(ExecResult { output, .. }) = forward(&mut c, "web-a", Some(80), "\x16\x03\x01hello\r\n\r\n")
    else {
        panic!("not forwarded")
    };
    assert!(output[0].1.starts_with("HTTP/1.1 400 Bad Request\r\nServer: nginx/1.27.5\r\n"), "{output:?}");
    // Nothing listens on 81: containerd's dial inside the pod's network namespace fails.
    let ApiResponse::Exec(ExecResult { end: ExecEnd::Failure(message), .. }) = forward(&mut c, "web-a", Some(81), "")
    else {
        panic!("not refused")
    };
    let sandbox = message.strip_prefix("error forwarding port 81 to pod ").unwrap_or("").split(',').next().unwrap();
    assert_eq!(sandbox.len(), 64, "{message}");
    assert!(message.contains(", uid : failed to execute portforward in network namespace \"/var/run/netns/cni-"));
    assert!(message.ends_with(&format!(
        "\": failed to connect to localhost:81 inside namespace \"{sandbox}\", IPv4: dial tcp4 127.0.0.1:81: \
         connect: connection refused IPv6 dial tcp6 [::1]:81: connect: connection refused "
    )));
    // The pieces are requests like any other: in the log, with their kubelet stage.
    let records: Vec<_> =
        c.apiserver().unwrap().requests().records().filter(|r| r.summary.contains("portforward")).collect();
    assert_eq!(records.len(), 3, "{records:?}");
    let kubelet = |r: &&kubeglass::apiserver::audit::RequestRecord| {
        r.stages.iter().any(|s| s.stage == kubeglass::apiserver::audit::Stage::Kubelet && s.passed)
    };
    assert!(records.iter().all(|r| r.code == 101 && kubelet(r)), "{records:?}");
}

#[test]
fn a_port_forward_fails_before_its_stream_where_a_real_one_does() {
    use kubeglass::api::ApiResponse;
    let mut c = cluster();
    let ApiResponse::Error(status) = forward(&mut c, "nope", None, "") else { panic!("found") };
    assert_eq!(status.message, "pods \"nope\" not found");
    let pending = "apiVersion: v1\nkind: Pod\nmetadata: {name: pending}\nspec:\n  nodeSelector: {disk: ssd}\n  containers: [{name: c, image: nginx}]\n";
    let (out, code) = apply(&mut c, pending);
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(2_000);
    let ApiResponse::Error(status) = forward(&mut c, "pending", None, "") else { panic!("forwarded") };
    assert_eq!(status.message, "pod pending does not have a host assigned");
    // The pod's kubelet is stopped: the apiserver cannot dial it.
    c.stop("node01/kubelet").unwrap();
    let ApiResponse::Error(status) = forward(&mut c, "web-a", None, "") else { panic!("not refused") };
    let body = status.message;
    assert!(body.starts_with("error dialing backend: dial tcp 192.168.56."), "{body}");
    assert!(body.ends_with(":10250: connect: connection refused"), "{body}");
    c.start("node01/kubelet").unwrap();
}
