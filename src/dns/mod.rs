//! CoreDNS's `kubernetes` plugin, as the process `coredns`, as `system:serviceaccount:kube-system:coredns`
//! (bound to `system:coredns`). Watches: Services and EndpointSlices through kube-apiserver. Writes nothing.
//! Counterpart: CoreDNS `plugin/kubernetes` (its informers and `Records`), with the Corefile kubeadm installs
//! (`kubernetes cluster.local in-addr.arpa ip6.arpa { pods insecure }`, `loadbalance`).
//!
//! The model: the CoreDNS Deployment's pods are where queries are answered, this process is what they know.
//! Every replica runs the same informers against the same apiserver, so kubeglass keeps one watcher for all
//! of them: a query must reach a Running CoreDNS container (through the querying node's rules for kube-dns
//! 10.96.0.10, as real queries do), and the answer comes from this process's informer caches, so it holds
//! what CoreDNS has seen, not what etcd holds (it keeps answering while the apiserver is down).
//! Answers: `<svc>.<ns>.svc.cluster.local` → the cluster IP; a headless Service → its ready endpoints'
//! addresses, shuffled (`loadbalance`); an ExternalName Service → a CNAME; `a-b-c-d.<ns>.pod.cluster.local`
//! → a.b.c.d (`pods insecure`); anything else → NXDOMAIN (the simulated cluster has no upstream resolver).

use std::net::Ipv4Addr;

use crate::api::{Credentials, Kind, Object};
use crate::client::informer::{Change, Informer};
use crate::client::{ApiConn, Incoming};
use crate::proxy::slices::SliceIndex;
use crate::sim::{ComponentId, Ctx, Payload, Rng};

/// The service account token CoreDNS's pods mount.
pub const TOKEN: &str = "coredns-token";
/// The cluster domain (kubeadm's `networking.dnsDomain`).
pub const CLUSTER_DOMAIN: &str = "cluster.local";
/// kube-dns's cluster IP (kubeadm: the tenth address of the service range).
pub const KUBE_DNS_IP: Ipv4Addr = Ipv4Addr::new(10, 96, 0, 10);
/// What glibc waits before giving up on a server that does not answer: `timeout:5` × `attempts:2`.
pub const RESOLVER_TIMEOUT_MS: u64 = 10_000;

const SERVICES: usize = 0;
const SLICES: usize = 1;

/// An answer to one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    A(Vec<Ipv4Addr>),
    Cname(String),
    NxDomain,
}

/// The CoreDNS watcher.
pub struct CoreDns {
    conn: ApiConn,
    slices: SliceIndex,
}

impl CoreDns {
    pub fn new(server: ComponentId) -> CoreDns {
        let credentials = Credentials::Token(TOKEN.into());
        let mut conn = ApiConn::new(server, credentials.clone());
        conn.add_informer(Informer::new(Kind::Service, credentials.clone()));
        conn.add_informer(Informer::new(Kind::EndpointSlice, credentials));
        CoreDns { conn, slices: SliceIndex::default() }
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.slices = SliceIndex::default();
        self.conn.start(ctx);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            if let Incoming::Changes { informer: SLICES, changes } = incoming {
                for change in changes {
                    match change {
                        Change::Resynced => self.slices.rebuild(self.conn.informer(SLICES).objects()),
                        other => {
                            self.slices.apply(&other);
                        }
                    }
                }
            }
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        self.conn.on_timer(ctx, token);
    }

    /// Whether the caches have listed (CoreDNS waits for this before it serves: its `ready` plugin).
    pub fn synced(&self) -> bool {
        self.conn.synced()
    }

    /// The answer for a fully qualified name (without the trailing dot).
    pub fn answer(&self, fqdn: &str, rng: &mut Rng) -> Answer {
        let name = fqdn.trim_end_matches('.').to_ascii_lowercase();
        let Some(rest) = name.strip_suffix(&format!(".{CLUSTER_DOMAIN}")) else { return Answer::NxDomain };
        let labels: Vec<&str> = rest.split('.').collect();
        match labels.as_slice() {
            [svc, ns, "svc"] => self.service(ns, svc, rng),
            [ip, _ns, "pod"] => {
                ip.replace('-', ".").parse::<Ipv4Addr>().map_or(Answer::NxDomain, |ip| Answer::A(vec![ip]))
            }
            _ => Answer::NxDomain,
        }
    }

    fn service(&self, ns: &str, name: &str, rng: &mut Rng) -> Answer {
        let key = format!("{ns}/{name}");
        let Some(Object::Service(svc)) = self.conn.informer(SERVICES).get(&key).map(|o| o.as_ref()) else {
            return Answer::NxDomain;
        };
        let Some(spec) = svc.spec.as_ref() else { return Answer::NxDomain };
        if spec.type_.as_deref() == Some("ExternalName") {
            return spec.external_name.clone().map_or(Answer::NxDomain, Answer::Cname);
        }
        match spec.cluster_ip.as_deref() {
            Some("None") | None => {
                let mut ips: Vec<Ipv4Addr> = Vec::new();
                for slice_key in self.slices.of(&key) {
                    let Some(Object::EndpointSlice(s)) = self.conn.informer(SLICES).get(slice_key).map(|o| o.as_ref())
                    else {
                        continue;
                    };
                    for ep in &s.endpoints {
                        let ready = ep.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true);
                        let publish = spec.publish_not_ready_addresses.unwrap_or(false);
                        if ready || publish {
                            ips.extend(ep.addresses.iter().filter_map(|a| a.parse::<Ipv4Addr>().ok()));
                        }
                    }
                }
                ips.sort();
                ips.dedup();
                // loadbalance: round-robin shuffles the A records of each answer.
                for i in (1..ips.len()).rev() {
                    ips.swap(i, rng.below(i as u64 + 1) as usize);
                }
                if ips.is_empty() {
                    Answer::NxDomain
                } else {
                    Answer::A(ips)
                }
            }
            Some(ip) => ip.parse().map_or(Answer::NxDomain, |ip| Answer::A(vec![ip])),
        }
    }
}

/// The names a resolver tries for `name`, in order, with `search` domains and `ndots` (resolv.conf's
/// rules: a name with fewer dots than ndots tries the search list first, then itself; a trailing dot means
/// only itself).
pub fn candidates(name: &str, search: &[String], ndots: usize) -> Vec<String> {
    if let Some(absolute) = name.strip_suffix('.') {
        return vec![absolute.to_string()];
    }
    let searched = search.iter().map(|d| format!("{name}.{d}"));
    if name.matches('.').count() >= ndots {
        std::iter::once(name.to_string()).chain(searched).collect()
    } else {
        searched.chain(std::iter::once(name.to_string())).collect()
    }
}

/// The search list of a pod in `namespace` with `dnsPolicy: ClusterFirst`.
pub fn search_list(namespace: &str) -> Vec<String> {
    vec![format!("{namespace}.svc.{CLUSTER_DOMAIN}"), format!("svc.{CLUSTER_DOMAIN}"), CLUSTER_DOMAIN.to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_try_the_search_list_first() {
        let search = search_list("default");
        assert_eq!(
            candidates("web", &search, 5),
            ["web.default.svc.cluster.local", "web.svc.cluster.local", "web.cluster.local", "web"]
        );
        assert_eq!(candidates("web.default", &search, 5)[1], "web.default.svc.cluster.local");
        let full = candidates("web.default.svc.cluster.local", &search, 5);
        assert_eq!(full.last().unwrap(), "web.default.svc.cluster.local");
        assert_eq!(candidates("web.default.svc.cluster.local.", &search, 5), ["web.default.svc.cluster.local"]);
        assert_eq!(candidates("a.b.c.d.e.f", &search, 5)[0], "a.b.c.d.e.f");
    }

    #[test]
    fn pod_names_answer_their_address_and_other_domains_do_not_resolve() {
        let dns = CoreDns::new(ComponentId(0));
        let mut rng = Rng::new(1);
        assert_eq!(
            dns.answer("10-244-1-5.default.pod.cluster.local", &mut rng),
            Answer::A(vec![Ipv4Addr::new(10, 244, 1, 5)])
        );
        assert_eq!(dns.answer("example.com", &mut rng), Answer::NxDomain);
        assert_eq!(dns.answer("nope.default.svc.cluster.local", &mut rng), Answer::NxDomain);
        assert_eq!(dns.answer("x-y.default.pod.cluster.local", &mut rng), Answer::NxDomain);
    }
}
