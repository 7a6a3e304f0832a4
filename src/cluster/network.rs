//! The data plane from a node's shell: `iptables-save` of a node's tables and `curl` through them.
//!
//! A `curl` from node N sends the first packet of a connection the way the node's kernel would: through
//! N's nat OUTPUT and filter OUTPUT chains (kube-proxy's rules as N's kube-proxy last programmed them).
//! A REJECT refuses the connection at once; a destination that is N's own address is delivered on N (its
//! filter INPUT, then whatever listens there); a pod address goes to the node whose pod range holds it; a
//! node address goes to that node, whose nat PREROUTING (its own kube-proxy's rules, so NodePorts work on
//! any node IP) may send it on to a pod elsewhere. Anything else (a cluster IP nobody programmed, an unknown
//! address) leaves through the default route and is never answered. At the pod: a ready sandbox with a
//! running container listening on the port answers (`node::listeners`); a sandbox with nothing listening
//! resets the connection (refused); no sandbox drops it (timeout). A powered-off node answers nothing.
//!
//! Names: the node resolves names as a pod in `default` would (`nameserver 10.96.0.10`, `search
//! default.svc.cluster.local svc.cluster.local cluster.local`, `ndots:5`); on a real node `/etc/resolv.conf`
//! points at the host's resolver instead. The query goes to kube-dns through N's rules like any packet and
//! must reach a running CoreDNS container; the answer comes from the `coredns` process (`dns`).
//!
//! Time: a hop between nodes takes 1 ms; a connection nobody answers fails after Linux's SYN retries
//! (127 s, `tcp_syn_retries=6`) or curl's `--connect-timeout`/`--max-time`; a DNS server nobody answers
//! fails after 10 s. The simulation runs on while curl waits.

use std::net::Ipv4Addr;

use crate::api::{Kind, Object};
use crate::dns::{self, Answer, CoreDns};
use crate::node::curl::{self, Args, Url};
use crate::node::listeners::{self, Exchange, Listener, Service, TlsServer};
use crate::proxy::packet::{walk, Env, Packet, Verdict};
use crate::proxy::KubeProxy;

use super::{bootstrap, Cluster, CommandResult, Component};

/// Linux gives up a connect after its SYN retries (1+2+4+8+16+32+64 s).
pub const SYN_RETRIES_MS: u64 = 127_000;

/// What one `curl` did: its result, and for tests and the UI where the connection went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurlReport {
    pub result: CommandResult,
    /// The rules the connection's first packets matched, as `<node> <table>: -A …`, in order (the DNS
    /// query's first).
    pub rules: Vec<String>,
    /// The pod that answered (`namespace/name`).
    pub answered_by: Option<String>,
    /// The address the connection reached after NAT.
    pub destination: Option<(Ipv4Addr, u16)>,
}

/// A pod (or host-network pod) on the other end.
#[derive(Debug, Clone)]
struct Peer {
    namespace: String,
    name: String,
    ip: Ipv4Addr,
}

/// How a connection attempt ended.
#[derive(Debug, Clone)]
enum Reach {
    Connected { peer: Option<Peer>, listener: Listener, at: (Ipv4Addr, u16) },
    Refused,
    Dropped,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hook {
    /// A packet the node itself sends.
    Output,
    /// A packet arriving from the network.
    Prerouting,
}

impl Cluster {
    fn node_index(&self, node: &str) -> Option<usize> {
        self.config.all_nodes().position(|n| n.name == node)
    }

    fn node_count(&self) -> usize {
        self.config.all_nodes().count()
    }

    fn node_name_at(&self, index: usize) -> String {
        self.config.all_nodes().nth(index).map(|n| n.name.clone()).unwrap_or_default()
    }

    fn node_addr(index: usize) -> Ipv4Addr {
        bootstrap::node_ip(index).parse().unwrap_or(Ipv4Addr::UNSPECIFIED)
    }

    /// The kube-proxy of `node`.
    pub fn kube_proxy(&self, node: &str) -> Option<&KubeProxy> {
        match self.kernel.id(&format!("{node}/kube-proxy")).map(|id| &self.components[id.0 as usize]) {
            Some(Component::KubeProxy(p)) => Some(p),
            _ => None,
        }
    }

    fn kube_proxy_mut(&mut self, node: &str) -> Option<&mut KubeProxy> {
        let id = self.kernel.id(&format!("{node}/kube-proxy"))?;
        match &mut self.components[id.0 as usize] {
            Component::KubeProxy(p) => Some(p),
            _ => None,
        }
    }

    /// The CoreDNS watcher.
    pub fn coredns(&self) -> Option<&CoreDns> {
        match self.kernel.id("coredns").map(|id| &self.components[id.0 as usize]) {
            Some(Component::CoreDns(d)) => Some(d),
            _ => None,
        }
    }

    /// `iptables-save` on `node` (every table, or `-t table`); None for an unknown node or table.
    pub fn iptables_save(&self, node: &str, table: Option<&str>) -> Option<String> {
        let proxy = self.kube_proxy(node)?;
        crate::proxy::save::iptables_save(&proxy.tables(), table, self.kernel.now())
    }

    /// `iptables-save` with its arguments (`-t nat`, `--table=filter`), as the node shell runs it.
    pub fn iptables_save_command(&self, node: &str, args: &[&str]) -> CommandResult {
        let fail = |output: String| CommandResult { output, exit: Some(1), ..Default::default() };
        let mut table = None;
        let mut i = 0;
        while i < args.len() {
            match args[i] {
                "-t" | "--table" => {
                    i += 1;
                    match args.get(i) {
                        Some(t) => table = Some(*t),
                        None => return fail(format!("iptables-save: option '{}' requires an argument\nLook at manual page `iptables-save.8' for more information.\n", args[i - 1])),
                    }
                }
                "-c" | "--counters" => {}
                a if a.starts_with("--table=") => table = Some(&a["--table=".len()..]),
                a if a.starts_with("-t") && a.len() > 2 => table = Some(&a[2..]),
                a if a.starts_with('-') => {
                    return fail(format!(
                        "iptables-save: unrecognized option '{a}'\nLook at manual page `iptables-save.8' for more information.\n"
                    ))
                }
                _ => return fail("Unknown arguments found on commandline\n".into()),
            }
            i += 1;
        }
        if self.kube_proxy(node).is_none() {
            return fail(format!("unknown node {node:?}\n"));
        }
        match self.iptables_save(node, table) {
            Some(output) => CommandResult { output, exit: Some(0), ..Default::default() },
            None => fail(format!("Table `{}' does not exist\n", table.unwrap_or(""))),
        }
    }

    /// `curl` on `node` with its arguments (without the program name).
    pub fn curl(&mut self, node: &str, args: &[&str]) -> CommandResult {
        self.curl_report(node, args).result
    }

    /// `curl` on `node`, with where the connection went.
    pub fn curl_report(&mut self, node: &str, args: &[&str]) -> CurlReport {
        let mut report = CurlReport {
            result: CommandResult { exit: Some(0), ..Default::default() },
            rules: Vec::new(),
            answered_by: None,
            destination: None,
        };
        let done = |mut report: CurlReport, output: String, exit: i32| {
            report.result = CommandResult { output, exit: Some(exit), ..Default::default() };
            report
        };
        let Some(from) = self.node_index(node) else {
            return done(report, format!("unknown node {node:?}\n"), 1);
        };
        let args = match curl::parse(args) {
            Ok(a) => a,
            Err((output, code)) => return done(report, output, code),
        };
        let url = match curl::parse_url(&args.url) {
            Ok(u) => u,
            Err((code, message)) => {
                let line = curl::error_line(&args, code, &message);
                return done(report, line, code);
            }
        };
        let limit = match (args.connect_timeout_ms, args.max_time_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // Name resolution.
        let (ip, mut elapsed) = match self.resolve_name(from, &url.host, &mut report.rules) {
            Resolved::Address(ip, ms) => (ip, ms),
            Resolved::NotFound(ms) => {
                self.advance_ms(ms);
                let line = curl::error_line(&args, 6, &format!("Could not resolve host: {}", url.host));
                return done(report, line, 6);
            }
            Resolved::NoServer => {
                if let Some(max) = args.max_time_ms.filter(|m| *m < dns::RESOLVER_TIMEOUT_MS) {
                    self.advance_ms(max);
                    let line = curl::error_line(&args, 28, &format!("Resolving timed out after {max} milliseconds"));
                    return done(report, line, 28);
                }
                self.advance_ms(dns::RESOLVER_TIMEOUT_MS);
                let line = curl::error_line(&args, 6, &format!("Could not resolve host: {}", url.host));
                return done(report, line, 6);
            }
        };
        let (reach, hops) = self.connect(from, ip, url.port, "tcp", &mut report.rules);
        elapsed += hops;
        let failed = |host: &str, ms: u64, why: &str| {
            format!("Failed to connect to {host} port {} after {ms} ms: {why}", url.port)
        };
        match reach {
            Reach::Refused => {
                self.advance_ms(elapsed);
                let line = curl::error_line(&args, 7, &failed(&url.host, elapsed, "Couldn't connect to server"));
                done(report, line, 7)
            }
            Reach::Dropped => {
                let (ms, why) = match limit {
                    Some(l) => (l, "Timeout was reached"),
                    None => (elapsed + SYN_RETRIES_MS, "Couldn't connect to server"),
                };
                self.advance_ms(ms);
                let line = curl::error_line(&args, 28, &failed(&url.host, ms, why));
                done(report, line, 28)
            }
            Reach::Connected { peer, listener, at } => {
                report.destination = Some(at);
                report.answered_by = peer.as_ref().map(|p| format!("{}/{}", p.namespace, p.name));
                self.advance_ms(elapsed + hops + 1);
                let (output, code) = self.exchange(from, &args, &url, peer.as_ref(), &listener);
                done(report, output, code)
            }
        }
    }

    /// What the listener sends back for curl's request: the output and curl's exit code.
    fn exchange(&self, from: usize, args: &Args, url: &Url, peer: Option<&Peer>, listener: &Listener) -> (String, i32) {
        let error = |code: i32, message: &str| (curl::error_line(args, code, message), code);
        match &listener.service {
            Service::Http(_) if url.https => error(35, curl::WRONG_VERSION),
            Service::Http(body) => {
                let client = Cluster::node_addr(from).to_string();
                let host = url.host_header();
                let (namespace, pod, ip) = match peer {
                    Some(p) => (p.namespace.clone(), p.name.clone(), p.ip.to_string()),
                    None => (String::new(), String::new(), String::new()),
                };
                let x = Exchange {
                    namespace: &namespace,
                    pod: &pod,
                    pod_ip: &ip,
                    port: listener.port,
                    host: &host,
                    path: &url.path,
                    client: &client,
                };
                (listeners::http_body(body, &x), 0)
            }
            Service::NotHttp | Service::Dns => error(52, "Empty reply from server"),
            Service::Https(_) if !url.https => ("Client sent an HTTP request to an HTTPS server.\n".into(), 0),
            Service::Https(_) if !args.insecure => error(60, curl::CERT_PROBLEM),
            Service::Https(TlsServer::Kubelet) => ("Unauthorized\n".into(), 0),
            Service::Https(_) => {
                let path = url.path.split('?').next().unwrap_or("/");
                match path {
                    "/healthz" | "/livez" | "/readyz" => ("ok".into(), 0),
                    _ => (forbidden_path(path), 0),
                }
            }
        }
    }

    /// Resolves `host` from node `from`: an address as is, `localhost`, or a name through kube-dns.
    fn resolve_name(&mut self, from: usize, host: &str, rules: &mut Vec<String>) -> Resolved {
        if let Ok(ip) = host.parse::<Ipv4Addr>() {
            return Resolved::Address(ip, 0);
        }
        if host == "localhost" {
            return Resolved::Address(Ipv4Addr::LOCALHOST, 0);
        }
        let (reach, ms) = self.connect(from, dns::KUBE_DNS_IP, 53, "udp", rules);
        let serving = self.coredns().is_some_and(CoreDns::synced)
            && self.kernel.id("coredns").is_some_and(|id| self.kernel.is_running(id));
        match reach {
            Reach::Refused => Resolved::NotFound(ms),
            Reach::Connected { listener, .. } if listener.service == Service::Dns && serving => {
                let Some(id) = self.kernel.id("coredns") else { return Resolved::NoServer };
                let mut rng = self.rngs[id.0 as usize].clone();
                let names = dns::candidates(host, &dns::search_list("default"), 5);
                let answer = names.iter().find_map(|n| match self.coredns().map(|d| d.answer(n, &mut rng)) {
                    Some(Answer::A(ips)) => ips.first().copied(),
                    _ => None,
                });
                self.rngs[id.0 as usize] = rng;
                match answer {
                    Some(ip) => Resolved::Address(ip, ms + 1),
                    None => Resolved::NotFound(ms + 1),
                }
            }
            Reach::Connected { .. } | Reach::Dropped => Resolved::NoServer,
        }
    }

    /// Sends the first packet of a connection from node `from`; returns how it ended and the time the hops
    /// took.
    fn connect(
        &mut self,
        from: usize,
        dst: Ipv4Addr,
        dport: u16,
        protocol: &str,
        rules: &mut Vec<String>,
    ) -> (Reach, u64) {
        let mut packet = Packet {
            src: Cluster::node_addr(from),
            dst,
            dport,
            protocol: protocol.to_string(),
            mark: 0,
            dnatted: false,
        };
        let (mut at, mut hook, mut hops) = (from, Hook::Output, 0);
        loop {
            match self.traverse(at, hook, &mut packet, rules) {
                Verdict::Reject => return (Reach::Refused, hops),
                Verdict::Drop => return (Reach::Dropped, hops),
                Verdict::Accept => {}
            }
            if self.is_local(at, packet.dst) {
                return (self.deliver(at, &packet), hops);
            }
            let Some(next) = self.owner(packet.dst).filter(|n| !self.powered_off(*n)) else {
                return (Reach::Dropped, hops);
            };
            hops += u64::from(next != at);
            // Another node's address goes through that node's PREROUTING rules (NodePorts), once.
            if hook == Hook::Prerouting || next == at || packet.dst != Cluster::node_addr(next) {
                return (self.deliver(next, &packet), hops);
            }
            (at, hook) = (next, Hook::Prerouting);
            packet.mark = 0;
        }
    }

    fn is_local(&self, node: usize, ip: Ipv4Addr) -> bool {
        ip.is_loopback() || ip == Cluster::node_addr(node)
    }

    /// The node an address belongs to: its node IP or its pod range.
    fn owner(&self, ip: Ipv4Addr) -> Option<usize> {
        let total = self.node_count();
        bootstrap::node_index_of_ip(ip, total).or_else(|| bootstrap::node_index_of_pod_ip(ip, total))
    }

    fn powered_off(&self, node: usize) -> bool {
        self.is_powered_off(&self.node_name_at(node))
    }

    /// Runs `packet` through node `node`'s nat and filter chains for `hook`; records the rules it matched.
    fn traverse(&mut self, node: usize, hook: Hook, packet: &mut Packet, rules: &mut Vec<String>) -> Verdict {
        let name = self.node_name_at(node);
        let now = self.kernel.now();
        let own = Cluster::node_addr(node);
        let Some(proxy) = self.kube_proxy_mut(&name) else { return Verdict::Accept };
        let tables = proxy.tables();
        let kernel = proxy.programmed_mut();
        let local = move |ip: Ipv4Addr| ip.is_loopback() || ip == own;
        let mut run = |table: &crate::proxy::rules::Table, chain: &str, packet: &mut Packet| {
            let mut env =
                Env { local: &local, rng: &mut kernel.rng, now, recent: &mut kernel.recent, hits: Vec::new() };
            let verdict = walk(table, chain, packet, &mut env);
            rules.extend(env.hits.into_iter().map(|h| format!("{name} {}: {h}", table.name)));
            verdict
        };
        let nat_chain = if hook == Hook::Output { "OUTPUT" } else { "PREROUTING" };
        let verdict = run(&tables.nat, nat_chain, packet);
        if verdict != Verdict::Accept {
            return verdict;
        }
        let chains: &[&str] = match (hook, local(packet.dst)) {
            (Hook::Output, true) => &["OUTPUT", "INPUT"],
            (Hook::Output, false) => &["OUTPUT"],
            (Hook::Prerouting, true) => &["INPUT"],
            (Hook::Prerouting, false) => &["FORWARD"],
        };
        for chain in chains {
            let verdict = run(&tables.filter, chain, packet);
            if verdict != Verdict::Accept {
                return verdict;
            }
        }
        Verdict::Accept
    }

    /// The packet arrives at `node` (its own address or a pod's): who, if anyone, accepts it.
    fn deliver(&self, node: usize, packet: &Packet) -> Reach {
        let name = self.node_name_at(node);
        let own = Cluster::node_addr(node);
        let host = self.is_local(node, packet.dst);
        let at = (packet.dst, packet.dport);
        if host && packet.protocol == "tcp" && packet.dport == 10250 {
            let running = self.kernel.id(&format!("{name}/kubelet")).is_some_and(|id| self.kernel.is_running(id));
            if running {
                let listener = Listener { port: 10250, protocol: "tcp", service: Service::Https(TlsServer::Kubelet) };
                return Reach::Connected { peer: None, listener, at };
            }
        }
        let Some(containerd) = self.containerd(&name) else { return Reach::Dropped };
        let wanted = if host { own } else { packet.dst };
        let sandboxes: Vec<_> = containerd.sandboxes().filter(|s| s.ready && s.ip == wanted.to_string()).collect();
        if sandboxes.is_empty() {
            return if host { Reach::Refused } else { Reach::Dropped };
        }
        for sandbox in sandboxes {
            let declared = self.declared_ports(&sandbox.namespace, &sandbox.name);
            for c in containerd.containers().filter(|c| c.sandbox_id == sandbox.id) {
                if c.state != crate::node::runtime::ContainerState::Running {
                    continue;
                }
                let ports = declared.iter().filter(|(n, _)| *n == c.name).map(|(_, p)| *p).collect::<Vec<_>>();
                let found = listeners::listeners(&c.image, &ports)
                    .into_iter()
                    .find(|l| l.port == packet.dport && l.protocol == packet.protocol);
                let Some(listener) = found else { continue };
                if listener.service == Service::Https(TlsServer::ApiServer) && !self.kernel.is_running(self.apiserver) {
                    continue;
                }
                let peer = Peer { namespace: sandbox.namespace.clone(), name: sandbox.name.clone(), ip: wanted };
                return Reach::Connected { peer: Some(peer), listener, at };
            }
        }
        Reach::Refused
    }

    /// The TCP `containerPort`s a pod's spec declares, per container (what an unknown image listens on).
    fn declared_ports(&self, namespace: &str, name: &str) -> Vec<(String, u16)> {
        let Some(api) = self.apiserver() else { return Vec::new() };
        let Some(obj) = api.cache().get(Kind::Pod, Some(namespace), name) else { return Vec::new() };
        let Object::Pod(pod) = obj.as_ref() else { return Vec::new() };
        pod.spec
            .iter()
            .flat_map(|s| &s.containers)
            .flat_map(|c| {
                c.ports.iter().flatten().filter_map(move |p| {
                    let tcp = p.protocol.as_deref().unwrap_or("TCP") == "TCP";
                    let port = u16::try_from(p.container_port).ok()?;
                    tcp.then(|| (c.name.clone(), port))
                })
            })
            .collect()
    }
}

/// How a name lookup ended.
enum Resolved {
    Address(Ipv4Addr, u64),
    /// NXDOMAIN (or the server refused), after this many ms.
    NotFound(u64),
    /// No DNS server answered.
    NoServer,
}

/// kube-apiserver's answer to an anonymous request for a path RBAC does not grant.
fn forbidden_path(path: &str) -> String {
    format!(
        "{{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {{}},\n  \"status\": \"Failure\",\n  \"message\": \"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"{path}\\\"\",\n  \"reason\": \"Forbidden\",\n  \"details\": {{}},\n  \"code\": 403\n}}"
    )
}
