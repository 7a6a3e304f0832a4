//! One request a person made, as the UI's data-flow panel shows it: the numbered steps of its chain
//! ([`super::steps`]) and each apiserver request of the chain on its way through the handler chain
//! (authentication, authorization, decoding, admission, validation, etcd), with the stage where it stopped
//! and the stages it never reached. Read from the apiserver's request log ([`crate::apiserver::audit`]).

use serde::{Deserialize, Serialize};

use super::steps::{data_flow, FlowStep};
use crate::apiserver::audit::{stages_after_authorization, RequestRecord, Stage};
use crate::sim::Kernel;

/// A stage of one request's path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageView {
    /// `authentication`, `authorization`, `mutating admission`, `etcd`, …
    pub name: String,
    /// `passed`, `failed` or `not reached`.
    pub state: String,
    /// `kubernetes-admin`, `allowed by RBAC`, the refusal's message, `revision 46`, …
    pub detail: String,
}

/// One request through kube-apiserver's handler chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestPath {
    pub at_ms: u64,
    /// Who sent it (`kubectl`, `kube-controller-manager`, `node01/kubelet`).
    pub client: String,
    /// The authenticated user (empty when authentication failed).
    pub user: String,
    /// `create deployments`.
    pub summary: String,
    /// `default/web`, when the request named an object.
    pub object: Option<String>,
    /// The HTTP status code of the answer.
    pub code: u16,
    pub stages: Vec<StageView>,
    /// The stage that refused it.
    pub stopped_at: Option<String>,
}

/// The data flow of one chain: its numbered steps and its requests' paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowView {
    pub chain: u64,
    pub steps: Vec<FlowStep>,
    pub requests: Vec<RequestPath>,
}

/// The stages a request of this kind passes when nothing refuses it, after authorization.
fn later_stages(record: &RequestRecord) -> &'static [Stage] {
    // `pods/log` and `pods/exec` are proxied to the pod's kubelet instead of read from storage.
    if record.summary.ends_with("/log") || record.summary.ends_with("/exec") {
        &[Stage::Kubelet]
    } else {
        stages_after_authorization(record.verb)
    }
}

/// A request's path: the stages it passed, the one that refused it, and (after a refusal) the stages a
/// request like it would have gone on to, as not reached.
pub fn request_path(record: &RequestRecord, client: &str) -> RequestPath {
    let mut stages: Vec<StageView> = record
        .stages
        .iter()
        .map(|s| StageView {
            name: s.stage.as_str().to_string(),
            state: if s.passed { "passed" } else { "failed" }.to_string(),
            detail: s.detail.clone(),
        })
        .collect();
    let stopped_at = record.stopped_at();
    if let Some(stopped) = stopped_at {
        let all = [Stage::Authentication, Stage::Authorization].iter().chain(later_stages(record));
        stages.extend(all.filter(|s| **s > stopped).map(|s| StageView {
            name: s.as_str().to_string(),
            state: "not reached".to_string(),
            detail: String::new(),
        }));
    }
    let object = match (&record.namespace, &record.name) {
        (Some(ns), Some(name)) => Some(format!("{ns}/{name}")),
        (None, Some(name)) => Some(name.clone()),
        _ => None,
    };
    RequestPath {
        at_ms: record.at_ms,
        client: client.to_string(),
        user: record.user.clone(),
        summary: record.summary.clone(),
        object,
        code: record.code,
        stages,
        stopped_at: stopped_at.map(|s| s.as_str().to_string()),
    }
}

/// The data flow of `chain`: its numbered steps and the path of each of its requests, oldest first.
pub fn flow<'a>(kernel: &Kernel, records: impl IntoIterator<Item = &'a RequestRecord>, chain: u64) -> FlowView {
    let requests = records
        .into_iter()
        .map(|r| {
            let client = if r.client.0 == u32::MAX { "" } else { kernel.name(r.client) };
            request_path(r, client)
        })
        .collect();
    FlowView { chain, steps: data_flow(kernel, chain), requests }
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    const LIMIT_MS: u64 = 30_000;

    #[test]
    fn a_create_is_numbered_from_the_request_and_passes_every_stage_to_etcd() {
        let mut cluster = Cluster::new_default(1);
        // The controllers' informers have listed and watch.
        cluster.advance_ms(5_000);
        let r = cluster.kubectl("kubectl create deployment web --image=nginx", None, LIMIT_MS);
        assert_eq!(r.exit, Some(0), "{}", r.output);
        cluster.advance_ms(3_000);
        let flow = cluster.flow(r.chain);
        assert_eq!(flow.chain, r.chain);
        let first = &flow.steps[0];
        assert_eq!((first.number, first.from.as_str(), first.to.as_str()), (1, "kubectl", "kube-apiserver"));
        assert_eq!(first.label, "create deployments");
        assert!(flow.steps.iter().any(|s| s.from == "kube-apiserver" && s.to.starts_with("etcd")));
        // The chain goes on: the controller-manager's watch sees the Deployment and creates a ReplicaSet.
        let lines: Vec<String> = flow.steps.iter().map(|s| s.line()).collect();
        assert!(
            flow.steps.iter().any(|s| s.from == "kube-controller-manager" && s.label == "create replicasets"),
            "{lines:#?}"
        );
        let mine = flow.requests.iter().find(|p| p.client == "kubectl" && p.summary == "create deployments").unwrap();
        assert_eq!(mine.object.as_deref(), Some("default/web"), "{mine:?}");
        assert_eq!(mine.code, 201);
        assert_eq!(mine.stopped_at, None);
        let names: Vec<&str> = mine.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.first(), Some(&"authentication"));
        assert_eq!(names.last(), Some(&"etcd"));
        assert!(names.contains(&"authorization") && names.contains(&"validation"), "{names:?}");
        assert!(mine.stages.iter().all(|s| s.state == "passed"));
        assert!(flow.requests.iter().any(|p| p.client == "kube-controller-manager"));
    }

    #[test]
    fn a_forbidden_request_stops_at_authorization_and_never_reaches_etcd() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl --as=someone get secrets", None, LIMIT_MS);
        assert_eq!(r.exit, Some(1));
        assert!(r.output.contains("Forbidden"), "{}", r.output);
        let flow = cluster.flow(r.chain);
        let mine = flow.requests.iter().find(|p| p.client == "kubectl").unwrap();
        assert_eq!(mine.code, 403);
        assert_eq!(mine.stopped_at.as_deref(), Some("authorization"));
        let states: Vec<(&str, &str)> = mine.stages.iter().map(|s| (s.name.as_str(), s.state.as_str())).collect();
        assert_eq!(
            states,
            [("authentication", "passed"), ("authorization", "failed"), ("etcd", "not reached")],
            "{mine:?}"
        );
        // No step of the chain goes to etcd.
        assert!(flow.steps.iter().all(|s| !s.to.starts_with("etcd")));
    }

    #[test]
    fn an_invalid_object_stops_at_validation_before_the_admission_after_it() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl create deployment Bad_Name --image=nginx", None, LIMIT_MS);
        assert_eq!(r.exit, Some(1), "{}", r.output);
        let mine = cluster.flow(r.chain).requests.into_iter().find(|p| p.client == "kubectl").unwrap();
        assert_eq!(mine.code, 422);
        assert_eq!(mine.stopped_at.as_deref(), Some("validation"));
        let not_reached: Vec<&str> =
            mine.stages.iter().filter(|s| s.state == "not reached").map(|s| s.name.as_str()).collect();
        assert_eq!(not_reached, ["validating admission", "etcd"]);
    }

    #[test]
    fn an_unknown_token_stops_at_authentication() {
        // A token user's --token replaces its token (the admin's client certificate would authenticate first).
        let users =
            vec![crate::cluster::UserConfig { name: "jane".into(), token: "jane-token".into(), groups: vec![] }];
        let mut cluster = Cluster::new(crate::cluster::ClusterConfig { users, ..Default::default() }, 1);
        cluster.kubectl("kubectl config use-context jane@kubernetes", None, LIMIT_MS);
        let r = cluster.kubectl("kubectl --token=nope get pods", None, LIMIT_MS);
        assert_eq!(r.exit, Some(1));
        let mine = cluster.flow(r.chain).requests.into_iter().find(|p| p.client == "kubectl").unwrap();
        assert_eq!((mine.code, mine.stopped_at.as_deref()), (401, Some("authentication")));
        assert_eq!(mine.user, "");
    }
}
