//! The data plane: `iptables-save` of a node's tables, and `curl` and `wget` through them from a node's
//! shell or a pod.
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
//! A container's process (`wget`, `curl` in `kubectl exec`, a container's command, an attached shell)
//! starts in its pod instead ([`Origin::Pod`]): its packets enter its node's PREROUTING and FORWARD chains
//! from the pod's veth, with the pod's address as source; `localhost` and the pod's own address stay in the
//! pod; names resolve with the pod's own search list. The program's containerd asks
//! ([`Cluster::network_call`]); the answer reaches it when the program is done.
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
use crate::node::curl;
use crate::node::listeners::{self, Exchange, Listener, Service, TlsServer};
use crate::node::net::{End, Fetched, NetAnswer, NetCall, Reply, Url};
use crate::node::wget;
use crate::proxy::packet::{walk, Env, Packet, Verdict};
use crate::proxy::KubeProxy;

use super::{bootstrap, Cluster, CommandResult, Component};
use crate::sim::{ChainId, ComponentId, Payload};

/// Where a connection starts: a node's own network stack, or a pod's network namespace, whose packets
/// enter its node through the pod's veth (the node's PREROUTING and FORWARD rules, not OUTPUT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A node (by index): its shell, a host-network pod.
    Node(usize),
    /// A pod on `node` with address `ip`, resolving names with `searches` (its `/etc/resolv.conf`).
    Pod { node: usize, ip: Ipv4Addr, searches: Vec<String> },
}

impl Origin {
    /// The source address of its packets.
    fn address(&self) -> Ipv4Addr {
        match self {
            Origin::Node(node) => Cluster::node_addr(*node),
            Origin::Pod { ip, .. } => *ip,
        }
    }

    /// The DNS search list: a node's shell resolves as a pod in `default` would (see the module header).
    fn searches(&self) -> Vec<String> {
        match self {
            Origin::Node(_) => dns::search_list("default"),
            Origin::Pod { searches, .. } => searches.clone(),
        }
    }
}

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

    /// `curl` on `node`, with where the connection went. The simulation runs on while curl waits.
    pub fn curl_report(&mut self, node: &str, args: &[&str]) -> CurlReport {
        let mut report = CurlReport {
            result: CommandResult { exit: Some(0), ..Default::default() },
            rules: Vec::new(),
            answered_by: None,
            destination: None,
        };
        let Some(from) = self.node_index(node) else {
            report.result =
                CommandResult { output: format!("unknown node {node:?}\n"), exit: Some(1), ..Default::default() };
            return report;
        };
        let origin = Origin::Node(from);
        let (answer, fetched) = curl::run(args, |url, agent| self.fetch(&origin, url, agent));
        if let Some(f) = fetched {
            report.rules = f.rules;
            report.answered_by = f.answered_by;
            report.destination = f.destination;
        }
        self.advance_ms(answer.after_ms);
        let output = answer.output.into_iter().map(|(_, text)| text).collect();
        report.result = CommandResult { output, exit: Some(answer.exit_code), ..Default::default() };
        report
    }

    /// A network program (`curl`, `wget`) a container's process runs in the pod at `origin`: what it
    /// prints and how long it takes. The clock does not move: the runtime answers the process when it is
    /// time.
    pub fn run_network_program(&mut self, origin: &Origin, call: &NetCall) -> NetAnswer {
        let argv = match call {
            NetCall::Program(argv) => argv,
            NetCall::Forward { port, data } => return self.forward(origin, *port, data),
        };
        let words: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let program = argv.first().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or("");
        match program {
            "wget" => wget::run(&words, |url, agent| self.fetch(origin, url, agent)).0,
            _ => curl::run(&words, |url, agent| self.fetch(origin, url, agent)).0,
        }
    }

    /// A port-forwarded connection to `localhost:port` in the pod at `origin` (containerd dials it inside
    /// the pod's network namespace, or the node's for a host-network pod), and what the listener there
    /// writes back for `data`: each complete HTTP request answered in turn; bytes that are not HTTP get the
    /// server's `400 Bad Request` (a TLS server's plain-HTTP refusal; nothing from a server that speaks
    /// something else). Nobody listening: exit code 1, `connection refused`.
    fn forward(&mut self, origin: &Origin, port: u16, data: &str) -> NetAnswer {
        let mut rules = Vec::new();
        let (reach, _) = self.connect(origin, Ipv4Addr::LOCALHOST, port, "tcp", &mut rules);
        let Reach::Connected { peer, listener, .. } = reach else {
            return NetAnswer { output: vec![(true, "connection refused".into())], exit_code: 1, after_ms: 0 };
        };
        let date = crate::sim::time::http_date_from_epoch_ms((crate::sim::time::EPOCH_MS + self.now().ms()) as i64);
        let (requests, garbage) = listeners::parse_requests(data.as_bytes());
        let mut written = String::new();
        for request in &requests {
            match &listener.service {
                Service::Http(body) => {
                    let url = Url { https: false, host: request.host.clone(), port, path: request.path.clone() };
                    let Reply::Http(text) =
                        self.exchange("127.0.0.1", &url, &request.user_agent, peer.as_ref(), &listener)
                    else {
                        continue;
                    };
                    written.push_str(&listeners::http_response(body, &text, request.method == "HEAD", &date));
                }
                Service::Https(_) => {
                    written
                        .push_str("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n");
                    break;
                }
                Service::NotHttp | Service::Dns => break,
            }
        }
        if garbage {
            if let Service::Http(body) = &listener.service {
                written.push_str(&listeners::bad_request(body, &date));
            }
        }
        let output = if written.is_empty() { Vec::new() } else { vec![(false, written)] };
        NetAnswer { output, exit_code: 0, after_ms: 1 }
    }

    /// A process of the pod at `ip`, on the machine of component `component` (its containerd), runs the
    /// network program `call`: the answer reaches the component when the program is done.
    pub(super) fn network_call(
        &mut self,
        component: ComponentId,
        question: u64,
        ip: &str,
        searches: Vec<String>,
        call: &NetCall,
        chain: ChainId,
    ) {
        let node = self.kernel.name(component).split('/').next().unwrap_or("").to_string();
        let answer = match (self.node_index(&node), ip.parse::<Ipv4Addr>()) {
            (Some(index), Ok(ip)) if ip == Cluster::node_addr(index) => {
                self.run_network_program(&Origin::Node(index), call)
            }
            (Some(index), Ok(ip)) => self.run_network_program(&Origin::Pod { node: index, ip, searches }, call),
            _ => NetAnswer { output: vec![(true, "network is unreachable\n".into())], exit_code: 1, after_ms: 0 },
        };
        let after = answer.after_ms;
        let payload = Payload::NetAnswer { id: question, answer: Box::new(answer) };
        self.kernel.answer_from_network(component, payload, after, chain);
    }

    /// One HTTP request from `origin` to `url`: the name resolved through kube-dns, the first packets
    /// walked through the nodes' rules, the server's answer. The clock does not move.
    pub fn fetch(&mut self, origin: &Origin, url: &Url, user_agent: &str) -> Fetched {
        let mut f = Fetched {
            address: None,
            end: End::Dropped,
            connect_ms: 0,
            reply_ms: 0,
            rules: Vec::new(),
            answered_by: None,
            destination: None,
        };
        let (ip, dns_ms) = match self.resolve_name(origin, &url.host, &mut f.rules) {
            Resolved::Address(ip, ms) => (ip, ms),
            Resolved::NotFound(ms) => {
                (f.end, f.connect_ms) = (End::NoSuchHost, ms);
                return f;
            }
            Resolved::NoServer => {
                f.end = End::NoDnsServer;
                return f;
            }
        };
        f.address = Some(ip);
        let (reach, hops) = self.connect(origin, ip, url.port, "tcp", &mut f.rules);
        f.connect_ms = dns_ms + hops;
        match reach {
            Reach::Refused => f.end = End::Refused,
            Reach::Dropped => f.end = End::Dropped,
            Reach::Connected { peer, listener, at } => {
                f.destination = Some(at);
                f.answered_by = peer.as_ref().map(|p| format!("{}/{}", p.namespace, p.name));
                f.reply_ms = f.connect_ms + hops + 1;
                let client = origin.address().to_string();
                f.end = End::Answered(self.exchange(&client, url, user_agent, peer.as_ref(), &listener));
            }
        }
        f
    }

    /// What the listener sends back for an HTTP request for `url` from `client`.
    fn exchange(&self, client: &str, url: &Url, user_agent: &str, peer: Option<&Peer>, listener: &Listener) -> Reply {
        match &listener.service {
            Service::Http(body) => {
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
                    client,
                    user_agent,
                };
                Reply::Http(listeners::http_body(body, &x))
            }
            Service::NotHttp | Service::Dns => Reply::NotHttp,
            Service::Https(TlsServer::Kubelet) => {
                Reply::Tls { status: "401 Unauthorized", body: "Unauthorized\n".into() }
            }
            Service::Https(_) => {
                let path = url.path.split('?').next().unwrap_or("/");
                match path {
                    "/healthz" | "/livez" | "/readyz" => Reply::Tls { status: "200 OK", body: "ok".into() },
                    _ => Reply::Tls { status: "403 Forbidden", body: forbidden_path(path) },
                }
            }
        }
    }

    /// Resolves `host` from `origin`: an address as is, `localhost`, or a name through kube-dns with the
    /// origin's search list.
    fn resolve_name(&mut self, origin: &Origin, host: &str, rules: &mut Vec<String>) -> Resolved {
        if let Ok(ip) = host.parse::<Ipv4Addr>() {
            return Resolved::Address(ip, 0);
        }
        if host == "localhost" {
            return Resolved::Address(Ipv4Addr::LOCALHOST, 0);
        }
        let (reach, ms) = self.connect(origin, dns::KUBE_DNS_IP, 53, "udp", rules);
        let serving = self.coredns().is_some_and(CoreDns::synced)
            && self.kernel.id("coredns").is_some_and(|id| self.kernel.is_running(id));
        match reach {
            Reach::Refused => Resolved::NotFound(ms),
            Reach::Connected { listener, .. } if listener.service == Service::Dns && serving => {
                let Some(id) = self.kernel.id("coredns") else { return Resolved::NoServer };
                let mut rng = self.rngs[id.0 as usize].clone();
                let names = dns::candidates(host, &origin.searches(), 5);
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

    /// Sends the first packet of a connection from `origin`; returns how it ended and the time the hops
    /// took.
    fn connect(
        &mut self,
        origin: &Origin,
        dst: Ipv4Addr,
        dport: u16,
        protocol: &str,
        rules: &mut Vec<String>,
    ) -> (Reach, u64) {
        let mut packet =
            Packet { src: origin.address(), dst, dport, protocol: protocol.to_string(), mark: 0, dnatted: false };
        let (mut at, mut hook, mut bounced) = match origin {
            Origin::Node(node) => (*node, Hook::Output, false),
            // A pod's own addresses stay inside its network namespace.
            Origin::Pod { node, ip, .. } if dst.is_loopback() || dst == *ip => {
                packet.dst = *ip;
                return (self.deliver(*node, &packet), 0);
            }
            // Its packets leave through its veth into the node, which routes them (PREROUTING, FORWARD).
            Origin::Pod { node, .. } => (*node, Hook::Prerouting, false),
        };
        let mut hops = 0;
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
            if bounced || next == at || packet.dst != Cluster::node_addr(next) {
                return (self.deliver(next, &packet), hops);
            }
            (at, hook, bounced) = (next, Hook::Prerouting, true);
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
