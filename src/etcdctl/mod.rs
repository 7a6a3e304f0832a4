//! etcdctl and etcdutl on the control-plane node: client programs that talk straight to the etcd members, as
//! on a real kubeadm node (`ETCDCTL_API=3` and the usual `--endpoints --cacert --cert --key` flags are accepted;
//! certificates are not checked). Output follows etcdctl v3.6's printers (`printer_simple.go`,
//! `printer_table.go`, `ep_command.go`, `snapshot_command.go`).
//!
//! Commands: `get KEY [--prefix] [--keys-only] [--print-value-only] [--rev N]`, `put KEY VALUE`, `del KEY [--prefix]
//! [--prev-kv]`, `compaction REV` (`compacted revision N`; `compact` through cobra's prefix matching, which
//! etcdctl enables), `defrag [--cluster]`, `watch KEY [--prefix] [--rev N] [--prev-kv]` (streams until
//! interrupted, exit 5 with `watch is canceled by the server` when compaction cancels it), `member list [-w
//! table]`, `endpoint status [-w table] [--cluster]`, `endpoint health [--cluster]`, `snapshot save FILE`, and `snapshot restore FILE [--data-dir DIR] [--bump-revision N
//! --mark-compacted]` (etcdutl's; etcdctl v3.6 no longer has it, but v3.5's deprecated one is accepted).
//!
//! Deviations, by design: values are printed as one line of JSON, because kubeglass stores typed objects (the
//! real apiserver stores protobuf, which etcdctl prints as binary); `put` accepts only a JSON Kubernetes object;
//! the zap log lines etcdctl writes to stderr are left out, except etcdutl's restore lines; `DB SIZE` and `IN USE` are
//! estimates from the keys and the uncompacted history (the file keeps its size until `defrag`); a member that does not answer fails after etcd's 7 s request timeout
//! rather than etcdctl's 5 s command timeout; `get --rev` is answered by the member from its own store (a
//! serializable read) instead of through Raft.

mod table;

use std::cell::RefCell;
use std::rc::Rc;

use crate::client::{Api, ClientError};
use crate::cluster::nodefs::{NodeFile, NodeFs, ETCD_DATA_DIR};
use crate::etcd::member::{member_id, MemberStatus};
use crate::etcd::store::{Snapshot, Store};
use crate::etcd::{EtcdMessage, KeyValue, Op, OpResult, Txn, TxnResponse};
use crate::kubectl::args::split_words;
use crate::sim::ComponentId;

/// etcd's version, as the control plane's `registry.k8s.io/etcd:3.6.4-0` image reports it.
pub const ETCD_VERSION: &str = "3.6.4";
/// The storage (data format) version etcd 3.6 reports.
pub const STORAGE_VERSION: &str = "3.6.0";
/// The control-plane node's address, where etcd listens.
pub const ETCD_HOST: &str = "192.168.56.10";

/// etcdctl's top-level commands (for cobra's prefix matching).
const COMMANDS: &[&str] = &[
    "get",
    "put",
    "del",
    "txn",
    "compaction",
    "alarm",
    "defrag",
    "endpoint",
    "move-leader",
    "watch",
    "version",
    "lease",
    "member",
    "snapshot",
    "make-mirror",
    "lock",
    "elect",
    "auth",
    "user",
    "role",
    "check",
    "completion",
    "downgrade",
    "options",
];

/// cobrautl's exit codes.
const EXIT_ERROR: i32 = 1;
const EXIT_INTERRUPTED: i32 = 5;
const EXIT_BAD_ARGS: i32 = 128;

/// What etcdctl needs from the node: the members (by index), the node's name and its filesystem.
#[derive(Clone)]
pub struct Invocation {
    /// `etcdctl …` or `etcdutl …` (without environment assignments or `sudo`).
    pub words: Vec<String>,
    pub members: Vec<ComponentId>,
    pub node: String,
    pub fs: Rc<RefCell<NodeFs>>,
}

/// The member's name: the control-plane node's (kubeadm names the member after its node); further members of
/// a multi-member cluster, which kubeglass places on the same node, get a suffix.
pub fn member_name(node: &str, index: u32) -> String {
    if index == 0 {
        node.to_string()
    } else {
        format!("{node}-{index}")
    }
}

/// Member `index`'s client URL: port 2379 for the first, then 2389, 2399, … on the same address.
pub fn client_url(index: u32) -> String {
    format!("https://{ETCD_HOST}:{}", 2379 + 10 * index)
}

pub fn peer_url(index: u32) -> String {
    format!("https://{ETCD_HOST}:{}", 2380 + 10 * index)
}

/// Which member an endpoint (`127.0.0.1:2379`, `https://192.168.56.10:2389`, `localhost:2379`) reaches.
pub fn endpoint_member(endpoint: &str, members: usize) -> Option<u32> {
    let rest = endpoint.strip_prefix("https://").or_else(|| endpoint.strip_prefix("http://")).unwrap_or(endpoint);
    let (host, port) = rest.trim_end_matches('/').rsplit_once(':')?;
    if !matches!(host, "127.0.0.1" | "localhost" | ETCD_HOST) {
        return None;
    }
    let port: u32 = port.parse().ok()?;
    let offset = port.checked_sub(2379)?;
    let index = offset / 10;
    (offset % 10 == 0 && (index as usize) < members).then_some(index)
}

/// Parsed command line: positional words and flags (`--flag=value`, `--flag value`, `-w table`).
struct Line {
    positional: Vec<String>,
    flags: Vec<(String, String)>,
}

const BOOL_FLAGS: &[&str] = &[
    "prefix",
    "keys-only",
    "count-only",
    "print-value-only",
    "cluster",
    "mark-compacted",
    "prev-kv",
    "hex",
    "insecure-transport",
    "insecure-skip-tls-verify",
    "debug",
    "skip-hash-check",
    "physical",
];
const VALUE_FLAGS: &[&str] = &[
    "endpoints",
    "cacert",
    "cert",
    "key",
    "write-out",
    "w",
    "data-dir",
    "bump-revision",
    "dial-timeout",
    "command-timeout",
    "keepalive-time",
    "keepalive-timeout",
    "user",
    "password",
    "name",
    "initial-cluster",
    "initial-cluster-token",
    "initial-advertise-peer-urls",
    "wal-dir",
    "limit",
    "consistency",
    "order",
    "sort-by",
    "rev",
    "discovery-srv",
];

impl Line {
    fn parse(words: &[String]) -> Result<Line, String> {
        let mut line = Line { positional: Vec::new(), flags: Vec::new() };
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            let Some(flag) = w.strip_prefix("--").or_else(|| w.strip_prefix('-').filter(|f| !f.is_empty())) else {
                line.positional.push(w.clone());
                i += 1;
                continue;
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            let value = if BOOL_FLAGS.contains(&name) {
                inline.unwrap_or_else(|| "true".into())
            } else if VALUE_FLAGS.contains(&name) {
                match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        words.get(i).cloned().ok_or_else(|| format!("flag needs an argument: --{name}"))?
                    }
                }
            } else {
                return Err(format!("unknown flag: {w}"));
            };
            line.flags.push((name.to_string(), value));
            i += 1;
        }
        Ok(line)
    }

    fn get(&self, names: &[&str]) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| names.contains(&n.as_str())).map(|(_, v)| v.as_str())
    }

    fn has(&self, name: &str) -> bool {
        self.get(&[name]).is_some_and(|v| v != "false")
    }

    fn table(&self) -> bool {
        self.get(&["write-out", "w"]) == Some("table")
    }

    fn endpoints(&self) -> Vec<String> {
        self.get(&["endpoints"])
            .unwrap_or("127.0.0.1:2379")
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// A failure as etcdctl reports it: `Error: <message>` and an exit code.
struct Failure(String, i32);

fn error(message: impl Into<String>) -> Failure {
    Failure(message.into(), EXIT_ERROR)
}

struct Ctl {
    api: Api,
    inv: Invocation,
    line: Line,
}

/// Runs one etcdctl or etcdutl command line; returns its exit code.
pub async fn run(api: Api, inv: Invocation) -> i32 {
    let program = inv.words.first().cloned().unwrap_or_default();
    let line = match Line::parse(&inv.words[1.min(inv.words.len())..]) {
        Ok(l) => l,
        Err(e) => return fail(&api, &Failure(e, EXIT_ERROR)),
    };
    let ctl = Ctl { api, inv, line };
    let mut words: Vec<&str> = ctl.line.positional.iter().map(String::as_str).collect();
    if program == "etcdctl" {
        // cobra's prefix matching, which etcdctl turns on: `compact` is `compaction`.
        if let Some(first) = words.first_mut() {
            let matches: Vec<&&str> = COMMANDS.iter().filter(|c| c.starts_with(*first)).collect();
            if !COMMANDS.contains(first) && matches.len() == 1 {
                *first = matches[0];
            }
        }
    }
    let result = match (program.as_str(), words.as_slice()) {
        ("etcdctl", ["get", ..]) => ctl.get().await,
        ("etcdctl", ["put", ..]) => ctl.put().await,
        ("etcdctl", ["del", ..]) => ctl.del().await,
        ("etcdctl", ["member", "list"]) => ctl.member_list().await,
        ("etcdctl", ["endpoint", "status"]) => ctl.endpoint_status().await,
        ("etcdctl", ["endpoint", "health"]) => ctl.endpoint_health().await,
        ("etcdctl", ["compaction", ..]) => ctl.compaction().await,
        ("etcdctl", ["defrag"]) => ctl.defrag().await,
        ("etcdctl", ["watch", ..]) => ctl.watch().await,
        ("etcdctl", ["snapshot", "save", ..]) => ctl.snapshot_save().await,
        ("etcdctl", ["snapshot", "restore", ..]) => {
            ctl.api.print("Deprecated: Use `etcdutl snapshot restore` instead.\n\n");
            ctl.snapshot_restore()
        }
        ("etcdutl", ["snapshot", "restore", ..]) => ctl.snapshot_restore(),
        ("etcdctl", ["version"]) | ("etcdutl", ["version"]) => {
            let name = if program == "etcdctl" { "etcdctl" } else { "etcdutl" };
            ctl.api.print(&format!("{name} version: {ETCD_VERSION}\nAPI version: 3.6\n"));
            Ok(())
        }
        (_, []) => Err(error(format!("{program}: a command is needed (kubeglass runs get, put, del, compaction, defrag, watch, member list, endpoint status|health, snapshot save|restore)"))),
        (_, [first, ..]) => Err(error(format!("unknown command \"{first}\" for \"{program}\""))),
    };
    match result {
        Ok(()) => 0,
        Err(f) => fail(&ctl.api, &f),
    }
}

fn fail(api: &Api, f: &Failure) -> i32 {
    if !f.0.is_empty() {
        api.print(&format!("Error: {}\n", f.0));
    }
    f.1
}

/// etcdctl's words for a transport or server failure.
fn describe(e: &ClientError) -> String {
    match e {
        ClientError::ConnectionRefused | ClientError::ConnectionReset => "context deadline exceeded".to_string(),
    }
}

impl Ctl {
    fn member_count(&self) -> usize {
        self.inv.members.len()
    }

    /// The members the endpoints reach, in order (unknown endpoints reach nothing).
    fn targets(&self) -> Vec<Option<u32>> {
        self.line.endpoints().iter().map(|e| endpoint_member(e, self.member_count())).collect()
    }

    /// Sends a request to the first endpoint that answers, as the client balancer does.
    async fn request(&self, make: impl Fn(u64) -> EtcdMessage) -> Result<EtcdMessage, Failure> {
        let mut last = "context deadline exceeded".to_string();
        for index in self.targets().into_iter().flatten() {
            let to = self.inv.members[index as usize];
            match self.api.etcd(to, &make).await {
                Ok(reply) => return Ok(reply),
                Err(e) => last = describe(&e),
            }
        }
        Err(error(last))
    }

    async fn txn(&self, txn: Txn) -> Result<TxnResponse, Failure> {
        match self.request(|request_id| EtcdMessage::Txn { request_id, txn: txn.clone() }).await? {
            EtcdMessage::TxnResult { result: Ok(r), .. } => Ok(r),
            EtcdMessage::TxnResult { result: Err(e), .. } => Err(error(match e {
                crate::etcd::EtcdError::Timeout => "context deadline exceeded".to_string(),
                other => format!("etcdserver: {other}").replace("etcdserver: etcdserver: ", "etcdserver: "),
            })),
            _ => Err(error("unexpected reply")),
        }
    }

    fn print_kv(&self, kv: &KeyValue, keys_only: bool) {
        if !self.line.has("print-value-only") {
            self.api.print(&format!("{}\n", kv.key));
        }
        if keys_only {
            self.api.print("\n");
        } else {
            self.api.print(&format!("{}\n", value_text(kv)));
        }
    }

    async fn get(&self) -> Result<(), Failure> {
        let Some(key) = self.line.positional.get(1) else {
            return Err(Failure(
                "get command needs one argument as key and an optional argument as range_end".into(),
                EXIT_BAD_ARGS,
            ));
        };
        if self.line.get(&["write-out", "w"]).is_some_and(|w| w != "simple") {
            return Err(Failure("kubeglass's etcdctl prints get in the simple format only".into(), 4));
        }
        let prefix = self.line.has("prefix");
        let keys_only = self.line.has("keys-only");
        let rev = match self.line.get(&["rev"]) {
            Some(v) => v.parse::<u64>().map_err(|_| error(format!("invalid argument {v:?} for \"--rev\" flag")))?,
            None => 0,
        };
        if rev > 0 {
            let kvs = match self
                .request(|request_id| EtcdMessage::RangeAt { request_id, key: key.clone(), prefix, revision: rev })
                .await?
            {
                EtcdMessage::RangeAtResult { result: Ok(kvs), .. } => kvs,
                EtcdMessage::RangeAtResult { result: Err(e), .. } => return Err(error(format!("etcdserver: {e}"))),
                _ => return Err(error("unexpected reply")),
            };
            for kv in &kvs {
                self.print_kv(kv, keys_only);
            }
            return Ok(());
        }
        let resp = self.txn(Txn::range(key, prefix)).await?;
        for kv in range_kvs(&resp) {
            self.print_kv(kv, keys_only);
        }
        Ok(())
    }

    async fn put(&self) -> Result<(), Failure> {
        let (Some(key), Some(value)) = (self.line.positional.get(1), self.line.positional.get(2)) else {
            return Err(Failure(
                "put command needs 1 argument and input from stdin or 2 arguments".into(),
                EXIT_BAD_ARGS,
            ));
        };
        let object = serde_json::from_str::<serde_json::Value>(value)
            .ok()
            .and_then(|v| crate::api::manifest::decode_strict(&v).ok())
            .ok_or_else(|| error("kubeglass's etcd stores Kubernetes objects: the value must be one as JSON"))?;
        let value = crate::apiserver::registry::for_storage(object);
        self.txn(Txn { success: vec![Op::Put { key: key.clone(), value }], ..Txn::default() }).await?;
        self.api.print("OK\n");
        Ok(())
    }

    async fn del(&self) -> Result<(), Failure> {
        let Some(key) = self.line.positional.get(1) else {
            return Err(Failure(
                "del command needs one argument as key and an optional argument as range_end".into(),
                EXIT_BAD_ARGS,
            ));
        };
        let keys: Vec<String> = if self.line.has("prefix") {
            range_kvs(&self.txn(Txn::range(key, true)).await?).map(|kv| kv.key.clone()).collect()
        } else {
            vec![key.clone()]
        };
        let deletes = keys.into_iter().map(|key| Op::Delete { key }).collect();
        let resp = self.txn(Txn { success: deletes, ..Txn::default() }).await?;
        let deleted: Vec<&KeyValue> = resp
            .results
            .iter()
            .flat_map(|r| match r {
                OpResult::Delete { deleted } => deleted.iter().collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .collect();
        self.api.print(&format!("{}\n", deleted.len()));
        if self.line.has("prev-kv") {
            for kv in deleted {
                self.print_kv(kv, false);
            }
        }
        Ok(())
    }

    async fn members(&self) -> Result<Vec<u32>, Failure> {
        match self.request(|request_id| EtcdMessage::MemberList { request_id }).await? {
            EtcdMessage::MemberListResult { members, .. } => Ok(members),
            _ => Err(error("unexpected reply")),
        }
    }

    async fn member_list(&self) -> Result<(), Failure> {
        let header = ["ID", "Status", "Name", "Peer Addrs", "Client Addrs", "Is Learner"];
        let rows: Vec<Vec<String>> = self
            .members()
            .await?
            .into_iter()
            .map(|i| {
                vec![
                    format!("{:x}", member_id(i)),
                    "started".to_string(),
                    member_name(&self.inv.node, i),
                    peer_url(i),
                    client_url(i),
                    "false".to_string(),
                ]
            })
            .collect();
        self.print_rows(&header, &rows);
        Ok(())
    }

    fn print_rows(&self, header: &[&str], rows: &[Vec<String>]) {
        if self.line.table() {
            self.api.print(&table::render(header, rows));
        } else {
            for row in rows {
                self.api.print(&format!("{}\n", row.join(", ")));
            }
        }
    }

    /// The endpoints a command addresses: `--endpoints`, or with `--cluster` every member's client URL.
    async fn endpoint_list(&self) -> Result<Vec<String>, Failure> {
        if !self.line.has("cluster") {
            return Ok(self.line.endpoints());
        }
        match self.members().await {
            Ok(members) => Ok(members.into_iter().map(client_url).collect()),
            Err(Failure(e, _)) => Err(error(format!("failed to fetch endpoints from etcd cluster member list: {e}"))),
        }
    }

    async fn status_of(&self, endpoint: &str) -> Result<MemberStatus, String> {
        let index = endpoint_member(endpoint, self.member_count()).ok_or("context deadline exceeded")?;
        let to = self.inv.members[index as usize];
        match self.api.etcd(to, |request_id| EtcdMessage::Status { request_id }).await {
            Ok(EtcdMessage::StatusResult { status, .. }) => Ok(*status),
            Ok(_) => Err("unexpected reply".into()),
            Err(e) => Err(describe(&e)),
        }
    }

    async fn endpoint_status(&self) -> Result<(), Failure> {
        let header = [
            "endpoint",
            "ID",
            "version",
            "storage version",
            "db size",
            "in use",
            "percentage not in use",
            "quota",
            "is leader",
            "is learner",
            "raft term",
            "raft index",
            "raft applied index",
            "errors",
            "downgrade target version",
            "downgrade enabled",
        ];
        let mut rows = Vec::new();
        let mut failed = false;
        for ep in self.endpoint_list().await? {
            match self.status_of(&ep).await {
                Ok(s) => {
                    let not_in_use = 100 - (s.db_size_in_use * 100 / s.db_size.max(1));
                    rows.push(vec![
                        ep,
                        s.id.clone(),
                        ETCD_VERSION.to_string(),
                        STORAGE_VERSION.to_string(),
                        humanize_bytes(s.db_size),
                        humanize_bytes(s.db_size_in_use),
                        format!("{not_in_use}%"),
                        humanize_bytes(2 * 1024 * 1024 * 1024),
                        s.is_leader.to_string(),
                        "false".to_string(),
                        s.term.to_string(),
                        s.raft_index.to_string(),
                        s.raft_applied_index.to_string(),
                        String::new(),
                        String::new(),
                        "false".to_string(),
                    ]);
                }
                Err(e) => {
                    failed = true;
                    self.api.print(&format!("Failed to get the status of endpoint {ep} ({e})\n"));
                }
            }
        }
        self.print_rows(&header, &rows);
        if failed {
            // etcdctl exits 1 after the table, without an `Error:` line.
            return Err(Failure(String::new(), EXIT_ERROR));
        }
        Ok(())
    }

    async fn endpoint_health(&self) -> Result<(), Failure> {
        let mut unhealthy = false;
        for ep in self.endpoint_list().await? {
            let started = self.api.now();
            let result = match endpoint_member(&ep, self.member_count()) {
                None => Err("context deadline exceeded".to_string()),
                Some(i) => {
                    let to = self.inv.members[i as usize];
                    let txn = Txn::range("health", false);
                    match self.api.etcd(to, |request_id| EtcdMessage::Txn { request_id, txn: txn.clone() }).await {
                        Ok(EtcdMessage::TxnResult { result: Ok(_), .. }) => Ok(()),
                        Ok(_) | Err(_) => Err("context deadline exceeded".to_string()),
                    }
                }
            };
            let took = crate::sim::time::go_duration(self.api.now().since(started));
            match result {
                Ok(()) => self.api.print(&format!("{ep} is healthy: successfully committed proposal: took = {took}\n")),
                Err(e) => {
                    unhealthy = true;
                    self.api.print(&format!("{ep} is unhealthy: failed to commit proposal: {e}\n"));
                }
            }
        }
        if unhealthy {
            return Err(error("unhealthy cluster"));
        }
        Ok(())
    }

    /// `etcdctl compaction REV` (`compact` by prefix): `compacted revision N`.
    async fn compaction(&self) -> Result<(), Failure> {
        let [_, rev] = self.line.positional.as_slice() else {
            return Err(Failure("compaction command needs 1 argument".into(), EXIT_BAD_ARGS));
        };
        let revision: i64 =
            rev.parse().map_err(|_| error(format!("strconv.ParseInt: parsing {rev:?}: invalid syntax")))?;
        let revision = revision.max(0) as u64;
        match self.request(|request_id| EtcdMessage::CompactRequest { request_id, revision }).await? {
            EtcdMessage::CompactResult { result: Ok(_), .. } => {
                self.api.print(&format!("compacted revision {rev}\n"));
                Ok(())
            }
            EtcdMessage::CompactResult { result: Err(crate::etcd::EtcdError::Timeout), .. } => {
                Err(error("context deadline exceeded"))
            }
            EtcdMessage::CompactResult { result: Err(e), .. } => Err(error(format!("etcdserver: {e}"))),
            _ => Err(error("unexpected reply")),
        }
    }

    /// `etcdctl defrag [--cluster]`: each endpoint in turn, `Finished defragmenting etcd member[EP]. took D`.
    async fn defrag(&self) -> Result<(), Failure> {
        let mut failures = 0;
        for ep in self.endpoint_list().await? {
            let started = self.api.now();
            let result = match endpoint_member(&ep, self.member_count()) {
                None => Err("context deadline exceeded".to_string()),
                Some(i) => {
                    let to = self.inv.members[i as usize];
                    match self.api.etcd(to, |request_id| EtcdMessage::Defragment { request_id }).await {
                        Ok(EtcdMessage::DefragmentResult { .. }) => Ok(()),
                        Ok(_) => Err("unexpected reply".to_string()),
                        Err(e) => Err(describe(&e)),
                    }
                }
            };
            let took = crate::sim::time::go_duration(self.api.now().since(started));
            match result {
                Ok(()) => self.api.print(&format!("Finished defragmenting etcd member[{ep}]. took {took}\n")),
                Err(e) => {
                    failures += 1;
                    self.api.print(&format!("Failed to defragment etcd member[{ep}]. took {took}. ({e})\n"));
                }
            }
        }
        if failures > 0 {
            return Err(Failure(String::new(), EXIT_ERROR));
        }
        Ok(())
    }

    /// `etcdctl watch KEY [--prefix] [--rev N] [--prev-kv]`: prints each event as the simple printer does
    /// (`PUT`/`DELETE`, then key and value lines; a delete's value is empty) until interrupted, or until the
    /// server cancels the watch (`watch was canceled (…)`, exit 5).
    async fn watch(&self) -> Result<(), Failure> {
        let Some(key) = self.line.positional.get(1) else {
            return Err(Failure("bad number of arguments".into(), EXIT_BAD_ARGS));
        };
        let prefix = self.line.has("prefix");
        let prev_kv = self.line.has("prev-kv");
        let rev = match self.line.get(&["rev"]) {
            Some(v) => v.parse::<u64>().map_err(|_| {
                Failure(
                    format!(
                        "invalid argument {v:?} for \"--rev\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax"
                    ),
                    EXIT_ERROR,
                )
            })?,
            None => 0,
        };
        let Some(index) = self.targets().into_iter().flatten().next() else {
            return Err(Failure("context deadline exceeded".into(), EXIT_ERROR));
        };
        let watch_id = self.api.etcd_watch(self.inv.members[index as usize], key, rev);
        while let Some(message) = self.api.next_etcd_watch_message(watch_id).await {
            match message {
                EtcdMessage::WatchEvents { events, .. } => {
                    for e in events.iter().filter(|e| prefix || e.kv.key == *key) {
                        let deleted = e.kind == crate::etcd::EventType::Delete;
                        self.api.print(if deleted { "DELETE\n" } else { "PUT\n" });
                        if prev_kv {
                            if let Some(p) = &e.prev {
                                self.print_kv(p, false);
                            }
                        }
                        if deleted {
                            self.api.print(&format!("{}\n\n", e.kv.key));
                        } else {
                            self.print_kv(&e.kv, false);
                        }
                    }
                }
                EtcdMessage::WatchCanceled { .. } => {
                    self.api.print("watch was canceled (etcdserver: mvcc: required revision has been compacted)\n");
                    break;
                }
                _ => {}
            }
        }
        Err(Failure("watch is canceled by the server".into(), EXIT_INTERRUPTED))
    }

    async fn snapshot_save(&self) -> Result<(), Failure> {
        let [_, _, path] = self.line.positional.as_slice() else {
            return Err(Failure("snapshot save expects one argument <filename>".into(), EXIT_BAD_ARGS));
        };
        let Some(index) = self.targets().first().copied().flatten() else {
            return Err(Failure("context deadline exceeded".into(), EXIT_INTERRUPTED));
        };
        let to = self.inv.members[index as usize];
        match self.api.etcd(to, |request_id| EtcdMessage::SnapshotSave { request_id }).await {
            Ok(EtcdMessage::SnapshotData { snapshot, .. }) => {
                self.inv.fs.borrow_mut().write(path, NodeFile::EtcdSnapshot(snapshot));
                self.api.print(&format!("Snapshot saved at {path}\nServer version {ETCD_VERSION}\n"));
                Ok(())
            }
            Ok(_) => Err(Failure("unexpected reply".into(), EXIT_INTERRUPTED)),
            Err(e) => Err(Failure(describe(&e), EXIT_INTERRUPTED)),
        }
    }

    fn snapshot_restore(&self) -> Result<(), Failure> {
        let [_, _, path] = self.line.positional.as_slice() else {
            return Err(Failure("snapshot restore requires exactly one argument".into(), EXIT_BAD_ARGS));
        };
        let bump: u64 = match self.line.get(&["bump-revision"]) {
            Some(v) => v
                .parse()
                .map_err(|_| Failure(format!("invalid argument {v:?} for \"--bump-revision\" flag"), EXIT_ERROR))?,
            None => 0,
        };
        let mark_compacted = self.line.has("mark-compacted");
        if bump > 0 && !mark_compacted {
            return Err(Failure("--mark-compacted required if --revision-bump > 0".into(), EXIT_BAD_ARGS));
        }
        let data_dir = self
            .line
            .get(&["data-dir"])
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}.etcd", self.line.get(&["name"]).unwrap_or("default")));
        let mut fs = self.inv.fs.borrow_mut();
        let snapshot: Snapshot = match fs.get(path) {
            Some(NodeFile::EtcdSnapshot(s)) => s.as_ref().clone(),
            Some(NodeFile::EtcdDataDir(_)) => return Err(error(format!("read {path}: is a directory"))),
            Some(NodeFile::Text(_) | NodeFile::Binary(_)) => {
                return Err(error(format!("snapshot file integrity check failed: {path} is not an etcd snapshot")))
            }
            None => return Err(error(format!("stat {path}: no such file or directory"))),
        };
        let live = NodeFs::absolute(&data_dir) == ETCD_DATA_DIR;
        // etcd's live data directory counts as free once etcd is stopped (as if it had been moved away).
        if (live && fs.etcd_running) || (!live && fs.exists(&data_dir)) {
            return Err(error(format!("data-dir {data_dir:?} not empty or could not be read")));
        }
        let when = self.api.now().rfc3339();
        let fields = format!(
            "{{\"path\": {path:?}, \"wal-dir\": \"{data_dir}/member/wal\", \"data-dir\": {data_dir:?}, \"snap-dir\": \"{data_dir}/member/snap\", \"initial-memory-map-size\": 10737418240}}"
        );
        self.api.print(&format!("{when}\tinfo\tsnapshot/v3_snapshot.go:305\trestoring snapshot\t{fields}\n"));
        if live {
            fs.replace_etcd_data(Store::from_backup(snapshot.clone(), bump, mark_compacted));
        }
        fs.write(&data_dir, NodeFile::EtcdDataDir(Box::new(snapshot)));
        self.api.print(&format!("{when}\tinfo\tsnapshot/v3_snapshot.go:333\trestored snapshot\t{fields}\n"));
        Ok(())
    }
}

fn range_kvs(r: &TxnResponse) -> impl Iterator<Item = &KeyValue> {
    r.results.iter().flat_map(|res| match res {
        OpResult::Range { kvs } => kvs.as_slice(),
        _ => &[],
    })
}

/// A stored value as one line of JSON (kubeglass keeps typed objects where etcd holds protobuf bytes), without
/// the resourceVersion that only the apiserver's decoder adds.
fn value_text(kv: &KeyValue) -> String {
    let mut json = kv.value.to_json();
    if let Some(meta) = json.get_mut("metadata").and_then(serde_json::Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
    serde_json::to_string(&json).unwrap_or_default()
}

/// go-humanize's `Bytes`: SI units, one decimal below 10 (`5.9 MB`), none above (`20 kB`).
pub fn humanize_bytes(n: u64) -> String {
    if n < 10 {
        return format!("{n} B");
    }
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let e = ((n as f64).ln() / 1000f64.ln()).floor() as usize;
    let e = e.min(units.len() - 1);
    let value = ((n as f64) / 1000f64.powi(e as i32) * 10.0 + 0.5).floor() / 10.0;
    if value < 10.0 {
        format!("{value:.1} {}", units[e])
    } else {
        format!("{value:.0} {}", units[e])
    }
}

/// Splits a node shell line into words, dropping leading `VAR=value` assignments and `sudo`.
pub fn command_words(line: &str) -> Result<Vec<String>, String> {
    let words = split_words(line)?;
    Ok(words
        .into_iter()
        .skip_while(|w| {
            w == "sudo" || (w.contains('=') && !w.starts_with('-') && w.split('=').next().is_some_and(is_env_name))
        })
        .collect())
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_map_to_members_by_host_and_port() {
        assert_eq!(endpoint_member("127.0.0.1:2379", 1), Some(0));
        assert_eq!(endpoint_member("https://127.0.0.1:2379", 1), Some(0));
        assert_eq!(endpoint_member("https://192.168.56.10:2389", 3), Some(1));
        assert_eq!(endpoint_member("https://192.168.56.10:2389", 1), None);
        assert_eq!(endpoint_member("10.0.0.1:2379", 1), None);
        assert_eq!(endpoint_member("localhost:2380", 1), None);
    }

    #[test]
    fn byte_sizes_print_like_go_humanize() {
        assert_eq!(humanize_bytes(5), "5 B");
        assert_eq!(humanize_bytes(20 * 1024), "20 kB");
        assert_eq!(humanize_bytes(5_900_000), "5.9 MB");
        assert_eq!(humanize_bytes(2 * 1024 * 1024 * 1024), "2.1 GB");
    }

    #[test]
    fn shell_lines_drop_environment_assignments_and_sudo() {
        let words = command_words("ETCDCTL_API=3 sudo etcdctl get /registry --prefix --keys-only").unwrap();
        assert_eq!(words, vec!["etcdctl", "get", "/registry", "--prefix", "--keys-only"]);
    }

    #[test]
    fn flags_take_values_inline_or_from_the_next_word() {
        let words: Vec<String> = ["--endpoints", "https://127.0.0.1:2379", "-w=table", "member", "list"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let line = Line::parse(&words).unwrap();
        assert_eq!(line.positional, vec!["member", "list"]);
        assert!(line.table());
        assert_eq!(line.endpoints(), vec!["https://127.0.0.1:2379"]);
        assert!(Line::parse(&["--bogus".to_string()]).is_err());
    }
}
