//! `kubectl version`, `cluster-info`, `api-resources` and `api-versions`.

use std::collections::BTreeSet;

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

/// `kubectl api-resources`: what discovery lists, grouped by API group (or sorted `--sort-by=name|kind`),
/// filtered by `--api-group`, `--namespaced`, `--verbs` and `--categories`; `-o wide` adds the verbs and
/// categories, `-o name` prints `resource.group`.
pub async fn api_resources(ctx: &Context) -> Result<(), Failure> {
    let output = ctx.args.get(&["o", "output"]).unwrap_or("");
    if !matches!(output, "" | "wide" | "name") {
        return Err(Failure(format!("error: --output {output} is not available")));
    }
    let sort_by = ctx.args.get(&["sort-by"]).unwrap_or("");
    if !matches!(sort_by, "" | "name" | "kind") {
        return Err(Failure("error: --sort-by accepts only name or kind".to_string()));
    }
    let list = |name: &[&str]| -> Vec<String> {
        ctx.args
            .get(name)
            .map(|v| v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let (verbs, categories) = (list(&["verbs"]), list(&["categories"]));
    let group = ctx.args.get(&["api-group"]);
    let namespaced = ctx.args.get(&["namespaced"]);
    let discovered = super::discovery::discover(ctx).await?;
    let mut rows: Vec<&super::discovery::Discovered> = discovered
        .iter()
        .filter(|r| r.preferred)
        .filter(|r| group.is_none_or(|g| g == r.group))
        .filter(|r| namespaced.is_none_or(|n| (n == "true") == r.namespaced))
        .filter(|r| verbs.iter().all(|v| r.verbs.contains(v)))
        .filter(|r| categories.iter().all(|c| r.categories.contains(c)))
        .collect();
    rows.sort_by(|a, b| (&a.group, &a.resource).cmp(&(&b.group, &b.resource)));
    match sort_by {
        "name" => rows.sort_by(|a, b| a.resource.cmp(&b.resource)),
        "kind" => rows.sort_by(|a, b| a.kind.cmp(&b.kind)),
        _ => {}
    }
    if output == "name" {
        for r in rows {
            ctx.println(&r.qualified());
        }
        return Ok(());
    }
    let mut headers = vec!["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"];
    if output == "wide" {
        headers.extend(["VERBS", "CATEGORIES"]);
    }
    let headers = headers.into_iter().map(str::to_string).collect();
    let mut table = super::printers::table::Table { headers, rows: Vec::new() };
    for r in rows {
        let mut row = vec![
            r.resource.clone(),
            r.short_names.join(","),
            r.api_version(),
            r.namespaced.to_string(),
            r.kind.clone(),
        ];
        if output == "wide" {
            row.push(r.verbs.join(","));
            row.push(r.categories.join(","));
        }
        table.rows.push(row);
    }
    ctx.api.print(&table.render(ctx.args.has(&["no-headers"])));
    Ok(())
}

pub async fn api_versions(ctx: &Context) -> Result<(), Failure> {
    // Every group version discovery lists (a subresource's kind, such as autoscaling/v1's Scale, is no
    // group version of its own).
    let versions: BTreeSet<String> =
        super::discovery::discover(ctx).await?.iter().map(super::discovery::Discovered::api_version).collect();
    for v in versions {
        ctx.println(&v);
    }
    Ok(())
}
