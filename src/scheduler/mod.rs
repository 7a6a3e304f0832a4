//! kube-scheduler: watches pods (all of them: the unscheduled ones to place, the assigned ones to account),
//! nodes, and what the plugins read (claims, volumes, storage classes, namespaces, Services, ReplicaSets,
//! StatefulSets, PodDisruptionBudgets). It keeps a cache of every node's pods, takes pods from its queue by
//! priority, runs the default profile's plugins (percentageOfNodesToScore of the nodes), binds the pod to
//! the best node through the `pods/binding` subresource, and when no node fits, preempts lower-priority pods
//! or reports why. A pod whose claims wait for their first consumer is bound only after VolumeBinding's
//! PreBind has bound them on the chosen node ([`volume_prebind`]). Writes: bindings, volumes' `claimRef`,
//! claims' `volume.kubernetes.io/selected-node`, pod status (`PodScheduled=False` with the FitError message,
//! `nominatedNodeName`, the victims' `DisruptionTarget` condition), victim deletions, and the
//! `Scheduled`/`FailedScheduling`/`Preempted` events. With `--leader-elect=true` (kubeadm's) it fills its
//! cache and queue from the start but schedules only while it holds Lease `kube-system/kube-scheduler`
//! ([`crate::client::leader_election`]), and exits 1 when it cannot renew it. Counterpart:
//! `cmd/kube-scheduler`, `pkg/scheduler` (scheduler.go, schedule_one.go, eventhandlers.go).

pub mod algorithm;
pub mod cache;
pub mod counts;
pub mod decision;
pub mod listers;
pub mod nodeinfo;
pub mod nodetree;
pub mod plugins;
pub mod podinfo;
pub mod preemption;
pub mod queue;
pub mod volume_prebind;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use serde_json::json;

use crate::api::api::core::v1::{Binding, ObjectReference, Pod};
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, ObjectMeta, PatchBody, Verb};
use crate::client::events::Reporter;
use crate::client::informer::{Change, Informer};
use crate::client::leader_election::{LeaderElector, Transition};
use crate::client::{ApiConn, Incoming};
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use algorithm::{Algorithm, Attempt, Nominator};
use cache::Cache;
use decision::{truncate_message, Decision, PreemptionRecord};
use listers::{Listers, ServiceSelectors};
use plugins::FILTERS;
use podinfo::PodInfo;
use preemption::Outcome;
use queue::SchedulingQueue;

/// The scheduler's name in `spec.schedulerName`.
pub const SCHEDULER_NAME: &str = "default-scheduler";
/// How long one scheduling cycle takes in simulated time (filter + score + bind request).
pub const CYCLE_MS: u64 = 1;
/// Decisions kept for "why is this pod here / why Pending" (the oldest go first).
pub const DECISIONS_KEPT: usize = 1024;

const PODS: usize = 0;
const NODES: usize = 1;
const PVCS: usize = 2;
const PVS: usize = 3;
const CLASSES: usize = 4;
const NAMESPACES: usize = 5;
const SERVICES: usize = 6;
const REPLICASETS: usize = 7;
const STATEFULSETS: usize = 8;
const PDBS: usize = 9;
/// Timer tokens from here on: take the next pod from the queue (the token carries the arming's number, so
/// a timer superseded by an earlier one is ignored).
const TIMER_SCHEDULE: u64 = 1;
/// Timer tokens from here on: a PreBind's bind timeout (the token carries the wait's number).
const TIMER_PREBIND: u64 = 1 << 40;
/// The leader elector's timers (it uses this token and the ones above it) and the tag of its calls.
const TIMER_ELECTION: u64 = 1 << 50;
const ELECTION_TAG: u64 = 1 << 50;

/// Plugins an assigned pod's arrival (or label change) may help.
const POD_ADDED_HELPS: [&str; 2] = ["InterPodAffinity", "PodTopologySpread"];
/// Plugins an assigned pod's departure may help.
const POD_GONE_HELPS: [&str; 4] = ["NodeResourcesFit", "NodePorts", "InterPodAffinity", "PodTopologySpread"];

/// Counts of what the scheduler did, for benchmarks and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub attempts: u64,
    pub bindings_sent: u64,
    pub bound: u64,
    pub unschedulable: u64,
    pub preemptions: u64,
}

/// The scheduler process.
pub struct Scheduler {
    conn: ApiConn,
    queue: SchedulingQueue,
    cache: Cache,
    algorithm: Algorithm,
    nominator: Nominator,
    services: ServiceSelectors,
    decisions: BTreeMap<String, Decision>,
    decision_order: VecDeque<String>,
    stats: Stats,
    /// When the armed cycle timer fires, and its number.
    armed: Option<(SimTime, u64)>,
    arms: u64,
    /// Calls in flight: tag → what they were for.
    calls: BTreeMap<u64, Call>,
    next_tag: u64,
    /// Pods assumed on a node whose claims PreBind is binding: pod key → the wait.
    prebinding: BTreeMap<String, PreBinding>,
    /// Claim key → the pod whose PreBind waits for it.
    claim_waiters: BTreeMap<String, String>,
    /// Volumes PreBind promised to a waiting pod (no other pod may pick them meanwhile).
    taken: BTreeSet<String>,
    prebinds: u64,
    /// `--leader-elect=true`: the node it runs on and its elector (None: it schedules without a lease).
    election: Option<(String, LeaderElector)>,
}

/// One pod's PreBind: the writes still unanswered, and the claims that must be Bound before the binding.
#[derive(Debug, Clone)]
struct PreBinding {
    pod: Arc<PodInfo>,
    node: Arc<str>,
    claims: Vec<String>,
    volumes: Vec<String>,
    unanswered: usize,
    number: u64,
}

/// Why the scheduler made a call.
#[derive(Debug, Clone)]
enum Call {
    Bind {
        pod: Arc<PodInfo>,
        node: Arc<str>,
    },
    /// A PreBind write (a volume's claimRef or a claim's selected node) for the pod with this key.
    PreBind {
        pod: String,
    },
    Other,
}

fn listers<'a>(conn: &'a ApiConn, services: &'a ServiceSelectors) -> Listers<'a> {
    Listers {
        pvcs: conn.informer(PVCS),
        pvs: conn.informer(PVS),
        classes: conn.informer(CLASSES),
        namespaces: conn.informer(NAMESPACES),
        replicasets: conn.informer(REPLICASETS),
        statefulsets: conn.informer(STATEFULSETS),
        pdbs: conn.informer(PDBS),
        services,
    }
}

fn pod_of(obj: &Object) -> Option<&Pod> {
    match obj {
        Object::Pod(p) => Some(p),
        _ => None,
    }
}

fn node_name(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).filter(|n| !n.is_empty())
}

fn terminal(pod: &Pod) -> bool {
    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

/// What to do with the pod's `status.nominatedNodeName` after a failed attempt.
enum Nomination {
    Keep,
    Set(String),
    Clear,
}

impl Scheduler {
    pub fn new(server: ComponentId) -> Scheduler {
        let credentials =
            Credentials::ClientCert { common_name: "system:kube-scheduler".into(), organizations: vec![] };
        let mut conn = ApiConn::new(server, credentials.clone());
        for kind in [
            Kind::Pod,
            Kind::Node,
            Kind::PersistentVolumeClaim,
            Kind::PersistentVolume,
            Kind::StorageClass,
            Kind::Namespace,
            Kind::Service,
            Kind::ReplicaSet,
            Kind::StatefulSet,
            Kind::PodDisruptionBudget,
        ] {
            conn.add_informer(Informer::new(kind, credentials.clone()));
        }
        Scheduler {
            conn,
            queue: SchedulingQueue::default(),
            cache: Cache::default(),
            algorithm: Algorithm::default(),
            nominator: Nominator::default(),
            services: ServiceSelectors::new(),
            decisions: BTreeMap::new(),
            decision_order: VecDeque::new(),
            stats: Stats::default(),
            armed: None,
            arms: 0,
            calls: BTreeMap::new(),
            next_tag: 1,
            prebinding: BTreeMap::new(),
            claim_waiters: BTreeMap::new(),
            taken: BTreeSet::new(),
            prebinds: 0,
            election: None,
        }
    }

    /// Runs with `--leader-elect=true` on `host`: it schedules only while it holds Lease
    /// `kube-system/kube-scheduler`, and exits when it cannot renew it.
    pub fn elect_on(mut self, host: &str) -> Scheduler {
        let elector = LeaderElector::new("kube-scheduler", "default-scheduler", ELECTION_TAG, TIMER_ELECTION);
        self.election = Some((host.to_string(), elector));
        self
    }

    /// Whether it may schedule: it holds the lease, or runs without leader election.
    fn leading(&self) -> bool {
        self.election.as_ref().is_none_or(|(_, e)| e.is_leader())
    }

    /// The lease it runs for, when it runs with leader election.
    pub fn elector(&self) -> Option<&LeaderElector> {
        self.election.as_ref().map(|(_, e)| e)
    }

    fn on_election(&mut self, ctx: &mut Ctx, transition: Transition) {
        match transition {
            Transition::StartedLeading => self.arm(ctx),
            // server.go: OnStoppedLeading logs "Leaderelection lost" and exits 1.
            Transition::Lost => {
                ctx.klog('E', "server.go:337", "\"Leaderelection lost\"");
                ctx.exit(1)
            }
            Transition::None => {}
        }
    }

    /// A (re)start: everything in memory is rebuilt from the informers.
    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.queue = SchedulingQueue::default();
        self.cache = Cache::default();
        self.algorithm = Algorithm::default();
        self.nominator.clear();
        self.services.clear();
        self.calls.clear();
        self.prebinding.clear();
        self.claim_waiters.clear();
        self.taken.clear();
        self.armed = None;
        self.conn.start(ctx);
        if let Some((host, elector)) = &mut self.election {
            elector.start(ctx, &mut self.conn, host);
        }
    }

    /// The last scheduling decision for `namespace/name`.
    pub fn decision(&self, key: &str) -> Option<&Decision> {
        self.decisions.get(key)
    }

    /// Pods waiting in the queue (active, backing off or unschedulable).
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Sets `percentageOfNodesToScore` (0: adaptive, the default).
    pub fn set_percentage_of_nodes_to_score(&mut self, percentage: u32) {
        self.algorithm.percentage_of_nodes_to_score = percentage.min(100);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            match incoming {
                Incoming::Changes { informer: PODS, changes } => {
                    for c in changes {
                        self.on_pod_change(ctx, c);
                    }
                }
                Incoming::Changes { informer: NODES, changes } => {
                    for c in changes {
                        self.on_node_change(ctx, c);
                    }
                }
                Incoming::Changes { informer: PVCS, changes } => {
                    self.queue.on_event(&["VolumeBinding"], ctx.now);
                    for c in changes {
                        let key = match &c {
                            Change::Added(o) | Change::Modified { new: o, .. } | Change::Deleted(o) => o.ns_name(),
                            Change::Resynced => continue,
                        };
                        if let Some(pod) = self.claim_waiters.get(&key).cloned() {
                            self.prebind_progress(ctx, &pod);
                        }
                    }
                }
                Incoming::Changes { informer: PVS | CLASSES, .. } => {
                    self.queue.on_event(&["VolumeBinding"], ctx.now);
                }
                Incoming::Changes { informer: NAMESPACES, changes } => {
                    let relabelled = changes.iter().any(|c| match c {
                        Change::Modified { old, new } => old.meta().labels != new.meta().labels,
                        _ => true,
                    });
                    if relabelled {
                        self.queue.on_event(&["InterPodAffinity"], ctx.now);
                    }
                }
                Incoming::Changes { informer: SERVICES, changes } => self.on_service_changes(changes),
                Incoming::Changes { .. } => {}
                Incoming::Answer { tag, result } => {
                    let election = self.election.as_mut().filter(|(_, e)| e.owns_tag(tag));
                    if let Some((_, elector)) = election {
                        let transition = elector.on_answer(ctx, &mut self.conn, &result);
                        self.on_election(ctx, transition);
                    } else {
                        self.on_answer(ctx, tag, result);
                    }
                }
            }
        }
        self.arm(ctx);
    }

    fn on_answer(&mut self, ctx: &mut Ctx, tag: u64, result: Result<ApiResponse, crate::client::ClientError>) {
        let call = self.calls.remove(&tag);
        if let Some(Call::PreBind { pod }) = call {
            match result {
                Ok(ApiResponse::Object(_)) => {
                    if let Some(p) = self.prebinding.get_mut(&pod) {
                        p.unanswered = p.unanswered.saturating_sub(1);
                    }
                    self.prebind_progress(ctx, &pod);
                }
                other => self.prebind_failed(ctx, &pod, &api_error(other)),
            }
            return;
        }
        let Some(Call::Bind { pod, node }) = call else { return };
        match result {
            Ok(ApiResponse::Object(_)) => {
                self.stats.bound += 1;
                let message = format!("Successfully assigned {} to {node}", pod.obj.ns_name());
                self.record(ctx, &pod.obj, "Normal", "Scheduled", &message);
            }
            other => {
                // The binding failed: forget the assumption, free what it held, retry after a backoff.
                self.cache.forget(&pod.key);
                self.queue.on_event(&POD_GONE_HELPS, ctx.now);
                let error = api_error(other);
                let message = format!("binding rejected: running Bind plugin \"DefaultBinder\": {error}");
                let current = self.conn.informer(PODS).get(&pod.key).cloned();
                let still_pending = current.as_deref().and_then(pod_of).is_some_and(needs_scheduling);
                if still_pending {
                    self.queue.backoff(pod.key.clone(), pod.priority, ctx.now);
                }
                self.record(ctx, &pod.obj, "Warning", "FailedScheduling", &truncate_message(&message));
            }
        }
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
        if token >= TIMER_PREBIND {
            let number = token - TIMER_PREBIND;
            let timed_out = self.prebinding.iter().find(|(_, p)| p.number == number).map(|(k, _)| k.clone());
            if let Some(pod) = timed_out {
                self.prebind_failed(ctx, &pod, "binding volumes: context deadline exceeded");
            }
            return;
        }
        let current = self.armed.is_some_and(|(_, n)| token == TIMER_SCHEDULE + n);
        if current {
            self.armed = None;
            self.schedule_one(ctx);
            self.arm(ctx);
        }
    }

    /// Makes sure a cycle runs when the next pod is ready (earlier than an armed timer, if need be).
    fn arm(&mut self, ctx: &mut Ctx) {
        if !self.conn.synced() || !self.leading() {
            return;
        }
        let Some(after) = self.queue.next_ready_in(ctx.now) else { return };
        let due = ctx.now.plus_ms(after.max(CYCLE_MS));
        if self.armed.is_some_and(|(at, _)| at <= due) {
            return;
        }
        self.arms += 1;
        self.armed = Some((due, self.arms));
        ctx.timer_in_chain(after.max(CYCLE_MS), TIMER_SCHEDULE + self.arms);
    }

    // ---- informer events ----

    fn on_service_changes(&mut self, changes: Vec<Change>) {
        for c in changes {
            match c {
                Change::Added(o) | Change::Modified { new: o, .. } => index_service(&mut self.services, &o, true),
                Change::Deleted(o) => index_service(&mut self.services, &o, false),
                Change::Resynced => {
                    self.services.clear();
                    for o in self.conn.informer(SERVICES).objects() {
                        index_service(&mut self.services, o, true);
                    }
                }
            }
        }
    }

    fn on_node_change(&mut self, ctx: &mut Ctx, change: Change) {
        match change {
            Change::Added(n) => {
                self.cache.set_node(n);
                self.queue.on_event(&FILTERS, ctx.now);
            }
            Change::Modified { old, new } => {
                let relevant = match (old.as_ref(), new.as_ref()) {
                    (Object::Node(a), Object::Node(b)) => {
                        a.metadata.labels != b.metadata.labels
                            || a.spec != b.spec
                            || a.status.as_ref().map(|s| &s.allocatable) != b.status.as_ref().map(|s| &s.allocatable)
                            || a.status.as_ref().map(|s| &s.images) != b.status.as_ref().map(|s| &s.images)
                    }
                    _ => true,
                };
                self.cache.set_node(new);
                if relevant {
                    self.queue.on_event(&FILTERS, ctx.now);
                }
            }
            Change::Deleted(n) => self.cache.remove_node(n.name()),
            Change::Resynced => {
                let current: Vec<Arc<Object>> = self.conn.informer(NODES).objects().cloned().collect();
                let names: BTreeSet<&str> = current.iter().map(|n| n.name()).collect();
                let gone: Vec<String> = self
                    .cache
                    .nodes()
                    .filter(|info| info.has_node() && !names.contains(&*info.name))
                    .map(|info| info.name.to_string())
                    .collect();
                for n in gone {
                    self.cache.remove_node(&n);
                }
                for n in current {
                    self.cache.set_node(n);
                }
                self.queue.move_all(ctx.now);
            }
        }
    }

    fn on_pod_change(&mut self, ctx: &mut Ctx, change: Change) {
        match change {
            Change::Added(p) => self.pod_upserted(ctx, None, &p),
            Change::Modified { old, new } => self.pod_upserted(ctx, Some(&old), &new),
            Change::Deleted(p) => {
                let key = p.ns_name();
                self.queue.remove(&key);
                self.nominator.remove(&key);
                if self.cache.remove_pod(&key).is_some() {
                    self.queue.on_event(&POD_GONE_HELPS, ctx.now);
                }
            }
            Change::Resynced => {
                let pods: Vec<Arc<Object>> = self.conn.informer(PODS).objects().cloned().collect();
                let present: BTreeSet<String> = pods.iter().map(|p| p.ns_name()).collect();
                let gone_assumed: Vec<String> =
                    self.cache.assumed_pods().map(|p| p.info.key.clone()).filter(|k| !present.contains(k)).collect();
                for k in gone_assumed {
                    self.cache.forget(&k);
                }
                self.cache.clear_confirmed_pods();
                self.queue.clear();
                self.nominator.clear();
                for p in pods {
                    self.pod_upserted(ctx, None, &p);
                }
            }
        }
    }

    fn pod_upserted(&mut self, ctx: &mut Ctx, old: Option<&Arc<Object>>, obj: &Arc<Object>) {
        let Some(pod) = pod_of(obj) else { return };
        let key = obj.ns_name();
        let old_pod = old.and_then(|o| pod_of(o));
        if node_name(pod).is_some() {
            // Assigned: the cache accounts it (a terminating pod holds its node until it is gone).
            self.queue.remove(&key);
            self.nominator.remove(&key);
            if terminal(pod) {
                if self.cache.remove_pod(&key).is_some() {
                    self.queue.on_event(&POD_GONE_HELPS, ctx.now);
                }
                return;
            }
            let cached = self.cache.pod(&key);
            let confirmed = cached.is_some_and(|c| !c.assumed && Some(&*c.node) == node_name(pod));
            let changed = !confirmed || old_pod.is_none_or(|o| accounting_changed(o, pod));
            if changed {
                let labels_changed = old_pod.is_some_and(|o| o.metadata.labels != pod.metadata.labels);
                let spec_changed = old_pod.is_some_and(|o| o.spec != pod.spec);
                if let Some(info) = PodInfo::new(obj) {
                    self.cache.add_pod(Arc::new(info));
                }
                if !confirmed || labels_changed {
                    self.queue.on_event(&POD_ADDED_HELPS, ctx.now);
                }
                if spec_changed {
                    self.queue.on_event(&["NodeResourcesFit"], ctx.now);
                }
            }
            return;
        }
        if self.cache.is_assumed(&key) {
            return;
        }
        if !needs_scheduling(pod) {
            self.queue.remove(&key);
            self.nominator.remove(&key);
            return;
        }
        let nominated = pod.status.as_ref().and_then(|s| s.nominated_node_name.as_deref()).filter(|n| !n.is_empty());
        match nominated {
            Some(node) if self.nominator.node_of(&key) != Some(node) => {
                if let Some(info) = PodInfo::new(obj) {
                    self.nominator.add(Arc::new(info), node);
                }
            }
            None => self.nominator.remove(&key),
            _ => {}
        }
        let relevant = old_pod.is_none_or(|o| scheduling_relevant(o, pod));
        if relevant || !self.queue.contains(&key) {
            let priority = pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0);
            self.queue.add(key, priority, ctx.now);
        }
    }

    // ---- one scheduling cycle ----

    fn schedule_one(&mut self, ctx: &mut Ctx) {
        let Some(key) = self.queue.pop(ctx.now) else { return };
        let Some(obj) = self.conn.informer(PODS).get(&key).cloned() else {
            self.queue.remove(&key);
            return;
        };
        if !pod_of(&obj).is_some_and(needs_scheduling) || self.cache.is_assumed(&key) {
            self.queue.remove(&key);
            return;
        }
        let Some(info) = PodInfo::new(&obj).map(Arc::new) else { return };
        self.stats.attempts += 1;
        let mut d = Decision { pod: key.clone(), at_ms: ctx.now.ms(), ..Decision::default() };
        let l = listers(&self.conn, &self.services);
        let attempt = self.algorithm.schedule(&mut self.cache, &info, &l, &self.nominator, ctx.rng, &mut d);
        match attempt {
            Attempt::Chosen(node) => {
                self.cache.assume(info.clone(), &node);
                self.nominator.remove(&key);
                self.prebind(ctx, info, node, &mut d);
            }
            Attempt::NoNodes => {
                let message = "no nodes available to schedule pods".to_string();
                d.message = Some(message.clone());
                self.queue.unschedulable(key.clone(), ctx.now, BTreeSet::new());
                self.stats.unschedulable += 1;
                self.set_unschedulable(ctx, &info, &message, Nomination::Keep);
            }
            Attempt::Unschedulable { diagnosis, state } => {
                let outcome =
                    preemption::preempt(state.as_deref(), &self.cache, &info, &diagnosis, &self.nominator, &l, ctx.rng);
                let refusing: BTreeSet<&'static str> =
                    diagnosis.prefilter.iter().chain(diagnosis.statuses.values()).map(|r| r.plugin).collect();
                let (message, nomination) = match outcome {
                    Outcome::Nominate(c) => {
                        self.stats.preemptions += 1;
                        d.preemption = Some(PreemptionRecord {
                            nominated: Some(c.node.to_string()),
                            victims: c.victims.iter().map(|v| v.key.clone()).collect(),
                            message: None,
                        });
                        self.nominator.add(info.clone(), &c.node);
                        self.evict(ctx, &info, &c);
                        (diagnosis.message(None), Nomination::Set(c.node.to_string()))
                    }
                    Outcome::NotHelpful(post) => {
                        let eligible = !post.starts_with("preemption: not eligible");
                        d.preemption = Some(PreemptionRecord {
                            nominated: None,
                            victims: Vec::new(),
                            message: Some(post.clone()),
                        });
                        let nomination = if eligible { Nomination::Clear } else { Nomination::Keep };
                        if eligible {
                            self.nominator.remove(&key);
                        }
                        (diagnosis.message(Some(&post)), nomination)
                    }
                };
                let message = truncate_message(&message);
                d.message = Some(message.clone());
                self.queue.unschedulable(key.clone(), ctx.now, refusing);
                self.stats.unschedulable += 1;
                self.set_unschedulable(ctx, &info, &message, nomination);
                self.record(ctx, &info.obj, "Warning", "FailedScheduling", &message);
            }
        }
        self.keep_decision(d);
    }

    fn keep_decision(&mut self, d: Decision) {
        if !self.decisions.contains_key(&d.pod) {
            self.decision_order.push_back(d.pod.clone());
        }
        self.decisions.insert(d.pod.clone(), d);
        while self.decision_order.len() > DECISIONS_KEPT {
            if let Some(old) = self.decision_order.pop_front() {
                self.decisions.remove(&old);
            }
        }
    }

    fn tag(&mut self, call: Call) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.calls.insert(tag, call);
        tag
    }

    /// VolumeBinding's PreBind, then the binding: claims waiting for their first consumer get their volume
    /// (or their selected node) first, and the pod is bound once they are all Bound.
    fn prebind(&mut self, ctx: &mut Ctx, info: Arc<PodInfo>, node: Arc<str>, d: &mut Decision) {
        let l = listers(&self.conn, &self.services);
        let state = match plugins::volumes::prefilter(&info, &l) {
            Ok(Some(state)) if !state.delayed.is_empty() => state,
            _ => return self.bind(ctx, info, node),
        };
        let Some(node_info) = self.cache.node(&node) else { return self.bind(ctx, info, node) };
        let writes = match volume_prebind::plan(&state, node_info, &l, &self.taken) {
            Ok(w) => w,
            Err(e) => {
                self.prebinding.insert(
                    info.key.clone(),
                    PreBinding {
                        pod: info.clone(),
                        node,
                        claims: Vec::new(),
                        volumes: Vec::new(),
                        unanswered: 0,
                        number: 0,
                    },
                );
                return self.prebind_failed(ctx, &info.key, &format!("binding volumes: {e}"));
            }
        };
        self.prebinds += 1;
        let mut wait = PreBinding {
            pod: info.clone(),
            node: node.clone(),
            claims: Vec::new(),
            volumes: Vec::new(),
            unanswered: writes.len(),
            number: self.prebinds,
        };
        for (claim, write) in writes {
            d.prebind.push(write.describe(&claim, &node));
            if let volume_prebind::Write::Volume(pv) = &write {
                let name = pv.metadata.name.clone().unwrap_or_default();
                self.taken.insert(name.clone());
                wait.volumes.push(name);
            }
            self.claim_waiters.insert(claim.clone(), info.key.clone());
            wait.claims.push(claim);
            let obj = write.object();
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Update, obj.info())
                .namespace(obj.namespace())
                .name(obj.name())
                .body(obj);
            let tag = self.tag(Call::PreBind { pod: info.key.clone() });
            self.conn.call(ctx, req, tag);
        }
        ctx.timer(volume_prebind::BIND_TIMEOUT_MS, TIMER_PREBIND + self.prebinds);
        self.prebinding.insert(info.key.clone(), wait);
    }

    /// Binds the pod once its PreBind writes are answered and its claims Bound.
    fn prebind_progress(&mut self, ctx: &mut Ctx, pod: &str) {
        let Some(p) = self.prebinding.get(pod) else { return };
        let l = listers(&self.conn, &self.services);
        if p.unanswered > 0 || !volume_prebind::all_bound(&p.claims, &l) {
            return;
        }
        let Some(p) = self.end_prebind(pod) else { return };
        self.bind(ctx, p.pod, p.node);
    }

    /// Drops a PreBind's bookkeeping.
    fn end_prebind(&mut self, pod: &str) -> Option<PreBinding> {
        let p = self.prebinding.remove(pod)?;
        for c in &p.claims {
            self.claim_waiters.remove(c);
        }
        for v in &p.volumes {
            self.taken.remove(v);
        }
        Some(p)
    }

    /// PreBind failed: the pod is forgotten on its node and tried again after a backoff.
    fn prebind_failed(&mut self, ctx: &mut Ctx, pod: &str, error: &str) {
        let Some(p) = self.end_prebind(pod) else { return };
        self.cache.forget(&p.pod.key);
        self.queue.on_event(&POD_GONE_HELPS, ctx.now);
        let current = self.conn.informer(PODS).get(&p.pod.key).cloned();
        if current.as_deref().and_then(pod_of).is_some_and(needs_scheduling) {
            self.queue.backoff(p.pod.key.clone(), p.pod.priority, ctx.now);
        }
        let message = format!("running PreBind plugin \"VolumeBinding\": {error}");
        self.record(ctx, &p.pod.obj, "Warning", "FailedScheduling", &truncate_message(&message));
    }

    fn bind(&mut self, ctx: &mut Ctx, info: Arc<PodInfo>, node: Arc<str>) {
        self.stats.bindings_sent += 1;
        let pod = info.pod();
        let binding = Binding {
            metadata: ObjectMeta {
                name: pod.metadata.name.clone(),
                namespace: pod.metadata.namespace.clone(),
                uid: pod.metadata.uid.clone(),
                ..ObjectMeta::default()
            },
            target: ObjectReference {
                kind: Some("Node".into()),
                name: Some(node.to_string()),
                api_version: Some("v1".into()),
                ..ObjectReference::default()
            },
        };
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Pod.info())
            .namespace(pod.metadata.namespace.as_deref())
            .name(pod.metadata.name.as_deref().unwrap_or(""))
            .subresource("binding")
            .body(Object::Binding(Box::new(binding)));
        let tag = self.tag(Call::Bind { pod: info, node });
        self.conn.call(ctx, req, tag);
    }

    fn patch_status(&mut self, ctx: &mut Ctx, namespace: &str, name: &str, patch: serde_json::Value) {
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Pod.info())
            .namespace(Some(namespace))
            .name(name)
            .subresource("status");
        req.patch = Some(PatchBody::Strategic(patch));
        let tag = self.tag(Call::Other);
        self.conn.call(ctx, req, tag);
    }

    /// Writes `PodScheduled=False` with the message and the nomination, unless the pod already says so.
    fn set_unschedulable(&mut self, ctx: &mut Ctx, info: &PodInfo, message: &str, nomination: Nomination) {
        let pod = info.pod();
        let status = pod.status.as_ref();
        let current =
            status.and_then(|s| s.conditions.as_ref()).and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled"));
        let same_condition = current.is_some_and(|c| {
            c.status == "False" && c.reason.as_deref() == Some("Unschedulable") && c.message.as_deref() == Some(message)
        });
        let nominated = status.and_then(|s| s.nominated_node_name.as_deref()).filter(|n| !n.is_empty());
        let mut patch = json!({"status": {}});
        match &nomination {
            Nomination::Set(n) if nominated != Some(n.as_str()) => patch["status"]["nominatedNodeName"] = json!(n),
            Nomination::Clear if nominated.is_some() => patch["status"]["nominatedNodeName"] = json!(null),
            _ => {}
        }
        if !same_condition {
            let since = if current.is_some_and(|c| c.status == "False") {
                current.and_then(|c| c.last_transition_time.as_ref()).map(|t| json!(t))
            } else {
                None
            };
            patch["status"]["conditions"] = json!([{
                "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
                "lastTransitionTime": since.unwrap_or_else(|| json!(ctx.now.rfc3339())), "lastProbeTime": null
            }]);
        }
        if patch["status"].as_object().is_some_and(|m| !m.is_empty()) {
            self.patch_status(ctx, &info.namespace, info.name(), patch);
        }
    }

    /// Carries out a preemption: each victim gets the DisruptionTarget condition, is deleted, and gets a
    /// `Preempted` event; lower-priority pods nominated to the same node lose their nomination.
    fn evict(&mut self, ctx: &mut Ctx, preemptor: &PodInfo, c: &preemption::Candidate) {
        for v in &c.victims {
            if v.terminating {
                continue;
            }
            let patch = json!({"status": {"conditions": [{
                "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                "message": format!("{SCHEDULER_NAME}: preempting to accommodate a higher priority pod"),
                "lastTransitionTime": ctx.now.rfc3339()
            }]}});
            self.patch_status(ctx, &v.namespace, v.name(), patch);
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, Kind::Pod.info())
                .namespace(Some(&v.namespace))
                .name(v.name());
            let tag = self.tag(Call::Other);
            self.conn.call(ctx, req, tag);
            let message = format!("Preempted by pod {} on node {}", preemptor.uid, c.node);
            self.record(ctx, &v.obj, "Normal", "Preempted", &message);
        }
        let lower: Vec<Arc<PodInfo>> =
            self.nominator.on_node(&c.node).filter(|p| p.priority < preemptor.priority).cloned().collect();
        for p in lower {
            self.nominator.remove(&p.key);
            self.patch_status(ctx, &p.namespace, p.name(), json!({"status": {"nominatedNodeName": null}}));
        }
    }

    fn record(&mut self, ctx: &mut Ctx, about: &Object, type_: &str, reason: &str, message: &str) {
        let by = Reporter { component: SCHEDULER_NAME, host: None };
        let event = crate::client::events::event(about, by, type_, reason, message, ctx.now, ctx.rng);
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Event.info())
            .namespace(event.namespace())
            .body(event);
        let tag = self.tag(Call::Other);
        self.conn.call(ctx, req, tag);
    }
}

/// An API call's failure as the scheduler reports it.
fn api_error(result: Result<ApiResponse, crate::client::ClientError>) -> String {
    match result {
        Ok(ApiResponse::Error(status)) => status.message.clone(),
        Err(crate::client::ClientError::ConnectionRefused) => "connect: connection refused".to_string(),
        Err(crate::client::ClientError::ConnectionReset) => "connection reset by peer".to_string(),
        Ok(_) => "unexpected answer".to_string(),
    }
}

/// Keeps a Service's selector in the index (removes it when the Service is gone or selects nothing).
fn index_service(services: &mut ServiceSelectors, obj: &Object, present: bool) {
    let Object::Service(s) = obj else { return };
    let ns = s.metadata.namespace.clone().unwrap_or_default();
    let name = s.metadata.name.clone().unwrap_or_default();
    let selector = s.spec.as_ref().and_then(|sp| sp.selector.clone()).filter(|m| !m.is_empty());
    match selector.filter(|_| present) {
        Some(sel) => {
            services.entry(ns).or_default().insert(name, sel);
        }
        None => {
            if let Some(m) = services.get_mut(&ns) {
                m.remove(&name);
            }
        }
    }
}

/// Whether an update changed what the cache accounts for an assigned pod.
fn accounting_changed(old: &Pod, new: &Pod) -> bool {
    old.spec != new.spec
        || old.metadata.labels != new.metadata.labels
        || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
        || old.status.as_ref().and_then(|s| s.start_time.as_ref())
            != new.status.as_ref().and_then(|s| s.start_time.as_ref())
}

/// Whether an update changed what scheduling looks at: the spec or the labels (kube-scheduler's isPodUpdated
/// ignores status, resourceVersion and the like).
fn scheduling_relevant(old: &Pod, new: &Pod) -> bool {
    old.spec != new.spec || old.metadata.labels != new.metadata.labels
}

/// Whether the pod waits for this scheduler: no node yet, ours, not being deleted, no scheduling gates.
pub fn needs_scheduling(pod: &Pod) -> bool {
    let spec = pod.spec.as_ref();
    spec.and_then(|s| s.node_name.as_deref()).is_none_or(str::is_empty)
        && spec.and_then(|s| s.scheduler_name.as_deref()).unwrap_or(SCHEDULER_NAME) == SCHEDULER_NAME
        && pod.metadata.deletion_timestamp.is_none()
        && spec.and_then(|s| s.scheduling_gates.as_ref()).is_none_or(Vec::is_empty)
}
