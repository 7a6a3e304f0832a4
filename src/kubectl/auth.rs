//! `kubectl auth can-i VERB (TYPE | TYPE/NAME | /URL) [--subresource] [-n NS | -A] [-q]` and `--list`, and
//! `kubectl auth whoami`. Like real kubectl these ask the apiserver: `can-i` creates a
//! `SelfSubjectAccessReview` (or, with `--list`, a `SelfSubjectRulesReview`) and prints `yes` (exit 0) or
//! `no` (exit 1); `whoami` creates a `SelfSubjectReview` and prints the `ATTRIBUTE  VALUE` table. Nothing is
//! stored: the apiserver answers from its authenticator and authorizer (see `apiserver::review`).

use serde_json::{json, Value};

use crate::api::{lookup, lookup_resource, ApiResponse, Object, Verb};

use super::common::{self, TabWriter};
use super::{Context, Failure};

/// Verbs `can-i` knows for resources and for non-resource URLs; others get a warning.
const RESOURCE_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "impersonate",
    "*",
    "approve",
    "sign",
    "escalate",
    "attest",
];
const NON_RESOURCE_VERBS: &[&str] = &["get", "put", "post", "head", "options", "delete", "patch", "*"];

pub async fn auth(ctx: &Context) -> Result<(), Failure> {
    match ctx.args.positional.get(1).map(String::as_str) {
        Some("can-i") => can_i(ctx).await,
        Some("whoami") => whoami(ctx).await,
        Some(other) => Err(common::usage("kubectl auth", &format!("unknown command {other:?}"))),
        None => Err(common::usage("kubectl auth", "unknown command \"\"")),
    }
}

/// kubectl's warning line on stderr (`Warning: …`); messages that end in a newline leave a blank line.
fn warn(ctx: &Context, message: &str) {
    ctx.println(&format!("Warning: {message}"));
}

/// What `can-i` asks about, after resolving the resource as kubectl's REST mapper does.
struct Question {
    verb: String,
    group: String,
    resource: String,
    name: String,
    url: String,
}

async fn can_i(ctx: &Context) -> Result<(), Failure> {
    let args = ctx.args.operands(2);
    let list = ctx.args.has(&["list"]);
    let quiet = ctx.args.has(&["q", "quiet"]);
    let all_namespaces = ctx.all_namespaces();
    let subresource = ctx.args.get(&["subresource"]).unwrap_or("").to_string();
    if list {
        if !args.is_empty() {
            return Err(common::error("list option must be specified with no arguments"));
        }
        if quiet || all_namespaces || !subresource.is_empty() {
            return Err(common::error(
                "list option can't be specified with neither quiet, all-namespaces nor subresource options",
            ));
        }
        return list_rules(ctx).await;
    }
    let q = match args {
        [verb, target] => question(ctx, verb, target),
        _ => {
            return Err(common::error(
                "you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.",
            ))
        }
    };
    let namespace = if all_namespaces { String::new() } else { ctx.namespace() };
    if !q.url.is_empty() {
        if !subresource.is_empty() {
            return Err(common::error("--subresource can not be used with NonResourceURL"));
        }
        if !NON_RESOURCE_VERBS.contains(&q.verb.as_str()) {
            warn(ctx, &format!("verb '{}' is not a known verb\n", q.verb));
        }
    } else if !q.resource.is_empty() && !all_namespaces {
        if let Some(info) = lookup_resource(&q.group, &q.resource).filter(|i| !i.namespaced) {
            if info.group.is_empty() {
                warn(ctx, &format!("resource '{}' is not namespace scoped\n", q.resource));
            } else {
                warn(ctx, &format!("resource '{}' is not namespace scoped in group '{}'\n", q.resource, q.group));
            }
        }
        if !RESOURCE_VERBS.contains(&q.verb.as_str()) {
            warn(ctx, &format!("verb '{}' is not a known verb\n", q.verb));
        }
    }
    if ctx.args.has(&["no-headers"]) {
        return Err(common::error("--no-headers cannot be set without --list specified"));
    }
    let spec = if q.url.is_empty() {
        json!({"resourceAttributes": {
            "group": q.group, "name": q.name, "namespace": namespace, "resource": q.resource,
            "subresource": subresource, "verb": q.verb,
        }})
    } else {
        json!({"nonResourceAttributes": {"path": q.url, "verb": q.verb}})
    };
    let review = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "metadata": {},
        "spec": strip_empty(spec),
    });
    let info = crate::api::Kind::SelfSubjectAccessReview.info();
    let mut req = ctx.request(Verb::Create, info);
    req.raw_body = Some(review);
    let ApiResponse::Object(answer) = ctx.call(req).await? else {
        return Err(common::error("the server answered without a review"));
    };
    let Object::SelfSubjectAccessReview(r) = answer.as_ref() else {
        return Err(common::error("the server answered without a review"));
    };
    let status = r.status.clone().unwrap_or_default();
    if status.allowed {
        if !quiet {
            ctx.println("yes");
        }
        return Ok(());
    }
    if !quiet {
        let mut line = "no".to_string();
        if let Some(reason) = status.reason.filter(|r| !r.is_empty()) {
            line.push_str(&format!(" - {reason}"));
        }
        if let Some(e) = status.evaluation_error.filter(|e| !e.is_empty()) {
            line.push_str(&format!(" - {e}"));
        }
        ctx.println(&line);
    }
    Err(Failure(String::new()))
}

/// Resolves `TYPE[/NAME]` or `/URL` (`resourceFor`): a resource the server serves, else as typed, with a
/// warning unless it is one of the names RBAC knows without discovery (`users`, `groups`).
fn question(ctx: &Context, verb: &str, target: &str) -> Question {
    let mut q = Question {
        verb: verb.to_string(),
        group: String::new(),
        resource: String::new(),
        name: String::new(),
        url: String::new(),
    };
    if target.starts_with('/') {
        q.url = target.to_string();
        return q;
    }
    let (type_part, name) = target.split_once('/').unwrap_or((target, ""));
    q.name = name.to_string();
    if type_part == "*" {
        q.resource = "*".into();
        return q;
    }
    let lower = type_part.to_ascii_lowercase();
    match lookup(&lower) {
        Some(info) => {
            q.group = info.group.to_string();
            q.resource = info.resource.to_string();
        }
        None => {
            let (resource, group) = lower.split_once('.').unwrap_or((lower.as_str(), ""));
            if !matches!(lower.as_str(), "users" | "groups") {
                if group.is_empty() {
                    warn(ctx, &format!("the server doesn't have a resource type '{resource}'\n"));
                } else {
                    warn(ctx, &format!("the server doesn't have a resource type '{resource}' in group '{group}'\n"));
                }
            }
            q.resource = type_part.to_string();
        }
    }
    q
}

/// Drops empty strings from the review's attributes (Go's `omitempty`).
fn strip_empty(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.retain(|_, x| x.as_str() != Some(""));
        for x in m.values_mut() {
            *x = strip_empty(x.take());
        }
    }
    v
}

/// A rule as `can-i --list` handles it: (api groups, resources, resource names, non-resource URLs, verbs).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    urls: Vec<String>,
    verbs: Vec<String>,
}

impl Rule {
    /// `PolicyRule.String()`, which kubectl sorts the rules by.
    fn sort_key(&self) -> String {
        format!(
            "&PolicyRule{{Verbs:[{}],APIGroups:[{}],Resources:[{}],ResourceNames:[{}],NonResourceURLs:[{}],}}",
            self.verbs.join(" "),
            self.groups.join(" "),
            self.resources.join(" "),
            self.names.join(" "),
            self.urls.join(" ")
        )
    }
}

/// One rule per (group, resource, verb[, name]) and per (URL, verb) (`rbac.BreakdownRule`).
fn breakdown(r: &Rule) -> Vec<Rule> {
    let mut out = Vec::new();
    for g in &r.groups {
        for res in &r.resources {
            for v in &r.verbs {
                let one = |names: Vec<String>| Rule {
                    groups: vec![g.clone()],
                    resources: vec![res.clone()],
                    names,
                    urls: Vec::new(),
                    verbs: vec![v.clone()],
                };
                if r.names.is_empty() {
                    out.push(one(Vec::new()));
                } else {
                    out.extend(r.names.iter().map(|n| one(vec![n.clone()])));
                }
            }
        }
    }
    for u in &r.urls {
        for v in &r.verbs {
            out.push(Rule {
                groups: Vec::new(),
                resources: Vec::new(),
                names: Vec::new(),
                urls: vec![u.clone()],
                verbs: vec![v.clone()],
            });
        }
    }
    out
}

/// Merges the verbs of rules about the same (group, resource, name) (`rbac.CompactRules`).
fn compact(rules: Vec<Rule>) -> Vec<Rule> {
    let mut out: Vec<Rule> = Vec::new();
    let mut simple: Vec<Rule> = Vec::new();
    for r in rules {
        let is_simple = r.urls.is_empty() && r.names.len() <= 1 && r.groups.len() == 1 && r.resources.len() == 1;
        if !is_simple {
            out.push(r);
            continue;
        }
        match simple.iter_mut().find(|s| s.groups == r.groups && s.resources == r.resources && s.names == r.names) {
            Some(existing) => {
                for v in r.verbs {
                    if !existing.verbs.contains(&v) {
                        existing.verbs.push(v);
                    }
                }
            }
            None => simple.push(r),
        }
    }
    out.extend(simple);
    out
}

/// Go's `%v` of a string slice: `[a b]`.
fn go_list(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

async fn list_rules(ctx: &Context) -> Result<(), Failure> {
    let review = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectRulesReview",
        "metadata": {},
        "spec": {"namespace": ctx.namespace()},
    });
    let mut req = ctx.request(Verb::Create, crate::api::Kind::SelfSubjectRulesReview.info());
    req.raw_body = Some(review);
    let ApiResponse::Object(answer) = ctx.call(req).await? else {
        return Err(common::error("the server answered without a review"));
    };
    let Object::SelfSubjectRulesReview(r) = answer.as_ref() else {
        return Err(common::error("the server answered without a review"));
    };
    let status = r.status.clone().unwrap_or_default();
    if status.incomplete {
        warn(ctx, &format!("the list may be incomplete: {}", status.evaluation_error.clone().unwrap_or_default()));
    }
    let mut rules = Vec::new();
    for rr in &status.resource_rules {
        rules.push(Rule {
            groups: rr.api_groups.clone().unwrap_or_default(),
            resources: rr.resources.clone().unwrap_or_default(),
            names: rr.resource_names.clone().unwrap_or_default(),
            urls: Vec::new(),
            verbs: rr.verbs.clone(),
        });
    }
    for nr in &status.non_resource_rules {
        rules.push(Rule {
            groups: Vec::new(),
            resources: Vec::new(),
            names: Vec::new(),
            urls: nr.non_resource_urls.clone().unwrap_or_default(),
            verbs: nr.verbs.clone(),
        });
    }
    let mut rules = compact(rules.iter().flat_map(breakdown).collect());
    rules.sort_by_key(Rule::sort_key);
    let mut lines = Vec::new();
    if !ctx.args.has(&["no-headers"]) {
        lines.push(["Resources", "Non-Resource URLs", "Resource Names", "Verbs"].map(str::to_string).to_vec());
    }
    for r in &rules {
        lines.push(vec![
            combine_resource_group(&r.resources, &r.groups),
            go_list(&r.urls),
            go_list(&r.names),
            go_list(&r.verbs),
        ]);
    }
    ctx.api.print(&TabWriter::default().flush(&lines));
    Ok(())
}

/// `pods`, `deployments.apps`, `pods/log` → how `can-i --list` and `describe role` name a resource.
fn combine_resource_group(resources: &[String], groups: &[String]) -> String {
    let Some(first) = resources.first() else { return String::new() };
    let (name, sub) = first.split_once('/').map_or((first.as_str(), None), |(n, s)| (n, Some(s)));
    let mut out = name.to_string();
    if let Some(g) = groups.first().filter(|g| !g.is_empty()) {
        out.push('.');
        out.push_str(g);
    }
    if let Some(s) = sub {
        out.push('/');
        out.push_str(s);
    }
    out
}

async fn whoami(ctx: &Context) -> Result<(), Failure> {
    let output = ctx.args.get(&["o", "output"]).unwrap_or("");
    if !matches!(output, "" | "yaml" | "json") {
        common::check_output(ctx)?;
    }
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": {}});
    let mut req = ctx.request(Verb::Create, crate::api::Kind::SelfSubjectReview.info());
    req.raw_body = Some(review);
    let answer = match ctx.api.call(req).await? {
        ApiResponse::Object(o) => o,
        ApiResponse::Error(s) if s.code == 403 => {
            return Err(common::error(
                "the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it",
            ))
        }
        ApiResponse::Error(s) => return Err(Failure(s.kubectl_line())),
        _ => return Err(common::error("the server answered without a review")),
    };
    match output {
        "" => {
            let Object::SelfSubjectReview(r) = answer.as_ref() else {
                return Err(common::error("unexpected response type, expected SelfSubjectReview"));
            };
            let info = r.status.clone().and_then(|s| s.user_info).unwrap_or_default();
            let mut lines = vec![vec!["ATTRIBUTE".to_string(), "VALUE".to_string()]];
            if let Some(u) = info.username.filter(|u| !u.is_empty()) {
                lines.push(vec!["Username".into(), u]);
            }
            if let Some(uid) = info.uid.filter(|u| !u.is_empty()) {
                lines.push(vec!["UID".into(), uid]);
            }
            if let Some(g) = info.groups.filter(|g| !g.is_empty()) {
                lines.push(vec!["Groups".into(), go_list(&g)]);
            }
            for (k, v) in info.extra.unwrap_or_default() {
                lines.push(vec![format!("Extra: {k}"), go_list(&v)]);
            }
            ctx.api.print(&TabWriter::default().flush(&lines));
        }
        // Any other format prints the review as the print flags print an object.
        _ => common::print_object(ctx, &answer.to_json(), "", common::DryRun::None)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn rules_break_down_and_compact_by_resource() {
        let r = Rule {
            groups: s(&[""]),
            resources: s(&["pods", "services"]),
            names: vec![],
            urls: vec![],
            verbs: s(&["get", "list"]),
        };
        let parts = breakdown(&r);
        assert_eq!(parts.len(), 4);
        let merged = compact(parts);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].verbs, s(&["get", "list"]));
    }

    #[test]
    fn resources_combine_with_their_group_and_subresource() {
        assert_eq!(combine_resource_group(&s(&["pods/log"]), &s(&[""])), "pods/log");
        assert_eq!(combine_resource_group(&s(&["deployments/scale"]), &s(&["apps"])), "deployments.apps/scale");
        assert_eq!(combine_resource_group(&[], &[]), "");
    }
}
