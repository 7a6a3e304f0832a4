//! The simulated cloud a `cloud: true` cluster runs in: one instance per node (a machine the cloud can
//! delete) and the load balancers it provisions for Services. cloud-controller-manager reads and changes it
//! the way a real one calls its provider's API (`k8s.io/cloud-provider`'s `Instances` and `LoadBalancer`
//! interfaces); the person's side (deleting an instance) goes through [`crate::cluster::Cluster`].
//! Load balancer addresses come from 203.0.113.0/24 (TEST-NET-3, a range reserved for documentation), in the
//! order they are asked for, and are reused after their balancer is deleted.

use std::collections::{BTreeMap, BTreeSet};

/// Instance type, region and zone every simulated instance reports.
pub const INSTANCE_TYPE: &str = "e2-standard-2";
pub const REGION: &str = "kubeglass-central1";
pub const ZONE: &str = "kubeglass-central1-a";

/// The cloud's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cloud {
    /// Node name → whether its instance still exists.
    instances: BTreeMap<String, bool>,
    /// `namespace/name` of a Service → its balancer's address.
    balancers: BTreeMap<String, String>,
}

impl Cloud {
    /// A cloud with one running instance per node.
    pub fn with_instances<'a>(nodes: impl Iterator<Item = &'a str>) -> Cloud {
        Cloud { instances: nodes.map(|n| (n.to_string(), true)).collect(), balancers: BTreeMap::new() }
    }

    /// `InstanceExists`: an unknown node has no instance either.
    pub fn instance_exists(&self, node: &str) -> bool {
        self.instances.get(node).copied().unwrap_or(false)
    }

    /// The provider ID of a node's instance (`kubeglass://<zone>/<node>`), if it exists.
    pub fn provider_id(&self, node: &str) -> Option<String> {
        self.instance_exists(node).then(|| format!("kubeglass://{ZONE}/{node}"))
    }

    /// Deletes an instance (the machine is gone); false when there was none.
    pub fn delete_instance(&mut self, node: &str) -> bool {
        match self.instances.get_mut(node) {
            Some(alive) if *alive => {
                *alive = false;
                true
            }
            _ => false,
        }
    }

    /// `EnsureLoadBalancer`: the balancer's address, allocated on first use.
    pub fn ensure_load_balancer(&mut self, service: &str) -> Option<String> {
        if let Some(ip) = self.balancers.get(service) {
            return Some(ip.clone());
        }
        let used: BTreeSet<&String> = self.balancers.values().collect();
        let ip = (10..=254).map(|n| format!("203.0.113.{n}")).find(|ip| !used.contains(ip))?;
        self.balancers.insert(service.to_string(), ip.clone());
        Some(ip)
    }

    /// `EnsureLoadBalancerDeleted`.
    pub fn delete_load_balancer(&mut self, service: &str) {
        self.balancers.remove(service);
    }

    /// The address of a Service's balancer, if it has one.
    pub fn load_balancer(&self, service: &str) -> Option<&str> {
        self.balancers.get(service).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balancers_get_addresses_in_order_and_give_them_back() {
        let mut cloud = Cloud::with_instances(["node01", "node02"].into_iter());
        assert_eq!(cloud.ensure_load_balancer("default/a").as_deref(), Some("203.0.113.10"));
        assert_eq!(cloud.ensure_load_balancer("default/b").as_deref(), Some("203.0.113.11"));
        assert_eq!(cloud.ensure_load_balancer("default/a").as_deref(), Some("203.0.113.10"));
        cloud.delete_load_balancer("default/a");
        assert_eq!(cloud.ensure_load_balancer("default/c").as_deref(), Some("203.0.113.10"));
    }

    #[test]
    fn a_deleted_instance_no_longer_exists() {
        let mut cloud = Cloud::with_instances(["node01"].into_iter());
        assert_eq!(cloud.provider_id("node01").as_deref(), Some("kubeglass://kubeglass-central1-a/node01"));
        assert!(cloud.delete_instance("node01"));
        assert!(!cloud.delete_instance("node01"));
        assert!(!cloud.instance_exists("node01") && !cloud.instance_exists("nodeX"));
    }
}
