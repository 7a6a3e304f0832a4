//! The Deployment, ReplicaSet and garbage-collector loops of kube-controller-manager through the apiserver:
//! ReplicaSets and pods with their names and ownerReferences, scaling, replacement, rolling updates (pods are
//! marked Ready here, as there is no kubelet), cascading deletion, adoption and release.

use kubeglass::api::{lookup, ApiRequest, ApiResponse, Credentials, Object, Verb};
use kubeglass::apiserver::registry::k8s_time;
use kubeglass::cluster::Cluster;
use regex_lite::Regex;

use crate::{apply, kubectl};

/// The default cluster with the workers' kubelets stopped: these tests decide themselves when pods become
/// Ready (through the status subresource), so the controllers' arithmetic can be checked step by step.
fn without_worker_kubelets(seed: u64) -> Cluster {
    let mut c = Cluster::new_default(seed);
    for node in ["node01", "node02"] {
        c.stop(&format!("{node}/kubelet")).unwrap();
    }
    c
}

fn deployment(replicas: u32, image: &str) -> String {
    deployment_with(replicas, image, "")
}

/// A Deployment `web` with more `spec` lines (two-space indented).
fn deployment_with(replicas: u32, image: &str, extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n{extra}  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: {image}\n"
    )
}

fn names(c: &mut Cluster, what: &str) -> Vec<String> {
    let (out, _) = kubectl(c, &format!("get {what} -o name"));
    out.lines().filter_map(|l| l.split_once('/')).map(|(_, n)| n.to_string()).collect()
}

/// Pods of `default` that are not terminating.
fn live_pods(c: &mut Cluster) -> Vec<String> {
    let (out, _) = kubectl(
        c,
        "get pods -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{\"\\n\"}{end}'",
    );
    out.lines()
        .filter(|l| l.split(' ').nth(1).is_none_or(str::is_empty))
        .map(|l| l.split(' ').next().unwrap_or("").to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Marks every live pod in `default` Running and Ready, as a kubelet would, through the status subresource.
fn make_pods_ready(c: &mut Cluster) {
    let pid = c.spawn(Some("kubernetes-admin"), |api| {
        Box::pin(async move {
            let info = lookup("pods").unwrap();
            let list = ApiRequest::new(Credentials::Anonymous, Verb::List, info).namespace(Some("default"));
            let Ok(ApiResponse::List { items, .. }) = api.call(list).await else { return 1 };
            for item in items {
                let Object::Pod(pod) = item.as_ref() else { continue };
                if pod.metadata.deletion_timestamp.is_some() {
                    continue;
                }
                let mut pod = pod.clone();
                let now = k8s_time(api.now());
                let status = pod.status.get_or_insert_with(Default::default);
                if status.phase.as_deref() == Some("Running") {
                    continue;
                }
                status.phase = Some("Running".into());
                let conditions = status.conditions.get_or_insert_with(Vec::new);
                conditions.retain(|c| c.type_ != "Ready");
                conditions.push(k8s_openapi::api::core::v1::PodCondition {
                    type_: "Ready".into(),
                    status: "True".into(),
                    last_transition_time: Some(now),
                    ..Default::default()
                });
                let name = pod.metadata.name.clone().unwrap_or_default();
                let req = ApiRequest::new(Credentials::Anonymous, Verb::Update, info)
                    .namespace(Some("default"))
                    .name(&name)
                    .subresource("status")
                    .body(Object::Pod(pod));
                let _ = api.call(req).await;
            }
            0
        })
    });
    let r = c.run_until_exit(pid, 30_000);
    assert_eq!(r.exit, Some(0));
}

/// Sets the `app` label of one pod, as `kubectl label --overwrite` would.
fn relabel(c: &mut Cluster, pod: &str, app: &str) {
    let (pod, app) = (pod.to_string(), app.to_string());
    let pid = c.spawn(Some("kubernetes-admin"), move |api| {
        Box::pin(async move {
            let info = lookup("pods").unwrap();
            let get = ApiRequest::new(Credentials::Anonymous, Verb::Get, info).namespace(Some("default")).name(&pod);
            let Ok(ApiResponse::Object(o)) = api.call(get).await else { return 1 };
            let mut o = o.as_ref().clone();
            o.meta_mut().labels.get_or_insert_with(Default::default).insert("app".into(), app);
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Update, info)
                .namespace(Some("default"))
                .name(&pod)
                .body(o);
            match api.call(req).await {
                Ok(ApiResponse::Object(_)) => 0,
                _ => 2,
            }
        })
    });
    assert_eq!(c.run_until_exit(pid, 30_000).exit, Some(0));
}

#[test]
fn a_deployment_gets_a_replicaset_named_by_the_template_hash_and_pods_owned_by_it() {
    let mut c = without_worker_kubelets(1);
    assert_eq!(apply(&mut c, &deployment(3, "nginx")).0, "deployment.apps/web created\n");
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs");
    assert_eq!(rs.len(), 1, "{rs:?}");
    let rs = rs[0].clone();
    assert!(Regex::new("^web-[4-9bcdf]+$").unwrap().is_match(&rs), "{rs}");
    let pods = names(&mut c, "pods");
    assert_eq!(pods.len(), 3, "{pods:?}");
    let pod_name = Regex::new("^web-[4-9bcdf]+-[bcdfghjklmnpqrstvwxz2456789]{5}$").unwrap();
    assert!(pods.iter().all(|p| pod_name.is_match(p) && p.starts_with(&format!("{rs}-"))), "{pods:?}");
    let hash = rs.trim_start_matches("web-");
    let (labels, _) =
        kubectl(&mut c, &format!("get pod {} -o jsonpath={{.metadata.labels.pod-template-hash}}", pods[0]));
    assert_eq!(labels, hash);
    let (owner, _) = kubectl(
        &mut c,
        &format!(
            "get pod {} -o jsonpath={{.metadata.ownerReferences[0].kind}}/{{.metadata.ownerReferences[0].name}}/{{.metadata.ownerReferences[0].controller}}/{{.metadata.ownerReferences[0].blockOwnerDeletion}}",
            pods[0]
        ),
    );
    assert_eq!(owner, format!("ReplicaSet/{rs}/true/true"));
    let (owner, _) = kubectl(&mut c, &format!("get rs {rs} -o 'jsonpath={{.metadata.ownerReferences[0].kind}}/{{.metadata.ownerReferences[0].name}}/{{.metadata.annotations.deployment\\.kubernetes\\.io/revision}}'"));
    assert_eq!(owner, "Deployment/web/1");
    let (deploy, _) = kubectl(
        &mut c,
        "get deploy web -o 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}/{.metadata.generation}/{.status.observedGeneration}'",
    );
    assert_eq!(deploy, "1/1/1");
    let (events, _) = kubectl(&mut c, "get events");
    let scaled = format!(r"(?m)Normal +ScalingReplicaSet +deployment/web +Scaled up replica set {rs} from 0 to 3$");
    assert!(Regex::new(&scaled).unwrap().is_match(&events), "{events}");
    let created = format!(r"(?m)Normal +SuccessfulCreate +replicaset/{rs} +Created pod: {rs}-[a-z0-9]{{5}}$");
    assert_eq!(Regex::new(&created).unwrap().find_iter(&events).count(), 3, "{events}");
    let (deploy, _) = kubectl(&mut c, "get deploy web");
    assert!(Regex::new(r"(?m)^web +0/3 +3 +0 +\d+s$").unwrap().is_match(&deploy), "{deploy}");
    let (rsline, _) = kubectl(&mut c, "get rs");
    assert!(Regex::new(&format!(r"(?m)^{rs} +3 +3 +0 +\d+s$")).unwrap().is_match(&rsline), "{rsline}");
}

#[test]
fn ready_pods_make_the_deployment_available_and_complete() {
    let mut c = without_worker_kubelets(2);
    apply(&mut c, &deployment(3, "nginx"));
    c.advance_ms(3_000);
    make_pods_ready(&mut c);
    c.advance_ms(2_000);
    let (deploy, _) = kubectl(&mut c, "get deploy web");
    assert!(Regex::new(r"(?m)^web +3/3 +3 +3 +\d+s$").unwrap().is_match(&deploy), "{deploy}");
    let rs = names(&mut c, "rs")[0].clone();
    let (conds, _) = kubectl(
        &mut c,
        "get deploy web -o 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}/{.message}{\"\\n\"}{end}'",
    );
    assert_eq!(
        conds,
        format!(
            "Available=True/MinimumReplicasAvailable/Deployment has minimum availability.\nProgressing=True/NewReplicaSetAvailable/ReplicaSet \"{rs}\" has successfully progressed.\n"
        )
    );
}

#[test]
fn scaling_a_deployment_scales_its_replicaset_and_a_deleted_pod_is_replaced() {
    let mut c = without_worker_kubelets(3);
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs")[0].clone();
    assert_eq!(apply(&mut c, &deployment(5, "nginx")).0, "deployment.apps/web configured\n");
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c).len(), 5);
    apply(&mut c, &deployment(1, "nginx"));
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c).len(), 1, "{:?}", kubectl(&mut c, "get pods"));
    let (events, _) = kubectl(&mut c, "get events");
    assert!(events.contains(&format!("Scaled up replica set {rs} from 2 to 5")), "{events}");
    assert!(events.contains(&format!("Scaled down replica set {rs} from 5 to 1")), "{events}");
    let deleted = format!(r"(?m)Normal +SuccessfulDelete +replicaset/{rs} +Deleted pod: {rs}-[a-z0-9]{{5}}$");
    assert_eq!(Regex::new(&deleted).unwrap().find_iter(&events).count(), 4, "{events}");
    let survivor = live_pods(&mut c)[0].clone();
    kubectl(&mut c, &format!("delete pod {survivor} --grace-period=0 --force"));
    c.advance_ms(3_000);
    let now = live_pods(&mut c);
    assert_eq!(now.len(), 1);
    assert_ne!(now[0], survivor);
}

#[test]
fn a_new_image_rolls_out_through_a_second_replicaset_as_pods_become_ready() {
    let mut c = without_worker_kubelets(4);
    apply(&mut c, &deployment(3, "nginx:1.26"));
    c.advance_ms(3_000);
    make_pods_ready(&mut c);
    c.advance_ms(2_000);
    let old = names(&mut c, "rs")[0].clone();
    assert_eq!(apply(&mut c, &deployment(3, "nginx:1.27")).0, "deployment.apps/web configured\n");
    for _ in 0..10 {
        c.advance_ms(2_000);
        make_pods_ready(&mut c);
    }
    c.advance_ms(2_000);
    let all = names(&mut c, "rs");
    assert_eq!(all.len(), 2, "{all:?}");
    let new = all.iter().find(|n| **n != old).unwrap().clone();
    let (rs, _) = kubectl(&mut c, "get rs");
    assert!(Regex::new(&format!(r"(?m)^{old} +0 +0 +0 ")).unwrap().is_match(&rs), "{rs}");
    assert!(Regex::new(&format!(r"(?m)^{new} +3 +3 +3 ")).unwrap().is_match(&rs), "{rs}");
    let (rev, _) = kubectl(
        &mut c,
        &format!("get rs {new} -o 'jsonpath={{.metadata.annotations.deployment\\.kubernetes\\.io/revision}}'"),
    );
    assert_eq!(rev, "2");
    let (rev, _) =
        kubectl(&mut c, "get deploy web -o 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}'");
    assert_eq!(rev, "2");
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=Deployment");
    // maxSurge 1, maxUnavailable 0 for 3 replicas: one new pod at a time, then one old pod fewer.
    for line in [
        format!("Scaled up replica set {new} from 0 to 1"),
        format!("Scaled down replica set {old} from 3 to 2"),
        format!("Scaled up replica set {new} from 1 to 2"),
        format!("Scaled down replica set {old} from 1 to 0"),
    ] {
        assert!(events.contains(&line), "{line} in {events}");
    }
    let (deploy, _) = kubectl(&mut c, "get deploy web");
    assert!(Regex::new(r"(?m)^web +3/3 +3 +3 +\d+s$").unwrap().is_match(&deploy), "{deploy}");
}

#[test]
fn deleting_a_deployment_in_the_background_removes_its_replicasets_and_pods() {
    let mut c = without_worker_kubelets(5);
    c.stop("kube-scheduler").unwrap();
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    assert_eq!(names(&mut c, "pods").len(), 2);
    kubectl(&mut c, "delete deployment web");
    c.advance_ms(5_000);
    assert!(names(&mut c, "rs").is_empty());
    assert!(names(&mut c, "pods").is_empty());
}

#[test]
fn foreground_deletion_keeps_the_owner_until_its_dependents_are_gone() {
    let mut c = without_worker_kubelets(6);
    c.stop("kube-scheduler").unwrap();
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    c.stop("kube-controller-manager").unwrap();
    kubectl(&mut c, "delete deployment web --cascade=foreground");
    c.advance_ms(1_000);
    let (fin, _) = kubectl(&mut c, "get deploy web -o jsonpath={.metadata.finalizers}");
    assert_eq!(fin, "[\"foregroundDeletion\"]");
    c.start("kube-controller-manager").unwrap();
    // It leads (and its garbage collector runs) once the stopped process's lease has run out.
    c.advance_ms(25_000);
    assert!(names(&mut c, "deploy").is_empty());
    assert!(names(&mut c, "rs").is_empty());
    assert!(names(&mut c, "pods").is_empty());
}

#[test]
fn orphan_deletion_leaves_the_replicaset_and_pods_without_the_owner() {
    let mut c = without_worker_kubelets(7);
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs")[0].clone();
    kubectl(&mut c, "delete deployment web --cascade=orphan");
    c.advance_ms(3_000);
    assert!(names(&mut c, "deploy").is_empty());
    assert_eq!(names(&mut c, "rs"), vec![rs.clone()]);
    let (refs, _) = kubectl(&mut c, &format!("get rs {rs} -o jsonpath={{.metadata.ownerReferences}}"));
    assert_eq!(refs, "");
    assert_eq!(live_pods(&mut c).len(), 2);
}

#[test]
fn relabelled_pods_are_released_and_replaced_and_matching_orphans_are_adopted() {
    let mut c = without_worker_kubelets(8);
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs")[0].clone();
    let pods = names(&mut c, "pods");
    relabel(&mut c, &pods[0], "debug");
    c.advance_ms(3_000);
    let (refs, _) = kubectl(&mut c, &format!("get pod {} -o jsonpath={{.metadata.ownerReferences}}", pods[0]));
    assert_eq!(refs, "");
    let (owned, _) = kubectl(&mut c, "get pods -l app=web -o name");
    assert_eq!(owned.lines().count(), 2, "{owned}");
    // Labelled back, it matches again: adopted, and the ReplicaSet deletes one surplus pod.
    relabel(&mut c, &pods[0], "web");
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c).len(), 2, "{:?}", kubectl(&mut c, "get pods"));
    let (owner, _) = kubectl(&mut c, &format!("get pod {} -o jsonpath={{.metadata.ownerReferences[0].name}}", pods[0]));
    assert!(owner.is_empty() || owner == rs, "{owner}");
}

#[test]
fn with_the_controller_manager_stopped_a_deployment_gets_no_replicaset_until_it_returns() {
    let mut c = without_worker_kubelets(9);
    c.stop("kube-controller-manager").unwrap();
    apply(&mut c, &deployment(3, "nginx"));
    c.advance_ms(10_000);
    assert!(names(&mut c, "rs").is_empty());
    let (deploy, _) = kubectl(&mut c, "get deploy web");
    assert!(Regex::new(r"(?m)^web +0/3 +0 +0 +\d+s$").unwrap().is_match(&deploy), "{deploy}");
    c.start("kube-controller-manager").unwrap();
    c.advance_ms(25_000);
    assert_eq!(names(&mut c, "rs").len(), 1);
    assert_eq!(names(&mut c, "pods").len(), 3);
}

fn conditions(c: &mut Cluster) -> String {
    kubectl(c, "get deploy web -o 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}/{.message}{\"\\n\"}{end}'").0
}

#[test]
fn a_rollout_that_makes_no_progress_exceeds_its_deadline() {
    let mut c = without_worker_kubelets(10);
    apply(&mut c, &deployment_with(2, "nginx", "  progressDeadlineSeconds: 30\n"));
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs")[0].clone();
    let conds = conditions(&mut c);
    assert!(
        conds.contains(&format!("Progressing=True/ReplicaSetUpdated/ReplicaSet \"{rs}\" is progressing.\n")),
        "{conds}"
    );
    assert!(
        conds.contains("Available=False/MinimumReplicasUnavailable/Deployment does not have minimum availability.\n")
    );
    c.advance_ms(40_000);
    let conds = conditions(&mut c);
    assert!(
        conds.contains(&format!(
            "Progressing=False/ProgressDeadlineExceeded/ReplicaSet \"{rs}\" has timed out progressing.\n"
        )),
        "{conds}"
    );
}

#[test]
fn recreate_scales_the_old_replicaset_to_zero_before_the_new_one_comes_up() {
    let mut c = without_worker_kubelets(11);
    let strategy = "  strategy:\n    type: Recreate\n";
    apply(&mut c, &deployment_with(3, "nginx:1.26", strategy));
    c.advance_ms(3_000);
    make_pods_ready(&mut c);
    c.advance_ms(2_000);
    let old = names(&mut c, "rs")[0].clone();
    apply(&mut c, &deployment_with(3, "nginx:1.27", strategy));
    c.advance_ms(5_000);
    let new = names(&mut c, "rs").into_iter().find(|n| *n != old).unwrap();
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=Deployment");
    let down = events.find(&format!("Scaled down replica set {old} from 3 to 0")).expect(&events);
    let up = events.find(&format!("Scaled up replica set {new} from 0 to 3")).expect(&events);
    assert_ne!(down, up);
    assert_eq!(live_pods(&mut c).len(), 3);
    assert!(live_pods(&mut c).iter().all(|p| p.starts_with(&format!("{new}-"))));
}

#[test]
fn a_paused_deployment_rolls_nothing_out_until_resumed_and_old_revisions_are_pruned_to_the_limit() {
    let mut c = without_worker_kubelets(12);
    let extra = |paused: bool| format!("  paused: {paused}\n  revisionHistoryLimit: 1\n");
    apply(&mut c, &deployment_with(2, "nginx:1.25", &extra(false)));
    c.advance_ms(3_000);
    make_pods_ready(&mut c);
    apply(&mut c, &deployment_with(2, "nginx:1.26", &extra(true)));
    c.advance_ms(5_000);
    assert_eq!(names(&mut c, "rs").len(), 1);
    assert!(
        conditions(&mut c).contains("Progressing=Unknown/DeploymentPaused/Deployment is paused\n"),
        "{}",
        conditions(&mut c)
    );
    for image in ["nginx:1.26", "nginx:1.27"] {
        apply(&mut c, &deployment_with(2, image, &extra(false)));
        for _ in 0..8 {
            c.advance_ms(2_000);
            make_pods_ready(&mut c);
        }
    }
    // Three revisions; the current one and one old one are kept.
    let rs = names(&mut c, "rs");
    assert_eq!(rs.len(), 2, "{rs:?}");
    let (revs, _) = kubectl(&mut c, "get rs -o 'jsonpath={range .items[*]}{.metadata.annotations.deployment\\.kubernetes\\.io/revision}{\" \"}{end}'");
    let mut revs: Vec<&str> = revs.split_whitespace().collect();
    revs.sort();
    assert_eq!(revs, vec!["2", "3"]);
}

#[test]
fn a_pod_the_apiserver_refuses_is_reported_as_failed_create_and_retried_one_at_a_time() {
    let mut c = without_worker_kubelets(13);
    apply(
        &mut c,
        &deployment(3, "nginx").replace("      containers:", "      priorityClassName: missing\n      containers:"),
    );
    c.advance_ms(5_000);
    assert!(names(&mut c, "pods").is_empty());
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=FailedCreate");
    let failed =
        Regex::new(r"(?m)Warning +FailedCreate +replicaset/web-[4-9bcdf]+ +Error creating: .*no PriorityClass with name missing was found$")
            .unwrap();
    assert!(failed.is_match(&events), "{events}");
    // Slow start: each retry sends one pod, never the three that are missing.
    let (count, _) = kubectl(
        &mut c,
        "get events --field-selector reason=FailedCreate -o 'jsonpath={range .items[*]}{.count}{\" \"}{end}'",
    );
    let total: u32 = count.split_whitespace().filter_map(|n| n.parse::<u32>().ok()).sum();
    assert!((1..=4).contains(&total), "{count}");
    let (cond, _) = kubectl(
        &mut c,
        "get rs -o 'jsonpath={.items[0].status.conditions[0].type}/{.items[0].status.conditions[0].reason}'",
    );
    assert_eq!(cond, "ReplicaFailure/FailedCreate");
}

#[test]
fn scaling_down_deletes_a_pod_that_is_not_ready_before_ready_ones() {
    let mut c = without_worker_kubelets(14);
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    make_pods_ready(&mut c);
    c.advance_ms(1_000);
    let mut ready = live_pods(&mut c);
    ready.sort();
    apply(&mut c, &deployment(3, "nginx"));
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c).len(), 3);
    apply(&mut c, &deployment(2, "nginx"));
    c.advance_ms(3_000);
    let mut left = live_pods(&mut c);
    left.sort();
    assert_eq!(left, ready);
}

#[test]
fn with_min_ready_seconds_ready_pods_become_available_only_after_that_long() {
    let mut c = without_worker_kubelets(11);
    apply(&mut c, &deployment_with(3, "nginx", "  minReadySeconds: 10\n"));
    c.advance_ms(3_000);
    let rs = names(&mut c, "rs")[0].clone();
    make_pods_ready(&mut c);
    let counts = |c: &mut Cluster| {
        kubectl(c, &format!("get rs {rs} -o jsonpath={{.status.readyReplicas}}/{{.status.availableReplicas}}")).0
    };
    c.advance_ms(2_000);
    assert_eq!(counts(&mut c), "3/", "ready, not yet available (a zero count is left out)");
    // The ReplicaSet looks again by itself when the pods have been ready for 10 s; no pod event comes then.
    c.advance_ms(9_000);
    assert_eq!(counts(&mut c), "3/3");
    let (deploy, _) = kubectl(&mut c, "get deploy web");
    assert!(Regex::new(r"(?m)^web +3/3 +3 +3 +\d+s$").unwrap().is_match(&deploy), "{deploy}");
}

/// A bare pod `name` whose ownerReferences are `refs` (each `(kind, apiVersion, name, uid)`).
fn pod_owned_by(name: &str, refs: &[(&str, &str, &str, &str)]) -> String {
    let mut yaml = format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  ownerReferences:\n");
    for (kind, api_version, owner, uid) in refs {
        yaml.push_str(&format!("  - apiVersion: {api_version}\n    kind: {kind}\n    name: {owner}\n    uid: {uid}\n"));
    }
    yaml.push_str("spec:\n  containers:\n  - name: c\n    image: nginx\n");
    yaml
}

#[test]
fn the_garbage_collector_deletes_dependents_of_absent_owners_and_drops_only_the_dangling_references() {
    let mut c = without_worker_kubelets(12);
    apply(&mut c, &deployment(0, "nginx"));
    c.advance_ms(2_000);
    let (uid, _) = kubectl(&mut c, "get deploy web -o jsonpath={.metadata.uid}");
    let gone = "0b0e0000-0000-4000-8000-000000000001";
    apply(&mut c, &pod_owned_by("lost", &[("ReplicaSet", "apps/v1", "nowhere", gone)]));
    apply(
        &mut c,
        &pod_owned_by("half", &[("Deployment", "apps/v1", "web", &uid), ("ReplicaSet", "apps/v1", "nowhere", gone)]),
    );
    // An owner of a kind the collector does not watch is taken as alive.
    apply(&mut c, &pod_owned_by("kept", &[("ConfigMap", "v1", "settings", gone)]));
    c.advance_ms(500);
    assert_eq!(live_pods(&mut c), ["half", "kept", "lost"], "not before the owner has been missing a second");
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c), ["half", "kept"]);
    let (refs, _) = kubectl(&mut c, "get pod half -o jsonpath={.metadata.ownerReferences[*].kind}");
    assert_eq!(refs, "Deployment");
    // Its last owner deleted, the pod goes too.
    kubectl(&mut c, "delete deployment web");
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c), ["kept"]);
}

const RC: &str = "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: frontend\nspec:\n  replicas: 3\n  template:\n    metadata:\n      labels:\n        app: guestbook\n        tier: frontend\n    spec:\n      containers:\n      - name: php-redis\n        image: gcr.io/google_samples/gb-frontend:v5\n";

#[test]
fn a_replication_controller_keeps_its_pods_like_a_replicaset_and_a_raw_delete_orphans_them() {
    let mut c = without_worker_kubelets(9);
    c.stop("kube-scheduler").unwrap();
    apply(&mut c, RC);
    c.advance_ms(3_000);
    // Defaulting copied the template labels into the selector and the RC's own labels.
    let (out, _) =
        kubectl(&mut c, "get rc frontend -o jsonpath={.spec.selector.app},{.metadata.labels.tier},{.spec.replicas}");
    assert_eq!(out, "guestbook,frontend,3");
    let pods = names(&mut c, "pods");
    assert_eq!(pods.len(), 3, "{pods:?}");
    assert!(pods.iter().all(|p| p.starts_with("frontend-")), "{pods:?}");
    let (owner, _) = kubectl(
        &mut c,
        &format!(
            "get pod {} -o jsonpath={{.metadata.ownerReferences[0].apiVersion}}/{{.metadata.ownerReferences[0].kind}}",
            pods[0]
        ),
    );
    assert_eq!(owner, "v1/ReplicationController");
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=ReplicationController -o jsonpath={.items[*].source.component}");
    assert!(events.split(' ').all(|s| s == "replication-controller") && !events.is_empty(), "{events}");
    let (table, _) = kubectl(&mut c, "get rc -o wide");
    assert_eq!(
        table.lines().next().map(|l| l.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"])
    );
    assert!(table.contains("app=guestbook,tier=frontend"), "{table}");

    // The scale subresource works for it too, and a deleted pod is replaced.
    let (out, err) = kubectl(&mut c, "scale rc frontend --replicas=1");
    assert_eq!(out, "replicationcontroller/frontend scaled\n", "{err:?}");
    c.advance_ms(3_000);
    assert_eq!(live_pods(&mut c).len(), 1);

    // A delete that names no propagation policy orphans the pods (v1's default for this kind).
    let survivor = live_pods(&mut c)[0].clone();
    let pid = c.spawn(Some("kubernetes-admin"), |api| {
        Box::pin(async move {
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, lookup("rc").unwrap())
                .namespace(Some("default"))
                .name("frontend");
            i32::from(!matches!(api.call(req).await, Ok(ApiResponse::Object(_))))
        })
    });
    assert_eq!(c.run_until_exit(pid, 30_000).exit, Some(0));
    c.advance_ms(5_000);
    assert!(names(&mut c, "rc").is_empty());
    assert_eq!(live_pods(&mut c), vec![survivor.clone()]);
    let (refs, _) = kubectl(&mut c, &format!("get pod {survivor} -o jsonpath={{.metadata.ownerReferences}}"));
    assert_eq!(refs, "", "the orphaned pod has no owner left");
}

#[test]
fn kubectl_deletes_a_replication_controller_with_its_pods() {
    let mut c = without_worker_kubelets(10);
    c.stop("kube-scheduler").unwrap();
    apply(&mut c, RC);
    c.advance_ms(3_000);
    assert_eq!(names(&mut c, "pods").len(), 3);
    let (out, _) = kubectl(&mut c, "delete rc frontend");
    assert_eq!(out, "replicationcontroller \"frontend\" deleted from default namespace\n");
    c.advance_ms(5_000);
    assert!(live_pods(&mut c).is_empty());
}
