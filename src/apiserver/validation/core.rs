//! The remaining core kinds: Namespaces (RFC 1123 label names, finalizers), ConfigMaps and Secrets (keys,
//! 1 MiB limit, secret types, `immutable: true`), ServiceAccounts, Nodes (taints, pod CIDRs, status
//! quantities), PersistentVolumeClaims (access modes, storage request, spec immutability),
//! PersistentVolumes, Endpoints, LimitRanges and ResourceQuotas.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    ConfigMap, Endpoints, LimitRange, Namespace, Node, PersistentVolume, PersistentVolumeClaim, ResourceQuota, Secret,
    ServiceAccount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule};
use super::pod;
use super::quantity::parse_quantity;
use super::service;
use crate::api::Cause;

/// ConfigMaps and Secrets may hold at most 1 MiB.
pub const MAX_SECRET_SIZE: usize = 1024 * 1024;
const IMMUTABLE_SET: &str = "field is immutable when `immutable` is set";

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

// ---------------------------------------------------------------------------------------- Namespace

pub fn validate_namespace(ns: &Namespace) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&ns.metadata, false, NameRule::Label);
    let path = Path::new("spec").child("finalizers");
    for f in ns.spec.iter().flat_map(|s| s.finalizers.iter().flatten()) {
        for m in names::is_qualified_name(f) {
            errs.push(field::invalid_str(&path, f, &m));
        }
        errs.extend(meta::validate_kube_finalizer_name(f, &path));
    }
    errs
}

pub fn validate_namespace_update(new: &Namespace, old: &Namespace) -> Vec<Cause> {
    meta::validate_object_meta_update(&new.metadata, &old.metadata)
}

// ---------------------------------------------------------------------------------------- ConfigMap

pub fn validate_config_map(cm: &ConfigMap) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&cm.metadata, true, NameRule::Subdomain);
    let mut total = 0usize;
    let binary = cm.binary_data.clone().unwrap_or_default();
    for (k, v) in cm.data.iter().flatten() {
        let p = Path::new("data").key(k);
        for m in names::is_config_map_key(k) {
            errs.push(field::invalid_str(&p, k, &m));
        }
        if binary.contains_key(k) {
            errs.push(field::invalid_str(&p, k, "duplicate of key present in binaryData"));
        }
        total = total.saturating_add(v.len());
    }
    for (k, v) in &binary {
        for m in names::is_config_map_key(k) {
            errs.push(field::invalid_str(&Path::new("binaryData").key(k), k, &m));
        }
        total = total.saturating_add(v.0.len());
    }
    if total > MAX_SECRET_SIZE {
        errs.push(field::too_long(&Path::new(""), MAX_SECRET_SIZE));
    }
    errs
}

pub fn validate_config_map_update(new: &ConfigMap, old: &ConfigMap) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    if old.immutable == Some(true) {
        if new.immutable != Some(true) {
            errs.push(field::forbidden(&Path::new("immutable"), IMMUTABLE_SET));
        }
        if new.data.clone().unwrap_or_default() != old.data.clone().unwrap_or_default() {
            errs.push(field::forbidden(&Path::new("data"), IMMUTABLE_SET));
        }
        if new.binary_data.clone().unwrap_or_default() != old.binary_data.clone().unwrap_or_default() {
            errs.push(field::forbidden(&Path::new("binaryData"), IMMUTABLE_SET));
        }
    }
    errs.extend(validate_config_map(new));
    errs
}

// ---------------------------------------------------------------------------------------- Secret

/// `data` as the apiserver sees it after conversion: `stringData` merged over `data`.
fn merged_secret_data(secret: &Secret) -> BTreeMap<String, Vec<u8>> {
    let mut data: BTreeMap<String, Vec<u8>> =
        secret.data.iter().flatten().map(|(k, v)| (k.clone(), v.0.clone())).collect();
    for (k, v) in secret.string_data.iter().flatten() {
        data.insert(k.clone(), v.clone().into_bytes());
    }
    data
}

pub fn validate_secret(secret: &Secret) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&secret.metadata, true, NameRule::Subdomain);
    let data_path = Path::new("data");
    let data = merged_secret_data(secret);
    let mut total = 0usize;
    for (k, v) in &data {
        for m in names::is_config_map_key(k) {
            errs.push(field::invalid_str(&data_path.key(k), k, &m));
        }
        total = total.saturating_add(v.len());
    }
    if total > MAX_SECRET_SIZE {
        errs.push(field::too_long(&data_path, MAX_SECRET_SIZE));
    }
    let json_key = |key: &str, errs: &mut Vec<Cause>| match data.get(key) {
        None => errs.push(field::required(&data_path.key(key), "")),
        Some(bytes) => {
            if let Err(e) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes) {
                errs.push(field::invalid_str(&data_path.key(key), "<secret contents redacted>", &e.to_string()));
            }
        }
    };
    match s(&secret.type_) {
        "kubernetes.io/service-account-token" => {
            let name = secret
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("kubernetes.io/service-account.name"))
                .map(String::as_str)
                .unwrap_or("");
            if name.is_empty() {
                errs.push(field::required(
                    &Path::new("metadata").child("annotations").key("kubernetes.io/service-account.name"),
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" => json_key(".dockercfg", &mut errs),
        "kubernetes.io/dockerconfigjson" => json_key(".dockerconfigjson", &mut errs),
        "kubernetes.io/basic-auth" if !data.contains_key("username") && !data.contains_key("password") => {
            errs.push(field::required(&data_path.key("username"), ""));
            errs.push(field::required(&data_path.key("password"), ""));
        }
        "kubernetes.io/ssh-auth" if data.get("ssh-privatekey").is_none_or(|v| v.is_empty()) => {
            errs.push(field::required(&data_path.key("ssh-privatekey"), ""));
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !data.contains_key(key) {
                    errs.push(field::required(&data_path.key(key), ""));
                }
            }
        }
        _ => {}
    }
    errs
}

pub fn validate_secret_update(new: &Secret, old: &Secret) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    if s(&new.type_) != s(&old.type_) {
        errs.push(field::invalid(&Path::new("type"), &field::json_string(s(&new.type_)), "field is immutable"));
    }
    if old.immutable == Some(true) {
        if new.immutable != Some(true) {
            errs.push(field::forbidden(&Path::new("immutable"), IMMUTABLE_SET));
        }
        if merged_secret_data(new) != merged_secret_data(old) {
            errs.push(field::forbidden(&Path::new("data"), IMMUTABLE_SET));
        }
    }
    errs.extend(validate_secret(new));
    errs
}

// ---------------------------------------------------------------------------------------- ServiceAccount

pub fn validate_service_account(sa: &ServiceAccount) -> Vec<Cause> {
    meta::validate_object_meta(&sa.metadata, true, NameRule::Subdomain)
}

pub fn validate_service_account_update(new: &ServiceAccount, old: &ServiceAccount) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    errs.extend(validate_service_account(new));
    errs
}

// ---------------------------------------------------------------------------------------- Node

fn validate_node_taints(node: &Node) -> Vec<Cause> {
    let mut errs = Vec::new();
    let path = Path::new("metadata").child("taints");
    let mut unique: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, t) in node.spec.iter().flat_map(|s| s.taints.iter().flatten()).enumerate() {
        let idx = path.index(i);
        errs.extend(names::validate_label_name(&t.key, &idx.child("key")));
        let value = s(&t.value);
        let msgs = names::is_valid_label_value(value);
        if !msgs.is_empty() {
            errs.push(field::invalid_str(&idx.child("value"), value, &msgs.join(";")));
        }
        match t.effect.as_str() {
            "" => errs.push(field::required(&idx.child("effect"), "")),
            "NoSchedule" | "PreferNoSchedule" | "NoExecute" => {}
            other => errs.push(field::not_supported(
                &idx.child("effect"),
                &field::json_string(other),
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            )),
        }
        let keys = unique.entry(t.effect.clone()).or_default();
        if keys.contains(&t.key) {
            errs.push(Cause::new(
                idx.as_str(),
                format!(
                    "Duplicate value: {{\"Key\":{},\"Value\":{},\"Effect\":{},\"TimeAdded\":null}}: taints must be unique by key and effect pair",
                    field::json_string(&t.key),
                    field::json_string(value),
                    field::json_string(&t.effect)
                ),
            ));
            continue;
        }
        keys.insert(t.key.clone());
    }
    errs
}

fn validate_node_resources(node: &Node) -> Vec<Cause> {
    let mut errs = Vec::new();
    let status = node.status.clone().unwrap_or_default();
    for (name, list) in [("capacity", &status.capacity), ("allocatable", &status.allocatable)] {
        for (k, raw) in list.iter().flatten() {
            let p = Path::new("status").child(name).child(k);
            errs.extend(quantity_value(k, raw, &p));
        }
    }
    errs
}

fn quantity_value(name: &str, raw: &ApiQuantity, path: &Path) -> Vec<Cause> {
    let mut list = BTreeMap::new();
    list.insert(name.to_string(), raw.clone());
    // Reuse the resource-list rules, then move the causes to the caller's path.
    pod::validate_resource_list_values(Some(&list), &Path::new("x"))
        .into_iter()
        .map(|c| Cause::new(path.as_str(), c.message))
        .collect()
}

pub fn validate_node(node: &Node) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&node.metadata, false, NameRule::Subdomain);
    errs.extend(validate_node_taints(node));
    errs.extend(validate_node_resources(node));
    let cidrs = node.spec.as_ref().and_then(|s| s.pod_cidrs.clone()).unwrap_or_default();
    let cp = Path::new("spec").child("podCIDRs");
    for (i, c) in cidrs.iter().enumerate() {
        errs.extend(service::validate_cidr(c, &cp.index(i)));
    }
    if cidrs.len() > 1 {
        let v4 = cidrs.iter().filter(|c| !c.contains(':')).count();
        if v4 != 1 || cidrs.len() > 2 {
            errs.push(field::invalid(
                &cp,
                &field::json_strings(Some(&cidrs)),
                "may specify no more than one CIDR for each IP family",
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, c) in cidrs.iter().enumerate() {
            if !seen.insert(c) {
                errs.push(field::duplicate(&cp.index(i), &field::quote(c)));
            }
        }
    }
    errs
}

pub fn validate_node_update(new: &Node, old: &Node) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    errs.extend(validate_node_resources(new));
    let old_spec = old.spec.clone().unwrap_or_default();
    let new_spec = new.spec.clone().unwrap_or_default();
    let old_cidrs = old_spec.pod_cidrs.clone().unwrap_or_default();
    let new_cidrs = new_spec.pod_cidrs.clone().unwrap_or_default();
    let cidr_msg = "node updates may not change podCIDR except from \"\" to valid";
    if !old_cidrs.is_empty() {
        if old_cidrs.len() != new_cidrs.len() {
            errs.push(field::forbidden(&Path::new("spec").child("podCIDRs"), cidr_msg));
        } else {
            for (o, n) in old_cidrs.iter().zip(&new_cidrs) {
                if o != n {
                    errs.push(field::forbidden(&Path::new("spec").child("podCIDRs"), cidr_msg));
                }
            }
        }
    }
    if !s(&old_spec.provider_id).is_empty() && old_spec.provider_id != new_spec.provider_id {
        errs.push(field::forbidden(
            &Path::new("spec").child("providerID"),
            "node updates may not change providerID except from \"\" to valid",
        ));
    }
    errs.extend(validate_node_taints(new));
    if s(&new_spec.external_id) != s(&old_spec.external_id) {
        errs.push(field::forbidden(&Path::new("spec").child("externalID"), "may not be updated"));
    }
    errs
}

// ---------------------------------------------------------------------------------------- Volumes

const ACCESS_MODES: &[&str] = &["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

fn validate_access_modes(modes: &[String], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if modes.is_empty() {
        errs.push(field::required(path, "at least 1 access mode is required"));
    }
    let (mut rwop, mut other) = (false, false);
    for m in modes {
        if !ACCESS_MODES.contains(&m.as_str()) {
            errs.push(field::not_supported(path, &field::json_string(m), ACCESS_MODES));
        } else if m == "ReadWriteOncePod" {
            rwop = true;
        } else {
            other = true;
        }
    }
    if rwop && other {
        errs.push(field::forbidden(path, "may not use ReadWriteOncePod with other access modes"));
    }
    errs
}

fn storage_request(pvc: &PersistentVolumeClaim) -> Option<ApiQuantity> {
    pvc.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("storage"))
        .cloned()
}

pub fn validate_pvc(pvc: &PersistentVolumeClaim) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&pvc.metadata, true, NameRule::Subdomain);
    let spec = pvc.spec.clone().unwrap_or_default();
    let path = Path::new("spec");
    errs.extend(validate_access_modes(spec.access_modes.as_deref().unwrap_or(&[]), &path.child("accessModes")));
    if let Some(sel) = &spec.selector {
        errs.extend(names::validate_label_selector(Some(sel), &path.child("selector")));
    }
    let storage_path = path.child("resources").key("storage");
    match storage_request(pvc) {
        None => errs.push(field::required(&storage_path, "")),
        Some(raw) => match parse_quantity(&raw.0) {
            Err(e) => errs.push(field::invalid_str(&storage_path, &raw.0, &e.to_string())),
            Ok(q) if q.nanos() <= 0 => {
                errs.push(field::invalid_str(&storage_path, &q.to_string(), "must be greater than zero"))
            }
            Ok(_) => {}
        },
    }
    if let Some(sc) = spec.storage_class_name.as_ref().filter(|s| !s.is_empty()) {
        for m in names::is_dns1123_subdomain(sc) {
            errs.push(field::invalid_str(&path.child("storageClassName"), sc, &m));
        }
    }
    if let Some(vm) = &spec.volume_mode {
        if !matches!(vm.as_str(), "Block" | "Filesystem") {
            errs.push(field::not_supported(
                &path.child("volumeMode"),
                &field::json_string(vm),
                &["Block", "Filesystem"],
            ));
        }
    }
    errs
}

pub fn validate_pvc_update(new: &PersistentVolumeClaim, old: &PersistentVolumeClaim) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    errs.extend(validate_pvc(new));
    let mut new_clone = new.spec.clone().unwrap_or_default();
    let mut old_clone = old.spec.clone().unwrap_or_default();
    if s(&old_clone.volume_name).is_empty() {
        old_clone.volume_name = new_clone.volume_name.clone();
    }
    if old_clone.storage_class_name.is_none() && new_clone.storage_class_name.is_some() {
        old_clone.storage_class_name = new_clone.storage_class_name.clone();
    }
    let bound = new.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
    if bound {
        if let Some(req) = new_clone.resources.as_mut().and_then(|r| r.requests.as_mut()) {
            match storage_request(old) {
                Some(q) => {
                    req.insert("storage".to_string(), q);
                }
                None => {
                    req.remove("storage");
                }
            }
        }
        if new_clone.volume_attributes_class_name.is_some() {
            new_clone.volume_attributes_class_name = old_clone.volume_attributes_class_name.clone();
        }
    }
    if new_clone != old_clone {
        let diff = format!(
            "  core.PersistentVolumeClaimSpec{{\n- \t{}\n+ \t{}\n  }}\n",
            serde_json::to_string(&old_clone).unwrap_or_default(),
            serde_json::to_string(&new_clone).unwrap_or_default()
        );
        errs.push(field::forbidden(
            &Path::new("spec"),
            &format!("spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{diff}"),
        ));
    }
    let size = |p: &PersistentVolumeClaim| storage_request(p).and_then(|q| parse_quantity(&q.0).ok());
    let capacity = old
        .status
        .as_ref()
        .and_then(|s| s.capacity.as_ref())
        .and_then(|c| c.get("storage"))
        .and_then(|q| parse_quantity(&q.0).ok());
    if let (Some(n), Some(o)) = (size(new), size(old)) {
        if n < o && capacity.is_none_or(|c| n <= c) {
            errs.push(field::forbidden(
                &Path::new("spec").children(&["resources", "requests", "storage"]),
                "field can not be less than status.capacity",
            ));
        }
    }
    let (nm, om) =
        (new.spec.as_ref().and_then(|s| s.volume_mode.clone()), old.spec.as_ref().and_then(|s| s.volume_mode.clone()));
    if nm != om {
        errs.push(field::invalid(
            &Path::new("volumeMode"),
            &field::json_opt_string(nm.as_deref()),
            "field is immutable",
        ));
    }
    errs
}

pub fn validate_pv(pv: &PersistentVolume) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&pv.metadata, false, NameRule::Subdomain);
    let spec = pv.spec.clone().unwrap_or_default();
    let path = Path::new("spec");
    errs.extend(validate_access_modes(spec.access_modes.as_deref().unwrap_or(&[]), &path.child("accessModes")));
    if let Some(p) = &spec.persistent_volume_reclaim_policy {
        if !matches!(p.as_str(), "Delete" | "Recycle" | "Retain") {
            errs.push(field::not_supported(
                &path.child("persistentVolumeReclaimPolicy"),
                &field::json_string(p),
                &["Delete", "Recycle", "Retain"],
            ));
        }
    }
    if let Some(vm) = &spec.volume_mode {
        if !matches!(vm.as_str(), "Block" | "Filesystem") {
            errs.push(field::not_supported(
                &path.child("volumeMode"),
                &field::json_string(vm),
                &["Block", "Filesystem"],
            ));
        }
    }
    errs.extend(pod::validate_resource_list_values(spec.capacity.as_ref(), &path.child("capacity")));
    errs
}

// ---------------------------------------------------------------------------------------- Endpoints

pub fn validate_endpoints(ep: &Endpoints) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&ep.metadata, true, NameRule::Subdomain);
    for (i, ss) in ep.subsets.iter().flatten().enumerate() {
        let idx = Path::new("subsets").index(i);
        let addresses = ss.addresses.as_deref().unwrap_or(&[]);
        let not_ready = ss.not_ready_addresses.as_deref().unwrap_or(&[]);
        if addresses.is_empty() && not_ready.is_empty() {
            errs.push(field::required(&idx, "must specify `addresses` or `notReadyAddresses`"));
        }
        for (name, list) in [("addresses", addresses), ("notReadyAddresses", not_ready)] {
            for (j, a) in list.iter().enumerate() {
                let ap = idx.child(name).index(j);
                errs.extend(service::validate_ip(&a.ip, &ap.child("ip")));
                if let Some(h) = a.hostname.as_ref().filter(|h| !h.is_empty()) {
                    for m in names::is_dns1123_label(h) {
                        errs.push(field::invalid_str(&ap.child("hostname"), h, &m));
                    }
                }
                errs.extend(service::validate_non_special_ip(&a.ip, &ap.child("ip")));
            }
        }
        let ports = ss.ports.as_deref().unwrap_or(&[]);
        for (j, p) in ports.iter().enumerate() {
            let pp = idx.child("ports").index(j);
            let name = s(&p.name);
            if ports.len() > 1 && name.is_empty() {
                errs.push(field::required(&pp.child("name"), ""));
            } else if !name.is_empty() {
                for m in names::is_dns1123_label(name) {
                    errs.push(field::invalid_str(&pp.child("name"), name, &m));
                }
            }
            for m in names::is_valid_port_num(p.port as i64) {
                errs.push(field::invalid_int(&pp.child("port"), p.port as i64, &m));
            }
            errs.extend(pod::validate_protocol(p.protocol.as_deref(), &pp.child("protocol")));
        }
    }
    errs
}

// ---------------------------------------------------------------------------------------- Quota & limits

pub fn validate_resource_quota(rq: &ResourceQuota) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&rq.metadata, true, NameRule::Subdomain);
    let hard_path = Path::new("spec").child("hard");
    for (k, raw) in rq.spec.iter().flat_map(|s| s.hard.iter().flatten()) {
        let p = hard_path.key(k);
        errs.extend(pod::validate_resource_name(k, &p));
        let mut one = BTreeMap::new();
        one.insert(k.clone(), raw.clone());
        errs.extend(pod::validate_resource_list_values(Some(&one), &hard_path));
    }
    errs
}

pub fn validate_limit_range(lr: &LimitRange) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&lr.metadata, true, NameRule::Subdomain);
    let path = Path::new("spec").child("limits");
    let mut types = BTreeSet::new();
    for (i, item) in lr.spec.iter().flat_map(|s| s.limits.iter()).enumerate() {
        let idx = path.index(i);
        if !types.insert(item.type_.clone()) {
            errs.push(field::duplicate(&idx.child("type"), &field::json_string(&item.type_)));
        }
        for (name, list) in [
            ("max", &item.max),
            ("min", &item.min),
            ("default", &item.default),
            ("defaultRequest", &item.default_request),
            ("maxLimitRequestRatio", &item.max_limit_request_ratio),
        ] {
            errs.extend(pod::validate_resource_list_values(list.as_ref(), &idx.child(name)));
        }
        if item.type_ == "Pod" {
            if item.default.as_ref().is_some_and(|d| !d.is_empty()) {
                errs.push(field::forbidden(&idx.child("default"), "may not be specified when `type` is 'Pod'"));
            }
            if item.default_request.as_ref().is_some_and(|d| !d.is_empty()) {
                errs.push(field::forbidden(&idx.child("defaultRequest"), "may not be specified when `type` is 'Pod'"));
            }
        }
        let parse = |l: &Option<BTreeMap<String, ApiQuantity>>, k: &str| {
            l.as_ref().and_then(|m| m.get(k)).and_then(|q| parse_quantity(&q.0).ok())
        };
        let keys: BTreeSet<&String> =
            [&item.min, &item.max].into_iter().flat_map(|l| l.iter().flat_map(|m| m.keys())).collect();
        for k in keys {
            if let (Some(min), Some(max)) = (parse(&item.min, k), parse(&item.max, k)) {
                if min > max {
                    errs.push(field::invalid(
                        &idx.child("min").key(k),
                        &field::json_string(&min.to_string()),
                        &format!("min value {min} is greater than max value {max}"),
                    ));
                }
            }
        }
    }
    errs
}
