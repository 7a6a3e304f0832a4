//! The kubelet's prober (`pkg/kubelet/prober`): one worker per probe of a running container, as a timer of
//! the kubelet's own, so a container without probes costs nothing and one with probes costs one timer
//! per probe period (never a pass over the node's pods).
//!
//! - A worker's first probe runs `initialDelaySeconds` after the container started, then every
//!   `periodSeconds`. A result flips after `successThreshold` successes or `failureThreshold` failures in a
//!   row. Readiness starts failed, liveness succeeded, startup unknown; while a startup probe has not
//!   succeeded, liveness and readiness are not run and the container is not `started`.
//! - What a probe sees follows from the simulated container: `exec` runs through containerd's
//!   `ExecSync` (so `cat /tmp/healthy` sees the files the container's script touched and removed; a reply
//!   later than `timeoutSeconds` fails); `httpGet`, `tcpSocket` and `grpc` connect to what the pod's
//!   running containers listen on ([`super::super::listeners`]): nginx and httpd answer `/` and
//!   `/index.html` with 200 and other paths with 404, other HTTP servers 200 on every path; an HTTP
//!   request to a TLS port gets 400. The pod annotation `kubeglass.dev/unhealthy-after-seconds: "N"`
//!   makes HTTP probes get 500 (gRPC `NOT_SERVING`) once a container ran N seconds.
//! - A failed probe records `Unhealthy` (`Liveness probe failed: …`); a liveness or startup failure kills
//!   the container (`Killing`, `Container X failed liveness probe, will be restarted`) with the probe's or
//!   pod's grace period, and the restart policy restarts it with the usual back-off. Readiness sets the
//!   container's `ready` and, through it, the pod's Ready and ContainersReady conditions.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::api::core::v1::{Container as ApiContainer, Pod, Probe};
use crate::node::listeners::{listeners, Body, Listener, Service};
use crate::node::runtime::{Container, ContainerState, CriCall, CriReply};
use crate::sim::{Ctx, SimTime};

use super::{container_spec, CriOp, Kubelet, Worker};
use crate::node::journal::go_quote as journal_quote;

/// Timer tokens of probe workers start here (below the API connection's).
pub(super) const TIMER_PROBE_BASE: u64 = 1 << 48;
/// The pod annotation that makes HTTP and gRPC probes fail after the container ran this many seconds.
pub const UNHEALTHY_ANNOTATION: &str = "kubeglass.dev/unhealthy-after-seconds";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ProbeKind {
    Startup,
    Liveness,
    Readiness,
}

impl ProbeKind {
    pub(super) const ALL: [ProbeKind; 3] = [ProbeKind::Startup, ProbeKind::Liveness, ProbeKind::Readiness];

    fn title(self) -> &'static str {
        match self {
            ProbeKind::Startup => "Startup",
            ProbeKind::Liveness => "Liveness",
            ProbeKind::Readiness => "Readiness",
        }
    }

    pub(super) fn of(self, c: &ApiContainer) -> Option<&Probe> {
        match self {
            ProbeKind::Startup => c.startup_probe.as_ref(),
            ProbeKind::Liveness => c.liveness_probe.as_ref(),
            ProbeKind::Readiness => c.readiness_probe.as_ref(),
        }
    }
}

/// A probe's timing, with the API's defaults for fields a static pod's manifest leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Timing {
    pub delay_ms: u64,
    pub period_ms: u64,
    pub timeout_ms: u64,
    pub success: u32,
    pub failure: u32,
}

impl Timing {
    pub(super) fn of(p: &Probe) -> Timing {
        let secs = |v: Option<i32>, default: i32| u64::from(v.filter(|n| *n > 0).unwrap_or(default).unsigned_abs());
        Timing {
            delay_ms: u64::from(p.initial_delay_seconds.unwrap_or(0).max(0).unsigned_abs()) * 1000,
            period_ms: secs(p.period_seconds, 10) * 1000,
            timeout_ms: secs(p.timeout_seconds, 1) * 1000,
            success: p.success_threshold.filter(|n| *n > 0).unwrap_or(1).unsigned_abs(),
            failure: p.failure_threshold.filter(|n| *n > 0).unwrap_or(3).unsigned_abs(),
        }
    }
}

/// One probe worker's state for one container (a restarted container gets a fresh one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProbeState {
    pub cid: String,
    successes: u32,
    failures: u32,
    /// The current result: None until the first threshold is reached (readiness counts it as failed).
    pub result: Option<bool>,
    /// An exec probe sent at this time has not answered yet.
    in_flight: Option<SimTime>,
}

impl ProbeState {
    pub(super) fn new(kind: ProbeKind, cid: &str) -> ProbeState {
        let result = (kind == ProbeKind::Liveness).then_some(true);
        ProbeState { cid: cid.to_string(), successes: 0, failures: 0, result, in_flight: None }
    }

    /// Counts one result; the new result when it flips.
    pub(super) fn observe(&mut self, ok: bool, t: &Timing) -> Option<bool> {
        if ok {
            self.successes = self.successes.saturating_add(1);
            self.failures = 0;
        } else {
            self.failures = self.failures.saturating_add(1);
            self.successes = 0;
        }
        let next = if ok && self.successes >= t.success {
            true
        } else if !ok && self.failures >= t.failure {
            false
        } else {
            return None;
        };
        (self.result != Some(next)).then(|| {
            self.result = Some(next);
            next
        })
    }
}

/// What one probe run found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    Success,
    Failure(String),
    Error(String),
}

/// A pending probe timer.
#[derive(Debug, Clone)]
pub(super) struct ProbeTimer {
    uid: String,
    container: String,
    kind: ProbeKind,
    cid: String,
}

/// An exec probe waiting for containerd's ExecSync answer.
#[derive(Debug, Clone)]
pub(super) struct ProbeCall {
    uid: String,
    container: String,
    kind: ProbeKind,
    cid: String,
    sent: SimTime,
    timeout_ms: u64,
    cmd: Vec<String>,
}

/// A container the kubelet decided to kill (a failed liveness or startup probe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Kill {
    pub container: String,
    pub cid: String,
    pub message: String,
    pub grace_s: i64,
}

/// The port a probe names, as the kubelet resolves it (`probe.ResolveContainerPort`): a number, or the
/// name of one of the container's ports, or else a number written as a string; then it must be in 1–65535.
/// The errors are Go's (`strconv.Atoi: parsing "x": invalid syntax`, `invalid port number: 0`).
fn port_of(port: &IntOrString, c: &ApiContainer) -> Result<u16, String> {
    let n: i64 = match port {
        IntOrString::Int(n) => i64::from(*n),
        IntOrString::String(name) => {
            match c.ports.iter().flatten().find(|p| p.name.as_deref() == Some(name.as_str())) {
                Some(p) => i64::from(p.container_port),
                None => go_atoi(name)?,
            }
        }
    };
    u16::try_from(n).ok().filter(|p| *p > 0).ok_or_else(|| format!("invalid port number: {n}"))
}

/// Go's `strconv.Atoi` on a 64-bit machine, with its error text.
fn go_atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing {s:?}: invalid syntax"));
    }
    s.parse::<i64>().map_err(|_| format!("strconv.Atoi: parsing {s:?}: value out of range"))
}

/// The `Killing` message for a container that failed its liveness or startup probe (kuberuntime's
/// `computePodActions`; a sidecar's from `computeInitContainerActions`): ", will be restarted" unless the
/// pod's restartPolicy is Never.
pub(super) fn kill_message(pod: &Pod, name: &str, kind: ProbeKind) -> String {
    let which = kind.title().to_lowercase();
    let spec = pod.spec.as_ref();
    let sidecar = spec.and_then(|s| s.init_containers.as_ref()).is_some_and(|cs| cs.iter().any(|c| c.name == name));
    if sidecar {
        return format!("Init container {name} failed {which} probe");
    }
    let never = spec.and_then(|s| s.restart_policy.as_deref()) == Some("Never");
    let restart = if never { "" } else { ", will be restarted" };
    format!("Container {name} failed {which} probe{restart}")
}

/// The HTTP status a listener answers `path` with.
fn http_status(body: &Body, path: &str) -> u16 {
    match body {
        Body::NginxWelcome | Body::ItWorks if !matches!(path, "/" | "/index.html" | "") => 404,
        _ => 200,
    }
}

/// Runs a network probe (httpGet, tcpSocket, grpc) against what the pod listens on.
pub(super) fn network_probe(probe: &Probe, c: &ApiContainer, ip: &str, open: &[Listener], unhealthy: bool) -> Outcome {
    let find = |port: u16| open.iter().find(|l| l.port == port && l.protocol == "tcp");
    if let Some(h) = &probe.http_get {
        let port = match port_of(&h.port, c) {
            Ok(p) => p,
            Err(e) => return Outcome::Error(e),
        };
        let host = h.host.as_deref().filter(|h| !h.is_empty()).unwrap_or(ip);
        let scheme = h.scheme.as_deref().unwrap_or("HTTP").to_ascii_lowercase();
        let path = h.path.as_deref().unwrap_or("/");
        let url = format!("{scheme}://{host}:{port}{path}");
        let status = match find(port).map(|l| &l.service) {
            None => {
                return Outcome::Failure(format!("Get {url:?}: dial tcp {host}:{port}: connect: connection refused"))
            }
            Some(Service::Http(_)) if scheme == "https" => {
                return Outcome::Failure(format!("Get {url:?}: http: server gave HTTP response to HTTPS client"))
            }
            Some(Service::Http(body)) => http_status(body, path),
            Some(Service::Https(_)) if scheme == "http" => 400,
            Some(Service::Https(_)) => 200,
            Some(Service::NotHttp | Service::Dns) => return Outcome::Failure(format!("Get {url:?}: EOF")),
        };
        let status = if unhealthy && status < 400 { 500 } else { status };
        return if (200..400).contains(&status) {
            Outcome::Success
        } else {
            Outcome::Failure(format!("HTTP probe failed with statuscode: {status}"))
        };
    }
    if let Some(t) = &probe.tcp_socket {
        let port = match port_of(&t.port, c) {
            Ok(p) => p,
            Err(e) => return Outcome::Error(e),
        };
        let host = t.host.as_deref().filter(|h| !h.is_empty()).unwrap_or(ip);
        return match find(port) {
            Some(_) => Outcome::Success,
            None => Outcome::Failure(format!("dial tcp {host}:{port}: connect: connection refused")),
        };
    }
    if let Some(g) = &probe.grpc {
        let port = u16::try_from(g.port).unwrap_or(0);
        let timeout = Timing::of(probe).timeout_ms / 1000;
        return match find(port) {
            Some(_) if unhealthy => Outcome::Failure("service unhealthy (responded with \"NOT_SERVING\")".into()),
            Some(_) => Outcome::Success,
            None => Outcome::Failure(format!(
                "timeout: failed to connect service \"{ip}:{port}\" within {timeout}s: context deadline exceeded"
            )),
        };
    }
    Outcome::Error("missing probe handler".into())
}

impl Kubelet {
    /// Starts the probe workers of a running container, once per container id. After a kubelet restart a
    /// container keeps the readiness and startup the API already shows for it.
    pub(super) fn ensure_probes(&mut self, ctx: &mut Ctx, uid: &str, name: &str, c: &Container) {
        let Some(w) = self.workers.get(uid) else { return };
        let Some(spec) = container_spec(w, name) else { return };
        if ProbeKind::ALL.iter().all(|k| k.of(spec).is_none()) {
            return;
        }
        let reported = w
            .pod
            .status
            .as_ref()
            .into_iter()
            .flat_map(|s| s.container_statuses.iter().flatten().chain(s.init_container_statuses.iter().flatten()))
            .find(|s| s.name == name && s.container_id.as_deref() == Some(&format!("containerd://{}", c.id)))
            .map(|s| (s.ready, s.started == Some(true)));
        let mut fresh = Vec::new();
        for kind in ProbeKind::ALL {
            let Some(probe) = kind.of(spec) else { continue };
            if w.probes.get(&(name.to_string(), kind)).is_some_and(|s| s.cid == c.id) {
                continue;
            }
            let mut state = ProbeState::new(kind, &c.id);
            match (kind, reported) {
                (ProbeKind::Readiness, Some((true, _))) | (ProbeKind::Startup, Some((_, true))) => {
                    state.result = Some(true)
                }
                _ => {}
            }
            let at = c.started_at.unwrap_or(ctx.now).plus_ms(Timing::of(probe).delay_ms).max(ctx.now);
            fresh.push((kind, state, at));
        }
        for (kind, state, at) in fresh {
            if let Some(w) = self.workers.get_mut(uid) {
                w.probes.insert((name.to_string(), kind), state);
            }
            let t = ProbeTimer { uid: uid.to_string(), container: name.to_string(), kind, cid: c.id.clone() };
            self.arm_probe(ctx, at, t);
        }
    }

    fn arm_probe(&mut self, ctx: &mut Ctx, at: SimTime, t: ProbeTimer) {
        self.next_probe += 1;
        let token = TIMER_PROBE_BASE + self.next_probe;
        self.probe_timers.insert(token, t);
        ctx.timer(at.since(ctx.now).max(1), token);
    }

    /// A probe worker's tick: run the probe (unless gated) and arm the next one.
    pub(super) fn on_probe_timer(&mut self, ctx: &mut Ctx, token: u64) {
        let Some(t) = self.probe_timers.remove(&token) else { return };
        let Some(w) = self.workers.get(&t.uid) else { return };
        if w.gone || w.pod.metadata.deletion_timestamp.is_some() {
            return;
        }
        let key = (t.container.clone(), t.kind);
        let Some(state) = w.probes.get(&key).filter(|s| s.cid == t.cid).cloned() else { return };
        let Some(c) = self.containers.get(&t.cid).filter(|c| c.state == ContainerState::Running).cloned() else {
            return;
        };
        let Some(spec) = container_spec(w, &t.container).cloned() else { return };
        let Some(probe) = t.kind.of(&spec).cloned() else { return };
        let timing = Timing::of(&probe);
        let done = match t.kind {
            // A startup probe stops once it succeeded; a failed liveness or startup probe killed the container.
            ProbeKind::Startup => state.result.is_some(),
            ProbeKind::Liveness => state.result == Some(false),
            ProbeKind::Readiness => false,
        };
        if done {
            return;
        }
        let started = spec.startup_probe.is_none()
            || w.probes
                .get(&(t.container.clone(), ProbeKind::Startup))
                .is_some_and(|s| s.cid == t.cid && s.result == Some(true));
        let ip = w.ip.clone().unwrap_or_default();
        let unhealthy = w
            .pod
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(UNHEALTHY_ANNOTATION))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .is_some_and(|secs| c.started_at.is_some_and(|s| ctx.now.since(s) >= secs.saturating_mul(1000)));
        let open = if probe.exec.is_none() { self.pod_listeners(&t.uid, w) } else { Vec::new() };
        self.arm_probe(ctx, ctx.now.plus_ms(timing.period_ms), t.clone());
        if t.kind != ProbeKind::Startup && !started {
            return;
        }
        if state.in_flight.is_some_and(|sent| ctx.now.since(sent) <= timing.timeout_ms + timing.period_ms) {
            return;
        }
        if let Some(cmd) = probe.exec.as_ref().map(|e| e.command.clone().unwrap_or_default()) {
            if let Some(s) = self.workers.get_mut(&t.uid).and_then(|w| w.probes.get_mut(&key)) {
                s.in_flight = Some(ctx.now);
            }
            let call = ProbeCall {
                uid: t.uid,
                container: t.container,
                kind: t.kind,
                cid: t.cid.clone(),
                sent: ctx.now,
                timeout_ms: timing.timeout_ms,
                cmd: cmd.clone(),
            };
            let exec = CriCall::ExecSync { id: t.cid, cmd, stdin: None, tty: false, timeout_ms: timing.timeout_ms };
            self.cri(ctx, exec, CriOp::Probe(Box::new(call)));
            return;
        }
        let outcome = network_probe(&probe, &spec, &ip, &open, unhealthy);
        self.probe_result(ctx, &t.uid, &t.container, t.kind, &t.cid, outcome);
    }

    /// What the pod's running containers listen on.
    pub(super) fn pod_listeners(&self, uid: &str, w: &Worker) -> Vec<Listener> {
        let Some(spec) = w.pod.spec.as_ref() else { return Vec::new() };
        let mut open = Vec::new();
        for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
            let running = self.pod_containers(uid, &c.name).last().is_some_and(|r| r.state == ContainerState::Running);
            if !running {
                continue;
            }
            let declared: Vec<u16> = c
                .ports
                .iter()
                .flatten()
                .filter(|p| p.protocol.as_deref().unwrap_or("TCP") == "TCP")
                .filter_map(|p| u16::try_from(p.container_port).ok())
                .collect();
            open.extend(listeners(c.image.as_deref().unwrap_or(""), &declared));
        }
        open
    }

    /// containerd answered an exec probe.
    pub(super) fn on_probe_reply(&mut self, ctx: &mut Ctx, call: ProbeCall, result: Result<CriReply, String>) {
        let outcome = match result {
            // containerd's DeadlineExceeded is the kubelet's TimeoutError (`command %q timed out`), which the exec
            // prober turns into a failure with that text as the output.
            Err(e) if e.contains("code = DeadlineExceeded") => {
                Outcome::Failure(format!("command {} timed out", journal_quote(&call.cmd.join(" "))))
            }
            _ if ctx.now.since(call.sent) > call.timeout_ms => {
                Outcome::Failure(format!("command {} timed out", journal_quote(&call.cmd.join(" "))))
            }
            Ok(CriReply::Exec { exit_code: 0, .. }) => Outcome::Success,
            // The output as the command wrote it, trailing newline included (the exec prober keeps it).
            Ok(CriReply::Exec { output, .. }) => Outcome::Failure(output.iter().map(|(_, t)| t.as_str()).collect()),
            Ok(_) => Outcome::Error("unexpected reply to ExecSync".into()),
            Err(e) => Outcome::Error(e),
        };
        self.probe_result(ctx, &call.uid, &call.container, call.kind, &call.cid, outcome);
    }

    /// A probe is lost with the runtime: the next tick probes again.
    pub(super) fn probe_lost(&mut self, call: &ProbeCall) {
        if let Some(s) =
            self.workers.get_mut(&call.uid).and_then(|w| w.probes.get_mut(&(call.container.clone(), call.kind)))
        {
            s.in_flight = None;
        }
    }

    fn probe_result(&mut self, ctx: &mut Ctx, uid: &str, name: &str, kind: ProbeKind, cid: &str, outcome: Outcome) {
        let Some(w) = self.workers.get(uid) else { return };
        let Some(spec) = container_spec(w, name) else { return };
        let Some(probe) = kind.of(spec) else { return };
        let timing = Timing::of(probe);
        let grace = probe
            .termination_grace_period_seconds
            .or(w.pod.spec.as_ref().and_then(|s| s.termination_grace_period_seconds))
            .unwrap_or(30);
        let key = w.key.clone();
        let Some(state) = self.workers.get_mut(uid).and_then(|w| w.probes.get_mut(&(name.to_string(), kind))) else {
            return;
        };
        if state.cid != cid {
            return;
        }
        state.in_flight = None;
        // A probe that errored (it could not even run) is thrown away: it counts toward no threshold.
        let flipped = match &outcome {
            Outcome::Error(_) => None,
            _ => state.observe(outcome == Outcome::Success, &timing),
        };
        let (message, output) = match &outcome {
            Outcome::Success => (None, String::new()),
            Outcome::Failure(out) => (Some(format!("{} probe failed: {out}", kind.title())), out.clone()),
            Outcome::Error(e) => {
                (Some(format!("{} probe errored and resulted in unknown state: {e}", kind.title())), e.clone())
            }
        };
        if let Some(message) = message {
            let msg = format!(
                "\"Probe failed\" probeType={:?} pod={key:?} podUID={uid:?} containerName={name:?} probeResult=\"failure\" output={}",
                kind.title(),
                journal_quote(&output)
            );
            self.log(ctx.now, 'I', "prober.go:107", &msg);
            self.record(ctx, uid, Some(name), "Warning", "Unhealthy", &message);
        }
        let Some(now) = flipped else { return };
        let status = match (kind, now) {
            (ProbeKind::Readiness, true) => "ready",
            (ProbeKind::Readiness, false) => "not ready",
            (ProbeKind::Startup, true) => "started",
            (_, _) => "unhealthy",
        };
        let msg = format!("\"SyncLoop (probe)\" probe={:?} status={status:?} pod={key:?}", kind.title().to_lowercase());
        self.log(ctx.now, 'I', "kubelet.go:2542", &msg);
        match (kind, now) {
            (ProbeKind::Liveness | ProbeKind::Startup, false) => {
                if let Some(w) = self.workers.get_mut(uid) {
                    let message = kill_message(&w.pod, name, kind);
                    w.kill = Some(Kill { container: name.to_string(), cid: cid.to_string(), message, grace_s: grace });
                }
                self.sync(ctx, uid);
            }
            // A sidecar that started lets the next init container run.
            (ProbeKind::Startup, true) => self.sync(ctx, uid),
            _ => self.post_pod_status(ctx, uid),
        }
    }

    /// (started, ready) of a running container as its probes say.
    pub(super) fn probed(&self, w: &Worker, spec: &ApiContainer, c: &Container) -> (bool, bool) {
        if c.state != ContainerState::Running {
            return (false, false);
        }
        let passed = |kind: ProbeKind| {
            w.probes.get(&(spec.name.clone(), kind)).is_some_and(|s| s.cid == c.id && s.result == Some(true))
        };
        let started = spec.startup_probe.is_none() || passed(ProbeKind::Startup);
        let ready = started && (spec.readiness_probe.is_none() || passed(ProbeKind::Readiness));
        (started, ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn container(v: serde_json::Value) -> ApiContainer {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn results_flip_after_the_thresholds_in_a_row() {
        let t = Timing::of(&Probe { success_threshold: Some(2), failure_threshold: Some(3), ..Default::default() });
        assert_eq!((t.delay_ms, t.period_ms, t.timeout_ms), (0, 10_000, 1_000));
        let mut s = ProbeState::new(ProbeKind::Readiness, "c1");
        assert_eq!(s.result, None);
        assert_eq!(s.observe(true, &t), None);
        assert_eq!(s.observe(true, &t), Some(true));
        assert_eq!(s.observe(false, &t), None);
        assert_eq!(s.observe(true, &t), None);
        assert_eq!(s.observe(false, &t), None);
        assert_eq!(s.observe(false, &t), None);
        assert_eq!(s.observe(false, &t), Some(false));
        assert_eq!(s.observe(false, &t), None, "a result that stays does not flip again");
        assert_eq!(ProbeState::new(ProbeKind::Liveness, "c").result, Some(true));
    }

    #[test]
    fn network_probes_see_what_the_image_listens_on() {
        let c = container(json!({"name": "web", "image": "nginx", "ports": [{"name": "http", "containerPort": 80}]}));
        let open = listeners("nginx:1.27", &[]);
        let probe = |v: serde_json::Value| -> Probe { serde_json::from_value(v).unwrap_or_default() };
        let ip = "10.244.1.5";
        assert_eq!(
            network_probe(&probe(json!({"httpGet": {"path": "/", "port": 80}})), &c, ip, &open, false),
            Outcome::Success
        );
        assert_eq!(
            network_probe(&probe(json!({"httpGet": {"path": "/", "port": "http"}})), &c, ip, &open, false),
            Outcome::Success
        );
        assert_eq!(
            network_probe(&probe(json!({"httpGet": {"path": "/healthz", "port": 80}})), &c, ip, &open, false),
            Outcome::Failure("HTTP probe failed with statuscode: 404".into())
        );
        assert_eq!(
            network_probe(&probe(json!({"httpGet": {"path": "/", "port": 80}})), &c, ip, &open, true),
            Outcome::Failure("HTTP probe failed with statuscode: 500".into())
        );
        assert_eq!(
            network_probe(&probe(json!({"httpGet": {"path": "/healthz", "port": 8080}})), &c, ip, &open, false),
            Outcome::Failure(
                "Get \"http://10.244.1.5:8080/healthz\": dial tcp 10.244.1.5:8080: connect: connection refused".into()
            )
        );
        assert_eq!(network_probe(&probe(json!({"tcpSocket": {"port": 80}})), &c, ip, &open, false), Outcome::Success);
        assert_eq!(
            network_probe(&probe(json!({"tcpSocket": {"port": 3306}})), &c, ip, &open, false),
            Outcome::Failure("dial tcp 10.244.1.5:3306: connect: connection refused".into())
        );
        assert_eq!(
            network_probe(&probe(json!({"grpc": {"port": 9090}})), &c, ip, &open, false),
            Outcome::Failure(
                "timeout: failed to connect service \"10.244.1.5:9090\" within 1s: context deadline exceeded".into()
            )
        );
        assert!(matches!(
            network_probe(&probe(json!({"tcpSocket": {"port": "nope"}})), &c, ip, &open, false),
            Outcome::Error(_)
        ));
    }

    #[test]
    fn probe_ports_resolve_as_the_kubelet_resolves_them() {
        let c = container(json!({"name": "web", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}));
        let int = |n: i32| port_of(&IntOrString::Int(n), &c);
        let named = |s: &str| port_of(&IntOrString::String(s.into()), &c);
        assert_eq!(int(80), Ok(80));
        assert_eq!(named("http"), Ok(8080));
        assert_eq!(named("8081"), Ok(8081));
        assert_eq!(int(0), Err("invalid port number: 0".into()));
        assert_eq!(int(70000), Err("invalid port number: 70000".into()));
        assert_eq!(named("nope"), Err("strconv.Atoi: parsing \"nope\": invalid syntax".into()));
        assert_eq!(
            named("99999999999999999999"),
            Err("strconv.Atoi: parsing \"99999999999999999999\": value out of range".into())
        );
    }

    #[test]
    fn the_kill_message_says_whether_the_container_comes_back() {
        let pod = |policy: &str| -> Pod {
            serde_json::from_value(json!({"spec": {"restartPolicy": policy,
                "initContainers": [{"name": "proxy", "restartPolicy": "Always"}],
                "containers": [{"name": "app"}]}}))
            .unwrap_or_default()
        };
        assert_eq!(
            kill_message(&pod("Always"), "app", ProbeKind::Liveness),
            "Container app failed liveness probe, will be restarted"
        );
        assert_eq!(
            kill_message(&pod("OnFailure"), "app", ProbeKind::Startup),
            "Container app failed startup probe, will be restarted"
        );
        assert_eq!(kill_message(&pod("Never"), "app", ProbeKind::Liveness), "Container app failed liveness probe");
        assert_eq!(
            kill_message(&pod("Never"), "proxy", ProbeKind::Liveness),
            "Init container proxy failed liveness probe"
        );
    }
}
