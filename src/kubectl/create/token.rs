//! `kubectl create token SERVICE_ACCOUNT [--audience=A]… [--duration=1h] [--bound-object-kind=Pod|Secret|Node
//! --bound-object-name=NAME [--bound-object-uid=UID]] [-o yaml|json]`: asks the apiserver for a token of the
//! service account (a TokenRequest to its `token` subresource) and prints it, or the whole TokenRequest with
//! `-o`. Nothing is stored: the token lasts until it expires or its service account (or bound object) is
//! deleted. Counterpart: kubectl's `pkg/cmd/create/create_token.go`.

use serde_json::{json, Value};

use super::super::common;
use super::super::{Context, Failure};
use crate::api::{ApiResponse, Kind, Verb};
use crate::sim::time::parse_duration_ms;

const PATH: &str = "kubectl create token";

/// The kinds a token may be bound to, and their API versions (`boundObjectKinds`).
const BOUND_KINDS: [(&str, &str); 3] = [("Node", "v1"), ("Pod", "v1"), ("Secret", "v1")];

/// `--duration` in whole seconds (0: the server's default), with kubectl's errors.
fn duration_seconds(ctx: &Context) -> Result<u64, Failure> {
    let Some(text) = ctx.args.get(&["duration"]) else { return Ok(0) };
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let ms = parse_duration_ms(magnitude)
        .map_err(|e| Failure(format!("error: invalid argument {text:?} for \"--duration\" flag: {e}")))?;
    if negative && ms > 0 {
        return Err(common::error("--duration must be greater than or equal to 0"));
    }
    if ms % 1000 != 0 {
        return Err(common::error("--duration cannot be expressed in units less than seconds"));
    }
    Ok(ms / 1000)
}

pub async fn token(ctx: &Context) -> Result<(), Failure> {
    let name = super::name(ctx, 2, PATH)?;
    common::check_output(ctx)?;
    let seconds = duration_seconds(ctx)?;
    let audiences = ctx.args.all(&["audience"]);
    if audiences.iter().any(String::is_empty) {
        return Err(common::error("--audience must not be an empty string"));
    }
    let (kind, object, uid) = (
        ctx.args.get(&["bound-object-kind"]).unwrap_or(""),
        ctx.args.get(&["bound-object-name"]).unwrap_or(""),
        ctx.args.get(&["bound-object-uid"]).unwrap_or(""),
    );
    let mut spec = json!({"audiences": if audiences.is_empty() { Value::Null } else { json!(audiences) }});
    if seconds > 0 {
        spec["expirationSeconds"] = json!(seconds);
    }
    if kind.is_empty() {
        if !object.is_empty() {
            return Err(common::error("--bound-object-name can only be set if --bound-object-kind is provided"));
        }
        if !uid.is_empty() {
            return Err(common::error("--bound-object-uid can only be set if --bound-object-kind is provided"));
        }
    } else {
        let Some((_, version)) = BOUND_KINDS.iter().find(|(k, _)| *k == kind) else {
            let kinds: Vec<&str> = BOUND_KINDS.iter().map(|(k, _)| *k).collect();
            return Err(common::error(format!("supported --bound-object-kind values are {}", kinds.join(", "))));
        };
        if object.is_empty() {
            return Err(common::error("--bound-object-name is required if --bound-object-kind is provided"));
        }
        spec["boundObjectRef"] = json!({"kind": kind, "apiVersion": version, "name": object, "uid": uid});
    }
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": {}, "spec": spec});
    let ns = ctx.namespace();
    let mut req =
        ctx.request(Verb::Create, Kind::ServiceAccount.info()).namespace(Some(&ns)).name(&name).subresource("token");
    req.raw_body = Some(body);
    let mut answered = match ctx.api.call(req.clone()).await {
        Ok(ApiResponse::Object(o)) => o.to_json(),
        Ok(ApiResponse::Error(s)) => return Err(common::error(format!("failed to create token: {}", s.message))),
        Ok(_) => Value::Null,
        Err(e) => return Err(common::error(format!("failed to create token: {}", super::url_error(&req, &e)))),
    };
    let token = answered["status"]["token"].as_str().unwrap_or("");
    if token.is_empty() {
        return Err(common::error("failed to create token: no token in server response"));
    }
    if ctx.args.get(&["o", "output"]).is_some_and(|o| !o.is_empty()) {
        // kubectl prints its typed TokenRequest, whose spec always has `boundObjectRef` (no omitempty).
        if answered["spec"].get("boundObjectRef").is_none() {
            answered["spec"]["boundObjectRef"] = Value::Null;
        }
        return common::print_object(ctx, &answered, "created", common::DryRun::None);
    }
    // kubectl ends the token with a newline only on a terminal, which the simulated one always is.
    ctx.println(token);
    Ok(())
}
