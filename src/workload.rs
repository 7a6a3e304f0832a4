//! Synthetic load for the benchmarks (`benches/engine.rs`) and `kubeglass bench`: clusters of many worker
//! nodes, pods created through the apiserver by client programs (no kubectl parsing or printing in the
//! way), and an etcd member with many watchers. Nothing here measures time: callers time what they run.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::api::core::v1::{Container, Pod, PodSpec};
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, ObjectMeta, Verb};
use crate::client::Api;
use crate::cluster::{Cluster, ClusterConfig, NodeConfig};
use crate::etcd::member::EtcdMember;
use crate::etcd::{EtcdMessage, Op, Txn};
use crate::sim::{ComponentId, Ctx, Event, Kernel, Payload, Rng};

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
    Object::Pod(Pod {
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
    })
}

/// Which pods one client program creates: `pod-<first>` … `pod-<first + count - 1>` in `namespace`,
/// pod `i` bound to worker `i % nodes` (none when the cluster has no workers).
#[derive(Debug, Clone)]
pub struct PodBatch {
    pub namespace: String,
    pub first: usize,
    pub count: usize,
    pub nodes: usize,
}

/// Creates a batch of pods one after another through the apiserver; exits with the number of failed
/// creates (capped at 255), so 0 means every pod was created.
pub async fn create_pods(api: Api, batch: PodBatch) -> i32 {
    let mut failed = 0i32;
    for i in batch.first..batch.first + batch.count {
        let node = (batch.nodes > 0).then(|| worker_name(i % batch.nodes));
        let body = pod(&batch.namespace, &format!("pod-{i}"), node.as_deref());
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

/// Creates `count` pods named from `first` on in `default`, with `workers` client programs running at once
/// (each creating its share sequentially), and runs the simulation until they all exit.
pub fn create_pods_concurrently(cluster: &mut Cluster, first: usize, count: usize, workers: usize) -> CreateRun {
    let workers = workers.clamp(1, count.max(1));
    let nodes = cluster.config().nodes.len();
    let start = cluster.now().ms();
    let mut pids = Vec::with_capacity(workers);
    let mut next = first;
    for w in 0..workers {
        let share = count / workers + usize::from(w < count % workers);
        let batch = PodBatch { namespace: "default".into(), first: next, count: share, nodes };
        next += share;
        pids.push(cluster.spawn(Some("kubernetes-admin"), move |api| Box::pin(create_pods(api, batch))));
    }
    // Generous: even one create at a time fits easily in a simulated hour per 100,000 pods.
    let limit_ms = 60_000 + 40 * count as u64;
    let results = cluster.run_until_all_exit(&pids, limit_ms);
    let failed: usize = results.iter().map(|r| r.exit.map_or(count, |e| e.max(0) as usize)).sum();
    CreateRun { requested: count, created: count.saturating_sub(failed), simulated_ms: cluster.now().ms() - start }
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
