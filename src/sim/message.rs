//! What travels between components: API requests and responses, watch events, etcd traffic, and the
//! network's own notices (a refused connection, a connection reset by a stopped peer).

use super::{ChainId, ComponentId, SimTime};
use crate::api::{ApiRequest, ApiResponse, WatchEvent};
use crate::etcd::EtcdMessage;
use crate::node::runtime::CriMessage;
use crate::node::KubeletMessage;

/// One message on the wire, with the times the UI animates between.
#[derive(Debug)]
pub struct Envelope {
    pub id: u64,
    pub from: ComponentId,
    pub to: ComponentId,
    /// The receiver's incarnation at send time; a restarted receiver never gets it.
    pub to_incarnation: u32,
    pub sent: SimTime,
    pub deliver: SimTime,
    pub chain: ChainId,
    pub payload: Payload,
}

#[derive(Debug)]
pub enum Payload {
    ApiRequest {
        request_id: u64,
        request: Box<ApiRequest>,
    },
    ApiResponse {
        request_id: u64,
        response: Box<ApiResponse>,
        /// `Warning` headers (admission warnings); clients print them before the result.
        warnings: Vec<String>,
    },
    WatchEvent {
        watch_id: u64,
        event: Box<WatchEvent>,
    },
    Etcd(EtcdMessage),
    /// The kubelet and its node's containerd (CRI over the local socket).
    Cri(Box<crate::node::runtime::CriMessage>),
    /// kube-apiserver and a kubelet's HTTPS server on :10250 (container logs, exec).
    Kubelet(Box<KubeletMessage>),
    /// The server ended a watch (its `timeoutSeconds` ran out, or an ERROR event was its last) or a followed
    /// log (its container exited): the client's stream is over.
    WatchEnded {
        watch_id: u64,
    },
    /// More of a followed log for the client (its end is a [`Payload::WatchEnded`], as a watch's is).
    LogChunk {
        watch_id: u64,
        text: String,
    },
    /// The client closed a watch's stream (Ctrl-C on `kubectl get -w`, a real client hanging up): the
    /// apiserver stops sending its events.
    WatchClosed {
        watch_id: u64,
    },
    /// `GET /healthz` on a control-plane component's secure port (kube-scheduler :10259,
    /// kube-controller-manager :10257), as the apiserver's ComponentStatus probes send it over loopback.
    Healthz {
        id: u64,
    },
    /// Its answer: the body (`ok`), or why there was none (`connection refused`).
    HealthzReply {
        id: u64,
        result: Result<String, String>,
    },
    /// The network's answer to a network program a container's process ran ([`super::Command::Connect`]).
    NetAnswer {
        id: u64,
        answer: Box<crate::node::net::NetAnswer>,
    },
    /// The receiver was not listening: the request with this id fails at once (TCP RST on connect).
    ConnectionRefused {
        request_id: u64,
    },
    /// An established connection to `peer` is gone: the peer stopped at `since`. Requests sent before
    /// then will never be answered.
    Disconnected {
        peer: ComponentId,
        since: SimTime,
    },
}

impl Payload {
    /// A short label for arrows and traces: `create pods`, `ADDED pods`, `etcd put`.
    pub fn label(&self) -> String {
        match self {
            Payload::ApiRequest { request, .. } => request.summary(),
            Payload::ApiResponse { response, .. } => match response.as_ref() {
                ApiResponse::Error(s) => format!("{} {}", s.code, s.reason.as_str()),
                ApiResponse::List { items, .. } => format!("200 OK ({} items)", items.len()),
                ApiResponse::Table(t) if t.list.is_some() => format!("200 OK (table of {} rows)", t.rows.len()),
                ApiResponse::Table(_) => "200 OK (table)".into(),
                ApiResponse::WatchStarted { .. } => "200 OK (watching)".into(),
                ApiResponse::Exec(_) => "101 Switching Protocols".into(),
                ApiResponse::Raw { code, .. } => code.to_string(),
                ApiResponse::Object(_) | ApiResponse::Text(_) => "200 OK".into(),
                ApiResponse::LogStream { .. } => "200 OK (following)".into(),
            },
            Payload::LogChunk { text, .. } => format!("log +{} lines", text.lines().count()),
            Payload::WatchEvent { event, .. } => {
                let resource = event.object.as_ref().map(|o| o.info().resource).unwrap_or("");
                format!("{} {resource}", event.kind.as_str())
            }
            Payload::Etcd(m) => m.label(),
            Payload::Cri(m) => match m.as_ref() {
                CriMessage::Request { call, .. } => call.name().to_string(),
                CriMessage::Reply { result: Ok(_), .. } => "OK".into(),
                CriMessage::Reply { result: Err(_), .. } => "error".into(),
                CriMessage::Exited { .. } => "container exited".into(),
                CriMessage::Refused { .. } => "connection refused".into(),
            },
            Payload::Kubelet(m) => m.label(),
            Payload::Healthz { .. } => "GET /healthz".into(),
            Payload::HealthzReply { result: Ok(body), .. } => format!("200 {body}"),
            Payload::HealthzReply { result: Err(e), .. } => e.clone(),
            Payload::WatchClosed { .. } => "close watch".into(),
            Payload::WatchEnded { .. } => "watch ended".into(),
            Payload::ConnectionRefused { .. } => "connection refused".into(),
            Payload::NetAnswer { answer, .. } => format!("network answer (exit {})", answer.exit_code),
            Payload::Disconnected { .. } => "connection reset".into(),
        }
    }

    /// `pods default/web-x`: the object a message is about, when there is one.
    pub fn object_ref(&self) -> Option<String> {
        match self {
            Payload::ApiRequest { request, .. } => {
                let name = request
                    .name
                    .clone()
                    .or_else(|| request.body.as_ref().map(|b| b.name().to_string()))
                    .unwrap_or_default();
                let ns = request.namespace.clone().map(|n| format!("{n}/")).unwrap_or_default();
                (!name.is_empty()).then(|| format!("{} {ns}{name}", request.resource.resource))
            }
            Payload::ApiResponse { response, .. } => match response.as_ref() {
                ApiResponse::Object(o) => Some(format!("{} {}", o.info().resource, o.ns_name())),
                _ => None,
            },
            Payload::WatchEvent { event, .. } => {
                event.object.as_ref().map(|o| format!("{} {}", o.info().resource, o.ns_name()))
            }
            Payload::Etcd(m) => m.key().map(str::to_string),
            Payload::Kubelet(m) => m.object_ref(),
            _ => None,
        }
    }

    /// The etcd revision a message carries, when it carries one.
    pub fn revision(&self) -> Option<u64> {
        match self {
            Payload::ApiResponse { response, .. } => match response.as_ref() {
                ApiResponse::Object(o) => Some(o.resource_version()),
                ApiResponse::List { resource_version, .. } => Some(*resource_version),
                _ => None,
            },
            Payload::WatchEvent { event, .. } => Some(event.resource_version),
            Payload::Etcd(m) => m.revision(),
            _ => None,
        }
    }

    /// What the sender learns when the receiver is not listening.
    pub fn refusal(&self) -> Option<Payload> {
        match self {
            Payload::ApiRequest { request_id, .. } => Some(Payload::ConnectionRefused { request_id: *request_id }),
            Payload::Etcd(m) => m.request_id().map(|request_id| Payload::ConnectionRefused { request_id }),
            Payload::Cri(m) => match m.as_ref() {
                CriMessage::Request { id, .. } => Some(Payload::Cri(Box::new(CriMessage::Refused { id: *id }))),
                _ => None,
            },
            Payload::Healthz { id } => {
                Some(Payload::HealthzReply { id: *id, result: Err("connect: connection refused".into()) })
            }
            Payload::Kubelet(m) => match m.as_ref() {
                KubeletMessage::Request { id, .. } => {
                    Some(Payload::Kubelet(Box::new(KubeletMessage::Refused { id: *id })))
                }
                _ => None,
            },
            _ => None,
        }
    }

    pub fn is_request(&self) -> bool {
        matches!(self, Payload::ApiRequest { .. } | Payload::Healthz { .. })
            || matches!(self, Payload::Cri(m) if matches!(m.as_ref(), CriMessage::Request { .. }))
            || matches!(self, Payload::Etcd(m) if m.request_id().is_some())
            || matches!(self, Payload::Kubelet(m) if matches!(m.as_ref(), KubeletMessage::Request { .. }))
    }
}
