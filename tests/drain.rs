//! kubectl drain: cordon, the pod filters with kubectl's messages, evictions through the eviction
//! subresource, and PodDisruptionBudgets.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn bare_pod(name: &str, node: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: shop}}\nspec:\n  nodeName: {node}\n  containers:\n  - name: c\n    image: nginx:1.27\n")
}

#[test]
fn drain_refuses_daemonset_pods_and_unmanaged_pods_with_kubectls_messages() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(3_000);
    apply(&mut c, &bare_pod("lonely", "node01"));
    let (proxy, _) = kubectl(&mut c, "get pods -n kube-system -o name --field-selector spec.nodeName=node01");
    let proxy = proxy.lines().find(|l| l.contains("kube-proxy")).unwrap().trim_start_matches("pod/").to_string();
    let (out, code) = kubectl(&mut c, "drain node01");
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!(
            // kubectl groups the refusals in a Go map (random order); kubeglass keeps the pods' list order.
            "node/node01 cordoned\nerror: unable to drain node \"node01\" due to error: [cannot delete Pods that declare no controller (use --force to override): default/lonely, cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/{proxy}], continuing command...\nThere are pending nodes to be drained:\n node01\ncannot delete Pods that declare no controller (use --force to override): default/lonely\ncannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/{proxy}\n"
        )
    );
    assert!(kubectl(&mut c, "get node node01").0.contains("Ready,SchedulingDisabled"));
}

#[test]
fn drain_evicts_what_it_may_and_waits_for_it_to_be_gone() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(3_000);
    apply(&mut c, &bare_pod("lonely", "node01"));
    let (out, code) = kubectl(&mut c, "drain node01 --ignore-daemonsets --force --grace-period=0");
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "node/node01 cordoned");
    assert!(lines[1].starts_with("Warning: ignoring DaemonSet-managed Pods: kube-system/kube-proxy-"), "{out}");
    // CoreDNS pods the scheduler put on node01 are evicted too; their ReplicaSet recreates them elsewhere.
    let evicting: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("evicting pod ")).collect();
    assert!(evicting.contains(&"evicting pod default/lonely"), "{out}");
    assert!(
        lines.iter().position(|l| *l == "pod/lonely evicted")
            > lines.iter().position(|l| l.starts_with("evicting pod ")),
        "{out}"
    );
    assert_eq!(lines.last(), Some(&"node/node01 drained"), "{out}");
    assert_eq!(kubectl(&mut c, "get pod lonely").1, Some(1));
}

#[test]
fn a_disruption_budget_holds_an_eviction_back() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &bare_pod("guarded", "node02"));
    apply(&mut c, "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: shop}\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: shop}\n");
    // Mark the pod Ready, as a kubelet would.
    let (pid, _) = c.spawn(None, |api| {
        Box::pin(async move {
            use kubeglass::api::{lookup, ApiRequest, ApiResponse, Credentials, PatchBody, Verb};
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, lookup("pods").unwrap()).namespace(Some("default")).name("guarded").subresource("status");
            req.patch = Some(PatchBody::Strategic(serde_json::json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})));
            i32::from(!matches!(api.call(req).await, Ok(ApiResponse::Object(_))))
        })
    });
    assert_eq!(c.run_until_exit((pid, 0), 10_000).exit, Some(0));
    let r = c.kubectl("drain node02 --ignore-daemonsets --force --grace-period=0", None, 12_000);
    assert!(r.output.contains("evicting pod default/guarded\n"), "{}", r.output);
    assert!(r.output.contains("\nerror when evicting pods/\"guarded\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"), "{}", r.output);
    assert_eq!(r.exit, None, "drain keeps retrying while the budget holds");
}
