//! `kubectl run NAME --image=IMAGE [--restart] [--labels] [--annotations] [--port] [--env] [--command] [--
//! ARGS…]`: the pod kubectl's `run-pod/v1` generator builds (label `run=NAME` unless `--labels` is given,
//! `dnsPolicy: ClusterFirst`, `restartPolicy: Always` unless `--restart` says otherwise), created with one
//! request and reported as `pod/NAME created`. With `-i`, `-t` or `--attach` the container gets `stdin`,
//! `stdinOnce` and `tty` (`--restart=` empty gives `-i` pods `OnFailure`), and instead of the
//! report kubectl waits for the pod to run, attaches to it ([`super::attach`]), waits for a `Never` or
//! `OnFailure` pod to end and ends with its container's exit code; `--rm` deletes the pod afterwards.

use serde_json::{json, Map, Value};

use crate::api::{ApiResponse, Kind, Verb};
use crate::apiserver::validation::names;

use super::attach::{self, Until, Waited};
use super::common::{self, DryRun};
use super::{transport_line, Context, Failure};

const PATH: &str = "kubectl run";

/// How `kubectl run` ends: an error line, or (an attached pod that failed) its message and exit code.
enum Ended {
    Failure(Failure),
    Exit(String, i32),
}

fn fail<T>(f: Failure) -> Result<T, Ended> {
    Err(Ended::Failure(f))
}

impl From<Failure> for Ended {
    fn from(f: Failure) -> Ended {
        Ended::Failure(f)
    }
}

/// `kubectl run`; its exit code (an attached pod's container's when it failed).
pub async fn main(ctx: &Context) -> i32 {
    match run(ctx).await {
        Ok(()) => 0,
        Err(Ended::Failure(Failure(line))) => super::fail(&ctx.api, &line),
        Err(Ended::Exit(message, code)) => {
            super::fail(&ctx.api, &message);
            code
        }
    }
}

async fn run(ctx: &Context) -> Result<(), Ended> {
    // cobra checks the flags marked required before the command runs.
    if ctx.args.get(&["image"]).is_none() {
        return fail(common::required_flag("image"));
    }
    let operands = ctx.args.operands(1).to_vec();
    let Some(name) = operands.first().cloned().filter(|_| ctx.args.dash != Some(1)) else {
        return fail(common::usage(PATH, "NAME is required for run"));
    };
    let opts = attach::Options::from_flags(ctx, PATH)?;
    let image = ctx.args.get(&["image"]).unwrap_or("");
    if image.is_empty() {
        return fail(common::error("--image is required"));
    }
    if !valid_image_reference(image) {
        return fail(common::error(format!("Invalid image name {image:?}: invalid reference format")));
    }
    let interactive = ctx.args.has(&["i", "stdin"]);
    let tty = ctx.args.has(&["t", "tty"]);
    if tty && !interactive {
        return fail(common::usage(PATH, "-i/--stdin is required for containers with -t/--tty=true"));
    }
    if ctx.args.has(&["expose"]) && ctx.args.get(&["port"]).is_none() {
        return fail(common::usage(PATH, "--port must be set when exposing a service"));
    }
    // `--restart` defaults to Always; only an empty one lets an interactive pod restart on failure alone.
    let restart = match ctx.args.get(&["restart"]).unwrap_or("Always") {
        "" if interactive => "OnFailure",
        "" => "Always",
        "Always" => "Always",
        "OnFailure" => "OnFailure",
        "Never" => "Never",
        other => return fail(common::usage(PATH, &format!("invalid restart policy: {other}"))),
    };
    let attach = interactive || ctx.args.has(&["attach"]);
    if !attach && ctx.args.has(&["rm"]) {
        return fail(common::usage(PATH, "--rm should only be used for attached containers"));
    }
    let dry = common::dry_run(ctx)?;
    if attach && dry != DryRun::None {
        return fail(common::usage(
            PATH,
            "--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)",
        ));
    }
    if let Some(p) = ctx.args.get(&["image-pull-policy"]).filter(|p| !p.is_empty()) {
        if !matches!(p, "Always" | "IfNotPresent" | "Never") {
            return fail(common::usage(PATH, &format!("invalid image pull policy: {p}")));
        }
    }
    common::check_output(ctx)?;
    let pod = build_pod(ctx, &name, image, restart)?;
    let mut pod = overridden(ctx, pod)?;
    if dry == DryRun::Client {
        if ctx.namespace_given() {
            pod["metadata"]["namespace"] = json!(ctx.namespace());
        }
        return Ok(common::print_object(ctx, &pod, "created", dry)?);
    }
    let ns = ctx.namespace();
    let mut req = ctx.request(Verb::Create, Kind::Pod.info()).namespace(Some(&ns));
    req.raw_body = Some(pod);
    req.params.dry_run = dry == DryRun::Server;
    req.params.field_manager = Some("kubectl-run".into());
    let created = match ctx.api.call(req).await {
        Ok(ApiResponse::Object(o)) => o,
        Ok(ApiResponse::Error(s)) => return Err(Failure(s.kubectl_line()).into()),
        Ok(_) => return Ok(()),
        Err(e) => return Err(Failure(transport_line(&e)).into()),
    };
    if !attach {
        return Ok(common::print_object(ctx, &created.to_json(), "created", dry)?);
    }
    let leave_stdin_open = ctx.args.has(&["leave-stdin-open"]);
    let ended = attached(ctx, &ns, &name, &opts, restart, leave_stdin_open).await;
    if ctx.args.has(&["rm"]) {
        remove(ctx, &ns, &name).await?;
    }
    ended
}

/// After the pod is created: attach, then (for a pod that is not restarted on success, and whose stdin
/// closes) wait for it to end and end as it did.
async fn attached(
    ctx: &Context,
    ns: &str,
    name: &str,
    opts: &attach::Options,
    restart: &str,
    leave_stdin_open: bool,
) -> Result<(), Ended> {
    attach::handle_attach_pod(ctx, ns, name, opts).await?;
    let until = match restart {
        _ if leave_stdin_open => return Ok(()),
        "Never" => Until::Completed,
        "OnFailure" => Until::Succeeded,
        _ => return Ok(()),
    };
    let pod = match attach::wait_for_pod(ctx, ns, name, opts.timeout_ms, until).await {
        Ok(pod) => pod,
        Err(Waited::Completed(pod)) => *pod,
        Err(Waited::Failed(failure)) => return Err(failure.into()),
    };
    let status = pod.status.unwrap_or_default();
    match status.phase.as_deref().unwrap_or("") {
        "Succeeded" => Ok(()),
        "Failed" => {
            let unknown = common::error(format!("pod {ns}/{name} failed with unknown exit code"));
            let Some(terminated) = status
                .container_statuses
                .as_ref()
                .and_then(|s| s.first())
                .and_then(|s| s.state.as_ref()?.terminated.clone())
            else {
                return Err(unknown.into());
            };
            if terminated.exit_code == 0 {
                return Err(unknown.into());
            }
            let message = format!(
                "pod {ns}/{name} terminated ({})\n{}",
                terminated.reason.unwrap_or_default(),
                terminated.message.unwrap_or_default()
            );
            Err(Ended::Exit(message, terminated.exit_code))
        }
        phase => Err(common::error(format!("pod {ns}/{name} left in phase {phase}")).into()),
    }
}

/// `--rm`: the pod is deleted as `kubectl delete` would (a pod already gone is no error), without waiting.
async fn remove(ctx: &Context, ns: &str, name: &str) -> Result<(), Failure> {
    let req = ctx.request(Verb::Delete, Kind::Pod.info()).namespace(Some(ns)).name(name);
    match ctx.api.call(req).await {
        Ok(ApiResponse::Object(_)) => {
            ctx.println(&format!("pod {name:?} deleted from {ns} namespace"));
            Ok(())
        }
        Ok(ApiResponse::Error(s)) if s.code == 404 => Ok(()),
        Ok(ApiResponse::Error(s)) => Err(Failure(s.kubectl_line())),
        Ok(_) => Ok(()),
        Err(e) => Err(Failure(transport_line(&e))),
    }
}

/// The pod of the `run-pod/v1` generator.
fn build_pod(ctx: &Context, name: &str, image: &str, restart: &str) -> Result<Value, Failure> {
    let labels = match ctx.args.get(&["l", "labels"]).filter(|l| !l.is_empty()) {
        Some(text) => parse_labels(text)?,
        None => json!({"run": name}),
    };
    let mut annotations = Map::new();
    let mut invalid = Vec::new();
    for a in ctx.args.all(&["annotations"]) {
        match a.split_once('=') {
            Some((k, v)) if !a.starts_with('=') => {
                annotations.insert(k.to_string(), json!(v));
            }
            _ => invalid.push(a),
        }
    }
    if !invalid.is_empty() {
        return Err(common::error(format!("invalid annotations format: {}", invalid.join(", "))));
    }
    let mut envs = Vec::new();
    for e in ctx.args.all(&["env"]) {
        let Some((k, v)) = e.split_once('=') else {
            return Err(common::error(format!("invalid env: {e}")));
        };
        if k.is_empty() || !is_env_var_name(k) {
            return Err(common::error(format!("invalid env: {e}")));
        }
        envs.push(json!({"name": k, "value": v}));
    }
    let mut container = json!({"image": image, "name": name, "resources": {}});
    // The generator's Stdin, StdinOnce and TTY (omitted when false).
    let stdin = ctx.args.has(&["i", "stdin"]);
    if stdin {
        container["stdin"] = json!(true);
        if !ctx.args.has(&["leave-stdin-open"]) {
            container["stdinOnce"] = json!(true);
        }
    }
    if ctx.args.has(&["t", "tty"]) {
        container["tty"] = json!(true);
    }
    let args = ctx.args.positional.get(2..).unwrap_or(&[]);
    if !args.is_empty() {
        let key = if ctx.args.has(&["command"]) { "command" } else { "args" };
        container[key] = json!(args);
    }
    if !envs.is_empty() {
        container["env"] = json!(envs);
    }
    if let Some(p) = ctx.args.get(&["image-pull-policy"]).filter(|p| !p.is_empty()) {
        container["imagePullPolicy"] = json!(p);
    }
    if let Some(port) = ctx.args.get(&["port"]).filter(|p| !p.is_empty()) {
        let n: i64 =
            port.parse().map_err(|_| common::error(format!("strconv.Atoi: parsing {port:?}: invalid syntax")))?;
        container["ports"] = json!([{"containerPort": n}]);
    }
    if ctx.args.has(&["privileged"]) {
        container["securityContext"] = json!({"privileged": true});
    }
    let mut spec = json!({"containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": restart});
    if let Some(sa) = ctx.args.get(&["serviceaccount"]).filter(|s| !s.is_empty()) {
        spec["serviceAccountName"] = json!(sa);
    }
    let mut metadata = json!({"labels": labels, "name": name});
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    Ok(json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": {}}))
}

/// `--overrides` by `--override-type` (`cmdutil.Overrider`): the generated pod as JSON with the fragment
/// applied as a JSON merge patch (the default), a strategic merge patch or a JSON patch, then decoded as a
/// Pod again (fields a Pod does not have are dropped, a value of the wrong type is Go's unmarshal error).
fn overridden(ctx: &Context, mut pod: Value) -> Result<Value, Failure> {
    let Some(fragment) = ctx.args.get(&["overrides"]).filter(|f| !f.is_empty()) else { return Ok(pod) };
    let parsed = serde_json::from_str::<Value>(fragment);
    match ctx.args.get(&["override-type"]).unwrap_or("merge") {
        "merge" => {
            let patch = parsed.map_err(|_| common::error("Invalid JSON Patch"))?;
            crate::apiserver::registry::merge_patch(&mut pod, &patch, false);
        }
        "strategic" => {
            let patch = parsed.ok().filter(Value::is_object).ok_or_else(|| common::error("invalid JSON document"))?;
            crate::apiserver::registry::merge_patch(&mut pod, &patch, true);
        }
        "json" => {
            let patch = parsed.map_err(|e| common::error(go_syntax_error(fragment, &e)))?;
            crate::apiserver::json_patch::apply(&mut pod, &patch).map_err(common::error)?;
        }
        other => return Err(common::error(format!("invalid override type: {other}"))),
    }
    if !pod.is_object() {
        let found = match pod {
            Value::Array(_) => "array",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "bool",
            _ => "object",
        };
        return Err(common::error(format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {found} into Go value of type \
             struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}"
        )));
    }
    if let Some(wrong) = crate::api::go_json::type_error(&pod, "v1", "Pod") {
        return Err(common::error(wrong));
    }
    // Decoded into the Pod type and encoded again: what it does not know goes.
    match crate::api::Object::from_json_as(Kind::Pod, pod.clone()) {
        Ok(typed) => {
            let mut again = typed.to_json();
            again["status"] = json!({});
            // Go writes a struct field even when empty: every container has its `resources`.
            for list in ["initContainers", "containers", "ephemeralContainers"] {
                let containers = again.get_mut("spec").and_then(|s| s.get_mut(list)).and_then(Value::as_array_mut);
                for c in containers.into_iter().flatten() {
                    if c.get("resources").is_none() {
                        c["resources"] = json!({});
                    }
                }
            }
            Ok(again)
        }
        Err(_) => Ok(pod),
    }
}

/// Go's `encoding/json` syntax error for `text` where serde stopped (`e`): the end of the input, or the
/// character found where a value or an object's key should begin.
fn go_syntax_error(text: &str, e: &serde_json::Error) -> String {
    if e.is_eof() {
        return "unexpected end of JSON input".into();
    }
    let line = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
    let found = line.chars().nth(e.column().saturating_sub(1)).unwrap_or(' ');
    // What came before it: an object's `{` or `,` wants a key; anything else a value.
    let before: String = text.lines().take(e.line().saturating_sub(1)).collect::<Vec<_>>().join("\n");
    let before = format!("{before}{}", line.chars().take(e.column().saturating_sub(1)).collect::<String>());
    let mut open = Vec::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in before.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' | '[' if !quoted => open.push(c),
            '}' | ']' if !quoted => {
                open.pop();
            }
            _ => {}
        }
    }
    let last = before.trim_end().chars().last();
    let wants_key = open.last() == Some(&'{') && matches!(last, Some('{' | ','));
    let what = if wants_key { "looking for beginning of object key string" } else { "looking for beginning of value" };
    format!("invalid character '{found}' {what}")
}

/// `--labels=a=b,c=d` as `generate.ParseLabels` reads it.
fn parse_labels(text: &str) -> Result<Value, Failure> {
    let mut labels = Map::new();
    for pair in text.split(',') {
        let kv: Vec<&str> = pair.split('=').collect();
        if kv.len() != 2 {
            return Err(common::error(format!("invalid label spec: {pair}")));
        }
        if !names::is_qualified_name(kv[0]).is_empty() || !names::is_valid_label_value(kv[1]).is_empty() {
            return Err(common::error(format!("invalid label spec: {pair}")));
        }
        labels.insert(kv[0].to_string(), json!(kv[1]));
    }
    Ok(Value::Object(labels))
}

/// What `validation.IsEnvVarName` says of a name it refuses (its message and `RegexError`'s examples).
pub(super) const ENV_VAR_NAME_MESSAGE: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/// `validation.IsEnvVarName`: letters, digits, `_`, `-` and `.`, not starting with a digit.
pub(super) fn is_env_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || "-._".contains(c))
        && chars.all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
}

/// Whether `image` could be an image reference (`reference.ReferenceRegexp`, coarsely: lower-case path
/// components, an optional tag and an optional digest).
pub(super) fn valid_image_reference(image: &str) -> bool {
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !d.contains(':') || d.ends_with(':')) {
        return false;
    }
    let (path, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if tag.is_some_and(|t| {
        t.is_empty() || t.len() > 128 || !t.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    }) {
        return false;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let has_domain = parts.len() > 1;
    !path.is_empty()
        && parts.iter().enumerate().all(|(i, part)| {
            let domain = i == 0 && has_domain;
            !part.is_empty()
                && part.chars().all(|c| {
                    c.is_ascii_lowercase()
                        || c.is_ascii_digit()
                        || "._-".contains(c)
                        || (domain && (c == ':' || c.is_ascii_uppercase()))
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references_are_checked_coarsely() {
        for ok in ["nginx", "nginx:1.27", "registry.k8s.io/pause:3.10", "busybox@sha256:abc", "localhost:5000/x"] {
            assert!(valid_image_reference(ok), "{ok}");
        }
        for bad in ["", "Nginx", "nginx:", "a//b", "x@sha256"] {
            assert!(!valid_image_reference(bad), "{bad}");
        }
    }

    #[test]
    fn env_var_names_may_not_start_with_a_digit() {
        assert!(is_env_var_name("A_B.c-d"));
        assert!(!is_env_var_name("1A"));
        assert!(!is_env_var_name("A B"));
    }
}
