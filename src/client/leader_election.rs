//! Leader election over a `coordination.k8s.io/v1` Lease in `kube-system`, as client-go's
//! `tools/leaderelection` runs it for kube-scheduler, kube-controller-manager and cloud-controller-manager
//! (`--leader-elect=true`, kubeadm's default): leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s.
//!
//! A candidate tries every retryPeriod (jittered by up to 1.2×): it reads the Lease, creates it when there is
//! none, and takes it over when the holder it observed has not changed the record for a whole
//! leaseDuration, timed on its own clock from when it observed the record (never from the times written in
//! it). The leader renews every retryPeriod by updating the record it holds; a round of renewals that has
//! not succeeded within renewDeadline loses the lease, and the component exits (`leaderelection lost`), as
//! the real ones do. Acquiring records the Event `LeaderElection` `<identity> became leader` on the Lease;
//! losing records `<identity> stopped leading`.
//!
//! Watches nothing; writes the Lease (get, create, update) and its Events through the component's own
//! connection. Counterpart: `k8s.io/client-go/tools/leaderelection` (leaderelection.go `acquire`, `renew`,
//! `tryAcquireOrRenew`) and `resourcelock/leaselock.go`.

use serde_json::{json, Value};

use crate::api::api::coordination::v1::Lease;
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, Reason, Verb};
use crate::client::events::{event, Reporter};
use crate::client::process::request_error;
use crate::client::{ApiConn, ClientError};
use crate::node::kubelet::micro_time;
use crate::sim::{Ctx, SimTime};

/// `--leader-elect-lease-duration`.
pub const LEASE_DURATION_MS: u64 = 15_000;
/// `--leader-elect-renew-deadline`.
pub const RENEW_DEADLINE_MS: u64 = 10_000;
/// `--leader-elect-retry-period`.
pub const RETRY_PERIOD_MS: u64 = 2_000;
/// `wait.JitterUntil` in `acquire` (factor 1.2): a candidate waits retryPeriod plus up to 1.2× more.
const JITTER_MS_MAX: u64 = RETRY_PERIOD_MS * 12 / 10;
/// The namespace every control-plane leader Lease lives in (`--leader-elect-resource-namespace`).
pub const NAMESPACE: &str = "kube-system";

/// What an answer or a timer meant for the component that runs the election.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// Nothing changed.
    None,
    /// This process now holds the lease: start the work only a leader does.
    StartedLeading,
    /// The lease could not be renewed within renewDeadline: the process must exit.
    Lost,
}

/// The call in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Get,
    Create,
    Update,
}

/// The election record as last observed, and the Lease's resourceVersion.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    holder: String,
    acquire_time: Option<String>,
    renew_time: Option<String>,
    transitions: i32,
    resource_version: Option<String>,
    uid: Option<String>,
}

impl Record {
    fn of(lease: &Lease) -> Record {
        let spec = lease.spec.clone().unwrap_or_default();
        Record {
            holder: spec.holder_identity.unwrap_or_default(),
            acquire_time: spec.acquire_time.and_then(|t| serde_json::to_value(t).ok()?.as_str().map(String::from)),
            renew_time: spec.renew_time.and_then(|t| serde_json::to_value(t).ok()?.as_str().map(String::from)),
            transitions: spec.lease_transitions.unwrap_or(0),
            resource_version: lease.metadata.resource_version.clone(),
            uid: lease.metadata.uid.clone(),
        }
    }

    /// Whether two reads hold the same record (client-go compares the record, not the object's version).
    fn same_record(&self, other: &Record) -> bool {
        (&self.holder, &self.acquire_time, &self.renew_time, self.transitions)
            == (&other.holder, &other.acquire_time, &other.renew_time, other.transitions)
    }
}

/// One component's elector.
#[derive(Debug)]
pub struct LeaderElector {
    /// The Lease's name in `kube-system` (`kube-scheduler`).
    name: &'static str,
    /// Who records the election's Events (`default-scheduler`, `kube-controller-manager`).
    recorder: &'static str,
    /// The tag its calls carry on the component's connection.
    tag: u64,
    /// `<hostname>_<uuid>`, new for every process.
    identity: String,
    leading: bool,
    observed: Option<Record>,
    /// When `observed` last changed, on this process's clock.
    observed_at: SimTime,
    in_flight: Option<Call>,
    /// The update in flight is the leader's optimistic one (made without reading the Lease first).
    fast_path: bool,
    /// Leader: when the current round of renewals began (it fails once renewDeadline has passed).
    round_started: Option<SimTime>,
    /// Counts rounds so that a stale deadline timer is recognised.
    round: u64,
    /// Timer tokens: `timer_base` for the next try, `timer_base + 1 + round` for a round's deadline.
    timer_base: u64,
}

impl LeaderElector {
    /// An elector for Lease `kube-system/<name>`; its calls carry `tag` and its timers start at `timer_base`
    /// (it uses `timer_base` and every token above it).
    pub fn new(name: &'static str, recorder: &'static str, tag: u64, timer_base: u64) -> LeaderElector {
        LeaderElector {
            name,
            recorder,
            tag,
            identity: String::new(),
            leading: false,
            observed: None,
            observed_at: SimTime::ZERO,
            in_flight: None,
            fast_path: false,
            round_started: None,
            round: 0,
            timer_base,
        }
    }

    /// The process started on `host`: a new identity, nothing observed, and a first try at once.
    pub fn start(&mut self, ctx: &mut Ctx, conn: &mut ApiConn, host: &str) {
        self.identity = format!("{host}_{}", crate::apiserver::registry::uid(ctx.rng));
        self.leading = false;
        self.observed = None;
        self.observed_at = ctx.now;
        self.in_flight = None;
        self.fast_path = false;
        self.round_started = None;
        self.round += 1;
        ctx.klog('I', "leaderelection.go:257", &format!("attempting to acquire leader lease {}...", self.describe()));
        self.try_acquire_or_renew(ctx, conn);
    }

    /// `LeaseLock.Describe`: `kube-system/<name>`, as the log lines name the lock.
    fn describe(&self) -> String {
        format!("{NAMESPACE}/{}", self.name)
    }

    pub fn is_leader(&self) -> bool {
        self.leading
    }

    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// Whether `tag` is one of this elector's calls.
    pub fn owns_tag(&self, tag: u64) -> bool {
        tag == self.tag
    }

    /// Whether `token` is one of this elector's timers.
    pub fn owns_timer(&self, token: u64) -> bool {
        token >= self.timer_base && token < self.timer_base + (1 << 32)
    }

    /// One of its timers fired.
    pub fn on_timer(&mut self, ctx: &mut Ctx, conn: &mut ApiConn, token: u64) -> Transition {
        if token == self.timer_base {
            if self.in_flight.is_none() {
                if self.leading && self.round_started.is_none() {
                    self.begin_round(ctx);
                }
                self.try_acquire_or_renew(ctx, conn);
            }
            return Transition::None;
        }
        let round = token - self.timer_base - 1;
        if self.leading && self.round_started.is_some() && round == self.round {
            return self.lose(ctx, conn);
        }
        Transition::None
    }

    /// The answer to one of its calls.
    pub fn on_answer(
        &mut self,
        ctx: &mut Ctx,
        conn: &mut ApiConn,
        result: &Result<ApiResponse, ClientError>,
    ) -> Transition {
        let Some(call) = self.in_flight.take() else { return Transition::None };
        let fast_path = std::mem::take(&mut self.fast_path);
        let lease = match result {
            Ok(ApiResponse::Object(o)) => match o.as_ref() {
                Object::Lease(l) => Some(Record::of(l)),
                _ => None,
            },
            _ => None,
        };
        match (call, lease) {
            (Call::Get, Some(record)) => {
                if self.observed.as_ref().is_none_or(|o| !o.same_record(&record)) {
                    self.observed = Some(record.clone());
                    self.observed_at = ctx.now;
                }
                let held_by_other = !record.holder.is_empty() && record.holder != self.identity;
                if held_by_other && self.observed_at.plus_ms(LEASE_DURATION_MS) > ctx.now {
                    return self.failed(ctx);
                }
                self.update(ctx, conn, &record);
                Transition::None
            }
            (Call::Get, None) if not_found(result) => {
                self.create(ctx, conn);
                Transition::None
            }
            (Call::Create | Call::Update, Some(record)) => {
                self.observed = Some(record);
                self.observed_at = ctx.now;
                self.succeeded(ctx, conn)
            }
            // The optimistic renewal failed (a conflict, an error): read the Lease again at once.
            (Call::Update, None) if self.leading && fast_path => {
                let e = request_error(result, "PUT", &self.path());
                ctx.klog(
                    'E',
                    "leaderelection.go:441",
                    &format!("Failed to update lock optimistically: {e}, falling back to slow path"),
                );
                self.get(ctx, conn);
                Transition::None
            }
            (Call::Get, None) => {
                let e = request_error(result, "GET", &self.path());
                ctx.klog(
                    'E',
                    "leaderelection.go:448",
                    &format!("error retrieving resource lock {}: {e}", self.describe()),
                );
                self.failed(ctx)
            }
            (Call::Create, None) => {
                let e = request_error(
                    result,
                    "POST",
                    &format!("/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases?timeout=5s"),
                );
                ctx.klog(
                    'E',
                    "leaderelection.go:452",
                    &format!("error initially creating leader election record: {e}"),
                );
                self.failed(ctx)
            }
            _ => {
                let e = request_error(result, "PUT", &self.path());
                ctx.klog('E', "leaderelection.go:484", &format!("Failed to update lock: {e}"));
                self.failed(ctx)
            }
        }
    }

    fn try_acquire_or_renew(&mut self, ctx: &mut Ctx, conn: &mut ApiConn) {
        // The fast path: a leader whose observed record is still valid updates it without reading it first.
        match self.observed.clone() {
            Some(record) if self.leading && self.observed_at.plus_ms(LEASE_DURATION_MS) > ctx.now => {
                self.update(ctx, conn, &record);
                self.fast_path = true;
            }
            _ => self.get(ctx, conn),
        }
    }

    /// The Lease's path as the component's client asks for it (its timeout is half the renew deadline).
    fn path(&self) -> String {
        format!("/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases/{}?timeout=5s", self.name)
    }

    fn request(&self, verb: Verb) -> ApiRequest {
        ApiRequest::new(Credentials::Anonymous, verb, Kind::Lease.info()).namespace(Some(NAMESPACE))
    }

    fn get(&mut self, ctx: &mut Ctx, conn: &mut ApiConn) {
        let req = self.request(Verb::Get).name(self.name);
        self.in_flight = Some(Call::Get);
        conn.call(ctx, req, self.tag);
    }

    fn spec(&self, ctx: &Ctx, acquire_time: &str, transitions: i32) -> Value {
        json!({"holderIdentity": self.identity, "leaseDurationSeconds": LEASE_DURATION_MS / 1_000,
               "acquireTime": acquire_time, "renewTime": micro_time(ctx.now), "leaseTransitions": transitions})
    }

    fn create(&mut self, ctx: &mut Ctx, conn: &mut ApiConn) {
        let mut req = self.request(Verb::Create);
        req.raw_body = Some(json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": self.name, "namespace": NAMESPACE},
            "spec": self.spec(ctx, &micro_time(ctx.now), 0),
        }));
        self.in_flight = Some(Call::Create);
        conn.call(ctx, req, self.tag);
    }

    /// Writes this process as the holder over `record` (keeping acquireTime and the transition count when it
    /// already holds the lease, counting one more transition when it takes it over).
    fn update(&mut self, ctx: &mut Ctx, conn: &mut ApiConn, record: &Record) {
        let (acquire, transitions) = if record.holder == self.identity {
            (record.acquire_time.clone().unwrap_or_else(|| micro_time(ctx.now)), record.transitions)
        } else {
            (micro_time(ctx.now), record.transitions + 1)
        };
        let mut req = self.request(Verb::Update).name(self.name);
        req.raw_body = Some(json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": self.name, "namespace": NAMESPACE, "resourceVersion": record.resource_version},
            "spec": self.spec(ctx, &acquire, transitions),
        }));
        self.in_flight = Some(Call::Update);
        conn.call(ctx, req, self.tag);
    }

    fn succeeded(&mut self, ctx: &mut Ctx, conn: &mut ApiConn) -> Transition {
        self.round_started = None;
        self.round += 1;
        // wait.Until in `renew`: the next round begins one retryPeriod after this one ended.
        ctx.timer(RETRY_PERIOD_MS, self.timer_base);
        if self.leading {
            return Transition::None;
        }
        self.leading = true;
        self.record_event(ctx, conn, "became leader");
        ctx.klog('I', "leaderelection.go:271", &format!("successfully acquired lease {}", self.describe()));
        Transition::StartedLeading
    }

    fn failed(&mut self, ctx: &mut Ctx) -> Transition {
        if self.leading {
            // PollImmediateUntil: try again every retryPeriod until the round's deadline.
            ctx.timer(RETRY_PERIOD_MS, self.timer_base);
        } else {
            let jitter_ms = ctx.rng.below(JITTER_MS_MAX);
            ctx.timer(RETRY_PERIOD_MS + jitter_ms, self.timer_base);
        }
        Transition::None
    }

    fn begin_round(&mut self, ctx: &mut Ctx) {
        self.round_started = Some(ctx.now);
        ctx.timer(RENEW_DEADLINE_MS, self.timer_base + 1 + self.round);
    }

    fn lose(&mut self, ctx: &mut Ctx, conn: &mut ApiConn) -> Transition {
        self.leading = false;
        self.round_started = None;
        ctx.klog(
            'I',
            "leaderelection.go:297",
            &format!("failed to renew lease {}: context deadline exceeded", self.describe()),
        );
        self.record_event(ctx, conn, "stopped leading");
        Transition::Lost
    }

    /// `resourcelock.LeaseLock.RecordEvent`: `<identity> <what>` on the Lease.
    fn record_event(&mut self, ctx: &mut Ctx, conn: &mut ApiConn, what: &str) {
        // The Lease as last read or written (its uid and resourceVersion), as LeaseLock keeps it.
        let mut lease = Lease::default();
        lease.metadata.name = Some(self.name.to_string());
        lease.metadata.namespace = Some(NAMESPACE.to_string());
        lease.metadata.uid = self.observed.as_ref().and_then(|r| r.uid.clone());
        lease.metadata.resource_version = self.observed.as_ref().and_then(|r| r.resource_version.clone());
        let about = Object::Lease(Box::new(lease));
        let by = Reporter { component: self.recorder, host: None };
        let message = format!("{} {what}", self.identity);
        let e = event(&about, by, "Normal", "LeaderElection", &message, ctx.now, ctx.rng);
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Event.info())
            .namespace(Some(NAMESPACE))
            .body(e);
        conn.call(ctx, req, u64::MAX);
    }
}

fn not_found(result: &Result<ApiResponse, ClientError>) -> bool {
    matches!(result, Ok(ApiResponse::Error(s)) if s.reason == Reason::NotFound)
}
