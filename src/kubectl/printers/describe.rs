//! `kubectl describe` for Pods, Nodes, Deployments, ReplicaSets, Services, Namespaces, ConfigMaps,
//! Secrets, Jobs and CronJobs ([`batch`]), in kubectl's layout (`pkg/describe/describe.go`): `Key:\tvalue`
//! lines indented two spaces per level and aligned by Go's tabwriter (padding 2), multi-line
//! label/annotation/toleration blocks, small tables (conditions, events) and `<none>` for empty sections.
//! Other kinds get a generic block (name, namespace, labels, annotations, events).
//!
//! What describe needs beyond the object itself (its events, the pods on a node, a deployment's
//! replica sets, a service's endpoint slices, …) comes in a [`Related`] the caller fills.
//! Timestamps are printed in UTC.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::{apps::v1 as apps, core::v1 as core, discovery::v1 as discovery};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::duration::{age, micro_time_ms, rfc1123z, time_ms};
use super::quantity::Quantity;
use super::table::{escape_terminal, TabWriter};
use super::util::{format_label_selector, format_labels, join_host_port, selector_string};
use crate::api::Object;
use crate::apiserver::printers::node_roles;
use crate::sim::SimTime;

mod batch;
mod daemon_set;
mod endpoints;
mod ingress;
mod quota;
mod rbac;

/// What `kubectl describe` looks up besides the object. Fill what the described kind uses; the rest
/// is ignored. Objects of other kinds in a list are skipped.
#[derive(Debug, Clone, Default)]
pub struct Related {
    /// Events whose involved object is the described one (any order: they are sorted here).
    pub events: Vec<Arc<Object>>,
    /// Node: the pods bound to it (terminated ones are skipped here). ReplicaSet: the pods it
    /// selects (only those it controls are counted).
    pub pods: Vec<Arc<Object>>,
    /// Deployment: the replica sets in its namespace (only those it controls are used).
    pub replica_sets: Vec<Arc<Object>>,
    /// Service: its EndpointSlices.
    pub endpoint_slices: Vec<Arc<Object>>,
    /// Node: its Lease in `kube-node-lease`, if there is one.
    pub lease: Option<Arc<Object>>,
    /// Namespace: the resource quotas in it.
    pub resource_quotas: Vec<Arc<Object>>,
    /// Namespace: the limit ranges in it.
    pub limit_ranges: Vec<Arc<Object>>,
    /// Ingress: each backend service by name, or the error reading it.
    pub backends: BTreeMap<String, Result<Arc<Object>, String>>,
}

/// The text `kubectl describe` prints for `obj`.
pub fn describe(obj: &Object, related: &Related, now: SimTime) -> String {
    let mut w = Writer::default();
    match obj {
        Object::Pod(p) => describe_pod(&mut w, p, related, now),
        Object::Node(n) => describe_node(&mut w, n, related, now),
        Object::Deployment(d) => describe_deployment(&mut w, d, related, now),
        Object::ReplicaSet(rs) => describe_replica_set(&mut w, rs, related, now),
        Object::Service(s) => describe_service(&mut w, s, related, now),
        Object::Namespace(ns) => describe_namespace(&mut w, ns, related),
        Object::ConfigMap(cm) => describe_config_map(&mut w, cm, related, now),
        Object::Secret(s) => describe_secret(&mut w, s),
        Object::ServiceAccount(sa) => describe_service_account(&mut w, sa, related, now),
        Object::Job(j) => batch::describe_job(&mut w, j, related, now),
        Object::CronJob(cj) => batch::describe_cron_job(&mut w, cj, related, now),
        // Kinds kubectl has a describer for that is not written here yet: name, labels, annotations, events.
        // The RC describer is the ReplicaSet's on the converted object (its map selector prints the same).
        Object::ReplicationController(rc) => {
            describe_replica_set(&mut w, &crate::api::replication::as_replica_set(rc), related, now)
        }
        Object::DaemonSet(ds) => daemon_set::describe_daemon_set(&mut w, ds, related, now),
        Object::Endpoints(ep) => endpoints::describe_endpoints(&mut w, ep, related, now),
        Object::PriorityClass(pc) => daemon_set::describe_priority_class(&mut w, pc, related, now),
        Object::Role(r) => rbac::describe_role(&mut w, &r.metadata, r.rules.as_ref()),
        Object::ClusterRole(r) => rbac::describe_role(&mut w, &r.metadata, r.rules.as_ref()),
        Object::RoleBinding(b) => rbac::describe_binding(&mut w, &b.metadata, &b.role_ref, b.subjects.as_ref()),
        Object::ClusterRoleBinding(b) => rbac::describe_binding(&mut w, &b.metadata, &b.role_ref, b.subjects.as_ref()),
        Object::ResourceQuota(q) => quota::describe_quota(&mut w, q),
        Object::Ingress(i) => ingress::describe_ingress(&mut w, i, related, now),
        Object::LimitRange(_)
        | Object::PersistentVolume(_)
        | Object::PersistentVolumeClaim(_)
        | Object::HorizontalPodAutoscaler(_)
        | Object::StatefulSet(_)
        | Object::IngressClass(_)
        | Object::NetworkPolicy(_)
        | Object::PodDisruptionBudget(_)
        | Object::StorageClass(_)
        | Object::CSINode(_)
        | Object::EndpointSlice(_)
        | Object::CertificateSigningRequest(_)
        | Object::Event(_)
        | Object::EventV1(_) => describe_generic(&mut w, obj, related, now),
        // Every other kind gets kubectl's generic describer: the object's fields as unstructured content.
        _ => describe_unstructured(&mut w, obj, related, now),
    }
    w.finish()
}

/// kubectl's `PrefixWriter` over a tabwriter: two spaces per level, terminal escaping, explicit
/// flushes.
#[derive(Default)]
struct Writer {
    buf: String,
    out: String,
}

impl Writer {
    fn write(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.buf.push_str("  ");
        }
        self.buf.push_str(&escape_terminal(text));
    }

    fn flush(&mut self) {
        let text = std::mem::take(&mut self.buf);
        self.out.push_str(&TabWriter::describe().format(&text));
    }

    fn finish(mut self) -> String {
        self.flush();
        self.out
    }
}

fn name(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or("")
}

fn namespace(meta: &ObjectMeta) -> &str {
    meta.namespace.as_deref().unwrap_or("")
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

fn or_none(s: &str) -> &str {
    if s.is_empty() {
        "<none>"
    } else {
        s
    }
}

/// `printLabelsMultilineWithIndent`.
fn labels_block(w: &mut Writer, initial_indent: &str, title: &str, labels: Option<&BTreeMap<String, String>>) {
    w.write(0, &format!("{initial_indent}{title}:\t"));
    let labels = labels.cloned().unwrap_or_default();
    if labels.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, (k, v)) in labels.iter().enumerate() {
        if i != 0 {
            w.write(0, &format!("{initial_indent}\t"));
        }
        w.write(0, &format!("{k}={v}\n"));
    }
}

const MAX_ANNOTATION_LEN: usize = 140;

/// `printAnnotationsMultiline` (skips `kubectl.kubernetes.io/last-applied-configuration`).
fn annotations_block(w: &mut Writer, title: &str, annotations: Option<&BTreeMap<String, String>>) {
    w.write(0, &format!("{title}:\t"));
    let entries: Vec<(&String, &String)> = annotations
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "kubectl.kubernetes.io/last-applied-configuration")
        .collect();
    if entries.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        let value = v.strip_suffix('\n').unwrap_or(v);
        if value.len() + k.len() + 2 > MAX_ANNOTATION_LEN || value.contains('\n') {
            w.write(0, &format!("{k}:\n"));
            for line in value.split('\n') {
                w.write(0, &format!("\t  {}\n", shorten(line, MAX_ANNOTATION_LEN - 2)));
            }
        } else {
            w.write(0, &format!("{k}: {value}\n"));
        }
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    } else {
        s.to_string()
    }
}

/// `printTolerationsMultilineWithIndent`.
fn tolerations_block(w: &mut Writer, initial_indent: &str, title: &str, tolerations: Option<&Vec<core::Toleration>>) {
    w.write(0, &format!("{initial_indent}{title}:\t"));
    let mut list = tolerations.cloned().unwrap_or_default();
    if list.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    list.sort_by(|a, b| opt(&a.key).cmp(opt(&b.key)));
    for (i, t) in list.iter().enumerate() {
        if i != 0 {
            w.write(0, &format!("{initial_indent}\t"));
        }
        let mut line = opt(&t.key).to_string();
        if !opt(&t.value).is_empty() {
            line.push_str(&format!("={}", opt(&t.value)));
        }
        if !opt(&t.effect).is_empty() {
            line.push_str(&format!(":{}", opt(&t.effect)));
        }
        if t.operator.as_deref() == Some("Exists") && opt(&t.value).is_empty() {
            if !opt(&t.key).is_empty() || !opt(&t.effect).is_empty() {
                line.push_str(" op=Exists");
            } else {
                line.push_str("op=Exists");
            }
        }
        if let Some(secs) = t.toleration_seconds {
            line.push_str(&format!(" for {secs}s"));
        }
        line.push('\n');
        w.write(0, &line);
    }
}

fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references.as_ref()?.iter().find(|r| r.controller == Some(true))
}

/// `DescribeEvents`: a flushed table of Type, Reason, Age, From, Message sorted by last timestamp.
fn events_block(w: &mut Writer, events: &[Arc<Object>], now: SimTime) {
    let mut list: Vec<&core::Event> = events
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::Event(e) => Some(&**e),
            _ => None,
        })
        .collect();
    if list.is_empty() {
        w.write(0, "Events:\t<none>\n");
        return;
    }
    w.flush();
    list.sort_by_key(|e| e.last_timestamp.as_ref().map(time_ms).unwrap_or(i64::MIN));
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    w.write(1, "----\t------\t----\t----\t-------\n");
    for e in list {
        let interval = super::duration::event_interval(e, now);
        let from = e
            .source
            .as_ref()
            .and_then(|s| s.component.clone())
            .filter(|c| !c.is_empty())
            .or_else(|| e.reporting_component.clone())
            .unwrap_or_default();
        w.write(1, &format!("{}\t{}\t{interval}\t{from}\t{}\n", opt(&e.type_), opt(&e.reason), opt(&e.message).trim()));
    }
}

fn sorted_resources(list: Option<&BTreeMap<String, ApiQuantity>>) -> Vec<(String, String)> {
    list.into_iter().flatten().map(|(k, v)| (k.clone(), Quantity::parse_or_zero(&v.0).canonical())).collect()
}

/// `describeResources`.
fn resources_block(w: &mut Writer, resources: Option<&core::ResourceRequirements>, level: usize) {
    let Some(r) = resources else {
        return;
    };
    let limits = sorted_resources(r.limits.as_ref());
    if !limits.is_empty() {
        w.write(level, "Limits:\n");
    }
    for (k, v) in limits {
        w.write(level + 1, &format!("{k}:\t{v}\n"));
    }
    let requests = sorted_resources(r.requests.as_ref());
    if !requests.is_empty() {
        w.write(level, "Requests:\n");
    }
    for (k, v) in requests {
        w.write(level + 1, &format!("{k}:\t{v}\n"));
    }
}

fn int_or_string(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => s.clone(),
    }
}

/// `DescribeProbe`.
fn probe_text(p: &core::Probe) -> String {
    let attrs = format!(
        "delay={}s timeout={}s period={}s #success={} #failure={}",
        p.initial_delay_seconds.unwrap_or(0),
        p.timeout_seconds.unwrap_or(0),
        p.period_seconds.unwrap_or(0),
        p.success_threshold.unwrap_or(0),
        p.failure_threshold.unwrap_or(0)
    );
    if let Some(exec) = &p.exec {
        return format!("exec [{}] {attrs}", exec.command.clone().unwrap_or_default().join(" "));
    }
    if let Some(h) = &p.http_get {
        let scheme = opt(&h.scheme).to_ascii_lowercase();
        let port = int_or_string(&h.port);
        let host = if port.is_empty() { opt(&h.host).to_string() } else { join_host_port(opt(&h.host), &port) };
        let path = opt(&h.path);
        let mut url = String::new();
        if !scheme.is_empty() {
            url.push_str(&scheme);
            url.push(':');
        }
        if !scheme.is_empty() || !host.is_empty() {
            url.push_str("//");
            url.push_str(&host);
        }
        if !path.is_empty() && !path.starts_with('/') && !host.is_empty() {
            url.push('/');
        }
        url.push_str(path);
        return format!("http-get {url} {attrs}");
    }
    if let Some(t) = &p.tcp_socket {
        return format!("tcp-socket {}:{} {attrs}", opt(&t.host), int_or_string(&t.port));
    }
    if let Some(g) = &p.grpc {
        return format!("grpc <pod>:{} {} {attrs}", g.port, opt(&g.service));
    }
    format!("unknown {attrs}")
}

/// Resolves a `fieldRef` env var against the pod (the common field paths).
fn field_value(pod: Option<&core::Pod>, path: &str) -> String {
    let Some(pod) = pod else {
        return String::new();
    };
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    let keyed = |prefix: &str, map: Option<&BTreeMap<String, String>>| {
        path.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix("['"))
            .and_then(|rest| rest.strip_suffix("']"))
            .and_then(|k| map.and_then(|m| m.get(k)).cloned())
    };
    match path {
        "metadata.name" => pod.metadata.name.clone().unwrap_or_default(),
        "metadata.namespace" => pod.metadata.namespace.clone().unwrap_or_default(),
        "metadata.uid" => pod.metadata.uid.clone().unwrap_or_default(),
        "spec.nodeName" => spec.node_name.unwrap_or_default(),
        "spec.serviceAccountName" => spec.service_account_name.unwrap_or_default(),
        "status.podIP" => status.pod_ip.unwrap_or_default(),
        "status.hostIP" => status.host_ip.unwrap_or_default(),
        "status.podIPs" => {
            status.pod_ips.unwrap_or_default().iter().map(|p| p.ip.clone()).collect::<Vec<_>>().join(",")
        }
        "metadata.labels" => format_labels(pod.metadata.labels.as_ref()),
        _ => keyed("metadata.labels", pod.metadata.labels.as_ref())
            .or_else(|| keyed("metadata.annotations", pod.metadata.annotations.as_ref()))
            .unwrap_or_default(),
    }
}

/// `ExtractContainerResourceValue` for the usual resources (divisor applied, rounded up).
fn resource_field_value(sel: &core::ResourceFieldSelector, c: &core::Container) -> String {
    let res = c.resources.clone().unwrap_or_default();
    let divisor = sel
        .divisor
        .as_ref()
        .map(|q| Quantity::parse_or_zero(&q.0))
        .filter(|q| !q.is_zero())
        .unwrap_or_else(|| Quantity::parse_or_zero("1"));
    let get = |list: Option<&BTreeMap<String, ApiQuantity>>, key: &str| {
        list.and_then(|l| l.get(key)).map(|q| Quantity::parse_or_zero(&q.0)).unwrap_or_default()
    };
    let (q, cpu) = match sel.resource.as_str() {
        "limits.cpu" => (get(res.limits.as_ref(), "cpu"), true),
        "requests.cpu" => (get(res.requests.as_ref(), "cpu"), true),
        "limits.memory" => (get(res.limits.as_ref(), "memory"), false),
        "requests.memory" => (get(res.requests.as_ref(), "memory"), false),
        "limits.ephemeral-storage" => (get(res.limits.as_ref(), "ephemeral-storage"), false),
        "requests.ephemeral-storage" => (get(res.requests.as_ref(), "ephemeral-storage"), false),
        _ => return String::new(),
    };
    let value = if cpu {
        let d = divisor.milli_value().max(1);
        (q.milli_value() + d - 1).div_euclid(d)
    } else {
        let d = divisor.value_i64().max(1);
        (q.value_i64() + d - 1).div_euclid(d)
    };
    value.to_string()
}

/// `describeContainers` (statuses matched by name; `pod` resolves `fieldRef` env values).
fn containers_block(
    w: &mut Writer,
    label: &str,
    containers: &[core::Container],
    statuses: Option<&Vec<core::ContainerStatus>>,
    pod: Option<&core::Pod>,
    space: &str,
) {
    let statuses: BTreeMap<&str, &core::ContainerStatus> =
        statuses.into_iter().flatten().map(|s| (s.name.as_str(), s)).collect();
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.write(0, &format!("{space}{label}:{none}\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for c in containers {
        let status = statuses.get(c.name.as_str()).copied();
        w.write(1, &format!("{name_indent}{}:\n", c.name));
        if let Some(s) = status {
            w.write(2, &format!("Container ID:\t{}\n", opt(&s.container_id)));
        }
        w.write(2, &format!("Image:\t{}\n", opt(&c.image)));
        if let Some(s) = status {
            w.write(2, &format!("Image ID:\t{}\n", s.image_id));
        }
        let ports = c.ports.clone().unwrap_or_default();
        let describe_ports = |host: bool| {
            ports
                .iter()
                .map(|p| {
                    let num = if host { p.host_port.unwrap_or(0) } else { p.container_port };
                    let mut s = format!("{num}/{}", p.protocol.as_deref().unwrap_or("TCP"));
                    if let Some(n) = p.name.as_deref().filter(|n| !n.is_empty()) {
                        s = format!("{s} ({n})");
                    }
                    s
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let port_text = describe_ports(false);
        if port_text.contains(',') {
            w.write(2, &format!("Ports:\t{port_text}\n"));
        } else {
            w.write(2, &format!("Port:\t{}\n", or_none(&port_text)));
        }
        let host_text = describe_ports(true);
        if host_text.contains(',') {
            w.write(2, &format!("Host Ports:\t{host_text}\n"));
        } else {
            w.write(2, &format!("Host Port:\t{}\n", or_none(&host_text)));
        }
        if let Some(sp) = c.security_context.as_ref().and_then(|s| s.seccomp_profile.as_ref()) {
            w.write(2, &format!("SeccompProfile:\t{}\n", sp.type_));
            if sp.type_ == "Localhost" {
                w.write(3, &format!("LocalhostProfile:\t{}\n", opt(&sp.localhost_profile)));
            }
        }
        for (title, list) in [("Command", &c.command), ("Args", &c.args)] {
            let list = list.clone().unwrap_or_default();
            if !list.is_empty() {
                w.write(2, &format!("{title}:\n"));
                for item in &list {
                    for line in item.split('\n') {
                        w.write(3, &format!("{line}\n"));
                    }
                }
            }
        }
        if let Some(s) = status {
            state_block(w, "State", s.state.as_ref());
            if s.last_state.as_ref().is_some_and(|l| l.terminated.is_some()) {
                state_block(w, "Last State", s.last_state.as_ref());
            }
            w.write(2, &format!("Ready:\t{}\n", if s.ready { "True" } else { "False" }));
            w.write(2, &format!("Restart Count:\t{}\n", s.restart_count));
        }
        resources_block(w, c.resources.as_ref(), 2);
        for (title, probe) in
            [("Liveness", &c.liveness_probe), ("Readiness", &c.readiness_probe), ("Startup", &c.startup_probe)]
        {
            if let Some(p) = probe {
                w.write(2, &format!("{title}:\t{}\n", probe_text(p)));
            }
        }
        let env_from = c.env_from.clone().unwrap_or_default();
        if !env_from.is_empty() {
            w.write(2, "Environment Variables from:\n");
            for e in &env_from {
                let (from, name, optional) = if let Some(cm) = &e.config_map_ref {
                    ("ConfigMap", cm.name.clone(), cm.optional.unwrap_or(false))
                } else if let Some(s) = &e.secret_ref {
                    ("Secret", s.name.clone(), s.optional.unwrap_or(false))
                } else {
                    ("", String::new(), false)
                };
                match e.prefix.as_deref().filter(|p| !p.is_empty()) {
                    None => w.write(3, &format!("{name}\t{from}\tOptional: {optional}\n")),
                    Some(p) => w.write(3, &format!("{name}\t{from} with prefix '{p}'\tOptional: {optional}\n")),
                }
            }
        }
        let env = c.env.clone().unwrap_or_default();
        w.write(2, &format!("Environment:{}\n", if env.is_empty() { "\t<none>" } else { "" }));
        for e in &env {
            let Some(from) = &e.value_from else {
                for (i, line) in opt(&e.value).split('\n').enumerate() {
                    if i == 0 {
                        w.write(3, &format!("{}:\t{line}\n", e.name));
                    } else {
                        w.write(3, &format!("\t{line}\n"));
                    }
                }
                continue;
            };
            if let Some(f) = &from.field_ref {
                w.write(
                    3,
                    &format!(
                        "{}:\t{} ({}:{})\n",
                        e.name,
                        field_value(pod, &f.field_path),
                        opt(&f.api_version),
                        f.field_path
                    ),
                );
            } else if let Some(r) = &from.resource_field_ref {
                let mut value = resource_field_value(r, c);
                if value == "0" && (r.resource == "limits.cpu" || r.resource == "limits.memory") {
                    value = "node allocatable".to_string();
                }
                w.write(3, &format!("{}:\t{value} ({})\n", e.name, r.resource));
            } else if let Some(s) = &from.secret_key_ref {
                w.write(
                    3,
                    &format!(
                        "{}:\t<set to the key '{}' in secret '{}'>\tOptional: {}\n",
                        e.name,
                        s.key,
                        s.name,
                        s.optional.unwrap_or(false)
                    ),
                );
            } else if let Some(cm) = &from.config_map_key_ref {
                w.write(
                    3,
                    &format!(
                        "{}:\t<set to the key '{}' of config map '{}'>\tOptional: {}\n",
                        e.name,
                        cm.key,
                        cm.name,
                        cm.optional.unwrap_or(false)
                    ),
                );
            }
        }
        let mut mounts = c.volume_mounts.clone().unwrap_or_default();
        w.write(2, &format!("Mounts:{}\n", if mounts.is_empty() { "\t<none>" } else { "" }));
        mounts.sort_by(|a, b| a.mount_path.cmp(&b.mount_path));
        for m in &mounts {
            let mut flags = vec![if m.read_only == Some(true) { "ro" } else { "rw" }.to_string()];
            if let Some(sub) = m.sub_path.as_deref().filter(|s| !s.is_empty()) {
                flags.push(format!("path={}", super::util::go_quote(sub)));
            }
            w.write(3, &format!("{} from {} ({})\n", m.mount_path, m.name, flags.join(",")));
        }
        let mut devices = c.volume_devices.clone().unwrap_or_default();
        if !devices.is_empty() {
            w.write(2, "Devices:\n");
            devices.sort_by(|a, b| a.device_path.cmp(&b.device_path));
            for d in &devices {
                w.write(3, &format!("{} from {}\n", d.device_path, d.name));
            }
        }
    }
}

/// `describeStatus`.
fn state_block(w: &mut Writer, title: &str, state: Option<&core::ContainerState>) {
    let state = state.cloned().unwrap_or_default();
    if let Some(r) = &state.running {
        w.write(2, &format!("{title}:\tRunning\n"));
        w.write(3, &format!("Started:\t{}\n", rfc1123z(r.started_at.as_ref())));
    } else if let Some(wt) = &state.waiting {
        w.write(2, &format!("{title}:\tWaiting\n"));
        if !opt(&wt.reason).is_empty() {
            w.write(3, &format!("Reason:\t{}\n", opt(&wt.reason)));
        }
    } else if let Some(t) = &state.terminated {
        w.write(2, &format!("{title}:\tTerminated\n"));
        if !opt(&t.reason).is_empty() {
            w.write(3, &format!("Reason:\t{}\n", opt(&t.reason)));
        }
        if !opt(&t.message).is_empty() {
            w.write(3, &format!("Message:\t{}\n", opt(&t.message)));
        }
        w.write(3, &format!("Exit Code:\t{}\n", t.exit_code));
        if let Some(sig) = t.signal.filter(|s| *s > 0) {
            w.write(3, &format!("Signal:\t{sig}\n"));
        }
        w.write(3, &format!("Started:\t{}\n", rfc1123z(t.started_at.as_ref())));
        w.write(3, &format!("Finished:\t{}\n", rfc1123z(t.finished_at.as_ref())));
    } else {
        w.write(2, &format!("{title}:\tWaiting\n"));
    }
}

fn optional(b: Option<bool>) -> bool {
    b.unwrap_or(false)
}

/// `describeVolumes`.
fn volumes_block(w: &mut Writer, volumes: Option<&Vec<core::Volume>>, space: &str) {
    let volumes = volumes.cloned().unwrap_or_default();
    if volumes.is_empty() {
        w.write(0, &format!("{space}Volumes:\t<none>\n"));
        return;
    }
    w.write(0, &format!("{space}Volumes:\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for v in &volumes {
        w.write(1, &format!("{name_indent}{}:\n", v.name));
        if let Some(h) = &v.host_path {
            w.write(
                2,
                &format!(
                    "Type:\tHostPath (bare host directory volume)\n    Path:\t{}\n    HostPathType:\t{}\n",
                    h.path,
                    h.type_.as_deref().unwrap_or("<none>")
                ),
            );
        } else if let Some(e) = &v.empty_dir {
            let size = e
                .size_limit
                .as_ref()
                .map(|q| Quantity::parse_or_zero(&q.0))
                .filter(|q| *q > Quantity::default())
                .map(|q| q.canonical())
                .unwrap_or_else(|| "<unset>".to_string());
            w.write(
                2,
                &format!(
                    "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t{}\n    SizeLimit:\t{size}\n",
                    opt(&e.medium)
                ),
            );
        } else if let Some(s) = &v.secret {
            w.write(
                2,
                &format!(
                    "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t{}\n    Optional:\t{}\n",
                    opt(&s.secret_name),
                    optional(s.optional)
                ),
            );
        } else if let Some(cm) = &v.config_map {
            w.write(
                2,
                &format!(
                    "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t{}\n    Optional:\t{}\n",
                    cm.name,
                    optional(cm.optional)
                ),
            );
        } else if let Some(nfs) = &v.nfs {
            w.write(
                2,
                &format!(
                    "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t{}\n    Path:\t{}\n    ReadOnly:\t{}\n",
                    nfs.server,
                    nfs.path,
                    optional(nfs.read_only)
                ),
            );
        } else if let Some(pvc) = &v.persistent_volume_claim {
            w.write(
                2,
                &format!(
                    "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t{}\n    ReadOnly:\t{}\n",
                    pvc.claim_name,
                    optional(pvc.read_only)
                ),
            );
        } else if let Some(d) = &v.downward_api {
            w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n");
            for item in d.items.iter().flatten() {
                if let Some(f) = &item.field_ref {
                    w.write(3, &format!("{} -> {}\n", f.field_path, item.path));
                }
                if let Some(r) = &item.resource_field_ref {
                    w.write(3, &format!("{} -> {}\n", r.resource, item.path));
                }
            }
        } else if let Some(p) = &v.projected {
            w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
            for src in p.sources.iter().flatten() {
                if let Some(s) = &src.secret {
                    w.write(2, &format!("SecretName:\t{}\n    Optional:\t{}\n", s.name, optional(s.optional)));
                } else if src.downward_api.is_some() {
                    w.write(2, "DownwardAPI:\ttrue\n");
                } else if let Some(cm) = &src.config_map {
                    w.write(2, &format!("ConfigMapName:\t{}\n    Optional:\t{}\n", cm.name, optional(cm.optional)));
                } else if let Some(t) = &src.service_account_token {
                    w.write(2, &format!("TokenExpirationSeconds:\t{}\n", t.expiration_seconds.unwrap_or(0)));
                }
            }
        } else if let Some(csi) = &v.csi {
            let ro = optional(csi.read_only);
            w.write(
                2,
                &format!(
                    "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t{}\n    FSType:\t{}\n    ReadOnly:\t{ro}\n",
                    csi.driver,
                    opt(&csi.fs_type)
                ),
            );
            attributes_block(w, csi.volume_attributes.as_ref());
        } else {
            w.write(1, "<unknown>\n");
        }
    }
}

/// `printCSIPersistentVolumeAttributesMultiline` for inline CSI volumes.
fn attributes_block(w: &mut Writer, attrs: Option<&BTreeMap<String, String>>) {
    w.write(0, "    VolumeAttributes:\t");
    let attrs = attrs.cloned().unwrap_or_default();
    if attrs.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, (k, v)) in attrs.iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        w.write(0, &format!("    {k}={v}\n"));
    }
}

fn topology_block(w: &mut Writer, constraints: Option<&Vec<core::TopologySpreadConstraint>>, space: &str) {
    let mut list = constraints.cloned().unwrap_or_default();
    if list.is_empty() {
        return;
    }
    list.sort_by(|a, b| a.topology_key.cmp(&b.topology_key));
    w.write(0, &format!("{space}Topology Spread Constraints:\t"));
    for (i, t) in list.iter().enumerate() {
        if i != 0 {
            w.write(0, &format!("{space}\t"));
        }
        let mut line = format!("{}:{} when max skew {} is exceeded", t.topology_key, t.when_unsatisfiable, t.max_skew);
        if let Some(sel) = &t.label_selector {
            line.push_str(&format!(" for selector {}", format_label_selector(Some(sel))));
        }
        line.push('\n');
        w.write(0, &line);
    }
}

/// `qos.GetPodQOS`: the recorded class, else computed from cpu/memory requests and limits.
fn pod_qos(pod: &core::Pod) -> String {
    if let Some(q) = pod.status.as_ref().and_then(|s| s.qos_class.clone()).filter(|q| !q.is_empty()) {
        return q;
    }
    let spec = pod.spec.clone().unwrap_or_default();
    let mut requests: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut limits: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut guaranteed = true;
    let zero = Quantity::default();
    let process = |into: &mut BTreeMap<String, Quantity>, list: Option<&BTreeMap<String, ApiQuantity>>| {
        for (k, v) in list.into_iter().flatten() {
            if k != "cpu" && k != "memory" {
                continue;
            }
            let q = Quantity::parse_or_zero(&v.0);
            if q > zero {
                into.entry(k.clone()).or_default().add(&q);
            }
        }
    };
    let has_both = |list: Option<&BTreeMap<String, ApiQuantity>>| {
        let positive =
            |k: &str| list.and_then(|l| l.get(k)).is_some_and(|q| Quantity::parse_or_zero(&q.0) > Quantity::default());
        positive("cpu") && positive("memory")
    };
    if let Some(r) = &spec.resources {
        process(&mut requests, r.requests.as_ref());
        if r.limits.is_some() {
            process(&mut limits, r.limits.as_ref());
            if !has_both(r.limits.as_ref()) {
                guaranteed = false;
            }
        }
    } else {
        let all = spec.containers.iter().chain(spec.init_containers.iter().flatten());
        for c in all {
            let r = c.resources.clone().unwrap_or_default();
            process(&mut requests, r.requests.as_ref());
            process(&mut limits, r.limits.as_ref());
            if !has_both(r.limits.as_ref()) {
                guaranteed = false;
            }
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort".to_string();
    }
    if guaranteed {
        for (k, req) in &requests {
            if limits.get(k) != Some(req) {
                guaranteed = false;
                break;
            }
        }
    }
    if guaranteed && requests.len() == limits.len() {
        "Guaranteed".to_string()
    } else {
        "Burstable".to_string()
    }
}

fn describe_pod(w: &mut Writer, pod: &core::Pod, related: &Related, now: SimTime) {
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    let meta = &pod.metadata;
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    if let Some(p) = spec.priority {
        w.write(0, &format!("Priority:\t{p}\n"));
    }
    if !opt(&spec.priority_class_name).is_empty() {
        w.write(0, &format!("Priority Class Name:\t{}\n", opt(&spec.priority_class_name)));
    }
    if !opt(&spec.runtime_class_name).is_empty() {
        w.write(0, &format!("Runtime Class Name:\t{}\n", opt(&spec.runtime_class_name)));
    }
    if !opt(&spec.service_account_name).is_empty() {
        w.write(0, &format!("Service Account:\t{}\n", opt(&spec.service_account_name)));
    }
    match spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        None => w.write(0, "Node:\t<none>\n"),
        Some(n) => w.write(0, &format!("Node:\t{n}/{}\n", opt(&status.host_ip))),
    }
    if let Some(t) = &status.start_time {
        w.write(0, &format!("Start Time:\t{}\n", rfc1123z(Some(t))));
    }
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    let phase = opt(&status.phase);
    if meta.deletion_timestamp.is_some() && phase != "Failed" && phase != "Succeeded" {
        w.write(0, &format!("Status:\tTerminating (lasts {})\n", age(meta.deletion_timestamp.as_ref(), now)));
        w.write(0, &format!("Termination Grace Period:\t{}s\n", meta.deletion_grace_period_seconds.unwrap_or(0)));
    } else {
        w.write(0, &format!("Status:\t{phase}\n"));
    }
    if !opt(&status.reason).is_empty() {
        w.write(0, &format!("Reason:\t{}\n", opt(&status.reason)));
    }
    if !opt(&status.message).is_empty() {
        w.write(0, &format!("Message:\t{}\n", opt(&status.message)));
    }
    if let Some(sp) = spec.security_context.as_ref().and_then(|s| s.seccomp_profile.as_ref()) {
        w.write(0, &format!("SeccompProfile:\t{}\n", sp.type_));
        if sp.type_ == "Localhost" {
            w.write(0, &format!("LocalhostProfile:\t{}\n", opt(&sp.localhost_profile)));
        }
    }
    w.write(0, &format!("IP:\t{}\n", opt(&status.pod_ip)));
    let ips = status.pod_ips.clone().unwrap_or_default();
    if ips.is_empty() {
        w.write(0, "IPs:\t<none>\n");
    } else {
        w.write(0, "IPs:\n");
        for ip in &ips {
            w.write(1, &format!("IP:\t{}\n", ip.ip));
        }
    }
    if let Some(r) = controller_of(meta) {
        w.write(0, &format!("Controlled By:\t{}/{}\n", r.kind, r.name));
    }
    if !opt(&status.nominated_node_name).is_empty() {
        w.write(0, &format!("NominatedNodeName:\t{}\n", opt(&status.nominated_node_name)));
    }
    if spec.resources.is_some() {
        w.write(0, "Resources:\n");
        resources_block(w, spec.resources.as_ref(), 1);
    }
    let init = spec.init_containers.clone().unwrap_or_default();
    if !init.is_empty() {
        containers_block(w, "Init Containers", &init, status.init_container_statuses.as_ref(), Some(pod), "");
    }
    containers_block(w, "Containers", &spec.containers, status.container_statuses.as_ref(), Some(pod), "");
    // Ephemeral containers print as containers (the fields they share).
    let ephemeral = crate::api::ephemeral::as_containers(Some(&spec));
    if !ephemeral.is_empty() {
        let statuses = status.ephemeral_container_statuses.as_ref();
        containers_block(w, "Ephemeral Containers", &ephemeral, statuses, Some(pod), "");
    }
    let gates = spec.readiness_gates.clone().unwrap_or_default();
    if !gates.is_empty() {
        w.write(0, "Readiness Gates:\n  Type\tStatus\n");
        for g in &gates {
            let st = status
                .conditions
                .iter()
                .flatten()
                .find(|c| c.type_ == g.condition_type)
                .map(|c| c.status.clone())
                .unwrap_or_else(|| "<none>".to_string());
            w.write(1, &format!("{} \t{st} \n", g.condition_type));
        }
    }
    let conditions = status.conditions.clone().unwrap_or_default();
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\n");
        for c in &conditions {
            w.write(1, &format!("{} \t{} \n", c.type_, c.status));
        }
    }
    volumes_block(w, spec.volumes.as_ref(), "");
    w.write(0, &format!("QoS Class:\t{}\n", pod_qos(pod)));
    labels_block(w, "", "Node-Selectors", spec.node_selector.as_ref());
    tolerations_block(w, "", "Tolerations", spec.tolerations.as_ref());
    topology_block(w, spec.topology_spread_constraints.as_ref(), "");
    events_block(w, &related.events, now);
}

fn describe_node(w: &mut Writer, node: &core::Node, related: &Related, now: SimTime) {
    let meta = &node.metadata;
    let spec = node.spec.clone().unwrap_or_default();
    let status = node.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    let roles = node_roles(node);
    w.write(0, &format!("Roles:\t{}\n", if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(meta.creation_timestamp.as_ref())));
    // Taints, sorted by effect then key.
    w.write(0, "Taints:\t");
    let mut taints = spec.taints.clone().unwrap_or_default();
    if taints.is_empty() {
        w.write(0, "<none>\n");
    } else {
        taints.sort_by(|a, b| format!("{},{}", a.effect, a.key).cmp(&format!("{},{}", b.effect, b.key)));
        for (i, t) in taints.iter().enumerate() {
            if i != 0 {
                w.write(0, "\t");
            }
            let value = opt(&t.value);
            let text = match (t.effect.is_empty(), value.is_empty()) {
                (true, true) => t.key.clone(),
                (true, false) => format!("{}={value}:", t.key),
                (false, true) => format!("{}:{}", t.key, t.effect),
                (false, false) => format!("{}={value}:{}", t.key, t.effect),
            };
            w.write(0, &format!("{text}\n"));
        }
    }
    w.write(0, &format!("Unschedulable:\t{}\n", spec.unschedulable.unwrap_or(false)));
    match related.lease.as_deref() {
        Some(Object::Lease(lease)) => {
            let ls = lease.spec.clone().unwrap_or_default();
            w.write(0, "Lease:\n");
            w.write(1, &format!("HolderIdentity:\t{}\n", ls.holder_identity.as_deref().unwrap_or("<unset>")));
            let micro = |t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime>| {
                t.map(|t| super::duration::rfc1123z_ms(micro_time_ms(t))).unwrap_or_else(|| "<unset>".to_string())
            };
            w.write(1, &format!("AcquireTime:\t{}\n", micro(ls.acquire_time.as_ref())));
            w.write(1, &format!("RenewTime:\t{}\n", micro(ls.renew_time.as_ref())));
        }
        _ => w.write(
            0,
            &format!("Lease:\tFailed to get lease: leases.coordination.k8s.io \"{}\" not found\n", name(meta)),
        ),
    }
    let conditions = status.conditions.clone().unwrap_or_default();
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
        for c in &conditions {
            w.write(
                1,
                &format!(
                    "{} \t{} \t{} \t{} \t{} \t{}\n",
                    c.type_,
                    c.status,
                    rfc1123z(c.last_heartbeat_time.as_ref()),
                    rfc1123z(c.last_transition_time.as_ref()),
                    opt(&c.reason),
                    opt(&c.message)
                ),
            );
        }
    }
    w.write(0, "Addresses:\n");
    for a in status.addresses.iter().flatten() {
        w.write(1, &format!("{}:\t{}\n", a.type_, a.address));
    }
    for (title, list) in [("Capacity", status.capacity.as_ref()), ("Allocatable", status.allocatable.as_ref())] {
        let items = sorted_resources(list);
        if !items.is_empty() {
            w.write(0, &format!("{title}:\n"));
            for (k, v) in items {
                w.write(0, &format!("  {k}:\t{v}\n"));
            }
        }
    }
    let info = status.node_info.clone().unwrap_or_default();
    w.write(0, "System Info:\n");
    for (k, v) in [
        ("Machine ID", &info.machine_id),
        ("System UUID", &info.system_uuid),
        ("Boot ID", &info.boot_id),
        ("Kernel Version", &info.kernel_version),
        ("OS Image", &info.os_image),
        ("Operating System", &info.operating_system),
        ("Architecture", &info.architecture),
        ("Container Runtime Version", &info.container_runtime_version),
        ("Kubelet Version", &info.kubelet_version),
        ("Kube-Proxy Version", &info.kube_proxy_version),
    ] {
        w.write(0, &format!("  {k}:\t{v}\n"));
    }
    if !opt(&spec.pod_cidr).is_empty() {
        w.write(0, &format!("PodCIDR:\t{}\n", opt(&spec.pod_cidr)));
    }
    let cidrs = spec.pod_cidrs.clone().unwrap_or_default();
    if !cidrs.is_empty() {
        w.write(0, &format!("PodCIDRs:\t{}\n", cidrs.join(",")));
    }
    if !opt(&spec.provider_id).is_empty() {
        w.write(0, &format!("ProviderID:\t{}\n", opt(&spec.provider_id)));
    }
    let node_name = name(meta);
    let pods: Vec<&core::Pod> = related
        .pods
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::Pod(p) => Some(&**p),
            _ => None,
        })
        .filter(|p| {
            let on_node = p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node_name);
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            on_node && phase != Some("Succeeded") && phase != Some("Failed")
        })
        .collect();
    node_resources_block(w, &pods, &status, now);
    events_block(w, &related.events, now);
}

/// `int64(float64(a) / float64(b) * 100)` with Go's float→int conversion of NaN/Inf on amd64.
fn percent(part: i64, whole: i64) -> i64 {
    let f = part as f64 / whole as f64 * 100.0;
    if f.is_finite() {
        f as i64
    } else {
        i64::MIN
    }
}

fn percent_guarded(part: i64, whole: i64) -> i64 {
    if whole == 0 {
        0
    } else {
        percent(part, whole)
    }
}

/// `describeNodeResource`: the non-terminated pods table and allocated resources.
fn node_resources_block(w: &mut Writer, pods: &[&core::Pod], status: &core::NodeStatus, now: SimTime) {
    w.write(0, &format!("Non-terminated Pods:\t({} in total)\n", pods.len()));
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    let allocatable = match &status.allocatable {
        Some(a) if !a.is_empty() => a.clone(),
        _ => status.capacity.clone().unwrap_or_default(),
    };
    let alloc = |k: &str| allocatable.get(k).map(|q| Quantity::parse_or_zero(&q.0)).unwrap_or_default();
    let alloc_cpu = alloc("cpu").milli_value();
    let alloc_mem = alloc("memory").value_i64();
    let alloc_eph = alloc("ephemeral-storage").value_i64();
    let mut total_req: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut total_lim: BTreeMap<String, Quantity> = BTreeMap::new();
    for pod in pods {
        let (req, lim) = pod_requests_and_limits(pod);
        let get = |m: &BTreeMap<String, Quantity>, k: &str| m.get(k).cloned().unwrap_or_default();
        let (cr, cl, mr, ml) = (get(&req, "cpu"), get(&lim, "cpu"), get(&req, "memory"), get(&lim, "memory"));
        w.write(
            1,
            &format!(
                "{}\t{}\t\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{}\n",
                namespace(&pod.metadata),
                name(&pod.metadata),
                cr.canonical(),
                percent(cr.milli_value(), alloc_cpu),
                cl.canonical(),
                percent(cl.milli_value(), alloc_cpu),
                mr.canonical(),
                percent(mr.value_i64(), alloc_mem),
                ml.canonical(),
                percent(ml.value_i64(), alloc_mem),
                age(pod.metadata.creation_timestamp.as_ref(), now)
            ),
        );
        for (k, v) in &req {
            match total_req.get_mut(k) {
                Some(t) => t.add(v),
                None => {
                    total_req.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in &lim {
            match total_lim.get_mut(k) {
                Some(t) => t.add(v),
                None => {
                    total_lim.insert(k.clone(), v.clone());
                }
            }
        }
    }
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    w.write(1, "Resource\tRequests\tLimits\n");
    w.write(1, "--------\t--------\t------\n");
    let get = |m: &BTreeMap<String, Quantity>, k: &str| m.get(k).cloned().unwrap_or_default();
    let rows = [("cpu", alloc_cpu, true), ("memory", alloc_mem, false), ("ephemeral-storage", alloc_eph, false)];
    for (res, whole, milli) in rows {
        let r = get(&total_req, res);
        let l = get(&total_lim, res);
        let (rv, lv) = if milli { (r.milli_value(), l.milli_value()) } else { (r.value_i64(), l.value_i64()) };
        w.write(
            1,
            &format!(
                "{res}\t{} ({}%)\t{} ({}%)\n",
                r.canonical(),
                percent_guarded(rv, whole),
                l.canonical(),
                percent_guarded(lv, whole)
            ),
        );
    }
    let extended =
        |k: &str| !matches!(k, "cpu" | "memory" | "ephemeral-storage" | "pods") && !k.starts_with("hugepages-");
    for (k, v) in &allocatable {
        if k.starts_with("hugepages-") {
            let whole = Quantity::parse_or_zero(&v.0).value_i64();
            let r = get(&total_req, k);
            let l = get(&total_lim, k);
            w.write(
                1,
                &format!(
                    "{k}\t{} ({}%)\t{} ({}%)\n",
                    r.canonical(),
                    percent_guarded(r.value_i64(), whole),
                    l.canonical(),
                    percent_guarded(l.value_i64(), whole)
                ),
            );
        }
    }
    for k in allocatable.keys().filter(|k| extended(k)) {
        w.write(1, &format!("{k}\t{}\t{}\n", get(&total_req, k).canonical(), get(&total_lim, k).canonical()));
    }
}

/// Adds every quantity of `list` into `total`.
fn resource_list_sum(total: &mut BTreeMap<String, Quantity>, list: Option<&BTreeMap<String, ApiQuantity>>) {
    for (k, v) in list.into_iter().flatten() {
        let q = Quantity::parse_or_zero(&v.0);
        match total.get_mut(k) {
            Some(t) => t.add(&q),
            None => {
                total.insert(k.clone(), q);
            }
        }
    }
}

/// Keeps the larger of each quantity (`maxResourceList`).
fn resource_list_max(into: &mut BTreeMap<String, Quantity>, other: BTreeMap<String, Quantity>) {
    for (k, v) in other {
        let bigger = into.get(&k).is_none_or(|cur| v > *cur);
        if bigger {
            into.insert(k, v);
        }
    }
}

/// `resourcehelper.PodRequestsAndLimits` from the pod spec (sidecars included, init containers as
/// a maximum, overhead added).
pub(crate) fn pod_requests_and_limits(pod: &core::Pod) -> (BTreeMap<String, Quantity>, BTreeMap<String, Quantity>) {
    let spec = pod.spec.clone().unwrap_or_default();
    let mut out = Vec::new();
    for requests in [true, false] {
        let pick = |c: &core::Container| {
            let r = c.resources.clone().unwrap_or_default();
            if requests {
                r.requests
            } else {
                r.limits
            }
        };
        let mut total: BTreeMap<String, Quantity> = BTreeMap::new();
        for c in &spec.containers {
            resource_list_sum(&mut total, pick(c).as_ref());
        }
        let mut sidecars: BTreeMap<String, Quantity> = BTreeMap::new();
        let mut init_max: BTreeMap<String, Quantity> = BTreeMap::new();
        for c in spec.init_containers.iter().flatten() {
            let own = pick(c);
            let candidate = if c.restart_policy.as_deref() == Some("Always") {
                resource_list_sum(&mut total, own.as_ref());
                resource_list_sum(&mut sidecars, own.as_ref());
                sidecars.clone()
            } else {
                let mut tmp = BTreeMap::new();
                resource_list_sum(&mut tmp, own.as_ref());
                for (k, v) in &sidecars {
                    tmp.entry(k.clone()).or_insert_with(Quantity::default).add(v);
                }
                tmp
            };
            resource_list_max(&mut init_max, candidate);
        }
        resource_list_max(&mut total, init_max);
        if let Some(overhead) = &spec.overhead {
            for (k, v) in overhead {
                let q = Quantity::parse_or_zero(&v.0);
                if requests {
                    total.entry(k.clone()).or_default().add(&q);
                } else if let Some(cur) = total.get_mut(k).filter(|c| !c.is_zero()) {
                    cur.add(&q);
                }
            }
        }
        out.push(total);
    }
    let limits = out.pop().unwrap_or_default();
    let requests = out.pop().unwrap_or_default();
    (requests, limits)
}

/// `DescribePodTemplate` written straight through a prefix writer, its tabs not aligned: what `kubectl
/// rollout history --revision=N` prints for a revision's template.
pub fn pod_template_unaligned(template: &core::PodTemplateSpec) -> String {
    let mut w = Writer { buf: String::new(), out: String::new() };
    pod_template_block(&mut w, Some(template));
    w.buf
}

/// `DescribePodTemplate`.
fn pod_template_block(w: &mut Writer, template: Option<&core::PodTemplateSpec>) {
    w.write(0, "Pod Template:\n");
    let Some(t) = template else {
        w.write(1, "<unset>");
        return;
    };
    let meta = t.metadata.clone().unwrap_or_default();
    let spec = t.spec.clone().unwrap_or_default();
    labels_block(w, "", "  Labels", meta.labels.as_ref());
    if meta.annotations.as_ref().is_some_and(|a| !a.is_empty()) {
        annotations_block(w, "  Annotations", meta.annotations.as_ref());
    }
    if !opt(&spec.service_account_name).is_empty() {
        w.write(1, &format!("Service Account:\t{}\n", opt(&spec.service_account_name)));
    }
    let init = spec.init_containers.clone().unwrap_or_default();
    if !init.is_empty() {
        containers_block(w, "Init Containers", &init, None, None, "  ");
    }
    containers_block(w, "Containers", &spec.containers, None, None, "  ");
    volumes_block(w, spec.volumes.as_ref(), "  ");
    topology_block(w, spec.topology_spread_constraints.as_ref(), "  ");
    if !opt(&spec.priority_class_name).is_empty() {
        w.write(1, &format!("Priority Class Name:\t{}\n", opt(&spec.priority_class_name)));
    }
    labels_block(w, "", "  Node-Selectors", spec.node_selector.as_ref());
    tolerations_block(w, "", "  Tolerations", spec.tolerations.as_ref());
}

fn conditions_type_status_reason<'a>(w: &mut Writer, rows: impl Iterator<Item = (&'a str, &'a str, &'a str)>) {
    let rows: Vec<_> = rows.collect();
    if rows.is_empty() {
        return;
    }
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
    w.write(1, "----\t------\t------\n");
    for (t, s, r) in rows {
        w.write(1, &format!("{t} \t{s}\t{r}\n"));
    }
}

/// Whether `rs` carries `template` (ignoring the `pod-template-hash` label), as the deployment
/// controller decides which replica set is the new one.
fn same_template(rs: &apps::ReplicaSet, template: &core::PodTemplateSpec) -> bool {
    let Some(rs_template) = rs.spec.as_ref().and_then(|s| s.template.clone()) else {
        return false;
    };
    let strip = |t: &core::PodTemplateSpec| {
        let mut t = t.clone();
        if let Some(labels) = t.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
            labels.remove("pod-template-hash");
            if labels.is_empty() {
                if let Some(m) = t.metadata.as_mut() {
                    m.labels = None;
                }
            }
        }
        serde_json::to_value(&t).unwrap_or(serde_json::Value::Null)
    };
    strip(&rs_template) == strip(template)
}

fn describe_deployment(w: &mut Writer, d: &apps::Deployment, related: &Related, now: SimTime) {
    let meta = &d.metadata;
    let spec = d.spec.clone().unwrap_or_default();
    let status = d.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(meta.creation_timestamp.as_ref())));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("Selector:\t{}\n", selector_string(Some(&spec.selector)).unwrap_or_default()));
    w.write(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
            spec.replicas.unwrap_or(1),
            status.updated_replicas.unwrap_or(0),
            status.replicas.unwrap_or(0),
            status.available_replicas.unwrap_or(0),
            status.unavailable_replicas.unwrap_or(0)
        ),
    );
    let strategy = spec.strategy.clone().unwrap_or_default();
    w.write(0, &format!("StrategyType:\t{}\n", opt(&strategy.type_)));
    w.write(0, &format!("MinReadySeconds:\t{}\n", spec.min_ready_seconds.unwrap_or(0)));
    if let Some(ru) = &strategy.rolling_update {
        let s = |v: &Option<IntOrString>| v.as_ref().map(int_or_string).unwrap_or_else(|| "<nil>".to_string());
        w.write(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                s(&ru.max_unavailable),
                s(&ru.max_surge)
            ),
        );
    }
    pod_template_block(w, Some(&spec.template));
    let conditions = status.conditions.clone().unwrap_or_default();
    conditions_type_status_reason(w, conditions.iter().map(|c| (c.type_.as_str(), c.status.as_str(), opt(&c.reason))));
    let uid = meta.uid.as_deref();
    let mut owned: Vec<&apps::ReplicaSet> = related
        .replica_sets
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ReplicaSet(rs) => Some(&**rs),
            _ => None,
        })
        .filter(|rs| {
            controller_of(&rs.metadata).is_some_and(|r| {
                r.kind == "Deployment"
                    && match uid {
                        Some(u) => r.uid == u,
                        None => r.name == name(meta),
                    }
            })
        })
        .collect();
    owned.sort_by(|a, b| {
        let ka = (a.metadata.creation_timestamp.as_ref().map(time_ms), name(&a.metadata));
        let kb = (b.metadata.creation_timestamp.as_ref().map(time_ms), name(&b.metadata));
        ka.cmp(&kb)
    });
    let new_rs = owned.iter().position(|rs| same_template(rs, &spec.template));
    let rs_text = |list: &[&apps::ReplicaSet]| {
        let parts: Vec<String> = list
            .iter()
            .map(|rs| {
                format!(
                    "{} ({}/{} replicas created)",
                    name(&rs.metadata),
                    rs.status.as_ref().map(|s| s.replicas).unwrap_or(0),
                    rs.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1)
                )
            })
            .collect();
        if parts.is_empty() {
            "<none>".to_string()
        } else {
            parts.join(", ")
        }
    };
    if !owned.is_empty() {
        let new: Vec<&apps::ReplicaSet> = new_rs.map(|i| owned[i]).into_iter().collect();
        let mut old: Vec<&apps::ReplicaSet> =
            owned.iter().enumerate().filter(|(i, _)| Some(*i) != new_rs).map(|(_, rs)| *rs).collect();
        old.sort_by(|a, b| name(&a.metadata).cmp(name(&b.metadata)));
        w.write(0, &format!("OldReplicaSets:\t{}\n", rs_text(&old)));
        w.write(0, &format!("NewReplicaSet:\t{}\n", rs_text(&new)));
    }
    events_block(w, &related.events, now);
}

fn describe_replica_set(w: &mut Writer, rs: &apps::ReplicaSet, related: &Related, now: SimTime) {
    let meta = &rs.metadata;
    let spec = rs.spec.clone().unwrap_or_default();
    let status = rs.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    w.write(0, &format!("Selector:\t{}\n", format_label_selector(Some(&spec.selector))));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    if let Some(r) = controller_of(meta) {
        w.write(0, &format!("Controlled By:\t{}/{}\n", r.kind, r.name));
    }
    w.write(0, &format!("Replicas:\t{} current / {} desired\n", status.replicas, spec.replicas.unwrap_or(1)));
    pods_status_line(w, related, meta);
    pod_template_block(w, spec.template.as_ref());
    let conditions = status.conditions.clone().unwrap_or_default();
    conditions_type_status_reason(w, conditions.iter().map(|c| (c.type_.as_str(), c.status.as_str(), opt(&c.reason))));
    events_block(w, &related.events, now);
}

/// `getPodStatusForController`: the phases of the related pods `owner` controls.
fn pods_status_line(w: &mut Writer, related: &Related, owner: &ObjectMeta) {
    let (mut running, mut waiting, mut succeeded, mut failed) = (0, 0, 0, 0);
    for o in &related.pods {
        let Object::Pod(p) = o.as_ref() else { continue };
        let owned = controller_of(&p.metadata).is_some_and(|r| owner.uid.as_deref().is_some_and(|u| r.uid == u));
        if !owned {
            continue;
        }
        match p.status.as_ref().and_then(|s| s.phase.as_deref()) {
            Some("Running") => running += 1,
            Some("Pending") => waiting += 1,
            Some("Succeeded") => succeeded += 1,
            Some("Failed") => failed += 1,
            _ => {}
        }
    }
    w.write(0, "Pods Status:\t");
    w.write(0, &format!("{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"));
}

/// `formatEndpointSlices` for one service port: ready endpoints, three at most.
pub(super) fn slice_endpoints(slices: &[&discovery::EndpointSlice], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".to_string();
    }
    let mut list: Vec<String> = Vec::new();
    let mut more = false;
    let mut count = 0usize;
    for s in slices {
        let ports = s.ports.clone().unwrap_or_default();
        let ready = |e: &discovery::Endpoint| e.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true);
        if ports.is_empty() {
            for e in &s.endpoints {
                if list.len() == 3 {
                    more = true;
                }
                if !ready(e) {
                    continue;
                }
                if !more {
                    list.push(e.addresses.first().cloned().unwrap_or_default());
                }
                count += 1;
            }
        } else {
            for p in &ports {
                if p.name.as_deref().unwrap_or("") != port_name {
                    continue;
                }
                for e in &s.endpoints {
                    if list.len() == 3 {
                        more = true;
                    }
                    if !ready(e) {
                        continue;
                    }
                    if !more {
                        let addr = e.addresses.first().cloned().unwrap_or_default();
                        list.push(join_host_port(&addr, &p.port.unwrap_or(0).to_string()));
                    }
                    count += 1;
                }
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count.saturating_sub(3))
    } else {
        joined
    }
}

fn describe_service(w: &mut Writer, svc: &core::Service, related: &Related, now: SimTime) {
    let meta = &svc.metadata;
    let spec = svc.spec.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("Selector:\t{}\n", format_labels(spec.selector.as_ref())));
    w.write(0, &format!("Type:\t{}\n", opt(&spec.type_)));
    if let Some(p) = &spec.ip_family_policy {
        w.write(0, &format!("IP Family Policy:\t{p}\n"));
    }
    let families = spec.ip_families.clone().unwrap_or_default();
    w.write(
        0,
        &format!("IP Families:\t{}\n", if families.is_empty() { "<none>".to_string() } else { families.join(",") }),
    );
    w.write(0, &format!("IP:\t{}\n", opt(&spec.cluster_ip)));
    let ips = spec.cluster_ips.clone().unwrap_or_default();
    w.write(0, &format!("IPs:\t{}\n", if ips.is_empty() { "<none>".to_string() } else { ips.join(",") }));
    let external = spec.external_ips.clone().unwrap_or_default();
    if !external.is_empty() {
        w.write(0, &format!("External IPs:\t{}\n", external.join(",")));
    }
    if !opt(&spec.load_balancer_ip).is_empty() {
        w.write(0, &format!("Desired LoadBalancer IP:\t{}\n", opt(&spec.load_balancer_ip)));
    }
    if !opt(&spec.external_name).is_empty() {
        w.write(0, &format!("External Name:\t{}\n", opt(&spec.external_name)));
    }
    let ingress =
        svc.status.as_ref().and_then(|s| s.load_balancer.as_ref()).and_then(|l| l.ingress.clone()).unwrap_or_default();
    if !ingress.is_empty() {
        let list: Vec<String> = ingress
            .iter()
            .map(|i| match i.ip.as_deref().filter(|ip| !ip.is_empty()) {
                Some(ip) => match &i.ip_mode {
                    Some(mode) => format!("{ip} ({mode})"),
                    None => ip.to_string(),
                },
                None => opt(&i.hostname).to_string(),
            })
            .collect();
        w.write(0, &format!("LoadBalancer Ingress:\t{}\n", list.join(", ")));
    }
    let slices: Vec<&discovery::EndpointSlice> = related
        .endpoint_slices
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::EndpointSlice(s) => Some(&**s),
            _ => None,
        })
        .collect();
    for p in spec.ports.iter().flatten() {
        let port_name = opt(&p.name);
        let shown = if port_name.is_empty() { "<unset>" } else { port_name };
        let proto = p.protocol.as_deref().unwrap_or("TCP");
        w.write(0, &format!("Port:\t{shown}\t{}/{proto}\n", p.port));
        match &p.target_port {
            Some(IntOrString::String(s)) => w.write(0, &format!("TargetPort:\t{s}/{proto}\n")),
            Some(IntOrString::Int(i)) => w.write(0, &format!("TargetPort:\t{i}/{proto}\n")),
            None => w.write(0, &format!("TargetPort:\t0/{proto}\n")),
        }
        if let Some(np) = p.node_port.filter(|n| *n != 0) {
            w.write(0, &format!("NodePort:\t{shown}\t{np}/{proto}\n"));
        }
        w.write(0, &format!("Endpoints:\t{}\n", slice_endpoints(&slices, port_name)));
    }
    w.write(0, &format!("Session Affinity:\t{}\n", opt(&spec.session_affinity)));
    if !opt(&spec.external_traffic_policy).is_empty() {
        w.write(0, &format!("External Traffic Policy:\t{}\n", opt(&spec.external_traffic_policy)));
    }
    if let Some(p) = &spec.internal_traffic_policy {
        w.write(0, &format!("Internal Traffic Policy:\t{p}\n"));
    }
    if let Some(hc) = spec.health_check_node_port.filter(|n| *n != 0) {
        w.write(0, &format!("HealthCheck NodePort:\t{hc}\n"));
    }
    let ranges = spec.load_balancer_source_ranges.clone().unwrap_or_default();
    if !ranges.is_empty() {
        w.write(0, &format!("LoadBalancer Source Ranges:\t{}\n", ranges.join(",")));
    }
    if let Some(td) = &spec.traffic_distribution {
        w.write(0, &format!("Traffic Distribution:\t{td}\n"));
    }
    events_block(w, &related.events, now);
}

fn describe_namespace(w: &mut Writer, ns: &core::Namespace, related: &Related) {
    let meta = &ns.metadata;
    let status = ns.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("Status:\t{}\n", opt(&status.phase)));
    let conditions = status.conditions.clone().unwrap_or_default();
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n");
        w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
        w.write(1, "----\t------\t------------------\t------\t-------\n");
        for c in &conditions {
            w.write(
                1,
                &format!(
                    "{}\t{}\t{}\t{}\t{}\n",
                    c.type_,
                    c.status,
                    rfc1123z(c.last_transition_time.as_ref()),
                    opt(&c.reason),
                    opt(&c.message)
                ),
            );
        }
    }
    w.write(0, "\n");
    let mut quotas: Vec<&core::ResourceQuota> = related
        .resource_quotas
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ResourceQuota(q) => Some(&**q),
            _ => None,
        })
        .collect();
    if quotas.is_empty() {
        w.write(0, "No resource quota.\n");
    } else {
        quotas.sort_by(|a, b| name(&a.metadata).cmp(name(&b.metadata)));
        w.write(0, "Resource Quotas\n");
        for q in quotas {
            w.write(1, &format!("Name:\t{}\n", name(&q.metadata)));
            let mut scopes = q.spec.as_ref().and_then(|s| s.scopes.clone()).unwrap_or_default();
            if !scopes.is_empty() {
                scopes.sort();
                w.write(1, &format!("Scopes:\t{}\n", scopes.join(", ")));
                for s in &scopes {
                    if let Some(help) = scope_help(s) {
                        w.write(1, &format!("* {help}\n"));
                    }
                }
            }
            w.write(1, "Resource\tUsed\tHard\n");
            w.write(1, "--------\t---\t---\n");
            let status = q.status.clone().unwrap_or_default();
            let used = status.used.unwrap_or_default();
            for (res, hard) in status.hard.unwrap_or_default() {
                let u = used.get(&res).map(|v| Quantity::parse_or_zero(&v.0)).unwrap_or_default();
                w.write(1, &format!("{res}\t{}\t{}\n", u.canonical(), Quantity::parse_or_zero(&hard.0).canonical()));
            }
        }
    }
    w.write(0, "\n");
    let ranges: Vec<&core::LimitRange> = related
        .limit_ranges
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::LimitRange(l) => Some(&**l),
            _ => None,
        })
        .collect();
    if ranges.is_empty() {
        w.write(0, "No LimitRange resource.\n");
        return;
    }
    w.write(0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
    w.write(0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
    for lr in ranges {
        for item in lr.spec.as_ref().map(|s| s.limits.clone()).unwrap_or_default() {
            let lists = [
                item.min.clone().unwrap_or_default(),
                item.max.clone().unwrap_or_default(),
                item.default_request.clone().unwrap_or_default(),
                item.default.clone().unwrap_or_default(),
                item.max_limit_request_ratio.clone().unwrap_or_default(),
            ];
            let mut keys: Vec<&String> = lists.iter().flat_map(|l| l.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let cell = |l: &BTreeMap<String, ApiQuantity>| {
                    l.get(k).map(|q| Quantity::parse_or_zero(&q.0).canonical()).unwrap_or_else(|| "-".to_string())
                };
                w.write(
                    0,
                    &format!(
                        " {}\t{k}\t{}\t{}\t{}\t{}\t{}\n",
                        item.type_,
                        cell(&lists[0]),
                        cell(&lists[1]),
                        cell(&lists[2]),
                        cell(&lists[3]),
                        cell(&lists[4])
                    ),
                );
            }
        }
    }
}

fn scope_help(scope: &str) -> Option<&'static str> {
    Some(match scope {
        "Terminating" => "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system.",
        "NotTerminating" => "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate.",
        "BestEffort" => "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service.",
        "NotBestEffort" => "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.",
        _ => return None,
    })
}

fn describe_config_map(w: &mut Writer, cm: &core::ConfigMap, related: &Related, now: SimTime) {
    let meta = &cm.metadata;
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, "\nData\n====\n");
    for (k, v) in cm.data.iter().flatten() {
        w.write(0, &format!("{k}:\n----\n"));
        w.write(0, &format!("{v}\n"));
        w.write(0, "\n");
    }
    w.write(0, "\nBinaryData\n====\n");
    for (k, v) in cm.binary_data.iter().flatten() {
        w.write(0, &format!("{k}: {} bytes\n", v.0.len()));
    }
    w.write(0, "\n");
    events_block(w, &related.events, now);
}

fn describe_secret(w: &mut Writer, s: &core::Secret) {
    let meta = &s.metadata;
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("\nType:\t{}\n", opt(&s.type_)));
    w.write(0, "\nData\n====\n");
    let type_ = opt(&s.type_);
    for (k, v) in s.data.iter().flatten() {
        if k == "token" && type_ == "kubernetes.io/service-account-token" {
            w.write(0, &format!("{k}:\t{}\n", String::from_utf8_lossy(&v.0)));
        } else {
            w.write(0, &format!("{k}:\t{} bytes\n", v.0.len()));
        }
    }
}

/// `describeServiceAccount`: the secret lists under their headers (kubectl sorts the headers, which carry
/// their own padding), then the events. Legacy token Secrets are not looked up: a v1.34 cluster makes none.
fn describe_service_account(w: &mut Writer, sa: &core::ServiceAccount, related: &Related, now: SimTime) {
    let meta = &sa.metadata;
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    let pulls: Vec<String> = sa.image_pull_secrets.iter().flatten().map(|s| s.name.clone()).collect();
    let mounts: Vec<String> = sa.secrets.iter().flatten().map(|s| s.name.clone().unwrap_or_default()).collect();
    for (header, names) in
        [("Image pull secrets:", pulls), ("Mountable secrets: ", mounts), ("Tokens:            ", Vec::new())]
    {
        if names.is_empty() {
            w.write(0, &format!("{header}\t<none>\n"));
        }
        for (i, n) in names.iter().enumerate() {
            let shown = if i == 0 { header } else { "                   " };
            w.write(0, &format!("{shown}\t{n}\n"));
        }
    }
    events_block(w, &related.events, now);
}

fn describe_generic(w: &mut Writer, obj: &Object, related: &Related, now: SimTime) {
    let meta = obj.meta();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    if obj.info().namespaced {
        w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    }
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    events_block(w, &related.events, now);
}

/// kubectl's `genericDescriber`, for kinds it has no describer of its own for (Leases): the name, namespace,
/// labels and annotations, then every other field of the object as unstructured content, keys sorted, each
/// with its smart label, and the events. Counterpart: `pkg/describe/describe.go` `printUnstructuredContent`.
fn describe_unstructured(w: &mut Writer, obj: &Object, related: &Related, now: SimTime) {
    let meta = obj.meta();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    if let Some(content) = obj.to_json().as_object() {
        const SKIP: [&str; 5] = [
            ".metadata.managedFields",
            ".metadata.name",
            ".metadata.namespace",
            ".metadata.labels",
            ".metadata.annotations",
        ];
        unstructured_content(w, 0, content, "", &SKIP);
    }
    events_block(w, &related.events, now);
}

fn unstructured_content(
    w: &mut Writer,
    level: usize,
    content: &serde_json::Map<String, serde_json::Value>,
    prefix: &str,
    skip: &[&str],
) {
    use serde_json::Value;
    let mut fields: Vec<&String> = content.keys().collect();
    fields.sort();
    for field in fields {
        let path = format!("{prefix}.{field}");
        if skip.contains(&path.as_str()) {
            continue;
        }
        match &content[field] {
            Value::Object(map) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                unstructured_content(w, level + 1, map, &path, skip);
            }
            Value::Array(items) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                for item in items {
                    match item {
                        Value::Object(map) => unstructured_content(w, level + 1, map, &path, skip),
                        other => w.write(level + 1, &format!("{}\n", go_value(other))),
                    }
                }
            }
            other => w.write(level, &format!("{}:\t{}\n", smart_label(field), go_value(other))),
        }
    }
}

/// A JSON scalar as Go's `%v` prints it (numbers decode to float64: `15`, `0.5`).
fn go_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "<nil>".to_string(),
        other => other.to_string(),
    }
}

/// `smartLabelFor`: a camelCase field as capitalised words, with common acronyms upper-cased
/// (`holderIdentity` → `Holder Identity`, `apiVersion` → `API Version`); a name with characters other than
/// letters and `-` is kept as it is.
fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    const ACRONYMS: [&str; 5] = ["API", "URL", "UID", "OSB", "GUID"];
    camel_case_words(field)
        .iter()
        .filter(|p| p.as_str() != "_")
        .map(|part| {
            let upper = part.to_uppercase();
            if ACRONYMS.contains(&upper.as_str()) {
                upper
            } else {
                let mut chars = part.chars();
                chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits `camelCase` and `HTTPServer` style words as fatih/camelcase does: at a lower-to-upper change, and
/// before the last capital of a run of capitals followed by a lower-case letter.
fn camel_case_words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if c.is_uppercase() => {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            }
            _ => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Kind;

    #[test]
    fn a_lease_is_described_as_kubectls_generic_describer_prints_unstructured_content() {
        let lease = obj(
            Kind::Lease,
            "metadata: {name: kube-scheduler, namespace: kube-system, uid: u-1, resourceVersion: \"42\", creationTimestamp: \"2025-09-01T00:00:02Z\"}\nspec: {holderIdentity: controlplane_x, leaseDurationSeconds: 15, acquireTime: \"2025-09-01T00:00:02.732000Z\", renewTime: \"2025-09-01T00:00:04.745000Z\", leaseTransitions: 0}\n",
        );
        let text = describe(&lease, &Related::default(), at(10));
        assert_eq!(
            text,
            "Name:         kube-scheduler\nNamespace:    kube-system\nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  coordination.k8s.io/v1\nKind:         Lease\nMetadata:\n  Creation Timestamp:  2025-09-01T00:00:02Z\n  Resource Version:    42\n  UID:                 u-1\nSpec:\n  Acquire Time:            2025-09-01T00:00:02.732000Z\n  Holder Identity:         controlplane_x\n  Lease Duration Seconds:  15\n  Lease Transitions:       0\n  Renew Time:              2025-09-01T00:00:04.745000Z\nEvents:                    <none>\n"
        );
        assert_eq!(smart_label("apiVersion"), "API Version");
        assert_eq!(smart_label("podCIDRs"), "Pod CID Rs");
        assert_eq!(smart_label("x.y"), "x.y");
    }

    fn obj(kind: Kind, yaml: &str) -> Arc<Object> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).expect("yaml");
        Arc::new(Object::from_json_as(kind, value).expect("object"))
    }

    fn at(secs: u64) -> SimTime {
        SimTime(secs * 1000)
    }

    const DEPLOYMENT: &str = r#"
metadata:
  name: web
  namespace: default
  uid: d-uid
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {app: web}
  annotations: {deployment.kubernetes.io/revision: "2"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 25%, maxSurge: 25%}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.28
        ports: [{containerPort: 80, protocol: TCP}]
status:
  replicas: 3
  updatedReplicas: 3
  readyReplicas: 3
  availableReplicas: 3
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
"#;

    const NEW_RS: &str = r#"
metadata:
  name: web-6d4f5b7c8d
  namespace: default
  uid: rs2
  creationTimestamp: "2025-09-01T00:05:00Z"
  labels: {app: web, pod-template-hash: 6d4f5b7c8d}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-uid, controller: true}]
spec:
  replicas: 3
  selector: {matchLabels: {app: web, pod-template-hash: 6d4f5b7c8d}}
  template:
    metadata: {labels: {app: web, pod-template-hash: 6d4f5b7c8d}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.28
        ports: [{containerPort: 80, protocol: TCP}]
status: {replicas: 3}
"#;

    const OLD_RS: &str = r#"
metadata:
  name: web-7c5ddbdf54
  namespace: default
  uid: rs1
  creationTimestamp: "2025-09-01T00:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-uid, controller: true}]
spec:
  replicas: 0
  selector: {matchLabels: {app: web, pod-template-hash: 7c5ddbdf54}}
  template:
    metadata: {labels: {app: web, pod-template-hash: 7c5ddbdf54}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
status: {replicas: 0}
"#;

    const SCALED_EVENT: &str = r#"
metadata: {name: web.1}
involvedObject: {kind: Deployment, name: web}
reason: ScalingReplicaSet
message: Scaled up replica set web-6d4f5b7c8d from 0 to 1
type: Normal
firstTimestamp: "2025-09-01T00:05:00Z"
lastTimestamp: "2025-09-01T00:05:00Z"
count: 1
source: {component: deployment-controller}
"#;

    #[test]
    fn a_deployment_describes_replicas_strategy_template_and_replica_sets() {
        let related = Related {
            replica_sets: vec![obj(Kind::ReplicaSet, NEW_RS), obj(Kind::ReplicaSet, OLD_RS)],
            events: vec![obj(Kind::Event, SCALED_EVENT)],
            ..Default::default()
        };
        let text = describe(&obj(Kind::Deployment, DEPLOYMENT), &related, at(600));
        assert_eq!(text, EXPECTED_DEPLOYMENT);
    }

    const EXPECTED_DEPLOYMENT: &str = "\
Name:                   web
Namespace:              default
CreationTimestamp:      Mon, 01 Sep 2025 00:00:00 +0000
Labels:                 app=web
Annotations:            deployment.kubernetes.io/revision: 2
Selector:               app=web
Replicas:               3 desired | 3 updated | 3 total | 3 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=web
  Containers:
   nginx:
    Image:         nginx:1.28
    Port:          80/TCP
    Host Port:     0/TCP
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    NewReplicaSetAvailable
OldReplicaSets:  web-7c5ddbdf54 (0/0 replicas created)
NewReplicaSet:   web-6d4f5b7c8d (3/3 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  5m    deployment-controller  Scaled up replica set web-6d4f5b7c8d from 0 to 1
";

    #[test]
    fn a_deployment_without_replica_sets_omits_the_replica_set_lines() {
        let text = describe(&obj(Kind::Deployment, DEPLOYMENT), &Related::default(), at(600));
        assert!(!text.contains("NewReplicaSet:"));
        assert!(text.ends_with("  Progressing   True    NewReplicaSetAvailable\nEvents:         <none>\n"), "{text}");
    }

    #[test]
    fn a_replica_set_counts_its_pods_by_phase() {
        let pod = |name: &str, phase: &str, owner: &str| {
            obj(
                Kind::Pod,
                &format!(
                    "metadata: {{name: {name}, ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: x, uid: {owner}, controller: true}}]}}\nstatus: {{phase: {phase}}}\n"
                ),
            )
        };
        let related = Related {
            pods: vec![
                pod("a", "Running", "rs2"),
                pod("b", "Running", "rs2"),
                pod("c", "Pending", "rs2"),
                pod("d", "Running", "other"),
            ],
            ..Default::default()
        };
        let text = describe(&obj(Kind::ReplicaSet, NEW_RS), &related, at(600));
        assert_eq!(text, EXPECTED_REPLICA_SET);
    }

    const EXPECTED_REPLICA_SET: &str = "\
Name:           web-6d4f5b7c8d
Namespace:      default
Selector:       app=web,pod-template-hash=6d4f5b7c8d
Labels:         app=web
                pod-template-hash=6d4f5b7c8d
Annotations:    <none>
Controlled By:  Deployment/web
Replicas:       3 current / 3 desired
Pods Status:    2 Running / 1 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:  app=web
           pod-template-hash=6d4f5b7c8d
  Containers:
   nginx:
    Image:         nginx:1.28
    Port:          80/TCP
    Host Port:     0/TCP
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Events:            <none>
";

    #[test]
    fn a_node_port_service_lists_ports_and_ready_endpoints() {
        let svc = obj(
            Kind::Service,
            r#"
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  type: NodePort
  selector: {app: web}
  clusterIP: 10.96.12.7
  clusterIPs: [10.96.12.7]
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  sessionAffinity: None
  externalTrafficPolicy: Cluster
  internalTrafficPolicy: Cluster
  ports: [{port: 80, targetPort: 80, nodePort: 30080, protocol: TCP}]
"#,
        );
        let slice = obj(
            Kind::EndpointSlice,
            r#"
metadata: {name: web-abcde, namespace: default}
addressType: IPv4
ports: [{name: "", port: 80, protocol: TCP}]
endpoints:
- {addresses: [10.244.1.5], conditions: {ready: true}}
- {addresses: [10.244.2.7], conditions: {ready: true}}
- {addresses: [10.244.2.8], conditions: {ready: false}}
"#,
        );
        let related = Related { endpoint_slices: vec![slice], ..Default::default() };
        assert_eq!(describe(&svc, &related, at(600)), EXPECTED_SERVICE);
        let none = describe(&svc, &Related::default(), at(600));
        assert!(none.contains("\nEndpoints:                <none>\n"), "{none}");
    }

    const EXPECTED_SERVICE: &str = "\
Name:                     web
Namespace:                default
Labels:                   app=web
Annotations:              <none>
Selector:                 app=web
Type:                     NodePort
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       10.96.12.7
IPs:                      10.96.12.7
Port:                     <unset>  80/TCP
TargetPort:               80/TCP
NodePort:                 <unset>  30080/TCP
Endpoints:                10.244.1.5:80,10.244.2.7:80
Session Affinity:         None
External Traffic Policy:  Cluster
Internal Traffic Policy:  Cluster
Events:                   <none>
";

    #[test]
    fn a_namespace_lists_its_quotas_and_limit_ranges() {
        let ns = obj(
            Kind::Namespace,
            "metadata: {name: dev, labels: {kubernetes.io/metadata.name: dev}}\nstatus: {phase: Active}\n",
        );
        let quota = obj(
            Kind::ResourceQuota,
            "metadata: {name: q}\nstatus: {hard: {pods: \"10\", requests.cpu: \"2\"}, used: {pods: \"3\", requests.cpu: 500m}}\n",
        );
        let limits = obj(
            Kind::LimitRange,
            "metadata: {name: l}\nspec: {limits: [{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 250m}, max: {memory: 1Gi}}]}\n",
        );
        let related = Related { resource_quotas: vec![quota], limit_ranges: vec![limits], ..Default::default() };
        assert_eq!(describe(&ns, &related, at(600)), EXPECTED_NAMESPACE);
        let bare = describe(&ns, &Related::default(), at(600));
        assert!(bare.ends_with("Status:       Active\n\nNo resource quota.\n\nNo LimitRange resource.\n"), "{bare}");
    }

    const EXPECTED_NAMESPACE: &str = "\
Name:         dev
Labels:       kubernetes.io/metadata.name=dev
Annotations:  <none>
Status:       Active

Resource Quotas
  Name:         q
  Resource      Used  Hard
  --------      ---   ---
  pods          3     10
  requests.cpu  500m  2

Resource Limits
 Type       Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio
 ----       --------  ---  ---  ---------------  -------------  -----------------------
 Container  cpu       -    -    250m             500m           -
 Container  memory    -    1Gi  -                -              -
";

    const CRASHING_POD: &str = r#"
metadata:
  name: web-7c5ddbdf54-x2x9q
  namespace: default
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {app: web, pod-template-hash: 7c5ddbdf54}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7c5ddbdf54, uid: rs1, controller: true, blockOwnerDeletion: true}
spec:
  nodeName: node1
  priority: 0
  serviceAccountName: default
  containers:
  - name: web
    image: nginx:1.27
    command: [sh, -c, echo hello && sleep 3600]
    env:
    - name: POD_NAME
      valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}
    - {name: GREETING, value: "hello: world"}
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: db, key: password}}
    ports: [{containerPort: 80, protocol: TCP}]
    resources:
      limits: {cpu: 500m, memory: 128Mi}
      requests: {cpu: 250m, memory: 64Mi}
    readinessProbe:
      httpGet: {path: /healthz, port: 8080, scheme: HTTP}
      timeoutSeconds: 1
      periodSeconds: 10
      successThreshold: 1
      failureThreshold: 3
    volumeMounts:
    - {mountPath: /var/run/secrets/kubernetes.io/serviceaccount, name: kube-api-access-abcde, readOnly: true}
    - {mountPath: /data, name: data}
  tolerations:
  - {effect: NoExecute, key: node.kubernetes.io/unreachable, operator: Exists, tolerationSeconds: 300}
  - {effect: NoExecute, key: node.kubernetes.io/not-ready, operator: Exists, tolerationSeconds: 300}
  volumes:
  - name: kube-api-access-abcde
    projected:
      sources:
      - serviceAccountToken: {expirationSeconds: 3607, path: token}
      - configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}
      - downwardAPI: {items: [{fieldRef: {apiVersion: v1, fieldPath: metadata.namespace}, path: namespace}]}
  - name: data
    emptyDir: {}
status:
  phase: Running
  hostIP: 172.18.0.3
  podIP: 10.244.1.5
  podIPs: [{ip: 10.244.1.5}]
  startTime: "2025-09-01T00:00:01Z"
  conditions:
  - {type: PodReadyToStartContainers, status: "True"}
  - {type: Initialized, status: "True"}
  - {type: Ready, status: "False"}
  - {type: PodScheduled, status: "True"}
  containerStatuses:
  - name: web
    containerID: containerd://abcdef
    image: docker.io/library/nginx:1.27
    imageID: docker.io/library/nginx@sha256:0123
    ready: false
    restartCount: 3
    state: {waiting: {reason: CrashLoopBackOff, message: back-off 40s}}
    lastState:
      terminated: {exitCode: 1, reason: Error, startedAt: "2025-09-01T00:08:15Z", finishedAt: "2025-09-01T00:09:15Z"}
"#;

    const BACKOFF_EVENT: &str = r#"
metadata: {name: web.2, namespace: default}
involvedObject: {kind: Pod, name: web-7c5ddbdf54-x2x9q, fieldPath: "spec.containers{web}"}
reason: BackOff
message: "Back-off restarting failed container web in pod web-7c5ddbdf54-x2x9q_default(5f1e2d3c)"
type: Warning
count: 5
firstTimestamp: "2025-09-01T00:01:00Z"
lastTimestamp: "2025-09-01T00:09:30Z"
source: {component: kubelet, host: node1}
"#;

    const SCHEDULED_EVENT: &str = r#"
metadata: {name: web.1, namespace: default}
involvedObject: {kind: Pod, name: web-7c5ddbdf54-x2x9q}
reason: Scheduled
message: "Successfully assigned default/web-7c5ddbdf54-x2x9q to node1"
type: Normal
eventTime: "2025-09-01T00:00:01.000000Z"
reportingComponent: default-scheduler
"#;

    #[test]
    fn a_crash_looping_pod_describes_containers_conditions_volumes_and_events() {
        let related = Related {
            events: vec![obj(Kind::Event, BACKOFF_EVENT), obj(Kind::Event, SCHEDULED_EVENT)],
            ..Default::default()
        };
        let text = describe(&obj(Kind::Pod, CRASHING_POD), &related, at(600));
        assert_eq!(text, EXPECTED_POD);
    }

    const EXPECTED_POD: &str = "\
Name:             web-7c5ddbdf54-x2x9q
Namespace:        default
Priority:         0
Service Account:  default
Node:             node1/172.18.0.3
Start Time:       Mon, 01 Sep 2025 00:00:01 +0000
Labels:           app=web
                  pod-template-hash=7c5ddbdf54
Annotations:      <none>
Status:           Running
IP:               10.244.1.5
IPs:
  IP:           10.244.1.5
Controlled By:  ReplicaSet/web-7c5ddbdf54
Containers:
  web:
    Container ID:  containerd://abcdef
    Image:         nginx:1.27
    Image ID:      docker.io/library/nginx@sha256:0123
    Port:          80/TCP
    Host Port:     0/TCP
    Command:
      sh
      -c
      echo hello && sleep 3600
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      Mon, 01 Sep 2025 00:08:15 +0000
      Finished:     Mon, 01 Sep 2025 00:09:15 +0000
    Ready:          False
    Restart Count:  3
    Limits:
      cpu:     500m
      memory:  128Mi
    Requests:
      cpu:      250m
      memory:   64Mi
    Readiness:  http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3
    Environment:
      POD_NAME:  web-7c5ddbdf54-x2x9q (v1:metadata.name)
      GREETING:  hello: world
      PASSWORD:  <set to the key 'password' in secret 'db'>  Optional: false
    Mounts:
      /data from data (rw)
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-abcde (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True 
  Initialized                 True 
  Ready                       False 
  PodScheduled                True 
Volumes:
  kube-api-access-abcde:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    Optional:                false
    DownwardAPI:             true
  data:
    Type:        EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:      
    SizeLimit:   <unset>
QoS Class:       Burstable
Node-Selectors:  <none>
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason     Age               From               Message
  ----     ------     ----              ----               -------
  Normal   Scheduled  9m59s             default-scheduler  Successfully assigned default/web-7c5ddbdf54-x2x9q to node1
  Warning  BackOff    30s (x5 over 9m)  kubelet            Back-off restarting failed container web in pod web-7c5ddbdf54-x2x9q_default(5f1e2d3c)
";

    #[test]
    fn a_deleted_pod_shows_how_long_it_has_been_terminating() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: p, namespace: default, deletionTimestamp: "2025-09-01T00:09:00Z", deletionGracePeriodSeconds: 30}
spec: {containers: [{name: c, image: busybox}]}
status: {phase: Running}
"#,
        );
        let text = describe(&pod, &Related::default(), at(600));
        assert!(
            text.contains("Status:                    Terminating (lasts 60s)\nTermination Grace Period:  30s\n"),
            "{text}"
        );
        assert!(text.contains("Node:                      <none>\n"), "{text}");
        assert!(text.contains("IPs:                       <none>\n"), "{text}");
        assert!(text.contains("QoS Class:        BestEffort\n"), "{text}");
        assert!(text.ends_with("Events:           <none>\n"), "{text}");
    }

    #[test]
    fn an_empty_pod_still_describes() {
        let text = describe(&obj(Kind::Pod, "metadata: {name: bare}\n"), &Related::default(), at(0));
        assert!(text.starts_with("Name:         bare\nNamespace:    \nNode:         <none>\n"), "{text}");
        assert!(text.contains("IPs:          <none>\nContainers: <none>\nVolumes:         <none>\n"), "{text}");
    }

    #[test]
    fn qos_classes_follow_requests_and_limits() {
        let qos = |resources: &str| {
            let pod = obj(
                Kind::Pod,
                &format!("metadata: {{name: p}}\nspec: {{containers: [{{name: c, resources: {resources}}}]}}\n"),
            );
            match pod.as_ref() {
                Object::Pod(p) => pod_qos(p),
                _ => unreachable!(),
            }
        };
        assert_eq!(qos("{}"), "BestEffort");
        assert_eq!(qos("{requests: {cpu: 100m}}"), "Burstable");
        assert_eq!(qos("{limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 0.5, memory: 128Mi}}"), "Guaranteed");
        assert_eq!(qos("{limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 250m, memory: 128Mi}}"), "Burstable");
    }

    const NODE: &str = r#"
metadata:
  name: node1
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {kubernetes.io/hostname: node1, node-role.kubernetes.io/control-plane: ""}
  annotations: {node.alpha.kubernetes.io/ttl: "0"}
spec:
  podCIDR: 10.244.1.0/24
  podCIDRs: [10.244.1.0/24]
  unschedulable: true
  taints:
  - {key: node.kubernetes.io/unschedulable, effect: NoSchedule}
  - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}
status:
  capacity: {cpu: "2", memory: 8025588Ki, pods: "110", ephemeral-storage: 61202244Ki, hugepages-2Mi: "0"}
  allocatable: {cpu: "2", memory: 8025588Ki, pods: "110", ephemeral-storage: 61202244Ki, hugepages-2Mi: "0"}
  conditions:
  - {type: MemoryPressure, status: "False", lastHeartbeatTime: "2025-09-01T00:10:00Z", lastTransitionTime: "2025-09-01T00:00:00Z", reason: KubeletHasSufficientMemory, message: kubelet has sufficient memory available}
  - {type: Ready, status: "True", lastHeartbeatTime: "2025-09-01T00:10:00Z", lastTransitionTime: "2025-09-01T00:00:30Z", reason: KubeletReady, message: kubelet is posting ready status}
  addresses: [{type: InternalIP, address: 172.18.0.3}, {type: Hostname, address: node1}]
  nodeInfo: {machineID: abc, systemUUID: def, bootID: ghi, kernelVersion: 6.8.0, osImage: Debian GNU/Linux 12 (bookworm), operatingSystem: linux, architecture: amd64, containerRuntimeVersion: containerd://2.1.3, kubeletVersion: v1.34.0, kubeProxyVersion: ""}
"#;

    #[test]
    fn a_cordoned_node_describes_conditions_capacity_and_allocated_resources() {
        let lease = obj(
            Kind::Lease,
            "metadata: {name: node1, namespace: kube-node-lease}\nspec: {holderIdentity: node1, renewTime: \"2025-09-01T00:09:58.000000Z\"}\n",
        );
        let done = obj(
            Kind::Pod,
            "metadata: {name: finished}\nspec: {nodeName: node1, containers: [{name: c}]}\nstatus: {phase: Succeeded}\n",
        );
        let related =
            Related { pods: vec![obj(Kind::Pod, CRASHING_POD), done], lease: Some(lease), ..Default::default() };
        assert_eq!(describe(&obj(Kind::Node, NODE), &related, at(600)), EXPECTED_NODE);
        let no_lease = describe(&obj(Kind::Node, NODE), &Related::default(), at(600));
        assert!(no_lease
            .contains("Lease:              Failed to get lease: leases.coordination.k8s.io \"node1\" not found\n"));
        assert!(no_lease.contains("Non-terminated Pods:          (0 in total)\n"), "{no_lease}");
    }

    const EXPECTED_NODE: &str = "\
Name:               node1
Roles:              control-plane
Labels:             kubernetes.io/hostname=node1
                    node-role.kubernetes.io/control-plane=
Annotations:        node.alpha.kubernetes.io/ttl: 0
CreationTimestamp:  Mon, 01 Sep 2025 00:00:00 +0000
Taints:             node-role.kubernetes.io/control-plane:NoSchedule
                    node.kubernetes.io/unschedulable:NoSchedule
Unschedulable:      true
Lease:
  HolderIdentity:  node1
  AcquireTime:     <unset>
  RenewTime:       Mon, 01 Sep 2025 00:09:58 +0000
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Mon, 01 Sep 2025 00:10:00 +0000   Mon, 01 Sep 2025 00:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  Ready            True    Mon, 01 Sep 2025 00:10:00 +0000   Mon, 01 Sep 2025 00:00:30 +0000   KubeletReady                 kubelet is posting ready status
Addresses:
  InternalIP:  172.18.0.3
  Hostname:    node1
Capacity:
  cpu:                2
  ephemeral-storage:  61202244Ki
  hugepages-2Mi:      0
  memory:             8025588Ki
  pods:               110
Allocatable:
  cpu:                2
  ephemeral-storage:  61202244Ki
  hugepages-2Mi:      0
  memory:             8025588Ki
  pods:               110
System Info:
  Machine ID:                 abc
  System UUID:                def
  Boot ID:                    ghi
  Kernel Version:             6.8.0
  OS Image:                   Debian GNU/Linux 12 (bookworm)
  Operating System:           linux
  Architecture:               amd64
  Container Runtime Version:  containerd://2.1.3
  Kubelet Version:            v1.34.0
  Kube-Proxy Version:         
PodCIDR:                      10.244.1.0/24
PodCIDRs:                     10.244.1.0/24
Non-terminated Pods:          (1 in total)
  Namespace                   Name                    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----                    ------------  ----------  ---------------  -------------  ---
  default                     web-7c5ddbdf54-x2x9q    250m (12%)    500m (25%)  64Mi (0%)        128Mi (1%)     10m
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource           Requests    Limits
  --------           --------    ------
  cpu                250m (12%)  500m (25%)
  memory             64Mi (0%)   128Mi (1%)
  ephemeral-storage  0 (0%)      0 (0%)
  hugepages-2Mi      0 (0%)      0 (0%)
Events:              <none>
";

    #[test]
    fn config_maps_and_secrets_list_their_keys() {
        let cm = obj(
            Kind::ConfigMap,
            "metadata: {name: cfg, namespace: default}\ndata: {a.conf: \"x=1\\n\", b: two}\nbinaryData: {bin: AAEC}\n",
        );
        assert_eq!(
            describe(&cm, &Related::default(), at(0)),
            "Name:         cfg\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\nData\n====\na.conf:\n----\nx=1\n\n\nb:\n----\ntwo\n\n\nBinaryData\n====\nbin: 3 bytes\n\nEvents:  <none>\n"
        );
        let secret =
            obj(Kind::Secret, "metadata: {name: db, namespace: default}\ntype: Opaque\ndata: {password: c2VjcmV0}\n");
        assert_eq!(
            describe(&secret, &Related::default(), at(0)),
            "Name:         db\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\nType:  Opaque\n\nData\n====\npassword:  6 bytes\n"
        );
    }

    #[test]
    fn other_kinds_get_a_generic_block_and_long_annotations_wrap() {
        let long = "x".repeat(150);
        let volume = obj(
            Kind::PersistentVolume,
            &format!("metadata: {{name: view, labels: {{a: b}}, annotations: {{long: {long}, multi: \"l1\\nl2\\n\", short: s}}}}\n"),
        );
        let text = describe(&volume, &Related::default(), at(0));
        assert_eq!(
            text,
            format!(
                "Name:         view\nLabels:       a=b\nAnnotations:  long:\n                {}...\n              multi:\n                l1\n                l2\n              short: s\nEvents:       <none>\n",
                "x".repeat(138)
            )
        );
    }
}
