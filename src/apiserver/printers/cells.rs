//! The cells of each kind's table: the apiserver's internal printers (`pkg/printers/internalversion/
//! printers.go`), column by column. Every column is computed; priority-1 ("wide") columns are marked, and
//! the client drops them unless asked. A missing field prints as the apiserver's internal zero value would
//! (`0`, empty, `<none>`, `<unknown>`), never a panic. Kinds without a printer get the default table:
//! `Name`, `Created At`.

use std::collections::BTreeMap;

use k8s_openapi::api::{autoscaling::v2 as autoscaling, batch::v1 as batch, core::v1 as core};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::duration::{age, age_micro, human_duration, rfc3339_ms, sim_ms, time_ms};
use super::util::{format_label_selector, format_labels, join_host_port, selector_string};
use crate::api::quantity::Quantity;
use crate::api::{Kind, Object};
use crate::sim::SimTime;

/// One column of a server-side table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Col {
    pub name: &'static str,
    /// Priority 1: shown only with `-o wide`.
    pub wide: bool,
    /// The column holding the object's name (`format: name`; kubectl gives it the `kind/` prefix).
    pub is_name: bool,
}

pub(super) const fn c(name: &'static str) -> Col {
    Col { name, wide: false, is_name: false }
}

pub(super) const fn w(name: &'static str) -> Col {
    Col { name, wide: true, is_name: false }
}

pub(super) const NAME: Col = Col { name: "Name", wide: false, is_name: true };

/// The columns of `kind`'s table, in order.
pub fn columns(kind: Kind) -> Vec<Col> {
    if let Some(columns) = super::infra::columns(kind) {
        return columns;
    }
    match kind {
        Kind::Pod => vec![
            NAME,
            c("Ready"),
            c("Status"),
            c("Restarts"),
            c("Age"),
            w("IP"),
            w("Node"),
            w("Nominated Node"),
            w("Readiness Gates"),
        ],
        Kind::PodDisruptionBudget => {
            vec![NAME, c("Min Available"), c("Max Unavailable"), c("Allowed Disruptions"), c("Age")]
        }
        Kind::ReplicaSet => {
            vec![NAME, c("Desired"), c("Current"), c("Ready"), c("Age"), w("Containers"), w("Images"), w("Selector")]
        }
        Kind::DaemonSet => vec![
            NAME,
            c("Desired"),
            c("Current"),
            c("Ready"),
            c("Up-to-date"),
            c("Available"),
            c("Node Selector"),
            c("Age"),
            w("Containers"),
            w("Images"),
            w("Selector"),
        ],
        Kind::Job => vec![
            NAME,
            c("Status"),
            c("Completions"),
            c("Duration"),
            c("Age"),
            w("Containers"),
            w("Images"),
            w("Selector"),
        ],
        Kind::CronJob => vec![
            NAME,
            c("Schedule"),
            c("Timezone"),
            c("Suspend"),
            c("Active"),
            c("Last Schedule"),
            c("Age"),
            w("Containers"),
            w("Images"),
            w("Selector"),
        ],
        Kind::Service => {
            vec![NAME, c("Type"), c("Cluster-IP"), c("External-IP"), c("Port(s)"), c("Age"), w("Selector")]
        }
        Kind::Ingress => vec![NAME, c("Class"), c("Hosts"), c("Address"), c("Ports"), c("Age")],
        Kind::StatefulSet => vec![NAME, c("Ready"), c("Age"), w("Containers"), w("Images")],
        Kind::Endpoints => vec![NAME, c("Endpoints"), c("Age")],
        Kind::EndpointSlice => vec![NAME, c("AddressType"), c("Ports"), c("Endpoints"), c("Age")],
        Kind::Node => vec![
            NAME,
            c("Status"),
            c("Roles"),
            c("Age"),
            c("Version"),
            w("Internal-IP"),
            w("External-IP"),
            w("OS-Image"),
            w("Kernel-Version"),
            w("Container-Runtime"),
        ],
        Kind::Event | Kind::EventV1 => vec![
            c("Last Seen"),
            c("Type"),
            c("Reason"),
            c("Object"),
            w("Subobject"),
            w("Source"),
            c("Message"),
            w("First Seen"),
            w("Count"),
            Col { name: "Name", wide: true, is_name: true },
        ],
        Kind::Namespace => vec![NAME, c("Status"), c("Age")],
        Kind::Secret => vec![NAME, c("Type"), c("Data"), c("Age")],
        Kind::ServiceAccount => vec![NAME, c("Secrets"), c("Age")],
        Kind::PersistentVolume => vec![
            NAME,
            c("Capacity"),
            c("Access Modes"),
            c("Reclaim Policy"),
            c("Status"),
            c("Claim"),
            c("StorageClass"),
            c("VolumeAttributesClass"),
            c("Reason"),
            c("Age"),
            w("VolumeMode"),
        ],
        Kind::PersistentVolumeClaim => vec![
            NAME,
            c("Status"),
            c("Volume"),
            c("Capacity"),
            c("Access Modes"),
            c("StorageClass"),
            c("VolumeAttributesClass"),
            c("Age"),
            w("VolumeMode"),
        ],
        Kind::Deployment => vec![
            NAME,
            c("Ready"),
            c("Up-to-date"),
            c("Available"),
            c("Age"),
            w("Containers"),
            w("Images"),
            w("Selector"),
        ],
        Kind::HorizontalPodAutoscaler => {
            vec![NAME, c("Reference"), c("Targets"), c("MinPods"), c("MaxPods"), c("Replicas"), c("Age")]
        }
        Kind::ConfigMap => vec![NAME, c("Data"), c("Age")],
        Kind::NetworkPolicy => vec![NAME, c("Pod-Selector"), c("Age")],
        Kind::RoleBinding | Kind::ClusterRoleBinding => {
            vec![NAME, c("Role"), c("Age"), w("Users"), w("Groups"), w("ServiceAccounts")]
        }
        Kind::Lease => vec![NAME, c("Holder"), c("Age")],
        Kind::StorageClass => vec![
            NAME,
            c("Provisioner"),
            c("ReclaimPolicy"),
            c("VolumeBindingMode"),
            c("AllowVolumeExpansion"),
            c("Age"),
        ],
        Kind::ControllerRevision => vec![NAME, c("Controller"), c("Revision"), c("Age")],
        // AGE comes second for quotas (printers.go `resourceQuotaColumnDefinitions`).
        Kind::ResourceQuota => vec![NAME, c("Age"), c("Request"), c("Limit")],
        Kind::PriorityClass => vec![NAME, c("Value"), c("Global-Default"), c("Age"), c("PreemptionPolicy")],
        Kind::MutatingWebhookConfiguration | Kind::ValidatingWebhookConfiguration => {
            vec![NAME, c("Webhooks"), c("Age")]
        }
        Kind::ValidatingAdmissionPolicy => {
            vec![NAME, c("Validations"), c("ParamKind"), c("Age")]
        }
        Kind::ValidatingAdmissionPolicyBinding => {
            vec![NAME, c("PolicyName"), c("ParamRef"), c("Age")]
        }
        // The default table: LimitRanges, Roles, ClusterRoles, CustomResourceDefinitions, the reviews.
        _ => vec![NAME, c("Created At")],
    }
}

pub(super) fn meta_age(meta: &ObjectMeta, now: SimTime) -> String {
    age(meta.creation_timestamp.as_ref(), now)
}

pub(super) fn name_of(meta: &ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// One row's cells for `obj` (of `kind`), one per column (wide ones included), as the apiserver computes
/// them at `now`.
pub fn cells(obj: &Object, kind: Kind, now: SimTime) -> Vec<String> {
    if obj.kind() != kind {
        return default_cells(obj.meta());
    }
    if let Some(cells) = super::infra::cells(obj, now) {
        return cells;
    }
    match obj {
        Object::Pod(p) => pod_cells(p, now),
        Object::PodDisruptionBudget(p) => {
            let spec = p.spec.clone().unwrap_or_default();
            let fmt = |v: &Option<IntOrString>| match v {
                Some(IntOrString::Int(i)) => i.to_string(),
                Some(IntOrString::String(s)) => s.clone(),
                None => "N/A".to_string(),
            };
            vec![
                name_of(&p.metadata),
                fmt(&spec.min_available),
                fmt(&spec.max_unavailable),
                p.status.as_ref().map(|s| s.disruptions_allowed).unwrap_or(0).to_string(),
                meta_age(&p.metadata, now),
            ]
        }
        Object::ReplicaSet(rs) => {
            let spec = rs.spec.clone().unwrap_or_default();
            let status = rs.status.clone().unwrap_or_default();
            let (names, images) = container_cells(spec.template.as_ref().and_then(|t| t.spec.as_ref()));
            vec![
                name_of(&rs.metadata),
                spec.replicas.unwrap_or(1).to_string(),
                status.replicas.to_string(),
                status.ready_replicas.unwrap_or(0).to_string(),
                meta_age(&rs.metadata, now),
                names,
                images,
                format_label_selector(Some(&spec.selector)),
            ]
        }
        Object::DaemonSet(ds) => {
            let spec = ds.spec.clone().unwrap_or_default();
            let status = ds.status.clone().unwrap_or_default();
            let pod_spec = spec.template.spec.as_ref();
            let (names, images) = container_cells(pod_spec);
            vec![
                name_of(&ds.metadata),
                status.desired_number_scheduled.to_string(),
                status.current_number_scheduled.to_string(),
                status.number_ready.to_string(),
                status.updated_number_scheduled.unwrap_or(0).to_string(),
                status.number_available.unwrap_or(0).to_string(),
                format_labels(pod_spec.and_then(|s| s.node_selector.as_ref())),
                meta_age(&ds.metadata, now),
                names,
                images,
                format_label_selector(Some(&spec.selector)),
            ]
        }
        Object::Job(j) => job_cells(j, now),
        Object::CronJob(cj) => {
            let spec = cj.spec.clone().unwrap_or_default();
            let status = cj.status.clone().unwrap_or_default();
            let job_spec = spec.job_template.spec.clone().unwrap_or_default();
            let (names, images) = container_cells(job_spec.template.spec.as_ref());
            vec![
                name_of(&cj.metadata),
                spec.schedule.clone(),
                spec.time_zone.clone().unwrap_or_else(|| "<none>".to_string()),
                match spec.suspend {
                    Some(true) => "True".to_string(),
                    Some(false) => "False".to_string(),
                    None => "<unset>".to_string(),
                },
                status.active.map(|a| a.len()).unwrap_or(0).to_string(),
                match &status.last_schedule_time {
                    Some(t) => age(Some(t), now),
                    None => "<none>".to_string(),
                },
                meta_age(&cj.metadata, now),
                names,
                images,
                format_label_selector(job_spec.selector.as_ref()),
            ]
        }
        Object::Service(s) => service_cells(s, now),
        Object::Ingress(ing) => {
            let spec = ing.spec.clone().unwrap_or_default();
            let rules = spec.rules.clone().unwrap_or_default();
            let mut hosts: Vec<String> = Vec::new();
            let mut more = false;
            for rule in &rules {
                if hosts.len() == 3 {
                    more = true;
                }
                if !more {
                    if let Some(h) = rule.host.as_ref().filter(|h| !h.is_empty()) {
                        hosts.push(h.clone());
                    }
                }
            }
            let hosts = if hosts.is_empty() {
                "*".to_string()
            } else if more {
                format!("{} + {} more...", hosts.join(","), rules.len() - 3)
            } else {
                hosts.join(",")
            };
            let lb: Vec<(Option<String>, Option<String>)> = ing
                .status
                .as_ref()
                .and_then(|s| s.load_balancer.as_ref())
                .and_then(|l| l.ingress.as_ref())
                .map(|v| v.iter().map(|i| (i.ip.clone(), i.hostname.clone())).collect())
                .unwrap_or_default();
            vec![
                name_of(&ing.metadata),
                spec.ingress_class_name.clone().unwrap_or_else(|| "<none>".to_string()),
                hosts,
                lb_addresses(&lb),
                if spec.tls.as_ref().is_some_and(|t| !t.is_empty()) { "80, 443".to_string() } else { "80".to_string() },
                meta_age(&ing.metadata, now),
            ]
        }
        Object::StatefulSet(ss) => {
            let spec = ss.spec.clone().unwrap_or_default();
            let status = ss.status.clone().unwrap_or_default();
            let (names, images) = container_cells(spec.template.spec.as_ref());
            vec![
                name_of(&ss.metadata),
                format!("{}/{}", status.ready_replicas.unwrap_or(0), spec.replicas.unwrap_or(1)),
                meta_age(&ss.metadata, now),
                names,
                images,
            ]
        }
        Object::Endpoints(ep) => vec![name_of(&ep.metadata), format_endpoints(ep), meta_age(&ep.metadata, now)],
        Object::EndpointSlice(es) => endpoint_slice_cells(es, now),
        Object::Node(n) => node_cells(n, now),
        Object::Event(e) => event_cells(e, now),
        Object::EventV1(e) => event_cells(&crate::api::events::to_core(e), now),
        Object::Namespace(ns) => vec![
            name_of(&ns.metadata),
            ns.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default(),
            meta_age(&ns.metadata, now),
        ],
        Object::Secret(s) => vec![
            name_of(&s.metadata),
            s.type_.clone().unwrap_or_default(),
            s.data.as_ref().map(|d| d.len()).unwrap_or(0).to_string(),
            meta_age(&s.metadata, now),
        ],
        Object::ServiceAccount(sa) => vec![
            name_of(&sa.metadata),
            sa.secrets.as_ref().map(|s| s.len()).unwrap_or(0).to_string(),
            meta_age(&sa.metadata, now),
        ],
        Object::PersistentVolume(pv) => pv_cells(pv, now),
        Object::PersistentVolumeClaim(pvc) => pvc_cells(pvc, now),
        Object::Deployment(d) => {
            let spec = d.spec.clone().unwrap_or_default();
            let status = d.status.clone().unwrap_or_default();
            let (names, images) = container_cells(spec.template.spec.as_ref());
            vec![
                name_of(&d.metadata),
                format!("{}/{}", status.ready_replicas.unwrap_or(0), spec.replicas.unwrap_or(1)),
                status.updated_replicas.unwrap_or(0).to_string(),
                status.available_replicas.unwrap_or(0).to_string(),
                meta_age(&d.metadata, now),
                names,
                images,
                selector_string(Some(&spec.selector)).unwrap_or_else(|_| "<invalid>".to_string()),
            ]
        }
        Object::HorizontalPodAutoscaler(h) => hpa_cells(h, now),
        Object::ConfigMap(cm) => vec![
            name_of(&cm.metadata),
            (cm.data.as_ref().map(|d| d.len()).unwrap_or(0) + cm.binary_data.as_ref().map(|d| d.len()).unwrap_or(0))
                .to_string(),
            meta_age(&cm.metadata, now),
        ],
        Object::NetworkPolicy(np) => vec![
            name_of(&np.metadata),
            format_label_selector(Some(&np.spec.as_ref().and_then(|s| s.pod_selector.clone()).unwrap_or_default())),
            meta_age(&np.metadata, now),
        ],
        Object::RoleBinding(rb) => binding_cells(&rb.metadata, &rb.role_ref, rb.subjects.as_deref(), now),
        Object::ClusterRoleBinding(rb) => binding_cells(&rb.metadata, &rb.role_ref, rb.subjects.as_deref(), now),
        Object::Lease(l) => vec![
            name_of(&l.metadata),
            l.spec.as_ref().and_then(|s| s.holder_identity.clone()).unwrap_or_default(),
            meta_age(&l.metadata, now),
        ],
        Object::StorageClass(sc) => {
            let mut name = name_of(&sc.metadata);
            let ann = sc.metadata.annotations.as_ref();
            let is_default = ann.is_some_and(|a| {
                a.get("storageclass.kubernetes.io/is-default-class").map(String::as_str) == Some("true")
                    || a.get("storageclass.beta.kubernetes.io/is-default-class").map(String::as_str) == Some("true")
            });
            if is_default {
                name.push_str(" (default)");
            }
            vec![
                name,
                sc.provisioner.clone(),
                sc.reclaim_policy.clone().unwrap_or_else(|| "Delete".to_string()),
                sc.volume_binding_mode.clone().unwrap_or_else(|| "Immediate".to_string()),
                sc.allow_volume_expansion.unwrap_or(false).to_string(),
                meta_age(&sc.metadata, now),
            ]
        }
        Object::ControllerRevision(cr) => {
            let controller = controller_ref(&cr.metadata)
                .map(|r| {
                    let group = r.api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
                    if r.kind.is_empty() && group.is_empty() {
                        r.name.clone()
                    } else if group.is_empty() {
                        format!("{}/{}", r.kind.to_ascii_lowercase(), r.name)
                    } else {
                        format!("{}.{}/{}", r.kind, group, r.name).to_ascii_lowercase()
                    }
                })
                .unwrap_or_else(|| "<none>".to_string());
            vec![name_of(&cr.metadata), controller, cr.revision.to_string(), meta_age(&cr.metadata, now)]
        }
        Object::ResourceQuota(rq) => {
            let status = rq.status.clone().unwrap_or_default();
            let hard = status.hard.unwrap_or_default();
            let used = status.used.unwrap_or_default();
            let mut requests = Vec::new();
            let mut limits = Vec::new();
            for (name, h) in &hard {
                let u = used.get(name).map(|q| Quantity::parse_or_zero(&q.0)).unwrap_or_default();
                let text = format!("{name}: {}/{}", u.canonical(), Quantity::parse_or_zero(&h.0).canonical());
                let pieces: Vec<&str> = name.split('.').collect();
                if pieces.len() > 1 && pieces[0] == "limits" {
                    limits.push(text);
                } else {
                    requests.push(text);
                }
            }
            vec![name_of(&rq.metadata), meta_age(&rq.metadata, now), requests.join(", "), limits.join(", ")]
        }
        Object::PriorityClass(pc) => vec![
            name_of(&pc.metadata),
            pc.value.to_string(),
            pc.global_default.unwrap_or(false).to_string(),
            meta_age(&pc.metadata, now),
            pc.preemption_policy.clone().unwrap_or_default(),
        ],
        Object::MutatingWebhookConfiguration(m) => vec![
            name_of(&m.metadata),
            m.webhooks.as_ref().map(|v| v.len()).unwrap_or(0).to_string(),
            meta_age(&m.metadata, now),
        ],
        Object::ValidatingWebhookConfiguration(v) => vec![
            name_of(&v.metadata),
            v.webhooks.as_ref().map(|w| w.len()).unwrap_or(0).to_string(),
            meta_age(&v.metadata, now),
        ],
        Object::ValidatingAdmissionPolicy(p) => {
            let spec = p.spec.clone().unwrap_or_default();
            let param_kind = spec
                .param_kind
                .as_ref()
                .map(|k| format!("{}/{}", opt(&k.api_version), opt(&k.kind)))
                .unwrap_or_else(|| "<unset>".to_string());
            vec![
                name_of(&p.metadata),
                spec.validations.as_ref().map(|v| v.len()).unwrap_or(0).to_string(),
                param_kind,
                meta_age(&p.metadata, now),
            ]
        }
        Object::ValidatingAdmissionPolicyBinding(b) => {
            let spec = b.spec.clone().unwrap_or_default();
            let param = match &spec.param_ref {
                Some(pr) => match pr.name.as_deref().filter(|n| !n.is_empty()) {
                    Some(name) => match pr.namespace.as_deref().filter(|n| !n.is_empty()) {
                        Some(ns) => format!("{ns}/{name}"),
                        None => format!("*/{name}"),
                    },
                    None => match &pr.selector {
                        Some(sel) => selector_string(Some(sel)).unwrap_or_default(),
                        None => "<unset>".to_string(),
                    },
                },
                None => "<unset>".to_string(),
            };
            vec![name_of(&b.metadata), spec.policy_name.clone().unwrap_or_default(), param, meta_age(&b.metadata, now)]
        }
        _ => default_cells(obj.meta()),
    }
}

/// The apiserver's default table (kinds with no printer): name and the creation time in RFC 3339.
fn default_cells(meta: &ObjectMeta) -> Vec<String> {
    let created = meta.creation_timestamp.as_ref().map(time_ms);
    vec![
        name_of(meta),
        match created {
            Some(ms) => rfc3339_ms(ms),
            None => "0001-01-01T00:00:00Z".to_string(),
        },
    ]
}

fn controller_ref(meta: &ObjectMeta) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    meta.owner_references.as_ref()?.iter().find(|r| r.controller == Some(true))
}

/// `layoutContainerCells`: container names and images, comma-joined.
pub(super) fn container_cells(spec: Option<&core::PodSpec>) -> (String, String) {
    let containers = spec.map(|s| s.containers.as_slice()).unwrap_or(&[]);
    let names = containers.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(",");
    let images = containers.iter().map(|c| c.image.as_deref().unwrap_or("")).collect::<Vec<_>>().join(",");
    (names, images)
}

fn binding_cells(
    meta: &ObjectMeta,
    role_ref: &k8s_openapi::api::rbac::v1::RoleRef,
    subjects: Option<&[k8s_openapi::api::rbac::v1::Subject]>,
    now: SimTime,
) -> Vec<String> {
    let mut users = Vec::new();
    let mut groups = Vec::new();
    let mut sas = Vec::new();
    for s in subjects.unwrap_or(&[]) {
        match s.kind.as_str() {
            "ServiceAccount" => sas.push(format!("{}/{}", opt(&s.namespace), s.name)),
            "User" => users.push(s.name.clone()),
            "Group" => groups.push(s.name.clone()),
            _ => {}
        }
    }
    vec![
        name_of(meta),
        format!("{}/{}", role_ref.kind, role_ref.name),
        meta_age(meta, now),
        users.join(", "),
        groups.join(", "),
        sas.join(", "),
    ]
}

/// The moment of a container's last termination, if known.
fn finished_at(state: Option<&core::ContainerState>) -> Option<i64> {
    state?.terminated.as_ref()?.finished_at.as_ref().map(time_ms)
}

fn later(current: Option<i64>, candidate: Option<i64>) -> Option<i64> {
    match (current, candidate) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (None, b) => b,
        (a, None) => a,
    }
}

fn has_condition(conditions: Option<&Vec<core::PodCondition>>, type_: &str) -> bool {
    conditions.into_iter().flatten().any(|c| c.type_ == type_ && c.status == "True")
}

fn pod_cells(pod: &core::Pod, now: SimTime) -> Vec<String> {
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    let phase = status.phase.clone().unwrap_or_default();
    let mut reason = match status.reason.as_deref() {
        Some(r) if !r.is_empty() => r.to_string(),
        _ => phase.clone(),
    };
    for cond in status.conditions.iter().flatten() {
        if cond.type_ == "PodScheduled" && cond.reason.as_deref() == Some("SchedulingGated") {
            reason = "SchedulingGated".to_string();
        }
    }

    let init_specs = spec.init_containers.clone().unwrap_or_default();
    let restartable: BTreeMap<&str, bool> =
        init_specs.iter().map(|c| (c.name.as_str(), c.restart_policy.as_deref() == Some("Always"))).collect();
    let total = spec.containers.len() + restartable.values().filter(|r| **r).count();
    let mut ready = 0usize;
    let mut restarts: i64 = 0;
    let mut restartable_restarts: i64 = 0;
    let mut last_restart: Option<i64> = None;
    let mut last_restartable_restart: Option<i64> = None;

    let mut initializing = false;
    for (i, cs) in status.init_container_statuses.iter().flatten().enumerate() {
        restarts += i64::from(cs.restart_count);
        let finished = finished_at(cs.last_state.as_ref());
        last_restart = later(last_restart, finished);
        let is_restartable = restartable.get(cs.name.as_str()).copied().unwrap_or(false);
        if is_restartable {
            restartable_restarts += i64::from(cs.restart_count);
            last_restartable_restart = later(last_restartable_restart, finished);
        }
        let state = cs.state.clone().unwrap_or_default();
        let terminated = state.terminated.as_ref();
        if terminated.is_some_and(|t| t.exit_code == 0) {
            continue;
        }
        if is_restartable && cs.started == Some(true) {
            if cs.ready {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            reason = match t.reason.as_deref().filter(|r| !r.is_empty()) {
                Some(r) => format!("Init:{r}"),
                None => match t.signal.filter(|s| *s != 0) {
                    Some(sig) => format!("Init:Signal:{sig}"),
                    None => format!("Init:ExitCode:{}", t.exit_code),
                },
            };
        } else if let Some(r) = state
            .waiting
            .as_ref()
            .and_then(|w| w.reason.as_deref())
            .filter(|r| !r.is_empty() && *r != "PodInitializing")
        {
            reason = format!("Init:{r}");
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }

    if !initializing || has_condition(status.conditions.as_ref(), "Initialized") {
        restarts = restartable_restarts;
        last_restart = last_restartable_restart;
        let mut has_running = false;
        for cs in status.container_statuses.iter().flatten().rev() {
            restarts += i64::from(cs.restart_count);
            last_restart = later(last_restart, finished_at(cs.last_state.as_ref()));
            let state = cs.state.clone().unwrap_or_default();
            let waiting_reason = state.waiting.as_ref().and_then(|w| w.reason.clone()).filter(|r| !r.is_empty());
            if let Some(r) = waiting_reason {
                reason = r;
            } else if let Some(t) = &state.terminated {
                reason = match t.reason.as_deref().filter(|r| !r.is_empty()) {
                    Some(r) => r.to_string(),
                    None => match t.signal.filter(|s| *s != 0) {
                        Some(sig) => format!("Signal:{sig}"),
                        None => format!("ExitCode:{}", t.exit_code),
                    },
                };
            } else if cs.ready && state.running.is_some() {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            reason = if has_condition(status.conditions.as_ref(), "Ready") {
                "Running".to_string()
            } else {
                "NotReady".to_string()
            };
        }
    }

    if pod.metadata.deletion_timestamp.is_some() {
        if status.reason.as_deref() == Some("NodeLost") {
            reason = "Unknown".to_string();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".to_string();
        }
    }

    let restarts_cell = match last_restart {
        Some(ms) if restarts != 0 => format!("{restarts} ({} ago)", human_duration(sim_ms(now).saturating_sub(ms))),
        _ => restarts.to_string(),
    };

    let pod_ip = status
        .pod_ips
        .as_ref()
        .and_then(|ips| ips.first())
        .map(|ip| ip.ip.clone())
        .filter(|ip| !ip.is_empty())
        .unwrap_or_else(|| "<none>".to_string());
    let node = spec.node_name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "<none>".to_string());
    let nominated =
        status.nominated_node_name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "<none>".to_string());
    let gates = spec.readiness_gates.clone().unwrap_or_default();
    let readiness = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let trues = gates
            .iter()
            .filter(|g| {
                status
                    .conditions
                    .iter()
                    .flatten()
                    .find(|c| c.type_ == g.condition_type)
                    .is_some_and(|c| c.status == "True")
            })
            .count();
        format!("{trues}/{}", gates.len())
    };
    vec![
        name_of(&pod.metadata),
        format!("{ready}/{total}"),
        reason,
        restarts_cell,
        meta_age(&pod.metadata, now),
        pod_ip,
        node,
        nominated,
        readiness,
    ]
}

fn job_cells(job: &batch::Job, now: SimTime) -> Vec<String> {
    let spec = job.spec.clone().unwrap_or_default();
    let status = job.status.clone().unwrap_or_default();
    let succeeded = status.succeeded.unwrap_or(0);
    let completions = match spec.completions {
        Some(n) => format!("{succeeded}/{n}"),
        None => {
            let parallelism = spec.parallelism.unwrap_or(0);
            if parallelism > 1 {
                format!("{succeeded}/1 of {parallelism}")
            } else {
                format!("{succeeded}/1")
            }
        }
    };
    let duration = match (&status.start_time, &status.completion_time) {
        (None, _) => String::new(),
        (Some(start), None) => human_duration(sim_ms(now).saturating_sub(time_ms(start))),
        (Some(start), Some(end)) => human_duration(time_ms(end).saturating_sub(time_ms(start))),
    };
    let conditions = status.conditions.clone().unwrap_or_default();
    // The first condition of a type decides it, as hasJobCondition does.
    let has = |t: &str| conditions.iter().find(|c| c.type_ == t).is_some_and(|c| c.status == "True");
    let state = if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if job.metadata.deletion_timestamp.is_some() {
        "Terminating"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let (names, images) = container_cells(spec.template.spec.as_ref());
    vec![
        name_of(&job.metadata),
        state.to_string(),
        completions,
        duration,
        meta_age(&job.metadata, now),
        names,
        images,
        format_label_selector(spec.selector.as_ref()),
    ]
}

/// `loadBalancerStatusStringer` with wide output (the server always computes wide cells): distinct
/// IPs or hostnames, sorted, comma-joined.
fn lb_addresses(ingress: &[(Option<String>, Option<String>)]) -> String {
    let mut set = std::collections::BTreeSet::new();
    for (ip, host) in ingress {
        match (ip.as_deref(), host.as_deref()) {
            (Some(ip), _) if !ip.is_empty() => {
                set.insert(ip.to_string());
            }
            (_, Some(h)) if !h.is_empty() => {
                set.insert(h.to_string());
            }
            _ => {}
        }
    }
    set.into_iter().collect::<Vec<_>>().join(",")
}

fn service_cells(svc: &core::Service, now: SimTime) -> Vec<String> {
    let spec = svc.spec.clone().unwrap_or_default();
    let type_ = spec.type_.clone().unwrap_or_default();
    let cluster_ip =
        spec.cluster_ips.as_ref().and_then(|ips| ips.first().cloned()).unwrap_or_else(|| "<none>".to_string());
    let external_ips = spec.external_ips.clone().unwrap_or_default();
    let external = match type_.as_str() {
        "ClusterIP" | "NodePort" => {
            if external_ips.is_empty() {
                "<none>".to_string()
            } else {
                external_ips.join(",")
            }
        }
        "LoadBalancer" => {
            let lb: Vec<(Option<String>, Option<String>)> = svc
                .status
                .as_ref()
                .and_then(|s| s.load_balancer.as_ref())
                .and_then(|l| l.ingress.as_ref())
                .map(|v| v.iter().map(|i| (i.ip.clone(), i.hostname.clone())).collect())
                .unwrap_or_default();
            let lb_ips = lb_addresses(&lb);
            if !external_ips.is_empty() {
                let mut all: Vec<String> =
                    if lb_ips.is_empty() { Vec::new() } else { lb_ips.split(',').map(str::to_string).collect() };
                all.extend(external_ips.iter().cloned());
                all.join(",")
            } else if !lb_ips.is_empty() {
                lb_ips
            } else {
                "<pending>".to_string()
            }
        }
        "ExternalName" => spec.external_name.clone().unwrap_or_default(),
        _ => "<unknown>".to_string(),
    };
    let ports = spec
        .ports
        .iter()
        .flatten()
        .map(|p| {
            let proto = p.protocol.as_deref().unwrap_or("TCP");
            match p.node_port {
                Some(np) if np > 0 => format!("{}:{np}/{proto}", p.port),
                _ => format!("{}/{proto}", p.port),
            }
        })
        .collect::<Vec<_>>()
        .join(",");
    vec![
        name_of(&svc.metadata),
        type_,
        cluster_ip,
        external,
        if ports.is_empty() { "<none>".to_string() } else { ports },
        meta_age(&svc.metadata, now),
        format_labels(spec.selector.as_ref()),
    ]
}

/// `formatEndpoints`: up to three `ip:port` (ready addresses only), then ` + N more...`.
fn format_endpoints(ep: &core::Endpoints) -> String {
    let subsets = ep.subsets.clone().unwrap_or_default();
    if subsets.is_empty() {
        return "<none>".to_string();
    }
    const MAX: usize = 3;
    let mut list: Vec<String> = Vec::new();
    let mut more = false;
    let mut count = 0usize;
    for ss in &subsets {
        let addresses = ss.addresses.clone().unwrap_or_default();
        let ports = ss.ports.clone().unwrap_or_default();
        if ports.is_empty() {
            count += addresses.len();
            for a in &addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(a.ip.clone());
            }
            continue;
        }
        for port in &ports {
            count += addresses.len();
            for a in &addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push(join_host_port(&a.ip, &port.port.to_string()));
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - MAX)
    } else {
        joined
    }
}

fn list_with_more(list: Vec<String>, more: bool, count: usize) -> String {
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - 3)
    } else if joined.is_empty() {
        "<unset>".to_string()
    } else {
        joined
    }
}

fn endpoint_slice_cells(es: &k8s_openapi::api::discovery::v1::EndpointSlice, now: SimTime) -> Vec<String> {
    let mut ports = Vec::new();
    let mut more = false;
    let mut count = 0;
    for p in es.ports.iter().flatten() {
        if ports.len() < 3 {
            ports.push(match (p.port, &p.name) {
                (Some(n), _) => n.to_string(),
                (None, Some(name)) => name.clone(),
                (None, None) => "*".to_string(),
            });
        } else if ports.len() == 3 {
            more = true;
        }
        count += 1;
    }
    let ports = list_with_more(ports, more, count);
    let mut addrs = Vec::new();
    let mut more = false;
    let mut count = 0;
    for e in &es.endpoints {
        for a in &e.addresses {
            if addrs.len() < 3 {
                addrs.push(a.clone());
            } else if addrs.len() == 3 {
                more = true;
            }
            count += 1;
        }
    }
    vec![
        name_of(&es.metadata),
        es.address_type.clone(),
        ports,
        list_with_more(addrs, more, count),
        meta_age(&es.metadata, now),
    ]
}

/// The node roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role=<role>` labels.
pub fn node_roles(node: &core::Node) -> Vec<String> {
    let mut roles = std::collections::BTreeSet::new();
    for (k, v) in node.metadata.labels.iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.insert(role.to_string());
            }
        } else if k == "kubernetes.io/role" && !v.is_empty() {
            roles.insert(v.clone());
        }
    }
    roles.into_iter().collect()
}

/// The STATUS cell of `kubectl get nodes`.
pub(crate) fn node_status(node: &core::Node) -> String {
    let ready = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().rev().find(|c| c.type_ == "Ready"));
    let mut status = vec![match ready {
        Some(c) if c.status == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    }];
    if node.spec.as_ref().and_then(|s| s.unschedulable) == Some(true) {
        status.push("SchedulingDisabled".to_string());
    }
    status.join(",")
}

fn node_cells(node: &core::Node, now: SimTime) -> Vec<String> {
    let status = node.status.clone().unwrap_or_default();
    let info = status.node_info.clone().unwrap_or_default();
    let address = |t: &str| {
        status
            .addresses
            .iter()
            .flatten()
            .find(|a| a.type_ == t)
            .map(|a| a.address.clone())
            .unwrap_or_else(|| "<none>".to_string())
    };
    let or_unknown = |s: &str| {
        if s.is_empty() {
            "<unknown>".to_string()
        } else {
            s.to_string()
        }
    };
    let roles = node_roles(node).join(",");
    vec![
        name_of(&node.metadata),
        node_status(node),
        if roles.is_empty() { "<none>".to_string() } else { roles },
        meta_age(&node.metadata, now),
        info.kubelet_version.clone(),
        address("InternalIP"),
        address("ExternalIP"),
        or_unknown(&info.os_image),
        or_unknown(&info.kernel_version),
        or_unknown(&info.container_runtime_version),
    ]
}

/// `formatEventSource`: component (or reporting controller), then `, host` when known.
pub(crate) fn event_source(e: &core::Event) -> String {
    let source = e.source.clone().unwrap_or_default();
    let component =
        source.component.filter(|s| !s.is_empty()).or_else(|| e.reporting_component.clone()).unwrap_or_default();
    let host = source.host.filter(|s| !s.is_empty()).or_else(|| e.reporting_instance.clone()).unwrap_or_default();
    if host.is_empty() {
        component
    } else {
        format!("{component}, {host}")
    }
}

fn event_cells(e: &core::Event, now: SimTime) -> Vec<String> {
    let first = match &e.first_timestamp {
        Some(t) => age(Some(t), now),
        None => age_micro(e.event_time.as_ref(), now),
    };
    let mut last = match &e.last_timestamp {
        Some(t) => age(Some(t), now),
        None => first.clone(),
    };
    let mut count = e.count.unwrap_or(0);
    if let Some(series) = &e.series {
        last = age_micro(series.last_observed_time.as_ref(), now);
        count = series.count.unwrap_or(0);
    } else if count == 0 {
        count = 1;
    }
    let obj = &e.involved_object;
    let kind = obj.kind.clone().unwrap_or_default().to_ascii_lowercase();
    let target = match obj.name.as_deref().filter(|n| !n.is_empty()) {
        Some(name) => format!("{kind}/{name}"),
        None => kind,
    };
    vec![
        last,
        e.type_.clone().unwrap_or_default(),
        e.reason.clone().unwrap_or_default(),
        target,
        obj.field_path.clone().unwrap_or_default(),
        event_source(e),
        e.message.clone().unwrap_or_default().trim().to_string(),
        first,
        count.to_string(),
        name_of(&e.metadata),
    ]
}

/// `GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order.
fn access_modes(modes: Option<&Vec<String>>) -> String {
    let modes = modes.cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (mode, short) in
        [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")]
    {
        if modes.iter().any(|m| m == mode) {
            out.push(short);
        }
    }
    out.join(",")
}

fn storage_of(list: Option<&BTreeMap<String, ApiQuantity>>) -> String {
    list.and_then(|l| l.get("storage")).map(|q| Quantity::parse_or_zero(&q.0)).unwrap_or_default().canonical()
}

const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

fn pv_cells(pv: &core::PersistentVolume, now: SimTime) -> Vec<String> {
    let spec = pv.spec.clone().unwrap_or_default();
    let claim = spec.claim_ref.as_ref().map(|r| format!("{}/{}", opt(&r.namespace), opt(&r.name))).unwrap_or_default();
    let mut phase = pv.status.as_ref().and_then(|s| s.phase.clone()).unwrap_or_default();
    if pv.metadata.deletion_timestamp.is_some() {
        phase = "Terminating".to_string();
    }
    let class = pv
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(BETA_STORAGE_CLASS).cloned())
        .unwrap_or_else(|| spec.storage_class_name.clone().unwrap_or_default());
    vec![
        name_of(&pv.metadata),
        storage_of(spec.capacity.as_ref()),
        access_modes(spec.access_modes.as_ref()),
        spec.persistent_volume_reclaim_policy.clone().unwrap_or_default(),
        phase,
        claim,
        class,
        spec.volume_attributes_class_name.clone().unwrap_or_else(|| "<unset>".to_string()),
        pv.status.as_ref().and_then(|s| s.reason.clone()).unwrap_or_default(),
        meta_age(&pv.metadata, now),
        spec.volume_mode.clone().unwrap_or_else(|| "<unset>".to_string()),
    ]
}

fn pvc_cells(pvc: &core::PersistentVolumeClaim, now: SimTime) -> Vec<String> {
    let spec = pvc.spec.clone().unwrap_or_default();
    let status = pvc.status.clone().unwrap_or_default();
    let mut phase = status.phase.clone().unwrap_or_default();
    if pvc.metadata.deletion_timestamp.is_some() {
        phase = "Terminating".to_string();
    }
    let volume = spec.volume_name.clone().unwrap_or_default();
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (storage_of(status.capacity.as_ref()), access_modes(status.access_modes.as_ref()))
    };
    let class = pvc
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(BETA_STORAGE_CLASS).cloned())
        .unwrap_or_else(|| spec.storage_class_name.clone().unwrap_or_default());
    vec![
        name_of(&pvc.metadata),
        phase,
        volume,
        capacity,
        modes,
        class,
        spec.volume_attributes_class_name.clone().unwrap_or_else(|| "<unset>".to_string()),
        meta_age(&pvc.metadata, now),
        spec.volume_mode.clone().unwrap_or_else(|| "<unset>".to_string()),
    ]
}

fn qstr(q: Option<&ApiQuantity>) -> String {
    match q {
        Some(q) => Quantity::parse_or_zero(&q.0).canonical(),
        None => "<nil>".to_string(),
    }
}

/// `formatHPAMetrics`: `cpu: 20%/50%`, `<unknown>` for a missing current value, two at most.
fn hpa_targets(specs: &[autoscaling::MetricSpec], statuses: &[autoscaling::MetricStatus]) -> String {
    if specs.is_empty() {
        return "<none>".to_string();
    }
    let mut list = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let st = statuses.get(i);
        let unknown = || "<unknown>".to_string();
        let text = match spec.type_.as_str() {
            "External" => {
                let target = spec.external.as_ref().map(|e| &e.target);
                let cur = st.and_then(|s| s.external.as_ref()).map(|e| &e.current);
                match target.and_then(|t| t.average_value.as_ref()) {
                    Some(avg) => format!(
                        "{}/{} (avg)",
                        cur.and_then(|c| c.average_value.as_ref()).map(|q| qstr(Some(q))).unwrap_or_else(unknown),
                        qstr(Some(avg))
                    ),
                    None => format!(
                        "{}/{}",
                        cur.map(|c| qstr(c.value.as_ref())).unwrap_or_else(unknown),
                        qstr(target.and_then(|t| t.value.as_ref()))
                    ),
                }
            }
            "Pods" => format!(
                "{}/{}",
                st.and_then(|s| s.pods.as_ref())
                    .map(|p| qstr(p.current.average_value.as_ref()))
                    .unwrap_or_else(unknown),
                qstr(spec.pods.as_ref().and_then(|p| p.target.average_value.as_ref()))
            ),
            "Object" => {
                let target = spec.object.as_ref().map(|o| &o.target);
                let cur = st.and_then(|s| s.object.as_ref()).map(|o| &o.current);
                match target.and_then(|t| t.average_value.as_ref()) {
                    Some(avg) => format!(
                        "{}/{} (avg)",
                        cur.and_then(|c| c.average_value.as_ref()).map(|q| qstr(Some(q))).unwrap_or_else(unknown),
                        qstr(Some(avg))
                    ),
                    None => format!(
                        "{}/{}",
                        cur.map(|c| qstr(c.value.as_ref())).unwrap_or_else(unknown),
                        qstr(target.and_then(|t| t.value.as_ref()))
                    ),
                }
            }
            "Resource" | "ContainerResource" => {
                let (name, target, cur) = if spec.type_ == "Resource" {
                    (
                        spec.resource.as_ref().map(|r| r.name.clone()),
                        spec.resource.as_ref().map(|r| &r.target),
                        st.and_then(|s| s.resource.as_ref()).map(|r| &r.current),
                    )
                } else {
                    (
                        spec.container_resource.as_ref().map(|r| r.name.clone()),
                        spec.container_resource.as_ref().map(|r| &r.target),
                        st.and_then(|s| s.container_resource.as_ref()).map(|r| &r.current),
                    )
                };
                let name = name.unwrap_or_default();
                match target.and_then(|t| t.average_value.as_ref()) {
                    Some(avg) => format!(
                        "{name}: {}/{}",
                        cur.map(|c| qstr(c.average_value.as_ref())).unwrap_or_else(unknown),
                        qstr(Some(avg))
                    ),
                    None => format!(
                        "{name}: {}/{}",
                        cur.and_then(|c| c.average_utilization).map(|u| format!("{u}%")).unwrap_or_else(unknown),
                        target
                            .and_then(|t| t.average_utilization)
                            .map(|u| format!("{u}%"))
                            .unwrap_or_else(|| "<auto>".to_string())
                    ),
                }
            }
            _ => "<unknown type>".to_string(),
        };
        list.push(text);
    }
    if list.len() > 2 {
        let count = list.len();
        list.truncate(2);
        format!("{} + {} more...", list.join(", "), count - 2)
    } else {
        list.join(", ")
    }
}

fn hpa_cells(h: &autoscaling::HorizontalPodAutoscaler, now: SimTime) -> Vec<String> {
    let spec = h.spec.clone().unwrap_or_default();
    let status = h.status.clone().unwrap_or_default();
    vec![
        name_of(&h.metadata),
        format!("{}/{}", spec.scale_target_ref.kind, spec.scale_target_ref.name),
        hpa_targets(spec.metrics.as_deref().unwrap_or(&[]), status.current_metrics.as_deref().unwrap_or(&[])),
        spec.min_replicas.map(|m| m.to_string()).unwrap_or_else(|| "<unset>".to_string()),
        spec.max_replicas.to_string(),
        status.current_replicas.unwrap_or(0).to_string(),
        meta_age(&h.metadata, now),
    ]
}
