//! The StatefulSet controller end to end, with the real scheduler and kubelets running the pods: ordered start
//! and stop, Parallel, per-pod claims, revisions and rolling updates, status and events.

use std::collections::BTreeMap;

use kubeglass::api::api::core::v1::Pod;
use kubeglass::api::{Kind, Object};
use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

/// A StatefulSet `web` of nginx pods with more `spec` lines (two-space indented) before the selector.
pub fn web(replicas: u32, image: &str, extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  serviceName: nginx\n  replicas: {replicas}\n{extra}  selector:\n    matchLabels:\n      app: nginx\n  template:\n    metadata:\n      labels:\n        app: nginx\n    spec:\n      containers:\n      - name: nginx\n        image: {image}\n"
    )
}

fn pod(c: &Cluster, name: &str) -> Option<Pod> {
    match c.apiserver()?.cache().get(Kind::Pod, Some("default"), name).as_deref() {
        Some(Object::Pod(p)) => Some((**p).clone()),
        _ => None,
    }
}

fn ready(p: &Pod) -> bool {
    p.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// What happened to each pod name, in simulated ms: first seen, first Ready, deletion asked, gone.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Life {
    created: Option<u64>,
    ready: Option<u64>,
    deleting: Option<u64>,
    gone: Option<u64>,
}

/// Advances `ms` in 100 ms steps, recording the lives of `names` (uid changes start a new life, kept last).
fn watch(c: &mut Cluster, names: &[&str], ms: u64, lives: &mut BTreeMap<String, Life>) {
    let mut uids: BTreeMap<String, String> = BTreeMap::new();
    for _ in 0..ms / 100 {
        c.advance_ms(100);
        let now = c.now().ms();
        for name in names {
            let life = lives.entry(name.to_string()).or_default();
            match pod(c, name) {
                Some(p) => {
                    let uid = p.metadata.uid.clone().unwrap_or_default();
                    if uids.get(*name).is_some_and(|u| *u != uid) {
                        *life = Life::default();
                    }
                    uids.insert(name.to_string(), uid);
                    life.created.get_or_insert(now);
                    if ready(&p) {
                        life.ready.get_or_insert(now);
                    }
                    if p.metadata.deletion_timestamp.is_some() {
                        life.deleting.get_or_insert(now);
                    }
                }
                None => {
                    if life.created.is_some() {
                        life.gone.get_or_insert(now);
                    }
                }
            }
        }
    }
}

fn live_pod_names(c: &mut Cluster) -> Vec<String> {
    let (out, _) = kubectl(c, "get pods -l app=nginx -o name");
    out.lines().filter_map(|l| l.strip_prefix("pod/")).map(str::to_string).collect()
}

fn label(p: &Pod, key: &str) -> String {
    p.metadata.labels.as_ref().and_then(|l| l.get(key)).cloned().unwrap_or_default()
}

#[test]
fn ordered_ready_starts_each_pod_only_after_the_previous_one_is_running_and_ready() {
    let mut c = Cluster::new_default(1);
    assert_eq!(apply(&mut c, &web(3, "nginx:1.27", "")).0, "statefulset.apps/web created\n");
    let mut lives = BTreeMap::new();
    watch(&mut c, &["web-0", "web-1", "web-2"], 30_000, &mut lives);
    let (w0, w1, w2) = (lives["web-0"], lives["web-1"], lives["web-2"]);
    let (r0, r1, r2) = (w0.ready.unwrap(), w1.ready.unwrap(), w2.ready.unwrap());
    assert!(w1.created.unwrap() >= r0, "web-1 created at {:?} before web-0 was ready at {r0}", w1.created);
    assert!(w2.created.unwrap() >= r1, "web-2 created at {:?} before web-1 was ready at {r1}", w2.created);
    assert!(r0 < r1 && r1 <= r2);

    let p = pod(&c, "web-1").unwrap();
    assert_eq!(label(&p, "statefulset.kubernetes.io/pod-name"), "web-1");
    assert_eq!(label(&p, "apps.kubernetes.io/pod-index"), "1");
    let revision = label(&p, "controller-revision-hash");
    assert!(revision.starts_with("web-") && revision.len() > 4, "{revision}");
    let spec = p.spec.unwrap();
    assert_eq!((spec.hostname.as_deref(), spec.subdomain.as_deref()), (Some("web-1"), Some("nginx")));
    let owner = &p.metadata.owner_references.unwrap()[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str(), owner.controller), ("StatefulSet", "web", Some(true)));

    let (out, _) = kubectl(&mut c, "get controllerrevisions");
    assert!(out.contains(&format!("{revision}   statefulset.apps/web   1 ")), "{out}");
    let (out, _) = kubectl(&mut c, "get statefulset web");
    assert!(out.starts_with("NAME   READY   AGE\nweb    3/3 "), "{out}");
    let (out, _) = kubectl(
        &mut c,
        "get sts web -o jsonpath={.status.replicas},{.status.readyReplicas},{.status.currentReplicas},{.status.updatedReplicas},{.status.availableReplicas},{.status.currentRevision},{.status.updateRevision}",
    );
    assert_eq!(out, format!("3,3,3,3,3,{revision},{revision}"));
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=StatefulSet");
    for n in 0..3 {
        assert!(events.contains(&format!("create Pod web-{n} in StatefulSet web successful")), "{events}");
    }
    assert!(events.contains("SuccessfulCreate"), "{events}");
}

#[test]
fn parallel_creates_every_pod_at_once() {
    let mut c = Cluster::new_default(2);
    apply(&mut c, &web(3, "nginx:1.27", "  podManagementPolicy: Parallel\n"));
    let mut lives = BTreeMap::new();
    watch(&mut c, &["web-0", "web-1", "web-2"], 500, &mut lives);
    // All three exist before the first one could be ready (an image pull takes seconds).
    for name in ["web-0", "web-1", "web-2"] {
        assert!(lives[name].created.is_some() && lives[name].ready.is_none(), "{name}: {:?}", lives[name]);
    }
}

#[test]
fn scaling_down_removes_the_highest_ordinal_first_and_one_at_a_time() {
    let mut c = Cluster::new_default(3);
    apply(&mut c, &web(4, "nginx:1.27", ""));
    c.advance_ms(30_000);
    assert_eq!(live_pod_names(&mut c), ["web-0", "web-1", "web-2", "web-3"]);
    assert_eq!(kubectl(&mut c, "scale statefulset web --replicas=1").0, "statefulset.apps/web scaled\n");
    let mut lives = BTreeMap::new();
    watch(&mut c, &["web-0", "web-1", "web-2", "web-3"], 60_000, &mut lives);
    let (w1, w2, w3) = (lives["web-1"], lives["web-2"], lives["web-3"]);
    assert!(lives["web-0"].deleting.is_none());
    assert!(w3.deleting.unwrap() <= w2.deleting.unwrap(), "{lives:?}");
    // Each deletion waits for the higher ordinal to be gone.
    assert!(w2.deleting.unwrap() >= w3.gone.unwrap(), "{lives:?}");
    assert!(w1.deleting.unwrap() >= w2.gone.unwrap(), "{lives:?}");
    assert_eq!(live_pod_names(&mut c), ["web-0"]);
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=SuccessfulDelete");
    for n in 1..4 {
        assert!(events.contains(&format!("delete Pod web-{n} in StatefulSet web successful")), "{events}");
    }
}

#[test]
fn each_pod_gets_its_own_claims_which_outlive_a_scale_down() {
    let mut c = Cluster::new_default(4);
    let claims = "  volumeClaimTemplates:\n  - metadata:\n      name: www\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources:\n        requests:\n          storage: 1Gi\n";
    // The claims come after the selector and template, at the end of the spec.
    let manifest = format!("{}{claims}", web(2, "nginx:1.27", "  podManagementPolicy: Parallel\n"));
    apply(&mut c, &manifest);
    c.advance_ms(2_000);
    let (out, _) = kubectl(&mut c, "get pvc -o name");
    assert_eq!(out, "persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1\n");
    let p = pod(&c, "web-1").unwrap();
    let volume = &p.spec.unwrap().volumes.unwrap()[0];
    assert_eq!(volume.name, "www");
    assert_eq!(volume.persistent_volume_claim.as_ref().map(|v| v.claim_name.as_str()), Some("www-web-1"));
    let (labels, _) = kubectl(&mut c, "get pvc www-web-1 -o jsonpath={.metadata.labels.app}");
    assert_eq!(labels, "nginx");
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=StatefulSet");
    assert!(events.contains("create Claim www-web-0 Pod web-0 in StatefulSet web success"), "{events}");
    assert!(events.contains("create Claim www-web-1 Pod web-1 in StatefulSet web success"), "{events}");

    kubectl(&mut c, "scale sts web --replicas=0");
    c.advance_ms(60_000);
    assert!(live_pod_names(&mut c).is_empty());
    // Retain (the default): the claims stay, and a new web-1 gets the same one back.
    assert_eq!(
        kubectl(&mut c, "get pvc -o name").0,
        "persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1\n"
    );
    let uid_before = kubectl(&mut c, "get pvc www-web-1 -o jsonpath={.metadata.uid}").0;
    kubectl(&mut c, "scale sts web --replicas=2");
    c.advance_ms(2_000);
    assert_eq!(kubectl(&mut c, "get pvc www-web-1 -o jsonpath={.metadata.uid}").0, uid_before);
}

#[test]
fn a_rolling_update_replaces_pods_from_the_highest_ordinal_down_to_the_partition() {
    let mut c = Cluster::new_default(5);
    apply(&mut c, &web(3, "nginx:1.27", "  updateStrategy:\n    rollingUpdate:\n      partition: 1\n"));
    c.advance_ms(30_000);
    let old = label(&pod(&c, "web-0").unwrap(), "controller-revision-hash");
    apply(&mut c, &web(3, "nginx:1.28", "  updateStrategy:\n    rollingUpdate:\n      partition: 1\n"));
    let mut lives = BTreeMap::new();
    watch(&mut c, &["web-0", "web-1", "web-2"], 60_000, &mut lives);
    let new = kubectl(&mut c, "get sts web -o jsonpath={.status.updateRevision}").0;
    assert_ne!(new, old);
    // web-2 first, then web-1 once web-2 is back and ready; web-0 is below the partition and keeps the old revision.
    let (w1, w2) = (lives["web-1"], lives["web-2"]);
    assert!(w2.ready.unwrap() <= w1.created.unwrap(), "{lives:?}");
    assert_eq!(label(&pod(&c, "web-2").unwrap(), "controller-revision-hash"), new);
    assert_eq!(label(&pod(&c, "web-1").unwrap(), "controller-revision-hash"), new);
    assert_eq!(label(&pod(&c, "web-0").unwrap(), "controller-revision-hash"), old);
    let image =
        |c: &mut Cluster, n: u32| kubectl(c, &format!("get pod web-{n} -o jsonpath={{.spec.containers[0].image}}")).0;
    assert_eq!(
        (image(&mut c, 0), image(&mut c, 1), image(&mut c, 2)),
        ("nginx:1.27".into(), "nginx:1.28".into(), "nginx:1.28".into())
    );
    let status =
        "get sts web -o jsonpath={.status.currentRevision},{.status.currentReplicas},{.status.updatedReplicas}";
    assert_eq!(kubectl(&mut c, status).0, format!("{old},1,2"));

    // Partition 0 finishes the rollout: the current revision becomes the update revision.
    apply(&mut c, &web(3, "nginx:1.28", "  updateStrategy:\n    rollingUpdate:\n      partition: 0\n"));
    c.advance_ms(30_000);
    assert_eq!(label(&pod(&c, "web-0").unwrap(), "controller-revision-hash"), new);
    assert_eq!(kubectl(&mut c, status).0, format!("{new},3,3"));
    assert_eq!(kubectl(&mut c, "get controllerrevisions -o name").0.lines().count(), 2);

    // Back to the first template: the old revision is reused with the next number, not copied.
    apply(&mut c, &web(3, "nginx:1.27", ""));
    c.advance_ms(60_000);
    assert_eq!(kubectl(&mut c, "get sts web -o jsonpath={.status.updateRevision}").0, old);
    assert_eq!(kubectl(&mut c, &format!("get controllerrevision {old} -o jsonpath={{.revision}}")).0, "3");
    assert_eq!(kubectl(&mut c, "get controllerrevisions -o name").0.lines().count(), 2);
}

#[test]
fn on_delete_leaves_old_pods_until_someone_deletes_them() {
    let mut c = Cluster::new_default(6);
    let strategy = "  updateStrategy:\n    type: OnDelete\n";
    apply(&mut c, &web(2, "nginx:1.27", strategy));
    c.advance_ms(20_000);
    let old = label(&pod(&c, "web-1").unwrap(), "controller-revision-hash");
    apply(&mut c, &web(2, "nginx:1.28", strategy));
    c.advance_ms(30_000);
    assert_eq!(label(&pod(&c, "web-1").unwrap(), "controller-revision-hash"), old);
    kubectl(&mut c, "delete pod web-1");
    c.advance_ms(30_000);
    assert_ne!(label(&pod(&c, "web-1").unwrap(), "controller-revision-hash"), old);
    assert_eq!(label(&pod(&c, "web-0").unwrap(), "controller-revision-hash"), old);
}

#[test]
fn a_deleted_pod_comes_back_with_the_same_name() {
    let mut c = Cluster::new_default(7);
    apply(&mut c, &web(2, "nginx:1.27", ""));
    c.advance_ms(20_000);
    let uid = pod(&c, "web-0").unwrap().metadata.uid;
    kubectl(&mut c, "delete pod web-0 --wait=false");
    c.advance_ms(40_000);
    let again = pod(&c, "web-0").unwrap();
    assert_ne!(again.metadata.uid, uid);
    assert!(ready(&again));
    assert_eq!(live_pod_names(&mut c), ["web-0", "web-1"]);
}
