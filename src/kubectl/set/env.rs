//! `kubectl set env (TYPE NAME | TYPE/NAME | TYPE -l SEL | TYPE --all) KEY=VALUE… KEY-… [-e KEY=VALUE]
//! [--from=configmap/NAME|secret/NAME [--keys=K,…] [--prefix=P]] [-c GLOB] [--overwrite=false] [--list
//! [--resolve]]`: sets and removes environment variables of the selected containers of a pod or pod
//! template (containers, then init containers), a `--from` source's keys as `valueFrom` references (each
//! key made a variable name: upper case, other characters `_`, with kubectl's `key mode transferred to
//! MODE` warning), and prints `deployment.apps/web env updated`; `--list` prints each container's
//! environment instead (`# Deployment web, container nginx`, references as `# NAME from configmap cfg, key
//! k`, or their values with `--resolve`). Counterpart: kubectl's `pkg/cmd/set/set_env.go` and
//! `pkg/cmd/set/env`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::super::common::{self, ErrLine};
use super::super::{Context, Failure};
use super::{pod_spec_of, select_containers, send_changes, Change};
use crate::api::{ApiResponse, Kind, Verb};

/// kubectl's `IsEnvironmentArgument` (`^(.+)=(.*)$`) or the removal form `KEY-`.
fn is_env_argument(word: &str) -> bool {
    word.find('=').is_some_and(|i| i > 0) || word.ends_with('-')
}

/// The variables to set (in order) and the names to remove, from `KEY=VALUE`, `KEY-` and `-` (the standard
/// input's `KEY=VALUE` lines, `#` starting a comment), as `envutil.ParseEnv` reads them.
fn parse_env(specs: &[String], stdin: Option<&str>) -> Result<(Vec<Value>, Vec<String>), Failure> {
    let mut env = Vec::new();
    let mut remove = Vec::new();
    let mut set = Vec::new();
    for spec in specs {
        if spec == "-" {
            let Some(text) = stdin else {
                return Err(common::error("when '-' is used, STDIN must be open"));
            };
            for line in text.lines() {
                let line = line.split('#').next().unwrap_or("");
                if let Some((k, v)) = line.split_once('=') {
                    env.push(json!({"name": k, "value": v}));
                }
            }
        } else if let Some((k, v)) = spec.split_once('=') {
            if !super::super::run::is_env_var_name(k) {
                return Err(common::error(format!(
                    "{k:?} is not a valid key name: {}",
                    super::super::run::ENV_VAR_NAME_MESSAGE
                )));
            }
            set.push(k.to_string());
            env.push(json!({"name": k, "value": v}));
        } else if let Some(k) = spec.strip_suffix('-') {
            remove.push(k.to_string());
        } else {
            return Err(common::error(format!("unknown environment variable: {spec}")));
        }
    }
    if remove.iter().any(|r| set.contains(r)) {
        return Err(common::error("can not both modify and remove the same environment variable in the same command"));
    }
    Ok((env, remove))
}

/// `updateEnv`: a set variable replaces every existing one of its name in place (or is appended); a
/// removed name goes, removal winning over setting; unrelated duplicates stay.
fn update_env(existing: &[Value], env: &[Value], remove: &[String]) -> Vec<Value> {
    let mut covered: Vec<&str> = remove.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for e in existing {
        let name = e["name"].as_str().unwrap_or("");
        if covered.contains(&name) {
            continue;
        }
        match env.iter().find(|n| n["name"].as_str() == Some(name)) {
            Some(newer) => {
                covered.push(name);
                out.push(newer.clone());
            }
            None => out.push(e.clone()),
        }
    }
    for e in env {
        let name = e["name"].as_str().unwrap_or("");
        if !covered.contains(&name) {
            covered.push(name);
            out.push(e.clone());
        }
    }
    out
}

/// A `--from` key as a variable name (`keyToEnvName`), and kubectl's warning when it had to change it.
fn key_to_env_name(ctx: &Context, key: &str) -> String {
    let name: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_uppercase() } else { '_' }).collect();
    if name != key {
        ctx.println(&format!("Warning: key {key} transferred to {name}"));
    }
    name
}

/// The `valueFrom` variables of the `--from` ConfigMap or Secret: one per key of its `data` (in key
/// order; kubectl walks a Go map), limited to `--keys` when given.
async fn from_source(ctx: &Context, from: &str) -> Result<Vec<Value>, Failure> {
    let targets = common::targets(ctx, &[from.to_string()], common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let keys = ctx.args.list(&["keys"]);
    let mut env = Vec::new();
    for obj in &targets.objects {
        let (reference, data) = match obj.info().kind {
            Kind::Secret => ("secretKeyRef", obj.to_json()["data"].clone()),
            Kind::ConfigMap => ("configMapKeyRef", obj.to_json()["data"].clone()),
            _ => return Err(common::error("unsupported resource specified in --from")),
        };
        for key in data.as_object().into_iter().flat_map(|m| m.keys()) {
            if keys.is_empty() || keys.contains(key) {
                let name = key_to_env_name(ctx, key);
                env.push(json!({"name": name, "valueFrom": {reference: {"name": obj.name(), "key": key}}}));
            }
        }
    }
    Ok(env)
}

/// How `--list` names a reference (`GetEnvVarRefString`).
fn reference(from: &Value) -> String {
    if let Some(r) = from.get("configMapKeyRef") {
        return format!("configmap {}, key {}", r["name"].as_str().unwrap_or(""), r["key"].as_str().unwrap_or(""));
    }
    if let Some(r) = from.get("secretKeyRef") {
        return format!("secret {}, key {}", r["name"].as_str().unwrap_or(""), r["key"].as_str().unwrap_or(""));
    }
    if let Some(r) = from.get("fieldRef") {
        return format!("field path {}", r["fieldPath"].as_str().unwrap_or(""));
    }
    if let Some(r) = from.get("resourceFieldRef") {
        let container =
            r["containerName"].as_str().filter(|c| !c.is_empty()).map(|c| format!("{c}/")).unwrap_or_default();
        return format!("resource field {container}{}", r["resource"].as_str().unwrap_or(""));
    }
    "invalid valueFrom".into()
}

/// A reference's value for `--resolve` (`GetEnvVarRefValue`), the ConfigMaps and Secrets read once each.
async fn resolve(
    ctx: &Context,
    from: &Value,
    obj: &Value,
    store: &mut BTreeMap<(Kind, String), Result<Value, String>>,
) -> Result<Result<String, String>, Failure> {
    for (field, kind, what) in
        [("secretKeyRef", Kind::Secret, "secret"), ("configMapKeyRef", Kind::ConfigMap, "config map")]
    {
        let Some(r) = from.get(field) else { continue };
        let (name, key) = (r["name"].as_str().unwrap_or(""), r["key"].as_str().unwrap_or(""));
        let slot = (kind, name.to_string());
        if let std::collections::btree_map::Entry::Vacant(empty) = store.entry(slot.clone()) {
            let req = ctx.request(Verb::Get, kind.info()).namespace(Some(&ctx.namespace())).name(name);
            empty.insert(match ctx.api.call(req).await? {
                ApiResponse::Object(o) => Ok(o.to_json()),
                ApiResponse::Error(s) => Err(s.message),
                _ => Err(String::new()),
            });
        }
        let read = match &store[&slot] {
            Ok(read) => read,
            Err(e) => return Ok(Err(e.clone())),
        };
        return Ok(match (kind, read["data"].get(key).and_then(Value::as_str)) {
            (Kind::Secret, Some(b64)) => data_encoding::BASE64
                .decode(b64.as_bytes())
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| e.to_string()),
            (_, Some(v)) => Ok(v.to_string()),
            (_, None) => Err(format!("key {key} not found in {what} {name}")),
        });
    }
    if let Some(r) = from.get("fieldRef") {
        let path = r["fieldPath"].as_str().unwrap_or("");
        return Ok(match path {
            "metadata.name" | "metadata.namespace" | "metadata.uid" => {
                Ok(obj["metadata"][&path["metadata.".len()..]].as_str().unwrap_or("").to_string())
            }
            _ => Err(format!("unsupported fieldPath: {path}")),
        });
    }
    Ok(Err("invalid valueFrom".into()))
}

/// `--list`: each selected container's environment after the changes asked for.
async fn list(ctx: &Context, kind: &str, obj: &Value, name: &str, container: &Value) -> Result<(), Failure> {
    ctx.println(&format!("# {kind} {name}, container {}", container["name"].as_str().unwrap_or("")));
    let mut store = BTreeMap::new();
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in container["env"].as_array().into_iter().flatten() {
        let var = e["name"].as_str().unwrap_or("");
        let Some(from) = e.get("valueFrom") else {
            ctx.println(&format!("{var}={}", e["value"].as_str().unwrap_or("")));
            continue;
        };
        if ctx.args.has(&["resolve"]) {
            match resolve(ctx, from, obj, &mut store).await? {
                Ok(value) => {
                    ctx.println(&format!("{var}={value}"));
                    continue;
                }
                Err(e) => failures.entry(e).or_default().push(var.to_string()),
            }
        }
        ctx.println(&format!("# {var} from {}", reference(from)));
    }
    for (error, mut vars) in failures {
        vars.sort();
        ctx.println(&format!("error retrieving reference for {}: {error}", vars.join(", ")));
    }
    Ok(())
}

pub async fn env(ctx: &Context) -> Result<(), Failure> {
    if ctx.args.has(&["all"]) && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --selector at the same time"));
    }
    let words = ctx.args.operands(2);
    let split = words.iter().position(|w| is_env_argument(w)).unwrap_or(words.len());
    let (resources, env_args) = words.split_at(split);
    if env_args.iter().any(|w| !is_env_argument(w)) {
        return Err(common::error(format!(
            "all resources must be specified before environment changes: {}",
            words.join(" ")
        )));
    }
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let listing = ctx.args.has(&["list"]);
    let from = ctx.args.get(&["from"]).filter(|f| !f.is_empty());
    if resources.is_empty() && ctx.args.get(&["f", "filename"]).is_none() {
        return Err(common::error("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
    }
    if listing && ctx.args.get(&["o", "output"]).is_some_and(|o| !o.is_empty()) {
        return Err(common::error("--list and --output may not be specified together"));
    }
    if !ctx.args.list(&["keys"]).is_empty() && from.is_none() {
        return Err(common::error("when specifying --keys, a configmap or secret must be provided with --from"));
    }
    let mut specs = ctx.args.all(&["e", "env"]);
    specs.extend(env_args.iter().cloned());
    let (mut env, remove) = parse_env(&specs, ctx.stdin.as_deref())?;
    if let Some(from) = from {
        env.extend(from_source(ctx, from).await?);
    }
    if let Some(prefix) = ctx.args.get(&["prefix"]).filter(|p| !p.is_empty()) {
        for e in &mut env {
            e["name"] = json!(format!("{prefix}{}", e["name"].as_str().unwrap_or("")));
        }
    }
    let targets = common::targets(ctx, resources, common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let selector = ctx.args.get(&["c", "containers"]).unwrap_or("*");
    let overwrite = ctx.args.get(&["overwrite"]) != Some("false");
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let Some(pointer) = pod_spec_of(obj, &mut errors) else { continue };
        let original = obj.to_json();
        let mut json = original.clone();
        let kind = obj.info().kind.name();
        let Some(spec) = json.pointer_mut(pointer) else { continue };
        let chosen = select_containers(spec, selector);
        if chosen.is_empty() {
            ctx.println(&format!("Warning: {kind}/{} does not have any containers matching {selector:?}", obj.name()));
            continue;
        }
        let mut refused = None;
        for (list_name, i) in chosen {
            let container = &mut spec[list_name][i];
            let existing = container["env"].as_array().cloned().unwrap_or_default();
            if !overwrite {
                refused = env.iter().find_map(|e| {
                    let current = existing.iter().find(|x| x["name"] == e["name"])?;
                    (current["value"] != e["value"]).then(|| {
                        format!(
                            "'{}' already has a value ({}), and --overwrite is false",
                            current["name"].as_str().unwrap_or(""),
                            current["value"].as_str().unwrap_or("")
                        )
                    })
                });
                if refused.is_some() {
                    break;
                }
            }
            let updated = update_env(&existing, &env, &remove);
            if updated.is_empty() {
                if let Some(c) = container.as_object_mut() {
                    c.remove("env");
                }
            } else {
                container["env"] = Value::Array(updated);
            }
            if listing {
                list(ctx, kind, &original, obj.name(), &spec[list_name][i]).await?;
            }
        }
        if listing {
            continue;
        }
        if let Some(refused) = refused {
            errors.push(ErrLine::Plain(format!("error: {}/{} {refused}\n", obj.info().resource, obj.name())));
            continue;
        }
        let change = Change {
            dry,
            operation: "env updated",
            failed: "failed to patch env update to pod template: ",
            always: false,
        };
        send_changes(ctx, obj, &original, &json, change, &mut errors).await?;
    }
    common::finish(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, value: &str) -> Value {
        json!({"name": name, "value": value})
    }

    #[test]
    fn a_set_variable_replaces_in_place_and_removal_wins() {
        let existing = [var("A", "1"), var("B", "2"), var("A", "3"), var("C", "4")];
        let out = update_env(&existing, &[var("A", "9"), var("D", "5"), var("C", "7")], &["C".into()]);
        assert_eq!(out, vec![var("A", "9"), var("B", "2"), var("D", "5")]);
    }

    #[test]
    fn arguments_set_remove_and_refuse_both_at_once() {
        let (env, remove) = parse_env(&["A=1=2".into(), "B-".into()], None).unwrap();
        assert_eq!((env, remove), (vec![var("A", "1=2")], vec!["B".to_string()]));
        let both = parse_env(&["A=1".into(), "A-".into()], None).unwrap_err();
        assert_eq!(both.0, "error: can not both modify and remove the same environment variable in the same command");
        let (env, _) = parse_env(&["-".into()], Some("X=1 # comment\n# only\nY=2\n")).unwrap();
        assert_eq!(env, vec![var("X", "1 "), var("Y", "2")]);
        assert!(parse_env(&["-".into()], None).is_err());
        assert!(parse_env(&["1X=1".into()], None).unwrap_err().0.contains("\"1X\" is not a valid key name"));
    }
}
