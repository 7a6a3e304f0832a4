//! `kubectl set image (TYPE NAME… | TYPE/NAME… | TYPE -l SEL | TYPE --all) CONTAINER=IMAGE…` (`*=IMAGE` for
//! every container): changes the image of the named containers (init containers too) in a pod or a pod
//! template and sends the two-way strategic merge patch of the change; prints `deployment.apps/web image
//! updated`. An object where nothing changes is skipped without a line, as kubectl skips an empty patch.
//! Counterpart: kubectl's `pkg/cmd/set/set_image.go`.

use serde_json::{json, Value};

use super::super::common::{self, ErrLine};
use super::super::{Context, Failure};
use super::{pod_spec_of, send_changes, Change};

pub async fn image(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let words = ctx.args.operands(2);
    let (resources, pairs) = common::resources_and_pairs(words, "image")?;
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
        let original = obj.to_json();
        let mut json = original.clone();
        let Some(spec) = json.pointer_mut(pointer) else { continue };
        for (container, new_image) in &images {
            let mut found = false;
            for list in ["initContainers", "containers"] {
                for c in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
                    if c["name"].as_str() == Some(container.as_str()) || container == "*" {
                        found = true;
                        c["image"] = json!(new_image);
                    }
                }
            }
            if !found {
                errors.push(ErrLine::Plain(format!("error: unable to find container named {container:?}")));
            }
        }
        let change = Change {
            dry,
            operation: "image updated",
            failed: "failed to patch image update to pod template: ",
            always: false,
        };
        send_changes(ctx, obj, &original, &json, change, &mut errors).await?;
    }
    common::finish(errors)
}
