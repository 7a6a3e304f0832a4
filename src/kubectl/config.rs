//! `kubectl config`: `current-context`, `get-contexts`, `get-clusters`, `get-users`, `use-context`,
//! `set-context [NAME | --current] [--namespace] [--cluster] [--user]` and `view [--minify]`, reading and
//! rewriting the kubeconfig file the cluster shares with kubectl (see [`super::kubeconfig`]).

use super::common::{self, TabWriter};
use super::kubeconfig::KubeContext;
use super::{Context, Failure};

pub fn config(ctx: &Context) -> Result<(), Failure> {
    let sub = ctx.args.positional.get(1).map(String::as_str).unwrap_or("");
    let operands = ctx.args.operands(2);
    match sub {
        "current-context" => current_context(ctx),
        "get-contexts" => get_contexts(ctx, operands),
        "get-clusters" => {
            let k = ctx.kubeconfig.read();
            ctx.println("NAME");
            k.clusters.keys().for_each(|n| ctx.println(n));
            Ok(())
        }
        "get-users" => {
            let k = ctx.kubeconfig.read();
            ctx.println("NAME");
            k.users.keys().for_each(|n| ctx.println(n));
            Ok(())
        }
        "use-context" | "use" => use_context(ctx, operands),
        "set-context" => set_context(ctx, operands),
        "view" => view(ctx),
        "" => Err(common::usage("kubectl config", "unknown command \"\"")),
        _ => Err(common::usage("kubectl config", &format!("unknown command {:?}", ctx.args.operands(1).join(" ")))),
    }
}

fn current_context(ctx: &Context) -> Result<(), Failure> {
    let k = ctx.kubeconfig.read();
    if k.current_context.is_empty() {
        return Err(common::error("current-context is not set"));
    }
    ctx.println(&k.current_context);
    Ok(())
}

fn get_contexts(ctx: &Context, names: &[String]) -> Result<(), Failure> {
    let k = ctx.kubeconfig.read();
    let name_only = match ctx.args.get(&["o", "output"]).unwrap_or("") {
        "" => false,
        "name" => true,
        other => return Err(common::error(format!("output must be one of '' or 'name': {other}"))),
    };
    let mut errors = Vec::new();
    let mut shown: Vec<&String> = Vec::new();
    if names.is_empty() {
        shown.extend(k.contexts.keys());
    } else {
        for n in names {
            match k.contexts.get_key_value(n) {
                Some((key, _)) => shown.push(key),
                None => errors.push(format!("context {n} not found")),
            }
        }
    }
    shown.sort();
    let mut lines = Vec::new();
    if !name_only && !ctx.args.has(&["no-headers"]) {
        lines.push(["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"].map(str::to_string).to_vec());
    }
    for name in shown {
        let Some(c) = k.contexts.get(name) else { continue };
        if name_only {
            lines.push(vec![name.clone()]);
        } else {
            let mark = if *name == k.current_context { "*" } else { " " };
            let ns = c.namespace.clone().unwrap_or_default();
            lines.push(vec![mark.to_string(), name.clone(), c.cluster.clone(), c.user.clone(), ns]);
        }
    }
    ctx.api.print(&TabWriter::default().flush(&lines));
    match errors.len() {
        0 => Ok(()),
        1 => Err(common::error(&errors[0])),
        _ => Err(common::error(format!("[{}]", errors.join(", ")))),
    }
}

fn use_context(ctx: &Context, operands: &[String]) -> Result<(), Failure> {
    let name = match operands {
        [n] => n.clone(),
        other => return Err(common::error(format!("Unexpected args: [{}]", other.join(" ")))),
    };
    if name.is_empty() {
        return Err(common::error("empty context names are not allowed"));
    }
    let mut k = ctx.kubeconfig.read();
    if !k.contexts.contains_key(&name) {
        return Err(common::error(format!("no context exists with the name: {name:?}")));
    }
    k.current_context = name.clone();
    ctx.kubeconfig.write(k);
    ctx.println(&format!("Switched to context {name:?}."));
    Ok(())
}

fn set_context(ctx: &Context, operands: &[String]) -> Result<(), Failure> {
    if operands.len() > 1 {
        return Err(common::error(format!("Unexpected args: [{}]", operands.join(" "))));
    }
    let current = ctx.args.has(&["current"]);
    let given = operands.first().cloned().unwrap_or_default();
    match (given.is_empty(), current) {
        (true, false) => return Err(common::error("you must specify a non-empty context name or --current")),
        (false, true) => return Err(common::error("you cannot specify both a context name and --current")),
        _ => {}
    }
    let mut k = ctx.kubeconfig.read();
    let name = if current {
        if k.current_context.is_empty() {
            return Err(common::error("no current context is set"));
        }
        k.current_context.clone()
    } else {
        given
    };
    let exists = k.contexts.contains_key(&name);
    let mut context = k.contexts.get(&name).cloned().unwrap_or(KubeContext {
        cluster: String::new(),
        user: String::new(),
        namespace: None,
    });
    if let Some(c) = ctx.args.get(&["cluster"]) {
        context.cluster = c.to_string();
    }
    if let Some(u) = ctx.args.get(&["user"]) {
        context.user = u.to_string();
    }
    if let Some(ns) = ctx.args.flags.get("namespace").and_then(|v| v.last()) {
        context.namespace = (!ns.is_empty()).then(|| ns.clone());
    }
    k.contexts.insert(name.clone(), context);
    ctx.kubeconfig.write(k);
    let verb = if exists { "modified" } else { "created" };
    ctx.println(&format!("Context {name:?} {verb}."));
    Ok(())
}

fn view(ctx: &Context) -> Result<(), Failure> {
    let k = ctx.kubeconfig.read();
    let value = k.view(ctx.args.has(&["minify"]));
    match ctx.args.get(&["o", "output"]).unwrap_or("yaml") {
        "yaml" => ctx.api.print(&common::to_yaml(&value)),
        "json" => ctx.api.print(&common::to_json(&value)),
        other => {
            return Err(common::error(format!(
                "unable to match a printer suitable for the output format {other:?}, allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,template,templatefile,yaml"
            )))
        }
    }
    Ok(())
}
