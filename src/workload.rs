//! Synthetic load for the benchmarks (`benches/engine.rs`) and `kubeglass bench`: clusters of many worker
//! nodes, pods created through the apiserver by client programs (no kubectl parsing or printing in the
//! way), and an etcd member with many watchers. Nothing here measures time: callers time what they run.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::api::core::v1::{Container, Pod, PodSpec, ResourceRequirements};
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, ObjectMeta, Verb};
use crate::client::Api;
use crate::cluster::{Cluster, ClusterConfig, NodeConfig};
use crate::etcd::member::EtcdMember;
use crate::etcd::{EtcdMessage, Op, Txn};
use crate::sim::{ComponentId, Ctx, Event, Kernel, Payload, Rng};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// The name of worker `i` (0-based) in a generated cluster: `node0001`, `node0002`, …
pub fn worker_name(i: usize) -> String {
    format!("node{:04}", i + 1)
}

/// A cluster with `workers` worker nodes besides the control plane and one etcd member.
pub fn cluster_config(workers: usize) -> ClusterConfig {
    ClusterConfig { nodes: (0..workers).map(|i| NodeConfig::worker(&worker_name(i))).collect(), ..Default::default() }
}

/// A small pod (one `nginx` container), bound to `node` when given — what a scheduled pod looks like.
pub fn pod(namespace: &str, name: &str, node: Option<&str>) -> Object {
    Object::Pod(Box::new(Pod {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some(namespace.to_string()),
            labels: Some(BTreeMap::from([("app".to_string(), "bench".to_string())])),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "nginx".into(),
                image: Some("nginx:1.27".into()),
                ..Container::default()
            }],
            node_name: node.map(str::to_string),
            ..PodSpec::default()
        }),
        status: None,
    }))
}

/// A pod for the scheduler to place: one `nginx` container requesting 100m cpu and 128Mi memory.
pub fn pending_pod(namespace: &str, name: &str) -> Object {
    let mut obj = pod(namespace, name, None);
    if let Object::Pod(p) = &mut obj {
        if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
            let requests = BTreeMap::from([
                ("cpu".to_string(), Quantity("100m".into())),
                ("memory".to_string(), Quantity("128Mi".into())),
            ]);
            c.resources = Some(ResourceRequirements { requests: Some(requests), ..ResourceRequirements::default() });
        }
    }
    obj
}

/// Which pods one client program creates: `pod-<first>` … `pod-<first + count - 1>` in `namespace`,
/// pod `i` bound to worker `i % nodes` (none when the cluster has no workers), or all left to the scheduler
/// (`pending`, with requests).
#[derive(Debug, Clone)]
pub struct PodBatch {
    pub namespace: String,
    pub first: usize,
    pub count: usize,
    pub nodes: usize,
    pub pending: bool,
}

/// Creates a batch of pods one after another through the apiserver; exits with the number of failed
/// creates (capped at 255), so 0 means every pod was created.
pub async fn create_pods(api: Api, batch: PodBatch) -> i32 {
    let mut failed = 0i32;
    for i in batch.first..batch.first + batch.count {
        let name = format!("pod-{i}");
        let body = if batch.pending {
            pending_pod(&batch.namespace, &name)
        } else {
            let node = (batch.nodes > 0).then(|| worker_name(i % batch.nodes));
            pod(&batch.namespace, &name, node.as_deref())
        };
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Pod.info())
            .namespace(Some(&batch.namespace))
            .body(body);
        if !matches!(api.call(req).await, Ok(ApiResponse::Object(_))) {
            failed += 1;
        }
    }
    failed.min(255)
}

/// What a run of pod creates did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateRun {
    pub requested: usize,
    pub created: usize,
    /// Simulated time the creates took.
    pub simulated_ms: u64,
}

/// Starts `workers` client programs creating `count` pods named from `first` on in `default` (each its
/// share, sequentially); bound to workers in turn, or left to the scheduler when `pending`.
fn spawn_creators(cluster: &mut Cluster, first: usize, count: usize, workers: usize, pending: bool) -> Vec<(u64, u64)> {
    let workers = workers.clamp(1, count.max(1));
    let nodes = cluster.config().nodes.len();
    let mut pids = Vec::with_capacity(workers);
    let mut next = first;
    for w in 0..workers {
        let share = count / workers + usize::from(w < count % workers);
        let batch = PodBatch { namespace: "default".into(), first: next, count: share, nodes, pending };
        next += share;
        pids.push(cluster.spawn(Some("kubernetes-admin"), move |api| Box::pin(create_pods(api, batch))));
    }
    pids
}

/// Creates `count` pods named from `first` on in `default`, with `workers` client programs running at once
/// (each creating its share sequentially), and runs the simulation until they all exit.
pub fn create_pods_concurrently(cluster: &mut Cluster, first: usize, count: usize, workers: usize) -> CreateRun {
    let start = cluster.now().ms();
    let pids = spawn_creators(cluster, first, count, workers, false);
    // Generous: even one create at a time fits easily in a simulated hour per 100,000 pods.
    let limit_ms = 60_000 + 40 * count as u64;
    let results = cluster.run_until_all_exit(&pids, limit_ms);
    let failed: usize = results.iter().map(|r| r.exit.map_or(count, |e| e.max(0) as usize)).sum();
    CreateRun { requested: count, created: count.saturating_sub(failed), simulated_ms: cluster.now().ms() - start }
}

/// Lists then watches the pods of `namespace` until `count` of them have a node (a client watching the
/// whole pipeline, as `kubectl wait` would); exits 0 then, 1 if the watch ends first.
pub async fn wait_until_bound(api: Api, namespace: String, count: usize) -> i32 {
    let bound_name = |o: &Object| match o {
        Object::Pod(p) if p.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_some_and(|n| !n.is_empty()) => {
            Some(o.name().to_string())
        }
        _ => None,
    };
    let list = ApiRequest::new(Credentials::Anonymous, Verb::List, Kind::Pod.info()).namespace(Some(&namespace));
    let Ok(ApiResponse::List { items, resource_version, .. }) = api.call(list).await else { return 1 };
    let mut bound: BTreeSet<String> = items.iter().filter_map(|o| bound_name(o)).collect();
    if bound.len() >= count {
        return 0;
    }
    let mut watch = ApiRequest::new(Credentials::Anonymous, Verb::Watch, Kind::Pod.info()).namespace(Some(&namespace));
    watch.params.resource_version = Some(resource_version.to_string());
    let Ok(ApiResponse::WatchStarted { watch_id, .. }) = api.call(watch).await else { return 1 };
    while let Some(event) = api.next_event(watch_id).await {
        if let Some(name) = event.object.as_deref().and_then(bound_name) {
            bound.insert(name);
            if bound.len() >= count {
                return 0;
            }
        }
    }
    1
}

/// What a scheduling run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedulingRun {
    pub requested: usize,
    pub created: usize,
    /// Whether a watching client saw every pod bound.
    pub all_bound: bool,
    /// Simulated time from the first create to the last binding seen.
    pub simulated_ms: u64,
}

/// The scheduling benchmark: `count` pending pods created through the apiserver by `workers` client
/// programs, and the simulation run until a watching client sees all of them bound (or a simulated hour
/// per 10,000 pods passes).
pub fn schedule_pods(cluster: &mut Cluster, count: usize, workers: usize) -> SchedulingRun {
    let start = cluster.now().ms();
    let waiter = cluster
        .spawn(Some("kubernetes-admin"), move |api| Box::pin(wait_until_bound(api, "default".to_string(), count)));
    let creators = spawn_creators(cluster, 0, count, workers, true);
    let limit_ms = 60_000 + 360 * count as u64;
    let results = cluster.run_until_all_exit(&[waiter], limit_ms);
    let simulated_ms = cluster.now().ms() - start;
    let created = cluster.run_until_all_exit(&creators, 1_000);
    let failed: usize = created.iter().map(|r| r.exit.map_or(count, |e| e.max(0) as usize)).sum();
    SchedulingRun {
        requested: count,
        created: count.saturating_sub(failed),
        all_bound: results.first().is_some_and(|r| r.exit == Some(0)),
        simulated_ms,
    }
}

/// An etcd member on its own with `watchers` clients, each watching `/registry/pods/`, fed by puts from one
/// more client: what `put + watch fan-out` benchmarks drive.
pub struct EtcdFanout {
    kernel: Kernel,
    member: EtcdMember,
    member_id: ComponentId,
    member_rng: Rng,
    writer: ComponentId,
    watchers: Vec<ComponentId>,
    next_request: u64,
    /// Events delivered to watchers so far.
    pub events_delivered: u64,
    /// Write transactions answered so far.
    pub writes_answered: u64,
    watch_messages: u64,
}

impl EtcdFanout {
    pub fn new(watchers: usize, seed: u64) -> EtcdFanout {
        let mut kernel = Kernel::new(seed);
        let (member_id, member_rng) = kernel.register("etcd-0");
        let (writer, _) = kernel.register("writer");
        let watcher_ids: Vec<ComponentId> = (0..watchers).map(|i| kernel.register(&format!("watcher-{i}")).0).collect();
        let member = EtcdMember::new(0, vec![member_id], true);
        let mut f = EtcdFanout {
            kernel,
            member,
            member_id,
            member_rng,
            writer,
            watchers: watcher_ids,
            next_request: 1,
            events_delivered: 0,
            writes_answered: 0,
            watch_messages: 0,
        };
        f.on_member(0, |m, ctx| m.on_start(ctx));
        for i in 0..f.watchers.len() {
            let (from, watch_id) = (f.watchers[i], i as u64 + 1);
            let msg = EtcdMessage::Watch { watch_id, prefix: "/registry/pods/".into(), start_revision: 0 };
            f.kernel.send(from, f.member_id, Payload::Etcd(msg), 0);
        }
        f.run();
        f
    }

    fn on_member(&mut self, chain: u64, f: impl FnOnce(&mut EtcdMember, &mut Ctx)) {
        let mut out = Vec::new();
        let mut ctx =
            Ctx { now: self.kernel.now(), me: self.member_id, chain, rng: &mut self.member_rng, out: &mut out };
        f(&mut self.member, &mut ctx);
        self.kernel.apply(self.member_id, out);
    }

    /// Sends `count` puts of pod keys (all at once, as a pipelining client would) and runs until every
    /// answer and watch event is delivered.
    pub fn put_pods(&mut self, count: usize) {
        let value = Arc::new(pod("default", "p", None));
        for _ in 0..count {
            let id = self.next_request;
            self.next_request += 1;
            let key = format!("/registry/pods/default/pod-{id}");
            let txn = Txn { success: vec![Op::Put { key, value: Arc::clone(&value) }], ..Txn::default() };
            let msg = EtcdMessage::Txn { request_id: id, txn };
            self.kernel.send(self.writer, self.member_id, Payload::Etcd(msg), 0);
        }
        self.run();
    }

    /// Runs until every write is answered and every watcher has had `events_delivered` reach the expected
    /// count (or a simulated minute passes).
    fn run(&mut self) {
        let deadline = self.kernel.now().plus_ms(60_000);
        while !self.settled() && self.kernel.next_time().is_some_and(|t| t <= deadline) {
            let Some(event) = self.kernel.pop() else { break };
            match event {
                Event::Deliver(env) if env.to == self.member_id => {
                    let (from, payload, chain) = (env.from, env.payload, env.chain);
                    self.on_member(chain, |m, ctx| match payload {
                        Payload::Etcd(msg) => m.on_message(ctx, from, msg),
                        Payload::Disconnected { peer, .. } => m.on_disconnected(ctx, peer),
                        _ => {}
                    });
                }
                Event::Deliver(env) => match env.payload {
                    Payload::Etcd(EtcdMessage::WatchEvents { events, .. }) => {
                        self.watch_messages += 1;
                        self.events_delivered += events.len() as u64;
                    }
                    Payload::Etcd(EtcdMessage::TxnResult { .. }) => self.writes_answered += 1,
                    _ => {}
                },
                Event::Timer { token, chain, .. } => self.on_member(chain, |m, ctx| m.on_timer(ctx, token)),
            }
        }
    }

    fn settled(&self) -> bool {
        let writes = self.next_request - 1;
        let watchers = self.watchers.len() as u64;
        self.writes_answered == writes && self.watch_messages >= watchers && self.events_delivered == writes * watchers
    }

    pub fn watcher_count(&self) -> usize {
        self.watchers.len()
    }

    pub fn member(&self) -> &EtcdMember {
        &self.member
    }
}
