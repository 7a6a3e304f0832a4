//! A node's filesystem, as far as the simulation needs one: files and directories by absolute path, each
//! with the time it last changed. Every node gets one at install time with what kubeadm and the packages
//! leave on disk ([`super::node_files`]); the node shell reads and changes it (`ls`, `cat`, `mv`, `cp`, `rm`),
//! etcdctl writes snapshots into it and etcdutl restores data directories. etcd's live data directory is
//! `/var/lib/etcd` (kubeadm's `--data-dir`); a restore into it while etcd is stopped is picked up by the
//! members when they start.
//!
//! Processes can watch a directory (inotify): a change under it records the watcher's wake-up, which the
//! cluster delivers as a timer to that process once the command that made the change returns.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::etcd::store::{Snapshot, Store};
use crate::sim::{ComponentId, SimTime};

/// etcd's data directory on a kubeadm control-plane node.
pub const ETCD_DATA_DIR: &str = "/var/lib/etcd";
/// The shell's working directory: relative paths resolve under it.
pub const HOME: &str = "/root";

/// What a path holds.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeFile {
    /// A text file (manifests, kubeconfigs, certificates, configuration).
    Text(Rc<str>),
    /// Bytes the simulation does not model (etcd's database and WAL segments): only their size.
    Binary(u64),
    /// An etcd backend snapshot (`snapshot save`).
    EtcdSnapshot(Box<Snapshot>),
    /// An etcd data directory restored from a snapshot (listed as a directory holding `member`).
    EtcdDataDir(Box<Snapshot>),
}

impl NodeFile {
    /// The size `ls -l` shows.
    pub fn size(&self) -> u64 {
        match self {
            NodeFile::Text(t) => t.len() as u64,
            NodeFile::Binary(n) => *n,
            NodeFile::EtcdSnapshot(s) => 20_480 + 1_024 * s.keys.len() as u64,
            NodeFile::EtcdDataDir(_) => 4_096,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Stored {
    file: NodeFile,
    modified: SimTime,
}

/// What a path is, for listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    File,
    Dir,
}

/// One node's files.
#[derive(Debug, Default)]
pub struct NodeFs {
    files: BTreeMap<String, Stored>,
    /// Every directory (with all its ancestors) and when it last changed.
    dirs: BTreeMap<String, SimTime>,
    /// Watched directory → (process, timer token) to wake on a change under it.
    watches: BTreeMap<String, BTreeSet<(ComponentId, u64)>>,
    /// Wake-ups recorded since the cluster last delivered them.
    fired: BTreeSet<(ComponentId, u64)>,
    /// Whether an etcd member runs from [`ETCD_DATA_DIR`] (kept current by the cluster).
    pub etcd_running: bool,
    /// A restore into [`ETCD_DATA_DIR`] the members have not started from yet.
    restored_etcd: Option<Store>,
    /// How often the machine was booted again (powered off and on) since it was made.
    pub reboots: u32,
}

/// Why a filesystem operation failed, in the words of coreutils' `strerror`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsError {
    NotFound,
    IsDir,
    NotDir,
    /// A directory cannot be moved into itself.
    IntoItself,
}

impl FsError {
    pub fn text(self) -> &'static str {
        match self {
            FsError::NotFound => "No such file or directory",
            FsError::IsDir => "Is a directory",
            FsError::NotDir => "Not a directory",
            FsError::IntoItself => "Invalid argument",
        }
    }
}

impl NodeFs {
    /// An empty filesystem with `/` (and etcd not running from it).
    pub fn new() -> NodeFs {
        let mut fs = NodeFs::default();
        fs.dirs.insert("/".into(), SimTime::ZERO);
        fs
    }

    /// The control-plane node's filesystem before its seed files: etcd runs from its data directory.
    pub fn with_etcd_running() -> NodeFs {
        NodeFs { etcd_running: true, ..NodeFs::new() }
    }

    /// `path` made absolute (relative to [`HOME`]), without `.` segments, `..` resolved, no trailing slash.
    pub fn absolute(path: &str) -> String {
        let full = if path.starts_with('/') { path.to_string() } else { format!("{HOME}/{path}") };
        let mut parts: Vec<&str> = Vec::new();
        for p in full.split('/') {
            match p {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        format!("/{}", parts.join("/"))
    }

    /// The directory holding `path` (`/` for top-level entries).
    pub fn parent(path: &str) -> String {
        let p = NodeFs::absolute(path);
        match p.rfind('/') {
            Some(0) | None => "/".into(),
            Some(i) => p[..i].to_string(),
        }
    }

    /// The last segment of `path`.
    pub fn base_name(path: &str) -> String {
        let p = NodeFs::absolute(path);
        p.rsplit('/').next().unwrap_or("").to_string()
    }

    pub fn get(&self, path: &str) -> Option<&NodeFile> {
        self.files.get(&NodeFs::absolute(path)).map(|s| &s.file)
    }

    /// The text of a text file.
    pub fn text(&self, path: &str) -> Option<Rc<str>> {
        match self.get(path) {
            Some(NodeFile::Text(t)) => Some(Rc::clone(t)),
            _ => None,
        }
    }

    /// When `path` last changed.
    pub fn modified(&self, path: &str) -> Option<SimTime> {
        let p = NodeFs::absolute(path);
        self.files.get(&p).map(|s| s.modified).or_else(|| self.dirs.get(&p).copied())
    }

    pub fn exists(&self, path: &str) -> bool {
        self.kind(path).is_some()
    }

    /// Whether `path` is a file or a directory (a restored etcd data directory counts as one).
    pub fn kind(&self, path: &str) -> Option<Kind> {
        let p = NodeFs::absolute(path);
        if self.dirs.contains_key(&p) {
            return Some(Kind::Dir);
        }
        match self.files.get(&p).map(|s| &s.file) {
            Some(NodeFile::EtcdDataDir(_)) => Some(Kind::Dir),
            Some(_) => Some(Kind::File),
            None => self.data_dir_child(&p).map(|(_, k)| k),
        }
    }

    /// A path inside a restored etcd data directory: `member`, `member/snap`, `member/snap/db`, `member/wal`.
    fn data_dir_child(&self, path: &str) -> Option<(Vec<(String, Kind)>, Kind)> {
        let rest = self.files.iter().find_map(|(p, s)| {
            let rest = path.strip_prefix(p.as_str())?.strip_prefix('/')?;
            matches!(s.file, NodeFile::EtcdDataDir(_)).then_some(rest)
        })?;
        let dir = |names: &[(&str, Kind)]| names.iter().map(|(n, k)| (n.to_string(), *k)).collect::<Vec<_>>();
        match rest {
            "member" => Some((dir(&[("snap", Kind::Dir), ("wal", Kind::Dir)]), Kind::Dir)),
            "member/snap" => Some((dir(&[("db", Kind::File)]), Kind::Dir)),
            "member/wal" => Some((dir(&[("0000000000000000-0000000000000000.wal", Kind::File)]), Kind::Dir)),
            "member/snap/db" | "member/wal/0000000000000000-0000000000000000.wal" => Some((Vec::new(), Kind::File)),
            _ => None,
        }
    }

    /// The entries of directory `path` (name and kind), sorted by name; an error when it is not one.
    pub fn list(&self, path: &str) -> Result<Vec<(String, Kind)>, FsError> {
        let p = NodeFs::absolute(path);
        match self.kind(&p) {
            None => return Err(FsError::NotFound),
            Some(Kind::File) => return Err(FsError::NotDir),
            Some(Kind::Dir) => {}
        }
        if let Some(NodeFile::EtcdDataDir(_)) = self.files.get(&p).map(|s| &s.file) {
            return Ok(vec![("member".into(), Kind::Dir)]);
        }
        if let Some((entries, _)) = self.data_dir_child(&p) {
            return Ok(entries);
        }
        let prefix = if p == "/" { "/".to_string() } else { format!("{p}/") };
        fn child<'a>(full: &'a str, prefix: &str) -> Option<&'a str> {
            full.strip_prefix(prefix).filter(|r| !r.is_empty() && !r.contains('/'))
        }
        let mut out: Vec<(String, Kind)> = Vec::new();
        for (full, _) in self.dirs.range(prefix.clone()..) {
            if !full.starts_with(&prefix) {
                break;
            }
            if let Some(name) = child(full, &prefix) {
                out.push((name.to_string(), Kind::Dir));
            }
        }
        for (full, s) in self.files.range(prefix.clone()..) {
            if !full.starts_with(&prefix) {
                break;
            }
            if let Some(name) = child(full, &prefix) {
                let kind = if matches!(s.file, NodeFile::EtcdDataDir(_)) { Kind::Dir } else { Kind::File };
                out.push((name.to_string(), kind));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Creates directory `path` and its ancestors.
    pub fn mkdir(&mut self, path: &str, now: SimTime) {
        let p = NodeFs::absolute(path);
        let mut cur = String::new();
        for part in p.split('/').filter(|s| !s.is_empty()) {
            cur.push('/');
            cur.push_str(part);
            self.dirs.entry(cur.clone()).or_insert(now);
        }
        self.dirs.entry("/".into()).or_insert(now);
    }

    /// Writes (or replaces) a file, creating its directories.
    pub fn write_at(&mut self, path: &str, file: NodeFile, now: SimTime) {
        let p = NodeFs::absolute(path);
        self.mkdir(&NodeFs::parent(&p), now);
        self.files.insert(p.clone(), Stored { file, modified: now });
        self.touched(&p, now);
    }

    /// Writes a file at time zero (the install's files, etcdctl's snapshots when no clock is at hand).
    pub fn write(&mut self, path: &str, file: NodeFile) {
        self.write_at(path, file, SimTime::ZERO);
    }

    /// Removes a file (not a directory).
    pub fn remove(&mut self, path: &str, now: SimTime) -> Result<(), FsError> {
        let p = NodeFs::absolute(path);
        match self.kind(&p) {
            None => Err(FsError::NotFound),
            Some(Kind::Dir) => Err(FsError::IsDir),
            Some(Kind::File) => {
                if self.files.remove(&p).is_none() {
                    return Err(FsError::NotFound);
                }
                self.touched(&p, now);
                Ok(())
            }
        }
    }

    /// Removes a directory and everything under it (`rm -r`).
    pub fn remove_tree(&mut self, path: &str, now: SimTime) -> Result<(), FsError> {
        let p = NodeFs::absolute(path);
        if self.kind(&p).is_none() {
            return Err(FsError::NotFound);
        }
        if p == "/" {
            return Err(FsError::IntoItself);
        }
        let prefix = format!("{p}/");
        self.files.retain(|k, _| *k != p && !k.starts_with(&prefix));
        self.dirs.retain(|k, _| *k != p && !k.starts_with(&prefix));
        self.touched(&p, now);
        Ok(())
    }

    /// `mv FROM TO`: into `TO` when it is a directory, else renamed to `TO` (replacing a file there).
    /// Returns the destination path.
    pub fn rename(&mut self, from: &str, to: &str, now: SimTime) -> Result<String, FsError> {
        let src = NodeFs::absolute(from);
        let Some(kind) = self.kind(&src) else { return Err(FsError::NotFound) };
        let dest = self.destination(&src, to)?;
        if dest == src {
            return Ok(dest);
        }
        if kind == Kind::Dir && (dest.starts_with(&format!("{src}/")) || src == "/") {
            return Err(FsError::IntoItself);
        }
        if self.kind(&dest) == Some(Kind::Dir) && kind == Kind::File {
            return Err(FsError::IsDir);
        }
        self.mkdir(&NodeFs::parent(&dest), now);
        let prefix = format!("{src}/");
        let moved = |k: &str| {
            if k == src {
                Some(dest.clone())
            } else {
                k.strip_prefix(&prefix).map(|r| format!("{dest}/{r}"))
            }
        };
        let files: Vec<String> = self.files.keys().filter(|k| moved(k).is_some()).cloned().collect();
        for k in files {
            if let (Some(s), Some(n)) = (self.files.remove(&k), moved(&k)) {
                self.files.insert(n, s);
            }
        }
        let dirs: Vec<String> = self.dirs.keys().filter(|k| moved(k).is_some()).cloned().collect();
        for k in dirs {
            if let (Some(t), Some(n)) = (self.dirs.remove(&k), moved(&k)) {
                self.dirs.insert(n, t);
            }
        }
        self.touched(&src, now);
        self.touched(&dest, now);
        Ok(dest)
    }

    /// `cp FROM TO` for a file (directories need `-r`, which the caller checks).
    pub fn copy(&mut self, from: &str, to: &str, now: SimTime) -> Result<String, FsError> {
        let src = NodeFs::absolute(from);
        let file = match self.files.get(&src) {
            Some(s) => s.file.clone(),
            None if self.kind(&src) == Some(Kind::Dir) => return Err(FsError::IsDir),
            None => return Err(FsError::NotFound),
        };
        let dest = self.destination(&src, to)?;
        if self.kind(&dest) == Some(Kind::Dir) {
            return Err(FsError::IsDir);
        }
        self.write_at(&dest, file, now);
        Ok(dest)
    }

    /// `cp -r FROM TO` where `TO` is the new directory's full path.
    pub fn copy_tree(&mut self, from: &str, to: &str, now: SimTime) -> Result<(), FsError> {
        let (src, dest) = (NodeFs::absolute(from), NodeFs::absolute(to));
        if self.kind(&src) != Some(Kind::Dir) {
            return Err(FsError::NotDir);
        }
        if self.kind(&NodeFs::parent(&dest)) != Some(Kind::Dir) {
            return Err(FsError::NotFound);
        }
        let prefix = format!("{src}/");
        let under = |k: &str| k.strip_prefix(&prefix).map(|r| format!("{dest}/{r}"));
        let files: Vec<(String, NodeFile)> =
            self.files.iter().filter_map(|(k, s)| under(k).map(|n| (n, s.file.clone()))).collect();
        let dirs: Vec<String> = self.dirs.keys().filter_map(|k| under(k)).collect();
        self.mkdir(&dest, now);
        for d in dirs {
            self.mkdir(&d, now);
        }
        for (path, file) in files {
            self.write_at(&path, file, now);
        }
        self.touched(&dest, now);
        Ok(())
    }

    /// Where `mv`/`cp` put `src` given `to`: inside `to` when it is a directory; its parent must exist.
    fn destination(&self, src: &str, to: &str) -> Result<String, FsError> {
        let to_abs = NodeFs::absolute(to);
        if self.kind(&to_abs) == Some(Kind::Dir) {
            let name = NodeFs::base_name(src);
            return Ok(if to_abs == "/" { format!("/{name}") } else { format!("{to_abs}/{name}") });
        }
        if to.ends_with('/') {
            return Err(if self.exists(&to_abs) { FsError::NotDir } else { FsError::NotFound });
        }
        match self.kind(&NodeFs::parent(&to_abs)) {
            Some(Kind::Dir) => Ok(to_abs),
            Some(Kind::File) => Err(FsError::NotDir),
            None => Err(FsError::NotFound),
        }
    }

    /// Every file path, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The regular text files directly in `dir` whose names do not start with a dot, in name order: what
    /// the kubelet's file source reads from its static pod path.
    pub fn text_files_in(&self, dir: &str) -> Vec<(String, Rc<str>)> {
        let d = NodeFs::absolute(dir);
        let prefix = format!("{d}/");
        self.files
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, s)| {
                let name = &k[prefix.len()..];
                if name.contains('/') || name.starts_with('.') {
                    return None;
                }
                match &s.file {
                    NodeFile::Text(t) => Some((k.clone(), Rc::clone(t))),
                    _ => None,
                }
            })
            .collect()
    }

    /// Asks for a wake-up of `who` with `token` whenever something under `dir` changes.
    pub fn watch(&mut self, dir: &str, who: ComponentId, token: u64) {
        self.watches.entry(NodeFs::absolute(dir)).or_default().insert((who, token));
    }

    /// The wake-ups recorded since the last call.
    pub fn take_fired(&mut self) -> Vec<(ComponentId, u64)> {
        std::mem::take(&mut self.fired).into_iter().collect()
    }

    fn touched(&mut self, path: &str, now: SimTime) {
        let parent = NodeFs::parent(path);
        if let Some(t) = self.dirs.get_mut(&parent) {
            *t = now;
        }
        for (dir, who) in &self.watches {
            if path == dir || path.starts_with(&format!("{dir}/")) || *dir == parent {
                self.fired.extend(who.iter().copied());
            }
        }
    }

    /// Replaces etcd's data directory (etcd must be stopped); the members load it when they start.
    pub fn replace_etcd_data(&mut self, store: Store) {
        self.restored_etcd = Some(store);
    }

    /// The restored data directory the members start from, once.
    pub fn take_restored_etcd(&mut self) -> Option<Store> {
        self.restored_etcd.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> NodeFile {
        NodeFile::Text(Rc::from(s))
    }

    #[test]
    fn relative_paths_resolve_under_the_home_directory() {
        assert_eq!(NodeFs::absolute("snap.db"), "/root/snap.db");
        assert_eq!(NodeFs::absolute("./backup/snap.db"), "/root/backup/snap.db");
        assert_eq!(NodeFs::absolute("/var/lib/etcd/"), "/var/lib/etcd");
        assert_eq!(NodeFs::absolute("/etc/kubernetes/../cni/./net.d"), "/etc/cni/net.d");
        assert_eq!(NodeFs::absolute("/.."), "/");
        let mut fs = NodeFs::new();
        assert!(!fs.exists("snap.db"));
        fs.write("snap.db", NodeFile::EtcdSnapshot(Box::default()));
        assert!(fs.get("/root/snap.db").is_some());
        assert_eq!(fs.paths().collect::<Vec<_>>(), vec!["/root/snap.db"]);
        assert_eq!(fs.kind("/root"), Some(Kind::Dir));
    }

    #[test]
    fn listing_shows_files_and_directories_directly_under_a_directory() {
        let mut fs = NodeFs::new();
        fs.write("/etc/kubernetes/manifests/etcd.yaml", text("a"));
        fs.write("/etc/kubernetes/admin.conf", text("b"));
        fs.mkdir("/etc/cni/net.d", SimTime::ZERO);
        let names = |p: &str| fs.list(p).map(|v| v.into_iter().map(|(n, _)| n).collect::<Vec<_>>());
        assert_eq!(names("/etc"), Ok(vec!["cni".to_string(), "kubernetes".to_string()]));
        assert_eq!(names("/etc/kubernetes"), Ok(vec!["admin.conf".to_string(), "manifests".to_string()]));
        assert_eq!(names("/etc/cni/net.d"), Ok(vec![]));
        assert_eq!(names("/etc/nope"), Err(FsError::NotFound));
        assert_eq!(names("/etc/kubernetes/admin.conf"), Err(FsError::NotDir));
    }

    #[test]
    fn moving_into_a_directory_keeps_the_name_and_a_watcher_is_woken() {
        let mut fs = NodeFs::new();
        fs.write("/etc/kubernetes/manifests/kube-scheduler.yaml", text("pod"));
        fs.mkdir("/tmp", SimTime::ZERO);
        fs.watch("/etc/kubernetes/manifests", ComponentId(7), 4);
        let t = SimTime(5_000);
        assert_eq!(
            fs.rename("/etc/kubernetes/manifests/kube-scheduler.yaml", "/tmp", t),
            Ok("/tmp/kube-scheduler.yaml".into())
        );
        assert_eq!(fs.take_fired(), vec![(ComponentId(7), 4)]);
        assert!(fs.take_fired().is_empty());
        assert!(fs.text_files_in("/etc/kubernetes/manifests").is_empty());
        assert_eq!(fs.modified("/tmp/kube-scheduler.yaml"), Some(SimTime::ZERO));
        assert_eq!(fs.modified("/tmp"), Some(t));
        fs.rename("/tmp/kube-scheduler.yaml", "/etc/kubernetes/manifests/", t).unwrap();
        assert_eq!(fs.take_fired(), vec![(ComponentId(7), 4)]);
        assert_eq!(fs.text_files_in("/etc/kubernetes/manifests").len(), 1);
        assert_eq!(fs.rename("/nope", "/tmp", t), Err(FsError::NotFound));
        assert_eq!(fs.rename("/tmp", "/tmp/x", t), Err(FsError::IntoItself));
        assert_eq!(fs.rename("/tmp/a", "/missing/dir/b", t), Err(FsError::NotFound));
    }

    #[test]
    fn directories_move_with_their_contents_and_copies_are_independent() {
        let mut fs = NodeFs::new();
        fs.write("/a/b/c.txt", text("c"));
        fs.rename("/a", "/z", SimTime(1)).unwrap();
        assert!(fs.exists("/z/b/c.txt") && !fs.exists("/a"));
        fs.copy("/z/b/c.txt", "/z/d.txt", SimTime(2)).unwrap();
        fs.remove("/z/b/c.txt", SimTime(3)).unwrap();
        assert_eq!(fs.text("/z/d.txt").as_deref(), Some("c"));
        assert_eq!(fs.remove("/z/b", SimTime(3)), Err(FsError::IsDir));
        fs.remove_tree("/z", SimTime(4)).unwrap();
        assert!(!fs.exists("/z/d.txt"));
        assert_eq!(fs.copy("/nope", "/x", SimTime(5)), Err(FsError::NotFound));
    }

    #[test]
    fn a_restored_data_directory_lists_like_etcds() {
        let mut fs = NodeFs::new();
        fs.write("/var/lib/etcd-backup", NodeFile::EtcdDataDir(Box::default()));
        assert_eq!(fs.kind("/var/lib/etcd-backup"), Some(Kind::Dir));
        assert_eq!(fs.list("/var/lib/etcd-backup"), Ok(vec![("member".into(), Kind::Dir)]));
        assert_eq!(fs.list("/var/lib/etcd-backup/member/snap"), Ok(vec![("db".into(), Kind::File)]));
        assert_eq!(fs.kind("/var/lib/etcd-backup/member/snap/db"), Some(Kind::File));
    }
}
