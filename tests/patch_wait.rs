//! `kubectl patch` (strategic, merge and JSON patches, subresources, no-op patches), `kubectl replace`,
//! `kubectl wait` (conditions, jsonpath, deletion, timeouts) and `kubectl edit`.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {tier: front, team: a}}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: nginx, image: nginx:1.27}\n";

fn with_deploy() -> Cluster {
    let mut c = Cluster::new_default(5);
    apply(&mut c, DEPLOY);
    c.advance_ms(8_000);
    c
}

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

#[test]
fn a_strategic_patch_changes_the_object_and_the_same_patch_again_changes_nothing() {
    let mut c = with_deploy();
    let patch = r#"patch deployment web -p '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}'"#;
    assert_eq!(kubectl(&mut c, patch), ("deployment.apps/web patched\n".into(), Some(0)));
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.template.spec.containers[0].image}"), "nginx:1.28");
    let rv = get(&mut c, "get deploy web -o jsonpath={.metadata.resourceVersion}");
    c.advance_ms(20_000);
    let rv_settled = get(&mut c, "get deploy web -o jsonpath={.metadata.resourceVersion}");
    assert_ne!(rv, rv_settled, "the rollout updates the status");
    assert_eq!(kubectl(&mut c, patch), ("deployment.apps/web patched (no change)\n".into(), Some(0)));
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.resourceVersion}"), rv_settled);
    // YAML is read too, and the type is checked before anything is sent.
    assert_eq!(
        kubectl(&mut c, "patch deploy web -p 'metadata: {labels: {team: b}}'").0,
        "deployment.apps/web patched\n"
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.labels.team}"), "b");
    assert_eq!(
        kubectl(&mut c, "patch deploy web --type foo -p '{}'"),
        ("error: --type must be one of [json merge strategic], not \"foo\"\n".into(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "patch deploy web"),
        ("error: must specify --patch or --patch-file containing the contents of the patch\n".into(), Some(1))
    );
    assert!(kubectl(&mut c, "patch deploy web -p 'x: ['")
        .0
        .starts_with("error: unable to parse \"x: [\": yaml: line 1: "));
    assert_eq!(
        kubectl(&mut c, "patch deploy nope -p '{}'"),
        ("Error from server (NotFound): deployments.apps \"nope\" not found\n".into(), Some(1))
    );
}

#[test]
fn a_merge_patch_deletes_with_null_and_replaces_lists_whole() {
    let mut c = with_deploy();
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --type merge -p '{"metadata":{"labels":{"team":null}}}'"#).0,
        "deployment.apps/web patched\n"
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.labels}"), r#"{"tier":"front"}"#);
    let (out, code) = kubectl(&mut c, r#"patch deploy web --type merge -p '[1]'"#);
    assert_eq!((out.as_str(), code), ("Error from server (BadRequest): Invalid JSON Patch\n", Some(1)));
}

#[test]
fn json_patches_apply_in_order_and_fail_as_a_whole() {
    let mut c = with_deploy();
    let ops = r#"patch deploy web --type json -p '[{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":3},{"op":"add","path":"/metadata/labels/env","value":"prod"},{"op":"remove","path":"/metadata/labels/team"}]'"#;
    assert_eq!(kubectl(&mut c, ops), ("deployment.apps/web patched\n".into(), Some(0)));
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "3");
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.labels}"), r#"{"env":"prod","tier":"front"}"#);
    let generation = get(&mut c, "get deploy web -o jsonpath={.metadata.generation}");
    for failing in [
        r#"[{"op":"test","path":"/spec/replicas","value":5}]"#,
        r#"[{"op":"replace","path":"/spec/replicas","value":1},{"op":"remove","path":"/spec/nope"}]"#,
        r#"[{"op":"add","path":"/spec/nope/deeper","value":1}]"#,
        r#"[{"op":"bogus","path":"/spec"}]"#,
    ] {
        assert_eq!(
            kubectl(&mut c, &format!("patch deploy web --type json -p '{failing}'")),
            (
                "The request is invalid: the server rejected our request due to an error in our request\n".into(),
                Some(1)
            ),
            "{failing}"
        );
    }
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "3", "a failed patch changes nothing");
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.generation}"), generation);
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --type json -p '{"op":"add"}'"#),
        (
            "Error from server (BadRequest): json: cannot unmarshal object into Go value of type jsonpatch.Patch\n"
                .into(),
            Some(1)
        )
    );
}

#[test]
fn patches_reach_the_scale_and_status_subresources() {
    let mut c = with_deploy();
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --subresource=scale --type merge -p '{"spec":{"replicas":4}}'"#),
        ("scale.autoscaling/web patched\n".into(), Some(0))
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "4");
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --subresource=scale --type json -p '[{"op":"replace","path":"/spec/replicas","value":1}]'"#).0,
        "scale.autoscaling/web patched\n"
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "1");
    assert_eq!(
        kubectl(&mut c, "patch deploy web --subresource=foo -p '{}'"),
        ("error: invalid subresource value: \"foo\". Must be one of [status scale]\n".into(), Some(1))
    );
    // A status patch leaves the spec alone; a spec field in it is ignored.
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --subresource=status --type merge -p '{"spec":{"replicas":9},"status":{"collisionCount":2}}'"#).0,
        "deployment.apps/web patched\n"
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "1");
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.status.collisionCount}"), "2");
}

#[test]
fn a_client_dry_run_patch_is_applied_by_kubectl_alone() {
    let mut c = with_deploy();
    let rv = get(&mut c, "get deploy web -o jsonpath={.metadata.resourceVersion}");
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --type merge -p '{"spec":{"replicas":7}}' --dry-run=client"#).0,
        "deployment.apps/web patched (dry run)\n"
    );
    assert_eq!(
        kubectl(&mut c, r#"patch deploy web --type merge -p '{"spec":{"replicas":7}}' --dry-run=client -o jsonpath={.spec.replicas}"#).0,
        // What the real kubectl v1.32 prints for the same line against kubeglass serve.
        "7"
    );
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "2");
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.metadata.resourceVersion}"), rv);
}

#[test]
fn replace_puts_the_whole_object_at_the_stored_version() {
    let mut c = Cluster::new_default(5);
    apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '1', b: '2'}\n");
    let r = c.kubectl(
        "replace -f -",
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '9'}\n".into()),
        10_000,
    );
    assert_eq!((r.output.as_str(), r.exit), ("configmap/cfg replaced\n", Some(0)));
    assert_eq!(get(&mut c, "get cm cfg -o jsonpath={.data}"), r#"{"a":"9"}"#);
    let stale = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, resourceVersion: '2'}\ndata: {a: '0'}\n";
    assert_eq!(
        c.kubectl("replace -f -", Some(stale.into()), 10_000).output,
        "Error from server (Conflict): error when replacing \"STDIN\": Operation cannot be fulfilled on configmaps \"cfg\": the object has been modified; please apply your changes to the latest version and try again\n"
    );
    let missing = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nope}\ndata: {a: '0'}\n";
    assert_eq!(
        c.kubectl("replace -f -", Some(missing.into()), 10_000).output,
        "Error from server (NotFound): error when replacing \"STDIN\": configmaps \"nope\" not found\n"
    );
    assert_eq!(kubectl(&mut c, "replace"), ("error: must specify one of -f and -k\n".into(), Some(1)));
}

#[test]
fn wait_prints_condition_met_once_the_condition_holds() {
    let mut c = Cluster::new_default(5);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: web, image: nginx:1.27}\n",
    );
    let r = c.kubectl("wait --for=condition=Ready pod/web --timeout=60s", None, 120_000);
    assert_eq!((r.output.as_str(), r.exit), ("pod/web condition met\n", Some(0)));
    assert_eq!(get(&mut c, "get pod web -o jsonpath={.status.phase}"), "Running", "it waited until the pod ran");
    assert_eq!(
        kubectl(&mut c, "wait --for=jsonpath={.status.phase}=Running pod web"),
        ("pod/web condition met\n".into(), Some(0))
    );
    assert_eq!(kubectl(&mut c, "wait --for=condition=ready=TRUE pod/web").0, "pod/web condition met\n");
    assert_eq!(kubectl(&mut c, "wait --for=jsonpath='{.status.podIP}' pod/web").0, "pod/web condition met\n");
}

#[test]
fn wait_times_out_with_kubectls_message_after_the_timeout() {
    let mut c = Cluster::new_default(5);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: web, image: nginx:1.27}\n",
    );
    c.advance_ms(5_000);
    let before = c.now().ms();
    assert_eq!(
        kubectl(&mut c, "wait --for=condition=Ready=false pod/web --timeout=7s"),
        ("error: timed out waiting for the condition on pods/web\n".into(), Some(1))
    );
    let waited = c.now().ms() - before;
    assert!((7_000..7_100).contains(&waited), "waited {waited} ms");
    assert_eq!(
        kubectl(&mut c, "wait --for=jsonpath={.status.phase}=Failed pod/web --timeout=0"),
        ("error: condition not met for pods/web\n".into(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "wait --for=foo pod/web"), ("error: unrecognized condition: \"foo\"\n".into(), Some(1)));
    assert_eq!(kubectl(&mut c, "wait pod/web").0, "error: unrecognized condition: \"\"\n");
    assert_eq!(
        kubectl(&mut c, "wait --for=condition=Ready pod/nope").0,
        "Error from server (NotFound): pods \"nope\" not found\n"
    );
    assert_eq!(
        kubectl(&mut c, "wait --for=condition=Ready pod/web --timeout=abc").0,
        "Error: invalid argument \"abc\" for \"--timeout\" flag: time: invalid duration \"abc\"\nSee 'kubectl wait --help' for usage.\n"
    );
}

#[test]
fn wait_for_delete_returns_when_the_object_is_gone() {
    let mut c = Cluster::new_default(5);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: web, image: nginx:1.27}\n",
    );
    c.advance_ms(5_000);
    assert_eq!(kubectl(&mut c, "delete pod web --wait=false").1, Some(0));
    let r = c.kubectl("wait --for=delete pod/web --timeout=60s", None, 120_000);
    assert_eq!((r.output.as_str(), r.exit), ("pod/web condition met\n", Some(0)));
    assert_eq!(get(&mut c, "get pod web"), "Error from server (NotFound): pods \"web\" not found\n");
    // Already gone: nothing to wait for.
    assert_eq!(kubectl(&mut c, "wait --for=delete pod/web"), (String::new(), Some(0)));
}

#[test]
fn edit_hands_the_object_to_an_editor_and_the_edited_text_applies() {
    let mut c = with_deploy();
    let missing = c.kubectl("edit deploy nope", None, 60_000);
    assert_eq!(
        (missing.output.as_str(), missing.exit, missing.edit),
        ("Error from server (NotFound): deployments.apps \"nope\" not found\n", Some(1), None)
    );
    let r = c.kubectl("edit deploy web", None, 60_000);
    assert_eq!(r.exit, Some(1), "nothing was edited on the command line");
    assert!(
        r.output.starts_with("error: kubeglass has no terminal editor to open deployment.apps/web in."),
        "{}",
        r.output
    );
    assert!(r.output.contains("`kubectl get deployment.apps/web -n default -o yaml`"), "{}", r.output);
    assert!(r.output.contains("kubectl apply -f -"), "{}", r.output);
    let edit = r.edit.expect("an edit request");
    assert_eq!(edit.objects, vec!["deployment.apps/web".to_string()]);
    assert_eq!((edit.format.as_str(), edit.namespace.as_str()), ("yaml", "default"));
    assert!(edit.text.starts_with("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"));
    assert!(!edit.text.contains("managedFields"), "{}", edit.text);
    // What the web app does with it: the edited text goes back through apply.
    assert!(edit.text.contains("\n  replicas: 2\n"), "{}", edit.text);
    let edited = edit.text.replace("\n  replicas: 2\n", "\n  replicas: 3\n");
    assert_eq!(apply(&mut c, &edited), ("deployment.apps/web configured\n".into(), Some(0)));
    assert_eq!(get(&mut c, "get deploy web -o jsonpath={.spec.replicas}"), "3");
    // -o json, and a bad mode.
    let json = c.kubectl("edit deploy/web -o json", None, 60_000).edit.expect("an edit request");
    assert_eq!(json.format, "json");
    assert!(json.text.contains("\n{\n    \"apiVersion\": \"apps/v1\","), "{}", json.text);
    assert_eq!(
        kubectl(&mut c, "edit deploy web -o wide"),
        ("error: the edit mode must be one of yaml, json, not \"wide\"\n".into(), Some(1))
    );
}
