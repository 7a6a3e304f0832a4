//! Services (`ValidateService`, `ValidateServiceUpdate`) plus the two registry steps that run before them
//! and shape what users see: the clusterIP/clusterIPs normalization of the service strategy, and the
//! node-port allocator's range check (`provided port is not in the valid range. The range of valid ports is
//! 30000-32767`), which rejects the request on its own before any other validation. IP addresses and
//! CIDRs are checked as apimachinery's strict IP validation does.

use std::collections::BTreeSet;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::field::{self, Path};
use super::meta;
use super::names::{self, NameRule};
use super::pod::validate_protocol;
use crate::api::Cause;

/// The default `--service-node-port-range`.
pub const NODE_PORT_RANGE: (i32, i32) = (30000, 32767);

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("")
}

/// Go's `netutils.ParseIPSloppy` accepts IPv4 octets with leading zeros; strict parsing does not.
fn parses_sloppy_v4(value: &str) -> bool {
    let parts: Vec<&str> = value.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// `IsValidIP`: a valid, canonical IP address.
pub fn validate_ip(value: &str, path: &Path) -> Vec<Cause> {
    match value.parse::<IpAddr>() {
        Err(_) if parses_sloppy_v4(value) => {
            vec![field::invalid_str(path, value, "must not have leading 0s")]
        }
        Err(_) => {
            vec![field::invalid_str(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
        }
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_some() => {
            vec![field::invalid_str(path, value, "must not be an IPv4-mapped IPv6 address")]
        }
        Ok(ip) if ip.to_string() != value => vec![field::invalid_str(
            path,
            value,
            &format!("must be in canonical form ({})", field::quote(&ip.to_string())),
        )],
        Ok(_) => Vec::new(),
    }
}

/// `IsValidCIDR`: a valid, canonical CIDR with no host bits set.
pub fn validate_cidr(value: &str, path: &Path) -> Vec<Cause> {
    let bad =
        || vec![field::invalid_str(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")];
    let Some((addr, bits)) = value.split_once('/') else {
        return bad();
    };
    let Ok(ip) = addr.parse::<IpAddr>() else {
        return bad();
    };
    let max = if ip.is_ipv4() { 32 } else { 128 };
    let Some(len) = bits.parse::<u32>().ok().filter(|b| *b <= max) else {
        return bad();
    };
    if bits.len() > 1 && bits.starts_with('0') {
        return vec![field::invalid_str(path, value, "must not have leading 0s in IP or prefix length")];
    }
    let masked = match ip {
        IpAddr::V4(v4) => {
            let raw = u32::from(v4);
            let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            IpAddr::V4((raw & mask).into())
        }
        IpAddr::V6(v6) => {
            let raw = u128::from(v6);
            let mask = if len == 0 { 0 } else { u128::MAX << (128 - len) };
            IpAddr::V6((raw & mask).into())
        }
    };
    if masked != ip {
        return vec![field::invalid_str(path, value, "must not have bits set beyond the prefix length")];
    }
    let canonical = format!("{ip}/{len}");
    if canonical != value {
        return vec![field::invalid_str(
            path,
            value,
            &format!("must be in canonical form ({})", field::quote(&canonical)),
        )];
    }
    Vec::new()
}

/// `ValidateNonSpecialIP`: no unspecified, loopback or link-local addresses.
pub fn validate_non_special_ip(value: &str, path: &Path) -> Vec<Cause> {
    let Ok(ip) = value.parse::<IpAddr>() else {
        return vec![field::invalid_str(path, value, "must be a valid IP address")];
    };
    let mut errs = Vec::new();
    if ip.is_unspecified() {
        errs.push(field::invalid_str(path, value, &format!("may not be unspecified ({value})")));
    }
    if ip.is_loopback() {
        errs.push(field::invalid_str(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    }
    let (link_local, link_local_mc) = match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            (o[0] == 169 && o[1] == 254, o[0] == 224 && o[1] == 0 && o[2] == 0)
        }
        IpAddr::V6(v6) => {
            let seg = v6.segments();
            (seg[0] & 0xffc0 == 0xfe80, seg[0] & 0xff0f == 0xff02)
        }
    };
    if link_local {
        errs.push(field::invalid_str(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
    }
    if link_local_mc {
        errs.push(field::invalid_str(
            path,
            value,
            "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        ));
    }
    errs
}

fn cluster_ips(spec: &ServiceSpec) -> Vec<String> {
    spec.cluster_ips.clone().unwrap_or_default()
}

fn is_headless(spec: &ServiceSpec) -> bool {
    matches!(spec.cluster_ips.as_deref(), Some([only]) if only == "None")
}

fn externally_accessible(spec: &ServiceSpec) -> bool {
    matches!(s(&spec.type_), "LoadBalancer" | "NodePort")
        || (s(&spec.type_) == "ClusterIP" && spec.external_ips.as_ref().is_some_and(|e| !e.is_empty()))
}

/// The strategy's create-time normalization: a lone `clusterIP` also fills `clusterIPs`.
fn normalize_for_create(svc: &Service) -> ServiceSpec {
    let mut spec = svc.spec.clone().unwrap_or_default();
    if !s(&spec.cluster_ip).is_empty() && spec.cluster_ips.as_ref().is_none_or(|c| c.is_empty()) {
        spec.cluster_ips = Some(vec![s(&spec.cluster_ip).to_string()]);
    }
    spec
}

fn needs_cluster_ip(spec: &ServiceSpec) -> bool {
    s(&spec.type_) != "ExternalName"
}

/// The REST layer's update-time steps: allocated values carried over (`patchAllocatedValues`), then the
/// clusterIP/clusterIPs normalization.
fn normalize_for_update(new: &Service, old: &Service) -> ServiceSpec {
    let mut spec = new.spec.clone().unwrap_or_default();
    let old_spec = old.spec.clone().unwrap_or_default();
    if needs_cluster_ip(&old_spec) && needs_cluster_ip(&spec) {
        if s(&spec.cluster_ip).is_empty() {
            spec.cluster_ip = old_spec.cluster_ip.clone();
        }
        if spec.cluster_ips.as_ref().is_none_or(|c| c.is_empty())
            && old_spec.cluster_ips.as_ref().is_some_and(|c| !c.is_empty())
        {
            spec.cluster_ips = old_spec.cluster_ips.clone();
        }
    }
    let same_ips = cluster_ips(&old_spec) == cluster_ips(&spec);
    if s(&old_spec.cluster_ip) != s(&spec.cluster_ip) {
        if !s(&old_spec.cluster_ip).is_empty() && s(&spec.cluster_ip).is_empty() {
            if same_ips {
                spec.cluster_ips = None;
            }
        } else if same_ips {
            spec.cluster_ips = Some(vec![s(&spec.cluster_ip).to_string()]);
        }
    }
    spec
}

/// The internal `core.ServicePort` key used in duplicate-port errors, as `encoding/json` prints it.
fn port_key_json(protocol: &str, port: i32) -> String {
    format!(
        "{{\"Name\":\"\",\"Protocol\":{},\"AppProtocol\":null,\"Port\":{port},\"TargetPort\":0,\"NodePort\":0}}",
        field::json_string(protocol)
    )
}

fn validate_service_port(sp: &ServicePort, require_name: bool, seen: &mut BTreeSet<String>, path: &Path) -> Vec<Cause> {
    let mut errs = Vec::new();
    let name = s(&sp.name);
    if require_name && name.is_empty() {
        errs.push(field::required(&path.child("name"), ""));
    } else if !name.is_empty() {
        for m in names::is_dns1123_label(name) {
            errs.push(field::invalid_str(&path.child("name"), name, &m));
        }
        if !seen.insert(name.to_string()) {
            errs.push(field::duplicate(&path.child("name"), &field::quote(name)));
        }
    }
    for m in names::is_valid_port_num(sp.port as i64) {
        errs.push(field::invalid_int(&path.child("port"), sp.port as i64, &m));
    }
    errs.extend(validate_protocol(sp.protocol.as_deref(), &path.child("protocol")));
    let target = sp.target_port.clone().unwrap_or(IntOrString::Int(0));
    let tp = path.child("targetPort");
    match &target {
        IntOrString::Int(n) => {
            for m in names::is_valid_port_num(*n as i64) {
                errs.push(field::invalid_int(&tp, *n as i64, &m));
            }
        }
        IntOrString::String(n) => {
            for m in names::is_valid_port_name(n) {
                errs.push(field::invalid_str(&tp, n, &m));
            }
        }
    }
    if let Some(ap) = &sp.app_protocol {
        for m in names::is_qualified_name(ap) {
            errs.push(field::invalid_str(&path.child("appProtocol"), ap, &m));
        }
    }
    errs
}

fn validate_cluster_ips_related(spec: &ServiceSpec) -> Vec<Cause> {
    let mut errs = Vec::new();
    if s(&spec.type_) == "ExternalName" {
        return errs;
    }
    let spec_path = Path::new("spec");
    let ips_path = spec_path.child("clusterIPs");
    let fam_path = spec_path.child("ipFamilies");
    let ips = cluster_ips(spec);
    let ips_json = field::json_strings(spec.cluster_ips.as_deref());
    let cluster_ip = s(&spec.cluster_ip);
    if !cluster_ip.is_empty() {
        match ips.first() {
            None => errs.push(field::required(&ips_path, "")),
            Some(first) if first != cluster_ip => {
                errs.push(field::invalid(&ips_path, &ips_json, "first value must match `clusterIP`"))
            }
            _ => {}
        }
    } else if !ips.is_empty() {
        errs.push(field::invalid(&ips_path, &ips_json, "must be empty when `clusterIP` is not specified"));
    }
    let mut seen = BTreeSet::new();
    for (i, f) in spec.ip_families.iter().flatten().enumerate() {
        if !matches!(f.as_str(), "IPv4" | "IPv6") {
            errs.push(field::not_supported(&fam_path.index(i), &field::json_string(f), &["IPv4", "IPv6"]));
        }
        if !seen.insert(f.clone()) {
            errs.push(field::duplicate(&fam_path.index(i), &field::json_string(f)));
        }
    }
    if let Some(p) = &spec.ip_family_policy {
        if !matches!(p.as_str(), "SingleStack" | "PreferDualStack" | "RequireDualStack") {
            errs.push(field::not_supported(
                &spec_path.child("ipFamilyPolicy"),
                &field::json_string(p),
                &["PreferDualStack", "RequireDualStack", "SingleStack"],
            ));
        }
    }
    let mut invalid_ips = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && ip == "None" {
            if ips.len() > 1 {
                invalid_ips = true;
                errs.push(field::invalid(&ips_path, &ips_json, "'None' must be the first and only value"));
            }
            continue;
        }
        let e = validate_ip(ip, &ips_path.index(i));
        invalid_ips |= !e.is_empty();
        errs.extend(e);
    }
    if ips.len() > 2 {
        errs.push(field::invalid(&ips_path, &ips_json, "may only hold up to 2 values"));
    }
    if invalid_ips {
        return errs;
    }
    if ips.len() > 1 {
        let v4 = ips.iter().filter(|ip| ip.parse::<std::net::Ipv4Addr>().is_ok()).count();
        if v4 != 1 || ips.len() - v4 != 1 {
            errs.push(field::invalid(&ips_path, &ips_json, "may specify no more than one IP for each IP family"));
        }
    }
    if !is_headless(spec) {
        for (i, (ip, fam)) in ips.iter().zip(spec.ip_families.iter().flatten()).enumerate() {
            let is_v6 = ip.parse::<std::net::Ipv6Addr>().is_ok();
            if fam == "IPv4" && is_v6 {
                errs.push(field::invalid_str(
                    &ips_path.index(i),
                    ip,
                    &format!("expected an IPv4 value as indicated by `ipFamilies[{i}]`"),
                ));
            }
            if fam == "IPv6" && !is_v6 {
                errs.push(field::invalid_str(
                    &ips_path.index(i),
                    ip,
                    &format!("expected an IPv6 value as indicated by `ipFamilies[{i}]`"),
                ));
            }
        }
    }
    errs
}

/// `ValidateService` on an already normalized spec.
fn validate_service_spec(svc: &Service, spec: &ServiceSpec) -> Vec<Cause> {
    let mut errs = meta::validate_object_meta(&svc.metadata, true, NameRule::Dns1035);
    let annotations = svc.metadata.annotations.clone().unwrap_or_default();
    if let (Some(hints), Some(mode)) = (
        annotations.get("service.kubernetes.io/topology-aware-hints"),
        annotations.get("service.kubernetes.io/topology-mode"),
    ) {
        if hints != mode {
            errs.push(field::invalid_str(
                &Path::new("metadata").child("annotations").key("service.kubernetes.io/topology-mode"),
                mode,
                "must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified",
            ));
        }
    }
    let spec_path = Path::new("spec");
    let type_ = s(&spec.type_);
    let ports = spec.ports.as_deref().unwrap_or(&[]);
    let headless = is_headless(spec);
    if ports.is_empty() && !headless && type_ != "ExternalName" {
        errs.push(field::required(&spec_path.child("ports"), ""));
    }
    match type_ {
        "LoadBalancer" | "NodePort" if headless => errs.push(field::invalid_str(
            &spec_path.child("clusterIPs").index(0),
            "None",
            &format!("may not be set to 'None' for {type_} services"),
        )),
        "ExternalName" => {
            if spec.cluster_ips.as_ref().is_some_and(|c| !c.is_empty()) {
                errs.push(field::forbidden(&spec_path.child("clusterIPs"), "may not be set for ExternalName services"));
            }
            if spec.ip_families.as_ref().is_some_and(|c| !c.is_empty()) {
                errs.push(field::forbidden(&spec_path.child("ipFamilies"), "may not be set for ExternalName services"));
            }
            if spec.ip_family_policy.is_some() {
                errs.push(field::forbidden(
                    &spec_path.child("ipFamilyPolicy"),
                    "may not be set for ExternalName services",
                ));
            }
            let external_name = s(&spec.external_name);
            let cname = external_name.strip_suffix('.').unwrap_or(external_name);
            if cname.is_empty() {
                errs.push(field::required(&spec_path.child("externalName"), ""));
            } else {
                for m in names::is_dns1123_subdomain(cname) {
                    errs.push(field::invalid_str(&spec_path.child("externalName"), cname, &m));
                }
            }
        }
        _ => {}
    }
    let mut port_names = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        errs.extend(validate_service_port(p, ports.len() > 1, &mut port_names, &spec_path.child("ports").index(i)));
    }
    if spec.selector.is_some() {
        errs.extend(names::validate_labels(spec.selector.as_ref(), &spec_path.child("selector")));
    }
    let affinity = s(&spec.session_affinity);
    match affinity {
        "" => errs.push(field::required(&spec_path.child("sessionAffinity"), "")),
        "ClientIP" | "None" => {}
        other => errs.push(field::not_supported(
            &spec_path.child("sessionAffinity"),
            &field::json_string(other),
            &["ClientIP", "None"],
        )),
    }
    let cfg_path = spec_path.child("sessionAffinityConfig");
    if affinity == "ClientIP" {
        let why = "when session affinity type is ClientIP";
        match spec.session_affinity_config.as_ref() {
            None => errs.push(field::required(&cfg_path, why)),
            Some(c) => match c.client_ip.as_ref() {
                None => errs.push(field::required(&cfg_path.child("clientIP"), why)),
                Some(ip) => match ip.timeout_seconds {
                    None => errs.push(field::required(&cfg_path.child("clientIP").child("timeoutSeconds"), why)),
                    Some(t) if t <= 0 || t > 86400 => errs.push(field::invalid_int(
                        &cfg_path.child("clientIP").child("timeoutSeconds"),
                        t as i64,
                        "must be greater than 0 and less than 86400",
                    )),
                    Some(_) => {}
                },
            },
        }
    } else if affinity == "None" && spec.session_affinity_config.is_some() {
        errs.push(field::forbidden(&cfg_path, "must not be set when session affinity is None"));
    }
    errs.extend(validate_cluster_ips_related(spec));
    for (i, ip) in spec.external_ips.iter().flatten().enumerate() {
        let p = spec_path.child("externalIPs").index(i);
        let e = validate_ip(ip, &p);
        if e.is_empty() {
            errs.extend(validate_non_special_ip(ip, &p));
        } else {
            errs.extend(e);
        }
    }
    match type_ {
        "" => errs.push(field::required(&spec_path.child("type"), "")),
        "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName" => {}
        other => errs.push(field::not_supported(
            &spec_path.child("type"),
            &field::json_string(other),
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        )),
    }
    if type_ == "ClusterIP" {
        for (i, p) in ports.iter().enumerate() {
            if p.node_port.unwrap_or(0) != 0 {
                errs.push(field::forbidden(
                    &spec_path.child("ports").index(i).child("nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        let np = p.node_port.unwrap_or(0);
        if np != 0 && !node_ports.insert((s(&p.protocol).to_string(), np)) {
            errs.push(field::duplicate(&spec_path.child("ports").index(i).child("nodePort"), &np.to_string()));
        }
    }
    let mut port_keys = BTreeSet::new();
    for (i, p) in ports.iter().enumerate() {
        if !port_keys.insert((s(&p.protocol).to_string(), p.port)) {
            errs.push(field::duplicate(&spec_path.child("ports").index(i), &port_key_json(s(&p.protocol), p.port)));
        }
    }
    if let Some(ranges) = spec.load_balancer_source_ranges.as_ref().filter(|r| !r.is_empty()) {
        let p = spec_path.child("LoadBalancerSourceRanges");
        if type_ != "LoadBalancer" {
            errs.push(field::forbidden(&p, "may only be used when `type` is 'LoadBalancer'"));
        }
        for (i, r) in ranges.iter().enumerate() {
            errs.extend(validate_cidr(r.trim(), &p.index(i)));
        }
    }
    if spec.allocate_load_balancer_node_ports.is_some() && type_ != "LoadBalancer" {
        errs.push(field::forbidden(
            &spec_path.child("allocateLoadBalancerNodePorts"),
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if type_ == "LoadBalancer" && spec.allocate_load_balancer_node_ports.is_none() {
        errs.push(field::required(&Path::new("allocateLoadBalancerNodePorts"), ""));
    }
    if let Some(class) = &spec.load_balancer_class {
        if type_ == "LoadBalancer" {
            for m in names::is_qualified_name(class) {
                errs.push(field::invalid_str(&spec_path.child("loadBalancerClass"), class, &m));
            }
        } else {
            errs.push(field::forbidden(
                &spec_path.child("loadBalancerClass"),
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
    }
    let etp = s(&spec.external_traffic_policy);
    if !externally_accessible(spec) {
        if !etp.is_empty() {
            errs.push(field::invalid(
                &spec_path.child("externalTrafficPolicy"),
                &field::json_string(etp),
                "may only be set for externally-accessible services",
            ));
        }
    } else if etp.is_empty() {
        errs.push(field::required(&spec_path.child("externalTrafficPolicy"), ""));
    } else if !matches!(etp, "Cluster" | "Local") {
        errs.push(field::not_supported(
            &spec_path.child("externalTrafficPolicy"),
            &field::json_string(etp),
            &["Cluster", "Local"],
        ));
    }
    let needs_health_check = type_ == "LoadBalancer" && etp == "Local";
    if let Some(hc) = spec.health_check_node_port.filter(|hc| *hc != 0) {
        let p = spec_path.child("healthCheckNodePort");
        if !needs_health_check {
            errs.push(field::invalid_int(
                &p,
                hc as i64,
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
            ));
        } else {
            for m in names::is_valid_port_num(hc as i64) {
                errs.push(field::invalid_int(&p, hc as i64, &m));
            }
        }
    }
    match spec.internal_traffic_policy.as_deref() {
        None if matches!(type_, "NodePort" | "LoadBalancer" | "ClusterIP") => {
            errs.push(field::required(&spec_path.child("internalTrafficPolicy"), ""));
        }
        Some(p) if !matches!(p, "Cluster" | "Local") => errs.push(field::not_supported(
            &spec_path.child("internalTrafficPolicy"),
            &field::json_string(p),
            &["Cluster", "Local"],
        )),
        _ => {}
    }
    if let Some(td) = &spec.traffic_distribution {
        const VALUES: &[&str] = &["PreferClose", "PreferSameZone", "PreferSameNode"];
        if !VALUES.contains(&td.as_str()) {
            errs.push(field::not_supported(&spec_path.child("trafficDistribution"), &field::json_string(td), VALUES));
        }
    }
    errs
}

/// The node-port allocator's range check; `None` when every requested node port is in range.
fn node_port_out_of_range(spec: &ServiceSpec, old: Option<&ServiceSpec>) -> Option<Cause> {
    let type_ = s(&spec.type_);
    let allocates =
        type_ == "NodePort" || (type_ == "LoadBalancer" && spec.allocate_load_balancer_node_ports != Some(false));
    if !allocates {
        return None;
    }
    let old_ports: BTreeSet<i32> =
        old.and_then(|o| o.ports.as_ref()).into_iter().flatten().filter_map(|p| p.node_port).collect();
    for (i, p) in spec.ports.iter().flatten().enumerate() {
        let np = p.node_port.unwrap_or(0);
        if np == 0 || old_ports.contains(&np) {
            continue;
        }
        if np < NODE_PORT_RANGE.0 || np > NODE_PORT_RANGE.1 {
            return Some(field::invalid_int(
                &Path::new("spec").child("ports").index(i).child("nodePort"),
                np as i64,
                &format!(
                    "provided port is not in the valid range. The range of valid ports is {}-{}",
                    NODE_PORT_RANGE.0, NODE_PORT_RANGE.1
                ),
            ));
        }
    }
    None
}

/// Create: the node-port range check alone if it fails, else `ValidateService`.
pub fn validate_service_create(svc: &Service) -> Vec<Cause> {
    let spec = normalize_for_create(svc);
    if let Some(e) = node_port_out_of_range(&spec, None) {
        return vec![e];
    }
    validate_service_spec(svc, &spec)
}

/// Update: the node-port range check alone if it fails, else `ValidateServiceUpdate`.
pub fn validate_service_update(new: &Service, old: &Service) -> Vec<Cause> {
    let spec = normalize_for_update(new, old);
    let old_spec = old.spec.clone().unwrap_or_default();
    if let Some(e) = node_port_out_of_range(&spec, Some(&old_spec)) {
        return vec![e];
    }
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata);
    let ips_path = Path::new("spec").child("clusterIPs");
    let external = s(&spec.type_) == "ExternalName" || s(&old_spec.type_) == "ExternalName";
    if !(external || is_headless(&spec) && is_headless(&old_spec)) {
        let (n, o) = (cluster_ips(&spec), cluster_ips(&old_spec));
        let n_json = field::json_strings(spec.cluster_ips.as_deref());
        if n.len() == o.len() {
            for (i, ip) in o.iter().enumerate() {
                if n.get(i) != Some(ip) {
                    errs.push(field::invalid(&ips_path.index(i), &n_json, "may not change once set"));
                }
            }
        } else if o.len() > n.len() {
            if n.is_empty() {
                errs.push(field::invalid(&ips_path.index(0), &n_json, "primary clusterIP can not be unset"));
            }
            if let (Some(a), Some(b)) = (n.first(), o.first()) {
                if a != b {
                    errs.push(field::invalid(&ips_path.index(0), &n_json, "may not change once set"));
                }
            }
            if n.len() == 1 && s(&spec.ip_family_policy) != "SingleStack" {
                errs.push(field::invalid(
                    &Path::new("spec").child("ipFamilyPolicy"),
                    &field::json_opt_string(spec.ip_family_policy.as_deref()),
                    "must be set to 'SingleStack' when releasing the secondary clusterIP",
                ));
            }
        } else if let (Some(a), Some(b)) = (n.first(), o.first()) {
            if a != b {
                errs.push(field::invalid(&ips_path.index(0), &n_json, "may not change once set"));
            }
        }
    }
    let fam_path = Path::new("spec").child("ipFamilies").index(0);
    if !external && is_headless(&spec) == is_headless(&old_spec) && !is_headless(&spec) {
        let (n, o) = (spec.ip_families.clone().unwrap_or_default(), old_spec.ip_families.clone().unwrap_or_default());
        if n.len() == o.len() && n != o {
            errs.push(field::invalid(
                &fam_path,
                &field::json_strings(spec.ip_families.as_deref()),
                "may not change once set",
            ));
        }
    }
    if s(&spec.type_) == "LoadBalancer"
        && s(&old_spec.type_) == "LoadBalancer"
        && spec.load_balancer_class != old_spec.load_balancer_class
    {
        errs.push(field::invalid(
            &Path::new("spec").child("loadBalancerClass"),
            &field::json_opt_string(spec.load_balancer_class.as_deref()),
            "may not change once set",
        ));
    }
    errs.extend(validate_service_spec(new, &spec));
    errs
}
