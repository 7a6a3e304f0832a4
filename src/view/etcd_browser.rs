//! The etcd browser: the keys under a prefix of `/registry/` one level at a time (sub-prefixes as folders,
//! keys with their create and mod revisions and version), one key's value, and which member holds which
//! revision of it. Reads the members' stores directly (the "glass"); browsing jumps from folder to folder
//! through the store's ordered keys, so a level costs its entries, not the keys beneath them.

use serde::{Deserialize, Serialize};

use crate::etcd::member::EtcdMember;
use crate::etcd::store::Store;

/// A level lists at most this many entries.
pub const ENTRIES_MAX: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdEntry {
    /// The whole key, or the folder's prefix ending in `/`.
    pub key: String,
    pub folder: bool,
    pub create_revision: u64,
    pub mod_revision: u64,
    pub version: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdLevel {
    pub prefix: String,
    pub entries: Vec<EtcdEntry>,
    /// More entries than [`ENTRIES_MAX`] are under this prefix.
    pub more: bool,
    /// The revision of the store read.
    pub revision: u64,
}

/// One member's copy of a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberCopy {
    pub member: String,
    pub role: String,
    pub running: bool,
    /// The member's store revision.
    pub revision: u64,
    /// The key's mod revision in the member's store (None: the member does not have it).
    pub mod_revision: Option<u64>,
    /// Whether its copy is the one the browsed store has.
    pub current: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdKeyView {
    pub key: String,
    pub create_revision: u64,
    pub mod_revision: u64,
    pub version: u64,
    /// The stored object as JSON (the real apiserver stores protobuf for built-in kinds).
    pub value: String,
    pub members: Vec<MemberCopy>,
}

/// The entries directly under `prefix` in `store`.
pub fn level(store: &Store, prefix: &str) -> EtcdLevel {
    let mut out = EtcdLevel { prefix: prefix.to_string(), revision: store.revision(), ..EtcdLevel::default() };
    let mut start = prefix.to_string();
    loop {
        let Some(kv) = store.keys_from(&start).next().filter(|kv| kv.key.starts_with(prefix)) else { break };
        if out.entries.len() == ENTRIES_MAX {
            out.more = true;
            break;
        }
        let rest = &kv.key[prefix.len()..];
        match rest.find('/') {
            Some(slash) => {
                let folder = format!("{prefix}{}", &rest[..=slash]);
                // The first key past this folder: '0' follows '/'.
                start = format!("{}0", &folder[..folder.len() - 1]);
                out.entries.push(EtcdEntry {
                    key: folder,
                    folder: true,
                    create_revision: 0,
                    mod_revision: 0,
                    version: 0,
                });
            }
            None => {
                start = format!("{}\u{0}", kv.key);
                out.entries.push(EtcdEntry {
                    key: kv.key.clone(),
                    folder: false,
                    create_revision: kv.create_revision,
                    mod_revision: kv.mod_revision,
                    version: kv.version,
                });
            }
        }
    }
    out
}

/// `key` as `store` holds it, with every member's copy.
pub fn key_view(store: &Store, members: &[(&EtcdMember, bool)], key: &str) -> Option<EtcdKeyView> {
    let kv = store.get(key)?;
    let value = serde_json::to_string_pretty(&kv.value.to_json()).unwrap_or_default();
    let members = members
        .iter()
        .map(|(m, running)| {
            let theirs = m.store().get(key).map(|k| k.mod_revision);
            MemberCopy {
                member: m.name(),
                role: m.role().as_str().to_string(),
                running: *running,
                revision: m.store().revision(),
                mod_revision: theirs,
                current: theirs == Some(kv.mod_revision),
            }
        })
        .collect();
    Some(EtcdKeyView {
        key: key.to_string(),
        create_revision: kv.create_revision,
        mod_revision: kv.mod_revision,
        version: kv.version,
        value,
        members,
    })
}

#[cfg(test)]
mod tests {
    use crate::cluster::ClusterConfig;
    use crate::Cluster;

    #[test]
    fn registry_levels_list_folders_then_keys_with_revisions() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl run web --image=nginx", None, 30_000);
        assert_eq!(r.exit, Some(0));
        let top = cluster.etcd_level("/registry/");
        assert!(top.entries.iter().all(|e| e.folder));
        let folders: Vec<&str> = top.entries.iter().map(|e| e.key.as_str()).collect();
        assert!(folders.contains(&"/registry/pods/") && folders.contains(&"/registry/minions/"), "{folders:?}");
        assert!(folders.windows(2).all(|w| w[0] < w[1]));
        let pods = cluster.etcd_level("/registry/pods/");
        assert!(pods.entries.iter().any(|e| e.key == "/registry/pods/default/"));
        let default = cluster.etcd_level("/registry/pods/default/");
        let web = default.entries.iter().find(|e| e.key == "/registry/pods/default/web").unwrap();
        assert!(!web.folder && web.create_revision > 1 && web.mod_revision >= web.create_revision);
        assert!(web.version >= 1);
        let key = cluster.etcd_key("/registry/pods/default/web").unwrap();
        assert_eq!(key.mod_revision, web.mod_revision);
        assert!(key.value.contains("\"kind\": \"Pod\""), "{}", key.value);
        assert_eq!(key.members.len(), 1);
        assert!(key.members[0].current);
        assert!(cluster.etcd_key("/registry/pods/default/nope").is_none());
    }

    #[test]
    fn a_member_that_was_down_holds_an_older_revision_of_a_key() {
        let config = ClusterConfig { etcd_members: 3, ..ClusterConfig::default() };
        let mut cluster = Cluster::new(config, 1);
        cluster.advance_ms(2_000);
        cluster.stop("etcd-2").unwrap();
        let r = cluster.kubectl("kubectl create configmap settings --from-literal=a=1", None, 30_000);
        assert_eq!(r.exit, Some(0), "{}", r.output);
        let key = cluster.etcd_key("/registry/configmaps/default/settings").unwrap();
        let copies: Vec<(&str, bool, bool)> =
            key.members.iter().map(|m| (m.member.as_str(), m.running, m.current)).collect();
        assert_eq!(copies.len(), 3);
        assert!(copies.contains(&("etcd-2", false, false)), "{copies:?}");
        assert_eq!(key.members.iter().filter(|m| m.current).count(), 2);
        let down = key.members.iter().find(|m| m.member == "etcd-2").unwrap();
        assert_eq!(down.mod_revision, None);
        assert!(down.revision < key.mod_revision);
    }

    #[test]
    fn a_level_is_cut_at_its_maximum() {
        let mut store = crate::etcd::store::Store::new();
        let obj = std::sync::Arc::new(crate::api::Object::Namespace(Default::default()));
        let ops = (0..super::ENTRIES_MAX + 5)
            .map(|i| crate::etcd::Op::Put { key: format!("/registry/x/k{i:04}"), value: obj.clone() })
            .collect();
        store.apply(&crate::etcd::Txn { success: ops, ..Default::default() });
        let level = super::level(&store, "/registry/x/");
        assert_eq!(level.entries.len(), super::ENTRIES_MAX);
        assert!(level.more);
        assert!(!super::level(&store, "/registry/").more);
    }
}
