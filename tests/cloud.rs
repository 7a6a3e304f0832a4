//! cloud-controller-manager in a `cloud: true` cluster: load balancers for LoadBalancer Services, node
//! identities, and Nodes deleted with their cloud instance.

use kubeglass::cluster::{Cluster, ClusterConfig};

use crate::{apply, kubectl};

fn cloud_cluster(seed: u64) -> Cluster {
    Cluster::new(ClusterConfig { cloud: true, ..ClusterConfig::default() }, seed)
}

const LB: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports:\n  - port: 80\n    targetPort: 8080\n";

fn external_ip(c: &mut Cluster) -> String {
    kubectl(c, "get svc web -o 'jsonpath={.status.loadBalancer.ingress[0].ip}'").0
}

#[test]
fn a_load_balancer_service_gets_an_external_ip_after_provisioning() {
    let mut c = cloud_cluster(41);
    apply(&mut c, LB);
    c.advance_ms(500);
    let (out, _) = kubectl(&mut c, "get svc web");
    assert!(out.contains("LoadBalancer   10.") && out.contains("<pending>     80:3"), "{out}");
    c.advance_ms(5_000);
    assert_eq!(external_ip(&mut c), "203.0.113.10");
    let (out, _) = kubectl(&mut c, "get svc web");
    assert!(out.contains("203.0.113.10   80:3"), "{out}");
    assert_eq!(kubectl(&mut c, "get svc web -o 'jsonpath={.status.loadBalancer.ingress[0].ipMode}'").0, "VIP");
    assert_eq!(
        kubectl(&mut c, "get svc web -o 'jsonpath={.metadata.finalizers}'").0,
        "[\"service.kubernetes.io/load-balancer-cleanup\"]"
    );
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=Service");
    let ensuring = events.find("EnsuringLoadBalancer   service/web   Ensuring load balancer");
    let ensured = events.find("EnsuredLoadBalancer    service/web   Ensured load balancer");
    assert!(ensuring.is_some() && ensured.is_some(), "{events}");
    assert_eq!(c.cloud().load_balancer("default/web"), Some("203.0.113.10"));

    // Deleting the Service deletes its balancer first (the finalizer holds the Service until then).
    assert_eq!(kubectl(&mut c, "delete svc web").1, Some(0));
    c.advance_ms(1_000);
    assert!(kubectl(&mut c, "get svc web").0.contains("NotFound"));
    assert_eq!(c.cloud().load_balancer("default/web"), None);
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.kind=Service");
    assert!(events.contains("Deleting load balancer") && events.contains("Deleted load balancer"), "{events}");
}

#[test]
fn without_a_cloud_or_with_its_controller_manager_stopped_the_ip_stays_pending() {
    let mut c = Cluster::new_default(42);
    apply(&mut c, LB);
    c.advance_ms(30_000);
    assert!(kubectl(&mut c, "get svc web").0.contains("<pending>"));

    let mut c = cloud_cluster(43);
    c.stop("cloud-controller-manager").unwrap();
    apply(&mut c, LB);
    c.advance_ms(30_000);
    assert_eq!(external_ip(&mut c), "");
    c.start("cloud-controller-manager").unwrap();
    // The new process first waits out the stopped one's lease (15 s from when it reads it).
    c.advance_ms(10_000);
    assert_eq!(external_ip(&mut c), "");
    c.advance_ms(15_000);
    assert_eq!(external_ip(&mut c), "203.0.113.10");
}

#[test]
fn nodes_carry_their_instance_identity() {
    let mut c = cloud_cluster(44);
    c.advance_ms(1_000);
    let out = kubectl(
        &mut c,
        "get node node01 -o 'jsonpath={.spec.providerID} {.metadata.labels.topology\\.kubernetes\\.io/zone}'",
    )
    .0;
    assert_eq!(out, "kubeglass://kubeglass-central1-a/node01 kubeglass-central1-a");
}

#[test]
fn a_node_whose_instance_is_deleted_loses_its_node_object() {
    let mut c = cloud_cluster(45);
    // Once the kubelets have their heartbeat Leases (the node lifecycle controller judges only such nodes).
    c.advance_ms(15_000);
    c.delete_cloud_instance("node02").unwrap();
    assert!(c.delete_cloud_instance("node02").is_err());
    // Still Ready until the node lifecycle controller sees no status for 50 s: the cloud controller leaves it.
    c.advance_ms(40_000);
    assert!(kubectl(&mut c, "get nodes").0.contains("node02"));
    c.advance_ms(30_000);
    let (out, _) = kubectl(&mut c, "get nodes -o name");
    assert_eq!(out, "node/controlplane\nnode/node01\n");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=DeletingNode");
    assert!(events.contains("Deleting node node02 because it does not exist in the cloud provider"), "{events}");
    assert!(Cluster::new_default(46).delete_cloud_instance("node01").is_err());
}

/// Counts the running containers named `name` on the control-plane node, as `crictl ps` lists them.
fn running_containers(c: &mut Cluster, name: &str) -> String {
    c.shell("controlplane", &format!("crictl ps --name {name} -q | wc -l"), 10_000).output
}

#[test]
fn cloud_controller_manager_is_a_static_pod_that_stop_start_and_crash_act_on() {
    let mut c = cloud_cluster(44);
    c.advance_ms(20_000);
    let manifest = c.shell("controlplane", "ls /etc/kubernetes/manifests", 10_000).output;
    assert!(manifest.contains("cloud-controller-manager.yaml"), "{manifest}");
    let (row, _) = kubectl(&mut c, "get pod -n kube-system cloud-controller-manager-controlplane --no-headers");
    assert_eq!(
        row.split_whitespace().take(4).collect::<Vec<_>>(),
        ["cloud-controller-manager-controlplane", "1/1", "Running", "0"],
        "{row}"
    );
    assert_eq!(running_containers(&mut c, "cloud-controller-manager"), "1\n");
    let conf = c.shell(
        "controlplane",
        "grep -c system:cloud-controller-manager /etc/kubernetes/cloud-controller-manager.conf",
        10_000,
    );
    assert_eq!(conf.exit, Some(0), "{}", conf.output);

    // Stop: the manifest leaves the static pod path, the kubelet kills the container and deletes the mirror pod.
    c.stop("cloud-controller-manager").unwrap();
    assert!(!c.is_started("cloud-controller-manager").unwrap());
    assert_eq!(running_containers(&mut c, "cloud-controller-manager"), "0\n");
    let parked = c
        .shell("controlplane", "ls /etc/kubernetes/manifests /etc/kubernetes/cloud-controller-manager.yaml", 10_000)
        .output;
    assert!(
        !parked.contains("manifests:\ncloud") && parked.contains("/etc/kubernetes/cloud-controller-manager.yaml"),
        "{parked}"
    );
    c.advance_ms(2_000);
    let (gone, _) = kubectl(&mut c, "get pod -n kube-system cloud-controller-manager-controlplane");
    assert!(gone.contains("NotFound"), "{gone}");

    // Start: the manifest comes back, and so do the container and the mirror pod.
    c.start("cloud-controller-manager").unwrap();
    assert_eq!(running_containers(&mut c, "cloud-controller-manager"), "1\n");
    c.advance_ms(2_000);
    let (row, _) = kubectl(&mut c, "get pod -n kube-system cloud-controller-manager-controlplane --no-headers");
    assert!(row.contains("1/1   Running"), "{row}");

    // Crash: the process exits, the kubelet restarts its container and RESTARTS goes up.
    c.crash("cloud-controller-manager").unwrap();
    c.advance_ms(15_000);
    let (row, _) = kubectl(&mut c, "get pod -n kube-system cloud-controller-manager-controlplane --no-headers");
    assert_eq!(row.split_whitespace().nth(3), Some("1"), "{row}");
    assert_eq!(running_containers(&mut c, "cloud-controller-manager"), "1\n");
    assert_eq!(
        c.shell("controlplane", "crictl ps -a --name cloud-controller-manager -q | wc -l", 10_000).output,
        "2\n"
    );
}
