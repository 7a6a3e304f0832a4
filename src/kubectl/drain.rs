//! `kubectl drain NODE`: cordons the node, then evicts its pods through the eviction subresource (which
//! honours PodDisruptionBudgets; a refused eviction is retried every 5 s), refusing — unless told otherwise —
//! to touch DaemonSet-managed pods, pods no controller would recreate, and pods with local storage. Mirror
//! pods are skipped. It waits until every evicted pod is gone, as kubectl does.

use std::sync::Arc;

use serde_json::json;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;

use crate::api::api::policy::v1::Eviction;
use crate::api::{ApiResponse, Kind, Object, ObjectMeta, PatchBody, Verb};

use super::{Context, Failure};

/// How long drain waits before retrying an eviction a disruption budget refused.
pub const EVICTION_RETRY_MS: u64 = 5_000;
/// How often drain checks whether evicted pods are gone.
pub const DELETE_POLL_MS: u64 = 1_000;

enum Verdict {
    Evict,
    Skip,
    Warn(String),
    Refuse(String),
}

fn pod_ref(p: &Object) -> String {
    format!("{}/{}", p.namespace().unwrap_or(""), p.name())
}

/// kubectl's pod filters, in its order: mirror pods, DaemonSet pods, unreplicated pods, local storage.
fn verdict(ctx: &Context, p: &Object) -> Verdict {
    let Object::Pod(pod) = p else { return Verdict::Skip };
    if pod.metadata.annotations.as_ref().is_some_and(|a| a.contains_key("kubernetes.io/config.mirror")) {
        return Verdict::Skip;
    }
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    let finished = matches!(phase, Some("Succeeded" | "Failed"));
    let controller = pod.metadata.owner_references.iter().flatten().find(|r| r.controller == Some(true));
    if controller.is_some_and(|c| c.kind == "DaemonSet") {
        return if ctx.args.has(&["ignore-daemonsets"]) {
            Verdict::Warn(pod_ref(p))
        } else {
            Verdict::Refuse(format!(
                "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): {}",
                pod_ref(p)
            ))
        };
    }
    if controller.is_none() && !finished && !ctx.args.has(&["force"]) {
        return Verdict::Refuse(format!(
            "cannot delete Pods that declare no controller (use --force to override): {}",
            pod_ref(p)
        ));
    }
    let local =
        pod.spec.as_ref().and_then(|s| s.volumes.as_ref()).is_some_and(|v| v.iter().any(|v| v.empty_dir.is_some()));
    if local && !finished && !ctx.args.has(&["delete-emptydir-data", "delete-local-data"]) {
        return Verdict::Refuse(format!(
            "cannot delete Pods with local storage (use --delete-emptydir-data to override): {}",
            pod_ref(p)
        ));
    }
    Verdict::Evict
}

pub async fn drain(ctx: &Context) -> Result<(), Failure> {
    let Some(node) = ctx.args.positional.get(1).cloned() else {
        return Err(Failure("error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples".into()));
    };
    let node_obj = match ctx.call(ctx.request(Verb::Get, Kind::Node.info()).name(&node)).await? {
        ApiResponse::Object(o) => o,
        _ => return Err(Failure("error: the server returned no node".into())),
    };
    cordon(ctx, &node_obj).await?;
    let mut list = ctx.request(Verb::List, Kind::Pod.info());
    list.params.field_selector = Some(format!("spec.nodeName={node}"));
    let ApiResponse::List { items, .. } = ctx.call(list).await? else { return Ok(()) };
    let mut evict = Vec::new();
    let mut warned = Vec::new();
    let mut refused: Vec<(String, Vec<String>)> = Vec::new();
    for p in &items {
        match verdict(ctx, p) {
            Verdict::Evict => evict.push(p.clone()),
            Verdict::Skip => {}
            Verdict::Warn(r) => warned.push(r),
            Verdict::Refuse(message) => {
                let (head, pod) = message
                    .rsplit_once(": ")
                    .map(|(h, p)| (h.to_string(), p.to_string()))
                    .unwrap_or((message, String::new()));
                match refused.iter_mut().find(|(h, _)| *h == head) {
                    Some((_, pods)) => pods.push(pod),
                    None => refused.push((head, vec![pod])),
                }
            }
        }
    }
    if !refused.is_empty() {
        let errors: Vec<String> = refused.iter().map(|(h, pods)| format!("{h}: {}", pods.join(", "))).collect();
        let joined = if errors.len() == 1 { errors[0].clone() } else { format!("[{}]", errors.join(", ")) };
        ctx.println(&format!("error: unable to drain node {node:?} due to error: {joined}, continuing command..."));
        ctx.println("There are pending nodes to be drained:");
        ctx.println(&format!(" {node}"));
        return Err(Failure(errors.join("\n")));
    }
    if !warned.is_empty() {
        ctx.println(&format!("Warning: ignoring DaemonSet-managed Pods: {}", warned.join(", ")));
    }
    for p in &evict {
        ctx.println(&format!("evicting pod {}", pod_ref(p)));
    }
    for p in &evict {
        evict_one(ctx, p).await?;
    }
    for p in &evict {
        wait_gone(ctx, p).await;
        ctx.println(&format!("pod/{} evicted", p.name()));
    }
    ctx.println(&format!("node/{node} drained"));
    Ok(())
}

async fn cordon(ctx: &Context, node: &Arc<Object>) -> Result<(), Failure> {
    let Object::Node(n) = node.as_ref() else { return Ok(()) };
    let name = n.metadata.name.clone().unwrap_or_default();
    if n.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) {
        ctx.println(&format!("node/{name} already cordoned"));
        return Ok(());
    }
    let mut req = ctx.request(Verb::Patch, Kind::Node.info()).name(&name);
    req.patch = Some(PatchBody::Strategic(json!({"spec": {"unschedulable": true}})));
    ctx.call(req).await?;
    ctx.println(&format!("node/{name} cordoned"));
    Ok(())
}

/// POSTs an Eviction; a budget's 429 is retried every 5 s as kubectl retries it.
async fn evict_one(ctx: &Context, pod: &Object) -> Result<(), Failure> {
    loop {
        let eviction = Eviction {
            metadata: ObjectMeta {
                name: Some(pod.name().to_string()),
                namespace: pod.namespace().map(str::to_string),
                ..ObjectMeta::default()
            },
            delete_options: ctx
                .args
                .get(&["grace-period"])
                .and_then(|g| g.parse::<i64>().ok())
                .filter(|g| *g >= 0)
                .map(|g| DeleteOptions { grace_period_seconds: Some(g), ..DeleteOptions::default() }),
        };
        let req = ctx
            .request(Verb::Create, Kind::Pod.info())
            .namespace(pod.namespace())
            .name(pod.name())
            .subresource("eviction")
            .body(Object::Eviction(Box::new(eviction)));
        match ctx.api.call(req).await? {
            ApiResponse::Error(s) if s.code == 429 => {
                ctx.println(&format!(
                    "error when evicting pods/{:?} -n {:?} (will retry after 5s): {}",
                    pod.name(),
                    pod.namespace().unwrap_or(""),
                    s.message
                ));
                ctx.api.sleep(EVICTION_RETRY_MS).await;
            }
            ApiResponse::Error(s) if s.code == 404 => return Ok(()),
            ApiResponse::Error(s) => return Err(Failure::from(s)),
            _ => return Ok(()),
        }
    }
}

async fn wait_gone(ctx: &Context, pod: &Object) {
    let uid = pod.meta().uid.clone();
    loop {
        let req = ctx.request(Verb::Get, Kind::Pod.info()).namespace(pod.namespace()).name(pod.name());
        match ctx.api.call(req).await {
            Ok(ApiResponse::Object(o)) if o.meta().uid == uid => ctx.api.sleep(DELETE_POLL_MS).await,
            _ => return,
        }
    }
}
