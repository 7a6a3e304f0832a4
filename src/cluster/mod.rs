//! The cluster: builds the kernel and every component of a cluster, dispatches each delivery and timer to
//! its receiver, runs the clock, and answers the UI and the CLI (views, stop and start, kubectl).

mod bootstrap;
mod config;

use crate::api::Credentials;
use crate::apiserver::authn::Authenticator;
use crate::apiserver::ApiServer;
use crate::client::process::ProcessStatus;
use crate::client::{Api, ProcessHost};
use crate::controllers::ControllerManager;
use crate::etcd::member::EtcdMember;
use crate::node::{Containerd, Kubelet, KubeletConfig};
use crate::scheduler::Scheduler;
use crate::sim::{ComponentId, Ctx, Event, Kernel, Payload, Rng, SimTime};
use crate::view::{ComponentView, MessageView, View};

pub use config::{ClusterConfig, NodeConfig, UserConfig};

/// One process of the simulated cluster.
pub enum Component {
    Etcd(Box<EtcdMember>),
    ApiServer(Box<ApiServer>),
    Scheduler(Box<Scheduler>),
    ControllerManager(Box<ControllerManager>),
    Kubelet(Box<Kubelet>),
    Containerd(Box<Containerd>),
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
            Component::Scheduler(s) => s.on_message(ctx, payload),
            Component::ControllerManager(m) => m.on_message(ctx, payload),
            Component::Kubelet(k) => k.on_message(ctx, from, payload),
            Component::Containerd(c) => c.on_message(ctx, from, payload),
            Component::Host(h) => h.on_message(ctx, payload),
            Component::Idle => {}
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
            Component::Host(h) => h.on_timer(ctx, token),
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
            Component::Host(_) | Component::Idle => {}
        }
    }
}

/// Where a component sits on the diagram.
#[derive(Debug, Clone)]
struct Placement {
    role: &'static str,
    node: Option<String>,
}

/// The output and exit code of a finished command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResult {
    pub output: String,
    /// None when the command was still running at its time limit.
    pub exit: Option<i32>,
    /// The chain of messages the command started (its numbered data-flow steps).
    pub chain: u64,
}

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
    /// The user kubectl acts as (`as:` steps, `--as` aside).
    user: String,
    /// kubectl's current namespace (`config set-context --current --namespace`).
    namespace: String,
}

impl Cluster {
    /// The default cluster (controlplane, node01, node02; one etcd member) with this seed.
    pub fn new_default(seed: u64) -> Cluster {
        Cluster::new(ClusterConfig::default(), seed)
    }

    /// Builds and installs a cluster: components start at time zero and kubeadm creates the cluster's
    /// objects through the apiserver; this returns once that is done.
    pub fn new(config: ClusterConfig, seed: u64) -> Cluster {
        let mut c = Cluster {
            kernel: Kernel::new(seed),
            components: Vec::new(),
            rngs: Vec::new(),
            placements: Vec::new(),
            apiserver: ComponentId(0),
            etcd: Vec::new(),
            kubectl: ComponentId(0),
            user: "kubernetes-admin".into(),
            namespace: "default".into(),
            config,
        };
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
        c.components[c.apiserver.0 as usize] =
            Component::ApiServer(Box::new(ApiServer::new(c.apiserver, etcd_ids, c.authenticator(), rng)));
        let scheduler = c.reserve("kube-scheduler", "control-plane", Some(&cp));
        c.components[scheduler.0 as usize] = Component::Scheduler(Box::new(Scheduler::new(c.apiserver)));
        let kcm = c.reserve("kube-controller-manager", "control-plane", Some(&cp));
        c.components[kcm.0 as usize] = Component::ControllerManager(Box::new(ControllerManager::new(c.apiserver)));
        if c.config.cloud {
            c.reserve("cloud-controller-manager", "control-plane", Some(&cp));
        }
        let nodes: Vec<NodeConfig> = c.config.all_nodes().cloned().collect();
        for (index, node) in nodes.iter().enumerate() {
            let name = &node.name;
            let kubelet = c.reserve(&format!("{name}/kubelet"), "node", Some(name));
            let containerd = c.reserve(&format!("{name}/containerd"), "node", Some(name));
            c.reserve(&format!("{name}/kube-proxy"), "node", Some(name));
            let control_plane = *name == cp;
            let cfg = KubeletConfig {
                node: node.clone(),
                control_plane,
                node_ip: format!("192.168.56.{}", 10 + index),
                pod_cidr: format!("10.244.{index}.0/24"),
                static_pods: if control_plane { bootstrap::static_pods(&cfg_node_ip(index)) } else { Vec::new() },
            };
            let preloaded = bootstrap::preloaded_images(control_plane);
            c.components[containerd.0 as usize] = Component::Containerd(Box::new(Containerd::new(
                kubelet,
                &cfg.node_ip,
                &format!("10.244.{index}"),
                &preloaded,
            )));
            c.components[kubelet.0 as usize] = Component::Kubelet(Box::new(Kubelet::new(c.apiserver, containerd, cfg)));
        }
        c.kubectl = c.reserve("kubectl", "client", None);
        c.components[c.kubectl.0 as usize] = Component::Host(Box::new(ProcessHost::new(c.apiserver)));
        for i in 0..c.components.len() {
            c.dispatch(ComponentId(i as u32), 0, |comp, ctx| comp.on_start(ctx));
        }
        bootstrap::install(&mut c);
        c
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
        a.add_service_account("kube-proxy-token", "kube-system", "kube-proxy");
        a
    }

    /// The credentials kubectl presents for `user` (admin: its client certificate; others: their token).
    pub fn credentials_for(&self, user: &str) -> Credentials {
        match self.config.users.iter().find(|u| u.name == user) {
            Some(u) => Credentials::Token(u.token.clone()),
            None => Credentials::ClientCert {
                common_name: "kubernetes-admin".into(),
                organizations: vec!["system:masters".into()],
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
        let mut ctx = Ctx { now, me: id, chain, rng: &mut self.rngs[i], out: &mut out };
        f(&mut self.components[i], &mut ctx);
        self.kernel.apply(id, out);
    }

    /// Handles the next event; false when nothing is scheduled.
    pub fn step(&mut self) -> bool {
        let Some(event) = self.kernel.pop() else { return false };
        match event {
            Event::Deliver(env) => {
                let (from, payload) = (env.from, env.payload);
                self.dispatch(env.to, env.chain, |c, ctx| c.on_message(ctx, from, payload));
            }
            Event::Timer { to, token, chain, .. } => self.dispatch(to, chain, |c, ctx| c.on_timer(ctx, token)),
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

    /// Stops a component by its scenario name (`etcd` stops every member).
    pub fn stop(&mut self, name: &str) -> Result<(), String> {
        for id in self.resolve(name)? {
            self.kernel.stop(id);
        }
        Ok(())
    }

    /// Starts a stopped component as a fresh process.
    pub fn start(&mut self, name: &str) -> Result<(), String> {
        for id in self.resolve(name)? {
            if self.kernel.start(id) {
                let chain = self.kernel.new_chain();
                self.dispatch(id, chain, |c, ctx| c.on_start(ctx));
            }
        }
        Ok(())
    }

    /// Stops a running component or starts a stopped one; Ok(true) when it runs afterwards.
    pub fn toggle(&mut self, name: &str) -> Result<bool, String> {
        let ids = self.resolve(name)?;
        if ids.iter().all(|id| self.kernel.is_running(*id)) {
            self.stop(name)?;
            Ok(false)
        } else {
            self.start(name)?;
            Ok(true)
        }
    }

    fn resolve(&self, name: &str) -> Result<Vec<ComponentId>, String> {
        if name == "etcd" {
            return Ok(self.etcd.clone());
        }
        if let Some(id) = self.kernel.id(name).filter(|id| *id != self.kubectl) {
            return Ok(vec![id]);
        }
        if self.config.all_nodes().any(|n| n.name == name) {
            return Ok(["kubelet", "containerd", "kube-proxy"]
                .iter()
                .filter_map(|p| self.kernel.id(&format!("{name}/{p}")))
                .collect());
        }
        Err(format!("unknown component {name:?}"))
    }

    /// Starts a client program on the kubectl host as `user`; returns its pid.
    pub fn spawn<F>(&mut self, user: Option<&str>, make: F) -> (u64, u64)
    where
        F: FnOnce(Api) -> std::pin::Pin<Box<dyn std::future::Future<Output = i32>>>,
    {
        let credentials = self.credentials_for(user.unwrap_or(&self.user.clone()));
        let id = self.kubectl;
        let chain = self.kernel.new_chain();
        let mut pid = 0;
        self.dispatch(id, chain, |c, ctx| {
            if let Component::Host(h) = c {
                let (api, _) = h.api(credentials, None);
                let program = make(api.clone());
                pid = h.spawn(ctx, &api, program);
            }
        });
        (pid, chain)
    }

    fn host(&self) -> Option<&ProcessHost> {
        match &self.components[self.kubectl.0 as usize] {
            Component::Host(h) => Some(h),
            _ => None,
        }
    }

    pub fn process_status(&self, pid: u64) -> Option<ProcessStatus> {
        self.host().and_then(|h| h.status(pid))
    }

    /// Runs the simulation until process `pid` exits or `limit_ms` of simulated time pass.
    pub fn run_until_exit(&mut self, (pid, chain): (u64, u64), limit_ms: u64) -> CommandResult {
        let deadline = self.kernel.now().plus_ms(limit_ms);
        loop {
            let status = self.process_status(pid).unwrap_or(ProcessStatus { output: String::new(), exit: Some(1) });
            if status.exit.is_some() {
                return CommandResult { output: status.output, exit: status.exit, chain };
            }
            match self.kernel.next_time() {
                Some(t) if t <= deadline => {
                    self.step();
                }
                _ => {
                    self.kernel.advance_to(deadline);
                    return CommandResult { output: status.output, exit: None, chain };
                }
            }
        }
    }

    /// Runs one kubectl command line as the current user until it exits or `limit_ms` pass.
    pub fn kubectl(&mut self, line: &str, stdin: Option<String>, limit_ms: u64) -> CommandResult {
        let inv = crate::kubectl::Invocation { line: line.to_string(), namespace: self.namespace.clone(), stdin };
        let spawned = self.spawn(None, move |api| Box::pin(crate::kubectl::run(api, inv)));
        let result = self.run_until_exit(spawned, limit_ms);
        let pid = spawned.0;
        if let Component::Host(h) = &mut self.components[self.kubectl.0 as usize] {
            if result.exit.is_some() {
                h.forget(pid);
            }
        }
        result
    }

    pub fn user(&self) -> &str {
        &self.user
    }

    pub fn set_user(&mut self, user: &str) -> Result<(), String> {
        if user == "kubernetes-admin" || self.config.users.iter().any(|u| u.name == user) {
            self.user = user.to_string();
            Ok(())
        } else {
            Err(format!("unknown user {user:?}"))
        }
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn set_namespace(&mut self, ns: &str) {
        self.namespace = ns.to_string();
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
            .map(|e| MessageView {
                id: e.id,
                from: self.kernel.name(e.from).to_string(),
                to: self.kernel.name(e.to).to_string(),
                label: e.payload.label(),
                class: message_class(&e.payload).to_string(),
                sent_ms: e.sent.ms(),
                deliver_ms: e.deliver.ms(),
                chain: e.chain,
            })
            .collect();
        let mut view = View { time_ms: self.kernel.now().ms(), components, in_flight, ..View::default() };
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

fn cfg_node_ip(index: usize) -> String {
    format!("192.168.56.{}", 10 + index)
}

fn message_class(p: &Payload) -> &'static str {
    match p {
        Payload::ApiRequest { .. } => "request",
        Payload::ApiResponse { .. } => "response",
        Payload::WatchEvent { .. } => "watch",
        Payload::Etcd(_) => "etcd",
        Payload::Cri(_) => "cri",
        Payload::ConnectionRefused { .. } | Payload::Disconnected { .. } => "network",
    }
}
