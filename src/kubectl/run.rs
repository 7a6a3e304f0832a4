//! `kubectl run NAME --image=IMAGE [--restart] [--labels] [--annotations] [--port] [--env] [--command] [--
//! ARGS…]`: the pod kubectl's `run-pod/v1` generator builds (label `run=NAME` unless `--labels` is given,
//! `dnsPolicy: ClusterFirst`, `restartPolicy: Always` unless `--restart` says otherwise), created with one
//! request and reported as `pod/NAME created`. Attaching (`-i`, `-t`, `--attach`, `--rm`) needs a kubelet
//! and is refused with kubectl's own checks first.

use serde_json::{json, Map, Value};

use crate::api::{ApiResponse, Kind, Verb};
use crate::apiserver::validation::names;

use super::common::{self, DryRun};
use super::{transport_line, Context, Failure};

const PATH: &str = "kubectl run";

pub async fn run(ctx: &Context) -> Result<(), Failure> {
    // cobra checks the flags marked required before the command runs.
    if ctx.args.get(&["image"]).is_none() {
        return Err(common::required_flag("image"));
    }
    let operands = ctx.args.operands(1).to_vec();
    let Some(name) = operands.first().cloned().filter(|_| ctx.args.dash != Some(1)) else {
        return Err(common::usage(PATH, "NAME is required for run"));
    };
    let image = ctx.args.get(&["image"]).unwrap_or("");
    if image.is_empty() {
        return Err(common::error("--image is required"));
    }
    if !valid_image_reference(image) {
        return Err(common::error(format!("Invalid image name {image:?}: invalid reference format")));
    }
    let interactive = ctx.args.has(&["i", "stdin"]);
    let tty = ctx.args.has(&["t", "tty"]);
    if tty && !interactive {
        return Err(common::usage(PATH, "-i/--stdin is required for containers with -t/--tty=true"));
    }
    if ctx.args.has(&["expose"]) && ctx.args.get(&["port"]).is_none() {
        return Err(common::usage(PATH, "--port must be set when exposing a service"));
    }
    let restart = match ctx.args.get(&["restart"]).unwrap_or("Always") {
        "" | "Always" => "Always",
        "OnFailure" => "OnFailure",
        "Never" => "Never",
        other => return Err(common::usage(PATH, &format!("invalid restart policy: {other}"))),
    };
    let attach = interactive || ctx.args.has(&["attach"]);
    if !attach && ctx.args.has(&["rm"]) {
        return Err(common::usage(PATH, "--rm should only be used for attached containers"));
    }
    let dry = common::dry_run(ctx)?;
    if attach && dry != DryRun::None {
        return Err(common::usage(
            PATH,
            "--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)",
        ));
    }
    if attach {
        return Err(common::error("kubeglass does not simulate attaching to containers yet"));
    }
    if let Some(p) = ctx.args.get(&["image-pull-policy"]).filter(|p| !p.is_empty()) {
        if !matches!(p, "Always" | "IfNotPresent" | "Never") {
            return Err(common::usage(PATH, &format!("invalid image pull policy: {p}")));
        }
    }
    common::check_output(ctx)?;
    let pod = build_pod(ctx, &name, image, restart)?;
    let mut pod = pod;
    if dry == DryRun::Client {
        if ctx.namespace_given() {
            pod["metadata"]["namespace"] = json!(ctx.namespace());
        }
        return common::print_object(ctx, &pod, "created", dry);
    }
    let ns = ctx.namespace();
    let mut req = ctx.request(Verb::Create, Kind::Pod.info()).namespace(Some(&ns));
    req.raw_body = Some(pod);
    req.params.dry_run = dry == DryRun::Server;
    req.params.field_manager = Some("kubectl-run".into());
    match ctx.api.call(req).await {
        Ok(ApiResponse::Object(o)) => common::print_object(ctx, &o.to_json(), "created", dry),
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
fn valid_image_reference(image: &str) -> bool {
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
