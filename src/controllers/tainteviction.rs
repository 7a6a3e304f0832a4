//! The taint eviction controller (`taint-eviction-controller`): pods on a node with NoExecute taints they
//! do not tolerate are deleted at once; pods whose tolerations carry `tolerationSeconds` are deleted that
//! long after the controller first saw the taint (300 s with the tolerations DefaultTolerationSeconds
//! admission adds); tolerations without `tolerationSeconds` keep the pod forever. Before deleting it
//! records `TaintManagerEviction` (`Marking for deletion Pod <ns>/<name>`) and sets the pod condition
//! DisruptionTarget (reason `DeletionByTaintManager`); a scheduled eviction whose taint goes away in time
//! is cancelled with `Cancelling deletion of Pod <ns>/<name>`. The delete is an ordinary graceful delete:
//! without a kubelet to finish it the pod keeps its deletionTimestamp and shows `Terminating`.
//!
//! Watches: Nodes, Pods. Writes: Pod status (DisruptionTarget), Pod deletions, Events.
//! Counterpart: `pkg/controller/tainteviction/taint_eviction.go`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::json;

use crate::api::api::core::v1::{Node, Pod, Taint, Toleration};
use crate::api::{Kind, Object};
use crate::client::informer::Change;

use super::{Controller, Cx};

/// An eviction waiting for its time.
#[derive(Debug, Clone)]
struct Scheduled {
    uid: String,
    token: u64,
}

#[derive(Debug, Default)]
pub struct TaintEvictionController {
    /// `ns/name` → its pending eviction.
    scheduled: BTreeMap<String, Scheduled>,
    /// Never reset, so a timer from an earlier incarnation never matches.
    next_token: u64,
    /// Pods (uid) already deleted by this process.
    evicted: BTreeSet<String>,
}

fn no_execute_taints(node: &Node) -> Vec<Taint> {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .map(|ts| ts.iter().filter(|t| t.effect == "NoExecute").cloned().collect())
        .unwrap_or_default()
}

/// `Toleration.ToleratesTaint`.
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    let effect = t.effect.as_deref().unwrap_or("");
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    let key = t.key.as_deref().unwrap_or("");
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match t.operator.as_deref().unwrap_or("Equal") {
        "Exists" => true,
        "Equal" | "" => t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        _ => false,
    }
}

/// What the tolerations say about the taints: `None` = some taint is not tolerated (evict now),
/// `Some(None)` = tolerated forever, `Some(Some(s))` = tolerated for `s` seconds.
fn toleration_time(pod: &Pod, taints: &[Taint]) -> Option<Option<i64>> {
    let tolerations: Vec<&Toleration> = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.as_ref())
        .map(|ts| ts.iter().filter(|t| t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "NoExecute")).collect())
        .unwrap_or_default();
    let mut used = Vec::new();
    for taint in taints {
        used.push(*tolerations.iter().find(|t| tolerates(t, taint))?);
    }
    if used.is_empty() {
        return Some(Some(0));
    }
    let mut min: Option<i64> = None;
    for t in used {
        if let Some(s) = t.toleration_seconds {
            if s <= 0 {
                return Some(Some(0));
            }
            min = Some(min.map_or(s, |m| m.min(s)));
        }
    }
    Some(min)
}

fn pod_key(pod: &Object) -> String {
    format!("{}/{}", pod.namespace().unwrap_or(""), pod.name())
}

impl TaintEvictionController {
    fn cancel(&mut self, pod: &Object, cx: &mut Cx) {
        let key = pod_key(pod);
        if self.scheduled.remove(&key).is_some() {
            cx.event(pod, "Normal", "TaintManagerEviction", &format!("Cancelling deletion of Pod {key}"));
        }
    }

    fn evict(&mut self, obj: &Arc<Object>, cx: &mut Cx) {
        let Object::Pod(pod) = obj.as_ref() else { return };
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        if pod.metadata.deletion_timestamp.is_some() || !self.evicted.insert(uid) {
            return;
        }
        let key = pod_key(obj);
        cx.event(obj, "Normal", "TaintManagerEviction", &format!("Marking for deletion Pod {key}"));
        let already = pod.status.as_ref().and_then(|s| s.conditions.as_ref()).is_some_and(|cs| {
            cs.iter().any(|c| {
                c.type_ == "DisruptionTarget"
                    && c.status == "True"
                    && c.reason.as_deref() == Some("DeletionByTaintManager")
            })
        });
        if !already {
            let patch = json!({"status": {"conditions": [{
                "type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint", "lastTransitionTime": cx.now.rfc3339(),
            }]}});
            cx.patch(obj, Some("status"), patch, 0);
        }
        cx.delete(obj, None, None, 0);
    }

    /// processPodOnNode: decide, for one pod, between nothing, a scheduled eviction and an eviction now.
    fn process(&mut self, obj: &Arc<Object>, cx: &mut Cx) {
        let Object::Pod(pod) = obj.as_ref() else { return };
        let key = pod_key(obj);
        if pod.metadata.deletion_timestamp.is_some() {
            self.scheduled.remove(&key);
            return;
        }
        let node_name = pod.spec.as_ref().and_then(|s| s.node_name.clone()).unwrap_or_default();
        if node_name.is_empty() {
            return self.cancel(obj, cx);
        }
        let Some(node) = cx.get(Kind::Node, &node_name) else { return };
        let Object::Node(node) = node.as_ref() else { return };
        let taints = no_execute_taints(node);
        if taints.is_empty() {
            return self.cancel(obj, cx);
        }
        match toleration_time(pod, &taints) {
            None | Some(Some(0)) => {
                self.cancel(obj, cx);
                self.evict(obj, cx);
            }
            Some(None) => self.cancel(obj, cx),
            Some(Some(seconds)) => {
                let uid = pod.metadata.uid.clone().unwrap_or_default();
                if self.scheduled.get(&key).is_some_and(|s| s.uid == uid) {
                    return;
                }
                self.next_token += 1;
                let token = self.next_token;
                let after = seconds.max(0) as u64 * 1_000;
                self.scheduled.insert(key, Scheduled { uid, token });
                cx.timer(after, token);
            }
        }
    }

    fn process_node(&mut self, node: &str, cx: &mut Cx) {
        for pod in cx.pods_on(node) {
            self.process(&pod, cx);
        }
    }
}

impl Controller for TaintEvictionController {
    fn name(&self) -> &'static str {
        "taint-eviction-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Node, Kind::Pod]
    }

    fn on_start(&mut self) {
        self.scheduled.clear();
        self.evicted.clear();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for pod in cx.list(Kind::Pod) {
            self.process(&pod, cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::Node, Change::Added(n)) => self.process_node(n.name(), cx),
            (Kind::Node, Change::Modified { old, new }) => {
                let taints = |o: &Object| match o {
                    Object::Node(n) => {
                        no_execute_taints(n).into_iter().map(|t| (t.key, t.value, t.effect)).collect::<BTreeSet<_>>()
                    }
                    _ => BTreeSet::new(),
                };
                if taints(old) != taints(new) {
                    self.process_node(new.name(), cx);
                }
            }
            (Kind::Pod, Change::Added(p) | Change::Modified { new: p, .. }) => self.process(p, cx),
            (Kind::Pod, Change::Deleted(p)) => {
                self.scheduled.remove(&pod_key(p));
                if let Some(uid) = p.meta().uid.as_ref() {
                    self.evicted.remove(uid);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        let Some(key) = self.scheduled.iter().find(|(_, s)| s.token == token).map(|(k, _)| k.clone()) else {
            return;
        };
        let Some(s) = self.scheduled.remove(&key) else { return };
        if let Some(pod) = cx.get(Kind::Pod, &key) {
            if pod.meta().uid.as_deref() == Some(s.uid.as_str()) {
                self.evict(&pod, cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: Option<&str>) -> Taint {
        Taint { key: key.into(), value: value.map(str::to_string), effect: "NoExecute".into(), time_added: None }
    }

    fn toleration(
        key: Option<&str>,
        op: &str,
        value: Option<&str>,
        effect: Option<&str>,
        secs: Option<i64>,
    ) -> Toleration {
        Toleration {
            key: key.map(str::to_string),
            operator: Some(op.into()),
            value: value.map(str::to_string),
            effect: effect.map(str::to_string),
            toleration_seconds: secs,
        }
    }

    fn pod(tolerations: Vec<Toleration>) -> Pod {
        Pod {
            spec: Some(crate::api::api::core::v1::PodSpec { tolerations: Some(tolerations), ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn a_toleration_matches_by_key_operator_value_and_effect() {
        let unreachable = taint("node.kubernetes.io/unreachable", None);
        assert!(tolerates(
            &toleration(Some("node.kubernetes.io/unreachable"), "Exists", None, None, None),
            &unreachable
        ));
        assert!(tolerates(&toleration(None, "Exists", None, None, None), &unreachable));
        assert!(!tolerates(&toleration(Some("other"), "Exists", None, None, None), &unreachable));
        assert!(!tolerates(
            &toleration(Some("node.kubernetes.io/unreachable"), "Exists", None, Some("NoSchedule"), None),
            &unreachable
        ));
        let gpu = taint("gpu", Some("a100"));
        assert!(tolerates(&toleration(Some("gpu"), "Equal", Some("a100"), None, None), &gpu));
        assert!(!tolerates(&toleration(Some("gpu"), "Equal", Some("t4"), None, None), &gpu));
    }

    #[test]
    fn the_shortest_toleration_seconds_decides_and_none_means_forever() {
        let taints = [taint("node.kubernetes.io/unreachable", None)];
        let defaults =
            pod(vec![toleration(Some("node.kubernetes.io/unreachable"), "Exists", None, Some("NoExecute"), Some(300))]);
        assert_eq!(toleration_time(&defaults, &taints), Some(Some(300)));
        let forever = pod(vec![toleration(None, "Exists", None, Some("NoExecute"), None)]);
        assert_eq!(toleration_time(&forever, &taints), Some(None));
        let zero = pod(vec![toleration(None, "Exists", None, None, Some(0))]);
        assert_eq!(toleration_time(&zero, &taints), Some(Some(0)));
        assert_eq!(toleration_time(&pod(vec![]), &taints), None);
    }
}
