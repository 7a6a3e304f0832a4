//! PodSecurity: the Pod Security Standards, applied per namespace from its labels
//! `pod-security.kubernetes.io/{enforce,audit,warn}` (`privileged`, `baseline`, `restricted`) and their
//! `-version` labels (`latest` or `v1.<minor>`, checks as of that release, capped at v1.34).
//!
//! - Pods (create, and updates that change an image): the `enforce` level refuses with Forbidden,
//!   `pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false
//!   (container "c" must set securityContext.allowPrivilegeEscalation=false), …`; otherwise the `warn` level
//!   adds the warning `would violate PodSecurity "restricted:latest": …`.
//! - Workloads with a pod template (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): only
//!   the `warn` level, as a warning; they are never refused (their pods are, when created).
//! - Namespaces: invalid label values are refused (422) on create, and on update when they changed;
//!   tightening `enforce` warns about the existing pods that would violate it.
//!
//! An unset `warn` follows an explicitly set, stricter `enforce`. `audit` is parsed but has no visible
//! effect: kubeglass keeps no audit log. No namespaces, users or runtime classes are exempt (the
//! apiserver's default configuration), and the user-namespace relaxation (an alpha feature) is off.
//! Checks run in Kubernetes' order: baseline checks sorted by id, then restricted ones.
//! Counterpart: `staging/src/k8s.io/pod-security-admission` (`admission`, `api`, `policy`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, Namespace, PodSpec, Probe};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{Cause, Kind, Object, Status, Verb};
use crate::apiserver::cache::WatchCache;
use crate::apiserver::validation::field::{self, Path};

use super::AdmissionRequest;

/// The newest policy version whose checks kubeglass knows (`latest` means this one).
pub const MAX_MINOR: u32 = 34;

const LABEL_PREFIX: &str = "pod-security.kubernetes.io/";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Privileged,
    Baseline,
    Restricted,
}

impl Level {
    fn parse(s: &str) -> Option<Level> {
        match s {
            "privileged" => Some(Level::Privileged),
            "baseline" => Some(Level::Baseline),
            "restricted" => Some(Level::Restricted),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Level::Privileged => "privileged",
            Level::Baseline => "baseline",
            Level::Restricted => "restricted",
        }
    }
}

/// A level at a version (`None` = latest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelVersion {
    pub level: Level,
    pub minor: Option<u32>,
}

impl std::fmt::Display for LevelVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.minor {
            None => write!(f, "{}:latest", self.level.as_str()),
            Some(m) => write!(f, "{}:v1.{m}", self.level.as_str()),
        }
    }
}

/// The three modes of a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub enforce: LevelVersion,
    pub audit: LevelVersion,
    pub warn: LevelVersion,
}

impl Policy {
    fn fully_privileged(&self) -> bool {
        [self.enforce, self.audit, self.warn].iter().all(|lv| lv.level == Level::Privileged)
    }
}

fn parse_version(v: &str) -> Result<Option<u32>, ()> {
    if v == "latest" {
        return Ok(None);
    }
    let minor = v.strip_prefix("v1.").ok_or(())?;
    let valid =
        !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()) && (minor == "0" || !minor.starts_with('0'));
    if !valid {
        return Err(());
    }
    minor.parse::<u32>().map(Some).map_err(|_| ())
}

/// `PolicyToEvaluate`: the namespace's policy (defaults privileged:latest) and the label errors.
pub fn policy_from_labels(labels: Option<&BTreeMap<String, String>>) -> (Policy, Vec<Cause>) {
    let latest = |level| LevelVersion { level, minor: None };
    let mut p = Policy {
        enforce: latest(Level::Privileged),
        audit: latest(Level::Privileged),
        warn: latest(Level::Privileged),
    };
    let mut errs = Vec::new();
    let Some(labels) = labels else {
        return (p, errs);
    };
    let path = Path::new("metadata").child("labels");
    let level_err = |label: &str, value: &str| {
        field::invalid_str(
            &path.key(&format!("{LABEL_PREFIX}{label}")),
            value,
            "must be one of privileged, baseline, restricted",
        )
    };
    let version_err = |label: &str, value: &str| {
        field::invalid_str(&path.key(&format!("{LABEL_PREFIX}{label}")), value, "must be \"latest\" or \"v1.x\"")
    };
    let get = |suffix: &str| labels.get(&format!("{LABEL_PREFIX}{suffix}"));
    let mut has_enforce_level = false;
    if let Some(v) = get("enforce") {
        match Level::parse(v) {
            Some(l) => {
                p.enforce.level = l;
                has_enforce_level = true;
            }
            None => {
                p.enforce.level = Level::Restricted;
                errs.push(level_err("enforce", v));
            }
        }
    }
    if let Some(v) = get("enforce-version") {
        p.enforce.minor = parse_version(v).unwrap_or_else(|()| {
            errs.push(version_err("enforce-version", v));
            None
        });
    }
    if let Some(v) = get("audit") {
        p.audit.level = Level::parse(v).unwrap_or_else(|| {
            errs.push(level_err("audit", v));
            Level::Privileged
        });
    }
    if let Some(v) = get("audit-version") {
        p.audit.minor = parse_version(v).unwrap_or_else(|()| {
            errs.push(version_err("audit-version", v));
            None
        });
    }
    let has_warn_level = get("warn").is_some();
    if let Some(v) = get("warn") {
        p.warn.level = Level::parse(v).unwrap_or_else(|| {
            errs.push(level_err("warn", v));
            Level::Privileged
        });
    }
    let has_warn_version = get("warn-version").is_some();
    if let Some(v) = get("warn-version") {
        p.warn.minor = parse_version(v).unwrap_or_else(|()| {
            errs.push(version_err("warn-version", v));
            None
        });
    }
    if !has_warn_level && has_enforce_level && p.enforce.level > p.warn.level {
        p.warn.level = p.enforce.level;
        if !has_warn_version {
            p.warn.minor = p.enforce.minor;
        }
    }
    (p, errs)
}

// ---------------------------------------------------------------------------------------------------------
// The checks.

/// A failed check: its reason and detail (`allowPrivilegeEscalation != false`, `container "c" must …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub reason: String,
    pub detail: String,
}

type CheckFn = fn(&ObjectMeta, &PodSpec, &[Container]) -> Option<Violation>;

struct Check {
    id: &'static str,
    level: Level,
    /// (minimum minor version, check), oldest first.
    versions: &'static [(u32, CheckFn)],
    /// The baseline check this restricted check replaces.
    overrides: Option<&'static str>,
}

fn join_quote(items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!("\"{}\"", items.join("\", \""))
}

fn plural<'a>(singular: &'a str, plural: &'a str, n: usize) -> &'a str {
    if n == 1 {
        singular
    } else {
        plural
    }
}

fn violation(reason: &str, detail: String) -> Option<Violation> {
    Some(Violation { reason: reason.to_string(), detail })
}

fn containers_phrase(names: &[String]) -> String {
    format!("{} {}", plural("container", "containers", names.len()), join_quote(names))
}

fn is_windows(spec: &PodSpec) -> bool {
    spec.os.as_ref().is_some_and(|os| os.name == "windows")
}

fn sorted(set: BTreeSet<String>) -> Vec<String> {
    set.into_iter().collect()
}

fn allowed_apparmor_type(t: &str) -> bool {
    matches!(t, "RuntimeDefault" | "Localhost")
}

fn app_armor_profile(meta: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut setters = Vec::new();
    let mut bad_values = BTreeSet::new();
    if let Some(p) = spec.security_context.as_ref().and_then(|s| s.app_armor_profile.as_ref()) {
        if !allowed_apparmor_type(&p.type_) {
            setters.push("pod".to_string());
            bad_values.insert(p.type_.clone());
        }
    }
    let mut bad = Vec::new();
    for c in cs {
        if let Some(p) = c.security_context.as_ref().and_then(|s| s.app_armor_profile.as_ref()) {
            if !allowed_apparmor_type(&p.type_) {
                bad.push(c.name.clone());
                bad_values.insert(p.type_.clone());
            }
        }
    }
    if !bad.is_empty() {
        setters.push(containers_phrase(&bad));
    }
    let mut annotations: Vec<String> = meta
        .annotations
        .iter()
        .flatten()
        .filter(|(k, v)| {
            k.starts_with("container.apparmor.security.beta.kubernetes.io/")
                && !(v.is_empty() || *v == "runtime/default" || v.starts_with("localhost/"))
        })
        .map(|(k, v)| format!("{k}={}", field::quote(v)))
        .collect();
    annotations.sort();
    let mut values = sorted(bad_values);
    if !annotations.is_empty() {
        setters.push(plural("annotation", "annotations", annotations.len()).to_string());
        values.extend(annotations);
    }
    if setters.is_empty() {
        return None;
    }
    violation(
        plural("forbidden AppArmor profile", "forbidden AppArmor profiles", values.len()),
        format!("{} must not set AppArmor profile type to {}", setters.join(" and "), join_quote(&values)),
    )
}

const DEFAULT_CAPABILITIES: &[&str] = &[
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

fn added_capabilities(c: &Container) -> Option<&Vec<String>> {
    c.security_context.as_ref()?.capabilities.as_ref()?.add.as_ref()
}

fn capabilities_baseline(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut bad = Vec::new();
    let mut caps = BTreeSet::new();
    for c in cs {
        let mut valid = true;
        for cap in added_capabilities(c).into_iter().flatten() {
            if !DEFAULT_CAPABILITIES.contains(&cap.as_str()) {
                valid = false;
                caps.insert(cap.clone());
            }
        }
        if !valid {
            bad.push(c.name.clone());
        }
    }
    if bad.is_empty() {
        return None;
    }
    violation(
        "non-default capabilities",
        format!(
            "{} must not include {} in securityContext.capabilities.add",
            containers_phrase(&bad),
            join_quote(&sorted(caps))
        ),
    )
}

fn host_namespaces(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    let mut found = Vec::new();
    if spec.host_network == Some(true) {
        found.push("hostNetwork=true");
    }
    if spec.host_pid == Some(true) {
        found.push("hostPID=true");
    }
    if spec.host_ipc == Some(true) {
        found.push("hostIPC=true");
    }
    if found.is_empty() {
        return None;
    }
    violation("host namespaces", found.join(", "))
}

fn host_path_volumes(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    let bad: Vec<String> =
        spec.volumes.iter().flatten().filter(|v| v.host_path.is_some()).map(|v| v.name.clone()).collect();
    if bad.is_empty() {
        return None;
    }
    violation("hostPath volumes", format!("{} {}", plural("volume", "volumes", bad.len()), join_quote(&bad)))
}

fn host_ports(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut bad = Vec::new();
    let mut ports = BTreeSet::new();
    for c in cs {
        let mut valid = true;
        for p in c.ports.iter().flatten() {
            if let Some(hp) = p.host_port.filter(|hp| *hp != 0) {
                valid = false;
                ports.insert(hp.to_string());
            }
        }
        if !valid {
            bad.push(c.name.clone());
        }
    }
    if bad.is_empty() {
        return None;
    }
    let ports = sorted(ports);
    violation(
        "hostPort",
        format!(
            "{} {} {} {}",
            containers_phrase(&bad),
            plural("uses", "use", bad.len()),
            plural("hostPort", "hostPorts", ports.len()),
            ports.join(", ")
        ),
    )
}

fn probe_hosts(p: Option<&Probe>) -> Vec<String> {
    let Some(p) = p else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(p.http_get.as_ref().and_then(|h| h.host.clone()).filter(|h| !h.is_empty()));
    out.extend(p.tcp_socket.as_ref().and_then(|t| t.host.clone()).filter(|h| !h.is_empty()));
    out
}

fn host_probes_and_host_lifecycle(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut bad = BTreeSet::new();
    let mut hosts = BTreeSet::new();
    for c in cs {
        let mut found = Vec::new();
        for p in [c.liveness_probe.as_ref(), c.readiness_probe.as_ref(), c.startup_probe.as_ref()] {
            found.extend(probe_hosts(p));
        }
        if let Some(l) = c.lifecycle.as_ref() {
            for h in [l.post_start.as_ref(), l.pre_stop.as_ref()].into_iter().flatten() {
                found.extend(h.http_get.as_ref().and_then(|g| g.host.clone()).filter(|x| !x.is_empty()));
                found.extend(h.tcp_socket.as_ref().and_then(|t| t.host.clone()).filter(|x| !x.is_empty()));
            }
        }
        if !found.is_empty() {
            bad.insert(c.name.clone());
            hosts.extend(found);
        }
    }
    if bad.is_empty() {
        return None;
    }
    let (bad, hosts) = (sorted(bad), sorted(hosts));
    violation(
        "probe or lifecycle host",
        format!(
            "{} {} {} {}",
            containers_phrase(&bad),
            plural("uses", "use", bad.len()),
            plural("probe or lifecycle host", "probe or lifecycle hosts", hosts.len()),
            join_quote(&hosts)
        ),
    )
}

fn privileged(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let bad: Vec<String> = cs
        .iter()
        .filter(|c| c.security_context.as_ref().and_then(|s| s.privileged) == Some(true))
        .map(|c| c.name.clone())
        .collect();
    if bad.is_empty() {
        return None;
    }
    violation("privileged", format!("{} must not set securityContext.privileged=true", containers_phrase(&bad)))
}

fn proc_mount(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut bad = Vec::new();
    let mut types = BTreeSet::new();
    for c in cs {
        if let Some(pm) = c.security_context.as_ref().and_then(|s| s.proc_mount.as_ref()) {
            if pm != "Default" {
                bad.push(c.name.clone());
                types.insert(pm.clone());
            }
        }
    }
    if bad.is_empty() {
        return None;
    }
    violation(
        "procMount",
        format!("{} must not set securityContext.procMount to {}", containers_phrase(&bad), join_quote(&sorted(types))),
    )
}

fn se_linux_options_with(spec: &PodSpec, cs: &[Container], allowed: &[&str]) -> Option<Violation> {
    let mut bad_types = BTreeSet::new();
    let (mut set_user, mut set_role) = (false, false);
    let mut valid = |o: &k8s_openapi::api::core::v1::SELinuxOptions| {
        let mut ok = true;
        let t = o.type_.clone().unwrap_or_default();
        if !allowed.contains(&t.as_str()) {
            ok = false;
            bad_types.insert(t);
        }
        if o.user.as_deref().is_some_and(|u| !u.is_empty()) {
            ok = false;
            set_user = true;
        }
        if o.role.as_deref().is_some_and(|r| !r.is_empty()) {
            ok = false;
            set_role = true;
        }
        ok
    };
    let mut setters = Vec::new();
    if let Some(o) = spec.security_context.as_ref().and_then(|s| s.se_linux_options.as_ref()) {
        if !valid(o) {
            setters.push("pod".to_string());
        }
    }
    let mut bad = Vec::new();
    for c in cs {
        if let Some(o) = c.security_context.as_ref().and_then(|s| s.se_linux_options.as_ref()) {
            if !valid(o) {
                bad.push(c.name.clone());
            }
        }
    }
    if !bad.is_empty() {
        setters.push(containers_phrase(&bad));
    }
    if setters.is_empty() {
        return None;
    }
    let mut data = Vec::new();
    if !bad_types.is_empty() {
        let types = sorted(bad_types);
        data.push(format!("{} {}", plural("type", "types", types.len()), join_quote(&types)));
    }
    if set_user {
        data.push("user may not be set".to_string());
    }
    if set_role {
        data.push("role may not be set".to_string());
    }
    violation(
        "seLinuxOptions",
        format!("{} set forbidden securityContext.seLinuxOptions: {}", setters.join(" and "), data.join("; ")),
    )
}

fn se_linux_options_1_0(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    se_linux_options_with(spec, cs, &["", "container_t", "container_init_t", "container_kvm_t"])
}

fn se_linux_options_1_31(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    se_linux_options_with(spec, cs, &["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"])
}

fn valid_seccomp(t: &str) -> bool {
    matches!(t, "Localhost" | "RuntimeDefault")
}

fn seccomp_baseline_1_0(meta: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let valid = |v: &str| v == "runtime/default" || v == "docker/default" || v.starts_with("localhost/");
    let annotations = meta.annotations.as_ref();
    let mut forbidden = BTreeSet::new();
    let pod_key = "seccomp.security.alpha.kubernetes.io/pod";
    if let Some(v) = annotations.and_then(|a| a.get(pod_key)) {
        if !valid(v) {
            forbidden.insert(format!("{pod_key}={}", field::quote(v)));
        }
    }
    for c in cs {
        let key = format!("container.seccomp.security.alpha.kubernetes.io/{}", c.name);
        if let Some(v) = annotations.and_then(|a| a.get(&key)) {
            if !valid(v) {
                forbidden.insert(format!("{key}={}", field::quote(v)));
            }
        }
    }
    if forbidden.is_empty() {
        return None;
    }
    let list = sorted(forbidden);
    violation(
        "seccompProfile",
        format!("forbidden {} {}", plural("annotation", "annotations", list.len()), list.join(", ")),
    )
}

/// The seccomp check of baseline (explicit bad values only) or restricted (a valid profile required).
fn seccomp_fields(spec: &PodSpec, cs: &[Container], required: bool) -> Option<Violation> {
    let mut setters = Vec::new();
    let mut bad_values = BTreeSet::new();
    let mut pod_set = false;
    if let Some(p) = spec.security_context.as_ref().and_then(|s| s.seccomp_profile.as_ref()) {
        if valid_seccomp(&p.type_) {
            pod_set = true;
        } else {
            setters.push("pod".to_string());
            bad_values.insert(p.type_.clone());
        }
    }
    let mut explicit = Vec::new();
    let mut implicit = Vec::new();
    for c in cs {
        match c.security_context.as_ref().and_then(|s| s.seccomp_profile.as_ref()) {
            Some(p) if !valid_seccomp(&p.type_) => {
                explicit.push(c.name.clone());
                bad_values.insert(p.type_.clone());
            }
            Some(_) => {}
            None if !pod_set => implicit.push(c.name.clone()),
            None => {}
        }
    }
    if !explicit.is_empty() {
        setters.push(containers_phrase(&explicit));
    }
    if !setters.is_empty() {
        return violation(
            "seccompProfile",
            format!(
                "{} must not set securityContext.seccompProfile.type to {}",
                setters.join(" and "),
                join_quote(&sorted(bad_values))
            ),
        );
    }
    if required && !implicit.is_empty() {
        return violation(
            "seccompProfile",
            format!(
                "pod or {} must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"",
                containers_phrase(&implicit)
            ),
        );
    }
    None
}

fn seccomp_baseline_1_19(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    seccomp_fields(spec, cs, false)
}

fn sysctls_with(spec: &PodSpec, allowed: &[&str]) -> Option<Violation> {
    let bad: Vec<String> = spec
        .security_context
        .as_ref()
        .and_then(|s| s.sysctls.as_ref())
        .into_iter()
        .flatten()
        .filter(|s| !allowed.contains(&s.name.as_str()))
        .map(|s| s.name.clone())
        .collect();
    if bad.is_empty() {
        return None;
    }
    violation("forbidden sysctls", bad.join(", "))
}

const SYSCTLS_1_0: &[&str] = &[
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
];
const SYSCTLS_1_27: &[&str] = &["net.ipv4.ip_local_reserved_ports"];
const SYSCTLS_1_29: &[&str] = &[
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
];
const SYSCTLS_1_32: &[&str] = &["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];

fn sysctls_up_to(spec: &PodSpec, lists: &[&[&str]]) -> Option<Violation> {
    let allowed: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    sysctls_with(spec, &allowed)
}

fn sysctls_1_0(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    sysctls_up_to(spec, &[SYSCTLS_1_0])
}

fn sysctls_1_27(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    sysctls_up_to(spec, &[SYSCTLS_1_0, SYSCTLS_1_27])
}

fn sysctls_1_29(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    sysctls_up_to(spec, &[SYSCTLS_1_0, SYSCTLS_1_27, SYSCTLS_1_29])
}

fn sysctls_1_32(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    sysctls_up_to(spec, &[SYSCTLS_1_0, SYSCTLS_1_27, SYSCTLS_1_29, SYSCTLS_1_32])
}

fn windows_host_process(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let host_process = |o: Option<&k8s_openapi::api::core::v1::WindowsSecurityContextOptions>| {
        o.and_then(|o| o.host_process) == Some(true)
    };
    let bad: Vec<String> = cs
        .iter()
        .filter(|c| host_process(c.security_context.as_ref().and_then(|s| s.windows_options.as_ref())))
        .map(|c| c.name.clone())
        .collect();
    let mut setters = Vec::new();
    if host_process(spec.security_context.as_ref().and_then(|s| s.windows_options.as_ref())) {
        setters.push("pod".to_string());
    }
    if !bad.is_empty() {
        setters.push(containers_phrase(&bad));
    }
    if setters.is_empty() {
        return None;
    }
    violation(
        "hostProcess",
        format!("{} must not set securityContext.windowsOptions.hostProcess=true", setters.join(" and ")),
    )
}

fn allow_privilege_escalation_1_8(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let bad: Vec<String> = cs
        .iter()
        .filter(|c| c.security_context.as_ref().and_then(|s| s.allow_privilege_escalation) != Some(false))
        .map(|c| c.name.clone())
        .collect();
    if bad.is_empty() {
        return None;
    }
    violation(
        "allowPrivilegeEscalation != false",
        format!("{} must set securityContext.allowPrivilegeEscalation=false", containers_phrase(&bad)),
    )
}

fn allow_privilege_escalation_1_25(meta: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    if is_windows(spec) {
        return None;
    }
    allow_privilege_escalation_1_8(meta, spec, cs)
}

fn capabilities_restricted_1_22(_: &ObjectMeta, _: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut missing_drop = Vec::new();
    let mut adding = Vec::new();
    let mut forbidden = BTreeSet::new();
    for c in cs {
        let Some(caps) = c.security_context.as_ref().and_then(|s| s.capabilities.as_ref()) else {
            missing_drop.push(c.name.clone());
            continue;
        };
        if !caps.drop.iter().flatten().any(|d| d == "ALL") {
            missing_drop.push(c.name.clone());
        }
        let mut added = false;
        for cap in caps.add.iter().flatten() {
            if cap != "NET_BIND_SERVICE" {
                added = true;
                forbidden.insert(cap.clone());
            }
        }
        if added {
            adding.push(c.name.clone());
        }
    }
    let mut details = Vec::new();
    if !missing_drop.is_empty() {
        details
            .push(format!("{} must set securityContext.capabilities.drop=[\"ALL\"]", containers_phrase(&missing_drop)));
    }
    if !adding.is_empty() {
        details.push(format!(
            "{} must not include {} in securityContext.capabilities.add",
            containers_phrase(&adding),
            join_quote(&sorted(forbidden))
        ));
    }
    if details.is_empty() {
        return None;
    }
    violation("unrestricted capabilities", details.join("; "))
}

fn capabilities_restricted_1_25(meta: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    if is_windows(spec) {
        return None;
    }
    capabilities_restricted_1_22(meta, spec, cs)
}

fn restricted_volumes(_: &ObjectMeta, spec: &PodSpec, _: &[Container]) -> Option<Violation> {
    let mut bad = Vec::new();
    let mut types = BTreeSet::new();
    for v in spec.volumes.iter().flatten() {
        let allowed = v.config_map.is_some()
            || v.csi.is_some()
            || v.downward_api.is_some()
            || v.empty_dir.is_some()
            || v.ephemeral.is_some()
            || v.image.is_some()
            || v.persistent_volume_claim.is_some()
            || v.projected.is_some()
            || v.secret.is_some();
        if allowed {
            continue;
        }
        bad.push(v.name.clone());
        let t = [
            (v.host_path.is_some(), "hostPath"),
            (v.gce_persistent_disk.is_some(), "gcePersistentDisk"),
            (v.aws_elastic_block_store.is_some(), "awsElasticBlockStore"),
            (v.git_repo.is_some(), "gitRepo"),
            (v.nfs.is_some(), "nfs"),
            (v.iscsi.is_some(), "iscsi"),
            (v.glusterfs.is_some(), "glusterfs"),
            (v.rbd.is_some(), "rbd"),
            (v.flex_volume.is_some(), "flexVolume"),
            (v.cinder.is_some(), "cinder"),
            (v.cephfs.is_some(), "cephfs"),
            (v.flocker.is_some(), "flocker"),
            (v.fc.is_some(), "fc"),
            (v.azure_file.is_some(), "azureFile"),
            (v.vsphere_volume.is_some(), "vsphereVolume"),
            (v.quobyte.is_some(), "quobyte"),
            (v.azure_disk.is_some(), "azureDisk"),
            (v.photon_persistent_disk.is_some(), "photonPersistentDisk"),
            (v.portworx_volume.is_some(), "portworxVolume"),
            (v.scale_io.is_some(), "scaleIO"),
            (v.storageos.is_some(), "storageos"),
        ]
        .iter()
        .find(|(set, _)| *set)
        .map_or("unknown", |(_, name)| name);
        types.insert(t.to_string());
    }
    if bad.is_empty() {
        return None;
    }
    let types = sorted(types);
    violation(
        "restricted volume types",
        format!(
            "{} {} {} {} {}",
            plural("volume", "volumes", bad.len()),
            join_quote(&bad),
            plural("uses", "use", bad.len()),
            plural("restricted volume type", "restricted volume types", types.len()),
            join_quote(&types)
        ),
    )
}

fn run_as_non_root(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut setters = Vec::new();
    let mut pod_non_root = false;
    match spec.security_context.as_ref().and_then(|s| s.run_as_non_root) {
        Some(false) => setters.push("pod".to_string()),
        Some(true) => pod_non_root = true,
        None => {}
    }
    let mut explicit = Vec::new();
    let mut implicit = Vec::new();
    for c in cs {
        match c.security_context.as_ref().and_then(|s| s.run_as_non_root) {
            Some(false) => explicit.push(c.name.clone()),
            Some(true) => {}
            None if !pod_non_root => implicit.push(c.name.clone()),
            None => {}
        }
    }
    if !explicit.is_empty() {
        setters.push(containers_phrase(&explicit));
    }
    if !setters.is_empty() {
        return violation(
            "runAsNonRoot != true",
            format!("{} must not set securityContext.runAsNonRoot=false", setters.join(" and ")),
        );
    }
    if !implicit.is_empty() {
        return violation(
            "runAsNonRoot != true",
            format!("pod or {} must set securityContext.runAsNonRoot=true", containers_phrase(&implicit)),
        );
    }
    None
}

fn run_as_user(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    let mut setters = Vec::new();
    if spec.security_context.as_ref().and_then(|s| s.run_as_user) == Some(0) {
        setters.push("pod".to_string());
    }
    let bad: Vec<String> = cs
        .iter()
        .filter(|c| c.security_context.as_ref().and_then(|s| s.run_as_user) == Some(0))
        .map(|c| c.name.clone())
        .collect();
    if !bad.is_empty() {
        setters.push(containers_phrase(&bad));
    }
    if setters.is_empty() {
        return None;
    }
    violation("runAsUser=0", format!("{} must not set runAsUser=0", setters.join(" and ")))
}

fn seccomp_restricted_1_19(_: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    seccomp_fields(spec, cs, true)
}

fn seccomp_restricted_1_25(meta: &ObjectMeta, spec: &PodSpec, cs: &[Container]) -> Option<Violation> {
    if is_windows(spec) {
        return None;
    }
    seccomp_restricted_1_19(meta, spec, cs)
}

/// Every check, baseline ones sorted by id, then restricted ones sorted by id (Kubernetes' order).
static CHECKS: &[Check] = &[
    Check { id: "appArmorProfile", level: Level::Baseline, versions: &[(0, app_armor_profile)], overrides: None },
    Check {
        id: "capabilities_baseline",
        level: Level::Baseline,
        versions: &[(0, capabilities_baseline)],
        overrides: None,
    },
    Check { id: "hostNamespaces", level: Level::Baseline, versions: &[(0, host_namespaces)], overrides: None },
    Check { id: "hostPathVolumes", level: Level::Baseline, versions: &[(0, host_path_volumes)], overrides: None },
    Check { id: "hostPorts", level: Level::Baseline, versions: &[(0, host_ports)], overrides: None },
    Check {
        id: "hostProbesAndHostLifecycle",
        level: Level::Baseline,
        versions: &[(34, host_probes_and_host_lifecycle)],
        overrides: None,
    },
    Check { id: "privileged", level: Level::Baseline, versions: &[(0, privileged)], overrides: None },
    Check { id: "procMount", level: Level::Baseline, versions: &[(0, proc_mount)], overrides: None },
    Check {
        id: "seLinuxOptions",
        level: Level::Baseline,
        versions: &[(0, se_linux_options_1_0), (31, se_linux_options_1_31)],
        overrides: None,
    },
    Check {
        id: "seccompProfile_baseline",
        level: Level::Baseline,
        versions: &[(0, seccomp_baseline_1_0), (19, seccomp_baseline_1_19)],
        overrides: None,
    },
    Check {
        id: "sysctls",
        level: Level::Baseline,
        versions: &[(0, sysctls_1_0), (27, sysctls_1_27), (29, sysctls_1_29), (32, sysctls_1_32)],
        overrides: None,
    },
    Check { id: "windowsHostProcess", level: Level::Baseline, versions: &[(0, windows_host_process)], overrides: None },
    Check {
        id: "allowPrivilegeEscalation",
        level: Level::Restricted,
        versions: &[(8, allow_privilege_escalation_1_8), (25, allow_privilege_escalation_1_25)],
        overrides: None,
    },
    Check {
        id: "capabilities_restricted",
        level: Level::Restricted,
        versions: &[(22, capabilities_restricted_1_22), (25, capabilities_restricted_1_25)],
        overrides: Some("capabilities_baseline"),
    },
    Check {
        id: "restrictedVolumes",
        level: Level::Restricted,
        versions: &[(0, restricted_volumes)],
        overrides: Some("hostPathVolumes"),
    },
    Check { id: "runAsNonRoot", level: Level::Restricted, versions: &[(0, run_as_non_root)], overrides: None },
    Check { id: "runAsUser", level: Level::Restricted, versions: &[(23, run_as_user)], overrides: None },
    Check {
        id: "seccompProfile_restricted",
        level: Level::Restricted,
        versions: &[(19, seccomp_restricted_1_19), (25, seccomp_restricted_1_25)],
        overrides: Some("seccompProfile_baseline"),
    },
];

fn check_at(check: &Check, minor: u32) -> Option<CheckFn> {
    check.versions.iter().rev().find(|(min, _)| *min <= minor).map(|(_, f)| *f)
}

/// The pod's containers as the checks visit them: init containers, containers, ephemeral containers.
fn visit_order(spec: &PodSpec) -> Vec<Container> {
    let mut out: Vec<Container> = spec.init_containers.iter().flatten().cloned().collect();
    out.extend(spec.containers.iter().cloned());
    for e in spec.ephemeral_containers.iter().flatten() {
        if let Ok(c) = serde_json::to_value(e).and_then(serde_json::from_value::<Container>) {
            out.push(c);
        }
    }
    out
}

/// The violations of a pod (template) at a level and version, in Kubernetes' order.
pub fn evaluate(lv: LevelVersion, meta: &ObjectMeta, spec: &PodSpec) -> Vec<Violation> {
    if lv.level == Level::Privileged {
        return Vec::new();
    }
    let minor = lv.minor.unwrap_or(MAX_MINOR).min(MAX_MINOR);
    let containers = visit_order(spec);
    let overridden: Vec<&str> = if lv.level == Level::Restricted {
        CHECKS
            .iter()
            .filter(|c| c.level == Level::Restricted && check_at(c, minor).is_some())
            .filter_map(|c| c.overrides)
            .collect()
    } else {
        Vec::new()
    };
    CHECKS
        .iter()
        .filter(|c| c.level <= lv.level && !overridden.contains(&c.id))
        .filter_map(|c| check_at(c, minor))
        .filter_map(|f| f(meta, spec, &containers))
        .collect()
}

/// `AggregateCheckResult.ForbiddenDetail`: `reason (detail), reason (detail)`.
pub fn forbidden_detail(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|v| if v.detail.is_empty() { v.reason.clone() } else { format!("{} ({})", v.reason, v.detail) })
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------------------------------------
// The admission plugin.

fn namespace_labels(req: &AdmissionRequest, cache: &WatchCache) -> Option<BTreeMap<String, String>> {
    match req.namespace_object(cache).as_deref() {
        Some(Object::Namespace(ns)) => ns.metadata.labels.clone(),
        _ => None,
    }
}

/// A pod template of a workload, when the object has one.
fn template(obj: &Object) -> Option<(&ObjectMeta, &PodSpec)> {
    let t = match obj {
        Object::Deployment(d) => d.spec.as_ref().map(|s| &s.template),
        Object::ReplicaSet(r) => r.spec.as_ref().and_then(|s| s.template.as_ref()),
        Object::StatefulSet(s) => s.spec.as_ref().map(|s| &s.template),
        Object::DaemonSet(d) => d.spec.as_ref().map(|s| &s.template),
        Object::Job(j) => j.spec.as_ref().map(|s| &s.template),
        Object::CronJob(c) => c.spec.as_ref().and_then(|s| s.job_template.spec.as_ref()).map(|s| &s.template),
        _ => None,
    }?;
    Some((t.metadata.as_ref().unwrap_or(&EMPTY_META), t.spec.as_ref()?))
}

static EMPTY_META: ObjectMeta = ObjectMeta {
    annotations: None,
    creation_timestamp: None,
    deletion_grace_period_seconds: None,
    deletion_timestamp: None,
    finalizers: None,
    generate_name: None,
    generation: None,
    labels: None,
    managed_fields: None,
    name: None,
    namespace: None,
    owner_references: None,
    resource_version: None,
    self_link: None,
    uid: None,
};

fn significant_pod_update(new: &PodSpec, old: &PodSpec) -> bool {
    let images = |cs: &[Container]| cs.iter().map(|c| c.image.clone()).collect::<Vec<_>>();
    let new_init: Vec<Container> = new.init_containers.clone().unwrap_or_default();
    let old_init: Vec<Container> = old.init_containers.clone().unwrap_or_default();
    if images(&new.containers) != images(&old.containers) || images(&new_init) != images(&old_init) {
        return true;
    }
    let eph = |s: &PodSpec| -> BTreeMap<String, Option<String>> {
        s.ephemeral_containers.iter().flatten().map(|e| (e.name.clone(), e.image.clone())).collect()
    };
    let (new_eph, old_eph) = (eph(new), eph(old));
    new_eph.iter().any(|(name, image)| old_eph.get(name) != Some(image))
}

/// Validating admission for pods, workloads and namespaces (see the module documentation).
pub fn validate(
    req: &AdmissionRequest,
    obj: Option<&Object>,
    old: Option<&Object>,
    cache: &WatchCache,
    warnings: &mut Vec<String>,
) -> Result<(), Status> {
    if !matches!(req.verb, Verb::Create | Verb::Update | Verb::Patch) {
        return Ok(());
    }
    let Some(obj) = obj else {
        return Ok(());
    };
    match (obj, req.kind) {
        (Object::Namespace(ns), Kind::Namespace) => validate_namespace(req, ns, old, cache, warnings),
        (Object::Pod(pod), Kind::Pod) => {
            if matches!(
                req.subresource,
                Some("exec" | "attach" | "binding" | "eviction" | "log" | "portforward" | "proxy" | "status")
            ) {
                return Ok(());
            }
            let labels = namespace_labels(req, cache);
            let (policy, errs) = policy_from_labels(labels.as_ref());
            if errs.is_empty() && policy.fully_privileged() {
                return Ok(());
            }
            let Some(spec) = pod.spec.as_ref() else {
                return Ok(());
            };
            if req.verb != Verb::Create {
                if let Some(Object::Pod(old_pod)) = old {
                    if !old_pod.spec.as_ref().is_some_and(|o| significant_pod_update(spec, o)) {
                        return Ok(());
                    }
                }
            }
            let enforced = evaluate(policy.enforce, &pod.metadata, spec);
            if !enforced.is_empty() {
                return Err(req.forbidden(&format!(
                    "violates PodSecurity \"{}\": {}",
                    policy.enforce,
                    forbidden_detail(&enforced)
                )));
            }
            warn(policy.warn, &pod.metadata, spec, warnings);
            Ok(())
        }
        (_, _) => {
            if req.subresource.is_some() {
                return Ok(());
            }
            let Some((meta, spec)) = template(obj) else {
                return Ok(());
            };
            let labels = namespace_labels(req, cache);
            let (policy, errs) = policy_from_labels(labels.as_ref());
            if errs.is_empty() && policy.warn.level == Level::Privileged && policy.audit.level == Level::Privileged {
                return Ok(());
            }
            warn(policy.warn, meta, spec, warnings);
            Ok(())
        }
    }
}

fn warn(lv: LevelVersion, meta: &ObjectMeta, spec: &PodSpec, warnings: &mut Vec<String>) {
    let found = evaluate(lv, meta, spec);
    if !found.is_empty() {
        warnings.push(format!("would violate PodSecurity \"{lv}\": {}", forbidden_detail(&found)));
    }
}

fn validate_namespace(
    req: &AdmissionRequest,
    ns: &Namespace,
    old: Option<&Object>,
    cache: &WatchCache,
    warnings: &mut Vec<String>,
) -> Result<(), Status> {
    if req.subresource.is_some() {
        return Ok(());
    }
    let (policy, errs) = policy_from_labels(ns.metadata.labels.as_ref());
    let invalid = |errs: Vec<Cause>| Status::invalid("Namespace", "Namespace", req.name, errs);
    if req.verb == Verb::Create {
        return if errs.is_empty() { Ok(()) } else { Err(invalid(errs)) };
    }
    let Some(Object::Namespace(old_ns)) = old else {
        return Ok(());
    };
    let (old_policy, old_errs) = policy_from_labels(old_ns.metadata.labels.as_ref());
    if !errs.is_empty() && (old_errs.is_empty() || errs != old_errs) {
        return Err(invalid(errs));
    }
    if policy.enforce == old_policy.enforce
        || policy.enforce.level == Level::Privileged
        || (policy.enforce.minor == old_policy.enforce.minor && policy.enforce.level <= old_policy.enforce.level)
    {
        return Ok(());
    }
    warnings.extend(existing_pod_warnings(cache, req.name, policy.enforce));
    Ok(())
}

/// `EvaluatePodsInNamespace`: one warning per distinct set of failed checks, naming the first pod.
fn existing_pod_warnings(cache: &WatchCache, namespace: &str, enforce: LevelVersion) -> Vec<String> {
    let mut by_reason: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for obj in cache.list(Kind::Pod, Some(namespace)) {
        let Object::Pod(pod) = obj.as_ref() else {
            continue;
        };
        let Some(spec) = pod.spec.as_ref() else {
            continue;
        };
        let found = evaluate(enforce, &pod.metadata, spec);
        if found.is_empty() {
            continue;
        }
        let reasons = found.iter().map(|v| v.reason.clone()).collect::<Vec<_>>().join(", ");
        let name = pod.metadata.name.clone().unwrap_or_default();
        let entry = by_reason.entry(reasons).or_insert_with(|| (name.clone(), 0));
        if name < entry.0 {
            entry.0 = name;
        }
        entry.1 += 1;
    }
    if by_reason.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!(
        "existing pods in namespace {} violate the new PodSecurity enforce level {}",
        field::quote(namespace),
        field::quote(&enforce.to_string())
    )];
    let mut pods: Vec<String> = by_reason
        .into_iter()
        .map(|(reasons, (pod, count))| match count {
            1 => format!("{pod}: {reasons}"),
            2 => format!("{pod} (and 1 other pod): {reasons}"),
            n => format!("{pod} (and {} other pods): {reasons}", n - 1),
        })
        .collect();
    pods.sort();
    out.extend(pods);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (format!("{LABEL_PREFIX}{k}"), v.to_string())).collect()
    }

    fn plain_pod() -> PodSpec {
        PodSpec {
            containers: vec![Container { name: "c".into(), image: Some("nginx".into()), ..Default::default() }],
            ..Default::default()
        }
    }

    #[test]
    fn an_unset_warn_level_follows_a_stricter_enforce_level_and_bad_values_fail_closed() {
        let (p, errs) = policy_from_labels(Some(&labels(&[("enforce", "baseline"), ("enforce-version", "v1.30")])));
        assert!(errs.is_empty());
        assert_eq!(p.warn.to_string(), "baseline:v1.30");
        assert_eq!(p.audit.to_string(), "privileged:latest");
        let (p, errs) = policy_from_labels(Some(&labels(&[("enforce", "strict"), ("warn", "loud")])));
        assert_eq!(p.enforce.to_string(), "restricted:latest");
        assert_eq!(p.warn.to_string(), "privileged:latest");
        assert_eq!(errs.len(), 2);
        assert!(
            parse_version("v1.05").is_err() && parse_version("v2.1").is_err() && parse_version("v1.0") == Ok(Some(0))
        );
    }

    #[test]
    fn restricted_checks_follow_the_requested_policy_version() {
        let spec = plain_pod();
        let meta = ObjectMeta::default();
        let reasons = |minor| {
            evaluate(LevelVersion { level: Level::Restricted, minor }, &meta, &spec)
                .into_iter()
                .map(|v| v.reason)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            reasons(None),
            [
                "allowPrivilegeEscalation != false",
                "unrestricted capabilities",
                "runAsNonRoot != true",
                "seccompProfile"
            ]
        );
        assert_eq!(reasons(Some(21)), ["allowPrivilegeEscalation != false", "runAsNonRoot != true", "seccompProfile"]);
        assert_eq!(reasons(Some(7)), ["runAsNonRoot != true"]);
        assert!(evaluate(LevelVersion { level: Level::Baseline, minor: None }, &meta, &spec).is_empty());
    }

    #[test]
    fn windows_pods_are_exempt_from_the_linux_only_restricted_checks_since_v1_25() {
        let mut spec = plain_pod();
        spec.os = Some(k8s_openapi::api::core::v1::PodOS { name: "windows".into() });
        let found = evaluate(LevelVersion { level: Level::Restricted, minor: None }, &ObjectMeta::default(), &spec);
        assert_eq!(found.iter().map(|v| v.reason.as_str()).collect::<Vec<_>>(), ["runAsNonRoot != true"]);
    }
}
