//! kubectl rollout over Deployments: the verbs' own lines (the controller's side is tested with it).

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n";

#[test]
fn pause_resume_and_restart_print_kubectls_lines_and_refuse_twice() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, WEB);
    assert_eq!(kubectl(&mut c, "rollout pause deployment/web"), ("deployment.apps/web paused\n".into(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "rollout pause deployment/web"),
        ("error: deployments.apps \"web\" is already paused\n".into(), Some(1))
    );
    assert!(kubectl(&mut c, "rollout restart deployment/web").0.contains("can't restart paused deployment"));
    assert_eq!(kubectl(&mut c, "rollout resume deploy web"), ("deployment.apps/web resumed\n".into(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "rollout resume deploy web"),
        ("error: deployments.apps \"web\" is not paused\n".into(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "rollout restart deployment/web"), ("deployment.apps/web restarted\n".into(), Some(0)));
    let (annotation, _) = kubectl(&mut c, "get deploy web -o jsonpath={.spec.template.metadata.annotations}");
    assert!(annotation.contains("kubectl.kubernetes.io/restartedAt"), "{annotation}");
}

#[test]
fn without_a_controller_manager_the_rollout_waits_for_its_spec_to_be_observed() {
    let mut c = Cluster::new_default(1);
    c.stop("kube-controller-manager").unwrap();
    apply(&mut c, WEB);
    let r = c.kubectl("rollout status deployment/web", None, 5_000);
    assert_eq!(r.output, "Waiting for deployment spec update to be observed...\n");
    assert_eq!(r.exit, None, "still waiting when the time limit ends it");
    assert_eq!(
        kubectl(&mut c, "rollout undo deployment/web"),
        ("error: no rollout history found for deployment \"web\"\n".into(), Some(1))
    );
    assert_eq!(kubectl(&mut c, "rollout history deployment/web"), ("No rollout history found.\n".into(), Some(0)));
    assert_eq!(kubectl(&mut c, "rollout status pod/x").0, "error: no status viewer has been implemented for Pod\n");
}

/// Right after `set image` the new ReplicaSet has no ready pods yet: `rollout status` must wait for them (the
/// controller's "Created new replica set" status update changes only the Progressing condition), then report
/// the rollout done once every new pod is available and the old ones are gone.
#[test]
fn rollout_status_right_after_set_image_waits_for_the_new_replicas() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(20_000);
    apply(&mut c, WEB);
    c.advance_ms(30_000);
    assert_eq!(kubectl(&mut c, "rollout status deployment/web").0, "deployment \"web\" successfully rolled out\n");
    kubectl(&mut c, "set image deployment/web nginx=nginx:1.28");
    let r = c.kubectl("rollout status deployment/web", None, 120_000);
    let lines: Vec<&str> = r.output.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("Waiting for deployment \"web\" rollout to finish: ")
            && l.ends_with(" out of 2 new replicas have been updated...")),
        "{}",
        r.output
    );
    assert_eq!(lines.last().copied(), Some("deployment \"web\" successfully rolled out"), "{}", r.output);
    assert_eq!(r.exit, Some(0));
}
