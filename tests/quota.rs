//! The ResourceQuota controller end to end: `status.used` follows what the namespace's objects use, as
//! pods come and go, and the admission plugin refuses what would go past `hard`.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

const QUOTA: &str = "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: compute\nspec:\n  hard:\n    pods: \"4\"\n    requests.cpu: \"1\"\n    requests.memory: 1Gi\n    limits.cpu: \"2\"\n    count/deployments.apps: \"2\"\n    persistentvolumeclaims: \"2\"\n";

fn deployment(replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: api}}\n  template:\n    metadata:\n      labels: {{app: api}}\n    spec:\n      containers:\n      - name: api\n        image: nginx:1.27\n        resources:\n          requests: {{cpu: 250m, memory: 128Mi}}\n          limits: {{cpu: 500m}}\n"
    )
}

fn used(c: &mut Cluster) -> String {
    kubectl(c, "get quota compute -o 'jsonpath={.status.used}'").0
}

#[test]
fn used_follows_the_pods_of_the_namespace() {
    let mut c = Cluster::new_default(21);
    apply(&mut c, QUOTA);
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get resourcequota");
    assert_eq!(
        out,
        "NAME      AGE   REQUEST                                                                                                          LIMIT\n\
         compute   1s    count/deployments.apps: 0/2, persistentvolumeclaims: 0/2, pods: 0/4, requests.cpu: 0/1, requests.memory: 0/1Gi   limits.cpu: 0/2\n"
    );
    apply(&mut c, &deployment(2));
    c.advance_ms(10_000);
    assert_eq!(
        used(&mut c),
        r#"{"count/deployments.apps":"1","limits.cpu":"1","persistentvolumeclaims":"0","pods":"2","requests.cpu":"500m","requests.memory":"256Mi"}"#
    );

    // Past the quota: the ReplicaSet's creates beyond 4 pods are refused, and used stops at the limit.
    kubectl(&mut c, "scale deployment api --replicas=6");
    c.advance_ms(10_000);
    let (out, _) = kubectl(&mut c, "get quota compute");
    assert!(out.contains("pods: 4/4, requests.cpu: 1/1, requests.memory: 512Mi/1Gi   limits.cpu: 2/2"), "{out}");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=FailedCreate");
    assert!(!events.contains("pods=5"), "{events}");
    assert!(events.contains("exceeded quota: compute, requested: limits.cpu=500m,pods=1,requests.cpu=250m, used: limits.cpu=2,pods=4,requests.cpu=1, limited: limits.cpu=2,pods=4,requests.cpu=1"), "{events}");

    // Everything gone: back to zero.
    kubectl(&mut c, "delete deployment api");
    c.advance_ms(60_000);
    assert_eq!(
        used(&mut c),
        r#"{"count/deployments.apps":"0","limits.cpu":"0","persistentvolumeclaims":"0","pods":"0","requests.cpu":"0","requests.memory":"0"}"#
    );
}

#[test]
fn a_statefulset_reports_the_pod_the_quota_refused() {
    let mut c = Cluster::new_default(22);
    apply(
        &mut c,
        "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: two-pods\nspec:\n  hard:\n    pods: \"2\"\n",
    );
    c.advance_ms(500);
    apply(&mut c, &crate::statefulset::web(3, "nginx:1.27", ""));
    c.advance_ms(40_000);
    let (out, _) = kubectl(&mut c, "get sts web");
    assert!(out.contains("web    2/3"), "{out}");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=FailedCreate");
    assert!(
        events.contains("create Pod web-2 in StatefulSet web failed error: pods \"web-2\" is forbidden: exceeded quota: two-pods, requested: pods=1, used: pods=2, limited: pods=2"),
        "{events}"
    );
    assert_eq!(kubectl(&mut c, "get quota two-pods -o 'jsonpath={.status.used.pods}'").0, "2");
    // Room again: the set finishes.
    apply(
        &mut c,
        "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: two-pods\nspec:\n  hard:\n    pods: \"3\"\n",
    );
    c.advance_ms(90_000);
    let (out, _) = kubectl(&mut c, "get sts web");
    assert!(out.contains("web    3/3"), "{out}");
}
