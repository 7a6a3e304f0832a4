//! kube-proxy and the data plane: each node's kube-proxy programs iptables rules from the Services and
//! EndpointSlices it watches, `iptables-save` shows them, and `curl` from a node goes through them —
//! ClusterIP, NodePort, pod IPs, Service names through CoreDNS, the REJECT of a Service without endpoints,
//! endpoints leaving when pods stop being ready, and the stopped-kube-proxy trap.

use std::collections::BTreeMap;

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

/// Two nginx pods labelled app=web pinned to node01 and node02, and Service `web` (port `http` 80) in front.
const WEB: &str = "apiVersion: v1
kind: Pod
metadata: {name: web-a, labels: {app: web}}
spec:
  nodeName: node01
  containers: [{name: nginx, image: 'nginx:1.27'}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-b, labels: {app: web}}
spec:
  nodeName: node02
  containers: [{name: nginx, image: 'nginx:1.27'}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 80}]
";

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

fn web_cluster() -> Cluster {
    let mut c = Cluster::new_default(7);
    let (out, code) = apply(&mut c, WEB);
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(20_000);
    c
}

fn cluster_ip(c: &mut Cluster, svc: &str) -> String {
    get(c, &format!("get svc {svc} -o jsonpath={{.spec.clusterIP}}"))
}

fn pod_ip(c: &mut Cluster, pod: &str) -> String {
    get(c, &format!("get pod {pod} -o jsonpath={{.status.podIP}}"))
}

/// Which pod answered each of `n` curls from `node` to `target`.
fn answers(c: &mut Cluster, node: &str, target: &str, n: usize) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for _ in 0..n {
        let r = c.curl_report(node, &[target]);
        assert_eq!(r.result.exit, Some(0), "curl {target} from {node}: {}", r.result.output);
        *seen.entry(r.answered_by.unwrap_or_default()).or_insert(0) += 1;
    }
    seen
}

#[test]
fn a_cluster_ip_is_programmed_on_every_node_and_balances_over_both_pods() {
    let mut c = web_cluster();
    let ip = cluster_ip(&mut c, "web");
    for node in ["controlplane", "node01", "node02"] {
        let nat = c.iptables_save(node, Some("nat")).unwrap();
        let capture = format!(
            "-A KUBE-SERVICES -d {ip}/32 -p tcp -m comment --comment \"default/web:http cluster IP\" -m tcp --dport 80 -j KUBE-SVC-CDGGSHYLG3RE2FKL"
        );
        assert!(nat.contains(&capture), "{node}:\n{nat}");
        let a = pod_ip(&mut c, "web-a");
        assert!(nat.contains(&format!(
            "-A KUBE-SVC-CDGGSHYLG3RE2FKL -m comment --comment \"default/web:http -> {a}:80\" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-"
        )), "{nat}");
        assert!(nat.contains(&format!("-j DNAT --to-destination {}:80", pod_ip(&mut c, "web-b"))), "{nat}");
    }
    let r = c.curl("node01", &[&format!("http://{ip}")]);
    assert_eq!(r.exit, Some(0));
    assert!(r.output.starts_with("<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>"), "{}", r.output);
    let seen = answers(&mut c, "node02", &ip, 60);
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["default/web-a", "default/web-b"], "{seen:?}");
    assert!(seen.values().all(|n| *n >= 15), "both endpoints are chosen about half the time: {seen:?}");
    // The walk went through the service's chains on node02.
    let report = c.curl_report("node02", &[&ip]);
    assert!(report.rules.iter().any(|r| r.starts_with("node02 nat: -A KUBE-SEP-") && r.contains("-j DNAT")));
}

#[test]
fn a_node_port_answers_on_every_nodes_address_through_the_ext_chain() {
    let mut c = web_cluster();
    let (out, code) = apply(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata: {name: web-np}\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports: [{name: http, port: 80, nodePort: 30080}]\n",
    );
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(3_000);
    let nat = c.iptables_save("node02", Some("nat")).unwrap();
    assert!(
        nat.contains(
            "-A KUBE-NODEPORTS -p tcp -m comment --comment \"default/web-np:http\" -m tcp --dport 30080 -j KUBE-EXT-"
        ),
        "{nat}"
    );
    assert!(nat.contains(
        "-m comment --comment \"masquerade traffic for default/web-np:http external destinations\" -j KUBE-MARK-MASQ"
    ));
    for (from, to) in [("node01", "192.168.56.12"), ("node02", "192.168.56.12"), ("controlplane", "192.168.56.11")] {
        let r = c.curl_report(from, &[&format!("{to}:30080")]);
        assert_eq!(r.result.exit, Some(0), "{from} → {to}: {}", r.result.output);
        assert!(r.result.output.contains("Welcome to nginx!"));
        // The receiving node's own PREROUTING rules sent it on.
        let target = if to == "192.168.56.12" { "node02" } else { "node01" };
        if from != target {
            assert!(
                r.rules.iter().any(|l| l.starts_with(&format!("{target} nat: -A KUBE-NODEPORTS"))),
                "{:?}",
                r.rules
            );
        }
    }
    // A port nothing listens on is refused by the node.
    let r = c.curl("node01", &["192.168.56.12:30081"]);
    assert_eq!(
        r.output,
        "curl: (7) Failed to connect to 192.168.56.12 port 30081 after 1 ms: Couldn't connect to server\n"
    );
}

#[test]
fn a_service_without_endpoints_is_rejected_as_real_kube_proxy_does() {
    let mut c = web_cluster();
    apply(&mut c, "apiVersion: v1\nkind: Service\nmetadata: {name: lonely}\nspec:\n  selector: {app: nobody}\n  ports: [{name: http, port: 80}]\n");
    c.advance_ms(3_000);
    let ip = cluster_ip(&mut c, "lonely");
    let r = c.curl("node01", &[&ip]);
    assert_eq!(
        r.output,
        format!("curl: (7) Failed to connect to {ip} port 80 after 0 ms: Couldn't connect to server\n")
    );
    assert_eq!(r.exit, Some(7));
    let filter = c.iptables_save("node01", Some("filter")).unwrap();
    assert!(filter.contains(&format!(
        "-A KUBE-SERVICES -d {ip}/32 -p tcp -m comment --comment \"default/lonely:http has no endpoints\" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable"
    )), "{filter}");
    assert!(!c.iptables_save("node01", Some("nat")).unwrap().contains("default/lonely"));
    // -s hides the error, -sS shows it again; the exit code stays.
    assert_eq!(c.curl("node01", &["-s", &ip]).output, "");
    assert_eq!(c.curl("node01", &["-s", &ip]).exit, Some(7));
    assert!(c.curl("node01", &["-sS", &ip]).output.starts_with("curl: (7)"));
}

#[test]
fn service_names_resolve_through_coredns_reached_through_the_nodes_rules() {
    let mut c = web_cluster();
    for name in ["web", "web.default", "web.default.svc.cluster.local", "http://web.default.svc:80/"] {
        let r = c.curl_report("node01", &[name]);
        assert_eq!(r.result.exit, Some(0), "{name}: {}", r.result.output);
        assert!(r.result.output.contains("Welcome to nginx!"));
        // The query went to kube-dns's UDP port through node01's rules.
        assert!(
            r.rules.iter().any(|l| l.starts_with("node01 nat: -A KUBE-SERVICES -d 10.96.0.10/32 -p udp")),
            "{:?}",
            r.rules
        );
    }
    let r = c.curl("node01", &["nope"]);
    assert_eq!((r.output.as_str(), r.exit), ("curl: (6) Could not resolve host: nope\n", Some(6)));
    // Pod names of the pods insecure mode.
    let a = pod_ip(&mut c, "web-a");
    let r = c.curl_report("node02", &[&format!("{}.default.pod.cluster.local", a.replace('.', "-"))]);
    assert_eq!(r.answered_by.as_deref(), Some("default/web-a"));
    // Without a running CoreDNS nothing resolves: the query waits out the resolver, then curl gives up.
    get(&mut c, "scale deployment coredns -n kube-system --replicas=0");
    c.advance_ms(40_000);
    let before = c.now();
    let r = c.curl("node01", &["web"]);
    assert_eq!(r.output, "curl: (6) Could not resolve host: web\n");
    assert!(c.now().ms() - before.ms() < 1_000, "kube-dns has no endpoints: REJECT answers at once");
}

#[test]
fn a_pod_that_stops_being_ready_leaves_every_nodes_rules_and_its_ip_still_answers() {
    let mut c = web_cluster();
    let b = pod_ip(&mut c, "web-b");
    c.stop("node02/kubelet").unwrap();
    // node-monitor-grace-period (50 s), then the pods are marked not ready and the slices follow.
    c.advance_ms(70_000);
    let nat = c.iptables_save("node01", Some("nat")).unwrap();
    assert!(!nat.contains(&format!("--to-destination {b}:80")), "{nat}");
    assert!(nat.contains(&format!("--to-destination {}:80", pod_ip(&mut c, "web-a"))));
    let ip = cluster_ip(&mut c, "web");
    let seen = answers(&mut c, "node01", &ip, 20);
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["default/web-a"], "{seen:?}");
    // The container still runs: its address answers directly.
    let r = c.curl_report("node01", &[&b]);
    assert_eq!(r.answered_by.as_deref(), Some("default/web-b"));
}

#[test]
fn a_stopped_kube_proxy_keeps_its_rules_and_does_not_program_new_services() {
    let mut c = web_cluster();
    let old = cluster_ip(&mut c, "web");
    let before = c.iptables_save("node01", Some("nat")).unwrap();
    c.stop("node01/kube-proxy").unwrap();
    apply(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata: {name: web2}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n",
    );
    c.advance_ms(5_000);
    let new = cluster_ip(&mut c, "web2");
    // The API objects exist and node02 programmed them; node01's tables are as they were.
    assert!(get(&mut c, "get endpointslices -l kubernetes.io/service-name=web2").contains("web2-"));
    assert!(c.iptables_save("node02", Some("nat")).unwrap().contains("\"default/web2 cluster IP\""));
    let after = c.iptables_save("node01", Some("nat")).unwrap();
    let rules = |t: &str| t.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(rules(&after), rules(&before));
    // The old Service still works from node01, the new one does not (its name resolves, nothing answers).
    assert_eq!(c.curl("node01", &[&old]).exit, Some(0));
    assert_eq!(c.curl("node02", &[&new]).exit, Some(0));
    let start = c.now();
    let r = c.curl("node01", &["--connect-timeout", "5", "web2"]);
    assert_eq!(r.output, "curl: (28) Failed to connect to web2 port 80 after 5000 ms: Timeout was reached\n");
    assert_eq!(c.now().ms() - start.ms(), 5_000, "simulated time passed while curl waited");
    let start = c.now();
    let r = c.curl("node01", &[&new]);
    assert_eq!(
        r.output,
        format!("curl: (28) Failed to connect to {new} port 80 after 127000 ms: Couldn't connect to server\n")
    );
    assert_eq!(c.now().ms() - start.ms(), 127_000);
    // Pod IPs still answer: pod-to-pod traffic needs no kube-proxy.
    let b = pod_ip(&mut c, "web-b");
    assert_eq!(c.curl_report("node01", &[&b]).answered_by.as_deref(), Some("default/web-b"));
    // Started again, it lists and resyncs.
    c.start("node01/kube-proxy").unwrap();
    c.advance_ms(2_000);
    assert!(c.iptables_save("node01", Some("nat")).unwrap().contains("\"default/web2 cluster IP\""));
    assert_eq!(c.curl("node01", &["web2"]).exit, Some(0));
}

#[test]
fn stale_rules_of_a_stopped_kube_proxy_still_send_traffic_to_a_deleted_pod() {
    let mut c = web_cluster();
    let a = pod_ip(&mut c, "web-a");
    c.stop("node02/kube-proxy").unwrap();
    get(&mut c, "delete pod web-a --grace-period=0 --force");
    c.advance_ms(10_000);
    assert!(c.iptables_save("node02", Some("nat")).unwrap().contains(&format!("--to-destination {a}:80")));
    assert!(!c.iptables_save("node01", Some("nat")).unwrap().contains(&format!("--to-destination {a}:80")));
    let ip = cluster_ip(&mut c, "web");
    let mut timeouts = 0;
    for _ in 0..20 {
        let r = c.curl("node02", &["-m", "2", &ip]);
        if r.exit == Some(28) {
            assert!(r.output.ends_with("after 2000 ms: Timeout was reached\n"), "{}", r.output);
            timeouts += 1;
        }
    }
    assert!((3..=17).contains(&timeouts), "about half the connections go to the deleted pod: {timeouts}");
    assert_eq!(answers(&mut c, "node01", &ip, 10).keys().collect::<Vec<_>>(), ["default/web-b"]);
}

#[test]
fn kube_proxy_is_a_real_component_whose_watches_are_in_the_trace() {
    let mut c = Cluster::new_default(3);
    // The informers list once the install's RBAC bindings exist.
    c.advance_ms(5_000);
    let r = c.kubectl(
        "apply -f -",
        Some("apiVersion: v1\nkind: Service\nmetadata: {name: quiet}\nspec:\n  ports: [{port: 80}]\n".into()),
        60_000,
    );
    assert_eq!(r.exit, Some(0), "{}", r.output);
    c.advance_ms(1_000);
    let chain = c.kernel().trace.chain(r.chain);
    let to_proxies: Vec<String> = chain
        .iter()
        .filter(|d| c.kernel().name(d.to).ends_with("/kube-proxy") && d.label.contains("ADDED"))
        .map(|d| c.kernel().name(d.to).to_string())
        .collect();
    for node in ["controlplane", "node01", "node02"] {
        assert!(to_proxies.contains(&format!("{node}/kube-proxy")), "{to_proxies:?}");
    }
    let view = c.view();
    assert!(view.components.iter().any(|v| v.name == "node01/kube-proxy" && v.running));
    assert!(c.kube_proxy("node01").unwrap().programmed().services.contains_key("default/quiet"));
}

#[test]
fn iptables_save_takes_its_table_argument_and_names_missing_tables() {
    let c = web_cluster();
    let r = c.iptables_save_command("node01", &["-t", "nat"]);
    assert_eq!(r.exit, Some(0));
    assert!(r.output.starts_with("# Generated by iptables-nft-save v1.8.10 (nf_tables) on "));
    assert!(r.output.contains("\n*nat\n:PREROUTING ACCEPT [0:0]\n"));
    assert!(!r.output.contains("*filter"));
    let all = c.iptables_save_command("node01", &[]);
    assert!(all.output.contains("*mangle") && all.output.contains("*filter") && all.output.contains("*nat"));
    let raw = c.iptables_save_command("node01", &["--table=raw"]);
    assert_eq!((raw.output.as_str(), raw.exit), ("Table `raw' does not exist\n", Some(1)));
}
