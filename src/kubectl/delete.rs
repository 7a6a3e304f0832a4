//! `kubectl delete TYPE NAME...` (and `TYPE/NAME`, `-f -`, or `TYPE[,TYPE] -l SELECTOR | --field-selector F |
//! --all` with `-A`): delete requests with the propagation policy of `--cascade` and the grace period of
//! `--grace-period`/`--force`/`--now`, one per object as kubectl's resource builder visits them (a selector
//! is one list per type first), `--ignore-not-found`, and v1.34's success lines. Then, unless `--wait=false`,
//! kubectl waits for every deleted object to be gone (pods stopping within their grace period, finalizers):
//! a GET, then for an object still there a list of that one name and a watch from its revision until the
//! object is DELETED, as kubectl's wait does it.

use crate::api::{ApiResponse, ResourceInfo, Verb};

use super::{Context, Failure};

pub async fn delete(ctx: &Context) -> Result<(), Failure> {
    let selecting =
        ["l", "selector", "field-selector"].iter().any(|f| ctx.args.get(&[f]).is_some_and(|v| !v.is_empty()));
    if ctx.args.has(&["all"]) && selecting {
        return Err(Failure("error: setting 'all' parameter but found a non empty selector. ".into()));
    }
    let targets = if selecting || ctx.args.has(&["all"]) { selected(ctx).await? } else { targets(ctx).await? };
    if targets.is_empty() && (selecting || ctx.args.has(&["all"])) {
        ctx.println("No resources found");
        return Ok(());
    }
    if targets.is_empty() {
        return Err(Failure("error: resource(s) were provided, but no name was specified".into()));
    }
    let propagation = match ctx.args.get(&["cascade"]).unwrap_or("background") {
        "background" | "true" => "Background",
        "foreground" => "Foreground",
        "orphan" | "false" => "Orphan",
        other => {
            return Err(Failure(format!(
                "error: invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
            )))
        }
    };
    let grace = match (ctx.args.has(&["force"]), ctx.args.get(&["grace-period"])) {
        (_, Some(g)) => Some(g.parse::<i64>().map_err(|_| Failure(format!("error: invalid argument \"{g}\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"{g}\": invalid syntax")))?),
        (true, None) => Some(0),
        // `--now`: a grace period of one second, the shortest that still lets the kubelet stop the pod.
        (false, None) if ctx.args.has(&["now"]) => Some(1),
        _ => None,
    };
    let ignore_not_found = ctx.args.has(&["ignore-not-found"]);
    if ctx.args.has(&["force"]) && grace == Some(0) {
        ctx.println("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.");
    }
    let mut last_error = None;
    let mut deleted = Vec::new();
    for (info, ns, name) in targets {
        let mut req = ctx.request(Verb::Delete, info).namespace(Some(&ns)).name(&name);
        req.params.propagation_policy = Some(propagation.to_string());
        req.params.grace_period_seconds = grace.map(|g| if g == 0 && ctx.args.has(&["force"]) { 0 } else { g.max(1) });
        match ctx.api.call(req).await? {
            ApiResponse::Object(_) => {
                deleted.push((info, ns.clone(), name.clone()));
                let what = if info.group.is_empty() {
                    info.kind.name().to_ascii_lowercase()
                } else {
                    format!("{}.{}", info.kind.name().to_ascii_lowercase(), info.group)
                };
                let operation = if grace == Some(0) && ctx.args.has(&["force"]) { "force deleted" } else { "deleted" };
                if info.namespaced {
                    ctx.println(&format!("{what} {name:?} {operation} from {ns} namespace"));
                } else {
                    ctx.println(&format!("{what} {name:?} {operation}"));
                }
            }
            ApiResponse::Error(s) if ignore_not_found && s.code == 404 => {}
            ApiResponse::Error(s) => {
                if let Some(prev) = last_error.replace(s.kubectl_line()) {
                    ctx.println(&prev);
                }
            }
            _ => {}
        }
    }
    if ctx.args.get(&["wait"]).is_none_or(|v| v != "false") {
        for (info, ns, name) in &deleted {
            wait_deleted(ctx, info, ns, name).await?;
        }
    }
    last_error.map_or(Ok(()), |l| Err(Failure(l)))
}

/// Waits until `name` is gone: a GET (404: gone already), then a list of that name from the watch cache
/// and a watch from its revision until the object is DELETED; a watch that ends before lists again, as an
/// informer does.
async fn wait_deleted(ctx: &Context, info: &'static ResourceInfo, ns: &str, name: &str) -> Result<(), Failure> {
    let namespace = info.namespaced.then_some(ns);
    let get = ctx.request(Verb::Get, info).namespace(namespace).name(name);
    match ctx.api.call(get).await {
        Ok(ApiResponse::Object(_)) => {}
        _ => return Ok(()),
    }
    let selector = format!("metadata.name={name}");
    // client-go's reflector asks for a watch of between 5 and 10 minutes (here a fixed pick per name).
    let timeout = 300 + (crate::sim::rng::fnv1a64(name.as_bytes()) % 300) as i64;
    loop {
        let mut list = ctx.request(Verb::List, info).namespace(namespace);
        list.params.field_selector = Some(selector.clone());
        list.params.limit = Some(500);
        list.params.resource_version = Some("0".into());
        let revision = match ctx.call(list).await? {
            ApiResponse::List { items, .. } if items.is_empty() => return Ok(()),
            ApiResponse::List { resource_version, .. } => resource_version,
            _ => return Ok(()),
        };
        let mut watch = ctx.request(Verb::Watch, info).namespace(namespace);
        watch.params.field_selector = Some(selector.clone());
        watch.params.resource_version = Some(revision.to_string());
        watch.params.allow_bookmarks = true;
        watch.params.timeout_seconds = Some(timeout);
        let ApiResponse::WatchStarted { watch_id, .. } = ctx.call(watch).await? else { return Ok(()) };
        while let Some(event) = ctx.api.next_event(watch_id).await {
            if event.kind == crate::api::WatchEventType::Deleted {
                return Ok(());
            }
        }
    }
}

/// The objects `TYPE[,TYPE] -l … | --field-selector … | --all` names: one list per type, in this namespace
/// or (`-A`) in all, in the order the apiserver lists them.
async fn selected(ctx: &Context) -> Result<Vec<(&'static ResourceInfo, String, String)>, Failure> {
    let words = &ctx.args.positional[1..];
    let Some(types) = words.first() else {
        return Err(super::common::error(super::common::NO_RESOURCES));
    };
    let mut out = Vec::new();
    for t in types.split(',').filter(|t| !t.is_empty()) {
        let found = super::common::targets(
            ctx,
            &[t.to_string()].iter().chain(&words[1..]).cloned().collect::<Vec<_>>(),
            super::common::NO_RESOURCES,
        )
        .await?;
        out.extend(
            found.objects.iter().map(|o| {
                (o.info(), o.namespace().map_or_else(|| ctx.namespace(), str::to_string), o.name().to_string())
            }),
        );
    }
    Ok(out)
}

async fn targets(ctx: &Context) -> Result<Vec<(&'static ResourceInfo, String, String)>, Failure> {
    let ns = ctx.namespace();
    if ctx.args.get(&["f", "filename"]).is_some() {
        let (docs, source) = super::apply::any_documents(ctx)?;
        let mut out = Vec::new();
        for d in docs {
            let v = d.value;
            let info = super::apply::info_for(ctx, &v, &source, "").await?;
            let obj_ns = v["metadata"]["namespace"].as_str().unwrap_or(&ns).to_string();
            out.push((info, obj_ns, v["metadata"]["name"].as_str().unwrap_or("").to_string()));
        }
        return Ok(out);
    }
    let words = &ctx.args.positional[1..];
    let Some(first) = words.first() else {
        return Err(super::common::error(super::common::NO_RESOURCES));
    };
    let mut out = Vec::new();
    if first.contains('/') {
        for w in words {
            let (t, n) = w.split_once('/').ok_or_else(|| Failure(("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'").to_string()))?;
            out.push((super::discovery::resolve(ctx, t).await?, ns.clone(), n.to_string()));
        }
    } else {
        let info = super::discovery::resolve(ctx, first).await?;
        for n in &words[1..] {
            out.push((info, ns.clone(), n.clone()));
        }
    }
    Ok(out)
}
