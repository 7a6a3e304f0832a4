//! What a kubeadm install leaves on each node's disk, as in seed 002's map: `/etc/kubernetes` (the static
//! pod manifests, `pki/`, the kubeconfigs), `/etc/cni/net.d`, `/var/lib/kubelet/config.yaml`,
//! `/var/lib/etcd`, `/var/log/pods` and `/var/log/containers` (whose contents the node shell reads from
//! containerd). Contents follow kubeadm v1.34's output (keys sorted, as sigs.k8s.io/yaml writes them);
//! certificates and keys are deterministic stand-ins with the right PEM framing, not real DER.
//! Files that are the same on every worker share one allocation.

use std::rc::Rc;

use serde_json::{json, Value};

use super::nodefs::{NodeFile, NodeFs, ETCD_DATA_DIR};
use crate::kubectl::create::base64;
use crate::sim::rng::fnv1a64;
use crate::sim::SimTime;

/// The kubelet's static pod path (`staticPodPath` in its config file).
pub const MANIFESTS_DIR: &str = "/etc/kubernetes/manifests";
/// The kubelet's configuration file.
pub const KUBELET_CONFIG: &str = "/var/lib/kubelet/config.yaml";
pub const POD_LOGS_DIR: &str = "/var/log/pods";
pub const CONTAINER_LOGS_DIR: &str = "/var/log/containers";
/// Where containerd listens (crictl's `runtime-endpoint`).
pub const CONTAINERD_SOCKET: &str = "/run/containerd/containerd.sock";

const PKI: &str = "/etc/kubernetes/pki";

/// Files every worker has in common, built once per cluster.
pub struct SharedFiles {
    ca_crt: Rc<str>,
    worker_kubelet_conf: Rc<str>,
    kubelet_config: Rc<str>,
    kubeadm_flags: Rc<str>,
    crictl_yaml: Rc<str>,
    kubelet_client_pem: Rc<str>,
}

impl SharedFiles {
    pub fn new(server: &str) -> SharedFiles {
        let ca_crt: Rc<str> = Rc::from(pem("CERTIFICATE", "kubernetes-ca", 1_099));
        let worker_kubelet_conf = Rc::from(kubeconfig(
            server,
            &ca_crt,
            "default-cluster",
            "default-auth",
            "default-context",
            Credential::Files("/var/lib/kubelet/pki/kubelet-client-current.pem"),
        ));
        SharedFiles {
            worker_kubelet_conf,
            kubelet_config: Rc::from(KUBELET_CONFIG_YAML),
            kubeadm_flags: Rc::from(
                "KUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock \
                 --pod-infra-container-image=registry.k8s.io/pause:3.10\"\n",
            ),
            crictl_yaml: Rc::from(format!(
                "runtime-endpoint: unix://{CONTAINERD_SOCKET}\nimage-endpoint: unix://{CONTAINERD_SOCKET}\ntimeout: 10\ndebug: false\n"
            )),
            kubelet_client_pem: Rc::from(format!(
                "{}{}",
                pem("CERTIFICATE", "kubelet-client", 1_131),
                pem("EC PRIVATE KEY", "kubelet-client-key", 121)
            )),
            ca_crt,
        }
    }
}

/// One node as the install sees it.
pub struct NodeSeed<'a> {
    pub name: &'a str,
    pub control_plane: bool,
    /// The node's pod range (`10.244.1.0/24`), which its CNI configuration hands out.
    pub pod_cidr: &'a str,
    /// The control plane's address (`https://<this>:6443`).
    pub server: &'a str,
    /// The static pod manifests kubeadm wrote (control plane only): file name and YAML text.
    pub manifests: Vec<(String, String)>,
}

/// A node's filesystem right after the install.
pub fn seed(node: &NodeSeed, shared: &SharedFiles) -> NodeFs {
    let mut fs = if node.control_plane { NodeFs::with_etcd_running() } else { NodeFs::new() };
    let t = SimTime::ZERO;
    let text = |s: &Rc<str>| NodeFile::Text(Rc::clone(s));
    for dir in ["/root", "/tmp", "/opt", MANIFESTS_DIR, POD_LOGS_DIR, CONTAINER_LOGS_DIR] {
        fs.mkdir(dir, t);
    }
    fs.write(&format!("{PKI}/ca.crt"), text(&shared.ca_crt));
    fs.write(KUBELET_CONFIG, text(&shared.kubelet_config));
    fs.write("/var/lib/kubelet/kubeadm-flags.env", text(&shared.kubeadm_flags));
    fs.write("/etc/crictl.yaml", text(&shared.crictl_yaml));
    fs.write("/etc/os-release", NodeFile::Text(Rc::from(crate::node::os::os_release())));
    fs.write("/etc/cni/net.d/10-containerd-net.conflist", NodeFile::Text(Rc::from(cni_conflist(node.pod_cidr))));
    fs.write("/var/lib/kubelet/pki/kubelet-client-current.pem", text(&shared.kubelet_client_pem));
    if !node.control_plane {
        fs.write("/etc/kubernetes/kubelet.conf", text(&shared.worker_kubelet_conf));
        return fs;
    }
    let cloud = node.manifests.iter().any(|(f, _)| f == "cloud-controller-manager.yaml");
    let ccm = cloud.then_some(("cloud-controller-manager.conf", "system:cloud-controller-manager"));
    for (file, user) in [
        ("admin.conf", "kubernetes-admin"),
        ("super-admin.conf", "kubernetes-super-admin"),
        ("controller-manager.conf", "system:kube-controller-manager"),
        ("scheduler.conf", "system:kube-scheduler"),
    ]
    .into_iter()
    .chain(ccm)
    {
        let conf = kubeconfig(
            node.server,
            &shared.ca_crt,
            "kubernetes",
            user,
            &format!("{user}@kubernetes"),
            Credential::Data(user),
        );
        fs.write(&format!("/etc/kubernetes/{file}"), NodeFile::Text(Rc::from(conf)));
    }
    let node_user = format!("system:node:{}", node.name);
    let kubelet_conf = kubeconfig(
        node.server,
        &shared.ca_crt,
        "kubernetes",
        &node_user,
        &format!("{node_user}@kubernetes"),
        Credential::Files("/var/lib/kubelet/pki/kubelet-client-current.pem"),
    );
    fs.write("/etc/kubernetes/kubelet.conf", NodeFile::Text(Rc::from(kubelet_conf)));
    for name in [
        "apiserver.crt",
        "apiserver.key",
        "apiserver-etcd-client.crt",
        "apiserver-etcd-client.key",
        "apiserver-kubelet-client.crt",
        "apiserver-kubelet-client.key",
        "ca.key",
        "front-proxy-ca.crt",
        "front-proxy-ca.key",
        "front-proxy-client.crt",
        "front-proxy-client.key",
        "sa.key",
        "sa.pub",
        "etcd/ca.crt",
        "etcd/ca.key",
        "etcd/healthcheck-client.crt",
        "etcd/healthcheck-client.key",
        "etcd/peer.crt",
        "etcd/peer.key",
        "etcd/server.crt",
        "etcd/server.key",
    ] {
        let (kind, bytes) = match name.rsplit('.').next() {
            Some("crt") => ("CERTIFICATE", 1_123),
            Some("pub") => ("PUBLIC KEY", 451),
            _ => ("RSA PRIVATE KEY", 1_679),
        };
        fs.write(&format!("{PKI}/{name}"), NodeFile::Text(Rc::from(pem(kind, name, bytes))));
    }
    for (file, yaml) in &node.manifests {
        fs.write(&format!("{MANIFESTS_DIR}/{file}"), NodeFile::Text(Rc::from(yaml.as_str())));
    }
    fs.write(&format!("{ETCD_DATA_DIR}/member/snap/db"), NodeFile::Binary(2_134_016));
    fs.write(
        &format!("{ETCD_DATA_DIR}/member/wal/0000000000000000-0000000000000000.wal"),
        NodeFile::Binary(64_000_000),
    );
    fs
}

enum Credential<'a> {
    /// Embedded client certificate and key (the admin's and components' kubeconfigs).
    Data(&'a str),
    /// The kubelet's rotating client certificate on disk.
    Files(&'a str),
}

fn kubeconfig(server: &str, ca: &str, cluster: &str, user: &str, context: &str, credential: Credential) -> String {
    let user_entry = match credential {
        Credential::Data(seed) => json!({
            "client-certificate-data": base64(pem("CERTIFICATE", &format!("{seed}.crt"), 1_164).as_bytes()),
            "client-key-data": base64(pem("RSA PRIVATE KEY", &format!("{seed}.key"), 1_675).as_bytes()),
        }),
        Credential::Files(path) => json!({"client-certificate": path, "client-key": path}),
    };
    let mut ctx = json!({"cluster": cluster, "user": user});
    if cluster == "default-cluster" {
        ctx["namespace"] = json!("default");
    }
    let doc = json!({
        "apiVersion": "v1",
        "clusters": [{"cluster": {"certificate-authority-data": base64(ca.as_bytes()), "server": format!("https://{server}")},
                      "name": cluster}],
        "contexts": [{"context": ctx, "name": context}],
        "current-context": context,
        "kind": "Config",
        "preferences": {},
        "users": [{"name": user, "user": user_entry}],
    });
    crate::kubectl::printers::yaml::to_yaml(&doc)
}

/// A PEM block of `kind` whose body is `bytes` deterministic bytes derived from `seed`.
fn pem(kind: &str, seed: &str, bytes: usize) -> String {
    let mut raw = Vec::with_capacity(bytes + 8);
    let mut i = 0u64;
    while raw.len() < bytes {
        raw.extend_from_slice(&fnv1a64(format!("{seed}#{i}").as_bytes()).to_be_bytes());
        i += 1;
    }
    raw.truncate(bytes);
    let body = base64(&raw);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for chunk in body.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or(""));
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// containerd's example CNI configuration (bridge with host-local addresses from the node's pod range).
fn cni_conflist(pod_cidr: &str) -> String {
    let doc = json!({
        "cniVersion": "1.0.0",
        "name": "containerd-net",
        "plugins": [
            {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "promiscMode": true,
             "ipam": {"type": "host-local", "ranges": [[{"subnet": pod_cidr}]], "routes": [{"dst": "0.0.0.0/0"}]}},
            {"type": "portmap", "capabilities": {"portMappings": true}}
        ]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A static pod manifest as kubeadm writes it: the pod with `creationTimestamp: null` and `status: {}`.
pub fn manifest_yaml(pod: &Value) -> String {
    let mut doc = pod.clone();
    doc["metadata"]["creationTimestamp"] = Value::Null;
    doc["status"] = json!({});
    crate::kubectl::printers::yaml::to_yaml(&doc)
}

/// The `staticPodPath` a kubelet configuration file names, read as `grep staticPodPath` would find it.
pub fn static_pod_path(config: &str) -> Option<String> {
    config.lines().find_map(|l| {
        let v = l.strip_prefix("staticPodPath:")?.trim().trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// kubeadm v1.34's `/var/lib/kubelet/config.yaml`.
const KUBELET_CONFIG_YAML: &str = "apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: \"\"
cpuManagerReconcilePeriod: 0s
crashLoopBackOff: {}
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: \"0\"
    text:
      infoBufferSize: \"0\"
  verbosity: 0
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
";

#[cfg(test)]
mod tests {
    use super::*;

    fn control_plane() -> NodeFs {
        let shared = SharedFiles::new("192.168.56.10:6443");
        let seed_node = NodeSeed {
            name: "controlplane",
            control_plane: true,
            pod_cidr: "10.244.0.0/24",
            server: "192.168.56.10:6443",
            manifests: vec![("etcd.yaml".into(), "apiVersion: v1\nkind: Pod\n".into())],
        };
        seed(&seed_node, &shared)
    }

    #[test]
    fn the_kubelet_config_names_the_manifests_directory() {
        assert_eq!(static_pod_path(KUBELET_CONFIG_YAML).as_deref(), Some(MANIFESTS_DIR));
        assert_eq!(static_pod_path("kind: KubeletConfiguration\n"), None);
    }

    #[test]
    fn the_control_plane_has_the_seed_map_and_workers_share_their_common_files() {
        let fs = control_plane();
        for path in [
            "/etc/kubernetes/manifests/etcd.yaml",
            "/etc/kubernetes/pki/ca.crt",
            "/etc/kubernetes/pki/etcd/server.key",
            "/etc/kubernetes/admin.conf",
            "/etc/kubernetes/kubelet.conf",
            "/etc/cni/net.d/10-containerd-net.conflist",
            "/var/lib/kubelet/config.yaml",
            "/var/lib/etcd/member/snap/db",
            "/var/log/pods",
            "/var/log/containers",
        ] {
            assert!(fs.exists(path), "{path}");
        }
        let admin = fs.text("/etc/kubernetes/admin.conf").unwrap_or_default();
        assert!(admin.contains("server: https://192.168.56.10:6443\n"), "{admin}");
        assert!(admin.contains("current-context: kubernetes-admin@kubernetes\n"), "{admin}");
        let ca = fs.text("/etc/kubernetes/pki/ca.crt").unwrap_or_default();
        assert!(ca.starts_with("-----BEGIN CERTIFICATE-----\n") && ca.ends_with("-----END CERTIFICATE-----\n"));
        assert!(ca.lines().all(|l| l.len() <= 64));

        let shared = SharedFiles::new("192.168.56.10:6443");
        let worker = |name| {
            seed(
                &NodeSeed { name, control_plane: false, pod_cidr: "10.244.1.0/24", server: "x", manifests: Vec::new() },
                &shared,
            )
        };
        let (a, b) = (worker("node01"), worker("node02"));
        assert!(!a.exists("/etc/kubernetes/admin.conf") && !a.exists("/var/lib/etcd"));
        assert_eq!(a.list(MANIFESTS_DIR), Ok(Vec::new()));
        let (ta, tb) =
            (a.text("/etc/kubernetes/kubelet.conf").unwrap(), b.text("/etc/kubernetes/kubelet.conf").unwrap());
        assert!(Rc::ptr_eq(&ta, &tb), "the workers' kubelet.conf is one shared allocation");
        assert!(a.text("/etc/cni/net.d/10-containerd-net.conflist").unwrap().contains("\"subnet\": \"10.244.1.0/24\""));
    }
}
