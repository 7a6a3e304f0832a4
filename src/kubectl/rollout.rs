//! `kubectl rollout status|history|undo|restart|pause|resume` for Deployments: status follows the
//! deployment's watch and prints kubectl's progress lines until it is rolled out; history and undo read
//! the ReplicaSets the deployment owns and their `deployment.kubernetes.io/revision` annotations.

use std::sync::Arc;

use serde_json::json;

use crate::api::api::apps::v1::{Deployment, ReplicaSet};
use crate::api::{ApiResponse, Kind, Object, PatchBody, Verb, WatchEventType};

use super::{Context, Failure};

const REVISION: &str = "deployment.kubernetes.io/revision";
const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

pub async fn rollout(ctx: &Context) -> Result<(), Failure> {
    let sub = ctx.args.positional.get(1).cloned().unwrap_or_default();
    let target = ctx.args.positional.get(2).cloned().unwrap_or_default();
    // The subcommand is checked before the resource it names, as cobra finds the command first.
    let name = || deployment_name(&target, ctx.args.positional.get(3));
    match sub.as_str() {
        "status" => status(ctx, &name()?).await,
        "history" => history(ctx, &name()?).await,
        "undo" => undo(ctx, &name()?).await,
        "restart" => restart(ctx, &name()?).await,
        "pause" => pause(ctx, &name()?, true).await,
        "resume" => pause(ctx, &name()?, false).await,
        _ => Err(super::flags::missing_subcommand("rollout", &sub)),
    }
}

/// `deployment/web`, `deploy/web`, `deployments.apps web`, …
fn deployment_name(target: &str, next: Option<&String>) -> Result<String, Failure> {
    let (kind, name) = match target.split_once('/') {
        Some((k, n)) => (k.to_string(), n.to_string()),
        None => (target.to_string(), next.cloned().unwrap_or_default()),
    };
    let info = super::resource(&kind)?;
    if info.kind != Kind::Deployment {
        return Err(Failure(format!("error: no status viewer has been implemented for {}", info.kind.name())));
    }
    if name.is_empty() {
        return Err(Failure("error: required resource name not specified".into()));
    }
    Ok(name)
}

async fn get(ctx: &Context, name: &str) -> Result<Arc<Object>, Failure> {
    let ns = ctx.namespace();
    match ctx.call(ctx.request(Verb::Get, Kind::Deployment.info()).namespace(Some(&ns)).name(name)).await? {
        ApiResponse::Object(o) => Ok(o),
        _ => Err(Failure("error: the server returned no object".into())),
    }
}

/// kubectl's DeploymentStatusViewer: the line for this status, and whether the rollout is done.
pub fn status_line(d: &Deployment) -> Result<(String, bool), Failure> {
    let name = d.metadata.name.clone().unwrap_or_default();
    let status = d.status.clone().unwrap_or_default();
    if d.metadata.generation.unwrap_or(0) > status.observed_generation.unwrap_or(0) {
        return Ok(("Waiting for deployment spec update to be observed...\n".into(), false));
    }
    let progressing = status.conditions.iter().flatten().find(|c| c.type_ == "Progressing");
    if progressing.is_some_and(|c| c.reason.as_deref() == Some("ProgressDeadlineExceeded")) {
        return Err(Failure(format!("error: deployment {name:?} exceeded its progress deadline")));
    }
    let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    let updated = status.updated_replicas.unwrap_or(0);
    let replicas = status.replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let waiting = format!("Waiting for deployment {name:?} rollout to finish: ");
    if updated < wanted {
        return Ok((format!("{waiting}{updated} out of {wanted} new replicas have been updated...\n"), false));
    }
    if replicas > updated {
        return Ok((format!("{waiting}{} old replicas are pending termination...\n", replicas - updated), false));
    }
    if available < updated {
        return Ok((format!("{waiting}{available} of {updated} updated replicas are available...\n"), false));
    }
    Ok((format!("deployment {name:?} successfully rolled out\n"), true))
}

async fn status(ctx: &Context, name: &str) -> Result<(), Failure> {
    let ns = ctx.namespace();
    let current = get(ctx, name).await?;
    let Object::Deployment(d) = current.as_ref() else { return Ok(()) };
    let (line, done) = status_line(d)?;
    ctx.api.print(&line);
    if done || ctx.args.get(&["watch", "w"]) == Some("false") {
        return Ok(());
    }
    let mut req = ctx.request(Verb::Watch, Kind::Deployment.info()).namespace(Some(&ns));
    req.params.field_selector = Some(format!("metadata.name={name}"));
    req.params.resource_version = Some(current.resource_version().to_string());
    let ApiResponse::WatchStarted { watch_id, .. } = ctx.call(req).await? else { return Ok(()) };
    while let Some(event) = ctx.api.next_event(watch_id).await {
        match (event.kind, event.object.as_deref()) {
            (WatchEventType::Added | WatchEventType::Modified, Some(Object::Deployment(d))) => {
                let (line, done) = status_line(d)?;
                ctx.api.print(&line);
                if done {
                    return Ok(());
                }
            }
            (WatchEventType::Deleted, _) => return Err(Failure("error: object has been deleted".to_string())),
            _ => {}
        }
    }
    Ok(())
}

/// The deployment's ReplicaSets (controlled by it), oldest revision first.
async fn replica_sets(ctx: &Context, d: &Deployment) -> Result<Vec<(i64, ReplicaSet)>, Failure> {
    let ns = ctx.namespace();
    let uid = d.metadata.uid.clone().unwrap_or_default();
    let ApiResponse::List { items, .. } =
        ctx.call(ctx.request(Verb::List, Kind::ReplicaSet.info()).namespace(Some(&ns))).await?
    else {
        return Ok(Vec::new());
    };
    let mut sets: Vec<(i64, ReplicaSet)> = items
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ReplicaSet(rs)
                if rs
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.uid == uid && r.controller == Some(true)) =>
            {
                let rev = rs
                    .metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(REVISION))
                    .and_then(|r| r.parse().ok())
                    .unwrap_or(0);
                Some((rev, (**rs).clone()))
            }
            _ => None,
        })
        .collect();
    sets.sort_by_key(|(rev, _)| *rev);
    Ok(sets)
}

async fn history(ctx: &Context, name: &str) -> Result<(), Failure> {
    let obj = get(ctx, name).await?;
    let Object::Deployment(d) = obj.as_ref() else { return Ok(()) };
    let sets = replica_sets(ctx, d).await?;
    if sets.is_empty() {
        ctx.println("No rollout history found.");
        return Ok(());
    }
    if let Some(rev) = ctx.args.get(&["revision"]) {
        let wanted: i64 = rev.parse().unwrap_or(-1);
        let Some((_, rs)) = sets.iter().find(|(r, _)| *r == wanted) else {
            return Err(Failure(format!("error: unable to find the specified revision {rev}")));
        };
        ctx.println(&format!("deployment.apps/{name} with revision #{wanted}"));
        let template = rs.spec.as_ref().and_then(|s| s.template.clone()).unwrap_or_default();
        // The template as the describer writes it, then an empty line (history.go's printTemplate).
        ctx.api.print(&super::printers::describe::pod_template_unaligned(&template));
        ctx.println("");
        return Ok(());
    }
    let mut out = format!("deployment.apps/{name} \nREVISION  CHANGE-CAUSE\n");
    for (rev, rs) in &sets {
        let cause = rs
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(CHANGE_CAUSE))
            .cloned()
            .unwrap_or_else(|| "<none>".into());
        out.push_str(&format!("{:<10}{cause}\n", rev));
    }
    out.push('\n');
    ctx.api.print(&out);
    Ok(())
}

async fn undo(ctx: &Context, name: &str) -> Result<(), Failure> {
    let ns = ctx.namespace();
    let obj = get(ctx, name).await?;
    let Object::Deployment(d) = obj.as_ref() else { return Ok(()) };
    if d.spec.as_ref().and_then(|s| s.paused).unwrap_or(false) {
        return Err(Failure(format!("error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/{name}' and try again")));
    }
    let sets = replica_sets(ctx, d).await?;
    let current = sets.iter().map(|(r, _)| *r).max().unwrap_or(0);
    let to: i64 = ctx.args.get(&["to-revision"]).and_then(|r| r.parse().ok()).unwrap_or(0);
    let chosen =
        if to == 0 { sets.iter().rev().find(|(r, _)| *r < current) } else { sets.iter().find(|(r, _)| *r == to) };
    let Some((rev, rs)) = chosen else {
        return Err(Failure(if to == 0 {
            format!("error: no rollout history found for deployment {name:?}")
        } else {
            format!("error: unable to find specified revision {to} in history")
        }));
    };
    let mut template =
        serde_json::to_value(rs.spec.as_ref().and_then(|s| s.template.clone()).unwrap_or_default()).unwrap_or_default();
    if let Some(labels) = template.pointer_mut("/metadata/labels").and_then(|l| l.as_object_mut()) {
        labels.remove("pod-template-hash");
    }
    let live =
        serde_json::to_value(d.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default()).unwrap_or_default();
    if live == template {
        ctx.println(&format!(
            "deployment.apps/{name} skipped rollback (current template already matches revision {rev})"
        ));
        return Ok(());
    }
    let mut req = ctx.request(Verb::Patch, Kind::Deployment.info()).namespace(Some(&ns)).name(name);
    req.patch = Some(PatchBody::Merge(json!({"spec": {"template": template}})));
    ctx.call(req).await?;
    ctx.println(&format!("deployment.apps/{name} rolled back"));
    Ok(())
}

async fn restart(ctx: &Context, name: &str) -> Result<(), Failure> {
    let ns = ctx.namespace();
    let obj = get(ctx, name).await?;
    if let Object::Deployment(d) = obj.as_ref() {
        if d.spec.as_ref().and_then(|s| s.paused).unwrap_or(false) {
            return Err(Failure(format!(
                "error: deployments.apps {name:?} can't restart paused deployment (run rollout resume first)"
            )));
        }
    }
    let at = ctx.api.now().rfc3339();
    let mut req = ctx.request(Verb::Patch, Kind::Deployment.info()).namespace(Some(&ns)).name(name);
    req.patch = Some(PatchBody::Strategic(
        json!({"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": at}}}}}),
    ));
    ctx.call(req).await?;
    ctx.println(&format!("deployment.apps/{name} restarted"));
    Ok(())
}

async fn pause(ctx: &Context, name: &str, paused: bool) -> Result<(), Failure> {
    let ns = ctx.namespace();
    let obj = get(ctx, name).await?;
    let Object::Deployment(d) = obj.as_ref() else { return Ok(()) };
    let now = d.spec.as_ref().and_then(|s| s.paused).unwrap_or(false);
    if now == paused {
        let state = if paused { "already paused" } else { "not paused" };
        return Err(Failure(format!("error: deployments.apps {name:?} is {state}")));
    }
    let mut req = ctx.request(Verb::Patch, Kind::Deployment.info()).namespace(Some(&ns)).name(name);
    req.patch = Some(PatchBody::Merge(json!({"spec": {"paused": if paused { json!(true) } else { json!(null) }}})));
    ctx.call(req).await?;
    ctx.println(&format!("deployment.apps/{name} {}", if paused { "paused" } else { "resumed" }));
    Ok(())
}
