//! `kubectl patch TYPE NAME | TYPE/NAME (-p PATCH | --patch-file FILE) [--type strategic|merge|json]
//! [--subresource status|scale] [--dry-run] [-o]`: the patch text is read as YAML and sent as JSON, as a
//! strategic merge patch unless `--type` says otherwise; the apiserver applies it (a JSON patch that does not
//! apply is `The request is invalid`). The line is `deployment.apps/web patched`, or `… patched (no change)`
//! when the object came back as it was (the apiserver writes nothing then). With `--dry-run=client` kubectl
//! applies merge and JSON patches itself and sends nothing.

use serde_json::Value;

use crate::api::{ApiResponse, PatchBody, Verb};

use super::common::{self, DryRun};
use super::{Context, Failure};

pub async fn patch(ctx: &Context) -> Result<(), Failure> {
    let kind = ctx.args.get(&["type"]).unwrap_or("strategic");
    if !["json", "merge", "strategic"].contains(&kind) {
        return Err(common::error(format!("--type must be one of [json merge strategic], not {kind:?}")));
    }
    let text = match (ctx.args.get(&["p", "patch"]), ctx.args.get(&["patch-file"])) {
        (Some(_), Some(_)) => return Err(common::error("--patch and --patch-file are mutually exclusive")),
        (Some(p), None) => p.to_string(),
        (None, Some("-")) => ctx.stdin.clone().unwrap_or_default(),
        (None, Some(f)) => {
            return Err(common::error(format!("unable to read patch file: open {f}: no such file or directory")))
        }
        (None, None) => String::new(),
    };
    if text.trim().is_empty() {
        return Err(common::error("must specify --patch or --patch-file containing the contents of the patch"));
    }
    if let Some(sub) = ctx.args.get(&["subresource"]) {
        if sub != "status" && sub != "scale" {
            return Err(common::error(format!("invalid subresource value: {sub:?}. Must be one of [status scale]")));
        }
    }
    let value = parse(&text)?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let body = match kind {
        "json" => PatchBody::Json(value),
        "merge" => PatchBody::Merge(value),
        _ => PatchBody::Strategic(value),
    };
    let targets = common::targets(ctx, ctx.args.operands(1), common::NO_RESOURCES).await?;
    if targets.objects.is_empty() && targets.errors.is_empty() {
        return Err(common::error("no objects passed to patch"));
    }
    for obj in &targets.objects {
        let before = obj.to_json();
        if dry == DryRun::Client {
            let after = local(&before, &body)?;
            let op = if after == before { "patched (no change)" } else { "patched" };
            common::print_object(ctx, &after, op, dry)?;
            continue;
        }
        let mut req = ctx.request(Verb::Patch, obj.info()).namespace(obj.namespace()).name(obj.name());
        if let Some(sub) = ctx.args.get(&["subresource"]) {
            req = req.subresource(sub);
        }
        req.patch = Some(body.clone());
        req.params.dry_run = dry == DryRun::Server;
        // kubectl patch names no fieldValidation: the server's default (Warn) applies.
        req.params.field_validation = crate::api::FieldValidation::Warn;
        let info = obj.info();
        let patched = match ctx.api.call(req).await? {
            ApiResponse::Object(o) => o,
            // A patch type the kind does not take: kubectl names the type and the kind before the server's words.
            ApiResponse::Error(s) if s.code == 415 => {
                return Err(Failure(format!(
                    "error: {} is not supported by {}/{}, Kind={}: {}",
                    patch_media_type(&body),
                    info.group,
                    info.version,
                    info.kind.name(),
                    s.message
                )))
            }
            ApiResponse::Error(s) if targets.single => return Err(Failure::from(s)),
            ApiResponse::Error(s) => {
                ctx.println(&Failure::from(s).0);
                continue;
            }
            _ => continue,
        };
        let op = if patched.resource_version() == obj.resource_version() && dry == DryRun::None {
            "patched (no change)"
        } else {
            "patched"
        };
        let mut shown = patched.to_json();
        if ctx.args.get(&["subresource"]) == Some("scale") {
            // The scale subresource answers with a Scale object.
            shown = serde_json::json!({
                "apiVersion": "autoscaling/v1",
                "kind": "Scale",
                "metadata": shown["metadata"].clone(),
                "spec": {"replicas": shown["spec"]["replicas"].clone()},
                "status": {"replicas": shown["status"]["replicas"].clone()},
            });
        }
        common::print_object(ctx, &shown, op, dry)?;
    }
    common::finish(targets.errors)
}

/// The patch text as JSON (kubectl reads it as YAML, of which JSON is a part).
fn parse(text: &str) -> Result<Value, Failure> {
    serde_yaml::from_str::<Value>(text).map_err(|e| {
        let msg = e.to_string();
        let detail = msg.split(" at line ").next().unwrap_or(&msg);
        // go-yaml names the last line when the text ends early; serde_yaml the one after it.
        let lines = text.lines().count().max(1);
        let at = e.location().map(|l| format!("line {}: ", l.line().min(lines))).unwrap_or_default();
        common::error(format!("unable to parse {text:?}: yaml: {at}{detail}"))
    })
}

/// A client-side dry run: the patch applied by kubectl itself.
fn local(before: &Value, body: &PatchBody) -> Result<Value, Failure> {
    let mut doc = before.clone();
    match body {
        PatchBody::Merge(p) => crate::apiserver::registry::merge_patch(&mut doc, p, false),
        PatchBody::Strategic(p) => {
            let api_version = before["apiVersion"].as_str().unwrap_or_default();
            let root = crate::apiserver::strategic::root_type(api_version, before["kind"].as_str().unwrap_or_default());
            crate::apiserver::strategic::apply(&mut doc, p, root);
        }
        PatchBody::Json(p) => crate::apiserver::json_patch::apply(&mut doc, p).map_err(common::error)?,
    }
    Ok(doc)
}

/// The media type a patch is sent as.
fn patch_media_type(body: &PatchBody) -> &'static str {
    match body {
        PatchBody::Json(_) => "application/json-patch+json",
        PatchBody::Merge(_) => "application/merge-patch+json",
        PatchBody::Strategic(_) => "application/strategic-merge-patch+json",
    }
}
