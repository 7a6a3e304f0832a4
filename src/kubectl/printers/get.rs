//! `kubectl get` tables. The columns and cell rules are the apiserver's table printers
//! (`pkg/printers/internalversion/printers.go`): the server always computes every column, kubectl
//! drops the priority-1 ("wide") ones unless `-o wide`, upper-cases the headers, and decorates the
//! table (`NAMESPACE` first with `-A`, `kind/name` when several types are listed, `LABELS` last with
//! `--show-labels`). Kinds without a printer get the server's default table: `NAME`, `CREATED AT`.
//!
//! Objects are printed as they are; a missing field prints as the apiserver's internal zero value
//! would (`0`, empty, `<none>`, `<unknown>`), never a panic.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::{autoscaling::v2 as autoscaling, batch::v1 as batch, core::v1 as core};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::duration::{age, age_micro, human_duration, micro_time_ms, rfc3339_ms, sim_ms, time_ms};
use super::quantity::Quantity;
use super::table::{clean_cell, escape_terminal, with_labels, with_namespace, Table};
use super::util::{format_label_selector, format_labels, join_host_port, selector_string};
use crate::api::{Kind, Object};
use crate::sim::SimTime;

/// One column of a server-side table.
#[derive(Debug, Clone, Copy)]
struct Col {
    name: &'static str,
    /// Priority 1: shown only with `-o wide`.
    wide: bool,
    /// The column holding the object's name (gets the `kind/` prefix).
    is_name: bool,
}

const fn c(name: &'static str) -> Col {
    Col { name, wide: false, is_name: false }
}

const fn w(name: &'static str) -> Col {
    Col { name, wide: true, is_name: false }
}

const NAME: Col = Col { name: "Name", wide: false, is_name: true };

/// How `kubectl get` decorates a table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GetOptions {
    /// `-o wide`.
    pub wide: bool,
    /// `-A`: a first NAMESPACE column (namespaced kinds only).
    pub all_namespaces: bool,
    /// Several resource types in one command: names print as `kind[.group]/name`.
    pub show_kind: bool,
    /// `--show-labels`: a last LABELS column.
    pub show_labels: bool,
    /// `-L key1,key2`: one column per label key.
    pub label_columns: Vec<String>,
}

/// The table `kubectl get <kind>` prints for `objects` (undecorated).
pub fn table_for(kind: Kind, objects: &[Arc<Object>], now: SimTime, wide: bool) -> Table {
    get_table(kind, objects, now, &GetOptions { wide, ..Default::default() })
}

/// The table `kubectl get <kind>` prints for `objects`, decorated per `opts`.
pub fn get_table(kind: Kind, objects: &[Arc<Object>], now: SimTime, opts: &GetOptions) -> Table {
    let cols = columns(kind);
    let keep: Vec<bool> = cols.iter().map(|c| opts.wide || !c.wide).collect();
    let name_col = if opts.show_kind { cols.iter().position(|c| c.is_name) } else { None };
    let kind_prefix = {
        let info = kind.info();
        if info.group.is_empty() {
            kind.name().to_ascii_lowercase()
        } else {
            format!("{}.{}", kind.name().to_ascii_lowercase(), info.group)
        }
    };
    let mut table = Table {
        headers: cols.iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| c.name.to_ascii_uppercase()).collect(),
        rows: Vec::new(),
    };
    for obj in objects {
        let mut cells = cells(obj, kind, now);
        cells.resize(cols.len(), String::new());
        if let Some(i) = name_col {
            cells[i] = format!("{kind_prefix}/{}", cells[i]);
        }
        let row = cells.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(v, _)| clean_cell(&v)).collect();
        table.rows.push(row);
    }
    if opts.all_namespaces && kind.info().namespaced {
        table = with_namespace(table, objects);
    }
    for key in &opts.label_columns {
        let header = key.rsplit('/').next().unwrap_or(key).to_ascii_uppercase();
        let values = objects
            .iter()
            .map(|o| clean_cell(o.meta().labels.as_ref().and_then(|l| l.get(key)).map(String::as_str).unwrap_or("")))
            .collect();
        table.append_column(&header, values);
    }
    if opts.show_labels {
        table = with_labels(table, objects);
    }
    table
}

/// The table of `kubectl events` (not `kubectl get events`): sorted by the time each event last
/// happened, `Kind/name` objects, a NAMESPACE column with `-A`. Objects that are not events are
/// skipped; when none remain kubectl prints [`no_events_found`] on stderr instead.
pub fn events_table(events: &[Arc<Object>], now: SimTime, all_namespaces: bool) -> Table {
    let mut list: Vec<&core::Event> = events
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::Event(e) => Some(&**e),
            _ => None,
        })
        .collect();
    let when = |e: &core::Event| {
        if let Some(series) = &e.series {
            series.last_observed_time.as_ref().map(micro_time_ms)
        } else if let Some(t) = &e.last_timestamp {
            Some(time_ms(t))
        } else {
            e.event_time.as_ref().map(micro_time_ms)
        }
        .unwrap_or(i64::MIN)
    };
    list.sort_by_key(|e| when(e));
    let mut headers: Vec<String> =
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].iter().map(|h| h.to_string()).collect();
    if all_namespaces {
        headers.insert(0, "NAMESPACE".to_string());
    }
    let rows = list
        .into_iter()
        .map(|e| {
            let interval = super::duration::event_interval(e, now);
            let obj = &e.involved_object;
            let mut row = vec![
                interval,
                escape_terminal(opt(&e.type_)),
                escape_terminal(opt(&e.reason)),
                format!("{}/{}", escape_terminal(opt(&obj.kind)), escape_terminal(opt(&obj.name))),
                escape_terminal(opt(&e.message).trim()),
            ];
            if all_namespaces {
                row.insert(0, opt(&e.metadata.namespace).to_string());
            }
            row
        })
        .collect();
    Table { headers, rows }
}

/// `kubectl events`' stderr line when there is nothing to show.
pub fn no_events_found(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No events found in {ns} namespace.\n"),
        None => "No events found.\n".to_string(),
    }
}

fn columns(kind: Kind) -> Vec<Col> {
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
        Kind::Binding
        | Kind::Eviction
        | Kind::SelfSubjectReview
        | Kind::SelfSubjectAccessReview
        | Kind::SelfSubjectRulesReview
        | Kind::LimitRange
        | Kind::Role
        | Kind::ClusterRole => {
            vec![NAME, c("Created At")]
        }
    }
}

fn meta_age(meta: &ObjectMeta, now: SimTime) -> String {
    age(meta.creation_timestamp.as_ref(), now)
}

fn name_of(meta: &ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// Every cell of the server-side row (wide columns included).
fn cells(obj: &Object, kind: Kind, now: SimTime) -> Vec<String> {
    if obj.kind() != kind {
        return default_cells(obj.meta());
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
        Object::Binding(_)
        | Object::Eviction(_)
        | Object::SelfSubjectReview(_)
        | Object::SelfSubjectAccessReview(_)
        | Object::SelfSubjectRulesReview(_)
        | Object::LimitRange(_)
        | Object::Role(_)
        | Object::ClusterRole(_) => default_cells(obj.meta()),
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
fn container_cells(spec: Option<&core::PodSpec>) -> (String, String) {
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
pub(crate) fn node_roles(node: &core::Node) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Objects start at 2025-09-01T00:00:00Z (SimTime zero); tests look at them later.
    fn obj(kind: Kind, yaml: &str) -> Arc<Object> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).expect("yaml");
        Arc::new(Object::from_json_as(kind, value).expect("object"))
    }

    fn at(secs: u64) -> SimTime {
        SimTime(secs * 1000)
    }

    fn render(kind: Kind, objs: &[Arc<Object>], now: SimTime, wide: bool) -> String {
        table_for(kind, objs, now, wide).render(false)
    }

    const RUNNING_POD: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web-7c5ddbdf54-x2x9q
  namespace: default
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {app: web, pod-template-hash: 7c5ddbdf54}
spec:
  nodeName: node1
  containers:
  - name: web
    image: nginx:1.27
status:
  phase: Running
  podIP: 10.244.1.5
  podIPs: [{ip: 10.244.1.5}]
  conditions:
  - {type: Ready, status: "True"}
  containerStatuses:
  - name: web
    image: nginx:1.27
    imageID: ""
    ready: true
    restartCount: 0
    state: {running: {startedAt: "2025-09-01T00:00:05Z"}}
"#;

    #[test]
    fn a_running_pod_prints_ready_status_restarts_and_age() {
        let pod = obj(Kind::Pod, RUNNING_POD);
        assert_eq!(
            render(Kind::Pod, std::slice::from_ref(&pod), at(150), false),
            "NAME                   READY   STATUS    RESTARTS   AGE\n\
             web-7c5ddbdf54-x2x9q   1/1     Running   0          2m30s\n"
        );
        assert_eq!(
            render(Kind::Pod, &[pod], at(119), true),
            "NAME                   READY   STATUS    RESTARTS   AGE    IP           NODE    NOMINATED NODE   READINESS GATES\n\
             web-7c5ddbdf54-x2x9q   1/1     Running   0          119s   10.244.1.5   node1   <none>           <none>\n"
        );
    }

    #[test]
    fn a_crash_looping_pod_shows_the_waiting_reason_and_when_it_last_restarted() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: crashy, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  containers: [{name: app, image: busybox}]
status:
  phase: Running
  containerStatuses:
  - name: app
    ready: false
    restartCount: 3
    state: {waiting: {reason: CrashLoopBackOff, message: "back-off 40s"}}
    lastState: {terminated: {exitCode: 1, reason: Error, finishedAt: "2025-09-01T00:09:15Z"}}
"#,
        );
        let t = table_for(Kind::Pod, &[pod], at(600), false);
        assert_eq!(t.rows[0], vec!["crashy", "0/1", "CrashLoopBackOff", "3 (45s ago)", "10m"]);
    }

    #[test]
    fn a_deleted_pod_is_terminating_and_a_lost_node_makes_it_unknown() {
        let mut yaml = RUNNING_POD.replace(
            "  creationTimestamp: \"2025-09-01T00:00:00Z\"\n",
            "  creationTimestamp: \"2025-09-01T00:00:00Z\"\n  deletionTimestamp: \"2025-09-01T00:01:00Z\"\n",
        );
        let pod = obj(Kind::Pod, &yaml);
        assert_eq!(table_for(Kind::Pod, &[pod], at(70), false).rows[0][2], "Terminating");
        yaml = yaml.replace("  phase: Running\n", "  phase: Running\n  reason: NodeLost\n");
        let pod = obj(Kind::Pod, &yaml);
        assert_eq!(table_for(Kind::Pod, &[pod], at(70), false).rows[0][2], "Unknown");
        let done = obj(
            Kind::Pod,
            r#"
metadata: {name: done, deletionTimestamp: "2025-09-01T00:01:00Z"}
spec: {containers: [{name: c}]}
status:
  phase: Succeeded
  containerStatuses:
  - {name: c, ready: false, restartCount: 0, state: {terminated: {exitCode: 0, reason: Completed}}}
"#,
        );
        let row = &table_for(Kind::Pod, &[done], at(70), false).rows[0];
        assert_eq!(row[2], "Completed");
        assert_eq!(row[4], "<unknown>");
    }

    #[test]
    fn init_containers_report_progress_and_failures() {
        let waiting = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}, {name: b}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: true, restartCount: 0, state: {terminated: {exitCode: 0, reason: Completed}}}
  - {name: b, ready: false, restartCount: 0, state: {running: {}}}
  containerStatuses:
  - {name: main, ready: false, restartCount: 0, state: {waiting: {reason: PodInitializing}}}
"#,
        );
        assert_eq!(
            table_for(Kind::Pod, &[waiting], at(5), false).rows[0][1..3],
            ["0/1".to_string(), "Init:1/2".to_string()]
        );
        let failed = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: false, restartCount: 2, state: {terminated: {exitCode: 3}}, lastState: {terminated: {exitCode: 3, finishedAt: "2025-09-01T00:00:02Z"}}}
"#,
        );
        assert_eq!(
            table_for(Kind::Pod, &[failed], at(5), false).rows[0][2..4],
            ["Init:ExitCode:3".to_string(), "2 (3s ago)".to_string()]
        );
        let backoff = obj(
            Kind::Pod,
            r#"
metadata: {name: init}
spec:
  initContainers: [{name: a}]
  containers: [{name: main}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: a, ready: false, restartCount: 0, state: {waiting: {reason: ImagePullBackOff}}}
"#,
        );
        assert_eq!(table_for(Kind::Pod, &[backoff], at(5), false).rows[0][2], "Init:ImagePullBackOff");
    }

    #[test]
    fn sidecar_containers_count_towards_ready_and_total() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: sidecar}
spec:
  initContainers: [{name: proxy, restartPolicy: Always}]
  containers: [{name: app}]
status:
  phase: Running
  conditions: [{type: Initialized, status: "True"}, {type: Ready, status: "True"}]
  initContainerStatuses:
  - {name: proxy, ready: true, started: true, restartCount: 1, state: {running: {}}, lastState: {terminated: {exitCode: 137, finishedAt: "2025-09-01T00:00:30Z"}}}
  containerStatuses:
  - {name: app, ready: true, restartCount: 0, state: {running: {}}}
"#,
        );
        let row = &table_for(Kind::Pod, &[pod], at(90), false).rows[0];
        assert_eq!(row[1..4], ["2/2".to_string(), "Running".to_string(), "1 (60s ago)".to_string()]);
    }

    #[test]
    fn terminated_containers_without_reason_show_exit_code_or_signal() {
        let pod = obj(
            Kind::Pod,
            r#"
metadata: {name: p}
spec: {containers: [{name: a}, {name: b}]}
status:
  phase: Failed
  containerStatuses:
  - {name: a, ready: false, restartCount: 0, state: {terminated: {exitCode: 2}}}
  - {name: b, ready: false, restartCount: 0, state: {terminated: {exitCode: 0, signal: 9}}}
"#,
        );
        // The first container's state wins (statuses are walked last to first).
        assert_eq!(table_for(Kind::Pod, &[pod], at(5), false).rows[0][2], "ExitCode:2");
        let gated = obj(
            Kind::Pod,
            r#"
metadata: {name: g}
spec: {containers: [{name: a}], schedulingGates: [{name: x}]}
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: SchedulingGated}]
"#,
        );
        assert_eq!(table_for(Kind::Pod, &[gated], at(5), false).rows[0][2], "SchedulingGated");
    }

    #[test]
    fn a_pod_with_no_status_at_all_still_prints() {
        let pod = obj(Kind::Pod, "metadata: {name: bare}\n");
        let t = table_for(Kind::Pod, &[pod], at(5), true);
        assert_eq!(t.rows[0], vec!["bare", "0/0", "", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"]);
    }

    #[test]
    fn nodes_show_readiness_cordoning_and_roles() {
        let nodes = [
            obj(
                Kind::Node,
                r#"
metadata:
  name: controlplane
  creationTimestamp: "2025-09-01T00:00:00Z"
  labels: {node-role.kubernetes.io/control-plane: ""}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 172.18.0.2}, {type: Hostname, address: controlplane}]
  nodeInfo: {kubeletVersion: v1.34.0, osImage: Debian GNU/Linux 12 (bookworm), kernelVersion: 6.8.0, containerRuntimeVersion: containerd://2.1.3, machineID: "", systemUUID: "", bootID: "", kubeProxyVersion: "", operatingSystem: linux, architecture: amd64}
"#,
            ),
            obj(
                Kind::Node,
                r#"
metadata: {name: node2, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {unschedulable: true}
status:
  conditions: [{type: Ready, status: Unknown}]
  nodeInfo: {kubeletVersion: v1.34.0}
"#,
            ),
            obj(Kind::Node, "metadata: {name: node3, labels: {kubernetes.io/role: worker}}\n"),
        ];
        let now = SimTime((3 * 86_400 + 4 * 3600) * 1000);
        assert_eq!(
            render(Kind::Node, &nodes, now, false),
            "NAME           STATUS                        ROLES           AGE         VERSION\n\
             controlplane   Ready                         control-plane   3d4h        v1.34.0\n\
             node2          NotReady,SchedulingDisabled   <none>          3d4h        v1.34.0\n\
             node3          Unknown                       worker          <unknown>   \n"
        );
        let wide = table_for(Kind::Node, &nodes[..1], now, true);
        assert_eq!(
            wide.rows[0][5..],
            [
                "172.18.0.2".to_string(),
                "<none>".to_string(),
                "Debian GNU/Linux 12 (bookworm)".to_string(),
                "6.8.0".to_string(),
                "containerd://2.1.3".to_string()
            ]
        );
    }

    #[test]
    fn services_show_cluster_ip_external_ip_and_ports_by_type() {
        let svcs = [
            obj(
                Kind::Service,
                r#"
metadata: {name: kubernetes, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ClusterIP, clusterIP: 10.96.0.1, clusterIPs: [10.96.0.1], ports: [{port: 443, protocol: TCP, targetPort: 6443}]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: web, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  type: NodePort
  clusterIPs: [10.96.12.7]
  selector: {app: web}
  ports: [{port: 80, nodePort: 30080, protocol: TCP}, {port: 443, nodePort: 30443, protocol: TCP}]
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: lb, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: LoadBalancer, clusterIPs: [10.96.3.3], ports: [{port: 80, nodePort: 31000, protocol: UDP}]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: headless, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ClusterIP, clusterIP: None, clusterIPs: [None]}
"#,
            ),
            obj(
                Kind::Service,
                r#"
metadata: {name: ext, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {type: ExternalName, externalName: example.com}
"#,
            ),
        ];
        assert_eq!(
            render(Kind::Service, &svcs, at(8 * 3600), true),
            "NAME         TYPE           CLUSTER-IP   EXTERNAL-IP   PORT(S)                      AGE   SELECTOR\n\
             kubernetes   ClusterIP      10.96.0.1    <none>        443/TCP                      8h    <none>\n\
             web          NodePort       10.96.12.7   <none>        80:30080/TCP,443:30443/TCP   8h    app=web\n\
             lb           LoadBalancer   10.96.3.3    <pending>     80:31000/UDP                 8h    <none>\n\
             headless     ClusterIP      None         <none>        <none>                       8h    <none>\n\
             ext          ExternalName   <none>       example.com   <none>                       8h    <none>\n"
        );
    }

    #[test]
    fn endpoints_list_three_addresses_then_count_the_rest() {
        let ep = obj(
            Kind::Endpoints,
            r#"
metadata: {name: web}
subsets:
- addresses: [{ip: 10.0.0.1}, {ip: 10.0.0.2}, {ip: 10.0.0.3}, {ip: 10.0.0.4}]
  notReadyAddresses: [{ip: 10.0.0.9}]
  ports: [{port: 80}, {port: 443}]
"#,
        );
        let none = obj(Kind::Endpoints, "metadata: {name: empty}\n");
        let unready = obj(
            Kind::Endpoints,
            "metadata: {name: unready}\nsubsets: [{notReadyAddresses: [{ip: 10.0.0.9}], ports: [{port: 80}]}]\n",
        );
        let t = table_for(Kind::Endpoints, &[ep, none, unready], at(5), false);
        assert_eq!(t.rows[0][1], "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 5 more...");
        assert_eq!(t.rows[1][1], "<none>");
        assert_eq!(t.rows[2][1], "");
    }

    #[test]
    fn endpoint_slices_list_ports_and_all_addresses() {
        let es = obj(
            Kind::EndpointSlice,
            r#"
metadata: {name: web-abcde}
addressType: IPv4
ports: [{name: http, port: 80, protocol: TCP}]
endpoints:
- {addresses: [10.0.0.1], conditions: {ready: true}}
- {addresses: [10.0.0.2], conditions: {ready: false}}
"#,
        );
        let empty = obj(Kind::EndpointSlice, "metadata: {name: x}\naddressType: IPv4\nendpoints: []\n");
        let t = table_for(Kind::EndpointSlice, &[es, empty], at(5), false);
        assert_eq!(t.headers, ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]);
        assert_eq!(t.rows[0][2..4], ["80".to_string(), "10.0.0.1,10.0.0.2".to_string()]);
        assert_eq!(t.rows[1][2..4], ["<unset>".to_string(), "<unset>".to_string()]);
    }

    #[test]
    fn workloads_show_replica_counts() {
        let deploy = obj(
            Kind::Deployment,
            r#"
metadata: {name: web, creationTimestamp: "2025-09-01T00:00:00Z"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}, {name: side, image: busybox}]}
status: {replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2}
"#,
        );
        assert_eq!(
            render(Kind::Deployment, &[deploy], at(10 * 60), true),
            "NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES               SELECTOR\n\
             web    2/3     3            2           10m   nginx,side   nginx:1.27,busybox   app=web\n"
        );
        let rs = obj(
            Kind::ReplicaSet,
            r#"
metadata: {name: web-7c5ddbdf54}
spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {spec: {containers: [{name: nginx, image: nginx}]}}}
status: {replicas: 3, readyReplicas: 3}
"#,
        );
        assert_eq!(
            table_for(Kind::ReplicaSet, &[rs], at(5), false).rows[0],
            vec!["web-7c5ddbdf54", "3", "3", "3", "<unknown>"]
        );
        let ds = obj(
            Kind::DaemonSet,
            r#"
metadata: {name: kube-proxy}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template: {spec: {nodeSelector: {kubernetes.io/os: linux}, containers: [{name: kube-proxy}]}}
status: {desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2, numberMisscheduled: 0}
"#,
        );
        let t = table_for(Kind::DaemonSet, &[ds], at(5), false);
        assert_eq!(
            t.headers,
            ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]
        );
        assert_eq!(t.rows[0][1..7], ["3", "3", "2", "3", "2", "kubernetes.io/os=linux"].map(String::from));
        let sts = obj(
            Kind::StatefulSet,
            "metadata: {name: db}\nspec: {replicas: 2, selector: {}, serviceName: db, template: {}}\nstatus: {replicas: 2, readyReplicas: 1}\n",
        );
        assert_eq!(table_for(Kind::StatefulSet, &[sts], at(5), false).rows[0][1], "1/2");
    }

    #[test]
    fn jobs_show_status_completions_and_duration() {
        let running = obj(
            Kind::Job,
            r#"
metadata: {name: pi, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {completions: 3, parallelism: 1, template: {spec: {containers: [{name: pi, image: perl}]}}}
status: {startTime: "2025-09-01T00:00:01Z", succeeded: 1, active: 1}
"#,
        );
        let complete = obj(
            Kind::Job,
            r#"
metadata: {name: done, creationTimestamp: "2025-09-01T00:00:00Z"}
spec: {template: {}}
status:
  startTime: "2025-09-01T00:00:00Z"
  completionTime: "2025-09-01T00:00:12Z"
  succeeded: 1
  conditions: [{type: SuccessCriteriaMet, status: "True"}, {type: Complete, status: "True"}]
"#,
        );
        let failed = obj(
            Kind::Job,
            r#"
metadata: {name: bad}
spec: {parallelism: 2, template: {}}
status: {conditions: [{type: Failed, status: "True"}]}
"#,
        );
        let suspended = obj(
            Kind::Job,
            "metadata: {name: s}\nspec: {template: {}}\nstatus: {conditions: [{type: Suspended, status: \"True\"}]}\n",
        );
        assert_eq!(
            render(Kind::Job, &[running, complete, failed, suspended], at(61), false),
            "NAME   STATUS      COMPLETIONS   DURATION   AGE\n\
             pi     Running     1/3           60s        61s\n\
             done   Complete    1/1           12s        61s\n\
             bad    Failed      0/1 of 2                 <unknown>\n\
             s      Suspended   0/1                      <unknown>\n"
        );
    }

    #[test]
    fn events_print_last_seen_type_reason_object_and_message() {
        let events = [
            obj(
                Kind::Event,
                r#"
metadata: {name: web.1}
involvedObject: {kind: Pod, name: web-7c5ddbdf54-x2x9q, fieldPath: "spec.containers{web}"}
reason: BackOff
message: "Back-off restarting failed container web in pod web_default(uid)\n"
type: Warning
count: 5
firstTimestamp: "2025-09-01T00:00:00Z"
lastTimestamp: "2025-09-01T00:02:00Z"
source: {component: kubelet, host: node1}
"#,
            ),
            obj(
                Kind::Event,
                r#"
metadata: {name: web.2}
involvedObject: {kind: Deployment, name: web}
reason: ScalingReplicaSet
message: Scaled up replica set web-7c5ddbdf54 from 0 to 3
type: Normal
eventTime: "2025-09-01T00:01:00.000000Z"
reportingComponent: deployment-controller
"#,
            ),
        ];
        assert_eq!(
            render(Kind::Event, &events, at(180), false),
            "LAST SEEN   TYPE      REASON              OBJECT                     MESSAGE\n\
             60s         Warning   BackOff             pod/web-7c5ddbdf54-x2x9q   Back-off restarting failed container web in pod web_default(uid)\n\
             2m          Normal    ScalingReplicaSet   deployment/web             Scaled up replica set web-7c5ddbdf54 from 0 to 3\n"
        );
        let wide = table_for(Kind::Event, &events, at(180), true);
        assert_eq!(
            wide.headers,
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
        );
        assert_eq!(wide.rows[0][4..6], ["spec.containers{web}".to_string(), "kubelet, node1".to_string()]);
        assert_eq!(wide.rows[0][7..], ["3m".to_string(), "5".to_string(), "web.1".to_string()]);
        assert_eq!(wide.rows[1][8], "1");
    }

    #[test]
    fn config_and_rbac_kinds_use_their_own_columns() {
        let cm = obj(Kind::ConfigMap, "metadata: {name: cfg}\ndata: {a: '1', b: '2'}\nbinaryData: {c: AA==}\n");
        assert_eq!(table_for(Kind::ConfigMap, &[cm], at(5), false).rows[0][1], "3");
        let secret = obj(Kind::Secret, "metadata: {name: s}\ntype: Opaque\ndata: {k: dg==}\n");
        assert_eq!(
            table_for(Kind::Secret, &[secret], at(5), false).rows[0][1..3],
            ["Opaque".to_string(), "1".to_string()]
        );
        let sa = obj(Kind::ServiceAccount, "metadata: {name: default}\n");
        assert_eq!(table_for(Kind::ServiceAccount, &[sa], at(5), false).headers, ["NAME", "SECRETS", "AGE"]);
        let role = obj(Kind::ClusterRole, "metadata: {name: admin, creationTimestamp: \"2025-09-01T00:00:07Z\"}\n");
        let t = table_for(Kind::ClusterRole, &[role], at(5), false);
        assert_eq!(t.render(false), "NAME    CREATED AT\nadmin   2025-09-01T00:00:07Z\n");
        let rb = obj(
            Kind::RoleBinding,
            r#"
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: User, name: jane}
- {kind: Group, name: devs}
- {kind: ServiceAccount, name: bot, namespace: ci}
- {kind: User, name: joe}
"#,
        );
        assert_eq!(
            table_for(Kind::RoleBinding, &[rb], at(5), true).rows[0][1..],
            ["ClusterRole/view", "<unknown>", "jane, joe", "devs", "ci/bot"].map(String::from)
        );
        let ns = obj(Kind::Namespace, "metadata: {name: dev}\nstatus: {phase: Terminating}\n");
        assert_eq!(table_for(Kind::Namespace, &[ns], at(5), false).rows[0][1], "Terminating");
        let lease = obj(Kind::Lease, "metadata: {name: node1}\nspec: {holderIdentity: node1}\n");
        assert_eq!(table_for(Kind::Lease, &[lease], at(5), false).rows[0][1], "node1");
    }

    #[test]
    fn storage_quota_and_policy_kinds_follow_the_server_printers() {
        let pv = obj(
            Kind::PersistentVolume,
            r#"
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteMany, ReadWriteOnce], persistentVolumeReclaimPolicy: Retain, storageClassName: standard, claimRef: {namespace: default, name: data}}
status: {phase: Bound}
"#,
        );
        assert_eq!(
            table_for(Kind::PersistentVolume, &[pv], at(5), true).rows[0],
            vec![
                "pv1",
                "1Gi",
                "RWO,RWX",
                "Retain",
                "Bound",
                "default/data",
                "standard",
                "<unset>",
                "",
                "<unknown>",
                "<unset>"
            ]
        );
        let pending = obj(
            Kind::PersistentVolumeClaim,
            "metadata: {name: data}\nspec: {storageClassName: standard, resources: {requests: {storage: 1Gi}}}\nstatus: {phase: Pending}\n",
        );
        assert_eq!(
            table_for(Kind::PersistentVolumeClaim, &[pending], at(5), false).rows[0][..6],
            ["data", "Pending", "", "", "", "standard"].map(String::from)
        );
        let sc = obj(
            Kind::StorageClass,
            "metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}}\nprovisioner: rancher.io/local-path\nvolumeBindingMode: WaitForFirstConsumer\n",
        );
        assert_eq!(
            table_for(Kind::StorageClass, &[sc], at(5), false).rows[0][..5],
            ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", "false"]
                .map(String::from)
        );
        let quota = obj(
            Kind::ResourceQuota,
            r#"
metadata: {name: compute}
spec: {hard: {pods: "10"}}
status:
  hard: {limits.cpu: "4", limits.memory: 8Gi, pods: "10", requests.cpu: "2"}
  used: {limits.cpu: 500m, pods: "3", requests.cpu: 250m}
"#,
        );
        assert_eq!(
            table_for(Kind::ResourceQuota, &[quota], at(5), false).rows[0],
            vec![
                "compute",
                "<unknown>",
                "pods: 3/10, requests.cpu: 250m/2",
                "limits.cpu: 500m/4, limits.memory: 0/8Gi"
            ]
        );
        let pc = obj(
            Kind::PriorityClass,
            "metadata: {name: system-node-critical}\nvalue: 2000001000\npreemptionPolicy: PreemptLowerPriority\n",
        );
        assert_eq!(
            table_for(Kind::PriorityClass, &[pc], at(5), false).headers,
            ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
        );
        let pdb = obj(Kind::PodDisruptionBudget, "metadata: {name: web}\nspec: {minAvailable: 2}\nstatus: {disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3}\n");
        assert_eq!(
            table_for(Kind::PodDisruptionBudget, &[pdb], at(5), false).rows[0][1..4],
            ["2", "N/A", "1"].map(String::from)
        );
        let np = obj(Kind::NetworkPolicy, "metadata: {name: deny}\nspec: {podSelector: {}}\n");
        assert_eq!(table_for(Kind::NetworkPolicy, &[np], at(5), false).rows[0][1], "<none>");
        let hpa = obj(
            Kind::HorizontalPodAutoscaler,
            r#"
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
status: {currentReplicas: 2, desiredReplicas: 2}
"#,
        );
        assert_eq!(
            table_for(Kind::HorizontalPodAutoscaler, &[hpa], at(5), false).rows[0][1..6],
            ["Deployment/web", "cpu: <unknown>/50%", "1", "5", "2"].map(String::from)
        );
        let cr = obj(
            Kind::ControllerRevision,
            "metadata: {name: kube-proxy-5d8b7d5b8f, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: kube-proxy, uid: u, controller: true}]}\nrevision: 1\n",
        );
        assert_eq!(
            table_for(Kind::ControllerRevision, &[cr], at(5), false).rows[0][1..3],
            ["daemonset.apps/kube-proxy", "1"].map(String::from)
        );
        let ing = obj(
            Kind::Ingress,
            "metadata: {name: web}\nspec: {ingressClassName: nginx, rules: [{host: a.example.com}, {host: b.example.com}], tls: [{hosts: [a.example.com]}]}\nstatus: {loadBalancer: {ingress: [{ip: 172.18.0.5}]}}\n",
        );
        assert_eq!(
            table_for(Kind::Ingress, &[ing], at(5), false).rows[0][1..5],
            ["nginx", "a.example.com,b.example.com", "172.18.0.5", "80, 443"].map(String::from)
        );
        let cj = obj(
            Kind::CronJob,
            "metadata: {name: hello}\nspec: {schedule: '*/1 * * * *', suspend: false, jobTemplate: {spec: {template: {}}}}\n",
        );
        assert_eq!(
            table_for(Kind::CronJob, &[cj], at(5), false).rows[0][1..6],
            ["*/1 * * * *", "<none>", "False", "0", "<none>"].map(String::from)
        );
    }

    #[test]
    fn kubectl_events_sorts_by_time_and_names_objects_by_kind() {
        let events = [
            obj(
                Kind::Event,
                r#"
metadata: {name: b, namespace: default}
involvedObject: {kind: Pod, name: web}
reason: BackOff
message: back-off
type: Warning
count: 3
firstTimestamp: "2025-09-01T00:00:10Z"
lastTimestamp: "2025-09-01T00:01:10Z"
"#,
            ),
            obj(
                Kind::Event,
                r#"
metadata: {name: a, namespace: default}
involvedObject: {kind: Pod, name: web}
reason: Scheduled
message: Successfully assigned default/web to node1
type: Normal
eventTime: "2025-09-01T00:00:01.000000Z"
"#,
            ),
        ];
        let t = events_table(&events, at(120), true);
        assert_eq!(
            t.render(false),
            "NAMESPACE   LAST SEEN            TYPE      REASON      OBJECT    MESSAGE\n\
             default     119s                 Normal    Scheduled   Pod/web   Successfully assigned default/web to node1\n\
             default     50s (x3 over 110s)   Warning   BackOff     Pod/web   back-off\n"
        );
        assert_eq!(no_events_found(Some("default")), "No events found in default namespace.\n");
        assert_eq!(no_events_found(None), "No events found.\n");
    }

    #[test]
    fn decorations_add_namespace_kind_prefix_and_labels() {
        let pod = obj(Kind::Pod, RUNNING_POD);
        let opts = GetOptions {
            all_namespaces: true,
            show_kind: true,
            show_labels: true,
            label_columns: vec!["app".to_string()],
            ..Default::default()
        };
        let t = get_table(Kind::Pod, &[pod], at(30), &opts);
        assert_eq!(
            t.render(false),
            "NAMESPACE   NAME                       READY   STATUS    RESTARTS   AGE   APP   LABELS\n\
             default     pod/web-7c5ddbdf54-x2x9q   1/1     Running   0          30s   web   app=web,pod-template-hash=7c5ddbdf54\n"
        );
        let node = obj(Kind::Node, "metadata: {name: n1}\n");
        let t = get_table(Kind::Node, &[node], at(30), &opts);
        assert_eq!(t.headers[0], "NAME");
        assert_eq!(t.rows[0][0], "node/n1");
        let deploy = obj(Kind::Deployment, "metadata: {name: web}\nspec: {selector: {}, template: {}}\n");
        let t = get_table(Kind::Deployment, &[deploy], at(30), &GetOptions { show_kind: true, ..Default::default() });
        assert_eq!(t.rows[0][0], "deployment.apps/web");
    }
}
