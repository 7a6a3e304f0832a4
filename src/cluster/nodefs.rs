//! A node's filesystem, as far as the simulation needs one: files by absolute path. Today only the
//! control-plane node has one, holding etcd snapshots (`etcdctl snapshot save`) and restored data directories
//! (`etcdutl snapshot restore`). etcd's live data directory is `/var/lib/etcd` (kubeadm's `--data-dir`); a
//! restore into it while etcd is stopped is picked up by the members when they start.

use std::collections::BTreeMap;

use crate::etcd::store::{Snapshot, Store};

/// etcd's data directory on a kubeadm control-plane node.
pub const ETCD_DATA_DIR: &str = "/var/lib/etcd";
/// The shell's working directory: relative paths resolve under it.
pub const HOME: &str = "/root";

/// What a path holds.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeFile {
    /// An etcd backend snapshot (`snapshot save`).
    EtcdSnapshot(Box<Snapshot>),
    /// An etcd data directory restored from a snapshot.
    EtcdDataDir(Box<Snapshot>),
}

/// One node's files.
#[derive(Debug, Default)]
pub struct NodeFs {
    files: BTreeMap<String, NodeFile>,
    /// Whether an etcd member runs from [`ETCD_DATA_DIR`] (kept current by the cluster).
    pub etcd_running: bool,
    /// A restore into [`ETCD_DATA_DIR`] the members have not started from yet.
    restored_etcd: Option<Store>,
}

impl NodeFs {
    /// The control-plane node's filesystem at install time: etcd runs from its data directory.
    pub fn with_etcd_running() -> NodeFs {
        NodeFs { etcd_running: true, ..NodeFs::default() }
    }

    /// `path` made absolute (relative to [`HOME`]), without `.` segments or a trailing slash.
    pub fn absolute(path: &str) -> String {
        let full = if path.starts_with('/') { path.to_string() } else { format!("{HOME}/{path}") };
        let parts: Vec<&str> = full.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        format!("/{}", parts.join("/"))
    }

    pub fn get(&self, path: &str) -> Option<&NodeFile> {
        self.files.get(&NodeFs::absolute(path))
    }

    pub fn exists(&self, path: &str) -> bool {
        let p = NodeFs::absolute(path);
        p == ETCD_DATA_DIR || self.files.contains_key(&p)
    }

    pub fn write(&mut self, path: &str, file: NodeFile) {
        self.files.insert(NodeFs::absolute(path), file);
    }

    /// Every path, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
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

    #[test]
    fn relative_paths_resolve_under_the_home_directory() {
        assert_eq!(NodeFs::absolute("snap.db"), "/root/snap.db");
        assert_eq!(NodeFs::absolute("./backup/snap.db"), "/root/backup/snap.db");
        assert_eq!(NodeFs::absolute("/var/lib/etcd/"), "/var/lib/etcd");
        let mut fs = NodeFs::default();
        assert!(fs.exists("/var/lib/etcd") && !fs.exists("snap.db"));
        fs.write("snap.db", NodeFile::EtcdSnapshot(Box::default()));
        assert!(fs.get("/root/snap.db").is_some());
        assert_eq!(fs.paths().collect::<Vec<_>>(), vec!["/root/snap.db"]);
    }
}
