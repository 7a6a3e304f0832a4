//! The engine's thread: it owns the cluster (which is not `Send`: components share state through `Rc`), paces
//! its simulated clock against wall time, and turns each HTTP request it is handed into a remote call that
//! enters the kernel at the simulated moment it arrived. What the call gets back goes to the connection's
//! task through a channel. With `--paused` the clock moves only for `wait`, and, as for the simulated
//! kubectl, for as long as a request waits for its answer.

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;

use crate::api::{ApiRequest, Credentials};
use crate::apiserver::apiextensions::Definitions;
use crate::apiserver::rest::{self, HttpAnswer, HttpRequest, Routed};
use crate::cluster::{Cluster, RemoteEvent};
use crate::sim::time::{go_duration, parse_duration_ms};
use crate::sim::SimTime;

/// How long the clock runs, at most, for one request's answer while paused (the apiserver's own request
/// timeout is 60 s).
const PAUSED_ANSWER_LIMIT_MS: u64 = 70_000;

/// What the HTTP side and the control prompt ask of the engine.
pub enum Command {
    /// An API request from client component `client`; what comes back goes to `reply`, each with the
    /// simulated time it is handed on at (a Table's ages are computed then).
    Call {
        client: String,
        credentials: Credentials,
        request: Box<ApiRequest>,
        reply: UnboundedSender<(RemoteEvent, SimTime)>,
    },
    /// An HTTP request that names no built-in resource, to be routed against the custom resources the
    /// apiserver serves now.
    Route { http: OwnedHttp, reply: tokio::sync::oneshot::Sender<Result<Routed, HttpAnswer>> },
    /// A control-prompt line (`stop kube-scheduler`, `wait 30s`, a node-shell line when `node` is set),
    /// with the here-document it was given as its standard input; its output goes to `reply`.
    Control { node: Option<String>, line: String, stdin: Option<String>, reply: std::sync::mpsc::Sender<String> },
}

/// An HTTP request's method, path, query, content type and body, owned to cross to the engine's thread.
pub struct OwnedHttp {
    pub method: String,
    pub path: String,
    pub query: String,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Milliseconds of wall time since serve started.
pub type WallClock = Box<dyn Fn() -> f64 + Send>;

/// How the clock moves.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Simulated milliseconds per wall millisecond.
    pub speed: f64,
    pub paused: bool,
}

struct Open {
    reply: UnboundedSender<(RemoteEvent, SimTime)>,
    answered: bool,
}

/// Runs the engine until every sender of `commands` is gone. `listening` follows whether kube-apiserver
/// runs: the HTTP side stops listening while it does not, so clients are refused as by a stopped one.
/// `wall_ms` is the wall clock (milliseconds since serve started), the only one the engine's thread sees:
/// the CLI passes it in, so nothing here reads real time itself.
pub fn run(
    mut cluster: Cluster,
    commands: Receiver<Command>,
    pace: Pace,
    listening: watch::Sender<bool>,
    wall_ms: WallClock,
) {
    let mut open: BTreeMap<u64, Open> = BTreeMap::new();
    // Simulated time the wall clock is mapped from; `wait` while paused moves it on.
    let mut sim_start = cluster.now().ms();
    // The last control-prompt command's exit status, for `echo $?`.
    let mut status = 0;
    // Wall time counts from here, once the cluster is built.
    let wall_start = wall_ms();
    loop {
        let command = commands.recv_timeout(Duration::from_millis(5));
        if !pace.paused {
            let target = sim_start + ((wall_ms() - wall_start) * pace.speed) as u64;
            let now = cluster.now().ms();
            if target > now {
                cluster.advance_ms(target - now);
            }
        }
        match command {
            Ok(Command::Call { client, credentials, request, reply }) => {
                let id = cluster.remote_call(&client, credentials, *request);
                open.insert(id, Open { reply, answered: false });
            }
            Ok(Command::Route { http, reply }) => {
                let request = HttpRequest {
                    method: &http.method,
                    path: &http.path,
                    query: &http.query,
                    content_type: http.content_type.as_deref(),
                    body: &http.body,
                };
                let routed = match cluster.apiserver() {
                    Some(apiserver) => rest::route_with(&request, &Definitions(apiserver.cache())),
                    None => rest::route(&request),
                };
                let _ = reply.send(routed);
            }
            Ok(Command::Control { node, line, stdin, reply }) => {
                let before = cluster.now().ms();
                let out = control(&mut cluster, node.as_deref(), &line, stdin, &mut status);
                if !pace.paused {
                    // Commands that run the cluster ahead (a stop that waits for the kubelet) move the mapping.
                    sim_start += cluster.now().ms().saturating_sub(before);
                }
                let _ = reply.send(out);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if pace.paused {
            let deadline = cluster.now().ms() + PAUSED_ANSWER_LIMIT_MS;
            while open.values().any(|o| !o.answered) && cluster.now().ms() < deadline {
                if cluster.run_next_instant().is_none() {
                    break;
                }
                forward(&mut cluster, &mut open);
            }
            // What was sent along with the answers (a watch's first events) arrives too; what the cluster
            // does next waits for the clock.
            let sent_by = cluster.now();
            while cluster.remote_in_flight_sent_by(sent_by) && cluster.now().ms() < deadline {
                if cluster.run_next_instant().is_none() {
                    break;
                }
                forward(&mut cluster, &mut open);
            }
        }
        forward(&mut cluster, &mut open);
        let up = cluster.apiserver_listening();
        listening.send_if_modified(|was| std::mem::replace(was, up) != up);
    }
}

/// Hands each open call what it received; calls whose client hung up are ended in the cluster.
fn forward(cluster: &mut Cluster, open: &mut BTreeMap<u64, Open>) {
    let mut gone = Vec::new();
    for (id, call) in open.iter_mut() {
        if call.reply.is_closed() {
            gone.push(*id);
            continue;
        }
        let events = cluster.take_remote(*id);
        let now = cluster.now();
        for event in events {
            if matches!(event, RemoteEvent::Answer { .. }) {
                call.answered = true;
            }
            let _ = call.reply.send((event, now));
        }
        if !cluster.remote_call_open(*id) {
            gone.push(*id);
        }
    }
    for id in gone {
        if open.remove(&id).is_some_and(|c| c.reply.is_closed()) {
            cluster.end_remote(id);
        }
    }
}

/// Runs one control-prompt line (with its here-document, if any) and returns what it prints; `status` is
/// the last command's exit status (`echo $?`).
fn control(cluster: &mut Cluster, node: Option<&str>, line: &str, stdin: Option<String>, status: &mut i32) -> String {
    const LIMIT_MS: u64 = crate::scenario::runner::COMMAND_LIMIT_MS;
    let ran = |result: crate::cluster::CommandResult, status: &mut i32| {
        // A command still running at the limit is cut short as `timeout` would (124).
        *status = result.exit.unwrap_or(124);
        result.output
    };
    if let Some(node) = node {
        return ran(cluster.shell(node, line, LIMIT_MS), status);
    }
    let (verb, rest) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
    let rest = rest.trim();
    let result = match verb {
        "" => Ok(String::new()),
        "stop" => cluster.stop(rest).map(|()| String::new()),
        "start" => cluster.start(rest).map(|()| String::new()),
        "crash" => cluster.crash(rest).map(|()| String::new()),
        "poweroff" => cluster.power_off(rest).map(|()| String::new()),
        "poweron" => cluster.power_on(rest).map(|()| String::new()),
        "wait" => parse_duration_ms(rest).map(|ms| {
            cluster.advance_ms(ms);
            String::new()
        }),
        "time" => Ok(format!("{}\n", go_duration(cluster.now().ms()))),
        "echo" if rest == "$?" => Ok(format!("{status}\n")),
        "echo" => Ok(format!("{rest}\n")),
        // The simulated kubectl inside the served cluster, beside the real one outside it.
        "kubectl" => return ran(cluster.kubectl(rest, stdin, LIMIT_MS), status),
        "ssh" => {
            let node = rest.trim_start_matches("root@");
            if cluster.config().all_nodes().any(|n| n.name == node) {
                Ok(String::new())
            } else {
                Err(format!("ssh: Could not resolve hostname {node}: Name or service not known"))
            }
        }
        other => Err(format!(
            "unknown command {other:?} (stop|start|crash NAME, poweroff|poweron NODE, wait DURATION, time, kubectl ARGS, ssh NODE)"
        )),
    };
    *status = i32::from(result.is_err());
    result.unwrap_or_else(|e| format!("error: {e}\n"))
}
