//! `pods/log`, `pods/exec` and `pods/attach`: the apiserver reads the pod from etcd, checks the container name, finds its
//! node's kubelet from the Node object (InternalIP and `daemonEndpoints.kubeletEndpoint.Port`) and proxies
//! the request to it over the network; the kubelet's answer goes back to the client. A kubelet that does not
//! listen makes the request fail with the dial error. Counterpart: `pkg/registry/core/pod/rest/log.go` and
//! `subresources.go` (LogREST, ExecREST), `pkg/registry/core/pod/strategy.go` (LogLocation,
//! streamLocation), `pkg/kubelet/client` (NodeConnectionInfoGetter), the generic HTTP response checker.

use std::sync::Arc;

use crate::api::{ApiRequest, ApiResponse, ExecEnd, ExecResult, Kind, Object, Status, Verb};
use crate::node::{KubeletCall, KubeletMessage, KubeletReply, LogOptions};
use crate::sim::{ComponentId, Ctx, Payload};

use super::audit::Stage;
use super::{reply_warned, ApiServer, Pending};
use crate::etcd::Txn;

/// A request waiting for a kubelet's answer.
#[derive(Debug, Clone)]
pub(super) struct Proxied {
    client: ComponentId,
    request_id: u64,
    kubelet: ComponentId,
    /// `GET "https://192.168.56.11:10250/containerLogs/…"`: how transport errors name the request.
    url: String,
    exec: bool,
}

/// A followed log being passed on: to whom, under which id, from which kubelet.
#[derive(Debug, Clone)]
pub(super) struct LogStream {
    client: ComponentId,
    stream_id: u64,
    kubelet: ComponentId,
}

/// Whether the apiserver answers `req` by proxying it to a kubelet.
pub(super) fn is_proxied(req: &ApiRequest) -> bool {
    req.resource.kind == Kind::Pod
        && matches!(
            (req.verb, req.subresource.as_deref()),
            (Verb::Get, Some("log")) | (Verb::Create | Verb::Get, Some("exec" | "attach" | "portforward"))
        )
}

impl ApiServer {
    /// Where `address` (a node's InternalIP) routes to: that node's kubelet.
    pub fn add_kubelet_address(&mut self, address: &str, kubelet: ComponentId) {
        self.kubelet_addresses.insert(address.to_string(), kubelet);
    }

    /// Step one: the pod, read from etcd (the log and exec REST handlers get it from storage).
    pub(super) fn proxy_start(&mut self, ctx: &mut Ctx, client: ComponentId, request_id: u64, req: ApiRequest) {
        let key = req.resource.key(req.namespace.as_deref(), req.name.as_deref().unwrap_or(""));
        self.send_etcd(ctx, Pending::ProxyPod { client, request_id, req: Box::new(req) }, Txn::range(&key, false));
    }

    /// Step two: the pod is known (or not); check the container, find the kubelet, send it the request.
    pub(super) fn proxy_pod_read(
        &mut self,
        ctx: &mut Ctx,
        client: ComponentId,
        request_id: u64,
        req: &ApiRequest,
        pod: Option<Arc<Object>>,
    ) {
        let name = req.name.clone().unwrap_or_default();
        // exec and attach are streams the apiserver upgrades; a log is a plain GET.
        let exec = matches!(req.subresource.as_deref(), Some("exec" | "attach" | "portforward"));
        let forward = req.subresource.as_deref() == Some("portforward");
        let Some(Object::Pod(pod)) = pod.as_deref() else {
            let status = Status::not_found("pods", &name);
            return self.proxy_answer(
                ctx,
                client,
                request_id,
                ApiResponse::Error(status.clone()),
                &[(Stage::Storage, false, status.message)],
            );
        };
        let read = (Stage::Storage, true, format!("pod {name}"));
        // A port-forward is to the pod, not to one of its containers.
        let container = match container_for(pod, &name, req.params.container.as_deref().unwrap_or("")) {
            _ if forward => String::new(),
            Ok(c) => c,
            Err(status) => return self.proxy_answer(ctx, client, request_id, ApiResponse::Error(status), &[read]),
        };
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone()).unwrap_or_default();
        if node.is_empty() {
            // No host yet: logs have no location (204, nothing to print); exec cannot go anywhere.
            let response = if exec {
                ApiResponse::Error(Status::bad_request(format!("pod {name} does not have a host assigned")))
            } else {
                ApiResponse::Text(String::new())
            };
            return self.proxy_answer(ctx, client, request_id, response, &[read]);
        }
        let Some((ip, port)) = self.kubelet_endpoint(&node) else {
            let status = Status::not_found("nodes", &node);
            let stage = (Stage::Kubelet, false, status.message.clone());
            return self.proxy_answer(ctx, client, request_id, ApiResponse::Error(status), &[read, stage]);
        };
        let namespace = req.namespace.clone().unwrap_or_default();
        let p = &req.params;
        let call = if forward {
            KubeletCall::PortForward {
                namespace,
                pod: name.clone(),
                port: p.port,
                data: p.stdin.clone().unwrap_or_default(),
            }
        } else if req.subresource.as_deref() == Some("attach") {
            // `follow`: the container's output is passed on until it ends; `keep_stdin_open`: one more piece
            // of the input of a session that goes on.
            KubeletCall::Attach {
                namespace,
                pod: name.clone(),
                container,
                stdin: p.stdin.clone(),
                close_stdin: !p.keep_stdin_open,
                follow: p.follow,
            }
        } else if exec {
            KubeletCall::Exec {
                namespace,
                pod: name.clone(),
                container,
                command: p.command.clone(),
                stdin: p.stdin.clone(),
                tty: p.tty,
            }
        } else {
            let options = LogOptions {
                previous: p.previous,
                timestamps: p.timestamps,
                follow: p.follow,
                tail_lines: p.tail_lines,
                since_seconds: p.since_seconds,
                since_time: p.since_time.clone(),
                limit_bytes: p.limit_bytes,
            };
            KubeletCall::ContainerLogs { namespace, pod: name.clone(), container, options }
        };
        let url = format!("{} \"https://{ip}:{port}{}\"", go_method(call.method()), call.path());
        let Some(&kubelet) = self.kubelet_addresses.get(&ip) else {
            let reason = format!("dial tcp {ip}:{port}: connect: no route to host");
            return self.proxy_dial_failed(ctx, client, request_id, &url, exec, &reason);
        };
        let id = self.next_kubelet_id;
        self.next_kubelet_id += 1;
        self.proxied.insert(id, Proxied { client, request_id, kubelet, url, exec });
        self.log.stage(client, request_id, read.0, read.1, read.2);
        ctx.send(kubelet, Payload::Kubelet(Box::new(KubeletMessage::Request { id, call })));
    }

    /// The node's kubelet address and port, from the Node object.
    fn kubelet_endpoint(&self, node: &str) -> Option<(String, i32)> {
        let obj = self.cache.get(Kind::Node, None, node)?;
        let Object::Node(n) = obj.as_ref() else { return None };
        let status = n.status.as_ref();
        let ip = status
            .and_then(|s| s.addresses.as_ref())
            .and_then(|a| a.iter().find(|a| a.type_ == "InternalIP"))
            .map(|a| a.address.clone())
            .unwrap_or_else(|| node.to_string());
        let port = status
            .and_then(|s| s.daemon_endpoints.as_ref())
            .and_then(|d| d.kubelet_endpoint.as_ref())
            .map(|e| e.port)
            .filter(|p| *p > 0)
            .unwrap_or(i32::from(crate::node::kubelet::server::KUBELET_PORT));
        Some((ip, port))
    }

    /// A kubelet answered (or did not listen).
    pub(super) fn on_kubelet(&mut self, ctx: &mut Ctx, m: KubeletMessage) {
        match m {
            KubeletMessage::Reply { id, reply: KubeletReply::LogStream(text) } => {
                let Some(p) = self.proxied.remove(&id) else { return };
                let stream_id = self.next_watch_id;
                self.next_watch_id += 1;
                self.log_streams.insert(id, LogStream { client: p.client, stream_id, kubelet: p.kubelet });
                let response = ApiResponse::LogStream { stream_id, text };
                let stage = [(Stage::Kubelet, true, "200 (following)".to_string())];
                self.proxy_answer(ctx, p.client, p.request_id, response, &stage);
            }
            KubeletMessage::Stream { id, data } => {
                let Some(stream) = self.log_streams.get(&id) else { return };
                let (client, watch_id) = (stream.client, stream.stream_id);
                match data {
                    Some(text) => ctx.send(client, Payload::LogChunk { watch_id, text }),
                    None => {
                        self.log_streams.remove(&id);
                        ctx.send(client, Payload::WatchEnded { watch_id });
                    }
                }
            }
            KubeletMessage::Reply { id, reply } => {
                let Some(p) = self.proxied.remove(&id) else { return };
                let (response, passed, detail) = translate(&p, reply);
                let stage = [(Stage::Kubelet, passed, detail)];
                self.proxy_answer(ctx, p.client, p.request_id, response, &stage);
            }
            KubeletMessage::Refused { id } => {
                let Some(p) = self.proxied.remove(&id) else { return };
                let reason = format!("dial tcp {}: connect: connection refused", host_of(&p.url));
                self.proxy_dial_failed(ctx, p.client, p.request_id, &p.url, p.exec, &reason);
            }
            KubeletMessage::Request { .. } | KubeletMessage::Cancel { .. } => {}
        }
    }

    /// Whether `watch_id` is a followed log of `client`'s.
    pub(super) fn is_log_stream(&self, client: ComponentId, watch_id: u64) -> bool {
        self.log_streams.values().any(|s| s.client == client && s.stream_id == watch_id)
    }

    /// The client hung up on a followed log: the kubelet's stream is closed too.
    pub(super) fn close_log_stream(&mut self, ctx: &mut Ctx, watch_id: u64) {
        let Some((&id, stream)) = self.log_streams.iter().find(|(_, s)| s.stream_id == watch_id) else { return };
        let kubelet = stream.kubelet;
        self.log_streams.remove(&id);
        ctx.send(kubelet, Payload::Kubelet(Box::new(KubeletMessage::Cancel { id })));
    }

    /// A kubelet went away with requests in flight.
    pub(super) fn kubelet_gone(&mut self, ctx: &mut Ctx, peer: ComponentId) {
        // A followed log ends with its kubelet (the stream's connection is gone).
        let ended: Vec<u64> = self.log_streams.iter().filter(|(_, s)| s.kubelet == peer).map(|(id, _)| *id).collect();
        for id in ended {
            if let Some(s) = self.log_streams.remove(&id) {
                ctx.send(s.client, Payload::WatchEnded { watch_id: s.stream_id });
            }
        }
        let lost: Vec<u64> = self.proxied.iter().filter(|(_, p)| p.kubelet == peer).map(|(id, _)| *id).collect();
        for id in lost {
            if let Some(p) = self.proxied.remove(&id) {
                self.proxy_dial_failed(ctx, p.client, p.request_id, &p.url, p.exec, "EOF");
            }
        }
    }

    /// The transport error of a request the kubelet never answered: the log streamer's `Get "<url>": <err>`,
    /// or the upgrade proxy's `error dialing backend: <err>`; no reason, so kubectl prints `Error from server:`.
    fn proxy_dial_failed(
        &mut self,
        ctx: &mut Ctx,
        client: ComponentId,
        request_id: u64,
        url: &str,
        exec: bool,
        reason: &str,
    ) {
        let message = if exec { format!("error dialing backend: {reason}") } else { format!("{url}: {reason}") };
        let status = Status::storage(message);
        let stage = (Stage::Kubelet, false, status.message.clone());
        self.proxy_answer(ctx, client, request_id, ApiResponse::Error(status), &[stage]);
    }

    /// Records the stages and answers the client.
    pub(super) fn proxy_answer(
        &mut self,
        ctx: &mut Ctx,
        client: ComponentId,
        request_id: u64,
        response: ApiResponse,
        stages: &[(Stage, bool, String)],
    ) {
        for (stage, passed, detail) in stages {
            self.log.stage(client, request_id, *stage, *passed, detail.clone());
        }
        let code = match &response {
            ApiResponse::Error(s) => s.code,
            ApiResponse::Text(t) if t.is_empty() => 204,
            ApiResponse::Exec(r) => match &r.end {
                ExecEnd::NotUpgraded(_) => 500,
                _ => 101,
            },
            _ => 200,
        };
        self.log.close(client, request_id, code, None);
        reply_warned(ctx, client, request_id, response, Vec::new());
    }
}

/// The kubelet's answer as the apiserver passes it on: logs as text; errors through the generic HTTP response
/// checker (400 → BadRequest with the body, 404 → NotFound, others → InternalError); exec streams as they ran.
fn translate(p: &Proxied, reply: KubeletReply) -> (ApiResponse, bool, String) {
    match reply {
        KubeletReply::Logs(text) | KubeletReply::LogStream(text) => (ApiResponse::Text(text), true, "200".into()),
        KubeletReply::Metrics(_) => {
            (ApiResponse::Error(Status::internal("unexpected metrics answer")), false, "200".into())
        }
        KubeletReply::Exec(result) => {
            let detail = match &result.end {
                ExecEnd::Success => "exit code 0".to_string(),
                ExecEnd::ExitCode(c) => format!("exit code {c}"),
                ExecEnd::Failure(e) | ExecEnd::NotUpgraded(e) => e.clone(),
            };
            (ApiResponse::Exec(result), true, detail)
        }
        KubeletReply::Error { code, body } if p.exec => {
            let result = ExecResult { end: ExecEnd::NotUpgraded(body.clone()), ..ExecResult::default() };
            (ApiResponse::Exec(result), false, format!("{code} {body}"))
        }
        KubeletReply::Error { code, body } => {
            let status = match code {
                400 => Status::bad_request(body.clone()),
                404 => {
                    let name =
                        p.url.rsplit('/').next().unwrap_or("").split('?').next().unwrap_or("").trim_end_matches('"');
                    let mut s = Status::no_such_resource();
                    s.message = format!("{} ( pods/log {name})", s.message);
                    s
                }
                _ => Status::internal(body.clone()),
            };
            (ApiResponse::Error(status), false, format!("{code} {body}"))
        }
    }
}

/// Which container a log or exec request means (`validateContainer`): the one named, or the pod's only one.
fn container_for(pod: &crate::api::api::core::v1::Pod, name: &str, wanted: &str) -> Result<String, Status> {
    let spec = pod.spec.clone().unwrap_or_default();
    let names =
        |cs: &[crate::api::api::core::v1::Container]| cs.iter().map(|c| c.name.clone()).collect::<Vec<_>>().join(" ");
    let inits = spec.init_containers.clone().unwrap_or_default();
    let ephemeral: Vec<String> = spec.ephemeral_containers.iter().flatten().map(|c| c.name.clone()).collect();
    if wanted.is_empty() {
        return match spec.containers.len() {
            1 => Ok(spec.containers[0].name.clone()),
            0 => Err(Status::bad_request(format!("a container name must be specified for pod {name}"))),
            _ => {
                let mut msg = format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    names(&spec.containers)
                );
                if !inits.is_empty() {
                    msg.push_str(&format!(" or one of the init containers: [{}]", names(&inits)));
                }
                if !ephemeral.is_empty() {
                    msg.push_str(&format!(" or one of the ephemeral containers: [{}]", ephemeral.join(" ")));
                }
                Err(Status::bad_request(msg))
            }
        };
    }
    if spec.containers.iter().chain(&inits).any(|c| c.name == wanted) || ephemeral.iter().any(|c| c == wanted) {
        Ok(wanted.to_string())
    } else {
        Err(Status::bad_request(format!("container {wanted} is not valid for pod {name}")))
    }
}

/// `Get`, `Post`: how Go's url.Error names the method.
fn go_method(method: &str) -> String {
    let lower = method.to_ascii_lowercase();
    let mut c = lower.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// `192.168.56.11:10250` out of `Get "https://192.168.56.11:10250/…"`.
fn host_of(url: &str) -> &str {
    url.split("https://").nth(1).and_then(|r| r.split('/').next()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(containers: &[&str], inits: &[&str]) -> crate::api::api::core::v1::Pod {
        let c = |n: &&str| crate::api::api::core::v1::Container { name: n.to_string(), ..Default::default() };
        crate::api::api::core::v1::Pod {
            spec: Some(crate::api::api::core::v1::PodSpec {
                containers: containers.iter().map(c).collect(),
                init_containers: (!inits.is_empty()).then(|| inits.iter().map(c).collect()),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_container_must_be_named_when_the_pod_has_several() {
        assert_eq!(container_for(&pod(&["web"], &[]), "p", ""), Ok("web".into()));
        let err = container_for(&pod(&["a", "b"], &["init"]), "p", "").err().map(|s| s.message).unwrap_or_default();
        assert_eq!(
            err,
            "a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [init]"
        );
        let err = container_for(&pod(&["a"], &[]), "p", "zz").err().map(|s| s.kubectl_line()).unwrap_or_default();
        assert_eq!(err, "Error from server (BadRequest): container zz is not valid for pod p");
    }

    #[test]
    fn transport_errors_name_the_url_as_go_does() {
        assert_eq!(go_method("GET"), "Get");
        assert_eq!(host_of("Get \"https://192.168.56.11:10250/containerLogs/a/b/c\""), "192.168.56.11:10250");
    }
}
