//! The kubelet's HTTPS server on :10250, which kube-apiserver proxies `pods/log`, `pods/exec` and
//! `pods/attach` to.
//! Serves `GET /containerLogs/<ns>/<pod>/<container>`: which run of the container to read follows from the
//! pod status the kubelet keeps (its status manager; the API's status after a restart), then containerd's
//! `ContainerStatus` gives that run with its log; and `POST /exec/<ns>/<pod>/<container>`: the running
//! container from containerd's records, then containerd's `ExecSync` runs the command; `POST /attach/…`: the
//! running container, containerd's `Attach` with the client's input, then (like a followed log) what the
//! container writes until it ends. Also builds what
//! the kubelet hands containerd for a pod's sandbox and containers: hostname, DNS settings, environment.
//! Counterpart: `pkg/kubelet/server/server.go` (getContainerLogs, getExec), `kubelet_pods.go`
//! (validateContainerLogStatus, GetKubeletContainerLogs, makeEnvironmentVariables),
//! `kuberuntime/kuberuntime_container.go` (GetContainerLogs), `network/dns/dns.go` (GetPodDNS).
//!
//! Simplified: exec is one `ExecSync` call standing for CRI `Exec` and its stream; the kubelet has no
//! Service informer, so containers get the `kubernetes` Service's variables only.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::api::api::core::v1::Pod;
use crate::api::{ExecEnd, ExecResult, Object};
use crate::node::container_output::{rfc3339_nano, LogLine};
use crate::node::exec::{DnsConfig, Env};
use crate::node::runtime::{Container, ContainerState, CriCall, CriReply};
use crate::node::usage::{self, Usage};
use crate::sim::time::parse_rfc3339;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use super::{CriOp, Kubelet};

/// The kubelet's port.
pub const KUBELET_PORT: u16 = 10250;
/// kubeadm's cluster DNS Service address and domain (the kubelet's `clusterDNS` and `clusterDomain`).
pub const CLUSTER_DNS: &str = "10.96.0.10";
pub const CLUSTER_DOMAIN: &str = "cluster.local";
/// The `kubernetes` Service (the first address of 10.96.0.0/12).
const KUBERNETES_SERVICE_IP: &str = "10.96.0.1";
/// The nameserver of the nodes' own resolver configuration.
const NODE_NAMESERVER: &str = "192.168.56.1";
/// What a refused CRI connection looks like to the kubelet's CRI client.
pub const CRI_UNAVAILABLE: &str = "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory\"";

/// Requests and answers between kube-apiserver and a kubelet's server.
#[derive(Debug, Clone, PartialEq)]
pub enum KubeletMessage {
    Request {
        id: u64,
        call: KubeletCall,
    },
    Reply {
        id: u64,
        reply: KubeletReply,
    },
    /// Nothing listened on :10250 (the kubelet is stopped).
    Refused {
        id: u64,
    },
    /// More of a followed log (`follow=true`): the lines written since the last, or None when the stream
    /// ends (the container has exited).
    Stream {
        id: u64,
        data: Option<String>,
    },
    /// The apiserver's side of a followed log hung up (its client did).
    Cancel {
        id: u64,
    },
}

/// What kube-apiserver asks a kubelet.
#[derive(Debug, Clone, PartialEq)]
pub enum KubeletCall {
    ContainerLogs {
        namespace: String,
        pod: String,
        container: String,
        options: LogOptions,
    },
    Exec {
        namespace: String,
        pod: String,
        container: String,
        command: Vec<String>,
        stdin: Option<String>,
        tty: bool,
    },
    /// `POST /attach/<ns>/<pod>/<container>`: the client's input for the container's main process (its stdin
    /// closing after it unless the session goes on: `close_stdin`), and with `follow` what the process
    /// writes from now until it ends.
    Attach {
        namespace: String,
        pod: String,
        container: String,
        stdin: Option<String>,
        close_stdin: bool,
        follow: bool,
    },
    /// `GET /metrics/resource`: what the node and its running containers use (metrics-server's scrape).
    ResourceMetrics,
    /// `POST /portForward/<ns>/<pod>`: without a port, the checks made before the stream is upgraded; with
    /// one, a forwarded connection to that port of the pod and what the client wrote on it (`data`).
    PortForward {
        namespace: String,
        pod: String,
        port: Option<u16>,
        data: String,
    },
}

/// The answer to `/metrics/resource` (the Prometheus text's samples, as data): the node's usage and each
/// running container's, measured at `at`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceMetrics {
    pub at: SimTime,
    pub node: Usage,
    /// (namespace, pod, container, usage), in the kubelet's order (by pod uid, then container).
    pub containers: Vec<(String, String, String, Usage)>,
}

/// The query of a `containerLogs` request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogOptions {
    pub previous: bool,
    pub timestamps: bool,
    pub follow: bool,
    pub tail_lines: Option<i64>,
    pub since_seconds: Option<i64>,
    pub since_time: Option<String>,
    pub limit_bytes: Option<i64>,
}

/// A kubelet's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum KubeletReply {
    /// 200 and the log's text.
    Logs(String),
    /// 200, the log's text so far, and the stream left open: a running container's log with `follow=true`
    /// (what it writes next follows as [`KubeletMessage::Stream`]).
    LogStream(String),
    /// The exec stream was set up and ran to its end.
    Exec(ExecResult),
    /// An HTTP error with a plain-text body.
    Error { code: u16, body: String },
    /// 200 and the resource metrics.
    Metrics(Box<ResourceMetrics>),
}

impl KubeletCall {
    /// The URL path and query, as the apiserver builds it (`/containerLogs/default/web/web?tailLines=5`).
    pub fn path(&self) -> String {
        match self {
            KubeletCall::ContainerLogs { namespace, pod, container, options } => {
                // url.Values.Encode sorts the keys.
                let mut query = Vec::new();
                if options.follow {
                    query.push("follow=true".to_string());
                }
                if let Some(n) = options.limit_bytes {
                    query.push(format!("limitBytes={n}"));
                }
                if options.previous {
                    query.push("previous=true".to_string());
                }
                if let Some(n) = options.since_seconds {
                    query.push(format!("sinceSeconds={n}"));
                }
                if let Some(t) = &options.since_time {
                    query.push(format!("sinceTime={}", t.replace(':', "%3A")));
                }
                if let Some(n) = options.tail_lines {
                    query.push(format!("tailLines={n}"));
                }
                if options.timestamps {
                    query.push("timestamps=true".to_string());
                }
                let q = if query.is_empty() { String::new() } else { format!("?{}", query.join("&")) };
                format!("/containerLogs/{namespace}/{pod}/{container}{q}")
            }
            KubeletCall::Exec { namespace, pod, container, .. } => format!("/exec/{namespace}/{pod}/{container}"),
            KubeletCall::Attach { namespace, pod, container, .. } => format!("/attach/{namespace}/{pod}/{container}"),
            KubeletCall::ResourceMetrics => "/metrics/resource".to_string(),
            KubeletCall::PortForward { namespace, pod, .. } => format!("/portForward/{namespace}/{pod}"),
        }
    }

    pub fn method(&self) -> &'static str {
        match self {
            KubeletCall::ContainerLogs { .. } | KubeletCall::ResourceMetrics => "GET",
            KubeletCall::Exec { .. } | KubeletCall::Attach { .. } | KubeletCall::PortForward { .. } => "POST",
        }
    }

    fn pod_ref(&self) -> Option<String> {
        match self {
            KubeletCall::ContainerLogs { namespace, pod, .. }
            | KubeletCall::Exec { namespace, pod, .. }
            | KubeletCall::Attach { namespace, pod, .. }
            | KubeletCall::PortForward { namespace, pod, .. } => Some(format!("pods {namespace}/{pod}")),
            KubeletCall::ResourceMetrics => None,
        }
    }
}

impl KubeletMessage {
    /// A short label for arrows and traces.
    pub fn label(&self) -> String {
        match self {
            KubeletMessage::Request { call, .. } => {
                let path = call.path();
                let path = match call {
                    KubeletCall::ResourceMetrics => path,
                    _ => format!("/{}", path.split('?').next().unwrap_or(&path).split('/').nth(1).unwrap_or("")),
                };
                format!("{} {path}", call.method())
            }
            KubeletMessage::Reply { reply, .. } => match reply {
                KubeletReply::Logs(_) | KubeletReply::LogStream(_) | KubeletReply::Metrics(_) => "200 OK".into(),
                KubeletReply::Exec(_) => "101 Switching Protocols".into(),
                KubeletReply::Error { code, .. } => format!("{code} {}", http_reason(*code)),
            },
            KubeletMessage::Refused { .. } => "connection refused".into(),
            KubeletMessage::Stream { data: Some(text), .. } => format!("log +{} lines", text.lines().count()),
            KubeletMessage::Stream { data: None, .. } => "log end".into(),
            KubeletMessage::Cancel { .. } => "close stream".into(),
        }
    }

    pub fn object_ref(&self) -> Option<String> {
        match self {
            KubeletMessage::Request { call, .. } => call.pod_ref(),
            _ => None,
        }
    }
}

fn http_reason(code: u16) -> &'static str {
    match code {
        400 => "Bad Request",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "",
    }
}

/// A request waiting for containerd.
#[derive(Debug, Clone)]
pub(super) struct Served {
    from: ComponentId,
    id: u64,
    what: Waiting,
}

#[derive(Debug, Clone)]
enum Waiting {
    Logs {
        options: LogOptions,
        container_id: String,
    },
    Exec,
    /// An attach; with `follow` the container's output is passed on until it ends, unless the client
    /// keeps writing to a process that reads its stdin (a terminal's line at a time: each answer carries
    /// what that line wrote).
    Attach {
        follow: bool,
        keeps_stdin: bool,
        container_id: String,
    },
    /// A followed log's next read.
    Follow,
    /// A forwarded stream (or, without a port, the checks before it).
    Forward,
}

/// How often a followed log is read again (the kubelet's log streamer waits on the file for new lines).
pub const FOLLOW_POLL_MS: u64 = 1_000;

/// A log the apiserver follows (`follow=true`): whose, which container, and up to when it was sent.
#[derive(Debug, Clone)]
pub(super) struct Follow {
    container_id: String,
    timestamps: bool,
    sent_until: SimTime,
    /// The request's chain: the stream's messages are steps of the command that opened it.
    chain: crate::sim::ChainId,
}

impl Kubelet {
    /// A request from kube-apiserver arrived on :10250.
    pub(super) fn on_server_request(&mut self, ctx: &mut Ctx, from: ComponentId, m: KubeletMessage) {
        if let KubeletMessage::Cancel { id } = m {
            return self.cancel_follow(from, id);
        }
        let KubeletMessage::Request { id, call } = m else { return };
        let answer = match call {
            KubeletCall::ContainerLogs { namespace, pod, container, options } => {
                self.container_logs(ctx, (from, id), &format!("{namespace}/{pod}"), &pod, &container, options)
            }
            KubeletCall::Exec { namespace, pod, container, command, stdin, tty } => {
                self.stream(ctx, (from, id), &format!("{namespace}/{pod}"), &container, |cid| {
                    (CriCall::ExecSync { id: cid, cmd: command, stdin, tty, timeout_ms: 0 }, Waiting::Exec)
                })
            }
            KubeletCall::Attach { namespace, pod, container, stdin, close_stdin, follow } => {
                self.stream(ctx, (from, id), &format!("{namespace}/{pod}"), &container, |cid| {
                    let keeps_stdin = stdin.is_some() && !close_stdin;
                    let what = Waiting::Attach { follow, keeps_stdin, container_id: cid.clone() };
                    (CriCall::Attach { id: cid, stdin, close_stdin }, what)
                })
            }
            KubeletCall::ResourceMetrics => Some(KubeletReply::Metrics(Box::new(self.resource_metrics(ctx.now)))),
            KubeletCall::PortForward { namespace, pod, port, data } => {
                self.port_forward(ctx, (from, id), &namespace, &pod, port, data)
            }
        };
        if let Some(reply) = answer {
            ctx.send(from, Payload::Kubelet(Box::new(KubeletMessage::Reply { id, reply })));
        }
    }

    /// `GET /metrics/resource`: the running containers of the pods this kubelet runs, as the usage model has
    /// them (the real kubelet asks the runtime for the cgroups' counters), and the node's total.
    fn resource_metrics(&self, now: SimTime) -> ResourceMetrics {
        let mut out = ResourceMetrics { at: now, ..ResourceMetrics::default() };
        out.node = usage::node_overhead(&self.cfg.node.name, self.cfg.control_plane, now);
        if !self.runtime_up {
            return out;
        }
        let mut running: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for c in self.containers.values().filter(|c| c.state == ContainerState::Running) {
            running.entry(c.pod_uid.as_str()).or_default().push(c.name.as_str());
        }
        for c in self.containers.values().filter(|c| c.state == ContainerState::Running) {
            let Some(worker) = self.workers.get(&c.pod_uid) else { continue };
            let names = running.get(c.pod_uid.as_str()).map(Vec::as_slice).unwrap_or(&[]);
            let used = usage::container_usage(&worker.pod, &c.name, &c.image, names, now);
            out.node.add(used);
            let (namespace, pod) = worker.key.split_once('/').unwrap_or(("", &worker.key));
            out.containers.push((namespace.to_string(), pod.to_string(), c.name.clone(), used));
        }
        out
    }

    /// The pod `namespace/name` as the kubelet's pod manager knows it, with its uid.
    fn pod_by_name(&self, key: &str) -> Option<(String, &Pod)> {
        self.workers.iter().find(|(_, w)| w.key == key && !w.gone && !w.orphan).map(|(uid, w)| (uid.clone(), &*w.pod))
    }

    /// `GET /containerLogs`: which run to read, then its log from containerd (None: the answer comes later).
    fn container_logs(
        &mut self,
        ctx: &mut Ctx,
        (from, id): (ComponentId, u64),
        key: &str,
        name: &str,
        container: &str,
        options: LogOptions,
    ) -> Option<KubeletReply> {
        let Some((_, pod)) = self.pod_by_name(key) else {
            return Some(KubeletReply::Error { code: 404, body: format!("pod {name:?} does not exist") });
        };
        let known = pod.spec.as_ref().is_some_and(|s| {
            s.containers.iter().chain(s.init_containers.iter().flatten()).any(|c| c.name == container)
                || s.ephemeral_containers.iter().flatten().any(|c| c.name == container)
        });
        if !known {
            return Some(KubeletReply::Error {
                code: 404,
                body: format!("container {container:?} not found in pod {name:?}"),
            });
        }
        // The pod's status as the API has it (what the status manager last posted): a static pod's is its
        // mirror pod's, since the pod read from the manifest carries none.
        let status = match pod.status.as_ref() {
            Some(s) => serde_json::to_value(s).ok(),
            None => match self.conn.informer(0).get(key).map(|o| o.as_ref()) {
                Some(Object::Pod(mirror)) => mirror.status.as_ref().and_then(|s| serde_json::to_value(s).ok()),
                _ => None,
            },
        };
        let container_id = match log_container(name, status.as_ref(), container, options.previous) {
            Ok(cid) => cid,
            Err(message) => return Some(KubeletReply::Error { code: 400, body: message }),
        };
        let call = CriCall::ContainerStatus { id: container_id.clone() };
        let served = Served { from, id, what: Waiting::Logs { options, container_id } };
        self.cri(ctx, call, CriOp::Serve(Box::new(served)));
        None
    }

    /// `POST /exec` and `POST /attach`: the running container, then the CRI call `call` makes for it (with
    /// what its answer is for).
    fn stream(
        &mut self,
        ctx: &mut Ctx,
        (from, id): (ComponentId, u64),
        key: &str,
        container: &str,
        call: impl FnOnce(String) -> (CriCall, Waiting),
    ) -> Option<KubeletReply> {
        let cid = match self.running_container(key, container) {
            Ok(cid) => cid,
            Err(reply) => return Some(reply),
        };
        let (call, what) = call(cid);
        self.cri(ctx, call, CriOp::Serve(Box::new(Served { from, id, what })));
        None
    }

    /// `/portForward`: the pod as the kubelet knows it, its sandbox from the runtime's records
    /// (`GetPortForward`), then containerd's `PortForward` with what the client wrote on the stream.
    fn port_forward(
        &mut self,
        ctx: &mut Ctx,
        (from, id): (ComponentId, u64),
        namespace: &str,
        pod: &str,
        port: Option<u16>,
        data: String,
    ) -> Option<KubeletReply> {
        let Some((uid, _)) = self.pod_by_name(&format!("{namespace}/{pod}")) else {
            return Some(KubeletReply::Error { code: 404, body: "pod does not exist".into() });
        };
        let Some(sandbox_id) = self.workers.get(&uid).and_then(|w| w.sandbox.clone()) else {
            // The runtime's pods are named `<name>_<namespace>` (BuildPodFullName).
            return Some(KubeletReply::Error { code: 500, body: format!("pod not found (\"{pod}_{namespace}\")") });
        };
        if !self.runtime_up {
            return Some(KubeletReply::Error { code: 500, body: CRI_UNAVAILABLE.into() });
        }
        let call = CriCall::PortForward { sandbox_id, port, data };
        self.cri(ctx, call, CriOp::Serve(Box::new(Served { from, id, what: Waiting::Forward })));
        None
    }

    /// The id of the running `container` of pod `key` (only running containers can be exec'd into or
    /// attached to: the runtime's list of running pods), or the error the kubelet answers.
    fn running_container(&self, key: &str, container: &str) -> Result<String, KubeletReply> {
        let Some((uid, _)) = self.pod_by_name(key) else {
            return Err(KubeletReply::Error { code: 404, body: "pod does not exist".into() });
        };
        let running = self
            .containers
            .values()
            .filter(|c| c.pod_uid == uid && c.name == container && c.state == ContainerState::Running)
            .max_by_key(|c| c.attempt)
            .map(|c| c.id.clone());
        let Some(cid) = running else {
            return Err(KubeletReply::Error { code: 500, body: format!("container not found ({container:?})") });
        };
        if !self.runtime_up {
            return Err(KubeletReply::Error { code: 500, body: CRI_UNAVAILABLE.into() });
        }
        Ok(cid)
    }

    /// containerd answered a call made for a request on :10250 (or the call failed).
    pub(super) fn on_served(&mut self, ctx: &mut Ctx, served: Served, result: Result<CriReply, String>) {
        let reply = match (served.what, result) {
            (Waiting::Logs { options, container_id }, Ok(CriReply::Container(c)))
                if options.follow && c.state == ContainerState::Running =>
            {
                self.follow(ctx, (served.from, served.id), container_id, options.timestamps);
                KubeletReply::LogStream(log_text(&c, &options, ctx.now))
            }
            (Waiting::Logs { options, .. }, Ok(CriReply::Container(c))) => {
                KubeletReply::Logs(log_text(&c, &options, ctx.now))
            }
            (Waiting::Follow, result) => return self.followed(ctx, (served.from, served.id), result),
            (Waiting::Logs { container_id, .. }, _) => KubeletReply::Error {
                code: 400,
                body: format!("unable to retrieve container logs for containerd://{container_id}"),
            },
            (Waiting::Exec, Ok(CriReply::Exec { output, exit_code })) => {
                let end = if exit_code == 0 { ExecEnd::Success } else { ExecEnd::ExitCode(exit_code) };
                KubeletReply::Exec(ExecResult { output, end })
            }
            (Waiting::Exec, Err(e)) if e == CRI_UNAVAILABLE => KubeletReply::Error { code: 500, body: e },
            (Waiting::Exec, Err(e)) => KubeletReply::Exec(ExecResult {
                end: ExecEnd::Failure(format!("Internal error occurred: error executing command in container: {e}")),
                ..ExecResult::default()
            }),
            (
                Waiting::Attach { follow: true, keeps_stdin, container_id },
                Ok(CriReply::Attached { output, running: true, reads_stdin }),
            ) if !(keeps_stdin && reads_stdin) => {
                // Its output from now on follows, as a followed log's lines do, until the container ends.
                self.follow(ctx, (served.from, served.id), container_id, false);
                KubeletReply::LogStream(output.iter().map(|(_, t)| t.as_str()).collect())
            }
            (Waiting::Attach { .. }, Ok(CriReply::Attached { output, .. })) => {
                KubeletReply::Exec(ExecResult { output, end: ExecEnd::Success })
            }
            (Waiting::Attach { .. }, Err(e)) => KubeletReply::Error { code: 500, body: e },
            (Waiting::Forward, Ok(CriReply::Forwarded { output, error })) => {
                let end = error.map_or(ExecEnd::Success, ExecEnd::Failure);
                KubeletReply::Exec(ExecResult { output: vec![(false, output)], end })
            }
            (Waiting::Forward, Err(e)) => KubeletReply::Error { code: 500, body: e },
            (Waiting::Exec | Waiting::Attach { .. } | Waiting::Forward, Ok(_)) => {
                KubeletReply::Error { code: 500, body: "unexpected runtime answer".into() }
            }
        };
        ctx.send(served.from, Payload::Kubelet(Box::new(KubeletMessage::Reply { id: served.id, reply })));
    }
}

impl Kubelet {
    /// Passes on what container `container_id` writes from now on to the apiserver's request `key`, read
    /// again every [`FOLLOW_POLL_MS`] until the container ends.
    fn follow(&mut self, ctx: &mut Ctx, key: (ComponentId, u64), container_id: String, timestamps: bool) {
        if self.follows.is_empty() {
            ctx.timer(FOLLOW_POLL_MS, super::TIMER_FOLLOW);
        }
        self.follows.insert(key, Follow { container_id, timestamps, sent_until: ctx.now, chain: ctx.chain });
    }

    /// Reads every followed log again (containerd's `ContainerStatus` of its container).
    pub(super) fn poll_follows(&mut self, ctx: &mut Ctx) {
        if self.follows.is_empty() {
            return;
        }
        ctx.timer(FOLLOW_POLL_MS, super::TIMER_FOLLOW);
        let open: Vec<((ComponentId, u64), String, crate::sim::ChainId)> =
            self.follows.iter().map(|(k, f)| (*k, f.container_id.clone(), f.chain)).collect();
        let chain = ctx.chain;
        for ((from, id), container_id, follow_chain) in open {
            ctx.chain = follow_chain;
            let served = Served { from, id, what: Waiting::Follow };
            self.cri(ctx, CriCall::ContainerStatus { id: container_id }, CriOp::Serve(Box::new(served)));
        }
        ctx.chain = chain;
    }

    /// A followed log was read: what it gained goes to the apiserver; an exited container, or one gone,
    /// ends the stream.
    fn followed(&mut self, ctx: &mut Ctx, key: (ComponentId, u64), result: Result<CriReply, String>) {
        let Some(follow) = self.follows.get_mut(&key) else { return };
        let (from, id) = key;
        let container = match result {
            Ok(CriReply::Container(c)) => Some(c),
            _ => None,
        };
        if let Some(c) = &container {
            let since = follow.sent_until;
            let text: String =
                c.logs(ctx.now).iter().filter(|l| l.at > since).map(|l| log_line(l, follow.timestamps)).collect();
            follow.sent_until = ctx.now;
            if !text.is_empty() {
                let message = KubeletMessage::Stream { id, data: Some(text) };
                ctx.send(from, Payload::Kubelet(Box::new(message)));
            }
        }
        if container.is_none_or(|c| c.state != ContainerState::Running) {
            self.follows.remove(&key);
            ctx.send(from, Payload::Kubelet(Box::new(KubeletMessage::Stream { id, data: None })));
        }
    }

    /// The apiserver closed a followed log.
    pub(super) fn cancel_follow(&mut self, from: ComponentId, id: u64) {
        self.follows.remove(&(from, id));
    }
}

/// Which container's log to read, from the pod status (`validateContainerLogStatus`): the running one, the
/// terminated one, or the last terminated run (`previous`); a waiting container has none.
pub fn log_container(pod: &str, status: Option<&Value>, container: &str, previous: bool) -> Result<String, String> {
    // validateContainerLogStatus: the container's status among the app, init and ephemeral ones.
    let lists = ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"];
    let statuses: Vec<&Value> = lists.iter().filter_map(|l| status.and_then(|s| s[*l].as_array())).flatten().collect();
    let Some(cs) = statuses.into_iter().find(|s| s["name"] == container) else {
        return Err(format!("container {container:?} in pod {pod:?} is not available"));
    };
    let last = cs["lastState"]["terminated"].as_object();
    let last_id = last.and_then(|t| t.get("containerID")).and_then(Value::as_str).filter(|s| !s.is_empty());
    let state = &cs["state"];
    let terminated_gone = || format!("container {container:?} in pod {pod:?} is terminated");
    let id = if previous {
        last_id.ok_or_else(|| format!("previous terminated container {container:?} in pod {pod:?} not found"))?
    } else if state["running"].is_object() {
        cs["containerID"].as_str().unwrap_or("")
    } else if let Some(t) = state["terminated"].as_object() {
        match t.get("containerID").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            Some(id) => id,
            None => last_id.ok_or_else(terminated_gone)?,
        }
    } else if last.is_some() {
        last_id.ok_or_else(terminated_gone)?
    } else if let Some(w) = state["waiting"].as_object() {
        let reason = w.get("reason").and_then(Value::as_str).unwrap_or("");
        let why = match reason {
            "ErrImagePull" => "image can't be pulled".to_string(),
            "ImagePullBackOff" => "trying and failing to pull image".to_string(),
            other => other.to_string(),
        };
        return Err(format!("container {container:?} in pod {pod:?} is waiting to start: {why}"));
    } else {
        return Err(format!("container {container:?} in pod {pod:?} is waiting to start - no logs yet"));
    };
    Ok(id.trim_start_matches("containerd://").to_string())
}

/// One line of a log as the kubelet serves it, with its RFC 3339 time first when `timestamps` asks.
fn log_line(line: &LogLine, timestamps: bool) -> String {
    if timestamps {
        format!("{} {}\n", rfc3339_nano(line.at), line.text)
    } else {
        format!("{}\n", line.text)
    }
}

/// The log of a container run as the kubelet streams it at `now` (`ReadLogs`): the last `tailLines` lines,
/// of those the ones written since `sinceTime` or `sinceSeconds`, each with its time if asked, cut at
/// `limitBytes`.
pub fn log_text(c: &Container, options: &LogOptions, now: SimTime) -> String {
    let lines = c.logs(now);
    let skip = match options.tail_lines {
        Some(n) if n >= 0 => lines.len().saturating_sub(n as usize),
        _ => 0,
    };
    let since = match (&options.since_time, options.since_seconds) {
        (Some(t), _) => parse_rfc3339(t),
        (None, Some(s)) => Some(SimTime(now.ms().saturating_sub((s.max(0) as u64).saturating_mul(1000)))),
        (None, None) => None,
    };
    let mut text: String = lines
        .iter()
        .skip(skip)
        .filter(|l| since.is_none_or(|t| l.at >= t))
        .map(|l| log_line(l, options.timestamps))
        .collect();
    if let Some(limit) = options.limit_bytes.filter(|n| *n >= 0).map(|n| n as usize) {
        let mut cut = limit.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The sandbox's hostname: `spec.hostname` or the pod's name; the node's for host-network pods.
pub fn sandbox_hostname(pod: &Pod, node: &str) -> String {
    let spec = pod.spec.as_ref();
    if spec.and_then(|s| s.host_network).unwrap_or(false) {
        return node.to_string();
    }
    spec.and_then(|s| s.hostname.clone()).unwrap_or_else(|| pod.metadata.name.clone().unwrap_or_default())
}

/// The pod's DNS settings by its `dnsPolicy` (`ClusterFirst` unless host-network, `Default`, `None`,
/// `ClusterFirstWithHostNet`) merged with `spec.dnsConfig`.
pub fn sandbox_dns(pod: &Pod) -> Option<Arc<DnsConfig>> {
    let spec = pod.spec.as_ref()?;
    let host_network = spec.host_network.unwrap_or(false);
    let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
    let policy = spec.dns_policy.as_deref().unwrap_or("ClusterFirst");
    let cluster = match policy {
        "ClusterFirstWithHostNet" => true,
        "ClusterFirst" => !host_network,
        _ => false,
    };
    if cluster && spec.dns_config.is_none() {
        // The common case: one shared value per namespace.
        static BY_NAMESPACE: OnceLock<Mutex<BTreeMap<String, Arc<DnsConfig>>>> = OnceLock::new();
        let map = BY_NAMESPACE.get_or_init(|| Mutex::new(BTreeMap::new()));
        let mut map = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        return Some(Arc::clone(map.entry(ns.to_string()).or_insert_with(|| Arc::new(cluster_dns(ns)))));
    }
    let mut dns = if cluster {
        cluster_dns(ns)
    } else if policy == "None" {
        DnsConfig::default()
    } else {
        DnsConfig { servers: vec![NODE_NAMESERVER.into()], ..DnsConfig::default() }
    };
    if let Some(extra) = spec.dns_config.as_ref() {
        dns.servers.extend(extra.nameservers.clone().unwrap_or_default());
        dns.searches.extend(extra.searches.clone().unwrap_or_default());
        for o in extra.options.iter().flatten() {
            let name = o.name.clone().unwrap_or_default();
            dns.options.retain(|x| x.split(':').next() != Some(name.as_str()));
            dns.options.push(match &o.value {
                Some(v) => format!("{name}:{v}"),
                None => name,
            });
        }
    }
    Some(Arc::new(dns))
}

/// `ClusterFirst` DNS for a pod of namespace `ns`.
fn cluster_dns(ns: &str) -> DnsConfig {
    DnsConfig {
        servers: vec![CLUSTER_DNS.into()],
        searches: vec![
            format!("{ns}.svc.{CLUSTER_DOMAIN}"),
            format!("svc.{CLUSTER_DOMAIN}"),
            CLUSTER_DOMAIN.to_string(),
        ],
        options: vec!["ndots:5".into()],
    }
}

/// The variables of the `kubernetes` Service every container gets (one list, shared).
fn service_env() -> Arc<Vec<(String, String)>> {
    static ENV: OnceLock<Arc<Vec<(String, String)>>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        let ip = KUBERNETES_SERVICE_IP;
        let mut v: Vec<(String, String)> = [
            ("KUBERNETES_SERVICE_HOST", ip.to_string()),
            ("KUBERNETES_SERVICE_PORT", "443".to_string()),
            ("KUBERNETES_SERVICE_PORT_HTTPS", "443".to_string()),
            ("KUBERNETES_PORT", format!("tcp://{ip}:443")),
            ("KUBERNETES_PORT_443_TCP", format!("tcp://{ip}:443")),
            ("KUBERNETES_PORT_443_TCP_PROTO", "tcp".to_string()),
            ("KUBERNETES_PORT_443_TCP_PORT", "443".to_string()),
            ("KUBERNETES_PORT_443_TCP_ADDR", ip.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        v.sort();
        Arc::new(v)
    }))
}

/// A container's environment: its `env` entries with literal values or downward-API fields, then the
/// Service variables.
pub fn container_env(pod: &Pod, container: &str, pod_ip: Option<&str>, node_ip: &str) -> Env {
    let spec = pod.spec.as_ref();
    let c = spec.and_then(|s| s.containers.iter().find(|c| c.name == container));
    let mut own = Vec::new();
    for e in c.and_then(|c| c.env.as_ref()).into_iter().flatten() {
        let value = match (&e.value, e.value_from.as_ref().and_then(|f| f.field_ref.as_ref())) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(f)) => match f.field_path.as_str() {
                "metadata.name" => pod.metadata.name.clone(),
                "metadata.namespace" => pod.metadata.namespace.clone(),
                "metadata.uid" => pod.metadata.uid.clone(),
                "spec.nodeName" => spec.and_then(|s| s.node_name.clone()),
                "spec.serviceAccountName" => spec.and_then(|s| s.service_account_name.clone()),
                "status.podIP" => pod_ip.map(str::to_string),
                "status.hostIP" => Some(node_ip.to_string()),
                _ => None,
            },
            (None, None) => Some(String::new()),
        };
        if let Some(v) = value {
            own.push((e.name.clone(), v));
        }
    }
    Env { own, services: service_env() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_log_to_read_follows_the_container_status() {
        let running = json!({"containerStatuses": [{"name": "web", "containerID": "containerd://abc",
            "state": {"running": {}}, "lastState": {"terminated": {"containerID": "containerd://old"}}}]});
        assert_eq!(log_container("p", Some(&running), "web", false), Ok("abc".into()));
        assert_eq!(log_container("p", Some(&running), "web", true), Ok("old".into()));
        let fresh = json!({"containerStatuses": [{"name": "web", "state": {"running": {}}, "containerID": "containerd://x", "lastState": {}}]});
        assert_eq!(
            log_container("p", Some(&fresh), "web", true),
            Err("previous terminated container \"web\" in pod \"p\" not found".into())
        );
        let waiting = json!({"containerStatuses": [{"name": "web", "state": {"waiting": {"reason": "ErrImagePull"}}, "lastState": {}}]});
        assert_eq!(
            log_container("p", Some(&waiting), "web", false),
            Err("container \"web\" in pod \"p\" is waiting to start: image can't be pulled".into())
        );
        assert_eq!(
            log_container("p", None, "web", false),
            Err("container \"web\" in pod \"p\" is not available".into())
        );
    }

    #[test]
    fn log_requests_carry_the_query_in_url_values_order() {
        let call = KubeletCall::ContainerLogs {
            namespace: "default".into(),
            pod: "web".into(),
            container: "c".into(),
            options: LogOptions {
                previous: true,
                timestamps: true,
                tail_lines: Some(5),
                since_seconds: Some(30),
                ..LogOptions::default()
            },
        };
        assert_eq!(
            call.path(),
            "/containerLogs/default/web/c?previous=true&sinceSeconds=30&tailLines=5&timestamps=true"
        );
        let m = KubeletMessage::Request { id: 1, call };
        assert_eq!(m.label(), "GET /containerLogs");
    }
}
