//! The cluster: builds the kernel and every component of a cluster, dispatches each delivery and timer to
//! its receiver, runs the clock, and answers the UI and the CLI (views, stop, start and crash, kubectl, the
//! node shell). It also plays the part of each node's operating system: it owns the nodes' filesystems,
//! starts and stops processes when containerd or systemd asks ([`crate::sim::Command::Lifecycle`]), and
//! writes systemd's lines to the units' journals.

mod bootstrap;
mod config;
mod faults;
mod inspect;
mod install;
mod network;
pub mod node_files;
mod node_shell;
pub mod nodefs;
mod observe;
mod pacing;
mod remote;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::api::Credentials;
use crate::apiserver::authn::Authenticator;
use crate::apiserver::ApiServer;
use crate::client::process::ProcessStatus;
use crate::client::{Api, EditRequest, ProcessHost};
use crate::controllers::cloud::Cloud;
use crate::controllers::ControllerManager;
use crate::dns::CoreDns;
use crate::etcd::member::EtcdMember;
use crate::kubectl::kubeconfig::{context_name, Kubeconfig, KubeconfigFile};
use crate::metrics::MetricsServer;
use crate::node::systemd::Systemd;
use crate::node::units::{self, Unit};
use crate::node::{Containerd, Kubelet, KubeletConfig};
use crate::proxy::KubeProxy;
use crate::scheduler::Scheduler;
use crate::sim::rng::fnv1a64;
use crate::sim::{ComponentId, Ctx, Event, Kernel, Lifecycle, Payload, Rng, SimTime};
use crate::view::{ComponentView, MessageView, View};

pub use config::{ClusterConfig, NodeConfig, UserConfig};
pub use install::Install;
pub use nodefs::{NodeFile, NodeFs};
pub use observe::Observer;
pub use pacing::Skip;
pub use remote::{client_name, RemoteEvent};

/// One process of the simulated cluster.
pub enum Component {
    Etcd(Box<EtcdMember>),
    ApiServer(Box<ApiServer>),
    Scheduler(Box<Scheduler>),
    ControllerManager(Box<ControllerManager>),
    Kubelet(Box<Kubelet>),
    Containerd(Box<Containerd>),
    KubeProxy(Box<KubeProxy>),
    CoreDns(Box<CoreDns>),
    MetricsServer(Box<MetricsServer>),
    /// systemd's restart jobs for the nodes' services.
    Systemd(Box<Systemd>),
    /// Runs client programs: the person's kubectl, kubeadm at install time.
    Host(Box<ProcessHost>),
    /// A component whose behaviour is not simulated yet: it receives and ignores.
    Idle,
}

impl Component {
    fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, payload: Payload) {
        match self {
            Component::Etcd(m) => match payload {
                Payload::Etcd(msg) => m.on_message(ctx, from, msg),
                Payload::Disconnected { peer, .. } => m.on_disconnected(ctx, peer),
                _ => {}
            },
            Component::ApiServer(a) => a.on_message(ctx, from, payload),
            // Their secure ports answer /healthz whether or not they lead (the process is up).
            Component::Scheduler(_) | Component::ControllerManager(_) if matches!(payload, Payload::Healthz { .. }) => {
                if let Payload::Healthz { id } = payload {
                    ctx.send(from, Payload::HealthzReply { id, result: Ok("ok".into()) });
                }
            }
            Component::Scheduler(s) => s.on_message(ctx, payload),
            Component::ControllerManager(m) => m.on_message(ctx, payload),
            Component::Kubelet(k) => k.on_message(ctx, from, payload),
            Component::Containerd(c) => c.on_message(ctx, from, payload),
            Component::KubeProxy(p) => p.on_message(ctx, payload),
            Component::CoreDns(d) => d.on_message(ctx, payload),
            Component::MetricsServer(m) => m.on_message(ctx, from, payload),
            Component::Host(h) => h.on_message(ctx, payload),
            Component::Systemd(_) | Component::Idle => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        match self {
            Component::Etcd(m) => m.on_timer(ctx, token),
            Component::ApiServer(a) => a.on_timer(ctx, token),
            Component::Scheduler(s) => s.on_timer(ctx, token),
            Component::ControllerManager(m) => m.on_timer(ctx, token),
            Component::Kubelet(k) => k.on_timer(ctx, token),
            Component::Containerd(c) => c.on_timer(ctx, token),
            Component::KubeProxy(p) => p.on_timer(ctx, token),
            Component::CoreDns(d) => d.on_timer(ctx, token),
            Component::MetricsServer(m) => m.on_timer(ctx, token),
            Component::Host(h) => h.on_timer(ctx, token),
            Component::Systemd(s) => s.on_timer(ctx, token),
            Component::Idle => {}
        }
    }

    fn on_start(&mut self, ctx: &mut Ctx) {
        match self {
            Component::Etcd(m) => m.on_start(ctx),
            Component::ApiServer(a) => a.on_start(ctx),
            Component::Scheduler(s) => s.on_start(ctx),
            Component::ControllerManager(m) => m.on_start(ctx),
            Component::Kubelet(k) => k.on_start(ctx),
            Component::Containerd(c) => c.on_start(ctx),
            Component::KubeProxy(p) => p.on_start(ctx),
            Component::CoreDns(d) => d.on_start(ctx),
            Component::MetricsServer(m) => m.on_start(ctx),
            Component::Host(_) | Component::Systemd(_) | Component::Idle => {}
        }
    }
}

/// The exit status of a process killed by `crash` (SIGKILL).
pub const CRASH_EXIT_CODE: i32 = 137;

/// The control-plane node's static pod path (kubeadm's).
pub const MANIFESTS_DIR: &str = "/etc/kubernetes/manifests";
/// Where stopping a control-plane component parks its manifest (outside the static pod path, kept across
/// reboots).
pub const PARKED_MANIFESTS_DIR: &str = "/etc/kubernetes";
/// How long `stop` and `start` of a control-plane component wait for the kubelet to act: the static pods'
/// 30 s termination grace period and a little more.
const STATIC_POD_SETTLE_MS: u64 = 35_000;

/// Where a component sits on the diagram.
#[derive(Debug, Clone)]
struct Placement {
    role: &'static str,
    node: Option<String>,
}

/// The output and exit code of a finished command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandResult {
    pub output: String,
    /// None when the command was still running at its time limit.
    pub exit: Option<i32>,
    /// The chain of messages the command started (its numbered data-flow steps).
    pub chain: u64,
    /// `kubectl edit`: the text to open in an editor instead of a terminal one (see [`EditRequest`]).
    pub edit: Option<EditRequest>,
}

/// The user of kubeadm's `super-admin.conf` (group `system:masters`, past RBAC).
pub const SUPER_ADMIN: &str = "kubernetes-super-admin";

/// A whole simulated cluster.
pub struct Cluster {
    kernel: Kernel,
    components: Vec<Component>,
    rngs: Vec<Rng>,
    placements: Vec<Placement>,
    config: ClusterConfig,
    apiserver: ComponentId,
    etcd: Vec<ComponentId>,
    kubectl: ComponentId,
    /// The person's kubeconfig file: its current context says which user kubectl acts as and which namespace
    /// it defaults to. kubectl processes get a handle to it and `kubectl config` rewrites it.
    kubeconfig: KubeconfigFile,
    /// Each node's shell host (`<node>/shell`), where etcdctl and etcdutl run; made when first used (the
    /// control plane's at install).
    shells: BTreeMap<String, ComponentId>,
    /// systemd's restart jobs.
    systemd: ComponentId,
    /// How often systemd restarted each node service after its process died.
    restarts: BTreeMap<ComponentId, u32>,
    /// Each node's files.
    node_fs: BTreeMap<String, Rc<RefCell<NodeFs>>>,
    /// The control-plane node's files (etcd snapshots, restored data directories, the static pod manifests).
    control_plane_fs: Rc<RefCell<NodeFs>>,
    /// The current context's user and namespace, as last read from the kubeconfig.
    user: String,
    namespace: String,
    /// The cloud the machines run in (`cloud: true`): instances and load balancers.
    cloud: Rc<RefCell<Cloud>>,
    /// Who watches every delivery (the fault simulator's invariants): see [`Observer`].
    observer: Option<Rc<RefCell<dyn Observer>>>,
    /// The machines powered off: nothing on them can be started, stopped or crashed until they are powered on.
    powered_off: BTreeSet<String>,
    /// The kube-proxy processes stopped with `kill -STOP` (their containers run on, see [`Cluster::stop`]).
    frozen: BTreeSet<ComponentId>,
    /// The add-on Deployments scaled to zero by `stop`, and the replicas `start` gives them back.
    scaled_down: BTreeMap<String, u32>,
    /// Clients from outside (`kubeglass serve`): a component per user agent, and the calls in progress.
    remote_hosts: BTreeMap<String, ComponentId>,
    remote_calls: BTreeMap<u64, remote::RemoteCall>,
    next_remote: u64,
}

impl Cluster {
    /// The default cluster (controlplane, node01, node02; one etcd member) with this seed.
    pub fn new_default(seed: u64) -> Cluster {
        Cluster::new(ClusterConfig::default(), seed)
    }

    /// Builds and installs a cluster: components start at time zero and kubeadm creates the cluster's
    /// objects through the apiserver; this returns once that is done (see [`Cluster::installing`] for the
    /// same install run in pieces).
    pub fn new(config: ClusterConfig, seed: u64) -> Cluster {
        let (mut c, mut install) = Cluster::installing(config, seed);
        while !c.continue_install(&mut install, || true) {}
        c
    }

    /// The cluster's components, launched at time zero, before the install.
    fn build(config: ClusterConfig, seed: u64) -> Cluster {
        let mut c = Cluster {
            kernel: Kernel::new(seed),
            components: Vec::new(),
            rngs: Vec::new(),
            placements: Vec::new(),
            apiserver: ComponentId(0),
            etcd: Vec::new(),
            kubectl: ComponentId(0),
            kubeconfig: KubeconfigFile::default(),
            shells: BTreeMap::new(),
            systemd: ComponentId(0),
            restarts: BTreeMap::new(),
            node_fs: BTreeMap::new(),
            control_plane_fs: Rc::new(RefCell::new(NodeFs::with_etcd_running())),
            user: "kubernetes-admin".into(),
            namespace: "default".into(),
            cloud: Rc::new(RefCell::new(Cloud::with_instances(config.all_nodes().map(|n| n.name.as_str())))),
            observer: None,
            powered_off: BTreeSet::new(),
            frozen: BTreeSet::new(),
            scaled_down: BTreeMap::new(),
            remote_hosts: BTreeMap::new(),
            remote_calls: BTreeMap::new(),
            next_remote: 1,
            config,
        };
        let users: Vec<String> = c.config.users.iter().map(|u| u.name.clone()).collect();
        c.kubeconfig = KubeconfigFile::new(Kubeconfig::kubeadm(crate::kubectl::SERVER, &users));
        let cp = c.config.control_plane.name.clone();
        let members = c.config.etcd_members.max(1);
        let etcd_ids: Vec<ComponentId> =
            (0..members).map(|i| c.reserve(&format!("etcd-{i}"), "etcd", Some(&cp))).collect();
        for (i, id) in etcd_ids.iter().enumerate() {
            c.components[id.0 as usize] =
                Component::Etcd(Box::new(EtcdMember::new(i as u32, etcd_ids.clone(), i == 0)));
        }
        c.etcd = etcd_ids.clone();
        c.apiserver = c.reserve("kube-apiserver", "control-plane", Some(&cp));
        let rng = c.rngs[c.apiserver.0 as usize].fork("registry");
        c.components[c.apiserver.0 as usize] = Component::ApiServer(Box::new(
            ApiServer::new(c.apiserver, etcd_ids, c.authenticator(), rng).with_identity(&cp),
        ));
        let scheduler = c.reserve("kube-scheduler", "control-plane", Some(&cp));
        c.components[scheduler.0 as usize] = Component::Scheduler(Box::new(Scheduler::new(c.apiserver).elect_on(&cp)));
        let kcm = c.reserve("kube-controller-manager", "control-plane", Some(&cp));
        c.components[kcm.0 as usize] =
            Component::ControllerManager(Box::new(ControllerManager::new(c.apiserver).elect_on(&cp)));
        if c.config.cloud {
            let ccm = c.reserve("cloud-controller-manager", "control-plane", Some(&cp));
            let manager = ControllerManager::cloud(c.apiserver, Rc::clone(&c.cloud)).elect_on(&cp);
            c.components[ccm.0 as usize] = Component::ControllerManager(Box::new(manager));
        }
        let nodes: Vec<NodeConfig> = c.config.all_nodes().cloned().collect();
        let total = nodes.len();
        let mut kubelets = BTreeMap::new();
        let shared = node_files::SharedFiles::new(crate::kubectl::SERVER);
        for (index, node) in nodes.iter().enumerate() {
            let name = &node.name;
            let kubelet = c.reserve(&format!("{name}/kubelet"), "node", Some(name));
            let containerd = c.reserve(&format!("{name}/containerd"), "node", Some(name));
            let proxy = c.reserve(&format!("{name}/kube-proxy"), "node", Some(name));
            let control_plane = *name == cp;
            let pod_cidr = bootstrap::pod_cidr(index, total);
            let seed = node_files::NodeSeed {
                name,
                control_plane,
                pod_cidr: &pod_cidr,
                server: crate::kubectl::SERVER,
                manifests: if control_plane {
                    bootstrap::static_pod_manifests(&bootstrap::node_ip(index), c.config.cloud)
                } else {
                    Vec::new()
                },
            };
            let fs = Rc::new(RefCell::new(node_files::seed(&seed, &shared)));
            if control_plane {
                c.control_plane_fs = Rc::clone(&fs);
            }
            c.node_fs.insert(name.clone(), Rc::clone(&fs));
            let cfg = KubeletConfig {
                node: node.clone(),
                control_plane,
                node_ip: bootstrap::node_ip(index),
                pod_cidr: pod_cidr.clone(),
                fs,
                journal_lines: crate::node::journal::capacity_for(total),
            };
            let preloaded = bootstrap::preloaded_images(control_plane, c.config.cloud);
            let mut runtime = Containerd::new(kubelet, &cfg.node_ip, pod_cidr.trim_end_matches(".0/24"), &preloaded)
                .with_journal_lines(cfg.journal_lines);
            let mut programs = vec![("kube-proxy", format!("{name}/kube-proxy"))];
            programs.extend(faults::ADDONS.iter().map(|a| (a.name, a.name.to_string())));
            if control_plane {
                programs
                    .extend(bootstrap::static_pod_components(c.config.cloud).into_iter().map(|p| (p, p.to_string())));
            }
            runtime = runtime.with_processes(&programs);
            c.components[containerd.0 as usize] = Component::Containerd(Box::new(runtime));
            c.components[proxy.0 as usize] = Component::KubeProxy(Box::new(KubeProxy::new(
                c.apiserver,
                bootstrap::proxy_net(name, index, total),
                c.rngs[proxy.0 as usize].fork("netfilter"),
            )));
            if let Component::ApiServer(a) = &mut c.components[c.apiserver.0 as usize] {
                a.add_kubelet_address(&cfg.node_ip, kubelet);
                if control_plane {
                    a.add_local_server("controller-manager", 10257, kcm);
                    a.add_local_server("scheduler", 10259, scheduler);
                }
            }
            kubelets.insert(cfg.node_ip.clone(), kubelet);
            c.components[kubelet.0 as usize] = Component::Kubelet(Box::new(Kubelet::new(c.apiserver, containerd, cfg)));
        }
        let dns = c.reserve("coredns", "addon", None);
        c.components[dns.0 as usize] = Component::CoreDns(Box::new(CoreDns::new(c.apiserver)));
        if c.config.metrics_server {
            let ms = c.reserve("metrics-server", "addon", None);
            c.components[ms.0 as usize] = Component::MetricsServer(Box::new(MetricsServer::new(c.apiserver, kubelets)));
            if let Component::ApiServer(a) = &mut c.components[c.apiserver.0 as usize] {
                a.set_metrics_server(ms);
            }
        }
        c.kubectl = c.reserve("kubectl", "client", None);
        c.components[c.kubectl.0 as usize] = Component::Host(Box::new(ProcessHost::new(c.apiserver)));
        c.shell_host(&cp);
        c.systemd = c.reserve("systemd", "client", None);
        c.components[c.systemd.0 as usize] = Component::Systemd(Box::new(Systemd::new()));
        for i in 0..c.components.len() {
            c.launch(ComponentId(i as u32), 0);
        }
        c
    }

    /// `node`'s shell host, made on first use.
    fn shell_host(&mut self, node: &str) -> ComponentId {
        if let Some(id) = self.shells.get(node) {
            return *id;
        }
        let id = self.reserve(&format!("{node}/shell"), "client", Some(node));
        self.components[id.0 as usize] = Component::Host(Box::new(ProcessHost::new(self.apiserver)));
        self.shells.insert(node.to_string(), id);
        id
    }

    /// The process id a component's current run has (stable per name and start).
    fn pid_of(&self, id: ComponentId) -> u32 {
        let slot = self.kernel.slot(id);
        1_000 + (fnv1a64(format!("{}#{}", slot.name, slot.incarnation).as_bytes()) % 30_000) as u32
    }

    /// The node service a component is (`node01/kubelet` → kubelet.service).
    fn unit_of(&self, id: ComponentId) -> Option<Unit> {
        let name = self.kernel.name(id);
        let (_, part) = name.split_once('/')?;
        units::of_component(part)
    }

    /// The journal of a node service's component.
    fn journal_of(&mut self, id: ComponentId) -> Option<&mut crate::node::journal::Journal> {
        match &mut self.components[id.0 as usize] {
            Component::Kubelet(k) => Some(k.journal_mut()),
            Component::Containerd(c) => Some(c.journal_mut()),
            _ => None,
        }
    }

    /// Runs a component's start: a node service gets its process id and systemd's `Started` line first.
    fn launch(&mut self, id: ComponentId, chain: u64) {
        let pid = self.pid_of(id);
        let now = self.kernel.now();
        if let Some(unit) = self.unit_of(id) {
            if let Some(j) = self.journal_of(id) {
                j.set_pid(pid);
                unit.log_started(j, now);
            }
        }
        self.dispatch(id, chain, |c, ctx| c.on_start(ctx));
    }

    fn reserve(&mut self, name: &str, role: &'static str, node: Option<&str>) -> ComponentId {
        let (id, rng) = self.kernel.register(name);
        self.components.push(Component::Idle);
        self.rngs.push(rng);
        self.placements.push(Placement { role, node: node.map(str::to_string) });
        id
    }

    fn authenticator(&self) -> Authenticator {
        let mut a = Authenticator::default();
        for u in &self.config.users {
            a.add_token(&u.token, &u.name, &u.groups);
        }
        a.add_service_account(crate::proxy::TOKEN, "kube-system", "kube-proxy");
        a.add_service_account(crate::dns::TOKEN, "kube-system", "coredns");
        a.add_service_account(crate::metrics::server::TOKEN, "kube-system", "metrics-server");
        a
    }

    /// The credentials kubectl presents for `user` (admin: its client certificate; others: their token).
    pub fn credentials_for(&self, user: &str) -> Credentials {
        match self.config.users.iter().find(|u| u.name == user) {
            Some(u) => Credentials::Token(u.token.clone()),
            // super-admin.conf: what `kubeadm init` itself uses, before any RBAC object exists.
            None if user == SUPER_ADMIN => Credentials::ClientCert {
                common_name: SUPER_ADMIN.into(),
                organizations: vec!["system:masters".into()],
            },
            // admin.conf's certificate, as kubeadm v1.29 and later sign it.
            None => Credentials::ClientCert {
                common_name: "kubernetes-admin".into(),
                organizations: vec!["kubeadm:cluster-admins".into()],
            },
        }
    }

    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    pub fn now(&self) -> SimTime {
        self.kernel.now()
    }

    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub fn apiserver(&self) -> Option<&ApiServer> {
        match &self.components[self.apiserver.0 as usize] {
            Component::ApiServer(a) => Some(a),
            _ => None,
        }
    }

    /// The kube-scheduler process (its decisions and cache).
    pub fn scheduler(&self) -> Option<&Scheduler> {
        let id = self.kernel.id("kube-scheduler")?;
        match &self.components[id.0 as usize] {
            Component::Scheduler(s) => Some(s),
            _ => None,
        }
    }

    /// The kube-scheduler process, to configure it.
    pub fn scheduler_mut(&mut self) -> Option<&mut Scheduler> {
        let id = self.kernel.id("kube-scheduler")?;
        match &mut self.components[id.0 as usize] {
            Component::Scheduler(s) => Some(s),
            _ => None,
        }
    }

    /// The kubelet of `node`.
    pub fn kubelet(&self, node: &str) -> Option<&Kubelet> {
        match self.kernel.id(&format!("{node}/kubelet")).map(|id| &self.components[id.0 as usize]) {
            Some(Component::Kubelet(k)) => Some(k),
            _ => None,
        }
    }

    /// The containerd of `node` (what `crictl` on that node would show).
    pub fn containerd(&self, node: &str) -> Option<&Containerd> {
        match self.kernel.id(&format!("{node}/containerd")).map(|id| &self.components[id.0 as usize]) {
            Some(Component::Containerd(c)) => Some(c),
            _ => None,
        }
    }

    pub fn etcd_member(&self, index: usize) -> Option<&EtcdMember> {
        match self.etcd.get(index).map(|id| &self.components[id.0 as usize]) {
            Some(Component::Etcd(m)) => Some(m),
            _ => None,
        }
    }

    /// Runs `f` as component `id` handling something, with a context, and applies what it asked for.
    fn dispatch(&mut self, id: ComponentId, chain: u64, f: impl FnOnce(&mut Component, &mut Ctx)) {
        let mut out = Vec::new();
        let now = self.kernel.now();
        let i = id.0 as usize;
        let was_running = self.kernel.is_running(id);
        let mut ctx = Ctx { now, me: id, chain, rng: &mut self.rngs[i], out: &mut out };
        f(&mut self.components[i], &mut ctx);
        if let Some(o) = self.observer.clone() {
            o.borrow_mut().handled(self, id, was_running, &out);
        }
        for request in self.kernel.apply(id, out) {
            match request {
                // A process this one started or ended (containerd's static pod containers, systemd's restarts).
                Lifecycle::Set { name, run } => self.process_set(id, &name, run, chain),
                Lifecycle::Exit { code } => {
                    let name = self.kernel.name(id).to_string();
                    self.process_exited(&name, vec![id], code, chain);
                }
                Lifecycle::Log { text } => self.process_wrote(id, text),
                Lifecycle::Connect { id: question, ip, searches, call } => {
                    self.network_call(id, question, &ip, searches, &call, chain)
                }
            }
        }
    }

    /// Handles the next event; false when nothing is scheduled.
    pub fn step(&mut self) -> bool {
        let Some(event) = self.kernel.pop() else { return false };
        match event {
            Event::Deliver(env) => {
                if let Some(o) = self.observer.clone() {
                    o.borrow_mut().delivering(self, &env);
                }
                let (from, payload) = (env.from, env.payload);
                self.dispatch(env.to, env.chain, |c, ctx| c.on_message(ctx, from, payload));
            }
            Event::Timer { to, token, chain, .. } => self.dispatch(to, chain, |c, ctx| c.on_timer(ctx, token)),
        }
        if let Some(o) = self.observer.clone() {
            o.borrow_mut().stepped(self);
        }
        true
    }

    /// Runs every event up to `ms` milliseconds from now and moves the clock there.
    pub fn advance_ms(&mut self, ms: u64) {
        let until = self.kernel.now().plus_ms(ms);
        while self.kernel.next_time().is_some_and(|t| t <= until) {
            self.step();
        }
        self.kernel.advance_to(until);
    }

    fn spawn_on<F>(&mut self, host: ComponentId, credentials: Credentials, make: F) -> (u64, u64)
    where
        F: FnOnce(Api) -> std::pin::Pin<Box<dyn std::future::Future<Output = i32>>>,
    {
        let chain = self.kernel.new_chain();
        let mut pid = 0;
        self.dispatch(host, chain, |c, ctx| {
            if let Component::Host(h) = c {
                let (api, _) = h.api(credentials, None);
                let program = make(api.clone());
                pid = h.spawn(ctx, &api, program);
            }
        });
        (pid, chain)
    }

    fn host(&self) -> Option<&ProcessHost> {
        self.host_at(self.kubectl)
    }

    fn host_at(&self, id: ComponentId) -> Option<&ProcessHost> {
        match &self.components[id.0 as usize] {
            Component::Host(h) => Some(h),
            _ => None,
        }
    }

    pub fn process_status(&self, pid: u64) -> Option<ProcessStatus> {
        self.host().and_then(|h| h.status(pid))
    }

    /// Runs the simulation until process `pid` exits or `limit_ms` of simulated time pass.
    pub fn run_until_exit(&mut self, spawned: (u64, u64), limit_ms: u64) -> CommandResult {
        self.run_host_until_exit(self.kubectl, spawned, limit_ms)
    }

    fn run_host_until_exit(&mut self, host: ComponentId, (pid, chain): (u64, u64), limit_ms: u64) -> CommandResult {
        let deadline = self.kernel.now().plus_ms(limit_ms);
        loop {
            let status = self.host_at(host).and_then(|h| h.status(pid)).unwrap_or(ProcessStatus {
                output: String::new(),
                exit: Some(1),
                edit: None,
            });
            if status.exit.is_some() {
                return CommandResult { output: status.output, exit: status.exit, chain, edit: status.edit };
            }
            match self.kernel.next_time() {
                Some(t) if t <= deadline => {
                    self.step();
                }
                _ => {
                    self.kernel.advance_to(deadline);
                    return CommandResult { output: status.output, exit: None, chain, edit: status.edit };
                }
            }
        }
    }

    /// Runs one command line in `node`'s shell (as root, see [`crate::node::shell`]) until it exits or
    /// `limit_ms` of simulated time pass in the programs that take time (kubectl, etcdctl). Changes to the
    /// node's files wake the processes watching them.
    pub fn shell(&mut self, node: &str, line: &str, limit_ms: u64) -> CommandResult {
        if !self.config.all_nodes().any(|n| n.name == node) {
            return CommandResult { output: format!("unknown node {node:?}\n"), exit: Some(1), ..Default::default() };
        }
        let chain = self.kernel.new_chain();
        let mut access = node_shell::NodeShell::new(self, node, chain, limit_ms);
        let outcome = crate::node::shell::run_line(&mut access, line);
        let chain = access.last_chain();
        self.deliver_fs_events(node, chain);
        CommandResult { output: outcome.text(), exit: Some(outcome.exit), chain, edit: None }
    }

    /// Wakes the processes watching what changed on `node`'s filesystem (inotify).
    fn deliver_fs_events(&mut self, node: &str, chain: u64) {
        let Some(fs) = self.node_fs.get(node) else { return };
        let fired = fs.borrow_mut().take_fired();
        for (who, token) in fired {
            self.kernel.set_timer(who, 1, token, chain);
        }
    }

    /// Runs etcdctl or etcdutl (`words`) on the control-plane node's shell host.
    fn run_etcdctl(&mut self, node: &str, words: Vec<String>, limit_ms: u64) -> CommandResult {
        let inv = crate::etcdctl::Invocation {
            words,
            members: self.etcd.clone(),
            node: node.to_string(),
            fs: Rc::clone(&self.control_plane_fs),
        };
        let host = self.shell_host(node);
        let spawned = self.spawn_on(host, Credentials::Anonymous, move |api| Box::pin(crate::etcdctl::run(api, inv)));
        let result = self.run_host_until_exit(host, spawned, limit_ms);
        // A command still running at the limit (`etcdctl watch`) is interrupted, as Ctrl-C would.
        self.end_on(host, spawned.0);
        result
    }

    /// Deletes a node's instance in the cloud (a `cloud: true` cluster): the machine and all it runs stop, and
    /// cloud-controller-manager, finding the instance gone once the node is not Ready, deletes the Node.
    pub fn delete_cloud_instance(&mut self, node: &str) -> Result<(), String> {
        if !self.config.cloud {
            return Err("this cluster runs in no cloud (set spec.cluster.cloud: true)".into());
        }
        if !self.cloud.borrow_mut().delete_instance(node) {
            return Err(format!("no cloud instance runs node {node:?}"));
        }
        self.stop(node)
    }

    /// The cloud's state (instances and load balancers).
    pub fn cloud(&self) -> std::cell::Ref<'_, Cloud> {
        self.cloud.borrow()
    }

    /// `node`'s files.
    pub fn node_fs(&self, node: &str) -> Option<std::cell::Ref<'_, NodeFs>> {
        self.node_fs.get(node).map(|f| f.borrow())
    }

    /// The control-plane node's files.
    pub fn control_plane_fs(&self) -> std::cell::Ref<'_, NodeFs> {
        self.control_plane_fs.borrow()
    }

    /// Runs the simulation until every process of `spawned` exits or `limit_ms` of simulated time pass; the
    /// results are in the order of `spawned`.
    pub fn run_until_all_exit(&mut self, spawned: &[(u64, u64)], limit_ms: u64) -> Vec<CommandResult> {
        let deadline = self.kernel.now().plus_ms(limit_ms);
        // Processes are checked in order; one that exited stays exited, so each is passed once.
        let mut waiting = 0;
        while waiting < spawned.len() {
            let exited = self.host().is_none_or(|h| h.exit_code(spawned[waiting].0).is_some());
            if exited {
                waiting += 1;
                continue;
            }
            match self.kernel.next_time() {
                Some(t) if t <= deadline => {
                    self.step();
                }
                _ => {
                    self.kernel.advance_to(deadline);
                    break;
                }
            }
        }
        spawned
            .iter()
            .map(|&(pid, chain)| {
                let status = self.process_status(pid).unwrap_or(ProcessStatus {
                    output: String::new(),
                    exit: Some(1),
                    edit: None,
                });
                if status.exit.is_some() {
                    if let Component::Host(h) = &mut self.components[self.kubectl.0 as usize] {
                        h.forget(pid);
                    }
                }
                CommandResult { output: status.output, exit: status.exit, chain, edit: status.edit }
            })
            .collect()
    }

    /// Runs one kubectl command line as the current user until it exits or `limit_ms` pass. A command still
    /// running then (`kubectl get pods -w`) is interrupted as Ctrl-C would, keeping what it printed.
    pub fn kubectl(&mut self, line: &str, stdin: Option<String>, limit_ms: u64) -> CommandResult {
        let spawned = self.start_kubectl(line, stdin);
        let result = self.run_until_exit(spawned, limit_ms);
        self.end_process(spawned.0);
        result
    }

    /// Starts one kubectl command line as the current user and returns (pid, chain) without running the
    /// simulation: for commands that stream (`get -w`), read with [`Cluster::take_output`] while advancing
    /// time, and end with [`Cluster::interrupt`].
    pub fn start_kubectl(&mut self, line: &str, stdin: Option<String>) -> (u64, u64) {
        self.refresh_context();
        let inv = crate::kubectl::Invocation { line: line.to_string(), stdin, kubeconfig: self.kubeconfig.clone() };
        let spawned = self.spawn(None, move |api| Box::pin(crate::kubectl::run(api, inv)));
        self.refresh_context();
        spawned
    }

    /// What `kubectl edit` process `pid` asked to open in an editor (None for any other command or pid).
    pub fn edit_request(&self, pid: u64) -> Option<crate::client::EditRequest> {
        self.process_status(pid).and_then(|s| s.edit)
    }

    /// The output a process wrote since the last call.
    pub fn take_output(&mut self, pid: u64) -> String {
        match &mut self.components[self.kubectl.0 as usize] {
            Component::Host(h) => h.take_output(pid),
            _ => String::new(),
        }
    }

    /// Ctrl-C: ends a running process (exit 130) and forgets it.
    pub fn interrupt(&mut self, pid: u64) {
        self.end_process(pid);
    }

    fn end_process(&mut self, pid: u64) {
        self.end_on(self.kubectl, pid);
        self.refresh_context();
    }

    /// Ends process `pid` of host `host` (Ctrl-C): its watches are closed at the apiserver.
    fn end_on(&mut self, host: ComponentId, pid: u64) {
        self.dispatch(host, 0, |c, ctx| {
            if let Component::Host(h) = c {
                h.end(ctx, pid);
            }
        });
    }

    /// Re-reads the current context's user and namespace from the kubeconfig file.
    fn refresh_context(&mut self) {
        let k = self.kubeconfig.read();
        self.user = k.user();
        self.namespace = k.namespace();
    }

    /// The kubeconfig file kubectl reads (a copy of its current content).
    pub fn kubeconfig(&self) -> Kubeconfig {
        self.kubeconfig.read()
    }

    /// The user kubectl acts as: the current context's.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// Acts as `user` from now on: switches the kubeconfig to that user's context (`<user>@kubernetes`).
    pub fn set_user(&mut self, user: &str) -> Result<(), String> {
        let mut k = self.kubeconfig.read();
        let name = context_name(user);
        if !k.contexts.contains_key(&name) {
            return Err(format!("unknown user {user:?}"));
        }
        k.current_context = name;
        self.kubeconfig.write(k);
        self.refresh_context();
        Ok(())
    }

    /// The namespace kubectl commands default to: the current context's.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Sets the current context's namespace (`kubectl config set-context --current --namespace=NS`).
    pub fn set_namespace(&mut self, ns: &str) {
        let mut k = self.kubeconfig.read();
        let current = k.current_context.clone();
        if let Some(c) = k.contexts.get_mut(&current) {
            c.namespace = Some(ns.to_string());
        }
        self.kubeconfig.write(k);
        self.refresh_context();
    }

    /// What the UI draws now.
    pub fn view(&self) -> View {
        let components = self
            .kernel
            .slots()
            .zip(&self.placements)
            .map(|((_, slot), p)| ComponentView {
                name: slot.name.clone(),
                role: p.role.to_string(),
                node: p.node.clone(),
                running: slot.running,
            })
            .collect();
        let in_flight = self
            .kernel
            .in_flight()
            .into_iter()
            // A network program's answer travels inside its machine: no arrow between components.
            .filter(|e| e.from != e.to)
            .map(|e| MessageView {
                id: e.id,
                from: self.kernel.name(e.from).to_string(),
                to: self.kernel.name(e.to).to_string(),
                label: e.payload.label(),
                class: message_class(&e.payload).to_string(),
                sent_ms: e.sent.ms(),
                deliver_ms: e.deliver.ms(),
                chain: e.chain,
                object: e.payload.object_ref(),
            })
            .collect();
        let recent = crate::view::recent::recent_deliveries(&self.kernel, crate::view::recent::RECENT_IN_VIEW);
        let powered_off = self.powered_off.iter().cloned().collect();
        let mut view =
            View { time_ms: self.kernel.now().ms(), components, in_flight, recent, powered_off, ..View::default() };
        if let Some(a) = self.apiserver() {
            crate::view::fill_workloads(&mut view, a.cache());
        }
        for (i, id) in self.etcd.iter().enumerate() {
            if let Some(m) = self.etcd_member(i) {
                let st = m.status();
                view.etcd.push(crate::view::EtcdMemberView {
                    name: st.name,
                    role: st.role.as_str().to_string(),
                    term: st.term,
                    revision: st.revision,
                    keys: st.db_keys,
                    running: self.kernel.is_running(*id),
                });
            }
        }
        view
    }
}

fn message_class(p: &Payload) -> &'static str {
    match p {
        Payload::ApiRequest { .. } => "request",
        Payload::ApiResponse { .. } => "response",
        Payload::WatchEvent { .. }
        | Payload::WatchClosed { .. }
        | Payload::WatchEnded { .. }
        | Payload::LogChunk { .. } => "watch",
        Payload::Etcd(_) => "etcd",
        Payload::Cri(_) => "cri",
        Payload::Kubelet(_) => "kubelet",
        Payload::Healthz { .. } => "request",
        Payload::HealthzReply { .. } => "response",
        Payload::ConnectionRefused { .. } | Payload::Disconnected { .. } | Payload::NetAnswer { .. } => "network",
    }
}
