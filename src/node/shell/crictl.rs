//! `crictl ps [-a] [-q] [--name RE] [--pod ID] [--state S] [--namespace RE]`, `crictl pods`, `crictl logs ID`,
//! `crictl images`, `crictl inspect ID`: containerd's view over its CRI socket, printed as crictl v1.34 prints
//! it (`cmd/crictl/container.go`, `sandbox.go`, `image.go`; text/tabwriter with a minimum width of 20 and
//! padding 3; ids cut to 13 characters; times as go-units' `HumanDuration` + ` ago`; sizes as
//! `HumanSizeWithPrecision(size, 3)`). Ids may be given by any unique prefix, as containerd resolves them.
//! It never goes through the apiserver; with containerd stopped every command fails with crictl's
//! connection error.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{Node, Outcome};
use crate::cluster::node_files::CONTAINERD_SOCKET;
use crate::node::journal::{klog_line, rfc3339_nano};
use crate::node::runtime::{image_info, repository, Container, ContainerState, Containerd, Sandbox};
use crate::sim::SimTime;

const ID_LEN: usize = 13;

pub fn run(node: &mut dyn Node, args: &[String]) -> Outcome {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Some((sub, rest)) = args.split_first() else {
        return Outcome::ok("NAME:\n   crictl - client for CRI\n\nUSAGE:\n   crictl [global options] command [command options]\n\nkubeglass simulates: ps, pods, logs, images, inspect\n");
    };
    let api = if matches!(*sub, "images" | "image" | "img") { "image" } else { "runtime" };
    if !matches!(*sub, "ps" | "pods" | "logs" | "images" | "image" | "img" | "inspect") {
        return Outcome::fail(format!("No help topic for '{sub}'\n"), 3);
    }
    if !node.containerd_running() {
        return fatal(&format!(
            "validate service connection: validate CRI v1 {api} API for endpoint \"unix://{CONTAINERD_SOCKET}\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix {CONTAINERD_SOCKET}: connect: no such file or directory\""
        ));
    }
    let now = node.now();
    let Some(c) = node.containerd() else { return fatal("no container runtime on this node") };
    let flags = match Flags::parse(sub, rest) {
        Ok(f) => f,
        Err(e) => return Outcome::fail(format!("Incorrect Usage: {e}\n"), 1),
    };
    match *sub {
        "ps" => ps(c, &flags, now),
        "pods" => pods(c, &flags, now),
        "logs" => logs(c, &flags, now),
        "inspect" => inspect(c, &flags, now),
        _ => images(c, &flags),
    }
}

/// crictl's fatal error line (logrus on a terminal).
fn fatal(message: &str) -> Outcome {
    Outcome::fail(format!("FATA[0000] {message:<44} \n"), 1)
}

struct Flags {
    all: bool,
    quiet: bool,
    no_trunc: bool,
    name: Option<String>,
    pod: Option<String>,
    state: Option<String>,
    namespace: Option<String>,
    tail: Option<usize>,
    previous: bool,
    timestamps: bool,
    latest: bool,
    last: Option<usize>,
    positional: Vec<String>,
}

impl Flags {
    fn parse(sub: &str, args: &[&str]) -> Result<Flags, String> {
        let mut f = Flags {
            all: false,
            quiet: false,
            no_trunc: false,
            name: None,
            pod: None,
            state: None,
            namespace: None,
            tail: None,
            previous: false,
            timestamps: false,
            latest: false,
            last: None,
            positional: Vec::new(),
        };
        let mut i = 0;
        while i < args.len() {
            let a = args[i];
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with('-') => (n, Some(v.to_string())),
                _ => (a, None),
            };
            let value = |i: &mut usize| -> Result<String, String> {
                if let Some(v) = inline.clone() {
                    return Ok(v);
                }
                *i += 1;
                args.get(*i).map(|s| s.to_string()).ok_or_else(|| format!("flag needs an argument: {name}"))
            };
            match name {
                "-a" | "--all" => f.all = true,
                "-q" | "--quiet" => f.quiet = true,
                "--no-trunc" => f.no_trunc = true,
                "-p" if sub == "ps" => f.pod = Some(value(&mut i)?),
                "-p" | "--previous" => f.previous = true,
                "-t" | "--timestamps" => f.timestamps = true,
                "-f" | "--follow" | "-v" | "--verbose" => {}
                "-l" | "--latest" => f.latest = true,
                "--name" => f.name = Some(value(&mut i)?),
                "--pod" => f.pod = Some(value(&mut i)?),
                "-s" | "--state" => f.state = Some(value(&mut i)?),
                "--namespace" => f.namespace = Some(value(&mut i)?),
                "-n" | "--last" => f.last = value(&mut i)?.parse().ok(),
                "--tail" => f.tail = value(&mut i)?.parse().ok(),
                "-aq" | "-qa" => {
                    f.all = true;
                    f.quiet = true;
                }
                _ if a.starts_with('-') => return Err(format!("flag provided but not defined: {name}")),
                _ => f.positional.push(a.to_string()),
            }
            i += 1;
        }
        Ok(f)
    }
}

fn matches(pattern: &Option<String>, text: &str) -> bool {
    match pattern {
        None => true,
        Some(p) => regex_lite::Regex::new(p).map(|re| re.is_match(text)).unwrap_or(false),
    }
}

fn short(id: &str, no_trunc: bool) -> String {
    let id = id.strip_prefix("sha256:").unwrap_or(id);
    if no_trunc {
        id.to_string()
    } else {
        id.chars().take(ID_LEN).collect()
    }
}

fn state_name(s: ContainerState) -> &'static str {
    match s {
        ContainerState::Created => "Created",
        ContainerState::Running => "Running",
        ContainerState::Exited => "Exited",
    }
}

fn sandbox_of<'a>(c: &'a Containerd, container: &Container) -> Option<&'a Sandbox> {
    c.sandboxes().find(|s| s.id == container.sandbox_id)
}

fn ps(c: &Containerd, f: &Flags, now: SimTime) -> Outcome {
    let mut list: Vec<&Container> = c
        .containers()
        .filter(|x| {
            let state_ok = match f.state.as_deref().map(str::to_lowercase).as_deref() {
                Some(s) => state_name(x.state).eq_ignore_ascii_case(s),
                None => f.all || f.latest || f.last.is_some() || x.state == ContainerState::Running,
            };
            let ns = sandbox_of(c, x).map_or("", |s| s.namespace.as_str());
            state_ok
                && matches(&f.name, &x.name)
                && matches(&f.namespace, ns)
                && f.pod.as_deref().is_none_or(|p| x.sandbox_id.starts_with(p))
        })
        .collect();
    if let Some(s) = f.state.as_deref() {
        if !["created", "running", "exited", "unknown"].contains(&s.to_lowercase().as_str()) {
            return fatal("list containers: --state should be one of created, running, exited or unknown");
        }
    }
    list.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    let keep = if f.latest { 1 } else { f.last.unwrap_or(list.len()) };
    list.truncate(keep);
    if f.quiet {
        return Outcome::ok(list.iter().map(|x| format!("{}\n", x.id)).collect::<String>());
    }
    let mut rows = vec![["CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD", "NAMESPACE"]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
    for x in list {
        let sandbox = sandbox_of(c, x);
        rows.push(vec![
            short(&x.id, f.no_trunc),
            short(&image_info(&x.image).id, f.no_trunc),
            format!("{} ago", human_duration(now.since(x.created_at))),
            state_name(x.state).to_string(),
            x.name.clone(),
            x.attempt.to_string(),
            short(&x.sandbox_id, f.no_trunc),
            sandbox.map(|s| s.name.clone()).unwrap_or_default(),
            sandbox.map(|s| s.namespace.clone()).unwrap_or_default(),
        ]);
    }
    Outcome::ok(tabwriter(&rows))
}

fn pods(c: &Containerd, f: &Flags, now: SimTime) -> Outcome {
    if let Some(s) = f.state.as_deref() {
        if !["ready", "notready"].contains(&s.to_lowercase().as_str()) {
            return fatal("list pod sandboxes: --state should be ready or notready");
        }
    }
    let mut list: Vec<&Sandbox> = c
        .sandboxes()
        .filter(|s| {
            let state = if s.ready { "ready" } else { "notready" };
            matches(&f.name, &s.name)
                && matches(&f.namespace, &s.namespace)
                && f.state.as_deref().is_none_or(|w| w.eq_ignore_ascii_case(state))
        })
        .collect();
    list.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    if f.latest {
        list.truncate(1);
    }
    if f.quiet {
        return Outcome::ok(list.iter().map(|s| format!("{}\n", s.id)).collect::<String>());
    }
    let mut rows = vec![["POD ID", "CREATED", "STATE", "NAME", "NAMESPACE", "ATTEMPT", "RUNTIME"]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
    for s in list {
        rows.push(vec![
            short(&s.id, f.no_trunc),
            format!("{} ago", human_duration(now.since(s.created_at))),
            if s.ready { "Ready" } else { "NotReady" }.to_string(),
            s.name.clone(),
            s.namespace.clone(),
            "0".into(),
            "(default)".into(),
        ]);
    }
    Outcome::ok(tabwriter(&rows))
}

fn images(c: &Containerd, f: &Flags) -> Outcome {
    let wanted = f.positional.first().map(|i| crate::node::runtime::normalize(i));
    let list: Vec<_> = c
        .images()
        .filter(|i| wanted.as_deref().is_none_or(|w| i.name == w || repository(&i.name) == repository(w)))
        .collect();
    if f.quiet {
        return Outcome::ok(list.iter().map(|i| format!("{}\n", i.id)).collect::<String>());
    }
    let mut rows = vec![["IMAGE", "TAG", "IMAGE ID", "SIZE"].iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for i in list {
        let repo = repository(&i.name).to_string();
        let tag = i.name.strip_prefix(&repo).and_then(|t| t.strip_prefix(':')).unwrap_or("<none>").to_string();
        rows.push(vec![repo, tag, short(&i.id, f.no_trunc), human_size(i.size)]);
    }
    Outcome::ok(tabwriter(&rows))
}

/// The container an id prefix names (containerd's truncindex), or crictl's NotFound failure.
fn find<'a>(c: &'a Containerd, id: &str, now: SimTime, rpc: &str) -> Result<&'a Container, Outcome> {
    let found: Vec<&Container> =
        if id.is_empty() { Vec::new() } else { c.containers().filter(|x| x.id.starts_with(id)).collect() };
    match found.as_slice() {
        [one] => Ok(one),
        [] => {
            let err = format!(
                "rpc error: code = NotFound desc = an error occurred when try to find container {id:?}: not found"
            );
            let quoted = crate::node::journal::go_quote(&err);
            let line = klog_line(
                now,
                crictl_pid(now),
                'E',
                "log.go:32",
                &format!("\"{rpc} from runtime service failed\" err={quoted} containerID={id:?}"),
            );
            let mut o = fatal(&err);
            o.stderr = format!("{line}\n{}", o.stderr);
            Err(o)
        }
        _ => Err(fatal(&format!(
            "rpc error: code = Unknown desc = an error occurred when try to find container {id:?}: ambiguous ID {id:?}"
        ))),
    }
}

/// crictl's own process id in its klog lines.
fn crictl_pid(now: SimTime) -> u32 {
    40_000 + (now.ms() % 20_000) as u32
}

fn logs(c: &Containerd, f: &Flags, now: SimTime) -> Outcome {
    let Some(id) = f.positional.first() else { return fatal("ID cannot be empty") };
    let x = match find(c, id, now, "ContainerStatus") {
        Ok(x) => x,
        Err(o) => return o,
    };
    let x = if f.previous {
        if x.attempt == 0 {
            return fatal(&format!("previous terminated container {} not found", x.name));
        }
        match c.containers().find(|p| p.pod_uid == x.pod_uid && p.name == x.name && p.attempt + 1 == x.attempt) {
            Some(p) => p,
            None => return Outcome::ok(""),
        }
    } else {
        x
    };
    let mut lines: Vec<String> = x
        .logs(now)
        .iter()
        .map(|l| if f.timestamps { format!("{} {}\n", rfc3339_nano(l.at), l.text) } else { format!("{}\n", l.text) })
        .collect();
    if let Some(n) = f.tail {
        lines.drain(..lines.len().saturating_sub(n));
    }
    Outcome::ok(lines.concat())
}

fn inspect(c: &Containerd, f: &Flags, now: SimTime) -> Outcome {
    if f.positional.is_empty() {
        return fatal("ID cannot be empty");
    }
    let mut docs = Vec::new();
    for id in &f.positional {
        let x = match find(c, id, now, "ContainerStatus") {
            Ok(x) => x,
            Err(o) => return o,
        };
        docs.push(inspect_doc(c, x));
    }
    let value = if docs.len() == 1 { docs.remove(0) } else { Value::Array(docs) };
    Outcome::ok(format!("{}\n", serde_json::to_string_pretty(&value).unwrap_or_default()))
}

fn inspect_doc(c: &Containerd, x: &Container) -> Value {
    let sandbox = sandbox_of(c, x);
    let (pod, ns) = sandbox.map_or((String::new(), String::new()), |s| (s.name.clone(), s.namespace.clone()));
    let zero = "0001-01-01T00:00:00Z".to_string();
    let time = |t: Option<SimTime>| t.map(rfc3339_nano).unwrap_or_else(|| zero.clone());
    let state = match x.state {
        ContainerState::Created => "CONTAINER_CREATED",
        ContainerState::Running => "CONTAINER_RUNNING",
        ContainerState::Exited => "CONTAINER_EXITED",
    };
    let reason = match x.state {
        ContainerState::Exited if x.exit_code == 0 => "Completed",
        ContainerState::Exited => "Error",
        _ => "",
    };
    let labels: BTreeMap<&str, String> = BTreeMap::from([
        ("io.kubernetes.container.name", x.name.clone()),
        ("io.kubernetes.pod.name", pod.clone()),
        ("io.kubernetes.pod.namespace", ns.clone()),
        ("io.kubernetes.pod.uid", x.pod_uid.clone()),
    ]);
    let log_path = format!("/var/log/pods/{ns}_{pod}_{}/{}/{}.log", x.pod_uid, x.name, x.attempt);
    json!({
        "info": {
            "pid": if x.state == ContainerState::Running { x.pid() } else { 0 },
            "runtimeSpec": {"ociVersion": "1.2.1"},
            "sandboxID": x.sandbox_id,
        },
        "status": {
            "annotations": {"io.kubernetes.container.restartCount": x.attempt.to_string(),
                            "io.kubernetes.container.terminationMessagePath": "/dev/termination-log"},
            "createdAt": rfc3339_nano(x.created_at),
            "exitCode": x.exit_code,
            "finishedAt": time(x.finished_at),
            "id": x.id,
            "image": {"annotations": {}, "image": x.image, "runtimeHandler": "", "userSpecifiedImage": ""},
            "imageId": "",
            "imageRef": x.image_ref,
            "labels": labels,
            "logPath": log_path,
            "message": "",
            "metadata": {"attempt": x.attempt, "name": x.name},
            "mounts": [],
            "reason": reason,
            "resources": null,
            "startedAt": time(x.started_at),
            "state": state,
            "user": {"linux": {"gid": "0", "supplementalGroups": ["0"], "uid": "0"}},
        },
    })
}

/// go-units' `HumanDuration`.
pub fn human_duration(ms: u64) -> String {
    let seconds = ms / 1000;
    let minutes = seconds / 60;
    let hours = (ms as f64 / 3_600_000.0 + 0.5) as u64;
    if seconds < 1 {
        "Less than a second".into()
    } else if seconds == 1 {
        "1 second".into()
    } else if seconds < 60 {
        format!("{seconds} seconds")
    } else if minutes == 1 {
        "About a minute".into()
    } else if minutes < 60 {
        format!("{minutes} minutes")
    } else if hours == 1 {
        "About an hour".into()
    } else if hours < 48 {
        format!("{hours} hours")
    } else if hours < 24 * 7 * 2 {
        format!("{} days", hours / 24)
    } else if hours < 24 * 30 * 2 {
        format!("{} weeks", hours / 24 / 7)
    } else if hours < 24 * 365 * 2 {
        format!("{} months", hours / 24 / 30)
    } else {
        format!("{} years", ms / 3_600_000 / 24 / 365)
    }
}

/// go-units' `HumanSizeWithPrecision(size, 3)`: `72.2MB`, `320kB`, `5MB`.
pub fn human_size(size: u64) -> String {
    const UNITS: [&str; 9] = ["B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let mut v = size as f64;
    let mut i = 0;
    while v >= 1000.0 && i < UNITS.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    format!("{}{}", go_g3(v), UNITS[i])
}

/// Go's `%.3g` for a non-negative number below 1000.
fn go_g3(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    let rounded = {
        let scale = 10f64.powi(2 - exp);
        (v * scale).round() / scale
    };
    // Rounding can carry into the next decade (999.6 → 1e+03).
    let exp = if rounded > 0.0 { rounded.log10().floor() as i32 } else { exp };
    if exp >= 3 {
        let mantissa = rounded / 10f64.powi(exp);
        let m = format!("{mantissa:.2}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e+{exp:02}");
    }
    let decimals = (2 - exp).max(0) as usize;
    let s = format!("{rounded:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Go's text/tabwriter as crictl configures it: columns at least 20 wide, padded by 3 spaces; the last cell
/// of a row is not padded.
pub fn tabwriter(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
            widths[i] = widths[i].max(cell.chars().count() + 3).max(20);
        }
    }
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < row.len() {
                out.push_str(&" ".repeat(widths[i].saturating_sub(cell.chars().count())));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;
    use super::*;

    #[test]
    fn durations_and_sizes_print_like_go_units() {
        assert_eq!(human_duration(500), "Less than a second");
        assert_eq!(human_duration(1_000), "1 second");
        assert_eq!(human_duration(42_000), "42 seconds");
        assert_eq!(human_duration(61_000), "About a minute");
        assert_eq!(human_duration(600_000), "10 minutes");
        assert_eq!(human_duration(3_600_000), "About an hour");
        assert_eq!(human_duration(5 * 3_600_000), "5 hours");
        assert_eq!(human_duration(3 * 86_400_000), "3 days");
        assert_eq!(human_size(72_234_567), "72.2MB");
        assert_eq!(human_size(320_000), "320kB");
        assert_eq!(human_size(5_000_000), "5MB");
        assert_eq!(human_size(999), "999B");
        assert_eq!(human_size(999_600_000), "1e+03MB");
        assert_eq!(human_size(1_234_000_000), "1.23GB");
    }

    #[test]
    fn tables_pad_to_twenty_or_the_widest_cell_plus_three() {
        let rows = vec![
            vec!["CONTAINER".to_string(), "NAME".into(), "POD".into()],
            vec!["a1b2c3d4e5f60".to_string(), "kube-controller-manager".into(), "x".into()],
        ];
        assert_eq!(
            tabwriter(&rows),
            "CONTAINER           NAME                      POD\na1b2c3d4e5f60       kube-controller-manager   x\n"
        );
    }

    #[test]
    fn ps_lists_running_containers_newest_first_and_fails_without_containerd() {
        let mut node = FakeNode::with_pod("node01", "web", "nginx", "nginx:1.27");
        node.now = SimTime(90_000);
        let r = run_line(&mut node, "crictl ps");
        assert_eq!(r.exit, 0, "{}", r.stdout);
        let lines: Vec<&str> = r.stdout.lines().collect();
        // "About a minute ago" is 18 wide: its column grows to 21.
        assert_eq!(
            lines[0],
            "CONTAINER           IMAGE               CREATED              STATE               NAME                ATTEMPT             POD ID              POD                 NAMESPACE"
        );
        let cells: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(cells[0].len(), 13);
        assert_eq!(&cells[2..], &["About", "a", "minute", "ago", "Running", "nginx", "0", cells[9], "web", "default"]);
        assert_eq!(cells[9].len(), 13);
        let id = node.containerd.as_ref().and_then(|c| c.containers().next()).map(|c| c.id.clone()).unwrap_or_default();
        assert_eq!(run_line(&mut node, "crictl ps -q").stdout, format!("{id}\n"));
        assert_eq!(run_line(&mut node, "crictl ps --name nomatch").stdout.lines().count(), 1);
        let pods = run_line(&mut node, "crictl pods");
        assert!(
            pods.stdout
                .lines()
                .nth(1)
                .is_some_and(|l| l.contains(" Ready ") && l.contains("web") && l.ends_with("(default)")),
            "{}",
            pods.stdout
        );
        let inspect = run_line(&mut node, &format!("crictl inspect {}", &id[..6]));
        let v: Value = serde_json::from_str(&inspect.stdout).unwrap_or_default();
        assert_eq!(v["status"]["state"], "CONTAINER_RUNNING");
        assert_eq!(v["status"]["labels"]["io.kubernetes.pod.name"], "web");

        node.containerd_up = false;
        let r = run_line(&mut node, "crictl ps");
        assert_eq!(r.exit, 1);
        assert_eq!(
            r.stdout,
            "FATA[0000] validate service connection: validate CRI v1 runtime API for endpoint \"unix:///run/containerd/containerd.sock\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory\" \n"
        );
    }

    #[test]
    fn logs_of_an_unknown_id_fail_with_not_found() {
        let mut node = FakeNode::with_pod("node01", "web", "nginx", "nginx:1.27");
        let r = run_line(&mut node, "crictl logs deadbeef");
        assert_eq!(r.exit, 1);
        assert!(r.stdout.ends_with(
            "FATA[0000] rpc error: code = NotFound desc = an error occurred when try to find container \"deadbeef\": not found \n"
        ));
        assert!(r.stdout.starts_with("E0901 "), "{}", r.stdout);
        assert_eq!(run_line(&mut node, "crictl stats").stdout, "No help topic for 'stats'\n");
        let images = run_line(&mut node, "crictl images");
        assert!(
            images
                .stdout
                .starts_with("IMAGE                                TAG                 IMAGE ID            SIZE\n")
                || images.stdout.starts_with("IMAGE "),
            "{}",
            images.stdout
        );
        assert!(
            images.stdout.lines().any(|l| l.starts_with("docker.io/library/nginx ") && l.contains(" 1.27 ")),
            "{}",
            images.stdout
        );
    }
}
