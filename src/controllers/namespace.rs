//! The namespace controller: empties a namespace that is being deleted. For a Terminating namespace it
//! lists every namespaced resource in it, deletes what it finds, and repeats until nothing is left; then it
//! removes `kubernetes` from the namespace's spec.finalizers through `namespaces/finalize`, and the
//! apiserver removes the namespace. Pods on a node wait for their kubelet, so a namespace with pods on a
//! dead node stays Terminating — as in a real cluster.
//! Watches: Namespaces. Writes: deletes of everything in the namespace, `namespaces/<ns>/finalize`.
//! Counterpart: `pkg/controller/namespace/deletion/namespaced_resources_deleter.go`.

use std::collections::BTreeMap;

use crate::api::{ApiResponse, Kind, Object, RESOURCES};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::{Controller, Cx};

/// How long to wait between sweeps of a namespace that still has content.
pub const SWEEP_MS: u64 = 2_000;

/// A sweep in progress: lists outstanding and objects found so far.
#[derive(Debug, Default)]
struct Sweep {
    outstanding: usize,
    found: usize,
}

#[derive(Debug, Default)]
pub struct NamespaceController {
    sweeps: BTreeMap<String, Sweep>,
    /// Tag → namespace of a list or finalize call; timer token → namespace.
    tags: BTreeMap<u64, String>,
    next_tag: u64,
}

fn terminating(ns: &Object) -> bool {
    matches!(ns, Object::Namespace(n) if n.metadata.deletion_timestamp.is_some())
}

impl NamespaceController {
    fn tag(&mut self, ns: &str) -> u64 {
        self.next_tag += 1;
        self.tags.insert(self.next_tag, ns.to_string());
        self.next_tag
    }

    /// Lists every namespaced resource in `ns` (deletes follow from the answers).
    fn sweep(&mut self, ns: &str, cx: &mut Cx) {
        if self.sweeps.contains_key(ns) {
            return;
        }
        let kinds: Vec<Kind> = RESOURCES.iter().filter(|r| r.namespaced && r.stored).map(|r| r.kind).collect();
        self.sweeps.insert(ns.to_string(), Sweep { outstanding: kinds.len(), found: 0 });
        for kind in kinds {
            let tag = self.tag(ns);
            cx.list_in(kind, ns, tag);
        }
    }

    fn finalize(&mut self, ns: &Object, cx: &mut Cx) {
        let tag = self.tag(ns.name());
        let finalizers: Vec<String> = match ns {
            Object::Namespace(n) => n
                .spec
                .as_ref()
                .and_then(|s| s.finalizers.clone())
                .unwrap_or_default()
                .into_iter()
                .filter(|f| f != "kubernetes")
                .collect(),
            _ => Vec::new(),
        };
        let mut next = ns.clone();
        if let Object::Namespace(n) = &mut next {
            n.spec.get_or_insert_with(Default::default).finalizers = Some(finalizers);
        }
        cx.update_subresource(next, "finalize", tag);
    }
}

impl Controller for NamespaceController {
    fn name(&self) -> &'static str {
        "namespace-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Namespace]
    }

    /// A new process: the calls, timers and writes the previous one was waiting for are gone with it (one
    /// whose status write died with the apiserver would otherwise wait for its answer for good).
    fn on_start(&mut self) {
        *self = Self::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for ns in cx.list(Kind::Namespace) {
            if terminating(&ns) {
                self.sweep(ns.name(), cx);
            }
        }
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, cx: &mut Cx) {
        match change {
            Change::Added(ns) | Change::Modified { new: ns, .. } if terminating(ns) => self.sweep(ns.name(), cx),
            Change::Deleted(ns) => {
                self.sweeps.remove(ns.name());
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(ns) = self.tags.remove(&token) {
            if cx.get(Kind::Namespace, &ns).is_some_and(|o| terminating(&o)) {
                self.sweep(&ns, cx);
            }
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(ns) = self.tags.remove(&tag) else { return };
        let Some(sweep) = self.sweeps.get_mut(&ns) else { return };
        if let Ok(ApiResponse::List { items, .. }) = result {
            sweep.found += items.len();
            for item in items.iter().filter(|o| o.meta().deletion_timestamp.is_none()) {
                cx.delete(item, Some("Background"), None, 0);
            }
        } else if result.is_err() || matches!(result, Ok(ApiResponse::Error(_))) {
            sweep.found += 1;
        }
        sweep.outstanding = sweep.outstanding.saturating_sub(1);
        if sweep.outstanding > 0 {
            return;
        }
        let found = sweep.found;
        self.sweeps.remove(&ns);
        let Some(namespace) = cx.get(Kind::Namespace, &ns) else { return };
        if found == 0 {
            self.finalize(&namespace, cx);
        } else {
            let token = self.tag(&ns);
            cx.timer(SWEEP_MS, token);
        }
    }
}
