//! `kubectl exec (POD | TYPE/NAME) [-c CONTAINER] [-i] [-t] [-q] -- COMMAND [ARGS…]`: reads the pod, refuses
//! completed pods, picks the container as kubectl does, then POSTs `pods/<name>/exec`; the apiserver
//! proxies it to the kubelet, which has containerd run the command. The command's output is printed; a
//! non-zero exit ends kubectl with `command terminated with exit code N` and that code. kubeglass has no
//! terminal, so `-it` prints kubectl's note that stdin is not one and runs without a TTY; with `-i`, the
//! text piped to kubectl (a scenario step's stdin) is the command's stdin.

use crate::api::{ApiResponse, ExecEnd, Kind, Verb};

use super::common;
use super::{Context, Failure};

const PATH: &str = "kubectl exec";

/// Runs `kubectl exec`; returns kubectl's exit code (the command's, when it ran and failed).
pub async fn exec(ctx: &Context) -> i32 {
    match run(ctx).await {
        Ok(code) => code,
        Err(Failure(line)) => {
            ctx.println(&line);
            1
        }
    }
}

async fn run(ctx: &Context) -> Result<i32, Failure> {
    let operands = ctx.args.operands(1);
    let command = ctx.args.after_dash();
    let pod_flag = ctx.args.get(&["p", "pod"]);
    if ctx.args.dash.is_none() && operands.len() > 1 {
        return Err(common::usage(
            PATH,
            "exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead",
        ));
    }
    let Some(target) = operands.first().map(String::as_str).or(pod_flag) else {
        return Err(common::error("pod, type/name or --filename must be specified"));
    };
    if command.is_empty() {
        return Err(common::error("you must specify at least one command for the container"));
    }
    let pod = super::logs::pod_for(ctx, target, "cannot attach to").await?;
    let name = pod.metadata.name.clone().unwrap_or_default();
    let phase = pod.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default();
    if phase == "Succeeded" || phase == "Failed" {
        return Err(common::error(format!(
            "cannot exec into a container in a completed pod; current phase is {phase}"
        )));
    }
    let quiet = ctx.args.has(&["q", "quiet"]);
    let container = match ctx.args.get(&["c", "container"]) {
        Some(c) => c.to_string(),
        None => {
            let spec = pod.spec.clone().unwrap_or_default();
            let inits: Vec<String> = spec.init_containers.iter().flatten().map(|c| c.name.clone()).collect();
            let names: Vec<String> = spec.containers.iter().map(|c| c.name.clone()).collect();
            if quiet {
                names.first().cloned().unwrap_or_default()
            } else {
                super::logs::default_container(ctx, &pod, &inits, &names)
            }
        }
    };
    let stdin = ctx.args.has(&["i", "stdin"]);
    if stdin && ctx.args.has(&["t", "tty"]) && !quiet {
        ctx.println("Unable to use a TTY - input is not a terminal or the right kind of file");
    }
    let mut req = ctx
        .request(Verb::Create, Kind::Pod.info())
        .namespace(pod.metadata.namespace.as_deref())
        .name(&name)
        .subresource("exec");
    req.params.container = Some(container);
    req.params.command = command.to_vec();
    req.params.stdin = if stdin { Some(ctx.stdin.clone().unwrap_or_default()) } else { None };
    let result = match ctx.call(req).await? {
        ApiResponse::Exec(r) => r,
        _ => return Err(common::error("the server did not open an exec stream")),
    };
    for (_, text) in &result.output {
        ctx.api.print(text);
    }
    match result.end {
        ExecEnd::Success => Ok(0),
        ExecEnd::ExitCode(code) => {
            ctx.println(&format!("command terminated with exit code {code}"));
            Ok(code)
        }
        ExecEnd::Failure(message) => Err(common::error(message)),
        // v1.34's stream translator upgrades, then reports the kubelet's refusal as an internal error.
        ExecEnd::NotUpgraded(body) => {
            Err(common::error(format!("Internal error occurred: unable to upgrade connection: {body}")))
        }
    }
}
