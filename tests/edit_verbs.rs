//! The verbs that change existing objects: `scale`, `label`, `annotate`, `taint`, `cordon`/`uncordon` and
//! `set image`, `set resources`. Each is checked for kubectl v1.34's result line, its refusals, and the stored object.

use kubeglass::api::Kind;
use kubeglass::cluster::{Cluster, ClusterConfig, UserConfig};
use serde_json::json;

use crate::create_verbs::stored;
use crate::kubectl;

fn ok(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(0)), "kubectl {line}");
}

fn fails(c: &mut Cluster, line: &str, expected: &str) {
    assert_eq!(kubectl(c, line), (expected.to_string(), Some(1)), "kubectl {line}");
}

fn replicas(c: &Cluster, name: &str) -> serde_json::Value {
    stored(c, Kind::Deployment, Some("default"), name).map(|d| d["spec"]["replicas"].clone()).unwrap_or_default()
}

#[test]
fn scale_patches_the_scale_subresource_and_says_scaled() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx --replicas=3");
    ok(&mut c, "scale deployment web --replicas=5", "deployment.apps/web scaled\n");
    assert_eq!(replicas(&c, "web"), 5);
    ok(&mut c, "scale deploy/web --replicas=0", "deployment.apps/web scaled\n");
    assert_eq!(replicas(&c, "web"), 0);
    let generation = stored(&c, Kind::Deployment, Some("default"), "web").map(|d| d["metadata"]["generation"].clone());
    assert_eq!(generation, Some(json!(3)));
    fails(
        &mut c,
        "scale deployment web --replicas=2 --current-replicas=4",
        "error: Expected replicas to be 4, was 0\n",
    );
    ok(&mut c, "scale deployment web --replicas=2 --current-replicas=0", "deployment.apps/web scaled\n");
    ok(&mut c, "scale deployment web --replicas=7 --dry-run=client", "deployment.apps/web scaled (dry run)\n");
    assert_eq!(replicas(&c, "web"), 2);
}

#[test]
fn scale_refuses_a_missing_count_a_missing_object_and_kinds_without_a_scale_subresource() {
    let mut c = Cluster::new_default(1);
    fails(
        &mut c,
        "scale deployment web",
        // cobra's check of a flag marked required comes first (checked against kubectl v1.33).
        "error: required flag(s) \"replicas\" not set\n",
    );
    fails(
        &mut c,
        "scale deployment web --replicas=-1",
        "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n",
    );
    fails(
        &mut c,
        "scale deployment nope --replicas=2",
        "error: no objects passed to scale deployments.apps \"nope\" not found\n",
    );
    kubectl(&mut c, "run p --image=nginx");
    fails(
        &mut c,
        "scale pod p --replicas=2",
        "Error from server (NotFound): the server could not find the requested resource\n",
    );
}

#[test]
fn scaling_is_authorized_on_the_scale_subresource_not_on_the_deployment() {
    let config = ClusterConfig {
        users: vec![UserConfig { name: "ops".into(), token: "ops-token".into(), groups: vec![] }],
        ..ClusterConfig::default()
    };
    let mut c = Cluster::new(config, 1);
    kubectl(&mut c, "create deployment web --image=nginx");
    kubectl(&mut c, "create role scaler --verb=get,list --resource=deployments");
    kubectl(&mut c, "create role scaler2 --verb=patch --resource=deployments/scale");
    kubectl(&mut c, "create rolebinding ops-scaler --role=scaler --user=ops");
    kubectl(&mut c, "create rolebinding ops-scaler2 --role=scaler2 --user=ops");
    c.set_user("ops").expect("ops is configured");
    ok(&mut c, "scale deployment web --replicas=4", "deployment.apps/web scaled\n");
    fails(
        &mut c,
        "label deployment web tier=web",
        "Error from server (Forbidden): deployments.apps \"web\" is forbidden: User \"ops\" cannot patch resource \"deployments\" in API group \"apps\" in the namespace \"default\"\n",
    );
    assert_eq!(replicas(&c, "web"), 4);
}

#[test]
fn label_adds_refuses_to_overwrite_overwrites_and_removes() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "run p --image=nginx");
    ok(&mut c, "label pod p tier=frontend", "pod/p labeled\n");
    fails(
        &mut c,
        "label pod p tier=backend",
        "error: 'tier' already has a value (frontend), and --overwrite is false\n",
    );
    ok(&mut c, "label pod p tier=frontend", "pod/p not labeled\n");
    ok(&mut c, "label pod p tier=backend --overwrite", "pod/p labeled\n");
    let labels = stored(&c, Kind::Pod, Some("default"), "p").map(|p| p["metadata"]["labels"].clone());
    assert_eq!(labels, Some(json!({"run": "p", "tier": "backend"})));
    ok(&mut c, "label pod/p tier-", "pod/p unlabeled\n");
    ok(&mut c, "label pod p tier-", "label \"tier\" not found.\npod/p not labeled\n");
    let labels = stored(&c, Kind::Pod, Some("default"), "p").map(|p| p["metadata"]["labels"].clone());
    assert_eq!(labels, Some(json!({"run": "p"})));
    fails(&mut c, "label pod p a=b c", "error: all resources must be specified before label changes: c\n");
    fails(&mut c, "label pod p", "error: at least one label update is required\n");
    fails(&mut c, "label pod p a=b a-", "error: can not both modify and remove a label in the same command\n");
    fails(&mut c, "label pod nope a=b", "Error from server (NotFound): pods \"nope\" not found\n");
}

#[test]
fn label_with_a_selector_or_all_changes_every_match_and_lists_on_request() {
    let mut c = Cluster::new_default(1);
    for name in ["a", "b", "c"] {
        kubectl(&mut c, &format!("run {name} --image=nginx"));
    }
    kubectl(&mut c, "label pod a b team=x");
    ok(&mut c, "label pods -l team=x env=prod", "pod/a labeled\npod/b labeled\n");
    ok(&mut c, "label pods --all zone=eu", "pod/a labeled\npod/b labeled\npod/c labeled\n");
    assert_eq!(
        stored(&c, Kind::Pod, Some("default"), "c").map(|p| p["metadata"]["labels"].clone()),
        Some(json!({"run": "c", "zone": "eu"}))
    );
    ok(&mut c, "label pod c --list", "run=c\nzone=eu\n");
    fails(
        &mut c,
        "label pods --all zone=us",
        "'zone' already has a value (eu), and --overwrite is false\n'zone' already has a value (eu), and --overwrite is false\n'zone' already has a value (eu), and --overwrite is false\n",
    );
    fails(&mut c, "label pods --all -l team=x a=b", "error: cannot set --all and --selector at the same time\n");
}

#[test]
fn annotate_always_says_annotated_and_names_the_clashing_annotations() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx");
    ok(&mut c, "annotate deployment web note=hello", "deployment.apps/web annotated\n");
    ok(&mut c, "annotate deployment web note=hello", "deployment.apps/web annotated\n");
    fails(
        &mut c,
        "annotate deployment web note=bye",
        "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (hello)\n",
    );
    ok(&mut c, "annotate deployment web note=bye --overwrite", "deployment.apps/web annotated\n");
    let note =
        stored(&c, Kind::Deployment, Some("default"), "web").map(|d| d["metadata"]["annotations"]["note"].clone());
    assert_eq!(note, Some(json!("bye")));
    ok(&mut c, "annotate deployment web note-", "deployment.apps/web annotated\n");
    let note =
        stored(&c, Kind::Deployment, Some("default"), "web").map(|d| d["metadata"]["annotations"]["note"].clone());
    assert_eq!(note, Some(serde_json::Value::Null));
    fails(&mut c, "annotate deployment web =x", "error: at least one annotation update is required\n");
}

#[test]
fn taint_adds_refuses_duplicates_and_removes_node_taints() {
    let mut c = Cluster::new_default(1);
    let taints = |c: &Cluster| stored(c, Kind::Node, None, "node01").map(|n| n["spec"]["taints"].clone());
    ok(&mut c, "taint nodes node01 dedicated=gpu:NoSchedule", "node/node01 tainted\n");
    assert_eq!(taints(&c), Some(json!([{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}])));
    fails(
        &mut c,
        "taint nodes node01 dedicated=cpu:NoSchedule",
        "error: node node01 already has dedicated taint(s) with same effect(s) and --overwrite is false\n",
    );
    ok(&mut c, "taint nodes node01 dedicated=cpu:NoSchedule --overwrite", "node/node01 modified\n");
    ok(&mut c, "taint node node01 batch:NoExecute", "node/node01 tainted\n");
    assert_eq!(
        taints(&c),
        Some(json!([
            {"effect": "NoExecute", "key": "batch"},
            {"effect": "NoSchedule", "key": "dedicated", "value": "cpu"},
        ]))
    );
    ok(&mut c, "taint nodes node01 dedicated:NoSchedule-", "node/node01 untainted\n");
    ok(&mut c, "taint nodes node01 batch-", "node/node01 untainted\n");
    assert_eq!(taints(&c), Some(serde_json::Value::Null));
    fails(&mut c, "taint nodes node01 batch-", "error: taint \"batch\" not found\n");
    fails(
        &mut c,
        "taint nodes node01 k=v:Sometimes",
        "error: invalid taint effect: Sometimes, unsupported taint effect\nSee 'kubectl taint -h' for help and examples\n",
    );
    fails(&mut c, "taint pods x k=v:NoSchedule", "error: invalid resource type pods, only node types are supported\n");
    fails(
        &mut c,
        "taint nodes k=v:NoSchedule",
        "error: at least one resource name must be specified since 'all' parameter is not set\n",
    );
    fails(&mut c, "taint nodes nope k=v:NoSchedule", "Error from server (NotFound): nodes \"nope\" not found\n");
}

#[test]
fn cordon_and_uncordon_set_unschedulable_and_say_when_nothing_changes() {
    let mut c = Cluster::new_default(1);
    let unschedulable = |c: &Cluster| stored(c, Kind::Node, None, "node02").map(|n| n["spec"]["unschedulable"].clone());
    ok(&mut c, "cordon node02", "node/node02 cordoned\n");
    assert_eq!(unschedulable(&c), Some(json!(true)));
    ok(&mut c, "cordon node02", "node/node02 already cordoned\n");
    ok(&mut c, "uncordon node02", "node/node02 uncordoned\n");
    assert_eq!(unschedulable(&c), Some(serde_json::Value::Null));
    ok(&mut c, "uncordon node02", "node/node02 already uncordoned\n");
    ok(&mut c, "cordon node02 --dry-run=client", "node/node02 cordoned (dry run)\n");
    assert_eq!(unschedulable(&c), Some(serde_json::Value::Null));
    fails(&mut c, "cordon", "error: USAGE: cordon NODE [flags]\nSee 'kubectl cordon -h' for help and examples\n");
    fails(&mut c, "cordon nope", "Error from server (NotFound): nodes \"nope\" not found\n");
}

#[test]
fn set_image_changes_the_named_container_and_is_silent_when_nothing_changes() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx:1.27");
    ok(&mut c, "set image deployment/web nginx=nginx:1.28", "deployment.apps/web image updated\n");
    let image = |c: &Cluster| {
        stored(c, Kind::Deployment, Some("default"), "web")
            .map(|d| d["spec"]["template"]["spec"]["containers"][0]["image"].clone())
    };
    assert_eq!(image(&c), Some(json!("nginx:1.28")));
    ok(&mut c, "set image deployment/web nginx=nginx:1.28", "");
    ok(&mut c, "set image deployment web *=nginx:1.29", "deployment.apps/web image updated\n");
    assert_eq!(image(&c), Some(json!("nginx:1.29")));
    fails(&mut c, "set image deployment/web php=php:8", "error: unable to find container named \"php\"\n");
    fails(&mut c, "set image deployment/web", "error: at least one image update is required\n");
    fails(
        &mut c,
        "set image deployment/nope nginx=x",
        "Error from server (NotFound): deployments.apps \"nope\" not found\n",
    );
    kubectl(&mut c, "run p --image=busybox");
    ok(&mut c, "set image pod p p=busybox:1.36", "pod/p image updated\n");
}

#[test]
fn set_resources_sets_limits_and_requests_of_the_matching_containers_as_the_real_kubectl_does() {
    // The lines are what the real kubectl v1.32 printed against kubeglass serve for the same commands (its
    // `Invalid argument syntax` capital is v1.34's too).
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx --replicas=2");
    ok(
        &mut c,
        "set resources deploy web --limits=cpu=200m,memory=512Mi",
        "deployment.apps/web resource requirements updated\n",
    );
    ok(&mut c, "set resources deploy web --limits=cpu=200m,memory=512Mi", "");
    ok(
        &mut c,
        "set resources deploy web --requests=cpu=0.1 -c ngin*",
        "deployment.apps/web resource requirements updated\n",
    );
    let resources = |c: &Cluster| {
        stored(c, Kind::Deployment, Some("default"), "web")
            .map(|d| d["spec"]["template"]["spec"]["containers"][0]["resources"].clone())
    };
    // 0.1 is stored in its canonical spelling.
    assert_eq!(resources(&c), Some(json!({"limits": {"cpu": "200m", "memory": "512Mi"}, "requests": {"cpu": "100m"}})));
    fails(
        &mut c,
        "set resources deploy web --requests=cpu=100m -c nope",
        "error: unable to find container named nope\n",
    );
    fails(
        &mut c,
        "set resources deploy web",
        "error: you must specify an update to requests or limits (in the form of --requests/--limits)\n",
    );
    fails(
        &mut c,
        "set resources deploy web --limits=cpu",
        "error: Invalid argument syntax cpu, expected <resource>=<value>\n",
    );
    fails(
        &mut c,
        "set resources deploy web --limits=cpu=abc",
        "error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n",
    );
    ok(
        &mut c,
        "set resources deploy web --limits=memory=1Gi --dry-run=client -o jsonpath={.spec.template.spec.containers[0].resources.limits}",
        "{\"cpu\":\"200m\",\"memory\":\"1Gi\"}",
    );
    assert_eq!(resources(&c).unwrap()["limits"]["memory"], "512Mi", "a client dry run changes nothing");
    fails(
        &mut c,
        "set resources cm nope --limits=cpu=1",
        "Error from server (NotFound): configmaps \"nope\" not found\n",
    );
}
