//! Pods and pod templates (`pkg/apis/core/validation`): `ValidatePodSpec` with its containers, init
//! containers, volumes, ports, environment, probes, lifecycle handlers, resources, security contexts and
//! scheduling fields; `ValidatePodTemplateSpec` for the templates inside workloads; `ValidatePodCreate` and
//! `ValidatePodUpdate` (a pod's spec is immutable except container images, activeDeadlineSeconds,
//! tolerations additions and scheduling-gate removal).
//!
//! Pod validation options are the v1.34 defaults for new objects: relaxed environment variable names and
//! zero-second sleep actions allowed, host networking ports defaulted only on pods.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, EnvFromSource, EnvVar, LifecycleHandler, Pod, PodSpec, PodTemplateSpec, Probe,
    ResourceRequirements, Toleration, Volume,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule};
use super::quantity::{parse_quantity, Quantity};
use crate::api::Cause;

const FILE_MODE_ERR: &str = "must be a number between 0 and 0777 (octal), both inclusive";
const NOT_NEGATIVE: &str = "must be greater than or equal to 0";
const MAX_INT32: i64 = i32::MAX as i64;

/// The subset of `PodValidationOptions` that changes results for kubeglass.
#[derive(Debug, Clone, Copy, Default)]
pub struct PodOptions {
    /// The spec belongs to a Pod (not a template): host-network ports must already match.
    pub resource_is_pod: bool,
}

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

fn invalid_quantity(path: &Path, raw: &str, err: impl std::fmt::Display) -> Cause {
    field::invalid_str(path, raw, &err.to_string())
}

// ----------------------------------------------------------------------------------------------------
// Paths

fn has_backsteps(target: &str) -> bool {
    target.replace('\\', "/").split('/').any(|p| p == "..")
}

fn validate_path_no_backsteps(target: &str, path: &Path) -> Vec<Cause> {
    if has_backsteps(target) {
        vec![field::invalid_str(path, target, "must not contain '..'")]
    } else {
        Vec::new()
    }
}

fn validate_local_descending_path(target: &str, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if target.starts_with('/') {
        errs.push(field::invalid_str(path, target, "must be a relative path"));
    }
    errs.extend(validate_path_no_backsteps(target, path));
    errs
}

fn validate_local_non_reserved_path(target: &str, path: &Path) -> Vec<Cause> {
    let mut errs = validate_local_descending_path(target, path);
    if target.starts_with("..") && !target.starts_with("../") {
        errs.push(field::invalid_str(path, target, "must not start with '..'"));
    }
    errs
}

fn validate_mode(mode: Option<i32>, path: &Path) -> Vec<Cause> {
    match mode {
        Some(m) if !(0..=0o777).contains(&m) => {
            vec![field::invalid_int(path, m as i64, FILE_MODE_ERR)]
        }
        _ => Vec::new(),
    }
}

fn validate_key_to_path(key: &str, target: &str, mode: Option<i32>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if key.is_empty() {
        errs.push(field::required(&path.child("key"), ""));
    }
    if target.is_empty() {
        errs.push(field::required(&path.child("path"), ""));
    }
    errs.extend(validate_local_non_reserved_path(target, &path.child("path")));
    errs.extend(validate_mode(mode, &path.child("mode")));
    errs
}

// ----------------------------------------------------------------------------------------------------
// Volumes

/// The volumes a pod declares, by name, as container validation needs them.
type VolumeMap<'a> = BTreeMap<String, &'a Volume>;

fn validate_downward_api_file(file: &k8s_openapi::api::core::v1::DownwardAPIVolumeFile, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if file.path.is_empty() {
        errs.push(field::required(&path.child("path"), ""));
    }
    errs.extend(validate_local_non_reserved_path(&file.path, &path.child("path")));
    match (&file.field_ref, &file.resource_field_ref) {
        (Some(_), Some(_)) => errs.push(field::invalid_str(
            path,
            "resource",
            "fieldRef and resourceFieldRef can not be specified simultaneously",
        )),
        (None, None) => errs.push(field::required(path, "one of fieldRef and resourceFieldRef is required")),
        _ => {}
    }
    errs.extend(validate_mode(file.mode, &path.child("mode")));
    errs
}

fn validate_projected(p: &k8s_openapi::api::core::v1::ProjectedVolumeSource, path: &Path) -> Vec<Cause> {
    let mut errs = validate_mode(p.default_mode, &path.child("defaultMode"));
    let mut all_paths = BTreeSet::new();
    let mut seen = |errs: &mut Vec<Cause>, target: &str, rendered: &str| {
        if !target.is_empty() && !all_paths.insert(target.to_string()) {
            errs.push(field::invalid_str(path, rendered, "conflicting duplicate paths"));
        }
    };
    for (i, src) in p.sources.iter().flatten().enumerate() {
        let src_path = path.child("sources").index(i);
        let mut count = 0;
        if let Some(sec) = &src.secret {
            count += 1;
            let pp = src_path.child("secret");
            if sec.name.is_empty() {
                errs.push(field::required(&pp.child("name"), ""));
            }
            for (j, kp) in sec.items.iter().flatten().enumerate() {
                errs.extend(validate_key_to_path(&kp.key, &kp.path, kp.mode, &pp.child("items").index(j)));
                seen(&mut errs, &kp.path, &sec.name);
            }
        }
        if let Some(cm) = &src.config_map {
            count += 1;
            let pp = src_path.child("configMap");
            if cm.name.is_empty() {
                errs.push(field::required(&pp.child("name"), ""));
            }
            for (j, kp) in cm.items.iter().flatten().enumerate() {
                errs.extend(validate_key_to_path(&kp.key, &kp.path, kp.mode, &pp.child("items").index(j)));
                seen(&mut errs, &kp.path, &cm.name);
            }
        }
        if let Some(d) = &src.downward_api {
            count += 1;
            let pp = src_path.child("downwardAPI");
            for f in d.items.iter().flatten() {
                errs.extend(validate_downward_api_file(f, &pp));
                seen(&mut errs, &f.path, &f.path);
            }
        }
        if let Some(t) = &src.service_account_token {
            count += 1;
            let pp = src_path.child("serviceAccountToken");
            let exp = t.expiration_seconds.unwrap_or(0);
            if exp < 600 {
                errs.push(field::invalid_int(
                    &pp.child("expirationSeconds"),
                    exp,
                    "may not specify a duration less than 10 minutes",
                ));
            }
            if exp > 1 << 32 {
                errs.push(field::invalid_int(
                    &pp.child("expirationSeconds"),
                    exp,
                    "may not specify a duration larger than 2^32 seconds",
                ));
            }
            if t.path.is_empty() {
                errs.push(field::required(&path.child("path"), ""));
            } else {
                errs.extend(validate_local_non_reserved_path(&t.path, &path.child("path")));
            }
        }
        if src.cluster_trust_bundle.is_some() {
            count += 1;
        }
        if src.pod_certificate.is_some() {
            count += 1;
        }
        if count > 1 {
            errs.push(field::forbidden(&src_path, "may not specify more than 1 volume type per source"));
        }
    }
    errs
}

fn validate_volume_source(v: &Volume, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut count = 0;
    if let Some(e) = &v.empty_dir {
        count += 1;
        if let Some(limit) = &e.size_limit {
            match parse_quantity(&limit.0) {
                Ok(q) if q.is_negative() => errs.push(field::forbidden(
                    &path.child("emptyDir").child("sizeLimit"),
                    "SizeLimit field must be a valid resource quantity",
                )),
                Ok(_) => {}
                Err(e) => errs.push(invalid_quantity(&path.child("emptyDir").child("sizeLimit"), &limit.0, e)),
            }
        }
    }
    // Every other source: counted in Kubernetes' order, the first one validated, later ones forbidden.
    let mut source = |present: bool, name: &str, check: &dyn Fn() -> Vec<Cause>| {
        if !present {
            return;
        }
        if count > 0 {
            errs.push(field::forbidden(&path.child(name), "may not specify more than 1 volume type"));
        } else {
            count += 1;
            errs.extend(check());
        }
    };
    source(v.host_path.is_some(), "hostPath", &|| {
        let mut errs = Vec::new();
        let Some(hp) = &v.host_path else {
            return errs;
        };
        let p = path.child("hostPath");
        if hp.path.is_empty() {
            errs.push(field::required(&p.child("path"), ""));
            return errs;
        }
        errs.extend(validate_path_no_backsteps(&hp.path, &p.child("path")));
        if let Some(t) = &hp.type_ {
            const TYPES: &[&str] =
                &["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
            if !TYPES.contains(&t.as_str()) {
                errs.push(field::not_supported(&p.child("type"), &field::json_string(t), TYPES));
            }
        }
        errs
    });
    source(v.git_repo.is_some(), "gitRepo", &|| {
        let mut errs = Vec::new();
        if let Some(g) = &v.git_repo {
            let p = path.child("gitRepo");
            if g.repository.is_empty() {
                errs.push(field::required(&p.child("repository"), ""));
            }
            errs.extend(validate_local_descending_path(s(&g.directory), &p.child("directory")));
        }
        errs
    });
    source(v.gce_persistent_disk.is_some(), "gcePersistentDisk", &Vec::new);
    source(v.aws_elastic_block_store.is_some(), "awsElasticBlockStore", &Vec::new);
    source(v.secret.is_some(), "secret", &|| {
        let mut errs = Vec::new();
        if let Some(sec) = &v.secret {
            let p = path.child("secret");
            if s(&sec.secret_name).is_empty() {
                errs.push(field::required(&p.child("secretName"), ""));
            }
            errs.extend(validate_mode(sec.default_mode, &p.child("defaultMode")));
            for (i, kp) in sec.items.iter().flatten().enumerate() {
                errs.extend(validate_key_to_path(&kp.key, &kp.path, kp.mode, &p.child("items").index(i)));
            }
        }
        errs
    });
    source(v.nfs.is_some(), "nfs", &|| {
        let mut errs = Vec::new();
        if let Some(n) = &v.nfs {
            let p = path.child("nfs");
            if n.server.is_empty() {
                errs.push(field::required(&p.child("server"), ""));
            }
            if n.path.is_empty() {
                errs.push(field::required(&p.child("path"), ""));
            }
            if !n.path.starts_with('/') {
                errs.push(field::invalid_str(&p.child("path"), &n.path, "must be an absolute path"));
            }
        }
        errs
    });
    source(v.iscsi.is_some(), "iscsi", &Vec::new);
    source(v.glusterfs.is_some(), "glusterfs", &Vec::new);
    source(v.flocker.is_some(), "flocker", &Vec::new);
    source(v.persistent_volume_claim.is_some(), "persistentVolumeClaim", &|| match &v.persistent_volume_claim {
        Some(c) if c.claim_name.is_empty() => {
            vec![field::required(&path.child("persistentVolumeClaim").child("claimName"), "")]
        }
        _ => Vec::new(),
    });
    source(v.rbd.is_some(), "rbd", &Vec::new);
    source(v.cinder.is_some(), "cinder", &Vec::new);
    source(v.cephfs.is_some(), "cephFS", &Vec::new);
    source(v.quobyte.is_some(), "quobyte", &Vec::new);
    // Kubernetes spells this path "downwarAPI" when it is a second source.
    source(v.downward_api.is_some(), "downwarAPI", &|| {
        let mut errs = Vec::new();
        if let Some(d) = &v.downward_api {
            let p = path.child("downwardAPI");
            errs.extend(validate_mode(d.default_mode, &p.child("defaultMode")));
            for f in d.items.iter().flatten() {
                errs.extend(validate_downward_api_file(f, &p));
            }
        }
        errs
    });
    source(v.fc.is_some(), "fc", &Vec::new);
    source(v.flex_volume.is_some(), "flexVolume", &Vec::new);
    source(v.config_map.is_some(), "configMap", &|| {
        let mut errs = Vec::new();
        if let Some(cm) = &v.config_map {
            let p = path.child("configMap");
            if cm.name.is_empty() {
                errs.push(field::required(&p.child("name"), ""));
            }
            errs.extend(validate_mode(cm.default_mode, &p.child("defaultMode")));
            for (i, kp) in cm.items.iter().flatten().enumerate() {
                errs.extend(validate_key_to_path(&kp.key, &kp.path, kp.mode, &p.child("items").index(i)));
            }
        }
        errs
    });
    source(v.azure_file.is_some(), "azureFile", &Vec::new);
    source(v.vsphere_volume.is_some(), "vsphereVolume", &Vec::new);
    source(v.photon_persistent_disk.is_some(), "photonPersistentDisk", &Vec::new);
    source(v.portworx_volume.is_some(), "portworxVolume", &Vec::new);
    source(v.azure_disk.is_some(), "azureDisk", &Vec::new);
    source(v.storageos.is_some(), "storageos", &Vec::new);
    source(v.projected.is_some(), "projected", &|| match &v.projected {
        Some(p) => validate_projected(p, &path.child("projected")),
        None => Vec::new(),
    });
    source(v.scale_io.is_some(), "scaleIO", &Vec::new);
    source(v.csi.is_some(), "csi", &Vec::new);
    source(v.ephemeral.is_some(), "ephemeral", &Vec::new);
    source(v.image.is_some(), "image", &Vec::new);
    if count == 0 {
        errs.push(field::required(path, "must specify a volume type"));
    }
    errs
}

fn validate_volumes<'a>(volumes: &'a [Volume], path: &Path) -> (VolumeMap<'a>, Vec<Cause>) {
    let mut errs = Vec::new();
    let mut vols = VolumeMap::new();
    for (i, v) in volumes.iter().enumerate() {
        let idx = path.index(i);
        let name_path = idx.child("name");
        let mut el = validate_volume_source(v, &idx);
        if v.name.is_empty() {
            el.push(field::required(&name_path, ""));
        } else {
            for m in names::is_dns1123_label(&v.name) {
                el.push(field::invalid_str(&name_path, &v.name, &m));
            }
        }
        if vols.contains_key(&v.name) {
            el.push(field::duplicate(&name_path, &field::quote(&v.name)));
        }
        if el.is_empty() {
            vols.insert(v.name.clone(), v);
        } else {
            errs.extend(el);
        }
    }
    (vols, errs)
}

// ----------------------------------------------------------------------------------------------------
// Container parts

fn validate_container_ports(ports: &[ContainerPort], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut names_seen = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let idx = path.index(i);
        let name = s(&p.name);
        if !name.is_empty() {
            let msgs = names::is_valid_port_name(name);
            if !msgs.is_empty() {
                for m in msgs {
                    errs.push(field::invalid_str(&idx.child("name"), name, &m));
                }
            } else if !names_seen.insert(name.to_string()) {
                errs.push(field::duplicate(&idx.child("name"), &field::quote(name)));
            }
        }
        if p.container_port == 0 {
            errs.push(field::required(&idx.child("containerPort"), ""));
        } else {
            for m in names::is_valid_port_num(p.container_port as i64) {
                errs.push(field::invalid_int(&idx.child("containerPort"), p.container_port as i64, &m));
            }
        }
        if let Some(hp) = p.host_port.filter(|hp| *hp != 0) {
            for m in names::is_valid_port_num(hp as i64) {
                errs.push(field::invalid_int(&idx.child("hostPort"), hp as i64, &m));
            }
        }
        errs.extend(validate_protocol(p.protocol.as_deref(), &idx.child("protocol")));
    }
    errs
}

/// Protocol of a container, service or endpoint port: required, one of SCTP/TCP/UDP.
pub fn validate_protocol(protocol: Option<&str>, path: &Path) -> Vec<Cause> {
    match protocol.unwrap_or("") {
        "" => vec![field::required(path, "")],
        "TCP" | "UDP" | "SCTP" => Vec::new(),
        other => vec![field::not_supported(path, &field::json_string(other), &["SCTP", "TCP", "UDP"])],
    }
}

const ENV_FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

const CONVERTIBLE_FIELD_PATHS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// `metadata.labels['app']` split into (`metadata.labels`, `app`).
fn split_subscript(p: &str) -> Option<(&str, &str)> {
    let open = p.find("['")?;
    let inner = p.get(open + 2..)?.strip_suffix("']")?;
    Some((p.get(..open)?, inner))
}

fn validate_field_selector(api_version: &str, field_path: &str, expressions: &[&str], path: &Path) -> Vec<Cause> {
    if api_version.is_empty() {
        return vec![field::required(&path.child("apiVersion"), "")];
    }
    if field_path.is_empty() {
        return vec![field::required(&path.child("fieldPath"), "")];
    }
    let conversion_error = if api_version != "v1" {
        Some(format!("unsupported pod version: {api_version}"))
    } else if let Some((base, _)) = split_subscript(field_path) {
        (!matches!(base, "metadata.annotations" | "metadata.labels"))
            .then(|| format!("field label does not support subscript: {field_path}"))
    } else if !CONVERTIBLE_FIELD_PATHS.contains(&field_path) && field_path != "spec.host" {
        Some(format!("field label not supported: {field_path}"))
    } else {
        None
    };
    if let Some(e) = conversion_error {
        return vec![field::invalid_str(
            &path.child("fieldPath"),
            field_path,
            &format!("error converting fieldPath: {e}"),
        )];
    }
    let internal = if field_path == "spec.host" { "spec.nodeName" } else { field_path };
    if let Some((base, key)) = split_subscript(internal) {
        let key = if base == "metadata.annotations" { key.to_lowercase() } else { key.to_string() };
        return names::is_qualified_name(&key).iter().map(|m| field::invalid_str(path, &key, m)).collect();
    }
    if !expressions.contains(&internal) {
        let mut sorted = expressions.to_vec();
        sorted.sort_unstable();
        return vec![field::not_supported(&path.child("fieldPath"), &field::quote(internal), &sorted)];
    }
    Vec::new()
}

fn validate_env(env: &[EnvVar], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for (i, ev) in env.iter().enumerate() {
        let idx = path.index(i);
        if ev.name.is_empty() {
            errs.push(field::required(&idx.child("name"), ""));
        } else {
            for m in names::is_relaxed_env_var_name(&ev.name) {
                errs.push(field::invalid_str(&idx.child("name"), &ev.name, &m));
            }
        }
        let Some(from) = &ev.value_from else {
            continue;
        };
        let vp = idx.child("valueFrom");
        let mut count = 0;
        if let Some(f) = &from.field_ref {
            count += 1;
            errs.extend(validate_field_selector(
                s(&f.api_version),
                &f.field_path,
                ENV_FIELD_PATHS,
                &vp.child("fieldRef"),
            ));
        }
        if let Some(r) = &from.resource_field_ref {
            count += 1;
            let rp = vp.child("resourceFieldRef");
            const RESOURCES: &[&str] = &[
                "limits.cpu",
                "limits.ephemeral-storage",
                "limits.memory",
                "requests.cpu",
                "requests.ephemeral-storage",
                "requests.memory",
            ];
            if r.resource.is_empty() {
                errs.push(field::required(&rp.child("resource"), ""));
            } else if !RESOURCES.contains(&r.resource.as_str())
                && !r.resource.starts_with("requests.hugepages-")
                && !r.resource.starts_with("limits.hugepages-")
            {
                errs.push(field::not_supported(&rp.child("resource"), &field::quote(&r.resource), RESOURCES));
            }
        }
        let mut key_selector = |name: &str, key: &str, p: Path| {
            for m in names::is_dns1123_subdomain(name) {
                errs.push(field::invalid_str(&p.child("name"), name, &m));
            }
            if key.is_empty() {
                errs.push(field::required(&p.child("key"), ""));
            } else {
                for m in names::is_config_map_key(key) {
                    errs.push(field::invalid_str(&p.child("key"), key, &m));
                }
            }
        };
        if let Some(c) = &from.config_map_key_ref {
            count += 1;
            key_selector(&c.name, &c.key, vp.child("configMapKeyRef"));
        }
        if let Some(c) = &from.secret_key_ref {
            count += 1;
            key_selector(&c.name, &c.key, vp.child("secretKeyRef"));
        }
        if count == 0 {
            errs.push(field::invalid_str(
                &vp,
                "",
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            ));
        } else if !s(&ev.value).is_empty() {
            errs.push(field::invalid_str(&vp, "", "may not be specified when `value` is not empty"));
        } else if count > 1 {
            errs.push(field::invalid_str(&vp, "", "may not have more than one field specified at a time"));
        }
    }
    errs
}

fn validate_env_from(env_from: &[EnvFromSource], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for (i, ev) in env_from.iter().enumerate() {
        let idx = path.index(i);
        let prefix = s(&ev.prefix);
        if !prefix.is_empty() {
            for m in names::is_relaxed_env_var_name(prefix) {
                errs.push(field::invalid_str(&idx.child("prefix"), prefix, &m));
            }
        }
        let mut count = 0;
        let mut source = |name: &str, p: Path| {
            if name.is_empty() {
                errs.push(field::required(&p.child("name"), ""));
            } else {
                for m in names::check_name(NameRule::Subdomain, name, true) {
                    errs.push(field::invalid_str(&p.child("name"), name, &m));
                }
            }
        };
        if let Some(c) = &ev.config_map_ref {
            count += 1;
            source(&c.name, idx.child("configMapRef"));
        }
        if let Some(c) = &ev.secret_ref {
            count += 1;
            source(&c.name, idx.child("secretRef"));
        }
        if count == 0 {
            errs.push(field::invalid_str(path, "", "must specify one of: `configMapRef` or `secretRef`"));
        } else if count > 1 {
            errs.push(field::invalid_str(path, "", "may not have more than one field specified at a time"));
        }
    }
    errs
}

fn validate_volume_mounts(ctr: &Container, vols: &VolumeMap<'_>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let devices: BTreeMap<&str, &str> =
        ctr.volume_devices.iter().flatten().map(|d| (d.name.as_str(), d.device_path.as_str())).collect();
    let mut mount_points = BTreeSet::new();
    let privileged = ctr.security_context.as_ref().and_then(|sc| sc.privileged).unwrap_or(false);
    for (i, m) in ctr.volume_mounts.iter().flatten().enumerate() {
        let idx = path.index(i);
        if m.name.is_empty() {
            errs.push(field::required(&idx.child("name"), ""));
        }
        if !vols.contains_key(&m.name) {
            errs.push(field::not_found(&idx.child("name"), &field::quote(&m.name)));
        }
        if m.mount_path.is_empty() {
            errs.push(field::required(&idx.child("mountPath"), ""));
        }
        if !mount_points.insert(m.mount_path.clone()) {
            errs.push(field::invalid_str(&idx.child("mountPath"), &m.mount_path, "must be unique"));
        }
        if devices.contains_key(m.name.as_str()) {
            errs.push(field::invalid_str(&idx.child("name"), &m.name, "must not already exist in volumeDevices"));
        }
        if devices.values().any(|p| *p == m.mount_path) {
            errs.push(field::invalid_str(
                &idx.child("mountPath"),
                &m.mount_path,
                "must not already exist as a path in volumeDevices",
            ));
        }
        let sub_path = s(&m.sub_path);
        let sub_path_expr = s(&m.sub_path_expr);
        if vols.get(&m.name).is_some_and(|v| v.image.is_some()) {
            if !sub_path.is_empty() {
                errs.push(field::invalid_str(&idx.child("subPath"), sub_path, "not allowed in image volume sources"));
            }
            if !sub_path_expr.is_empty() {
                errs.push(field::invalid_str(
                    &idx.child("subPathExpr"),
                    sub_path_expr,
                    "not allowed in image volume sources",
                ));
            }
        }
        if !sub_path.is_empty() {
            errs.extend(validate_local_descending_path(sub_path, &path.child("subPath")));
        }
        if !sub_path_expr.is_empty() {
            if !sub_path.is_empty() {
                errs.push(field::invalid_str(
                    &idx.child("subPathExpr"),
                    sub_path_expr,
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            errs.extend(validate_local_descending_path(sub_path_expr, &path.child("subPathExpr")));
        }
        if let Some(mp) = &m.mount_propagation {
            let pp = path.child("mountPropagation");
            const MODES: &[&str] = &["Bidirectional", "HostToContainer", "None"];
            if !MODES.contains(&mp.as_str()) {
                errs.push(field::not_supported(&pp, &field::json_string(mp), MODES));
            }
            if mp == "Bidirectional" && !privileged {
                errs.push(field::forbidden(
                    &pp,
                    "Bidirectional mount propagation is available only to privileged containers",
                ));
            }
        }
        if let Some(rro) = &m.recursive_read_only {
            let rp = path.child("recursiveReadOnly");
            match rro.as_str() {
                "Disabled" => {}
                "Enabled" | "IfPossible" => {
                    if m.read_only != Some(true) {
                        errs.push(field::forbidden(&rp, "may only be specified when readOnly is true"));
                    }
                    if m.mount_propagation.as_deref().is_some_and(|p| p != "None") {
                        errs.push(field::forbidden(
                            &rp,
                            "may only be specified when mountPropagation is None or not specified",
                        ));
                    }
                }
                other => errs.push(field::not_supported(
                    &rp,
                    &field::json_string(other),
                    &["Disabled", "Enabled", "IfPossible"],
                )),
            }
        }
    }
    errs
}

fn validate_volume_devices(ctr: &Container, vols: &VolumeMap<'_>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mounts: BTreeMap<&str, &str> =
        ctr.volume_mounts.iter().flatten().map(|m| (m.name.as_str(), m.mount_path.as_str())).collect();
    let mut paths = BTreeSet::new();
    let mut dev_names = BTreeSet::new();
    for (i, d) in ctr.volume_devices.iter().flatten().enumerate() {
        let idx = path.index(i);
        let matched = vols.get(&d.name);
        if d.name.is_empty() {
            errs.push(field::required(&idx.child("name"), ""));
        }
        if dev_names.contains(&d.name) {
            errs.push(field::invalid_str(&idx.child("name"), &d.name, "must be unique"));
        }
        match matched {
            Some(v) if v.persistent_volume_claim.is_none() && v.ephemeral.is_none() => errs.push(field::invalid_str(
                &idx.child("name"),
                &d.name,
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
            )),
            Some(_) => {}
            None => errs.push(field::not_found(&idx.child("name"), &field::quote(&d.name))),
        }
        if d.device_path.is_empty() {
            errs.push(field::required(&idx.child("devicePath"), ""));
        }
        if paths.contains(&d.device_path) {
            errs.push(field::invalid_str(&idx.child("devicePath"), &d.device_path, "must be unique"));
        }
        if !d.device_path.is_empty() && has_backsteps(&d.device_path) {
            errs.push(field::invalid_str(&idx.child("devicePath"), &d.device_path, "can not contain backsteps ('..')"));
        } else {
            paths.insert(d.device_path.clone());
        }
        if mounts.contains_key(d.name.as_str()) {
            errs.push(field::invalid_str(&idx.child("name"), &d.name, "must not already exist in volumeMounts"));
        }
        if mounts.values().any(|p| *p == d.device_path) {
            errs.push(field::invalid_str(
                &idx.child("devicePath"),
                &d.device_path,
                "must not already exist as a path in volumeMounts",
            ));
        }
        if !d.name.is_empty() {
            dev_names.insert(d.name.clone());
        }
    }
    errs
}

// ----------------------------------------------------------------------------------------------------
// Resources

const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
    "storage",
    "requests.storage",
];

const INTEGER_RESOURCES: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// Unprefixed, or in a `kubernetes.io/` domain.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// A domain-prefixed resource outside `kubernetes.io` (e.g. `nvidia.com/gpu`).
pub fn is_extended_resource(name: &str) -> bool {
    !is_native_resource(name)
        && !name.starts_with("requests.")
        && names::is_qualified_name(&format!("requests.{name}")).is_empty()
}

fn is_overcommit_allowed(name: &str) -> bool {
    is_native_resource(name) && !is_hugepages(name)
}

fn is_integer_resource(name: &str) -> bool {
    INTEGER_RESOURCES.contains(&name) || is_extended_resource(name)
}

/// `validateResourceName`: qualified, and standard when unprefixed.
pub fn validate_resource_name(name: &str, path: &Path) -> Vec<Cause> {
    let mut errs: Vec<Cause> =
        names::is_qualified_name(name).iter().map(|m| field::invalid(path, &field::json_string(name), m)).collect();
    if !errs.is_empty() {
        return errs;
    }
    let standard = STANDARD_RESOURCES.contains(&name)
        || is_hugepages(name)
        || name.starts_with("requests.hugepages-")
        || name.starts_with("limits.hugepages-");
    if !name.contains('/') && !standard {
        errs.push(field::invalid(
            path,
            &field::json_string(name),
            "must be a standard resource type or fully qualified",
        ));
    }
    errs
}

fn validate_container_resource_name(name: &str, path: &Path) -> Vec<Cause> {
    let mut errs = validate_resource_name(name, path);
    if !name.contains('/') {
        if !matches!(name, "cpu" | "memory" | "ephemeral-storage") && !is_hugepages(name) {
            errs.push(field::invalid(path, &field::json_string(name), "must be a standard resource for containers"));
        }
    } else if !is_native_resource(name) && !is_extended_resource(name) {
        errs.push(field::invalid(path, &field::json_string(name), "doesn't follow extended resource name standard"));
    }
    errs
}

/// `ValidateResourceQuantityValue`: non-negative, and whole for integer resources. Unparsable quantities
/// (which Kubernetes rejects while decoding) are reported here with the decoder's message.
fn check_quantity(name: &str, raw: &ApiQuantity, path: &Path, errs: &mut Vec<Cause>) -> Option<Quantity> {
    match parse_quantity(&raw.0) {
        Err(e) => {
            errs.push(invalid_quantity(path, &raw.0, e));
            None
        }
        Ok(q) => {
            if q.is_negative() {
                errs.push(field::invalid_str(path, &q.to_string(), NOT_NEGATIVE));
            }
            if is_integer_resource(name) && q.milli() % 1000 != 0 {
                errs.push(field::invalid(path, &field::json_string(&q.to_string()), "must be an integer"));
            }
            Some(q)
        }
    }
}

/// Quantity checks of a resource list (quota, limit ranges, node status): non-negative, whole for
/// integer resources, parsable.
pub fn validate_resource_list_values(list: Option<&BTreeMap<String, ApiQuantity>>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for (name, raw) in list.into_iter().flatten() {
        check_quantity(name, raw, &path.key(name), &mut errs);
    }
    errs
}

fn validate_container_resources(r: &ResourceRequirements, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let lim_path = path.child("limits");
    let req_path = path.child("requests");
    let limits = r.limits.as_ref();
    let mut parsed_limits = BTreeMap::new();
    let (mut lim_cpu_mem, mut req_cpu_mem, mut lim_huge, mut req_huge) = (false, false, false, false);
    for (name, raw) in limits.into_iter().flatten() {
        let p = lim_path.key(name);
        errs.extend(validate_container_resource_name(name, &p));
        if let Some(q) = check_quantity(name, raw, &p, &mut errs) {
            parsed_limits.insert(name.as_str(), q);
        }
        lim_huge |= is_hugepages(name);
        lim_cpu_mem |= matches!(name.as_str(), "cpu" | "memory");
    }
    for (name, raw) in r.requests.iter().flatten() {
        let p = req_path.key(name);
        errs.extend(validate_container_resource_name(name, &p));
        let q = check_quantity(name, raw, &p, &mut errs);
        if limits.is_some_and(|l| l.contains_key(name)) {
            if let (Some(q), Some(limit)) = (q, parsed_limits.get(name.as_str())) {
                if q != *limit && !is_overcommit_allowed(name) {
                    errs.push(field::invalid_str(
                        &req_path,
                        &q.to_string(),
                        &format!("must be equal to {name} limit of {limit}"),
                    ));
                } else if q > *limit {
                    errs.push(field::invalid_str(
                        &req_path,
                        &q.to_string(),
                        &format!("must be less than or equal to {name} limit of {limit}"),
                    ));
                }
            }
        } else if !is_overcommit_allowed(name) {
            errs.push(field::required(&lim_path, "Limit must be set for non overcommitable resources"));
        }
        req_huge |= is_hugepages(name);
        req_cpu_mem |= matches!(name.as_str(), "cpu" | "memory");
    }
    if !lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge) {
        errs.push(field::forbidden(path, "HugePages require cpu or memory"));
    }
    errs
}

// ----------------------------------------------------------------------------------------------------
// Probes and handlers

fn validate_port_num_or_name(port: &IntOrString, path: &Path) -> Vec<Cause> {
    match port {
        IntOrString::Int(n) => {
            names::is_valid_port_num(*n as i64).iter().map(|m| field::invalid_int(path, *n as i64, m)).collect()
        }
        IntOrString::String(name) => {
            names::is_valid_port_name(name).iter().map(|m| field::invalid_str(path, name, m)).collect()
        }
    }
}

/// The handler fields shared by probes and lifecycle hooks.
struct Handler<'a> {
    exec: Option<&'a k8s_openapi::api::core::v1::ExecAction>,
    http_get: Option<&'a k8s_openapi::api::core::v1::HTTPGetAction>,
    tcp_socket: Option<&'a k8s_openapi::api::core::v1::TCPSocketAction>,
    grpc: Option<&'a k8s_openapi::api::core::v1::GRPCAction>,
    sleep: Option<&'a k8s_openapi::api::core::v1::SleepAction>,
}

fn validate_handler(h: &Handler<'_>, grace: Option<i64>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut count = 0;
    let mut handler = |present: bool, name: &str, check: &dyn Fn(&Path) -> Vec<Cause>| {
        if !present {
            return;
        }
        if count > 0 {
            errs.push(field::forbidden(&path.child(name), "may not specify more than 1 handler type"));
        } else {
            count += 1;
            errs.extend(check(&path.child(name)));
        }
    };
    handler(h.exec.is_some(), "exec", &|p| match h.exec {
        Some(e) if e.command.as_ref().is_none_or(|c| c.is_empty()) => {
            vec![field::required(&p.child("command"), "")]
        }
        _ => Vec::new(),
    });
    handler(h.http_get.is_some(), "httpGet", &|p| {
        let mut errs = Vec::new();
        let Some(g) = h.http_get else {
            return errs;
        };
        if s(&g.path).is_empty() {
            errs.push(field::required(&p.child("path"), ""));
        }
        errs.extend(validate_port_num_or_name(&g.port, &p.child("port")));
        let scheme = s(&g.scheme);
        if !matches!(scheme, "HTTP" | "HTTPS") {
            errs.push(field::not_supported(&p.child("scheme"), &field::json_string(scheme), &["HTTP", "HTTPS"]));
        }
        for header in g.http_headers.iter().flatten() {
            for m in names::is_http_header_name(&header.name) {
                errs.push(field::invalid_str(&p.child("httpHeaders"), &header.name, &m));
            }
        }
        errs
    });
    handler(h.tcp_socket.is_some(), "tcpSocket", &|p| match h.tcp_socket {
        Some(t) => validate_port_num_or_name(&t.port, &p.child("port")),
        None => Vec::new(),
    });
    handler(h.grpc.is_some(), "grpc", &|p| match h.grpc {
        Some(g) => validate_port_num_or_name(&IntOrString::Int(g.port), &p.child("port")),
        None => Vec::new(),
    });
    handler(h.sleep.is_some(), "sleep", &|p| match (h.sleep, grace) {
        (Some(sl), Some(g)) if sl.seconds < 0 || sl.seconds > g => vec![field::invalid_int(
            p,
            sl.seconds,
            &format!("must be non-negative and less than terminationGracePeriodSeconds ({g})"),
        )],
        _ => Vec::new(),
    });
    if count == 0 {
        errs.push(field::required(path, "must specify a handler type"));
    }
    errs
}

fn probe_handler(p: &Probe) -> Handler<'_> {
    Handler {
        exec: p.exec.as_ref(),
        http_get: p.http_get.as_ref(),
        tcp_socket: p.tcp_socket.as_ref(),
        grpc: p.grpc.as_ref(),
        sleep: None,
    }
}

fn lifecycle_handler(h: &LifecycleHandler) -> Handler<'_> {
    Handler {
        exec: h.exec.as_ref(),
        http_get: h.http_get.as_ref(),
        tcp_socket: h.tcp_socket.as_ref(),
        grpc: None,
        sleep: h.sleep.as_ref(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ProbeKind {
    Liveness,
    Readiness,
    Startup,
}

fn validate_probe(probe: Option<&Probe>, kind: ProbeKind, grace: Option<i64>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let Some(p) = probe else {
        return errs;
    };
    errs.extend(validate_handler(&probe_handler(p), grace, path));
    for (name, v) in [
        ("initialDelaySeconds", p.initial_delay_seconds),
        ("timeoutSeconds", p.timeout_seconds),
        ("periodSeconds", p.period_seconds),
        ("successThreshold", p.success_threshold),
        ("failureThreshold", p.failure_threshold),
    ] {
        let v = v.unwrap_or(0) as i64;
        if v < 0 {
            errs.push(field::invalid_int(&path.child(name), v, NOT_NEGATIVE));
        }
    }
    if let Some(t) = p.termination_grace_period_seconds.filter(|t| *t <= 0) {
        errs.push(field::invalid_int(&path.child("terminationGracePeriodSeconds"), t, "must be greater than 0"));
    }
    match kind {
        ProbeKind::Liveness | ProbeKind::Startup => {
            let st = p.success_threshold.unwrap_or(0);
            if st != 1 {
                errs.push(field::invalid_int(&path.child("successThreshold"), st as i64, "must be 1"));
            }
        }
        ProbeKind::Readiness => {
            if let Some(t) = p.termination_grace_period_seconds {
                errs.push(field::invalid_int(
                    &path.child("terminationGracePeriodSeconds"),
                    t,
                    "must not be set for readinessProbes",
                ));
            }
        }
    }
    errs
}

fn validate_lifecycle_and_probes(ctr: &Container, grace: Option<i64>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    if let Some(l) = &ctr.lifecycle {
        let lp = path.child("lifecycle");
        if let Some(h) = &l.post_start {
            errs.extend(validate_handler(&lifecycle_handler(h), grace, &lp.child("postStart")));
        }
        if let Some(h) = &l.pre_stop {
            errs.extend(validate_handler(&lifecycle_handler(h), grace, &lp.child("preStop")));
        }
    }
    errs.extend(validate_probe(ctr.liveness_probe.as_ref(), ProbeKind::Liveness, grace, &path.child("livenessProbe")));
    errs.extend(validate_probe(
        ctr.readiness_probe.as_ref(),
        ProbeKind::Readiness,
        grace,
        &path.child("readinessProbe"),
    ));
    errs.extend(validate_probe(ctr.startup_probe.as_ref(), ProbeKind::Startup, grace, &path.child("startupProbe")));
    errs
}

// ----------------------------------------------------------------------------------------------------
// Containers

fn validate_id_range(v: Option<i64>, path: &Path, errs: &mut Vec<Cause>) {
    if let Some(id) = v.filter(|id| !(0..=MAX_INT32).contains(id)) {
        errs.push(field::invalid_int(path, id, &names::inclusive_range_error(0, MAX_INT32)));
    }
}

fn validate_container_common(ctr: &Container, vols: &VolumeMap<'_>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let name_path = path.child("name");
    if ctr.name.is_empty() {
        errs.push(field::required(&name_path, ""));
    } else {
        for m in names::is_dns1123_label(&ctr.name) {
            errs.push(field::invalid_str(&name_path, &ctr.name, &m));
        }
    }
    if s(&ctr.image).is_empty() {
        errs.push(field::required(&path.child("image"), ""));
    }
    match s(&ctr.termination_message_policy) {
        "File" | "FallbackToLogsOnError" => {}
        "" => errs.push(field::required(&path.child("terminationMessagePolicy"), "")),
        other => errs.push(field::not_supported(
            &path.child("terminationMessagePolicy"),
            &field::json_string(other),
            &["File", "FallbackToLogsOnError"],
        )),
    }
    errs.extend(validate_container_ports(ctr.ports.as_deref().unwrap_or(&[]), &path.child("ports")));
    errs.extend(validate_env(ctr.env.as_deref().unwrap_or(&[]), &path.child("env")));
    errs.extend(validate_env_from(ctr.env_from.as_deref().unwrap_or(&[]), &path.child("envFrom")));
    errs.extend(validate_volume_mounts(ctr, vols, &path.child("volumeMounts")));
    errs.extend(validate_volume_devices(ctr, vols, &path.child("volumeDevices")));
    match s(&ctr.image_pull_policy) {
        "Always" | "IfNotPresent" | "Never" => {}
        "" => errs.push(field::required(&path.child("imagePullPolicy"), "")),
        other => errs.push(field::not_supported(
            &path.child("imagePullPolicy"),
            &field::json_string(other),
            &["Always", "IfNotPresent", "Never"],
        )),
    }
    if let Some(r) = &ctr.resources {
        errs.extend(validate_container_resources(r, &path.child("resources")));
    }
    for p in ctr.resize_policy.iter().flatten() {
        let rp = path.child("resizePolicy");
        match p.resource_name.as_str() {
            "cpu" | "memory" => {}
            "" => errs.push(field::required(&rp, "")),
            other => errs.push(field::not_supported(&rp, &field::json_string(other), &["cpu", "memory"])),
        }
        match p.restart_policy.as_str() {
            "NotRequired" | "RestartContainer" => {}
            "" => errs.push(field::required(&rp, "")),
            other => {
                errs.push(field::not_supported(&rp, &field::json_string(other), &["NotRequired", "RestartContainer"]))
            }
        }
    }
    if let Some(sc) = &ctr.security_context {
        let sp = path.child("securityContext");
        validate_id_range(sc.run_as_user, &sp.child("runAsUser"), &mut errs);
        validate_id_range(sc.run_as_group, &sp.child("runAsGroup"), &mut errs);
        if let Some(pm) = &sc.proc_mount {
            if !matches!(pm.as_str(), "Default" | "Unmasked") {
                errs.push(field::not_supported(
                    &sp.child("procMount"),
                    &field::json_string(pm),
                    &["Default", "Unmasked"],
                ));
            }
        }
    }
    errs
}

fn host_port_conflicts(containers: &[Container], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut seen = BTreeSet::new();
    for (ci, c) in containers.iter().enumerate() {
        for (pi, p) in c.ports.iter().flatten().enumerate() {
            let hp = p.host_port.unwrap_or(0);
            if hp == 0 {
                continue;
            }
            let key = format!("{}/{}/{hp}", s(&p.protocol), s(&p.host_ip));
            if !seen.insert(key.clone()) {
                errs.push(field::duplicate(
                    &path.index(ci).child("ports").index(pi).child("hostPort"),
                    &field::quote(&key),
                ));
            }
        }
    }
    errs
}

fn validate_containers(containers: &[Container], vols: &VolumeMap<'_>, grace: Option<i64>, path: &Path) -> Vec<Cause> {
    if containers.is_empty() {
        return vec![field::required(path, "")];
    }
    let mut errs = Vec::new();
    let mut names_seen = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let p = path.index(i);
        errs.extend(validate_container_common(c, vols, &p));
        if !names_seen.insert(c.name.clone()) {
            errs.push(field::duplicate(&p.child("name"), &field::quote(&c.name)));
        }
        errs.extend(validate_lifecycle_and_probes(c, grace, &p));
        if c.restart_policy.is_some() {
            errs.push(field::forbidden(&p.child("restartPolicy"), "may not be set for non-init containers"));
        }
    }
    errs.extend(host_port_conflicts(containers, path));
    errs
}

fn validate_init_containers(
    inits: &[Container],
    regular: &[Container],
    vols: &VolumeMap<'_>,
    grace: Option<i64>,
    path: &Path,
) -> Vec<Cause> {
    let mut errs = Vec::new();
    let mut all_names: BTreeSet<String> = regular.iter().map(|c| c.name.clone()).collect();
    for (i, c) in inits.iter().enumerate() {
        let p = path.index(i);
        errs.extend(validate_container_common(c, vols, &p));
        let mut restart_always = false;
        if let Some(rp) = &c.restart_policy {
            if rp != "Always" {
                errs.push(field::not_supported(&p.child("restartPolicy"), &field::json_string(rp), &["Always"]));
            }
            restart_always = rp == "Always";
        }
        if all_names.contains(&c.name) {
            errs.push(field::duplicate(&p.child("name"), &field::quote(&c.name)));
        } else if !c.name.is_empty() {
            all_names.insert(c.name.clone());
        }
        errs.extend(host_port_conflicts(std::slice::from_ref(c), path));
        if restart_always {
            errs.extend(validate_lifecycle_and_probes(c, grace, &p));
        } else {
            const WHY: &str = "may not be set for init containers without restartPolicy=Always";
            for (present, name) in [
                (c.lifecycle.is_some(), "lifecycle"),
                (c.liveness_probe.is_some(), "livenessProbe"),
                (c.readiness_probe.is_some(), "readinessProbe"),
                (c.startup_probe.is_some(), "startupProbe"),
            ] {
                if present {
                    errs.push(field::forbidden(&p.child(name), WHY));
                }
            }
        }
    }
    errs
}

// ----------------------------------------------------------------------------------------------------
// Pod spec

/// `ValidateTolerations`.
pub fn validate_tolerations(tolerations: &[Toleration], path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let idx = path.index(i);
        let key = s(&t.key);
        let op = s(&t.operator);
        let effect = s(&t.effect);
        let value = s(&t.value);
        if !key.is_empty() {
            errs.extend(names::validate_label_name(key, &idx.child("key")));
        }
        if key.is_empty() && op != "Exists" {
            errs.push(field::invalid(
                &idx.child("operator"),
                &field::json_string(op),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if t.toleration_seconds.is_some() && effect != "NoExecute" {
            errs.push(field::invalid(
                &idx.child("effect"),
                &field::json_string(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match op {
            "Equal" | "" => {
                let msgs = names::is_valid_label_value(value);
                if !msgs.is_empty() {
                    errs.push(field::invalid_str(&idx.child("operator"), value, &msgs.join(";")));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    errs.push(field::invalid_str(
                        &idx.child("operator"),
                        value,
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => errs.push(field::not_supported(
                &idx.child("operator"),
                &field::json_string(other),
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() && !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
            errs.push(field::not_supported(
                &idx.child("effect"),
                &field::json_string(effect),
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            ));
        }
    }
    errs
}

fn validate_pod_security_context(spec: &PodSpec, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let Some(sc) = &spec.security_context else {
        return errs;
    };
    validate_id_range(sc.fs_group, &path.child("fsGroup"), &mut errs);
    validate_id_range(sc.run_as_user, &path.child("runAsUser"), &mut errs);
    validate_id_range(sc.run_as_group, &path.child("runAsGroup"), &mut errs);
    for (i, g) in sc.supplemental_groups.iter().flatten().enumerate() {
        validate_id_range(Some(*g), &path.child("supplementalGroups").index(i), &mut errs);
    }
    if spec.share_process_namespace == Some(true) && spec.host_pid == Some(true) {
        errs.push(field::invalid(
            &path.child("shareProcessNamespace"),
            "true",
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    let mut sysctl_names = BTreeSet::new();
    for (i, sysctl) in sc.sysctls.iter().flatten().enumerate() {
        let np = path.child("sysctls").index(i).child("name");
        if sysctl.name.is_empty() {
            errs.push(field::required(&np, ""));
        } else if !sysctl_names.insert(sysctl.name.clone()) {
            errs.push(field::duplicate(&np, &field::quote(&sysctl.name)));
        }
    }
    if let Some(p) = &sc.fs_group_change_policy {
        if !matches!(p.as_str(), "Always" | "OnRootMismatch") {
            errs.push(field::not_supported(
                &path.child("fsGroupChangePolicy"),
                &field::json_string(p),
                &["Always", "OnRootMismatch"],
            ));
        }
    }
    if let Some(sp) = &sc.seccomp_profile {
        let tp = path.child("seccompProfile").child("type");
        match sp.type_.as_str() {
            "Localhost" => {
                if sp.localhost_profile.is_none() {
                    errs.push(field::required(
                        &path.child("seccompProfile").child("localhostProfile"),
                        "must be set when seccomp type is Localhost",
                    ));
                }
            }
            "RuntimeDefault" | "Unconfined" => {}
            "" => errs.push(field::required(&tp, "type is required when seccompProfile is set")),
            other => errs.push(field::not_supported(
                &tp,
                &field::json_string(other),
                &["Localhost", "RuntimeDefault", "Unconfined"],
            )),
        }
    }
    if let Some(p) = &sc.supplemental_groups_policy {
        if !matches!(p.as_str(), "Merge" | "Strict") {
            errs.push(field::not_supported(
                &path.child("supplementalGroupsPolicy"),
                &field::json_string(p),
                &["Merge", "Strict"],
            ));
        }
    }
    errs
}

fn validate_qualified(v: &str, path: &Path) -> Vec<Cause> {
    names::is_qualified_name(v).iter().map(|m| field::invalid_str(path, v, m)).collect()
}

fn check_names(rule: NameRule, v: &str, path: &Path) -> Vec<Cause> {
    names::check_name(rule, v, false).iter().map(|m| field::invalid_str(path, v, m)).collect()
}

/// `ValidatePodSpec`.
pub fn validate_pod_spec(spec: &PodSpec, path: &Path, opts: PodOptions) -> Vec<Cause> {
    let mut errs = Vec::new();
    if spec.termination_grace_period_seconds.is_none() {
        errs.push(field::required(&path.child("terminationGracePeriodSeconds"), ""));
    }
    let grace = spec.termination_grace_period_seconds;
    let (vols, verrs) = validate_volumes(spec.volumes.as_deref().unwrap_or(&[]), &path.child("volumes"));
    errs.extend(verrs);
    errs.extend(validate_containers(&spec.containers, &vols, grace, &path.child("containers")));
    errs.extend(validate_init_containers(
        spec.init_containers.as_deref().unwrap_or(&[]),
        &spec.containers,
        &vols,
        grace,
        &path.child("initContainers"),
    ));
    if spec.host_network == Some(true) {
        let cp = path.child("containers");
        for (i, c) in spec.containers.iter().enumerate() {
            for (j, p) in c.ports.iter().flatten().enumerate() {
                let hp = p.host_port.unwrap_or(0);
                if (opts.resource_is_pod || hp != 0) && hp != p.container_port {
                    errs.push(field::invalid_int(
                        &cp.index(i).child("ports").index(j).child("hostPort"),
                        hp as i64,
                        "must match `containerPort` when `hostNetwork` is true",
                    ));
                }
            }
        }
    }
    match s(&spec.restart_policy) {
        "Always" | "OnFailure" | "Never" => {}
        "" => errs.push(field::required(&path.child("restartPolicy"), "")),
        other => errs.push(field::not_supported(
            &path.child("restartPolicy"),
            &field::json_string(other),
            &["Always", "OnFailure", "Never"],
        )),
    }
    match s(&spec.dns_policy) {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => {}
        "" => errs.push(field::required(&path.child("dnsPolicy"), "")),
        other => errs.push(field::not_supported(
            &path.child("dnsPolicy"),
            &field::json_string(other),
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        )),
    }
    errs.extend(names::validate_labels(spec.node_selector.as_ref(), &path.child("nodeSelector")));
    errs.extend(validate_pod_security_context(spec, &path.child("securityContext")));
    if s(&spec.dns_policy) == "None" {
        let dp = path.child("dnsConfig");
        match &spec.dns_config {
            None => errs.push(field::required(&dp, "must provide `dnsConfig` when `dnsPolicy` is None")),
            Some(c) if c.nameservers.as_ref().is_none_or(|n| n.is_empty()) => errs.push(field::required(
                &dp.child("nameservers"),
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            )),
            _ => {}
        }
    }
    for (i, g) in spec.readiness_gates.iter().flatten().enumerate() {
        errs.extend(validate_qualified(
            &g.condition_type,
            &path.child("readinessGates").index(i).child("conditionType"),
        ));
    }
    let mut gates = BTreeSet::new();
    for (i, g) in spec.scheduling_gates.iter().flatten().enumerate() {
        let gp = path.child("schedulingGates").index(i);
        errs.extend(validate_qualified(&g.name, &gp));
        if !gates.insert(g.name.clone()) {
            errs.push(field::duplicate(&gp, &field::quote(&g.name)));
        }
    }
    let sa = s(&spec.service_account_name);
    if !sa.is_empty() {
        errs.extend(check_names(NameRule::Subdomain, sa, &path.child("serviceAccountName")));
    }
    let node = s(&spec.node_name);
    if !node.is_empty() {
        errs.extend(check_names(NameRule::Subdomain, node, &path.child("nodeName")));
    }
    if let Some(ads) = spec.active_deadline_seconds.filter(|v| !(1..=MAX_INT32).contains(v)) {
        errs.push(field::invalid_int(
            &path.child("activeDeadlineSeconds"),
            ads,
            &names::inclusive_range_error(1, MAX_INT32),
        ));
    }
    for (field_name, v) in [("hostname", &spec.hostname), ("subdomain", &spec.subdomain)] {
        let v = s(v);
        if !v.is_empty() {
            errs.extend(check_names(NameRule::Label, v, &path.child(field_name)));
        }
    }
    errs.extend(validate_tolerations(spec.tolerations.as_deref().unwrap_or(&[]), &path.child("tolerations")));
    for (i, ha) in spec.host_aliases.iter().flatten().enumerate() {
        let hp = path.child("hostAliases").index(i);
        errs.extend(super::service::validate_ip(&ha.ip, &hp.child("ip")));
        for (j, h) in ha.hostnames.iter().flatten().enumerate() {
            errs.extend(check_names(NameRule::Subdomain, h, &hp.child("hostnames").index(j)));
        }
    }
    let pc = s(&spec.priority_class_name);
    if !pc.is_empty() {
        errs.extend(check_names(NameRule::Subdomain, pc, &path.child("priorityClassName")));
    }
    if let Some(rc) = &spec.runtime_class_name {
        errs.extend(check_names(NameRule::Subdomain, rc, &path.child("runtimeClassName")));
    }
    if let Some(pp) = &spec.preemption_policy {
        match pp.as_str() {
            "PreemptLowerPriority" | "Never" => {}
            "" => errs.push(field::required(&path.child("preemptionPolicy"), "")),
            other => errs.push(field::not_supported(
                &path.child("preemptionPolicy"),
                &field::json_string(other),
                &["PreemptLowerPriority", "Never"],
            )),
        }
    }
    if let Some(os) = &spec.os {
        if !matches!(os.name.as_str(), "linux" | "windows") {
            errs.push(field::not_supported(
                &path.child("os").child("name"),
                &field::json_string(&os.name),
                &["linux", "windows"],
            ));
        }
    }
    errs
}

/// `ValidatePodSpecificAnnotations`: mirror pods, deletion cost, seccomp and AppArmor annotations.
pub fn validate_pod_specific_annotations(
    annotations: Option<&BTreeMap<String, String>>,
    spec: &PodSpec,
    path: &Path,
) -> Vec<Cause> {
    let mut errs = Vec::new();
    let Some(a) = annotations else {
        return errs;
    };
    if let Some(v) = a.get("kubernetes.io/config.mirror") {
        if s(&spec.node_name).is_empty() {
            errs.push(field::invalid_str(
                &path.key("kubernetes.io/config.mirror"),
                v,
                "must set spec.nodeName if mirror pod annotation is set",
            ));
        }
    }
    if let Some(v) = a.get("controller.kubernetes.io/pod-deletion-cost") {
        if v.parse::<i32>().is_err() {
            errs.push(field::invalid_str(
                &path.key("controller.kubernetes.io/pod-deletion-cost"),
                v,
                "must be a 32bit integer",
            ));
        }
    }
    let seccomp_ok =
        |p: &str| matches!(p, "runtime/default" | "docker/default" | "unconfined") || p.starts_with("localhost/");
    for (k, v) in a {
        if k == "seccomp.security.alpha.kubernetes.io/pod"
            || k.starts_with("container.seccomp.security.alpha.kubernetes.io/")
        {
            if let Some(profile) = v.strip_prefix("localhost/") {
                errs.extend(validate_local_descending_path(profile, &path.child(k)));
            } else if !seccomp_ok(v) {
                errs.push(field::invalid_str(&path.child(k), v, "must be a valid seccomp profile"));
            }
        }
        if let Some(container) = k.strip_prefix("container.apparmor.security.beta.kubernetes.io/") {
            let exists =
                spec.containers.iter().chain(spec.init_containers.iter().flatten()).any(|c| c.name == container)
                    || spec.ephemeral_containers.iter().flatten().any(|c| c.name == container);
            if !exists {
                errs.push(field::invalid_str(&path.key(k), container, "container not found"));
            }
            if !(v.is_empty() || v == "runtime/default" || v == "unconfined" || v.starts_with("localhost/")) {
                errs.push(field::invalid_str(
                    &path.key(k),
                    v,
                    &format!("invalid AppArmor profile name: {}", field::quote(v)),
                ));
            }
        }
    }
    errs
}

/// `ValidatePodTemplateSpec` (templates inside workloads).
pub fn validate_pod_template_spec(tpl: &PodTemplateSpec, path: &Path) -> Vec<Cause> {
    let default_meta = ObjectMeta::default();
    let meta = tpl.metadata.as_ref().unwrap_or(&default_meta);
    let default_spec = PodSpec::default();
    let spec = tpl.spec.as_ref().unwrap_or(&default_spec);
    let mut errs = names::validate_labels(meta.labels.as_ref(), &path.child("labels"));
    errs.extend(names::validate_annotations(meta.annotations.as_ref(), &path.child("annotations")));
    errs.extend(validate_pod_specific_annotations(meta.annotations.as_ref(), spec, &path.child("annotations")));
    errs.extend(validate_pod_spec(spec, &path.child("spec"), PodOptions::default()));
    if spec.ephemeral_containers.as_ref().is_some_and(|e| !e.is_empty()) {
        errs.push(field::forbidden(
            &path.children(&["spec", "ephemeralContainers"]),
            "ephemeral containers not allowed in pod template",
        ));
    }
    errs
}

fn validate_pod_metadata_and_spec(pod: &Pod) -> Vec<Cause> {
    let meta_path = Path::new("metadata");
    let spec_path = Path::new("spec");
    let default_spec = PodSpec::default();
    let spec = pod.spec.as_ref().unwrap_or(&default_spec);
    let mut errs = meta::validate_object_meta(&pod.metadata, true, NameRule::Subdomain);
    errs.extend(validate_pod_specific_annotations(
        pod.metadata.annotations.as_ref(),
        spec,
        &meta_path.child("annotations"),
    ));
    errs.extend(validate_pod_spec(spec, &spec_path, PodOptions { resource_is_pod: true }));
    if s(&spec.service_account_name).is_empty() {
        for (vi, v) in spec.volumes.iter().flatten().enumerate() {
            let Some(p) = &v.projected else { continue };
            for (si, src) in p.sources.iter().flatten().enumerate() {
                if src.service_account_token.is_some() {
                    errs.push(field::forbidden(
                        &spec_path
                            .child("volumes")
                            .index(vi)
                            .child("projected")
                            .child("sources")
                            .index(si)
                            .child("serviceAccountToken"),
                        "must not be specified when serviceAccountName is not set",
                    ));
                }
            }
        }
    }
    for (list, name) in [(Some(&spec.containers), "containers"), (spec.init_containers.as_ref(), "initContainers")] {
        for (i, c) in list.into_iter().flatten().enumerate() {
            let image = s(&c.image);
            if image.len() != image.trim().len() {
                errs.push(field::invalid_str(
                    &spec_path.child(name).index(i).child("image"),
                    image,
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
    errs
}

/// `ValidatePodCreate`.
pub fn validate_pod_create(pod: &Pod) -> Vec<Cause> {
    let mut errs = validate_pod_metadata_and_spec(pod);
    let spec_path = Path::new("spec");
    if let Some(spec) = &pod.spec {
        if spec.ephemeral_containers.as_ref().is_some_and(|e| !e.is_empty()) {
            errs.push(field::forbidden(&spec_path.child("ephemeralContainers"), "cannot be set on create"));
        }
        if !s(&spec.node_name).is_empty() && spec.scheduling_gates.as_ref().is_some_and(|g| !g.is_empty()) {
            errs.push(field::forbidden(
                &spec_path.child("nodeName"),
                "cannot be set until all schedulingGates have been cleared",
            ));
        }
    }
    errs
}

/// The fields a pod update may change, as listed in the Forbidden message.
pub const POD_UPDATABLE_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// JSON of a spec with empty lists and nulls dropped (Kubernetes' semantic equality treats nil and
/// empty alike).
fn normalized(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null() && !matches!(v, Value::Array(a) if a.is_empty()))
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

fn flatten(v: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(v, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                flatten(v, &format!("{prefix}[{i}]"), out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// A line diff of two specs. Kubernetes appends go-cmp's `cmp.Diff` of the internal PodSpec; this is a
/// simplified rendering of the same differences (field paths in the v1 JSON spelling).
fn spec_diff(old: &Value, new: &Value) -> String {
    let (mut o, mut n) = (BTreeMap::new(), BTreeMap::new());
    flatten(old, "", &mut o);
    flatten(new, "", &mut n);
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    let mut out = String::from("  core.PodSpec{\n");
    for k in keys {
        match (o.get(k), n.get(k)) {
            (a, b) if a == b => {}
            (a, b) => {
                if let Some(a) = a {
                    out.push_str(&format!("- \t{k}: {a}\n"));
                }
                if let Some(b) = b {
                    out.push_str(&format!("+ \t{k}: {b}\n"));
                }
            }
        }
    }
    out.push_str("  }\n");
    out
}

fn toleration_key(t: &Toleration) -> (String, String, String, String) {
    (s(&t.key).into(), s(&t.operator).into(), s(&t.value).into(), s(&t.effect).into())
}

/// `ValidatePodUpdate`.
pub fn validate_pod_update(new: &Pod, old: &Pod) -> Vec<Cause> {
    let meta_path = Path::new("metadata");
    let spec_path = Path::new("spec");
    let default_spec = PodSpec::default();
    let new_spec = new.spec.as_ref().unwrap_or(&default_spec);
    let old_spec = old.spec.as_ref().unwrap_or(&default_spec);
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    errs.extend(validate_pod_metadata_and_spec(new));
    let ann_path = meta_path.child("annotations");
    let (na, oa) =
        (new.metadata.annotations.clone().unwrap_or_default(), old.metadata.annotations.clone().unwrap_or_default());
    for (k, ov) in &oa {
        if na.get(k) == Some(ov) {
            continue;
        }
        if k.starts_with("container.apparmor.security.beta.kubernetes.io/") {
            errs.push(field::forbidden(&ann_path.key(k), "may not remove or update AppArmor annotations"));
        }
        if k == "kubernetes.io/config.mirror" {
            errs.push(field::forbidden(&ann_path.key(k), "may not remove or update mirror pod annotation"));
        }
    }
    for k in na.keys().filter(|k| !oa.contains_key(*k)) {
        if k.starts_with("container.apparmor.security.beta.kubernetes.io/") {
            errs.push(field::forbidden(&ann_path.key(k), "may not add AppArmor annotations"));
        }
        if k == "kubernetes.io/config.mirror" {
            errs.push(field::forbidden(&ann_path.key(k), "may not add mirror pod annotation"));
        }
    }
    errs.extend(validate_pod_specific_annotations(new.metadata.annotations.as_ref(), new_spec, &ann_path));

    for (name, n, o) in [
        ("containers", Some(&new_spec.containers), Some(&old_spec.containers)),
        ("initContainers", new_spec.init_containers.as_ref(), old_spec.init_containers.as_ref()),
    ] {
        let (n, o) = (n.map(Vec::as_slice).unwrap_or(&[]), o.map(Vec::as_slice).unwrap_or(&[]));
        let p = spec_path.child(name);
        if n.len() != o.len() {
            errs.push(field::forbidden(&p, "pod updates may not add or remove containers"));
            return errs;
        }
        for (i, c) in n.iter().enumerate() {
            let image = s(&c.image);
            if image.is_empty() {
                errs.push(field::required(&p.index(i).child("image"), ""));
            }
            if image.trim().len() != image.len() {
                errs.push(field::invalid_str(
                    &p.index(i).child("image"),
                    image,
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }

    let ads_path = spec_path.child("activeDeadlineSeconds");
    match (new_spec.active_deadline_seconds, old_spec.active_deadline_seconds) {
        (Some(n), _) if !(0..=MAX_INT32).contains(&n) => {
            errs.push(field::invalid_int(&ads_path, n, &names::inclusive_range_error(0, MAX_INT32)));
            return errs;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(field::invalid_int(&ads_path, n, "must be less than or equal to previous value"));
            return errs;
        }
        (None, Some(_)) => {
            errs.push(field::invalid(&ads_path, "null", "must not update from a positive integer to nil value"))
        }
        _ => {}
    }

    let new_tols = new_spec.tolerations.as_deref().unwrap_or(&[]);
    let old_tols = old_spec.tolerations.as_deref().unwrap_or(&[]);
    let tol_path = spec_path.child("tolerations");
    let kept = old_tols.iter().all(|o| new_tols.iter().any(|n| toleration_key(n) == toleration_key(o)));
    if !kept {
        errs.push(field::forbidden(&tol_path, "existing toleration can not be modified except its tolerationSeconds"));
    } else {
        errs.extend(validate_tolerations(new_tols, &tol_path));
    }

    let old_gates: BTreeSet<&str> = old_spec.scheduling_gates.iter().flatten().map(|g| g.name.as_str()).collect();
    for (i, g) in new_spec.scheduling_gates.iter().flatten().enumerate() {
        if !old_gates.contains(g.name.as_str()) {
            errs.push(field::forbidden(
                &spec_path.child("schedulingGates").index(i).child("name"),
                &format!("only deletion is allowed, but found new scheduling gate '{}'", g.name),
            ));
        }
    }

    // Munge the updatable fields back to their old values, then require equality.
    let mut munged = new_spec.clone();
    for (c, o) in munged.containers.iter_mut().zip(&old_spec.containers) {
        c.image = o.image.clone();
    }
    if let (Some(n), Some(o)) = (munged.init_containers.as_mut(), old_spec.init_containers.as_ref()) {
        for (c, o) in n.iter_mut().zip(o) {
            c.image = o.image.clone();
        }
    }
    munged.active_deadline_seconds = old_spec.active_deadline_seconds;
    munged.scheduling_gates = old_spec.scheduling_gates.clone();
    munged.tolerations = old_spec.tolerations.clone();
    if old_spec.termination_grace_period_seconds.is_some_and(|g| g < 0)
        && munged.termination_grace_period_seconds == Some(1)
    {
        munged.termination_grace_period_seconds = old_spec.termination_grace_period_seconds;
    }
    if old_spec.scheduling_gates.as_ref().is_some_and(|g| !g.is_empty())
        && munged.node_selector != old_spec.node_selector
    {
        let old_sel = old_spec.node_selector.clone().unwrap_or_default();
        let new_sel = munged.node_selector.clone().unwrap_or_default();
        if old_sel.iter().any(|(k, v)| new_sel.get(k) != Some(v)) {
            errs.push(field::invalid(
                &spec_path.child("nodeSelector"),
                &field::json_map(munged.node_selector.as_ref()),
                "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
            ));
        }
        munged.node_selector = old_spec.node_selector.clone();
    }
    let old_json = normalized(&serde_json::to_value(old_spec).unwrap_or(Value::Null));
    let new_json = normalized(&serde_json::to_value(&munged).unwrap_or(Value::Null));
    if old_json != new_json {
        errs.push(field::forbidden(
            &spec_path,
            &format!(
                "pod updates may not change fields other than {POD_UPDATABLE_FIELDS}\n{}",
                spec_diff(&old_json, &new_json)
            ),
        ));
    }
    errs
}

/// `ValidatePodEphemeralContainersUpdate` with `validateEphemeralContainers`: what `pods/ephemeralcontainers`
/// accepts. Existing ephemeral containers stay as they are; a new one needs a DNS-label name no container of
/// the pod has, an image, an existing target, and none of the fields an ephemeral container cannot have.
/// (The real message for a changed container ends with a `cmp.Diff` of it, which kubeglass leaves out.)
pub fn validate_ephemeral_containers_update(new: &Pod, old: &Pod) -> Vec<Cause> {
    let path = Path::new("spec").child("ephemeralContainers");
    let mut errs = Vec::new();
    let mirror = old.metadata.annotations.as_ref().is_some_and(|a| a.contains_key("kubernetes.io/config.mirror"));
    if mirror {
        errs.push(field::forbidden(&Path::new(""), "static pods do not support ephemeral containers"));
        return errs;
    }
    let empty = Vec::new();
    let list = |p: &Pod| p.spec.as_ref().and_then(|s| s.ephemeral_containers.as_ref()).unwrap_or(&empty).clone();
    let (new_list, old_list) = (list(new), list(old));
    for o in &old_list {
        match new_list.iter().find(|n| n.name == o.name) {
            None => errs.push(field::forbidden(
                &path,
                &format!("existing ephemeral containers {} may not be removed\n", field::quote(&o.name)),
            )),
            Some(n) if n != o => errs.push(field::forbidden(
                &path,
                &format!("existing ephemeral containers {} may not be changed\n", field::quote(&o.name)),
            )),
            Some(_) => {}
        }
    }
    let spec = new.spec.clone().unwrap_or_default();
    let regular: Vec<&str> =
        spec.containers.iter().chain(spec.init_containers.iter().flatten()).map(|c| c.name.as_str()).collect();
    let mut seen: Vec<&str> = regular.clone();
    for (i, ec) in new_list.iter().enumerate() {
        let at = path.index(i);
        let name_path = at.child("name");
        if ec.name.is_empty() {
            errs.push(field::required(&name_path, ""));
        } else {
            for m in names::is_dns1123_label(&ec.name) {
                errs.push(field::invalid_str(&name_path, &ec.name, &m));
            }
            if seen.contains(&ec.name.as_str()) {
                errs.push(field::duplicate(&name_path, &field::quote(&ec.name)));
            }
            seen.push(&ec.name);
        }
        if s(&ec.image).is_empty() {
            errs.push(field::required(&at.child("image"), ""));
        }
        if let Some(target) = ec.target_container_name.as_deref().filter(|t| !regular.contains(t)) {
            errs.push(field::not_found(&at.child("targetContainerName"), &field::quote(target)));
        }
        let resources = ec.resources.as_ref().is_some_and(|r| {
            r.limits.as_ref().is_some_and(|l| !l.is_empty()) || r.requests.as_ref().is_some_and(|l| !l.is_empty())
        });
        let forbidden = [
            ("ports", ec.ports.as_ref().is_some_and(|p| !p.is_empty())),
            ("resources", resources),
            ("lifecycle", ec.lifecycle.is_some()),
            ("livenessProbe", ec.liveness_probe.is_some()),
            ("readinessProbe", ec.readiness_probe.is_some()),
            ("startupProbe", ec.startup_probe.is_some()),
            ("resizePolicy", ec.resize_policy.as_ref().is_some_and(|p| !p.is_empty())),
            ("restartPolicy", ec.restart_policy.is_some()),
        ];
        for (field_name, set) in forbidden {
            if set {
                errs.push(field::forbidden(&at.child(field_name), "cannot be set for an Ephemeral Container"));
            }
        }
    }
    errs
}
