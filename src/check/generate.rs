//! The generator: one seed → one run, written as a [`Scenario`] (so a run is a scenario and can be saved as
//! a file). It draws, from the engine's seeded [`Rng`], a cluster (nodes, etcd members, cloud on or off, an
//! RBAC user), a workload (Deployments with Services, bare pods, Jobs, CronJobs, DaemonSets, StatefulSets
//! with claims, HPAs, a ResourceQuota, the user's requests) and a fault schedule (stop, crash and start of
//! the control plane's components and of each etcd member, node power off and on, a node's kubelet,
//! containerd and kube-proxy stopped, scaling, rolling updates, deletes in every cascade mode, cordon and
//! drain), each fault at a drawn moment, as `wait` steps between the actions.

use crate::scenario::{Action, ClusterSpec, NodeSpec, Scenario, Step, UserSpec};
use crate::sim::Rng;

/// How large the generated runs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// 1–3 nodes, 1 or 3 etcd members, a few workloads and faults: the test suite's fixed seed set.
    Small,
    /// 1–20 nodes, 1, 3 or 5 etcd members, more of everything.
    Full,
}

impl Size {
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Full => "full",
        }
    }

    pub fn parse(text: &str) -> Option<Size> {
        [Size::Small, Size::Full].into_iter().find(|s| s.as_str() == text)
    }
}

/// The user the workload's RBAC lets read pods in `default` (and nothing else).
pub const USER: &str = "dev";

/// Which faults the generator draws from: everything by default (`--without` leaves some out, to tell which
/// fault a failure needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Faults {
    pub control_plane: bool,
    pub apiserver: bool,
    pub etcd: bool,
    /// Whether etcd faults may take quorum away (every member of a one-member cluster, or a majority): when
    /// false, only one member of three or five is ever down at a time.
    pub etcd_quorum_loss: bool,
    pub power: bool,
    pub node_services: bool,
    pub workload: bool,
    pub drain: bool,
}

impl Faults {
    pub const ALL: Faults = Faults {
        control_plane: true,
        apiserver: true,
        etcd: true,
        etcd_quorum_loss: true,
        power: true,
        node_services: true,
        workload: true,
        drain: true,
    };

    /// These faults without the ones named (comma-separated: control-plane, apiserver, etcd, etcd-quorum-loss, power,
    /// node-services, workload, drain); Err names an unknown one.
    pub fn without(mut self, names: &str) -> Result<Faults, String> {
        for n in names.split(',').filter(|n| !n.is_empty()) {
            match n {
                "control-plane" => self.control_plane = false,
                "apiserver" => self.apiserver = false,
                "etcd" => self.etcd = false,
                "etcd-quorum-loss" => self.etcd_quorum_loss = false,
                "power" => self.power = false,
                "node-services" => self.node_services = false,
                "workload" => self.workload = false,
                "drain" => self.drain = false,
                _ => return Err(format!("unknown fault {n:?}")),
            }
        }
        Ok(self)
    }
}

struct Gen {
    rng: Rng,
    size: Size,
    cluster: ClusterSpec,
    deployments: Vec<String>,
    jobs: Vec<String>,
    statefulsets: Vec<String>,
    daemonsets: Vec<String>,
    pods: Vec<String>,
}

impl Gen {
    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.rng.below(items.len() as u64) as usize])
    }

    fn workers(&self) -> Vec<String> {
        self.cluster.nodes.iter().map(|n| n.name.clone()).collect()
    }

    fn all_nodes(&self) -> Vec<String> {
        self.cluster.node_names().map(str::to_string).collect()
    }
}

fn step(action: Action) -> Step {
    Step { at_ms: None, line: 0, action, expect: None }
}

fn kubectl(command: String) -> Step {
    step(Action::Kubectl { command })
}

fn apply(manifest: String) -> Step {
    step(Action::Apply { manifest })
}

/// The run seed `seed` stands for, at this size, drawing from these faults.
pub fn generate(seed: u64, size: Size, faults: Faults) -> Scenario {
    let root = Rng::new(seed);
    let mut g = Gen {
        rng: root.fork("check"),
        size,
        cluster: ClusterSpec::default(),
        deployments: Vec::new(),
        jobs: Vec::new(),
        statefulsets: Vec::new(),
        daemonsets: Vec::new(),
        pods: Vec::new(),
    };
    let (max_workers, members): (u64, &[u8]) = match size {
        Size::Small => (2, &[1, 1, 3]),
        Size::Full => (19, &[1, 3, 5]),
    };
    let workers = g.rng.below(max_workers + 1);
    g.cluster.nodes = (1..=workers).map(|i| NodeSpec::new(&format!("node{i:02}"))).collect();
    g.cluster.etcd_members = *g.pick(members).unwrap_or(&1);
    g.cluster.cloud = g.chance(30);
    g.cluster.users = vec![UserSpec { name: USER.into(), token: format!("{USER}-token"), groups: Vec::new() }];
    let mut steps = workload(&mut g);
    steps.extend(schedule(&mut g, faults));
    Scenario {
        name: format!("check-{}-{seed}", size.as_str()),
        description: format!("kubeglass check --seed {seed} --size {}", size.as_str()),
        seed,
        cluster: g.cluster,
        steps,
    }
}

const RBAC: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: default
rules:
- apiGroups: [\"\"]
  resources: [pods]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: dev-reads-pods
  namespace: default
subjects:
- kind: User
  name: dev
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
";

const QUOTA: &str = "apiVersion: v1
kind: ResourceQuota
metadata:
  name: counts
  namespace: default
spec:
  hard:
    pods: \"200\"
    services: \"50\"
    configmaps: \"50\"
    persistentvolumeclaims: \"50\"
";

fn resources() -> &'static str {
    "        resources:\n          requests:\n            cpu: 50m\n            memory: 32Mi\n"
}

fn deployment(name: &str, replicas: u64) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n{}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector:\n    app: {name}\n  ports:\n  - port: 80\n",
        resources()
    )
}

fn workload(g: &mut Gen) -> Vec<Step> {
    let mut steps = vec![apply(RBAC.to_string()), apply(QUOTA.to_string())];
    if g.cluster.nodes.is_empty() {
        // A one-node cluster runs its workloads on the control plane, as kubeadm's docs say to set it up.
        let cp = g.cluster.control_plane.name.clone();
        steps.push(kubectl(format!("taint nodes {cp} node-role.kubernetes.io/control-plane:NoSchedule-")));
    }
    let items = match g.size {
        Size::Small => g.rng.between(2, 4),
        Size::Full => g.rng.between(4, 9),
    };
    for i in 0..items {
        match g.rng.below(7) {
            0 | 1 => {
                let name = format!("web-{i}");
                let replicas = g.rng.between(1, 3);
                steps.push(apply(deployment(&name, replicas)));
                if g.chance(30) {
                    steps.push(kubectl(format!("autoscale deployment {name} --min=1 --max=4 --cpu-percent=50")));
                }
                g.deployments.push(name);
            }
            2 => {
                let name = format!("pod-{i}");
                steps.push(kubectl(format!("run {name} --image=nginx:1.27")));
                g.pods.push(name);
            }
            3 => {
                let name = format!("job-{i}");
                let completions = g.rng.between(1, 3);
                steps.push(apply(format!(
                    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\nspec:\n  completions: {completions}\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: w\n        image: busybox:1.36\n        command: [sh, -c, 'sleep 5']\n"
                )));
                g.jobs.push(name);
            }
            4 => {
                let name = format!("cron-{i}");
                steps.push(apply(format!(
                    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: {name}\nspec:\n  schedule: \"*/1 * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n          containers:\n          - name: w\n            image: busybox:1.36\n            command: [sh, -c, 'sleep 2']\n"
                )));
            }
            5 => {
                let name = format!("ds-{i}");
                steps.push(apply(format!(
                    "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: {name}\nspec:\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: agent\n        image: busybox:1.36\n        command: [sh, -c, 'sleep 3600']\n"
                )));
                g.daemonsets.push(name);
            }
            _ => {
                let name = format!("db-{i}");
                let replicas = g.rng.between(1, 2);
                steps.push(apply(format!(
                    "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {name}\nspec:\n  serviceName: {name}\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: db\n        image: nginx:1.27\n{}  volumeClaimTemplates:\n  - metadata:\n      name: data\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources:\n        requests:\n          storage: 1Gi\n",
                    resources()
                )));
                g.statefulsets.push(name);
            }
        }
    }
    steps.push(step(Action::Wait { ms: g.rng.between(5_000, 20_000) }));
    steps
}

/// One fault: the steps that make it and, for a stop, the steps that undo it after a while.
fn schedule(g: &mut Gen, faults: Faults) -> Vec<Step> {
    let count = match g.size {
        Size::Small => g.rng.between(3, 6),
        Size::Full => g.rng.between(8, 24),
    };
    let max_gap = match g.size {
        Size::Small => 15_000,
        Size::Full => 40_000,
    };
    let mut steps = Vec::new();
    // Components stopped now, each with the number of faults still to come before it starts again.
    let mut down: Vec<(String, u64)> = Vec::new();
    for _ in 0..count {
        steps.push(step(Action::Wait { ms: g.rng.between(1_000, max_gap) }));
        let mut still = Vec::new();
        for (name, left) in down.drain(..) {
            if left == 0 {
                steps.push(step(Action::Start(name)));
            } else {
                still.push((name, left - 1));
            }
        }
        down = still;
        if let Some(fault) = fault(g, faults, &down) {
            if let Action::Stop(name) = &fault.action {
                let left = g.rng.below(3);
                down.push((name.clone(), left));
            }
            steps.push(fault);
        }
    }
    steps
}

fn fault(g: &mut Gen, faults: Faults, down: &[(String, u64)]) -> Option<Step> {
    let mut control: Vec<String> = Vec::new();
    if faults.control_plane {
        control.extend(["kube-scheduler", "kube-controller-manager", "coredns"].map(String::from));
        if g.cluster.cloud {
            control.push("cloud-controller-manager".into());
        }
    }
    if faults.apiserver {
        control.push("kube-apiserver".into());
    }
    let etcd_down = down.iter().any(|(d, _)| d.starts_with("etcd-"));
    if faults.etcd && (faults.etcd_quorum_loss || (g.cluster.etcd_members >= 3 && !etcd_down)) {
        control.extend((0..g.cluster.etcd_members).map(|i| format!("etcd-{i}")));
    }
    let mut node_parts: Vec<String> = Vec::new();
    if faults.node_services {
        for n in g.all_nodes() {
            node_parts.extend(["kubelet", "containerd", "kube-proxy"].map(|p| format!("{n}/{p}")));
        }
    }
    let machines = if faults.power { g.all_nodes() } else { Vec::new() };
    let is_down = |n: &str| down.iter().any(|(d, _)| d == n || n.starts_with(&format!("{d}/")));
    for _ in 0..8 {
        let choice = g.rng.below(10);
        let step = match choice {
            0 | 1 => g.pick(&control).cloned().filter(|c| !is_down(c)).map(|c| step(Action::Stop(c))),
            2 => g.pick(&control).cloned().filter(|c| !is_down(c)).map(|c| step(Action::Crash(c))),
            3 => g.pick(&machines).cloned().filter(|c| !is_down(c)).map(|c| step(Action::Stop(c))),
            4 => g.pick(&node_parts).cloned().filter(|c| !is_down(c)).map(|c| {
                if g.chance(30) {
                    step(Action::Crash(c))
                } else {
                    step(Action::Stop(c))
                }
            }),
            5..=7 if faults.workload => workload_fault(g),
            8 if faults.drain => {
                let workers = g.workers();
                g.pick(&workers).cloned().map(|n| match g.rng.below(3) {
                    0 => kubectl(format!("cordon {n}")),
                    1 => kubectl(format!("uncordon {n}")),
                    _ => kubectl(format!("drain {n} --ignore-daemonsets --delete-emptydir-data --force --timeout=60s")),
                })
            }
            _ => Some(user_request(g)),
        };
        if step.is_some() {
            return step;
        }
    }
    None
}

fn workload_fault(g: &mut Gen) -> Option<Step> {
    let cascade = *g.pick(&["background", "foreground", "orphan"]).unwrap_or(&"background");
    match g.rng.below(5) {
        0 => {
            let d = g.pick(&g.deployments.clone())?.clone();
            let replicas = g.rng.between(0, 4);
            Some(kubectl(format!("scale deployment {d} --replicas={replicas}")))
        }
        1 => {
            let d = g.pick(&g.deployments.clone())?.clone();
            let image = *g.pick(&["nginx:1.27", "nginx:1.28", "nginx:1.29"]).unwrap_or(&"nginx:1.28");
            Some(kubectl(format!("set image deployment/{d} web={image}")))
        }
        2 => {
            let kinds: Vec<(&str, Vec<String>)> = vec![
                ("deployment", g.deployments.clone()),
                ("job", g.jobs.clone()),
                ("statefulset", g.statefulsets.clone()),
                ("daemonset", g.daemonsets.clone()),
            ];
            let (kind, names) = g.pick(&kinds)?.clone();
            let name = g.pick(&names)?.clone();
            Some(kubectl(format!("delete {kind} {name} --cascade={cascade} --wait=false")))
        }
        3 => {
            let s = g.pick(&g.statefulsets.clone())?.clone();
            let replicas = g.rng.between(0, 3);
            Some(kubectl(format!("scale statefulset {s} --replicas={replicas}")))
        }
        _ => {
            let p = g.pick(&g.pods.clone())?.clone();
            Some(kubectl(format!("delete pod {p} --wait=false")))
        }
    }
}

/// The RBAC user's requests: allowed reads and a forbidden write, then back to the admin.
fn user_request(g: &mut Gen) -> Step {
    let command = match g.rng.below(3) {
        0 => "get pods".to_string(),
        1 => "get pods -o wide".to_string(),
        _ => "delete configmap kube-root-ca.crt".to_string(),
    };
    kubectl(format!("{command} --as={USER}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_gives_one_scenario_and_seeds_differ() {
        let a = generate(11, Size::Small, Faults::ALL);
        assert_eq!(a, generate(11, Size::Small, Faults::ALL));
        assert_ne!(a, generate(12, Size::Small, Faults::ALL));
        assert_eq!(a.seed, 11);
        assert_eq!(a.name, "check-small-11");
        // It is a scenario: its file reads back as the same scenario.
        let text = crate::scenario::to_yaml(&a);
        assert_eq!(crate::scenario::parse(&text, "check.yaml"), Ok(a));
    }

    #[test]
    fn sizes_bound_the_cluster_and_the_fault_names_are_real_components() {
        for seed in 0..60 {
            let s = generate(seed, Size::Small, Faults::ALL);
            assert!(s.cluster.nodes.len() <= 2, "{seed}");
            assert!([1, 3].contains(&s.cluster.etcd_members), "{seed}");
            for st in &s.steps {
                if let Action::Stop(c) | Action::Start(c) | Action::Crash(c) = &st.action {
                    assert!(crate::scenario::Component::parse(c, &s.cluster).is_ok(), "seed {seed}: {c}");
                }
            }
            let f = generate(seed, Size::Full, Faults::ALL);
            assert!((1..=20).contains(&(f.cluster.nodes.len() + 1)), "{seed}");
            assert!([1, 3, 5].contains(&f.cluster.etcd_members));
        }
    }
}
