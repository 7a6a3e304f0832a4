//! metrics-server (`metricsServer: true`) and `kubectl top`: the kubelets' `/metrics/resource` scraped every
//! 15 s, `metrics.k8s.io` served through the apiserver, kubectl's tables, and the HPA reading the same usage.

use kubeglass::cluster::{Cluster, ClusterConfig};

use crate::{apply, kubectl};

fn with_metrics() -> Cluster {
    Cluster::new(ClusterConfig { metrics_server: true, ..ClusterConfig::default() }, 5)
}

const WEB: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\n  annotations: {kubeglass.dev/cpu-usage: 250m, kubeglass.dev/memory-usage: 300Mi}\nspec:\n  nodeName: node01\n  containers:\n  - {name: nginx, image: nginx}\n  - {name: side, image: busybox, command: [sleep, '3600']}\n";
const API: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\n  labels: {app: api}\n  annotations: {kubeglass.dev/cpu-usage: 400m, kubeglass.dev/memory-usage: 64Mi}\nspec:\n  nodeName: node02\n  containers:\n  - {name: api, image: nginx}\n";

/// (name, cpu millicores, cpu %, memory Mi, memory %) of each `kubectl top node` row.
fn node_rows(out: &str) -> Vec<(String, u64, u64, u64, u64)> {
    let num = |s: &str, unit: &str| s.trim_end_matches(unit).parse::<u64>().unwrap_or(u64::MAX);
    out.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), num(f[1], "m"), num(f[2], "%"), num(f[3], "Mi"), num(f[4], "%"))
        })
        .collect()
}

#[test]
fn without_metrics_server_the_metrics_api_is_not_available() {
    let mut c = Cluster::new_default(5);
    c.advance_ms(30_000);
    assert_eq!(kubectl(&mut c, "top node"), ("error: Metrics API not available\n".into(), Some(1)));
    assert_eq!(kubectl(&mut c, "top pod -A"), ("error: Metrics API not available\n".into(), Some(1)));
    assert_eq!(kubectl(&mut c, "get deploy metrics-server -n kube-system").1, Some(1));
}

#[test]
fn nodes_are_measured_after_two_scrapes_as_percentages_of_allocatable() {
    let mut c = with_metrics();
    // Installed as its release installs it, and nothing measured before the first scrapes.
    assert!(kubectl(&mut c, "get deploy,svc,sa metrics-server -n kube-system")
        .0
        .contains("deployment.apps/metrics-server"));
    assert_eq!(kubectl(&mut c, "top node"), ("error: metrics not available yet\n".into(), Some(1)));
    c.advance_ms(35_000);
    let (out, code) = kubectl(&mut c, "top node");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("NAME           CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n"), "{out:?}");
    let rows = node_rows(&out);
    assert_eq!(rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["controlplane", "node01", "node02"]);
    for (name, cpu, cpu_pct, mem, mem_pct) in &rows {
        // 2 CPUs and 4Gi allocatable: kubectl truncates the percentage.
        assert_eq!(*cpu_pct, cpu * 100 / 2000, "{name}: {out}");
        assert!(mem * 100 / 4096 <= *mem_pct && *mem_pct <= (mem + 1) * 100 / 4096, "{name}: {out}");
    }
    // The control plane runs etcd, the apiserver, the controller manager and the scheduler.
    assert!(rows[0].1 > 100 && rows[0].3 > 800, "{out}");
    assert!(rows[1].1 < 60 && rows[2].1 < 60, "{out}");
    assert!(out.lines().all(|l| l.ends_with("   ")), "every cell is tab-terminated, as kubectl writes them: {out:?}");
    // A name, no headers, sorting.
    let (one, _) = kubectl(&mut c, "top node node01 --no-headers");
    assert_eq!(one.lines().count(), 1);
    assert!(one.starts_with("node01   "), "{one:?}");
    let (by_memory, _) = kubectl(&mut c, "top node --sort-by=memory");
    let mems: Vec<u64> = node_rows(&by_memory).iter().map(|r| r.3).collect();
    assert!(mems.windows(2).all(|w| w[0] >= w[1]), "{by_memory}");
    assert_eq!(
        kubectl(&mut c, "top node --sort-by=name"),
        ("error: --sort-by accepts only cpu or memory\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "top node node01 -l a=b"),
        ("error: only one of NAME or --selector can be provided\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "top node nope"),
        ("Error from server (NotFound): nodemetrics.metrics.k8s.io \"nope\" not found\n".into(), Some(1))
    );
}

#[test]
fn pods_show_their_modelled_usage_per_pod_and_per_container() {
    let mut c = with_metrics();
    c.advance_ms(20_000);
    apply(&mut c, WEB);
    apply(&mut c, API);
    // Too new for a second scrape: not yet, then a NotFound for the named pod.
    assert_eq!(kubectl(&mut c, "top pod"), ("error: metrics not available yet\n".into(), Some(1)));
    assert_eq!(
        kubectl(&mut c, "top pod web"),
        ("Error from server (NotFound): podmetrics.metrics.k8s.io \"default/web\" not found\n".into(), Some(1))
    );
    c.advance_ms(40_000);
    assert_eq!(
        kubectl(&mut c, "top pod"),
        (
            "NAME   CPU(cores)   MEMORY(bytes)   \napi    400m         64Mi            \nweb    250m         300Mi           \n".into(),
            Some(0)
        )
    );
    assert_eq!(
        kubectl(&mut c, "top pod --sort-by=memory --no-headers").0,
        "web   250m   300Mi   \napi   400m   64Mi    \n"
    );
    assert_eq!(
        kubectl(&mut c, "top pod web --containers").0,
        "POD   NAME    CPU(cores)   MEMORY(bytes)   \nweb   nginx   125m         150Mi           \nweb   side    125m         150Mi           \n"
    );
    assert_eq!(
        kubectl(&mut c, "top pod --sum").0,
        "NAME   CPU(cores)   MEMORY(bytes)   \napi    400m         64Mi            \nweb    250m         300Mi           \n       ________     ________        \n       650m         364Mi           \n"
    );
    assert_eq!(kubectl(&mut c, "top pod -l app=api --no-headers").0, "api   400m   64Mi   \n");
    assert_eq!(
        kubectl(&mut c, "top pod --field-selector spec.nodeName=node01 --no-headers").0,
        "web   250m   300Mi   \n"
    );
    assert_eq!(kubectl(&mut c, "top pod -l app=none"), ("No resources found in default namespace.\n".into(), Some(0)));
    // -A: the namespace first; kube-system's components have their idle figures.
    let (all, _) = kubectl(&mut c, "top pod -A");
    assert!(all.starts_with("NAMESPACE     NAME "), "{all}");
    assert!(all.contains("\ndefault       web "), "{all}");
    let apiserver = all.lines().find(|l| l.contains("kube-apiserver-controlplane")).unwrap_or_default().to_string();
    assert!(apiserver.starts_with("kube-system   kube-apiserver-controlplane   "), "{all}");
    assert!(all.contains("metrics-server-"), "metrics-server measures itself: {all}");
}

#[test]
fn a_node_whose_kubelet_stops_drops_out_and_its_pods_report_their_age() {
    let mut c = with_metrics();
    c.advance_ms(20_000);
    apply(&mut c, WEB);
    c.advance_ms(40_000);
    assert_eq!(kubectl(&mut c, "top pod --no-headers").0, "web   250m   300Mi   \n");
    c.stop("node01/kubelet").unwrap();
    c.advance_ms(20_000);
    let (nodes, _) = kubectl(&mut c, "top node");
    assert!(nodes.ends_with("node01         <unknown>    <unknown>   <unknown>       <unknown>   \n"), "{nodes:?}");
    assert!(nodes.contains("\nnode02 "), "{nodes}");
    c.advance_ms(60_000);
    let (out, code) = kubectl(&mut c, "top pod");
    assert_eq!(code, Some(1));
    assert!(out.starts_with("error: Metrics not available for pod default/web, age: 2m"), "{out}");
}

#[test]
fn stopping_metrics_server_makes_the_api_unavailable_until_it_has_scraped_again() {
    let mut c = with_metrics();
    c.advance_ms(20_000);
    c.stop("metrics-server").unwrap();
    assert_eq!(kubectl(&mut c, "top node"), ("error: Metrics API not available\n".into(), Some(1)));
    c.start("metrics-server").unwrap();
    assert_eq!(kubectl(&mut c, "top node"), ("error: metrics not available yet\n".into(), Some(1)));
    c.advance_ms(20_000);
    assert_eq!(kubectl(&mut c, "top node").1, Some(0));
}

#[test]
fn the_autoscaler_and_top_read_the_same_usage() {
    let mut c = with_metrics();
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: app}}\n  template:\n    metadata:\n      labels: {app: app}\n      annotations: {kubeglass.dev/cpu-usage: 90m}\n    spec:\n      containers:\n      - name: app\n        image: nginx\n        resources: {requests: {cpu: 200m}}\n";
    apply(&mut c, deploy);
    apply(&mut c, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: app}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}\n");
    c.advance_ms(60_000);
    let (top, _) = kubectl(&mut c, "top pod -l app=app --no-headers");
    let cpus: Vec<&str> = top.lines().map(|l| l.split_whitespace().nth(1).unwrap_or("")).collect();
    assert_eq!(cpus, ["90m", "90m"], "{top}");
    // 90m of a 200m request is 45 %: the autoscaler reports what top shows.
    let (hpa, _) = kubectl(&mut c, "get hpa app");
    assert!(hpa.contains("cpu: 45%/80%"), "{hpa}");
}
