//! `kubectl set image (TYPE NAME… | TYPE/NAME… | TYPE -l SEL | TYPE --all) CONTAINER=IMAGE…` (`*=IMAGE` for
//! every container): changes the image of the named containers (init containers too) in a pod or a pod
//! template and sends a strategic merge patch of just those containers; prints `deployment.apps/web image
//! updated`. `kubectl set resources … [-c GLOB] --limits=cpu=200m,memory=512Mi --requests=…` sets the
//! containers' resource limits and requests the same way (`resource requirements updated`). An object
//! where nothing changes is skipped without a line, as kubectl skips an empty patch.

use serde_json::{json, Value};

use crate::api::{ApiResponse, PatchBody, Verb};

use super::common::{self, DryRun, ErrLine};
use super::{Context, Failure};

pub async fn set(ctx: &Context) -> Result<(), Failure> {
    match ctx.args.positional.get(1).map(String::as_str) {
        Some("image") => image(ctx).await,
        Some("resources") => resources(ctx).await,
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

/// Where `obj` keeps its pod spec, or the error line kubectl gives an object without one.
fn pod_spec_of(obj: &crate::api::Object, errors: &mut Vec<ErrLine>) -> Option<&'static str> {
    let info = obj.info();
    let pointer = pod_spec_pointer(info.kind);
    if pointer.is_none() {
        errors.push(ErrLine::Plain(format!(
            "error: {}/{} the object is not a pod or does not have a pod template: *v1.{}\n",
            info.resource,
            obj.name(),
            info.kind.name()
        )));
    }
    pointer
}

/// Sends a `set` command's strategic merge patch and prints the object's line, or records the failure.
async fn patch_pod_spec(
    ctx: &Context,
    obj: &crate::api::Object,
    patch: Value,
    dry: DryRun,
    operation: &str,
    failed: impl Fn(&crate::api::Status) -> String,
    errors: &mut Vec<ErrLine>,
) -> Result<(), Failure> {
    let mut req = ctx.request(Verb::Patch, obj.info()).namespace(obj.namespace()).name(obj.name());
    req.patch = Some(PatchBody::Strategic(patch));
    req.params.dry_run = dry == DryRun::Server;
    match ctx.api.call(req).await? {
        ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), operation, dry)?,
        ApiResponse::Error(s) => errors.push(ErrLine::Plain(failed(&s))),
        _ => {}
    }
    Ok(())
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
        let Some(pointer) = pod_spec_of(obj, &mut errors) else { continue };
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
        let patch = nest(pointer, Value::Object(inner));
        let failed = |s: &crate::api::Status| format!("failed to patch image update to pod template: {}", s.message);
        patch_pod_spec(ctx, obj, patch, dry, "image updated", failed, &mut errors).await?;
    }
    common::finish(errors)
}

/// `--limits`/`--requests`: `cpu=200m,memory=512Mi` as kubectl v1.34's populateResourceListV1 reads it, each value a
/// quantity in its canonical spelling.
fn resource_list(spec: Option<&str>) -> Result<serde_json::Map<String, Value>, Failure> {
    let mut out = serde_json::Map::new();
    for statement in spec.filter(|s| !s.is_empty()).into_iter().flat_map(|s| s.split(',')) {
        let parts: Vec<&str> = statement.split('=').collect();
        let [name, value] = parts[..] else {
            return Err(common::error(format!("Invalid argument syntax {statement}, expected <resource>=<value>")));
        };
        let quantity = crate::api::quantity::parse_quantity(value).map_err(common::error)?;
        out.insert(name.to_string(), json!(quantity.to_string()));
    }
    Ok(out)
}

/// Go's filepath.Match for container names: `*` any run, `?` one character, the rest literally.
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    fn at(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|i| at(&p[1..], &n[i..])),
            Some('?') => !n.is_empty() && at(&p[1..], &n[1..]),
            Some(c) => n.first() == Some(c) && at(&p[1..], &n[1..]),
        }
    }
    at(&p, &n)
}

async fn resources(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if ctx.args.has(&["all"]) && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --selector at the same time"));
    }
    let (limits, requests) = (ctx.args.get(&["limits"]), ctx.args.get(&["requests"]));
    if limits.is_none_or(str::is_empty) && requests.is_none_or(str::is_empty) {
        return Err(common::error(
            "you must specify an update to requests or limits (in the form of --requests/--limits)",
        ));
    }
    let (limits, requests) = (resource_list(limits)?, resource_list(requests)?);
    let selector = ctx.args.get(&["c", "containers"]).unwrap_or("*");
    let targets = common::targets(ctx, ctx.args.operands(2), common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let Some(pointer) = pod_spec_of(obj, &mut errors) else { continue };
        let mut json = obj.to_json();
        let Some(spec) = json.pointer_mut(pointer) else { continue };
        let mut matched = false;
        let mut inner = serde_json::Map::new();
        for list in ["containers", "initContainers"] {
            for c in spec[list].as_array_mut().into_iter().flatten() {
                if !glob(selector, c["name"].as_str().unwrap_or_default()) {
                    continue;
                }
                matched = true;
                let mut changed = serde_json::Map::new();
                for (field, wanted) in [("limits", &limits), ("requests", &requests)] {
                    let mut delta = serde_json::Map::new();
                    for (resource, value) in wanted {
                        if c["resources"][field][resource] != *value {
                            c["resources"][field][resource] = value.clone();
                            delta.insert(resource.clone(), value.clone());
                        }
                    }
                    if !delta.is_empty() {
                        changed.insert(field.to_string(), Value::Object(delta));
                    }
                }
                if !changed.is_empty() {
                    let entry = inner.entry(list).or_insert_with(|| json!([]));
                    if let Some(a) = entry.as_array_mut() {
                        a.push(json!({ "name": c["name"].clone(), "resources": changed }));
                    }
                }
            }
        }
        if !matched {
            errors.push(ErrLine::Plain(format!("error: unable to find container named {selector}")));
        }
        if inner.is_empty() {
            continue;
        }
        if dry == DryRun::Client {
            common::print_object(ctx, &json, "resource requirements updated", dry)?;
            continue;
        }
        let patch = nest(pointer, Value::Object(inner));
        let failed = |s: &crate::api::Status| format!("failed to patch resources update to pod template {}", s.message);
        patch_pod_spec(ctx, obj, patch, dry, "resource requirements updated", failed, &mut errors).await?;
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
