//! `kubectl attach (POD | TYPE/NAME | TYPE NAME) [-c CONTAINER] [-i] [-t] [-q] [--pod-running-timeout]`, and
//! the attaching half of `kubectl run -i|-t|--attach [--rm]`: reads the pod (a workload's first pod), refuses
//! a completed one, picks the container as kubectl does, settles the terminal (kubeglass's stdin is never a
//! terminal, so `-t` gives kubectl's `Unable to use a TTY` note), then POSTs `pods/<name>/attach`, which the
//! apiserver proxies to the pod's kubelet and containerd attaches to the container's main process. With
//! `-i` the text piped to kubectl (a scenario step's stdin) is written to the process; what the process
//! writes is printed until it ends. Counterpart: `pkg/cmd/attach/attach.go` and `pkg/cmd/run/run.go`'s
//! `waitForPod`, `handleAttachPod`, `logOpts`.

use crate::api::api::core::v1::Pod;
use crate::api::{ApiResponse, ExecEnd, Kind, Object, Status, Verb, WatchEventType};
use crate::sim::time::parse_duration_ms;

use super::common;
use super::wait::Watch;
use super::{Context, Failure};

const PATH: &str = "kubectl attach";

/// kubectl 1.34's notice before an attached session (`attach.go`).
const RECORDED: &str = "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.";
const PROMPT_HINT: &str = "If you don't see a command prompt, try pressing enter.";
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";
const NOT_A_TERMINAL: &str = "Unable to use a TTY - input is not a terminal or the right kind of file";

/// What an attach asks for (`AttachOptions`).
pub struct Options {
    pub stdin: bool,
    pub tty: bool,
    pub quiet: bool,
    pub container: Option<String>,
    /// `--pod-running-timeout`.
    pub timeout_ms: u64,
}

impl Options {
    /// The attach flags of `ctx` (shared by `attach` and `run`).
    pub fn from_flags(ctx: &Context, command: &str) -> Result<Options, Failure> {
        let timeout_ms = pod_running_timeout(ctx, command)?;
        Ok(Options {
            stdin: ctx.args.has(&["i", "stdin"]),
            tty: ctx.args.has(&["t", "tty"]),
            quiet: ctx.args.has(&["q", "quiet"]),
            container: ctx.args.get(&["c", "container"]).filter(|c| !c.is_empty()).map(str::to_string),
            timeout_ms,
        })
    }
}

/// `--pod-running-timeout` (1m by default), which must be above zero.
fn pod_running_timeout(ctx: &Context, command: &str) -> Result<u64, Failure> {
    let Some(text) = ctx.args.get(&["pod-running-timeout"]) else { return Ok(60_000) };
    let ms = match text.strip_prefix('-') {
        Some(rest) => parse_duration_ms(rest).map(|_| 0),
        None => parse_duration_ms(text),
    }
    .map_err(|e| {
        // pflag's words, printed by kubectl's error printer (`error:`).
        Failure(format!(
            "error: invalid argument {text:?} for \"--pod-running-timeout\" flag: {e}\nSee '{command} --help' for usage."
        ))
    })?;
    if ms == 0 {
        return Err(common::usage(command, "--pod-running-timeout must be higher than zero"));
    }
    Ok(ms)
}

/// `kubectl attach`.
pub async fn attach(ctx: &Context) -> Result<(), Failure> {
    let opts = Options::from_flags(ctx, PATH)?;
    let operands = ctx.args.operands(1);
    if operands.is_empty() {
        return Err(common::error("at least 1 argument is required for attach"));
    }
    if operands.len() > 2 {
        return Err(common::error(format!(
            "expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw {}: [{}]",
            operands.len(),
            operands.join(" ")
        )));
    }
    let target = match operands {
        [name] => name.clone(),
        [kind, name] => format!("{kind}/{name}"),
        _ => unreachable!("one or two operands"),
    };
    let pod = super::logs::pod_for(ctx, &target, "cannot attach to").await?;
    let phase = phase(&pod);
    if phase == "Succeeded" || phase == "Failed" {
        return Err(common::error(format!("cannot attach a container in a completed pod; current phase is {phase}")));
    }
    run_attach(ctx, &pod, &opts).await
}

fn phase(pod: &Pod) -> String {
    pod.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default()
}

/// `AttachOptions.Run` for a pod already read: the container, the terminal, the notices, then the stream.
pub async fn run_attach(ctx: &Context, pod: &Pod, opts: &Options) -> Result<(), Failure> {
    let container = container_to_attach(ctx, pod, opts)
        .map_err(|e| common::error(format!("cannot attach to the container: {e}")))?;
    let allocated = container_has_tty(pod, &container);
    let mut tty = opts.tty;
    if tty && !allocated {
        tty = false;
        if !opts.quiet {
            ctx.println(&format!("error: Unable to use a TTY - container {container} did not allocate one"));
        }
    } else if !tty && allocated {
        // The container runs on a terminal, so the client must take its stream as one.
        tty = true;
    }
    // SetupTTY: without stdin there is no terminal; with one, kubeglass's stdin is not a terminal.
    if opts.stdin && tty && !opts.quiet {
        ctx.println(NOT_A_TERMINAL);
    }
    if !opts.quiet {
        ctx.println(RECORDED);
        ctx.println(PROMPT_HINT);
    }
    let name = pod.metadata.name.clone().unwrap_or_default();
    let mut req = ctx
        .request(Verb::Create, Kind::Pod.info())
        .namespace(pod.metadata.namespace.as_deref())
        .name(&name)
        .subresource("attach");
    req.params.container = Some(container);
    req.params.stdin = opts.stdin.then(|| ctx.stdin.clone().unwrap_or_default());
    // The whole session: its input ends with it, and the output is followed until the process ends.
    req.params.follow = true;
    match ctx.call(req).await? {
        ApiResponse::Exec(result) => {
            for (_, text) in &result.output {
                ctx.api.print(text);
            }
            match result.end {
                ExecEnd::Success | ExecEnd::ExitCode(_) => Ok(()),
                ExecEnd::Failure(message) => Err(common::error(message)),
                // v1.34's stream translator upgrades, then reports the kubelet's refusal as an internal error.
                ExecEnd::NotUpgraded(body) => {
                    Err(common::error(format!("Internal error occurred: unable to upgrade connection: {body}")))
                }
            }
        }
        ApiResponse::LogStream { stream_id, text } => {
            ctx.api.print(&text);
            while let Some(more) = ctx.api.next_chunk(stream_id).await {
                ctx.api.print(&more);
            }
            Ok(())
        }
        _ => Err(common::error("the server did not open an attach stream")),
    }
}

/// The container to attach to (`podcmd.FindOrDefaultContainerByName`): the one named, else the default
/// container annotation's, else the first (saying so when there was a choice).
fn container_to_attach(ctx: &Context, pod: &Pod, opts: &Options) -> Result<String, String> {
    let spec = pod.spec.clone().unwrap_or_default();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let inits: Vec<String> = spec.init_containers.iter().flatten().map(|c| c.name.clone()).collect();
    let names: Vec<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
    let ephemeral: Vec<String> = spec.ephemeral_containers.iter().flatten().map(|c| c.name.clone()).collect();
    let exists = |c: &String| names.contains(c) || inits.contains(c) || ephemeral.contains(c);
    if let Some(c) = &opts.container {
        return if exists(c) { Ok(c.clone()) } else { Err(format!("container {c} not found in pod {name}")) };
    }
    let Some(first) = names.first() else {
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        return Err(format!("pod {namespace}/{name} does not have any containers"));
    };
    let annotations = pod.metadata.annotations.as_ref();
    if let Some(c) = annotations.and_then(|a| a.get(DEFAULT_CONTAINER)).filter(|c| !c.is_empty() && exists(c)) {
        return Ok(c.clone());
    }
    if !opts.quiet && (names.len() > 1 || !inits.is_empty() || !ephemeral.is_empty()) {
        // `AllContainerNames`: the containers, the ephemeral ones, then the init ones.
        let all: Vec<String> = names
            .iter()
            .cloned()
            .chain(ephemeral.iter().map(|c| format!("{c} (ephem)")))
            .chain(inits.iter().map(|c| format!("{c} (init)")))
            .collect();
        ctx.println(&format!("Defaulted container {first:?} out of: {}", all.join(", ")));
    }
    Ok(first.clone())
}

fn container_has_tty(pod: &Pod, name: &str) -> bool {
    let Some(spec) = pod.spec.as_ref() else { return false };
    let regular = spec.containers.iter().chain(spec.init_containers.iter().flatten()).find(|c| c.name == name);
    match regular {
        Some(c) => c.tty.unwrap_or(false),
        None => spec.ephemeral_containers.iter().flatten().any(|c| c.name == name && c.tty.unwrap_or(false)),
    }
}

/// `kubectl run`'s `handleAttachPod`: waits for the pod to run and be ready, then attaches; a pod that
/// completed first (or an attach that fails) has its log printed instead.
pub async fn handle_attach_pod(ctx: &Context, namespace: &str, name: &str, opts: &Options) -> Result<(), Failure> {
    let pod = match wait_for_pod(ctx, namespace, name, opts.timeout_ms, Until::RunningAndReady).await {
        Ok(pod) => pod,
        Err(Waited::Completed(pod)) => *pod,
        Err(Waited::Failed(failure)) => return Err(failure),
    };
    let phase = phase(&pod);
    if phase == "Succeeded" || phase == "Failed" {
        return log_pod(ctx, &pod, opts).await;
    }
    attach_or_log(ctx, &pod, opts).await
}

/// Attaches to the pod, or when that fails says so and prints the container's log instead.
pub async fn attach_or_log(ctx: &Context, pod: &Pod, opts: &Options) -> Result<(), Failure> {
    if let Err(Failure(line)) = run_attach(ctx, pod, opts).await {
        let cause = line.strip_prefix("error: ").unwrap_or(&line);
        let name = pod.metadata.name.as_deref().unwrap_or("");
        ctx.println(&format!("warning: couldn't attach to pod/{name}, falling back to streaming logs: {cause}"));
        return log_pod(ctx, pod, opts).await;
    }
    Ok(())
}

/// `logOpts`: the attached container's whole log.
pub async fn log_pod(ctx: &Context, pod: &Pod, opts: &Options) -> Result<(), Failure> {
    let container = container_to_attach(ctx, pod, opts)
        .map_err(|e| common::error(format!("cannot attach to the container: {e}")))?;
    let mut req = ctx
        .request(Verb::Get, Kind::Pod.info())
        .namespace(pod.metadata.namespace.as_deref())
        .name(pod.metadata.name.as_deref().unwrap_or(""))
        .subresource("log");
    req.params.container = Some(container);
    if let ApiResponse::Text(text) | ApiResponse::LogStream { text, .. } = ctx.call(req).await? {
        ctx.api.print(&text);
    }
    Ok(())
}

/// What `waitForPod` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Running with its Ready condition true (a completed pod ends the wait with `ErrPodCompleted`).
    RunningAndReady,
    /// Succeeded or Failed.
    Completed,
    /// Succeeded.
    Succeeded,
}

/// How a wait ended other than with its condition.
pub enum Waited {
    /// `ErrPodCompleted`: the pod completed before it was running and ready.
    Completed(Box<Pod>),
    Failed(Failure),
}

impl Until {
    /// Whether `pod` meets the condition (`Err`: the wait ends without it).
    fn check(self, pod: &Pod) -> Result<bool, Waited> {
        let phase = phase(pod);
        match self {
            Until::Completed => Ok(phase == "Succeeded" || phase == "Failed"),
            Until::Succeeded => Ok(phase == "Succeeded"),
            Until::RunningAndReady => match phase.as_str() {
                "Succeeded" | "Failed" => Err(Waited::Completed(Box::new(pod.clone()))),
                "Running" => Ok(pod
                    .status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))),
                _ => Ok(false),
            },
        }
    }
}

/// `waitForPod`: lists the pod by name (field selector `metadata.name`), then watches from the list's
/// revision until `until` holds, the pod is deleted (`pods "" not found`) or the timeout passes.
pub async fn wait_for_pod(
    ctx: &Context,
    namespace: &str,
    name: &str,
    timeout_ms: u64,
    until: Until,
) -> Result<Pod, Waited> {
    let failed = |f: Failure| Waited::Failed(f);
    let mut list = ctx.request(Verb::List, Kind::Pod.info()).namespace(Some(namespace));
    list.params.field_selector = Some(format!("metadata.name={name}"));
    let (items, revision) = match ctx.call(list).await.map_err(failed)? {
        ApiResponse::List { items, resource_version, .. } => (items, resource_version),
        _ => (Vec::new(), 0),
    };
    for item in &items {
        if let Object::Pod(p) = item.as_ref() {
            if until.check(p)? {
                return Ok((**p).clone());
            }
        }
    }
    let info = Kind::Pod.info();
    let mut watch =
        Watch::named(ctx, info, Some(namespace), name, revision.to_string(), timeout_ms).await.map_err(failed)?;
    while let Some(event) = watch.next(ctx).await {
        if event.kind == WatchEventType::Deleted {
            return Err(Waited::Failed(Failure::from(Status::not_found("pods", ""))));
        }
        if let Some(Object::Pod(p)) = event.object.as_deref() {
            if until.check(p)? {
                return Ok((**p).clone());
            }
        }
    }
    Err(Waited::Failed(common::error("timed out waiting for the condition")))
}
