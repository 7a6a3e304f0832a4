//! What a network program (`curl`, `wget`) learns from the network, and the call a container's process
//! makes to it. The program parses its command line and prints ([`super::curl`], [`super::wget`]); the
//! cluster's data plane (`cluster::network`) resolves the name, walks the nodes' rules and finds who answers.
//! A process inside a container cannot see the cluster: its runtime hands the command line to the network
//! ([`NetCall`]) and gives the process the answer ([`NetAnswer`]) when the network has one.

use std::net::Ipv4Addr;

/// Linux gives up a connect after its SYN retries (1+2+4+8+16+32+64 s, `tcp_syn_retries=6`).
pub const SYN_RETRIES_MS: u64 = 127_000;

/// A parsed `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub https: bool,
    pub host: String,
    pub port: u16,
    pub path: String,
}

impl Url {
    /// The `Host` header a client sends.
    pub fn host_header(&self) -> String {
        let default = if self.https { 443 } else { 80 };
        if self.port == default {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// How a connection attempt ended, as the program sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The name does not exist (NXDOMAIN).
    NoSuchHost,
    /// No DNS server answered: the resolver gives up after [`crate::dns::RESOLVER_TIMEOUT_MS`].
    NoDnsServer,
    /// Nobody listens there: the connection is reset at once.
    Refused,
    /// Nobody answers: the program waits until its own timeout or the kernel's SYN retries end.
    Dropped,
    /// A server accepted the connection and answered the request.
    Answered(Reply),
}

/// What the server on the other end does with an HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A plain HTTP server's `200 OK` with this body.
    Http(String),
    /// Something that is not HTTP: it closes the connection without a reply.
    NotHttp,
    /// A TLS server: the status (`200 OK`, `401 Unauthorized`) and body it answers a client that accepts
    /// its certificate. A plain HTTP request gets Go's `400 Bad Request` (the servers here are Go's).
    Tls { status: &'static str, body: String },
}

/// What the network did with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The address the host name resolved to.
    pub address: Option<Ipv4Addr>,
    pub end: End,
    /// When the outcome was known, from the start: name resolution and the hops to the peer.
    pub connect_ms: u64,
    /// When the answer was back (a round trip after the connection), for [`End::Answered`].
    pub reply_ms: u64,
    /// The rules the connection's first packets matched, as `<node> <table>: -A …`, in order.
    pub rules: Vec<String>,
    /// The pod that answered (`namespace/name`).
    pub answered_by: Option<String>,
    /// The address the connection reached after NAT.
    pub destination: Option<(Ipv4Addr, u16)>,
}

/// What a pod asks of the network: a program one of its processes runs, or, for CRI `PortForward`, bytes
/// written to a port of the pod's own `localhost`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetCall {
    /// A network program's argv (program first).
    Program(Vec<String>),
    /// A forwarded connection to `localhost:port` inside the pod's network namespace: `data` is what the
    /// client wrote (empty: only connect). The answer's stdout is what the listener sends back; a
    /// connection that cannot be made answers exit code 1 and the dial errors on stderr.
    Forward { port: u16, data: String },
}

/// What the program did: what it wrote (in order; `true` marks stderr), its exit code, and how long it ran.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetAnswer {
    pub output: Vec<(bool, String)>,
    pub exit_code: i32,
    pub after_ms: u64,
}

/// The network programs a container's process can run through its runtime.
pub fn is_network_program(program: &str) -> bool {
    matches!(program.rsplit('/').next().unwrap_or(program), "curl" | "wget")
}
