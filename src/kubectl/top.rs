//! `kubectl top node|pod`: kubectl looks for the `metrics.k8s.io` API group in its discovery data (kept in
//! its discovery cache, so no request is sent), and a kubeadm cluster serves no such group until
//! metrics-server is installed. So, as on a fresh kubeadm cluster: `error: Metrics API not available`.

use super::common;
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

pub fn top(ctx: &Context) -> Result<(), Failure> {
    let sub = ctx.args.positional.get(1).map(String::as_str).unwrap_or("");
    match sub {
        "" => return Err(Failure(HELP.into())),
        "node" | "nodes" | "no" | "pod" | "pods" | "po" => {}
        other => {
            return Err(Failure(format!(
                "error: unknown command {other:?}\nSee 'kubectl top -h' for help and examples"
            )))
        }
    }
    if let Some(sort) = ctx.args.get(&["sort-by"]) {
        if !sort.is_empty() && sort != "cpu" && sort != "memory" {
            return Err(common::error("--sort-by accepts only cpu or memory"));
        }
    }
    // The served API groups: only a metrics-server registering `v1beta1.metrics.k8s.io` would add it.
    if crate::api::RESOURCES.iter().any(|r| r.group == "metrics.k8s.io") {
        return Err(common::error("kubeglass does not simulate metrics-server's usage figures"));
    }
    Err(common::error("Metrics API not available"))
}
