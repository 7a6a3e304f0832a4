//! `pods/exec` and `pods/attach` over WebSocket, as kubectl 1.30 and later open them: a GET upgraded to the Kubernetes channel
//! protocol (`v5.channel.k8s.io`, else `v4.channel.k8s.io`), each binary message one stream's bytes behind a
//! channel byte (0 stdin, 1 stdout, 2 stderr, 3 the error channel's `Status`, 4 terminal resizes; in v5, 255
//! a client closing one of its streams).
//!
//! The engine's exec is one call that runs the command to its end: without stdin it is made before the
//! upgrade, so an error the apiserver or the kubelet answers first (a container not in the pod, a kubelet
//! that cannot be reached) is a plain HTTP answer, as from a real apiserver, and the client falls back to
//! SPDY, which gets the same answer; with stdin the connection is upgraded first and the stdin read to its
//! end (v5's close signal). With a terminal too (`kubectl exec -it … -- sh`) the connection is an
//! interactive shell: what is typed is echoed as a terminal does, and each line entered runs in the container
//! as `sh -c LINE`, a call of its own, until `exit` or Ctrl-D.
//!
//! An attach is the same session with the container's main process on the other end: without stdin it is
//! made before the upgrade and what the process writes is passed on until it ends; with stdin the input
//! is read to its end first and written to the process, whose output then follows; on a terminal each
//! line entered is written to the process as it is typed (the container's terminal echoes it and its shell
//! prompts), and the session's end (`exit`, Ctrl-D, the client leaving) closes the process's stdin.
//!
//! Counterpart: the kubelet's streaming server (`k8s.io/kubelet/pkg/cri/streaming/remotecommand`),
//! `k8s.io/apimachinery/pkg/util/httpstream/wsstream` and the apiserver's stream translator.

use std::convert::Infallible;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::sync::mpsc::unbounded_channel;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::engine::Command;
use super::http::plain;
use crate::api::{ApiRequest, ApiResponse, Credentials, ExecEnd, ExecResult, Status};
use crate::apiserver::rest::HttpAnswer;
use crate::cluster::RemoteEvent;

type ResponseBody = BoxBody<Bytes, Infallible>;

/// The channel protocols served, most preferred first.
const PROTOCOLS: [&str; 2] = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

const STDIN: u8 = 0;
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const ERROR: u8 = 3;
/// v5: the client closed the stream named by the next byte.
const CLOSE: u8 = 255;

/// The prompt of the interactive shell (root's `sh`).
const PROMPT: &str = "# ";

/// Whether a request asks to be upgraded to WebSocket.
pub fn is_websocket(req: &Request<Incoming>) -> bool {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    header("upgrade").split(',').any(|p| p.trim() == "websocket")
        && header("connection").split(',').any(|p| p.trim() == "upgrade")
}

/// The protocol to speak: the first of ours the client offers.
fn negotiate(offered: &str) -> Option<&'static str> {
    let offered: Vec<&str> = offered.split(',').map(str::trim).collect();
    PROTOCOLS.into_iter().find(|p| offered.contains(p))
}

/// The one thing a stream's session needs from the engine: run `request`, and the answer.
#[derive(Clone)]
pub(super) struct Engine {
    pub(super) commands: std::sync::mpsc::Sender<Command>,
    pub(super) client: String,
    pub(super) credentials: Credentials,
}

type Events = tokio::sync::mpsc::UnboundedReceiver<(RemoteEvent, crate::sim::SimTime)>;

impl Engine {
    pub(super) async fn call(&self, request: ApiRequest) -> Option<ApiResponse> {
        self.open(request).await.map(|(answer, _)| answer)
    }

    /// Sends `request`; its answer, and the channel what follows it (a stream's chunks) comes on.
    async fn open(&self, request: ApiRequest) -> Option<(ApiResponse, Events)> {
        let (reply, mut events) = unbounded_channel();
        let call = Command::Call {
            client: self.client.clone(),
            credentials: self.credentials.clone(),
            request: Box::new(request),
            reply,
        };
        self.commands.send(call).ok()?;
        match events.recv().await? {
            (RemoteEvent::Answer { result: Ok(answer), .. }, _) => Some((answer, events)),
            _ => None,
        }
    }
}

/// A WebSocket exec or attach request: answered (an error before the upgrade) or upgraded, with the
/// session running on its own task. None: the engine has stopped.
pub async fn serve(
    mut req: Request<Incoming>,
    mut request: ApiRequest,
    client: String,
    credentials: Credentials,
    commands: std::sync::mpsc::Sender<Command>,
) -> Option<Response<ResponseBody>> {
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let Some(protocol) = negotiate(&header("sec-websocket-protocol")) else {
        let status = Status::bad_request(format!(
            "unable to upgrade: the client offers none of the supported protocols {}",
            PROTOCOLS.join(", ")
        ));
        return Some(plain(&HttpAnswer::status(&status), &[]));
    };
    let accept = derive_accept_key(header("sec-websocket-key").as_bytes());
    // The routed request holds an (empty) stdin when the query asks for one (`stdin=true`).
    let (stdin, tty, command) = (request.params.stdin.is_some(), request.params.tty, request.params.command.clone());
    let engine = Engine { commands, client, credentials };
    let upgrade = hyper::upgrade::on(&mut req);
    let attach = request.subresource.as_deref() == Some("attach");
    // An attach passes on what the process writes until it ends.
    request.params.follow = attach;
    let v5 = protocol == PROTOCOLS[0];
    // A kubelet's refusal: before the upgrade for the older protocols; for v5 the apiserver's stream
    // translator upgrades first and writes it on the error channel (`refused`).
    let refusal = |body: &str, tty: bool, command: Vec<String>| {
        v5.then(|| Session::Done { result: refused(body.to_string()), tty, command })
    };
    let session = if stdin && tty && attach {
        // Made now, with an empty first piece of input: a process that does not read its stdin (`wget`,
        // nginx) is followed until it ends, whatever is typed; a shell reads the terminal line by line.
        let mut first = request.clone();
        first.params.stdin = Some(String::new());
        first.params.keep_stdin_open = true;
        match engine.open(first).await? {
            (ApiResponse::Exec(ExecResult { end: ExecEnd::NotUpgraded(body), .. }), _) => {
                match refusal(&body, tty, command.clone()) {
                    Some(session) => session,
                    None => return Some(plain(&HttpAnswer::text(500, body), &[])),
                }
            }
            (ApiResponse::LogStream { text, .. }, events) => Session::Stream { text, events, tty: true },
            (ApiResponse::Error(status), _) => return Some(plain(&HttpAnswer::status(&status), &[])),
            _ => Session::Terminal { request: Box::new(request), attach },
        }
    } else if stdin && tty {
        Session::Terminal { request: Box::new(request), attach }
    } else if stdin {
        Session::Input { request: Box::new(request) }
    } else {
        // Made now: what fails before a stream exists is an HTTP answer.
        match engine.open(request).await? {
            (ApiResponse::Exec(ExecResult { end: ExecEnd::NotUpgraded(body), .. }), _) => {
                match refusal(&body, tty, command.clone()) {
                    Some(session) => session,
                    None => return Some(plain(&HttpAnswer::text(500, body), &[])),
                }
            }
            (ApiResponse::Exec(result), _) => Session::Done { result, tty, command },
            (ApiResponse::LogStream { text, .. }, events) => Session::Stream { text, events, tty },
            (ApiResponse::Error(status), _) => return Some(plain(&HttpAnswer::status(&status), &[])),
            _ => return Some(plain(&HttpAnswer::status(&Status::internal("the exec stream did not open")), &[])),
        }
    };
    tokio::spawn(async move {
        let Ok(upgraded) = upgrade.await else { return };
        let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
        session.run(ws, protocol == PROTOCOLS[0], engine).await;
    });
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert("connection", hyper::header::HeaderValue::from_static("Upgrade"));
    headers.insert("upgrade", hyper::header::HeaderValue::from_static("websocket"));
    headers.insert("sec-websocket-protocol", hyper::header::HeaderValue::from_static(protocol));
    if let Ok(v) = accept.parse() {
        headers.insert("sec-websocket-accept", v);
    }
    Some(response)
}

type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// What happens once the connection is upgraded.
enum Session {
    /// The command ran already: write what it wrote and how it ended.
    Done { result: ExecResult, tty: bool, command: Vec<String> },
    /// An attached process's output so far, then what follows on `events` until it ends (on a terminal:
    /// its line ends are `\r\n`).
    Stream { text: String, events: Events, tty: bool },
    /// Read stdin to its end first, then run (or attach).
    Input { request: Box<ApiRequest> },
    /// A terminal: its input line by line.
    Terminal { request: Box<ApiRequest>, attach: bool },
}

impl Session {
    async fn run(self, mut ws: Socket, v5: bool, engine: Engine) {
        let end = match self {
            Session::Done { result, tty, command } => write_result(&mut ws, &result, tty, &command).await,
            Session::Stream { text, events, tty } => stream(&mut ws, text, events, tty).await,
            Session::Input { request } => {
                let Some(stdin) = read_stdin(&mut ws, v5).await else { return };
                let mut request = *request;
                request.params.stdin = Some(stdin);
                let command = request.params.command.clone();
                match engine.open(request).await {
                    Some((ApiResponse::Exec(ExecResult { end: ExecEnd::NotUpgraded(body), .. }), _)) if v5 => {
                        write_result(&mut ws, &refused(body), false, &command).await
                    }
                    Some((ApiResponse::Exec(result), _)) => write_result(&mut ws, &result, false, &command).await,
                    Some((ApiResponse::LogStream { text, .. }, events)) => stream(&mut ws, text, events, false).await,
                    Some((ApiResponse::Error(status), _)) => Some(status.to_json()),
                    _ => None,
                }
            }
            Session::Terminal { request, attach: false } => shell(&mut ws, *request, engine).await,
            Session::Terminal { request, attach: true } => attached_terminal(&mut ws, *request, engine).await,
        };
        if let Some(end) = end {
            let _ = ws.send(frame(ERROR, end.as_bytes())).await;
        }
        let _ = ws.send(Message::Close(Some(CloseFrame { code: 1000.into(), reason: "".into() }))).await;
        // The client closes its side once it has read the error channel.
        while let Some(Ok(m)) = ws.next().await {
            if m.is_close() {
                break;
            }
        }
    }
}

/// An attached process's output: `text`, then each chunk until the stream ends; the session ends with
/// Success (an attach reports no exit code). The client's messages are read meanwhile, so its pings are
/// answered (client-go gives up on a connection that stops answering them). None when the client left.
async fn stream(ws: &mut Socket, text: String, mut events: Events, tty: bool) -> Option<String> {
    let shown = |text: &str| if tty { on_terminal(text) } else { text.to_string() };
    if !text.is_empty() {
        ws.send(frame(STDOUT, shown(&text).as_bytes())).await.ok()?;
    }
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some((RemoteEvent::Chunk(more), _)) => ws.send(frame(STDOUT, shown(&more).as_bytes())).await.ok()?,
                _ => break,
            },
            message = ws.next() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
                // A ping is answered with the next write; stdin after its end is nobody's.
                Some(Ok(_)) => ws.flush().await.ok()?,
            },
        }
    }
    Some(end_status(&ExecEnd::Success, &[]))
}

fn frame(channel: u8, data: &[u8]) -> Message {
    let mut bytes = Vec::with_capacity(data.len() + 1);
    bytes.push(channel);
    bytes.extend_from_slice(data);
    Message::Binary(Bytes::from(bytes))
}

/// A terminal turns each newline into a carriage return and a newline.
fn on_terminal(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Writes a finished command's output; returns its error-channel `Status`.
async fn write_result(ws: &mut Socket, result: &ExecResult, tty: bool, command: &[String]) -> Option<String> {
    for (stderr, text) in &result.output {
        let channel = if *stderr && !tty { STDERR } else { STDOUT };
        let text = if tty { on_terminal(text) } else { text.clone() };
        ws.send(frame(channel, text.as_bytes())).await.ok()?;
    }
    Some(end_status(&result.end, command))
}

/// A kubelet's refusal as the apiserver's stream translator reports it once upgraded: SPDY's upgrade
/// error wrapped as an internal error (`StreamTranslatorHandler`).
fn refused(body: String) -> ExecResult {
    let message = format!("Internal error occurred: unable to upgrade connection: {body}");
    ExecResult { output: Vec::new(), end: ExecEnd::Failure(message) }
}

/// The error channel's `Status` for how a command ended, as the kubelet's streaming server writes it.
fn end_status(end: &ExecEnd, command: &[String]) -> String {
    let value = match end {
        ExecEnd::Success => json!({"metadata": {}, "status": "Success"}),
        ExecEnd::ExitCode(code) => {
            let command = command.join(" ");
            json!({
                "metadata": {},
                "status": "Failure",
                "message": format!("command terminated with non-zero exit code: error executing command [{command}], exit code {code}"),
                "reason": "NonZeroExitCode",
                "details": {"causes": [{"reason": "ExitCode", "message": code.to_string()}]},
            })
        }
        ExecEnd::Failure(message) | ExecEnd::NotUpgraded(message) => json!({
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "InternalError",
            // NewInternalError: the message is the cause after `Internal error occurred: `.
            "details": {"causes": [{"message": message.strip_prefix("Internal error occurred: ").unwrap_or(message)}]},
            "code": 500,
        }),
    };
    value.to_string()
}

/// The client's stdin to its end: v5's close signal for stream 0, or the connection closing.
async fn read_stdin(ws: &mut Socket, v5: bool) -> Option<String> {
    let mut stdin = Vec::new();
    while let Some(message) = ws.next().await {
        match message.ok()? {
            Message::Binary(data) => match data.split_first() {
                Some((&STDIN, rest)) => stdin.extend_from_slice(rest),
                Some((&CLOSE, [STDIN, ..])) if v5 => break,
                _ => {}
            },
            Message::Close(_) => return None,
            _ => {}
        }
    }
    Some(String::from_utf8_lossy(&stdin).into_owned())
}

/// An interactive shell on a terminal: a line editor over the stdin stream (echo, backspace, Ctrl-C,
/// Ctrl-D), each line run in the container as `sh -c LINE`. Returns the error channel's status when the
/// shell ends (`exit [N]`, Ctrl-D).
async fn shell(ws: &mut Socket, request: ApiRequest, engine: Engine) -> Option<String> {
    ws.send(frame(STDOUT, PROMPT.as_bytes())).await.ok()?;
    let mut line = String::new();
    let mut last_code = 0;
    while let Some(message) = ws.next().await {
        let data = match message.ok()? {
            Message::Binary(data) => data,
            Message::Close(_) => return None,
            _ => continue,
        };
        let Some((&STDIN, typed)) = data.split_first() else { continue };
        for ch in String::from_utf8_lossy(typed).chars() {
            let echo = match key(&mut line, ch) {
                Key::Enter(entered) => {
                    ws.send(frame(STDOUT, b"\r\n")).await.ok()?;
                    match entered.trim() {
                        "" => {}
                        "exit" => return Some(exit_status(last_code)),
                        text if text.starts_with("exit ") => {
                            let code = text[5..].trim().parse().unwrap_or(2);
                            return Some(exit_status(code));
                        }
                        text => {
                            let mut run = request.clone();
                            run.params.command = vec!["sh".into(), "-c".into(), text.to_string()];
                            run.params.stdin = None;
                            match engine.call(run).await {
                                Some(ApiResponse::Exec(result)) => {
                                    for (_, out) in &result.output {
                                        ws.send(frame(STDOUT, on_terminal(out).as_bytes())).await.ok()?;
                                    }
                                    last_code = match &result.end {
                                        ExecEnd::Success => 0,
                                        ExecEnd::ExitCode(c) => *c,
                                        ExecEnd::Failure(_) | ExecEnd::NotUpgraded(_) => 126,
                                    };
                                }
                                Some(ApiResponse::Error(status)) => return Some(status.to_json()),
                                _ => return None,
                            }
                        }
                    }
                    PROMPT.to_string()
                }
                Key::Interrupt => {
                    last_code = 130;
                    format!("^C\r\n{PROMPT}")
                }
                Key::EndOfInput => {
                    ws.send(frame(STDOUT, b"\r\n")).await.ok()?;
                    return Some(exit_status(last_code));
                }
                Key::Echo(echo) => echo,
            };
            if !echo.is_empty() {
                ws.send(frame(STDOUT, echo.as_bytes())).await.ok()?;
            }
        }
    }
    None
}

/// An attached terminal: each line typed goes to the container's process as it is entered (one attach
/// call per line, the stdin left open); the process's terminal echoes it and its shell prompts, so only
/// what the line editor echoed already is dropped. `exit`, Ctrl-D or the client leaving ends the session
/// and closes the process's stdin. (A process that does not read its stdin is followed instead: see
/// [`serve`].)
async fn attached_terminal(ws: &mut Socket, request: ApiRequest, engine: Engine) -> Option<String> {
    let send = |text: String, keep_open: bool| {
        let mut piece = request.clone();
        piece.params.stdin = Some(text);
        piece.params.keep_stdin_open = keep_open;
        piece.params.follow = false;
        let engine = engine.clone();
        async move {
            match engine.call(piece).await {
                Some(ApiResponse::Exec(result)) => Ok(result.output.into_iter().map(|(_, t)| t).collect::<String>()),
                Some(ApiResponse::Error(status)) => Err(Some(status.to_json())),
                _ => Err(None),
            }
        }
    };
    let mut line = String::new();
    while let Some(message) = ws.next().await {
        let data = match message {
            Ok(Message::Binary(data)) => data,
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        let Some((&STDIN, typed)) = data.split_first() else { continue };
        for ch in String::from_utf8_lossy(typed).chars() {
            let echo = match key(&mut line, ch) {
                Key::Enter(entered) => {
                    ws.send(frame(STDOUT, b"\r\n")).await.ok()?;
                    let out = match send(format!("{entered}\n"), true).await {
                        Ok(out) => out,
                        Err(end) => return end,
                    };
                    // The line editor echoed the line already.
                    let out = out.strip_prefix(&format!("{entered}\r\n")).unwrap_or(&out).to_string();
                    ws.send(frame(STDOUT, out.as_bytes())).await.ok()?;
                    let word = entered.split_whitespace().next().unwrap_or("");
                    if word == "exit" {
                        return Some(end_status(&ExecEnd::Success, &[]));
                    }
                    String::new()
                }
                Key::Interrupt => {
                    // The shell drops the line and prompts again.
                    ws.send(frame(STDOUT, b"^C")).await.ok()?;
                    match send("\n".to_string(), true).await {
                        Ok(out) => out,
                        Err(end) => return end,
                    }
                }
                Key::EndOfInput => break,
                Key::Echo(echo) => echo,
            };
            if !echo.is_empty() {
                ws.send(frame(STDOUT, echo.as_bytes())).await.ok()?;
            }
        }
    }
    // The input ended: the process's stdin closes (a `stdinOnce` shell ends).
    match send(String::new(), false).await {
        Ok(out) if !out.is_empty() => {
            let _ = ws.send(frame(STDOUT, out.as_bytes())).await;
        }
        _ => {}
    }
    Some(end_status(&ExecEnd::Success, &[]))
}

/// What a key typed on a terminal does to the line being typed.
enum Key {
    /// Enter: the line, taken.
    Enter(String),
    /// Ctrl-C: the line is dropped.
    Interrupt,
    /// Ctrl-D on an empty line.
    EndOfInput,
    /// What the terminal echoes (backspace and DEL erase the character before the cursor; other control
    /// keys nothing).
    Echo(String),
}

fn key(line: &mut String, ch: char) -> Key {
    match ch {
        '\r' | '\n' => Key::Enter(std::mem::take(line)),
        '\u{7f}' | '\u{8}' => Key::Echo(if line.pop().is_some() { "\u{8} \u{8}".to_string() } else { String::new() }),
        '\u{3}' => {
            line.clear();
            Key::Interrupt
        }
        '\u{4}' if line.is_empty() => Key::EndOfInput,
        c if c.is_control() => Key::Echo(String::new()),
        c => {
            line.push(c);
            Key::Echo(c.to_string())
        }
    }
}

/// How `sh` ends: `exit` with the last command's code, as the shell does.
fn exit_status(code: i32) -> String {
    let end = if code == 0 { ExecEnd::Success } else { ExecEnd::ExitCode(code) };
    end_status(&end, &["sh".to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_protocol_both_sides_speak_is_chosen() {
        assert_eq!(negotiate("v5.channel.k8s.io, v4.channel.k8s.io"), Some("v5.channel.k8s.io"));
        assert_eq!(negotiate("v4.channel.k8s.io,v3.channel.k8s.io"), Some("v4.channel.k8s.io"));
        assert_eq!(negotiate("channel.k8s.io"), None);
    }

    #[test]
    fn the_error_channel_says_how_the_command_ended() {
        assert_eq!(end_status(&ExecEnd::Success, &[]), r#"{"metadata":{},"status":"Success"}"#);
        let failed: serde_json::Value =
            serde_json::from_str(&end_status(&ExecEnd::ExitCode(3), &["sh".into(), "-c".into(), "exit 3".into()]))
                .unwrap();
        assert_eq!(failed["reason"], "NonZeroExitCode");
        assert_eq!(failed["details"]["causes"][0], json!({"reason": "ExitCode", "message": "3"}));
        assert_eq!(
            failed["message"],
            "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3"
        );
    }

    #[test]
    fn a_terminal_ends_lines_with_carriage_returns() {
        assert_eq!(on_terminal("a\nb\r\nc"), "a\r\nb\r\nc");
    }
}
