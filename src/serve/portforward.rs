//! `pods/portforward`, as the real kubectl opens it: since v1.31 SPDY/3.1 tunnelled through WebSocket (a GET
//! upgraded with the subprotocol `SPDY/3.1+portforward.k8s.io`, the SPDY connection's bytes in binary
//! messages), and when that is refused, or from kubectl 1.30 and older, SPDY/3.1 itself (a POST upgraded to
//! `SPDY/3.1`, `X-Stream-Protocol-Version: portforward.k8s.io`).
//!
//! Before the upgrade the request goes through the engine once without a port: authentication,
//! authorization, the pod, its node's kubelet and containerd's checks, so what fails there is a plain HTTP
//! answer. On the connection, each local connection kubectl accepts is a pair of SPDY streams named by a
//! request id (an error stream and a data stream, with the pod's port in their headers). Once both are
//! open the engine makes the connection to `localhost:PORT` inside the pod; each complete HTTP request the
//! client writes on the data stream is then handed to the engine as one piece (the kubelet's stream to
//! containerd, containerd's copy into the pod's network namespace) and the listener's answer written back.
//! When the client ends its side of the data stream the server ends both; a connection that cannot be made
//! is reported on the error stream, as the kubelet's streaming library writes it.
//!
//! Simplified: the stream is not one long-lived connection through the kubelet but a request per piece
//! of the conversation; a listener that is not HTTP gets the client's bytes when it ends its side.
//!
//! Counterpart: the apiserver's `PortForwardREST` and `StreamTunnelingHandler`, the kubelet's
//! `cri/streaming/portforward` (`httpstream.go`), client-go's `tools/portforward` on the other end.

use std::collections::BTreeMap;
use std::convert::Infallible;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::engine::Command;
use super::exec::Engine;
use super::http::plain;
use super::spdy;
use crate::api::{ApiRequest, ApiResponse, Credentials, ExecEnd, ExecResult, Status};
use crate::apiserver::rest::HttpAnswer;
use crate::node::listeners::parse_requests;

type ResponseBody = BoxBody<Bytes, Infallible>;

/// The port-forward stream protocol.
const PROTOCOL: &str = "portforward.k8s.io";
/// The same, tunnelled through WebSocket (`WebsocketsSPDYTunnelingPrefix` + the protocol).
const TUNNELLED: &str = "SPDY/3.1+portforward.k8s.io";

/// Whether a request asks to be upgraded to SPDY/3.1.
pub fn is_spdy(req: &Request<Incoming>) -> bool {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    header("upgrade").contains("spdy/3.1") && header("connection").contains("upgrade")
}

/// A port-forward request: checked through the engine, then answered with an error or upgraded, the
/// session running on its own task. None: the engine has stopped.
pub async fn serve(
    mut req: Request<Incoming>,
    request: ApiRequest,
    client: String,
    credentials: Credentials,
    commands: std::sync::mpsc::Sender<Command>,
) -> Option<Response<ResponseBody>> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let websocket = super::exec::is_websocket(&req);
    let offered = if websocket { header("sec-websocket-protocol") } else { header("x-stream-protocol-version") };
    let wanted = if websocket { TUNNELLED } else { PROTOCOL };
    if !offered.split(',').any(|p| p.trim() == wanted) {
        // httpstream.Handshake's refusal (`http.Error`: plain text and a newline).
        let offered: Vec<&str> = offered.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        let message = format!(
            "unable to upgrade: unable to negotiate protocol: client supports [{}], server supports [{wanted}]\n",
            offered.join(" ")
        );
        return Some(plain(&HttpAnswer::text(403, message), &[]));
    }
    let engine = Engine { commands, client, credentials };
    // What fails before there is a stream is an HTTP answer.
    let mut first = request.clone();
    (first.params.port, first.params.stdin) = (None, None);
    match engine.call(first).await? {
        ApiResponse::Exec(ExecResult { end: ExecEnd::NotUpgraded(body), .. }) => {
            return Some(plain(&HttpAnswer::text(500, body), &[]))
        }
        ApiResponse::Exec(_) => {}
        ApiResponse::Error(status) => return Some(plain(&HttpAnswer::status(&status), &[])),
        _ => return Some(plain(&HttpAnswer::status(&Status::internal("the port-forward stream did not open")), &[])),
    }
    let accept = derive_accept_key(header("sec-websocket-key").as_bytes());
    let upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        let Ok(upgraded) = upgrade.await else { return };
        let (incoming, from_client) = unbounded_channel();
        let (to_client, outgoing) = unbounded_channel();
        let session = session(from_client, to_client, engine, request);
        if websocket {
            let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
            tokio::join!(session, pump_websocket(ws, incoming, outgoing));
        } else {
            tokio::join!(session, pump_raw(TokioIo::new(upgraded), incoming, outgoing));
        }
    });
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert("connection", hyper::header::HeaderValue::from_static("Upgrade"));
    if websocket {
        headers.insert("upgrade", hyper::header::HeaderValue::from_static("websocket"));
        headers.insert("sec-websocket-protocol", hyper::header::HeaderValue::from_static(TUNNELLED));
        if let Ok(v) = accept.parse() {
            headers.insert("sec-websocket-accept", v);
        }
    } else {
        headers.insert("upgrade", hyper::header::HeaderValue::from_static("SPDY/3.1"));
        headers.insert("x-stream-protocol-version", hyper::header::HeaderValue::from_static(PROTOCOL));
    }
    Some(response)
}

/// The tunnel: each binary message holds bytes of the SPDY connection, in either direction.
async fn pump_websocket(
    mut ws: WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>,
    incoming: UnboundedSender<Vec<u8>>,
    mut outgoing: UnboundedReceiver<Vec<u8>>,
) {
    loop {
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    let _ = incoming.send(bytes.to_vec());
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                // A ping is answered with the next write.
                Some(Ok(_)) => {
                    if ws.flush().await.is_err() {
                        break;
                    }
                }
            },
            bytes = outgoing.recv() => match bytes {
                Some(bytes) => {
                    if ws.send(Message::Binary(Bytes::from(bytes))).await.is_err() {
                        break;
                    }
                }
                None => {
                    let _ = ws.send(Message::Close(Some(CloseFrame { code: 1000.into(), reason: "".into() }))).await;
                    break;
                }
            },
        }
    }
}

/// SPDY straight over the upgraded connection.
async fn pump_raw(
    io: TokioIo<hyper::upgrade::Upgraded>,
    incoming: UnboundedSender<Vec<u8>>,
    mut outgoing: UnboundedReceiver<Vec<u8>>,
) {
    let (mut rd, mut wr) = tokio::io::split(io);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        tokio::select! {
            read = rd.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let _ = incoming.send(buf[..n].to_vec());
                }
            },
            bytes = outgoing.recv() => match bytes {
                Some(bytes) => {
                    if wr.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
        }
    }
    let _ = wr.shutdown().await;
}

/// One forwarded connection's two streams, and where its data goes once both are open.
#[derive(Default)]
struct Pair {
    error: Option<u32>,
    data: Option<u32>,
    to_task: Option<UnboundedSender<Option<Vec<u8>>>>,
}

/// The SPDY connection: streams paired by request id, each complete pair forwarded on a task of its own;
/// pings answered. Ends with the client's GOAWAY, the connection, or a protocol error.
async fn session(
    mut from_client: UnboundedReceiver<Vec<u8>>,
    to_client: UnboundedSender<Vec<u8>>,
    engine: Engine,
    request: ApiRequest,
) {
    let (mut reader, mut writer) = (spdy::Reader::default(), spdy::Writer::default());
    let mut pairs: BTreeMap<String, Pair> = BTreeMap::new();
    // Each stream's request id.
    let mut streams: BTreeMap<u32, String> = BTreeMap::new();
    while let Some(bytes) = from_client.recv().await {
        reader.push(&bytes);
        loop {
            let frame = match reader.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(_) => return,
            };
            match frame {
                spdy::Frame::SynStream { stream_id, headers, fin } => {
                    let _ = to_client.send(writer.syn_reply(stream_id));
                    let get =
                        |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or("");
                    let (kind, port) = (get("streamtype"), get("port"));
                    // An old client names no request: the kubelet pairs its consecutive streams instead.
                    let id = match (get("requestid"), kind) {
                        ("", "data") => stream_id.saturating_sub(2).to_string(),
                        ("", _) => stream_id.to_string(),
                        (id, _) => id.to_string(),
                    };
                    streams.insert(stream_id, id.clone());
                    let pair = pairs.entry(id).or_default();
                    match kind {
                        "error" => pair.error = Some(stream_id),
                        "data" => pair.data = Some(stream_id),
                        _ => {}
                    }
                    if let (Some(error), Some(data), None) = (pair.error, pair.data, &pair.to_task) {
                        // strconv.ParseInt's failure is port 0, which nothing listens on.
                        let port = port.parse::<u16>().unwrap_or(0);
                        let (tx, rx) = unbounded_channel();
                        pair.to_task = Some(tx);
                        let streams = (error, data);
                        tokio::spawn(forward(engine.clone(), request.clone(), port, streams, rx, to_client.clone()));
                    }
                    if fin && kind == "data" {
                        if let Some(tx) = &pair.to_task {
                            let _ = tx.send(None);
                        }
                    }
                }
                spdy::Frame::Data { stream_id, data, fin } => {
                    let Some(pair) = streams.get(&stream_id).and_then(|id| pairs.get(id)) else { continue };
                    if pair.data != Some(stream_id) {
                        continue;
                    }
                    if let Some(tx) = &pair.to_task {
                        if !data.is_empty() {
                            let _ = tx.send(Some(data));
                        }
                        if fin {
                            let _ = tx.send(None);
                        }
                    }
                }
                spdy::Frame::RstStream { stream_id } => {
                    // kubectl resets the data stream once it has read all of it: the pair is done.
                    let Some(id) = streams.remove(&stream_id) else { continue };
                    if pairs.get(&id).is_some_and(|p| p.data == Some(stream_id)) {
                        pairs.remove(&id);
                        streams.retain(|_, other| *other != id);
                    }
                }
                spdy::Frame::Ping { id } => {
                    let _ = to_client.send(spdy::ping(id));
                }
                spdy::Frame::GoAway => return,
                spdy::Frame::Headers { .. } | spdy::Frame::Ignored => {}
            }
        }
    }
}

/// One forwarded connection: the connection to the pod's port, then each complete request the client
/// writes, answered on the data stream; both streams end when the client's side does (or at once, with the
/// error on the error stream, when the pod's port cannot be reached).
async fn forward(
    engine: Engine,
    request: ApiRequest,
    port: u16,
    (error_stream, data_stream): (u32, u32),
    mut from_client: UnboundedReceiver<Option<Vec<u8>>>,
    to_client: UnboundedSender<Vec<u8>>,
) {
    let send = |data: Vec<u8>| {
        let mut r = request.clone();
        r.params.port = Some(port);
        r.params.stdin = Some(String::from_utf8_lossy(&data).into_owned());
        engine.call(r)
    };
    let end = |error: Option<String>| {
        if let Some(message) = error {
            let _ = to_client.send(spdy::data(error_stream, message.as_bytes(), false));
        }
        let _ = to_client.send(spdy::data(data_stream, b"", true));
        let _ = to_client.send(spdy::data(error_stream, b"", true));
    };
    if let Err(message) = answered(send(Vec::new()).await) {
        return end(Some(message));
    }
    let mut pending: Vec<u8> = Vec::new();
    let mut open = true;
    while open {
        match from_client.recv().await {
            Some(Some(bytes)) => pending.extend(bytes),
            _ => open = false,
        }
        // Whole requests go on; the rest waits for more, unless it is not HTTP or the client is done.
        let (requests, garbage) = parse_requests(&pending);
        let whole = if garbage || !open { pending.len() } else { requests.iter().map(|r| r.len).sum() };
        if whole == 0 {
            continue;
        }
        let piece: Vec<u8> = pending.drain(..whole).collect();
        match answered(send(piece).await) {
            Ok(reply) if !reply.is_empty() => {
                let _ = to_client.send(spdy::data(data_stream, reply.as_bytes(), false));
            }
            Ok(_) => {}
            Err(message) => return end(Some(message)),
        }
        // A server that answered bytes that are not HTTP has closed the connection.
        if garbage {
            break;
        }
    }
    end(None);
}

/// What the pod's listener wrote back, or the error for the error stream.
fn answered(response: Option<ApiResponse>) -> Result<String, String> {
    match response {
        Some(ApiResponse::Exec(ExecResult { output, end: ExecEnd::Success })) => {
            Ok(output.into_iter().map(|(_, text)| text).collect())
        }
        Some(ApiResponse::Exec(ExecResult { end: ExecEnd::Failure(m) | ExecEnd::NotUpgraded(m), .. })) => Err(m),
        Some(ApiResponse::Error(status)) => Err(status.message),
        Some(_) => Err("unexpected answer to a forwarded stream".into()),
        None => Err("the engine has stopped".into()),
    }
}
