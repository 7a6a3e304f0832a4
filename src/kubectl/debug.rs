//! `kubectl debug POD --image=IMAGE [-c NAME] [--target=CONTAINER] [-i] [-t] [-q] [--profile=P] [-- COMMAND…]`
//! and `kubectl debug node/NAME --image=IMAGE [-i] [-t]`: a debugging container in a running pod (an
//! ephemeral container, added with a strategic merge patch of `pods/<name>/ephemeralcontainers`) or a
//! debugging pod on a node (host namespaces, the node's root filesystem at `/host`), then with `-i` the wait
//! for the container and the attach. Counterpart: `pkg/cmd/debug/debug.go` and `profiles.go` (v1.34: the
//! `legacy` profile by default, deprecated; `general` adds `SYS_PTRACE`). Not simulated yet: `--copy-to`,
//! `--custom`, the `baseline`, `restricted`, `netadmin` and `sysadmin` profiles.

use serde_json::{json, Value};

use crate::api::api::core::v1::{ContainerStatus, Pod};
use crate::api::{ApiResponse, Kind, Object, PatchBody, Status, Verb, WatchEventType};
use crate::sim::rng::{fnv1a64, Rng};

use super::attach::{self, Options};
use super::common;
use super::wait::Watch;
use super::{transport_line, Context, Failure};

const LEGACY_DEPRECATED: &str = "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".";

/// The alphabet of apimachinery's `rand.String` (no vowels, no look-alike digits).
const SUFFIX_ALPHABET: &[u8] = crate::api::hash::SAFE_ALPHABET;

/// `kubectl debug`.
pub async fn debug(ctx: &Context) -> Result<(), Failure> {
    let operands = ctx.args.operands(1).to_vec();
    let image = ctx.args.get(&["image"]).unwrap_or("").to_string();
    let interactive = ctx.args.has(&["i", "stdin"]);
    let tty = ctx.args.has(&["t", "tty"]);
    let quiet = ctx.args.has(&["q", "quiet"]);
    let copy_to = ctx.args.get(&["copy-to"]).filter(|c| !c.is_empty());
    if ctx.args.has(&["attach"]) && image.is_empty() && ctx.args.get(&["c", "container"]).is_none() {
        return Err(common::error(
            "you must specify --container or create a new container using --image in order to attach.",
        ));
    }
    if copy_to.is_some() {
        return Err(common::error("kubeglass does not simulate \"kubectl debug --copy-to\" yet"));
    }
    for (flag, what) in [("replace", "--replace"), ("same-node", "--same-node"), ("set-image", "--set-image")] {
        if ctx.args.get(&[flag]).is_some() {
            return Err(common::error(format!("{what} may only be used with --copy-to.")));
        }
    }
    if image.is_empty() {
        return Err(common::error("you must specify --image when not using --copy-to."));
    }
    if !super::run::valid_image_reference(&image) {
        return Err(common::error(format!("invalid image name {image:?}: invalid reference format")));
    }
    if operands.is_empty() {
        return Err(common::error("NAME or filename is required for debug"));
    }
    let pull_policy = ctx.args.get(&["image-pull-policy"]).unwrap_or("").to_string();
    if !matches!(pull_policy.as_str(), "" | "Always" | "IfNotPresent" | "Never") {
        return Err(common::error(format!("invalid image pull policy: {pull_policy}")));
    }
    if tty && !interactive {
        return Err(common::error("-i/--stdin is required for containers with -t/--tty=true"));
    }
    let profile = ctx.args.get(&["profile"]).unwrap_or("legacy");
    if !matches!(profile, "legacy" | "general") {
        return Err(common::error(format!("unknown profile: {profile}")));
    }
    if let Some(target) = ctx.args.get(&["target"]).filter(|t| !t.is_empty()).filter(|_| !quiet) {
        ctx.println(&format!(
            "Targeting container {target:?}. If you don't see processes from this container it may be because the container runtime doesn't support this feature."
        ));
    }
    if profile == "legacy" {
        ctx.println(LEGACY_DEPRECATED);
    }
    let operand = operands[0].clone();
    let target = match operand.split_once('/') {
        Some(("node" | "nodes" | "no", name)) => Target::Node(name.to_string()),
        Some(("pod" | "pods" | "po", name)) => Target::Pod(name.to_string()),
        Some((kind, _)) => {
            return Err(common::error(format!("the server doesn't have a resource type {kind:?}")));
        }
        None => Target::Pod(operand),
    };
    let opts = Options { stdin: interactive, tty, quiet, container: None, timeout_ms: u64::MAX / 4 };
    let spec = Debugger { image, pull_policy, interactive, tty, general: profile == "general" };
    let (namespace, pod, container) = match target {
        Target::Pod(name) => ephemeral(ctx, &name, &spec, quiet).await?,
        Target::Node(name) => node_pod(ctx, &name, &spec, quiet).await?,
    };
    if !interactive && !ctx.args.has(&["attach"]) {
        return Ok(());
    }
    let opts = Options { container: Some(container.clone()), ..opts };
    let pod = wait_for_container(ctx, &namespace, &pod, &container).await?;
    if terminated(&pod, &container) {
        // It ended before kubectl could attach: its log instead.
        return attach::log_pod(ctx, &pod, &opts).await;
    }
    attach::attach_or_log(ctx, &pod, &opts).await
}

enum Target {
    Pod(String),
    Node(String),
}

/// What the debugging container runs.
struct Debugger {
    image: String,
    pull_policy: String,
    interactive: bool,
    tty: bool,
    /// `--profile=general`: process tracing allowed.
    general: bool,
}

impl Debugger {
    /// The container (`generateDebugContainer`), its fields as kubectl serialises them.
    fn container(&self, ctx: &Context, name: &str) -> Value {
        let mut c = json!({"image": self.image, "name": name, "resources": {}, "terminationMessagePolicy": "File"});
        let args = ctx.args.positional.get(2..).unwrap_or(&[]);
        if !args.is_empty() {
            let key = if ctx.args.has(&["arguments-only"]) { "args" } else { "command" };
            c[key] = json!(args);
        }
        if !self.pull_policy.is_empty() {
            c["imagePullPolicy"] = json!(self.pull_policy);
        }
        let env: Vec<Value> = ctx
            .args
            .all(&["env"])
            .iter()
            .filter_map(|e| e.split_once('='))
            .map(|(k, v)| json!({"name": k, "value": v}))
            .collect();
        if !env.is_empty() {
            c["env"] = json!(env);
        }
        if self.interactive {
            c["stdin"] = json!(true);
        }
        if self.tty {
            c["tty"] = json!(true);
        }
        if self.general {
            c["securityContext"] = json!({"capabilities": {"add": ["SYS_PTRACE"]}});
        }
        c
    }
}

/// Five characters of apimachinery's `rand.String` (this process's own stream, stable for a moment).
fn suffix(ctx: &Context, salt: &str) -> String {
    let seed = fnv1a64(format!("{salt}/{}", ctx.api.now().ms()).as_bytes());
    Rng::new(seed).string_from(SUFFIX_ALPHABET, 5)
}

/// `debugByEphemeralContainer`: reads the pod, names the container, patches it in.
async fn ephemeral(
    ctx: &Context,
    name: &str,
    spec: &Debugger,
    quiet: bool,
) -> Result<(String, String, String), Failure> {
    let ns = ctx.namespace();
    let get = ctx.request(Verb::Get, Kind::Pod.info()).namespace(Some(&ns)).name(name);
    let pod = match ctx.call(get).await? {
        ApiResponse::Object(o) => match o.as_ref() {
            Object::Pod(p) => (**p).clone(),
            _ => return Err(common::error("the server did not return a pod")),
        },
        _ => return Err(common::error("the server did not return a pod")),
    };
    let taken = container_names(&pod);
    let container = match ctx.args.get(&["c", "container"]).filter(|c| !c.is_empty()) {
        Some(c) => c.to_string(),
        None => {
            let mut salt = format!("{ns}/{name}");
            let mut candidate = format!("debugger-{}", suffix(ctx, &salt));
            while taken.contains(&candidate) {
                salt.push('+');
                candidate = format!("debugger-{}", suffix(ctx, &salt));
            }
            if !quiet {
                ctx.println(&format!("Defaulting debug container name to {candidate}."));
            }
            candidate
        }
    };
    let mut debug = spec.container(ctx, &container);
    if let Some(target) = ctx.args.get(&["target"]).filter(|t| !t.is_empty()) {
        debug["targetContainerName"] = json!(target);
    }
    // CreateTwoWayMergePatch of the pod and the pod with the container appended (a name already taken by an
    // ephemeral container shows as a change to it, which the apiserver refuses).
    let original = Object::Pod(Box::new(pod)).to_json();
    let mut modified = original.clone();
    match modified["spec"]["ephemeralContainers"].as_array_mut() {
        Some(list) => list.push(debug),
        None => modified["spec"]["ephemeralContainers"] = json!([debug]),
    }
    let root = crate::apiserver::strategic::root_type("v1", "Pod");
    let patch = crate::apiserver::strategic::two_way(&original, &modified, root);
    let mut req =
        ctx.request(Verb::Patch, Kind::Pod.info()).namespace(Some(&ns)).name(name).subresource("ephemeralcontainers");
    req.patch = Some(PatchBody::Strategic(patch));
    match ctx.api.call(req).await {
        Ok(ApiResponse::Error(s)) if s.code == 404 && s.name.is_empty() => Err(common::error(format!(
            "ephemeral containers are disabled for this cluster (error from server: {:?})",
            s.message
        ))),
        Ok(ApiResponse::Error(s)) => Err(Failure(s.kubectl_line())),
        Ok(_) => Ok((ns, name.to_string(), container)),
        Err(e) => Err(Failure(transport_line(&e))),
    }
}

/// Every container name of the pod: regular, init and ephemeral.
fn container_names(pod: &Pod) -> Vec<String> {
    let Some(spec) = pod.spec.as_ref() else { return Vec::new() };
    let regular = spec.containers.iter().chain(spec.init_containers.iter().flatten()).map(|c| c.name.clone());
    regular.chain(spec.ephemeral_containers.iter().flatten().map(|c| c.name.clone())).collect()
}

/// `visitNode` and `generateNodeDebugPod`: a pod on the node sharing its namespaces, with its root
/// filesystem at `/host`.
async fn node_pod(
    ctx: &Context,
    node: &str,
    spec: &Debugger,
    quiet: bool,
) -> Result<(String, String, String), Failure> {
    let get = ctx.request(Verb::Get, Kind::Node.info()).name(node);
    ctx.call(get).await?;
    let ns = ctx.namespace();
    let name = format!("node-debugger-{node}-{}", suffix(ctx, node));
    let container = ctx.args.get(&["c", "container"]).filter(|c| !c.is_empty()).unwrap_or("debugger").to_string();
    let mut debug = spec.container(ctx, &container);
    if let Value::Object(m) = &mut debug {
        m.remove("securityContext");
    }
    debug["volumeMounts"] = json!([{"mountPath": "/host", "name": "host-root"}]);
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"labels": {"app.kubernetes.io/managed-by": "kubectl-debug"}, "name": name},
        "spec": {
            "containers": [debug],
            "hostIPC": true,
            "hostNetwork": true,
            "hostPID": true,
            "nodeName": node,
            "restartPolicy": "Never",
            "tolerations": [{"operator": "Exists"}],
            "volumes": [{"hostPath": {"path": "/"}, "name": "host-root"}],
        },
    });
    if !quiet {
        ctx.println(&format!("Creating debugging pod {name} with container {container} on node {node}."));
    }
    let mut req = ctx.request(Verb::Create, Kind::Pod.info()).namespace(Some(&ns));
    req.raw_body = Some(pod);
    ctx.call(req).await?;
    Ok((ns, name, container))
}

/// `waitForContainer`: lists and watches the pod until the container runs or has ended, printing why it
/// waits (`Warning: container NAME: MESSAGE`).
async fn wait_for_container(ctx: &Context, ns: &str, name: &str, container: &str) -> Result<Pod, Failure> {
    let mut list = ctx.request(Verb::List, Kind::Pod.info()).namespace(Some(ns));
    list.params.field_selector = Some(format!("metadata.name={name}"));
    let (items, revision) = match ctx.call(list).await? {
        ApiResponse::List { items, resource_version, .. } => (items, resource_version),
        _ => (Vec::new(), 0),
    };
    let mut warned = String::new();
    let mut check = |pod: &Pod| -> bool {
        match container_state(pod, container) {
            State::Ready => true,
            State::Waiting(message) if !message.is_empty() && message != warned => {
                ctx.println(&format!("Warning: container {container}: {message}"));
                warned = message;
                false
            }
            State::Waiting(_) => false,
        }
    };
    for item in &items {
        if let Object::Pod(p) = item.as_ref() {
            if check(p) {
                return Ok((**p).clone());
            }
        }
    }
    let mut watch = Watch::named(ctx, Kind::Pod.info(), Some(ns), name, revision.to_string(), u64::MAX / 4).await?;
    while let Some(event) = watch.next(ctx).await {
        if event.kind == WatchEventType::Deleted {
            return Err(Failure::from(Status::not_found("pods", "")));
        }
        if let Some(Object::Pod(p)) = event.object.as_deref() {
            if check(p) {
                return Ok((**p).clone());
            }
        }
    }
    Err(common::error("timed out waiting for the condition"))
}

/// Whether the container has ended.
fn terminated(pod: &Pod, container: &str) -> bool {
    status_of(pod, container).and_then(|s| s.state.as_ref()).is_some_and(|st| st.terminated.is_some())
}

/// The container's status among the pod's init, app and ephemeral ones (`getContainerStatusByName`).
fn status_of<'a>(pod: &'a Pod, container: &str) -> Option<&'a ContainerStatus> {
    let status = pod.status.as_ref()?;
    let mut all = status
        .init_container_statuses
        .iter()
        .flatten()
        .chain(status.container_statuses.iter().flatten())
        .chain(status.ephemeral_container_statuses.iter().flatten());
    all.find(|s| s.name == container)
}

enum State {
    /// Running or terminated: the wait is over.
    Ready,
    /// Waiting, with the reason's message if any.
    Waiting(String),
}

/// The container's state in the pod's statuses (init, app or ephemeral).
fn container_state(pod: &Pod, container: &str) -> State {
    let Some(state) = status_of(pod, container).and_then(|s| s.state.as_ref()) else {
        return State::Waiting(String::new());
    };
    if state.running.is_some() || state.terminated.is_some() {
        return State::Ready;
    }
    State::Waiting(state.waiting.as_ref().and_then(|w| w.message.clone()).unwrap_or_default())
}
