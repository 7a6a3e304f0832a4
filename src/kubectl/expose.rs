//! `kubectl expose (deployment|replicaset|pod|service|replicationcontroller) NAME [--port] [--target-port]
//! [--type] [--name] [--protocol] [--selector] [--labels] [--cluster-ip] [--external-ip]
//! [--session-affinity]`: reads the object, takes its pod selector (a Deployment's or ReplicaSet's
//! `matchLabels`, a Pod's labels, a Service's selector), its ports and their protocols and its labels, and
//! creates the Service kubectl's expose generator builds; prints `service/NAME exposed`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::api::{ApiResponse, Kind, Object, Verb};

use super::common::{self, DryRun};
use super::{resource, transport_line, Context, Failure};

pub async fn expose(ctx: &Context) -> Result<(), Failure> {
    let words = ctx.args.operands(1).to_vec();
    let (type_name, name) = match words.as_slice() {
        [] => return Err(common::error(common::NO_RESOURCES)),
        [one] => match one.split_once('/') {
            Some((t, n)) => (t.to_string(), n.to_string()),
            None => return Err(common::error("resource(s) were provided, but no name was specified")),
        },
        [t, n, ..] => (t.clone(), n.clone()),
    };
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let info = resource(&type_name)?;
    let ns = ctx.namespace();
    let obj = match ctx.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(&name)).await? {
        ApiResponse::Object(o) => o,
        _ => return Err(common::error("the server returned no object")),
    };
    let source = Source::of(&obj)?;
    let service_name = match ctx.args.get(&["name"]).filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => name.chars().take(63).collect(),
    };
    let selector = match ctx.args.get(&["selector"]).filter(|s| !s.is_empty()) {
        Some(s) => parse_labels(s)?,
        None => {
            let s = source.selector().map_err(|e| {
                common::error(format!("couldn't retrieve selectors via --selector flag or introspection: {e}"))
            })?;
            s.into_iter().map(|(k, v)| (k, json!(v))).collect()
        }
    };
    let headless = ctx.args.get(&["cluster-ip"]) == Some("None");
    let protocols = source.protocols();
    let mut port_list: Vec<String> = match ctx.args.get(&["port"]).filter(|p| !p.is_empty()) {
        Some(p) => vec![p.to_string()],
        None => {
            let ports = source.ports();
            if ports.is_empty() && !headless {
                return Err(common::error("couldn't find port via --port flag or introspection"));
            }
            ports
        }
    };
    if port_list.len() == 1 && port_list[0].contains(',') {
        port_list = port_list[0].split(',').map(str::to_string).collect();
    }
    let labels: Option<Map<String, Value>> = match ctx.args.get(&["l", "labels"]).filter(|l| !l.is_empty()) {
        Some(l) => Some(parse_labels(l)?),
        None => {
            let own = obj.meta().labels.clone().unwrap_or_default();
            (!own.is_empty()).then(|| own.into_iter().map(|(k, v)| (k, json!(v))).collect())
        }
    };
    let protocol_flag = ctx.args.get(&["protocol"]).unwrap_or("");
    let mut ports = Vec::new();
    let several = port_list.len() > 1;
    for (i, p) in port_list.iter().enumerate() {
        let number: i64 =
            p.parse().map_err(|_| common::error(format!("strconv.Atoi: parsing {p:?}: invalid syntax")))?;
        let port_name = if several { format!("port-{}", i + 1) } else { String::new() };
        let protocol = if !protocol_flag.is_empty() {
            protocol_flag.to_string()
        } else {
            match protocols.get(p) {
                Some(list) if list.len() > 1 => {
                    for proto in list {
                        ports.push(json!({"name": format!("port-{}-{}", i + 1, proto.to_ascii_lowercase()), "port": number, "protocol": proto}));
                    }
                    continue;
                }
                Some(list) => list.first().cloned().unwrap_or_else(|| "TCP".into()),
                None => "TCP".into(),
            }
        };
        let mut port = json!({"port": number, "protocol": protocol});
        if !port_name.is_empty() {
            port["name"] = json!(port_name);
        }
        ports.push(port);
    }
    let target = ctx.args.get(&["target-port", "container-port"]).filter(|t| !t.is_empty());
    for port in &mut ports {
        port["targetPort"] = match target {
            Some(t) => t.parse::<i64>().map_or_else(|_| json!(t), |n| json!(n)),
            None => port["port"].clone(),
        };
    }
    let mut spec = json!({"selector": selector});
    if !ports.is_empty() {
        spec["ports"] = json!(ports);
    }
    if let Some(ip) = ctx.args.get(&["external-ip"]).filter(|i| !i.is_empty()) {
        spec["externalIPs"] = json!([ip]);
    }
    let type_ = ctx.args.get(&["type"]).unwrap_or("");
    if !type_.is_empty() {
        spec["type"] = json!(type_);
    }
    if type_ == "LoadBalancer" {
        if let Some(ip) = ctx.args.get(&["load-balancer-ip"]).filter(|i| !i.is_empty()) {
            spec["loadBalancerIP"] = json!(ip);
        }
    }
    match ctx.args.get(&["session-affinity"]).unwrap_or("") {
        "" => {}
        a @ ("None" | "ClientIP") => spec["sessionAffinity"] = json!(a),
        other => return Err(common::error(format!("unknown session affinity: {other}"))),
    }
    if let Some(ip) = ctx.args.get(&["cluster-ip"]).filter(|i| !i.is_empty()) {
        spec["clusterIP"] = json!(ip);
    }
    let mut metadata = json!({"name": service_name});
    if let Some(l) = labels {
        metadata["labels"] = Value::Object(l);
    }
    let mut service = json!({"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec, "status": {"loadBalancer": {}}});
    if dry == DryRun::Client {
        if ctx.namespace_given() {
            service["metadata"]["namespace"] = json!(ns);
        }
        return common::print_object(ctx, &service, "exposed", dry);
    }
    let mut req = ctx.request(Verb::Create, Kind::Service.info()).namespace(Some(&ns));
    req.raw_body = Some(service);
    req.params.dry_run = dry == DryRun::Server;
    req.params.field_manager = Some("kubectl-expose".into());
    match ctx.api.call(req).await {
        Ok(ApiResponse::Object(o)) => common::print_object(ctx, &o.to_json(), "exposed", dry),
        Ok(ApiResponse::Error(s)) => Err(Failure(s.kubectl_line())),
        Ok(_) => Ok(()),
        Err(e) => Err(Failure(transport_line(&e))),
    }
}

/// `a=b,c=d` as expose's own label parser reads `--selector` and `--labels`.
fn parse_labels(text: &str) -> Result<Map<String, Value>, Failure> {
    let mut out = Map::new();
    for spec in text.split(',') {
        let parts: Vec<&str> = spec.split('=').collect();
        if parts.len() != 2 {
            return Err(common::error(format!("unexpected label spec: {spec}")));
        }
        if parts[0].is_empty() {
            return Err(common::error("unexpected empty label key"));
        }
        out.insert(parts[0].to_string(), json!(parts[1]));
    }
    Ok(out)
}

/// The kinds expose understands, with what it reads from each.
enum Source<'a> {
    Pod(&'a crate::api::api::core::v1::Pod),
    Service(&'a crate::api::api::core::v1::Service),
    Deployment(&'a crate::api::api::apps::v1::Deployment),
    ReplicaSet(&'a crate::api::api::apps::v1::ReplicaSet),
}

type PodSpec = crate::api::api::core::v1::PodSpec;

impl<'a> Source<'a> {
    fn of(obj: &'a Object) -> Result<Source<'a>, Failure> {
        match obj {
            Object::Pod(p) => Ok(Source::Pod(p)),
            Object::Service(s) => Ok(Source::Service(s)),
            Object::Deployment(d) => Ok(Source::Deployment(d)),
            Object::ReplicaSet(r) => Ok(Source::ReplicaSet(r)),
            other => Err(common::error(format!("cannot expose a {}", other.info().group_kind()))),
        }
    }

    fn selector(&self) -> Result<BTreeMap<String, String>, String> {
        match self {
            Source::Pod(p) => match p.metadata.labels.clone().filter(|l| !l.is_empty()) {
                Some(l) => Ok(l),
                None => Err("the pod has no labels and cannot be exposed".into()),
            },
            Source::Service(s) => {
                s.spec.as_ref().and_then(|sp| sp.selector.clone()).ok_or("the service has no pod selector set".into())
            }
            Source::Deployment(d) => {
                let sel = d.spec.as_ref().map(|s| &s.selector);
                workload_selector(sel, "invalid deployment: no selectors, therefore cannot be exposed")
            }
            Source::ReplicaSet(r) => {
                let sel = r.spec.as_ref().map(|s| &s.selector);
                workload_selector(sel, "invalid replicaset: no selectors, therefore cannot be exposed")
            }
        }
    }

    fn pod_spec(&self) -> Option<&PodSpec> {
        match self {
            Source::Pod(p) => p.spec.as_ref(),
            Source::Deployment(d) => d.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
            Source::ReplicaSet(r) => r.spec.as_ref().and_then(|s| s.template.as_ref()).and_then(|t| t.spec.as_ref()),
            Source::Service(_) => None,
        }
    }

    /// (port, protocol) pairs in the object's order.
    fn port_protocols(&self) -> Vec<(String, String)> {
        match self {
            Source::Service(s) => s
                .spec
                .iter()
                .flat_map(|sp| sp.ports.iter().flatten())
                .map(|p| (p.port.to_string(), p.protocol.clone().unwrap_or_else(|| "TCP".into())))
                .collect(),
            _ => self
                .pod_spec()
                .iter()
                .flat_map(|spec| spec.containers.iter())
                .flat_map(|c| c.ports.iter().flatten())
                .map(|p| (p.container_port.to_string(), p.protocol.clone().unwrap_or_else(|| "TCP".into())))
                .collect(),
        }
    }

    /// The distinct port numbers.
    fn ports(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (p, _) in self.port_protocols() {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    fn protocols(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (p, proto) in self.port_protocols() {
            out.entry(p).or_default().push(proto);
        }
        out
    }
}

fn workload_selector(
    sel: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    missing: &str,
) -> Result<BTreeMap<String, String>, String> {
    let Some(sel) = sel else { return Err(missing.to_string()) };
    let labels = sel.match_labels.clone().unwrap_or_default();
    if labels.is_empty() {
        return Err(missing.to_string());
    }
    if let Some(exprs) = sel.match_expressions.as_ref().filter(|e| !e.is_empty()) {
        let shown: Vec<String> = exprs
            .iter()
            .map(|e| {
                format!(
                    "{{Key:{} Operator:{} Values:[{}]}}",
                    e.key,
                    e.operator,
                    e.values.clone().unwrap_or_default().join(" ")
                )
            })
            .collect();
        return Err(format!("couldn't convert expressions - \"[{}]\" to map-based selector format", shown.join(" ")));
    }
    Ok(labels)
}
