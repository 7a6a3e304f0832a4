//! The request log: for every request, who asked, what, each stage of the handler chain it passed with
//! its verdict, where it stopped, the HTTP code and the etcd revision written. It is the apiserver's
//! published state for the UI's request path (the same idea as the apiserver's audit log).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::api::Verb;
use crate::sim::{ChainId, ComponentId, SimTime};

/// A stage of the handler chain, in the order requests pass them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Authentication,
    Authorization,
    /// Decoding the body (strict field validation) and scheme defaulting.
    Decoding,
    MutatingAdmission,
    Validation,
    ValidatingAdmission,
    /// The read or write in etcd (or, for `resourceVersion=0` reads and watches, the watch cache).
    Storage,
    /// The request proxied to the pod's kubelet (`pods/log`, `pods/exec`).
    Kubelet,
    /// The request proxied to an aggregated API server (`metrics.k8s.io` → metrics-server).
    Aggregator,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Authentication => "authentication",
            Stage::Authorization => "authorization",
            Stage::Decoding => "decoding",
            Stage::MutatingAdmission => "mutating admission",
            Stage::Validation => "validation",
            Stage::ValidatingAdmission => "validating admission",
            Stage::Storage => "etcd",
            Stage::Kubelet => "kubelet",
            Stage::Aggregator => "aggregator",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageResult {
    pub stage: Stage,
    pub passed: bool,
    /// `jane`, `allowed by RBAC`, `namespaces "nope" not found`, `revision 46`, …
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub chain: ChainId,
    pub at_ms: u64,
    /// The authenticated user (empty when authentication failed).
    pub user: String,
    /// `create deployments`, `list pods`, `update pods/status`.
    pub summary: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub stages: Vec<StageResult>,
    /// The HTTP status code of the answer (0 while in progress).
    pub code: u16,
    pub revision: Option<u64>,
    #[serde(skip, default = "default_verb")]
    pub verb: Verb,
    /// Who sent it (the person's kubectl, a controller, a kubelet).
    #[serde(skip, default = "no_client")]
    pub client: ComponentId,
}

fn default_verb() -> Verb {
    Verb::Get
}

fn no_client() -> ComponentId {
    ComponentId(u32::MAX)
}

impl RequestRecord {
    /// `authentication ✓ kubernetes-admin → authorization ✓ → … → etcd ✓ revision 46`.
    pub fn path_line(&self) -> String {
        let stages: Vec<String> = self
            .stages
            .iter()
            .map(|s| {
                let mark = if s.passed { "✓" } else { "✗" };
                if s.detail.is_empty() {
                    format!("{} {mark}", s.stage.as_str())
                } else {
                    format!("{} {mark} {}", s.stage.as_str(), s.detail)
                }
            })
            .collect();
        format!("{} → {}", self.summary, stages.join(" → "))
    }

    /// The stage that refused the request, if one did.
    pub fn stopped_at(&self) -> Option<Stage> {
        self.stages.iter().find(|s| !s.passed).map(|s| s.stage)
    }
}

/// The stages a request of this verb passes after authorization (reads are served from etcd or the watch
/// cache; deletes skip decoding, mutation and validation).
pub fn stages_after_authorization(verb: Verb) -> &'static [Stage] {
    match verb {
        Verb::Get | Verb::List | Verb::Watch => &[Stage::Storage],
        Verb::Delete | Verb::DeleteCollection => &[Stage::ValidatingAdmission, Stage::Storage],
        _ => {
            &[Stage::Decoding, Stage::MutatingAdmission, Stage::Validation, Stage::ValidatingAdmission, Stage::Storage]
        }
    }
}

/// How many finished records are kept.
pub const RECORDS_MAX: usize = 2048;

#[derive(Debug, Default)]
pub struct RequestLog {
    open: BTreeMap<(ComponentId, u64), RequestRecord>,
    done: VecDeque<RequestRecord>,
}

impl RequestLog {
    pub fn open(&mut self, client: ComponentId, request_id: u64, record: RequestRecord) {
        self.open.insert((client, request_id), record);
    }

    pub fn stage(
        &mut self,
        client: ComponentId,
        request_id: u64,
        stage: Stage,
        passed: bool,
        detail: impl Into<String>,
    ) {
        if let Some(r) = self.open.get_mut(&(client, request_id)) {
            r.stages.push(StageResult { stage, passed, detail: detail.into() });
        }
    }

    pub fn set_user(&mut self, client: ComponentId, request_id: u64, user: &str) {
        if let Some(r) = self.open.get_mut(&(client, request_id)) {
            r.user = user.to_string();
        }
    }

    /// Closes the record with the answer's code and revision.
    pub fn close(&mut self, client: ComponentId, request_id: u64, code: u16, revision: Option<u64>) {
        if let Some(mut r) = self.open.remove(&(client, request_id)) {
            r.code = code;
            r.revision = revision;
            if self.done.len() == RECORDS_MAX {
                self.done.pop_front();
            }
            self.done.push_back(r);
        }
    }

    /// The verb of an open request that got past authorization (its later stages are still to record).
    pub fn verb_past_authorization(&self, client: ComponentId, request_id: u64) -> Option<Verb> {
        let r = self.open.get(&(client, request_id))?;
        r.stages.iter().any(|s| s.stage == Stage::Authorization && s.passed).then_some(r.verb)
    }

    /// Forgets requests whose client went away.
    pub fn drop_client(&mut self, client: ComponentId) {
        self.open.retain(|(c, _), _| *c != client);
    }

    pub fn records(&self) -> impl Iterator<Item = &RequestRecord> {
        self.done.iter()
    }

    /// Finished requests of one chain, oldest first.
    pub fn for_chain(&self, chain: ChainId) -> Vec<&RequestRecord> {
        self.done.iter().filter(|r| r.chain == chain).collect()
    }

    pub fn at(now: SimTime) -> u64 {
        now.ms()
    }
}
