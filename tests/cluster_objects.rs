//! The objects the control plane keeps about itself in a fresh v1.34 cluster: the aggregator's local
//! APIServices, API Priority and Fairness' bootstrap configuration, the `kubernetes` ServiceCIDR, one
//! IPAddress per allocated ClusterIP (created and released with its Service), and each kubelet's CSINode.

use kubeglass::cluster::Cluster;

use crate::kubectl;

#[test]
fn the_apiserver_lists_its_local_apiservices_and_priority_and_fairness_configuration() {
    let mut c = Cluster::new_default(21);
    let (out, _) = kubectl(&mut c, "get apiservices -o name");
    let names: Vec<&str> = out.lines().collect();
    assert_eq!(names.len(), 20, "{out}");
    assert_eq!(names[0], "apiservice.apiregistration.k8s.io/v1.");
    assert!(names.contains(&"apiservice.apiregistration.k8s.io/v2.autoscaling"), "{out}");
    let (out, _) = kubectl(
        &mut c,
        "get apiservice v1.apps -o jsonpath={.spec.groupPriorityMinimum}/{.status.conditions[0].reason}",
    );
    assert_eq!(out, "17800/Local");
    // The list comes in name order (custom columns print it as it comes); the server's table puts the
    // FlowSchemas in the order they are matched.
    let (out, _) = kubectl(&mut c, "get flowschemas --no-headers -o custom-columns=N:.metadata.name");
    let order: Vec<&str> = out.lines().collect();
    assert_eq!((order.first(), order.len()), (Some(&"catch-all"), 11));
    let (table, _) = kubectl(&mut c, "get flowschemas");
    let rows: Vec<&str> = table.lines().skip(1).map(|l| l.split_whitespace().next().unwrap_or("")).collect();
    assert_eq!(rows[..3], ["exempt", "probes", "system-leader-election"], "{table}");
    let (out, _) = kubectl(&mut c, "get prioritylevelconfiguration exempt --no-headers");
    assert!(out.starts_with("exempt   Exempt   <none>   <none>   <none>   <none>"), "{out}");
    let (out, _) =
        kubectl(&mut c, "get servicecidr kubernetes -o jsonpath={.spec.cidrs[0]}/{.status.conditions[0].message}");
    assert_eq!(out, "10.96.0.0/12/Kubernetes Service CIDR is ready");
}

#[test]
fn every_cluster_ip_is_recorded_as_an_ip_address_for_as_long_as_its_service_lives() {
    let mut c = Cluster::new_default(22);
    let (out, _) = kubectl(&mut c, "get ipaddresses");
    assert_eq!(
        out,
        "NAME         PARENTREF\n10.96.0.1    services/default/kubernetes\n10.96.0.10   services/kube-system/kube-dns\n"
    );
    kubectl(&mut c, "create svc clusterip web --tcp=80");
    let (ip, _) = kubectl(&mut c, "get svc web -o jsonpath={.spec.clusterIP}");
    let (parent, code) =
        kubectl(&mut c, &format!("get ip {ip} -o jsonpath={{.spec.parentRef.namespace}}/{{.spec.parentRef.name}}"));
    assert_eq!((parent.as_str(), code), ("default/web", Some(0)));
    // Headless Services hold no address.
    kubectl(&mut c, "create svc clusterip db --clusterip=None");
    let (out, _) = kubectl(&mut c, "get ip --no-headers");
    assert_eq!(out.lines().count(), 3, "{out}");
    kubectl(&mut c, "delete svc web");
    let (out, code) = kubectl(&mut c, &format!("get ip {ip}"));
    assert_eq!(
        (out, code),
        (format!("Error from server (NotFound): ipaddresses.networking.k8s.io \"{ip}\" not found\n"), Some(1))
    );
}

#[test]
fn each_kubelet_creates_its_nodes_csinode_owned_by_the_node() {
    let mut c = Cluster::new_default(23);
    let (out, _) = kubectl(
        &mut c,
        "get csinodes --no-headers -o custom-columns=N:.metadata.name,OWNER:.metadata.ownerReferences[0].kind",
    );
    assert_eq!(out, "controlplane   Node\nnode01         Node\nnode02         Node\n");
}
