//! `kubectl delete` by selector, `--all`, `--field-selector`, `-A`, `--ignore-not-found`, `--now` and
//! `--force`: the lines the real kubectl v1.32 printed for the same commands against `kubeglass serve`, in
//! v1.34's wording (`deleted from default namespace`, `force deleted`).

use kubeglass::cluster::Cluster;

use crate::kubectl;

fn web(c: &mut Cluster) -> Vec<String> {
    let (out, code) = kubectl(c, "create deployment web --image=nginx --replicas=2");
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(20_000);
    let (pods, _) = kubectl(c, "get pods -l app=web -o name");
    let pods: Vec<String> = pods.lines().map(|l| l.trim_start_matches("pod/").to_string()).collect();
    assert_eq!(pods.len(), 2, "{pods:?}");
    pods
}

#[test]
fn a_selector_deletes_each_object_it_lists_and_says_so_when_it_lists_none() {
    let mut c = Cluster::new_default(1);
    let pods = web(&mut c);
    let (out, code) = kubectl(&mut c, "delete pods -l app=web");
    let expected: String = pods.iter().map(|p| format!("pod {p:?} deleted from default namespace\n")).collect();
    assert_eq!((out, code), (expected, Some(0)));
    for line in ["delete pods -l app=nothing", "delete pods -l app=nothing -A", "delete pod,svc -l app=nothing"] {
        assert_eq!(kubectl(&mut c, line), ("No resources found\n".to_string(), Some(0)), "{line}");
    }
    let (out, _) = kubectl(&mut c, "delete pods -A -l app=nothing --field-selector=status.phase=Running");
    assert_eq!(out, "No resources found\n");
    // The ReplicaSet's new pods, all of them, forced.
    c.advance_ms(10_000);
    let (listed, _) = kubectl(&mut c, "get pods -o name");
    let (out, code) = kubectl(&mut c, "delete pods --all --force");
    let mut expected = String::from("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n");
    for p in listed.lines() {
        expected.push_str(&format!("pod {:?} force deleted from default namespace\n", p.trim_start_matches("pod/")));
    }
    assert_eq!((out, code), (expected, Some(0)));
}

#[test]
fn names_and_selectors_do_not_mix_and_a_missing_name_can_be_ignored() {
    let mut c = Cluster::new_default(1);
    web(&mut c);
    assert_eq!(
        kubectl(&mut c, "delete pods foo -l app=web"),
        ("error: name cannot be provided when a selector is specified\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "delete pods --all -l app=web"),
        ("error: setting 'all' parameter but found a non empty selector. \n".to_string(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "delete pod nosuch --ignore-not-found"), (String::new(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "delete pod nosuch"),
        ("Error from server (NotFound): pods \"nosuch\" not found\n".to_string(), Some(1))
    );
    let (out, _) = kubectl(&mut c, "get pods -l app=web --no-headers");
    assert_eq!(out.lines().count(), 2, "nothing was deleted: {out}");
}
