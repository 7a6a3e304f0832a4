//! `kubectl get TYPE [NAME] -w | --watch | --watch-only`: prints the current state (a list, or one object),
//! then watches from the list's resourceVersion (or from "0" for one object, whose synthetic ADDED event is
//! not printed) and prints one row per event as it arrives, without headers, in columns that never shrink
//! (kubectl's tabwriter remembers widths). `--watch-only` skips the current state; the header then comes
//! with the first row. It runs until the watch ends (exit 0), the process is interrupted, or
//! `--request-timeout` passes.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use crate::api::{ApiResponse, Object, ResourceInfo, Verb, WatchEvent, WatchEventType};
use crate::sim::time::parse_duration_ms;

use super::common::{self, TabWriter};
use super::printers;
use super::{Context, Failure};

/// How one watch prints: table rows through a remembering tabwriter, or `-o name` / `-o yaml` documents.
struct Printer {
    output: String,
    wide: bool,
    tab: TabWriter,
    headers_printed: bool,
    documents: usize,
}

impl Printer {
    fn print(&mut self, ctx: &Context, info: &ResourceInfo, objects: &[Arc<Object>]) -> Result<(), Failure> {
        if objects.is_empty() {
            return Ok(());
        }
        match self.output.as_str() {
            "" | "wide" => {
                let options = printers::get::GetOptions {
                    wide: self.wide,
                    all_namespaces: ctx.all_namespaces() && info.namespaced,
                    show_kind: false,
                    show_labels: ctx.args.has(&["show-labels"]),
                    label_columns: ctx.args.all(&["L", "label-columns"]).iter().flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>()).collect(),
                };
                let table = printers::get::get_table(info.kind, objects, ctx.api.now(), &options);
                let mut lines = Vec::new();
                if !self.headers_printed && !ctx.args.has(&["no-headers"]) {
                    lines.push(table.headers.clone());
                }
                self.headers_printed = true;
                lines.extend(table.rows.iter().cloned());
                ctx.api.print(&self.tab.flush(&lines));
            }
            "name" => {
                for o in objects {
                    ctx.println(&super::kind_name(o));
                }
            }
            "yaml" => {
                for o in objects {
                    if self.documents > 0 {
                        ctx.api.print("---\n");
                    }
                    self.documents += 1;
                    ctx.api.print(&common::to_yaml(&o.to_json()));
                }
            }
            "json" => {
                for o in objects {
                    ctx.api.print(&common::to_json(&o.to_json()));
                }
            }
            other => {
                return Err(common::error(format!(
                    "unable to match a printer suitable for the output format {other:?}, allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml"
                )))
            }
        }
        Ok(())
    }
}

pub async fn watch(ctx: &Context) -> Result<(), Failure> {
    let words = ctx.args.operands(1);
    let Some(first) = words.first() else {
        return Err(Failure(
            "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples".into(),
        ));
    };
    let (type_name, names): (String, Vec<String>) = match first.split_once('/') {
        Some((t, n)) => (t.to_string(), std::iter::once(n.to_string()).chain(words[1..].iter().cloned()).collect()),
        None => (first.clone(), words[1..].to_vec()),
    };
    if type_name.contains(',') {
        return Err(common::error(
            "watch is only supported on individual resources and resource collections - more than 1 resource was found",
        ));
    }
    let info = super::discovery::resolve(ctx, &type_name).await?;
    if names.len() > 1 {
        return Err(common::error(
            "watch is only supported on individual resources and resource collections, but a list of resources is found",
        ));
    }
    let timeout = match ctx.args.get(&["request-timeout"]).filter(|t| *t != "0") {
        Some(t) => Some(parse_duration_ms(t).or_else(|_| t.parse::<u64>().map(|s| s * 1000)).map_err(|_| {
            common::error("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)")
        })?),
        None => None,
    };
    let output = ctx.args.get(&["o", "output"]).unwrap_or("").to_string();
    let mut printer =
        Printer { wide: output == "wide", output, tab: TabWriter::default(), headers_printed: false, documents: 0 };
    let ns = ctx.namespace();
    let namespace = if ctx.all_namespaces() && names.is_empty() || !info.namespaced { None } else { Some(ns.as_str()) };
    let watch_only = ctx.args.has(&["watch-only"]);
    let mut req = ctx.request(Verb::Watch, info).namespace(namespace);
    req.params.label_selector = ctx.args.get(&["l", "selector"]).map(str::to_string);
    req.params.field_selector = ctx.args.get(&["field-selector"]).map(str::to_string);
    // A single object: print it, then watch it from "now" and drop the synthetic ADDED event.
    let mut skip_first = false;
    if let Some(name) = names.first() {
        let current = ctx.call(ctx.request(Verb::Get, info).namespace(namespace).name(name)).await?;
        if let (false, ApiResponse::Object(o)) = (watch_only, current) {
            printer.print(ctx, info, &[o])?;
        }
        req.params.field_selector = Some(format!("metadata.name={name}"));
        req.params.resource_version = Some("0".into());
        skip_first = true;
    } else {
        let mut list = ctx.request(Verb::List, info).namespace(namespace);
        list.params.label_selector = req.params.label_selector.clone();
        list.params.field_selector = req.params.field_selector.clone();
        if let ApiResponse::List { items, resource_version, .. } = ctx.call(list).await? {
            if !watch_only {
                printer.print(ctx, info, &items)?;
            }
            req.params.resource_version = Some(resource_version.to_string());
        }
    }
    let ApiResponse::WatchStarted { watch_id, .. } = ctx.call(req).await? else {
        return Ok(());
    };
    let mut timer = timeout.map(|ms| Box::pin(ctx.api.sleep(ms)));
    loop {
        let mut next = Box::pin(ctx.api.next_event(watch_id));
        let step = std::future::poll_fn(|cx: &mut TaskContext<'_>| {
            if let Poll::Ready(e) = next.as_mut().poll(cx) {
                return Poll::Ready(Some(e));
            }
            match timer.as_mut().map(|t| t.as_mut().poll(cx)) {
                Some(Poll::Ready(())) => Poll::Ready(None),
                _ => Poll::Pending,
            }
        })
        .await;
        // The request timeout passed, or the server ended the watch: kubectl exits quietly.
        let Some(Some(event)) = step else { return Ok(()) };
        if !print_event(ctx, info, &mut printer, &event, &mut skip_first)? {
            return Ok(());
        }
    }
}

/// Prints one event; false when the watch has failed and kubectl stops.
fn print_event(
    ctx: &Context,
    info: &ResourceInfo,
    printer: &mut Printer,
    event: &WatchEvent,
    skip_first: &mut bool,
) -> Result<bool, Failure> {
    match event.kind {
        WatchEventType::Bookmark => Ok(true),
        WatchEventType::Error => Ok(false),
        _ => {
            if std::mem::take(skip_first) {
                return Ok(true);
            }
            if let Some(o) = &event.object {
                printer.print(ctx, info, std::slice::from_ref(o))?;
            }
            Ok(true)
        }
    }
}
