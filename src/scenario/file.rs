//! The scenario file (`kind: Scenario`): read it, check it, write it back.
//!
//! Reading goes in two passes, as ripgrep reads its flags: first the raw shape (serde_yaml into plain structs
//! of optional fields that refuse unknown keys: syntax errors, unknown fields and wrong types come from here,
//! each with serde_yaml's position), then a check of the meaning into the typed [`Scenario`] (defaults,
//! durations, names, components, users, regexes), whose errors are placed with the text positions that
//! [`Locations`] finds. Every failure is a [`ScenarioError`] with a file, a line and a column.
//!
//! [`to_yaml`] writes the canonical form: defaults left out, keys in a fixed order, manifests as block
//! literals; `parse(&to_yaml(&s), f) == Ok(s)` ([`Step::line`] aside, which equality ignores).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

use super::emit::{key_value, literal_lines, nest_item, nest_under, scalar, string_value};
use super::locate::{Locations, Pos};
use crate::sim::time::{go_duration, parse_duration_ms};

/// The `apiVersion` of a scenario file.
pub const API_VERSION: &str = "kubeglass.dev/v1alpha1";
/// The `kind` of a scenario file.
pub const KIND: &str = "Scenario";
/// The user that always exists (admin.conf's certificate, group `kubeadm:cluster-admins`) and runs steps until an `as:` step.
pub const ADMIN_USER: &str = "kubernetes-admin";
/// The seed when `spec.seed` is left out.
pub const DEFAULT_SEED: u64 = 1;
/// How long a `waitFor` step waits when it gives no `timeout`.
pub const DEFAULT_WAIT_FOR_TIMEOUT_MS: u64 = 60_000;
/// The longest duration a file may ask for (`wait`, `at`, `timeout`): ten years, in milliseconds.
pub const MAX_DURATION_MS: u64 = 10 * 365 * 24 * 3_600_000;
/// The most worker nodes a cluster may have.
pub const MAX_NODES: usize = 5_000;
/// The longest `matches` regex, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;

/// A scenario: a cluster to build and the steps to play on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub cluster: ClusterSpec,
    pub steps: Vec<Step>,
}

/// The cluster a scenario starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    /// 1, 3 or 5.
    pub etcd_members: u8,
    /// Whether cloud-controller-manager runs.
    pub cloud: bool,
    /// Whether the metrics-server add-on is installed.
    pub metrics_server: bool,
    pub control_plane: NodeSpec,
    /// The worker nodes.
    pub nodes: Vec<NodeSpec>,
    /// Users besides [`ADMIN_USER`], who always exists.
    pub users: Vec<UserSpec>,
}

/// One machine of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    pub name: String,
    /// Kubernetes quantities, as written (`"2"`, `500m`, `4Gi`).
    pub cpu: String,
    pub memory: String,
    /// A whole number, as written.
    pub pods: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<TaintSpec>,
}

/// A taint on a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaintSpec {
    pub key: String,
    pub value: Option<String>,
    pub effect: TaintEffect,
}

/// What a taint does to pods that do not tolerate it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

impl TaintEffect {
    pub fn as_str(self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
        }
    }

    pub fn parse(text: &str) -> Option<TaintEffect> {
        [TaintEffect::NoSchedule, TaintEffect::PreferNoSchedule, TaintEffect::NoExecute]
            .into_iter()
            .find(|e| e.as_str() == text)
    }
}

/// A user the apiserver knows by a bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSpec {
    pub name: String,
    /// Defaults to `<name>-token`.
    pub token: String,
    pub groups: Vec<String>,
}

/// One step of a scenario.
///
/// Equality ignores [`Step::line`]: two steps that do the same thing are equal wherever they were written.
#[derive(Debug, Clone)]
pub struct Step {
    /// The simulated time the step happens, if the file says (share links record it); otherwise the step
    /// runs right after the previous one.
    pub at_ms: Option<u64>,
    /// 1-based line of the step (its `-`) in the file it was read from.
    pub line: usize,
    pub action: Action,
    pub expect: Option<Expect>,
}

impl PartialEq for Step {
    fn eq(&self, other: &Step) -> bool {
        self.at_ms == other.at_ms && self.action == other.action && self.expect == other.expect
    }
}

impl Eq for Step {}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `kubectl apply -f -` with this manifest on standard input, as the current user.
    Apply { manifest: String },
    /// A kubectl command line (without the leading `kubectl`), as the current user.
    Kubectl { command: String },
    /// Stop a component cleanly (see [`Component`] for the names).
    Stop(String),
    /// Kill a component: a control-plane component's static pod container exits and the kubelet restarts
    /// it with its back-off; systemd restarts a node's kubelet or containerd after the unit's `RestartSec`.
    Crash(String),
    /// Start a stopped or crashed component.
    Start(String),
    /// Let simulated time pass.
    Wait { ms: u64 },
    /// Run a kubectl command until its output contains a string, or fail after the timeout.
    WaitFor { command: String, contains: String, timeout_ms: u64 },
    /// A command line in a root shell on a node (`systemctl stop kubelet`, `crictl ps -a | grep etcd`,
    /// `mv /etc/kubernetes/manifests/kube-scheduler.yaml /tmp/`): see [`crate::node::shell`].
    Shell { node: String, command: String },
    /// Later kubectl steps run as this user.
    As { user: String },
    /// Ctrl+C in the terminal (`press: Ctrl+C`): ends every kubectl command still running, such as a `-w`
    /// watch the page left streaming.
    Interrupt,
}

/// The only key a `press` step presses.
pub const CTRL_C: &str = "Ctrl+C";

impl Action {
    /// The key that writes this action in a file (`apply`, `waitFor`, `on`, …).
    pub fn keyword(&self) -> &'static str {
        match self {
            Action::Apply { .. } => "apply",
            Action::Kubectl { .. } => "kubectl",
            Action::Stop(_) => "stop",
            Action::Crash(_) => "crash",
            Action::Start(_) => "start",
            Action::Wait { .. } => "wait",
            Action::WaitFor { .. } => "waitFor",
            Action::Shell { .. } => "on",
            Action::As { .. } => "as",
            Action::Interrupt => "press",
        }
    }

    /// Whether the step prints something an [`Expect`] can check.
    pub fn has_output(&self) -> bool {
        matches!(self, Action::Apply { .. } | Action::Kubectl { .. } | Action::Shell { .. })
    }
}

/// Checks on a step's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expect {
    pub contains: Vec<String>,
    pub not_contains: Vec<String>,
    /// Regexes (the `regex-lite` syntax), matched in multi-line mode: `^` and `$` match at line ends.
    pub matches: Vec<String>,
    pub exit_code: Option<i32>,
}

impl Expect {
    /// What does not hold for this output and exit code; empty when every check passes.
    pub fn failures(&self, output: &str, exit_code: i32) -> Vec<String> {
        let mut failed = Vec::new();
        for s in &self.contains {
            if !output.contains(s.as_str()) {
                failed.push(format!("expected the output to contain {s:?}"));
            }
        }
        for s in &self.not_contains {
            if output.contains(s.as_str()) {
                failed.push(format!("expected the output not to contain {s:?}"));
            }
        }
        for pattern in &self.matches {
            match compile_match(pattern) {
                Ok(re) if re.is_match(output) => {}
                Ok(_) => failed.push(format!("expected the output to match {pattern:?}")),
                Err(e) => failed.push(format!("invalid regex {pattern:?}: {e}")),
            }
        }
        if let Some(want) = self.exit_code {
            if want != exit_code {
                failed.push(format!("expected exit code {want}, got {exit_code}"));
            }
        }
        failed
    }
}

/// Compiles a `matches` regex the way steps use it (multi-line mode, size-limited).
pub fn compile_match(pattern: &str) -> Result<regex_lite::Regex, String> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(format!("the regex is {} bytes long; the limit is {MAX_PATTERN_BYTES}", pattern.len()));
    }
    regex_lite::RegexBuilder::new(pattern).multi_line(true).size_limit(1 << 20).build().map_err(|e| e.to_string())
}

/// A component a `stop`, `crash` or `start` step names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Component {
    ApiServer,
    /// Every etcd member at once (`etcd`).
    Etcd,
    /// One member (`etcd-0` … `etcd-4`).
    EtcdMember(u8),
    Scheduler,
    ControllerManager,
    CloudControllerManager,
    MetricsServer,
    /// The CoreDNS add-on (`coredns`: one process stands for every replica).
    CoreDns,
    /// The whole machine (`node01`).
    Machine(String),
    Kubelet(String),
    KubeProxy(String),
    Containerd(String),
}

const NODE_PARTS: &str = "NODE/kubelet, NODE/kube-proxy or NODE/containerd";

impl Component {
    /// Reads a component name, checked against `cluster` (its nodes, etcd members and cloud setting).
    pub fn parse(name: &str, cluster: &ClusterSpec) -> Result<Component, String> {
        let members = cluster.etcd_members.max(1);
        let member_range = if members == 1 { "etcd-0".to_string() } else { format!("etcd-0..etcd-{}", members - 1) };
        match name {
            "kube-apiserver" => return Ok(Component::ApiServer),
            "etcd" => return Ok(Component::Etcd),
            "kube-scheduler" => return Ok(Component::Scheduler),
            "kube-controller-manager" => return Ok(Component::ControllerManager),
            "coredns" => return Ok(Component::CoreDns),
            "cloud-controller-manager" if cluster.cloud => return Ok(Component::CloudControllerManager),
            "cloud-controller-manager" => {
                return Err(
                    "cloud-controller-manager does not run in this cluster (set spec.cluster.cloud: true)".into()
                )
            }
            "metrics-server" if cluster.metrics_server => return Ok(Component::MetricsServer),
            "metrics-server" => {
                return Err(
                    "metrics-server is not installed in this cluster (set spec.cluster.metricsServer: true)".into()
                )
            }
            _ => {}
        }
        if let Some(index) = name.strip_prefix("etcd-") {
            if let Some(i) = (0..members).find(|i| i.to_string() == index) {
                return Ok(Component::EtcdMember(i));
            }
            if index.bytes().all(|b| b.is_ascii_digit()) && !index.is_empty() {
                return Err(format!("no etcd member {name:?}: this cluster has {members} ({member_range})"));
            }
        }
        let nodes = cluster.node_names().collect::<Vec<_>>().join(", ");
        if let Some((node, part)) = name.split_once('/') {
            if cluster.node(node).is_none() {
                return Err(format!(
                    "unknown component {name:?}: there is no node {node:?} in this cluster (nodes: {nodes})"
                ));
            }
            return match part {
                "kubelet" => Ok(Component::Kubelet(node.into())),
                "kube-proxy" => Ok(Component::KubeProxy(node.into())),
                "containerd" => Ok(Component::Containerd(node.into())),
                _ => Err(format!("unknown component {name:?}: a node runs {}", NODE_PARTS.replace("NODE", node))),
            };
        }
        if cluster.node(name).is_some() {
            return Ok(Component::Machine(name.into()));
        }
        let cloud = match (cluster.cloud, cluster.metrics_server) {
            (true, true) => ", cloud-controller-manager, metrics-server",
            (true, false) => ", cloud-controller-manager",
            (false, true) => ", metrics-server",
            (false, false) => "",
        };
        Err(format!(
            "unknown component {name:?}: expected kube-apiserver, etcd, {member_range}, kube-scheduler, \
             kube-controller-manager{cloud}, coredns, a node (the machine: {nodes}) or {NODE_PARTS}"
        ))
    }
}

impl Default for ClusterSpec {
    /// `controlplane` plus `node01` and `node02`, one etcd member, no cloud, no extra users.
    fn default() -> ClusterSpec {
        ClusterSpec {
            etcd_members: 1,
            cloud: false,
            metrics_server: false,
            control_plane: NodeSpec::new("controlplane"),
            nodes: vec![NodeSpec::new("node01"), NodeSpec::new("node02")],
            users: Vec::new(),
        }
    }
}

impl ClusterSpec {
    /// Every node's name, the control plane first.
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.control_plane).chain(&self.nodes).map(|n| n.name.as_str())
    }

    /// The node (control plane or worker) with this name.
    pub fn node(&self, name: &str) -> Option<&NodeSpec> {
        std::iter::once(&self.control_plane).chain(&self.nodes).find(|n| n.name == name)
    }

    /// Whether a user of this name exists ([`ADMIN_USER`] always does).
    pub fn has_user(&self, name: &str) -> bool {
        name == ADMIN_USER || self.users.iter().any(|u| u.name == name)
    }
}

impl NodeSpec {
    /// A node with the default capacity (2 CPUs, 4Gi, 110 pods), no labels and no taints.
    pub fn new(name: &str) -> NodeSpec {
        NodeSpec {
            name: name.to_string(),
            cpu: "2".into(),
            memory: "4Gi".into(),
            pods: "110".into(),
            labels: BTreeMap::new(),
            taints: Vec::new(),
        }
    }
}

/// A scenario file that could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

impl std::error::Error for ScenarioError {}

// ---------------------------------------------------------------------------------------------------------
// Pass one: the raw shape.

/// Only `apiVersion` and `kind`, read first so that a file of another kind gets that error rather than a
/// list of unknown fields.
#[derive(Deserialize)]
struct RawHead {
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawScenario {
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(rename = "kind")]
    _kind: Option<String>,
    metadata: Option<RawMetadata>,
    spec: Option<RawSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetadata {
    name: Option<String>,
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    seed: Option<u64>,
    cluster: Option<RawCluster>,
    steps: Option<Vec<RawStep>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCluster {
    etcd_members: Option<i64>,
    cloud: Option<bool>,
    metrics_server: Option<bool>,
    control_plane: Option<RawNode>,
    nodes: Option<Vec<RawNode>>,
    users: Option<Vec<RawUser>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    name: Option<String>,
    capacity: Option<RawCapacity>,
    labels: Option<BTreeMap<String, String>>,
    taints: Option<Vec<RawTaint>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCapacity {
    cpu: Option<String>,
    memory: Option<String>,
    pods: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTaint {
    key: Option<String>,
    value: Option<String>,
    effect: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUser {
    name: Option<String>,
    token: Option<String>,
    groups: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawStep {
    at: Option<String>,
    apply: Option<String>,
    kubectl: Option<String>,
    stop: Option<String>,
    crash: Option<String>,
    start: Option<String>,
    wait: Option<String>,
    wait_for: Option<RawWaitFor>,
    on: Option<String>,
    run: Option<String>,
    #[serde(rename = "as")]
    as_user: Option<String>,
    press: Option<String>,
    expect: Option<RawExpect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWaitFor {
    kubectl: Option<String>,
    contains: Option<String>,
    timeout: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawExpect {
    contains: Option<Strings>,
    not_contains: Option<Strings>,
    matches: Option<Strings>,
    exit_code: Option<i64>,
}

/// A string or a list of strings (`contains: Running` or `contains: [Running, web]`).
struct Strings(Vec<String>);

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Strings, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Strings;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Strings, E> {
                Ok(Strings(vec![v.to_string()]))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Strings, E> {
                Ok(Strings(vec![v.to_string()]))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Strings, E> {
                Ok(Strings(vec![v.to_string()]))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Strings, E> {
                Ok(Strings(vec![v.to_string()]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strings, A::Error> {
                let mut all = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    all.push(s);
                }
                Ok(Strings(all))
            }
        }
        de.deserialize_any(Visit)
    }
}

/// The raw structs' names, as serde writes them in `expected struct …`.
const RAW_NAMES: [&str; 13] = [
    "RawHead",
    "RawScenario",
    "RawMetadata",
    "RawSpec",
    "RawCluster",
    "RawNode",
    "RawCapacity",
    "RawTaint",
    "RawUser",
    "RawStep",
    "RawWaitFor",
    "RawExpect",
    "Strings",
];

/// A serde_yaml error as a located [`ScenarioError`]: the position moved out of the message, backticks
/// turned into quotes, raw struct names into `a mapping`, and duplicate keys and extra documents placed
/// where they are (serde_yaml puts them at the start of the mapping or nowhere).
fn yaml_error(e: &serde_yaml::Error, text: &str, file: &str) -> ScenarioError {
    let mut message = e.to_string();
    let mut pos = Pos::START;
    if let Some(loc) = e.location() {
        pos = Pos { line: loc.line(), column: loc.column() };
        let suffix = format!(" at line {} column {}", loc.line(), loc.column());
        if let Some(i) = message.find(&suffix) {
            message.replace_range(i..i + suffix.len(), "");
        }
    }
    message = message.replace('`', "\"");
    for name in RAW_NAMES {
        message = message.replace(&format!("struct {name}"), "a mapping");
    }
    if let Some(what) = message.strip_prefix("invalid type: ").and_then(|m| m.strip_suffix(", expected a mapping")) {
        // Only the root has no path before its message.
        message = format!("a scenario file is a YAML mapping (apiVersion, kind, metadata, spec), not a {what}");
    } else if message.contains("more than one document") {
        pos = Locations::scan(text).second_document().unwrap_or(pos);
        message = "a scenario file holds one YAML document, but a second one starts here".into();
    } else if let Some(i) = message.find("duplicate field \"") {
        let field = message[i + 17..].split('"').next().unwrap_or_default();
        let within = message[..i].trim_end_matches(": ");
        let path = if within.is_empty() { field.to_string() } else { format!("{within}.{field}") };
        if let Some(p) = Locations::scan(text).duplicate(&path) {
            pos = p;
        }
    }
    ScenarioError { file: file.to_string(), line: pos.line, column: pos.column, message }
}

/// The first character YAML does not allow anywhere (libyaml's rule: C0 controls but tab and line
/// breaks, DEL, C1 controls but NEL, U+FFFE and U+FFFF), with its position.
fn forbidden_char(text: &str) -> Option<(Pos, char)> {
    let mut line = 1;
    let mut column = 1;
    for ch in text.chars() {
        let cp = ch as u32;
        let bad = (cp < 0x20 && !matches!(ch, '\t' | '\n' | '\r'))
            || (0x7f..=0x9f).contains(&cp) && cp != 0x85
            || cp == 0xfffe
            || cp == 0xffff;
        if bad {
            return Some((Pos { line, column }, ch));
        }
        if ch == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------------------
// Pass two: the meaning.

/// Reads and checks a scenario file; `file_name` is only used in errors.
pub fn parse(text: &str, file_name: &str) -> Result<Scenario, ScenarioError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((pos, ch)) = forbidden_char(text) {
        return Err(ScenarioError {
            file: file_name.to_string(),
            line: pos.line,
            column: pos.column,
            message: format!("control character U+{:04X} is not allowed in YAML", ch as u32),
        });
    }
    let head: RawHead = serde_yaml::from_str(text).map_err(|e| yaml_error(&e, text, file_name))?;
    let locs = Locations::scan(text);
    let check = Checker { locs: &locs, file: file_name };
    check.head(&head, text)?;
    let raw: RawScenario = serde_yaml::from_str(text).map_err(|e| yaml_error(&e, text, file_name))?;
    check.scenario(raw)
}

struct Checker<'a> {
    locs: &'a Locations,
    file: &'a str,
}

fn with_path(path: &str, message: impl fmt::Display) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{path}: {message}")
    }
}

impl Checker<'_> {
    fn error(&self, pos: Pos, message: String) -> ScenarioError {
        ScenarioError { file: self.file.to_string(), line: pos.line, column: pos.column, message }
    }

    /// An error about the value at `path`, placed at that value.
    fn at_value(&self, path: &str, message: impl fmt::Display) -> ScenarioError {
        self.error(self.locs.value(path), with_path(path, message))
    }

    /// An error about the key (or item) at `path`, placed at the key.
    fn at_key(&self, path: &str, message: impl fmt::Display) -> ScenarioError {
        self.error(self.locs.key(path), with_path(path, message))
    }

    fn head(&self, head: &RawHead, text: &str) -> Result<(), ScenarioError> {
        let start = self.locs.first_content();
        let empty = text.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
        });
        match head.api_version.as_deref() {
            Some(API_VERSION) => {}
            Some(other) => {
                return Err(self.at_value(
                    "apiVersion",
                    format!("{other:?} is not a scenario's apiVersion: expected {API_VERSION:?}"),
                ))
            }
            None if empty => {
                return Err(self.error(
                    start,
                    format!("the file is empty: a scenario starts with apiVersion: {API_VERSION} and kind: {KIND}"),
                ))
            }
            None => {
                return Err(
                    self.error(start, format!("apiVersion is missing: a scenario has apiVersion: {API_VERSION}"))
                )
            }
        }
        match head.kind.as_deref() {
            Some(KIND) => Ok(()),
            Some(other) => Err(self.at_value("kind", format!("{other:?} is not a scenario: expected kind: {KIND}"))),
            None => Err(self.error(start, format!("kind is missing: a scenario has kind: {KIND}"))),
        }
    }

    fn scenario(&self, raw: RawScenario) -> Result<Scenario, ScenarioError> {
        let Some(metadata) = raw.metadata else {
            return Err(self.error(self.locs.first_content(), "metadata.name is missing: a scenario has a name".into()));
        };
        let name = metadata.name.unwrap_or_default();
        if name.trim().is_empty() {
            return Err(self.at_value("metadata.name", "a scenario needs a name"));
        }
        if name.contains('\n') {
            return Err(self.at_value("metadata.name", "a name is one line"));
        }
        let spec = raw.spec.unwrap_or(RawSpec { seed: None, cluster: None, steps: None });
        let cluster = match spec.cluster {
            Some(c) => self.cluster(c)?,
            None => ClusterSpec::default(),
        };
        let steps = self.steps(spec.steps.unwrap_or_default(), &cluster)?;
        Ok(Scenario {
            name,
            description: metadata.description.unwrap_or_default(),
            seed: spec.seed.unwrap_or(DEFAULT_SEED),
            cluster,
            steps,
        })
    }

    fn cluster(&self, raw: RawCluster) -> Result<ClusterSpec, ScenarioError> {
        let base = "spec.cluster";
        let etcd_members = match raw.etcd_members {
            None => 1,
            Some(n @ (1 | 3 | 5)) => n as u8,
            Some(n) => {
                return Err(self.at_value(
                    &format!("{base}.etcdMembers"),
                    format!("etcdMembers must be 1, 3 or 5 (an odd number keeps a quorum), not {n}"),
                ))
            }
        };
        let control_plane = match raw.control_plane {
            Some(n) => self.node(n, &format!("{base}.controlPlane"), Some("controlplane"))?,
            None => NodeSpec::new("controlplane"),
        };
        let nodes = match raw.nodes {
            None => ClusterSpec::default().nodes,
            Some(list) => {
                if list.len() > MAX_NODES {
                    return Err(self.at_key(
                        &format!("{base}.nodes[{MAX_NODES}]"),
                        format!("a cluster has at most {MAX_NODES} worker nodes"),
                    ));
                }
                let mut nodes = Vec::new();
                for (i, n) in list.into_iter().enumerate() {
                    nodes.push(self.node(n, &format!("{base}.nodes[{i}]"), None)?);
                }
                nodes
            }
        };
        let mut seen: BTreeMap<&str, String> = BTreeMap::new();
        seen.insert(&control_plane.name, format!("{base}.controlPlane"));
        for (i, n) in nodes.iter().enumerate() {
            let path = format!("{base}.nodes[{i}]");
            if let Some(first) = seen.get(n.name.as_str()) {
                let first = if !first.contains('[') {
                    "the control plane has it".to_string()
                } else {
                    format!("first at line {}", self.locs.key(first).line)
                };
                let name_path = format!("{path}.name");
                let path = if self.locs.has(&name_path) { name_path } else { path };
                return Err(self.at_value(&path, format!("duplicate node name {:?}: {first}", n.name)));
            }
            seen.insert(&n.name, path);
        }
        let users = match raw.users {
            None => Vec::new(),
            Some(list) => self.users(list)?,
        };
        Ok(ClusterSpec {
            etcd_members,
            cloud: raw.cloud.unwrap_or(false),
            metrics_server: raw.metrics_server.unwrap_or(false),
            control_plane,
            nodes,
            users,
        })
    }

    fn node(&self, raw: RawNode, path: &str, default_name: Option<&str>) -> Result<NodeSpec, ScenarioError> {
        let name_path = format!("{path}.name");
        let name = match (raw.name, default_name) {
            (Some(n), _) => n,
            (None, Some(d)) => d.to_string(),
            (None, None) => return Err(self.at_value(path, "a node needs a name")),
        };
        if let Err(e) = check_dns_subdomain(&name) {
            return Err(self.at_value(&name_path, format!("invalid node name {name:?}: {e}")));
        }
        if is_component_name(&name) {
            return Err(
                self.at_value(&name_path, format!("node name {name:?} is also a component's name; pick another"))
            );
        }
        let mut node = NodeSpec::new(&name);
        if let Some(cap) = raw.capacity {
            let cap_path = format!("{path}.capacity");
            for (field, value, slot) in [("cpu", cap.cpu, &mut node.cpu), ("memory", cap.memory, &mut node.memory)] {
                if let Some(v) = value {
                    if let Err(e) = check_quantity(&v) {
                        return Err(
                            self.at_value(&format!("{cap_path}.{field}"), format!("invalid {field} {v:?}: {e}"))
                        );
                    }
                    *slot = v;
                }
            }
            if let Some(v) = cap.pods {
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) || v.parse::<u32>().is_err() {
                    return Err(self.at_value(
                        &format!("{cap_path}.pods"),
                        format!("invalid pods {v:?}: pods is a whole number, like \"110\""),
                    ));
                }
                node.pods = v;
            }
        }
        if let Some(labels) = raw.labels {
            let labels_path = format!("{path}.labels");
            for (k, v) in &labels {
                let key_path = format!("{labels_path}.{k}");
                if let Some(pos) = self.locs.duplicate(&key_path) {
                    return Err(self.error(pos, with_path(&labels_path, format!("duplicate label key {k:?}"))));
                }
                if let Err(e) = check_label_key(k) {
                    return Err(self.at_key(&key_path, format!("invalid label key {k:?}: {e}")));
                }
                if let Err(e) = check_label_value(v) {
                    return Err(self.at_value(&key_path, format!("invalid label value {v:?}: {e}")));
                }
            }
            node.labels = labels;
        }
        for (i, t) in raw.taints.unwrap_or_default().into_iter().enumerate() {
            let tpath = format!("{path}.taints[{i}]");
            let Some(key) = t.key else {
                return Err(self.at_value(&tpath, "a taint needs a key"));
            };
            if let Err(e) = check_label_key(&key) {
                return Err(self.at_value(&format!("{tpath}.key"), format!("invalid taint key {key:?}: {e}")));
            }
            if let Some(v) = &t.value {
                if let Err(e) = check_label_value(v) {
                    return Err(self.at_value(&format!("{tpath}.value"), format!("invalid taint value {v:?}: {e}")));
                }
            }
            let Some(effect) = t.effect else {
                return Err(self.at_value(&tpath, "a taint needs an effect: NoSchedule, PreferNoSchedule or NoExecute"));
            };
            let Some(effect) = TaintEffect::parse(&effect) else {
                return Err(self.at_value(
                    &format!("{tpath}.effect"),
                    format!("Unsupported value: {effect:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""),
                ));
            };
            node.taints.push(TaintSpec { key, value: t.value, effect });
        }
        Ok(node)
    }

    fn users(&self, list: Vec<RawUser>) -> Result<Vec<UserSpec>, ScenarioError> {
        let mut users: Vec<UserSpec> = Vec::new();
        let mut tokens: BTreeMap<String, usize> = BTreeMap::new();
        for (i, raw) in list.into_iter().enumerate() {
            let path = format!("spec.cluster.users[{i}]");
            let name_path = format!("{path}.name");
            let Some(name) = raw.name else {
                return Err(self.at_value(&path, "a user needs a name"));
            };
            if name.trim().is_empty() || name.trim() != name || name.chars().any(char::is_control) {
                return Err(self.at_value(
                    &name_path,
                    format!("invalid user name {name:?}: a user name is not empty and has no surrounding spaces or control characters"),
                ));
            }
            if name == ADMIN_USER {
                return Err(self.at_value(
                    &name_path,
                    format!("{ADMIN_USER} always exists (it is the default user); give this user another name"),
                ));
            }
            if let Some(j) = users.iter().position(|u| u.name == name) {
                let line = self.locs.key(&format!("spec.cluster.users[{j}]")).line;
                return Err(self.at_value(&name_path, format!("duplicate user name {name:?}: first at line {line}")));
            }
            let token = raw.token.unwrap_or_else(|| format!("{name}-token"));
            let token_path = format!("{path}.token");
            if token.is_empty() || !token.chars().all(|c| c.is_ascii_alphanumeric() || "-._~+/=".contains(c)) {
                return Err(self.at_value(
                    &token_path,
                    format!("invalid token {token:?}: a token is letters, digits and -._~+/= only"),
                ));
            }
            if let Some(j) = tokens.get(&token) {
                return Err(self.at_value(
                    &token_path,
                    format!("users[{j}] already has the token {token:?}: each user needs their own"),
                ));
            }
            tokens.insert(token.clone(), i);
            let groups = raw.groups.unwrap_or_default();
            for (g, group) in groups.iter().enumerate() {
                if group.trim().is_empty() || group.chars().any(char::is_control) {
                    return Err(self.at_key(
                        &format!("{path}.groups[{g}]"),
                        format!("invalid group {group:?}: a group name is not empty and has no control characters"),
                    ));
                }
            }
            users.push(UserSpec { name, token, groups });
        }
        Ok(users)
    }

    fn duration(&self, path: &str, text: &str) -> Result<u64, ScenarioError> {
        let ms = parse_duration_ms(text).map_err(|e| self.at_value(path, e))?;
        if ms > MAX_DURATION_MS {
            return Err(
                self.at_value(path, format!("duration {text:?} is too long: at most {}", go_duration(MAX_DURATION_MS)))
            );
        }
        Ok(ms)
    }

    fn steps(&self, raw: Vec<RawStep>, cluster: &ClusterSpec) -> Result<Vec<Step>, ScenarioError> {
        let mut steps = Vec::new();
        let mut last_at: Option<(u64, usize, String)> = None;
        for (i, r) in raw.into_iter().enumerate() {
            let path = format!("spec.steps[{i}]");
            let step = self.step(r, &path, cluster)?;
            if let Some(at) = step.at_ms {
                if let Some((before, line, text)) = &last_at {
                    if at < *before {
                        return Err(self.at_value(
                            &format!("{path}.at"),
                            format!(
                                "at {} is earlier than at {text} of the step on line {line}: steps run in the order of the file",
                                go_duration(at)
                            ),
                        ));
                    }
                }
                last_at = Some((at, step.line, go_duration(at)));
            }
            steps.push(step);
        }
        Ok(steps)
    }

    fn step(&self, r: RawStep, path: &str, cluster: &ClusterSpec) -> Result<Step, ScenarioError> {
        let sub = |key: &str| format!("{path}.{key}");
        let line = self.locs.key(path).line;
        let at_ms = match &r.at {
            Some(text) => Some(self.duration(&sub("at"), text)?),
            None => None,
        };
        if r.run.is_some() && r.on.is_none() {
            return Err(self.at_key(&sub("run"), "run needs on: NODE, the node whose shell runs the command"));
        }
        let mut present: Vec<&str> = [
            ("apply", r.apply.is_some()),
            ("kubectl", r.kubectl.is_some()),
            ("stop", r.stop.is_some()),
            ("crash", r.crash.is_some()),
            ("start", r.start.is_some()),
            ("wait", r.wait.is_some()),
            ("waitFor", r.wait_for.is_some()),
            ("on", r.on.is_some()),
            ("as", r.as_user.is_some()),
            ("press", r.press.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, on)| on.then_some(k))
        .collect();
        present.sort_by_key(|k| self.locs.key(&sub(k)));
        match present.as_slice() {
            [] => return Err(self.at_value(
                path,
                "a step needs an action: apply, kubectl, stop, crash, start, wait, waitFor, on (with run), as or press",
            )),
            [_] => {}
            [first, second, ..] => {
                return Err(self.at_key(
                    &sub(second),
                    format!(
                        "a step does one thing, but this one has both {first} and {second}: split it into two steps"
                    ),
                ))
            }
        }
        let not_empty = |key: &str, text: &str, what: &str| {
            if text.trim().is_empty() {
                Err(self.at_value(&sub(key), format!("the {what} is empty")))
            } else {
                Ok(())
            }
        };
        let component = |key: &str, name: &str| match Component::parse(name, cluster) {
            Ok(_) => Ok(name.to_string()),
            Err(e) => Err(self.at_value(&sub(key), e)),
        };
        let action = if let Some(manifest) = r.apply {
            not_empty("apply", &manifest, "manifest")?;
            Action::Apply { manifest }
        } else if let Some(command) = r.kubectl {
            not_empty("kubectl", &command, "kubectl command")?;
            Action::Kubectl { command }
        } else if let Some(name) = r.stop {
            Action::Stop(component("stop", &name)?)
        } else if let Some(name) = r.crash {
            Action::Crash(component("crash", &name)?)
        } else if let Some(name) = r.start {
            Action::Start(component("start", &name)?)
        } else if let Some(text) = r.wait {
            Action::Wait { ms: self.duration(&sub("wait"), &text)? }
        } else if let Some(w) = r.wait_for {
            let wpath = sub("waitFor");
            let Some(command) = w.kubectl else {
                return Err(self
                    .at_value(&wpath, "waitFor needs kubectl: COMMAND, the command to run until it prints contains"));
            };
            not_empty("waitFor.kubectl", &command, "kubectl command")?;
            let Some(contains) = w.contains else {
                return Err(self.at_value(&wpath, "waitFor needs contains: TEXT, what the output must show"));
            };
            let timeout_ms = match w.timeout {
                Some(t) => self.duration(&format!("{wpath}.timeout"), &t)?,
                None => DEFAULT_WAIT_FOR_TIMEOUT_MS,
            };
            Action::WaitFor { command, contains, timeout_ms }
        } else if let Some(node) = r.on {
            if cluster.node(&node).is_none() {
                let nodes = cluster.node_names().collect::<Vec<_>>().join(", ");
                return Err(
                    self.at_value(&sub("on"), format!("there is no node {node:?} in this cluster (nodes: {nodes})"))
                );
            }
            let Some(command) = r.run else {
                return Err(self.at_key(&sub("on"), format!("on: {node} needs run: COMMAND, what to run in its shell")));
            };
            not_empty("run", &command, "command")?;
            Action::Shell { node, command }
        } else if let Some(user) = r.as_user {
            if !cluster.has_user(&user) {
                let mut names = vec![ADMIN_USER];
                names.extend(cluster.users.iter().map(|u| u.name.as_str()));
                return Err(self.at_value(
                    &sub("as"),
                    format!("unknown user {user:?}: the users are {} (spec.cluster.users)", names.join(", ")),
                ));
            }
            Action::As { user }
        } else if let Some(key) = r.press {
            if key.trim() != CTRL_C {
                return Err(self.at_value(
                    &sub("press"),
                    format!(
                        "press: {CTRL_C} is the only key a step presses (it ends the kubectl commands still running)"
                    ),
                ));
            }
            Action::Interrupt
        } else {
            return Err(self.at_value(path, "a step needs an action"));
        };
        let expect = match r.expect {
            None => None,
            Some(e) => {
                if !action.has_output() {
                    return Err(self.at_key(
                        &sub("expect"),
                        format!(
                            "expect checks a command's output, so it goes on apply, kubectl or on/run steps, not on {}",
                            action.keyword()
                        ),
                    ));
                }
                Some(self.expect(e, &sub("expect"))?)
            }
        };
        Ok(Step { at_ms, line, action, expect })
    }

    fn expect(&self, e: RawExpect, path: &str) -> Result<Expect, ScenarioError> {
        let matches = e.matches.map(|s| s.0).unwrap_or_default();
        for (i, pattern) in matches.iter().enumerate() {
            if let Err(err) = compile_match(pattern) {
                let item = format!("{path}.matches[{i}]");
                let at = if self.locs.has(&item) {
                    self.locs.key(&item)
                } else {
                    self.locs.value(&format!("{path}.matches"))
                };
                return Err(self.error(at, with_path(&item, format!("invalid regex {pattern:?}: {}", err.trim()))));
            }
        }
        let exit_code = match e.exit_code {
            None => None,
            Some(c @ 0..=255) => Some(c as i32),
            Some(c) => {
                return Err(
                    self.at_value(&format!("{path}.exitCode"), format!("exitCode is between 0 and 255, not {c}"))
                )
            }
        };
        Ok(Expect {
            contains: e.contains.map(|s| s.0).unwrap_or_default(),
            not_contains: e.not_contains.map(|s| s.0).unwrap_or_default(),
            matches,
            exit_code,
        })
    }
}

/// Whether `name` is the name of a control-plane component (a node of that name would make `stop:` ambiguous).
fn is_component_name(name: &str) -> bool {
    matches!(
        name,
        "kube-apiserver"
            | "etcd"
            | "kube-scheduler"
            | "kube-controller-manager"
            | "cloud-controller-manager"
            | "metrics-server"
            | "coredns"
    ) || name.strip_prefix("etcd-").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// Kubernetes' `IsDNS1123Subdomain`.
pub(crate) fn check_dns_subdomain(name: &str) -> Result<(), String> {
    if name.len() > 253 {
        return Err("must be no more than 253 characters".into());
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(DNS1123_SUBDOMAIN.into())
    }
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, at most 63 characters.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c))
}

/// Kubernetes' `IsQualifiedName`: `[prefix/]name`.
fn check_label_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        if p.is_empty() {
            return Err("prefix part must be non-empty".into());
        }
        if let Err(e) = check_dns_subdomain(p) {
            return Err(format!("prefix part {e}"));
        }
    }
    if name.len() > 63 {
        return Err("name part must be no more than 63 characters".into());
    }
    if !is_qualified_name_part(name) {
        return Err("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".into());
    }
    Ok(())
}

/// Kubernetes' `IsValidLabelValue`.
fn check_label_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    if value.len() > 63 {
        return Err("must be no more than 63 characters".into());
    }
    if !is_qualified_name_part(value) {
        return Err("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into());
    }
    Ok(())
}

/// A non-negative Kubernetes quantity: digits with an optional fraction, then an optional suffix (`Ki`…`Ei`,
/// `n u m k M G T P E`, or an exponent `e3`).
fn check_quantity(text: &str) -> Result<(), String> {
    const SHAPE: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    if text.starts_with('-') {
        return Err("a capacity cannot be negative".into());
    }
    let s = text.strip_prefix('+').unwrap_or(text);
    let number_len = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (number, suffix) = s.split_at(number_len);
    let digits = number.bytes().filter(u8::is_ascii_digit).count();
    if digits == 0 || number.matches('.').count() > 1 {
        return Err(SHAPE.into());
    }
    let suffix_ok = match suffix {
        "" | "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" | "n" | "u" | "m" | "k" | "M" | "G" | "T" | "P" | "E" => true,
        _ => suffix
            .strip_prefix(['e', 'E'])
            .map(|e| e.strip_prefix(['+', '-']).unwrap_or(e))
            .is_some_and(|e| !e.is_empty() && e.len() <= 3 && e.bytes().all(|b| b.is_ascii_digit())),
    };
    if suffix_ok {
        Ok(())
    } else {
        Err(SHAPE.into())
    }
}

// ---------------------------------------------------------------------------------------------------------
// Writing.

/// The canonical text of a scenario: defaults left out (the default cluster, default capacities, a user's
/// default token; the seed is always written), keys in a fixed order, lists in block style, manifests as
/// block literals. For any scenario [`parse`] accepts, `parse(&to_yaml(&s), f) == Ok(s)`.
pub fn to_yaml(s: &Scenario) -> String {
    let mut lines = vec![key_value("apiVersion", API_VERSION), key_value("kind", KIND), "metadata:".to_string()];
    let mut meta = string_value("name", &s.name);
    if !s.description.is_empty() {
        meta.extend(string_value("description", &s.description));
    }
    lines.extend(nest_under(meta));
    lines.push("spec:".into());
    let mut spec = vec![format!("seed: {}", s.seed)];
    if s.cluster != ClusterSpec::default() {
        spec.push("cluster:".into());
        spec.extend(nest_under(cluster_lines(&s.cluster)));
    }
    if s.steps.is_empty() {
        spec.push("steps: []".into());
    } else {
        spec.push("steps:".into());
        for step in &s.steps {
            spec.extend(nest_item(step_lines(step)));
        }
    }
    lines.extend(nest_under(spec));
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn cluster_lines(c: &ClusterSpec) -> Vec<String> {
    let default = ClusterSpec::default();
    let mut lines = Vec::new();
    if c.etcd_members != default.etcd_members {
        lines.push(format!("etcdMembers: {}", c.etcd_members));
    }
    if c.cloud {
        lines.push("cloud: true".into());
    }
    if c.metrics_server {
        lines.push("metricsServer: true".into());
    }
    if c.control_plane != default.control_plane {
        lines.push("controlPlane:".into());
        lines.extend(nest_under(node_lines(&c.control_plane)));
    }
    if c.nodes != default.nodes {
        if c.nodes.is_empty() {
            lines.push("nodes: []".into());
        } else {
            lines.push("nodes:".into());
            for n in &c.nodes {
                lines.extend(nest_item(node_lines(n)));
            }
        }
    }
    if !c.users.is_empty() {
        lines.push("users:".into());
        for u in &c.users {
            let mut user = string_value("name", &u.name);
            if u.token != format!("{}-token", u.name) {
                user.extend(string_value("token", &u.token));
            }
            if !u.groups.is_empty() {
                user.push("groups:".into());
                for g in &u.groups {
                    user.extend(nest_item(vec![scalar(g)]));
                }
            }
            lines.extend(nest_item(user));
        }
    }
    lines
}

fn node_lines(n: &NodeSpec) -> Vec<String> {
    let default = NodeSpec::new(&n.name);
    let mut lines = string_value("name", &n.name);
    let mut capacity = Vec::new();
    for (key, value, default) in
        [("cpu", &n.cpu, &default.cpu), ("memory", &n.memory, &default.memory), ("pods", &n.pods, &default.pods)]
    {
        if value != default {
            capacity.extend(string_value(key, value));
        }
    }
    if !capacity.is_empty() {
        lines.push("capacity:".into());
        lines.extend(nest_under(capacity));
    }
    if !n.labels.is_empty() {
        lines.push("labels:".into());
        let labels = n.labels.iter().map(|(k, v)| format!("{}: {}", scalar(k), scalar(v))).collect();
        lines.extend(nest_under(labels));
    }
    if !n.taints.is_empty() {
        lines.push("taints:".into());
        for t in &n.taints {
            let mut taint = string_value("key", &t.key);
            if let Some(v) = &t.value {
                taint.extend(string_value("value", v));
            }
            taint.push(format!("effect: {}", t.effect.as_str()));
            lines.extend(nest_item(taint));
        }
    }
    lines
}

fn strings_lines(key: &str, values: &[String]) -> Vec<String> {
    match values {
        [] => Vec::new(),
        [one] if !one.contains('\n') => string_value(key, one),
        _ => {
            let mut lines = vec![format!("{key}:")];
            for v in values {
                lines.extend(nest_item(vec![scalar(v)]));
            }
            lines
        }
    }
}

fn step_lines(step: &Step) -> Vec<String> {
    let mut lines = match &step.action {
        Action::Apply { manifest } => literal_lines("apply", manifest),
        Action::Kubectl { command } => string_value("kubectl", command),
        Action::Stop(c) => string_value("stop", c),
        Action::Crash(c) => string_value("crash", c),
        Action::Start(c) => string_value("start", c),
        Action::Wait { ms } => vec![format!("wait: {}", go_duration(*ms))],
        Action::WaitFor { command, contains, timeout_ms } => {
            let mut inner = string_value("kubectl", command);
            inner.extend(string_value("contains", contains));
            inner.push(format!("timeout: {}", go_duration(*timeout_ms)));
            let mut l = vec!["waitFor:".to_string()];
            l.extend(nest_under(inner));
            l
        }
        Action::Shell { node, command } => {
            let mut l = string_value("on", node);
            l.extend(string_value("run", command));
            l
        }
        Action::As { user } => string_value("as", user),
        Action::Interrupt => string_value("press", CTRL_C),
    };
    if let Some(at) = step.at_ms {
        lines.push(format!("at: {}", go_duration(at)));
    }
    if let Some(e) = &step.expect {
        let mut inner = strings_lines("contains", &e.contains);
        inner.extend(strings_lines("notContains", &e.not_contains));
        inner.extend(strings_lines("matches", &e.matches));
        if let Some(code) = e.exit_code {
            inner.push(format!("exitCode: {code}"));
        }
        if inner.is_empty() {
            lines.push("expect: {}".into());
        } else {
            lines.push("expect:".into());
            lines.extend(nest_under(inner));
        }
    }
    lines
}
