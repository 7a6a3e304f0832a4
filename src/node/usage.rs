//! What simulated containers use: the one usage model the kubelet reports on `/metrics/resource` (and so
//! metrics-server and `kubectl top`) and the HorizontalPodAutoscaler reads.
//!
//! A pod's annotation `kubeglass.dev/cpu-usage` (`kubeglass.dev/memory-usage`), a quantity such as `250m`
//! (`300Mi`), is the whole pod's usage, shared evenly by its running containers (the first takes the
//! remainder, so the pod's sum is exactly the annotation). A container without one uses what its program uses idle,
//! from its image or name: the control plane's components, CoreDNS, kube-proxy, metrics-server and a few
//! common images have figures like a real idle kubeadm cluster's; `sleep`-like images use next to nothing;
//! anything else a little. Idle figures move by a few percent from one 15 s window to the next, drawn from
//! a hash of the pod, the container and the window, so they are deterministic. A node uses the sum of its
//! containers plus what runs outside pods (systemd, the kubelet, containerd, the kernel's caches).

use crate::api::api::core::v1::Pod;
use crate::api::quantity::Quantity;
use crate::sim::rng::fnv1a64;
use crate::sim::SimTime;

/// The metrics window: metrics-server's default `--metric-resolution`.
pub const WINDOW_MS: u64 = 15_000;
const MI: u64 = 1024 * 1024;

/// CPU in nanocores and memory (working set) in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu_nanocores: u64,
    pub memory_bytes: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.cpu_nanocores += other.cpu_nanocores;
        self.memory_bytes += other.memory_bytes;
    }
}

/// A pod's own usage annotation: `kubeglass.dev/cpu-usage`.
pub fn usage_annotation(resource: &str) -> String {
    format!("kubeglass.dev/{resource}-usage")
}

/// The pod's annotated usage of `resource` (`cpu`, `memory`) in milli-units, if it has a valid one.
pub fn annotated_milli(pod: &Pod, resource: &str) -> Option<i64> {
    let text = pod.metadata.annotations.as_ref()?.get(&usage_annotation(resource))?;
    Quantity::parse(text).map(|q| q.milli_value()).filter(|m| *m >= 0)
}

/// Idle (cpu millicores, memory MiB) of a container, from its name and image.
fn idle(name: &str, image: &str) -> (u64, u64) {
    let repo = image.rsplit('/').next().unwrap_or(image);
    let repo = repo.split([':', '@']).next().unwrap_or(repo);
    match (name, repo) {
        (_, "kube-apiserver") | ("kube-apiserver", _) => (48, 262),
        (_, "etcd") | ("etcd", _) => (21, 44),
        (_, "kube-controller-manager") | ("kube-controller-manager", _) => (15, 51),
        (_, "kube-scheduler") | ("kube-scheduler", _) => (4, 23),
        (_, "coredns") => (2, 14),
        (_, "kube-proxy") => (1, 17),
        (_, "metrics-server") => (3, 19),
        (_, "nginx") => (0, 3),
        (_, "httpd") => (1, 7),
        (_, "redis") => (2, 3),
        (_, "postgres") => (3, 28),
        (_, "mysql") => (6, 376),
        (_, "busybox" | "alpine" | "pause" | "ubuntu" | "debian") => (0, 0),
        _ => (1, 9),
    }
}

/// A number in `[-spread, +spread]` per mille, the same for the same key and window.
fn wobble(key: &str, now: SimTime, spread: i64) -> i64 {
    let window = now.ms() / WINDOW_MS;
    let h = fnv1a64(format!("{key}#{window}").as_bytes());
    (h % (2 * spread as u64 + 1)) as i64 - spread
}

fn scaled(value: u64, per_mille: i64) -> u64 {
    (value as i128 * (1000 + per_mille) as i128 / 1000).max(0) as u64
}

/// The usage of container `name` (running `image`) of `pod` at `now`, `running` being the names of the pod's
/// running containers (which share an annotated usage).
pub fn container_usage(pod: &Pod, name: &str, image: &str, running: &[&str], now: SimTime) -> Usage {
    let count = running.len().max(1) as i64;
    let first = running.first().is_none_or(|c| *c == name);
    let share = |total_milli: i64, unit: i64| -> u64 {
        let total = total_milli as i128 * unit as i128 / 1000;
        let each = total / count as i128;
        let own = if first { total - each * (count as i128 - 1) } else { each };
        own.max(0) as u64
    };
    let key = format!(
        "{}/{}/{name}",
        pod.metadata.namespace.as_deref().unwrap_or(""),
        pod.metadata.name.as_deref().unwrap_or("")
    );
    let (cpu_m, mem_mi) = idle(name, image);
    let cpu_nanocores = match annotated_milli(pod, "cpu") {
        Some(m) => share(m, 1_000_000_000),
        None => scaled(cpu_m * 1_000_000, wobble(&format!("{key}/cpu"), now, 150)),
    };
    let memory_bytes = match annotated_milli(pod, "memory") {
        Some(m) => share(m, 1),
        None => scaled(mem_mi * MI + 412 * 1024, wobble(&format!("{key}/memory"), now, 20)),
    };
    Usage { cpu_nanocores, memory_bytes }
}

/// What a node uses outside its pods (root cgroup minus the pods' cgroups).
pub fn node_overhead(node: &str, control_plane: bool, now: SimTime) -> Usage {
    let (cpu_m, mem_mi) = if control_plane { (46, 590) } else { (23, 380) };
    Usage {
        cpu_nanocores: scaled(cpu_m * 1_000_000, wobble(&format!("{node}/cpu"), now, 100)),
        memory_bytes: scaled(mem_mi * MI, wobble(&format!("{node}/memory"), now, 10)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(annotations: &[(&str, &str)], containers: &[&str]) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = Some("web".into());
        p.metadata.namespace = Some("default".into());
        p.metadata.annotations = Some(annotations.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        let containers = containers
            .iter()
            .map(|n| crate::api::api::core::v1::Container { name: n.to_string(), ..Default::default() })
            .collect();
        p.spec = Some(crate::api::api::core::v1::PodSpec { containers, ..Default::default() });
        p
    }

    #[test]
    fn an_annotated_pod_uses_exactly_its_annotation_shared_by_its_containers() {
        let p = pod(&[("kubeglass.dev/cpu-usage", "250m"), ("kubeglass.dev/memory-usage", "100Mi")], &["a", "b", "c"]);
        let now = SimTime(40_000);
        let parts: Vec<Usage> =
            ["a", "b", "c"].iter().map(|n| container_usage(&p, n, "nginx", &["a", "b", "c"], now)).collect();
        assert_eq!(parts.iter().map(|u| u.cpu_nanocores).sum::<u64>(), 250_000_000);
        assert_eq!(parts.iter().map(|u| u.memory_bytes).sum::<u64>(), 100 * MI);
        assert_eq!(parts[1].cpu_nanocores, 83_333_333);
        assert_eq!(parts[0].cpu_nanocores, 83_333_334);
        assert_eq!(annotated_milli(&p, "cpu"), Some(250));
    }

    #[test]
    fn idle_figures_follow_the_image_and_move_a_little_per_window() {
        let p = pod(&[], &["kube-apiserver"]);
        let a = container_usage(&p, "kube-apiserver", "registry.k8s.io/kube-apiserver:v1.34.1", &[], SimTime(1_000));
        let b = container_usage(&p, "kube-apiserver", "registry.k8s.io/kube-apiserver:v1.34.1", &[], SimTime(2_000));
        assert_eq!(a, b, "the same window gives the same figures");
        assert!((40_000_000..=56_000_000).contains(&a.cpu_nanocores), "{a:?}");
        assert!((250 * MI..=275 * MI).contains(&a.memory_bytes), "{a:?}");
        let sleeper = container_usage(&pod(&[], &["s"]), "s", "busybox:1.36", &[], SimTime(1_000));
        assert!(sleeper.cpu_nanocores < 1_000_000 && sleeper.memory_bytes < MI, "{sleeper:?}");
        let later: Vec<u64> = (0..8)
            .map(|w| container_usage(&p, "kube-apiserver", "kube-apiserver", &[], SimTime(w * WINDOW_MS)).cpu_nanocores)
            .collect();
        assert!(later.windows(2).any(|w| w[0] != w[1]), "{later:?}");
    }
}
