//! `kubectl set image (TYPE NAME… | TYPE/NAME… | TYPE -l SEL | TYPE --all) CONTAINER=IMAGE…` (`*=IMAGE` for
//! every container): changes the image of the named containers (init containers too) in a pod or a pod
//! template and sends a strategic merge patch of just those containers; prints `deployment.apps/web image
//! updated`. An object where nothing changes is skipped without a line, as kubectl skips an empty patch.

use serde_json::{json, Value};

use crate::api::{ApiResponse, PatchBody, Verb};

use super::common::{self, DryRun, ErrLine};
use super::{Context, Failure};

pub async fn set(ctx: &Context) -> Result<(), Failure> {
    match ctx.args.positional.get(1).map(String::as_str) {
        Some("image") => image(ctx).await,
        Some(other) => Err(common::usage("kubectl set", &format!("unknown command {other:?}"))),
        None => Err(common::usage("kubectl set", "unknown command \"\"")),
    }
}

/// Where a kind keeps its pod spec, as a JSON pointer.
fn pod_spec_pointer(kind: crate::api::Kind) -> Option<&'static str> {
    use crate::api::Kind::*;
    match kind {
        Pod => Some("/spec"),
        Deployment | ReplicaSet | DaemonSet | StatefulSet | Job => Some("/spec/template/spec"),
        CronJob => Some("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Wraps the changed containers in the object shape of `pointer` (`/spec/template/spec` → `{"spec":{"template":{"spec":…}}}`).
fn nest(pointer: &str, inner: Value) -> Value {
    pointer.split('/').filter(|s| !s.is_empty()).rev().fold(inner, |acc, key| json!({ key: acc }))
}

async fn image(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let words = ctx.args.operands(2);
    let mut resources = Vec::new();
    let mut pairs = Vec::new();
    for w in words {
        let is_pair = (w.contains('=') && !w.starts_with('=')) || (w.ends_with('-') && w != "-");
        match (pairs.is_empty(), is_pair) {
            (_, true) => pairs.push(w.clone()),
            (true, false) => resources.push(w.clone()),
            (false, false) => {
                return Err(common::error(format!("all resources must be specified before image changes: {w}")))
            }
        }
    }
    let mut images: Vec<(String, String)> = Vec::new();
    let mut invalid = Vec::new();
    for p in &pairs {
        match p.split_once('=') {
            Some((c, i)) if !p.starts_with('=') => {
                images.retain(|(name, _)| name != c);
                images.push((c.to_string(), i.to_string()));
            }
            _ => invalid.push(p.clone()),
        }
    }
    if !invalid.is_empty() {
        return Err(common::error(format!("invalid image format: {}", invalid.join(", "))));
    }
    images.sort();
    let targets = common::targets(ctx, &resources, common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let mut problems = Vec::new();
    if ctx.args.has(&["all"]) && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        problems.push("cannot set --all and --selector at the same time".to_string());
    }
    if images.is_empty() {
        problems.push("at least one image update is required".to_string());
    } else if images.len() > 1 && images.iter().any(|(c, _)| c == "*") {
        problems.push(
            "all containers are already specified by *, but saw more than one container_name=container_image pairs"
                .to_string(),
        );
    }
    match problems.len() {
        0 => {}
        1 => return Err(common::error(&problems[0])),
        _ => return Err(common::error(format!("[{}]", problems.join(", ")))),
    }
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let info = obj.info();
        let Some(pointer) = pod_spec_pointer(info.kind) else {
            errors.push(ErrLine::Plain(format!(
                "error: {}/{} the object is not a pod or does not have a pod template: *v1.{}\n",
                info.resource,
                obj.name(),
                info.kind.name()
            )));
            continue;
        };
        let mut json = obj.to_json();
        let mut changed: Vec<(&'static str, Value)> = Vec::new();
        let Some(spec) = json.pointer_mut(pointer) else { continue };
        for (container, new_image) in &images {
            let mut found = false;
            for list in ["initContainers", "containers"] {
                for c in spec[list].as_array_mut().into_iter().flatten() {
                    if c["name"].as_str() == Some(container.as_str()) || container == "*" {
                        found = true;
                        if c["image"].as_str() != Some(new_image.as_str()) {
                            c["image"] = json!(new_image);
                            changed.push((list, json!({"image": new_image, "name": c["name"].clone()})));
                        }
                    }
                }
            }
            if !found {
                errors.push(ErrLine::Plain(format!("error: unable to find container named {container:?}")));
            }
        }
        if changed.is_empty() {
            continue;
        }
        if dry == DryRun::Client {
            common::print_object(ctx, &json, "image updated", dry)?;
            continue;
        }
        let mut inner = serde_json::Map::new();
        for (list, c) in changed {
            let entry = inner.entry(list).or_insert_with(|| json!([]));
            if let Some(a) = entry.as_array_mut() {
                a.push(c);
            }
        }
        let mut req = ctx.request(Verb::Patch, info).namespace(obj.namespace()).name(obj.name());
        req.patch = Some(PatchBody::Strategic(nest(pointer, Value::Object(inner))));
        req.params.dry_run = dry == DryRun::Server;
        match ctx.api.call(req).await? {
            ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), "image updated", dry)?,
            ApiResponse::Error(s) => {
                errors.push(ErrLine::Plain(format!("failed to patch image update to pod template: {}", s.message)))
            }
            _ => {}
        }
    }
    common::finish(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_nest_under_the_pod_spec_path() {
        assert_eq!(
            nest("/spec/template/spec", json!({"containers": []})),
            json!({"spec": {"template": {"spec": {"containers": []}}}})
        );
    }
}
