//! kube-controller-manager: one process running many control loops. Each loop ([`Controller`]) declares
//! the kinds it watches; the manager runs one shared informer per kind (as the real shared informer
//! factory does), hands every change to the loops that watch that kind, and sends what they ask for
//! through its one connection to kube-apiserver. Stopping the process stops every loop. With
//! `--leader-elect=true` (kubeadm's) the informers and loops start only once it holds Lease
//! `kube-system/kube-controller-manager` (cloud-controller-manager: its own), and it exits 1 when it cannot
//! renew it, so the process that comes back starts with fresh state.
//! Counterpart: `cmd/kube-controller-manager`, `pkg/controller/*`.

pub mod book;
pub mod cloud;
pub mod cloudnode;
pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod endpoints;
pub mod endpointslice;
pub mod garbagecollector;
pub mod job;
pub mod namespace;
pub mod nodelifecycle;
pub mod owned;
pub mod persistentvolume;
pub mod podautoscaler;
pub mod provisioner;
pub mod queue;
pub mod recorder;
pub mod replicaset;
pub mod resourcequota;
pub mod serviceaccount;
pub mod servicelb;
pub mod statefulset;
pub mod tainteviction;
pub mod ttlafterfinished;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, PatchBody, Verb};
use crate::client::events::Reporter;
use crate::client::informer::{Change, Informer};
use crate::client::leader_election::{LeaderElector, Transition};
use crate::client::{ApiConn, ClientError, Incoming};
use crate::sim::{ComponentId, Ctx, Payload, SimTime};
use owned::Owned;

/// Tags and timer tokens carry the loop's index in their high bits.
const LOOP_SHIFT: u32 = 40;

/// One control loop.
pub trait Controller {
    /// The name its events carry (`deployment-controller`).
    fn name(&self) -> &'static str;
    /// The kinds it watches.
    fn kinds(&self) -> &'static [Kind];
    /// The process (re)started: forget what the previous incarnation remembered.
    fn on_start(&mut self) {}
    /// Called once every informer has listed (and again after each relist of a kind it watches).
    fn on_synced(&mut self, _cx: &mut Cx) {}
    /// A change to an object of one of its kinds.
    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx);
    /// One of its own timers fired.
    fn on_timer(&mut self, _token: u64, _cx: &mut Cx) {}
    /// The answer to one of its own calls.
    fn on_answer(&mut self, _tag: u64, _result: &Result<ApiResponse, ClientError>, _cx: &mut Cx) {}
}

/// What a loop sees and can do while it handles something.
pub struct Cx<'a, 'b> {
    pub now: SimTime,
    index: u64,
    informers: &'a BTreeMap<Kind, usize>,
    conn: &'a mut ApiConn,
    ctx: &'a mut Ctx<'b>,
    component: &'static str,
    pods_by_node: &'a Owned,
}

impl Cx<'_, '_> {
    /// Every cached object of `kind` (the kind must be one the loop watches).
    pub fn list(&self, kind: Kind) -> Vec<Arc<Object>> {
        self.informers.get(&kind).map(|i| self.conn.informer(*i).objects().cloned().collect()).unwrap_or_default()
    }

    /// The cached pods bound to `node` (the `spec.nodeName` index the manager keeps beside its pod informer).
    pub fn pods_on(&self, node: &str) -> Vec<Arc<Object>> {
        self.pods_by_node.cached(node, Kind::Pod, self)
    }

    /// The cached objects of `kind` in `namespace` (the kind must be one the loop watches).
    pub fn cached_in(&self, kind: Kind, namespace: &str) -> Vec<Arc<Object>> {
        self.informers
            .get(&kind)
            .map(|i| self.conn.informer(*i).objects_in(namespace).cloned().collect())
            .unwrap_or_default()
    }

    /// One cached object by `namespace/name` (or `name` for cluster-scoped kinds).
    pub fn get(&self, kind: Kind, key: &str) -> Option<Arc<Object>> {
        self.informers.get(&kind).and_then(|i| self.conn.informer(*i).get(key).cloned())
    }

    pub fn rng(&mut self) -> &mut crate::sim::Rng {
        self.ctx.rng
    }

    fn call(&mut self, req: ApiRequest, tag: u64) {
        self.conn.call(self.ctx, req, (self.index << LOOP_SHIFT) | tag);
    }

    fn request(verb: Verb, obj: &Object) -> ApiRequest {
        ApiRequest::new(Credentials::Anonymous, verb, obj.info()).namespace(obj.namespace())
    }

    /// Creates `obj`; the answer comes back with `tag`.
    pub fn create(&mut self, obj: Object, tag: u64) {
        let req = Cx::request(Verb::Create, &obj).body(obj);
        self.call(req, tag);
    }

    /// Replaces `obj` (optimistic concurrency on its resourceVersion).
    pub fn update(&mut self, obj: Object, tag: u64) {
        let name = obj.name().to_string();
        let req = Cx::request(Verb::Update, &obj).name(&name).body(obj);
        self.call(req, tag);
    }

    /// Lists every object of `kind` in `namespace` from etcd (not the cache); the list comes back with `tag`.
    pub fn list_in(&mut self, kind: Kind, namespace: &str, tag: u64) {
        let req = ApiRequest::new(Credentials::Anonymous, Verb::List, kind.info()).namespace(Some(namespace));
        self.call(req, tag);
    }

    /// Replaces `obj` through one of its subresources (`finalize`, `status`).
    pub fn update_subresource(&mut self, obj: Object, subresource: &str, tag: u64) {
        let name = obj.name().to_string();
        let req = Cx::request(Verb::Update, &obj).name(&name).subresource(subresource).body(obj);
        self.call(req, tag);
    }

    /// Replaces the status of `obj`.
    pub fn update_status(&mut self, obj: Object, tag: u64) {
        let name = obj.name().to_string();
        let req = Cx::request(Verb::Update, &obj).name(&name).subresource("status").body(obj);
        self.call(req, tag);
    }

    /// A strategic merge patch of `about` (or of its status with `subresource: Some("status")`).
    pub fn patch(&mut self, about: &Object, subresource: Option<&str>, patch: serde_json::Value, tag: u64) {
        let mut req = Cx::request(Verb::Patch, about).name(about.name());
        req.subresource = subresource.map(str::to_string);
        req.patch = Some(PatchBody::Strategic(patch));
        self.call(req, tag);
    }

    /// Deletes `about` with a propagation policy (`Background`, `Foreground`, `Orphan`) and grace period.
    pub fn delete(&mut self, about: &Object, propagation: Option<&str>, grace_seconds: Option<i64>, tag: u64) {
        let mut req = Cx::request(Verb::Delete, about).name(about.name());
        req.params.propagation_policy = propagation.map(str::to_string);
        req.params.grace_period_seconds = grace_seconds;
        self.call(req, tag);
    }

    /// Records an Event about `about` from this loop.
    pub fn event(&mut self, about: &Object, type_: &str, reason: &str, message: &str) {
        self.event_from(self.component, about, type_, reason, message);
    }

    /// Records an Event about `about` in the name of `component` (a loop standing in for another program);
    /// returns the Event's name.
    pub fn event_from(&mut self, component: &str, about: &Object, type_: &str, reason: &str, message: &str) -> String {
        let by = Reporter { component, host: None };
        let event = crate::client::events::event(about, by, type_, reason, message, self.now, self.ctx.rng);
        let name = event.name().to_string();
        self.create(event, 0);
        name
    }

    /// The name this loop's events carry.
    pub fn component(&self) -> &'static str {
        self.component
    }

    /// A timer for this loop.
    pub fn timer(&mut self, after_ms: u64, token: u64) {
        self.ctx.timer(after_ms, (self.index << LOOP_SHIFT) | token);
    }
}

/// The controller-manager process.
pub struct ControllerManager {
    conn: ApiConn,
    loops: Vec<Box<dyn Controller>>,
    /// Kind → informer index in `conn`.
    informers: BTreeMap<Kind, usize>,
    /// Node name → keys of the pods bound to it, from the pod informer.
    pods_by_node: Owned,
    /// The Lease it leads under (`kube-controller-manager`) and the name its election Events carry.
    lease: &'static str,
    /// `--leader-elect=true`: the node it runs on and its elector (None: it runs its loops without a lease).
    election: Option<(String, LeaderElector)>,
}

/// The leader elector's call tag and timers (above every loop's index, below the connection's timers).
const ELECTION_TAG: u64 = 1 << 61;
const TIMER_ELECTION: u64 = 1 << 61;

impl ControllerManager {
    pub fn new(server: ComponentId) -> ControllerManager {
        let loops: Vec<Box<dyn Controller>> = vec![
            Box::new(serviceaccount::ServiceAccountController),
            Box::new(deployment::DeploymentController::default()),
            Box::new(replicaset::ReplicaSetController::default()),
            Box::new(replicaset::ReplicaSetController::new(replicaset::Flavour::ReplicationController)),
            Box::new(garbagecollector::GarbageCollector::default()),
            Box::new(daemonset::DaemonSetController::default()),
            Box::new(job::JobController::default()),
            Box::new(cronjob::CronJobController::default()),
            Box::new(ttlafterfinished::TtlAfterFinishedController::default()),
            Box::new(namespace::NamespaceController::default()),
            Box::new(nodelifecycle::NodeLifecycleController::default()),
            Box::new(tainteviction::TaintEvictionController::default()),
            Box::new(endpointslice::EndpointSliceController::default()),
            Box::new(endpoints::EndpointsController::default()),
            Box::new(statefulset::StatefulSetController::default()),
            Box::new(persistentvolume::PersistentVolumeController::default()),
            Box::new(provisioner::Provisioner::default()),
            Box::new(resourcequota::ResourceQuotaController::default()),
            Box::new(podautoscaler::HorizontalController::default()),
        ];
        ControllerManager::with_loops(server, loops)
    }

    pub fn with_loops(server: ComponentId, loops: Vec<Box<dyn Controller>>) -> ControllerManager {
        let credentials =
            Credentials::ClientCert { common_name: "system:kube-controller-manager".into(), organizations: vec![] };
        ControllerManager::with_credentials(server, credentials, loops, "kube-controller-manager")
    }

    /// cloud-controller-manager: the loops that talk to the cloud, in a process of their own, as
    /// `system:cloud-controller-manager`. Counterpart: `cmd/cloud-controller-manager`, `k8s.io/cloud-provider`.
    pub fn cloud(server: ComponentId, cloud: std::rc::Rc<std::cell::RefCell<cloud::Cloud>>) -> ControllerManager {
        let loops: Vec<Box<dyn Controller>> = vec![
            Box::new(cloudnode::CloudNodeController::new(cloud.clone())),
            Box::new(cloudnode::CloudNodeLifecycleController::new(cloud.clone())),
            Box::new(servicelb::ServiceLbController::new(cloud)),
        ];
        let credentials =
            Credentials::ClientCert { common_name: "system:cloud-controller-manager".into(), organizations: vec![] };
        ControllerManager::with_credentials(server, credentials, loops, "cloud-controller-manager")
    }

    /// Runs with `--leader-elect=true` on `host`: its informers and loops start only once it holds its Lease
    /// in `kube-system`, and it exits when it cannot renew it.
    pub fn elect_on(mut self, host: &str) -> ControllerManager {
        let elector = LeaderElector::new(self.lease, self.lease, ELECTION_TAG, TIMER_ELECTION);
        self.election = Some((host.to_string(), elector));
        self
    }

    /// Its elector, when it runs with leader election.
    pub fn elector(&self) -> Option<&LeaderElector> {
        self.election.as_ref().map(|(_, e)| e)
    }

    fn on_election(&mut self, ctx: &mut Ctx, transition: Transition) {
        match transition {
            // controllermanager.go: the controllers (and the informers they share) start in OnStartedLeading.
            Transition::StartedLeading => self.conn.start_informers(ctx),
            // OnStoppedLeading: "leaderelection lost", exit 1.
            Transition::Lost => {
                ctx.klog('E', "controllermanager.go:368", "\"leaderelection lost\"");
                ctx.exit(1)
            }
            Transition::None => {}
        }
    }

    fn with_credentials(
        server: ComponentId,
        credentials: Credentials,
        loops: Vec<Box<dyn Controller>>,
        lease: &'static str,
    ) -> ControllerManager {
        let mut conn = ApiConn::new(server, credentials.clone());
        let mut informers = BTreeMap::new();
        for l in &loops {
            for kind in l.kinds() {
                informers.entry(*kind).or_insert_with(|| conn.add_informer(Informer::new(*kind, credentials.clone())));
            }
        }
        ControllerManager { conn, loops, informers, pods_by_node: Owned::default(), lease, election: None }
    }

    /// Keeps the pods-by-node index in step with the pod informer's changes.
    fn index_pods(&mut self, changes: &[Change]) {
        let node_of = |o: &Object| match o {
            Object::Pod(p) => p.spec.as_ref().and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty()),
            _ => None,
        };
        for change in changes {
            match change {
                Change::Added(o) => {
                    if let Some(n) = node_of(o) {
                        self.pods_by_node.set(&n, &o.ns_name(), true);
                    }
                }
                Change::Modified { old, new } => {
                    if let Some(n) = node_of(old) {
                        self.pods_by_node.set(&n, &old.ns_name(), false);
                    }
                    if let Some(n) = node_of(new) {
                        self.pods_by_node.set(&n, &new.ns_name(), true);
                    }
                }
                Change::Deleted(o) => {
                    if let Some(n) = node_of(o) {
                        self.pods_by_node.set(&n, &o.ns_name(), false);
                    }
                }
                Change::Resynced => {
                    self.pods_by_node.clear();
                    let Some(i) = self.informers.get(&Kind::Pod) else { continue };
                    for o in self.conn.informer(*i).objects() {
                        if let Some(n) = node_of(o) {
                            self.pods_by_node.set(&n, &o.ns_name(), true);
                        }
                    }
                }
            }
        }
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        for l in &mut self.loops {
            l.on_start();
        }
        self.pods_by_node.clear();
        match &mut self.election {
            Some((host, elector)) => {
                self.conn.reset();
                elector.start(ctx, &mut self.conn, host);
            }
            None => self.conn.start(ctx),
        }
    }

    fn with_loop(&mut self, index: usize, ctx: &mut Ctx, f: impl FnOnce(&mut dyn Controller, &mut Cx)) {
        let component = self.loops[index].name();
        let mut cx = Cx {
            now: ctx.now,
            index: index as u64,
            informers: &self.informers,
            conn: &mut self.conn,
            ctx,
            component,
            pods_by_node: &self.pods_by_node,
        };
        f(self.loops[index].as_mut(), &mut cx);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            match incoming {
                Incoming::Changes { informer, changes } => {
                    let Some(kind) = self.informers.iter().find(|(_, i)| **i == informer).map(|(k, _)| *k) else {
                        continue;
                    };
                    if kind == Kind::Pod {
                        self.index_pods(&changes);
                    }
                    let resynced = changes.iter().any(|c| matches!(c, Change::Resynced));
                    for i in 0..self.loops.len() {
                        if !self.loops[i].kinds().contains(&kind) {
                            continue;
                        }
                        if resynced && !self.loop_synced(i) {
                            continue;
                        }
                        for change in &changes {
                            if matches!(change, Change::Resynced) {
                                self.with_loop(i, ctx, |l, cx| l.on_synced(cx));
                            } else if self.loop_synced(i) {
                                self.with_loop(i, ctx, |l, cx| l.on_change(kind, change, cx));
                            }
                        }
                    }
                }
                Incoming::Answer { tag, result } if self.election.as_ref().is_some_and(|(_, e)| e.owns_tag(tag)) => {
                    if let Some((_, elector)) = &mut self.election {
                        let transition = elector.on_answer(ctx, &mut self.conn, &result);
                        self.on_election(ctx, transition);
                    }
                }
                Incoming::Answer { tag, result } => {
                    let index = (tag >> LOOP_SHIFT) as usize;
                    if index < self.loops.len() {
                        let own = tag & ((1 << LOOP_SHIFT) - 1);
                        self.with_loop(index, ctx, |l, cx| l.on_answer(own, &result, cx));
                    }
                }
            }
        }
    }

    /// Whether every kind a loop watches has been listed.
    fn loop_synced(&self, index: usize) -> bool {
        self.loops[index]
            .kinds()
            .iter()
            .all(|k| self.informers.get(k).is_some_and(|i| self.conn.informer(*i).has_synced()))
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if self.conn.on_timer(ctx, token) {
            return;
        }
        if let Some((_, elector)) = self.election.as_mut().filter(|(_, e)| e.owns_timer(token)) {
            let transition = elector.on_timer(ctx, &mut self.conn, token);
            self.on_election(ctx, transition);
            return;
        }
        let index = (token >> LOOP_SHIFT) as usize;
        if index < self.loops.len() {
            let own = token & ((1 << LOOP_SHIFT) - 1);
            self.with_loop(index, ctx, |l, cx| l.on_timer(own, cx));
        }
    }
}
