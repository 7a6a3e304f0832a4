//! The kubelet's file source: the static pods in its `staticPodPath` (`/etc/kubernetes/manifests` on a
//! kubeadm node), read from the node's filesystem when the kubelet starts, when the directory changes
//! (inotify) and every `fileCheckFrequency` (20 s). Each file (not hidden) holds one pod; the kubelet
//! names it `<name>-<node>`, pins it to its node, derives its UID from the content, the node and the file
//! path (so moving the same file out and back gives the same UID), and marks it with the
//! `kubernetes.io/config.*` annotations. A second file with a pod of the same name is ignored.
//! Counterpart: `pkg/kubelet/config/file.go` and `common.go` (`applyDefaults`).

use std::collections::BTreeSet;

use crate::api::api::core::v1::{Pod, Toleration};
use crate::api::manifest::{decode_strict, parse_documents};
use crate::api::Object;
use crate::cluster::NodeFs;
use crate::sim::rng::fnv1a64;

/// How often the kubelet re-reads its static pod path even without a change notice.
pub const FILE_CHECK_MS: u64 = 20_000;

/// A static pod read from a manifest file, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticPod {
    /// `kubernetes.io/config.hash`, also the pod's UID.
    pub uid: String,
    /// `namespace/name` of the pod (and of its mirror pod).
    pub key: String,
    pub path: String,
    pub pod: Pod,
}

/// What reading the directory found: the pods, and one message per file that could not be used.
#[derive(Debug, Default)]
pub struct Read {
    pub pods: Vec<StaticPod>,
    pub errors: Vec<String>,
}

/// Reads every manifest in `dir` for `node`; `seen` is the `kubernetes.io/config.seen` time.
pub fn read(fs: &NodeFs, dir: &str, node: &str, seen: &str) -> Read {
    let mut out = Read::default();
    let mut names = BTreeSet::new();
    for (path, text) in fs.text_files_in(dir) {
        match parse(&text, &path, node, seen) {
            Ok(p) => {
                if names.insert(p.key.clone()) {
                    out.pods.push(p);
                } else {
                    out.errors.push(format!(
                        "\"Pod with the same name already exists, ignoring\" pod={:?} path={path:?}",
                        p.key
                    ));
                }
            }
            Err(e) => out.errors.push(format!(
                "\"Could not process manifest file\" err={} path={path:?}",
                crate::node::journal::go_quote(&e)
            )),
        }
    }
    out
}

fn parse(text: &str, path: &str, node: &str, seen: &str) -> Result<StaticPod, String> {
    let docs = parse_documents(text, path).map_err(|e| e.message)?;
    let doc = docs.into_iter().next().ok_or_else(|| format!("{path}: no pod in the file"))?;
    let pod = match decode_strict(&doc.value) {
        Ok(Object::Pod(p)) => p,
        Ok(o) => return Err(format!("{path}: the file holds a {}, not a Pod", o.info().singular)),
        Err(status) => return Err(status.message),
    };
    let uid = uid(&pod, node, path);
    let name = format!("{}-{}", pod.metadata.name.clone().unwrap_or_default(), node.to_lowercase());
    let ns = pod.metadata.namespace.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "default".into());
    let mut pod = pod;
    pod.metadata.name = Some(name.clone());
    pod.metadata.namespace = Some(ns.clone());
    pod.metadata.uid = Some(uid.clone());
    pod.metadata.creation_timestamp = None;
    pod.status = None;
    let spec = pod.spec.get_or_insert_with(Default::default);
    spec.node_name = Some(node.to_string());
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    let all_no_execute = |t: &Toleration| {
        t.operator.as_deref() == Some("Exists") && t.key.is_none() && t.effect.as_deref() == Some("NoExecute")
    };
    if !tolerations.iter().any(all_no_execute) {
        tolerations.push(Toleration {
            operator: Some("Exists".into()),
            effect: Some("NoExecute".into()),
            ..Default::default()
        });
    }
    let annotations = pod.metadata.annotations.get_or_insert_with(Default::default);
    annotations.insert("kubernetes.io/config.hash".into(), uid.clone());
    annotations.insert("kubernetes.io/config.source".into(), "file".into());
    annotations.insert("kubernetes.io/config.seen".into(), seen.to_string());
    Ok(StaticPod { uid, key: format!("{ns}/{name}"), path: path.to_string(), pod: *pod })
}

/// 32 hex from the pod, its node and its file.
fn uid(pod: &Pod, node: &str, path: &str) -> String {
    let text = serde_json::to_string(pod).unwrap_or_default();
    let text = format!("{text}host:{node}file:{path}");
    format!("{:016x}{:016x}", fnv1a64(text.as_bytes()), fnv1a64(format!("{text}#").as_bytes()))
}

/// The UID a mirror pod names as its static pod (`kubernetes.io/config.mirror`).
pub fn mirror_of(pod: &Pod) -> Option<&str> {
    pod.metadata.annotations.as_ref()?.get("kubernetes.io/config.mirror").map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::NodeFile;
    use std::rc::Rc;

    const SCHED: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-scheduler\n  namespace: kube-system\nspec:\n  containers:\n  - name: kube-scheduler\n    image: registry.k8s.io/kube-scheduler:v1.34.1\n";

    #[test]
    fn manifests_become_pods_named_after_the_node_with_a_stable_uid() {
        let mut fs = NodeFs::new();
        fs.write("/etc/kubernetes/manifests/kube-scheduler.yaml", NodeFile::Text(Rc::from(SCHED)));
        fs.write("/etc/kubernetes/manifests/.swp", NodeFile::Text(Rc::from("junk")));
        let r = read(&fs, "/etc/kubernetes/manifests", "ControlPlane", "2025-09-01T00:00:00Z");
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        let [p] = r.pods.as_slice() else { panic!("one pod: {:?}", r.pods) };
        assert_eq!(p.key, "kube-system/kube-scheduler-controlplane");
        assert_eq!(p.pod.spec.as_ref().and_then(|s| s.node_name.as_deref()), Some("ControlPlane"));
        let again = read(&fs, "/etc/kubernetes/manifests", "ControlPlane", "later");
        assert_eq!(again.pods[0].uid, p.uid, "the seen time does not change the UID");
        fs.mkdir("/tmp", crate::sim::SimTime(0));
        fs.rename("/etc/kubernetes/manifests/kube-scheduler.yaml", "/tmp/s.yaml", crate::sim::SimTime(1)).unwrap();
        assert!(read(&fs, "/etc/kubernetes/manifests", "ControlPlane", "x").pods.is_empty());
        fs.rename("/tmp/s.yaml", "/etc/kubernetes/manifests/kube-scheduler.yaml", crate::sim::SimTime(2)).unwrap();
        assert_eq!(read(&fs, "/etc/kubernetes/manifests", "ControlPlane", "x").pods[0].uid, p.uid);
    }

    #[test]
    fn broken_files_and_duplicate_names_are_reported_not_run() {
        let mut fs = NodeFs::new();
        fs.write("/m/a.yaml", NodeFile::Text(Rc::from(SCHED)));
        fs.write("/m/b.yaml", NodeFile::Text(Rc::from(SCHED)));
        fs.write("/m/c.yaml", NodeFile::Text(Rc::from("kind: [")));
        fs.write("/m/d.yaml", NodeFile::Text(Rc::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")));
        let r = read(&fs, "/m", "n", "t");
        assert_eq!(r.pods.len(), 1);
        assert_eq!(r.errors.len(), 3, "{:?}", r.errors);
        assert!(r.errors[0].contains("same name"), "{:?}", r.errors);
        assert!(r.errors[1].contains("Could not process manifest file") && r.errors[1].contains("/m/c.yaml"));
    }
}
