//! `kubectl logs (POD | TYPE/NAME | -l SELECTOR) [CONTAINER] [-c C] [--all-containers] [--tail N] [-p]
//! [--timestamps] [--prefix] [-f]`: reads the pod (or the workload, then its pods), picks the container as
//! kubectl does (`-c`, the `kubectl.kubernetes.io/default-container` annotation, else the first, with a
//! `Defaulted container …` note when there is a choice), then GETs `pods/<name>/log`, which the apiserver
//! proxies to the pod's kubelet. With `-f` a running container's log stays open: what it writes next is
//! printed as the kubelet passes it on, until the container exits (or Ctrl-C); the streams of several
//! containers are followed one after another.

use std::sync::Arc;

use crate::api::api::core::v1::Pod;
use crate::api::selector::LabelSelector;
use crate::api::{ApiResponse, Kind, Object, Verb};

use super::common::{self, ErrLine};
use super::{Context, Failure};

const PATH: &str = "kubectl logs";
const USAGE: &str = "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command";
const DEFAULT_CONTAINER: &str = "kubectl.kubernetes.io/default-container";
/// How long kubectl waits for a pod of a workload to exist (`--pod-running-timeout`).
const POD_WAIT_MS: u64 = 20_000;

pub async fn logs(ctx: &Context) -> Result<(), Failure> {
    let words = ctx.args.operands(1);
    let selector = ctx.args.get(&["l", "selector"]).filter(|s| !s.is_empty());
    if selector.is_some() && !words.is_empty() {
        return Err(common::usage(PATH, "only a selector (-l) or a POD name is allowed"));
    }
    if (selector.is_none() && words.is_empty()) || words.len() > 2 {
        return Err(common::usage(PATH, USAGE));
    }
    let tail = match ctx.args.get(&["tail"]) {
        Some(t) => t.parse::<i64>().map_err(|_| bad_flag(t, "tail"))?,
        // With a selector kubectl shows the last 10 lines of each pod unless told otherwise.
        None if selector.is_some() => 10,
        None => -1,
    };
    let container = ctx.args.get(&["c", "container"]).or(words.get(1).map(String::as_str)).map(str::to_string);
    let pods = match selector {
        Some(sel) => pods_matching(ctx, sel).await?,
        // The builder's NotFound, wrapped with the namespace (logs.go's Complete).
        None => vec![pod_for(ctx, &words[0], "cannot get the logs from").await.map_err(|Failure(line)| match line
            .strip_prefix("Error from server (NotFound): ")
        {
            Some(message) => {
                Failure(format!("error: error from server (NotFound): {message} in namespace {:?}", ctx.namespace()))
            }
            None => Failure(line),
        })?],
    };
    if pods.is_empty() {
        ctx.println(&format!("No resources found in {} namespace.", ctx.namespace()));
        return Ok(());
    }
    let all = ctx.args.has(&["all-containers"]);
    let prefix = ctx.args.has(&["prefix"]);
    let mut errors = Vec::new();
    for pod in &pods {
        for c in containers(ctx, pod, container.as_deref(), all)? {
            let name = pod.metadata.name.as_deref().unwrap_or("");
            let label = prefix.then(|| format!("[pod/{name}/{c}] "));
            let print = |text: &str| match &label {
                Some(label) => ctx.api.print(&text.lines().map(|l| format!("{label}{l}\n")).collect::<String>()),
                None => ctx.api.print(text),
            };
            match fetch(ctx, pod, &c, tail).await {
                Ok((text, stream)) => {
                    print(&text);
                    if let Some(stream_id) = stream {
                        while let Some(more) = ctx.api.next_chunk(stream_id).await {
                            print(&more);
                        }
                    }
                }
                Err(Failure(line)) if ctx.args.has(&["ignore-errors"]) => {
                    let _ = line;
                }
                Err(Failure(line)) if pods.len() == 1 => return Err(Failure(line)),
                Err(Failure(line)) => errors.push(ErrLine::Api(line)),
            }
        }
    }
    common::finish(errors)
}

/// GET `pods/<name>/log` for one container: the text, and the stream that follows it (`-f` on a running
/// container).
async fn fetch(ctx: &Context, pod: &Pod, container: &str, tail: i64) -> Result<(String, Option<u64>), Failure> {
    let mut req = ctx
        .request(Verb::Get, Kind::Pod.info())
        .namespace(pod.metadata.namespace.as_deref())
        .name(pod.metadata.name.as_deref().unwrap_or(""))
        .subresource("log");
    req.params.container = Some(container.to_string());
    req.params.tail_lines = (tail >= 0).then_some(tail);
    req.params.since_seconds = since_seconds(ctx)?;
    req.params.since_time = ctx.args.get(&["since-time"]).map(str::to_string);
    req.params.limit_bytes = match ctx.args.get(&["limit-bytes"]) {
        Some(n) => Some(n.parse::<i64>().map_err(|_| bad_flag(n, "limit-bytes"))?),
        None => None,
    };
    req.params.previous = ctx.args.has(&["p", "previous"]);
    req.params.timestamps = ctx.args.has(&["timestamps"]);
    req.params.follow = ctx.args.has(&["f", "follow"]);
    match ctx.call(req).await? {
        ApiResponse::Text(t) => Ok((t, None)),
        ApiResponse::LogStream { stream_id, text } => Ok((text, Some(stream_id))),
        _ => Ok((String::new(), None)),
    }
}

/// `--since` in whole seconds, rounded up as kubectl does.
fn since_seconds(ctx: &Context) -> Result<Option<i64>, Failure> {
    let Some(text) = ctx.args.get(&["since"]) else { return Ok(None) };
    let ms = crate::sim::time::parse_duration_ms(text).map_err(|e| {
        Failure(format!(
            "Error: invalid argument {text:?} for \"--since\" flag: {e}\nSee 'kubectl logs --help' for usage."
        ))
    })?;
    Ok(Some(ms.div_ceil(1000) as i64))
}

/// pflag's message for an integer flag whose value does not parse.
fn bad_flag(value: &str, flag: &str) -> Failure {
    Failure(format!(
        "Error: invalid argument {value:?} for \"--{flag}\" flag: strconv.ParseInt: parsing {value:?}: invalid syntax\nSee 'kubectl logs --help' for usage."
    ))
}

/// The containers to read: `--all-containers`, the one asked for, or kubectl's default.
fn containers(ctx: &Context, pod: &Pod, asked: Option<&str>, all: bool) -> Result<Vec<String>, Failure> {
    let spec = pod.spec.clone().unwrap_or_default();
    let inits: Vec<String> = spec.init_containers.iter().flatten().map(|c| c.name.clone()).collect();
    let names: Vec<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    if all {
        return Ok(inits.into_iter().chain(names).collect());
    }
    let chosen = match asked {
        Some(c) => c.to_string(),
        None => default_container(ctx, pod, &inits, &names),
    };
    let ephemeral = spec.ephemeral_containers.iter().flatten().any(|c| c.name == chosen);
    if !inits.contains(&chosen) && !names.contains(&chosen) && !ephemeral {
        return Err(common::error(format!("container {chosen} is not valid for pod {pod_name}")));
    }
    Ok(vec![chosen])
}

/// kubectl's default container: the annotation's, else the first (saying so when there was a choice).
pub fn default_container(ctx: &Context, pod: &Pod, inits: &[String], names: &[String]) -> String {
    let annotated = pod.metadata.annotations.as_ref().and_then(|a| a.get(DEFAULT_CONTAINER)).filter(|n| !n.is_empty());
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    if let Some(n) = annotated {
        if names.contains(n) || inits.contains(n) {
            return n.clone();
        }
        ctx.println(&format!("Default container name {n:?} not found in pod {pod_name}"));
    }
    let first = names.first().cloned().unwrap_or_default();
    if names.len() > 1 || !inits.is_empty() {
        let all: Vec<String> = inits.iter().chain(names).cloned().collect();
        ctx.println(&format!("Defaulted container {first:?} out of: {}", all.join(", ")));
    }
    first
}

/// The pod a `POD` or `TYPE/NAME` argument means: the pod, or the first pod of a workload (`what` starts
/// the error for kinds without pods: `cannot get the logs from`, `cannot attach to`).
pub async fn pod_for(ctx: &Context, word: &str, what: &str) -> Result<Pod, Failure> {
    let (info, name) = match word.split_once('/') {
        Some((t, n)) => (super::resource(t)?, n),
        None => (Kind::Pod.info(), word),
    };
    let ns = ctx.namespace();
    let obj = match ctx.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(name)).await? {
        ApiResponse::Object(o) => o,
        _ => return Err(common::error("the server returned no object")),
    };
    if let Object::Pod(p) = obj.as_ref() {
        return Ok((**p).clone());
    }
    let selector = workload_selector(&obj).ok_or_else(|| {
        let go_type = format!("*{}.{}", obj.info().version, obj.kind().name());
        common::error(format!("{what} {go_type}: selector for {go_type} not implemented"))
    })?;
    first_pod(ctx, &selector).await
}

/// The pod selector of a workload (or a Service's selector).
pub fn workload_selector(obj: &Object) -> Option<String> {
    let v = obj.to_json();
    let sel = match obj.kind() {
        Kind::Service => v["spec"]["selector"].clone(),
        Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet | Kind::DaemonSet | Kind::Job => {
            let s = &v["spec"]["selector"];
            let mut parts: Vec<String> = s["matchLabels"]
                .as_object()
                .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect())
                .unwrap_or_default();
            for e in s["matchExpressions"].as_array().into_iter().flatten() {
                let key = e["key"].as_str().unwrap_or("");
                let values: Vec<&str> =
                    e["values"].as_array().into_iter().flatten().filter_map(|x| x.as_str()).collect();
                match e["operator"].as_str().unwrap_or("") {
                    "In" => parts.push(format!("{key} in ({})", values.join(","))),
                    "NotIn" => parts.push(format!("{key} notin ({})", values.join(","))),
                    "Exists" => parts.push(key.to_string()),
                    "DoesNotExist" => parts.push(format!("!{key}")),
                    _ => {}
                }
            }
            return Some(parts.join(","));
        }
        _ => return None,
    };
    let m = sel.as_object()?;
    Some(m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect::<Vec<_>>().join(","))
}

/// kubectl's `GetFirstPod`: the most active pod of the selector (waiting up to 20 s for one to exist),
/// saying which it picked when there were several.
pub async fn first_pod(ctx: &Context, selector: &str) -> Result<Pod, Failure> {
    let mut waited = 0;
    loop {
        let mut pods = pods_matching(ctx, selector).await?;
        if !pods.is_empty() {
            let n = pods.len();
            pods.sort_by_key(activity);
            let pod = pods.swap_remove(0);
            if n > 1 {
                ctx.println(&format!("Found {n} pods, using pod/{}", pod.metadata.name.as_deref().unwrap_or("")));
            }
            return Ok(pod);
        }
        if waited >= POD_WAIT_MS {
            return Err(common::error("timed out waiting for the condition"));
        }
        ctx.api.sleep(1_000).await;
        waited += 1_000;
    }
}

/// Sort key: the most active pod first (assigned, running, ready, fewer restarts, older).
fn activity(p: &Pod) -> (bool, u8, bool, i32, String, String) {
    let status = p.status.clone().unwrap_or_default();
    let phase = match status.phase.as_deref() {
        Some("Running") => 0,
        Some("Unknown") => 1,
        _ => 2,
    };
    let ready = status.conditions.iter().flatten().any(|c| c.type_ == "Ready" && c.status == "True");
    let restarts = status.container_statuses.iter().flatten().map(|c| c.restart_count).max().unwrap_or(0);
    let created = p
        .metadata
        .creation_timestamp
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let unassigned = p.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or("").is_empty();
    (unassigned, phase, !ready, restarts, created, p.metadata.name.clone().unwrap_or_default())
}

/// The pods of the namespace that match `selector`.
async fn pods_matching(ctx: &Context, selector: &str) -> Result<Vec<Pod>, Failure> {
    LabelSelector::parse(selector).map_err(|e| common::error(format!("unable to parse requirement: {e}")))?;
    let ns = ctx.namespace();
    let mut req = ctx.request(Verb::List, Kind::Pod.info()).namespace(Some(&ns));
    req.params.label_selector = Some(selector.to_string());
    let items: Vec<Arc<Object>> = match ctx.call(req).await? {
        ApiResponse::List { items, .. } => items,
        _ => Vec::new(),
    };
    Ok(items
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::Pod(p) => Some((**p).clone()),
            _ => None,
        })
        .collect())
}
