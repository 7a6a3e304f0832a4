//! containerd, the node's container runtime, as its own process `<node>/containerd`. It watches nothing:
//! it answers CRI calls from its kubelet ([`CriMessage::Request`]) and pushes a [`CriMessage::Exited`]
//! event when a container ends. It keeps the image cache (size and pull time derived from the image
//! name), pod sandboxes with their IP from the node's pod CIDR (the CNI plugin's host-local IPAM), and
//! containers with ids, states, exit codes, times and log lines. Counterpart: containerd's CRI plugin
//! (`internal/cri/server`), the CRI API `k8s.io/cri-api/pkg/apis/runtime/v1`.
//!
//! Simulated workloads (no real processes run): the container's command and args decide what it does.
//! - `sleep N` ends with exit code 0 after N seconds; `sleep infinity` never ends.
//! - `sh -c "…"` (also `bash`, `/bin/sh`): statements split on `;`, `&&` and newlines; `sleep N` adds N
//!   seconds, `exit N` ends with code N, `echo …` writes a log line, `while true`/`tail -f` never end;
//!   a script that runs out ends with code 0.
//! - `true`/`false`/`echo …` end at once (0/1/0).
//! - Without a command: `busybox`, `alpine`, `ubuntu`, `debian` run their shell and end at once with 0;
//!   every other image (nginx, httpd, redis, pause, etcd, …) runs until stopped.
//! - A shell with no script (that command, or none in those images) in a container with `stdin: true` reads
//!   its open stdin instead: it runs until an attached client's input says `exit` or (with `stdinOnce`)
//!   ends, as [`super::attach`] runs that input ([`CriCall::Attach`]).
//! - Annotations on the pod: `kubeglass.dev/exit-after-seconds: "N"` and `kubeglass.dev/exit-code: "C"`
//!   override the above for every container of the pod.
//! - Files: a script's `touch PATH` creates PATH and `rm [-f] PATH` removes it at the time its `sleep`s
//!   add up to, so `touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600` has `/tmp/healthy` for
//!   its first 30 seconds; `cat`, `ls` and exec probes in the container see exactly that
//!   ([`Container::file_exists`]). Commands run with `kubectl exec` do not change the files.
//! - Memory: `stress --vm N --vm-bytes B` (the `polinux/stress` example; N defaults to 1, B to 256M) uses
//!   N×B, and the pod annotation `kubeglass.dev/memory: "300Mi"` sets what every container of the pod
//!   uses; either is reached one second after the start. A container whose use is above its
//!   `resources.limits.memory` is ended by the kernel's OOM killer then: exit code 137, reason OOMKilled.
//! - What containers print, and when, is in [`super::container_output`]; commands run with `ExecSync` are
//!   simulated by [`super::exec`].
//! - Network programs (`wget`, `curl`): the process's packets leave the pod, so containerd hands the
//!   program's command line to the network ([`Ctx::connect`], answered by the cluster's data plane with a
//!   [`Payload::NetAnswer`] once the program is done). A script's statement waits for it and the rest of
//!   the script goes on after: `&&` and `||` follow the program's status, which the next statement sees
//!   as `$?`, and its `> /dev/null`, `2>/dev/null`, `2>&1` are honoured. An ExecSync or Attach call runs
//!   again from its start with the answers so far ([`NetWait::Call`]); an ExecSync's timeout runs while it
//!   waits. Waiting processes ask again when containerd restarts (they run on under their shims). A
//!   `while` loop's network programs are not run.
//!
//! Stopping: images that handle SIGTERM stop at once (exit 0); shell-like workloads (PID 1 ignores
//! SIGTERM) are killed when the timeout ends (exit 137).
//! Pulls: a tag `doesnotexist`, an unknown registry host or an unknown Docker Hub library repository fail
//! with containerd's error text.
//!
//! Processes: on the control-plane node the static pods' binaries (`etcd`, `kube-apiserver`, …) are
//! simulated components themselves. Starting such a container starts that component and ending it (exit,
//! stop) ends the component ([`Ctx::lifecycle`]); a component that crashes ends its container
//! ([`Containerd::process_died`]), which the kubelet then restarts with its back-off. containerd logs what
//! it does to its journal (`journalctl -u containerd`).
//!
//! Restarts: containerd restarted alone keeps its containers running (under their shims). A machine that was
//! powered off and on ([`Containerd::reboot`]) keeps containerd's metadata and images on disk, but its
//! containers' tasks are gone: they are exited (255, reason `Unknown`) and its sandboxes not ready.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::journal::Journal;
use crate::sim::rng::fnv1a64;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use super::container_output::{self, LogLine, Output, Planned, Repeat, Stream};
use super::exec::{DnsConfig, Env};
use super::net::{is_network_program, NetAnswer, NetCall};

/// A CRI call, its answer, or containerd's event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum CriMessage {
    Request {
        id: u64,
        call: CriCall,
    },
    Reply {
        id: u64,
        result: Result<CriReply, String>,
    },
    /// The container ended (containerd's task exit event, which the kubelet's PLEG would notice).
    Exited {
        container: Container,
    },
    /// The socket was not there: the request with this id failed at once.
    Refused {
        id: u64,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum CriCall {
    Version,
    ImageStatus {
        image: String,
    },
    PullImage {
        image: String,
    },
    RunPodSandbox {
        uid: String,
        name: String,
        namespace: String,
        host_network: bool,
        hostname: String,
        dns: Option<Arc<DnsConfig>>,
    },
    CreateContainer {
        sandbox_id: String,
        spec: ContainerSpec,
    },
    StartContainer {
        id: String,
    },
    StopContainer {
        id: String,
        timeout_s: i64,
    },
    /// Stops the sandbox's containers and tears down its network (it stays, not ready, until removed).
    StopPodSandbox {
        id: String,
    },
    RemovePodSandbox {
        id: String,
    },
    ListPodSandbox,
    ListContainers,
    /// The images containerd holds (CRI `ListImages`).
    ListImages,
    /// One container's status (the kubelet reads its log file from the path this names).
    ContainerStatus {
        id: String,
    },
    /// Attaches to a running container's main process: `stdin` is written to it (closing it afterwards when
    /// `close_stdin`); the answer is what the process wrote meanwhile and whether it still runs.
    Attach {
        id: String,
        stdin: Option<String>,
        close_stdin: bool,
    },
    /// Runs a command in a running container and returns its output and exit code.
    ExecSync {
        id: String,
        cmd: Vec<String>,
        stdin: Option<String>,
        tty: bool,
        /// CRI's `timeout` (0: none): a command still running then is killed and the call fails with
        /// DeadlineExceeded.
        timeout_ms: u64,
    },
    /// `PortForward` and the forwarded stream: without a port, only the checks made before the stream
    /// exists (the sandbox is known and ready); with one, a connection to `localhost:port` inside the
    /// sandbox's network namespace and what the listener there writes back for `data`.
    PortForward {
        sandbox_id: String,
        port: Option<u16>,
        data: String,
    },
}

impl CriCall {
    pub fn name(&self) -> &'static str {
        match self {
            CriCall::Version => "Version",
            CriCall::ImageStatus { .. } => "ImageStatus",
            CriCall::PullImage { .. } => "PullImage",
            CriCall::RunPodSandbox { .. } => "RunPodSandbox",
            CriCall::CreateContainer { .. } => "CreateContainer",
            CriCall::StartContainer { .. } => "StartContainer",
            CriCall::StopContainer { .. } => "StopContainer",
            CriCall::StopPodSandbox { .. } => "StopPodSandbox",
            CriCall::RemovePodSandbox { .. } => "RemovePodSandbox",
            CriCall::ListPodSandbox => "ListPodSandbox",
            CriCall::ListContainers => "ListContainers",
            CriCall::ListImages => "ListImages",
            CriCall::ContainerStatus { .. } => "ContainerStatus",
            CriCall::Attach { .. } => "Attach",
            CriCall::ExecSync { .. } => "ExecSync",
            CriCall::PortForward { .. } => "PortForward",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum CriReply {
    Version(String),
    Image(Option<Image>),
    Pulled {
        image: Image,
        pull_ms: u64,
    },
    Sandbox(Sandbox),
    /// The container after CreateContainer, StartContainer or StopContainer.
    Container(Box<Container>),
    Done,
    Sandboxes(Vec<Sandbox>),
    Containers(Vec<Container>),
    Images(Vec<Image>),
    /// ExecSync's answer: what the command wrote (in order; `true` marks stderr) and its exit code.
    Exec {
        output: Vec<(bool, String)>,
        exit_code: i32,
    },
    /// Attach's answer: what the main process wrote while its stdin was read (in order; `true` marks
    /// stderr), and whether it still runs.
    Attached {
        output: Vec<(bool, String)>,
        running: bool,
        /// The process reads its stdin (a shell on an open stdin); any other ignores what is written there.
        reads_stdin: bool,
    },
    /// A forwarded stream's answer: what the pod's listener wrote back, or, when the connection could not be
    /// made, the error the streaming server writes on the stream's error channel.
    Forwarded {
        output: String,
        error: Option<String>,
    },
}

/// What the kubelet asks to run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContainerSpec {
    pub name: String,
    pub image: String,
    pub command: Vec<String>,
    pub args: Vec<String>,
    pub attempt: u32,
    pub annotations: BTreeMap<String, String>,
    /// The environment the kubelet gives the container.
    pub env: Env,
    /// `resources.limits.memory` in bytes (the cgroup's limit).
    pub memory_limit: Option<u64>,
    /// The container's stdin is kept open for attaching (`stdin`), closed after the first attach ends
    /// (`stdinOnce`), and a terminal (`tty`).
    pub stdin: bool,
    pub stdin_once: bool,
    pub tty: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// `docker.io/library/nginx:1.27`.
    pub name: String,
    /// The image id (its config digest): `sha256:<64 hex>`.
    pub id: String,
    /// `docker.io/library/nginx@sha256:<64 hex>`.
    pub digest_ref: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sandbox {
    pub id: String,
    pub uid: String,
    pub name: String,
    pub namespace: String,
    pub ip: String,
    pub ready: bool,
    pub created_at: SimTime,
    pub hostname: String,
    pub host_network: bool,
    /// The DNS settings containerd writes into the sandbox's `/etc/resolv.conf`.
    pub dns: Option<Arc<DnsConfig>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerState {
    Created,
    Running,
    Exited,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    pub id: String,
    pub sandbox_id: String,
    pub pod_uid: String,
    pub name: String,
    pub image: String,
    pub image_ref: String,
    pub attempt: u32,
    pub state: ContainerState,
    pub exit_code: i32,
    pub created_at: SimTime,
    pub started_at: Option<SimTime>,
    pub finished_at: Option<SimTime>,
    pub env: Env,
    /// The simulated component this container's process is (`kube-scheduler`), if any.
    pub process: Option<String>,
    /// The kernel's OOM killer ended it (its memory use went above its limit).
    pub oom_killed: bool,
    /// Its task was gone when containerd started after the machine rebooted: exit code 255, reason `Unknown`.
    pub lost: bool,
    workload: Workload,
    /// What the simulated component it runs wrote while it ran (its klog lines), in order.
    written: Vec<LogLine>,
}

impl Container {
    /// Its log file as of `now`: the lines it wrote from its start until now or its end (the last ones, as
    /// the kubelet rotates log files).
    pub fn logs(&self, now: SimTime) -> Vec<LogLine> {
        let Some(started) = self.started_at else { return Vec::new() };
        let until = self.finished_at.unwrap_or(now).min(now);
        let mut lines = self.workload.output.written(started, until);
        if !self.written.is_empty() {
            lines.extend(self.written.iter().filter(|l| l.at <= until).cloned());
            // Stable: lines written at the same moment keep their order.
            lines.sort_by_key(|l| l.at);
        }
        lines
    }

    /// Whether `path` exists in the container at `now`, for the paths its command creates or removes
    /// (None for any other path).
    pub fn file_exists(&self, path: &str, now: SimTime) -> Option<bool> {
        if !self.workload.files.iter().any(|(_, p, _)| p == path) {
            return None;
        }
        let ran = self.started_at.map(|s| now.since(s));
        let mut exists = false;
        for (at, p, e) in &self.workload.files {
            if p == path && ran.is_some_and(|r| *at <= r) {
                exists = *e;
            }
        }
        Some(exists)
    }

    /// Appends what the main process wrote at `now` to its log: each complete line (without the terminal's
    /// carriage return); a trailing partial line (a prompt) waits for the rest of its line.
    fn log_output(&mut self, output: &[(bool, String)], now: SimTime) {
        for (stderr, text) in output {
            let stream = if *stderr { Stream::Stderr } else { Stream::Stdout };
            let Some(shell) = self.workload.stdin_shell.as_mut() else { return };
            let mut rest = std::mem::take(&mut shell.partial);
            rest.push_str(text);
            let mut lines: Vec<&str> = rest.split('\n').collect();
            let partial = lines.pop().unwrap_or("").to_string();
            for line in lines {
                let text = line.strip_suffix('\r').unwrap_or(line).to_string();
                self.written.push(LogLine { at: now, stream, text });
            }
            shell.partial = partial;
        }
    }

    /// The process id crictl inspect shows (stable per container).
    pub fn pid(&self) -> u32 {
        2_000 + (fnv1a64(self.id.as_bytes()) % 60_000) as u32
    }
}

/// At most this many lines wait for the container of a process that runs before it has one.
const EARLY_LINES_MAX: usize = 64;

/// What a simulated process does once started.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Ends after this many ms with this code; None runs until stopped.
    pub ends: Option<(u64, i32)>,
    /// Whether SIGTERM stops it at once (false: killed after the timeout).
    pub handles_sigterm: bool,
    pub output: Output,
    /// Paths its command creates (true) or removes (false), ms after its start, in order.
    pub files: Vec<(u64, String, bool)>,
    /// The memory it uses (bytes), reached one second after its start.
    pub memory: Option<u64>,
    /// Its end is the OOM killer's.
    pub oom: bool,
    /// A shell reading its commands from the container's open stdin (`stdin: true` and no script). It runs
    /// until its input ends or it runs `exit`.
    pub stdin_shell: Option<Box<StdinShell>>,
    /// Its script reaches a network program (`wget`, `curl`) this many ms after its start: the program's
    /// call, and the rest of the script, which goes on once the network has answered.
    pub network: Option<Box<NetStep>>,
}

/// A network program a container's script runs, and what the script does after it.
#[derive(Debug, Clone, PartialEq)]
pub struct NetStep {
    pub at_ms: u64,
    pub call: NetCall,
    /// The rest of the script, each statement after its connector (`;`, `&&`, `||`).
    pub rest: String,
    /// What the program's redirections discard: (stdout, stderr).
    pub discard: (bool, bool),
}

/// A container's main process that is a shell reading its open stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct StdinShell {
    pub program: String,
    /// Its stdin closes when the first attached client's stdin does (`stdinOnce`).
    pub once: bool,
    /// It writes to a terminal (`tty`): prompts, echoed input, `\r\n` line ends.
    pub tty: bool,
    /// The status of the last command it ran (what `exit` and the end of input end it with).
    pub last_code: i32,
    /// What it wrote after its last complete line (a prompt), not yet a line of its log.
    pub partial: String,
}

impl Workload {
    fn new(ends: Option<(u64, i32)>, handles_sigterm: bool, output: Output) -> Workload {
        Workload {
            ends,
            handles_sigterm,
            output,
            files: Vec::new(),
            memory: None,
            oom: false,
            stdin_shell: None,
            network: None,
        }
    }
}

/// When a container's memory use reaches what its command allocates.
pub const MEMORY_RAMP_MS: u64 = 1_000;

/// The pause image every sandbox runs.
pub const PAUSE_IMAGE: &str = "registry.k8s.io/pause:3.10";

/// Timer tokens: a pull finishing (`PULL_BASE + n`), a container exiting (`EXIT_BASE + n`).
const PULL_BASE: u64 = 1 << 40;
const EXIT_BASE: u64 = 2 << 40;
const NET_BASE: u64 = 3 << 40;
const DEADLINE_BASE: u64 = 4 << 40;

/// The node's containerd.
#[derive(Debug)]
pub struct Containerd {
    /// The kubelet that receives exit events.
    kubelet: ComponentId,
    node_ip: String,
    /// The pod CIDR's first three octets (`10.244.1`).
    cidr_prefix: String,
    images: BTreeMap<String, Image>,
    sandboxes: BTreeMap<String, Sandbox>,
    containers: BTreeMap<String, Container>,
    used_ips: BTreeSet<u8>,
    /// Pulls under way: timer token → (requester, request id, image).
    pulls: BTreeMap<u64, (ComponentId, u64, Image, u64)>,
    /// Exit timers: token → container id.
    exits: BTreeMap<u64, String>,
    /// StopContainer calls waiting for their container to end: exit timer token → (requester, request id).
    stops: BTreeMap<u64, (ComponentId, u64)>,
    /// Answers sent after a delay (failed pulls): token → (requester, request id, answer).
    delayed: BTreeMap<u64, Delayed>,
    next_timer: u64,
    /// The programs of this machine that are simulated components, and the component each one is
    /// (`kube-apiserver` → `kube-apiserver`, `kube-proxy` → `node01/kube-proxy`).
    processes: BTreeMap<String, String>,
    /// Lines such a process wrote before any container ran it (at install every component starts at time
    /// zero, before the kubelet has created its container): the container that starts it next logs them.
    early_lines: BTreeMap<String, Vec<LogLine>>,
    journal: Journal,
    /// Processes waiting for the network to answer a program they run, by the id of the question.
    net_waits: BTreeMap<u64, NetWait>,
    /// Network questions asked after a delay (the script sleeps first): timer token → question id, pod
    /// sandbox and call.
    net_later: BTreeMap<u64, (u64, String, NetCall)>,
    next_net: u64,
    /// ExecSync calls waiting for the network with a timeout: timer token → (requester, request id,
    /// timeout). The first to come, the answer or the deadline, is the call's end.
    exec_deadlines: BTreeMap<u64, (ComponentId, u64, u64)>,
    /// The call being run again with the network's answers so far (see [`NetWait::Call`]).
    replay: Option<Replay>,
}

type Delayed = (ComponentId, u64, Result<CriReply, String>);

/// A process waiting for the network's answer to a program it runs.
#[derive(Debug, Clone)]
enum NetWait {
    /// An ExecSync or Attach call: it runs again from its start with every answer so far once the next
    /// one is in (commands are deterministic, so it gets as far again and further).
    Call { from: ComponentId, id: u64, call: Box<CriCall>, replay: Replay },
    /// A container's main process: the rest of its script runs after the answer. (Its call, to ask again
    /// when containerd restarts: the process runs on under its shim.)
    Main { cid: String, rest: String, call: NetCall, discard: (bool, bool) },
    /// A forwarded stream of sandbox `sandbox_id` to `port` (CRI PortForward).
    Forward { from: ComponentId, id: u64, sandbox_id: String, port: u16 },
}

/// What a call run again already has: the network's answers, its start, and its process id.
#[derive(Debug, Clone, Default)]
struct Replay {
    answers: Vec<NetAnswer>,
    started: SimTime,
    exec_id: String,
}

impl Containerd {
    /// containerd on a node with `node_ip`, CNI handing out addresses from `10.244.<index>.0/24`, and the
    /// images kubeadm pre-pulled (`kubeadm config images pull`).
    pub fn new(kubelet: ComponentId, node_ip: &str, pod_cidr_prefix: &str, preloaded: &[&str]) -> Containerd {
        let mut c = Containerd {
            kubelet,
            node_ip: node_ip.to_string(),
            cidr_prefix: pod_cidr_prefix.to_string(),
            images: BTreeMap::new(),
            sandboxes: BTreeMap::new(),
            containers: BTreeMap::new(),
            used_ips: BTreeSet::new(),
            pulls: BTreeMap::new(),
            exits: BTreeMap::new(),
            stops: BTreeMap::new(),
            delayed: BTreeMap::new(),
            next_timer: 0,
            processes: BTreeMap::new(),
            early_lines: BTreeMap::new(),
            journal: Journal::new("containerd"),
            net_waits: BTreeMap::new(),
            net_later: BTreeMap::new(),
            next_net: 0,
            exec_deadlines: BTreeMap::new(),
            replay: None,
        };
        for image in std::iter::once(&PAUSE_IMAGE).chain(preloaded) {
            let img = image_info(image);
            c.images.insert(img.name.clone(), img);
        }
        c
    }

    /// A journal that keeps `lines` lines.
    pub fn with_journal_lines(mut self, lines: usize) -> Containerd {
        self.journal = Journal::with_capacity("containerd", lines);
        self
    }

    /// Containers whose program (their command, else their image's entrypoint) is one of `programs` run the
    /// simulated component it names: `(program, component)` (see the module docs).
    pub fn with_processes(mut self, programs: &[(&str, String)]) -> Containerd {
        self.processes = programs.iter().map(|(p, c)| (p.to_string(), c.clone())).collect();
        self
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// For systemd's lines about the unit.
    pub fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    fn log(&mut self, now: SimTime, level: &'static str, message: &str, fields: &str) {
        self.journal.logrus(now, level, message, fields);
    }

    /// containerd restarted: its state is on disk (images, sandboxes, containers survive; running
    /// containers keep running under their shims).
    pub fn on_start(&mut self, _ctx: &mut Ctx) {
        self.log(
            _ctx.now,
            "info",
            "starting containerd",
            &format!("revision={} version={}", super::os::CONTAINERD_REVISION, super::os::CONTAINERD_VERSION),
        );
        self.log(_ctx.now, "info", "containerd successfully booted in 0.052113s", "");
        // Pulls in flight were lost with the old process; exit timers were lost too — re-arm them.
        self.pulls.clear();
        self.stops.clear();
        self.delayed.clear();
        let running: Vec<String> = self
            .containers
            .values()
            .filter(|c| c.state == ContainerState::Running && c.workload.ends.is_some())
            .map(|c| c.id.clone())
            .collect();
        self.exits.clear();
        for id in running {
            self.arm_exit(_ctx, &id);
        }
        // The answers the network owed the old process are lost: calls made for the kubelet failed with it;
        // a container's process still waits, so its question is asked again.
        self.net_later.clear();
        self.exec_deadlines.clear();
        let waits = std::mem::take(&mut self.net_waits);
        for wait in waits.into_values() {
            let NetWait::Main { cid, rest, call, discard } = wait else { continue };
            let Some(c) = self.containers.get(&cid).filter(|c| c.state == ContainerState::Running) else { continue };
            let sandbox_id = c.sandbox_id.clone();
            let again = NetWait::Main { cid, rest, call: call.clone(), discard };
            self.ask_network(_ctx, &sandbox_id, 0, call, again);
        }
    }

    /// The machine rebooted (it was powered off and on): containerd's metadata is on disk, but every task
    /// died with the machine. As containerd's CRI plugin recovers them, containers that were running (or
    /// created) are exited with exit code 255 (reason `Unknown`, finished now) and sandboxes are not ready;
    /// images stay. Call before the process starts again.
    pub fn reboot(&mut self, now: SimTime) {
        for c in self.containers.values_mut() {
            if c.state != ContainerState::Exited {
                c.state = ContainerState::Exited;
                c.exit_code = 255;
                c.finished_at = Some(now);
                c.lost = true;
            }
        }
        for s in self.sandboxes.values_mut() {
            s.ready = false;
        }
        self.pulls.clear();
        self.exits.clear();
        self.stops.clear();
        self.delayed.clear();
        self.net_waits.clear();
        self.net_later.clear();
        self.exec_deadlines.clear();
    }

    /// The simulated components whose containers run now (what a power-off ends with the machine).
    pub fn running_processes(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .containers
            .values()
            .filter(|c| c.state == ContainerState::Running)
            .filter_map(|c| c.process.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn containers(&self) -> impl Iterator<Item = &Container> {
        self.containers.values()
    }

    pub fn sandboxes(&self) -> impl Iterator<Item = &Sandbox> {
        self.sandboxes.values()
    }

    pub fn images(&self) -> impl Iterator<Item = &Image> {
        self.images.values()
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: ComponentId, payload: Payload) {
        if let Payload::NetAnswer { id, answer } = payload {
            self.network_answered(ctx, id, *answer);
            return;
        }
        let Payload::Cri(m) = payload else { return };
        let CriMessage::Request { id, call } = *m else { return };
        if let Some(result) = self.handle(ctx, from, id, call) {
            ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result })));
        }
    }

    /// Asks the network to run `call` for a process of sandbox `sandbox_id`, `after_ms` from now; `wait` is
    /// what happens with the answer.
    fn ask_network(&mut self, ctx: &mut Ctx, sandbox_id: &str, after_ms: u64, call: NetCall, wait: NetWait) {
        self.next_net += 1;
        let question = self.next_net;
        self.net_waits.insert(question, wait);
        if after_ms == 0 {
            self.connect(ctx, question, sandbox_id, call);
        } else {
            self.next_timer += 1;
            let token = NET_BASE + self.next_timer;
            self.net_later.insert(token, (question, sandbox_id.to_string(), call));
            ctx.timer_in_chain(after_ms, token);
        }
    }

    fn connect(&self, ctx: &mut Ctx, question: u64, sandbox_id: &str, call: NetCall) {
        let sandbox = self.sandboxes.get(sandbox_id);
        let ip = sandbox.map(|s| s.ip.as_str()).unwrap_or("");
        let searches = sandbox.and_then(|s| s.dns.as_ref()).map(|d| d.searches.clone()).unwrap_or_default();
        ctx.connect(question, ip, searches, call);
    }

    /// The network answered question `question`: the call runs again with it, or the main process goes on.
    fn network_answered(&mut self, ctx: &mut Ctx, question: u64, answer: NetAnswer) {
        match self.net_waits.remove(&question) {
            Some(NetWait::Call { from, id, call, mut replay }) => {
                replay.answers.push(answer);
                self.replay = Some(replay);
                let result = self.handle(ctx, from, id, *call);
                self.replay = None;
                if let Some(result) = result {
                    ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result })));
                }
            }
            Some(NetWait::Main { cid, rest, discard, .. }) => self.main_goes_on(ctx, &cid, answer, &rest, discard),
            Some(NetWait::Forward { from, id, sandbox_id, port }) => {
                let reply = self.forwarded(&sandbox_id, port, answer);
                ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result: Ok(reply) })));
            }
            None => {}
        }
    }

    /// The answer to a forwarded stream: what the listener wrote, or the streaming server's error for a
    /// connection that could not be made (containerd dials `localhost` over IPv4, then IPv6, inside the
    /// sandbox's network namespace; the kubelet's streaming library wraps what failed).
    fn forwarded(&self, sandbox_id: &str, port: u16, answer: NetAnswer) -> CriReply {
        let output: String = answer.output.iter().filter(|(e, _)| !e).map(|(_, t)| t.as_str()).collect();
        if answer.exit_code == 0 {
            return CriReply::Forwarded { output, error: None };
        }
        let sandbox = self.sandboxes.get(sandbox_id);
        let netns = match sandbox {
            Some(s) if s.host_network => "host".to_string(),
            _ => netns_path(sandbox_id),
        };
        let error = format!(
            "error forwarding port {port} to pod {sandbox_id}, uid : failed to execute portforward in network namespace \
             {netns:?}: failed to connect to localhost:{port} inside namespace {sandbox_id:?}, IPv4: dial tcp4 \
             127.0.0.1:{port}: connect: connection refused IPv6 dial tcp6 [::1]:{port}: connect: connection refused "
        );
        CriReply::Forwarded { output, error: Some(error) }
    }

    /// A container's main process got the answer of its network program: it writes it, then the rest of
    /// its script runs (or, with none, the process ends with the program's exit code).
    fn main_goes_on(&mut self, ctx: &mut Ctx, cid: &str, answer: NetAnswer, rest: &str, discard: (bool, bool)) {
        let Some(c) = self.containers.get_mut(cid) else { return };
        if c.state != ContainerState::Running {
            return;
        }
        let offset = ctx.now.since(c.started_at.unwrap_or(ctx.now));
        let written: Vec<Planned> = answer
            .output
            .iter()
            .filter(|(stderr, _)| !(if *stderr { discard.1 } else { discard.0 }))
            .flat_map(|(stderr, text)| {
                let stream = if *stderr { Stream::Stderr } else { Stream::Stdout };
                text.lines().map(move |line| Planned {
                    after_ms: 0,
                    stream,
                    text: container_output::Text::Plain(line.into()),
                })
            })
            .collect();
        c.workload.output.append_shifted(Output::new(written, None), offset);
        let rest = after_status(rest, answer.exit_code);
        let next = if rest.trim().is_empty() {
            Workload::new(Some((0, answer.exit_code)), false, Output::default())
        } else {
            run_script(&rest)
        };
        c.workload.output.append_shifted(next.output, offset);
        c.workload.files.extend(next.files.into_iter().map(|(ms, path, exists)| (offset + ms, path, exists)));
        c.workload.ends = next.ends.map(|(ms, code)| (offset + ms, code));
        c.workload.network = next.network.map(|mut step| {
            step.at_ms += offset;
            step
        });
        self.arm_exit(ctx, cid);
        self.arm_network(ctx, cid);
    }

    /// Asks the network for the main process's next network program, when its script reaches one.
    fn arm_network(&mut self, ctx: &mut Ctx, cid: &str) {
        let Some(c) = self.containers.get_mut(cid) else { return };
        let Some(step) = c.workload.network.take() else { return };
        let at = c.started_at.unwrap_or(ctx.now).ms().saturating_add(step.at_ms);
        let sandbox_id = c.sandbox_id.clone();
        let wait =
            NetWait::Main { cid: cid.to_string(), rest: step.rest, call: step.call.clone(), discard: step.discard };
        self.ask_network(ctx, &sandbox_id, at.saturating_sub(ctx.now.ms()), step.call, wait);
    }

    fn handle(&mut self, ctx: &mut Ctx, from: ComponentId, id: u64, call: CriCall) -> Option<Result<CriReply, String>> {
        Some(match call {
            CriCall::Version => Ok(CriReply::Version(super::os::container_runtime_version())),
            CriCall::ImageStatus { image } => Ok(CriReply::Image(self.images.get(&normalize(&image)).cloned())),
            CriCall::PullImage { image } => match pull_error(&image) {
                Some(e) => {
                    let cause = e.split_once(" desc = ").map_or(e.as_str(), |(_, d)| d);
                    let fields = format!("error={}", super::journal::go_quote(cause));
                    self.log(ctx.now, "error", &format!("PullImage {image:?} failed"), &fields);
                    // Resolving the reference fails after a short round trip to the registry.
                    return self.later(ctx, from, id, Err(e), 400);
                }
                None => {
                    self.log(ctx.now, "info", &format!("PullImage {image:?}"), "");
                    let img = image_info(&image);
                    // With every layer already in the store only the manifest is fetched again.
                    let present = self.images.contains_key(&img.name);
                    let ms = if present { repull_ms(&img.name) } else { pull_ms(&img.name) };
                    self.next_timer += 1;
                    let token = PULL_BASE + self.next_timer;
                    self.pulls.insert(token, (from, id, img, ms));
                    ctx.timer_in_chain(ms, token);
                    return None;
                }
            },
            CriCall::RunPodSandbox { uid, name, namespace, host_network, hostname, dns } => {
                let ip = if host_network {
                    self.node_ip.clone()
                } else {
                    match (2u8..=254).find(|n| !self.used_ips.contains(n)) {
                        Some(n) => {
                            self.used_ips.insert(n);
                            format!("{}.{n}", self.cidr_prefix)
                        }
                        None => {
                            return Some(Err(
                                "failed to allocate for range 0: no IP addresses available in range set".into()
                            ))
                        }
                    }
                };
                let sid = hex64(ctx);
                let msg = format!(
                    "RunPodSandbox for &PodSandboxMetadata{{Name:{name},Uid:{uid},Namespace:{namespace},Attempt:0,}} returns sandbox id {sid:?}"
                );
                self.log(ctx.now, "info", &msg, "");
                let sandbox = Sandbox {
                    id: sid.clone(),
                    uid,
                    name,
                    namespace,
                    ip,
                    ready: true,
                    created_at: ctx.now,
                    hostname,
                    host_network,
                    dns,
                };
                self.sandboxes.insert(sid, sandbox.clone());
                Ok(CriReply::Sandbox(sandbox))
            }
            CriCall::CreateContainer { sandbox_id, spec } => {
                let Some(pod_uid) = self.sandboxes.get(&sandbox_id).map(|s| s.uid.clone()) else {
                    return Some(Err(format!("failed to get sandbox {sandbox_id:?}: not found")));
                };
                let image = normalize(&spec.image);
                let Some(img) = self.images.get(&image).cloned() else {
                    return Some(Err(format!("failed to get image {image:?}: not found")));
                };
                let cid = hex64(ctx);
                let workload = workload(&spec);
                let env = spec.env.clone();
                let program = match spec.command.first() {
                    Some(c) => Some(c.rsplit('/').next().unwrap_or(c)),
                    None => entrypoint(&image),
                };
                let process = program.and_then(|p| self.processes.get(p)).cloned();
                let msg = format!(
                    "CreateContainer within sandbox {sandbox_id:?} for &ContainerMetadata{{Name:{},Attempt:{},}} returns container id {cid:?}",
                    spec.name, spec.attempt
                );
                self.log(ctx.now, "info", &msg, "");
                let c = Container {
                    id: cid.clone(),
                    sandbox_id,
                    pod_uid,
                    name: spec.name,
                    image: img.name.clone(),
                    image_ref: img.digest_ref.clone(),
                    attempt: spec.attempt,
                    state: ContainerState::Created,
                    exit_code: 0,
                    created_at: ctx.now,
                    started_at: None,
                    finished_at: None,
                    env,
                    process,
                    oom_killed: false,
                    lost: false,
                    workload,
                    written: Vec::new(),
                };
                self.containers.insert(cid.clone(), c.clone());
                Ok(CriReply::Container(Box::new(c)))
            }
            CriCall::StartContainer { id: cid } => {
                let Some(c) = self.containers.get_mut(&cid) else {
                    return Some(Err(format!("container {cid:?} not found")));
                };
                if c.state != ContainerState::Created {
                    return Some(Err(format!("container {cid:?} is not in created state")));
                }
                c.state = ContainerState::Running;
                c.started_at = Some(ctx.now);
                // A shell on a terminal prompts as soon as it starts (before anyone attaches).
                if let Some(shell) = c.workload.stdin_shell.as_mut().filter(|s| s.tty) {
                    let hostname = self.sandboxes.get(&c.sandbox_id).map(|s| s.hostname.as_str()).unwrap_or("");
                    shell.partial = super::exec::prompt(&c.image, &shell.program, hostname);
                }
                if let Some(early) = c.process.as_ref().and_then(|p| self.early_lines.remove(p)) {
                    // Stamped with the container's start: its log begins there.
                    c.written.extend(early.into_iter().map(|l| LogLine { at: ctx.now, ..l }));
                }
                let c = c.clone();
                if let Some(p) = &c.process {
                    ctx.lifecycle(p, true);
                }
                self.log(ctx.now, "info", &format!("StartContainer for {cid:?} returns successfully"), "");
                self.arm_exit(ctx, &cid);
                self.arm_network(ctx, &cid);
                Ok(CriReply::Container(Box::new(c)))
            }
            CriCall::StopContainer { id: cid, timeout_s } => {
                let Some(c) = self.containers.get(&cid) else { return Some(Ok(CriReply::Done)) };
                if c.state != ContainerState::Running {
                    return Some(Ok(CriReply::Done));
                }
                let handles_sigterm = c.workload.handles_sigterm;
                self.log(ctx.now, "info", &format!("StopContainer for {cid:?} with timeout {timeout_s} (s)"), "");
                let (after, code) =
                    if handles_sigterm { (100, 0) } else { ((timeout_s.max(0) as u64).saturating_mul(1000), 137) };
                if after == 0 {
                    self.finish(ctx, &cid, code, false);
                    return Some(Ok(self
                        .containers
                        .get(&cid)
                        .cloned()
                        .map_or(CriReply::Done, |c| CriReply::Container(Box::new(c)))));
                }
                // StopContainer returns once the process is gone.
                self.next_timer += 1;
                let token = EXIT_BASE + self.next_timer;
                self.exits.insert(token, cid.clone());
                if let Some(c) = self.containers.get_mut(&cid) {
                    c.workload.ends = Some((ctx.now.ms() + after, code));
                    c.workload.oom = false;
                }
                self.stops.insert(token, (from, id));
                ctx.timer_in_chain(after, token);
                return None;
            }
            CriCall::StopPodSandbox { id: sid } => {
                let running: Vec<String> = self
                    .containers
                    .values()
                    .filter(|c| c.sandbox_id == sid && c.state == ContainerState::Running)
                    .map(|c| c.id.clone())
                    .collect();
                for cid in running {
                    self.finish(ctx, &cid, 137, false);
                }
                if let Some(s) = self.sandboxes.get_mut(&sid) {
                    s.ready = false;
                }
                self.log(ctx.now, "info", &format!("StopPodSandbox for {sid:?} returns successfully"), "");
                Ok(CriReply::Done)
            }
            CriCall::RemovePodSandbox { id: sid } => {
                if self.sandboxes.contains_key(&sid) {
                    self.log(ctx.now, "info", &format!("RemovePodSandbox {sid:?} returns successfully"), "");
                }
                if let Some(s) = self.sandboxes.remove(&sid) {
                    if let Some(n) = s.ip.strip_prefix(&format!("{}.", self.cidr_prefix)) {
                        if let Ok(n) = n.parse::<u8>() {
                            self.used_ips.remove(&n);
                        }
                    }
                }
                self.containers.retain(|_, c| c.sandbox_id != sid);
                Ok(CriReply::Done)
            }
            CriCall::ListPodSandbox => Ok(CriReply::Sandboxes(self.sandboxes.values().cloned().collect())),
            CriCall::ListContainers => Ok(CriReply::Containers(self.containers.values().cloned().collect())),
            CriCall::ListImages => Ok(CriReply::Images(self.images.values().cloned().collect())),
            CriCall::ContainerStatus { id: cid } => match self.containers.get(&cid) {
                Some(c) => Ok(CriReply::Container(Box::new(c.clone()))),
                None => Err(not_found(&cid)),
            },
            CriCall::Attach { id: cid, stdin, close_stdin } => {
                return self.attach(ctx, from, id, &cid, stdin, close_stdin)
            }
            CriCall::PortForward { sandbox_id, port, data } => {
                let Some(sandbox) = self.sandboxes.get(&sandbox_id) else {
                    return Some(Err(format!(
                        "rpc error: code = Unknown desc = failed to find sandbox {sandbox_id:?}: not found"
                    )));
                };
                if !sandbox.ready {
                    return Some(Err("rpc error: code = Unknown desc = sandbox container is not running".into()));
                }
                let Some(port) = port else {
                    return Some(Ok(CriReply::Forwarded { output: String::new(), error: None }));
                };
                let wait = NetWait::Forward { from, id, sandbox_id: sandbox_id.clone(), port };
                self.ask_network(ctx, &sandbox_id, 0, NetCall::Forward { port, data }, wait);
                return None;
            }
            CriCall::ExecSync { id: cid, cmd, stdin, tty, timeout_ms } => {
                let Some(c) = self.containers.get(&cid) else { return Some(Err(not_found(&cid))) };
                let sandbox = self.sandboxes.get(&c.sandbox_id);
                let replay = match self.replay.take() {
                    Some(r) => r,
                    None => Replay { answers: Vec::new(), started: ctx.now, exec_id: hex64(ctx) },
                };
                let run = super::exec::ExecRun {
                    container: c,
                    sandbox,
                    cmd: &cmd,
                    stdin: stdin.as_deref(),
                    tty,
                    now: replay.started,
                    net: &replay.answers,
                };
                let done = super::exec::exec_sync(&run, &replay.exec_id);
                let spent = ctx.now.since(replay.started);
                match done {
                    Ok(done) => {
                        if let Some((at_ms, net)) = done.needs {
                            if timeout_ms > 0 && at_ms >= timeout_ms {
                                let left = timeout_ms.saturating_sub(spent);
                                return self.later(ctx, from, id, Err(exec_timeout_error(timeout_ms)), left);
                            }
                            let sandbox_id = c.sandbox_id.clone();
                            if timeout_ms > 0 && replay.answers.is_empty() {
                                // The command's deadline runs while it waits for the network.
                                self.next_timer += 1;
                                let token = DEADLINE_BASE + self.next_timer;
                                self.exec_deadlines.insert(token, (from, id, timeout_ms));
                                ctx.timer_in_chain(timeout_ms.saturating_sub(spent), token);
                            }
                            let call = Box::new(CriCall::ExecSync { id: cid, cmd, stdin, tty, timeout_ms });
                            let wait = NetWait::Call { from, id, call, replay };
                            self.ask_network(ctx, &sandbox_id, at_ms.saturating_sub(spent), net, wait);
                            return None;
                        }
                        if timeout_ms > 0 && done.after_ms > timeout_ms {
                            let left = timeout_ms.saturating_sub(spent);
                            return self.later(ctx, from, id, Err(exec_timeout_error(timeout_ms)), left);
                        }
                        let reply = CriReply::Exec { output: done.output, exit_code: done.exit_code };
                        match done.after_ms.saturating_sub(spent) {
                            0 => Ok(reply),
                            left => return self.later(ctx, from, id, Ok(reply), left),
                        }
                    }
                    Err(e) => Err(e),
                }
            }
        })
    }

    /// CRI `Attach`: the client's input goes to the main process (a shell on an open stdin runs it); what
    /// the process wrote meanwhile is logged and answered. An input that ends the shell ends the container.
    fn attach(
        &mut self,
        ctx: &mut Ctx,
        from: ComponentId,
        id: u64,
        cid: &str,
        stdin: Option<String>,
        close_stdin: bool,
    ) -> Option<Result<CriReply, String>> {
        let Some(c) = self.containers.get(cid) else { return Some(Err(not_found(cid))) };
        if c.state != ContainerState::Running {
            let state = if c.state == ContainerState::Created { "CONTAINER_CREATED" } else { "CONTAINER_EXITED" };
            return Some(Err(format!("container is in {state} state")));
        }
        let reads_stdin = c.workload.stdin_shell.is_some();
        let (Some(text), Some(shell)) = (stdin, c.workload.stdin_shell.as_deref()) else {
            return Some(Ok(CriReply::Attached { output: Vec::new(), running: true, reads_stdin }));
        };
        let replay = match self.replay.take() {
            Some(r) => r,
            None => Replay { answers: Vec::new(), started: ctx.now, exec_id: hex64(ctx) },
        };
        let input = super::attach::Input {
            container: c,
            sandbox: self.sandboxes.get(&c.sandbox_id),
            shell: &shell.program,
            stdin: &text,
            eof: close_stdin && shell.once,
            tty: shell.tty,
            last_code: shell.last_code,
            now: ctx.now,
            exec_id: &replay.exec_id,
            net: &replay.answers,
        };
        let fed = super::attach::feed(&input);
        if let Some(net) = fed.needs {
            let sandbox_id = c.sandbox_id.clone();
            let call = Box::new(CriCall::Attach { id: cid.to_string(), stdin: Some(text), close_stdin });
            self.ask_network(ctx, &sandbox_id, 0, net, NetWait::Call { from, id, call, replay });
            return None;
        }
        if let Some(c) = self.containers.get_mut(cid) {
            if let Some(shell) = c.workload.stdin_shell.as_mut() {
                shell.last_code = fed.last_code;
            }
            c.log_output(&fed.output, ctx.now);
        }
        if let Some(code) = fed.exit {
            self.finish(ctx, cid, code, true);
        }
        Some(Ok(CriReply::Attached { output: fed.output, running: fed.exit.is_none(), reads_stdin: true }))
    }

    fn later(
        &mut self,
        ctx: &mut Ctx,
        from: ComponentId,
        id: u64,
        result: Result<CriReply, String>,
        ms: u64,
    ) -> Option<Result<CriReply, String>> {
        self.next_timer += 1;
        let token = PULL_BASE + self.next_timer;
        self.delayed.insert(token, (from, id, result));
        ctx.timer_in_chain(ms, token);
        None
    }

    fn arm_exit(&mut self, ctx: &mut Ctx, cid: &str) {
        let Some(c) = self.containers.get(cid) else { return };
        let Some((ms, _)) = c.workload.ends else { return };
        let started = c.started_at.unwrap_or(ctx.now).ms();
        let at = started.saturating_add(ms).max(ctx.now.ms());
        self.next_timer += 1;
        let token = EXIT_BASE + self.next_timer;
        self.exits.insert(token, cid.to_string());
        ctx.timer(at - ctx.now.ms(), token);
    }

    fn finish(&mut self, ctx: &mut Ctx, cid: &str, code: i32, notify: bool) {
        let Some(c) = self.containers.get_mut(cid) else { return };
        if c.state != ContainerState::Running {
            return;
        }
        c.state = ContainerState::Exited;
        c.exit_code = code;
        c.finished_at = Some(ctx.now);
        c.oom_killed = c.workload.oom && code == 137;
        let container = c.clone();
        if let Some(p) = &container.process {
            ctx.lifecycle(p, false);
        }
        let at = ctx.now.ms() + crate::sim::time::EPOCH_MS;
        let msg = format!(
            "received exit event container_id:{cid:?} id:{cid:?} pid:{} exit_status:{code} exited_at:{{seconds:{} nanos:{}}}",
            container.pid(),
            at / 1000,
            (at % 1000) * 1_000_000
        );
        self.log(ctx.now, "info", &msg, "");
        if notify {
            ctx.send(self.kubelet, Payload::Cri(Box::new(CriMessage::Exited { container })));
        }
    }

    /// The simulated component `process` died (a crash) with `code`: its running container exits, and the
    /// kubelet hears of it when containerd itself is `running` (else when it lists containers again).
    /// False when no running container runs that process.
    pub fn process_died(&mut self, ctx: &mut Ctx, process: &str, code: i32, running: bool) -> bool {
        let Some(cid) = self.running_with(process).next().map(|c| c.id.clone()) else {
            return false;
        };
        if let Some(c) = self.containers.get_mut(&cid) {
            c.workload.oom = false;
        }
        // Exit timers and stops of the dead process no longer apply.
        let tokens: Vec<u64> = self.exits.iter().filter(|(_, c)| **c == cid).map(|(t, _)| *t).collect();
        for t in tokens {
            self.exits.remove(&t);
            if let Some((from, id)) = self.stops.remove(&t) {
                ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result: Ok(CriReply::Done) })));
            }
        }
        self.finish(ctx, &cid, code, running);
        true
    }

    /// The simulated component `process` wrote `text` to its standard error at `now`: the running container
    /// that runs it logs the line (a process outside any container writes to nobody's log).
    pub fn process_wrote(&mut self, process: &str, text: String, now: SimTime) {
        if let Some(c) = self
            .containers
            .values_mut()
            .find(|c| c.state == ContainerState::Running && c.process.as_deref() == Some(process))
        {
            c.written.push(LogLine { at: now, stream: Stream::Stderr, text });
        } else if self.processes.values().any(|p| p == process) {
            let early = self.early_lines.entry(process.to_string()).or_default();
            if early.len() < EARLY_LINES_MAX {
                early.push(LogLine { at: now, stream: Stream::Stderr, text });
            }
        }
    }

    /// The running containers that run `process`.
    fn running_with<'a>(&'a self, process: &'a str) -> impl Iterator<Item = &'a Container> + 'a {
        self.containers
            .values()
            .filter(move |c| c.state == ContainerState::Running && c.process.as_deref() == Some(process))
    }

    /// How many running containers run `process`.
    pub fn containers_running(&self, process: &str) -> usize {
        self.running_with(process).count()
    }

    /// Whether a running container runs `process`.
    pub fn runs_process(&self, process: &str) -> bool {
        self.running_with(process).next().is_some()
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if let Some((question, sandbox_id, call)) = self.net_later.remove(&token) {
            // A process that ended meanwhile asks nothing.
            let gone = match self.net_waits.get(&question) {
                Some(NetWait::Main { cid, .. }) => {
                    !self.containers.get(cid).is_some_and(|c| c.state == ContainerState::Running)
                }
                Some(NetWait::Call { .. } | NetWait::Forward { .. }) => false,
                None => true,
            };
            if gone {
                self.net_waits.remove(&question);
            } else {
                self.connect(ctx, question, &sandbox_id, call);
            }
            return;
        }
        if let Some((from, id, timeout_ms)) = self.exec_deadlines.remove(&token) {
            let waiting = self
                .net_waits
                .iter()
                .find(|(_, w)| matches!(w, NetWait::Call { from: f, id: i, .. } if *f == from && *i == id))
                .map(|(q, _)| *q);
            if let Some(question) = waiting {
                // Its answer, when it comes, finds nobody waiting.
                self.net_waits.remove(&question);
                let reply = Err(exec_timeout_error(timeout_ms));
                ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result: reply })));
            }
            return;
        }
        if let Some((from, id, img, ms)) = self.pulls.remove(&token) {
            let msg = format!("PullImage {:?} returns image reference {:?}", img.name, img.id);
            self.log(ctx.now, "info", &msg, "");
            self.images.insert(img.name.clone(), img.clone());
            ctx.send(
                from,
                Payload::Cri(Box::new(CriMessage::Reply {
                    id,
                    result: Ok(CriReply::Pulled { image: img, pull_ms: ms }),
                })),
            );
            return;
        }
        if let Some((from, id, result)) = self.delayed.remove(&token) {
            ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result })));
            return;
        }
        if let Some(cid) = self.exits.remove(&token) {
            let Some(c) = self.containers.get(&cid) else { return };
            let code = c.workload.ends.map(|(_, code)| code).unwrap_or(0);
            let stopping = self.stops.remove(&token);
            self.finish(ctx, &cid, code, stopping.is_none());
            if stopping.is_some() {
                self.log(ctx.now, "info", &format!("StopContainer for {cid:?} returns successfully"), "");
            }
            if let Some((from, id)) = stopping {
                let reply =
                    self.containers.get(&cid).cloned().map_or(CriReply::Done, |c| CriReply::Container(Box::new(c)));
                ctx.send(from, Payload::Cri(Box::new(CriMessage::Reply { id, result: Ok(reply) })));
            }
        }
    }
}

/// containerd's answer for a container id it does not know.
fn not_found(cid: &str) -> String {
    format!("rpc error: code = NotFound desc = an error occurred when try to find container {cid:?}: not found")
}

/// The network namespace CNI made for a sandbox (`/var/run/netns/cni-<uuid>`), named from its id here.
pub fn netns_path(sandbox_id: &str) -> String {
    let h = |s: &str| crate::sim::rng::fnv1a64(s.as_bytes());
    let hex = format!("{:016x}{:016x}", h(sandbox_id), h(&format!("netns/{sandbox_id}")));
    format!("/var/run/netns/cni-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// A 64-hex id (containerd's container and sandbox ids; crictl shows the first 13).
fn hex64(ctx: &mut Ctx) -> String {
    (0..4).map(|_| format!("{:016x}", ctx.rng.next_u64())).collect()
}

fn hex_of(seed: &str) -> String {
    (0..4u8).map(|i| format!("{:016x}", fnv1a64(format!("{seed}#{i}").as_bytes()))).collect()
}

/// The fully qualified reference containerd stores: `nginx` → `docker.io/library/nginx:latest`.
pub fn normalize(image: &str) -> String {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    let tagged = if last.contains(':') || digest.is_some() { name.to_string() } else { format!("{name}:latest") };
    let first = tagged.split('/').next().unwrap_or("");
    let has_host = tagged.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let full = if has_host {
        tagged
    } else if tagged.contains('/') {
        format!("docker.io/{tagged}")
    } else {
        format!("docker.io/library/{tagged}")
    };
    match digest {
        Some(d) => format!("{full}@{d}"),
        None => full,
    }
}

pub fn repository(full: &str) -> &str {
    let no_digest = full.split('@').next().unwrap_or(full);
    match no_digest.rfind(':') {
        Some(i) if !no_digest[i..].contains('/') => &no_digest[..i],
        _ => no_digest,
    }
}

/// Size and digest derived from the name: the same image is the same everywhere.
pub fn image_info(image: &str) -> Image {
    let name = normalize(image);
    let h = fnv1a64(name.as_bytes());
    let size = 5_000_000 + h % 195_000_000;
    Image {
        digest_ref: format!("{}@sha256:{}", repository(&name), hex_of(&name)),
        id: format!("sha256:{}", hex_of(&format!("config:{name}"))),
        name,
        size,
    }
}

/// The program an image runs when the container names no command (its `ENTRYPOINT`), for the images whose
/// programs are simulated components.
fn entrypoint(image: &str) -> Option<&'static str> {
    let repository = image.rsplit_once(':').map_or(image, |(r, _)| r);
    match repository {
        "registry.k8s.io/coredns/coredns" => Some("coredns"),
        "registry.k8s.io/metrics-server/metrics-server" => Some("metrics-server"),
        _ => None,
    }
}

/// How long pulling takes: 1–3 s, fixed per image name.
pub fn pull_ms(name: &str) -> u64 {
    1_000 + fnv1a64(format!("pull:{name}").as_bytes()) % 2_001
}

/// How long pulling an image whose layers are all present takes (`imagePullPolicy: Always` on a node that
/// has it): a manifest round trip to the registry, 200–600 ms, fixed per image name.
pub fn repull_ms(name: &str) -> u64 {
    200 + fnv1a64(format!("repull:{name}").as_bytes()) % 401
}

const REGISTRIES: &[&str] = &[
    "docker.io",
    "registry.k8s.io",
    "quay.io",
    "ghcr.io",
    "gcr.io",
    "mcr.microsoft.com",
    "public.ecr.aws",
    "k8s.gcr.io",
];

const LIBRARY: &[&str] = &[
    "nginx",
    "httpd",
    "redis",
    "busybox",
    "alpine",
    "ubuntu",
    "debian",
    "centos",
    "postgres",
    "mysql",
    "mariadb",
    "memcached",
    "mongo",
    "rabbitmq",
    "python",
    "node",
    "golang",
    "traefik",
    "haproxy",
    "caddy",
    "wordpress",
    "tomcat",
    "openjdk",
    "eclipse-temurin",
    "php",
    "ruby",
    "perl",
    "elasticsearch",
    "kibana",
    "consul",
    "vault",
    "registry",
    "hello-world",
    "curlimages",
    "nats",
    "influxdb",
    "grafana",
    "fedora",
    "amazonlinux",
    "bash",
];

/// containerd's error for an image that cannot be pulled, or None.
pub fn pull_error(image: &str) -> Option<String> {
    let full = normalize(image);
    let host = full.split('/').next().unwrap_or("");
    let repo = repository(&full);
    let tag = full.strip_prefix(repo).unwrap_or("").trim_start_matches(':');
    if !REGISTRIES.contains(&host) {
        let path = repo.strip_prefix(host).unwrap_or(repo).trim_start_matches('/');
        return Some(format!(
            "rpc error: code = Unknown desc = failed to pull and unpack image {full:?}: failed to resolve reference \
             {full:?}: failed to do request: Head \"https://{host}/v2/{path}/manifests/{tag}\": dial tcp: lookup {host} \
             on 127.0.0.53:53: no such host"
        ));
    }
    if let Some(name) = repo.strip_prefix("docker.io/library/") {
        if !LIBRARY.contains(&name) {
            return Some(format!(
                "rpc error: code = Unknown desc = failed to pull and unpack image {full:?}: failed to resolve reference \
                 {full:?}: pull access denied, repository does not exist or may require authorization: server message: \
                 insufficient_scope: authorization failed"
            ));
        }
    }
    if tag == "doesnotexist" || tag.contains("doesnotexist") {
        return Some(format!(
            "rpc error: code = NotFound desc = failed to pull and unpack image {full:?}: failed to resolve reference \
             {full:?}: {full}: not found"
        ));
    }
    None
}

/// What a container does, from its command, args, image and the pod's kubeglass annotations.
pub fn workload(spec: &ContainerSpec) -> Workload {
    let annotation =
        |k: &str| spec.annotations.get(&format!("kubeglass.dev/{k}")).and_then(|v| v.trim().parse::<i64>().ok());
    let argv: Vec<String> = spec.command.iter().chain(&spec.args).cloned().collect();
    let shell = if spec.stdin { interactive_shell(&argv, &spec.image) } else { None };
    let mut w = if let Some(shell) = shell {
        let mut w = Workload::new(None, false, Output::default());
        w.stdin_shell = Some(Box::new(StdinShell {
            program: shell,
            once: spec.stdin_once,
            tty: spec.tty,
            last_code: 0,
            partial: String::new(),
        }));
        w
    } else if argv.is_empty() {
        let full = normalize(&spec.image);
        let repo = repository(&full).to_string();
        let base = repo.rsplit('/').next().unwrap_or("");
        if ["busybox", "alpine", "ubuntu", "debian", "centos", "fedora", "bash"].contains(&base) {
            Workload::new(Some((0, 0)), false, Output::default())
        } else {
            let tag = full.strip_prefix(repo.as_str()).unwrap_or("").trim_start_matches(':');
            let output = container_output::image_output(&repo, tag).unwrap_or_default();
            Workload::new(None, true, output)
        }
    } else {
        run_argv(&argv)
    };
    if let Some(secs) = annotation("exit-after-seconds") {
        let code = annotation("exit-code").unwrap_or(1) as i32;
        w.ends = Some(((secs.max(0) as u64).saturating_mul(1000), code));
    }
    if let Some(text) = spec.annotations.get(container_output::LOGS_ANNOTATION) {
        w.output.prepend(container_output::annotation_lines(text));
    }
    if let Some(q) =
        spec.annotations.get(MEMORY_ANNOTATION).and_then(|v| crate::api::quantity::Quantity::parse(v.trim()))
    {
        w.memory = Some(q.value().clamp(0, u64::MAX as i128) as u64);
    }
    let over_limit = matches!((w.memory, spec.memory_limit), (Some(used), Some(limit)) if used > limit);
    if over_limit && w.ends.is_none_or(|(ms, _)| ms > MEMORY_RAMP_MS) {
        w.ends = Some((MEMORY_RAMP_MS, 137));
        w.oom = true;
    }
    w
}

/// The shell a container runs on its open stdin: its command's shell when it is given no script (`sh`,
/// `bash -l`), or without a command the shell that is the image's default command (busybox's `sh`, the
/// Debian family's `bash`).
fn interactive_shell(argv: &[String], image: &str) -> Option<String> {
    match argv.first() {
        Some(first) => {
            let prog = first.rsplit('/').next().unwrap_or("");
            let shell = ["sh", "bash", "ash", "dash"].contains(&prog) && !argv.iter().any(|a| a == "-c");
            shell.then(|| prog.to_string())
        }
        None => {
            let full = normalize(image);
            let base = repository(&full).rsplit('/').next().unwrap_or("").to_string();
            match base.as_str() {
                "busybox" | "alpine" => Some("sh".into()),
                "ubuntu" | "debian" | "centos" | "fedora" | "bash" => Some("bash".into()),
                _ => None,
            }
        }
    }
}

/// The pod annotation that sets every container's memory use.
pub const MEMORY_ANNOTATION: &str = "kubeglass.dev/memory";

fn run_argv(argv: &[String]) -> Workload {
    let prog = argv[0].rsplit('/').next().unwrap_or("");
    if ["sh", "bash", "ash", "dash"].contains(&prog) {
        if let Some(i) = argv.iter().position(|a| a == "-c") {
            let script = argv.get(i + 1).cloned().unwrap_or_default();
            return run_script(&script);
        }
        return Workload::new(Some((0, 0)), false, Output::default());
    }
    if prog == "stress" {
        let mut w = Workload::new(None, true, Output::default());
        w.memory = Some(stress_memory(&argv[1..]));
        return w;
    }
    let scripted = ["sleep", "true", "false", "echo", "exit", "date", "env", "printenv", "cat", "ls", "wget", "curl"];
    if !scripted.contains(&prog) {
        // A server binary (etcd, kube-apiserver, nginx, python app.py, …): runs until stopped.
        return Workload::new(None, true, Output::default());
    }
    run_script(&argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" "))
}

/// What `stress --vm N --vm-bytes B` allocates: N workers of B bytes each (stress's suffixes b, k, m, g
/// are powers of 1024).
fn stress_memory(args: &[String]) -> u64 {
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1));
    let workers = value("--vm").and_then(|v| v.parse::<u64>().ok()).unwrap_or(1);
    let bytes = value("--vm-bytes").map_or(256 << 20, |v| {
        let v = v.trim();
        let (digits, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
        let n = digits.parse::<u64>().unwrap_or(0);
        let shift = match unit.to_ascii_lowercase().as_str() {
            "k" => 10,
            "m" => 20,
            "g" => 30,
            _ => 0,
        };
        n.saturating_mul(1 << shift)
    });
    workers.saturating_mul(bytes)
}

fn shell_quote(a: &str) -> String {
    if a.contains(' ') {
        format!("'{a}'")
    } else {
        a.to_string()
    }
}

/// Walks a shell script's statements; `while true; do …; done` repeats its body's output forever.
fn run_script(script: &str) -> Workload {
    let mut ms: u64 = 0;
    let mut once = Vec::new();
    let mut files = Vec::new();
    let parsed = statements(script);
    let statements: Vec<&str> = parsed.iter().map(|(_, s)| *s).collect();
    let mut i = 0;
    let with_files = |mut w: Workload, files: Vec<(u64, String, bool)>| {
        w.files = files;
        w
    };
    while i < statements.len() {
        let words: Vec<&str> = statements[i].split_whitespace().collect();
        i += 1;
        if words.first() == Some(&"while") {
            let mut body = Vec::new();
            while i < statements.len() && statements[i].split_whitespace().next() != Some("done") {
                let t = statements[i].trim();
                body.push(t.strip_prefix("do ").unwrap_or(if t == "do" { "" } else { t }));
                i += 1;
            }
            let mut pass_ms = 0;
            let mut lines = Vec::new();
            let mut ignored = Vec::new();
            for stmt in body {
                let words: Vec<&str> = stmt.split_whitespace().collect();
                if let Step::End(_) = step(&words, &mut pass_ms, &mut lines, &mut ignored) {
                    break;
                }
            }
            let w = forever(Output::new(once, Some(Repeat { from_ms: ms, period_ms: pass_ms, lines })));
            return with_files(w, files);
        }
        match step(&words, &mut ms, &mut once, &mut files) {
            Step::Next => {}
            Step::End(code) => {
                return with_files(Workload::new(Some((ms, code)), false, Output::new(once, None)), files);
            }
            Step::Forever => return with_files(forever(Output::new(once, None)), files),
            Step::Network(call, discard) => {
                let rest: String = parsed[i..].iter().map(|(c, s)| format!("{c}{s}")).collect();
                let mut w = with_files(forever(Output::new(once, None)), files);
                w.network = Some(Box::new(NetStep { at_ms: ms, call, rest, discard }));
                return w;
            }
        }
    }
    with_files(Workload::new(Some((ms, 0)), false, Output::new(once, None)), files)
}

/// A script's statements, each after the connector that joins it to the one before (`;` for newlines and
/// the first). As crude as the walker: quotes do not protect a connector.
fn statements(script: &str) -> Vec<(&'static str, &str)> {
    let mut out = Vec::new();
    let (mut connector, mut start, mut i) = (";", 0, 0);
    let bytes = script.as_bytes();
    while i < bytes.len() {
        let two = script.get(i..i + 2);
        let (next, width) = match (bytes[i], two) {
            (_, Some("&&")) => ("&&", 2),
            (_, Some("||")) => ("||", 2),
            (b';' | b'\n', _) => (";", 1),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push((connector, &script[start..i]));
        (connector, start, i) = (next, i + width, i + width);
    }
    out.push((connector, &script[start..]));
    out
}

/// What of `rest` runs after a command that ended with `code`: statements joined by `&&` after a failure,
/// or by `||` after a success, are skipped; the first that runs sees `code` as `$?`.
fn after_status(rest: &str, code: i32) -> String {
    let parsed = statements(rest);
    let Some(first) = parsed.iter().position(|(c, s)| {
        let runs = match *c {
            "&&" => code == 0,
            "||" => code != 0,
            _ => true,
        };
        runs && !s.trim().is_empty()
    }) else {
        return String::new();
    };
    let mut out = parsed[first].1.replace("$?", &code.to_string());
    for (c, s) in &parsed[first + 1..] {
        out.push_str(c);
        out.push_str(s);
    }
    out
}

/// What one statement of a script does to the process.
enum Step {
    Next,
    End(i32),
    Forever,
    /// It runs a network program: what follows waits for the network's answer. The streams its
    /// redirections discard (stdout, stderr).
    Network(NetCall, (bool, bool)),
}

fn step(words: &[&str], ms: &mut u64, lines: &mut Vec<Planned>, files: &mut Vec<(u64, String, bool)>) -> Step {
    let Some(first) = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)) else { return Step::Next };
    match first {
        "sleep" => match words.get(1).map(|w| w.trim_end_matches('s')) {
            Some("infinity") => return Step::Forever,
            Some(n) => *ms = ms.saturating_add(n.parse::<f64>().map(|f| (f.max(0.0) * 1000.0) as u64).unwrap_or(0)),
            None => {}
        },
        "exit" => return Step::End(words.get(1).and_then(|c| c.parse::<i32>().ok()).unwrap_or(0)),
        "false" => return Step::End(1),
        "echo" => lines.push(Planned::stdout(*ms, words[1..].join(" ").trim_matches(['"', '\'']))),
        "date" => lines.push(Planned {
            after_ms: *ms,
            stream: container_output::Stream::Stdout,
            text: container_output::Text::Date,
        }),
        "touch" | "rm" => {
            let exists = first == "touch";
            for path in words[1..].iter().filter(|w| !w.starts_with('-')) {
                files.push((*ms, path.trim_matches(['"', '\'']).to_string(), exists));
            }
        }
        "tail" | "nginx" | "httpd" | "redis-server" => return Step::Forever,
        program if is_network_program(program) => {
            let (mut argv, mut discard) = (Vec::new(), (false, false));
            let mut k = 0;
            while k < words.len() {
                let (w, next) = (words[k], words.get(k + 1).copied());
                k += 1;
                match (w, next) {
                    ("2>&1", _) => discard.1 = discard.0,
                    (">/dev/null" | "1>/dev/null", _) => discard.0 = true,
                    ("2>/dev/null", _) => discard.1 = true,
                    ("&>/dev/null", _) => discard = (true, true),
                    (">" | "1>" | ">>", Some(target)) => {
                        discard.0 = target == "/dev/null";
                        k += 1;
                    }
                    ("2>" | "2>>", Some(target)) => {
                        discard.1 = target == "/dev/null";
                        k += 1;
                    }
                    _ => argv.push(w.trim_matches(['"', '\'']).to_string()),
                }
            }
            return Step::Network(NetCall::Program(argv), discard);
        }
        _ => {}
    }
    Step::Next
}

fn forever(output: Output) -> Workload {
    Workload::new(None, false, output)
}

/// A running container of `image` with `env`, for tests of what runs in containers.
/// containerd's answer to an ExecSync whose command outlived its timeout (CRI `execInternal`).
pub fn exec_timeout_error(timeout_ms: u64) -> String {
    let t = if timeout_ms.is_multiple_of(1000) { format!("{}s", timeout_ms / 1000) } else { format!("{timeout_ms}ms") };
    format!(
        "rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout {t} exceeded: context deadline exceeded"
    )
}

#[cfg(test)]
pub(crate) fn test_container(image: &str, env: Env) -> Container {
    Container {
        id: "c".repeat(64),
        sandbox_id: "s".repeat(64),
        pod_uid: "uid".into(),
        name: "c".into(),
        image: normalize(image),
        image_ref: String::new(),
        attempt: 0,
        state: ContainerState::Running,
        exit_code: 0,
        created_at: SimTime::ZERO,
        started_at: Some(SimTime::ZERO),
        finished_at: None,
        env,
        process: None,
        oom_killed: false,
        lost: false,
        workload: Workload::new(None, true, Output::default()),
        written: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(image: &str, command: &[&str], args: &[&str]) -> ContainerSpec {
        ContainerSpec {
            name: "c".into(),
            image: image.into(),
            command: command.iter().map(|s| s.to_string()).collect(),
            args: args.iter().map(|s| s.to_string()).collect(),
            ..ContainerSpec::default()
        }
    }

    #[test]
    fn short_image_names_are_normalized_the_way_containerd_stores_them() {
        assert_eq!(normalize("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(normalize("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(normalize("bitnami/redis:7"), "docker.io/bitnami/redis:7");
        assert_eq!(normalize("registry.k8s.io/pause:3.10"), "registry.k8s.io/pause:3.10");
        assert_eq!(normalize("localhost:5000/app"), "localhost:5000/app:latest");
    }

    #[test]
    fn pull_time_and_size_are_the_same_for_the_same_image() {
        assert_eq!(pull_ms("docker.io/library/nginx:1.27"), pull_ms("docker.io/library/nginx:1.27"));
        assert!((1_000..=3_000).contains(&pull_ms("docker.io/library/nginx:1.27")));
        assert_eq!(image_info("nginx:1.27"), image_info("docker.io/library/nginx:1.27"));
    }

    #[test]
    fn a_missing_tag_fails_with_containerds_not_found_text() {
        let e = pull_error("nginx:doesnotexist").unwrap_or_default();
        assert!(e.starts_with("rpc error: code = NotFound desc = failed to pull and unpack image"), "{e}");
        assert!(e.ends_with("docker.io/library/nginx:doesnotexist: not found"), "{e}");
        assert!(pull_error("nginx:1.27").is_none());
        assert!(pull_error("example.invalid/app:1").unwrap_or_default().contains("no such host"));
    }

    #[test]
    fn absurd_durations_and_empty_commands_do_not_panic() {
        let w = workload(&spec("busybox", &["sleep", "99999999999999999999"], &["&&", "sleep", "1e300"]));
        assert!(w.ends.is_some());
        assert_eq!(workload(&spec("busybox", &["sh", "-c", ""], &[])).ends, Some((0, 0)));
        assert_eq!(workload(&spec("busybox", &["echo"], &[])).ends, Some((0, 0)));
        assert!(pull_error("").is_some(), "an empty image name cannot be resolved");
        assert_eq!(normalize(""), "docker.io/library/:latest");
    }

    #[test]
    fn a_script_touches_and_removes_files_at_the_time_its_sleeps_add_up_to() {
        let script = "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600";
        let w = workload(&spec("busybox", &["/bin/sh", "-c", script], &[]));
        assert_eq!(w.files, [(0, "/tmp/healthy".to_string(), true), (30_000, "/tmp/healthy".to_string(), false)]);
        let mut c = test_container("busybox", Env::default());
        c.workload = w;
        let at = |s: u64| SimTime::ZERO.plus_ms(s * 1000);
        assert_eq!(c.file_exists("/tmp/healthy", at(5)), Some(true));
        assert_eq!(c.file_exists("/tmp/healthy", at(29)), Some(true));
        assert_eq!(c.file_exists("/tmp/healthy", at(30)), Some(false));
        assert_eq!(c.file_exists("/tmp/other", at(5)), None);
    }

    #[test]
    fn memory_above_the_limit_ends_the_container_as_oom_killed_after_a_second() {
        let mut s = spec("polinux/stress", &["stress"], &["--vm", "1", "--vm-bytes", "250M", "--vm-hang", "1"]);
        assert_eq!(workload(&s).memory, Some(250 << 20));
        assert_eq!(workload(&s).ends, None, "without a limit it runs");
        s.memory_limit = Some(100 << 20);
        let w = workload(&s);
        assert_eq!((w.ends, w.oom), (Some((MEMORY_RAMP_MS, 137)), true));
        s.memory_limit = Some(300 << 20);
        assert_eq!(workload(&s).ends, None);
        let mut annotated = spec("nginx:1.27", &[], &[]);
        annotated.annotations.insert(MEMORY_ANNOTATION.into(), "300Mi".into());
        annotated.memory_limit = Some(256 << 20);
        assert!(workload(&annotated).oom);
        assert_eq!(workload(&spec("busybox", &["stress"], &["--vm-bytes", "1g", "--vm", "2"])).memory, Some(2 << 30));
    }

    #[test]
    fn commands_decide_how_a_container_ends() {
        assert_eq!(workload(&spec("busybox", &["sleep", "5"], &[])).ends, Some((5_000, 0)));
        assert_eq!(workload(&spec("busybox", &["sh", "-c", "echo hi; exit 1"], &[])).ends, Some((0, 1)));
        assert_eq!(workload(&spec("busybox", &["sh", "-c"], &["sleep 2 && exit 3"])).ends, Some((2_000, 3)));
        assert_eq!(workload(&spec("busybox", &["sleep", "infinity"], &[])).ends, None);
        assert_eq!(workload(&spec("nginx:1.27", &[], &[])).ends, None);
        assert_eq!(workload(&spec("busybox", &[], &[])).ends, Some((0, 0)));
        assert_eq!(workload(&spec("registry.k8s.io/etcd:3.6.4-0", &["etcd", "--data-dir=/x"], &[])).ends, None);
        assert_eq!(
            workload(&spec("busybox", &["sh", "-c", "echo hi; sleep 1"], &[])).output.once.as_slice(),
            [Planned::stdout(0, "hi")]
        );
        let looping = workload(&spec("busybox", &["sh", "-c", "echo start; while true; do date; sleep 5; done"], &[]));
        assert_eq!(looping.ends, None);
        assert_eq!(looping.output.repeat.as_ref().map(|r| (r.period_ms, r.lines.len())), Some((5_000, 1)));
        let mut crashing = spec("nginx:1.27", &[], &[]);
        crashing.annotations.insert("kubeglass.dev/exit-after-seconds".into(), "30".into());
        assert_eq!(workload(&crashing).ends, Some((30_000, 1)));
    }
}
