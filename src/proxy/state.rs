//! What kube-proxy makes of the API objects it watches: each Service becomes service ports (cluster IP, port,
//! protocol, node port, external and load-balancer IPs, traffic policies, session affinity), and the
//! EndpointSlices of that Service become each port's endpoints, deduplicated by `ip:port` and sorted by that
//! string as the endpoints map does. Which endpoints a node uses for Cluster and Local traffic policy is
//! decided at rule time by [`categorize`]. Counterpart: `pkg/proxy/serviceport.go`, `servicechangetracker.go`,
//! `endpointslicecache.go` and `topology.go` (CategorizeEndpoints).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use crate::api::api::core::v1::Service;
use crate::api::api::discovery::v1::EndpointSlice;

use super::hash;

/// An IPv4 network (`10.244.0.0/16`); a host is a /32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cidr {
    pub addr: Ipv4Addr,
    pub prefix: u8,
}

impl Cidr {
    pub fn host(addr: Ipv4Addr) -> Cidr {
        Cidr { addr, prefix: 32 }
    }

    /// `a.b.c.d/n` or a bare address (a /32); None when it is neither.
    pub fn parse(text: &str) -> Option<Cidr> {
        let (ip, prefix) = match text.split_once('/') {
            Some((ip, p)) => (ip, p.parse::<u8>().ok().filter(|p| *p <= 32)?),
            None => (text, 32),
        };
        let addr: Ipv4Addr = ip.parse().ok()?;
        Some(Cidr { addr: Ipv4Addr::from(u32::from(addr) & mask(prefix)), prefix })
    }

    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        u32::from(ip) & mask(self.prefix) == u32::from(self.addr)
    }
}

fn mask(prefix: u8) -> u32 {
    if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix))
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// One port of one Service, as kube-proxy's service map holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePort {
    /// `namespace/name:port`, or `namespace/name` for an unnamed port.
    pub name: String,
    /// `namespace/name`.
    pub service: String,
    /// The port's name (empty when unnamed).
    pub port_name: String,
    /// Lowercase: `tcp`, `udp`, `sctp`.
    pub protocol: String,
    pub cluster_ip: Ipv4Addr,
    pub port: u16,
    /// 0 when the port has none.
    pub node_port: u16,
    pub external_ips: Vec<Ipv4Addr>,
    pub load_balancer_ips: Vec<Ipv4Addr>,
    pub load_balancer_source_ranges: Vec<Cidr>,
    /// externalTrafficPolicy: Local (only counts when the port is reachable from outside).
    pub external_local: bool,
    /// internalTrafficPolicy: Local.
    pub internal_local: bool,
    /// sessionAffinity: ClientIP, with its timeout in seconds.
    pub affinity_seconds: Option<u32>,
    /// 0 when the service has none.
    pub health_check_node_port: u16,
}

impl ServicePort {
    pub fn svc_chain(&self) -> String {
        hash::svc_chain(&self.name, &self.protocol)
    }

    pub fn svl_chain(&self) -> String {
        hash::svl_chain(&self.name, &self.protocol)
    }

    pub fn ext_chain(&self) -> String {
        hash::ext_chain(&self.name, &self.protocol)
    }

    pub fn fw_chain(&self) -> String {
        hash::fw_chain(&self.name, &self.protocol)
    }

    /// Reachable from outside the cluster: a node port, load-balancer IPs or external IPs.
    pub fn externally_accessible(&self) -> bool {
        self.node_port != 0 || !self.load_balancer_ips.is_empty() || !self.external_ips.is_empty()
    }

    pub fn external_policy_local(&self) -> bool {
        self.externally_accessible() && self.external_local
    }

    pub fn uses_cluster_endpoints(&self) -> bool {
        !self.internal_local || (self.externally_accessible() && !self.external_policy_local())
    }

    pub fn uses_local_endpoints(&self) -> bool {
        self.internal_local || self.external_policy_local()
    }
}

/// One endpoint of a service port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub ip: Ipv4Addr,
    pub port: u16,
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
    /// The node it runs on, when the slice says.
    pub node: Option<String>,
}

impl Endpoint {
    /// `ip:port`, the string kube-proxy hashes, sorts and DNATs to.
    pub fn address(&self) -> String {
        format!("{}:{}", self.ip, self.port)
    }

    pub fn sep_chain(&self, port: &ServicePort) -> String {
        hash::sep_chain(&port.name, &port.protocol, &self.address())
    }
}

/// A service port with the endpoints kube-proxy knows for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortEntry {
    pub port: ServicePort,
    pub endpoints: Vec<Endpoint>,
}

/// The service ports of a Service; none for headless and ExternalName services or an unparsable cluster IP
/// (kube-proxy skips those: `IsServiceIPSet`).
pub fn service_ports(svc: &Service) -> Vec<ServicePort> {
    let Some(spec) = svc.spec.as_ref() else { return Vec::new() };
    if spec.type_.as_deref() == Some("ExternalName") {
        return Vec::new();
    }
    let Some(cluster_ip) = spec.cluster_ip.as_deref().and_then(|ip| ip.parse::<Ipv4Addr>().ok()) else {
        return Vec::new();
    };
    let service = format!(
        "{}/{}",
        svc.metadata.namespace.as_deref().unwrap_or("default"),
        svc.metadata.name.as_deref().unwrap_or("")
    );
    let parse_all = |v: Option<&Vec<String>>| -> Vec<Ipv4Addr> {
        v.map(|v| v.iter().filter_map(|s| s.parse().ok()).collect()).unwrap_or_default()
    };
    let external_ips = parse_all(spec.external_ips.as_ref());
    let load_balancer_ips: Vec<Ipv4Addr> = svc
        .status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|lb| lb.ingress.as_ref())
        .map(|ing| ing.iter().filter_map(|i| i.ip.as_deref()?.parse().ok()).collect())
        .unwrap_or_default();
    let load_balancer_source_ranges: Vec<Cidr> = spec
        .load_balancer_source_ranges
        .as_ref()
        .map(|r| r.iter().filter_map(|c| Cidr::parse(c.trim())).collect())
        .unwrap_or_default();
    let affinity_seconds = (spec.session_affinity.as_deref() == Some("ClientIP")).then(|| {
        spec.session_affinity_config
            .as_ref()
            .and_then(|c| c.client_ip.as_ref())
            .and_then(|c| c.timeout_seconds)
            .and_then(|s| u32::try_from(s).ok())
            .unwrap_or(10_800)
    });
    let node_ports_allowed = matches!(spec.type_.as_deref(), Some("NodePort" | "LoadBalancer"));
    spec.ports
        .iter()
        .flatten()
        .filter_map(|p| {
            let port_name = p.name.clone().unwrap_or_default();
            let name = if port_name.is_empty() { service.clone() } else { format!("{service}:{port_name}") };
            Some(ServicePort {
                name,
                service: service.clone(),
                port_name,
                protocol: p.protocol.as_deref().unwrap_or("TCP").to_lowercase(),
                cluster_ip,
                port: u16::try_from(p.port).ok()?,
                node_port: p.node_port.filter(|_| node_ports_allowed).and_then(|n| u16::try_from(n).ok()).unwrap_or(0),
                external_ips: external_ips.clone(),
                load_balancer_ips: load_balancer_ips.clone(),
                load_balancer_source_ranges: if load_balancer_ips.is_empty() {
                    Vec::new()
                } else {
                    load_balancer_source_ranges.clone()
                },
                external_local: spec.external_traffic_policy.as_deref() == Some("Local"),
                internal_local: spec.internal_traffic_policy.as_deref() == Some("Local"),
                affinity_seconds,
                health_check_node_port: spec.health_check_node_port.and_then(|n| u16::try_from(n).ok()).unwrap_or(0),
            })
        })
        .collect()
}

/// Each service port with its endpoints from the Service's EndpointSlices: an IPv4 slice's port that has
/// the service port's name and protocol gives every endpoint of the slice at that port number. An
/// endpoint's `ready` and `serving` default to true, `terminating` to false (the API's nil semantics).
pub fn port_entries(svc: &Service, slices: &[&EndpointSlice]) -> Vec<PortEntry> {
    service_ports(svc)
        .into_iter()
        .map(|port| {
            let mut by_address: BTreeMap<String, Endpoint> = BTreeMap::new();
            for slice in slices.iter().filter(|s| s.address_type == "IPv4") {
                for sp in slice.ports.iter().flatten() {
                    let same_name = sp.name.as_deref().unwrap_or("") == port.port_name;
                    let same_protocol = sp.protocol.as_deref().unwrap_or("TCP").eq_ignore_ascii_case(&port.protocol);
                    let Some(number) = sp.port.and_then(|n| u16::try_from(n).ok()).filter(|n| *n > 0) else {
                        continue;
                    };
                    if !(same_name && same_protocol) {
                        continue;
                    }
                    for ep in &slice.endpoints {
                        let Some(ip) = ep.addresses.first().and_then(|a| a.parse::<Ipv4Addr>().ok()) else {
                            continue;
                        };
                        let c = ep.conditions.as_ref();
                        let ready = c.and_then(|c| c.ready).unwrap_or(true);
                        let endpoint = Endpoint {
                            ip,
                            port: number,
                            ready,
                            serving: c.and_then(|c| c.serving).unwrap_or(ready),
                            terminating: c.and_then(|c| c.terminating).unwrap_or(false),
                            node: ep.node_name.clone(),
                        };
                        by_address.entry(endpoint.address()).or_insert(endpoint);
                    }
                }
            }
            PortEntry { port, endpoints: by_address.into_values().collect() }
        })
        .collect()
}

/// The endpoints one node uses for a service port (CategorizeEndpoints).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Categorized<'a> {
    /// For Cluster traffic policy: ready endpoints, or else serving terminating ones.
    pub cluster: Vec<&'a Endpoint>,
    /// For Local traffic policy: this node's ready endpoints, or else its serving terminating ones.
    pub local: Vec<&'a Endpoint>,
    /// Every endpoint some rule of this node can reach: they get a KUBE-SEP chain.
    pub reachable: Vec<&'a Endpoint>,
    /// Whether the service port has any usable endpoint anywhere.
    pub has_any: bool,
}

pub fn categorize<'a>(entry: &'a PortEntry, node: &str) -> Categorized<'a> {
    let usable = |local_only: bool| -> Vec<&'a Endpoint> {
        let candidates = || entry.endpoints.iter().filter(move |e| !local_only || e.node.as_deref() == Some(node));
        let ready: Vec<&Endpoint> = candidates().filter(|e| e.ready).collect();
        if !ready.is_empty() {
            return ready;
        }
        candidates().filter(|e| e.serving && e.terminating).collect()
    };
    let port = &entry.port;
    if !port.uses_local_endpoints() {
        let cluster = usable(false);
        let has_any = !cluster.is_empty();
        return Categorized { reachable: cluster.clone(), cluster, local: Vec::new(), has_any };
    }
    let local = usable(true);
    let cluster = if port.uses_cluster_endpoints() { usable(false) } else { Vec::new() };
    let has_any = if port.uses_cluster_endpoints() { !cluster.is_empty() } else { !usable(false).is_empty() };
    let mut reachable = cluster.clone();
    for e in &local {
        if !reachable.iter().any(|r| r.address() == e.address()) {
            reachable.push(e);
        }
    }
    Categorized { cluster, local, reachable, has_any }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::discovery::v1::{Endpoint as SliceEndpoint, EndpointConditions, EndpointPort};
    use crate::api::ObjectMeta;

    pub(crate) fn service(json: serde_json::Value) -> Service {
        serde_json::from_value(json).unwrap()
    }

    fn slice(port: (&str, i32, &str), endpoints: &[(&str, bool, &str)]) -> EndpointSlice {
        EndpointSlice {
            metadata: ObjectMeta::default(),
            address_type: "IPv4".into(),
            ports: Some(vec![EndpointPort {
                name: Some(port.0.into()),
                port: Some(port.1),
                protocol: Some(port.2.into()),
                app_protocol: None,
            }]),
            endpoints: endpoints
                .iter()
                .map(|(ip, ready, node)| SliceEndpoint {
                    addresses: vec![ip.to_string()],
                    conditions: Some(EndpointConditions {
                        ready: Some(*ready),
                        serving: Some(*ready),
                        terminating: Some(false),
                    }),
                    node_name: Some(node.to_string()),
                    ..SliceEndpoint::default()
                })
                .collect(),
        }
    }

    fn web() -> Service {
        service(serde_json::json!({
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"type": "NodePort", "clusterIP": "10.96.12.34", "ports": [
                {"name": "http", "port": 80, "protocol": "TCP", "nodePort": 30080},
                {"name": "dns", "port": 53, "protocol": "UDP", "nodePort": 30053}
            ]}
        }))
    }

    #[test]
    fn service_ports_carry_their_names_and_lowercase_protocols() {
        let ports = service_ports(&web());
        assert_eq!(ports.len(), 2);
        assert_eq!((ports[0].name.as_str(), ports[0].protocol.as_str()), ("default/web:http", "tcp"));
        assert_eq!((ports[0].port, ports[0].node_port), (80, 30080));
        assert_eq!(ports[0].svc_chain(), "KUBE-SVC-CDGGSHYLG3RE2FKL");
        assert_eq!(ports[1].protocol, "udp");
        let unnamed = service(serde_json::json!({
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"clusterIP": "10.96.0.20", "ports": [{"port": 80}]}
        }));
        assert_eq!(service_ports(&unnamed)[0].name, "default/web");
        assert_eq!(service_ports(&unnamed)[0].node_port, 0);
    }

    #[test]
    fn headless_and_external_name_services_are_not_proxied() {
        let headless = service(serde_json::json!({
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"clusterIP": "None", "ports": [{"port": 5432}]}
        }));
        assert!(service_ports(&headless).is_empty());
        let external = service(serde_json::json!({
            "metadata": {"name": "ext", "namespace": "default"},
            "spec": {"type": "ExternalName", "externalName": "example.com"}
        }));
        assert!(service_ports(&external).is_empty());
    }

    #[test]
    fn endpoints_come_from_the_slice_port_with_the_same_name_and_protocol() {
        let a = slice(("http", 8080, "TCP"), &[("10.244.1.9", true, "node01"), ("10.244.1.10", true, "node01")]);
        let b = slice(("dns", 5353, "UDP"), &[("10.244.2.3", false, "node02")]);
        let entries = port_entries(&web(), &[&a, &b]);
        let http: Vec<String> = entries[0].endpoints.iter().map(Endpoint::address).collect();
        // Sorted as strings, as the endpoints map sorts them.
        assert_eq!(http, ["10.244.1.10:8080", "10.244.1.9:8080"]);
        assert_eq!(entries[1].endpoints.len(), 1);
        assert!(!entries[1].endpoints[0].ready);
    }

    #[test]
    fn not_ready_endpoints_are_left_out_unless_only_terminating_serving_ones_remain() {
        let s = slice(("http", 80, "TCP"), &[("10.244.1.2", true, "node01"), ("10.244.2.2", false, "node02")]);
        let entries = port_entries(&web(), &[&s]);
        let c = categorize(&entries[0], "node01");
        assert_eq!(c.cluster.len(), 1);
        assert!(c.has_any);
        let mut only_terminating = entries[0].clone();
        for e in &mut only_terminating.endpoints {
            e.ready = false;
            e.serving = true;
            e.terminating = true;
        }
        assert_eq!(categorize(&only_terminating, "node01").cluster.len(), 2);
        let mut none = entries[0].clone();
        none.endpoints.iter_mut().for_each(|e| e.ready = false);
        assert!(!categorize(&none, "node01").has_any);
    }

    #[test]
    fn local_traffic_policy_uses_this_nodes_endpoints() {
        let mut svc = web();
        svc.spec.as_mut().unwrap().external_traffic_policy = Some("Local".into());
        let s = slice(("http", 80, "TCP"), &[("10.244.1.2", true, "node01"), ("10.244.2.2", true, "node02")]);
        let entries = port_entries(&svc, &[&s]);
        let c = categorize(&entries[0], "node02");
        assert_eq!(c.local.iter().map(|e| e.address()).collect::<Vec<_>>(), ["10.244.2.2:80"]);
        assert_eq!(c.cluster.len(), 2, "cluster IP traffic still uses every endpoint");
        assert_eq!(c.reachable.len(), 2);
    }

    #[test]
    fn cidrs_parse_and_contain() {
        let c = Cidr::parse("10.244.0.0/16").unwrap();
        assert!(c.contains("10.244.3.7".parse().unwrap()));
        assert!(!c.contains("10.96.0.1".parse().unwrap()));
        assert_eq!(Cidr::parse("10.96.0.1").unwrap().to_string(), "10.96.0.1/32");
        assert_eq!(Cidr::parse("10.1.2.3/8").unwrap().to_string(), "10.0.0.0/8");
        assert!(Cidr::parse("10.0.0.0/33").is_none());
        assert!(Cidr::parse("nope").is_none());
    }
}

/// Hand-made service ports for the unit tests of the rules, their rendering and packet walks.
#[cfg(test)]
pub mod tests_support {
    use super::*;
    use crate::proxy::rules::NodeNet;

    /// A TCP service port `name` (`ns/svc:port` or `ns/svc`) at 10.96.12.34:`port` with endpoints
    /// (ip, ready, node) listening on `port`.
    pub fn entry(name: &str, port: u16, endpoints: &[(&str, bool, &str)]) -> PortEntry {
        let (service, port_name) = match name.split_once(':') {
            Some((s, p)) => (s.to_string(), p.to_string()),
            None => (name.to_string(), String::new()),
        };
        PortEntry {
            port: ServicePort {
                name: name.to_string(),
                service,
                port_name,
                protocol: "tcp".into(),
                cluster_ip: Ipv4Addr::new(10, 96, 12, 34),
                port,
                node_port: 0,
                external_ips: Vec::new(),
                load_balancer_ips: Vec::new(),
                load_balancer_source_ranges: Vec::new(),
                external_local: false,
                internal_local: false,
                affinity_seconds: None,
                health_check_node_port: 0,
            },
            endpoints: endpoints
                .iter()
                .map(|(ip, ready, node)| Endpoint {
                    ip: ip.parse().unwrap(),
                    port,
                    ready: *ready,
                    serving: *ready,
                    terminating: false,
                    node: Some(node.to_string()),
                })
                .collect(),
        }
    }

    pub fn node01() -> NodeNet {
        NodeNet {
            node: "node01".into(),
            node_ip: Ipv4Addr::new(192, 168, 56, 11),
            cluster_cidr: Cidr::parse("10.244.0.0/16"),
        }
    }
}
