//! kube-scheduler: watches pods without a node (`spec.nodeName` empty, `schedulerName: default-scheduler`)
//! and every node; for each pod in its queue runs the filter plugins over the nodes, scores the ones that
//! fit, and binds the pod to the best through the `pods/binding` subresource. Writes: bindings, the
//! `PodScheduled=False` condition when nothing fits. Counterpart: `cmd/kube-scheduler`,
//! `pkg/scheduler` (schedule_one.go, framework/plugins).

pub mod plugins;
pub mod queue;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::api::core::v1::{Binding, ObjectReference, Pod};
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, ObjectMeta, Verb};
use crate::client::events::Reporter;
use crate::client::informer::{Change, Informer};
use crate::client::{ApiConn, Incoming};
use crate::sim::{ComponentId, Ctx, Payload};

use plugins::{Decision, NodeInfo};
use queue::SchedulingQueue;

/// The scheduler's name in `spec.schedulerName`.
pub const SCHEDULER_NAME: &str = "default-scheduler";

const PODS: usize = 0;
const NODES: usize = 1;
/// Timer token: take the next pod from the queue.
const TIMER_SCHEDULE: u64 = 1;
/// How long one scheduling cycle takes in simulated time (filter + score + bind request).
pub const CYCLE_MS: u64 = 1;

/// The scheduler process.
pub struct Scheduler {
    conn: ApiConn,
    queue: SchedulingQueue,
    /// Pods bound by this scheduler whose binding the informer has not reflected yet (assumed pods).
    assumed: BTreeMap<String, String>,
    /// The last decision per pod, for "why is this pod here / why Pending".
    decisions: BTreeMap<String, Decision>,
    cycle_armed: bool,
    /// Calls in flight: tag → what they were for.
    calls: BTreeMap<u64, Call>,
    next_tag: u64,
}

/// Why the scheduler made a call.
#[derive(Debug, Clone)]
enum Call {
    Bind { pod: Arc<Object>, node: String },
    Other,
}

impl Scheduler {
    pub fn new(server: ComponentId) -> Scheduler {
        let credentials =
            Credentials::ClientCert { common_name: "system:kube-scheduler".into(), organizations: vec![] };
        let mut conn = ApiConn::new(server, credentials.clone());
        conn.add_informer(Informer::new(Kind::Pod, credentials.clone()));
        conn.add_informer(Informer::new(Kind::Node, credentials));
        Scheduler {
            conn,
            queue: SchedulingQueue::default(),
            assumed: BTreeMap::new(),
            decisions: BTreeMap::new(),
            cycle_armed: false,
            calls: BTreeMap::new(),
            next_tag: 1,
        }
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.queue = SchedulingQueue::default();
        self.assumed.clear();
        self.cycle_armed = false;
        self.conn.start(ctx);
    }

    /// The last scheduling decision for `namespace/name`.
    pub fn decision(&self, key: &str) -> Option<&Decision> {
        self.decisions.get(key)
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            match incoming {
                Incoming::Changes { informer: PODS, changes } => self.on_pod_changes(changes),
                Incoming::Changes { informer: NODES, .. } => self.queue.move_all_to_active(ctx.now),
                Incoming::Changes { .. } => {}
                Incoming::Answer { tag, result } => {
                    let call = self.calls.remove(&tag).unwrap_or(Call::Other);
                    match (call, result) {
                        (Call::Bind { pod, node }, Ok(ApiResponse::Object(_))) => {
                            let message = format!("Successfully assigned {} to {node}", pod.ns_name());
                            self.record(ctx, &pod, "Normal", "Scheduled", &message);
                        }
                        (Call::Bind { pod, .. }, _) => {
                            // The binding failed: forget the assumption and try again.
                            self.assumed.remove(&pod.ns_name());
                            self.queue.add(pod.ns_name());
                        }
                        (Call::Other, _) => {}
                    }
                }
            }
        }
        self.arm(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if self.conn.on_timer(ctx, token) {
            return;
        }
        if token == TIMER_SCHEDULE {
            self.cycle_armed = false;
            self.schedule_one(ctx);
            self.arm(ctx);
        }
    }

    fn arm(&mut self, ctx: &mut Ctx) {
        if !self.cycle_armed && self.conn.synced() {
            if let Some(after) = self.queue.next_ready_in(ctx.now) {
                self.cycle_armed = true;
                ctx.timer_in_chain(after.max(CYCLE_MS), TIMER_SCHEDULE);
            }
        }
    }

    fn on_pod_changes(&mut self, changes: Vec<Change>) {
        for change in changes {
            match change {
                Change::Resynced => {
                    let pods: Vec<Arc<Object>> = self.conn.informer(PODS).objects().cloned().collect();
                    self.queue.clear();
                    for p in pods {
                        self.consider(&p);
                    }
                }
                Change::Added(p) => self.consider(&p),
                Change::Modified { old, new } => {
                    // Only changes that can alter the decision requeue a waiting pod (status updates do not).
                    if scheduling_relevant(&old, &new) || !self.queue.contains(&new.ns_name()) {
                        self.consider(&new);
                    }
                }
                Change::Deleted(p) => {
                    self.queue.remove(&p.ns_name());
                    self.assumed.remove(&p.ns_name());
                }
            }
        }
    }

    /// Queues a pod that is ours and still needs a node; forgets it otherwise.
    fn consider(&mut self, obj: &Arc<Object>) {
        let Object::Pod(pod) = obj.as_ref() else { return };
        let key = obj.ns_name();
        if needs_scheduling(pod) && !self.assumed.contains_key(&key) {
            self.queue.add(key);
        } else {
            self.queue.remove(&key);
            if !needs_scheduling(pod) {
                self.assumed.remove(&key);
            }
        }
    }

    fn schedule_one(&mut self, ctx: &mut Ctx) {
        let Some(key) = self.queue.pop(ctx.now) else { return };
        let Some(obj) = self.conn.informer(PODS).get(&key).cloned() else { return };
        let Object::Pod(pod) = obj.as_ref() else { return };
        let nodes = self.node_infos();
        let decision = plugins::decide(pod, &nodes);
        match decision.chosen.clone() {
            Some(node) => {
                self.assumed.insert(key.clone(), node.clone());
                let tag = self.tag(Call::Bind { pod: obj.clone(), node: node.clone() });
                let binding = Binding {
                    metadata: ObjectMeta {
                        name: pod.metadata.name.clone(),
                        namespace: pod.metadata.namespace.clone(),
                        ..ObjectMeta::default()
                    },
                    target: ObjectReference {
                        kind: Some("Node".into()),
                        name: Some(node),
                        api_version: Some("v1".into()),
                        ..ObjectReference::default()
                    },
                };
                let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Pod.info())
                    .namespace(pod.metadata.namespace.as_deref())
                    .name(pod.metadata.name.as_deref().unwrap_or(""))
                    .subresource("binding")
                    .body(Object::Binding(binding));
                self.conn.call(ctx, req, tag);
            }
            None => {
                self.queue.unschedulable(key.clone(), ctx.now);
                let message = decision.message.clone().unwrap_or_default();
                self.set_unschedulable(ctx, &obj, &message);
                self.record(ctx, &obj, "Warning", "FailedScheduling", &message);
            }
        }
        self.decisions.insert(key, decision);
    }

    fn tag(&mut self, call: Call) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.calls.insert(tag, call);
        tag
    }

    /// Writes `PodScheduled=False` with the FitError message (only the scheduler writes this condition).
    fn set_unschedulable(&mut self, ctx: &mut Ctx, pod: &Object, message: &str) {
        let patch = serde_json::json!({"status": {"conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message,
            "lastTransitionTime": ctx.now.rfc3339(), "lastProbeTime": null
        }]}});
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Pod.info())
            .namespace(pod.namespace())
            .name(pod.name())
            .subresource("status");
        req.patch = Some(crate::api::PatchBody::Strategic(patch));
        let tag = self.tag(Call::Other);
        self.conn.call(ctx, req, tag);
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

    /// Each node with the pods the scheduler knows are on it (bound or assumed).
    fn node_infos(&self) -> Vec<NodeInfo> {
        let mut infos: BTreeMap<String, NodeInfo> = self
            .conn
            .informer(NODES)
            .objects()
            .filter_map(|o| match o.as_ref() {
                Object::Node(n) => Some((n.metadata.name.clone().unwrap_or_default(), NodeInfo::new(n.clone()))),
                _ => None,
            })
            .collect();
        for obj in self.conn.informer(PODS).objects() {
            let Object::Pod(pod) = obj.as_ref() else { continue };
            let node = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .filter(|n| !n.is_empty())
                .or_else(|| self.assumed.get(&obj.ns_name()).cloned());
            if let Some(info) = node.and_then(|n| infos.get_mut(&n)) {
                if !matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed")) {
                    info.add_pod(pod);
                }
            }
        }
        infos.into_values().collect()
    }
}

/// Whether an update changed what scheduling looks at: the spec or the labels (kube-scheduler's isPodUpdated
/// ignores status, resourceVersion and the like).
fn scheduling_relevant(old: &Object, new: &Object) -> bool {
    match (old, new) {
        (Object::Pod(a), Object::Pod(b)) => a.spec != b.spec || a.metadata.labels != b.metadata.labels,
        _ => true,
    }
}

/// Whether the pod waits for this scheduler: no node yet, ours, not being deleted.
pub fn needs_scheduling(pod: &Pod) -> bool {
    let spec = pod.spec.as_ref();
    spec.and_then(|s| s.node_name.as_deref()).is_none_or(str::is_empty)
        && spec.and_then(|s| s.scheduler_name.as_deref()).unwrap_or(SCHEDULER_NAME) == SCHEDULER_NAME
        && pod.metadata.deletion_timestamp.is_none()
}
