//! `componentstatuses` (core/v1, deprecated since v1.19 and still served): not stored; each read probes the
//! control plane from the apiserver's host — kube-scheduler's and kube-controller-manager's `/healthz` on
//! their secure loopback ports (10259, 10257) and the etcd backend — and answers with one ComponentStatus
//! per server, in the order the probes come back, each with a `Healthy` condition. A stopped component
//! answers nothing: its probe fails with the dial error in the message, as the HTTP prober reports it.
//! Counterpart: `pkg/registry/core/componentstatus/rest.go`, `validator.go`, `storage_core.go`
//! (`serversToValidate`), the `Warning: v1 ComponentStatus is deprecated in v1.19+` of the deprecation filter.

use std::sync::Arc;

use k8s_openapi::api::core::v1::{ComponentCondition, ComponentStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{ApiRequest, ApiResponse, Object, Status, Verb};
use crate::sim::{ComponentId, Ctx, Payload};

use super::{reply_warned, ApiServer};

/// The deprecation warning every ComponentStatus answer carries.
pub const DEPRECATION: &str = "v1 ComponentStatus is deprecated in v1.19+";

/// The name of the etcd backend's entry (one storage backend: `etcd-0`).
const ETCD: &str = "etcd-0";

/// One read waiting for its probes.
#[derive(Debug, Clone)]
pub(super) struct Survey {
    client: ComponentId,
    request_id: u64,
    /// `get cs NAME`: only that server.
    name: Option<String>,
    /// Names still to answer.
    waiting: Vec<String>,
    /// Answers in the order they came.
    answers: Vec<ComponentStatus>,
}

/// A component's local secure port, for its probe.
#[derive(Debug, Clone)]
pub(super) struct LocalServer {
    pub name: &'static str,
    pub port: u16,
    pub component: ComponentId,
}

fn status(name: &str, healthy: bool, message: &str, error: &str) -> ComponentStatus {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    ComponentStatus {
        metadata: ObjectMeta { name: Some(name.to_string()), ..Default::default() },
        conditions: Some(vec![ComponentCondition {
            type_: "Healthy".into(),
            status: if healthy { "True" } else { "False" }.into(),
            message: some(message),
            error: some(error),
        }]),
    }
}

impl ApiServer {
    /// kube-scheduler or kube-controller-manager listening on `port` of this host's loopback.
    pub fn add_local_server(&mut self, name: &'static str, port: u16, component: ComponentId) {
        self.local_servers.retain(|s| s.name != name);
        self.local_servers.push(LocalServer { name, port, component });
    }

    /// A get or list of componentstatuses: probe every server (or the one named), answer when all are back.
    pub(super) fn component_status(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: &ApiRequest) {
        if !matches!(req.verb, Verb::Get | Verb::List) {
            return self.respond(ctx, client, request_id, super::review::not_allowed(req));
        }
        let mut names: Vec<String> = self.local_servers.iter().map(|s| s.name.to_string()).collect();
        names.push(ETCD.to_string());
        if let Some(name) = &req.name {
            if !names.contains(name) {
                let response = ApiResponse::Error(Status::not_found("componentstatuses", name));
                return reply_warned(ctx, client, request_id, response, vec![DEPRECATION.into()]);
            }
            names.retain(|n| n == name);
        }
        let id = self.next_survey_id;
        self.next_survey_id += 1;
        let survey = Survey { client, request_id, name: req.name.clone(), waiting: names.clone(), answers: Vec::new() };
        self.surveys.insert(id, survey);
        for server in self.local_servers.clone() {
            if names.iter().any(|n| n == server.name) {
                let probe = self.next_survey_id;
                self.next_survey_id += 1;
                self.probes.insert(probe, (id, server.name, server.port));
                ctx.send(server.component, Payload::Healthz { id: probe });
            }
        }
        if names.iter().any(|n| n == ETCD) {
            self.etcd_surveys.push(id);
            self.probe_etcd(ctx);
        }
    }

    /// A component's `/healthz` answered, or its port refused the connection.
    pub(super) fn on_healthz(&mut self, ctx: &mut Ctx, probe: u64, result: Result<String, String>) {
        let Some((survey, name, port)) = self.probes.remove(&probe) else { return };
        let answer = match result {
            Ok(body) => status(name, body == "ok", &body, ""),
            // The HTTP prober turns a transport error into a failure whose output is the error.
            Err(e) => status(
                name,
                false,
                &format!("Get \"https://127.0.0.1:{port}/healthz\": dial tcp 127.0.0.1:{port}: {e}"),
                "",
            ),
        };
        self.survey_answer(ctx, survey, answer);
    }

    /// The etcd probe ended: every survey waiting for it gets the backend's entry.
    pub(super) fn etcd_surveyed(&mut self, ctx: &mut Ctx, etcd: &Result<(), String>) {
        for survey in std::mem::take(&mut self.etcd_surveys) {
            let answer = match etcd {
                Ok(()) => status(ETCD, true, "ok", ""),
                Err(e) => status(ETCD, false, "", e),
            };
            self.survey_answer(ctx, survey, answer);
        }
    }

    fn survey_answer(&mut self, ctx: &mut Ctx, id: u64, answer: ComponentStatus) {
        let Some(survey) = self.surveys.get_mut(&id) else { return };
        let name = answer.metadata.name.clone().unwrap_or_default();
        survey.waiting.retain(|n| *n != name);
        survey.answers.push(answer);
        if !survey.waiting.is_empty() {
            return;
        }
        let Some(survey) = self.surveys.remove(&id) else { return };
        let mut items = survey.answers.into_iter().map(|s| Arc::new(Object::ComponentStatus(Box::new(s))));
        let response = match survey.name {
            Some(_) => match items.next() {
                Some(o) => ApiResponse::Object(o),
                None => ApiResponse::Error(Status::internal("no component answered")),
            },
            None => ApiResponse::List { items: items.collect(), resource_version: 0, more: None },
        };
        reply_warned(ctx, survey.client, survey.request_id, response, vec![DEPRECATION.into()]);
    }
}
