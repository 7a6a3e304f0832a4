//! metrics-server, the add-on behind `kubectl top`, as the process `metrics-server` with the service account
//! `kube-system:metrics-server`. Watches: Nodes and Pods through kube-apiserver (for the nodes to scrape and
//! the metadata and labels of what it measures). Scrapes: every kubelet's `GET /metrics/resource` on :10250,
//! directly, every 15 s (`--metric-resolution=15s`), first one second after it starts. Serves:
//! `metrics.k8s.io/v1beta1` `nodes` and `pods` (get and list, label selectors) to kube-apiserver, which
//! passes those requests on to it (the `v1beta1.metrics.k8s.io` APIService). Writes nothing.
//! Counterpart: kubernetes-sigs/metrics-server (`pkg/scraper`, `pkg/storage`, `pkg/api`).
//!
//! As the real one computes CPU rates from two scrapes, a node or pod is served once two scrapes in a row
//! have seen it, so new pods have no metrics for 15–30 s; a kubelet that does not answer a scrape drops its
//! node and pods until it answers twice again. Simplified: one process stands for the Deployment's pod (as
//! CoreDNS's watcher does for its pods), and it does not check who asks (the apiserver already has).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::api::quantity::{Quantity, QuantityFormat};
use crate::api::selector::LabelSelector;
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, Status, Verb};
use crate::client::informer::Informer;
use crate::client::ApiConn;
use crate::node::usage::{Usage, WINDOW_MS};
use crate::node::{KubeletCall, KubeletMessage, KubeletReply, ResourceMetrics};
use crate::sim::time::go_duration;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use super::api::{self, ContainerMetrics, Meta, MetricsList, NodeMetrics, PodMetrics, ResourceList};

/// The service account token metrics-server's pod mounts.
pub const TOKEN: &str = "metrics-server-token";
const NODES: usize = 0;
const PODS: usize = 1;
const TIMER_SCRAPE: u64 = 1;
/// The first scrape after a start (its informers have listed by then).
const FIRST_SCRAPE_MS: u64 = 1_000;

/// The pods one scrape of a node saw: (namespace, pod) → when a scrape first saw it, and its containers.
type PodSamples = BTreeMap<(String, String), (SimTime, Vec<(String, Usage)>)>;

/// What the last scrapes of one node gave.
#[derive(Debug, Clone, Default)]
struct NodeStore {
    /// The scrape before the last one, when there was one in a row.
    previous: Option<SimTime>,
    at: SimTime,
    usage: Usage,
    pods: PodSamples,
}

/// The metrics-server process.
pub struct MetricsServer {
    conn: ApiConn,
    /// A node's InternalIP → its kubelet.
    kubelets: BTreeMap<String, ComponentId>,
    nodes: BTreeMap<String, NodeStore>,
    /// Scrapes in flight: id → (node, kubelet).
    scrapes: BTreeMap<u64, (String, ComponentId)>,
    next_id: u64,
}

impl MetricsServer {
    pub fn new(server: ComponentId, kubelets: BTreeMap<String, ComponentId>) -> MetricsServer {
        let credentials = Credentials::Token(TOKEN.into());
        let mut conn = ApiConn::new(server, credentials.clone());
        conn.add_informer(Informer::new(Kind::Node, credentials.clone()));
        conn.add_informer(Informer::new(Kind::Pod, credentials));
        MetricsServer { conn, kubelets, nodes: BTreeMap::new(), scrapes: BTreeMap::new(), next_id: 1 }
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.nodes.clear();
        self.scrapes.clear();
        self.conn.start(ctx);
        ctx.timer(FIRST_SCRAPE_MS, TIMER_SCRAPE);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if self.conn.on_timer(ctx, token) || token != TIMER_SCRAPE {
            return;
        }
        ctx.timer(WINDOW_MS, TIMER_SCRAPE);
        self.scrape(ctx);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, payload: Payload) {
        match payload {
            Payload::ApiRequest { request_id, request } => {
                let response = self.serve(&request, ctx.now);
                ctx.send(from, Payload::ApiResponse { request_id, response: Box::new(response), warnings: Vec::new() });
            }
            Payload::Kubelet(m) => self.on_kubelet(*m),
            Payload::Disconnected { peer, .. } if self.kubelets.values().any(|k| *k == peer) => {
                let lost: Vec<u64> = self.scrapes.iter().filter(|(_, (_, k))| *k == peer).map(|(id, _)| *id).collect();
                for id in lost {
                    if let Some((node, _)) = self.scrapes.remove(&id) {
                        self.nodes.remove(&node);
                    }
                }
            }
            other => {
                // Informer changes need no handling: requests read the caches.
                let _ = self.conn.on_message(ctx, other);
            }
        }
    }

    /// One round: a `/metrics/resource` request to the kubelet of every node the informer knows.
    fn scrape(&mut self, ctx: &mut Ctx) {
        // Answers still missing from the last round count as failed scrapes.
        for (_, (node, _)) in std::mem::take(&mut self.scrapes) {
            self.nodes.remove(&node);
        }
        let mut targets = Vec::new();
        for obj in self.conn.informer(NODES).objects() {
            let Object::Node(node) = obj.as_ref() else { continue };
            let name = node.metadata.name.clone().unwrap_or_default();
            let ip = node
                .status
                .as_ref()
                .and_then(|s| s.addresses.as_ref())
                .and_then(|a| a.iter().find(|a| a.type_ == "InternalIP"))
                .map(|a| a.address.clone())
                .unwrap_or_default();
            targets.push((name, self.kubelets.get(&ip).copied()));
        }
        let known: std::collections::BTreeSet<&String> = targets.iter().map(|(n, _)| n).collect();
        self.nodes.retain(|n, _| known.contains(n));
        for (node, kubelet) in targets {
            let Some(kubelet) = kubelet else {
                self.nodes.remove(&node);
                continue;
            };
            let id = self.next_id;
            self.next_id += 1;
            self.scrapes.insert(id, (node, kubelet));
            let call = KubeletCall::ResourceMetrics;
            ctx.send(kubelet, Payload::Kubelet(Box::new(KubeletMessage::Request { id, call })));
        }
    }

    fn on_kubelet(&mut self, m: KubeletMessage) {
        let (id, metrics) = match m {
            KubeletMessage::Reply { id, reply: KubeletReply::Metrics(metrics) } => (id, Some(metrics)),
            KubeletMessage::Reply { id, .. } | KubeletMessage::Refused { id } => (id, None),
            KubeletMessage::Request { .. } | KubeletMessage::Stream { .. } | KubeletMessage::Cancel { .. } => return,
        };
        let Some((node, _)) = self.scrapes.remove(&id) else { return };
        match metrics {
            Some(m) => self.store(node, *m),
            None => {
                self.nodes.remove(&node);
            }
        }
    }

    fn store(&mut self, node: String, m: ResourceMetrics) {
        let old = self.nodes.remove(&node);
        let mut pods = PodSamples::new();
        for (namespace, pod, container, usage) in m.containers {
            let key = (namespace, pod);
            let seen = old.as_ref().and_then(|o| o.pods.get(&key)).map_or(m.at, |(first, _)| *first);
            pods.entry(key).or_insert_with(|| (seen, Vec::new())).1.push((container, usage));
        }
        let previous = old.map(|o| o.at);
        self.nodes.insert(node, NodeStore { previous, at: m.at, usage: m.node, pods });
    }

    /// Answers a `metrics.k8s.io` request passed on by kube-apiserver.
    fn serve(&self, req: &ApiRequest, now: SimTime) -> ApiResponse {
        let selector = match req.params.label_selector.as_deref().filter(|s| !s.is_empty()).map(LabelSelector::parse) {
            Some(Err(e)) => return ApiResponse::Error(Status::bad_request(e)),
            Some(Ok(s)) => Some(s),
            None => None,
        };
        let matches = |labels: Option<&BTreeMap<String, String>>| selector.as_ref().is_none_or(|s| s.matches(labels));
        let nodes = req.resource.resource == "nodes";
        match (req.verb, req.name.as_deref(), nodes) {
            (Verb::Get, Some(name), true) => match self.node_metrics(name, now) {
                Some(m) => json(&m),
                None => ApiResponse::Error(Status::not_found("nodemetrics.metrics.k8s.io", name)),
            },
            (Verb::List, None, true) => {
                let items = self
                    .conn
                    .informer(NODES)
                    .objects()
                    .filter(|o| matches(o.meta().labels.as_ref()))
                    .filter_map(|o| self.node_metrics(o.name(), now))
                    .collect();
                json(&list("NodeMetricsList", items))
            }
            (Verb::Get, Some(name), false) => {
                let ns = req.namespace.clone().unwrap_or_default();
                match self.pod_metrics(&ns, name, now) {
                    Some(m) => json(&m),
                    None => ApiResponse::Error(Status::not_found("podmetrics.metrics.k8s.io", &format!("{ns}/{name}"))),
                }
            }
            (Verb::List, None, false) => {
                let pods: Vec<_> = match req.namespace.as_deref() {
                    Some(ns) => self.conn.informer(PODS).objects_in(ns).collect(),
                    None => self.conn.informer(PODS).objects().collect(),
                };
                let items = pods
                    .into_iter()
                    .filter(|o| matches(o.meta().labels.as_ref()))
                    .filter_map(|o| self.pod_metrics(o.namespace().unwrap_or(""), o.name(), now))
                    .collect();
                json(&list("PodMetricsList", items))
            }
            _ => ApiResponse::Error(Status::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({} {}.metrics.k8s.io)",
                req.verb.as_str(),
                req.resource.resource
            ))),
        }
    }

    fn node_metrics(&self, name: &str, now: SimTime) -> Option<NodeMetrics> {
        let store = self.nodes.get(name)?;
        let previous = store.previous?;
        let node = self.conn.informer(NODES).get(name)?;
        Some(NodeMetrics {
            kind: "NodeMetrics".into(),
            api_version: api::api_version(),
            metadata: meta(node, now),
            timestamp: store.at.rfc3339(),
            window: go_duration(store.at.since(previous)),
            usage: resources(store.usage),
        })
    }

    fn pod_metrics(&self, namespace: &str, name: &str, now: SimTime) -> Option<PodMetrics> {
        let pod = self.conn.informer(PODS).get(&format!("{namespace}/{name}"))?;
        let node = match pod.as_ref() {
            Object::Pod(p) => p.spec.as_ref().and_then(|s| s.node_name.clone())?,
            _ => return None,
        };
        let store = self.nodes.get(&node)?;
        let (first, containers) = store.pods.get(&(namespace.to_string(), name.to_string()))?;
        if *first >= store.at {
            return None;
        }
        Some(PodMetrics {
            kind: "PodMetrics".into(),
            api_version: api::api_version(),
            metadata: meta(pod, now),
            timestamp: store.at.rfc3339(),
            window: go_duration(store.at.since(store.previous.unwrap_or(*first))),
            containers: containers
                .iter()
                .map(|(name, usage)| ContainerMetrics { name: name.clone(), usage: resources(*usage) })
                .collect(),
        })
    }
}

fn meta(obj: &Object, now: SimTime) -> Meta {
    Meta {
        name: obj.name().to_string(),
        namespace: obj.namespace().map(str::to_string),
        creation_timestamp: Some(now.rfc3339()),
        labels: obj.meta().labels.clone().unwrap_or_default(),
    }
}

/// `cpu` in nanocores and `memory` in bytes, as metrics-server writes them (`118329505n`, `1101452Ki`).
fn resources(u: Usage) -> ResourceList {
    let cpu = Quantity::from_nanos(i128::from(u.cpu_nanocores), QuantityFormat::DecimalSI);
    let memory = Quantity::from_nanos(i128::from(u.memory_bytes) * 1_000_000_000, QuantityFormat::BinarySI);
    ResourceList::from([("cpu".to_string(), cpu.to_string()), ("memory".to_string(), memory.to_string())])
}

fn list<T>(kind: &str, items: Vec<T>) -> MetricsList<T> {
    MetricsList { kind: kind.into(), api_version: api::api_version(), metadata: BTreeMap::new(), items }
}

fn json<T: Serialize>(value: &T) -> ApiResponse {
    match serde_json::to_string(value) {
        Ok(text) => ApiResponse::Text(text),
        Err(e) => ApiResponse::Error(Status::internal(e.to_string())),
    }
}
