//! Discovery: the documents that tell a client which groups, versions and resources the server serves
//! (`/api`, `/apis`, `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`), built from the registry's table
//! of resources, so that what a real kubectl discovers is exactly what kubeglass serves. The Kubernetes
//! counterpart is k8s.io/apiserver's `discovery` package: the legacy, unaggregated form, and the aggregated
//! `apidiscovery.k8s.io/v2` lists of `/api` and `/apis` (`discovery/aggregated`) that kubectl 1.30 and
//! later ask for first, with the ETag their caches revalidate with. (v2beta1, which kubectl 1.27–1.29 ask
//! for, is not served by a v1.34 apiserver: the `AggregatedDiscoveryRemoveBetaType` gate is on, so those
//! clients read the legacy documents.)

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{json, Value};
use sha2::{Digest, Sha256, Sha512};

use super::apiextensions;
use crate::api::{Object, ResourceInfo, RESOURCES};

/// The address clients are told to use (kubeadm's advertise address).
const SERVER_ADDRESS: &str = "192.168.56.10:6443";

/// Every verb of a stored resource, in the order discovery lists them.
const STORED_VERBS: [&str; 8] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// A subresource as discovery lists it: name, the kind it takes and gives (group, version when not the
/// parent's), verbs.
struct Sub {
    name: &'static str,
    kind: Option<(&'static str, &'static str, &'static str)>,
    verbs: &'static [&'static str],
}

const STATUS: Sub = Sub { name: "status", kind: None, verbs: &["get", "patch", "update"] };
const SCALE: Sub =
    Sub { name: "scale", kind: Some(("Scale", "autoscaling", "v1")), verbs: &["get", "patch", "update"] };

/// The subresources kubeglass serves, by resource.
fn subresources(info: &ResourceInfo) -> Vec<Sub> {
    match (info.group, info.resource) {
        ("", "pods") => vec![
            Sub { name: "attach", kind: Some(("PodAttachOptions", "", "")), verbs: &["create", "get"] },
            Sub { name: "binding", kind: Some(("Binding", "", "")), verbs: &["create"] },
            Sub { name: "ephemeralcontainers", kind: Some(("Pod", "", "")), verbs: &["get", "patch", "update"] },
            Sub { name: "eviction", kind: Some(("Eviction", "policy", "v1")), verbs: &["create"] },
            Sub { name: "exec", kind: Some(("PodExecOptions", "", "")), verbs: &["create", "get"] },
            Sub { name: "log", kind: None, verbs: &["get"] },
            Sub { name: "portforward", kind: Some(("PodPortForwardOptions", "", "")), verbs: &["create", "get"] },
            STATUS,
        ],
        ("", "serviceaccounts") => {
            vec![Sub { name: "token", kind: Some(("TokenRequest", "authentication.k8s.io", "v1")), verbs: &["create"] }]
        }
        ("", "nodes" | "services" | "persistentvolumeclaims" | "persistentvolumes" | "resourcequotas") => vec![STATUS],
        ("", "namespaces") => {
            vec![Sub { name: "finalize", kind: None, verbs: &["update"] }, STATUS]
        }
        ("certificates.k8s.io", "certificatesigningrequests") => {
            vec![Sub { name: "approval", kind: None, verbs: &["get", "patch", "update"] }, STATUS]
        }
        ("apps", "deployments" | "replicasets" | "statefulsets") | ("", "replicationcontrollers") => {
            vec![SCALE, STATUS]
        }
        ("apiregistration.k8s.io", "apiservices")
        | ("apiextensions.k8s.io", "customresourcedefinitions")
        | ("flowcontrol.apiserver.k8s.io", _)
        | ("networking.k8s.io", "servicecidrs")
        | ("storage.k8s.io", "volumeattachments")
        | ("resource.k8s.io", "resourceclaims") => vec![STATUS],
        ("apps", "daemonsets")
        | ("batch", _)
        | ("autoscaling", _)
        | ("policy", "poddisruptionbudgets")
        | ("networking.k8s.io", "ingresses") => vec![STATUS],
        _ => Vec::new(),
    }
}

/// The apiVersion and kind a subresource's body has (`pods/eviction`: `policy/v1` `Eviction`); the parent's
/// own for `status` and for a subresource kubeglass does not serve.
pub(crate) fn body_kind(info: &ResourceInfo, subresource: Option<&str>) -> (String, &'static str) {
    let sub = subresource.and_then(|name| subresources(info).into_iter().find(|s| s.name == name));
    match sub.and_then(|s| s.kind) {
        Some((kind, "", "")) => (info.api_version(), kind),
        Some((kind, group, version)) => (format!("{group}/{version}"), kind),
        None => (info.api_version(), info.kind.name()),
    }
}

/// The verbs discovery lists for a resource: all of them for a stored one, `get` and `list` for the
/// computed ComponentStatuses, `create` for the create-only ones (bindings, the reviews).
pub fn verbs(info: &ResourceInfo) -> &'static [&'static str] {
    match (info.stored, info.resource) {
        // Namespaces are deleted one by one (the namespace controller empties each): no deletecollection.
        (true, "namespaces") => &["create", "delete", "get", "list", "patch", "update", "watch"],
        (true, _) => &STORED_VERBS,
        (false, "componentstatuses") => &["get", "list"],
        (false, _) => &["create"],
    }
}

/// The categories a resource belongs to (`kubectl get all`, `kubectl get api-extensions`), as each
/// registry's `Categories()` gives them.
pub fn categories(info: &ResourceInfo) -> &'static [&'static str] {
    match (info.group, info.resource) {
        _ if info.in_all => &["all"],
        ("admissionregistration.k8s.io", _)
        | ("apiextensions.k8s.io", "customresourcedefinitions")
        | ("apiregistration.k8s.io", "apiservices") => &["api-extensions"],
        _ => &[],
    }
}

/// The resources discovery lists (top-level ones: evictions and scales exist only as subresources).
pub(crate) fn listed() -> impl Iterator<Item = &'static ResourceInfo> {
    RESOURCES.iter().filter(|r| r.discovered())
}

/// The groups in the order `/apis` lists them (the core group is `/api`'s).
pub(crate) fn groups() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for r in listed().filter(|r| !r.group.is_empty()) {
        if !out.contains(&(r.group, r.version)) {
            out.push((r.group, r.version));
        }
    }
    out.sort();
    out
}

/// A group's `APIGroup`: its versions, newest first, the first preferred.
fn custom_group_json(group: &str, versions: &[String]) -> Value {
    let gvs: Vec<Value> =
        versions.iter().map(|v| json!({ "groupVersion": format!("{group}/{v}"), "version": v })).collect();
    json!({ "name": group, "versions": gvs.clone(), "preferredVersion": gvs.first().cloned().unwrap_or(Value::Null) })
}

fn group_json(group: &str, version: &str) -> Value {
    custom_group_json(group, &[version.to_string()])
}

fn resource_list(group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    let mut rows: Vec<&ResourceInfo> = listed().filter(|r| r.group == group && r.version == version).collect();
    rows.sort_by_key(|r| r.resource);
    for r in rows {
        let mut entry = json!({
            "name": r.resource,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind.name(),
            "verbs": verbs(r),
        });
        if !r.short_names.is_empty() {
            entry["shortNames"] = json!(r.short_names);
        }
        if !categories(r).is_empty() {
            entry["categories"] = json!(categories(r));
        }
        resources.push(entry);
        for sub in subresources(r) {
            let mut e = json!({
                "name": format!("{}/{}", r.resource, sub.name),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": sub.kind.map_or(r.kind.name(), |(k, _, _)| k),
                "verbs": sub.verbs,
            });
            if let Some((_, g, v)) = sub.kind.filter(|(_, g, _)| !g.is_empty()) {
                e["group"] = json!(g);
                e["version"] = json!(v);
            }
            resources.push(e);
        }
    }
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    json!({ "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources })
}

/// The media type of an aggregated discovery answer.
pub const AGGREGATED_MEDIA_TYPE: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Whether a client's `Accept` asks for the aggregated discovery list (v2).
pub fn wants_aggregated(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| {
        a.split(',').any(|m| {
            let params: Vec<&str> = m.split(';').map(str::trim).collect();
            params.contains(&"g=apidiscovery.k8s.io")
                && params.contains(&"v=v2")
                && params.contains(&"as=APIGroupDiscoveryList")
        })
    })
}

/// A group-version-kind as discovery writes it.
fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

/// One resource of the aggregated list (`APIResourceDiscovery`).
fn resource_discovery(r: &ResourceInfo) -> Value {
    let mut entry = serde_json::Map::new();
    entry.insert("resource".into(), json!(r.resource));
    entry.insert("responseKind".into(), gvk(r.group, r.version, r.kind.name()));
    entry.insert("scope".into(), json!(if r.namespaced { "Namespaced" } else { "Cluster" }));
    entry.insert("singularResource".into(), json!(r.singular));
    entry.insert("verbs".into(), json!(verbs(r)));
    if !r.short_names.is_empty() {
        entry.insert("shortNames".into(), json!(r.short_names));
    }
    if !categories(r).is_empty() {
        entry.insert("categories".into(), json!(categories(r)));
    }
    let subs: Vec<Value> = subresources(r)
        .iter()
        .map(|s| {
            let kind = match s.kind {
                Some((kind, "", "")) => gvk(r.group, r.version, kind),
                Some((kind, group, version)) => gvk(group, version, kind),
                None => gvk(r.group, r.version, r.kind.name()),
            };
            json!({"subresource": s.name, "responseKind": kind, "verbs": s.verbs})
        })
        .collect();
    if !subs.is_empty() {
        entry.insert("subresources".into(), Value::Array(subs));
    }
    Value::Object(entry)
}

/// One group of the aggregated list with its versions (one each here), the newest first.
fn group_discovery(group: &str, version: &str) -> Value {
    let mut rows: Vec<&ResourceInfo> = listed().filter(|r| r.group == group && r.version == version).collect();
    rows.sort_by_key(|r| r.resource);
    let resources: Vec<Value> = rows.into_iter().map(resource_discovery).collect();
    let metadata = if group.is_empty() {
        json!({"creationTimestamp": null})
    } else {
        json!({"name": group, "creationTimestamp": null})
    };
    json!({"metadata": metadata, "versions": [{"version": version, "resources": resources, "freshness": "Current"}]})
}

/// Whether `path` is one of the two aggregated discovery paths (`/api`, `/apis`).
pub fn is_aggregated_path(path: &str) -> bool {
    matches!(path.split('?').next().unwrap_or(path).trim_end_matches('/'), "/api" | "/apis")
}

/// The aggregated discovery list at `/api` or `/apis` (`APIGroupDiscoveryList`) with the groups the
/// definitions `crds` add after the built-in ones; None for any other path. The built-in groups follow
/// from the static table of resources, so they are built once.
pub fn aggregated(path: &str, crds: &[Arc<Object>]) -> Option<String> {
    static CORE: OnceLock<String> = OnceLock::new();
    static BUILT_IN: OnceLock<Vec<Value>> = OnceLock::new();
    static GROUPS: OnceLock<String> = OnceLock::new();
    let built_in = || BUILT_IN.get_or_init(|| groups().iter().map(|(g, v)| group_discovery(g, v)).collect());
    match path.split('?').next().unwrap_or(path).trim_end_matches('/') {
        "/api" => Some(CORE.get_or_init(|| aggregated_list(vec![group_discovery("", "v1")])).clone()),
        "/apis" if crds.is_empty() => Some(GROUPS.get_or_init(|| aggregated_list(built_in().clone())).clone()),
        "/apis" => {
            let mut items = built_in().clone();
            items.extend(custom_groups(crds).iter().map(|(g, versions)| custom_group_discovery(crds, g, versions)));
            Some(aggregated_list(items))
        }
        _ => None,
    }
}

fn aggregated_list(items: Vec<Value>) -> String {
    let list = json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items});
    // Only discovery clients ask for this body, and they decode it: its keys are in serde_json's order.
    format!("{list}\n")
}

/// The ETag of an aggregated discovery body: the SHA-512 of the body in upper-case hex, quoted.
pub fn etag(body: &str) -> String {
    let body = body.strip_suffix('\n').unwrap_or(body);
    let hash: String = Sha512::digest(body.as_bytes()).iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hash}\"")
}

/// The definitions discovery lists: the established ones (its controller skips the rest, though their
/// resources are served as soon as their names are accepted).
fn definitions(crds: &[Arc<Object>]) -> impl Iterator<Item = &CustomResourceDefinition> {
    crds.iter().filter_map(|o| match o.as_ref() {
        Object::CustomResourceDefinition(d) if apiextensions::condition_true(d, "Established") => Some(d.as_ref()),
        _ => None,
    })
}

/// The groups the definitions add, by name, each with its served versions, the preferred first.
pub fn custom_groups(crds: &[Arc<Object>]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for d in definitions(crds) {
        let versions = d.spec.versions.iter().filter(|v| v.served).map(|v| v.name.clone());
        match groups.iter_mut().find(|(g, _)| *g == d.spec.group) {
            Some((_, vs)) => vs.extend(versions),
            None => groups.push((d.spec.group.clone(), versions.collect())),
        }
    }
    for (_, versions) in &mut groups {
        versions.sort_by(|a, b| compare_kube_versions(b, a));
        versions.dedup();
    }
    groups.sort();
    groups
}

/// apimachinery's `CompareKubeAwareVersionStrings`: GA before beta before alpha, a higher major or minor
/// first; names that are no Kubernetes version after all that do, in lexical order. Greater is newer.
pub fn compare_kube_versions(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u64, u8, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        match &rest[digits..] {
            "" => Some((major, 2, 0)),
            tail => {
                let (stage, minor) =
                    if let Some(m) = tail.strip_prefix("beta") { (1, m) } else { (0, tail.strip_prefix("alpha")?) };
                Some((major, stage, minor.parse().ok()?))
            }
        }
    }
    match (parse(a), parse(b)) {
        (Some((ma, sa, na)), Some((mb, sb, nb))) => sa.cmp(&sb).then(ma.cmp(&mb)).then(na.cmp(&nb)),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

/// The verbs of a definition's resource: all of them, or only reads and deletes while it is being deleted.
fn custom_verbs(d: &CustomResourceDefinition) -> Vec<&'static str> {
    if apiextensions::condition_true(d, "Terminating") {
        vec!["delete", "deletecollection", "get", "list", "watch"]
    } else {
        vec!["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
    }
}

/// The accepted names and scope of a definition.
fn custom_names(d: &CustomResourceDefinition) -> (ResourceInfo, Vec<String>, Vec<String>) {
    let kind = apiextensions::kind_of(d);
    let names = d.status.as_ref().and_then(|s| s.accepted_names.clone()).unwrap_or_default();
    (*kind.info(), names.short_names.unwrap_or_default(), names.categories.unwrap_or_default())
}

/// `StorageVersionHash`: the first 8 bytes of SHA-256 over `group/version/kind`, in base64.
fn storage_version_hash(d: &CustomResourceDefinition) -> String {
    let storage = d.spec.versions.iter().find(|v| v.storage).map_or("", |v| v.name.as_str());
    let digest = Sha256::digest(format!("{}/{storage}/{}", d.spec.group, d.spec.names.kind).as_bytes());
    data_encoding::BASE64.encode(&digest[..8])
}

/// The definitions of `group` serving `version`, in name order.
pub(crate) fn serving<'a>(
    crds: &'a [Arc<Object>],
    group: &'a str,
    version: &'a str,
) -> impl Iterator<Item = &'a CustomResourceDefinition> {
    definitions(crds)
        .filter(move |d| d.spec.group == group && d.spec.versions.iter().any(|v| v.name == version && v.served))
}

fn subresources_of(d: &CustomResourceDefinition, version: &str) -> (bool, bool) {
    let subs = d.spec.versions.iter().find(|v| v.name == version).and_then(|v| v.subresources.as_ref());
    (subs.is_some_and(|s| s.status.is_some()), subs.is_some_and(|s| s.scale.is_some()))
}

/// A custom group's `APIResourceList` entries for `version` (`/apis/<group>/<version>`).
fn custom_resource_list(crds: &[Arc<Object>], group: &str, version: &str) -> Value {
    let mut resources = Vec::new();
    for d in serving(crds, group, version) {
        let (info, short, categories) = custom_names(d);
        let mut entry = json!({"name": info.resource, "singularName": info.singular, "namespaced": info.namespaced,
            "kind": info.kind.name(), "verbs": custom_verbs(d)});
        if !short.is_empty() {
            entry["shortNames"] = json!(short);
        }
        if !categories.is_empty() {
            entry["categories"] = json!(categories);
        }
        entry["storageVersionHash"] = json!(storage_version_hash(d));
        resources.push(entry);
        let (status, scale) = subresources_of(d, version);
        if status {
            resources.push(json!({"name": format!("{}/status", info.resource), "singularName": "",
                "namespaced": info.namespaced, "kind": info.kind.name(), "verbs": ["get", "patch", "update"]}));
        }
        if scale {
            resources.push(json!({"name": format!("{}/scale", info.resource), "singularName": "",
                "namespaced": info.namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale",
                "verbs": ["get", "patch", "update"]}));
        }
    }
    json!({ "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": format!("{group}/{version}"), "resources": resources })
}

/// A custom group as the aggregated list has it: each version (newest first) with its resources by name.
fn custom_group_discovery(crds: &[Arc<Object>], group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| {
            let mut resources: Vec<(String, Value)> = serving(crds, group, version)
                .map(|d| {
                    let (info, short, categories) = custom_names(d);
                    let gvk = gvk(group, version, info.kind.name());
                    let mut entry = serde_json::Map::new();
                    entry.insert("resource".into(), json!(info.resource));
                    entry.insert("responseKind".into(), gvk.clone());
                    entry.insert("scope".into(), json!(if info.namespaced { "Namespaced" } else { "Cluster" }));
                    entry.insert("singularResource".into(), json!(info.singular));
                    entry.insert("verbs".into(), json!(custom_verbs(d)));
                    if !short.is_empty() {
                        entry.insert("shortNames".into(), json!(short));
                    }
                    if !categories.is_empty() {
                        entry.insert("categories".into(), json!(categories));
                    }
                    let (status, scale) = subresources_of(d, version);
                    let mut subs = Vec::new();
                    if status {
                        subs.push(
                            json!({"subresource": "status", "responseKind": gvk, "verbs": ["get", "patch", "update"]}),
                        );
                    }
                    if scale {
                        subs.push(
                            json!({"subresource": "scale", "responseKind": self::gvk("autoscaling", "v1", "Scale"),
                            "verbs": ["get", "patch", "update"]}),
                        );
                    }
                    if !subs.is_empty() {
                        entry.insert("subresources".into(), Value::Array(subs));
                    }
                    (info.resource.to_string(), Value::Object(entry))
                })
                .collect();
            resources.sort_by(|a, b| a.0.cmp(&b.0));
            let resources: Vec<Value> = resources.into_iter().map(|(_, v)| v).collect();
            json!({"version": version, "resources": resources, "freshness": "Current"})
        })
        .collect();
    json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
}

/// The discovery document at `path` (query ignored) with what the definitions `crds` add, or None when
/// `path` is not a discovery path.
pub fn document(path: &str, crds: &[Arc<Object>]) -> Option<String> {
    let custom = custom_groups(crds);
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let doc = match segments.as_slice() {
        ["api"] => json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{ "clientCIDR": "0.0.0.0/0", "serverAddress": SERVER_ADDRESS }],
        }),
        ["api", "v1"] => resource_list("", "v1"),
        ["apis"] => {
            let mut groups: Vec<Value> = groups().iter().map(|(g, v)| group_json(g, v)).collect();
            groups.extend(custom.iter().map(|(g, vs)| custom_group_json(g, vs)));
            json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
        }
        ["apis", group] if custom.iter().any(|(g, _)| g == group) => {
            let (g, vs) = custom.iter().find(|(g, _)| g == group)?;
            let mut doc = custom_group_json(g, vs);
            doc["kind"] = json!("APIGroup");
            doc["apiVersion"] = json!("v1");
            doc
        }
        ["apis", group, version] if custom.iter().any(|(g, vs)| g == group && vs.iter().any(|v| v == version)) => {
            custom_resource_list(crds, group, version)
        }
        ["apis", group] => {
            let (g, v) = groups().into_iter().find(|(g, _)| g == group)?;
            let mut doc = group_json(g, v);
            doc["kind"] = json!("APIGroup");
            doc["apiVersion"] = json!("v1");
            doc
        }
        ["apis", group, version] if groups().contains(&(group, version)) => resource_list(group, version),
        _ => return None,
    };
    Some(format!("{doc}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str) -> Value {
        serde_json::from_str(&document(path, &[]).unwrap_or_else(|| panic!("{path} is not served"))).unwrap()
    }

    #[test]
    fn the_core_group_lists_its_resources_and_subresources() {
        assert_eq!(doc("/api")["versions"], json!(["v1"]));
        let v1 = doc("/api/v1");
        let pods = v1["resources"].as_array().unwrap().iter().find(|r| r["name"] == "pods").unwrap();
        assert_eq!(pods["shortNames"], json!(["po"]));
        assert_eq!(pods["categories"], json!(["all"]));
        assert_eq!(pods["verbs"].as_array().unwrap().len(), 8);
        let names: Vec<&str> = v1["resources"].as_array().unwrap().iter().filter_map(|r| r["name"].as_str()).collect();
        assert!(names.contains(&"pods/log") && names.contains(&"pods/eviction") && names.contains(&"bindings"));
        assert!(!names.contains(&"evictions"));
    }

    #[test]
    fn the_aggregated_lists_hold_every_served_resource_and_an_etag_of_their_body() {
        let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
        assert!(wants_aggregated(Some(accept)));
        assert!(!wants_aggregated(Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")));
        assert!(!wants_aggregated(Some("application/json")) && !wants_aggregated(None));
        let body = aggregated("/apis", &[]).unwrap();
        let etag = etag(&body);
        let list: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(list["apiVersion"], "apidiscovery.k8s.io/v2");
        let served: usize = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["versions"][0]["resources"].as_array().unwrap().len())
            .sum();
        assert_eq!(served, listed().filter(|r| !r.group.is_empty()).count());
        let deployments = list["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"] == "apps").unwrap()
            ["versions"][0]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["resource"] == "deployments")
            .cloned()
            .unwrap();
        let scale = &deployments["subresources"][0];
        assert_eq!((&scale["subresource"], &scale["responseKind"]["group"]), (&json!("scale"), &json!("autoscaling")));
        assert_eq!(etag.len(), 130, "a quoted SHA-512 in hex: {etag}");
        let rebuilt = aggregated_list(groups().iter().map(|(g, v)| group_discovery(g, v)).collect());
        assert_eq!(self::etag(&rebuilt), etag, "the same list, the same tag");
        assert!(aggregated("/api/v1", &[]).is_none());
    }

    #[test]
    fn groups_are_listed_with_their_preferred_version() {
        let apis = doc("/apis");
        let apps = apis["groups"].as_array().unwrap().iter().find(|g| g["name"] == "apps").unwrap();
        assert_eq!(apps["preferredVersion"]["groupVersion"], "apps/v1");
        let deployments = doc("/apis/apps/v1");
        let scale = deployments["resources"].as_array().unwrap().iter().find(|r| r["name"] == "deployments/scale");
        assert_eq!(scale.unwrap()["group"], "autoscaling");
        assert_eq!(doc("/apis/apps")["kind"], "APIGroup");
        assert!(document("/apis/widgets.example.com", &[]).is_none() && document("/apis/apps/v2", &[]).is_none());
        assert!(document("/readyz", &[]).is_none());
    }
}

#[cfg(test)]
mod version_order {
    use super::compare_kube_versions;

    #[test]
    fn kube_aware_versions_sort_newest_first() {
        let mut versions = vec!["v1alpha1", "foo", "v1", "v1beta2", "v2", "v1beta1", "bar", "v10alpha1"];
        versions.sort_by(|a, b| compare_kube_versions(b, a));
        assert_eq!(versions, vec!["v2", "v1", "v1beta2", "v1beta1", "v10alpha1", "v1alpha1", "bar", "foo"]);
    }
}
