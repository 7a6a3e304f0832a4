//! Node verbs: `kubectl taint nodes NAME… key[=value]:Effect | key[:Effect]-` (and `--all`, `-l`,
//! `--overwrite`), sent as a strategic merge patch of `spec.taints` and reported as `node/NAME tainted`,
//! `untainted` or `modified`; `kubectl cordon|uncordon NAME…` (and `-l`), a patch of `spec.unschedulable`
//! reported as `node/NAME cordoned` or `already cordoned` (and the uncordon forms).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::{ApiResponse, Kind, Object, PatchBody, Verb};
use crate::apiserver::validation::names;

use super::common::{self, DryRun, ErrLine};
use super::{Context, Failure};

/// A taint as the command line gives it; `effect` empty means "any effect" (removal by key).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Taint {
    key: String,
    value: String,
    effect: String,
}

impl Taint {
    /// `key=value:Effect`, `key:Effect`, `key=value:` or `key` (`Taint.ToString`).
    fn shown(&self) -> String {
        match (self.value.is_empty(), self.effect.is_empty()) {
            (true, true) => self.key.clone(),
            (false, true) => format!("{}={}:", self.key, self.value),
            (true, false) => format!("{}:{}", self.key, self.effect),
            (false, false) => format!("{}={}:{}", self.key, self.value, self.effect),
        }
    }

    fn matches(&self, other: &Value) -> bool {
        other["key"].as_str() == Some(self.key.as_str()) && other["effect"].as_str() == Some(self.effect.as_str())
    }

    fn to_json(&self) -> Value {
        let mut t = json!({"effect": self.effect, "key": self.key});
        if !self.value.is_empty() {
            t["value"] = json!(self.value);
        }
        t
    }
}

fn parse_taint(spec: &str) -> Result<Taint, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (key.to_string(), String::new(), String::new()),
        [kv, effect] => {
            if !matches!(*effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
                return Err(format!("invalid taint effect: {effect}, unsupported taint effect"));
            }
            let kv: Vec<&str> = kv.split('=').collect();
            if kv.len() > 2 {
                return Err(format!("invalid taint spec: {spec}"));
            }
            let value = kv.get(1).copied().unwrap_or("").to_string();
            if kv.len() == 2 {
                let errs = names::is_valid_label_value(&value);
                if !errs.is_empty() {
                    return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
                }
            }
            (kv[0].to_string(), value, effect.to_string())
        }
        _ => return Err(format!("invalid taint spec: {spec}")),
    };
    let errs = names::is_qualified_name(&key);
    if !errs.is_empty() {
        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
    }
    Ok(Taint { key, value, effect })
}

/// `parseTaints`: additions (which need an effect and must be unique by key and effect) and removals.
fn parse_taints(specs: &[String]) -> Result<(Vec<Taint>, Vec<Taint>), String> {
    let mut add: Vec<Taint> = Vec::new();
    let mut remove = Vec::new();
    for spec in specs {
        if let Some(rest) = spec.strip_suffix('-') {
            let t = parse_taint(rest)?;
            remove.push(Taint { value: String::new(), ..t });
        } else {
            let t = parse_taint(spec)?;
            if t.effect.is_empty() {
                return Err(format!("invalid taint spec: {spec}"));
            }
            if add.iter().any(|a| a.key == t.key && a.effect == t.effect) {
                return Err(format!(
                    "duplicated taints with the same key and effect: {{{} {} {} <nil>}}",
                    t.key, t.value, t.effect
                ));
            }
            add.push(t);
        }
    }
    Ok((add, remove))
}

pub async fn taint(ctx: &Context) -> Result<(), Failure> {
    const PATH: &str = "kubectl taint";
    let mut resources = Vec::new();
    let mut specs = Vec::new();
    for w in ctx.args.operands(1) {
        let is_taint = w.contains('=') || w.contains(':') || w.ends_with('-');
        match (specs.is_empty(), is_taint) {
            (_, true) => specs.push(w.clone()),
            (true, false) => resources.push(w.clone()),
            (false, false) => {
                return Err(common::error(format!("all resources must be specified before taint changes: {w}")))
            }
        }
    }
    if resources.is_empty() {
        return Err(common::error("one or more resources must be specified as <resource> <name>"));
    }
    if specs.is_empty() {
        return Err(common::error("at least one taint update is required"));
    }
    let (add, remove) = parse_taints(&specs).map_err(|e| common::usage(PATH, &e))?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let type_name = resources[0].to_ascii_lowercase();
    let info = super::resource(&type_name)?;
    if info.kind != Kind::Node {
        return Err(common::error(format!("invalid resource type {type_name}, only node types are supported")));
    }
    let conflicting: Vec<String> = add
        .iter()
        .flat_map(|a| remove.iter().filter(move |r| r.key == a.key && (r.effect.is_empty() || r.effect == a.effect)))
        .map(|r| format!("{}={}", r.key, r.effect))
        .collect();
    if !conflicting.is_empty() {
        return Err(common::error(format!(
            "can not both modify and remove the following taint(s) in the same command: {}",
            conflicting.join(", ")
        )));
    }
    let all = ctx.args.has(&["all"]);
    let selector = ctx.args.get(&["l", "selector"]).unwrap_or("");
    if all && !selector.is_empty() {
        return Err(common::error("setting 'all' parameter with a non empty selector is prohibited"));
    }
    if !all && selector.is_empty() && resources.len() < 2 {
        return Err(common::error("at least one resource name must be specified since 'all' parameter is not set"));
    }
    let nodes = nodes(ctx, &resources[1..], selector, all).await?;
    let overwrite = ctx.args.has(&["overwrite"]);
    let mut errors = Vec::new();
    for node in nodes {
        let current: Vec<Value> = node.to_json()["spec"]["taints"].as_array().cloned().unwrap_or_default();
        if !overwrite {
            let existing: Vec<&str> =
                add.iter().filter(|a| current.iter().any(|c| a.matches(c))).map(|a| a.key.as_str()).collect();
            if !existing.is_empty() {
                errors.push(ErrLine::Plain(format!(
                    "node {} already has {} taint(s) with same effect(s) and --overwrite is false",
                    node.name(),
                    existing.join(",")
                )));
                continue;
            }
        }
        let mut updated: Vec<Value> = add.iter().map(Taint::to_json).collect();
        let mut added = false;
        for old in &current {
            if !add.iter().any(|a| a.matches(old)) {
                updated.push(old.clone());
            }
        }
        if current.len() != updated.len() {
            added = true;
        }
        let mut removed = false;
        let mut missing = Vec::new();
        for r in &remove {
            let before = updated.len();
            updated.retain(|t| {
                let key_matches = t["key"].as_str() == Some(r.key.as_str());
                !(key_matches && (r.effect.is_empty() || t["effect"].as_str() == Some(r.effect.as_str())))
            });
            removed = updated.len() != before;
            if !removed {
                missing.push(format!("taint {:?} not found", r.shown()));
            }
        }
        if !missing.is_empty() {
            errors.extend(missing.into_iter().map(ErrLine::Plain));
            continue;
        }
        let operation = if (added && removed) || overwrite {
            "modified"
        } else if added {
            "tainted"
        } else {
            "untainted"
        };
        let mut shown = node.to_json();
        shown["spec"]["taints"] = if updated.is_empty() { Value::Null } else { json!(updated) };
        if let Some(spec) = shown["spec"].as_object_mut() {
            spec.retain(|_, v| !v.is_null());
        }
        if dry == DryRun::Client {
            common::print_object(ctx, &shown, operation, dry)?;
            continue;
        }
        let taints = if updated.is_empty() { Value::Null } else { json!(updated) };
        let mut req = ctx.request(Verb::Patch, info).name(node.name());
        req.patch = Some(PatchBody::Strategic(json!({"spec": {"taints": taints}})));
        req.params.dry_run = dry == DryRun::Server;
        match ctx.api.call(req).await? {
            ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), operation, dry)?,
            ApiResponse::Error(s) => errors.push(ErrLine::Api(s.kubectl_line())),
            _ => {}
        }
    }
    common::finish(errors)
}

/// The named nodes (a missing one stops the command, as the builder without `ContinueOnError` does), or
/// those a selector or `--all` picks.
async fn nodes(ctx: &Context, names: &[String], selector: &str, all: bool) -> Result<Vec<Arc<Object>>, Failure> {
    let info = Kind::Node.info();
    if !selector.is_empty() || (all && names.is_empty()) {
        let mut req = ctx.request(Verb::List, info);
        if !selector.is_empty() {
            req.params.label_selector = Some(selector.to_string());
        }
        return Ok(match ctx.call(req).await? {
            ApiResponse::List { items, .. } => items,
            _ => Vec::new(),
        });
    }
    let mut out = Vec::new();
    for n in names {
        if let ApiResponse::Object(o) = ctx.call(ctx.request(Verb::Get, info).name(n)).await? {
            out.push(o);
        }
    }
    Ok(out)
}

pub async fn cordon(ctx: &Context, desired: bool) -> Result<(), Failure> {
    let verb = if desired { "cordon" } else { "uncordon" };
    let names: Vec<String> = ctx.args.operands(1).to_vec();
    let selector = ctx.args.get(&["l", "selector"]).unwrap_or("");
    if names.is_empty() && ctx.args.get(&["l", "selector"]).is_none() {
        return Err(common::usage(&format!("kubectl {verb}"), &format!("USAGE: {verb} NODE [flags]")));
    }
    if !names.is_empty() && !selector.is_empty() {
        // kubectl's message carries its own `error: `, so CheckErr adds none.
        return Err(Failure(format!(
            "error: cannot specify both a node name and a --selector option\nSee 'kubectl {verb} -h' for help and examples"
        )));
    }
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let mut typed = Vec::new();
    for n in &names {
        match n.split_once('/') {
            Some((t, name)) => {
                let info = super::resource(t)?;
                if info.kind != Kind::Node {
                    return Err(common::error(format!(
                        "error: expected resource of type node, got \"{}/{}, Resource={}\"",
                        info.group, info.version, info.resource
                    )));
                }
                typed.push(name.to_string());
            }
            None => typed.push(n.clone()),
        }
    }
    for node in nodes(ctx, &typed, selector, false).await? {
        let cordoned = node.to_json()["spec"]["unschedulable"].as_bool().unwrap_or(false);
        if cordoned == desired {
            common::print_object(ctx, &node.to_json(), &format!("already {verb}ed"), dry)?;
            continue;
        }
        if dry != DryRun::Client {
            let mut req = ctx.request(Verb::Patch, Kind::Node.info()).name(node.name());
            let value = if desired { json!(true) } else { Value::Null };
            req.patch = Some(PatchBody::Strategic(json!({"spec": {"unschedulable": value}})));
            req.params.dry_run = dry == DryRun::Server;
            match ctx.api.call(req).await {
                Ok(ApiResponse::Object(_)) => {}
                Ok(ApiResponse::Error(s)) => {
                    ctx.println(&format!("error: unable to {verb} node {:?}: {}", node.name(), s.message));
                    continue;
                }
                Ok(_) => {}
                Err(e) => {
                    ctx.println(&format!(
                        "error: unable to {verb} node {:?}: {}",
                        node.name(),
                        super::transport_line(&e)
                    ));
                    continue;
                }
            }
        }
        common::print_object(ctx, &node.to_json(), &format!("{verb}ed"), dry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taint_specs_parse_in_every_form() {
        let t = parse_taint("dedicated=gpu:NoSchedule").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((t.key.as_str(), t.value.as_str(), t.effect.as_str()), ("dedicated", "gpu", "NoSchedule"));
        assert_eq!(t.shown(), "dedicated=gpu:NoSchedule");
        assert_eq!(parse_taint("k:NoExecute").map(|t| t.shown()), Ok("k:NoExecute".to_string()));
        assert_eq!(parse_taint("k:Sometimes"), Err("invalid taint effect: Sometimes, unsupported taint effect".into()));
        assert!(parse_taint("a:b:c").is_err());
        assert_eq!(parse_taints(&["k".to_string()]), Err("invalid taint spec: k".into()));
        let no_effect = parse_taints(&["k=v".to_string()]).err().unwrap_or_default();
        assert!(no_effect.starts_with("invalid taint spec: k=v, name part must consist of"), "{no_effect}");
    }
}
