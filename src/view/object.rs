//! The object inspector: any stored object as `kubectl get -o yaml` prints it (spec and status), its etcd
//! key, and its ownerReferences as links the UI can follow to the owner. Read from the apiserver's watch
//! cache, which is what kubectl reads too.

use serde::{Deserialize, Serialize};

use crate::api::kinds::{lookup, lookup_kind};
use crate::apiserver::cache::WatchCache;
use crate::kubectl::printers::output::{print_objects, OutputFormat, PrintOptions};
use crate::sim::SimTime;

/// An owner named by an ownerReference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerLink {
    /// The owner's resource (`replicasets`), for looking it up again.
    pub resource: String,
    /// `ReplicaSet`.
    pub kind: String,
    pub name: String,
    /// Owners live in their dependent's namespace (or are cluster-scoped).
    pub namespace: Option<String>,
    pub controller: bool,
    /// Whether the owner is still stored.
    pub present: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectView {
    /// `pods`.
    pub resource: String,
    /// `Pod`.
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// `/registry/pods/default/web-…`.
    pub etcd_key: String,
    pub yaml: String,
    pub owners: Vec<OwnerLink>,
}

/// `resource` (any name kubectl accepts: `po`, `pod`, `pods`, `Pod`) `namespace/name` as YAML, or a
/// kubectl-like error.
pub fn object_view(
    cache: &WatchCache,
    resource: &str,
    namespace: Option<&str>,
    name: &str,
    now: SimTime,
) -> Result<ObjectView, String> {
    let Some(info) = lookup(resource) else {
        return Err(format!("error: the server doesn't have a resource type \"{resource}\""));
    };
    let namespace = if info.namespaced { Some(namespace.unwrap_or("default")) } else { None };
    let Some(obj) = cache.get(info.kind, namespace, name) else {
        return Err(format!("Error from server (NotFound): {} \"{name}\" not found", info.qualified()));
    };
    let opts = PrintOptions { single: true, ..PrintOptions::default() };
    let yaml = print_objects(info.kind, std::slice::from_ref(&obj), &OutputFormat::Yaml, now, &opts)?;
    let owners = obj
        .meta()
        .owner_references
        .iter()
        .flatten()
        .map(|o| {
            let owner = lookup_kind(&o.api_version, &o.kind);
            let owner_ns = owner.filter(|i| i.namespaced).and(namespace);
            OwnerLink {
                resource: owner.map_or_else(|| o.kind.to_ascii_lowercase(), |i| i.resource.to_string()),
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: owner_ns.map(str::to_string),
                controller: o.controller.unwrap_or(false),
                present: owner.is_some_and(|i| cache.get(i.kind, owner_ns, &o.name).is_some()),
            }
        })
        .collect();
    Ok(ObjectView {
        resource: info.resource.to_string(),
        kind: info.kind.name().to_string(),
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
        etcd_key: info.key(namespace, name),
        yaml,
        owners,
    })
}

/// The resources a person can pick in the inspector, most used first.
pub const PICKABLE: [&str; 14] = [
    "pods",
    "deployments",
    "replicasets",
    "services",
    "endpointslices",
    "nodes",
    "namespaces",
    "daemonsets",
    "statefulsets",
    "jobs",
    "configmaps",
    "serviceaccounts",
    "leases",
    "events",
];

/// Up to `max` `namespace/name` (or `name`) of the stored objects of `resource`, in key order.
pub fn object_names(cache: &WatchCache, resource: &str, max: usize) -> Vec<String> {
    let Some(info) = lookup(resource) else { return Vec::new() };
    cache.list(info.kind, None).iter().take(max).map(|o| o.ns_name()).collect()
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn a_pod_shows_as_yaml_with_its_replicaset_as_owner() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl create deployment web --image=nginx", None, 30_000);
        assert_eq!(r.exit, Some(0));
        cluster.advance_ms(5_000);
        let names = cluster.object_names("pods", 500);
        let pod = names.iter().find(|n| n.starts_with("default/web-")).expect("the deployment's pod");
        let (ns, name) = pod.split_once('/').unwrap();
        let v = cluster.object_view("po", Some(ns), name).unwrap();
        assert_eq!((v.kind.as_str(), v.resource.as_str()), ("Pod", "pods"));
        assert_eq!(v.etcd_key, format!("/registry/pods/default/{name}"));
        assert!(v.yaml.starts_with("apiVersion: v1\nkind: Pod\nmetadata:\n"), "{}", v.yaml);
        assert!(v.yaml.contains("\nspec:\n") && v.yaml.contains("\nstatus:\n"));
        assert_eq!(v.owners.len(), 1);
        let owner = &v.owners[0];
        assert_eq!((owner.kind.as_str(), owner.resource.as_str()), ("ReplicaSet", "replicasets"));
        assert!(owner.controller && owner.present);
        assert_eq!(owner.namespace.as_deref(), Some("default"));
        // The link leads to the owner, whose owner is the Deployment.
        let rs = cluster.object_view(&owner.resource, owner.namespace.as_deref(), &owner.name).unwrap();
        assert_eq!(rs.owners[0].kind, "Deployment");
        assert_eq!(rs.owners[0].name, "web");
    }

    #[test]
    fn unknown_kinds_and_names_get_kubectls_errors() {
        let cluster = Cluster::new_default(1);
        assert_eq!(
            cluster.object_view("pods", Some("default"), "nope").unwrap_err(),
            "Error from server (NotFound): pods \"nope\" not found"
        );
        assert_eq!(
            cluster.object_view("widgets", None, "x").unwrap_err(),
            "error: the server doesn't have a resource type \"widgets\""
        );
        // Cluster-scoped objects ignore the namespace.
        let node = cluster.object_view("node", Some("default"), "node01").unwrap();
        assert_eq!((node.namespace, node.etcd_key.as_str()), (None, "/registry/minions/node01"));
    }
}
