//! A node's netfilter tables as kube-proxy's iptables mode leaves them: the rules are data (chains of rules
//! made of matches and a target), built by [`build`] from the service ports kube-proxy last synced, rendered
//! by `save` as `iptables-save` prints them and walked by `packet` when `curl` sends a connection. The rule
//! sequence follows `syncProxyRules` of `pkg/proxy/iptables/proxier.go`: jump rules from the built-in chains,
//! KUBE-POSTROUTING and KUBE-MARK-MASQ, then per service port its cluster-IP, external-IP, load-balancer and
//! node-port captures, KUBE-EXT-/KUBE-FW- chains, the KUBE-SVC-/KUBE-SVL- chains with `statistic` rules,
//! the KUBE-SEP- chains, the final KUBE-NODEPORTS jump, and the filter table's REJECT/DROP rules for
//! services without (local) endpoints. kubelet's own chains (KUBE-FIREWALL, the canaries, the iptables
//! hint) are included because `iptables-save` shows them on every kubeadm node.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use super::state::{categorize, Cidr, Endpoint, PortEntry, ServicePort};

/// kube-proxy's masquerade mark: bit 14 (`--iptables-masquerade-bit`'s default).
pub const MASQ_MARK: u32 = 0x4000;
/// Above this many endpoints kube-proxy stops writing per-endpoint comments (largeClusterEndpointsThreshold).
pub const LARGE_CLUSTER_ENDPOINTS: usize = 1000;

/// One match of a rule.
#[derive(Debug, Clone, PartialEq)]
pub enum Match {
    /// `[!] -s CIDR`
    Source { cidr: Cidr, negate: bool },
    /// `[!] -d CIDR`
    Dest { cidr: Cidr, negate: bool },
    /// `-p PROTO`
    Protocol(String),
    /// `-m comment --comment TEXT`
    Comment(String),
    /// `-m PROTO [--dport N]`
    Port { protocol: String, dport: Option<u16> },
    /// `-m addrtype --src-type LOCAL` / `--dst-type LOCAL`
    AddrTypeLocal { source: bool },
    /// `-m statistic --mode random --probability P`, P as the kernel stores it (a fraction of 2^31).
    Statistic { probability: u32 },
    /// `-m mark [!] --mark VALUE/MASK`
    Mark { value: u32, mask: u32, negate: bool },
    /// `-m conntrack [!] --ctstate STATES`
    ConnState { states: &'static str, negate: bool },
    /// `-m recent --set` (remember the source) or `--rcheck --seconds S --reap` (seen within S seconds).
    Recent { name: String, check_seconds: Option<u32> },
}

/// What a matching rule does.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Jump(String),
    Return,
    Accept,
    Drop,
    Reject,
    Dnat {
        ip: Ipv4Addr,
        port: u16,
    },
    Masquerade,
    /// `MARK --set-xmark VALUE/MASK`: mark = (mark & !mask) ^ value.
    SetXMark {
        value: u32,
        mask: u32,
    },
    /// A rule with only matches (KUBE-FW's last rule): it counts packets and does nothing.
    Nothing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub matches: Vec<Match>,
    pub target: Target,
}

/// A chain and its rules in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chain {
    pub rules: Vec<Rule>,
}

/// One table: its built-in chains in hook order, then its user chains by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub builtins: Vec<(&'static str, Chain)>,
    pub chains: BTreeMap<String, Chain>,
}

impl Table {
    fn new(name: &'static str, builtins: &[&'static str]) -> Table {
        Table { name, builtins: builtins.iter().map(|b| (*b, Chain::default())).collect(), chains: BTreeMap::new() }
    }

    /// The chain called `name`, built-in or not.
    pub fn chain(&self, name: &str) -> Option<&Chain> {
        self.builtins.iter().find(|(b, _)| *b == name).map(|(_, c)| c).or_else(|| self.chains.get(name))
    }

    fn declare(&mut self, name: &str) {
        self.chains.entry(name.to_string()).or_default();
    }

    fn append(&mut self, chain: &str, matches: Vec<Match>, target: Target) {
        let rule = Rule { matches, target };
        match self.builtins.iter_mut().find(|(b, _)| *b == chain) {
            Some((_, c)) => c.rules.push(rule),
            None => self.chains.entry(chain.to_string()).or_default().rules.push(rule),
        }
    }
}

/// A node's mangle, filter and nat tables, in the order `iptables-save` prints them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    pub mangle: Table,
    pub filter: Table,
    pub nat: Table,
}

impl Tables {
    pub fn all(&self) -> [&Table; 3] {
        [&self.mangle, &self.filter, &self.nat]
    }

    pub fn get(&self, name: &str) -> Option<&Table> {
        self.all().into_iter().find(|t| t.name == name)
    }
}

/// What kube-proxy knows about its own node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeNet {
    pub node: String,
    pub node_ip: Ipv4Addr,
    /// `clusterCIDR` (detectLocalMode ClusterCIDR): pod traffic is what comes from inside it.
    pub cluster_cidr: Option<Cidr>,
}

/// The probability kube-proxy writes for the i-th of the remaining `n` endpoints (`%0.10f` of 1/n), as
/// iptables stores it: lround(2^31 × p).
pub fn probability(n: usize) -> u32 {
    let written: f64 = format!("{:.10}", 1.0 / n as f64).parse().unwrap_or(0.0);
    (written * 2_147_483_648.0).round() as u32
}

fn comment(text: impl Into<String>) -> Match {
    Match::Comment(text.into())
}

fn ip_port(port: &ServicePort, dest: Ipv4Addr, dport: u16) -> Vec<Match> {
    vec![
        Match::Port { protocol: port.protocol.clone(), dport: Some(dport) },
        Match::Protocol(port.protocol.clone()),
        Match::Dest { cidr: Cidr::host(dest), negate: false },
    ]
}

fn with(mut first: Vec<Match>, rest: Vec<Match>) -> Vec<Match> {
    first.extend(rest);
    first
}

fn masq() -> Target {
    Target::Jump("KUBE-MARK-MASQ".into())
}

/// Every table of the node, from the service ports kube-proxy programs.
pub fn build<'a>(entries: impl IntoIterator<Item = &'a PortEntry> + Clone, node: &NodeNet) -> Tables {
    let mut mangle = Table::new("mangle", &["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]);
    for c in ["KUBE-IPTABLES-HINT", "KUBE-KUBELET-CANARY", "KUBE-PROXY-CANARY"] {
        mangle.declare(c);
    }
    let mut filter = Table::new("filter", &["INPUT", "FORWARD", "OUTPUT"]);
    let mut nat = Table::new("nat", &["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]);
    jump_rules(&mut filter, &mut nat);
    let mark = |negate| Match::Mark { value: MASQ_MARK, mask: MASQ_MARK, negate };
    nat.append("KUBE-POSTROUTING", vec![mark(true)], Target::Return);
    nat.append("KUBE-POSTROUTING", vec![], Target::SetXMark { value: MASQ_MARK, mask: 0 });
    nat.append("KUBE-POSTROUTING", vec![comment("kubernetes service traffic requiring SNAT")], Target::Masquerade);
    nat.append("KUBE-MARK-MASQ", vec![], Target::SetXMark { value: MASQ_MARK, mask: MASQ_MARK });
    for c in ["KUBE-SERVICES", "KUBE-NODEPORTS"] {
        nat.declare(c);
    }
    let total: usize = entries.clone().into_iter().map(|e| e.endpoints.len()).sum();
    let large = total > LARGE_CLUSTER_ENDPOINTS;
    for entry in entries {
        service_port_rules(entry, node, large, &mut filter, &mut nat);
    }
    nat.append(
        "KUBE-SERVICES",
        vec![
            comment("kubernetes service nodeports; NOTE: this must be the last rule in this chain"),
            Match::AddrTypeLocal { source: false },
        ],
        Target::Jump("KUBE-NODEPORTS".into()),
    );
    filter.append("KUBE-FORWARD", vec![Match::ConnState { states: "INVALID", negate: false }], Target::Drop);
    filter.append("KUBE-FORWARD", vec![comment("kubernetes forwarding rules"), mark(false)], Target::Accept);
    filter.append(
        "KUBE-FORWARD",
        vec![
            comment("kubernetes forwarding conntrack rule"),
            Match::ConnState { states: "RELATED,ESTABLISHED", negate: false },
        ],
        Target::Accept,
    );
    Tables { mangle, filter, nat }
}

/// The jumps from the built-in chains (kube-proxy prepends each in list order, so the last is first;
/// kubelet's KUBE-FIREWALL jumps were there before kube-proxy started) and the chains they need.
fn jump_rules(filter: &mut Table, nat: &mut Table) {
    let new = || Match::ConnState { states: "NEW", negate: false };
    let jump = |c: &str| Target::Jump(c.to_string());
    let firewall = || vec![new(), comment("kubernetes load balancer firewall")];
    let external = || vec![new(), comment("kubernetes externally-visible service portals")];
    filter.append("INPUT", firewall(), jump("KUBE-PROXY-FIREWALL"));
    filter.append("INPUT", vec![comment("kubernetes health check service ports")], jump("KUBE-NODEPORTS"));
    filter.append("INPUT", external(), jump("KUBE-EXTERNAL-SERVICES"));
    filter.append("INPUT", vec![], jump("KUBE-FIREWALL"));
    filter.append("FORWARD", firewall(), jump("KUBE-PROXY-FIREWALL"));
    filter.append("FORWARD", vec![comment("kubernetes forwarding rules")], jump("KUBE-FORWARD"));
    filter.append("FORWARD", vec![new(), comment("kubernetes service portals")], jump("KUBE-SERVICES"));
    filter.append("FORWARD", external(), jump("KUBE-EXTERNAL-SERVICES"));
    filter.append("OUTPUT", firewall(), jump("KUBE-PROXY-FIREWALL"));
    filter.append("OUTPUT", vec![new(), comment("kubernetes service portals")], jump("KUBE-SERVICES"));
    filter.append("OUTPUT", vec![], jump("KUBE-FIREWALL"));
    for c in [
        "KUBE-EXTERNAL-SERVICES",
        "KUBE-FORWARD",
        "KUBE-KUBELET-CANARY",
        "KUBE-NODEPORTS",
        "KUBE-PROXY-CANARY",
        "KUBE-PROXY-FIREWALL",
        "KUBE-SERVICES",
    ] {
        filter.declare(c);
    }
    let localnet = Cidr { addr: Ipv4Addr::new(127, 0, 0, 0), prefix: 8 };
    filter.append(
        "KUBE-FIREWALL",
        vec![
            comment("block incoming localnet connections"),
            Match::Dest { cidr: localnet, negate: false },
            Match::Source { cidr: localnet, negate: true },
            Match::ConnState { states: "RELATED,ESTABLISHED,DNAT", negate: true },
        ],
        Target::Drop,
    );
    nat.append("PREROUTING", vec![comment("kubernetes service portals")], jump("KUBE-SERVICES"));
    nat.append("OUTPUT", vec![comment("kubernetes service portals")], jump("KUBE-SERVICES"));
    nat.append("POSTROUTING", vec![comment("kubernetes postrouting rules")], jump("KUBE-POSTROUTING"));
    for c in ["KUBE-KUBELET-CANARY", "KUBE-MARK-MASQ", "KUBE-POSTROUTING", "KUBE-PROXY-CANARY"] {
        nat.declare(c);
    }
}

fn service_port_rules(entry: &PortEntry, node: &NodeNet, large: bool, filter: &mut Table, nat: &mut Table) {
    let port = &entry.port;
    let name = port.name.as_str();
    let proto = port.protocol.clone();
    let cat = categorize(entry, &node.node);
    let cluster_chain = port.svc_chain();
    let local_chain = port.svl_chain();
    let uses_cluster_chain = !cat.cluster.is_empty() && port.uses_cluster_endpoints();
    let uses_local_chain = !cat.local.is_empty() && port.uses_local_endpoints();
    let (internal_chain, has_internal) = if port.internal_local {
        (local_chain.clone(), cat.has_any && !cat.local.is_empty())
    } else {
        (cluster_chain.clone(), cat.has_any)
    };
    let (external_policy_chain, has_external) = if port.external_policy_local() {
        (local_chain.clone(), cat.has_any && !cat.local.is_empty())
    } else {
        (cluster_chain.clone(), cat.has_any)
    };
    let ext_chain = port.ext_chain();
    let uses_ext_chain = cat.has_any && port.externally_accessible();
    let uses_fw = cat.has_any && !port.load_balancer_ips.is_empty() && !port.load_balancer_source_ranges.is_empty();
    let lb_chain = if uses_fw { port.fw_chain() } else { ext_chain.clone() };
    let (internal_target, internal_comment, external_target, external_comment) = if !cat.has_any {
        let c = format!("{name} has no endpoints");
        (Target::Reject, c.clone(), Target::Reject, c)
    } else {
        let c = format!("{name} has no local endpoints");
        (Target::Drop, c.clone(), Target::Drop, c)
    };

    // Capture the cluster IP.
    let cluster_ip = with(vec![comment(format!("{name} cluster IP"))], ip_port(port, port.cluster_ip, port.port));
    if has_internal {
        nat.append("KUBE-SERVICES", cluster_ip.clone(), Target::Jump(internal_chain.clone()));
    } else {
        let m = with(vec![comment(internal_comment)], ip_port(port, port.cluster_ip, port.port));
        filter.append("KUBE-SERVICES", m, internal_target);
    }
    // External IPs.
    for ip in &port.external_ips {
        if cat.has_any {
            let m = with(vec![comment(format!("{name} external IP"))], ip_port(port, *ip, port.port));
            nat.append("KUBE-SERVICES", m, Target::Jump(ext_chain.clone()));
        }
        if !has_external {
            let m = with(vec![comment(external_comment.clone())], ip_port(port, *ip, port.port));
            filter.append("KUBE-EXTERNAL-SERVICES", m, external_target.clone());
        }
    }
    // Load-balancer ingress IPs.
    for ip in &port.load_balancer_ips {
        if cat.has_any {
            let m = with(vec![comment(format!("{name} loadbalancer IP"))], ip_port(port, *ip, port.port));
            nat.append("KUBE-SERVICES", m, Target::Jump(lb_chain.clone()));
        }
        if uses_fw {
            let text = format!("{name} traffic not accepted by {}", port.fw_chain());
            filter.append(
                "KUBE-PROXY-FIREWALL",
                with(vec![comment(text)], ip_port(port, *ip, port.port)),
                Target::Drop,
            );
        }
    }
    if !has_external {
        for ip in &port.load_balancer_ips {
            let m = with(vec![comment(external_comment.clone())], ip_port(port, *ip, port.port));
            filter.append("KUBE-EXTERNAL-SERVICES", m, external_target.clone());
        }
    }
    // The node port.
    if port.node_port != 0 {
        let dport = || {
            vec![Match::Port { protocol: proto.clone(), dport: Some(port.node_port) }, Match::Protocol(proto.clone())]
        };
        if cat.has_any {
            nat.append("KUBE-NODEPORTS", with(vec![comment(name)], dport()), Target::Jump(ext_chain.clone()));
        }
        if !has_external {
            let m = with(vec![comment(external_comment.clone()), Match::AddrTypeLocal { source: false }], dport());
            filter.append("KUBE-EXTERNAL-SERVICES", m, external_target.clone());
        }
    }
    if port.health_check_node_port != 0 {
        let m = vec![
            comment(format!("{name} health check node port")),
            Match::Port { protocol: "tcp".into(), dport: Some(port.health_check_node_port) },
            Match::Protocol("tcp".into()),
        ];
        filter.append("KUBE-NODEPORTS", m, Target::Accept);
    }
    // Off-cluster traffic to the cluster IP is masqueraded.
    if has_internal {
        if let Some(cidr) = node.cluster_cidr {
            let m = with(cluster_ip, vec![Match::Source { cidr, negate: true }]);
            nat.append(&internal_chain, m, masq());
        }
    }
    if uses_ext_chain {
        nat.declare(&ext_chain);
        if !port.external_policy_local() {
            let m = vec![comment(format!("masquerade traffic for {name} external destinations"))];
            nat.append(&ext_chain, m, masq());
        } else {
            if let Some(cidr) = node.cluster_cidr {
                let m = vec![
                    comment(format!("pod traffic for {name} external destinations")),
                    Match::Source { cidr, negate: false },
                ];
                nat.append(&ext_chain, m, Target::Jump(cluster_chain.clone()));
            }
            let local_src = |text: String| vec![comment(text), Match::AddrTypeLocal { source: true }];
            nat.append(
                &ext_chain,
                local_src(format!("masquerade LOCAL traffic for {name} external destinations")),
                masq(),
            );
            nat.append(
                &ext_chain,
                local_src(format!("route LOCAL traffic for {name} external destinations")),
                Target::Jump(cluster_chain.clone()),
            );
        }
        if has_external {
            nat.append(&ext_chain, vec![], Target::Jump(external_policy_chain));
        }
    }
    if uses_fw {
        let fw = port.fw_chain();
        nat.declare(&fw);
        let lb_comment = || comment(format!("{name} loadbalancer IP"));
        let mut from_node = false;
        for cidr in &port.load_balancer_source_ranges {
            let m = vec![lb_comment(), Match::Source { cidr: *cidr, negate: false }];
            nat.append(&fw, m, Target::Jump(ext_chain.clone()));
            from_node |= cidr.contains(node.node_ip);
        }
        if from_node {
            for ip in &port.load_balancer_ips {
                let m = vec![lb_comment(), Match::Source { cidr: Cidr::host(*ip), negate: false }];
                nat.append(&fw, m, Target::Jump(ext_chain.clone()));
            }
        }
        let text = format!("other traffic to {name} will be dropped by KUBE-PROXY-FIREWALL");
        nat.append(&fw, vec![comment(text)], Target::Nothing);
    }
    if uses_cluster_chain {
        endpoint_jumps(nat, port, &cluster_chain, &cat.cluster, large);
    }
    if uses_local_chain {
        endpoint_jumps(nat, port, &local_chain, &cat.local, large);
    }
    for ep in &cat.reachable {
        let sep = ep.sep_chain(port);
        nat.declare(&sep);
        let head = if large { Vec::new() } else { vec![comment(name)] };
        let from_itself = with(head.clone(), vec![Match::Source { cidr: Cidr::host(ep.ip), negate: false }]);
        nat.append(&sep, from_itself, masq());
        let mut dnat = head;
        if port.affinity_seconds.is_some() {
            dnat.push(Match::Recent { name: sep.clone(), check_seconds: None });
        }
        dnat.extend([Match::Port { protocol: proto.clone(), dport: None }, Match::Protocol(proto.clone())]);
        nat.append(&sep, dnat, Target::Dnat { ip: ep.ip, port: ep.port });
    }
}

/// The service chain's jumps to its endpoints: session-affinity checks first, then one `statistic` rule per
/// endpoint but the last (probability 1/n, 1/(n-1), …), the last taking whatever is left.
fn endpoint_jumps(nat: &mut Table, port: &ServicePort, chain: &str, endpoints: &[&Endpoint], large: bool) {
    nat.declare(chain);
    let head = |ep: &Endpoint| {
        if large {
            Vec::new()
        } else {
            vec![comment(format!("{} -> {}", port.name, ep.address()))]
        }
    };
    if let Some(seconds) = port.affinity_seconds {
        for ep in endpoints {
            let sep = ep.sep_chain(port);
            let m = with(head(ep), vec![Match::Recent { name: sep.clone(), check_seconds: Some(seconds) }]);
            nat.append(chain, m, Target::Jump(sep));
        }
    }
    let n = endpoints.len();
    for (i, ep) in endpoints.iter().enumerate() {
        let mut m = head(ep);
        if i + 1 < n {
            m.push(Match::Statistic { probability: probability(n - i) });
        }
        nat.append(chain, m, Target::Jump(ep.sep_chain(port)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::state::tests_support::{entry, node01};

    #[test]
    fn probabilities_are_stored_as_iptables_parses_kube_proxys_text() {
        assert_eq!(probability(2), 1 << 30);
        // 0.3333333333 × 2^31 = 715827882.6… → 715827883.
        assert_eq!(probability(3), 715_827_883);
        assert_eq!(probability(1), 1 << 31);
    }

    #[test]
    fn a_service_with_endpoints_gets_svc_and_sep_chains_and_no_reject() {
        let e = entry("default/web:http", 80, &[("10.244.1.2", true, "node01"), ("10.244.2.2", true, "node02")]);
        let t = build([&e], &node01());
        let svc = e.port.svc_chain();
        assert_eq!(t.nat.chain("KUBE-SERVICES").unwrap().rules[0].target, Target::Jump(svc.clone()));
        let svc_rules = &t.nat.chain(&svc).unwrap().rules;
        // The masquerade rule, then two jumps: the first with probability 1/2, the last unconditional.
        assert_eq!(svc_rules.len(), 3);
        assert!(svc_rules[1].matches.contains(&Match::Statistic { probability: 1 << 30 }));
        assert!(!svc_rules[2].matches.iter().any(|m| matches!(m, Match::Statistic { .. })));
        for ep in &e.endpoints {
            let sep = t.nat.chain(&ep.sep_chain(&e.port)).unwrap();
            assert_eq!(sep.rules[1].target, Target::Dnat { ip: ep.ip, port: 80 });
        }
        assert!(t.filter.chain("KUBE-SERVICES").unwrap().rules.is_empty());
    }

    #[test]
    fn a_service_without_ready_endpoints_is_rejected_in_the_filter_table() {
        let e = entry("default/web:http", 80, &[("10.244.1.2", false, "node01")]);
        let t = build([&e], &node01());
        assert!(!t.nat.chains.contains_key(&e.port.svc_chain()));
        let reject = &t.filter.chain("KUBE-SERVICES").unwrap().rules[0];
        assert_eq!(reject.target, Target::Reject);
        assert!(reject.matches.contains(&Match::Comment("default/web:http has no endpoints".into())));
        // Only the final node-port jump is left in the nat KUBE-SERVICES chain.
        assert_eq!(t.nat.chain("KUBE-SERVICES").unwrap().rules.len(), 1);
    }

    #[test]
    fn a_node_port_goes_through_the_ext_chain() {
        let mut e = entry("default/web:http", 80, &[("10.244.1.2", true, "node01")]);
        e.port.node_port = 30080;
        let t = build([&e], &node01());
        let np = &t.nat.chain("KUBE-NODEPORTS").unwrap().rules[0];
        assert_eq!(np.target, Target::Jump(e.port.ext_chain()));
        let ext = &t.nat.chain(&e.port.ext_chain()).unwrap().rules;
        assert_eq!(ext[0].target, Target::Jump("KUBE-MARK-MASQ".into()));
        assert_eq!(ext[1].target, Target::Jump(e.port.svc_chain()));
    }

    #[test]
    fn a_load_balancer_with_source_ranges_and_local_policy_gets_fw_ext_and_svl_chains() {
        let mut e = entry("default/web:http", 80, &[("10.244.1.2", true, "node01"), ("10.244.2.2", true, "node02")]);
        e.port.node_port = 30080;
        e.port.load_balancer_ips = vec![Ipv4Addr::new(203, 0, 113, 7)];
        e.port.load_balancer_source_ranges = vec![Cidr::parse("198.51.100.0/24").unwrap()];
        e.port.external_local = true;
        let node02 = NodeNet { node: "node02".into(), ..node01() };
        let t = build([&e], &node02);
        let services = &t.nat.chain("KUBE-SERVICES").unwrap().rules;
        let lb =
            services.iter().find(|r| r.matches.contains(&Match::Comment("default/web:http loadbalancer IP".into())));
        assert_eq!(lb.unwrap().target, Target::Jump(e.port.fw_chain()));
        let fw = &t.nat.chain(&e.port.fw_chain()).unwrap().rules;
        assert_eq!(fw[0].target, Target::Jump(e.port.ext_chain()));
        assert_eq!(fw.last().unwrap().target, Target::Nothing);
        // Local policy: pod and node traffic short-circuits to the cluster chain, the rest goes to SVL.
        let ext = &t.nat.chain(&e.port.ext_chain()).unwrap().rules;
        assert_eq!(ext[0].target, Target::Jump(e.port.svc_chain()));
        assert_eq!(ext.last().unwrap().target, Target::Jump(e.port.svl_chain()));
        let svl = &t.nat.chain(&e.port.svl_chain()).unwrap().rules;
        assert_eq!(svl.len(), 1, "only node02's own endpoint");
        let firewall = &t.filter.chain("KUBE-PROXY-FIREWALL").unwrap().rules;
        assert_eq!(firewall[0].target, Target::Drop);
        // A node without a local endpoint drops external traffic in the filter table.
        let node03 = NodeNet { node: "node03".into(), ..node01() };
        let t = build([&e], &node03);
        let external = &t.filter.chain("KUBE-EXTERNAL-SERVICES").unwrap().rules;
        assert!(external.iter().all(|r| r.target == Target::Drop) && external.len() == 2);
    }

    #[test]
    fn large_clusters_drop_the_endpoint_comments() {
        let eps: Vec<(String, bool, &str)> =
            (0..1001).map(|i| (format!("10.244.{}.{}", i / 250, i % 250 + 2), true, "node01")).collect();
        let refs: Vec<(&str, bool, &str)> = eps.iter().map(|(a, r, n)| (a.as_str(), *r, *n)).collect();
        let e = entry("default/big", 80, &refs);
        let t = build([&e], &node01());
        let svc = t.nat.chain(&e.port.svc_chain()).unwrap();
        assert!(!svc.rules[1].matches.iter().any(|m| matches!(m, Match::Comment(_))));
        // The cluster-IP capture keeps its comment.
        assert!(matches!(t.nat.chain("KUBE-SERVICES").unwrap().rules[0].matches[0], Match::Comment(_)));
    }
}
