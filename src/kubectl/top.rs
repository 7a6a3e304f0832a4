//! `kubectl top node|pod`: reads `metrics.k8s.io/v1beta1` (NodeMetrics, PodMetrics) through kube-apiserver,
//! which passes the request on to metrics-server, and prints kubectl's table: `NAME CPU(cores) CPU(%)
//! MEMORY(bytes) MEMORY(%)` for nodes (percentages of the node's allocatable, or capacity with
//! `--show-capacity`), `NAME CPU(cores) MEMORY(bytes)` for pods (`NAMESPACE` first with `-A`, `POD` first
//! with `--containers`, a sum line with `--sum`), CPU as millicores and memory in Mi, every cell
//! tab-terminated as kubectl writes them. Without metrics-server the group is not served, and kubectl
//! (which looks for it in its discovery data) says `error: Metrics API not available`; the same when the
//! APIService is unavailable (metrics-server stopped). Counterpart: `pkg/cmd/top`, `pkg/metricsutil`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::api::quantity::Quantity;
use crate::api::{ApiResponse, Kind, Object, Status, Verb};
use crate::metrics::api::{MetricsList, NodeMetrics, PodMetrics, ResourceList, NODE_METRICS, POD_METRICS};
use crate::sim::time::{go_duration, parse_rfc3339};

use super::common;
use super::printers::table::TabWriter;
use super::{Context, Failure};

const HELP: &str = "Display resource (CPU/memory) usage.

 The top command allows you to see the resource consumption for nodes or pods.

 This command requires Metrics Server to be correctly configured and working on the server.

Available Commands:
  node          Display resource (CPU/memory) usage of nodes
  pod           Display resource (CPU/memory) usage of pods

Usage:
  kubectl top [flags] [options]

Use \"kubectl top <command> --help\" for more information about a given command.
Use \"kubectl options\" for a list of global command-line options (applies to all commands).";

/// How old a pod must be before kubectl calls its missing metrics an error (`metricsCreationDelay`).
const METRICS_CREATION_DELAY_MS: i64 = 120_000;
const MI: i128 = 1024 * 1024;

pub async fn top(ctx: &Context) -> Result<(), Failure> {
    let sub = ctx.args.positional.get(1).map(String::as_str).unwrap_or("");
    let nodes = match sub {
        "" => return Err(Failure(HELP.into())),
        "node" | "nodes" | "no" => true,
        "pod" | "pods" | "po" => false,
        other => {
            return Err(Failure(format!(
                "error: unknown command {other:?}\nSee 'kubectl top -h' for help and examples"
            )))
        }
    };
    let sort = ctx.args.get(&["sort-by"]).unwrap_or("");
    if !sort.is_empty() && sort != "cpu" && sort != "memory" {
        return Err(common::error("--sort-by accepts only cpu or memory"));
    }
    let name = ctx.args.positional.get(2).cloned();
    let labels = ctx.args.get(&["l", "selector"]).filter(|s| !s.is_empty()).map(str::to_string);
    let fields = ctx.args.get(&["field-selector"]).filter(|s| !s.is_empty()).map(str::to_string);
    if nodes {
        if name.is_some() && labels.is_some() {
            return Err(common::error("only one of NAME or --selector can be provided"));
        }
        top_nodes(ctx, name, labels, sort).await
    } else {
        if name.is_some() && (labels.is_some() || fields.is_some()) {
            return Err(common::error("only one of NAME or selector can be provided"));
        }
        top_pods(ctx, name, labels, fields, sort).await
    }
}

/// A metrics request's answer: an item or a list of them, or kubectl's failure.
async fn fetch<T: DeserializeOwned>(
    ctx: &Context,
    req: crate::api::ApiRequest,
    named: bool,
) -> Result<Vec<T>, Failure> {
    let text = match ctx.api.call(req).await? {
        ApiResponse::Text(text) => text,
        ApiResponse::Error(s) if unavailable(&s) => return Err(common::error("Metrics API not available")),
        ApiResponse::Error(s) => return Err(Failure::from(s)),
        _ => String::new(),
    };
    let parsed = if named {
        serde_json::from_str::<T>(&text).map(|m| vec![m])
    } else {
        serde_json::from_str::<MetricsList<T>>(&text).map(|l| l.items)
    };
    parsed.map_err(|e| common::error(e.to_string()))
}

/// What kubectl's discovery would have shown as a missing or unavailable `metrics.k8s.io` group.
fn unavailable(s: &Status) -> bool {
    s.code == 503 || (s.code == 404 && s.message == Status::no_such_resource().message)
}

fn cpu_milli(usage: &ResourceList) -> i64 {
    usage.get("cpu").map(|q| Quantity::parse_or_zero(q).milli_value()).unwrap_or(0)
}

fn memory_bytes(usage: &ResourceList) -> i128 {
    usage.get("memory").map(|q| Quantity::parse_or_zero(q).value()).unwrap_or(0)
}

/// Sorts like kubectl's metrics sorters: by name, or by usage, highest first.
fn sort_rows<T>(rows: &mut [T], sort: &str, name: impl Fn(&T) -> (String, String), usage: impl Fn(&T) -> (i64, i128)) {
    rows.sort_by(|a, b| match sort {
        "cpu" => usage(b).0.cmp(&usage(a).0),
        "memory" => usage(b).1.cmp(&usage(a).1),
        _ => name(a).cmp(&name(b)),
    });
}

async fn top_nodes(ctx: &Context, name: Option<String>, labels: Option<String>, sort: &str) -> Result<(), Failure> {
    let mut req = ctx.request(Verb::List, &NODE_METRICS);
    if let Some(n) = &name {
        req = ctx.request(Verb::Get, &NODE_METRICS).name(n);
    }
    req.params.label_selector = labels.clone();
    let mut metrics: Vec<NodeMetrics> = fetch(ctx, req, name.is_some()).await?;
    if metrics.is_empty() {
        return Err(common::error("metrics not available yet"));
    }
    let node_info = Kind::Node.info();
    let nodes: Vec<Arc<Object>> = match &name {
        Some(n) => match ctx.call(ctx.request(Verb::Get, node_info).name(n)).await? {
            ApiResponse::Object(o) => vec![o],
            _ => Vec::new(),
        },
        None => {
            let mut req = ctx.request(Verb::List, node_info);
            req.params.label_selector = labels;
            match ctx.call(req).await? {
                ApiResponse::List { items, .. } => items,
                _ => Vec::new(),
            }
        }
    };
    let capacity = ctx.args.has(&["show-capacity"]);
    let mut available: BTreeMap<String, BTreeMap<String, Quantity>> = BTreeMap::new();
    for obj in &nodes {
        let Object::Node(n) = obj.as_ref() else { continue };
        let status = n.status.clone().unwrap_or_default();
        let list = if capacity { status.capacity } else { status.allocatable };
        let list = list.unwrap_or_default().into_iter().map(|(k, v)| (k, Quantity::parse_or_zero(&v.0))).collect();
        available.insert(obj.name().to_string(), list);
    }
    sort_rows(
        &mut metrics,
        sort,
        |m| (m.metadata.name.clone(), String::new()),
        |m| (cpu_milli(&m.usage), memory_bytes(&m.usage)),
    );
    let mut text = String::new();
    if !ctx.args.has(&["no-headers"]) {
        text.push_str("NAME\tCPU(cores)\tCPU(%)\tMEMORY(bytes)\tMEMORY(%)\t\n");
    }
    for m in &metrics {
        text.push_str(&format!("{}\t", m.metadata.name));
        let avail = available.remove(&m.metadata.name);
        for (resource, shown) in
            [("cpu", format!("{}m", cpu_milli(&m.usage))), ("memory", format!("{}Mi", memory_bytes(&m.usage) / MI))]
        {
            text.push_str(&format!("{shown}\t"));
            if let Some(total) = avail.as_ref().and_then(|a| a.get(resource)) {
                let used = m.usage.get(resource).map(|q| Quantity::parse_or_zero(q).milli_value()).unwrap_or(0);
                let fraction = if total.is_zero() { 0.0 } else { used as f64 / total.milli_value() as f64 * 100.0 };
                text.push_str(&format!("{}%\t", fraction as i64));
            }
        }
        text.push('\n');
    }
    for node in available.keys() {
        text.push_str(&format!("{node}\t<unknown>\t<unknown>\t<unknown>\t<unknown>\t\n"));
    }
    ctx.api.print(&TabWriter::kubectl().format(&text));
    Ok(())
}

async fn top_pods(
    ctx: &Context,
    name: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
    sort: &str,
) -> Result<(), Failure> {
    let all = ctx.all_namespaces();
    let ns = ctx.namespace();
    let namespace = if all { None } else { Some(ns.as_str()) };
    let mut req = match &name {
        Some(n) => ctx.request(Verb::Get, &POD_METRICS).namespace(namespace).name(n),
        None => ctx.request(Verb::List, &POD_METRICS).namespace(namespace),
    };
    req.params.label_selector = labels.clone();
    let mut metrics: Vec<PodMetrics> = fetch(ctx, req, name.is_some()).await?;
    let list_pods = |labels: Option<String>, fields: Option<String>| {
        let mut req = ctx.request(Verb::List, Kind::Pod.info()).namespace(namespace);
        req.params.label_selector = labels;
        req.params.field_selector = fields;
        req
    };
    if !metrics.is_empty() && fields.is_some() {
        let pods = match ctx.call(list_pods(labels.clone(), fields.clone())).await? {
            ApiResponse::List { items, .. } => items,
            _ => Vec::new(),
        };
        let selected: BTreeSet<String> = pods.iter().map(|p| p.ns_name()).collect();
        metrics.retain(|m| {
            selected.contains(&format!("{}/{}", m.metadata.namespace.as_deref().unwrap_or(""), m.metadata.name))
        });
    }
    if metrics.is_empty() {
        // Why there are none: no pods at all, pods too new to have been measured, or pods that should have been.
        let pods = match ctx.call(list_pods(labels, fields)).await? {
            ApiResponse::List { items, .. } => items,
            _ => Vec::new(),
        };
        if pods.is_empty() {
            ctx.api.print(&super::printers::table::no_resources_found(namespace));
            return Ok(());
        }
        let now = ctx.api.now().ms() as i64;
        for pod in &pods {
            let created = pod.meta().creation_timestamp.as_ref().map(|t| t.0.to_string());
            let created = created.as_deref().and_then(parse_rfc3339).map_or(0, |t| t.ms() as i64);
            let age = now - created;
            if age > METRICS_CREATION_DELAY_MS {
                return Err(common::error(format!(
                    "Metrics not available for pod {}, age: {}",
                    pod.ns_name(),
                    go_duration(age as u64)
                )));
            }
        }
        return Err(common::error("metrics not available yet"));
    }
    let containers = ctx.args.has(&["containers"]);
    let no_headers = ctx.args.has(&["no-headers"]);
    let total = |m: &PodMetrics| {
        m.containers.iter().fold((0i64, 0i128), |(c, mem), x| (c + cpu_milli(&x.usage), mem + memory_bytes(&x.usage)))
    };
    sort_rows(
        &mut metrics,
        sort,
        |m| {
            if all {
                (m.metadata.namespace.clone().unwrap_or_default(), m.metadata.name.clone())
            } else {
                (String::new(), m.metadata.name.clone())
            }
        },
        total,
    );
    let mut text = String::new();
    let mut width = 3;
    if !no_headers {
        if all {
            text.push_str("NAMESPACE\t");
            width += 1;
        }
        if containers {
            text.push_str("POD\t");
            width += 1;
        }
        text.push_str("NAME\tCPU(cores)\tMEMORY(bytes)\t\n");
    }
    let usage_cells = |cpu: i64, mem: i128| format!("{cpu}m\t{}Mi\t", mem / MI);
    let (mut sum_cpu, mut sum_mem) = (0i64, 0i128);
    for m in &metrics {
        let ns_cell = if all { format!("{}\t", m.metadata.namespace.as_deref().unwrap_or("")) } else { String::new() };
        let (cpu, mem) = total(m);
        sum_cpu += cpu;
        sum_mem += mem;
        if containers {
            let mut list = m.containers.clone();
            sort_rows(
                &mut list,
                sort,
                |c| (c.name.clone(), String::new()),
                |c| (cpu_milli(&c.usage), memory_bytes(&c.usage)),
            );
            for c in &list {
                let cells = usage_cells(cpu_milli(&c.usage), memory_bytes(&c.usage));
                text.push_str(&format!("{ns_cell}{}\t{}\t{cells}\n", m.metadata.name, c.name));
            }
        } else {
            text.push_str(&format!("{ns_cell}{}\t{}\n", m.metadata.name, usage_cells(cpu, mem)));
        }
    }
    if ctx.args.has(&["sum"]) {
        text.push_str(&"\t".repeat(width.max(2) - 2));
        text.push_str("________\t________\t\n");
        text.push_str(&"\t".repeat(width.max(3) - 3));
        text.push_str(&format!("\t{}\n", usage_cells(sum_cpu, sum_mem)));
    }
    ctx.api.print(&TabWriter::kubectl().format(&text));
    Ok(())
}
