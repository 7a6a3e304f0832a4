//! `kubectl create <kind> NAME …`: the generator subcommands (deployment, namespace, configmap, secret generic,
//! service clusterip|nodeport|loadbalancer|externalname, serviceaccount, role, clusterrole, rolebinding,
//! clusterrolebinding, job, cronjob, priorityclass; quota, poddisruptionbudget, ingress and secret
//! docker-registry in the submodules). Each builds its object on the client exactly as kubectl's
//! `create_*.go` does (labels, field choices, what is left for the server to default), then either prints it
//! (`--dry-run=client`) or sends one create request and prints `<kind>[.<group>]/<name> created`. Failures
//! are wrapped as each subcommand wraps them (`failed to create deployment: …`, or not at all).
//! `create -f` lives in [`super::apply`].

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::api::{lookup, ApiRequest, ApiResponse, Kind, ResourceInfo, Verb};
use crate::apiserver::validation::names;
use crate::client::ClientError;

use super::common::{self, DryRun};

mod docker;
mod ingress;
mod quota;
mod token;
use super::{transport_line, Context, Failure, SERVER};

pub async fn create(ctx: &Context) -> Result<(), Failure> {
    let sub = ctx.args.positional.get(1).map(String::as_str).unwrap_or("");
    match sub {
        "deployment" | "deploy" => deployment(ctx).await,
        "namespace" | "ns" => namespace(ctx).await,
        "configmap" | "cm" => configmap(ctx).await,
        "secret" => secret(ctx).await,
        "service" | "svc" => service(ctx).await,
        "serviceaccount" | "sa" => serviceaccount(ctx).await,
        "role" => role(ctx, false).await,
        "clusterrole" => role(ctx, true).await,
        "rolebinding" => rolebinding(ctx, false).await,
        "clusterrolebinding" => rolebinding(ctx, true).await,
        "job" => job(ctx).await,
        "cronjob" | "cj" => cronjob(ctx).await,
        "priorityclass" | "pc" => priorityclass(ctx).await,
        "quota" | "resourcequota" => quota::quota(ctx).await,
        "poddisruptionbudget" | "pdb" => quota::pdb(ctx).await,
        "ingress" | "ing" => ingress::ingress(ctx).await,
        "token" => token::token(ctx).await,
        "" => Err(common::error("must specify one of -f and -k")),
        _ => Err(common::usage("kubectl create", &format!("Unexpected args: [{}]", ctx.args.operands(1).join(" ")))),
    }
}

/// The one NAME a generator takes (cobra's `ArgsLenAtDash` counts only the words before `--`).
fn name(ctx: &Context, skip: usize, path: &str) -> Result<String, Failure> {
    match ctx.args.operands(skip) {
        [n] => Ok(n.clone()),
        other => Err(common::usage(path, &format!("exactly one NAME is required, got {}", other.len()))),
    }
}

/// An integer flag as pflag parses it, with kubectl's flag error.
pub fn int_flag(ctx: &Context, names: &[&str], shown: &str, path: &str) -> Result<Option<i64>, Failure> {
    let Some(text) = ctx.args.get(names) else { return Ok(None) };
    text.parse::<i32>().map(|v| Some(i64::from(v))).map_err(|_| {
        let why = if text.trim_start_matches(['-', '+']).chars().all(|c| c.is_ascii_digit()) && !text.is_empty() {
            "value out of range"
        } else {
            "invalid syntax"
        };
        Failure(format!(
            "error: invalid argument {text:?} for \"{shown}\" flag: strconv.ParseInt: parsing {text:?}: {why}\nSee '{path} --help' for usage."
        ))
    })
}

/// What every generator does last: set the namespace when `-n` was given, then print (client dry run) or create.
/// `wrap` is the subcommand's `fmt.Errorf` prefix for server failures, if it has one.
async fn send(ctx: &Context, kind: Kind, mut obj: Value, dry: DryRun, wrap: Option<&str>) -> Result<(), Failure> {
    let info = kind.info();
    if info.namespaced && ctx.namespace_given() {
        obj["metadata"]["namespace"] = json!(ctx.namespace());
    }
    if dry == DryRun::Client {
        return common::print_object(ctx, &obj, "created", dry);
    }
    let ns = ctx.namespace();
    let mut req = ctx.request(Verb::Create, info).namespace(Some(&ns));
    req.raw_body = Some(obj);
    req.params.dry_run = dry == DryRun::Server;
    req.params.field_manager = Some("kubectl-create".into());
    let response = ctx.api.call(req.clone()).await;
    match (response, wrap) {
        (Ok(ApiResponse::Object(o)), _) => common::print_object(ctx, &o.to_json(), "created", dry),
        (Ok(ApiResponse::Error(s)), None) => Err(Failure(s.kubectl_line())),
        (Ok(ApiResponse::Error(s)), Some(w)) => Err(common::error(format!("{w}{}", s.message))),
        (Ok(_), _) => Ok(()),
        (Err(e), None) => Err(Failure(transport_line(&e))),
        (Err(e), Some(w)) => Err(common::error(format!("{w}{}", url_error(&req, &e)))),
    }
}

/// Go's `*url.Error` text for a failed POST, as a wrapped error shows it.
pub fn url_error(req: &ApiRequest, e: &ClientError) -> String {
    let mut query = Vec::new();
    if req.params.dry_run {
        query.push("dryRun=All".to_string());
    }
    if let Some(m) = &req.params.field_manager {
        query.push(format!("fieldManager={m}"));
    }
    query.push("fieldValidation=Strict".to_string());
    let method = match req.verb {
        Verb::Create => "Post",
        Verb::Patch => "Patch",
        Verb::Update => "Put",
        Verb::Delete => "Delete",
        _ => "Get",
    };
    let url = format!("https://{SERVER}{}?{}", req.path(), query.join("&"));
    match e {
        ClientError::ConnectionRefused => format!("{method} {url:?}: dial tcp {SERVER}: connect: connection refused"),
        ClientError::ConnectionReset => {
            format!("{method} {url:?}: read tcp 192.168.56.10:52044->{SERVER}: read: connection reset by peer")
        }
    }
}

/// A container as kubectl's generators build it (`resources: {}` comes from Go's non-pointer struct).
fn container(name: &str, image: &str, command: &[String]) -> Value {
    let mut c = json!({"image": image, "name": name, "resources": {}});
    if !command.is_empty() {
        c["command"] = json!(command);
    }
    c
}

/// `create deployment`'s container name for an image: the last path element without tag or digest; names
/// with `.` or `_` get them turned into `-` and a five-character suffix (random in kubectl, derived from the
/// image here so that runs repeat).
fn container_name(image: &str) -> String {
    let base = image.rsplit('/').next().unwrap_or(image);
    let base = base.split(':').next().unwrap_or(base);
    let base = base.split('@').next().unwrap_or(base);
    if base.contains(['_', '.']) {
        let seed =
            image.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let suffix = crate::sim::Rng::new(seed).string_from(crate::apiserver::registry::NAME_ALPHABET, 5);
        format!("{}-{suffix}", base.replace(['_', '.'], "-"))
    } else {
        base.to_string()
    }
}

async fn deployment(ctx: &Context) -> Result<(), Failure> {
    const PATH: &str = "kubectl create deployment";
    let images = ctx.args.list(&["image"]);
    if images.is_empty() {
        return Err(common::required_flag("image"));
    }
    let replicas = int_flag(ctx, &["r", "replicas"], "-r, --replicas", PATH)?.unwrap_or(1);
    let port = int_flag(ctx, &["port"], "--port", PATH)?.unwrap_or(-1);
    let name = name(ctx, 2, PATH)?;
    let command = ctx.args.after_dash().to_vec();
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if images.len() > 1 && !command.is_empty() {
        return Err(common::error("cannot specify multiple --image options and command"));
    }
    let mut containers: Vec<Value> = images.iter().map(|i| container(&container_name(i), i, &command)).collect();
    if port >= 0 {
        if let Some(c) = containers.first_mut() {
            c["ports"] = json!([{"containerPort": port}]);
        }
    }
    let labels = json!({"app": name});
    let obj = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"labels": labels, "name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "strategy": {},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}},
        },
        "status": {},
    });
    send(ctx, Kind::Deployment, obj, dry, Some("failed to create deployment: ")).await
}

async fn namespace(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create namespace")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if name.is_empty() {
        return Err(common::error("name must be specified"));
    }
    let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": {}, "status": {}});
    send(ctx, Kind::Namespace, obj, dry, None).await
}

/// `--from-literal=key=value` (split at the first `=`; a leading `=` is refused).
fn literal(source: &str) -> Result<(String, String), Failure> {
    match source.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(common::error(format!("invalid literal source {source}, expected key=value"))),
    }
}

/// The machine kubectl runs on has no files: `--from-file` and `--from-env-file` fail as a missing file does.
fn no_files(ctx: &Context) -> Result<(), Failure> {
    for flag in ["from-file", "from-env-file"] {
        if let Some(source) = ctx.args.list(&[flag]).first() {
            let path = source.split_once('=').map_or(source.as_str(), |(_, p)| p);
            return Err(common::error(format!("error reading {path}: no such file or directory")));
        }
    }
    Ok(())
}

/// `--cert`/`--key` fail as a missing file does (there are no files on kubectl's machine), worded as
/// create_secret_tls.go's readFile words it.
fn no_files_for(ctx: &Context, flags: &[&str]) -> Result<(), Failure> {
    for flag in flags {
        if let Some(path) = ctx.args.get(&[flag]).filter(|p| !p.is_empty()) {
            return Err(common::error(format!("Cannot read file {path}, open {path}: no such file or directory")));
        }
    }
    Ok(())
}

async fn configmap(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create configmap")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if !ctx.args.list(&["from-env-file"]).is_empty()
        && (!ctx.args.list(&["from-file"]).is_empty() || !ctx.args.all(&["from-literal"]).is_empty())
    {
        return Err(common::error("from-env-file cannot be combined with from-file or from-literal"));
    }
    no_files(ctx)?;
    let mut data = Map::new();
    for source in ctx.args.all(&["from-literal"]) {
        let (key, value) = literal(&source)?;
        let errs = names::is_config_map_key(&key);
        if !errs.is_empty() {
            return Err(common::error(format!("{key:?} is not a valid key name for a ConfigMap: {}", errs.join(","))));
        }
        if data.contains_key(&key) {
            return Err(common::error(format!(
                "cannot add key {key:?}, another key by that name already exists in Data for ConfigMap {name:?}"
            )));
        }
        data.insert(key, json!(value));
    }
    let mut obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
    if !data.is_empty() {
        obj["data"] = Value::Object(data);
    }
    send(ctx, Kind::ConfigMap, obj, dry, Some("failed to create configmap: ")).await
}

async fn secret(ctx: &Context) -> Result<(), Failure> {
    match ctx.args.positional.get(2).map(String::as_str) {
        Some("generic") => {}
        Some("docker-registry") => return docker::docker_registry(ctx).await,
        Some("tls") => {
            // The machine kubectl runs on has no certificate files to read.
            no_files_for(ctx, &["cert", "key"])?;
            return Err(common::error("kubeglass does not simulate `create secret tls` yet"));
        }
        _ => return Err(common::usage("kubectl create secret", "unknown command \"\"")),
    }
    let name = name(ctx, 3, "kubectl create secret generic")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if !ctx.args.list(&["from-env-file"]).is_empty()
        && (!ctx.args.list(&["from-file"]).is_empty() || !ctx.args.all(&["from-literal"]).is_empty())
    {
        return Err(common::error("from-env-file cannot be combined with from-file or from-literal"));
    }
    let mut data = Map::new();
    for source in ctx.args.all(&["from-literal"]) {
        let (key, value) = literal(&source)?;
        let errs = names::is_config_map_key(&key);
        if !errs.is_empty() {
            return Err(common::error(format!("{key:?} is not valid key name for a Secret {}", errs.join(";"))));
        }
        if data.contains_key(&key) {
            return Err(common::error(format!("cannot add key {key}, another key by that name already exists")));
        }
        data.insert(key, json!(base64(value.as_bytes())));
    }
    no_files(ctx)?;
    let mut obj = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}});
    if !data.is_empty() {
        obj["data"] = Value::Object(data);
    }
    if let Some(t) = ctx.args.get(&["type"]).filter(|t| !t.is_empty()) {
        obj["type"] = json!(t);
    }
    send(ctx, Kind::Secret, obj, dry, Some("failed to create secret ")).await
}

/// Standard base64 with padding (how Go's JSON encoding writes `[]byte`).
pub fn base64(bytes: &[u8]) -> String {
    data_encoding::BASE64.encode(bytes)
}

/// `port[:targetPort]` of `--tcp`.
fn service_port(spec: &str, node_port: i64) -> Result<Value, Failure> {
    let mut parts = spec.split(':');
    let first = parts.next().unwrap_or("");
    let port: u16 = first.parse().map_err(|_| {
        let why = if !first.is_empty() && first.chars().all(|c| c.is_ascii_digit()) {
            "value out of range"
        } else {
            "invalid syntax"
        };
        common::error(format!("strconv.ParseUint: parsing {first:?}: {why}"))
    })?;
    let target = match parts.next() {
        None => json!(port),
        Some(t) => match t.parse::<i64>() {
            Ok(n) => {
                let errs = names::is_valid_port_num(n);
                if !errs.is_empty() {
                    return Err(common::error(errs.join(",")));
                }
                json!(n)
            }
            Err(_) => {
                let errs = names::is_valid_port_name(t);
                if !errs.is_empty() {
                    return Err(common::error(errs.join(",")));
                }
                json!(t)
            }
        },
    };
    let mut p = json!({"name": spec.replace(':', "-"), "port": port, "protocol": "TCP", "targetPort": target});
    if node_port != 0 {
        p["nodePort"] = json!(node_port);
    }
    Ok(p)
}

async fn service(ctx: &Context) -> Result<(), Failure> {
    let (type_, sub) = match ctx.args.positional.get(2).map(String::as_str) {
        Some("clusterip") => ("ClusterIP", "clusterip"),
        Some("nodeport") => ("NodePort", "nodeport"),
        Some("loadbalancer") => ("LoadBalancer", "loadbalancer"),
        Some("externalname") => ("ExternalName", "externalname"),
        Some(other) => {
            return Err(common::usage("kubectl create service", &format!("unknown command {other:?}")));
        }
        None => return Err(common::usage("kubectl create service", "unknown command \"\"")),
    };
    let path = format!("kubectl create service {sub}");
    let external = ctx.args.get(&["external-name"]).unwrap_or("");
    if type_ == "ExternalName" && external.is_empty() {
        return Err(common::required_flag("external-name"));
    }
    let node_port =
        if type_ == "NodePort" { int_flag(ctx, &["node-port"], "--node-port", &path)?.unwrap_or(0) } else { 0 };
    let name = name(ctx, 3, &path)?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let cluster_ip = if type_ == "ClusterIP" { ctx.args.get(&["clusterip"]).unwrap_or("") } else { "" };
    let tcp = ctx.args.list(&["tcp"]);
    if cluster_ip == "None" && type_ != "ClusterIP" {
        return Err(common::error("ClusterIP=None can only be used with ClusterIP service type"));
    }
    if cluster_ip != "None" && tcp.is_empty() && type_ != "ExternalName" {
        return Err(common::error("at least one tcp port specifier must be provided"));
    }
    if type_ == "ExternalName" && !names::is_dns1123_subdomain(external).is_empty() {
        return Err(common::error(format!("invalid service external name {external}")));
    }
    let ports = tcp.iter().map(|t| service_port(t, node_port)).collect::<Result<Vec<_>, _>>()?;
    let mut spec = json!({"selector": {"app": name}, "type": type_});
    if !ports.is_empty() {
        spec["ports"] = json!(ports);
    }
    if !cluster_ip.is_empty() {
        spec["clusterIP"] = json!(cluster_ip);
    }
    if !external.is_empty() {
        spec["externalName"] = json!(external);
    }
    let obj = json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"labels": {"app": name}, "name": name},
        "spec": spec,
        "status": {"loadBalancer": {}},
    });
    send(ctx, Kind::Service, obj, dry, Some(&format!("failed to create {type_} service: "))).await
}

async fn serviceaccount(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create serviceaccount")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let obj = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}});
    send(ctx, Kind::ServiceAccount, obj, dry, Some("failed to create serviceaccount: ")).await
}

/// The verbs a resource rule may carry without a warning.
const RESOURCE_VERBS: &[&str] = &[
    "*",
    "get",
    "delete",
    "list",
    "create",
    "update",
    "patch",
    "watch",
    "proxy",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
];
/// The verbs a non-resource URL rule may carry.
const NON_RESOURCE_VERBS: &[&str] = &["*", "get", "post", "put", "delete", "patch", "head", "options"];

/// Verbs that only make sense on particular resources, and those resources (group, resource).
fn special_verb_resources(verb: &str) -> Option<&'static [(&'static str, &'static str)]> {
    match verb {
        "use" => Some(&[("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")]),
        "bind" | "escalate" => {
            Some(&[("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "clusterroles")])
        }
        "impersonate" => {
            Some(&[("", "users"), ("", "serviceaccounts"), ("", "groups"), ("authentication.k8s.io", "userextras")])
        }
        _ => None,
    }
}

/// One `--resource` value: `resource[.group][/subresource]`.
#[derive(Debug, Clone)]
struct RuleResource {
    resource: String,
    group: String,
    subresource: String,
}

fn parse_resources(values: &[String]) -> Vec<RuleResource> {
    let mut out = Vec::new();
    for r in values {
        let (main, sub) = r.split_once('/').map_or((r.as_str(), ""), |(m, s)| (m, s));
        let (resource, group) = main.split_once('.').map_or((main, ""), |(r, g)| (r, g));
        let item = RuleResource { resource: resource.into(), group: group.into(), subresource: sub.into() };
        if resource == "*" && group.is_empty() && sub.is_empty() && !main.contains('.') && !r.contains('/') {
            return vec![item];
        }
        out.push(item);
    }
    out
}

/// The server's resource for a rule resource (what kubectl's REST mapper answers), if it serves one.
fn map_resource(r: &RuleResource) -> Option<&'static ResourceInfo> {
    let query = if r.group.is_empty() { r.resource.clone() } else { format!("{}.{}", r.resource, r.group) };
    lookup(&query).filter(|info| r.group.is_empty() || info.group == r.group)
}

fn no_resource_match(r: &RuleResource) -> Failure {
    if r.group.is_empty() {
        Failure(format!("the server doesn't have a resource type {:?}", r.resource))
    } else {
        Failure(format!("the server doesn't have a resource type {:?} in group {:?}", r.resource, r.group))
    }
}

fn validate_resources(resources: &[RuleResource], verbs: &[String]) -> Result<(), Failure> {
    for r in resources {
        if r.resource.is_empty() {
            return Err(common::error("resource must be specified if apiGroup/subresource specified"));
        }
        if r.resource == "*" {
            return Ok(());
        }
        let mapped = map_resource(r);
        let (group, resource) = mapped.map_or((r.group.as_str(), r.resource.as_str()), |i| (i.group, i.resource));
        let mut special_ok = false;
        for v in verbs {
            if let Some(allowed) = special_verb_resources(v) {
                if !allowed.iter().any(|(g, res)| *g == group && *res == resource) {
                    return Err(common::error(format!("can not perform '{v}' on '{resource}' in group '{group}'")));
                }
                special_ok = true;
            }
        }
        if mapped.is_none() && !special_ok {
            return Err(no_resource_match(r));
        }
    }
    Ok(())
}

/// One rule per API group (groups sorted), resources in the order given, as `generateResourcePolicyRules` does.
fn policy_rules(verbs: &[String], resources: &[RuleResource], names: &[String], urls: &[String]) -> Vec<Value> {
    let mut by_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in resources {
        let (group, mut resource) = match map_resource(r) {
            Some(info) => (info.group.to_string(), info.resource.to_string()),
            None => (r.group.clone(), r.resource.clone()),
        };
        if !r.subresource.is_empty() {
            resource = format!("{resource}/{}", r.subresource);
        }
        let list = by_group.entry(group).or_default();
        if !list.contains(&resource) {
            list.push(resource);
        }
    }
    let mut rules: Vec<Value> = by_group
        .into_iter()
        .map(|(group, resources)| {
            let mut rule = json!({"apiGroups": [group], "resources": resources, "verbs": verbs});
            if !names.is_empty() {
                rule["resourceNames"] = json!(names);
            }
            rule
        })
        .collect();
    if !urls.is_empty() {
        rules.push(json!({"nonResourceURLs": urls, "verbs": verbs}));
    }
    rules
}

fn dedup(values: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

async fn role(ctx: &Context, cluster: bool) -> Result<(), Failure> {
    let path = if cluster { "kubectl create clusterrole" } else { "kubectl create role" };
    let name = name(ctx, 2, path)?;
    let mut verbs = Vec::new();
    for v in ctx.args.list(&["verb"]) {
        if v == "*" {
            verbs = vec![v];
            break;
        }
        if !verbs.contains(&v) {
            verbs.push(v);
        }
    }
    let resources = parse_resources(&ctx.args.list(&["resource"]));
    let resource_names = dedup(ctx.args.all(&["resource-name"]));
    let urls = if cluster { dedup(ctx.args.list(&["non-resource-url"])) } else { Vec::new() };
    let aggregation = if cluster { ctx.args.get(&["aggregation-rule"]).unwrap_or("") } else { "" };
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if name.is_empty() {
        return Err(common::error("name must be specified"));
    }
    let warn = |verbs: &[String]| {
        for v in verbs.iter().filter(|v| !RESOURCE_VERBS.contains(&v.as_str())) {
            ctx.println(&format!("Warning: '{v}' is not a standard resource verb"));
        }
    };
    let mut obj = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": if cluster { "ClusterRole" } else { "Role" },
        "metadata": {"name": name},
    });
    if !aggregation.is_empty() {
        if !urls.is_empty() || !verbs.is_empty() || !resources.is_empty() || !resource_names.is_empty() {
            return Err(common::error(
                "aggregation rule must be specified without nonResourceURLs, verbs, resources or resourceNames",
            ));
        }
        let mut labels = Map::new();
        for pair in aggregation.split(',') {
            match pair.split_once('=') {
                Some((k, v)) => labels.insert(k.trim().to_string(), json!(v.trim())),
                None => {
                    return Err(Failure(format!(
                        "error: invalid argument {aggregation:?} for \"--aggregation-rule\" flag: {pair} must be formatted as key=value\nSee '{path} --help' for usage."
                    )))
                }
            };
        }
        obj["aggregationRule"] = json!({"clusterRoleSelectors": [{"matchLabels": labels}]});
        return send(ctx, Kind::ClusterRole, obj, dry, None).await;
    }
    if verbs.is_empty() {
        return Err(common::error("at least one verb must be specified"));
    }
    if cluster {
        if resources.is_empty() && urls.is_empty() {
            return Err(common::error("one of resource or nonResourceURL must be specified"));
        }
        if !resources.is_empty() {
            warn(&verbs);
            validate_resources(&resources, &verbs)?;
        }
        if !urls.is_empty() {
            if let Some(v) = verbs.iter().find(|v| !NON_RESOURCE_VERBS.contains(&v.as_str())) {
                return Err(common::error(format!("invalid verb: '{v}' for nonResourceURL")));
            }
            for url in urls.iter().filter(|u| *u != "*") {
                if !url.starts_with('/') {
                    return Err(common::error("nonResourceURL should start with /"));
                }
                let mut head = url.chars();
                head.next_back();
                if head.as_str().contains('*') {
                    return Err(common::error("nonResourceURL only supports wildcard matches when '*' is at the end"));
                }
            }
        }
    } else {
        warn(&verbs);
        if resources.is_empty() {
            return Err(common::error("at least one resource must be specified"));
        }
        validate_resources(&resources, &verbs)?;
    }
    obj["rules"] = json!(policy_rules(&verbs, &resources, &resource_names, &urls));
    let kind = if cluster { Kind::ClusterRole } else { Kind::Role };
    send(ctx, kind, obj, dry, None).await
}

async fn rolebinding(ctx: &Context, cluster: bool) -> Result<(), Failure> {
    let path = if cluster { "kubectl create clusterrolebinding" } else { "kubectl create rolebinding" };
    let cluster_role = ctx.args.get(&["clusterrole"]).unwrap_or("");
    let role = if cluster { "" } else { ctx.args.get(&["role"]).unwrap_or("") };
    if cluster && ctx.args.get(&["clusterrole"]).is_none() {
        return Err(common::required_flag("clusterrole"));
    }
    let name = name(ctx, 2, path)?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if name.is_empty() {
        return Err(common::error("name must be specified"));
    }
    if !cluster && (cluster_role.is_empty() == role.is_empty()) {
        return Err(common::error("exactly one of clusterrole or role must be specified"));
    }
    let (ref_kind, ref_name) = if role.is_empty() { ("ClusterRole", cluster_role) } else { ("Role", role) };
    let mut subjects = Vec::new();
    for user in ctx.args.all(&["user"]) {
        subjects.push(json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}));
    }
    for group in ctx.args.all(&["group"]) {
        subjects.push(json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": group}));
    }
    for sa in ctx.args.all(&["serviceaccount"]) {
        match sa.split(':').collect::<Vec<_>>()[..] {
            [ns, n] if !ns.is_empty() && !n.is_empty() => {
                subjects.push(json!({"kind": "ServiceAccount", "name": n, "namespace": ns}))
            }
            _ => return Err(common::error("serviceaccount must be <namespace>:<name>")),
        }
    }
    let mut obj = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": if cluster { "ClusterRoleBinding" } else { "RoleBinding" },
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": ref_name},
    });
    if !subjects.is_empty() {
        obj["subjects"] = json!(subjects);
    }
    if cluster {
        send(ctx, Kind::ClusterRoleBinding, obj, dry, Some("failed to create clusterrolebinding: ")).await
    } else {
        send(ctx, Kind::RoleBinding, obj, dry, Some("failed to create rolebinding: ")).await
    }
}

async fn job(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create job")?;
    let command = ctx.args.after_dash().to_vec();
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let image = ctx.args.get(&["image"]).unwrap_or("");
    let from = ctx.args.get(&["from"]).unwrap_or("");
    if image.is_empty() == from.is_empty() {
        return Err(common::error("either --image or --from must be specified"));
    }
    if !command.is_empty() && !from.is_empty() {
        return Err(common::error("cannot specify --from and command"));
    }
    let mut obj = if from.is_empty() {
        json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": name},
            "spec": {"template": {"metadata": {}, "spec": {
                "containers": [container(&name, image, &command)],
                "restartPolicy": "Never",
            }}},
            "status": {},
        })
    } else {
        job_from_cronjob(ctx, &name, from).await?
    };
    if let Some(m) = obj["metadata"].as_object_mut() {
        m.retain(|_, v| !v.is_null());
    }
    send(ctx, Kind::Job, obj, dry, Some("failed to create job: ")).await
}

/// `--from=cronjob/NAME`: the CronJob's job template, annotated as a manual run and owned by the CronJob.
async fn job_from_cronjob(ctx: &Context, name: &str, from: &str) -> Result<Value, Failure> {
    let (kind, source) = from.split_once('/').unwrap_or((from, ""));
    let info = super::resource(kind)?;
    let ns = ctx.namespace();
    let resp = ctx.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(source)).await?;
    let Some(obj) = super::object_of(resp).filter(|o| o.kind() == Kind::CronJob) else {
        return Err(common::error("from must be an existing cronjob"));
    };
    let cj = obj.to_json();
    let template = &cj["spec"]["jobTemplate"];
    let mut annotations = Map::new();
    annotations.insert("cronjob.kubernetes.io/instantiate".into(), json!("manual"));
    if let Some(a) = template["metadata"]["annotations"].as_object() {
        annotations.extend(a.clone());
    }
    Ok(json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "annotations": annotations,
            "labels": template["metadata"]["labels"],
            "name": name,
            "ownerReferences": [{
                "apiVersion": "batch/v1",
                "controller": true,
                "kind": "CronJob",
                "name": cj["metadata"]["name"],
                "uid": cj["metadata"]["uid"],
            }],
        },
        "spec": template["spec"],
        "status": {},
    }))
}

async fn cronjob(ctx: &Context) -> Result<(), Failure> {
    if ctx.args.get(&["image"]).is_none() {
        return Err(common::required_flag("image"));
    }
    if ctx.args.get(&["schedule"]).is_none() {
        return Err(common::required_flag("schedule"));
    }
    let name = name(ctx, 2, "kubectl create cronjob")?;
    let command = ctx.args.after_dash().to_vec();
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let image = ctx.args.get(&["image"]).unwrap_or("");
    let schedule = ctx.args.get(&["schedule"]).unwrap_or("");
    let restart = ctx.args.get(&["restart"]).filter(|r| !r.is_empty()).unwrap_or("OnFailure");
    let obj = json!({
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "jobTemplate": {
                "metadata": {"name": name},
                "spec": {"template": {"metadata": {}, "spec": {
                    "containers": [container(&name, image, &command)],
                    "restartPolicy": restart,
                }}},
            },
            "schedule": schedule,
        },
        "status": {},
    });
    send(ctx, Kind::CronJob, obj, dry, Some("failed to create cronjob: ")).await
}

async fn priorityclass(ctx: &Context) -> Result<(), Failure> {
    const PATH: &str = "kubectl create priorityclass";
    let value = int_flag(ctx, &["value"], "--value", PATH)?.unwrap_or(0);
    let name = name(ctx, 2, PATH)?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let mut obj = json!({
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "preemptionPolicy": ctx.args.get(&["preemption-policy"]).unwrap_or("PreemptLowerPriority"),
        "value": value,
    });
    if ctx.args.has(&["global-default"]) {
        obj["globalDefault"] = json!(true);
    }
    if let Some(d) = ctx.args.get(&["description"]).filter(|d| !d.is_empty()) {
        obj["description"] = json!(d);
    }
    send(ctx, Kind::PriorityClass, obj, dry, Some("failed to create priorityclass: ")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_like_go() {
        assert_eq!(base64(b"admin"), "YWRtaW4=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(b""), "");
    }

    #[test]
    fn container_names_come_from_the_image() {
        assert_eq!(container_name("nginx:1.27"), "nginx");
        assert_eq!(container_name("registry.k8s.io/pause@sha256:abc"), "pause");
        let odd = container_name("my_app.v2");
        assert!(odd.starts_with("my-app-v2-") && odd.len() == "my-app-v2-".len() + 5, "{odd}");
        assert_eq!(odd, container_name("my_app.v2"));
    }

    #[test]
    fn rules_group_resources_by_api_group_and_keep_subresources() {
        let verbs = vec!["get".to_string()];
        let res = parse_resources(&["pods".into(), "deploy.apps".into(), "pods/log".into()]);
        let rules = policy_rules(&verbs, &res, &[], &[]);
        assert_eq!(rules[0]["apiGroups"], json!([""]));
        assert_eq!(rules[0]["resources"], json!(["pods", "pods/log"]));
        assert_eq!(rules[1]["apiGroups"], json!(["apps"]));
        assert_eq!(rules[1]["resources"], json!(["deployments"]));
    }
}
