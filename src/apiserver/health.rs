//! kube-apiserver's non-resource paths: the health endpoints `/healthz`, `/livez` and `/readyz` (each check
//! also alone, `/livez/etcd`), `/version`, and `404 page not found` for anything else. Real counterpart:
//! `staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go` (`handleRootHealth`, `adaptCheckToHandler`),
//! the check lists that `options/etcd.go` (`etcd`, readyz-only `etcd-readiness`) and the post-start hooks of a
//! kubeadm v1.34 control plane install, and `routes/version.go`.
//!
//! Watches and writes nothing itself: [`super::ApiServer`] probes etcd (a read of `/registry/health` that must
//! answer within `--etcd-healthcheck-timeout`, 2 s) and this module turns the outcome into the body and status
//! code. The etcd checks fail with the probe, and `informer-sync` until the watch cache has its first list of
//! etcd (the apiserver's own informers list through it); every post-start hook has finished once it serves.

/// `--etcd-healthcheck-timeout` (and the readiness timeout) default: 2 s.
pub const ETCD_CHECK_TIMEOUT_MS: u64 = 2_000;
/// Probes are rate limited to one per half timeout; a request in between gets the last probe's result.
pub const ETCD_CHECK_INTERVAL_MS: u64 = ETCD_CHECK_TIMEOUT_MS / 2;
/// The key the probe reads.
pub const ETCD_HEALTH_KEY: &str = "/registry/health";

/// The post-start hooks of kube-apiserver v1.34 as kubeadm runs it (apiextensions, kube-apiserver and
/// aggregator servers chained), in the order their checks are listed.
const POST_START_HOOKS: &[&str] = &[
    "start-apiserver-admission-initializer",
    "generic-apiserver-start-informers",
    "priority-and-fairness-config-consumer",
    "priority-and-fairness-filter",
    "storage-object-count-tracker-hook",
    "start-apiextensions-informers",
    "start-apiextensions-controllers",
    "crd-informer-synced",
    "start-system-namespaces-controller",
    "start-cluster-authentication-info-controller",
    "start-kube-apiserver-identity-lease-controller",
    "start-kube-apiserver-identity-lease-garbage-collector",
    "start-legacy-token-tracking-controller",
    "start-service-ip-repair-controllers",
    "rbac/bootstrap-roles",
    "scheduling/bootstrap-system-priority-classes",
    "priority-and-fairness-config-producer",
    "bootstrap-controller",
    "start-kubernetes-service-cidr-controller",
    "aggregator-reload-proxy-client-cert",
    "start-kube-aggregator-informers",
    "apiservice-status-local-available-controller",
    "apiservice-status-remote-available-controller",
    "apiservice-registration-controller",
    "apiservice-discovery-controller",
    "kube-apiserver-autoregistration",
];

/// The post-start hooks listed after `autoregister-completion`.
const LATE_HOOKS: &[&str] = &["apiservice-openapi-controller", "apiservice-openapiv3-controller"];

/// One of the three health endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Healthz,
    Livez,
    Readyz,
}

impl Endpoint {
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::Healthz => "healthz",
            Endpoint::Livez => "livez",
            Endpoint::Readyz => "readyz",
        }
    }

    /// The endpoint's checks in order: `ping`, `log`, `etcd` everywhere; `etcd-readiness`, `informer-sync` and
    /// `shutdown` on readyz only.
    pub fn checks(self) -> Vec<String> {
        let mut out = vec!["ping".to_string(), "log".to_string(), "etcd".to_string()];
        if self == Endpoint::Readyz {
            out.push("etcd-readiness".into());
            out.push("informer-sync".into());
        }
        out.extend(POST_START_HOOKS.iter().map(|h| format!("poststarthook/{h}")));
        out.push("autoregister-completion".into());
        out.extend(LATE_HOOKS.iter().map(|h| format!("poststarthook/{h}")));
        if self == Endpoint::Readyz {
            out.push("shutdown".into());
        }
        out
    }
}

/// What a non-resource path asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `/readyz?verbose&exclude=etcd`: the whole list (query kept for the renderer).
    Root {
        endpoint: Endpoint,
        query: String,
    },
    /// `/livez/etcd`: one check.
    Check {
        endpoint: Endpoint,
        check: String,
    },
    Version,
    NotFound,
}

/// Routes a path (with its query).
pub fn route(path_and_query: &str) -> Target {
    let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
    if path == "/version" || path == "/version/" {
        return Target::Version;
    }
    let rest = path.strip_prefix('/').unwrap_or(path);
    let (first, check) = rest.split_once('/').unwrap_or((rest, ""));
    let endpoint = match first {
        "healthz" => Endpoint::Healthz,
        "livez" => Endpoint::Livez,
        "readyz" => Endpoint::Readyz,
        _ => return Target::NotFound,
    };
    if check.is_empty() {
        return Target::Root { endpoint, query: query.to_string() };
    }
    if endpoint.checks().iter().any(|c| c == check) {
        Target::Check { endpoint, check: check.to_string() }
    } else {
        Target::NotFound
    }
}

/// Whether answering needs the etcd probe (an etcd check that is not excluded).
pub fn needs_etcd(target: &Target) -> bool {
    match target {
        Target::Root { endpoint, query } => {
            let excluded = excluded(query);
            endpoint.checks().iter().any(|c| is_etcd_check(c) && !excluded.contains(c))
        }
        Target::Check { check, .. } => is_etcd_check(check),
        Target::Version | Target::NotFound => false,
    }
}

fn is_etcd_check(name: &str) -> bool {
    name == "etcd" || name == "etcd-readiness"
}

/// Why check `name` fails, if it does.
fn failure(name: &str, etcd: &Result<(), String>, synced: bool) -> Option<String> {
    match etcd {
        Err(e) if is_etcd_check(name) => Some(e.clone()),
        _ if name == "informer-sync" && !synced => {
            Some(format!("{} informers not started yet: [{}]", INFORMERS.len(), INFORMERS.join(" ")))
        }
        _ => None,
    }
}

/// `exclude=` values of a query, in order.
fn excluded(query: &str) -> Vec<String> {
    params(query).filter(|(k, _)| *k == "exclude").map(|(_, v)| v.to_string()).collect()
}

fn params(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query.split('&').filter(|p| !p.is_empty()).map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// Informers of kube-apiserver's admission plugins that kubeglass models, named as `informer-sync` names
/// those not started (`*v1.Kind`); all wait for the first list while the watch cache is empty. The real
/// apiserver starts more (webhook configurations, priority classes, …), so its list is longer; the wording
/// (`N informers not started yet: [...]`, healthz.go's informerSync) is its own.
const INFORMERS: &[&str] =
    &["*v1.LimitRange", "*v1.Namespace", "*v1.Pod", "*v1.ResourceQuota", "*v1.Secret", "*v1.ServiceAccount"];

/// The status code and body for `target` once the watch cache has synced, given the etcd probe's outcome
/// (`Err` holds its error text).
pub fn answer(target: &Target, etcd: &Result<(), String>) -> (u16, String) {
    answer_when(target, etcd, true)
}

/// [`answer`], with `synced` false while the watch cache waits for its first list of etcd.
pub fn answer_when(target: &Target, etcd: &Result<(), String>, synced: bool) -> (u16, String) {
    match target {
        Target::Root { endpoint, query } => root(*endpoint, query, etcd, synced),
        Target::Check { check, .. } => match failure(check, etcd, synced) {
            Some(e) => (500, format!("internal server error: {e}\n")),
            None => (200, "ok".to_string()),
        },
        Target::Version => (200, version_json()),
        Target::NotFound => (404, "404 page not found\n".to_string()),
    }
}

/// `handleRootHealth`: `[+]name ok` / `[-]name failed: reason withheld` per check; on failure all of them and
/// `<endpoint> check failed` with 500 (`http.Error` adds the newline); on success `ok`, or with `verbose` the
/// list and `<endpoint> check passed`.
fn root(endpoint: Endpoint, query: &str, etcd: &Result<(), String>, synced: bool) -> (u16, String) {
    let mut excluded = excluded(query);
    let verbose = params(query).any(|(k, _)| k == "verbose");
    let mut lines = String::new();
    let mut failed = false;
    for check in endpoint.checks() {
        if excluded.contains(&check) {
            excluded.retain(|e| *e != check);
            lines.push_str(&format!("[+]{check} excluded: ok\n"));
            continue;
        }
        if failure(&check, etcd, synced).is_some() {
            failed = true;
            lines.push_str(&format!("[-]{check} failed: reason withheld\n"));
        } else {
            lines.push_str(&format!("[+]{check} ok\n"));
        }
    }
    if !excluded.is_empty() {
        excluded.sort();
        excluded.dedup();
        let names: Vec<String> = excluded.iter().map(|e| format!("{e:?}")).collect();
        lines.push_str(&format!("warn: some health checks cannot be excluded: no matches for {}\n", names.join(",")));
    }
    let name = endpoint.name();
    if failed {
        return (500, format!("{lines}{name} check failed\n"));
    }
    if !verbose {
        return (200, "ok".to_string());
    }
    (200, format!("{lines}{name} check passed\n"))
}

/// `/version`: `version.Info` as `WriteRawJSON` writes it (indented, no trailing newline).
fn version_json() -> String {
    let v = crate::kubectl::info::CLIENT_VERSION;
    let minor = v.split('.').nth(1).unwrap_or("34");
    let previous = minor.parse::<u32>().map(|m| m.saturating_sub(1).to_string()).unwrap_or_default();
    let info = serde_json::json!({
        "major": "1",
        "minor": minor,
        "emulationMajor": "1",
        "emulationMinor": minor,
        "minCompatibilityMajor": "1",
        "minCompatibilityMinor": previous,
        "gitVersion": v,
        "gitTreeState": "clean",
        "compiler": "gc",
        "platform": "linux/amd64",
    });
    // Go writes the struct's fields in declaration order; serde_json's map would sort them.
    let order = [
        "major",
        "minor",
        "emulationMajor",
        "emulationMinor",
        "minCompatibilityMajor",
        "minCompatibilityMinor",
        "gitVersion",
        "gitTreeState",
        "compiler",
        "platform",
    ];
    let fields: Vec<String> = order.iter().map(|k| format!("  \"{k}\": {}", info[*k])).collect();
    format!("{{\n{}\n}}", fields.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passing_endpoint_says_ok_and_lists_its_checks_when_verbose() {
        let ok = Ok(());
        assert_eq!(answer(&route("/livez"), &ok), (200, "ok".to_string()));
        let (code, body) = answer(&route("/readyz?verbose"), &ok);
        assert_eq!(code, 200);
        assert!(body.starts_with("[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n"));
        assert!(body
            .ends_with("[+]poststarthook/apiservice-openapiv3-controller ok\n[+]shutdown ok\nreadyz check passed\n"));
        let (_, livez) = answer(&route("/livez?verbose"), &ok);
        assert!(!livez.contains("etcd-readiness") && !livez.contains("shutdown"), "{livez}");
        assert!(livez.ends_with("livez check passed\n"));
    }

    #[test]
    fn a_failing_etcd_check_withholds_its_reason_and_fails_with_500_even_without_verbose() {
        let down = Err("error getting data from etcd: context deadline exceeded".to_string());
        let (code, body) = answer(&route("/readyz"), &down);
        assert_eq!(code, 500);
        assert!(
            body.contains("[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n")
        );
        assert!(body.ends_with("readyz check failed\n"));
        assert_eq!(answer(&route("/readyz?exclude=etcd&exclude=etcd-readiness"), &down).0, 200);
        assert_eq!(
            answer(&route("/livez/etcd"), &down),
            (500, "internal server error: error getting data from etcd: context deadline exceeded\n".to_string())
        );
        assert_eq!(answer(&route("/livez/ping"), &down), (200, "ok".to_string()));
    }

    #[test]
    fn informer_sync_fails_until_the_watch_cache_has_listed_etcd() {
        let (code, body) = answer_when(&route("/readyz?verbose"), &Ok(()), false);
        assert_eq!(code, 500);
        assert!(body.contains("[+]etcd-readiness ok\n[-]informer-sync failed: reason withheld\n"), "{body}");
        assert_eq!(
            answer_when(&route("/readyz/informer-sync"), &Ok(()), false),
            (
                500,
                "internal server error: 6 informers not started yet: [*v1.LimitRange *v1.Namespace *v1.Pod \
                 *v1.ResourceQuota *v1.Secret *v1.ServiceAccount]\n"
                    .to_string()
            )
        );
        assert_eq!(answer_when(&route("/livez"), &Ok(()), false), (200, "ok".to_string()));
        assert_eq!(answer_when(&route("/readyz?exclude=informer-sync"), &Ok(()), false).0, 200);
    }

    #[test]
    fn excluding_an_unknown_check_warns_and_other_paths_are_not_found() {
        let (_, body) = answer(&route("/healthz?verbose&exclude=nope"), &Ok(()));
        assert!(body
            .ends_with("warn: some health checks cannot be excluded: no matches for \"nope\"\nhealthz check passed\n"));
        assert_eq!(answer(&route("/metricsz"), &Ok(())), (404, "404 page not found\n".to_string()));
        assert_eq!(route("/livez/nope"), Target::NotFound);
        assert!(!needs_etcd(&route("/readyz?exclude=etcd&exclude=etcd-readiness")));
    }
}
