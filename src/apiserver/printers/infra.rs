//! The tables of the kinds a cluster's machinery keeps rather than its workloads: API registration
//! (APIService, CustomResourceDefinition), certificates, flow control, ingress classes and runtime classes,
//! Service IP ranges and addresses, storage drivers and attachments, dynamic resource allocation, and the
//! legacy core kinds (ReplicationController, PodTemplate, ComponentStatus). Columns and cells as
//! `pkg/printers/internalversion/printers.go` and kube-aggregator's APIService printer compute them.

use k8s_openapi::api::{
    certificates::v1 as certificates, core::v1 as core, flowcontrol::v1 as flowcontrol, networking::v1 as networking,
    storage::v1 as storage,
};
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;

use super::cells::{c, container_cells, meta_age, name_of, w, Col, NAME};
use super::duration::human_duration;
use super::util::format_labels;
use crate::api::{Kind, Object};
use crate::sim::SimTime;

/// The columns of `kind`'s table, for the kinds this module prints.
pub fn columns(kind: Kind) -> Option<Vec<Col>> {
    Some(match kind {
        Kind::ReplicationController => {
            vec![NAME, c("Desired"), c("Current"), c("Ready"), c("Age"), w("Containers"), w("Images"), w("Selector")]
        }
        Kind::PodTemplate => vec![NAME, c("Containers"), c("Images"), c("Pod Labels")],
        Kind::ComponentStatus => vec![NAME, c("Status"), c("Message"), c("Error")],
        Kind::CertificateSigningRequest => {
            vec![NAME, c("Age"), c("SignerName"), c("Requestor"), c("RequestedDuration"), c("Condition")]
        }
        Kind::APIService => vec![NAME, c("Service"), c("Available"), c("Age")],
        Kind::IngressClass => vec![NAME, c("Controller"), c("Parameters"), c("Age")],
        Kind::RuntimeClass => vec![NAME, c("Handler"), c("Age")],
        Kind::FlowSchema => {
            vec![NAME, c("PriorityLevel"), c("MatchingPrecedence"), c("DistinguisherMethod"), c("Age"), c("MissingPL")]
        }
        Kind::PriorityLevelConfiguration => vec![
            NAME,
            c("Type"),
            c("NominalConcurrencyShares"),
            c("Queues"),
            c("HandSize"),
            c("QueueLengthLimit"),
            c("Age"),
        ],
        Kind::IPAddress => vec![NAME, c("ParentRef")],
        Kind::ServiceCIDR => vec![NAME, c("CIDRs"), c("Age")],
        Kind::CSIDriver => vec![
            NAME,
            c("AttachRequired"),
            c("PodInfoOnMount"),
            c("StorageCapacity"),
            c("TokenRequests"),
            c("RequiresRepublish"),
            c("Modes"),
            c("Age"),
        ],
        Kind::CSINode => vec![NAME, c("Drivers"), c("Age")],
        Kind::CSIStorageCapacity => vec![NAME, c("StorageClassName"), c("Capacity")],
        Kind::VolumeAttachment => vec![NAME, c("Attacher"), c("PV"), c("Node"), c("Attached"), c("Age")],
        Kind::VolumeAttributesClass => vec![NAME, c("DriverName"), c("Age")],
        Kind::DeviceClass | Kind::ResourceClaimTemplate => vec![NAME, c("Age")],
        Kind::ResourceClaim => vec![NAME, c("State"), c("Age")],
        Kind::ResourceSlice => vec![NAME, c("Node"), c("Driver"), c("Pool"), c("Age")],
        _ => return None,
    })
}

/// The order a list's rows print in: FlowSchemas by matching precedence, then name, as `printFlowSchemaList`
/// sorts them (the order they are matched in); every other kind as listed.
pub fn row_order(kind: Kind, objects: &[std::sync::Arc<Object>]) -> std::borrow::Cow<'_, [std::sync::Arc<Object>]> {
    if kind != Kind::FlowSchema {
        return std::borrow::Cow::Borrowed(objects);
    }
    let precedence = |o: &Object| match o {
        Object::FlowSchema(fs) => fs.spec.as_ref().and_then(|s| s.matching_precedence).unwrap_or(0),
        _ => 0,
    };
    let mut rows = objects.to_vec();
    rows.sort_by(|a, b| precedence(a).cmp(&precedence(b)).then_with(|| a.name().cmp(b.name())));
    std::borrow::Cow::Owned(rows)
}

/// One row's cells, for the kinds this module prints.
pub fn cells(obj: &Object, now: SimTime) -> Option<Vec<String>> {
    // Computed only for the kinds printed here: every other kind's rows pass through this first.
    let age = || meta_age(obj.meta(), now);
    let name = || name_of(obj.meta());
    Some(match obj {
        Object::ReplicationController(rc) => {
            let spec = rc.spec.clone().unwrap_or_default();
            let status = rc.status.clone().unwrap_or_default();
            let (names, images) = container_cells(spec.template.as_ref().and_then(|t| t.spec.as_ref()));
            vec![
                name(),
                spec.replicas.unwrap_or(1).to_string(),
                status.replicas.to_string(),
                status.ready_replicas.unwrap_or(0).to_string(),
                age(),
                names,
                images,
                format_labels(spec.selector.as_ref()),
            ]
        }
        Object::PodTemplate(t) => {
            let template = t.template.as_ref();
            let (names, images) = container_cells(template.and_then(|t| t.spec.as_ref()));
            let labels = template.and_then(|t| t.metadata.as_ref()).and_then(|m| m.labels.as_ref());
            vec![name(), names, images, format_labels(labels)]
        }
        Object::ComponentStatus(cs) => component_status_cells(cs, name()),
        Object::CertificateSigningRequest(csr) => csr_cells(csr, name(), age()),
        Object::APIService(a) => vec![name(), api_service_endpoint(a), api_service_available(a), age()],
        Object::IngressClass(ic) => {
            let spec = ic.spec.clone().unwrap_or_default();
            let parameters = match &spec.parameters {
                None => "<none>".to_string(),
                Some(p) => match p.api_group.as_deref().filter(|g| !g.is_empty()) {
                    Some(group) => format!("{}.{group}/{}", p.kind, p.name),
                    None => format!("{}/{}", p.kind, p.name),
                },
            };
            vec![name(), spec.controller.unwrap_or_default(), parameters, age()]
        }
        Object::RuntimeClass(rc) => vec![name(), rc.handler.clone(), age()],
        Object::FlowSchema(fs) => flow_schema_cells(fs, name(), age()),
        Object::PriorityLevelConfiguration(pl) => priority_level_cells(pl, name(), age()),
        Object::IPAddress(ip) => vec![name(), parent_ref(ip)],
        Object::ServiceCIDR(sc) => {
            let cidrs = sc.spec.as_ref().and_then(|s| s.cidrs.clone()).unwrap_or_default();
            vec![name(), cidrs.join(","), age()]
        }
        Object::CSIDriver(d) => csi_driver_cells(d, name(), age()),
        Object::CSINode(n) => vec![name(), n.spec.drivers.len().to_string(), age()],
        Object::CSIStorageCapacity(cap) => {
            let capacity = cap.capacity.as_ref().map(|q| q.0.clone()).unwrap_or_else(|| "<unset>".to_string());
            vec![name(), cap.storage_class_name.clone(), capacity]
        }
        Object::VolumeAttachment(va) => {
            let pv = va.spec.source.persistent_volume_name.clone().unwrap_or_default();
            let attached = va.status.as_ref().map(|s| s.attached).unwrap_or(false);
            vec![name(), va.spec.attacher.clone(), pv, va.spec.node_name.clone(), attached.to_string(), age()]
        }
        Object::VolumeAttributesClass(vac) => {
            let default =
                vac.metadata.annotations.as_ref().and_then(|a| a.get("storage.kubernetes.io/is-default-class"));
            let shown = if default.is_some_and(|v| v == "true") { format!("{} (default)", name()) } else { name() };
            vec![shown, vac.driver_name.clone(), age()]
        }
        Object::DeviceClass(_) | Object::ResourceClaimTemplate(_) => vec![name(), age()],
        Object::ResourceClaim(claim) => {
            let status = claim.status.as_ref();
            let mut states = Vec::new();
            let reserved = status.and_then(|s| s.reserved_for.as_ref()).is_some_and(|r| !r.is_empty());
            let deleted = claim.metadata.deletion_timestamp.is_some();
            if deleted {
                states.push("deleted");
            }
            if status.and_then(|s| s.allocation.as_ref()).is_some() {
                states.push("allocated");
                if reserved {
                    states.push("reserved");
                }
            } else if !deleted {
                states.push("pending");
            }
            vec![name(), states.join(","), age()]
        }
        Object::ResourceSlice(rs) => {
            let spec = &rs.spec;
            let node = spec.node_name.clone().unwrap_or_default();
            vec![name(), node, spec.driver.clone(), spec.pool.name.clone(), age()]
        }
        _ => return None,
    })
}

/// `printComponentStatus`: the Healthy condition's verdict, message and error.
fn component_status_cells(cs: &core::ComponentStatus, name: String) -> Vec<String> {
    let mut status = "Unknown".to_string();
    let (mut message, mut error) = (String::new(), String::new());
    for condition in cs.conditions.iter().flatten() {
        if condition.type_ == "Healthy" {
            status = if condition.status == "True" { "Healthy" } else { "Unhealthy" }.to_string();
            message = condition.message.clone().unwrap_or_default();
            error = condition.error.clone().unwrap_or_default();
            break;
        }
    }
    vec![name, status, message, error]
}

/// `printCertificateSigningRequest` with `extractCSRStatus`: Denied before Approved before Pending, then
/// `,Failed` and `,Issued`.
fn csr_cells(csr: &certificates::CertificateSigningRequest, name: String, age: String) -> Vec<String> {
    let signer = Some(csr.spec.signer_name.clone()).filter(|s| !s.is_empty()).unwrap_or_else(|| "<none>".into());
    let requestor = csr.spec.username.clone().unwrap_or_default();
    let duration = match csr.spec.expiration_seconds {
        Some(seconds) => human_duration(i64::from(seconds) * 1000),
        None => "<none>".to_string(),
    };
    vec![name, age, signer, requestor, duration, csr_condition(csr)]
}

/// The CSR's state as `kubectl get csr` shows it: `Pending`, `Approved,Issued`, `Denied`, ….
fn csr_condition(csr: &certificates::CertificateSigningRequest) -> String {
    let status = csr.status.as_ref();
    let types: Vec<&str> =
        status.and_then(|s| s.conditions.as_ref()).into_iter().flatten().map(|c| c.type_.as_str()).collect();
    let mut out = if types.contains(&"Denied") {
        "Denied"
    } else if types.contains(&"Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_string();
    if types.contains(&"Failed") {
        out.push_str(",Failed");
    }
    if status.and_then(|s| s.certificate.as_ref()).is_some_and(|c| !c.0.is_empty()) {
        out.push_str(",Issued");
    }
    out
}

/// `Local` for an APIService the apiserver serves itself, else the Service it proxies to.
fn api_service_endpoint(a: &APIService) -> String {
    match a.spec.as_ref().and_then(|s| s.service.as_ref()) {
        None => "Local".to_string(),
        Some(svc) => format!("{}/{}", svc.namespace.as_deref().unwrap_or(""), svc.name.as_deref().unwrap_or("")),
    }
}

/// The Available condition: `True`, or `False (Reason)`.
fn api_service_available(a: &APIService) -> String {
    let condition =
        a.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|cs| cs.iter().find(|c| c.type_ == "Available"));
    match condition {
        None => "Unknown".to_string(),
        Some(c) if c.status == "True" => c.status.clone(),
        Some(c) => match c.reason.as_deref().filter(|r| !r.is_empty()) {
            Some(reason) => format!("{} ({reason})", c.status),
            None => c.status.clone(),
        },
    }
}

fn flow_schema_cells(fs: &flowcontrol::FlowSchema, name: String, age: String) -> Vec<String> {
    let spec = fs.spec.clone().unwrap_or_default();
    let distinguisher = spec.distinguisher_method.map(|d| d.type_).unwrap_or_else(|| "<none>".to_string());
    let dangling = fs
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_.as_deref() == Some("Dangling")))
        .and_then(|c| c.status.clone())
        .unwrap_or_else(|| "?".to_string());
    vec![
        name,
        spec.priority_level_configuration.name,
        spec.matching_precedence.unwrap_or(0).to_string(),
        distinguisher,
        age,
        dangling,
    ]
}

fn priority_level_cells(pl: &flowcontrol::PriorityLevelConfiguration, name: String, age: String) -> Vec<String> {
    let spec = pl.spec.clone().unwrap_or_default();
    let none = || "<none>".to_string();
    let (mut shares, mut queues, mut hand, mut length) = (none(), none(), none(), none());
    if let Some(limited) = &spec.limited {
        shares = limited.nominal_concurrency_shares.unwrap_or(0).to_string();
        if let Some(q) = limited.limit_response.as_ref().and_then(|r| r.queuing.as_ref()) {
            queues = q.queues.unwrap_or(0).to_string();
            hand = q.hand_size.unwrap_or(0).to_string();
            length = q.queue_length_limit.unwrap_or(0).to_string();
        }
    }
    vec![name, spec.type_, shares, queues, hand, length, age]
}

/// `resource/namespace/name` of the object an IP address belongs to (with the group when not core).
fn parent_ref(ip: &networking::IPAddress) -> String {
    let Some(r) = ip.spec.as_ref().map(|s| &s.parent_ref) else { return "<none>".to_string() };
    let resource = match r.group.as_deref().filter(|g| !g.is_empty()) {
        Some(group) => format!("{}.{group}", r.resource),
        None => r.resource.clone(),
    };
    match r.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(ns) => format!("{resource}/{ns}/{}", r.name),
        None => format!("{resource}/{}", r.name),
    }
}

fn csi_driver_cells(d: &storage::CSIDriver, name: String, age: String) -> Vec<String> {
    let spec = &d.spec;
    let flag = |v: Option<bool>, default: bool| v.unwrap_or(default).to_string();
    let tokens = match &spec.token_requests {
        None => "<unset>".to_string(),
        Some(t) => t.iter().map(|r| r.audience.clone()).collect::<Vec<_>>().join(","),
    };
    let modes = match &spec.volume_lifecycle_modes {
        Some(m) if !m.is_empty() => m.join(","),
        _ => "<none>".to_string(),
    };
    vec![
        name,
        flag(spec.attach_required, true),
        flag(spec.pod_info_on_mount, false),
        flag(spec.storage_capacity, false),
        tokens,
        flag(spec.requires_republish, false),
        modes,
        age,
    ]
}
