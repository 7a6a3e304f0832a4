//! Installing the cluster at time zero, as kubeadm and the add-ons would: a `kubeadm` program on the
//! client host creates the namespaces, RBAC defaults, Services, CoreDNS and kube-proxy through the
//! apiserver, so the install is itself a trace of requests. Nodes and the control plane's mirror pods are
//! not created here: each kubelet registers its own Node and posts mirror pods for the static pod
//! manifests kubeadm wrote to the control-plane node's disk ([`static_pod_manifests`]).

use serde_json::{json, Value};

use crate::api::manifest::parse_documents;
use crate::api::{lookup_kind, ApiRequest, ApiResponse, Credentials, Object, Verb};
use crate::client::Api;
use crate::sim::SimTime;

use crate::api::Kind;

use super::install::Install;
use super::Cluster;

const MANIFESTS: &str = include_str!("bootstrap.yaml");

/// What a cloud cluster adds: the RBAC of cloud-controller-manager (`system:cloud-controller-manager`, as the
/// cloud-provider repository's manifests define it).
const CLOUD_MANIFESTS: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:cloud-controller-manager", labels: {kubernetes.io/bootstrapping: rbac-defaults}}
rules:
- {apiGroups: [""], resources: [events], verbs: [create, patch, update]}
- {apiGroups: [""], resources: [nodes], verbs: ["*"]}
- {apiGroups: [""], resources: [nodes/status], verbs: [patch]}
- {apiGroups: [""], resources: [services], verbs: [list, patch, update, watch]}
- {apiGroups: [""], resources: [services/status], verbs: [list, patch, update, watch]}
- {apiGroups: [""], resources: [serviceaccounts], verbs: [create, get, list, watch, update]}
- {apiGroups: [""], resources: [persistentvolumes], verbs: [get, list, update, watch]}
- {apiGroups: [""], resources: [endpoints], verbs: [create, get, list, watch, update]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create, get, list, watch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:cloud-controller-manager", labels: {kubernetes.io/bootstrapping: rbac-defaults}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:cloud-controller-manager"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:cloud-controller-manager"}
"#;

/// The metrics-server add-on (`metricsServer: true`), as its release's `components.yaml` installs it, less
/// the `APIService` (kubeglass routes `metrics.k8s.io` to the metrics-server process itself) and the auth
/// delegation bindings of an extension apiserver. `--kubelet-insecure-tls` as kubeadm clusters need it.
const METRICS_SERVER_MANIFESTS: &str = r#"
apiVersion: v1
kind: ServiceAccount
metadata: {name: metrics-server, namespace: kube-system, labels: {k8s-app: metrics-server}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: "system:aggregated-metrics-reader"
  labels:
    k8s-app: metrics-server
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- {apiGroups: [metrics.k8s.io], resources: [pods, nodes], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:metrics-server", labels: {k8s-app: metrics-server}}
rules:
- {apiGroups: [""], resources: [nodes/metrics], verbs: [get]}
- {apiGroups: [""], resources: [pods, nodes], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:metrics-server", labels: {k8s-app: metrics-server}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:metrics-server"}
subjects:
- {kind: ServiceAccount, name: metrics-server, namespace: kube-system}
---
apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system, labels: {k8s-app: metrics-server}}
spec:
  selector: {k8s-app: metrics-server}
  ports:
  - {name: https, port: 443, protocol: TCP, targetPort: https}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: metrics-server, namespace: kube-system, labels: {k8s-app: metrics-server}}
spec:
  selector: {matchLabels: {k8s-app: metrics-server}}
  strategy:
    rollingUpdate: {maxUnavailable: 0}
  template:
    metadata: {labels: {k8s-app: metrics-server}}
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: metrics-server
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: metrics-server
        image: registry.k8s.io/metrics-server/metrics-server:v0.8.0
        args:
        - --cert-dir=/tmp
        - --secure-port=10250
        - --kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname
        - --kubelet-use-node-status-port
        - --metric-resolution=15s
        - --kubelet-insecure-tls
        ports:
        - {containerPort: 10250, name: https, protocol: TCP}
        resources:
          requests: {cpu: 100m, memory: 200Mi}
"#;

pub use crate::node::kubelet::KUBELET_VERSION;

/// How long the install may take in simulated time before the cluster is handed over anyway.
const INSTALL_LIMIT_MS: u64 = 60_000;
/// More time for bigger clusters (each kubelet registers its own Node).
const INSTALL_LIMIT_MS_PER_NODE: u64 = 100;

/// Starts the install: the `kubeadm` program that creates the cluster's objects is spawned at time zero.
/// [`Cluster::continue_install`] runs the rest (see [`super::install`]).
pub fn start_install(cluster: &mut Cluster) -> Install {
    let mut docs: Vec<Value> = parse_documents(MANIFESTS, "bootstrap.yaml")
        .map(|d| d.into_iter().map(|d| d.value).collect())
        .unwrap_or_default();
    docs.extend(api_services());
    if cluster.config.cloud {
        let cloud = parse_documents(CLOUD_MANIFESTS, "bootstrap.yaml").map(|d| d.into_iter().map(|d| d.value));
        docs.extend(cloud.into_iter().flatten());
    }
    if cluster.config.metrics_server {
        let ms = parse_documents(METRICS_SERVER_MANIFESTS, "bootstrap.yaml").map(|d| d.into_iter().map(|d| d.value));
        docs.extend(ms.into_iter().flatten());
    }
    let pid = cluster.spawn(Some(super::SUPER_ADMIN), move |api| Box::pin(create_all(api, docs)));
    Install::creating(pid, cluster.now().plus_ms(INSTALL_LIMIT_MS))
}

/// The aggregator's priority of each served group-version (`groupPriorityMinimum`, `versionPriority`), as
/// kube-apiserver's `apiVersionPriorities` and the generic control plane's defaults give them.
const API_SERVICE_PRIORITIES: &[(&str, &str, u32, u32)] = &[
    ("", "v1", 18000, 1),
    ("apps", "v1", 17800, 15),
    ("events.k8s.io", "v1", 17750, 15),
    ("authentication.k8s.io", "v1", 17700, 15),
    ("authorization.k8s.io", "v1", 17600, 15),
    ("autoscaling", "v1", 17500, 15),
    ("autoscaling", "v2", 17500, 30),
    ("batch", "v1", 17400, 15),
    ("certificates.k8s.io", "v1", 17300, 15),
    ("networking.k8s.io", "v1", 17200, 15),
    ("policy", "v1", 17100, 15),
    ("rbac.authorization.k8s.io", "v1", 17000, 15),
    ("storage.k8s.io", "v1", 16800, 15),
    ("apiextensions.k8s.io", "v1", 16700, 15),
    ("admissionregistration.k8s.io", "v1", 16700, 15),
    ("scheduling.k8s.io", "v1", 16600, 15),
    ("coordination.k8s.io", "v1", 16500, 15),
    ("node.k8s.io", "v1", 16300, 15),
    ("discovery.k8s.io", "v1", 16200, 15),
    ("resource.k8s.io", "v1", 16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1", 16100, 21),
];

/// The local APIServices the aggregator's autoregister controller keeps, one per group-version the
/// apiserver serves (`v1.` for the core group; the aggregator's own apiregistration.k8s.io has none), each
/// Available because it is local.
fn api_services() -> Vec<Value> {
    let mut served: Vec<(&str, &str)> = vec![("", "v1")];
    served.extend(crate::apiserver::discovery::groups());
    served
        .into_iter()
        .filter(|(group, _)| *group != "apiregistration.k8s.io")
        .filter_map(|(group, version)| {
            let &(_, _, group_min, version_priority) =
                API_SERVICE_PRIORITIES.iter().find(|(g, v, _, _)| *g == group && *v == version)?;
            Some(json!({
                "apiVersion": "apiregistration.k8s.io/v1",
                "kind": "APIService",
                "metadata": {
                    "name": format!("{version}.{group}"),
                    "labels": {"kube-aggregator.kubernetes.io/automanaged": "onstart"},
                },
                "spec": {
                    "group": group,
                    "version": version,
                    "groupPriorityMinimum": group_min,
                    "versionPriority": version_priority,
                },
                "status": {"conditions": [{
                    "type": "Available",
                    "status": "True",
                    "reason": "Local",
                    "message": "Local APIServices are always available",
                }]},
            }))
        })
        .collect()
}

/// When the install hands the cluster over at the latest, counted from the moment kubeadm's objects exist:
/// the kubelets register their Nodes and post the control plane's mirror pods on their own, and the cluster
/// is handed over once every node is Ready and every mirror pod runs ([`settled`]), or at this deadline.
pub(super) fn settle_deadline(cluster: &Cluster) -> SimTime {
    let nodes = cluster.config.all_nodes().count() as u64;
    cluster.now().plus_ms(INSTALL_LIMIT_MS + INSTALL_LIMIT_MS_PER_NODE * nodes)
}

pub(super) fn settled(cluster: &Cluster) -> bool {
    let Some(api) = cluster.apiserver() else { return true };
    let cache = api.cache();
    let nodes_ready = cluster.config.all_nodes().all(|n| {
        matches!(cache.get(Kind::Node, None, &n.name).as_deref(), Some(Object::Node(node)) if node
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True")))
    });
    let cp = cluster.config.control_plane.name.to_lowercase();
    let mirrors_running = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"].iter().all(|c| {
        matches!(cache.get(Kind::Pod, Some("kube-system"), &format!("{c}-{cp}")).as_deref(), Some(Object::Pod(p))
            if p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
    });
    // The leader-elected components have taken their Leases (kubeadm's cluster is long past that when a
    // person first types a command).
    let mut leaders = vec!["kube-controller-manager", "kube-scheduler"];
    if cluster.config.cloud {
        leaders.push("cloud-controller-manager");
    }
    let leases_held = leaders.iter().all(|l| {
        matches!(cache.get(Kind::Lease, Some("kube-system"), l).as_deref(), Some(Object::Lease(lease))
            if lease.spec.as_ref().and_then(|s| s.holder_identity.as_deref()).is_some_and(|h| !h.is_empty()))
    });
    nodes_ready && mirrors_running && leases_held
}

/// Creates each object in order (namespaces first), then sets the status of those that carry one.
async fn create_all(api: Api, docs: Vec<Value>) -> i32 {
    let mut failures = 0;
    for mut doc in docs {
        let status = doc.as_object_mut().and_then(|m| m.remove("status"));
        let (Some(info), Some(ns)) = (
            lookup_kind(doc["apiVersion"].as_str().unwrap_or(""), doc["kind"].as_str().unwrap_or("")),
            Some(doc["metadata"]["namespace"].as_str().map(str::to_string)),
        ) else {
            failures += 1;
            continue;
        };
        let name = doc["metadata"]["name"].as_str().unwrap_or("").to_string();
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, info).namespace(ns.as_deref());
        req.raw_body = Some(doc);
        let created = match api.call(req).await {
            Ok(ApiResponse::Object(o)) => o,
            _ => {
                failures += 1;
                continue;
            }
        };
        if let Some(mut status) = status {
            // The conditions' transitions happened as the object appeared.
            let created_at = created.meta().creation_timestamp.as_ref().and_then(|t| serde_json::to_value(t).ok());
            for c in status["conditions"].as_array_mut().into_iter().flatten() {
                if c.get("lastTransitionTime").is_none() {
                    c["lastTransitionTime"] = created_at.clone().unwrap_or(Value::Null);
                }
            }
            let mut json = created.to_json();
            json["status"] = status;
            let Ok(obj) = Object::from_json_as(info.kind, json) else { continue };
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Update, info)
                .namespace(ns.as_deref())
                .name(&name)
                .subresource("status")
                .body(obj);
            if !matches!(api.call(req).await, Ok(ApiResponse::Object(_))) {
                failures += 1;
            }
        }
    }
    i32::from(failures > 0)
}

/// The images `kubeadm config images pull` (and the add-ons' first pulls) left in a node's containerd.
pub fn preloaded_images(control_plane: bool, cloud: bool) -> Vec<&'static str> {
    let mut v = vec!["registry.k8s.io/kube-proxy:v1.34.1", "registry.k8s.io/coredns/coredns:v1.12.1"];
    if control_plane {
        v.extend([
            "registry.k8s.io/etcd:3.6.4-0",
            "registry.k8s.io/kube-apiserver:v1.34.1",
            "registry.k8s.io/kube-controller-manager:v1.34.1",
            "registry.k8s.io/kube-scheduler:v1.34.1",
        ]);
        if cloud {
            // The cloud's machine image carries its controller manager, as providers' images do.
            v.push(CLOUD_CONTROLLER_MANAGER_IMAGE);
        }
    }
    v
}

/// The image of the simulated cloud's controller manager (a provider's own build of `k8s.io/cloud-provider`).
pub const CLOUD_CONTROLLER_MANAGER_IMAGE: &str = "ghcr.io/kubeglass/cloud-controller-manager:v1.34.1";

/// The control-plane components kubeadm runs as static pods (a cloud cluster adds its controller manager,
/// as a static pod beside kube-controller-manager).
pub fn static_pod_components(cloud: bool) -> Vec<&'static str> {
    let mut v = vec!["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"];
    if cloud {
        v.push("cloud-controller-manager");
    }
    v
}

/// The manifests kubeadm writes to `/etc/kubernetes/manifests` on the control-plane node: file name and
/// YAML text.
pub fn static_pod_manifests(node_ip: &str, cloud: bool) -> Vec<(String, String)> {
    static_pod_components(cloud)
        .iter()
        .map(|c| (format!("{c}.yaml"), super::node_files::manifest_yaml(&static_pod(c, node_ip))))
        .collect()
}

fn static_pod(component: &str, node_ip: &str) -> Value {
    let image = match component {
        "etcd" => "registry.k8s.io/etcd:3.6.4-0".to_string(),
        "cloud-controller-manager" => CLOUD_CONTROLLER_MANAGER_IMAGE.to_string(),
        other => format!("registry.k8s.io/{other}:{KUBELET_VERSION}"),
    };
    let mut command = vec![component.to_string()];
    match component {
        "etcd" => command.extend([
            format!("--advertise-client-urls=https://{node_ip}:2379"),
            "--data-dir=/var/lib/etcd".into(),
            format!("--listen-client-urls=https://127.0.0.1:2379,https://{node_ip}:2379"),
        ]),
        "kube-apiserver" => command.extend([
            format!("--advertise-address={node_ip}"),
            "--authorization-mode=Node,RBAC".into(),
            "--etcd-servers=https://127.0.0.1:2379".into(),
            "--service-cluster-ip-range=10.96.0.0/12".into(),
        ]),
        "kube-controller-manager" => command.extend([
            "--cluster-cidr=10.244.0.0/16".into(),
            "--kubeconfig=/etc/kubernetes/controller-manager.conf".into(),
            "--leader-elect=true".into(),
        ]),
        "cloud-controller-manager" => command.extend([
            "--cloud-provider=kubeglass".into(),
            "--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf".into(),
            "--leader-elect=true".into(),
        ]),
        _ => command.extend(["--kubeconfig=/etc/kubernetes/scheduler.conf".into(), "--leader-elect=true".into()]),
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": component,
            "namespace": "kube-system",
            "labels": {"component": component, "tier": "control-plane"},
        },
        "spec": {
            "hostNetwork": true,
            "priorityClassName": "system-node-critical",
            "priority": 2000001000,
            "restartPolicy": "Always",
            "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
            "containers": [{"name": component, "image": image, "imagePullPolicy": "IfNotPresent", "command": command}]
        }
    })
}

/// The `/24` pod range kube-controller-manager's allocator gives node `index` of `total`: from kubeadm's
/// usual `--cluster-cidr=10.244.0.0/16` (room for 256 nodes), or from `10.128.0.0/9` for bigger clusters
/// (a /16 cannot hold more /24 ranges; the wider range stays clear of the 10.96.0.0/12 Service range).
pub fn pod_cidr(index: usize, total: usize) -> String {
    if total <= 256 {
        format!("10.244.{index}.0/24")
    } else {
        format!("10.{}.{}.0/24", 128 + index / 256, index % 256)
    }
}

/// Node `index`'s InternalIP: 192.168.56.10 for the control plane, then upwards through 192.168.0.0/16.
pub fn node_ip(index: usize) -> String {
    let n = 56 * 256 + 10 + index;
    format!("192.168.{}.{}", n / 256, n % 256)
}

/// The cluster's pod range (kubeadm's `podSubnet`, kube-proxy's `clusterCIDR`): the range [`pod_cidr`]
/// carves the nodes' `/24`s from.
pub fn cluster_cidr(total: usize) -> &'static str {
    if total <= 256 {
        "10.244.0.0/16"
    } else {
        "10.128.0.0/9"
    }
}

/// What node `index` of `total`'s kube-proxy knows about its node.
pub fn proxy_net(node: &str, index: usize, total: usize) -> crate::proxy::rules::NodeNet {
    crate::proxy::rules::NodeNet {
        node: node.to_string(),
        node_ip: node_ip(index).parse().unwrap_or(std::net::Ipv4Addr::UNSPECIFIED),
        cluster_cidr: crate::proxy::state::Cidr::parse(cluster_cidr(total)),
    }
}

/// The index of the node whose InternalIP is `ip` ([`node_ip`] backwards), if it is one of `total`.
pub fn node_index_of_ip(ip: std::net::Ipv4Addr, total: usize) -> Option<usize> {
    let [a, b, c, d] = ip.octets();
    let n = (usize::from(c) * 256 + usize::from(d)).checked_sub(56 * 256 + 10)?;
    (a == 192 && b == 168 && n < total).then_some(n)
}

/// The index of the node whose pod range holds `ip` ([`pod_cidr`] backwards), if it is one of `total`.
pub fn node_index_of_pod_ip(ip: std::net::Ipv4Addr, total: usize) -> Option<usize> {
    let [a, b, c, _] = ip.octets();
    let index = if total <= 256 {
        (a == 10 && b == 244).then_some(usize::from(c))?
    } else {
        (a == 10 && b >= 128).then(|| (usize::from(b) - 128) * 256 + usize::from(c))?
    };
    (index < total).then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_and_pod_addresses_map_back_to_their_node() {
        for total in [3, 256, 5001] {
            for index in [0, 1, total / 2, total - 1] {
                let node: std::net::Ipv4Addr = node_ip(index).parse().unwrap();
                assert_eq!(node_index_of_ip(node, total), Some(index));
                let pod: std::net::Ipv4Addr = pod_cidr(index, total).replace(".0/24", ".7").parse().unwrap();
                assert_eq!(node_index_of_pod_ip(pod, total), Some(index), "{pod} of {total}");
            }
        }
        assert_eq!(node_index_of_ip("192.168.56.9".parse().unwrap(), 3), None);
        assert_eq!(node_index_of_ip("192.168.56.13".parse().unwrap(), 3), None);
        assert_eq!(node_index_of_pod_ip("10.244.3.2".parse().unwrap(), 3), None);
        assert_eq!(node_index_of_pod_ip("10.96.0.1".parse().unwrap(), 3), None);
    }
}
