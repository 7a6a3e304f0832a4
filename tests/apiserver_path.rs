//! Requests through the whole path: kubectl → kube-apiserver (authn, authz, admission, validation) → etcd.

use kubeglass::cluster::{Cluster, ClusterConfig, UserConfig};

use crate::{apply, kubectl};

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n";

#[test]
fn the_default_cluster_installs_its_nodes_and_system_objects() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "get nodes");
    assert_eq!(code, Some(0), "{out}");
    for n in ["controlplane", "node01", "node02"] {
        assert!(out.contains(n), "{out}");
    }
    let (out, _) = kubectl(&mut c, "get namespaces");
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert!(out.contains(ns), "{out}");
    }
    let (out, _) = kubectl(&mut c, "get pods -n kube-system");
    assert!(out.contains("kube-apiserver-controlplane"), "{out}");
}

#[test]
fn apply_creates_then_reports_unchanged_then_configured() {
    let mut c = Cluster::new_default(1);
    assert_eq!(apply(&mut c, DEPLOYMENT), ("deployment.apps/web created\n".to_string(), Some(0)));
    assert_eq!(apply(&mut c, DEPLOYMENT), ("deployment.apps/web unchanged\n".to_string(), Some(0)));
    let scaled = DEPLOYMENT.replace("replicas: 3", "replicas: 5");
    assert_eq!(apply(&mut c, &scaled), ("deployment.apps/web configured\n".to_string(), Some(0)));
    let (out, _) = kubectl(&mut c, "get deployment web -o yaml");
    assert!(out.contains("replicas: 5"), "{out}");
}

#[test]
fn create_of_an_existing_object_is_already_exists() {
    let mut c = Cluster::new_default(1);
    let (_, code) = {
        let r = c.kubectl("create -f -", Some(DEPLOYMENT.into()), 120_000);
        (r.output, r.exit)
    };
    assert_eq!(code, Some(0));
    let (out, code) = {
        let r = c.kubectl("create -f -", Some(DEPLOYMENT.into()), 120_000);
        (r.output, r.exit)
    };
    assert_eq!(
        out,
        "Error from server (AlreadyExists): error when creating \"STDIN\": deployments.apps \"web\" already exists\n"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn get_of_a_missing_object_is_not_found_and_an_empty_list_says_so() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        kubectl(&mut c, "get pod nope"),
        ("Error from server (NotFound): pods \"nope\" not found\n".into(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "get deployments"), ("No resources found in default namespace.\n".into(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "get widgets"),
        ("error: the server doesn't have a resource type \"widgets\"\n".into(), Some(1))
    );
}

#[test]
fn a_missing_namespace_is_refused_by_namespace_lifecycle() {
    let mut c = Cluster::new_default(1);
    let manifest = DEPLOYMENT.replace("name: web\n", "name: web\n  namespace: nope\n");
    let (out, code) = apply(&mut c, &manifest);
    assert_eq!(out, "Error from server (NotFound): error when creating \"STDIN\": namespaces \"nope\" not found\n");
    assert_eq!(code, Some(1));
}

#[test]
fn a_namespace_and_its_content_apply_together_from_one_file() {
    let mut c = Cluster::new_default(1);
    let manifest = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n{}",
        DEPLOYMENT.replace("name: web\n", "name: web\n  namespace: shop\n")
    );
    let (out, code) = apply(&mut c, &manifest);
    assert_eq!(out, "namespace/shop created\ndeployment.apps/web created\n");
    assert_eq!(code, Some(0));
}

#[test]
fn an_unknown_token_gets_401_and_a_user_without_rbac_gets_403() {
    let config = ClusterConfig {
        users: vec![UserConfig { name: "jane".into(), token: "jane-token".into(), groups: vec!["dev".into()] }],
        ..ClusterConfig::default()
    };
    let mut c = Cluster::new(config, 1);
    c.set_user("jane").unwrap();
    let (out, code) = kubectl(&mut c, "get pods");
    assert_eq!(out, "Error from server (Forbidden): pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"\n");
    assert_eq!(code, Some(1));
    let (out, _) = apply(&mut c, DEPLOYMENT);
    assert!(out.contains("is forbidden: User \"jane\" cannot get resource \"deployments\" in API group \"apps\" in the namespace \"default\""), "{out}");
}

#[test]
fn a_stopped_apiserver_refuses_connections_and_a_restarted_one_serves_again() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, DEPLOYMENT);
    c.stop("kube-apiserver").unwrap();
    let (out, code) = kubectl(&mut c, "get pods");
    assert_eq!(
        out,
        "The connection to the server 192.168.56.10:6443 was refused - did you specify the right host or port?\n"
    );
    assert_eq!(code, Some(1));
    c.start("kube-apiserver").unwrap();
    let (out, code) = kubectl(&mut c, "get deployments");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("web"), "{out}");
}

#[test]
fn without_etcd_quorum_writes_time_out_and_with_it_back_they_succeed() {
    let config = ClusterConfig { etcd_members: 3, ..ClusterConfig::default() };
    let mut c = Cluster::new(config, 3);
    c.stop("etcd-1").unwrap();
    c.stop("etcd-2").unwrap();
    let started = c.now().ms();
    let (out, code) = apply(&mut c, DEPLOYMENT);
    assert_eq!(code, Some(1));
    assert!(out.contains("etcdserver: request timed out"), "{out}");
    assert!(c.now().ms() - started >= 7_000);
    c.start("etcd-1").unwrap();
    c.advance_ms(3_000);
    let (out, code) = apply(&mut c, DEPLOYMENT);
    assert_eq!((out.as_str(), code), ("deployment.apps/web created\n", Some(0)));
}

#[test]
fn validation_refuses_a_selector_that_does_not_match_the_template() {
    let mut c = Cluster::new_default(1);
    let bad = DEPLOYMENT.replace("labels: {app: web}", "labels: {app: api}");
    let (out, code) = apply(&mut c, &bad);
    assert_eq!(
        out,
        "The Deployment \"web\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"api\"}: `selector` does not match template `labels`\n"
    );
    assert_eq!(code, Some(1));
    assert_eq!(kubectl(&mut c, "get deployments").0, "No resources found in default namespace.\n");
}

#[test]
fn unknown_fields_are_refused_by_strict_decoding() {
    let mut c = Cluster::new_default(1);
    let bad = DEPLOYMENT.replace("replicas: 3", "replica: 3");
    let (out, code) = apply(&mut c, &bad);
    assert_eq!(
        out,
        "Error from server (BadRequest): error when creating \"STDIN\": Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replica\"\n"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn validate_warn_and_false_let_an_unknown_field_through_as_the_apiserver_is_told() {
    // What the real kubectl v1.32 printed against kubeglass serve for the same lines (fieldValidation=Warn
    // answers with a `Warning` header per field; Ignore drops them silently).
    let mut c = Cluster::new_default(1);
    let bad = DEPLOYMENT.replace("replicas: 3", "replica: 3");
    let r = c.kubectl("apply -f - --validate=warn", Some(bad.clone()), 120_000);
    assert_eq!(
        (r.output.as_str(), r.exit),
        ("Warning: unknown field \"spec.replica\"\ndeployment.apps/web created\n", Some(0))
    );
    let r = c.kubectl("apply -f - --validate=false", Some(bad.replace("name: web", "name: web2")), 120_000);
    assert_eq!((r.output.as_str(), r.exit), ("deployment.apps/web2 created\n", Some(0)));
    let r = c.kubectl("create -f - --validate=foo", Some(bad.clone()), 120_000);
    assert_eq!(
        (r.output.as_str(), r.exit),
        (
            "error: invalid - validate option \"foo\"; must be one of: strict (or true), warn, ignore (or false)\n",
            Some(1)
        )
    );
    let (out, _) = kubectl(&mut c, "get deploy web -o jsonpath={.spec.replicas}");
    assert_eq!(out, "1", "the unknown field was dropped, so the default replica count stands");
}

#[test]
fn server_defaults_fill_in_what_the_manifest_left_out() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, DEPLOYMENT);
    let (out, _) = kubectl(&mut c, "get deployment web -o yaml");
    for expected in [
        "revisionHistoryLimit: 10",
        "progressDeadlineSeconds: 600",
        "maxSurge: 25%",
        "imagePullPolicy: IfNotPresent",
        "terminationGracePeriodSeconds: 30",
    ] {
        assert!(out.contains(expected), "{expected} missing from\n{out}");
    }
}

/// The stages the last request of `chain` passed, as `stage:✓/✗`.
fn last_path(c: &Cluster, chain: u64) -> (Vec<String>, u16) {
    let a = c.apiserver().unwrap();
    let record = a.requests().for_chain(chain).last().copied().cloned().unwrap_or_else(|| {
        panic!(
            "no record for chain {chain}: {:?}",
            a.requests()
                .records()
                .map(|r| (r.chain, r.summary.clone(), r.code))
                .collect::<Vec<_>>()
                .split_off(a.requests().records().count().saturating_sub(4))
        )
    });
    let stages = record
        .stages
        .iter()
        .map(|s| format!("{}:{}", s.stage.as_str(), if s.passed { "ok" } else { "refused" }))
        .collect();
    (stages, record.code)
}

#[test]
fn each_request_records_the_stage_where_it_stopped() {
    let mut c = Cluster::new_default(1);
    let created = c.kubectl("create -f -", Some(DEPLOYMENT.into()), 60_000);
    let (stages, code) = last_path(&c, created.chain);
    assert_eq!(code, 201);
    assert_eq!(
        stages,
        [
            "authentication:ok",
            "authorization:ok",
            "decoding:ok",
            "mutating admission:ok",
            "validation:ok",
            "validating admission:ok",
            "etcd:ok"
        ]
    );
    let missing_ns =
        c.kubectl("create -f -", Some(DEPLOYMENT.replace("name: web\n", "name: web\n  namespace: nope\n")), 60_000);
    assert_eq!(
        last_path(&c, missing_ns.chain),
        (
            vec![
                "authentication:ok".into(),
                "authorization:ok".into(),
                "decoding:ok".into(),
                "mutating admission:refused".into()
            ],
            404
        )
    );
    let invalid = c.kubectl("create -f -", Some(DEPLOYMENT.replace("replicas: 3", "replicas: -1")), 60_000);
    let (stages, code) = last_path(&c, invalid.chain);
    assert_eq!((stages.last().map(String::as_str), code), (Some("validation:refused"), 422));
    let exists = c.kubectl("create -f -", Some(DEPLOYMENT.into()), 60_000);
    let (stages, code) = last_path(&c, exists.chain);
    assert_eq!((stages.last().map(String::as_str), code), (Some("etcd:refused"), 409));
}

#[test]
fn describe_prints_kubectls_layout_with_related_objects() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, DEPLOYMENT);
    let (out, code) = kubectl(&mut c, "describe deployment web");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("Name:                   web\nNamespace:              default\n"), "{out}");
    assert!(
        out.contains("Replicas:               3 desired | 0 updated | 0 total | 0 available | 0 unavailable"),
        "{out}"
    );
    assert!(out.contains("RollingUpdateStrategy:  25% max unavailable, 25% max surge"), "{out}");
    // Once the pods have their nodes: describe counts the node's pods the way the list shows them.
    c.advance_ms(30_000);
    let (pods, _) = kubectl(&mut c, "get pods -A -o wide --no-headers");
    let on_node = pods.lines().filter(|l| l.split_whitespace().nth(7) == Some("node01")).count();
    let (out, _) = kubectl(&mut c, "describe node node01");
    let total = format!("Non-terminated Pods:          ({on_node} in total)\n");
    assert!(out.contains(&total), "{pods}{total}{out}");
    assert!(out.contains("\n  kube-system                 kube-proxy-"), "{out}");
    assert_eq!(
        kubectl(&mut c, "describe pod nope"),
        ("Error from server (NotFound): pods \"nope\" not found\n".into(), Some(1))
    );
}

#[test]
fn get_sorts_by_a_field_and_says_when_no_object_has_it() {
    let mut c = Cluster::new_default(1);
    for (name, n) in [("b", "3"), ("a", "10"), ("c", "2")] {
        apply(
            &mut c,
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels: {{num: \"{n}\"}}\n"),
        );
    }
    assert_eq!(
        kubectl(&mut c, "get cm -l num -o name --sort-by=.metadata.name").0,
        "configmap/a\nconfigmap/b\nconfigmap/c\n"
    );
    assert_eq!(
        kubectl(&mut c, "get cm -l num -o name --sort-by={.metadata.labels.num}").0,
        "configmap/c\nconfigmap/b\nconfigmap/a\n"
    );
    assert_eq!(
        kubectl(&mut c, "get cm -l num --sort-by=.spec.nothing"),
        ("error: couldn't find any field with path \"{.spec.nothing}\" in the list of objects\n".into(), Some(1))
    );
}

/// kubeadm's etcd runs with CheckQuorum: the member left alone steps down within two election timeouts, a
/// create sent then waits for a leader that never comes and fails with etcd's timeout as a 500 (`kubectl create
/// configmap` wraps it: `failed to create configmap: %v`), and once the other members are back the object was never written: no key, no event
/// in etcd's history.
#[test]
fn a_create_without_etcd_quorum_fails_and_is_not_applied_when_quorum_returns() {
    let config = ClusterConfig { etcd_members: 3, ..ClusterConfig::default() };
    let mut c = Cluster::new(config, 3);
    c.advance_ms(1_000);
    c.stop("etcd-1").unwrap();
    c.stop("etcd-2").unwrap();
    c.advance_ms(2_500);
    let status = c.shell("controlplane", "etcdctl endpoint status", 60_000);
    assert_eq!(status.output.split(", ").nth(8), Some("false"), "{}", status.output);
    let before = c.etcd_member(0).unwrap().store().revision();
    let started = c.now().ms();
    let (out, code) = kubectl(&mut c, "create configmap lost --from-literal=k=v");
    assert_eq!((out.as_str(), code), ("error: failed to create configmap: etcdserver: request timed out\n", Some(1)));
    assert!(c.now().ms() - started >= 7_000);
    c.start("etcd-1").unwrap();
    c.start("etcd-2").unwrap();
    c.advance_ms(10_000);
    let (out, code) = kubectl(&mut c, "get configmap lost");
    assert_eq!((out.as_str(), code), ("Error from server (NotFound): configmaps \"lost\" not found\n", Some(1)));
    let key = "/registry/configmaps/default/lost";
    let etcd = c.etcd_member(0).unwrap().store();
    assert!(etcd.revision() > before, "the cluster wrote on once quorum was back");
    assert_eq!(etcd.events_since(key, before + 1).map(|e| e.len()), Ok(0));
    let r = c.shell("controlplane", &format!("etcdctl get {key}"), 60_000);
    assert_eq!((r.output.as_str(), r.exit), ("", Some(0)));
}
