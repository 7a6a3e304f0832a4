//! Faults as an operator or the machine causes them: stop, start and crash of every component, and power off
//! and on of a machine, each done by the real mechanism, so that every view agrees. A control-plane
//! component's static pod manifest moves out of and back into `/etc/kubernetes/manifests`; a node service is
//! `systemctl stop`/`start`; a node's kube-proxy (its DaemonSet pod's process) is frozen with `kill -STOP` and
//! let go on with `kill -CONT`; an add-on (CoreDNS, metrics-server) is scaled to zero and back through the
//! apiserver; a crash is the process exiting, and whoever supervises it (the kubelet through containerd, or
//! systemd) restarts it. It also maps the processes containers run to their components
//! ([`crate::sim::Command::Lifecycle`] from containerd).

use super::*;

/// An add-on that runs as a Deployment in kube-system, its containers running the simulated component of
/// the same name: stopping it scales the Deployment to zero, as an operator would.
pub struct Addon {
    pub name: &'static str,
    /// The replicas the install gives it (what `start` scales back to when `stop` did not scale it down).
    pub replicas: u32,
}

pub(super) const ADDONS: [Addon; 2] =
    [Addon { name: "coredns", replicas: 2 }, Addon { name: "metrics-server", replicas: 1 }];

/// How long `stop` and `start` of an add-on wait for its pods to end or to start running.
const ADDON_SETTLE_MS: u64 = 60_000;
/// How long the admin's kubectl that scales an add-on may take (a request waiting for etcd gets its 504
/// after 60 s).
const ADMIN_COMMAND_LIMIT_MS: u64 = 120_000;

/// Whether a scenario name is a node's kube-proxy (`node01/kube-proxy`).
fn is_kube_proxy(name: &str) -> bool {
    name.split_once('/').is_some_and(|(_, p)| p == "kube-proxy")
}

impl Cluster {
    /// containerd started (`run`) or ended a container whose program is the component `name`.
    pub(super) fn process_set(&mut self, runtime: ComponentId, name: &str, run: bool, chain: u64) {
        let Ok(ids) = self.resolve(name) else { return };
        // A container started a new process, or the frozen one ended with its container.
        for id in &ids {
            self.frozen.remove(id);
        }
        if run && is_kube_proxy(name) && self.replaced_in_new_container(runtime, name) {
            // The DaemonSet's new pod started while the old one was terminating: the node's kube-proxy is
            // now the new container's process.
            self.stop_ids(&ids);
            self.start_ids(&ids, chain);
        } else if run {
            self.start_ids(&ids, chain);
        } else if self.runtimes_running(name).is_empty() {
            // An add-on's process runs on while another of its replicas' containers does.
            self.stop_ids(&ids);
        }
    }

    /// Stops a component by its scenario name (`etcd` stops every member); it stays down until started.
    /// A control-plane component is stopped as an operator stops it on a kubeadm node: its static pod
    /// manifest is moved out of `/etc/kubernetes/manifests` (to `/etc/kubernetes/`), the kubelet kills its
    /// container and deletes its mirror pod; this returns once the process has ended (or at once when the
    /// control-plane node's kubelet or containerd is not running, which leaves the container as it is).
    /// A node's kube-proxy (its DaemonSet pod's process) is frozen with `kill -STOP` in its running
    /// container; an add-on (CoreDNS, metrics-server) is scaled to zero replicas through the apiserver,
    /// returning once its pods have ended. A node service is `systemctl stop`; a node's name powers the
    /// machine off ([`Cluster::power_off`]).
    pub fn stop(&mut self, name: &str) -> Result<(), String> {
        if self.is_node(name) {
            return self.power_off(name);
        }
        let ids = self.resolve(name)?;
        self.refuse_on_powered_off(&ids)?;
        if let Some(process) = self.static_pod_process(name) {
            self.move_manifest(process, false);
            self.settle(&ids, false);
            return Ok(());
        }
        if is_kube_proxy(name) {
            // `kill -STOP`: the process is frozen in its running container.
            let running: Vec<ComponentId> = ids.into_iter().filter(|id| self.kernel.is_running(*id)).collect();
            for id in running {
                self.kernel.stop(id);
                self.frozen.insert(id);
            }
            return Ok(());
        }
        if let Some(addon) = ADDONS.iter().find(|a| a.name == name) {
            return self.scale_addon(addon, None, &ids);
        }
        self.cancel_restarts(&ids);
        self.stop_ids(&ids);
        Ok(())
    }

    /// `kubectl -n kube-system scale deployment NAME --replicas=N` as the cluster's admin, remembering the
    /// replicas it had (`to: None`: scale to zero); then runs the simulation until the add-on's process has
    /// ended or runs (for as long as its pods take to end or to start).
    fn scale_addon(&mut self, addon: &Addon, to: Option<u32>, ids: &[ComponentId]) -> Result<(), String> {
        let admin = "kubernetes-admin";
        let deployment = format!("-n kube-system deployment {}", addon.name);
        match to {
            None => {
                let get = format!("get {deployment} -o jsonpath={{.spec.replicas}}");
                let had = self.run_as(admin, &get)?.trim().parse().unwrap_or(addon.replicas);
                if had == 0 {
                    return Ok(());
                }
                self.run_as(admin, &format!("scale {deployment} --replicas=0"))?;
                // Remembered only once the scale took effect: a refused one leaves the add-on started.
                self.scaled_down.insert(addon.name.to_string(), had);
            }
            Some(replicas) => {
                self.run_as(admin, &format!("scale {deployment} --replicas={replicas}"))?;
                self.scaled_down.remove(addon.name);
            }
        }
        self.run_until_all(ids, to.is_some_and(|r| r > 0), ADDON_SETTLE_MS);
        Ok(())
    }

    /// Runs one kubectl line as `user` until it exits: its output, or its output as the error when it fails.
    fn run_as(&mut self, user: &str, line: &str) -> Result<String, String> {
        let inv =
            crate::kubectl::Invocation { line: line.to_string(), stdin: None, kubeconfig: self.kubeconfig.clone() };
        let spawned = self.spawn(Some(user), move |api| Box::pin(crate::kubectl::run(api, inv)));
        let result = self.run_until_exit(spawned, ADMIN_COMMAND_LIMIT_MS);
        self.end_process(spawned.0);
        match result.exit {
            Some(0) => Ok(result.output),
            _ => Err(result.output.trim_end().to_string()),
        }
    }

    /// Moves a control-plane component's static pod manifest out of the kubelet's static pod path
    /// (`run: false`) or back into it, as `mv` in the node's shell would, and wakes the kubelet.
    fn move_manifest(&mut self, process: &str, run: bool) {
        let cp = self.config.control_plane.name.clone();
        let Some(fs) = self.node_fs.get(&cp).cloned() else { return };
        let active = format!("{MANIFESTS_DIR}/{process}.yaml");
        let parked = format!("{PARKED_MANIFESTS_DIR}/{process}.yaml");
        let (from, to) = if run { (parked, active) } else { (active, parked) };
        let moved = {
            let mut fs = fs.borrow_mut();
            fs.exists(&from) && !fs.exists(&to) && fs.rename(&from, &to, self.kernel.now()).is_ok()
        };
        if moved {
            let chain = self.kernel.new_chain();
            self.deliver_fs_events(&cp, chain);
        }
    }

    /// Runs the simulation until every one of `ids` runs (`run`) or none does, for as long as the
    /// control-plane node's kubelet takes to start or kill a static pod's container: not at all when its
    /// kubelet or containerd is down (nothing on the node acts on the manifest then).
    fn settle(&mut self, ids: &[ComponentId], run: bool) {
        let cp = self.config.control_plane.name.clone();
        let node_up = ["kubelet", "containerd"]
            .iter()
            .all(|p| self.kernel.id(&format!("{cp}/{p}")).is_some_and(|id| self.kernel.is_running(id)));
        if !node_up {
            return;
        }
        self.run_until_all(ids, run, STATIC_POD_SETTLE_MS);
    }

    /// Runs the simulation until every one of `ids` runs (`run`) or none does, for at most `limit_ms`.
    fn run_until_all(&mut self, ids: &[ComponentId], run: bool, limit_ms: u64) {
        let deadline = self.kernel.now().plus_ms(limit_ms);
        while ids.iter().any(|id| self.kernel.is_running(*id) != run) {
            match self.kernel.next_time() {
                Some(t) if t <= deadline => {
                    self.step();
                }
                _ => break,
            }
        }
    }

    pub(super) fn stop_ids(&mut self, ids: &[ComponentId]) {
        let now = self.kernel.now();
        for &id in ids {
            if !self.kernel.is_running(id) {
                continue;
            }
            self.kernel.stop(id);
            if let Some(unit) = self.unit_of(id) {
                if let Some(j) = self.journal_of(id) {
                    unit.log_stopped(j, now);
                }
            }
        }
        self.sync_etcd_running();
    }

    /// systemd forgets its pending restarts of these node services (they were stopped or started by hand).
    pub(super) fn cancel_restarts(&mut self, ids: &[ComponentId]) {
        let names: Vec<String> = ids.iter().map(|id| self.kernel.name(*id).to_string()).collect();
        if let Component::Systemd(s) = &mut self.components[self.systemd.0 as usize] {
            for n in &names {
                s.cancel(n);
            }
        }
    }

    /// Kills a component by its scenario name. A control-plane component, a node's kube-proxy and an add-on
    /// run in containers: each container running it ends (exit 137) and the kubelet restarts it with its
    /// CrashLoopBackOff back-off (the pod's restart count goes up). A node service (kubelet, containerd) is
    /// restarted by systemd after its unit's `RestartSec`. Anything else starts again at once.
    pub fn crash(&mut self, name: &str) -> Result<(), String> {
        let ids = self.resolve(name)?;
        self.refuse_on_powered_off(&ids)?;
        let chain = self.kernel.new_chain();
        self.process_exited(name, ids, CRASH_EXIT_CODE, chain);
        Ok(())
    }

    /// Processes `ids` (named `name` in scenarios) end with exit status `code`, and whatever supervises them
    /// takes over: containerd and the kubelet for a static pod's container, systemd for a node service; any
    /// other process starts again at once.
    pub(super) fn process_exited(&mut self, name: &str, ids: Vec<ComponentId>, code: i32, chain: u64) {
        if let Some(process) = self.contained_process(name) {
            let runtimes = self.runtimes_running(&process);
            if !runtimes.is_empty() {
                self.stop_ids(&ids);
                for runtime in runtimes {
                    let alive = self.kernel.is_running(runtime);
                    // Every container of the process ends (an add-on's replicas each run it).
                    self.dispatch(runtime, chain, |c, ctx| {
                        if let Component::Containerd(c) = c {
                            while c.process_died(ctx, &process, code, alive) {}
                        }
                    });
                }
                return;
            }
        }
        let now = self.kernel.now();
        for id in ids {
            if !self.kernel.is_running(id) {
                continue;
            }
            match self.unit_of(id) {
                Some(unit) => {
                    self.kernel.stop(id);
                    let restarts = self.restarts.entry(id).or_insert(0);
                    *restarts += 1;
                    let n = *restarts;
                    if let Some(j) = self.journal_of(id) {
                        unit.log_killed(j, now, n);
                    }
                    let component = self.kernel.name(id).to_string();
                    let systemd = self.systemd;
                    self.dispatch(systemd, chain, |c, ctx| {
                        if let Component::Systemd(s) = c {
                            s.schedule_restart(ctx, &component, unit.restart_sec * 1_000);
                        }
                    });
                }
                None => {
                    self.stop_ids(&[id]);
                    self.start_ids(&[id], chain);
                }
            }
        }
        self.sync_etcd_running();
    }

    /// The static pod process a scenario name is, when its container can stand for it alone.
    fn static_pod_process(&self, name: &str) -> Option<&'static str> {
        match name {
            "kube-apiserver" => Some("kube-apiserver"),
            "kube-controller-manager" => Some("kube-controller-manager"),
            "kube-scheduler" => Some("kube-scheduler"),
            "cloud-controller-manager" if self.config.cloud => Some("cloud-controller-manager"),
            // One etcd container runs every member kubeglass places on the control-plane node.
            "etcd" => Some("etcd"),
            "etcd-0" if self.etcd.len() == 1 => Some("etcd"),
            _ => None,
        }
    }

    /// The process containerd knows component `name` by, when containers run it: a static pod's, a node's
    /// kube-proxy (its DaemonSet pod's container), an add-on's (its Deployment's containers).
    fn contained_process(&self, name: &str) -> Option<String> {
        if let Some(p) = self.static_pod_process(name) {
            return Some(p.to_string());
        }
        let addon = ADDONS.iter().any(|a| a.name == name);
        (is_kube_proxy(name) || addon).then(|| name.to_string())
    }

    /// The runtimes (`<node>/containerd`) with a running container that runs `process`: on its node for a
    /// process placed on one, on any node for an add-on.
    fn runtimes_running(&self, process: &str) -> Vec<ComponentId> {
        // `etcd` (the container of every member) has no component of that name: it is looked for everywhere.
        let node = self.kernel.id(process).and_then(|id| self.placements[id.0 as usize].node.clone());
        // Containers on a machine that is off run nothing (containerd learns it when the machine boots).
        let runs = |n: &str| {
            let id = self.kernel.id(&format!("{n}/containerd")).filter(|_| !self.powered_off.contains(n))?;
            matches!(&self.components[id.0 as usize], Component::Containerd(c) if c.runs_process(process)).then_some(id)
        };
        match node {
            Some(n) => runs(&n).into_iter().collect(),
            None => self.config.all_nodes().filter_map(|n| runs(&n.name)).collect(),
        }
    }

    /// Whether `runtime` now runs `process` in more than one container (a new one started beside the old).
    fn replaced_in_new_container(&self, runtime: ComponentId, process: &str) -> bool {
        matches!(&self.components[runtime.0 as usize], Component::Containerd(c) if c.containers_running(process) > 1)
    }

    /// Tells the control-plane node's filesystem whether etcd runs from its data directory.
    pub(super) fn sync_etcd_running(&mut self) {
        let running = self.etcd.iter().any(|id| self.kernel.is_running(*id));
        self.control_plane_fs.borrow_mut().etcd_running = running;
    }

    /// An etcd member starting reads its data directory: a restore done while etcd was stopped replaces
    /// every member's data (they all live on the control-plane node).
    fn load_restored_etcd_data(&mut self) {
        let Some(store) = self.control_plane_fs.borrow_mut().take_restored_etcd() else { return };
        for id in self.etcd.clone() {
            if let Component::Etcd(m) = &mut self.components[id.0 as usize] {
                m.restore_data(store.clone());
            }
        }
    }

    /// Starts a stopped component as a fresh process. A control-plane component's manifest goes back into
    /// `/etc/kubernetes/manifests` and the kubelet starts its container (one the kubelet is restarting
    /// after a crash is left to the kubelet's back-off, as on a real node). A frozen kube-proxy gets
    /// `kill -CONT` (one whose container is not running is the kubelet's to start: an error); an add-on
    /// scaled down by `stop` is scaled back to the replicas it had. A node's name powers the machine on
    /// ([`Cluster::power_on`]).
    pub fn start(&mut self, name: &str) -> Result<(), String> {
        if self.is_node(name) {
            return self.power_on(name);
        }
        let ids = self.resolve(name)?;
        self.refuse_on_powered_off(&ids)?;
        if let Some(process) = self.static_pod_process(name) {
            self.move_manifest(process, true);
            self.settle(&ids, true);
            return Ok(());
        }
        if is_kube_proxy(name) {
            return self.thaw(name, &ids);
        }
        if let Some(addon) = ADDONS.iter().find(|a| a.name == name) {
            if ids.iter().all(|id| self.kernel.is_running(*id)) && !self.scaled_down.contains_key(name) {
                return Ok(());
            }
            let replicas = self.scaled_down.get(name).copied().unwrap_or(addon.replicas);
            return self.scale_addon(addon, Some(replicas), &ids);
        }
        self.cancel_restarts(&ids);
        for id in ids {
            let chain = self.kernel.new_chain();
            self.start_ids(&[id], chain);
        }
        Ok(())
    }

    /// `kill -CONT` of a frozen kube-proxy. One that is not running because its container is not (its pod
    /// is gone, or the kubelet is restarting the container) cannot be started by hand: the kubelet starts
    /// it with its container.
    fn thaw(&mut self, name: &str, ids: &[ComponentId]) -> Result<(), String> {
        for &id in ids {
            if self.frozen.remove(&id) {
                let chain = self.kernel.new_chain();
                self.start_ids(&[id], chain);
            } else if !self.kernel.is_running(id) {
                let node = name.split_once('/').map_or(name, |(n, _)| n);
                return Err(format!(
                    "{name} is not running: its container (the kube-proxy DaemonSet's pod on {node}) is not \
                     running, and the kubelet starts it with the container"
                ));
            }
        }
        Ok(())
    }

    pub(super) fn start_ids(&mut self, ids: &[ComponentId], chain: u64) {
        for &id in ids {
            if self.etcd.contains(&id) && !self.kernel.is_running(id) {
                self.load_restored_etcd_data();
            }
            if self.kernel.start(id) {
                self.launch(id, chain);
            }
        }
        self.sync_etcd_running();
    }

    /// Whether `name` is started as a person sees it: a control-plane component while its manifest is in the
    /// static pod path (even between a crash and the kubelet's restart, or while the kubelet cannot yet kill
    /// the container of one moved out), anything else while all its processes run.
    pub fn is_started(&self, name: &str) -> Result<bool, String> {
        let ids = self.resolve(name)?;
        Ok(match self.static_pod_process(name) {
            Some(process) => self.control_plane_fs.borrow().exists(&format!("{MANIFESTS_DIR}/{process}.yaml")),
            None if is_kube_proxy(name) => ids.iter().all(|id| !self.frozen.contains(id)),
            None if ADDONS.iter().any(|a| a.name == name) => {
                !self.scaled_down.contains_key(name) && ids.iter().all(|id| self.kernel.is_running(*id))
            }
            None => ids.iter().all(|id| self.kernel.is_running(*id)),
        })
    }

    /// Stops a running component or starts a stopped one; Ok(true) when it runs afterwards.
    pub fn toggle(&mut self, name: &str) -> Result<bool, String> {
        if self.is_started(name)? {
            self.stop(name)?;
            Ok(false)
        } else {
            self.start(name)?;
            Ok(true)
        }
    }

    pub(super) fn resolve(&self, name: &str) -> Result<Vec<ComponentId>, String> {
        if name == "etcd" {
            return Ok(self.etcd.clone());
        }
        // Client hosts and systemd are not components a person stops.
        if let Some(id) = self.kernel.id(name).filter(|id| self.placements[id.0 as usize].role != "client") {
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

    /// Process `id` wrote a line to its standard error: the container that runs it on its machine logs it.
    pub(super) fn process_wrote(&mut self, id: ComponentId, text: String) {
        let process = self.kernel.name(id).to_string();
        let Some(node) = self.placements[id.0 as usize].node.clone() else { return };
        let now = self.kernel.now();
        if let Some(rt) = self.kernel.id(&format!("{node}/containerd")) {
            if let Component::Containerd(c) = &mut self.components[rt.0 as usize] {
                c.process_wrote(&process, text, now);
            }
        }
    }

    /// Whether machine `node` is powered off.
    pub fn is_powered_off(&self, node: &str) -> bool {
        self.powered_off.contains(node)
    }

    /// Nothing runs on a machine that is off: a process on it can be neither started, stopped nor crashed.
    fn refuse_on_powered_off(&self, ids: &[ComponentId]) -> Result<(), String> {
        let off = ids
            .iter()
            .find_map(|id| self.placements[id.0 as usize].node.as_deref().filter(|n| self.powered_off.contains(*n)));
        match off {
            Some(node) => Err(format!("{node} is powered off: power it on first (start {node})")),
            None => Ok(()),
        }
    }

    fn is_node(&self, name: &str) -> bool {
        self.config.all_nodes().any(|n| n.name == name)
    }

    /// Powers `node` off: its services (kubelet, containerd, kube-proxy) and every process its containers run
    /// (a control-plane node's static pods) end with the machine; systemd restarts nothing.
    pub fn power_off(&mut self, node: &str) -> Result<(), String> {
        let mut ids = self.resolve(node)?;
        self.powered_off.insert(node.to_string());
        let processes = self.containerd(node).map(|c| c.running_processes()).unwrap_or_default();
        for p in processes {
            // An add-on runs on while a replica on another machine does.
            if self.runtimes_running(&p).is_empty() {
                ids.extend(self.resolve(&p).unwrap_or_default());
            }
        }
        for id in &ids {
            self.frozen.remove(id);
        }
        self.cancel_restarts(&ids);
        self.stop_ids(&ids);
        Ok(())
    }

    /// Powers `node` on after a power-off: the machine reboots. containerd finds its containers exited (their
    /// tasks died with the machine, see [`Containerd::reboot`]) and its sandboxes not ready, `/run` and
    /// `/tmp` are empty, the node's other files are as they were; then its services start and the kubelet
    /// starts its pods again in new sandboxes. On a node that is not powered off, this starts the services
    /// that are stopped.
    pub fn power_on(&mut self, node: &str) -> Result<(), String> {
        if !self.powered_off.remove(node) {
            return self.start_services(node);
        }
        let now = self.kernel.now();
        if let Some(id) = self.kernel.id(&format!("{node}/containerd")) {
            if let Component::Containerd(c) = &mut self.components[id.0 as usize] {
                c.reboot(now);
            }
        }
        if let Some(fs) = self.node_fs.get(node) {
            let mut fs = fs.borrow_mut();
            fs.reboots += 1;
            for dir in ["/run", "/tmp"] {
                let inside: Vec<String> =
                    fs.paths().filter(|p| p.starts_with(&format!("{dir}/"))).map(str::to_string).collect();
                for p in inside {
                    let _ = fs.remove_tree(&p, now);
                }
            }
        }
        self.start_services(node)
    }

    /// Starts a node's services, containerd first (the kubelet's first runtime status check then finds it),
    /// and lets a frozen kube-proxy go on; a kube-proxy whose container is not running starts with it.
    fn start_services(&mut self, node: &str) -> Result<(), String> {
        let proxy = self.kernel.id(&format!("{node}/kube-proxy"));
        let mut ids: Vec<ComponentId> = self.resolve(node)?.into_iter().filter(|id| Some(*id) != proxy).collect();
        let containerd = self.kernel.id(&format!("{node}/containerd"));
        ids.sort_by_key(|id| Some(*id) != containerd);
        self.cancel_restarts(&ids);
        if let Some(p) = proxy.filter(|p| self.frozen.contains(p)) {
            ids.push(p);
            self.frozen.remove(&p);
        }
        for id in ids {
            let chain = self.kernel.new_chain();
            self.start_ids(&[id], chain);
        }
        Ok(())
    }

    /// Starts a client program on the kubectl host as `user`; returns its pid and chain.
    pub fn spawn<F>(&mut self, user: Option<&str>, make: F) -> (u64, u64)
    where
        F: FnOnce(Api) -> std::pin::Pin<Box<dyn std::future::Future<Output = i32>>>,
    {
        let credentials = self.credentials_for(user.unwrap_or(&self.user.clone()));
        self.spawn_on(self.kubectl, credentials, make)
    }
}
