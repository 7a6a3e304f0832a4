//! Walks the first packet of a new connection through a node's tables, as netfilter does: the nat chain of
//! the hook (OUTPUT for what the node itself sends, PREROUTING for what arrives), then the filter chain
//! (OUTPUT, INPUT or FORWARD). Rules are tried in order; a jump enters a chain and comes back at its end or
//! at RETURN; MARK changes the packet's mark and goes on; DNAT ends the nat walk with a new destination;
//! ACCEPT, DROP and REJECT end the walk. `statistic` draws from the seeded generator the way the kernel's
//! xt_statistic does (31 random bits below the stored probability); `recent` remembers sources per list.
//! Every rule that matched is kept, in `iptables-save` form, so a `curl` can say which rules it went through.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use crate::sim::{Rng, SimTime};

use super::rules::{Chain, Match, Table, Target};
use super::save::rule_line;

/// How deep jumps may nest before the walk gives up (the kernel refuses loops when rules are loaded).
const MAX_DEPTH: usize = 32;

/// The first packet of a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub dport: u16,
    /// Lowercase: `tcp`, `udp`.
    pub protocol: String,
    pub mark: u32,
    /// Whether a DNAT already rewrote the destination (conntrack's DNAT state).
    pub dnatted: bool,
}

/// How a walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Fell off the built-in chain (policy ACCEPT) or ACCEPT.
    Accept,
    Drop,
    Reject,
}

/// The `recent` lists of one node's kernel: list name → source → when last set.
pub type RecentLists = BTreeMap<String, BTreeMap<Ipv4Addr, SimTime>>;

/// What a walk needs besides the packet: the node's own addresses, randomness, the time and `recent` lists.
pub struct Env<'a> {
    pub local: &'a dyn Fn(Ipv4Addr) -> bool,
    pub rng: &'a mut Rng,
    pub now: SimTime,
    pub recent: &'a mut RecentLists,
    /// The rules that matched, as `-A CHAIN …` lines, in order.
    pub hits: Vec<String>,
}

/// Runs `packet` through `chain` of `table`; a DNAT rewrites the packet.
pub fn walk(table: &Table, chain: &str, packet: &mut Packet, env: &mut Env) -> Verdict {
    match table.chain(chain) {
        Some(c) => run(table, chain, c, packet, env, 0).unwrap_or(Verdict::Accept),
        None => Verdict::Accept,
    }
}

/// Some(verdict) when the walk ended inside this chain; None when it fell off the end or returned.
fn run(table: &Table, name: &str, chain: &Chain, packet: &mut Packet, env: &mut Env, depth: usize) -> Option<Verdict> {
    if depth > MAX_DEPTH {
        return Some(Verdict::Drop);
    }
    for rule in &chain.rules {
        if !rule.matches.iter().all(|m| matches(m, packet, env)) {
            continue;
        }
        env.hits.push(rule_line(name, rule));
        match &rule.target {
            Target::Jump(next) => {
                if let Some(c) = table.chain(next) {
                    if let Some(v) = run(table, next, c, packet, env, depth + 1) {
                        return Some(v);
                    }
                }
            }
            Target::Return => return None,
            Target::Accept => return Some(Verdict::Accept),
            Target::Drop => return Some(Verdict::Drop),
            Target::Reject => return Some(Verdict::Reject),
            Target::Dnat { ip, port } => {
                packet.dst = *ip;
                packet.dport = *port;
                packet.dnatted = true;
                return Some(Verdict::Accept);
            }
            Target::SetXMark { value, mask } => packet.mark = (packet.mark & !mask) ^ value,
            Target::Masquerade | Target::Nothing => {}
        }
    }
    None
}

fn matches(m: &Match, p: &Packet, env: &mut Env) -> bool {
    match m {
        Match::Source { cidr, negate } => cidr.contains(p.src) != *negate,
        Match::Dest { cidr, negate } => cidr.contains(p.dst) != *negate,
        Match::Protocol(proto) => *proto == p.protocol,
        Match::Comment(_) => true,
        Match::Port { protocol, dport } => *protocol == p.protocol && dport.is_none_or(|d| d == p.dport),
        Match::AddrTypeLocal { source } => (env.local)(if *source { p.src } else { p.dst }),
        Match::Statistic { probability } => ((env.rng.next_u64() >> 32) as u32 & 0x7fff_ffff) < *probability,
        Match::Mark { value, mask, negate } => (p.mark & mask == *value) != *negate,
        Match::ConnState { states, negate } => {
            let any = states.split(',').any(|s| s == "NEW" || (s == "DNAT" && p.dnatted));
            any != *negate
        }
        Match::Recent { name, check_seconds: None } => {
            env.recent.entry(name.clone()).or_default().insert(p.src, env.now);
            true
        }
        Match::Recent { name, check_seconds: Some(secs) } => {
            let list = env.recent.entry(name.clone()).or_default();
            let window = u64::from(*secs) * 1000;
            list.retain(|_, seen| seen.plus_ms(window) >= env.now);
            list.contains_key(&p.src)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::rules::build;
    use crate::proxy::state::tests_support::{entry, node01};

    fn packet(dst: &str, dport: u16) -> Packet {
        Packet {
            src: "192.168.56.11".parse().unwrap(),
            dst: dst.parse().unwrap(),
            dport,
            protocol: "tcp".into(),
            mark: 0,
            dnatted: false,
        }
    }

    fn env<'a>(rng: &'a mut Rng, recent: &'a mut RecentLists, local: &'a dyn Fn(Ipv4Addr) -> bool) -> Env<'a> {
        Env { local, rng, now: SimTime::ZERO, recent, hits: Vec::new() }
    }

    #[test]
    fn a_cluster_ip_is_dnatted_to_an_endpoint_and_marked_for_masquerade() {
        let e = entry("default/web:http", 80, &[("10.244.1.2", true, "node01"), ("10.244.2.2", true, "node02")]);
        let t = build([&e], &node01());
        let (mut rng, mut recent) = (Rng::new(7), RecentLists::new());
        let local = |ip: Ipv4Addr| ip == Ipv4Addr::new(192, 168, 56, 11);
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..400 {
            let mut p = packet("10.96.12.34", 80);
            let mut env = env(&mut rng, &mut recent, &local);
            assert_eq!(walk(&t.nat, "OUTPUT", &mut p, &mut env), Verdict::Accept);
            assert_eq!(p.mark & 0x4000, 0x4000, "traffic from the node itself is masqueraded");
            assert_eq!(p.dport, 80);
            *seen.entry(p.dst).or_insert(0) += 1;
        }
        // Both endpoints are chosen, about half the time each.
        assert_eq!(seen.len(), 2);
        assert!(seen.values().all(|n| (150..=250).contains(n)), "{seen:?}");
    }

    #[test]
    fn a_service_without_endpoints_is_rejected_by_the_filter_table() {
        let e = entry("default/web:http", 80, &[]);
        let t = build([&e], &node01());
        let (mut rng, mut recent) = (Rng::new(1), RecentLists::new());
        let local = |_: Ipv4Addr| false;
        let mut p = packet("10.96.12.34", 80);
        let mut env = env(&mut rng, &mut recent, &local);
        assert_eq!(walk(&t.nat, "OUTPUT", &mut p, &mut env), Verdict::Accept);
        assert!(!p.dnatted);
        assert_eq!(walk(&t.filter, "OUTPUT", &mut p, &mut env), Verdict::Reject);
        assert!(env.hits.last().unwrap().contains("has no endpoints"));
    }

    #[test]
    fn a_node_port_on_a_local_address_reaches_the_service() {
        let mut e = entry("default/web:http", 80, &[("10.244.2.2", true, "node02")]);
        e.port.node_port = 30080;
        let t = build([&e], &node01());
        let (mut rng, mut recent) = (Rng::new(1), RecentLists::new());
        let local = |ip: Ipv4Addr| ip == Ipv4Addr::new(192, 168, 56, 11);
        let mut p = packet("192.168.56.11", 30080);
        let mut env = env(&mut rng, &mut recent, &local);
        walk(&t.nat, "OUTPUT", &mut p, &mut env);
        assert_eq!((p.dst, p.dport), (Ipv4Addr::new(10, 244, 2, 2), 80));
        assert!(env.hits.iter().any(|h| h.starts_with("-A KUBE-NODEPORTS")));
        // The same port on an address that is not the node's is not captured.
        let mut other = packet("192.168.56.99", 30080);
        walk(&t.nat, "OUTPUT", &mut other, &mut env);
        assert!(!other.dnatted);
    }

    #[test]
    fn session_affinity_keeps_a_client_on_its_endpoint() {
        let mut e = entry("default/web", 80, &[("10.244.1.2", true, "node01"), ("10.244.1.3", true, "node01")]);
        e.port.affinity_seconds = Some(60);
        let t = build([&e], &node01());
        let (mut rng, mut recent) = (Rng::new(3), RecentLists::new());
        let local = |_: Ipv4Addr| false;
        let mut first = packet("10.96.12.34", 80);
        walk(&t.nat, "OUTPUT", &mut first, &mut env(&mut rng, &mut recent, &local));
        for _ in 0..20 {
            let mut p = packet("10.96.12.34", 80);
            walk(&t.nat, "OUTPUT", &mut p, &mut env(&mut rng, &mut recent, &local));
            assert_eq!(p.dst, first.dst);
        }
    }
}
