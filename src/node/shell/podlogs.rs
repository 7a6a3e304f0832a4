//! `/var/log/pods` and `/var/log/containers` as the kubelet and containerd lay them out, read from
//! containerd's containers (they live on disk, so they are there whether containerd runs or not):
//! `/var/log/pods/<namespace>_<pod>_<uid>/<container>/<attempt>.log` in the CRI log format
//! (`<RFC 3339 nano> stdout F <line>`), and `/var/log/containers/<pod>_<namespace>_<container>-<id>.log`,
//! symbolic links to them.

use std::collections::BTreeSet;

use crate::cluster::node_files::{CONTAINER_LOGS_DIR, POD_LOGS_DIR};
use crate::cluster::nodefs::Kind;
use crate::node::journal::rfc3339_nano;
use crate::node::runtime::{Container, Containerd, Sandbox};
use crate::sim::SimTime;

/// What a path under the log directories is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A directory and its entries (name, kind, link target for symbolic links).
    Dir { entries: Vec<(String, Kind, Option<String>)>, modified: SimTime },
    /// A log file (or a link to one: `target`).
    File { text: String, modified: SimTime, target: Option<String> },
}

/// Whether `path` lies under the log directories this module answers for.
pub fn owns(path: &str) -> bool {
    [POD_LOGS_DIR, CONTAINER_LOGS_DIR].iter().any(|d| path == *d || path.starts_with(&format!("{d}/")))
}

fn pod_dir(s: &Sandbox) -> String {
    format!("{}_{}_{}", s.namespace, s.name, s.uid)
}

fn link_name(s: &Sandbox, c: &Container) -> String {
    format!("{}_{}_{}-{}.log", s.name, s.namespace, c.name, c.id)
}

fn log_path(s: &Sandbox, c: &Container) -> String {
    format!("{POD_LOGS_DIR}/{}/{}/{}.log", pod_dir(s), c.name, c.attempt)
}

fn log_text(c: &Container, now: SimTime) -> String {
    c.logs(now).iter().map(|l| format!("{} {} F {}\n", rfc3339_nano(l.at), l.stream.as_str(), l.text)).collect()
}

fn changed(c: &Container) -> SimTime {
    c.finished_at.or(c.started_at).unwrap_or(c.created_at)
}

/// Looks `path` up as of `now`; None when it does not exist.
pub fn lookup(containerd: Option<&Containerd>, path: &str, now: SimTime) -> Option<Entry> {
    let c = containerd?;
    let pairs = || c.containers().filter_map(move |x| c.sandboxes().find(|s| s.id == x.sandbox_id).map(|s| (s, x)));
    if path == CONTAINER_LOGS_DIR {
        let mut entries: Vec<(String, Kind, Option<String>)> =
            pairs().map(|(s, x)| (link_name(s, x), Kind::File, Some(log_path(s, x)))).collect();
        entries.sort();
        let modified = pairs().map(|(_, x)| x.created_at).max().unwrap_or(SimTime::ZERO);
        return Some(Entry::Dir { entries, modified });
    }
    if let Some(name) = path.strip_prefix(&format!("{CONTAINER_LOGS_DIR}/")) {
        let (s, x) = pairs().find(|(s, x)| link_name(s, x) == name)?;
        return Some(Entry::File { text: log_text(x, now), modified: changed(x), target: Some(log_path(s, x)) });
    }
    let rest = path.strip_prefix(POD_LOGS_DIR)?;
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [] => {
            let mut entries: Vec<(String, Kind, Option<String>)> =
                c.sandboxes().map(|s| (pod_dir(s), Kind::Dir, None)).collect();
            entries.sort();
            let modified = c.sandboxes().map(|s| s.created_at).max().unwrap_or(SimTime::ZERO);
            Some(Entry::Dir { entries, modified })
        }
        [dir] => {
            let s = c.sandboxes().find(|s| pod_dir(s) == *dir)?;
            let names: BTreeSet<String> =
                c.containers().filter(|x| x.sandbox_id == s.id).map(|x| x.name.clone()).collect();
            Some(Entry::Dir {
                entries: names.into_iter().map(|n| (n, Kind::Dir, None)).collect(),
                modified: s.created_at,
            })
        }
        [dir, name] => {
            let s = c.sandboxes().find(|s| pod_dir(s) == *dir)?;
            let mut runs: Vec<&Container> =
                c.containers().filter(|x| x.sandbox_id == s.id && x.name == *name).collect();
            if runs.is_empty() {
                return None;
            }
            runs.sort_by_key(|x| x.attempt);
            let modified = runs.iter().map(|x| x.created_at).max().unwrap_or(s.created_at);
            let entries = runs.iter().map(|x| (format!("{}.log", x.attempt), Kind::File, None)).collect();
            Some(Entry::Dir { entries, modified })
        }
        [dir, name, file] => {
            let s = c.sandboxes().find(|s| pod_dir(s) == *dir)?;
            let x = c
                .containers()
                .find(|x| x.sandbox_id == s.id && x.name == *name && format!("{}.log", x.attempt) == *file)?;
            Some(Entry::File { text: log_text(x, now), modified: changed(x), target: None })
        }
        _ => None,
    }
}
