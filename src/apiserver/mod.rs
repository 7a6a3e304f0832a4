//! kube-apiserver: the only component that touches etcd. Every read, write and watch of every other
//! component passes its handler chain in the real order — authentication (401) → authorization (403) →
//! decoding and defaulting → mutating admission → validation (422) → validating admission → etcd — and
//! every change it sees on its etcd watch is fanned out to the client watches that match.
//!
//! Non-resource paths (`/livez`, `/readyz`, `/healthz` with their checks, `/version`: [`health`]) are served
//! even before the watch cache has synced; their etcd checks read `/registry/health` with a 2 s timeout.
//!
//! Watches: etcd (`/registry/` prefix, from its initial list's revision). Writes: etcd transactions.
//! Counterpart: `cmd/kube-apiserver`, `staging/src/k8s.io/apiserver`.

mod access_review;
pub mod admission;
mod aggregator;
pub mod apiextensions;
pub mod audit;
pub mod authn;
pub mod authz;
pub mod cache;
pub mod cel;
pub(crate) mod certificates;
mod component_status;
pub mod defaults;
pub mod discovery;
pub mod etcd_client;
pub mod eviction;
pub mod health;
pub mod identity;
mod ip_addresses;
pub mod json_patch;
pub mod openapi;
pub mod pager;
pub mod printers;
#[cfg(feature = "serve")]
pub mod protobuf;
mod proxy;
pub mod registry;
pub mod rest;
pub mod review;
pub mod service_account_token;
pub mod strategic;
pub mod validation;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::selector::{FieldSelector, LabelSelector};
use crate::api::{ApiRequest, ApiResponse, Kind, Object, Status, Verb, WatchEvent, WatchEventType};
use crate::etcd::{EtcdMessage, EventType, Op, OpResult, Txn, TxnResponse};
use crate::sim::{ComponentId, Ctx, Payload, Rng, SimTime};

use audit::{RequestLog, RequestRecord, Stage};
use authn::{Authenticator, UserInfo};
use authz::Attributes;
use cache::{CachedEvent, WatchCache, Watcher};
use registry::DeletePlan;

/// How often the apiserver compacts etcd (`--etcd-compaction-interval`).
pub const COMPACTION_INTERVAL_MS: u64 = 300_000;
/// How often watches that asked for bookmarks get one.
pub const BOOKMARK_INTERVAL_MS: u64 = 60_000;
/// Attempts of an unconditional update before giving up on a hot key.
const WRITE_ATTEMPTS_MAX: u8 = 5;

/// How long a consistent list waits for the watch cache to catch up before it is read from etcd instead
/// (the cacher's `blockTimeout`).
pub const CONSISTENT_LIST_WAIT_MS: u64 = 3_000;

const TIMER_COMPACT: u64 = 1;
/// Timers above this are etcd health probes giving up: `TIMER_HEALTH + etcd request id`.
const TIMER_HEALTH: u64 = 1 << 40;
const TIMER_BOOKMARK: u64 = 2;
const TIMER_IDENTITY: u64 = 3;
/// Lists etcd again for the watch cache after its first list failed (etcd down or without a leader).
const TIMER_RELIST: u64 = 4;
/// Timers above this are consistent lists giving up on the cache: `TIMER_LIST_WAIT + park id`.
const TIMER_LIST_WAIT: u64 = 1 << 32;
/// Timers above this are a watch's `timeoutSeconds` running out: `TIMER_WATCH_TIMEOUT + watch id`.
const TIMER_WATCH_TIMEOUT: u64 = 1 << 36;
/// Timer tokens above this are a waiting etcd request's deadline (`TIMER_DEADLINE + etcd request id`).
const TIMER_DEADLINE: u64 = 1 << 48;
/// The etcd channel's reconnect backoff ran out.
const TIMER_RECONNECT: u64 = 5;
/// The CRD finalizer's poll for a definition's remaining objects.
const TIMER_CRD_CLEANUP: u64 = 6;
/// Timers above this are creates of custom objects waiting out a new definition (`+ park id`).
const TIMER_JUST_ESTABLISHED: u64 = 1 << 56;
/// The etcd key prefix of CustomResourceDefinitions.
const CRD_PREFIX: &str = "/registry/apiextensions.k8s.io/customresourcedefinitions/";
/// kube-apiserver's `--request-timeout` default: how long a request may wait (for etcd, here).
pub const REQUEST_TIMEOUT_MS: u64 = 60_000;
/// What the timeout filter writes when a request outlives `--request-timeout`: apimachinery's
/// `NewTimeoutError("request did not complete within the allotted timeout", 0)` JSON-encoded, with no
/// content type set (Go's server sniffs `text/plain`).
pub const REQUEST_TIMEOUT_BODY: &str = "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request did not complete within the allotted timeout\",\"reason\":\"Timeout\",\"details\":{},\"code\":504}\n";

/// A write in progress: the request, who asked, and what was prepared on the first attempt.
#[derive(Debug, Clone)]
struct WriteOp {
    client: ComponentId,
    request_id: u64,
    req: ApiRequest,
    attempts: u8,
    /// For creates: the admitted, validated object (name, uid and timestamps set; no resourceVersion, so it
    /// is also the value etcd stores).
    prepared: Option<Arc<Object>>,
    /// The request's namespace exists in etcd although the cache has not seen it yet.
    namespace_confirmed: bool,
    /// That namespace as etcd returned it (admission plugins read its labels).
    namespace_object: Option<Arc<Object>>,
    /// Who asked (admission policies see it as `request.userInfo`).
    user: UserInfo,
    /// Warnings of the admission plugins, returned with the response.
    warnings: Vec<String>,
}

#[derive(Debug, Clone)]
enum Pending {
    InitialList,
    Read {
        client: ComponentId,
        request_id: u64,
        req: Box<ApiRequest>,
    },
    Write {
        op: Box<WriteOp>,
        written: Option<Arc<Object>>,
    },
    /// NamespaceLifecycle missed the namespace in the cache: read it from etcd before refusing.
    NamespaceLookup {
        op: Box<WriteOp>,
    },
    /// A consistent list asked etcd for its current revision; it is served from the watch cache once the
    /// cache has caught up with that revision.
    ConsistentList {
        client: ComponentId,
        request_id: u64,
        req: Box<ApiRequest>,
    },
    /// A health endpoint waiting for the etcd probe (`/registry/health`).
    Health,
    /// `pods/log` or `pods/exec` reading its pod before proxying to the kubelet.
    ProxyPod {
        client: ComponentId,
        request_id: u64,
        req: Box<ApiRequest>,
    },
}

/// A consistent list waiting for the watch cache to reach `revision`.
#[derive(Debug, Clone)]
struct ParkedList {
    revision: u64,
    client: ComponentId,
    request_id: u64,
    req: Box<ApiRequest>,
}

/// The apiserver process.
pub struct ApiServer {
    me: ComponentId,
    /// Its identity Lease's heartbeat (None: an apiserver without one, as in unit tests).
    identity: Option<identity::IdentityLease>,
    /// The apiextensions controllers (names, establishing, the definitions' finalizer).
    crds: apiextensions::controllers::Controllers,
    /// Generated names' suffixes. Each purpose draws from its own stream, so the names a scenario's
    /// creates get do not depend on how many other objects (Events) were created between them, nor on the
    /// reads a client made: the same writes name the same objects however the requests interleave. Each
    /// generateName (per resource and namespace) has a stream of its own, forked from this one, so the
    /// Nth pod of a ReplicaSet is named alike however its creation interleaves with other ReplicaSets'.
    names: Rng,
    names_by_base: BTreeMap<String, Rng>,
    /// Objects' UIDs.
    uids: Rng,
    /// The service account key (see [`service_account_token`]) and the IDs (`jti`) of the tokens it signs.
    token_signer: service_account_token::TokenSigner,
    token_ids: Rng,
    /// The generated names and UIDs of dry-run creates (`kubectl diff`, `--dry-run=server`): nothing is
    /// kept, so they leave the names and UIDs of what is written as they would be without them.
    dry_run_names: Rng,
    dry_run_uids: Rng,
    /// ClusterIPs, IPAddresses and NodePorts.
    allocations: Rng,
    etcd: etcd_client::EtcdClient,
    authn: Authenticator,
    cache: WatchCache,
    synced: bool,
    held: Vec<(ComponentId, u64, ApiRequest, u64)>,
    pending: BTreeMap<u64, (Pending, Txn)>,
    /// The member each pending request was sent to; a pending request missing here waits for the etcd
    /// channel to be ready again (every member refused).
    sent_to: BTreeMap<u64, ComponentId>,
    /// Waiting requests whose `--request-timeout` deadline is armed.
    deadlines: std::collections::BTreeSet<u64>,
    /// The member the etcd watch is open on.
    watch_member: Option<ComponentId>,
    /// The etcd watch broke while no member would take it: it is opened again on reconnect.
    watch_lost: bool,
    next_etcd_id: u64,
    etcd_watch: Option<u64>,
    next_watch_id: u64,
    last_compaction_mark: u64,
    log: RequestLog,
    /// Requests made through `events.k8s.io/v1`, whose answers are converted from the stored core Events.
    v1_events: std::collections::BTreeSet<(ComponentId, u64)>,
    /// Requests to a scale subresource: their answer is the object's `Scale`.
    scale_requests: std::collections::BTreeSet<(ComponentId, u64)>,
    /// Requests for custom resources: the row of the version their objects are shown at.
    served_as: BTreeMap<(ComponentId, u64), &'static crate::api::ResourceInfo>,
    /// Creates of custom objects held for [`apiextensions::JUST_ESTABLISHED_WAIT_MS`] after authorization,
    /// by park id: client, request id, request, user, causal chain.
    waiting_creates: BTreeMap<u64, (ComponentId, u64, ApiRequest, UserInfo, u64)>,
    /// Reads of custom resources that asked for a Table: the columns their answer is printed with.
    table_requests: BTreeMap<(ComponentId, u64), Arc<[crate::api::TableColumn]>>,
    /// Requests to a deprecated resource (v1 Endpoints): their answers carry the deprecation warning.
    deprecated: std::collections::BTreeSet<(ComponentId, u64)>,
    parked_lists: BTreeMap<u64, ParkedList>,
    next_park_id: u64,
    /// Where ClusterIPs come from (10.96.0.0/12 by default) and where `kubernetes` sits (first address).
    pub service_cidr_base: [u8; 4],
    /// The network towards the nodes: a node address → the kubelet listening there.
    kubelet_addresses: BTreeMap<String, ComponentId>,
    /// Requests proxied to kubelets, by the id of the request to the kubelet.
    proxied: BTreeMap<u64, proxy::Proxied>,
    /// Followed logs, by the kubelet request they came from.
    log_streams: BTreeMap<u64, proxy::LogStream>,
    next_kubelet_id: u64,
    /// The backend of the `v1beta1.metrics.k8s.io` APIService, when metrics-server is installed.
    metrics_server: Option<ComponentId>,
    /// Requests passed on to it: our request id → (client, the client's request id).
    aggregated: BTreeMap<u64, (ComponentId, u64)>,
    next_aggregated_id: u64,
    /// Objects admitted by creates whose etcd write is in flight, by etcd key (quota admission counts them).
    charged: BTreeMap<String, Arc<Object>>,
    /// Health requests waiting for the etcd probe in flight: (client, request id, path with query).
    health_waiting: Vec<(ComponentId, u64, String)>,
    /// The etcd probe in flight (its etcd request id), if any.
    health_probe: Option<u64>,
    /// When the last probe was sent and how it ended (requests within the rate limit get that answer).
    last_health: Option<(SimTime, Result<(), String>)>,
    /// kube-scheduler and kube-controller-manager on this host, for the ComponentStatus probes.
    local_servers: Vec<component_status::LocalServer>,
    /// ComponentStatus reads waiting for their probes, by survey id.
    surveys: BTreeMap<u64, component_status::Survey>,
    /// `/healthz` probes in flight: probe id → (survey, server name, port).
    probes: BTreeMap<u64, (u64, &'static str, u16)>,
    /// Surveys waiting for the etcd probe.
    etcd_surveys: Vec<u64>,
    next_survey_id: u64,
}

impl ApiServer {
    pub fn new(me: ComponentId, etcd: Vec<ComponentId>, authn: Authenticator, rng: Rng) -> ApiServer {
        ApiServer {
            me,
            identity: None,
            crds: apiextensions::controllers::Controllers::new(me, TIMER_CRD_CLEANUP),
            etcd: etcd_client::EtcdClient::new(etcd, rng.fork("etcd-client")),
            names: rng.fork("generated-names"),
            names_by_base: BTreeMap::new(),
            uids: rng.fork("uids"),
            token_signer: service_account_token::TokenSigner::new(rng.fork("service-account-key")),
            token_ids: rng.fork("token-ids"),
            dry_run_names: rng.fork("dry-run-names"),
            dry_run_uids: rng.fork("dry-run-uids"),
            allocations: rng.fork("allocations"),
            authn,
            cache: WatchCache::default(),
            synced: false,
            held: Vec::new(),
            pending: BTreeMap::new(),
            sent_to: BTreeMap::new(),
            deadlines: std::collections::BTreeSet::new(),
            watch_member: None,
            watch_lost: false,
            next_etcd_id: 1,
            etcd_watch: None,
            next_watch_id: 1,
            last_compaction_mark: 0,
            log: RequestLog::default(),
            v1_events: std::collections::BTreeSet::new(),
            scale_requests: std::collections::BTreeSet::new(),
            table_requests: BTreeMap::new(),
            waiting_creates: BTreeMap::new(),
            served_as: BTreeMap::new(),
            deprecated: std::collections::BTreeSet::new(),
            parked_lists: BTreeMap::new(),
            next_park_id: 1,
            service_cidr_base: [10, 96, 0, 0],
            kubelet_addresses: BTreeMap::new(),
            proxied: BTreeMap::new(),
            log_streams: BTreeMap::new(),
            next_kubelet_id: 1,
            metrics_server: None,
            aggregated: BTreeMap::new(),
            next_aggregated_id: aggregator::FIRST_ID,
            charged: BTreeMap::new(),
            health_waiting: Vec::new(),
            health_probe: None,
            last_health: None,
            local_servers: Vec::new(),
            surveys: BTreeMap::new(),
            probes: BTreeMap::new(),
            etcd_surveys: Vec::new(),
            next_survey_id: 1,
        }
    }

    pub fn cache(&self) -> &WatchCache {
        &self.cache
    }

    /// The request log: each request's path through the handler chain.
    pub fn requests(&self) -> &RequestLog {
        &self.log
    }

    /// A request to `events.k8s.io/v1` is served by the core Event storage: its body is converted now and
    /// its answer on the way out.
    fn events_v1_request(
        &mut self,
        client: ComponentId,
        request_id: u64,
        mut req: ApiRequest,
    ) -> Result<ApiRequest, Status> {
        if req.resource.kind != Kind::EventV1 {
            return Ok(req);
        }
        self.v1_events.insert((client, request_id));
        if let Some(raw) = req.raw_body.take() {
            req.body = Some(crate::api::manifest::decode_strict(&raw)?);
        }
        if let Some(Object::EventV1(e)) = &req.body {
            req.body = Some(Object::Event(Box::new(crate::api::events::to_core(e))));
        }
        req.resource = Kind::Event.info();
        Ok(req)
    }

    /// Answers a request and closes its record: the stages after authorization follow from the answer.
    fn respond(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, response: ApiResponse) {
        self.respond_warned(ctx, client, request_id, response, Vec::new());
    }

    /// [`ApiServer::respond`] with `Warning` headers (admission warnings).
    fn respond_warned(
        &mut self,
        ctx: &mut Ctx,
        client: ComponentId,
        request_id: u64,
        response: ApiResponse,
        mut warnings: Vec<String>,
    ) {
        if self.deprecated.remove(&(client, request_id)) {
            warnings.insert(0, ENDPOINTS_DEPRECATED.to_string());
        }
        let past_authz = self.log.verb_past_authorization(client, request_id);
        let (code, revision) = match &response {
            ApiResponse::Error(s) => (s.code, None),
            ApiResponse::Object(o) => {
                (if past_authz == Some(Verb::Create) { 201 } else { 200 }, Some(o.resource_version()))
            }
            ApiResponse::List { resource_version, .. } => (200, Some(*resource_version)),
            ApiResponse::Table(t) => (200, t.list.as_ref().map(|(rv, _)| *rv)),
            ApiResponse::WatchStarted { .. } | ApiResponse::Text(_) | ApiResponse::LogStream { .. } => (200, None),
            ApiResponse::Exec(_) => (101, None),
            ApiResponse::Raw { code, .. } => (*code, None),
        };
        if let Some(verb) = past_authz {
            let failed = response.status().map(|s| (failed_stage(verb, s), s.message.clone()));
            for &stage in audit::stages_after_authorization(verb) {
                match &failed {
                    Some((f, msg)) if *f == stage => {
                        self.log.stage(client, request_id, stage, false, msg.clone());
                        break;
                    }
                    _ => {
                        let detail = if stage == Stage::Storage {
                            revision.map(|r| format!("revision {r}")).unwrap_or_default()
                        } else {
                            String::new()
                        };
                        self.log.stage(client, request_id, stage, true, detail);
                    }
                }
            }
        }
        self.log.close(client, request_id, code, revision);
        let response =
            if self.v1_events.remove(&(client, request_id)) { events_v1_response(response) } else { response };
        let response = match (self.served_as.remove(&(client, request_id)), response) {
            (Some(row), ApiResponse::Object(o)) => ApiResponse::Object(at_version(o, row)),
            (Some(row), ApiResponse::List { items, resource_version, more }) => ApiResponse::List {
                items: items.into_iter().map(|o| at_version(o, row)).collect(),
                resource_version,
                more,
            },
            (_, response) => response,
        };
        let response = match self.table_requests.remove(&(client, request_id)) {
            Some(columns) => apiextensions::columns::table(columns, response, ctx.now),
            None => response,
        };
        let response = match response {
            ApiResponse::Object(o) if self.scale_requests.remove(&(client, request_id)) => {
                let scale = match o.kind() {
                    Kind::Custom(_) => self.served(o.info()).ok().and_then(|s| apiextensions::scale_of(&s, &o)),
                    _ => registry::scale_of(&o),
                };
                scale.map_or(ApiResponse::Object(o), |s| ApiResponse::Object(Arc::new(s)))
            }
            other => {
                self.scale_requests.remove(&(client, request_id));
                other
            }
        };
        reply_warned(ctx, client, request_id, response, warnings);
    }

    pub fn authenticator_mut(&mut self) -> &mut Authenticator {
        &mut self.authn
    }

    /// A (re)start: memory is gone; list everything from etcd, then watch from there.
    /// Keeps the identity Lease of an apiserver on `hostname` (see [`identity`]).
    pub fn with_identity(mut self, hostname: &str) -> ApiServer {
        self.identity = Some(identity::IdentityLease::new(self.me, hostname, TIMER_IDENTITY));
        self
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        if let Some(identity) = &mut self.identity {
            identity.start(ctx);
        }
        self.crds.start();
        self.waiting_creates.clear();
        self.cache = WatchCache::default();
        self.held.clear();
        self.etcd.reset();
        self.pending.clear();
        self.sent_to.clear();
        self.deadlines.clear();
        self.watch_member = None;
        self.watch_lost = false;
        self.parked_lists.clear();
        self.proxied.clear();
        self.health_waiting.clear();
        self.health_probe = None;
        self.last_health = None;
        self.surveys.clear();
        self.probes.clear();
        self.etcd_surveys.clear();
        self.relist(ctx);
        ctx.timer(COMPACTION_INTERVAL_MS, TIMER_COMPACT);
        ctx.timer(BOOKMARK_INTERVAL_MS, TIMER_BOOKMARK);
    }

    /// Rebuilds the watch cache from a fresh list of etcd (at start, and when the etcd watch is canceled
    /// because the revisions it wanted are compacted — after an etcd restore with `--mark-compacted`, for
    /// one). The list's revision may be lower than what the cache had seen (a restored backup): the cache
    /// simply takes it. Requests keep arriving meanwhile and wait for the list; writes and reads already sent
    /// to etcd still get their answers. Client watches end, as the cacher's do when it reinitializes, and
    /// their clients re-watch (each gets a 410 Expired event, as a reflector would on a resourceVersion that
    /// no longer exists).
    fn relist(&mut self, ctx: &mut Ctx) {
        let revision = self.cache.revision();
        for (watch_id, client) in self.cache.drain_watchers() {
            let event = WatchEvent {
                kind: WatchEventType::Error,
                object: None,
                resource_version: revision,
                status: Some(Status::expired(revision, revision + 1)),
            };
            ctx.send(client, Payload::WatchEvent { watch_id, event: Box::new(event) });
            ctx.send(client, Payload::WatchEnded { watch_id });
        }
        self.synced = false;
        self.etcd_watch = None;
        self.last_compaction_mark = 0;
        self.pending.retain(|_, (p, _)| !matches!(p, Pending::InitialList));
        self.sent_to.retain(|id, _| self.pending.contains_key(id));
        self.watch_member = None;
        self.watch_lost = false;
        self.send_etcd(ctx, Pending::InitialList, Txn::range("/registry/", true));
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        match token {
            TIMER_COMPACT => {
                if self.last_compaction_mark > 0 && !self.etcd.is_down() {
                    let to = self.etcd.endpoint();
                    ctx.send(to, Payload::Etcd(EtcdMessage::Compact { revision: self.last_compaction_mark }));
                }
                self.last_compaction_mark = self.cache.revision();
                ctx.timer(COMPACTION_INTERVAL_MS, TIMER_COMPACT);
            }
            TIMER_BOOKMARK => {
                self.send_bookmarks(ctx);
                ctx.timer(BOOKMARK_INTERVAL_MS, TIMER_BOOKMARK);
            }
            TIMER_IDENTITY => {
                if let Some(identity) = &mut self.identity {
                    identity.on_timer(ctx);
                }
            }
            TIMER_RELIST if !self.synced && !self.pending.values().any(|(p, _)| matches!(p, Pending::InitialList)) => {
                self.relist(ctx)
            }
            TIMER_RECONNECT => self.reconnect(ctx),
            TIMER_CRD_CLEANUP => self.crds.on_timer(ctx, &self.cache),
            t if t > TIMER_JUST_ESTABLISHED => {
                if let Some((client, request_id, req, user, chain)) =
                    self.waiting_creates.remove(&(t - TIMER_JUST_ESTABLISHED))
                {
                    let current = std::mem::replace(&mut ctx.chain, chain);
                    self.authorized(ctx, client, request_id, req, user);
                    ctx.chain = current;
                }
            }
            t if t > TIMER_DEADLINE => self.deadline_passed(ctx, t - TIMER_DEADLINE),
            t if t > TIMER_HEALTH && self.health_probe == Some(t - TIMER_HEALTH) => {
                self.forget(t - TIMER_HEALTH);
                let e = "error getting data from etcd: context deadline exceeded".to_string();
                self.health_done(ctx, Err(e));
            }
            t if t > TIMER_HEALTH => {}
            t if t > TIMER_WATCH_TIMEOUT => {
                // The watch's time is up: the apiserver ends the response, and the client's watch is over.
                let watch_id = t - TIMER_WATCH_TIMEOUT;
                if let Some(client) = self.cache.watcher(watch_id).map(|w| w.client) {
                    self.cache.remove_watcher(watch_id);
                    ctx.send(client, Payload::WatchEnded { watch_id });
                }
            }
            t if t > TIMER_LIST_WAIT => {
                // The cache did not catch up in time: read the list from etcd after all.
                if let Some(p) = self.parked_lists.remove(&(t - TIMER_LIST_WAIT)) {
                    let txn = Txn::range(&p.req.resource.prefix(p.req.namespace.as_deref()), true);
                    let pending = Pending::Read { client: p.client, request_id: p.request_id, req: p.req };
                    self.send_etcd(ctx, pending, txn);
                }
            }
            _ => {}
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, payload: Payload) {
        // Answers to its own loopback client.
        if from == self.me && apiextensions::controllers::Controllers::owns(&payload) {
            return self.crds.on_message(ctx, &self.cache, payload);
        }
        if from == self.me && matches!(payload, Payload::ApiResponse { .. } | Payload::ConnectionRefused { .. }) {
            if let Some(identity) = &mut self.identity {
                identity.on_message(ctx, payload);
            }
            return;
        }
        match payload {
            Payload::ApiRequest { request_id, request } if request.non_resource_path.is_some() => {
                self.serve_non_resource(ctx, from, request_id, *request)
            }
            Payload::ApiRequest { request_id, request } => {
                if self.synced {
                    self.handle(ctx, from, request_id, *request);
                } else {
                    self.held.push((from, request_id, *request, ctx.chain));
                }
            }
            Payload::Etcd(EtcdMessage::TxnResult { request_id, result }) => {
                self.etcd.answered(from);
                self.on_etcd_result(ctx, request_id, result)
            }
            // Only the current etcd watch feeds the cache: one left from before a relist (etcd came back, the
            // cache was rebuilt) would hand it every event a second time.
            Payload::Etcd(EtcdMessage::WatchEvents { watch_id, events }) if Some(watch_id) == self.etcd_watch => {
                self.etcd.answered(from);
                for e in events {
                    self.on_etcd_event(ctx, e);
                }
                self.serve_parked_lists(ctx);
            }
            Payload::Etcd(EtcdMessage::WatchProgressNotify { watch_id, revision })
                if Some(watch_id) == self.etcd_watch =>
            {
                self.cache.advance(revision);
                self.serve_parked_lists(ctx);
            }
            Payload::Etcd(EtcdMessage::WatchCanceled { watch_id, .. }) if Some(watch_id) == self.etcd_watch => {
                self.relist(ctx)
            }
            Payload::ConnectionRefused { request_id } if self.aggregated.contains_key(&request_id) => {
                self.aggregated_refused(ctx, request_id)
            }
            Payload::ConnectionRefused { request_id } => self.retry_elsewhere(ctx, from, request_id),
            Payload::ApiResponse { request_id, response, .. } => self.aggregated_answer(ctx, request_id, *response),
            Payload::Kubelet(m) => self.on_kubelet(ctx, *m),
            Payload::WatchClosed { watch_id } if self.is_log_stream(from, watch_id) => {
                self.close_log_stream(ctx, watch_id)
            }
            Payload::HealthzReply { id, result } => self.on_healthz(ctx, id, result),
            Payload::WatchClosed { watch_id } if self.cache.watcher(watch_id).is_some_and(|w| w.client == from) => {
                self.cache.remove_watcher(watch_id);
            }
            Payload::Disconnected { peer, .. } => {
                if self.etcd.is_member(peer) {
                    self.member_gone(ctx, peer);
                } else {
                    self.aggregated_gone(ctx, peer);
                    self.kubelet_gone(ctx, peer);
                    self.cache.remove_client(peer);
                    self.log.drop_client(peer);
                }
            }
            _ => {}
        }
    }

    /// `kubectl get --raw /readyz?verbose`: a non-resource path. Served whether or not the watch cache has
    /// synced (the health endpoints report exactly that kind of trouble); the etcd checks wait for a probe.
    fn serve_non_resource(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest) {
        if self.authenticate(&req.credentials, ctx.now).is_none() {
            return reply_warned(ctx, client, request_id, ApiResponse::Error(Status::unauthorized()), Vec::new());
        }
        let path = req.non_resource_path.unwrap_or_default();
        // Discovery and OpenAPI documents list the served definitions too; health paths need none.
        let documented = path.starts_with("/api") || path.starts_with("/openapi");
        let crds = if documented { apiextensions::served_definitions(&self.cache) } else { Vec::new() };
        let aggregated = req.params.aggregated_discovery.then(|| discovery::aggregated(&path, &crds)).flatten();
        if let Some(body) =
            aggregated.or_else(|| discovery::document(&path, &crds)).or_else(|| openapi::document(&path, &crds))
        {
            return reply_warned(ctx, client, request_id, ApiResponse::Raw { code: 200, body }, Vec::new());
        }
        let target = health::route(&path);
        if !health::needs_etcd(&target) {
            let (code, body) = health::answer_when(&target, &Ok(()), self.synced);
            return reply_warned(ctx, client, request_id, ApiResponse::Raw { code, body }, Vec::new());
        }
        self.health_waiting.push((client, request_id, path));
        self.probe_etcd(ctx);
    }

    /// Starts the etcd probe unless one is in flight; within the rate limit, the last result answers.
    fn probe_etcd(&mut self, ctx: &mut Ctx) {
        if self.health_probe.is_some() {
            return;
        }
        if let Some((at, last)) = &self.last_health {
            if ctx.now.since(*at) < health::ETCD_CHECK_INTERVAL_MS {
                let last = last.clone();
                return self.health_done(ctx, last);
            }
        }
        let id = self.next_etcd_id;
        self.health_probe = Some(id);
        self.last_health = Some((ctx.now, Err("etcd client connection not yet established".into())));
        self.send_etcd(ctx, Pending::Health, Txn::range(health::ETCD_HEALTH_KEY, false));
        ctx.timer(health::ETCD_CHECK_TIMEOUT_MS, TIMER_HEALTH + id);
    }

    /// The etcd probe ended: answers every health request waiting for it.
    fn health_done(&mut self, ctx: &mut Ctx, etcd: Result<(), String>) {
        if let Some(id) = self.health_probe.take() {
            self.forget(id);
            if let Some((at, _)) = self.last_health {
                self.last_health = Some((at, etcd.clone()));
            }
        }
        for (client, request_id, path) in std::mem::take(&mut self.health_waiting) {
            let (code, body) = health::answer_when(&health::route(&path), &etcd, self.synced);
            reply_warned(ctx, client, request_id, ApiResponse::Raw { code, body }, Vec::new());
        }
        self.etcd_surveyed(ctx, &etcd);
    }

    /// Sends `txn` to etcd for `pending`; while every member refuses, it waits for the channel instead.
    fn send_etcd(&mut self, ctx: &mut Ctx, pending: Pending, txn: Txn) {
        let id = self.next_etcd_id;
        self.next_etcd_id += 1;
        self.pending.insert(id, (pending, txn));
        self.dispatch(ctx, id);
    }

    /// Sends pending request `id` to the member the client picks, or parks it until the channel is ready
    /// (clientv3's `WaitForReady`): a client request then fails when its `--request-timeout` has passed.
    fn dispatch(&mut self, ctx: &mut Ctx, id: u64) {
        let Some((pending, txn)) = self.pending.get(&id) else { return };
        if !self.etcd.is_down() {
            let to = self.etcd.endpoint();
            ctx.send(to, Payload::Etcd(EtcdMessage::Txn { request_id: id, txn: txn.clone() }));
            self.sent_to.insert(id, to);
            return;
        }
        self.sent_to.remove(&id);
        let client_request = !matches!(pending, Pending::InitialList | Pending::Health);
        if client_request && self.deadlines.insert(id) {
            ctx.timer(REQUEST_TIMEOUT_MS, TIMER_DEADLINE + id);
        }
        if let Some(ms) = self.etcd.schedule_reconnect() {
            ctx.timer(ms, TIMER_RECONNECT);
        }
    }

    /// Pending request `id` is over (answered, or given up): forgets its routing and deadline.
    fn forget(&mut self, id: u64) -> Option<(Pending, Txn)> {
        self.sent_to.remove(&id);
        self.deadlines.remove(&id);
        self.pending.remove(&id)
    }

    /// An etcd member refused a request: the client tries the next member, or waits when all refused.
    fn retry_elsewhere(&mut self, ctx: &mut Ctx, from: ComponentId, request_id: u64) {
        self.etcd.refused(from);
        if Some(request_id) == self.etcd_watch {
            return self.rewatch(ctx);
        }
        if self.pending.contains_key(&request_id) {
            self.dispatch(ctx, request_id);
        }
    }

    /// The member `peer` went away (stopped, or its machine powered off): the watch on it and the requests
    /// sent to it go to the next member, or wait for the channel.
    fn member_gone(&mut self, ctx: &mut Ctx, peer: ComponentId) {
        self.etcd.refused(peer);
        if self.watch_member == Some(peer) {
            self.rewatch(ctx);
        }
        let lost: Vec<u64> = self.sent_to.iter().filter(|(_, to)| **to == peer).map(|(id, _)| *id).collect();
        for id in lost {
            self.dispatch(ctx, id);
        }
    }

    /// (Re)opens the etcd watch from the revision after the cache's, on the member the client picks; while
    /// none will take it, it is opened on reconnect.
    fn rewatch(&mut self, ctx: &mut Ctx) {
        self.watch_member = None;
        if self.etcd.is_down() {
            self.watch_lost = true;
            if let Some(ms) = self.etcd.schedule_reconnect() {
                ctx.timer(ms, TIMER_RECONNECT);
            }
            return;
        }
        self.watch_lost = false;
        let watch_id = self.next_etcd_id;
        self.next_etcd_id += 1;
        self.etcd_watch = Some(watch_id);
        let to = self.etcd.endpoint();
        self.watch_member = Some(to);
        let start = self.cache.revision() + 1;
        ctx.send(
            to,
            Payload::Etcd(EtcdMessage::Watch { watch_id, prefix: "/registry/".into(), start_revision: start }),
        );
    }

    /// The channel's reconnect backoff ran out: every member may be tried again, and what waited is sent.
    fn reconnect(&mut self, ctx: &mut Ctx) {
        self.etcd.reconnect();
        if self.watch_lost {
            self.rewatch(ctx);
        }
        let waiting: Vec<u64> = self.pending.keys().filter(|id| !self.sent_to.contains_key(id)).copied().collect();
        for id in waiting {
            self.dispatch(ctx, id);
        }
    }

    /// A waiting request's `--request-timeout` passed: the timeout filter answers 504 with a `Status` body
    /// written without a JSON content type (clients make their own error of it).
    fn deadline_passed(&mut self, ctx: &mut Ctx, id: u64) {
        if !self.deadlines.contains(&id) {
            return;
        }
        if let Some((pending, _)) = self.forget(id) {
            let timeout = ApiResponse::Raw { code: 504, body: REQUEST_TIMEOUT_BODY.to_string() };
            self.fail_pending_with(ctx, pending, timeout);
        }
    }

    fn fail_pending(&mut self, ctx: &mut Ctx, pending: Pending, status: Status) {
        self.fail_pending_with(ctx, pending, ApiResponse::Error(status))
    }

    /// Answers the client of a failed etcd request with `response`.
    fn fail_pending_with(&mut self, ctx: &mut Ctx, pending: Pending, response: ApiResponse) {
        match pending {
            // The cacher's reflector backs off and lists again, for as long as it takes.
            Pending::InitialList => ctx.timer(crate::client::informer::RELIST_BACKOFF_MS, TIMER_RELIST),
            Pending::Health => {
                let why = response.status().map_or("context deadline exceeded", |s| s.message.as_str());
                self.health_done(ctx, Err(format!("error getting data from etcd: {why}")))
            }
            Pending::Read { client, request_id, .. }
            | Pending::ConsistentList { client, request_id, .. }
            | Pending::ProxyPod { client, request_id, .. } => self.respond(ctx, client, request_id, response),
            Pending::Write { op, written } => {
                if let Some(w) = &written {
                    self.charged.remove(&w.key());
                }
                self.respond_warned(ctx, op.client, op.request_id, response, op.warnings)
            }
            Pending::NamespaceLookup { op } => {
                self.respond_warned(ctx, op.client, op.request_id, response, op.warnings)
            }
        }
    }

    fn handle(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, mut req: ApiRequest) {
        if req.subresource.is_none() && matches!(req.verb, Verb::Create | Verb::Update) {
            if let Some(raw) = req.raw_body.as_mut() {
                crate::api::manifest::with_endpoint_type(raw, req.resource);
            }
        }
        let record = RequestRecord {
            chain: ctx.chain,
            at_ms: ctx.now.ms(),
            user: String::new(),
            summary: req.summary(),
            namespace: req.namespace.clone(),
            name: req.name.clone().or_else(|| req.body.as_ref().map(|b| b.name().to_string())).or_else(|| {
                let raw = req.raw_body.as_ref()?.pointer("/metadata/name")?.as_str()?;
                Some(raw.to_string())
            }),
            stages: Vec::new(),
            code: 0,
            revision: None,
            verb: req.verb,
            client,
        };
        self.log.open(client, request_id, record);
        let authenticated = self.authenticate(&req.credentials, ctx.now);
        match &authenticated {
            Some(u) => {
                self.log.set_user(client, request_id, &u.name);
                self.log.stage(client, request_id, Stage::Authentication, true, u.name.clone());
            }
            None => self.log.stage(client, request_id, Stage::Authentication, false, "401 Unauthorized"),
        }
        let Some(mut user) = authenticated else {
            return self.respond(ctx, client, request_id, ApiResponse::Error(Status::unauthorized()));
        };
        if let Some(target) = &req.impersonate {
            let attrs = Attributes {
                verb: "impersonate",
                api_group: "",
                resource: "users",
                subresource: None,
                name: Some(target),
                namespace: None,
            };
            if !authz::authorize(&user, &attrs, &self.cache) {
                let detail = attrs.forbidden_detail(&user.name);
                return self.respond(
                    ctx,
                    client,
                    request_id,
                    ApiResponse::Error(Status::forbidden("users", target, &detail)),
                );
            }
            user = impersonated(target, &self.authn);
        }
        let name = req.name.clone().or_else(|| req.body.as_ref().map(|b| b.name().to_string())).unwrap_or_default();
        let attrs = Attributes {
            verb: req.verb.as_str(),
            api_group: req.resource.group,
            resource: req.resource.resource,
            subresource: req.subresource.as_deref(),
            name: req.name.as_deref(),
            namespace: req.namespace.as_deref(),
        };
        let allowed = authz::authorize(&user, &attrs, &self.cache);
        self.log.stage(
            client,
            request_id,
            Stage::Authorization,
            allowed,
            if allowed { "allowed".to_string() } else { attrs.forbidden_detail(&user.name) },
        );
        if !allowed {
            let detail = attrs.forbidden_detail(&user.name);
            // The status names the resource without its subresource (`pods "web" is forbidden: … "pods/log"`).
            let resource = req.resource.qualified();
            let shown = if req.verb == Verb::Create && req.subresource.is_none() { "" } else { name.as_str() };
            return self.respond(
                ctx,
                client,
                request_id,
                ApiResponse::Error(Status::forbidden(&resource, shown, &detail)),
            );
        }
        if let Kind::Custom(_) = req.resource.kind {
            let served = match self.custom_request(&req, &name) {
                Ok(served) => served,
                Err(status) => return self.respond(ctx, client, request_id, ApiResponse::Error(status)),
            };
            req.resource = served.row;
            self.served_as.insert((client, request_id), served.row);
            if req.params.as_table && matches!(req.verb, Verb::Get | Verb::List) && req.subresource.is_none() {
                self.table_requests.insert((client, request_id), apiextensions::columns::columns(&served).into());
            }
            if req.verb == Verb::Create && apiextensions::just_established(&served, ctx.now) {
                // The CRD handler sleeps before creating an object of a definition established a moment ago.
                let park = self.next_park_id;
                self.next_park_id += 1;
                self.waiting_creates.insert(park, (client, request_id, req, user, ctx.chain));
                ctx.timer(apiextensions::JUST_ESTABLISHED_WAIT_MS, TIMER_JUST_ESTABLISHED + park);
                return;
            }
        }
        self.authorized(ctx, client, request_id, req, user);
    }

    /// Authentication: static tokens and client certificates, then the service account tokens this
    /// apiserver's key signed, taken while unexpired and while the service account (and the object the
    /// token is bound to) exists with the UID the token names (`--service-account-lookup`).
    fn authenticate(&self, credentials: &crate::api::Credentials, now: SimTime) -> Option<UserInfo> {
        if let Some(user) = self.authn.authenticate(credentials) {
            return Some(user);
        }
        let crate::api::Credentials::Token(token) = credentials else { return None };
        let claims = self.token_signer.verify(token, service_account_token::unix_seconds(now))?;
        let account = self.cache.get(Kind::ServiceAccount, Some(&claims.namespace), &claims.name)?;
        if account.meta().uid.as_deref() != Some(claims.uid.as_str()) {
            return None;
        }
        if let Some(bound) = &claims.bound {
            let kind = service_account_token::bound_kind(&bound.kind)?;
            let namespace = (kind != Kind::Node).then_some(claims.namespace.as_str());
            let object = self.cache.get(kind, namespace, &bound.name)?;
            if !bound.uid.is_empty() && object.meta().uid.as_deref() != Some(bound.uid.as_str()) {
                return None;
            }
        }
        let groups = vec![
            "system:serviceaccounts".to_string(),
            format!("system:serviceaccounts:{}", claims.namespace),
            "system:authenticated".to_string(),
        ];
        // The service account token authenticator's extras (KEP-4193): the token's ID, and the pod it is bound to.
        let mut extra = BTreeMap::new();
        extra.insert("authentication.kubernetes.io/credential-id".to_string(), vec![format!("JTI={}", claims.jti)]);
        if let Some(pod) = claims.bound.as_ref().filter(|b| b.kind == "pod") {
            extra.insert("authentication.kubernetes.io/pod-name".to_string(), vec![pod.name.clone()]);
            extra.insert("authentication.kubernetes.io/pod-uid".to_string(), vec![pod.uid.clone()]);
        }
        let name = format!("system:serviceaccount:{}:{}", claims.namespace, claims.name);
        Some(UserInfo { name, uid: claims.uid, groups, extra })
    }

    /// `POST …/serviceaccounts/NAME/token`: a TokenRequest answered with a token for the service account,
    /// nothing stored (`pkg/registry/core/serviceaccount/storage/token.go`).
    fn token_request(&mut self, now: SimTime, req: &ApiRequest) -> ApiResponse {
        if req.verb != Verb::Create {
            return review::not_allowed(req);
        }
        let (namespace, name) = (req.namespace.clone().unwrap_or_default(), req.name.clone().unwrap_or_default());
        let body = match (&req.body, &req.raw_body) {
            (Some(b), _) => b.clone(),
            (None, Some(raw)) => {
                // The status is the answer's; a client's zero one (`expirationTimestamp: null`) is dropped.
                let mut raw = raw.clone();
                if let Some(m) = raw.as_object_mut() {
                    m.remove("status");
                }
                match crate::api::manifest::decode_strict(&raw) {
                    Ok(o) => o,
                    Err(s) => return ApiResponse::Error(s),
                }
            }
            _ => return ApiResponse::Error(Status::bad_request("the request has no body")),
        };
        let Object::TokenRequest(request) = body else {
            return ApiResponse::Error(Status::bad_request(format!(
                "the object kind {} does not match the resource serviceaccounts/token",
                body.kind().name()
            )));
        };
        let Some(account) = self.cache.get(Kind::ServiceAccount, Some(&namespace), &name) else {
            return ApiResponse::Error(Status::not_found("serviceaccounts", &name));
        };
        let account_uid = account.meta().uid.clone().unwrap_or_default();
        match service_account_token::answer(*request, &namespace, &name, &self.cache) {
            Ok((mut answered, bound, audiences, seconds)) => {
                let jti = registry::uid(&mut self.token_ids);
                let issued = service_account_token::unix_seconds(now);
                let token = self.token_signer.mint(
                    &namespace,
                    &name,
                    &account_uid,
                    bound.as_ref(),
                    &audiences,
                    issued,
                    seconds,
                    &jti,
                );
                service_account_token::fill_status(&mut answered, token, issued + seconds);
                ApiResponse::Object(Arc::new(Object::TokenRequest(Box::new(answered))))
            }
            Err(status) => ApiResponse::Error(status),
        }
    }

    /// A request past authentication and authorization (and, for a custom resource, its definition's
    /// checks): served by the storage, a subresource's handler, a kubelet or an aggregated API.
    fn authorized(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest, user: UserInfo) {
        if req.resource.kind == Kind::Endpoints {
            self.deprecated.insert((client, request_id));
        }
        if req.subresource.as_deref() == Some("scale") {
            self.scale_requests.insert((client, request_id));
        }
        let req = match self.events_v1_request(client, request_id, req) {
            Ok(r) => r,
            Err(status) => return self.respond(ctx, client, request_id, ApiResponse::Error(status)),
        };
        if req.resource.kind == Kind::Binding && req.verb != Verb::Create {
            return self.respond(ctx, client, request_id, review::not_allowed(&req));
        }
        if req.resource.kind == Kind::ComponentStatus {
            return self.component_status(ctx, client, request_id, &req);
        }
        if review::is_review(&req) {
            let now = ctx.now;
            let response = review::answer(&user, &req, &self.cache, &|c| self.authenticate(c, now));
            return self.respond(ctx, client, request_id, response);
        }
        if req.resource.kind == Kind::ServiceAccount && req.subresource.as_deref() == Some("token") {
            let response = self.token_request(ctx.now, &req);
            return self.respond(ctx, client, request_id, response);
        }
        if proxy::is_proxied(&req) {
            return self.proxy_start(ctx, client, request_id, req);
        }
        if aggregator::is_aggregated(&req) {
            return self.aggregate(ctx, client, request_id, req);
        }
        match req.verb {
            Verb::Get | Verb::List => self.read(ctx, client, request_id, req),
            Verb::Watch => self.watch(ctx, client, request_id, req),
            Verb::Create | Verb::Update | Verb::Patch | Verb::Delete => {
                let op = WriteOp {
                    client,
                    request_id,
                    req,
                    attempts: 0,
                    prepared: None,
                    namespace_confirmed: false,
                    namespace_object: None,
                    user,
                    warnings: Vec::new(),
                };
                let current = op
                    .req
                    .name
                    .as_deref()
                    .and_then(|n| self.cache.get(op.req.resource.kind, op.req.namespace.as_deref(), n));
                self.attempt_write(ctx, op, current);
            }
            Verb::DeleteCollection => self.respond(
                ctx,
                client,
                request_id,
                ApiResponse::Error(Status::method_not_allowed("deletecollection is not supported")),
            ),
        }
    }

    /// A request for a custom resource, checked against what the definitions serve now: the resource row of
    /// the version asked for, or the refusal (a resource no definition serves is not found; a definition
    /// being deleted takes no new objects; only the subresources the version declares exist; a custom
    /// resource takes no strategic merge patch).
    fn custom_request(&self, req: &ApiRequest, name: &str) -> Result<apiextensions::Served, Status> {
        let r = req.resource;
        let served = self.served(r)?;
        if served.row.namespaced != r.namespaced && (req.namespace.is_some() || req.name.is_some()) {
            return Err(Status::no_such_resource());
        }
        match req.subresource.as_deref() {
            None => {}
            Some("status") if served.has_status() => {}
            Some("scale") if served.has_scale() => {}
            Some(_) => return Err(Status::no_such_resource()),
        }
        if req.verb == Verb::Create && served.terminating() {
            return Err(Status::forbidden(
                &served.row.qualified(),
                name,
                "create not allowed while custom resource definition is terminating",
            ));
        }
        if matches!(req.patch, Some(crate::api::PatchBody::Strategic(_))) {
            return Err(Status::unsupported_media_type(&[
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/apply-patch+yaml",
            ]));
        }
        Ok(served)
    }

    /// The definition serving a custom resource row now.
    fn served(&self, row: &crate::api::ResourceInfo) -> Result<apiextensions::Served, Status> {
        apiextensions::resolve(&self.cache, row.group, row.version, row.resource).ok_or_else(Status::no_such_resource)
    }

    fn read(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest) {
        let kind = req.resource.kind;
        if let Err(status) = selectors(&req) {
            return self.respond(ctx, client, request_id, ApiResponse::Error(status));
        }
        if let (Verb::List, Some(token)) = (req.verb, req.params.continue_token.as_deref()) {
            // A later page: read etcd at the first page's revision (the newest for a renewed token).
            let prefix = req.resource.prefix(req.namespace.as_deref());
            let cursor = match pager::decode(token, &prefix) {
                Ok(c) => c,
                Err(status) => return self.respond(ctx, client, request_id, ApiResponse::Error(status)),
            };
            if !matches!(req.params.resource_version.as_deref(), None | Some("") | Some("0")) {
                let status = Status::bad_request("specifying resource version is not allowed when using continue");
                return self.respond(ctx, client, request_id, ApiResponse::Error(status));
            }
            let revision = cursor.revision.unwrap_or(0);
            let txn = match req.params.limit.filter(|l| *l > 0) {
                // Without selectors etcd stops at the page (and one more, to know whether more follow).
                Some(limit) if unselected(&req) => Txn {
                    success: vec![Op::Page { prefix, from: cursor.start_key, revision, limit: limit as usize + 1 }],
                    ..Txn::default()
                },
                _ => Txn::range_at(&prefix, true, revision),
            };
            return self.send_etcd(ctx, Pending::Read { client, request_id, req: Box::new(req) }, txn);
        }
        if req.params.resource_version.as_deref() == Some("0") {
            let response = match req.verb {
                Verb::Get => match self.cache.get(kind, req.namespace.as_deref(), req.name.as_deref().unwrap_or("")) {
                    Some(o) => ApiResponse::Object(o),
                    None => ApiResponse::Error(Status::not_found(
                        &req.resource.qualified(),
                        req.name.as_deref().unwrap_or(""),
                    )),
                },
                _ => {
                    let items = self.list_from_cache(&req);
                    ApiResponse::List { items, resource_version: self.cache.revision(), more: None }
                }
            };
            return self.respond(ctx, client, request_id, response);
        }
        if req.verb == Verb::List && req.params.resource_version.as_deref().unwrap_or("").is_empty() {
            // Consistent reads from cache (KEP-2340, on by default since v1.31): a quorum read of the
            // resource's prefix key gives etcd's current revision, and the list is served from the watch
            // cache once the cache has seen that revision. Consistent gets still read etcd.
            let txn = Txn::range(&req.resource.prefix(req.namespace.as_deref()), false);
            return self.send_etcd(ctx, Pending::ConsistentList { client, request_id, req: Box::new(req) }, txn);
        }
        let txn = match (&req.verb, &req.name) {
            (Verb::Get, Some(name)) => Txn::range(&req.resource.key(req.namespace.as_deref(), name), false),
            _ => Txn::range(&req.resource.prefix(req.namespace.as_deref()), true),
        };
        self.send_etcd(ctx, Pending::Read { client, request_id, req: Box::new(req) }, txn);
    }

    fn list_from_cache(&self, req: &ApiRequest) -> Vec<Arc<Object>> {
        let (labels, fields) = selectors(req).unwrap_or_default();
        let kind = req.resource.kind;
        let candidates = match (kind, fields.required_value("spec.nodeName")) {
            (Kind::Pod, Some(node)) if !node.is_empty() => self.cache.pods_on(node),
            _ => self.cache.list(kind, req.namespace.as_deref()),
        };
        candidates
            .into_iter()
            .filter(|o| req.namespace.as_deref().is_none_or(|ns| o.namespace() == Some(ns)))
            .filter(|o| labels.matches(o.meta().labels.as_ref()) && fields.matches(o))
            .collect()
    }

    fn reply_list_from_cache(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: &ApiRequest) {
        let items = self.list_from_cache(req);
        let response = pager::page(req, items, self.cache.revision(), None, unselected(req));
        self.respond(ctx, client, request_id, response);
    }

    /// Serves the consistent lists whose revision the cache has now reached.
    fn serve_parked_lists(&mut self, ctx: &mut Ctx) {
        let reached = self.cache.revision();
        let ready: Vec<u64> =
            self.parked_lists.iter().filter(|(_, p)| p.revision <= reached).map(|(id, _)| *id).collect();
        for id in ready {
            if let Some(p) = self.parked_lists.remove(&id) {
                self.reply_list_from_cache(ctx, p.client, p.request_id, &p.req);
            }
        }
    }

    fn watch(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest) {
        let (labels, fields) = match selectors(&req) {
            Ok(s) => s,
            Err(status) => return self.respond(ctx, client, request_id, ApiResponse::Error(status)),
        };
        let kind = req.resource.kind;
        let watch_id = self.next_watch_id;
        self.next_watch_id += 1;
        let watcher = Watcher {
            client,
            kind,
            namespace: req.namespace.clone(),
            labels,
            fields: fields.clone(),
            bookmarks: req.params.allow_bookmarks,
            events_v1: self.v1_events.contains(&(client, request_id)),
            served_as: matches!(kind, Kind::Custom(_)).then_some(req.resource),
        };
        let table = match req.resource.kind {
            Kind::Custom(_) if req.params.as_table => {
                self.served(req.resource).ok().map(|s| apiextensions::columns::columns(&s).into())
            }
            _ => None,
        };
        self.respond(ctx, client, request_id, ApiResponse::WatchStarted { watch_id, table });
        match req.params.resource_version.as_deref().unwrap_or("") {
            "" | "0" => {
                for o in self.list_from_cache(&req) {
                    let rv = o.resource_version();
                    send_event(ctx, client, watch_id, WatchEventType::Added, shown(&watcher, Some(o)), rv);
                }
            }
            rv => {
                let from: u64 = rv.parse().unwrap_or(0);
                match self.cache.events_since(kind, from, req.namespace.as_deref()) {
                    Ok(events) => {
                        for e in events {
                            if let Some(t) = watcher.event_for(e.old.as_deref(), e.new.as_deref()) {
                                let obj = if t == WatchEventType::Deleted { e.old.clone() } else { e.new.clone() };
                                send_event(ctx, client, watch_id, t, shown(&watcher, obj), e.revision);
                            }
                        }
                    }
                    Err(oldest) => {
                        let event = WatchEvent {
                            kind: WatchEventType::Error,
                            object: None,
                            resource_version: from,
                            status: Some(Status::expired(from, oldest)),
                        };
                        ctx.send(client, Payload::WatchEvent { watch_id, event: Box::new(event) });
                        ctx.send(client, Payload::WatchEnded { watch_id });
                        return;
                    }
                }
            }
        }
        self.cache.add_watcher(watch_id, watcher);
        if let Some(seconds) = req.params.timeout_seconds.filter(|s| *s > 0) {
            ctx.timer((seconds as u64).saturating_mul(1000), TIMER_WATCH_TIMEOUT + watch_id);
        }
    }

    fn send_bookmarks(&mut self, ctx: &mut Ctx) {
        let rv = self.cache.revision();
        let ids: Vec<(u64, ComponentId)> = (1..self.next_watch_id)
            .filter_map(|id| self.cache.watcher(id).filter(|w| w.bookmarks).map(|w| (id, w.client)))
            .collect();
        for (watch_id, client) in ids {
            send_event(ctx, client, watch_id, WatchEventType::Bookmark, None, rv);
        }
    }

    /// One try at a write, given the best knowledge of the current object.
    fn attempt_write(&mut self, ctx: &mut Ctx, mut op: WriteOp, current: Option<Arc<Object>>) {
        op.attempts += 1;
        // A dry-run update answers with the version it was made from (etcd never stamps a new one).
        let read_version = current.as_ref().and_then(|c| c.meta().resource_version.clone());
        match self.plan(ctx.now, &mut op, current) {
            Ok((_, written, _)) if op.req.params.dry_run => {
                // dryRun=All: every step but the write to etcd (a create still needs a free name).
                let written = written.map(|w| match (&read_version, op.req.verb) {
                    (Some(version), verb) if verb != Verb::Create && w.meta().resource_version.is_none() => {
                        let mut stamped = (*w).clone();
                        stamped.meta_mut().resource_version = Some(version.clone());
                        Arc::new(stamped)
                    }
                    _ => w,
                });
                let response = match written {
                    Some(w)
                        if op.req.verb == Verb::Create
                            && self.cache.get(w.kind(), w.namespace(), w.name()).is_some() =>
                    {
                        ApiResponse::Error(Status::already_exists(&op.req.resource.qualified(), w.name()))
                    }
                    Some(w) => ApiResponse::Object(w),
                    None => ApiResponse::Error(Status::internal("write produced no object")),
                };
                self.respond_warned(ctx, op.client, op.request_id, response, op.warnings)
            }
            Ok((txn, Some(current), _)) if txn == Txn::default() => {
                self.respond_warned(ctx, op.client, op.request_id, ApiResponse::Object(current), op.warnings)
            }
            Ok((txn, written, _)) => {
                // Only namespaces with a quota need the charge.
                if let (Verb::Create, Some(w)) = (op.req.verb, &written) {
                    if w.namespace().is_some_and(|ns| !self.cache.list(Kind::ResourceQuota, Some(ns)).is_empty()) {
                        self.charged.insert(w.key(), Arc::clone(w));
                    }
                }
                self.send_etcd(ctx, Pending::Write { op: Box::new(op), written }, txn)
            }
            Err(status) if is_namespace_miss(&status, &op) => {
                let ns = op.req.namespace.clone().unwrap_or_default();
                let key = Kind::Namespace.info().key(None, &ns);
                op.attempts -= 1;
                self.send_etcd(ctx, Pending::NamespaceLookup { op: Box::new(op) }, Txn::range(&key, false));
            }
            Err(status) => self.respond_warned(ctx, op.client, op.request_id, ApiResponse::Error(status), op.warnings),
        }
    }

    /// Turns a write request and the current object into an etcd transaction (or a refusal).
    fn plan(
        &mut self,
        now: SimTime,
        op: &mut WriteOp,
        current: Option<Arc<Object>>,
    ) -> Result<(Txn, Option<Arc<Object>>, bool), Status> {
        let req = &op.req;
        let info = req.resource;
        let qualified = info.qualified();
        let name = req.name.clone().unwrap_or_default();
        if req.verb == Verb::Create && req.subresource.as_deref() == Some("binding") {
            let current = current.ok_or_else(|| Status::not_found("pods", &name))?;
            let node = match req.body.as_ref() {
                Some(Object::Binding(b)) => b.target.name.clone().unwrap_or_default(),
                _ => return Err(Status::bad_request("a Binding body is required")),
            };
            let bound = registry::bind(&current, &node)?;
            return Ok(self.guarded_put(&current, bound));
        }
        if req.verb == Verb::Create && req.subresource.as_deref() == Some("eviction") {
            let current = current.ok_or_else(|| Status::not_found("pods", &name))?;
            if let Some(message) = eviction::blocked_by_budget(&current, &self.cache) {
                return Err(Status::too_many_requests(message));
            }
            let grace = match req.body.as_ref() {
                Some(Object::Eviction(e)) => e.delete_options.as_ref().and_then(|o| o.grace_period_seconds),
                _ => None,
            };
            return Ok(match registry::plan_delete(&current, now, grace, None) {
                DeletePlan::Remove => {
                    let key = current.key();
                    (
                        ip_addresses::releasing(
                            registry::guarded_txn(&key, current.resource_version(), Op::Delete { key: key.clone() }),
                            &current,
                        ),
                        Some(current),
                        true,
                    )
                }
                DeletePlan::Mark(marked) => self.guarded_put(&current, *marked),
            });
        }
        match req.verb {
            Verb::Create => {
                let obj = match op.prepared.clone() {
                    Some(o) => o,
                    None => {
                        let mut warnings = Vec::new();
                        let ns = op.namespace_object.clone();
                        let prepared = self.prepare_create(
                            now,
                            req,
                            op.namespace_confirmed,
                            ns.as_deref(),
                            &op.user,
                            &mut warnings,
                        );
                        op.warnings = warnings;
                        let o = Arc::new(prepared?);
                        op.prepared = Some(Arc::clone(&o));
                        o
                    }
                };
                if op.attempts > 1 {
                    return Err(Status::already_exists(&qualified, obj.name()));
                }
                let key = obj.key();
                let txn = registry::create_txn(&key, Arc::clone(&obj));
                Ok((ip_addresses::allocating(txn, &obj, now, &mut self.allocations), Some(obj), false))
            }
            Verb::Update | Verb::Patch => {
                let current = current.ok_or_else(|| Status::not_found(&qualified, &name))?;
                // A retried attempt (a conflict) starts its warnings afresh.
                op.warnings.clear();
                let custom = match info.kind {
                    Kind::Custom(_) => Some(self.served(info)?),
                    _ => None,
                };
                let scale = req.subresource.as_deref() == Some("scale");
                let new = match (&req.patch, &req.body, &req.raw_body, &custom) {
                    (Some(p), _, _, Some(served)) if scale => apiextensions::apply_scale(served, &current, p)?,
                    (Some(p), _, _, None) if scale => registry::apply_scale(&current, p)?,
                    _ if scale => return Err(Status::method_not_allowed("the scale subresource takes a patch")),
                    (Some(p), _, _, Some(served)) => {
                        let doc = registry::patched_document(&current, p)?;
                        let (new, unknown) = apiextensions::decode(served, &doc, req.params.field_validation, true)?;
                        op.warnings.extend(unknown);
                        new
                    }
                    (Some(p), _, _, None) => {
                        let (new, unknown) = registry::apply_patch_validated(&current, p, req.params.field_validation)?;
                        op.warnings.extend(unknown);
                        new
                    }
                    (None, Some(b), _, _) => b.clone(),
                    (None, None, Some(raw), Some(served)) => {
                        let (new, unknown) = apiextensions::decode(served, raw, req.params.field_validation, false)?;
                        op.warnings.extend(unknown);
                        new
                    }
                    (None, None, Some(raw), None) => {
                        let (new, unknown) = crate::api::manifest::decode_validated(raw, req.params.field_validation)?;
                        op.warnings.extend(unknown);
                        new
                    }
                    _ => return Err(Status::bad_request("the request has no body")),
                };
                if req.verb == Verb::Update {
                    let wanted = new.resource_version();
                    if wanted != 0 && wanted != current.resource_version() {
                        return Err(Status::stale_object(&qualified, &name));
                    }
                }
                let definition = current.kind() == Kind::CustomResourceDefinition;
                let mut new = match (req.subresource.as_deref(), &custom) {
                    (Some("approval"), _) => certificates::prepare_approval(&current, new, now)?,
                    (sub, Some(served)) => apiextensions::prepare_update(served, &current, new, sub),
                    (Some("status"), None) if definition => apiextensions::prepare_definition_status(&current, new),
                    (sub, None) => registry::prepare_update(&current, new, sub)?,
                };
                if let (Object::CustomResourceDefinition(next), None) = (&mut new, req.subresource.as_deref()) {
                    apiextensions::prepare_definition_update(next);
                }
                if let (Object::CertificateSigningRequest(old), Object::CertificateSigningRequest(next)) =
                    (current.as_ref(), &new)
                {
                    let approval = req.subresource.as_deref() == Some("approval");
                    let causes = certificates::validate_update(old, next, approval);
                    if !causes.is_empty() {
                        return Err(Status::invalid(&info.group_kind(), info.kind.name(), &name, causes));
                    }
                }
                if let (Some("ephemeralcontainers"), Object::Pod(old), Object::Pod(next)) =
                    (req.subresource.as_deref(), current.as_ref(), &mut new)
                {
                    defaults::default_ephemeral_containers(next);
                    let causes = validation::pod::validate_ephemeral_containers_update(next, old);
                    if !causes.is_empty() {
                        return Err(Status::invalid(&info.group_kind(), info.kind.name(), &name, causes));
                    }
                }
                if req.subresource.is_none() || custom.is_some() {
                    defaults::apply_defaults(&mut new);
                    let mut causes = validation::validate_update(&current, &new);
                    if let Some(served) = &custom {
                        causes.extend(apiextensions::validate(served, &new, Some(&current)));
                    }
                    if let Object::CustomResourceDefinition(crd) = &new {
                        causes.extend(apiextensions::validate_definition(crd));
                    }
                    if !causes.is_empty() {
                        return Err(Status::invalid(&info.group_kind(), info.kind.name(), &name, causes));
                    }
                }
                let mut warnings = Vec::new();
                let admitted = {
                    let adm = admission::AdmissionRequest {
                        verb: req.verb,
                        kind: info.kind,
                        subresource: req.subresource.as_deref(),
                        namespace: current.namespace(),
                        name: &name,
                        namespace_confirmed: true,
                        namespace_object: None,
                        user: &op.user,
                        dry_run: req.params.dry_run,
                        charged: &[],
                    };
                    admission::validate(&adm, Some(&new), Some(&current), &self.cache, &mut warnings)
                };
                op.warnings.extend(warnings);
                admitted?;
                // ShouldDeleteDuringUpdate: the last finalizer gone removes an object being deleted, unless it
                // is still in its grace period (a pod the kubelet is stopping goes when the kubelet says so).
                let finalized = new.meta().deletion_timestamp.is_some()
                    && new.meta().finalizers.as_ref().is_none_or(Vec::is_empty)
                    && current.meta().deletion_grace_period_seconds.unwrap_or(0) == 0
                    && registry::spec_finalizers_done(&new);
                if finalized {
                    let key = current.key();
                    return Ok((
                        ip_addresses::releasing(
                            registry::guarded_txn(&key, current.resource_version(), Op::Delete { key: key.clone() }),
                            &current,
                        ),
                        Some(Arc::new(new)),
                        true,
                    ));
                }
                if unchanged(&current, &mut new) {
                    // GuaranteedUpdate writes nothing when the object did not change: same revision, no event.
                    return Ok((Txn::default(), Some(current), false));
                }
                Ok(self.guarded_put(&current, new))
            }
            Verb::Delete => {
                let current = current.ok_or_else(|| Status::not_found(&qualified, &name))?;
                let mut warnings = Vec::new();
                let admitted = {
                    let adm = admission::AdmissionRequest {
                        verb: Verb::Delete,
                        kind: info.kind,
                        subresource: req.subresource.as_deref(),
                        namespace: current.namespace(),
                        name: &name,
                        namespace_confirmed: true,
                        namespace_object: None,
                        user: &op.user,
                        dry_run: req.params.dry_run,
                        charged: &[],
                    };
                    admission::validate(&adm, None, Some(&current), &self.cache, &mut warnings)
                };
                op.warnings = warnings;
                admitted?;
                if let Object::CustomResourceDefinition(crd) = current.as_ref() {
                    // The definition's REST Delete: marked, finalized once its objects are gone.
                    if crd.metadata.deletion_timestamp.is_some() {
                        return Ok((Txn::default(), Some(current), false));
                    }
                    let marked = apiextensions::mark_deleted(crd, now);
                    return Ok(self.guarded_put(&current, Object::CustomResourceDefinition(Box::new(marked))));
                }
                match registry::plan_delete(
                    &current,
                    now,
                    req.params.grace_period_seconds,
                    req.params.propagation_policy.as_deref(),
                ) {
                    DeletePlan::Remove => {
                        let key = current.key();
                        Ok((
                            ip_addresses::releasing(
                                registry::guarded_txn(
                                    &key,
                                    current.resource_version(),
                                    Op::Delete { key: key.clone() },
                                ),
                                &current,
                            ),
                            Some(current),
                            true,
                        ))
                    }
                    DeletePlan::Mark(marked) => Ok(self.guarded_put(&current, *marked)),
                }
            }
            _ => Err(Status::method_not_allowed("unsupported write")),
        }
    }

    /// An update guarded by the current version; the stored value (without resourceVersion) is also what the
    /// write answers with, once the new revision is filled in.
    fn guarded_put(&self, current: &Object, new: Object) -> (Txn, Option<Arc<Object>>, bool) {
        let key = current.key();
        let value = registry::for_storage(new);
        let txn = registry::guarded_txn(
            &key,
            current.resource_version(),
            Op::Put { key: key.clone(), value: Arc::clone(&value) },
        );
        (txn, Some(value), false)
    }

    /// Decode, default, name, admit (mutating), validate, admit (validating), and fill in server fields.
    /// Admission warnings go to `warnings`, whether the create is refused or not.
    fn prepare_create(
        &mut self,
        now: SimTime,
        req: &ApiRequest,
        namespace_confirmed: bool,
        namespace_object: Option<&Object>,
        user: &UserInfo,
        warnings: &mut Vec<String>,
    ) -> Result<Object, Status> {
        let info = req.resource;
        let custom = match info.kind {
            Kind::Custom(_) => Some(self.served(info)?),
            _ => None,
        };
        let mut obj = match (&req.body, &req.raw_body) {
            (Some(b), _) => b.clone(),
            (None, Some(raw)) if custom.is_some() => {
                let served = custom.as_ref().expect("checked by the guard");
                let (obj, unknown) = apiextensions::decode(served, raw, req.params.field_validation, false)?;
                warnings.extend(unknown);
                obj
            }
            (None, Some(raw)) => {
                let (obj, unknown) = crate::api::manifest::decode_validated(raw, req.params.field_validation)?;
                warnings.extend(unknown);
                obj
            }
            _ => return Err(Status::bad_request("the request has no body")),
        };
        if let Some(message) = validation::decode_error(&obj) {
            return Err(Status::bad_request(message));
        }
        if obj.kind() != info.kind {
            return Err(Status::bad_request(format!(
                "the object kind {} does not match the resource {}",
                obj.kind().name(),
                info.resource
            )));
        }
        if info.namespaced {
            let body_ns = obj.namespace().map(str::to_string);
            match (&req.namespace, body_ns) {
                (Some(r), Some(b)) if *r != b => {
                    return Err(Status::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ));
                }
                (Some(r), _) => obj.meta_mut().namespace = Some(r.clone()),
                (None, _) => {}
            }
        } else {
            obj.meta_mut().namespace = None;
        }
        defaults::apply_defaults(&mut obj);
        if obj.name().is_empty() {
            if let Some(base) = obj.meta().generate_name.clone().filter(|g| !g.is_empty()) {
                let (root, stream) =
                    if req.params.dry_run { (&self.dry_run_names, "dry-run") } else { (&self.names, "") };
                let key = format!("{stream}/{}/{}/{base}", info.resource, obj.namespace().unwrap_or(""));
                let names = self.names_by_base.entry(key).or_insert_with_key(|k| root.fork(k));
                obj.meta_mut().name = Some(registry::generate_name(&base, names));
            }
        }
        let name = obj.name().to_string();
        let ns_owned = obj.namespace().map(str::to_string);
        // Keys are etcd keys, so the kind's prefix in the namespace ranges over exactly its objects.
        let prefix = info.prefix(ns_owned.as_deref());
        let charged: Vec<Arc<Object>> = self
            .charged
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(_, o)| Arc::clone(o))
            .collect();
        let adm = admission::AdmissionRequest {
            verb: Verb::Create,
            kind: info.kind,
            subresource: None,
            namespace: ns_owned.as_deref(),
            name: &name,
            namespace_confirmed,
            namespace_object,
            user,
            dry_run: req.params.dry_run,
            charged: &charged,
        };
        admission::mutate(&adm, &mut obj, &self.cache)?;
        // BeforeCreate: the strategy's PrepareForCreate and the system fields, then the allocators, then validation.
        let uids = if req.params.dry_run { &mut self.dry_run_uids } else { &mut self.uids };
        registry::prepare_create(&mut obj, now, uids);
        if let Object::CertificateSigningRequest(csr) = &mut obj {
            certificates::prepare_for_create(csr, user);
        }
        if let Object::CustomResourceDefinition(crd) = &mut obj {
            apiextensions::prepare_definition(crd);
        }
        if let Some(served) = &custom {
            apiextensions::prepare_create(served, &mut obj);
        }
        if let Object::Job(job) = &mut obj {
            validation::batch::generate_selector(job);
        }
        if let Object::Service(svc) = &mut obj {
            self.allocate_service(svc)?;
        }
        let mut causes = validation::validate_create(&obj);
        if let Some(served) = &custom {
            causes.extend(apiextensions::validate(served, &obj, None));
        }
        if let Object::CustomResourceDefinition(crd) = &obj {
            causes.extend(apiextensions::validate_definition(crd));
        }
        if !causes.is_empty() {
            return Err(Status::invalid(&info.group_kind(), info.kind.name(), &name, causes));
        }
        let name = obj.name().to_string();
        let adm = admission::AdmissionRequest { name: &name, ..adm };
        admission::validate(&adm, Some(&obj), None, &self.cache, warnings)?;
        Ok(obj)
    }

    fn allocate_service(&mut self, svc: &mut crate::api::api::core::v1::Service) -> Result<(), Status> {
        let spec = svc.spec.get_or_insert_with(Default::default);
        if spec.type_.as_deref() == Some("ExternalName") {
            return Ok(());
        }
        let used: std::collections::BTreeSet<String> = self
            .cache
            .list(Kind::Service, None)
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::Service(s) => s.spec.as_ref().and_then(|sp| sp.cluster_ip.clone()),
                _ => None,
            })
            .collect();
        if spec.cluster_ip.as_deref().is_none_or(str::is_empty) {
            let [a, b, _, _] = self.service_cidr_base;
            // 10.96.0.0/12 holds 2^20 addresses; .0.1 is reserved for `kubernetes`, .0.10 for kube-dns.
            let ip = loop {
                let n = self.allocations.between(11, (1 << 20) - 2);
                let ip = format!("{a}.{}.{}.{}", b as u64 + (n >> 16), (n >> 8) & 0xff, n & 0xff);
                if !used.contains(&ip) {
                    break ip;
                }
            };
            spec.cluster_ip = Some(ip.clone());
            spec.cluster_ips = Some(vec![ip]);
        } else if spec.cluster_ips.is_none() {
            spec.cluster_ips = spec.cluster_ip.clone().map(|ip| vec![ip]);
        }
        if matches!(spec.type_.as_deref(), Some("NodePort" | "LoadBalancer")) {
            for port in spec.ports.iter_mut().flatten() {
                if port.node_port.is_none() {
                    port.node_port = Some(self.allocations.between(30000, 32767) as i32);
                }
            }
        }
        Ok(())
    }

    fn on_etcd_result(&mut self, ctx: &mut Ctx, request_id: u64, result: Result<TxnResponse, crate::etcd::EtcdError>) {
        let Some((pending, _)) = self.forget(request_id) else {
            return;
        };
        let response = match result {
            Ok(r) => r,
            Err(crate::etcd::EtcdError::Compacted { .. }) if continues(&pending) => {
                let Pending::Read { client, request_id, req } = pending else { return };
                let prefix = req.resource.prefix(req.namespace.as_deref());
                let Some(Ok(cursor)) = req.params.continue_token.as_deref().map(|t| pager::decode(t, &prefix)) else {
                    return;
                };
                return self.respond(ctx, client, request_id, ApiResponse::Error(pager::expired(&prefix, &cursor)));
            }
            Err(e) => return self.fail_pending(ctx, pending, Status::storage(e.to_string())),
        };
        match pending {
            Pending::InitialList => {
                let objects: Vec<Arc<Object>> = range_kvs(&response).iter().map(registry::from_storage).collect();
                self.cache.reset(response.revision, objects);
                self.rewatch(ctx);
                self.synced = true;
                self.crds.resync(ctx, &self.cache);
                self.serve_parked_lists(ctx);
                let chain = ctx.chain;
                for (client, id, req, held_chain) in std::mem::take(&mut self.held) {
                    ctx.chain = held_chain;
                    self.handle(ctx, client, id, req);
                }
                ctx.chain = chain;
            }
            Pending::Read { client, request_id, req } => {
                let objects =
                    || -> Vec<Arc<Object>> { range_kvs(&response).iter().map(registry::from_storage).collect() };
                let answer = match req.verb {
                    Verb::Get => match objects().into_iter().next() {
                        Some(o) => ApiResponse::Object(o),
                        None => ApiResponse::Error(Status::not_found(
                            &req.resource.qualified(),
                            req.name.as_deref().unwrap_or(""),
                        )),
                    },
                    _ => {
                        let prefix = req.resource.prefix(req.namespace.as_deref());
                        let cursor = req.params.continue_token.as_deref().map(|t| pager::decode(t, &prefix));
                        if let (Some(Ok(cursor)), true) = (&cursor, unselected(&req)) {
                            let page = later_page(&req, &response, cursor);
                            return self.respond(ctx, client, request_id, page);
                        }
                        let (labels, fields) = selectors(&req).unwrap_or_default();
                        let items = objects()
                            .into_iter()
                            .filter(|o| labels.matches(o.meta().labels.as_ref()) && fields.matches(o))
                            .collect();
                        match cursor {
                            Some(Ok(cursor)) => {
                                let revision = cursor.revision.unwrap_or(response.revision);
                                pager::page(&req, items, revision, Some(&cursor.start_key), unselected(&req))
                            }
                            _ => pager::page(&req, items, response.revision, None, unselected(&req)),
                        }
                    }
                };
                self.respond(ctx, client, request_id, answer);
            }
            Pending::ConsistentList { client, request_id, req } => {
                if self.cache.revision() >= response.revision {
                    return self.reply_list_from_cache(ctx, client, request_id, &req);
                }
                let id = self.next_park_id;
                self.next_park_id += 1;
                self.parked_lists.insert(id, ParkedList { revision: response.revision, client, request_id, req });
                ctx.timer_in_chain(CONSISTENT_LIST_WAIT_MS, TIMER_LIST_WAIT + id);
                if let Some(watch_id) = self.etcd_watch {
                    // Writes outside /registry/ (etcdctl) move the revision without a watch event.
                    ctx.send(self.etcd.endpoint(), Payload::Etcd(EtcdMessage::WatchProgress { watch_id }));
                }
            }
            Pending::Health => self.health_done(ctx, Ok(())),
            Pending::ProxyPod { client, request_id, req } => {
                let pod = range_kvs(&response).first().map(registry::from_storage);
                self.proxy_pod_read(ctx, client, request_id, &req, pod);
            }
            Pending::NamespaceLookup { mut op } => {
                let ns = op.req.namespace.clone().unwrap_or_default();
                let found = range_kvs(&response);
                op.namespace_object = found.first().map(registry::from_storage);
                if found.is_empty() {
                    return self.respond(
                        ctx,
                        op.client,
                        op.request_id,
                        ApiResponse::Error(Status::not_found("namespaces", &ns)),
                    );
                }
                op.namespace_confirmed = true;
                self.attempt_write(ctx, *op, None);
            }
            Pending::Write { op, written } => {
                // The cache holds a created object by now (its watch event comes first), or it was not created.
                if let Some(w) = &written {
                    self.charged.remove(&w.key());
                }
                if response.succeeded {
                    let answer = match written {
                        Some(w) => ApiResponse::Object(self.as_written(&w, response.revision)),
                        None => ApiResponse::Error(Status::internal("write produced no object")),
                    };
                    return self.respond_warned(ctx, op.client, op.request_id, answer, op.warnings);
                }
                let current = range_kvs(&response).first().map(registry::from_storage);
                let explicit_rv =
                    op.req.body.as_ref().map(Object::resource_version).unwrap_or(0) != 0 && op.req.verb == Verb::Update;
                if op.attempts >= WRITE_ATTEMPTS_MAX || (explicit_rv && current.is_some()) {
                    let name = op.req.name.clone().unwrap_or_default();
                    return self.respond(
                        ctx,
                        op.client,
                        op.request_id,
                        ApiResponse::Error(Status::stale_object(&op.req.resource.qualified(), &name)),
                    );
                }
                self.attempt_write(ctx, *op, current);
            }
        }
    }

    /// The object a successful write answers with: `written` at `revision`. The etcd member streams a write's
    /// watch event before its result, so the cache usually holds that very version already and it is shared
    /// instead of copied.
    fn as_written(&self, written: &Arc<Object>, revision: u64) -> Arc<Object> {
        let ns = written.namespace();
        match self.cache.get(written.kind(), ns, written.name()) {
            Some(cached) if cached.resource_version() == revision && cached.meta().uid == written.meta().uid => cached,
            _ => with_rv(written, revision),
        }
    }

    fn on_etcd_event(&mut self, ctx: &mut Ctx, e: crate::etcd::Event) {
        let revision = e.kv.mod_revision;
        let crd = e.kv.key.strip_prefix(CRD_PREFIX).map(str::to_string);
        let event = match e.kind {
            EventType::Put => {
                let mut kv = e.kv;
                kv.mod_revision = revision;
                self.cache.apply(revision, ctx.now, Some(registry::from_storage(&kv)), None)
            }
            EventType::Delete => {
                let mut kv = e.prev.unwrap_or(e.kv);
                kv.mod_revision = revision;
                self.cache.apply(revision, ctx.now, None, Some(registry::from_storage(&kv)))
            }
        };
        self.fan_out(ctx, &event);
        if let Some(name) = crd {
            self.crds.changed(ctx, &self.cache, &name);
        }
    }

    fn fan_out(&mut self, ctx: &mut Ctx, event: &CachedEvent) {
        for id in self.cache.interested(event) {
            let Some(w) = self.cache.watcher(id) else {
                continue;
            };
            if let Some(t) = w.event_for(event.old.as_deref(), event.new.as_deref()) {
                let obj = if t == WatchEventType::Deleted { event.old.clone() } else { event.new.clone() };
                let obj = match (t, obj) {
                    (WatchEventType::Deleted, Some(o)) => Some(with_rv(&o, event.revision)),
                    (_, o) => o,
                };
                send_event(ctx, w.client, id, t, shown(w, obj), event.revision);
            }
        }
    }

    pub fn id(&self) -> ComponentId {
        self.me
    }
}

/// Whether an update leaves the object as it is (compared with the current resourceVersion).
fn unchanged(current: &Object, new: &mut Object) -> bool {
    let wanted = new.meta().resource_version.clone();
    new.meta_mut().resource_version = current.meta().resource_version.clone();
    let same = *new == *current;
    new.meta_mut().resource_version = wanted;
    same
}

fn is_namespace_miss(status: &Status, op: &WriteOp) -> bool {
    let ns = op.req.namespace.as_deref().unwrap_or("");
    op.req.verb == Verb::Create
        && !op.namespace_confirmed
        && status.code == 404
        && status.message == format!("namespaces {ns:?} not found")
}

/// The object as a watcher of `events.k8s.io` sees it.
/// An object as a watch shows it: a core Event as an events.k8s.io one, a custom object at the watch's
/// version.
fn shown(w: &Watcher, obj: Option<Arc<Object>>) -> Option<Arc<Object>> {
    match (obj, w.served_as) {
        (Some(o), _) if w.events_v1 => Some(Arc::new(crate::api::events::as_v1(&o))),
        (Some(o), Some(row)) => Some(at_version(o, row)),
        (other, _) => other,
    }
}

/// A custom object converted to the version `row` names (the `None` strategy: only `apiVersion` changes).
fn at_version(o: Arc<Object>, row: &crate::api::ResourceInfo) -> Arc<Object> {
    match o.as_ref() {
        Object::Custom(c) if c.version() != row.version => {
            let mut converted = c.as_ref().clone();
            converted.api_version = row.api_version();
            Arc::new(Object::Custom(Box::new(converted)))
        }
        _ => o,
    }
}

/// Whether a list names no label or field selector (its remaining items can be counted).
fn unselected(req: &ApiRequest) -> bool {
    req.params.label_selector.is_none() && req.params.field_selector.is_none()
}

/// Whether an etcd read is a later page of a list.
fn continues(pending: &Pending) -> bool {
    matches!(pending, Pending::Read { req, .. } if req.params.continue_token.is_some())
}

fn events_v1_response(response: ApiResponse) -> ApiResponse {
    match response {
        ApiResponse::Object(o) => ApiResponse::Object(Arc::new(crate::api::events::as_v1(&o))),
        ApiResponse::List { items, resource_version, more } => ApiResponse::List {
            items: items.iter().map(|o| Arc::new(crate::api::events::as_v1(o))).collect(),
            resource_version,
            more,
        },
        // Messages name the resource the client asked for (`events.events.k8s.io "x" not found`).
        ApiResponse::Error(mut status) => {
            if let Some(rest) = status.message.strip_prefix("events ") {
                status.message = format!("events.events.k8s.io {rest}");
            }
            ApiResponse::Error(status)
        }
        other => other,
    }
}

fn with_rv(o: &Object, rv: u64) -> Arc<Object> {
    let mut c = o.clone();
    c.meta_mut().resource_version = Some(rv.to_string());
    Arc::new(c)
}

fn impersonated(target: &str, authn: &Authenticator) -> UserInfo {
    let _ = authn;
    UserInfo { name: target.to_string(), groups: vec!["system:authenticated".to_string()], ..Default::default() }
}

/// A later page of a list without selectors, from etcd's answer: the keys from the cursor on at the first
/// page's revision (the page and one more, with a limit; else all of them, in key order) and how many
/// there are, which says how many remain after the page.
fn later_page(req: &ApiRequest, response: &TxnResponse, cursor: &pager::Cursor) -> ApiResponse {
    let (kvs, count): (&[crate::etcd::KeyValue], usize) = response
        .results
        .iter()
        .find_map(|r| match r {
            OpResult::Page { kvs, count } => Some((kvs.as_slice(), *count)),
            OpResult::Range { kvs } => Some((kvs.as_slice(), kvs.len())),
            _ => None,
        })
        .unwrap_or((&[], 0));
    let from = kvs.partition_point(|kv| kv.key.as_str() < cursor.start_key.as_str());
    let after = &kvs[from..];
    let count = count.saturating_sub(from);
    let limit = req.params.limit.filter(|l| *l > 0).map_or(after.len(), |l| l as usize);
    let items: Vec<Arc<Object>> = after.iter().take(limit.saturating_add(1)).map(registry::from_storage).collect();
    let revision = cursor.revision.unwrap_or(response.revision);
    let mut page = pager::page(req, items, revision, Some(&cursor.start_key), true);
    if let ApiResponse::List { more: Some(more), .. } = &mut page {
        more.remaining = Some(count.saturating_sub(limit) as u64);
    }
    page
}

fn range_kvs(r: &TxnResponse) -> Vec<crate::etcd::KeyValue> {
    r.results
        .iter()
        .flat_map(|res| match res {
            OpResult::Range { kvs } => kvs.clone(),
            _ => Vec::new(),
        })
        .collect()
}

fn selectors(req: &ApiRequest) -> Result<(LabelSelector, FieldSelector), Status> {
    let labels = match req.params.label_selector.as_deref() {
        Some(s) => {
            LabelSelector::parse(s).map_err(|e| Status::bad_request(format!("unable to parse requirement: {e}")))?
        }
        None => LabelSelector::everything(),
    };
    let fields = match req.params.field_selector.as_deref() {
        Some(s) => FieldSelector::parse(s).map_err(Status::bad_request)?,
        None => FieldSelector::default(),
    };
    // The field label conversion's error, as is (kubectl names the resource and selectors around it).
    fields.check_supported(req.resource.kind).map_err(Status::bad_request)?;
    Ok((labels, fields))
}

/// Which stage produced a refusal, from the status it produced.
fn failed_stage(verb: Verb, status: &Status) -> Stage {
    use crate::api::Reason;
    match status.reason {
        _ if matches!(verb, Verb::Get | Verb::List | Verb::Watch) => Stage::Storage,
        Reason::BadRequest => Stage::Decoding,
        Reason::Invalid if status.message.contains("ValidatingAdmissionPolicy") => Stage::ValidatingAdmission,
        Reason::Invalid => Stage::Validation,
        Reason::NotFound if status.message.starts_with("namespaces ") => Stage::MutatingAdmission,
        Reason::Forbidden if status.message.contains("being terminated") => Stage::MutatingAdmission,
        Reason::Forbidden => Stage::ValidatingAdmission,
        _ => Stage::Storage,
    }
}

/// The warning every request to v1 Endpoints gets since v1.33 (the API's deprecation notice).
pub const ENDPOINTS_DEPRECATED: &str = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice";

/// A response with `Warning` headers (admission warnings), which clients print before the result.
fn reply_warned(ctx: &mut Ctx, client: ComponentId, request_id: u64, response: ApiResponse, warnings: Vec<String>) {
    ctx.send(client, Payload::ApiResponse { request_id, response: Box::new(response), warnings });
}

fn send_event(
    ctx: &mut Ctx,
    client: ComponentId,
    watch_id: u64,
    kind: WatchEventType,
    object: Option<Arc<Object>>,
    rv: u64,
) {
    let event = WatchEvent { kind, object, resource_version: rv, status: None };
    ctx.send(client, Payload::WatchEvent { watch_id, event: Box::new(event) });
}
