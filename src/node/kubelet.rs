//! The kubelet `<node>/kubelet`, a systemd service on each node (not a pod), as `system:node:<node>` in
//! `system:nodes`. Watches: pods with `spec.nodeName=<node>` (one informer), its static pod manifests
//! (the `staticPodPath` its `/var/lib/kubelet/config.yaml` names, on the node's filesystem: read at start,
//! on every change notice and every 20 s; see [`super::static_pods`]), and its containerd's containers
//! (CRI list at start, exit events after). Reads its Node every 10 s (`GET`, from the apiserver's cache).
//! Writes: its Node (registers it with its status after the first runtime status check, then patches the
//! status every 10 s when what the apiserver holds differs from what it computes, or 5 min passed; see
//! [`node_status`]), its Lease `kube-node-lease/<node>` every 10 s, pod status (posted on change, and again
//! whenever the apiserver's copy differs from it: the status manager's 10 s sync, see [`status`]), mirror pods
//! for static pods, the final delete (grace 0) of pods it finished terminating, and its events (on its Node:
//! `Starting`, `NodeAllocatableEnforced`, `NodeHasSufficientMemory`, `NodeHasNoDiskPressure`,
//! `NodeHasSufficientPID`, `NodeReady`, `NodeNotReady`; on pods: `Pulling`, `Pulled`, `Created`, `Started`,
//! `Killing`, `BackOff`, `Failed`, `Unhealthy`, `FailedPreStopHook`, `FailedPostStartHook`, `SandboxChanged`;
//! a failed event write is tried again, 12 times at most, as client-go's recorder does). Talks to containerd
//! with CRI calls (a runtime status check every 5 s, probes and hooks included).
//! Counterpart: `pkg/kubelet` (kubelet.go syncPod, kuberuntime_manager.go computePodActions,
//! kuberuntime_container.go, images/image_manager.go, prober, nodestatus/setters.go, nodelease,
//! status/status_manager.go, pod/mirror_client.go).
//!
//! Static pods run without the apiserver (they are how the control plane starts); removing a manifest
//! stops the pod and deletes its mirror pod, putting the same file back runs it again (the same UID).
//! Logs to its journal (`journalctl -u kubelet`) what it does, including the lines a kubelet writes at
//! `--v=2` (`"SyncLoop ADD"`), so the journal tells the story of each pod.
//!
//! Serves kube-apiserver on :10250 (container logs, exec): see [`server`].
//!
//! Init containers run one after another, each to completion, before the app containers (an init
//! container with `restartPolicy: Always` is a sidecar: started, then the next one runs, and it keeps
//! running and restarting beside the app containers); probes are in [`probes`], the pod's status in
//! [`status`]. Deleting a pod runs each container's preStop hook (exec, httpGet, sleep) before it is
//! stopped with what is left of the grace period (at least 2 s); images that handle SIGTERM stop at once,
//! the others are killed when the grace period ends (exit 137, see [`super::runtime`]). A postStart hook
//! runs right after its container started (exec, sleep, httpGet); when it fails the container is killed
//! (`FailedPostStartHook`) and restarted under the pod's policy.
//!
//! After a reboot containerd lists the pods' sandboxes as not ready and their containers as exited (255,
//! `Unknown`): the pod worker records `SandboxChanged`, stops the old sandbox and starts the pod again in a
//! new one, each container with its restart count one higher (restartPolicy Never: the pod stays as it is).
//!
//! Simplified: one CRI call in flight per pod (so a pod's containers stop one after another); pod workers
//! stop calling containerd as soon as a CRI call is refused (the Ready condition follows the runtime status
//! check's 30 s threshold); a missing config file leaves the kubelet without a static pod path (the real one
//! exits and systemd restarts it).

mod node_images;
mod node_status;
mod pod_ref;
mod probes;
pub mod server;
mod status;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::api::core::v1::Pod;
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, PatchBody, Reason, Verb};
use crate::client::events::Reporter;
use crate::client::informer::{Change, Informer};
use crate::client::ClientError;
use crate::client::{ApiConn, Incoming};
use crate::cluster::node_files::{static_pod_path, KUBELET_CONFIG};
use crate::cluster::{NodeConfig, NodeFs};
use crate::sim::time::go_duration;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use super::journal::{go_quote, Journal};
use super::runtime::{Container, ContainerSpec, ContainerState, CriCall, CriMessage, CriReply};
use super::static_pods::{self, StaticPod, FILE_CHECK_MS};
use super::volumes::{claim_error, claims_of, failed_mount_message, Mounts};
use pod_ref::{PodRef, Posted};
use probes::{Kill, ProbeCall, ProbeKind, ProbeState, ProbeTimer, TIMER_PROBE_BASE};

/// The version every kubelet reports.
pub const KUBELET_VERSION: &str = "v1.34.1";
/// nodeStatusUpdateFrequency and the lease renew interval.
pub const TICK_MS: u64 = 10_000;
/// nodeStatusReportFrequency: status is posted at least this often even when nothing changed.
pub const REPORT_MS: u64 = 300_000;
pub const LEASE_DURATION_S: i64 = 40;
const BACKOFF_INITIAL_MS: u64 = 10_000;
const BACKOFF_MAX_MS: u64 = 300_000;
/// How soon a kubelet that could not register tries again: 100 ms, doubling up to 7 s
/// (`registerWithAPIServer`).
const REGISTER_RETRY_MS: u64 = 100;
const REGISTER_RETRY_MAX_MS: u64 = 7_000;
/// How soon a mirror pod that could not be created is tried again.
const MIRROR_RETRY_MS: u64 = 500;
/// How long a pod worker waits after a failed sync (pod_workers.go backOffPeriod).
const WORKER_BACKOFF_MS: u64 = 10_000;

const TIMER_TICK: u64 = 1;
const TIMER_REGISTER: u64 = 2;
const TIMER_MIRRORS: u64 = 3;
/// A change under the static pod path (the filesystem's inotify notice).
const TIMER_FILES: u64 = 4;
/// The runtime status check (`updateRuntimeUp`, every 5 s).
const TIMER_RUNTIME: u64 = 5;
/// Failed event writes are due again.
const TIMER_EVENTS: u64 = 6;
/// The followed logs are due to be read again.
const TIMER_FOLLOW: u64 = 7;
/// client-go's recorder: how often it tries to write an event, and how long it sleeps between tries (the
/// first sleep is a random part of it).
const EVENT_TRIES: u32 = 12;
const EVENT_RETRY_MS: u64 = 10_000;
const TIMER_POD_BASE: u64 = 1 << 32;

const MIRROR: &str = "kubernetes.io/config.mirror";

/// What a kubelet is started with: its node (labels and taints to register with), addresses, and the
/// node's filesystem (its config file and static pod manifests).
#[derive(Debug, Clone)]
pub struct KubeletConfig {
    pub node: NodeConfig,
    pub control_plane: bool,
    pub node_ip: String,
    pub pod_cidr: String,
    pub fs: Rc<RefCell<NodeFs>>,
    /// How many lines its journal keeps.
    pub journal_lines: usize,
}

/// What a pod worker knows beyond containerd's records.
#[derive(Debug, Clone)]
struct Worker {
    /// `namespace/name` (for a static pod: its mirror pod's).
    key: String,
    pod: PodRef,
    is_static: bool,
    /// A CRI call for this pod is in flight.
    busy: bool,
    sandbox: Option<String>,
    /// containerd lists the sandbox as not ready (its network and pause process died with a reboot): the
    /// worker stops it and makes a new one.
    sandbox_not_ready: bool,
    ip: Option<String>,
    /// Container name → (reason, message) while it waits.
    waiting: BTreeMap<String, (String, String)>,
    /// Container name → (retry at, backoff ms, last error).
    image_backoff: BTreeMap<String, (SimTime, u64, String)>,
    crash_backoff: BTreeMap<String, u64>,
    /// Container ids whose BackOff event was recorded.
    reported: BTreeSet<String>,
    /// The pod is gone from the API (or its manifest removed).
    gone: bool,
    delete_sent: bool,
    conditions: BTreeMap<String, (bool, String)>,
    last_status: Option<Posted>,
    /// A status patch is on its way: the next one waits for its answer (the status manager writes one
    /// update at a time, so two patches can never land out of order).
    status_in_flight: bool,
    /// The status changed while a patch was in flight: post again when it is answered.
    status_dirty: bool,
    /// The resourceVersion of the apiserver's copy last found to agree with what was posted.
    verified_rv: Option<String>,
    start_time: Option<SimTime>,
    timer_at: Option<SimTime>,
    /// Known only from a containerd sandbox (the API has no such pod).
    orphan: bool,
    /// Its PersistentVolumeClaims, checked before the sandbox starts.
    mounts: Mounts,
    /// A static pod whose manifest came back while the old one was still being torn down: it starts
    /// again once that is done.
    readd: Option<Box<Pod>>,
    /// The pod's ephemeral containers (`kubectl debug`), as containers.
    ephemeral: Vec<crate::api::api::core::v1::Container>,
    /// Its startup duration was logged.
    started_logged: bool,
    /// Probe workers: (container, kind) → state for the container id it probes.
    probes: BTreeMap<(String, ProbeKind), ProbeState>,
    /// A container to kill for a failed liveness or startup probe.
    kill: Option<Kill>,
    /// Containers being stopped (by id): when their stop (preStop hook, then the signal) began.
    stopping: BTreeMap<String, SimTime>,
    /// A postStart sleep hook holds the pod worker until then.
    hold_until: Option<SimTime>,
}

#[derive(Debug, Clone)]
enum ApiCall {
    Register,
    /// The status update's read of the Node (`force`: patch even when nothing changed).
    NodeRead {
        force: bool,
    },
    NodeStatus,
    Lease,
    LeaseCreate,
    PodStatus {
        uid: String,
    },
    CreateMirror {
        uid: String,
    },
    /// The final delete (grace 0) of a pod whose containers have all stopped.
    DeletePod {
        uid: String,
    },
    Claim {
        uid: String,
        volume: String,
        claim: String,
    },
    /// An event write, sent again at the next tick when it failed (client-go's recorder tries 12 times,
    /// 10 s apart).
    Event {
        req: Box<ApiRequest>,
        tries: u32,
    },
    Other,
}

#[derive(Debug, Clone)]
enum CriOp {
    Version,
    ListSandboxes,
    ListContainers,
    ListImages,
    Work {
        uid: String,
        step: Step,
    },
    /// A call made for a request to the kubelet's server.
    Serve(Box<server::Served>),
    /// An exec probe.
    Probe(Box<ProbeCall>),
}

#[derive(Debug, Clone)]
enum Step {
    Sandbox,
    ImageStatus {
        container: String,
        attempt: u32,
    },
    Pull {
        container: String,
        attempt: u32,
        /// When the pull was queued (the serial puller may make it wait for other pods' pulls).
        queued: SimTime,
    },
    Create {
        container: String,
    },
    Start {
        container: String,
    },
    Stop,
    /// Stopping a sandbox that is not ready, before making a new one.
    StopSandbox,
    /// A container's preStop exec hook.
    PreStop {
        container: String,
        cmd: Vec<String>,
    },
    /// A container's postStart exec hook.
    PostStart {
        container: String,
        cid: String,
        cmd: Vec<String>,
    },
    RemoveSandbox,
}

/// The kubelet process.
pub struct Kubelet {
    cfg: KubeletConfig,
    conn: ApiConn,
    runtime: ComponentId,
    registered: bool,
    runtime_up: bool,
    /// containerd's sandboxes and containers were listed since start.
    listed: u8,
    containers: BTreeMap<String, Container>,
    /// Logs the apiserver follows, by (apiserver, request id).
    follows: BTreeMap<(ComponentId, u64), server::Follow>,
    workers: BTreeMap<String, Worker>,
    calls: BTreeMap<u64, ApiCall>,
    next_tag: u64,
    cri_calls: BTreeMap<u64, CriOp>,
    next_cri: u64,
    timers: BTreeMap<u64, String>,
    next_timer: u64,
    /// When the node's status was last reported (patched).
    last_node_post: Option<SimTime>,
    /// The status update's read of the Node is on its way.
    node_read_in_flight: bool,
    /// The runtime status check's and PLEG's health.
    runtime_state: node_status::RuntimeState,
    /// The first runtime status check was answered (the kubelet registers after it).
    runtime_checked: bool,
    /// The runtime answered a status check since this process started.
    modules_initialized: bool,
    /// How long the registration waits before its next try.
    register_retry_ms: u64,
    lease_renewals: u64,
    mirror_pending: BTreeSet<String>,
    node_uid: Option<String>,
    /// Events recorded by this process: pod uid, container, type, reason, message → (event name, count).
    recorded: BTreeMap<String, (String, i32)>,
    /// Mirror pods (by their uid) this kubelet already deleted for good.
    deleted_mirrors: BTreeSet<String>,
    /// The static pod path from the config file, if it names one.
    static_path: Option<String>,
    /// Ticks since the static pod path was last read.
    ticks_since_files: u64,
    /// The image cache (`status.images`), and ticks since it was last refreshed.
    images: Vec<super::runtime::Image>,
    ticks_since_images: u64,
    /// Pulls waiting for the serial image puller, and whether one is in flight.
    pull_queue: VecDeque<(String, CriCall, Step)>,
    pulling: bool,
    journal: Journal,
    /// The last error logged for the node status and lease updates (each is logged once until it changes).
    last_status_error: Option<String>,
    /// Event writes that failed: when each is due again, and how often it was tried.
    event_retries: Vec<(SimTime, ApiRequest, u32)>,
    /// Probe workers' pending ticks: timer token → which probe.
    probe_timers: BTreeMap<u64, ProbeTimer>,
    next_probe: u64,
}

impl Kubelet {
    pub fn new(server: ComponentId, runtime: ComponentId, cfg: KubeletConfig) -> Kubelet {
        let name = cfg.node.name.clone();
        let journal = Journal::with_capacity("kubelet", cfg.journal_lines);
        let credentials = Credentials::ClientCert {
            common_name: format!("system:node:{name}"),
            organizations: vec!["system:nodes".into()],
        };
        let mut conn = ApiConn::new(server, credentials.clone());
        conn.add_informer(Informer::new(Kind::Pod, credentials).with_field_selector(&format!("spec.nodeName={name}")));
        Kubelet {
            cfg,
            conn,
            runtime,
            registered: false,
            runtime_up: true,
            listed: 0,
            containers: BTreeMap::new(),
            follows: BTreeMap::new(),
            workers: BTreeMap::new(),
            calls: BTreeMap::new(),
            next_tag: 1,
            cri_calls: BTreeMap::new(),
            next_cri: 1,
            timers: BTreeMap::new(),
            next_timer: 0,
            last_node_post: None,
            node_read_in_flight: false,
            runtime_state: node_status::RuntimeState::default(),
            runtime_checked: false,
            modules_initialized: false,
            register_retry_ms: 0,
            lease_renewals: 0,
            mirror_pending: BTreeSet::new(),
            node_uid: None,
            deleted_mirrors: BTreeSet::new(),
            recorded: BTreeMap::new(),
            static_path: None,
            ticks_since_files: 0,
            images: Vec::new(),
            ticks_since_images: 0,
            pull_queue: VecDeque::new(),
            pulling: false,
            journal,
            last_status_error: None,
            probe_timers: BTreeMap::new(),
            next_probe: 0,
            event_retries: Vec::new(),
        }
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// For systemd's lines about the unit.
    pub fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    fn log(&mut self, now: SimTime, severity: char, location: &'static str, message: &str) {
        self.journal.klog(now, severity, location, message);
    }

    pub fn node(&self) -> &str {
        &self.cfg.node.name
    }

    /// How many times the Lease was renewed by this process.
    pub fn lease_renewals(&self) -> u64 {
        self.lease_renewals
    }

    pub fn runtime_up(&self) -> bool {
        self.runtime_up
    }

    /// A fresh process: everything in memory is gone; it re-registers, re-lists its pods and asks
    /// containerd what runs.
    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.registered = false;
        self.runtime_up = true;
        self.listed = 0;
        self.containers.clear();
        self.workers.clear();
        self.calls.clear();
        self.cri_calls.clear();
        self.timers.clear();
        self.probe_timers.clear();
        self.event_retries.clear();
        self.last_node_post = None;
        self.node_read_in_flight = false;
        self.runtime_state = node_status::RuntimeState::new(ctx.now);
        self.runtime_checked = false;
        self.modules_initialized = false;
        self.register_retry_ms = 0;
        self.recorded.clear();
        self.mirror_pending.clear();
        self.last_status_error = None;
        self.ticks_since_files = 0;
        self.images.clear();
        self.pull_queue.clear();
        self.pulling = false;
        let now = ctx.now;
        self.log(now, 'I', "server.go:525", &format!("\"Kubelet version\" kubeletVersion={KUBELET_VERSION:?}"));
        self.conn.start(ctx);
        let config = self.cfg.fs.borrow().text(KUBELET_CONFIG);
        self.static_path = match config {
            Some(text) => static_pod_path(&text),
            None => {
                let err = format!(
                    "failed to read kubelet config file {KUBELET_CONFIG:?}, error: open {KUBELET_CONFIG}: no such file or directory"
                );
                let msg =
                    format!("\"Failed to load kubelet config file\" err={} path={KUBELET_CONFIG:?}", go_quote(&err));
                self.log(now, 'E', "run.go:72", &msg);
                None
            }
        };
        if let Some(path) = self.static_path.clone() {
            self.log(now, 'I', "kubelet.go:407", &format!("\"Adding static pod path\" path={path:?}"));
            self.cfg.fs.borrow_mut().watch(&path, ctx.me, TIMER_FILES);
        }
        self.read_static_pods(ctx);
        self.log(now, 'I', "kubelet.go:2436", "\"Starting kubelet main sync loop\"");
        self.record_node(ctx, "Normal", "Starting", "Starting kubelet.");
        // PLEG's first relist, the image cache, then the runtime status check, which the node's registration
        // waits for (the kubelet checks the runtime once before its first node status sync).
        self.cri(ctx, CriCall::ListPodSandbox, CriOp::ListSandboxes);
        self.cri(ctx, CriCall::ListContainers, CriOp::ListContainers);
        self.ticks_since_images = 0;
        self.cri(ctx, CriCall::ListImages, CriOp::ListImages);
        self.cri(ctx, CriCall::Version, CriOp::Version);
        ctx.timer(TICK_MS, TIMER_TICK);
        ctx.timer(node_status::RUNTIME_CHECK_MS, TIMER_RUNTIME);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, payload: Payload) {
        match payload {
            Payload::Cri(m) => self.on_cri(ctx, *m),
            Payload::Kubelet(m) => self.on_server_request(ctx, from, *m),
            Payload::Disconnected { peer, .. } if peer == self.runtime && from == self.runtime => {
                self.runtime_down(ctx)
            }
            other => {
                for incoming in self.conn.on_message(ctx, other) {
                    match incoming {
                        Incoming::Changes { changes, .. } => self.on_pods(ctx, changes),
                        Incoming::Answer { tag, result } => {
                            let call = self.calls.remove(&tag).unwrap_or(ApiCall::Other);
                            self.on_answer(ctx, call, result);
                        }
                    }
                }
            }
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if self.conn.on_timer(ctx, token) {
            return;
        }
        match token {
            TIMER_TICK => {
                ctx.timer(TICK_MS, TIMER_TICK);
                if let Some(err) = self.runtime_state.errors(ctx.now).filter(|_| self.runtime_checked) {
                    let msg = format!("\"Skipping pod synchronization\" err={}", go_quote(&err));
                    self.log(ctx.now, 'E', "kubelet.go:2646", &msg);
                }
                self.ticks_since_files += 1;
                if self.ticks_since_files * TICK_MS >= FILE_CHECK_MS {
                    self.read_static_pods(ctx);
                }
                self.ticks_since_images += 1;
                if self.runtime_up && self.ticks_since_images * TICK_MS >= node_images::IMAGE_CACHE_REFRESH_MS {
                    self.ticks_since_images = 0;
                    self.cri(ctx, CriCall::ListImages, CriOp::ListImages);
                }
                if self.registered {
                    self.renew_lease(ctx);
                    self.update_node_status(ctx, false);
                }
                self.ensure_mirrors(ctx);
                self.reconcile_pod_statuses(ctx);
            }
            TIMER_EVENTS => {
                let (due, later): (Vec<_>, Vec<_>) =
                    std::mem::take(&mut self.event_retries).into_iter().partition(|(at, ..)| *at <= ctx.now);
                self.event_retries = later;
                for (_, req, tries) in due {
                    self.call(ctx, req.clone(), ApiCall::Event { req: Box::new(req), tries });
                }
            }
            TIMER_RUNTIME => {
                ctx.timer(node_status::RUNTIME_CHECK_MS, TIMER_RUNTIME);
                self.cri(ctx, CriCall::Version, CriOp::Version);
            }
            TIMER_MIRRORS => self.ensure_mirrors(ctx),
            TIMER_FOLLOW => self.poll_follows(ctx),
            TIMER_FILES => self.read_static_pods(ctx),
            TIMER_REGISTER => {
                if !self.registered {
                    self.register(ctx);
                }
            }
            t if t >= TIMER_PROBE_BASE => self.on_probe_timer(ctx, t),
            t => {
                if let Some(uid) = self.timers.remove(&t) {
                    if let Some(w) = self.workers.get_mut(&uid) {
                        w.timer_at = None;
                    }
                    self.sync(ctx, &uid);
                }
            }
        }
    }

    fn tag(&mut self, call: ApiCall) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.calls.insert(tag, call);
        tag
    }

    fn call(&mut self, ctx: &mut Ctx, req: ApiRequest, why: ApiCall) {
        let tag = self.tag(why);
        self.conn.call(ctx, req, tag);
    }

    fn cri(&mut self, ctx: &mut Ctx, call: CriCall, op: CriOp) {
        let id = self.next_cri;
        self.next_cri += 1;
        self.cri_calls.insert(id, op);
        ctx.send(self.runtime, Payload::Cri(Box::new(CriMessage::Request { id, call })));
    }

    // ---- the node's lease (its status: see node_status.rs) ----

    fn lease_body(&self, ctx: &Ctx) -> Value {
        json!({"holderIdentity": self.cfg.node.name, "leaseDurationSeconds": LEASE_DURATION_S,
               "renewTime": micro_time(ctx.now)})
    }

    fn renew_lease(&mut self, ctx: &mut Ctx) {
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Lease.info())
            .namespace(Some("kube-node-lease"))
            .name(&self.cfg.node.name);
        req.patch = Some(PatchBody::Merge(json!({ "spec": self.lease_body(ctx) })));
        self.call(ctx, req, ApiCall::Lease);
    }

    fn create_lease(&mut self, ctx: &mut Ctx) {
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Lease.info())
            .namespace(Some("kube-node-lease"));
        req.raw_body = Some(json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": self.cfg.node.name, "namespace": "kube-node-lease",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": self.cfg.node.name,
                                              "uid": self.node_uid()}]},
            "spec": self.lease_body(ctx),
        }));
        self.call(ctx, req, ApiCall::LeaseCreate);
    }

    fn node_uid(&self) -> String {
        self.node_uid.clone().unwrap_or_default()
    }

    fn on_answer(&mut self, ctx: &mut Ctx, call: ApiCall, result: Result<ApiResponse, crate::client::ClientError>) {
        let status_reason = match &result {
            Ok(ApiResponse::Error(s)) => Some(s.reason),
            _ => None,
        };
        let ok = matches!(result, Ok(ApiResponse::Object(_)));
        let node = self.cfg.node.name.clone();
        match call {
            ApiCall::Register => {
                if let Ok(ApiResponse::Object(o)) = &result {
                    self.node_uid = o.meta().uid.clone();
                }
                if ok || status_reason == Some(Reason::AlreadyExists) {
                    let msg = if ok { "Successfully registered node" } else { "Node was previously registered" };
                    self.log(ctx.now, 'I', "kubelet_node_status.go:78", &format!("{msg:?} node={node:?}"));
                    self.last_status_error = None;
                    self.registered = true;
                    self.update_node_status(ctx, true);
                    self.renew_lease(ctx);
                    self.ensure_mirrors(ctx);
                    self.ensure_csi_node(ctx);
                } else {
                    let err = self.failure(&result, "POST", "/api/v1/nodes");
                    if self.last_status_error.as_ref() != Some(&err) {
                        let msg =
                            format!("\"Unable to register node with API server\" err={} node={node:?}", go_quote(&err));
                        self.log(ctx.now, 'E', "kubelet_node_status.go:107", &msg);
                        self.last_status_error = Some(err);
                    }
                    self.register_retry_ms =
                        (self.register_retry_ms * 2).clamp(REGISTER_RETRY_MS * 2, REGISTER_RETRY_MAX_MS);
                    ctx.timer(self.register_retry_ms, TIMER_REGISTER);
                }
            }
            ApiCall::NodeRead { force } => self.on_node_read(ctx, force, result),
            ApiCall::NodeStatus => {
                if ok {
                    self.last_status_error = None;
                } else {
                    let err = self.failure(&result, "PATCH", &format!("/api/v1/nodes/{node}/status"));
                    let msg = format!("\"Error updating node status, will retry\" err={}", go_quote(&err));
                    self.log(ctx.now, 'E', "kubelet_node_status.go:549", &msg);
                    // Post again at the next tick.
                    self.last_node_post = None;
                }
            }
            ApiCall::Lease => {
                if ok {
                    self.lease_renewals += 1;
                } else if status_reason == Some(Reason::NotFound) {
                    self.create_lease(ctx);
                } else {
                    let err = self.failure(
                        &result,
                        "PUT",
                        &format!("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{node}"),
                    );
                    let msg = format!("\"Failed to update lease\" err={}", go_quote(&err));
                    self.log(ctx.now, 'E', "controller.go:145", &msg);
                }
            }
            ApiCall::LeaseCreate => {
                if ok {
                    self.lease_renewals += 1;
                }
            }
            ApiCall::PodStatus { uid } => {
                let Some(w) = self.workers.get_mut(&uid) else { return };
                w.status_in_flight = false;
                if !ok {
                    w.last_status = None;
                }
                if std::mem::take(&mut w.status_dirty) {
                    self.post_pod_status(ctx, &uid);
                }
            }
            ApiCall::CreateMirror { uid } => {
                self.mirror_pending.remove(&uid);
                if let Some(w) = self.workers.get_mut(&uid) {
                    w.last_status = None;
                }
                if ok {
                    self.sync(ctx, &uid);
                } else {
                    ctx.timer(MIRROR_RETRY_MS, TIMER_MIRRORS);
                }
            }
            ApiCall::DeletePod { uid } => {
                // The status manager's next sync (every 10 s) deletes the pod again when this one failed
                // (the apiserver was down); a pod already gone needs nothing more.
                let failed = result.is_err() || status_reason.is_some_and(|r| r != Reason::NotFound);
                if failed {
                    if let Some(w) = self.workers.get_mut(&uid) {
                        w.delete_sent = false;
                    }
                    self.wake(ctx, &uid, ctx.now.plus_ms(WORKER_BACKOFF_MS));
                }
            }
            ApiCall::Claim { uid, volume, claim } => self.on_claim(ctx, &uid, volume, &claim, &result),
            ApiCall::Event { req, tries } => {
                let tries = tries + 1;
                if !ok && tries < EVENT_TRIES && status_reason != Some(Reason::AlreadyExists) {
                    let ms = if tries == 1 { ctx.rng.below(EVENT_RETRY_MS) } else { EVENT_RETRY_MS };
                    self.event_retries.push((ctx.now.plus_ms(ms), *req, tries));
                    ctx.timer(ms, TIMER_EVENTS);
                }
            }
            ApiCall::Other => {}
        }
    }

    /// How client-go words a failed request: the transport error after the URL, or the server's message.
    fn failure(&self, result: &Result<ApiResponse, ClientError>, verb: &str, path: &str) -> String {
        crate::client::process::request_error(result, verb, &format!("{path}?timeout=10s"))
    }

    // ---- the file source: static pods ----

    /// Reads the static pod path and starts, stops and restarts static pods to match what it holds.
    fn read_static_pods(&mut self, ctx: &mut Ctx) {
        self.ticks_since_files = 0;
        let Some(dir) = self.static_path.clone() else { return };
        let seen = micro_time(ctx.now).replace(".000000Z", "Z");
        let read = static_pods::read(&self.cfg.fs.borrow(), &dir, &self.cfg.node.name, &seen);
        for e in &read.errors {
            self.log(ctx.now, 'E', "file.go:247", e);
        }
        let desired: BTreeMap<String, StaticPod> = read.pods.into_iter().map(|p| (p.uid.clone(), p)).collect();
        let removed: Vec<(String, String)> = self
            .workers
            .iter()
            .filter(|(uid, w)| w.is_static && !w.gone && !desired.contains_key(*uid))
            .map(|(uid, w)| (uid.clone(), w.key.clone()))
            .collect();
        let mut touched = Vec::new();
        for (uid, key) in removed {
            if let Some(w) = self.workers.get_mut(&uid) {
                w.gone = true;
                w.readd = None;
            }
            self.log(ctx.now, 'I', "kubelet.go:2468", &format!("\"SyncLoop REMOVE\" source=\"file\" pods=[{key:?}]"));
            self.delete_mirror(ctx, &key);
            touched.push(uid);
        }
        for (uid, sp) in desired {
            let add = format!("\"SyncLoop ADD\" source=\"file\" pods=[{:?}]", sp.key);
            match self.workers.get_mut(&uid) {
                Some(w) if w.gone => {
                    if w.readd.is_none() {
                        w.readd = Some(Box::new(sp.pod));
                        self.log(ctx.now, 'I', "kubelet.go:2452", &add);
                    }
                }
                // A sandbox containerd kept from before a restart, with this static pod's uid: it is this pod.
                Some(w) if w.orphan => {
                    w.orphan = false;
                    w.is_static = true;
                    w.key = sp.key.clone();
                    w.pod = PodRef::owned(sp.pod);
                    self.log(ctx.now, 'I', "kubelet.go:2452", &add);
                    touched.push(uid);
                }
                Some(_) => {}
                None => {
                    let mut w = Worker::new(sp.key.clone(), PodRef::owned(sp.pod));
                    w.is_static = true;
                    self.workers.insert(uid.clone(), w);
                    self.log(ctx.now, 'I', "kubelet.go:2452", &add);
                    touched.push(uid);
                }
            }
        }
        self.ensure_mirrors(ctx);
        for uid in touched {
            self.sync(ctx, &uid);
        }
    }

    /// Deletes the mirror pod `key` (its static pod is gone), once.
    fn delete_mirror(&mut self, ctx: &mut Ctx, key: &str) {
        let Some(Object::Pod(mirror)) = self.conn.informer(0).get(key).map(|o| o.as_ref().clone()) else { return };
        let Some(mirror_uid) = mirror.metadata.uid.clone() else { return };
        if static_pods::mirror_of(&mirror).is_none() || !self.deleted_mirrors.insert(mirror_uid.clone()) {
            return;
        }
        self.log(
            ctx.now,
            'I',
            "mirror_client.go:139",
            &format!("\"Deleting a mirror pod\" pod={key:?} podUID={mirror_uid:?}"),
        );
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, Kind::Pod.info())
            .namespace(mirror.metadata.namespace.as_deref())
            .name(mirror.metadata.name.as_deref().unwrap_or(""));
        req.params.grace_period_seconds = Some(0);
        self.call(ctx, req, ApiCall::Other);
    }

    /// A mirror pod whose static pod this kubelet does not run (its manifest was removed): its key.
    fn orphan_mirror(&self, o: &Object) -> Option<String> {
        let Object::Pod(pod) = o else { return None };
        let of = static_pods::mirror_of(pod)?;
        let running = self.workers.get(of).is_some_and(|w| w.is_static && (!w.gone || w.readd.is_some()));
        (!running && pod.metadata.deletion_timestamp.is_none()).then(|| o.ns_name())
    }

    // ---- pods from the API ----

    fn on_pods(&mut self, ctx: &mut Ctx, changes: Vec<Change>) {
        let mut touched = BTreeSet::new();
        let mut orphans = Vec::new();
        for change in changes {
            match change {
                Change::Added(o) => {
                    orphans.extend(self.orphan_mirror(&o));
                    if let Some(uid) = self.take_pod(&o, false) {
                        self.log_pods(ctx.now, "SyncLoop ADD", &o);
                        touched.insert(uid);
                    }
                }
                Change::Modified { old, new } => {
                    orphans.extend(self.orphan_mirror(&new));
                    if old.meta().deletion_timestamp.is_none() && new.meta().deletion_timestamp.is_some() {
                        self.log_pods(ctx.now, "SyncLoop DELETE", &new);
                    }
                    // Status writes (mostly its own) do not wake a pod worker; spec and deletion do.
                    let relevant = match (old.as_ref(), new.as_ref()) {
                        (Object::Pod(a), Object::Pod(b)) => {
                            a.spec != b.spec
                                || a.metadata.deletion_timestamp != b.metadata.deletion_timestamp
                                || a.metadata.annotations != b.metadata.annotations
                        }
                        _ => true,
                    };
                    if let Some(uid) = self.take_pod(&new, false).filter(|_| relevant) {
                        touched.insert(uid);
                    }
                }
                Change::Deleted(o) => {
                    if let Some(uid) = self.take_pod(&o, true) {
                        self.log_pods(ctx.now, "SyncLoop REMOVE", &o);
                        touched.insert(uid);
                    }
                }
                Change::Resynced => {
                    let pods: Vec<Arc<Object>> = self.conn.informer(0).objects().cloned().collect();
                    let mut seen = BTreeSet::new();
                    for o in pods {
                        orphans.extend(self.orphan_mirror(&o));
                        if let Some(uid) = self.take_pod(&o, false) {
                            seen.insert(uid.clone());
                            touched.insert(uid);
                        }
                    }
                    for (uid, w) in &mut self.workers {
                        if !w.is_static && !seen.contains(uid) {
                            w.gone = true;
                            touched.insert(uid.clone());
                        }
                    }
                }
            }
        }
        for key in orphans {
            self.delete_mirror(ctx, &key);
        }
        self.ensure_mirrors(ctx);
        for uid in touched {
            self.sync(ctx, &uid);
        }
    }

    /// `"SyncLoop ADD" source="api" pods=["default/web"]`.
    fn log_pods(&mut self, now: SimTime, what: &str, o: &Object) {
        let msg = format!("{what:?} source=\"api\" pods=[{:?}]", o.ns_name());
        self.log(now, 'I', "kubelet.go:2452", &msg);
    }

    /// Records a pod from the informer; the uid of the worker to sync. Mirror pods are not run.
    fn take_pod(&mut self, o: &Arc<Object>, deleted: bool) -> Option<String> {
        let Object::Pod(pod) = o.as_ref() else { return None };
        let shared = PodRef::shared(o)?;
        if pod.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(MIRROR)) {
            return None;
        }
        let uid = pod.metadata.uid.clone()?;
        let w = self.workers.entry(uid.clone()).or_insert_with(|| {
            // A restarted kubelet keeps the transition times the API already has.
            let mut w = Worker::new(o.ns_name(), shared.clone());
            for c in pod.status.as_ref().and_then(|s| s.conditions.as_ref()).into_iter().flatten() {
                if let Some(at) = c.last_transition_time.as_ref() {
                    let at = serde_json::to_value(at).ok().and_then(|v| v.as_str().map(str::to_string));
                    if let Some(at) = at {
                        w.conditions.insert(c.type_.clone(), (c.status == "True", at));
                    }
                }
            }
            w
        });
        w.pod = shared;
        w.ephemeral = crate::api::ephemeral::as_containers(pod.spec.as_ref());
        w.orphan = false;
        w.key = o.ns_name();
        if deleted {
            w.gone = true;
        }
        Some(uid)
    }

    fn ensure_mirrors(&mut self, ctx: &mut Ctx) {
        if !self.conn.synced() || !self.registered {
            return;
        }
        let statics: Vec<(String, Worker)> =
            self.workers.iter().filter(|(_, w)| w.is_static && !w.gone).map(|(u, w)| (u.clone(), w.clone())).collect();
        for (uid, w) in statics {
            if self.mirror_pending.contains(&uid) {
                continue;
            }
            match self.conn.informer(0).get(&w.key).map(|o| o.as_ref().clone()) {
                None => {
                    let mut pod = Pod::clone(&w.pod);
                    pod.metadata.uid = None;
                    let mut annotations = pod.metadata.annotations.clone().unwrap_or_default();
                    annotations.insert(MIRROR.into(), uid.clone());
                    pod.metadata.annotations = Some(annotations);
                    pod.status = None;
                    let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Pod.info())
                        .namespace(pod.metadata.namespace.as_deref());
                    req.raw_body = Some(serde_json::to_value(&pod).unwrap_or_default());
                    if let Some(b) = req.raw_body.as_mut() {
                        b["apiVersion"] = json!("v1");
                        b["kind"] = json!("Pod");
                        b["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Node",
                            "name": self.cfg.node.name, "uid": self.node_uid(), "controller": true}]);
                    }
                    self.mirror_pending.insert(uid.clone());
                    self.call(ctx, req, ApiCall::CreateMirror { uid });
                }
                Some(Object::Pod(mirror))
                    if mirror.metadata.deletion_timestamp.is_some()
                        && !self.deleted_mirrors.contains(mirror.metadata.uid.as_deref().unwrap_or("")) =>
                {
                    self.deleted_mirrors.insert(mirror.metadata.uid.clone().unwrap_or_default());
                    // A mirror pod being deleted is outdated: finish the delete; it is recreated after.
                    let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, Kind::Pod.info())
                        .namespace(mirror.metadata.namespace.as_deref())
                        .name(mirror.metadata.name.as_deref().unwrap_or(""));
                    req.params.grace_period_seconds = Some(0);
                    self.call(ctx, req, ApiCall::Other);
                }
                Some(_) => {}
            }
        }
    }

    // ---- containerd ----

    fn runtime_down(&mut self, ctx: &mut Ctx) {
        let was_up = self.runtime_up;
        self.runtime_up = false;
        if was_up {
            let err = "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /var/run/containerd/containerd.sock: connect: no such file or directory\"";
            let msg = format!("\"Version from runtime service failed\" err={}", go_quote(err));
            self.log(ctx.now, 'E', "log.go:32", &msg);
        }
        let ops: Vec<CriOp> = std::mem::take(&mut self.cri_calls).into_values().collect();
        self.pulling = false;
        for (uid, _, _) in std::mem::take(&mut self.pull_queue) {
            if let Some(w) = self.workers.get_mut(&uid) {
                w.busy = false;
            }
        }
        for op in &ops {
            match op.clone() {
                CriOp::Work { uid, .. } => {
                    if let Some(w) = self.workers.get_mut(&uid) {
                        w.busy = false;
                    }
                }
                CriOp::Serve(s) => self.on_served(ctx, *s, Err(server::CRI_UNAVAILABLE.into())),
                CriOp::Probe(p) => self.probe_lost(&p),
                _ => {}
            }
        }
        self.runtime_state.relist_failed(ctx.now);
        if ops.iter().any(|op| matches!(op, CriOp::Version)) {
            self.on_runtime_check(ctx, false);
        }
    }

    /// The runtime status check's answer. The first one (either way) lets the node register; the first
    /// success initializes what needs the runtime (the container manager enforces Node Allocatable).
    fn on_runtime_check(&mut self, ctx: &mut Ctx, ok: bool) {
        if ok {
            self.runtime_state.synced(ctx.now);
            if !self.modules_initialized {
                self.modules_initialized = true;
                self.record_node(
                    ctx,
                    "Normal",
                    "NodeAllocatableEnforced",
                    "Updated Node Allocatable limit across pods",
                );
            }
        }
        if !std::mem::replace(&mut self.runtime_checked, true) && !self.registered {
            let msg = format!("\"Attempting to register node\" node={:?}", self.cfg.node.name);
            self.log(ctx.now, 'I', "kubelet_node_status.go:75", &msg);
            self.register(ctx);
        }
    }

    fn on_cri(&mut self, ctx: &mut Ctx, m: CriMessage) {
        match m {
            CriMessage::Refused { id } => {
                match self.cri_calls.remove(&id) {
                    Some(CriOp::Serve(s)) => self.on_served(ctx, *s, Err(server::CRI_UNAVAILABLE.into())),
                    Some(CriOp::Probe(p)) => self.probe_lost(&p),
                    Some(CriOp::Version) => self.on_runtime_check(ctx, false),
                    _ => {}
                }
                self.runtime_down(ctx);
            }
            CriMessage::Exited { container } => {
                let uid = container.pod_uid.clone();
                self.containers.insert(container.id.clone(), container);
                self.sync(ctx, &uid);
            }
            CriMessage::Request { .. } => {}
            CriMessage::Reply { id, result } => {
                let Some(op) = self.cri_calls.remove(&id) else { return };
                match op {
                    CriOp::Version => {
                        if result.is_ok() && !self.runtime_up {
                            self.runtime_up = true;
                            self.listed = 0;
                            self.cri(ctx, CriCall::ListPodSandbox, CriOp::ListSandboxes);
                            self.cri(ctx, CriCall::ListContainers, CriOp::ListContainers);
                            self.ticks_since_images = 0;
                            self.cri(ctx, CriCall::ListImages, CriOp::ListImages);
                        }
                        self.on_runtime_check(ctx, result.is_ok());
                    }
                    CriOp::ListSandboxes => {
                        if let Ok(CriReply::Sandboxes(list)) = result {
                            // Ready sandboxes first: a pod's not-ready one counts only when it has no other.
                            let mut list = list;
                            list.sort_by_key(|s| (s.ready, s.created_at));
                            for s in list {
                                if let Some(w) = self.workers.get_mut(&s.uid) {
                                    w.sandbox = Some(s.id.clone());
                                    w.sandbox_not_ready = !s.ready;
                                    w.ip = Some(s.ip.clone());
                                    w.start_time.get_or_insert(s.created_at);
                                } else {
                                    // A sandbox of a pod this kubelet does not know (yet): keep it as an orphan
                                    // worker so it is cleaned up when the pod turns out to be gone.
                                    let mut pod = Pod::default();
                                    pod.metadata.uid = Some(s.uid.clone());
                                    pod.metadata.name = Some(s.name.clone());
                                    pod.metadata.namespace = Some(s.namespace.clone());
                                    let key = format!("{}/{}", s.namespace, s.name);
                                    let mut w = Worker::new(key, PodRef::owned(pod));
                                    w.sandbox = Some(s.id.clone());
                                    w.sandbox_not_ready = !s.ready;
                                    w.ip = Some(s.ip.clone());
                                    w.start_time = Some(s.created_at);
                                    w.orphan = true;
                                    self.workers.insert(s.uid.clone(), w);
                                }
                            }
                        }
                        self.listed += 1;
                        if self.listed == 2 {
                            self.runtime_state.relisted(ctx.now);
                        }
                        self.sync_all(ctx);
                    }
                    CriOp::ListImages => {
                        if let Ok(CriReply::Images(list)) = result {
                            self.images = node_images::cache(list);
                        }
                    }
                    CriOp::ListContainers => {
                        if let Ok(CriReply::Containers(list)) = result {
                            self.containers = list.into_iter().map(|c| (c.id.clone(), c)).collect();
                        }
                        self.listed += 1;
                        if self.listed == 2 {
                            self.runtime_state.relisted(ctx.now);
                        }
                        self.sync_all(ctx);
                    }
                    CriOp::Serve(s) => self.on_served(ctx, *s, result),
                    CriOp::Probe(p) => self.on_probe_reply(ctx, *p, result),
                    CriOp::Work { uid, step } => {
                        if let Some(w) = self.workers.get_mut(&uid) {
                            w.busy = false;
                        }
                        if matches!(step, Step::Pull { .. }) {
                            self.pulling = false;
                            self.next_pull(ctx);
                        }
                        if self.on_step(ctx, &uid, step, result) {
                            self.sync(ctx, &uid);
                        }
                    }
                }
            }
        }
    }

    /// Handles a pod's CRI answer; false when the pod worker waits before syncing again (after an error,
    /// as the kubelet's pod workers requeue a failed sync after 10 s).
    fn on_step(&mut self, ctx: &mut Ctx, uid: &str, step: Step, result: Result<CriReply, String>) -> bool {
        let Some(w) = self.workers.get(uid).cloned() else { return false };
        match (step, result) {
            (Step::Sandbox, Ok(CriReply::Sandbox(s))) => {
                if let Some(w) = self.workers.get_mut(uid) {
                    w.sandbox = Some(s.id);
                    w.ip = Some(s.ip);
                }
            }
            (Step::ImageStatus { container, attempt }, Ok(CriReply::Image(image))) => {
                let Some(spec) = container_spec(&w, &container) else { return true };
                let image_name = spec.image.clone().unwrap_or_default();
                let always = pull_policy(spec) == "Always";
                if image.is_some() && !always {
                    let msg = format!("Container image {image_name:?} already present on machine");
                    self.record(ctx, uid, Some(&container), "Normal", "Pulled", &msg);
                    self.create_container(ctx, uid, &w, container, attempt);
                } else {
                    self.record(
                        ctx,
                        uid,
                        Some(&container),
                        "Normal",
                        "Pulling",
                        &format!("Pulling image {image_name:?}"),
                    );
                    let step = Step::Pull { container, attempt, queued: ctx.now };
                    self.queue_pull(ctx, uid, CriCall::PullImage { image: image_name }, step);
                }
            }
            (Step::Pull { container, attempt, queued }, Ok(CriReply::Pulled { image, pull_ms })) => {
                let Some(spec) = container_spec(&w, &container) else { return true };
                let name = spec.image.clone().unwrap_or_default();
                let d = go_duration(pull_ms);
                let waited = go_duration(ctx.now.since(queued).max(pull_ms));
                let msg = format!(
                    "Successfully pulled image {name:?} in {d} ({waited} including waiting). Image size: {} bytes.",
                    image.size
                );
                self.record(ctx, uid, Some(&container), "Normal", "Pulled", &msg);
                if let Some(w) = self.workers.get_mut(uid) {
                    w.image_backoff.remove(&container);
                    w.waiting.remove(&container);
                }
                self.create_container(ctx, uid, &w, container, attempt);
            }
            (Step::Pull { container, .. }, Err(e)) => {
                let Some(spec) = container_spec(&w, &container) else { return true };
                let name = spec.image.clone().unwrap_or_default();
                self.record(
                    ctx,
                    uid,
                    Some(&container),
                    "Warning",
                    "Failed",
                    &format!("Failed to pull image {name:?}: {e}"),
                );
                self.record(ctx, uid, Some(&container), "Warning", "Failed", "Error: ErrImagePull");
                self.log_sync_error(ctx.now, &w, &container, "ErrImagePull", &e);
                if let Some(w) = self.workers.get_mut(uid) {
                    let prev = w.image_backoff.get(&container).map(|b| b.1);
                    let ms = prev.map_or(BACKOFF_INITIAL_MS, |p| (p * 2).min(BACKOFF_MAX_MS));
                    w.image_backoff.insert(container.clone(), (ctx.now.plus_ms(ms), ms, e.clone()));
                    w.waiting.insert(container.clone(), ("ErrImagePull".into(), e));
                    w.reported.remove(&format!("pull:{container}"));
                }
                self.post_pod_status(ctx, uid);
                self.wake(ctx, uid, ctx.now.plus_ms(WORKER_BACKOFF_MS));
                return false;
            }
            (Step::Create { container }, Ok(CriReply::Container(c))) => {
                self.record(
                    ctx,
                    uid,
                    Some(&container),
                    "Normal",
                    "Created",
                    &format!("Created container: {container}"),
                );
                let id = c.id.clone();
                self.containers.insert(id.clone(), *c);
                self.work(ctx, uid, CriCall::StartContainer { id }, Step::Start { container });
            }
            (Step::Start { container }, Ok(CriReply::Container(c))) => {
                self.record(ctx, uid, Some(&container), "Normal", "Started", &format!("Started container {container}"));
                let cid = c.id.clone();
                self.containers.insert(c.id.clone(), *c);
                self.log_started(ctx.now, uid);
                if let Some(w) = self.workers.get_mut(uid) {
                    w.waiting.remove(&container);
                }
                self.post_start(ctx, uid, &w, &container, &cid);
            }
            (Step::PostStart { container, cid, cmd }, result) => {
                let failed = match result {
                    Ok(CriReply::Exec { output, exit_code }) if exit_code != 0 => {
                        let out: String = output.iter().map(|(_, t)| t.as_str()).collect();
                        Some(format!("command '{}' exited with {exit_code}: {out}", cmd.join(" ")))
                    }
                    Ok(_) => None,
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    self.post_start_failed(ctx, uid, &w, &container, &cid, &e);
                }
            }
            (Step::PreStop { container, cmd }, result) => {
                let failed = match result {
                    Ok(CriReply::Exec { exit_code: 0, .. }) => None,
                    Ok(CriReply::Exec { output, exit_code }) => {
                        let out: String = output.iter().map(|(_, t)| t.as_str()).collect();
                        Some(format!("command '{}' exited with {exit_code}: {out}", cmd.join(" ")))
                    }
                    Ok(_) => None,
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    // The event leaves the hook's output out (it may hold secrets); the journal has it.
                    let msg = format!(
                        "\"PreStop hook failed\" err={} pod={:?} podUID={uid:?} containerName={container:?}",
                        go_quote(&e),
                        w.key
                    );
                    self.log(ctx.now, 'E', "kuberuntime_container.go:666", &msg);
                    self.record(ctx, uid, Some(&container), "Warning", "FailedPreStopHook", "PreStopHook failed");
                }
            }
            (Step::Stop, Ok(CriReply::Container(c))) => {
                self.containers.insert(c.id.clone(), *c);
            }
            (Step::StopSandbox, Ok(_)) => {
                if let Some(w) = self.workers.get_mut(uid) {
                    w.sandbox = None;
                    w.sandbox_not_ready = false;
                    w.ip = None;
                }
            }
            (Step::RemoveSandbox, Ok(_)) => {
                self.containers.retain(|_, c| c.pod_uid != uid);
                if let Some(w) = self.workers.get_mut(uid) {
                    w.sandbox = None;
                }
            }
            (Step::Create { container } | Step::Start { container }, Err(e)) => {
                self.record(ctx, uid, Some(&container), "Warning", "Failed", &format!("Error: {e}"));
                if let Some(w) = self.workers.get_mut(uid) {
                    w.waiting.insert(container.clone(), ("CreateContainerError".into(), e));
                }
                self.wake(ctx, uid, ctx.now.plus_ms(WORKER_BACKOFF_MS));
                return false;
            }
            _ => {}
        }
        true
    }

    /// `"Error syncing pod, skipping" err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff: …"`.
    fn log_sync_error(&mut self, now: SimTime, w: &Worker, container: &str, reason: &str, detail: &str) {
        let err = format!("failed to \"StartContainer\" for {container:?} with {reason}: {}", go_quote(detail));
        let uid = w.pod.metadata.uid.clone().unwrap_or_default();
        let msg = format!("\"Error syncing pod, skipping\" err={} pod={:?} podUID={uid:?}", go_quote(&err), w.key);
        self.log(now, 'E', "pod_workers.go:1301", &msg);
    }

    /// The first time every container of a pod runs: how long that took since the pod was created.
    fn log_started(&mut self, now: SimTime, uid: &str) {
        let Some(w) = self.workers.get(uid) else { return };
        let names: Vec<String> =
            w.pod.spec.as_ref().map(|s| s.containers.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
        let all_running = names
            .iter()
            .all(|n| self.pod_containers(uid, n).last().is_some_and(|c| c.state == ContainerState::Running));
        if w.started_logged || !all_running {
            return;
        }
        let created = w
            .pod
            .metadata
            .creation_timestamp
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .and_then(|v| v.as_str().and_then(crate::sim::time::parse_rfc3339))
            .or(w.start_time)
            .unwrap_or(now);
        let key = w.key.clone();
        if let Some(w) = self.workers.get_mut(uid) {
            w.started_logged = true;
        }
        let took = go_duration(now.since(created));
        let c = crate::sim::time::Civil::of(created);
        let msg = format!(
            "\"Observed pod startup duration\" pod={key:?} podStartE2EDuration={took:?} podCreationTimestamp=\"{:04}-{:02}-{:02} {:02}:{:02}:{:02} +0000 UTC\"",
            c.year, c.month, c.day, c.hour, c.minute, c.second
        );
        self.log(now, 'I', "pod_startup_latency_tracker.go:104", &msg);
    }

    /// Asks containerd to create `container` of the pod in its sandbox (the image is on the node).
    fn create_container(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker, container: String, attempt: u32) {
        let call = CriCall::CreateContainer {
            sandbox_id: w.sandbox.clone().unwrap_or_default(),
            spec: self.cri_spec(w, &container, attempt),
        };
        self.work(ctx, uid, call, Step::Create { container });
    }

    fn cri_spec(&self, w: &Worker, container: &str, attempt: u32) -> ContainerSpec {
        let spec = container_spec(w, container);
        ContainerSpec {
            name: container.to_string(),
            image: spec.and_then(|s| s.image.clone()).unwrap_or_default(),
            command: spec.and_then(|s| s.command.clone()).unwrap_or_default(),
            args: spec.and_then(|s| s.args.clone()).unwrap_or_default(),
            attempt,
            annotations: w.pod.metadata.annotations.clone().unwrap_or_default(),
            env: server::container_env(&w.pod, container, w.ip.as_deref(), &self.cfg.node_ip),
            memory_limit: spec
                .and_then(|s| s.resources.as_ref()?.limits.as_ref()?.get("memory"))
                .and_then(|q| crate::api::quantity::Quantity::parse(&q.0))
                .map(|q| q.value().clamp(0, i128::from(u64::MAX)) as u64),
            stdin: spec.and_then(|s| s.stdin).unwrap_or(false),
            stdin_once: spec.and_then(|s| s.stdin_once).unwrap_or(false),
            tty: spec.and_then(|s| s.tty).unwrap_or(false),
        }
    }

    /// The serial image puller (`serializeImagePulls: true`, the default): one PullImage at a time for the
    /// whole node, in the order the pods asked; a pod waiting for its turn does nothing else meanwhile.
    fn queue_pull(&mut self, ctx: &mut Ctx, uid: &str, call: CriCall, step: Step) {
        if let Some(w) = self.workers.get_mut(uid) {
            w.busy = true;
        }
        self.pull_queue.push_back((uid.to_string(), call, step));
        self.next_pull(ctx);
    }

    /// Sends the next queued pull when none is in flight.
    fn next_pull(&mut self, ctx: &mut Ctx) {
        if self.pulling {
            return;
        }
        let Some((uid, call, step)) = self.pull_queue.pop_front() else { return };
        self.pulling = true;
        self.work(ctx, &uid, call, step);
    }

    fn work(&mut self, ctx: &mut Ctx, uid: &str, call: CriCall, step: Step) {
        if let Some(w) = self.workers.get_mut(uid) {
            w.busy = true;
        }
        self.cri(ctx, call, CriOp::Work { uid: uid.to_string(), step });
    }

    /// Syncs the pod again at `at` (backoffs, probe delays).
    fn wake(&mut self, ctx: &mut Ctx, uid: &str, at: SimTime) {
        let Some(w) = self.workers.get_mut(uid) else { return };
        if w.timer_at.is_some_and(|t| t <= at && t > ctx.now) {
            return;
        }
        w.timer_at = Some(at);
        self.next_timer += 1;
        let token = TIMER_POD_BASE + self.next_timer;
        self.timers.insert(token, uid.to_string());
        ctx.timer(at.since(ctx.now).max(1), token);
    }

    fn sync_all(&mut self, ctx: &mut Ctx) {
        let uids: Vec<String> = self.workers.keys().cloned().collect();
        for uid in uids {
            self.sync(ctx, &uid);
        }
    }

    fn pod_containers(&self, uid: &str, name: &str) -> Vec<&Container> {
        let mut v: Vec<&Container> = self.containers.values().filter(|c| c.pod_uid == uid && c.name == name).collect();
        v.sort_by_key(|c| (c.attempt, c.created_at));
        v
    }

    /// One step of a pod worker: what the kubelet's syncPod / syncTerminatingPod would do next.
    fn sync(&mut self, ctx: &mut Ctx, uid: &str) {
        if self.listed < 2 || !self.runtime_up {
            return;
        }
        let Some(w) = self.workers.get(uid).cloned() else { return };
        // Pods from the API wait for the first list; static pods run without the apiserver.
        if w.busy || (!w.is_static && !self.conn.synced()) || w.hold_until.is_some_and(|t| ctx.now < t) {
            return;
        }
        if w.orphan && !w.gone {
            // A sandbox containerd knows for a pod the API no longer has.
            if let Some(w) = self.workers.get_mut(uid) {
                w.gone = true;
            }
        }
        let w = self.workers.get(uid).cloned().unwrap_or(w);
        if w.gone || w.pod.metadata.deletion_timestamp.is_some() {
            self.sync_terminating(ctx, uid, &w);
            return;
        }
        if self.finished(uid, &w) {
            // The pod is done: sidecars still running are stopped.
            let left = self.containers.values().find(|c| c.pod_uid == uid && c.state == ContainerState::Running);
            if let Some(c) = left.cloned() {
                let grace = w.pod.spec.as_ref().and_then(|s| s.termination_grace_period_seconds).unwrap_or(30);
                self.stop_container(ctx, uid, &w, &c, grace, Some(format!("Stopping container {}", c.name)));
                return;
            }
            self.post_pod_status(ctx, uid);
            return;
        }
        if w.sandbox.is_none() && !w.mounts.ready {
            self.mount_volumes(ctx, uid, &w);
            return;
        }
        let Some(sandbox) = w.sandbox.clone() else {
            let spec = w.pod.spec.clone().unwrap_or_default();
            let call = CriCall::RunPodSandbox {
                uid: uid.to_string(),
                name: w.pod.metadata.name.clone().unwrap_or_default(),
                namespace: w.pod.metadata.namespace.clone().unwrap_or_default(),
                host_network: spec.host_network.unwrap_or(false),
                hostname: server::sandbox_hostname(&w.pod, &self.cfg.node.name),
                dns: server::sandbox_dns(&w.pod),
            };
            if w.start_time.is_none() {
                if let Some(w) = self.workers.get_mut(uid) {
                    w.start_time = Some(ctx.now);
                }
            }
            self.post_pod_status(ctx, uid);
            self.work(ctx, uid, call, Step::Sandbox);
            return;
        };
        if w.sandbox_not_ready {
            // computePodActions: the sandbox changed (it died with a reboot); kill it and make another. A pod
            // that must not restart keeps its containers' last state instead.
            let policy = restart_policy(&w.pod);
            if policy == "Never" && self.containers.values().any(|c| c.pod_uid == uid) {
                self.post_pod_status(ctx, uid);
                return;
            }
            let msg = "Pod sandbox changed, it will be killed and re-created.";
            self.record(ctx, uid, None, "Normal", "SandboxChanged", msg);
            self.work(ctx, uid, CriCall::StopPodSandbox { id: sandbox }, Step::StopSandbox);
            return;
        }
        if let Some(kill) = w.kill.clone() {
            let running = self.containers.get(&kill.cid).filter(|c| c.state == ContainerState::Running).cloned();
            let sent = match &running {
                Some(c) => self.stop_container(ctx, uid, &w, c, kill.grace_s, Some(kill.message)),
                None => true,
            };
            if sent {
                if let Some(w) = self.workers.get_mut(uid) {
                    w.kill = None;
                }
            }
            if running.is_some() {
                return;
            }
        }
        // Ephemeral containers (`kubectl debug`) first, as computePodActions starts them even while init
        // containers run (debugging a stuck init is what they are for): each started once, never restarted.
        for name in w.ephemeral.iter().map(|c| c.name.clone()) {
            match self.pod_containers(uid, &name).last().map(|c| (c.state, c.id.clone())) {
                Some((ContainerState::Created, id)) => {
                    self.work(ctx, uid, CriCall::StartContainer { id }, Step::Start { container: name });
                    return;
                }
                Some(_) => {}
                None => {
                    if self.ensure_image(ctx, uid, &name, 0) {
                        return;
                    }
                }
            }
        }
        let policy = restart_policy(&w.pod);
        let spec = w.pod.spec.clone().unwrap_or_default();
        // Init containers, in order: each runs to completion (a sidecar until started) before the next.
        for init in spec.init_containers.iter().flatten() {
            let role = Role::of(init, true);
            let name = init.name.clone();
            let current = self.pod_containers(uid, &name).last().map(|c| (*c).clone());
            match current {
                Some(c) if c.state == ContainerState::Running => {
                    self.ensure_probes(ctx, uid, &name, &c);
                    let started = self.workers.get(uid).is_some_and(|w| self.probed(w, init, &c).0);
                    if role == Role::Sidecar && started {
                        continue;
                    }
                    self.post_pod_status(ctx, uid);
                    return;
                }
                Some(c) if c.state == ContainerState::Created => {
                    self.work(ctx, uid, CriCall::StartContainer { id: c.id.clone() }, Step::Start { container: name });
                    return;
                }
                Some(c) => {
                    if !role.restarts(&policy, c.exit_code) {
                        if c.exit_code == 0 {
                            continue;
                        }
                        // Failed for good (restartPolicy Never): the pod fails.
                        self.post_pod_status(ctx, uid);
                        return;
                    }
                    if !self.restart_after_backoff(ctx, uid, &w, &name, &c) {
                        self.post_pod_status(ctx, uid);
                    }
                    return;
                }
                None => {
                    if !self.ensure_image(ctx, uid, &name, 0) {
                        self.post_pod_status(ctx, uid);
                    }
                    return;
                }
            }
        }
        for name in spec.containers.iter().map(|c| c.name.clone()) {
            let current = self.pod_containers(uid, &name).last().map(|c| (*c).clone());
            match current {
                Some(c) if c.state == ContainerState::Running => {
                    self.ensure_probes(ctx, uid, &name, &c);
                    continue;
                }
                Some(c) if c.state == ContainerState::Created => {
                    self.work(ctx, uid, CriCall::StartContainer { id: c.id.clone() }, Step::Start { container: name });
                    return;
                }
                Some(c) => {
                    if !restarts(&policy, c.exit_code) {
                        continue;
                    }
                    if self.restart_after_backoff(ctx, uid, &w, &name, &c) {
                        return;
                    }
                }
                None => {
                    if self.ensure_image(ctx, uid, &name, 0) {
                        return;
                    }
                }
            }
        }
        self.post_pod_status(ctx, uid);
    }

    /// Restarts an exited container once its CrashLoopBackOff back-off has passed (true: a CRI call is
    /// under way), or leaves it waiting in `CrashLoopBackOff` and wakes the worker when it ends (false).
    fn restart_after_backoff(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker, name: &str, c: &Container) -> bool {
        let finished = c.finished_at.unwrap_or(ctx.now);
        match w.crash_backoff.get(name).copied() {
            Some(d) if ctx.now < finished.plus_ms(d) => {
                let msg =
                    format!("back-off {} restarting failed container={name} pod={}", go_duration(d), pod_ref(&w.pod));
                let fresh = !w.reported.contains(&c.id);
                if let Some(w) = self.workers.get_mut(uid) {
                    w.waiting.insert(name.to_string(), ("CrashLoopBackOff".into(), msg.clone()));
                    w.reported.insert(c.id.clone());
                }
                if fresh {
                    let text = format!("Back-off restarting failed container {name} in pod {}", pod_ref(&w.pod));
                    self.record(ctx, uid, Some(name), "Warning", "BackOff", &text);
                    self.log_sync_error(ctx.now, w, name, "CrashLoopBackOff", &msg);
                }
                self.wake(ctx, uid, finished.plus_ms(d));
                false
            }
            prev => {
                let next = prev.map_or(BACKOFF_INITIAL_MS, |d| (d * 2).min(BACKOFF_MAX_MS));
                if let Some(w) = self.workers.get_mut(uid) {
                    w.crash_backoff.insert(name.to_string(), next);
                }
                self.ensure_image(ctx, uid, name, c.attempt + 1)
            }
        }
    }

    /// Stops a container as killContainer does: records `Killing` with `message` the first time, runs its
    /// preStop hook (exec, sleep; httpGet answers at once), then asks containerd to stop it with what is left
    /// of `grace` (at least 2 s after a hook). True once StopContainer is sent.
    fn stop_container(
        &mut self,
        ctx: &mut Ctx,
        uid: &str,
        w: &Worker,
        c: &Container,
        grace: i64,
        message: Option<String>,
    ) -> bool {
        let began = w.stopping.get(&c.id).copied();
        let first = began.is_none();
        if first {
            if let Some(w) = self.workers.get_mut(uid) {
                w.stopping.insert(c.id.clone(), ctx.now);
            }
            if let Some(message) = &message {
                self.record(ctx, uid, Some(&c.name), "Normal", "Killing", message);
            }
        }
        let began = began.unwrap_or(ctx.now);
        let hook = if w.gone || c.state != ContainerState::Running {
            None
        } else {
            container_spec(w, &c.name).and_then(|s| s.lifecycle.as_ref()).and_then(|l| l.pre_stop.clone())
        };
        if let Some(hook) = &hook {
            if let (true, Some(exec)) = (first, hook.exec.as_ref()) {
                let cmd = exec.command.clone().unwrap_or_default();
                let call =
                    CriCall::ExecSync { id: c.id.clone(), cmd: cmd.clone(), stdin: None, tty: false, timeout_ms: 0 };
                self.work(ctx, uid, call, Step::PreStop { container: c.name.clone(), cmd });
                return false;
            }
            if let Some(sleep) = hook.sleep.as_ref() {
                let secs = u64::try_from(sleep.seconds.clamp(0, grace.max(0))).unwrap_or(0);
                let until = began.plus_ms(secs * 1000);
                if ctx.now < until {
                    self.wake(ctx, uid, until);
                    return false;
                }
            }
        }
        // What the preStop hook used of the grace period is gone (the kubelet keeps at least 2 s).
        let spent = i64::try_from(ctx.now.since(began) / 1000).unwrap_or(i64::MAX);
        let timeout = if hook.is_some() { (grace - spent).max(2) } else { grace };
        self.log_kill(ctx.now, w, &c.name, &c.id, timeout);
        self.work(ctx, uid, CriCall::StopContainer { id: c.id.clone(), timeout_s: timeout }, Step::Stop);
        true
    }

    /// Runs a container's postStart hook right after it started (exec through ExecSync, which holds the pod
    /// worker until it answers; sleep holds it that long; httpGet is answered at once).
    fn post_start(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker, container: &str, cid: &str) {
        let Some(spec) = container_spec(w, container).cloned() else { return };
        let Some(hook) = spec.lifecycle.as_ref().and_then(|l| l.post_start.clone()) else { return };
        if let Some(exec) = &hook.exec {
            let cmd = exec.command.clone().unwrap_or_default();
            let call =
                CriCall::ExecSync { id: cid.to_string(), cmd: cmd.clone(), stdin: None, tty: false, timeout_ms: 0 };
            let step = Step::PostStart { container: container.to_string(), cid: cid.to_string(), cmd };
            self.work(ctx, uid, call, step);
        } else if let Some(sleep) = &hook.sleep {
            let until = ctx.now.plus_ms(u64::try_from(sleep.seconds.max(0)).unwrap_or(0).saturating_mul(1000));
            if let Some(w) = self.workers.get_mut(uid) {
                w.hold_until = Some(until);
            }
            self.wake(ctx, uid, until);
        } else if let Some(get) = &hook.http_get {
            let probe = crate::api::api::core::v1::Probe { http_get: Some(get.clone()), ..Default::default() };
            let open = self.pod_listeners(uid, w);
            let ip = w.ip.clone().unwrap_or_default();
            match probes::network_probe(&probe, &spec, &ip, &open, false) {
                probes::Outcome::Success => {}
                probes::Outcome::Failure(e) | probes::Outcome::Error(e) => {
                    self.post_start_failed(ctx, uid, w, container, cid, &e)
                }
            }
        }
    }

    /// A failed postStart hook: `FailedPostStartHook` (without the output, which may hold secrets), and the
    /// container is killed and restarted under the pod's policy.
    fn post_start_failed(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker, container: &str, cid: &str, err: &str) {
        let msg = format!(
            "\"PostStartHook failed\" err={} pod={:?} podUID={uid:?} containerName={container:?}",
            go_quote(err),
            w.key
        );
        self.log(ctx.now, 'E', "kuberuntime_container.go:308", &msg);
        self.record(ctx, uid, Some(container), "Warning", "FailedPostStartHook", "PostStartHook failed");
        let grace = w.pod.spec.as_ref().and_then(|s| s.termination_grace_period_seconds).unwrap_or(30);
        if let Some(w) = self.workers.get_mut(uid) {
            w.kill = Some(Kill {
                container: container.to_string(),
                cid: cid.to_string(),
                message: "FailedPostStartHook".into(),
                grace_s: grace,
            });
        }
    }

    /// `"Killing container with a grace period"`.
    fn log_kill(&mut self, now: SimTime, w: &Worker, name: &str, cid: &str, grace: i64) {
        let uid = w.pod.metadata.uid.clone().unwrap_or_default();
        let msg = format!(
            "\"Killing container with a grace period\" pod={:?} podUID={uid:?} containerName={name:?} containerID=\"containerd://{cid}\" gracePeriod={grace}",
            w.key
        );
        self.log(now, 'I', "kuberuntime_container.go:808", &msg);
    }

    /// Starts getting the image for a container (true), or leaves it waiting in ImagePullBackOff (false).
    fn ensure_image(&mut self, ctx: &mut Ctx, uid: &str, name: &str, attempt: u32) -> bool {
        let Some(w) = self.workers.get(uid).cloned() else { return false };
        let image = container_spec(&w, name).and_then(|s| s.image.clone()).unwrap_or_default();
        if let Some((until, _, err)) = w.image_backoff.get(name).cloned() {
            if ctx.now < until {
                let key = format!("pull:{name}");
                let fresh = !w.reported.contains(&key);
                if let Some(w) = self.workers.get_mut(uid) {
                    w.waiting.insert(
                        name.to_string(),
                        ("ImagePullBackOff".into(), format!("Back-off pulling image {image:?}: {err}")),
                    );
                    w.reported.insert(key);
                }
                if fresh {
                    self.record(
                        ctx,
                        uid,
                        Some(name),
                        "Normal",
                        "BackOff",
                        &format!("Back-off pulling image {image:?}"),
                    );
                    self.record(ctx, uid, Some(name), "Warning", "Failed", "Error: ImagePullBackOff");
                }
                self.wake(ctx, uid, until);
                return false;
            }
        }
        if w.waiting.get(name).is_none_or(|(r, _)| r == "CrashLoopBackOff") {
            // A container that ran before shows its last run until the new one exists (OOMKilled, Error).
            let ran = !self.pod_containers(uid, name).is_empty();
            let reason = if has_init_containers(&w.pod) { "PodInitializing" } else { "ContainerCreating" };
            if let Some(w) = self.workers.get_mut(uid) {
                if ran {
                    w.waiting.remove(name);
                } else {
                    w.waiting.insert(name.to_string(), (reason.into(), String::new()));
                }
            }
        }
        self.post_pod_status(ctx, uid);
        let container = name.to_string();
        self.work(ctx, uid, CriCall::ImageStatus { image }, Step::ImageStatus { container, attempt });
        true
    }

    /// Reads the pod's claims (the volume manager); the pod starts once every one is Bound.
    fn mount_volumes(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker) {
        let claims = claims_of(&w.pod);
        if claims.is_empty() {
            if let Some(w) = self.workers.get_mut(uid) {
                w.mounts.ready = true;
            }
            self.sync(ctx, uid);
            return;
        }
        if w.mounts.asked > 0 {
            return;
        }
        if let Some(w) = self.workers.get_mut(uid) {
            w.mounts = Mounts { ready: false, asked: claims.len(), errors: Vec::new() };
        }
        let ns = w.pod.metadata.namespace.clone();
        for (volume, claim) in claims {
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Get, Kind::PersistentVolumeClaim.info())
                .namespace(ns.as_deref())
                .name(&claim);
            self.call(ctx, req, ApiCall::Claim { uid: uid.to_string(), volume, claim });
        }
    }

    fn on_claim(
        &mut self,
        ctx: &mut Ctx,
        uid: &str,
        volume: String,
        claim: &str,
        result: &Result<ApiResponse, crate::client::ClientError>,
    ) {
        let Some(w) = self.workers.get_mut(uid) else { return };
        let ns = w.pod.metadata.namespace.clone().unwrap_or_default();
        if let Some(e) = claim_error(result, &ns, claim) {
            w.mounts.errors.push((volume, e));
        }
        w.mounts.asked = w.mounts.asked.saturating_sub(1);
        if w.mounts.asked > 0 {
            return;
        }
        if w.mounts.errors.is_empty() {
            w.mounts.ready = true;
            self.sync(ctx, uid);
            return;
        }
        let msg = failed_mount_message(&w.mounts.errors);
        self.record(ctx, uid, None, "Warning", "FailedMount", &msg);
        self.post_pod_status(ctx, uid);
        self.wake(ctx, uid, ctx.now.plus_ms(WORKER_BACKOFF_MS));
    }

    fn sync_terminating(&mut self, ctx: &mut Ctx, uid: &str, w: &Worker) {
        let mut running: Vec<Container> = self
            .containers
            .values()
            .filter(|c| c.pod_uid == uid && c.state != ContainerState::Exited)
            .cloned()
            .collect();
        // App containers stop before the init containers (sidecars) that serve them.
        let inits: BTreeSet<String> = w
            .pod
            .spec
            .as_ref()
            .map(|s| s.init_containers.iter().flatten().map(|c| c.name.clone()).collect())
            .unwrap_or_default();
        running.sort_by_key(|c| inits.contains(&c.name));
        if let Some(c) = running.first() {
            let grace = w
                .pod
                .metadata
                .deletion_grace_period_seconds
                .or(w.pod.spec.as_ref().and_then(|s| s.termination_grace_period_seconds))
                .unwrap_or(30);
            let message = (!w.gone).then(|| format!("Stopping container {}", c.name));
            self.stop_container(ctx, uid, w, c, grace, message);
            return;
        }
        if !w.gone && !w.is_static {
            // Report the containers' final state before the pod goes.
            self.post_pod_status(ctx, uid);
        }
        if let Some(sandbox) = w.sandbox.clone() {
            self.work(ctx, uid, CriCall::RemovePodSandbox { id: sandbox }, Step::RemoveSandbox);
            return;
        }
        if w.gone {
            let prefix = format!("{uid}|");
            self.recorded.retain(|k, _| !k.starts_with(&prefix));
            let readd = self.workers.get(uid).and_then(|w| w.readd.clone());
            match readd {
                Some(pod) => {
                    // Its manifest is back: the same static pod starts again.
                    let mut fresh = Worker::new(w.key.clone(), PodRef::owned(*pod));
                    fresh.is_static = true;
                    self.workers.insert(uid.to_string(), fresh);
                    self.ensure_mirrors(ctx);
                    self.sync(ctx, uid);
                }
                None => {
                    self.workers.remove(uid);
                }
            }
            return;
        }
        if !w.delete_sent && !w.is_static {
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, Kind::Pod.info())
                .namespace(w.pod.metadata.namespace.as_deref())
                .name(w.pod.metadata.name.as_deref().unwrap_or(""));
            req.params.grace_period_seconds = Some(0);
            if let Some(w) = self.workers.get_mut(uid) {
                w.delete_sent = true;
            }
            self.call(ctx, req, ApiCall::DeletePod { uid: uid.to_string() });
        }
    }

    /// Whether the pod reached a terminal phase (nothing will run again).
    fn finished(&self, uid: &str, w: &Worker) -> bool {
        let policy = restart_policy(&w.pod);
        let names: Vec<String> =
            w.pod.spec.as_ref().map(|s| s.containers.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
        let inits = w.pod.spec.as_ref().and_then(|s| s.init_containers.as_ref());
        let init_failed = inits.into_iter().flatten().filter(|c| Role::of(c, true) == Role::Init).any(|c| {
            self.pod_containers(uid, &c.name).last().is_some_and(|r| {
                r.state == ContainerState::Exited && r.exit_code != 0 && !Role::Init.restarts(&policy, r.exit_code)
            })
        });
        init_failed
            || !names.is_empty()
                && names.iter().all(|n| {
                    self.pod_containers(uid, n)
                        .last()
                        .is_some_and(|c| c.state == ContainerState::Exited && !restarts(&policy, c.exit_code))
                })
    }

    // ---- pod status ----

    fn post_pod_status(&mut self, ctx: &mut Ctx, uid: &str) {
        let Some(w) = self.workers.get(uid).cloned() else { return };
        if w.gone || w.orphan {
            return;
        }
        if w.is_static && self.conn.informer(0).get(&w.key).is_none() {
            return;
        }
        if w.status_in_flight {
            if let Some(w) = self.workers.get_mut(uid) {
                w.status_dirty = true;
            }
            return;
        }
        let status = self.pod_status(ctx, uid, &w);
        let posted = Posted::of(&status);
        if w.last_status == Some(posted) {
            return;
        }
        // The status manager never moves a pod out of a terminal phase (a finalizer may keep the pod in the
        // API after its containers and sandbox are gone).
        if w.last_status.is_some_and(|last| last.terminal) && !posted.terminal {
            return;
        }
        let (ns, name) = w.key.split_once('/').unwrap_or(("default", &w.key));
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Pod.info())
            .namespace(Some(ns))
            .name(name)
            .subresource("status");
        req.patch = Some(PatchBody::Merge(json!({ "status": status })));
        if let Some(w) = self.workers.get_mut(uid) {
            w.last_status = Some(posted);
            w.status_in_flight = true;
        }
        self.call(ctx, req, ApiCall::PodStatus { uid: uid.to_string() });
    }

    fn record(&mut self, ctx: &mut Ctx, uid: &str, container: Option<&str>, type_: &str, reason: &str, message: &str) {
        let Some(w) = self.workers.get(uid) else { return };
        let mut pod = Pod::clone(&w.pod);
        if w.is_static {
            match self.conn.informer(0).get(&w.key).map(|o| o.as_ref().clone()) {
                Some(Object::Pod(mirror)) => pod = *mirror,
                _ => return,
            }
        }
        let about = Object::Pod(Box::new(pod));
        // The event recorder's correlator: the same event again bumps the count of the one recorded.
        let key = format!("{uid}|{}|{type_}|{reason}|{message}", container.unwrap_or(""));
        if let Some((name, count)) = self.recorded.get_mut(&key) {
            *count += 1;
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Event.info())
                .namespace(about.namespace())
                .name(name);
            let now = crate::apiserver::registry::k8s_time(ctx.now);
            req.patch = Some(PatchBody::Merge(json!({"count": *count, "lastTimestamp": now})));
            self.call(ctx, req, ApiCall::Other);
            return;
        }
        let node = self.cfg.node.name.clone();
        let by = Reporter { component: "kubelet", host: Some(&node) };
        let mut event = crate::client::events::event(&about, by, type_, reason, message, ctx.now, ctx.rng);
        if let (Object::Event(e), Some(c)) = (&mut event, container) {
            e.involved_object.field_path = Some(format!("spec.containers{{{c}}}"));
        }
        self.recorded.insert(key, (event.name().to_string(), 1));
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Event.info())
            .namespace(event.namespace())
            .body(event);
        self.call(ctx, req, ApiCall::Other);
    }
}

impl Worker {
    fn new(key: String, pod: PodRef) -> Worker {
        Worker {
            key,
            pod,
            is_static: false,
            busy: false,
            sandbox: None,
            sandbox_not_ready: false,
            ip: None,
            waiting: BTreeMap::new(),
            image_backoff: BTreeMap::new(),
            crash_backoff: BTreeMap::new(),
            reported: BTreeSet::new(),
            gone: false,
            delete_sent: false,
            conditions: BTreeMap::new(),
            last_status: None,
            status_in_flight: false,
            status_dirty: false,
            verified_rv: None,
            start_time: None,
            timer_at: None,
            orphan: false,
            mounts: Mounts::default(),
            readd: None,
            ephemeral: Vec::new(),
            started_logged: false,
            probes: BTreeMap::new(),
            kill: None,
            stopping: BTreeMap::new(),
            hold_until: None,
        }
    }
}

fn waiting_state(reason: &str, message: &str) -> Value {
    if message.is_empty() {
        json!({"waiting": {"reason": reason}})
    } else {
        json!({"waiting": {"reason": reason, "message": message}})
    }
}

/// A container of the worker's pod by name: app, init or ephemeral.
fn container_spec<'a>(w: &'a Worker, name: &str) -> Option<&'a crate::api::api::core::v1::Container> {
    let spec = w.pod.spec.as_ref()?;
    spec.containers.iter().chain(spec.init_containers.iter().flatten()).chain(&w.ephemeral).find(|c| c.name == name)
}

/// Which part a container plays in its pod, which decides when it is restarted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    App,
    Init,
    /// An init container with `restartPolicy: Always`.
    Sidecar,
    /// An ephemeral container (`kubectl debug`): run once, never restarted.
    Ephemeral,
}

impl Role {
    fn of(c: &crate::api::api::core::v1::Container, init: bool) -> Role {
        match (init, c.restart_policy.as_deref()) {
            (false, _) => Role::App,
            (true, Some("Always")) => Role::Sidecar,
            (true, _) => Role::Init,
        }
    }

    /// Whether a container of this role that exited with `code` is started again under the pod's policy.
    fn restarts(self, policy: &str, code: i32) -> bool {
        match self {
            Role::App => restarts(policy, code),
            Role::Init => code != 0 && policy != "Never",
            Role::Sidecar => true,
            Role::Ephemeral => false,
        }
    }
}

fn has_init_containers(pod: &Pod) -> bool {
    pod.spec.as_ref().is_some_and(|s| s.init_containers.as_ref().is_some_and(|i| !i.is_empty()))
}

fn restart_policy(pod: &Pod) -> String {
    pod.spec.as_ref().and_then(|s| s.restart_policy.clone()).unwrap_or_else(|| "Always".into())
}

fn restarts(policy: &str, exit_code: i32) -> bool {
    policy == "Always" || (policy == "OnFailure" && exit_code != 0)
}

/// The image pull policy, defaulted as the apiserver does (`Always` for `:latest` or no tag).
fn pull_policy(c: &crate::api::api::core::v1::Container) -> String {
    if let Some(p) = c.image_pull_policy.clone() {
        return p;
    }
    let image = c.image.as_deref().unwrap_or("");
    let last = image.rsplit('/').next().unwrap_or(image);
    if image.contains('@') || (last.contains(':') && !last.ends_with(":latest")) {
        "IfNotPresent".into()
    } else {
        "Always".into()
    }
}

/// `name_namespace(uid)`, how the kubelet names a pod in messages.
fn pod_ref(pod: &Pod) -> String {
    format!(
        "{}_{}({})",
        pod.metadata.name.as_deref().unwrap_or(""),
        pod.metadata.namespace.as_deref().unwrap_or(""),
        pod.metadata.uid.as_deref().unwrap_or("")
    )
}

/// A MicroTime: `2025-09-01T00:00:10.000000Z`.
pub fn micro_time(t: SimTime) -> String {
    let s = t.rfc3339();
    format!("{}.{:06}Z", s.trim_end_matches('Z'), (t.ms() % 1000) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pull_policy_defaults_to_always_only_for_latest_or_untagged_images() {
        let c = |image: &str| crate::api::api::core::v1::Container {
            name: "c".into(),
            image: Some(image.into()),
            ..Default::default()
        };
        assert_eq!(pull_policy(&c("nginx")), "Always");
        assert_eq!(pull_policy(&c("nginx:latest")), "Always");
        assert_eq!(pull_policy(&c("nginx:1.27")), "IfNotPresent");
        assert_eq!(pull_policy(&c("localhost:5000/app")), "Always");
    }

    #[test]
    fn restart_policies_decide_which_exits_restart() {
        assert!(restarts("Always", 0));
        assert!(restarts("OnFailure", 1));
        assert!(!restarts("OnFailure", 0));
        assert!(!restarts("Never", 1));
    }

    #[test]
    fn lease_renew_times_are_micro_times() {
        assert_eq!(micro_time(SimTime::ZERO.plus_ms(10_250)), "2025-09-01T00:00:10.250000Z");
    }
}
