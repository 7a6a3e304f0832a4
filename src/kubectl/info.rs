//! `kubectl version`, `cluster-info`, `api-resources` and `api-versions`.

use std::collections::BTreeSet;

use crate::api::RESOURCES;

use super::{Context, Failure, SERVER};

/// The client and server versions kubeglass reports (v1.34).
pub const CLIENT_VERSION: &str = "v1.34.1";
pub const KUSTOMIZE_VERSION: &str = "v5.7.1";

pub async fn version(ctx: &Context) -> Result<(), Failure> {
    ctx.println(&format!("Client Version: {CLIENT_VERSION}"));
    ctx.println(&format!("Kustomize Version: {KUSTOMIZE_VERSION}"));
    let ns_info = crate::api::lookup("namespaces").expect("namespaces are served");
    let probe = ctx.request(crate::api::Verb::Get, ns_info).name("default");
    ctx.call(probe).await?;
    ctx.println(&format!("Server Version: {CLIENT_VERSION}"));
    Ok(())
}

pub async fn cluster_info(ctx: &Context) -> Result<(), Failure> {
    let ns_info = crate::api::lookup("namespaces").expect("namespaces are served");
    ctx.call(ctx.request(crate::api::Verb::Get, ns_info).name("default")).await?;
    ctx.println(&format!(
        "\u{1b}[0;32mKubernetes control plane\u{1b}[0m is running at \u{1b}[0;33mhttps://{SERVER}\u{1b}[0m"
    ));
    ctx.println(&format!(
        "\u{1b}[0;32mCoreDNS\u{1b}[0m is running at \u{1b}[0;33mhttps://{SERVER}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\u{1b}[0m"
    ));
    ctx.println("");
    ctx.println("To further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.");
    Ok(())
}

pub fn api_resources(ctx: &Context) -> Result<(), Failure> {
    let namespaced = ctx.args.get(&["namespaced"]);
    let headers = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"].map(str::to_string).to_vec();
    let mut table = super::printers::table::Table { headers, rows: Vec::new() };
    let mut rows: Vec<_> = RESOURCES.iter().filter(|r| r.stored).collect();
    rows.sort_by_key(|r| (r.group, r.resource));
    for r in rows {
        if namespaced.is_some_and(|n| (n == "true") != r.namespaced) {
            continue;
        }
        table.rows.push(vec![
            r.resource.to_string(),
            r.short_names.join(","),
            r.api_version(),
            r.namespaced.to_string(),
            r.kind.name().to_string(),
        ]);
    }
    ctx.api.print(&table.render(ctx.args.has(&["no-headers"])));
    Ok(())
}

pub fn api_versions(ctx: &Context) -> Result<(), Failure> {
    // What discovery lists (a subresource's kind, such as autoscaling/v1's Scale, is no group version of its own).
    let versions: BTreeSet<String> = crate::apiserver::discovery::listed().map(|r| r.api_version()).collect();
    for v in versions {
        ctx.println(&v);
    }
    Ok(())
}
