//! The node's files as the shell sees them (the node filesystem, with `/var/log/pods` and
//! `/var/log/containers` read from containerd), and the programs that change them: `mv`, `cp`, `rm`, with
//! GNU coreutils' messages. Moving a static pod manifest out of `/etc/kubernetes/manifests` is how one stops
//! a control-plane component: the kubelet notices the change (its watch on the directory) and stops the pod.

use super::podlogs::{self, Entry};
use super::{Node, Outcome};
use crate::cluster::nodefs::{FsError, Kind, NodeFile, NodeFs};
use crate::sim::SimTime;

/// What `ls -l` needs to know about a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub size: u64,
    pub modified: SimTime,
    /// A symbolic link's target.
    pub target: Option<String>,
    pub mode: &'static str,
}

fn mode(path: &str, kind: Kind, link: bool) -> &'static str {
    if link {
        return "lrwxrwxrwx";
    }
    if kind == Kind::Dir {
        return if path == "/var/lib/etcd" || path.starts_with("/var/lib/etcd/") { "drwx------" } else { "drwxr-xr-x" };
    }
    let private = path.starts_with("/etc/kubernetes/manifests/")
        || path.starts_with("/var/lib/etcd/")
        || path.ends_with(".key")
        || path.ends_with(".conf")
        || path.ends_with(".pem");
    if private {
        "-rw-------"
    } else {
        "-rw-r--r--"
    }
}

/// The metadata of `path` (absolute), or None when it does not exist.
pub fn stat(node: &dyn Node, path: &str) -> Option<Meta> {
    if podlogs::owns(path) {
        if let Some(e) = podlogs::lookup(node.containerd(), path, node.now()) {
            return Some(match e {
                Entry::Dir { modified, .. } => {
                    Meta { kind: Kind::Dir, size: 4096, modified, target: None, mode: mode(path, Kind::Dir, false) }
                }
                Entry::File { text, modified, target } => Meta {
                    kind: Kind::File,
                    size: target.as_ref().map_or(text.len(), String::len) as u64,
                    modified,
                    mode: mode(path, Kind::File, target.is_some()),
                    target,
                },
            });
        }
    }
    let fs = node.fs();
    let fs = fs.borrow();
    let kind = fs.kind(path)?;
    let size = match kind {
        Kind::Dir => 4096,
        Kind::File => fs.get(path).map_or(0, NodeFile::size),
    };
    Some(Meta {
        kind,
        size,
        modified: fs.modified(path).unwrap_or(SimTime::ZERO),
        target: None,
        mode: mode(path, kind, false),
    })
}

/// The entries of directory `path` (absolute) with their metadata, sorted by name.
pub fn list(node: &dyn Node, path: &str) -> Result<Vec<(String, Meta)>, FsError> {
    if podlogs::owns(path) {
        if let Some(Entry::Dir { entries, .. }) = podlogs::lookup(node.containerd(), path, node.now()) {
            return Ok(entries
                .into_iter()
                .filter_map(|(name, _, _)| {
                    let full = format!("{path}/{name}");
                    stat(node, &full).map(|m| (name, m))
                })
                .collect());
        }
    }
    let names = node.fs().borrow().list(path)?;
    Ok(names
        .into_iter()
        .filter_map(|(name, _)| {
            let full = if path == "/" { format!("/{name}") } else { format!("{path}/{name}") };
            stat(node, &full).map(|m| (name, m))
        })
        .collect())
}

/// The contents of file `path` (absolute).
pub fn read(node: &dyn Node, path: &str) -> Result<String, FsError> {
    if podlogs::owns(path) {
        match podlogs::lookup(node.containerd(), path, node.now()) {
            Some(Entry::File { text, .. }) => return Ok(text),
            Some(Entry::Dir { .. }) => return Err(FsError::IsDir),
            None => {}
        }
    }
    let fs = node.fs();
    let fs = fs.borrow();
    match fs.kind(path) {
        None => Err(FsError::NotFound),
        Some(Kind::Dir) => Err(FsError::IsDir),
        Some(Kind::File) => Ok(match fs.get(path) {
            Some(NodeFile::Text(t)) => t.to_string(),
            // Binary data (etcd's database, snapshots) is not shown.
            _ => String::new(),
        }),
    }
}

/// Splits `-rfv`-style options from operands; unknown options are coreutils' error.
fn options(program: &str, args: &[String], known: &str) -> Result<(String, Vec<String>), Outcome> {
    let mut flags = String::new();
    let mut operands = Vec::new();
    let mut only_operands = false;
    for a in args {
        if only_operands || !a.starts_with('-') || a == "-" {
            operands.push(a.clone());
        } else if a == "--" {
            only_operands = true;
        } else if let Some(long) = a.strip_prefix("--") {
            let short = match long {
                "recursive" => 'r',
                "force" => 'f',
                "verbose" => 'v',
                _ => {
                    return Err(Outcome::fail(
                        format!("{program}: unrecognized option '{a}'\nTry '{program} --help' for more information.\n"),
                        1,
                    ))
                }
            };
            flags.push(short);
        } else {
            for c in a[1..].chars() {
                if !known.contains(c) {
                    return Err(Outcome::fail(
                        format!("{program}: invalid option -- '{c}'\nTry '{program} --help' for more information.\n"),
                        1,
                    ));
                }
                flags.push(if c == 'R' { 'r' } else { c });
            }
        }
    }
    Ok((flags, operands))
}

fn missing(program: &str, operands: &[String]) -> Option<Outcome> {
    let msg = match operands {
        [] => format!("{program}: missing file operand\n"),
        [one] => format!("{program}: missing destination file operand after '{one}'\n"),
        _ => return None,
    };
    Some(Outcome::fail(format!("{msg}Try '{program} --help' for more information.\n"), 1))
}

/// `mv [-fv] SOURCE… DEST`.
pub fn mv(node: &mut dyn Node, args: &[String]) -> Outcome {
    let (flags, operands) = match options("mv", args, "fivnu") {
        Ok(x) => x,
        Err(o) => return o,
    };
    if let Some(o) = missing("mv", &operands) {
        return o;
    }
    let (sources, dest) = operands.split_at(operands.len() - 1);
    let dest = &dest[0];
    let now = node.now();
    let mut out = Outcome::default();
    if sources.len() > 1 && stat(node, &NodeFs::absolute(dest)).is_none_or(|m| m.kind != Kind::Dir) {
        return Outcome::fail(format!("mv: target '{dest}' is not a directory\n"), 1);
    }
    for src in sources {
        let abs = NodeFs::absolute(src);
        if podlogs::owns(&abs) || podlogs::owns(&NodeFs::absolute(dest)) {
            out.stderr.push_str(&format!("mv: cannot move '{src}' to '{dest}': Operation not permitted\n"));
            out.exit = 1;
            continue;
        }
        let result = node.fs().borrow_mut().rename(src, dest, now);
        match result {
            Ok(to) => {
                if flags.contains('v') {
                    out.stdout.push_str(&format!("renamed '{src}' -> '{}'\n", shown(dest, &to)));
                }
            }
            Err(FsError::NotFound) if stat(node, &abs).is_none() => {
                out.stderr.push_str(&format!("mv: cannot stat '{src}': No such file or directory\n"));
                out.exit = 1;
            }
            Err(FsError::IntoItself) => {
                out.stderr.push_str(&format!("mv: cannot move '{src}' to a subdirectory of itself, '{dest}'\n"));
                out.exit = 1;
            }
            Err(e) => {
                out.stderr.push_str(&format!("mv: cannot move '{src}' to '{dest}': {}\n", e.text()));
                out.exit = 1;
            }
        }
    }
    out
}

/// How coreutils names a destination in `-v` output: as the user wrote it, inside it when a directory.
fn shown(dest: &str, full: &str) -> String {
    if NodeFs::absolute(dest) == full {
        dest.to_string()
    } else {
        format!("{}/{}", dest.trim_end_matches('/'), NodeFs::base_name(full))
    }
}

/// `cp [-rfv] SOURCE… DEST`.
pub fn cp(node: &mut dyn Node, args: &[String]) -> Outcome {
    let (flags, operands) = match options("cp", args, "rRfvpai") {
        Ok(x) => x,
        Err(o) => return o,
    };
    if let Some(o) = missing("cp", &operands) {
        return o;
    }
    let (sources, dest) = operands.split_at(operands.len() - 1);
    let dest = &dest[0];
    let now = node.now();
    let recursive = flags.contains('r') || flags.contains('a');
    let dest_abs = NodeFs::absolute(dest);
    let dest_is_dir = stat(node, &dest_abs).is_some_and(|m| m.kind == Kind::Dir);
    if sources.len() > 1 && !dest_is_dir {
        return Outcome::fail(format!("cp: target '{dest}' is not a directory\n"), 1);
    }
    let mut out = Outcome::default();
    for src in sources {
        let abs = NodeFs::absolute(src);
        let Some(meta) = stat(node, &abs) else {
            out.stderr.push_str(&format!("cp: cannot stat '{src}': No such file or directory\n"));
            out.exit = 1;
            continue;
        };
        if podlogs::owns(&dest_abs) {
            out.stderr.push_str(&format!("cp: cannot create regular file '{dest}': Operation not permitted\n"));
            out.exit = 1;
            continue;
        }
        let target = if dest_is_dir { format!("{dest_abs}/{}", NodeFs::base_name(&abs)) } else { dest_abs.clone() };
        if meta.kind == Kind::Dir {
            if !recursive {
                out.stderr.push_str(&format!("cp: -r not specified; omitting directory '{src}'\n"));
                out.exit = 1;
                continue;
            }
            if target == abs || target.starts_with(&format!("{abs}/")) {
                out.stderr.push_str(&format!("cp: cannot copy a directory, '{src}', into itself, '{dest}'\n"));
                out.exit = 1;
                continue;
            }
            let result = node.fs().borrow_mut().copy_tree(&abs, &target, now);
            if let Err(e) = result {
                out.stderr.push_str(&format!("cp: cannot copy '{src}': {}\n", e.text()));
                out.exit = 1;
            }
            continue;
        }
        let copied = if podlogs::owns(&abs) {
            read(node, &abs).map(|text| node.fs().borrow_mut().write_at(&target, NodeFile::Text(text.into()), now))
        } else {
            let r = node.fs().borrow_mut().copy(&abs, &target, now);
            r.map(|_| ())
        };
        match copied {
            Ok(()) => {
                if flags.contains('v') {
                    out.stdout.push_str(&format!("'{src}' -> '{}'\n", shown(dest, &target)));
                }
            }
            Err(e) => {
                out.stderr.push_str(&format!("cp: cannot create regular file '{dest}': {}\n", e.text()));
                out.exit = 1;
            }
        }
    }
    out
}

/// `rm [-rfv] FILE…`.
pub fn rm(node: &mut dyn Node, args: &[String]) -> Outcome {
    let (flags, operands) = match options("rm", args, "rRfvdi") {
        Ok(x) => x,
        Err(o) => return o,
    };
    let force = flags.contains('f');
    if operands.is_empty() {
        if force {
            return Outcome::default();
        }
        return Outcome::fail("rm: missing operand\nTry 'rm --help' for more information.\n", 1);
    }
    let now = node.now();
    let mut out = Outcome::default();
    for f in &operands {
        let abs = NodeFs::absolute(f);
        if podlogs::owns(&abs)
            && stat(node, &abs).is_some()
            && !matches!(abs.as_str(), "/var/log/pods" | "/var/log/containers")
        {
            out.stderr.push_str(&format!("rm: cannot remove '{f}': Operation not permitted\n"));
            out.exit = 1;
            continue;
        }
        let result = if flags.contains('r') {
            node.fs().borrow_mut().remove_tree(&abs, now)
        } else {
            node.fs().borrow_mut().remove(&abs, now)
        };
        match result {
            Ok(()) => {
                if flags.contains('v') {
                    out.stdout.push_str(&format!("removed '{f}'\n"));
                }
            }
            Err(FsError::NotFound) if force => {}
            Err(e) => {
                out.stderr.push_str(&format!("rm: cannot remove '{f}': {}\n", e.text()));
                out.exit = 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;

    #[test]
    fn mv_moves_files_and_reports_like_coreutils() {
        let mut node = FakeNode::new("controlplane");
        node.write("/etc/kubernetes/manifests/kube-scheduler.yaml", "kind: Pod\n");
        let r = run_line(&mut node, "mv -v /etc/kubernetes/manifests/kube-scheduler.yaml /tmp/");
        assert_eq!(
            (r.stdout.as_str(), r.exit),
            ("renamed '/etc/kubernetes/manifests/kube-scheduler.yaml' -> '/tmp/kube-scheduler.yaml'\n", 0)
        );
        assert_eq!(run_line(&mut node, "cat /tmp/kube-scheduler.yaml").stdout, "kind: Pod\n");
        let r = run_line(&mut node, "mv /nope /tmp");
        assert_eq!((r.stdout.as_str(), r.exit), ("mv: cannot stat '/nope': No such file or directory\n", 1));
        assert_eq!(
            run_line(&mut node, "mv /tmp").stdout,
            "mv: missing destination file operand after '/tmp'\nTry 'mv --help' for more information.\n"
        );
        assert_eq!(
            run_line(&mut node, "mv -z a b").stdout,
            "mv: invalid option -- 'z'\nTry 'mv --help' for more information.\n"
        );
        assert_eq!(
            run_line(&mut node, "mv /tmp/kube-scheduler.yaml /missing/x.yaml").stdout,
            "mv: cannot move '/tmp/kube-scheduler.yaml' to '/missing/x.yaml': No such file or directory\n"
        );
    }

    #[test]
    fn cp_and_rm_follow_coreutils() {
        let mut node = FakeNode::new("n");
        node.write("/etc/kubernetes/admin.conf", "conf\n");
        assert_eq!(run_line(&mut node, "cp /etc/kubernetes/admin.conf backup.conf").exit, 0);
        assert_eq!(run_line(&mut node, "cat /root/backup.conf").stdout, "conf\n");
        assert_eq!(
            run_line(&mut node, "cp /etc/kubernetes /tmp").stdout,
            "cp: -r not specified; omitting directory '/etc/kubernetes'\n"
        );
        assert_eq!(run_line(&mut node, "cp -r /etc/kubernetes /tmp").exit, 0);
        assert_eq!(run_line(&mut node, "cat /tmp/kubernetes/admin.conf").stdout, "conf\n");
        assert_eq!(
            run_line(&mut node, "rm /tmp/kubernetes").stdout,
            "rm: cannot remove '/tmp/kubernetes': Is a directory\n"
        );
        assert_eq!(run_line(&mut node, "rm -rf /tmp/kubernetes /nope").exit, 0);
        assert_eq!(run_line(&mut node, "rm /nope").stdout, "rm: cannot remove '/nope': No such file or directory\n");
        assert_eq!(
            run_line(&mut node, "cat /tmp/kubernetes/admin.conf").stdout,
            "cat: /tmp/kubernetes/admin.conf: No such file or directory\n"
        );
    }
}
