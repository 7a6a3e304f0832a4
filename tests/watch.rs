//! Watches through the apiserver: initial state, changes in order, field-selector transitions, and
//! 410 Gone for a resourceVersion older than the watch cache's window.

use std::cell::RefCell;
use std::rc::Rc;

use kubeglass::api::{lookup, ApiRequest, ApiResponse, Credentials, Verb, WatchEventType};
use kubeglass::cluster::Cluster;

use crate::apply;

/// Opens a watch as `kubernetes-admin` and collects `(type, name, rv)` of up to `max` events.
fn watch(
    cluster: &mut Cluster,
    resource: &str,
    rv: Option<&str>,
    field: Option<&str>,
    max: usize,
) -> Rc<RefCell<Vec<(String, String, u64)>>> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    let info = lookup(resource).unwrap();
    let rv = rv.map(str::to_string);
    let field = field.map(str::to_string);
    cluster.spawn(Some("kubernetes-admin"), move |api| {
        Box::pin(async move {
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Watch, info).namespace(Some("default"));
            req.params.resource_version = rv;
            req.params.field_selector = field;
            let Ok(ApiResponse::WatchStarted { watch_id, .. }) = api.call(req).await else { return 1 };
            while sink.borrow().len() < max {
                let Some(e) = api.next_event(watch_id).await else { return 0 };
                let name = e.object.as_ref().map(|o| o.name().to_string()).unwrap_or_default();
                let detail = match &e.status {
                    Some(s) => s.message.clone(),
                    None => name,
                };
                sink.borrow_mut().push((e.kind.as_str().to_string(), detail, e.resource_version));
            }
            0
        })
    });
    seen
}

fn configmap(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n")
}

#[test]
fn a_watch_sends_the_current_objects_then_each_change_in_order() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &configmap("a"));
    let seen = watch(&mut c, "configmaps", None, None, 3);
    c.advance_ms(100);
    apply(&mut c, &configmap("b"));
    crate::kubectl(&mut c, "delete configmap a");
    c.advance_ms(100);
    let seen = seen.borrow();
    let kinds: Vec<(&str, &str)> = seen.iter().map(|(k, n, _)| (k.as_str(), n.as_str())).collect();
    assert_eq!(kinds, vec![("ADDED", "a"), ("ADDED", "b"), ("DELETED", "a")]);
    assert!(seen.windows(2).all(|w| w[0].2 < w[1].2), "revisions increase: {seen:?}");
}

#[test]
fn a_pod_entering_a_field_selector_is_added_and_leaving_it_is_deleted() {
    let mut c = Cluster::new_default(1);
    // Unscheduled, p changes only by being created and deleted.
    c.stop("kube-scheduler").unwrap();
    let seen = watch(&mut c, "pods", None, Some("metadata.name=p"), 2);
    c.advance_ms(10);
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
    apply(&mut c, pod);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: q\nspec:\n  containers:\n  - name: c\n    image: nginx\n",
    );
    crate::kubectl(&mut c, "delete pod p");
    c.advance_ms(100);
    let kinds: Vec<String> = seen.borrow().iter().map(|(k, n, _)| format!("{k} {n}")).collect();
    assert_eq!(kinds, vec!["ADDED p", "DELETED p"]);
}

#[test]
fn a_watch_from_a_revision_older_than_the_window_gets_410_gone() {
    let mut c = Cluster::new_default(1);
    for i in 0..120 {
        apply(&mut c, &configmap(&format!("cm-{i}")));
        c.advance_ms(1_000);
    }
    let seen = watch(&mut c, "configmaps", Some("2"), None, 1);
    c.advance_ms(100);
    let seen = seen.borrow();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, "ERROR");
    assert!(seen[0].1.starts_with("too old resource version: 2 ("), "{:?}", seen[0]);
    let _ = WatchEventType::Error;
}

#[test]
fn a_watch_from_a_recent_revision_replays_what_followed_it() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &configmap("a"));
    let (out, _) = crate::kubectl(&mut c, "get configmap a -o yaml");
    let rv: u64 = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("resourceVersion: "))
        .and_then(|v| v.trim_matches('"').parse().ok())
        .unwrap();
    apply(&mut c, &configmap("b"));
    apply(&mut c, &configmap("c"));
    let seen = watch(&mut c, "configmaps", Some(&rv.to_string()), None, 2);
    c.advance_ms(100);
    let names: Vec<String> = seen.borrow().iter().map(|(k, n, _)| format!("{k} {n}")).collect();
    assert_eq!(names, vec!["ADDED b", "ADDED c"]);
}

#[test]
fn a_watch_the_client_closes_is_forgotten_by_the_apiserver() {
    // Ctrl-C on `kubectl get pods -w` closes its stream: the apiserver stops sending it events, as it does
    // when a real client hangs up (before, every interrupted watch stayed open for good).
    let mut cluster = Cluster::new_default(7);
    cluster.advance_ms(5_000);
    let watchers = |c: &Cluster| c.apiserver().unwrap().cache().watcher_count();
    let before = watchers(&cluster);
    let (pid, _) = cluster.start_kubectl("get pods -w", None);
    cluster.advance_ms(2_000);
    assert_eq!(watchers(&cluster), before + 1, "the watch is open");
    cluster.interrupt(pid);
    cluster.advance_ms(1_000);
    assert_eq!(watchers(&cluster), before, "the watch is closed at the apiserver");
    // A kubectl that ends by itself (`wait` watches until its condition holds) closes its watch too.
    let r = cluster.kubectl("wait --for=condition=Ready node/node01 --timeout=5s", None, 10_000);
    assert_eq!(r.exit, Some(0), "{}", r.output);
    cluster.advance_ms(1_000);
    assert_eq!(watchers(&cluster), before);
}

#[test]
fn a_remote_watch_ends_when_its_client_hangs_up() {
    use kubeglass::cluster::RemoteEvent;
    let mut cluster = Cluster::new_default(8);
    // Let the controllers that start with their lease open their informers' watches first.
    cluster.advance_ms(5_000);
    let watchers = |c: &Cluster| c.apiserver().unwrap().cache().watcher_count();
    let before = watchers(&cluster);
    let admin = Credentials::ClientCert {
        common_name: "kubernetes-admin".into(),
        organizations: vec!["kubeadm:cluster-admins".into()],
    };
    let req =
        ApiRequest::new(Credentials::Anonymous, Verb::Watch, lookup("pods").unwrap()).namespace(Some("kube-system"));
    let id = cluster.remote_call("kubectl/v1.32.4", admin, req);
    cluster.advance_ms(1_000);
    let events = cluster.take_remote(id);
    assert!(
        matches!(events.first(), Some(RemoteEvent::Answer { result: Ok(ApiResponse::WatchStarted { .. }), .. })),
        "{events:?}"
    );
    assert!(events.iter().any(|e| matches!(e, RemoteEvent::Event(ev) if ev.kind == WatchEventType::Added)));
    assert!(cluster.kernel().id("kubectl/v1.32.4").is_some(), "the client is a component named after its agent");
    assert_eq!(watchers(&cluster), before + 1);
    cluster.end_remote(id);
    cluster.advance_ms(1_000);
    assert_eq!(watchers(&cluster), before);
    assert!(!cluster.remote_call_open(id));
}
