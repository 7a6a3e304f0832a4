//! The wire: TLS (rustls, client certificates verified against the cluster CA and read for the user and
//! groups), HTTP/1.1 and HTTP/2 (hyper), and for each request the path from headers and body to an API
//! request handed to the engine, then from its answer to a response: a body written by the apiserver's
//! `rest` module, `Warning` headers, and a watch as a stream of JSON lines that ends when the client
//! hangs up.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited};
use hyper::body::{Body, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::engine::{Command, OwnedHttp};
use super::exec;
use super::pki::{client_subject, ClientSubject, Pki};
use super::portforward;
use crate::api::{lookup, ApiRequest, ApiResponse, Credentials, ResourceInfo, Status, Verb};
use crate::apiserver::discovery;
use crate::apiserver::rest::{self, HttpAnswer, HttpRequest, Routed};
use crate::cluster::{client_name, RemoteEvent};
use crate::sim::SimTime;

/// kube-apiserver's `--max-request-body-bytes` default (3 MiB): a larger body is refused with 413.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

type ResponseBody = BoxBody<Bytes, Infallible>;

/// The TLS server configuration: the serving certificate, client certificates optional (a token or no
/// credentials at all reach the authentication filter too) but verified against the cluster CA when sent.
pub fn tls_acceptor(pki: &Pki) -> Result<TlsAcceptor, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(pki.ca_der.clone())).map_err(|e| format!("cluster CA: {e}"))?;
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .allow_unauthenticated()
        .build()
        .map_err(|e| format!("client verifier: {e}"))?;
    let chain = vec![CertificateDer::from(pki.serving.cert_der.clone())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.serving.key_der.clone()));
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(|e| format!("serving certificate: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Accepts connections on 127.0.0.1:`port` until the process ends. While kube-apiserver is not running
/// (`listening` false) nothing listens there, so a client's connection is refused exactly as by a stopped
/// apiserver (`The connection to the server … was refused`); the port is bound again when it runs.
pub async fn accept(
    port: u16,
    listener: TcpListener,
    acceptor: TlsAcceptor,
    commands: mpsc::Sender<Command>,
    mut listening: watch::Receiver<bool>,
) {
    let mut listener = Some(listener);
    loop {
        let Some(bound) = listener.take() else {
            if listening.changed().await.is_err() {
                return;
            }
            if *listening.borrow() {
                listener = TcpListener::bind(("127.0.0.1", port)).await.ok();
            }
            continue;
        };
        tokio::select! {
            accepted = bound.accept() => {
                listener = Some(bound);
                if let Ok((tcp, _)) = accepted {
                    tokio::spawn(connection(tcp, acceptor.clone(), commands.clone()));
                }
            }
            changed = listening.changed() => {
                if changed.is_err() {
                    return;
                }
                if *listening.borrow() {
                    listener = Some(bound);
                }
                // Otherwise the socket closes here: connections are refused until the apiserver runs.
            }
        }
    }
}

/// One client connection: the TLS handshake, its certificate's subject, then HTTP until it closes.
async fn connection(tcp: tokio::net::TcpStream, acceptor: TlsAcceptor, commands: mpsc::Sender<Command>) {
    // A client that fails the handshake (an unknown CA, a certificate not signed by ours) is gone.
    let Ok(tls) = acceptor.accept(tcp).await else { return };
    let subject = tls.get_ref().1.peer_certificates().and_then(|c| c.first()).and_then(|c| client_subject(c.as_ref()));
    let service = hyper::service::service_fn(move |req| handle(req, subject.clone(), commands.clone()));
    let _ = auto::Builder::new(TokioExecutor::new()).serve_connection_with_upgrades(TokioIo::new(tls), service).await;
}

/// The transport failed below HTTP (the simulated apiserver is not listening): the connection is dropped.
#[derive(Debug)]
struct Dropped(&'static str);

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Dropped {}

async fn handle(
    req: Request<Incoming>,
    subject: Option<ClientSubject>,
    commands: mpsc::Sender<Command>,
) -> Result<Response<ResponseBody>, Dropped> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let (content_type, user_agent) = (header("content-type"), header("user-agent").unwrap_or_default());
    // SPDY is served for port-forward only: an exec over SPDY (a client's fallback after WebSocket) is
    // answered as a plain request, with the apiserver's error or that it must be upgraded to WebSocket.
    let spdy_forward = portforward::is_spdy(&req) && req.uri().path().ends_with("/portforward");
    if exec::is_websocket(&req) || spdy_forward {
        return upgrade(req, subject, commands).await;
    }
    let (authorization, impersonate) = (header("authorization"), header("impersonate-user"));
    let table = rest::wants_table(header("accept").as_deref());
    let aggregated = discovery::wants_aggregated(header("accept").as_deref());
    let if_none_match = header("if-none-match");
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let body = match Limited::new(req.into_body(), MAX_REQUEST_BODY_BYTES).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            let mut s = Status::bad_request("the server has rejected the request because it is too large");
            s.code = 413;
            return Ok(plain(&HttpAnswer::status(&s), &[]));
        }
    };
    let credentials = credentials(subject, authorization.as_deref());
    let http =
        HttpRequest { method: &method, path: &path, query: &query, content_type: content_type.as_deref(), body: &body };
    let routed = match rest::route(&http) {
        // A path no built-in resource serves may be a custom resource's: the apiserver's definitions say.
        Err(answer) if answer.code == 404 && path.starts_with("/apis/") => {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let owned = OwnedHttp {
                method: method.clone(),
                path: path.clone(),
                query: query.clone(),
                content_type: content_type.clone(),
                body: body.to_vec(),
            };
            if commands.send(Command::Route { http: owned, reply }).is_err() {
                return Err(Dropped("the engine has stopped"));
            }
            answer.await.map_err(|_| Dropped("the engine has stopped"))?
        }
        other => other,
    };
    let (mut request, info) = match routed {
        Err(answer) => return Ok(plain(&answer, &[])),
        Ok(Routed::Api(r)) => {
            let info = r.resource;
            (*r, Some(info))
        }
        Ok(Routed::NonResource(p)) => {
            let mut r = ApiRequest::new(
                Credentials::Anonymous,
                Verb::Get,
                lookup("namespaces").expect("namespaces are served"),
            );
            r.non_resource_path = Some(p);
            r.params.aggregated_discovery = aggregated && discovery::is_aggregated_path(&path);
            (r, None)
        }
    };
    request.impersonate = impersonate;
    // A custom resource's Table is made by the apiserver, from its definition's columns.
    request.params.as_table = table && matches!(request.resource.kind, crate::api::Kind::Custom(_));
    let created = rest::answers_created(&request);
    let (reply, mut events) = unbounded_channel();
    let call = Command::Call { client: client_name(&user_agent), credentials, request: Box::new(request), reply };
    if commands.send(call).is_err() {
        return Err(Dropped("the engine has stopped"));
    }
    let include = table.then(|| rest::IncludeObject::from_query(&query));
    match events.recv().await {
        Some((RemoteEvent::Answer { result: Ok(ApiResponse::WatchStarted { table: columns, .. }), warnings }, _)) => {
            let info = info.expect("only resource requests watch");
            let body = WatchBody { events, info, table: include, columns, first: true };
            let mut response = Response::new(body.boxed());
            set_headers(&mut response, "application/json", &warnings);
            Ok(response)
        }
        Some((RemoteEvent::Answer { result: Ok(ApiResponse::LogStream { text, .. }), warnings }, _)) => {
            // A followed log: what exists now, then each chunk as the kubelet passes it on.
            let first = Some(Bytes::from(text));
            let mut response = Response::new(LogBody { events, first }.boxed());
            set_headers(&mut response, "text/plain", &warnings);
            Ok(response)
        }
        Some((RemoteEvent::Answer { result: Ok(ApiResponse::Raw { code: 200, body }), warnings }, _))
            if aggregated && info.is_none() && discovery::is_aggregated_path(&path) =>
        {
            // The aggregated list the apiserver's discovery wrote, or 304 when the client's copy is current.
            let etag = discovery::etag(&body);
            let fresh = if_none_match.as_deref() == Some(etag.as_str());
            let answer = HttpAnswer {
                code: if fresh { 304 } else { 200 },
                content_type: discovery::AGGREGATED_MEDIA_TYPE,
                body: if fresh { String::new() } else { body.clone() },
            };
            let mut response = plain(&answer, &warnings);
            let headers = response.headers_mut();
            if let Ok(v) = etag.parse() {
                headers.insert("etag", v);
            }
            headers.insert("vary", hyper::header::HeaderValue::from_static("Accept"));
            Ok(response)
        }
        Some((RemoteEvent::Answer { result: Ok(answer), warnings }, now)) => {
            let mut written = match (info, include) {
                (Some(info), Some(include)) => rest::table_answer(info, &answer, now, include),
                _ => rest::answer(info, &answer),
            };
            if created && written.code == 200 {
                written.code = 201;
            }
            Ok(plain(&written, &warnings))
        }
        Some((RemoteEvent::Answer { result: Err(_), .. }, _)) | None => Err(Dropped("connection refused")),
        Some(_) => Err(Dropped("unexpected event before the answer")),
    }
}

/// Who a request is from: its client certificate's subject, else its bearer token, else nobody.
fn credentials(subject: Option<ClientSubject>, authorization: Option<&str>) -> Credentials {
    match (subject, authorization.and_then(|a| a.strip_prefix("Bearer "))) {
        (Some(s), _) => Credentials::ClientCert { common_name: s.user, organizations: s.groups },
        (None, Some(token)) => Credentials::Token(token.trim().to_string()),
        (None, None) => Credentials::Anonymous,
    }
}

/// A request to be upgraded: exec's or attach's stream to WebSocket, port-forward's to SPDY/3.1 or to SPDY
/// tunnelled through WebSocket (anything else is refused as a plain request would be answered).
async fn upgrade(
    req: Request<Incoming>,
    subject: Option<ClientSubject>,
    commands: mpsc::Sender<Command>,
) -> Result<Response<ResponseBody>, Dropped> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let user_agent = header("user-agent").unwrap_or_default();
    let credentials = credentials(subject, header("authorization").as_deref());
    let (method, path, query) =
        (req.method().to_string(), req.uri().path().to_string(), req.uri().query().unwrap_or("").to_string());
    let http = HttpRequest { method: &method, path: &path, query: &query, content_type: None, body: &[] };
    let websocket = exec::is_websocket(&req);
    let mut request = match rest::route(&http) {
        Err(answer) => return Ok(plain(&answer, &[])),
        Ok(Routed::Api(r)) if r.subresource.as_deref() == Some("portforward") => *r,
        Ok(Routed::Api(r)) if websocket && matches!(r.subresource.as_deref(), Some("exec" | "attach")) => *r,
        Ok(_) => {
            let status = Status::bad_request(
                "the server upgrades exec and attach requests to WebSocket, port-forward requests to SPDY/3.1",
            );
            return Ok(plain(&HttpAnswer::status(&status), &[]));
        }
    };
    request.impersonate = header("impersonate-user");
    let client = client_name(&user_agent);
    let response = if request.subresource.as_deref() == Some("portforward") {
        portforward::serve(req, request, client, credentials, commands).await
    } else {
        exec::serve(req, request, client, credentials, commands).await
    };
    response.ok_or(Dropped("the engine has stopped"))
}

pub(super) fn plain(answer: &HttpAnswer, warnings: &[String]) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(Bytes::from(answer.body.clone())).boxed());
    *response.status_mut() =
        hyper::StatusCode::from_u16(answer.code).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    set_headers(&mut response, answer.content_type, warnings);
    response
}

/// `Content-Type`, `Cache-Control` as the apiserver sets them, and a `Warning: 299 - "…"` header per warning.
fn set_headers(response: &mut Response<ResponseBody>, content_type: &str, warnings: &[String]) {
    let headers = response.headers_mut();
    if let Ok(v) = content_type.parse() {
        headers.insert("content-type", v);
    }
    headers.insert("cache-control", hyper::header::HeaderValue::from_static("no-cache, private"));
    for w in warnings {
        let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(v) = format!("299 - \"{escaped}\"").parse() {
            headers.append("warning", v);
        }
    }
}

/// A followed log's response body: its text so far, then what the container writes next, until the
/// container exits (the stream ends) or the client hangs up (which drops this body and closes the stream).
struct LogBody {
    events: UnboundedReceiver<(RemoteEvent, SimTime)>,
    first: Option<Bytes>,
}

impl Body for LogBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take().filter(|b| !b.is_empty()) {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        match self.events.poll_recv(cx) {
            Poll::Ready(Some((RemoteEvent::Chunk(text), _))) => Poll::Ready(Some(Ok(Frame::data(Bytes::from(text))))),
            Poll::Ready(_) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A watch's response body: one JSON line per event, until the watch ends or the client hangs up (which
/// drops this body, and with it the channel the engine sees closed).
struct WatchBody {
    events: UnboundedReceiver<(RemoteEvent, SimTime)>,
    info: &'static ResourceInfo,
    /// A client that asked for Tables gets each event's object as a one-row Table (columns on the first).
    table: Option<rest::IncludeObject>,
    /// A custom resource's columns, as the apiserver gave them when the watch started.
    columns: Option<Arc<[crate::api::TableColumn]>>,
    first: bool,
}

impl Body for WatchBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.events.poll_recv(cx) {
            Poll::Ready(Some((RemoteEvent::Event(e), now))) => {
                let line = match self.table {
                    Some(include) => {
                        rest::watch_event_table_json(self.info, self.columns.as_ref(), &e, now, include, self.first)
                    }
                    None => rest::watch_event_json(self.info, &e),
                };
                self.first = false;
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(line)))))
            }
            Poll::Ready(_) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
