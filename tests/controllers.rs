//! kube-controller-manager's loops through the apiserver.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

#[test]
fn every_namespace_gets_a_default_service_account_while_the_controller_manager_runs() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(1_000);
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let (out, code) = kubectl(&mut c, &format!("get serviceaccount default -n {ns} -o name"));
        assert_eq!((out.as_str(), code), ("serviceaccount/default\n", Some(0)), "{ns}");
    }
    apply(&mut c, "apiVersion: v1\nkind: Namespace\nmetadata: {name: dev}\n");
    c.advance_ms(1_000);
    assert_eq!(kubectl(&mut c, "get sa -n dev -o name").0, "serviceaccount/default\n");
    kubectl(&mut c, "delete sa default -n dev");
    c.advance_ms(1_000);
    assert_eq!(kubectl(&mut c, "get sa -n dev -o name").0, "serviceaccount/default\n");
    c.stop("kube-controller-manager").unwrap();
    apply(&mut c, "apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet}\n");
    c.advance_ms(5_000);
    assert_eq!(kubectl(&mut c, "get sa -n quiet").0, "No resources found in quiet namespace.\n");
    c.start("kube-controller-manager").unwrap();
    c.advance_ms(3_000);
    assert_eq!(kubectl(&mut c, "get sa -n quiet -o name").0, "serviceaccount/default\n");
}
