//! PersistentVolumes and claims end to end: the PersistentVolume controller's binding (smallest fit, class,
//! pre-binding), phases through Released, dynamic provisioning behind a default StorageClass, and the kubelet
//! holding back a pod until its claim is bound.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn pv(name: &str, size: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: {name}\nspec:\n  capacity:\n    storage: {size}\n  accessModes: [ReadWriteOnce]\n  hostPath:\n    path: /data/{name}\n{extra}"
    )
}

fn pvc(name: &str, size: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {name}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: {size}\n{extra}"
    )
}

const LOCAL_PATH: &str = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: local-path\n  annotations:\n    storageclass.kubernetes.io/is-default-class: \"true\"\nprovisioner: rancher.io/local-path\nreclaimPolicy: Delete\nvolumeBindingMode: Immediate\n";

fn get(c: &mut Cluster, what: &str, path: &str) -> String {
    kubectl(c, &format!("get {what} -o 'jsonpath={{{path}}}'")).0
}

#[test]
fn a_claim_binds_the_smallest_available_volume_that_fits() {
    let mut c = Cluster::new_default(11);
    for (name, size) in [("pv-small", "1Gi"), ("pv-medium", "5Gi"), ("pv-large", "10Gi")] {
        apply(&mut c, &pv(name, size, ""));
    }
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get pv");
    assert!(out.starts_with("NAME        CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS      CLAIM   STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE\n"), "{out}");
    assert!(
        out.contains(
            "pv-small    1Gi        RWO            Retain           Available                          <unset>"
        ),
        "{out}"
    );
    apply(&mut c, &pvc("data", "2Gi", ""));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc data", ".status.phase"), "Bound");
    assert_eq!(get(&mut c, "pvc data", ".spec.volumeName"), "pv-medium");
    assert_eq!(get(&mut c, "pvc data", ".status.capacity.storage"), "5Gi");
    assert_eq!(get(&mut c, "pvc data", ".metadata.annotations.pv\\.kubernetes\\.io/bind-completed"), "yes");
    assert_eq!(get(&mut c, "pvc data", ".metadata.annotations.pv\\.kubernetes\\.io/bound-by-controller"), "yes");
    assert_eq!(get(&mut c, "pv pv-medium", ".status.phase"), "Bound");
    assert_eq!(get(&mut c, "pv pv-medium", ".spec.claimRef.name"), "data");
    assert_eq!(get(&mut c, "pv pv-medium", ".spec.claimRef.uid"), get(&mut c, "pvc data", ".metadata.uid"));
    assert_eq!(get(&mut c, "pv pv-medium", ".metadata.annotations.pv\\.kubernetes\\.io/bound-by-controller"), "yes");
    assert_eq!(get(&mut c, "pv pv-small", ".status.phase"), "Available");
    let (out, _) = kubectl(&mut c, "get pvc");
    assert_eq!(
        out.lines().next().unwrap_or(""),
        "NAME   STATUS   VOLUME      CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE"
    );
    assert!(out.contains("data   Bound    pv-medium   5Gi        RWO                           <unset>"), "{out}");
    let (out, _) = kubectl(&mut c, "get pv pv-medium");
    assert!(out.contains("pv-medium   5Gi        RWO            Retain           Bound    default/data"), "{out}");

    // The claim goes: its volume is Released and keeps the claim it had (Retain).
    kubectl(&mut c, "delete pvc data");
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pv pv-medium", ".status.phase"), "Released");
    let (out, _) = kubectl(&mut c, "get pv pv-medium");
    assert!(out.contains("Retain           Released   default/data"), "{out}");
    // A new claim of the same name does not get it back: the volume still names the old claim's uid.
    apply(&mut c, &pvc("data", "2Gi", ""));
    c.advance_ms(20_000);
    assert_eq!(get(&mut c, "pvc data", ".spec.volumeName"), "pv-large");
}

#[test]
fn a_pending_claim_binds_a_volume_made_later_at_the_next_resync() {
    let mut c = Cluster::new_default(12);
    apply(&mut c, &pvc("logs", "1Gi", "  storageClassName: \"\"\n"));
    c.advance_ms(2_000);
    assert_eq!(get(&mut c, "pvc logs", ".status.phase"), "Pending");
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.name=logs");
    assert!(events.contains("FailedBinding"), "{events}");
    assert!(events.contains("no persistent volumes available for this claim and no storage class is set"), "{events}");
    apply(&mut c, &pv("pv-logs", "1Gi", ""));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc logs", ".status.phase"), "Pending");
    c.advance_ms(15_000);
    assert_eq!(get(&mut c, "pvc logs", ".status.phase"), "Bound");
    assert_eq!(get(&mut c, "pvc logs", ".spec.volumeName"), "pv-logs");
}

#[test]
fn class_and_access_modes_must_match_and_a_prebound_volume_waits_for_its_claim() {
    let mut c = Cluster::new_default(13);
    apply(&mut c, &pv("fast-1", "1Gi", "  storageClassName: fast\n"));
    apply(&mut c, &pv("reserved", "1Gi", "  claimRef:\n    namespace: default\n    name: mine\n"));
    apply(&mut c, &pvc("other", "1Gi", "  storageClassName: \"\"\n"));
    c.advance_ms(2_000);
    // Neither the volume of another class nor the one reserved for `mine` serves `other`.
    assert_eq!(get(&mut c, "pvc other", ".status.phase"), "Pending");
    assert_eq!(get(&mut c, "pv reserved", ".status.phase"), "Available");
    apply(&mut c, &pvc("mine", "1Gi", "  storageClassName: \"\"\n"));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc mine", ".spec.volumeName"), "reserved");
    // Reserved by its author: no bound-by-controller annotation on the volume.
    assert!(!kubectl(&mut c, "get pv reserved -o yaml").0.contains("bound-by-controller"));
    apply(&mut c, &pvc("quick", "1Gi", "  storageClassName: fast\n"));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc quick", ".spec.volumeName"), "fast-1");
    // No volume and a class nobody defined: the claim waits and says why.
    apply(&mut c, &pvc("slow", "1Gi", "  storageClassName: slow\n"));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc slow", ".status.phase"), "Pending");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=ProvisioningFailed");
    assert!(events.contains("storageclass.storage.k8s.io \"slow\" not found"), "{events}");
}

#[test]
fn a_default_storage_class_provisions_a_volume_for_a_claim_and_deletes_it_after() {
    let mut c = Cluster::new_default(14);
    apply(&mut c, LOCAL_PATH);
    apply(&mut c, &pvc("cache", "3Gi", ""));
    c.advance_ms(500);
    // The default class is written into the claim, then the provisioner gets to work.
    assert_eq!(get(&mut c, "pvc cache", ".spec.storageClassName"), "local-path");
    assert_eq!(get(&mut c, "pvc cache", ".status.phase"), "Pending");
    c.advance_ms(5_000);
    let uid = get(&mut c, "pvc cache", ".metadata.uid");
    let volume = format!("pvc-{uid}");
    assert_eq!(get(&mut c, "pvc cache", ".status.phase"), "Bound");
    assert_eq!(get(&mut c, "pvc cache", ".spec.volumeName"), volume);
    assert_eq!(
        get(&mut c, "pvc cache", ".metadata.annotations.volume\\.kubernetes\\.io/storage-provisioner"),
        "rancher.io/local-path"
    );
    assert_eq!(get(&mut c, &format!("pv {volume}"), ".spec.persistentVolumeReclaimPolicy"), "Delete");
    assert_eq!(
        get(&mut c, &format!("pv {volume}"), ".metadata.annotations.pv\\.kubernetes\\.io/provisioned-by"),
        "rancher.io/local-path"
    );
    let (out, _) = kubectl(&mut c, "get pvc cache");
    assert!(
        out.contains(&format!("cache   Bound    {volume}   3Gi        RWO            local-path     <unset>")),
        "{out}"
    );
    let (events, _) = kubectl(&mut c, "get events --field-selector involvedObject.name=cache");
    assert!(events.contains("Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."), "{events}");
    assert!(events.contains("External provisioner is provisioning volume for claim \"default/cache\""), "{events}");
    assert!(events.contains(&format!("Successfully provisioned volume {volume}")), "{events}");

    kubectl(&mut c, "delete pvc cache");
    c.advance_ms(2_000);
    let (out, _) = kubectl(&mut c, "get pv");
    assert!(!out.contains(&volume), "{out}");
}

#[test]
fn a_claim_made_by_hand_with_delete_policy_fails_to_be_reclaimed() {
    let mut c = Cluster::new_default(15);
    apply(&mut c, &pv("scratch", "1Gi", "  persistentVolumeReclaimPolicy: Delete\n"));
    // A volume is considered once it is Available, which its first sync makes it.
    c.advance_ms(1_000);
    apply(&mut c, &pvc("tmp", "1Gi", ""));
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pvc tmp", ".status.phase"), "Bound");
    kubectl(&mut c, "delete pvc tmp");
    c.advance_ms(1_000);
    assert_eq!(get(&mut c, "pv scratch", ".status.phase"), "Failed");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=VolumeFailedDelete");
    assert!(
        events
            .contains("error getting deleter volume plugin for volume \"scratch\": no deletable volume plugin matched"),
        "{events}"
    );
}

#[test]
fn the_kubelet_waits_for_the_claim_to_be_bound_before_starting_the_pod() {
    let mut c = Cluster::new_default(16);
    apply(&mut c, &pvc("data", "1Gi", "  storageClassName: \"\"\n"));
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: db\nspec:\n  nodeName: node01\n  containers:\n  - name: db\n    image: nginx:1.27\n    volumeMounts:\n    - name: data\n      mountPath: /data\n  volumes:\n  - name: data\n    persistentVolumeClaim:\n      claimName: data\n";
    apply(&mut c, pod);
    c.advance_ms(20_000);
    let (out, _) = kubectl(&mut c, "get pod db");
    assert!(out.contains("db     0/1     ContainerCreating"), "{out}");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=FailedMount");
    assert!(
        events.contains("Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/data: PVC is not bound"),
        "{events}"
    );
    // No container was made while it waited.
    assert!(c.containerd("node01").is_some_and(|r| r.containers().all(|ct| ct.name != "db")));
    apply(&mut c, &pv("pv-data", "1Gi", ""));
    c.advance_ms(40_000);
    let (out, _) = kubectl(&mut c, "get pod db");
    assert!(out.contains("db     1/1     Running"), "{out}");
}

#[test]
fn a_statefulset_gets_a_provisioned_volume_per_pod() {
    let mut c = Cluster::new_default(17);
    apply(&mut c, LOCAL_PATH);
    let claims = "  volumeClaimTemplates:\n  - metadata:\n      name: www\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources:\n        requests:\n          storage: 1Gi\n";
    apply(&mut c, &format!("{}{claims}", crate::statefulset::web(3, "nginx:1.27", "")));
    c.advance_ms(60_000);
    let (out, _) = kubectl(&mut c, "get pods");
    assert_eq!(out.lines().filter(|l| l.contains("1/1     Running")).count(), 3, "{out}");
    let (out, _) = kubectl(&mut c, "get pvc");
    for n in 0..3 {
        assert!(out.contains(&format!("www-web-{n}   Bound    pvc-")), "{out}");
    }
    assert_eq!(kubectl(&mut c, "get pv -o name").0.lines().count(), 3);
}
