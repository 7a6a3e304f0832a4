//! `kubectl wait (TYPE/NAME | TYPE NAME | TYPE -l SELECTOR | TYPE --all) --for=delete|condition=C[=V]|
//! jsonpath='{…}'[=V] [--timeout=30s]`: reads each object; if the condition does not hold yet, watches it
//! (field selector `metadata.name=NAME`, from the version just read) until it does or the timeout passes.
//! Prints `pod/web condition met` per object, or `error: timed out waiting for the condition on pods/web`.
//! `--timeout=0` checks once (`error: condition not met for pods/web`); a negative timeout waits a week.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use serde_json::Value;

use crate::api::{ApiResponse, Object, Verb, WatchEventType};
use crate::sim::time::parse_duration_ms;

use super::common::{self, ErrLine};
use super::printers::jsonpath::{go_v, JsonPath};
use super::{kind_name, Context, Failure};

const WEEK_MS: u64 = 168 * 3_600_000;

/// What `--for` asks.
enum Condition {
    Delete,
    Status { name: String, value: String },
    JsonPath { path: JsonPath, value: Option<String> },
}

pub async fn wait(ctx: &Context) -> Result<(), Failure> {
    let timeout = timeout_ms(ctx)?;
    let condition = Condition::parse(ctx.args.get(&["for"]).unwrap_or(""))?;
    let delete = matches!(condition, Condition::Delete);
    let targets = common::targets(ctx, ctx.args.operands(1), common::NO_RESOURCES).await?;
    // --for=delete counts an object that is already gone as deleted.
    let errors: Vec<ErrLine> = targets
        .errors
        .into_iter()
        .filter(|e| !(delete && matches!(e, ErrLine::Api(l) if l.contains("(NotFound)"))))
        .collect();
    if let Some(first) = errors.into_iter().next() {
        return common::finish(vec![first]);
    }
    if targets.objects.is_empty() && !delete {
        return Err(common::error("no matching resources found"));
    }
    for obj in &targets.objects {
        let done = match &condition {
            Condition::Delete => wait_deleted(ctx, obj, timeout).await?,
            check => wait_until(ctx, obj, check, timeout).await?,
        };
        ctx.println(&format!("{} condition met", kind_name(&done)));
    }
    Ok(())
}

/// `--timeout` in ms (a negative one is a week), as pflag's duration flag reads it.
fn timeout_ms(ctx: &Context) -> Result<u64, Failure> {
    let Some(text) = ctx.args.get(&["timeout"]) else { return Ok(30_000) };
    let bad = |e: String| {
        Failure(format!(
            "Error: invalid argument {text:?} for \"--timeout\" flag: {e}\nSee 'kubectl wait --help' for usage."
        ))
    };
    match text.strip_prefix('-') {
        Some(rest) => parse_duration_ms(rest)
            .map_err(|e| bad(e.replace(&format!("{rest:?}"), &format!("{text:?}"))))
            .map(|ms| if ms == 0 { 0 } else { WEEK_MS }),
        None => parse_duration_ms(text).map_err(bad),
    }
}

impl Condition {
    fn parse(text: &str) -> Result<Condition, Failure> {
        if text.eq_ignore_ascii_case("delete") {
            return Ok(Condition::Delete);
        }
        if let Some(rest) = text.strip_prefix("condition=") {
            let (name, value) = rest.split_once('=').unwrap_or((rest, "true"));
            return Ok(Condition::Status { name: name.to_string(), value: value.to_string() });
        }
        if let Some(rest) = text.strip_prefix("jsonpath=") {
            let parts: Vec<&str> = rest.split('=').collect();
            if parts.len() > 2 {
                return Err(common::error(
                    "jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'",
                ));
            }
            if parts[0].is_empty() {
                return Err(common::error("jsonpath expression cannot be empty"));
            }
            let expr = super::printers::output::relaxed_jsonpath(parts[0]).map_err(common::error)?;
            let value = match parts.get(1) {
                Some(&"") => {
                    return Err(common::error(
                        "jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3",
                    ))
                }
                Some(v) => Some(v.trim_matches(['\'', '"']).to_string()),
                None => None,
            };
            let path = JsonPath::parse(&expr).map_err(common::error)?;
            return Ok(Condition::JsonPath { path, value });
        }
        Err(common::error(format!("unrecognized condition: {text:?}")))
    }

    /// Whether `obj` meets the condition (an error for a jsonpath that finds more than one value).
    fn met(&self, obj: &Object) -> Result<bool, Failure> {
        let v = obj.to_json();
        match self {
            Condition::Delete => Ok(false),
            Condition::Status { name, value } => Ok(condition_met(&v, name, value)),
            Condition::JsonPath { path, value } => {
                let results = path.find_results(&v).map_err(common::error)?;
                let Some(first) = results.first().filter(|g| !g.is_empty()) else { return Ok(false) };
                if results.len() > 1 {
                    return Err(common::error("given jsonpath expression matches more than one list"));
                }
                if first.len() > 1 {
                    return Err(common::error("given jsonpath expression matches more than one value"));
                }
                let Some(want) = value else { return Ok(true) };
                if first[0].is_object() || first[0].is_array() {
                    return Err(common::error("jsonpath leads to a nested object or list which is not supported"));
                }
                Ok(go_v(&first[0]).trim() == want.trim())
            }
        }
    }
}

/// A status condition of type `name` (any case) with status `value` (any case), not older than the spec.
fn condition_met(v: &Value, name: &str, value: &str) -> bool {
    let generation = v["metadata"]["generation"].as_i64();
    for c in v["status"]["conditions"].as_array().into_iter().flatten() {
        let (Some(t), Some(s)) = (c["type"].as_str(), c["status"].as_str()) else { continue };
        if !t.eq_ignore_ascii_case(name) {
            continue;
        }
        let observed = c["observedGeneration"].as_i64().or_else(|| v["status"]["observedGeneration"].as_i64());
        if let (Some(g), Some(o)) = (generation, observed) {
            if o < g {
                return false;
            }
        }
        return s.eq_ignore_ascii_case(value);
    }
    false
}

/// `pods/web`: how kubectl's wait errors name an object.
fn resource_name(obj: &Object) -> String {
    format!("{}/{}", obj.info().resource, obj.name())
}

/// Waits for `check` on `obj`; the object that met it.
async fn wait_until(ctx: &Context, obj: &Object, check: &Condition, timeout: u64) -> Result<Object, Failure> {
    if check.met(obj)? {
        return Ok(obj.clone());
    }
    if timeout == 0 {
        return Err(common::error(format!("condition not met for {}", resource_name(obj))));
    }
    let mut watch = Watch::start(ctx, obj, timeout).await?;
    while let Some(event) = watch.next(ctx).await {
        if let (WatchEventType::Added | WatchEventType::Modified, Some(o)) = (event.kind, event.object.as_deref()) {
            if check.met(o)? {
                return Ok(o.clone());
            }
        }
    }
    Err(common::error(format!("timed out waiting for the condition on {}", resource_name(obj))))
}

/// Waits for `obj` to be gone.
async fn wait_deleted(ctx: &Context, obj: &Object, timeout: u64) -> Result<Object, Failure> {
    if timeout == 0 {
        return Err(common::error(format!("condition not met for {}", resource_name(obj))));
    }
    let mut watch = Watch::start(ctx, obj, timeout).await?;
    while let Some(event) = watch.next(ctx).await {
        if event.kind == WatchEventType::Deleted {
            return Ok(obj.clone());
        }
    }
    Err(common::error(format!("timed out waiting for the condition on {}", resource_name(obj))))
}

/// A watch on one object (field selector `metadata.name`) that ends at a deadline.
pub(super) struct Watch<'a> {
    id: Option<u64>,
    deadline: Pin<Box<dyn Future<Output = ()> + 'a>>,
}

impl<'a> Watch<'a> {
    async fn start(ctx: &'a Context, obj: &Object, timeout: u64) -> Result<Watch<'a>, Failure> {
        let version = obj.resource_version().to_string();
        Watch::named(ctx, obj.info(), obj.namespace(), obj.name(), version, timeout).await
    }

    /// Watches the object `name` from `resource_version` for `timeout` ms.
    pub(super) async fn named(
        ctx: &'a Context,
        info: &'static crate::api::ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        resource_version: String,
        timeout: u64,
    ) -> Result<Watch<'a>, Failure> {
        let mut req = ctx.request(Verb::Watch, info).namespace(namespace);
        req.params.field_selector = Some(format!("metadata.name={name}"));
        req.params.resource_version = Some(resource_version);
        let id = match ctx.call(req).await? {
            ApiResponse::WatchStarted { watch_id, .. } => Some(watch_id),
            _ => None,
        };
        Ok(Watch { id, deadline: Box::pin(ctx.api.sleep(timeout)) })
    }

    /// The next event, or None once the deadline passed.
    pub(super) async fn next(&mut self, ctx: &Context) -> Option<crate::api::WatchEvent> {
        loop {
            let mut event = match self.id {
                Some(id) => Box::pin(ctx.api.next_event(id)) as Pin<Box<dyn Future<Output = _>>>,
                None => Box::pin(std::future::pending()),
            };
            let deadline = &mut self.deadline;
            let got = std::future::poll_fn(|cx| {
                if let Poll::Ready(e) = event.as_mut().poll(cx) {
                    return Poll::Ready(Some(e));
                }
                match deadline.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(None),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await;
            match got {
                None => return None,
                Some(Some(e)) => return Some(e),
                // The watch ended (the apiserver went away): wait out the deadline.
                Some(None) => self.id = None,
            }
        }
    }
}
