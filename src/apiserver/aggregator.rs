//! The aggregation layer: requests for `metrics.k8s.io` are passed on to the backend of the
//! `v1beta1.metrics.k8s.io` APIService (metrics-server) after authentication and authorization, and its
//! answer goes back to the client as it came. Without metrics-server the group does not exist (404, `the
//! server could not find the requested resource`); with it stopped the APIService is unavailable (503).
//! Counterpart: `k8s.io/kube-aggregator` (`pkg/apiserver/handler_proxy.go`).

use crate::api::{ApiRequest, ApiResponse, Status};
use crate::sim::{ComponentId, Ctx, Payload};

use super::audit::Stage;
use super::ApiServer;

/// Our ids for requests passed on, apart from those of etcd requests (which start at 1).
pub(super) const FIRST_ID: u64 = 1 << 60;

/// Whether `req` is for an aggregated API.
pub(super) fn is_aggregated(req: &ApiRequest) -> bool {
    req.resource.group == crate::metrics::api::GROUP
}

impl ApiServer {
    /// metrics-server registered its APIService: `metrics.k8s.io` goes to `server`.
    pub fn set_metrics_server(&mut self, server: ComponentId) {
        self.metrics_server = Some(server);
    }

    pub(super) fn aggregate(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest) {
        let Some(backend) = self.metrics_server else {
            let status = Status::no_such_resource();
            let stage = (Stage::Aggregator, false, status.message.clone());
            return self.proxy_answer(ctx, client, request_id, ApiResponse::Error(status), &[stage]);
        };
        let id = self.next_aggregated_id;
        self.next_aggregated_id += 1;
        self.aggregated.insert(id, (client, request_id));
        ctx.send(backend, Payload::ApiRequest { request_id: id, request: Box::new(req) });
    }

    /// The backend answered.
    pub(super) fn aggregated_answer(&mut self, ctx: &mut Ctx, id: u64, response: ApiResponse) {
        let Some((client, request_id)) = self.aggregated.remove(&id) else { return };
        let detail = match &response {
            ApiResponse::Error(s) => format!("{} {}", s.code, s.message),
            _ => "200".to_string(),
        };
        let passed = !matches!(response, ApiResponse::Error(_));
        self.proxy_answer(ctx, client, request_id, response, &[(Stage::Aggregator, passed, detail)]);
    }

    /// The backend did not listen: the APIService is unavailable.
    pub(super) fn aggregated_refused(&mut self, ctx: &mut Ctx, id: u64) {
        let Some((client, request_id)) = self.aggregated.remove(&id) else { return };
        self.aggregated_unavailable(ctx, client, request_id);
    }

    /// The backend went away with requests in flight.
    pub(super) fn aggregated_gone(&mut self, ctx: &mut Ctx, peer: ComponentId) {
        if Some(peer) != self.metrics_server {
            return;
        }
        for (_, (client, request_id)) in std::mem::take(&mut self.aggregated) {
            self.aggregated_unavailable(ctx, client, request_id);
        }
    }

    fn aggregated_unavailable(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64) {
        let status = Status::service_unavailable("the server is currently unable to handle the request");
        let stage = (Stage::Aggregator, false, "service unavailable".to_string());
        self.proxy_answer(ctx, client, request_id, ApiResponse::Error(status), &[stage]);
    }
}
