//! Client processes as futures. A process calls [`Api::call`] and awaits the response; the host (a
//! kernel component such as `kubectl`) sends the request, and when the response, a watch event or a
//! timer arrives it stores it and polls the future again. No async runtime: polling is driven by
//! deliveries, so processes are as deterministic as the kernel.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::api::{ApiRequest, ApiResponse, Credentials, WatchEvent};
use crate::etcd::EtcdMessage;
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

/// A failure below HTTP: nothing listened, or the connection broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// Nothing listens at the server's address (the apiserver is stopped).
    ConnectionRefused,
    /// The server went away while the request was in flight.
    ConnectionReset,
}

/// How client-go words a failed request to the apiserver: the transport error after the method and URL
/// (`Put "https://192.168.56.10:6443/…?timeout=5s": dial tcp 192.168.56.10:6443: connect: connection
/// refused`), or the server's message. `method` is upper case (`PUT`), `path` holds the query.
pub fn request_error(result: &Result<ApiResponse, ClientError>, method: &str, path: &str) -> String {
    let server = crate::kubectl::SERVER;
    let url = format!("{}{} \"https://{server}{path}\"", &method[..1], method[1..].to_lowercase());
    match result {
        Err(ClientError::ConnectionRefused) => format!("{url}: dial tcp {server}: connect: connection refused"),
        Err(ClientError::ConnectionReset) => format!("{url}: http2: client connection lost"),
        Ok(ApiResponse::Error(status)) => status.message.clone(),
        Ok(_) => "unexpected response".into(),
    }
}

/// What `kubectl edit` hands to whoever runs it instead of opening `$EDITOR`: the text kubectl would open
/// (its `# Please edit the object below…` header, then the objects as YAML or JSON without
/// `metadata.managedFields`), and the objects it names (`deployment.apps/web`). The web app opens `text` in
/// its manifest editor and sends the result through `kubectl apply -f -`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EditRequest {
    pub text: String,
    /// `yaml` or `json` (`kubectl edit -o json`).
    pub format: String,
    /// The namespace the objects were read from (the command's `-n` or the context's).
    pub namespace: String,
    pub objects: Vec<String>,
}

#[derive(Default)]
struct Shared {
    /// Set by `kubectl edit`: see [`EditRequest`].
    edit: Option<EditRequest>,
    now: SimTime,
    outbox: Vec<(u64, ApiRequest)>,
    responses: BTreeMap<u64, Result<ApiResponse, ClientError>>,
    in_flight: BTreeSet<u64>,
    watch_events: BTreeMap<u64, VecDeque<WatchEvent>>,
    /// What arrived on each followed log.
    log_chunks: BTreeMap<u64, VecDeque<String>>,
    closed_watches: BTreeSet<u64>,
    timer_requests: Vec<(u64, u64)>,
    /// Requests straight to an etcd member (etcdctl on the control-plane node): id, member, message.
    etcd_outbox: Vec<(u64, ComponentId, EtcdMessage)>,
    etcd_replies: BTreeMap<u64, Result<EtcdMessage, ClientError>>,
    /// What arrived on each watch straight to an etcd member (`etcdctl watch`).
    etcd_watch_messages: BTreeMap<u64, VecDeque<EtcdMessage>>,
    fired: BTreeSet<u64>,
    output: String,
    /// Warnings already printed (kubectl's warning writer prints each text once per process).
    warned: BTreeSet<String>,
    /// Each answered request's `Warning` headers, for a process that asked to keep them
    /// ([`Api::call_raw_warned`]).
    warnings: BTreeMap<u64, Vec<String>>,
    keep_warnings: BTreeSet<u64>,
}

/// A process's handle to the API and to its terminal.
#[derive(Clone)]
pub struct Api {
    shared: Rc<RefCell<Shared>>,
    ids: Rc<Cell<u64>>,
    pub credentials: Credentials,
    /// `--as`.
    pub impersonate: Option<String>,
}

impl Api {
    fn next_id(&self) -> u64 {
        let id = self.ids.get();
        self.ids.set(id + 1);
        id
    }

    pub fn now(&self) -> SimTime {
        self.shared.borrow().now
    }

    /// Asks whoever runs this process to open `request` in an editor (see [`EditRequest`]).
    pub fn request_edit(&self, request: EditRequest) {
        self.shared.borrow_mut().edit = Some(request);
    }

    /// Writes to the process's terminal output.
    pub fn print(&self, text: &str) {
        self.shared.borrow_mut().output.push_str(text);
    }

    /// Sends a request (with this process's credentials) and waits for the answer. An answer outside 2xx
    /// that the client cannot decode becomes the error client-go makes of it, naming the request
    /// ([`super::Target::decode`]).
    pub async fn call(&self, request: ApiRequest) -> Result<ApiResponse, ClientError> {
        if request.non_resource_path.is_some() {
            return self.call_raw(request).await;
        }
        let target = super::Target::of(&request);
        Ok(target.decode(self.call_raw(request).await?))
    }

    /// [`Api::call`] as a raw HTTP request: the answer as the server wrote it (`kubectl get --raw`).
    pub async fn call_raw(&self, request: ApiRequest) -> Result<ApiResponse, ClientError> {
        let id = self.send(request, false);
        Response { shared: self.shared.clone(), id }.await
    }

    /// Queues `request` with this process's credentials (and impersonation) and returns its id.
    fn send(&self, mut request: ApiRequest, keep_warnings: bool) -> u64 {
        request.credentials = self.credentials.clone();
        if request.impersonate.is_none() {
            request.impersonate = self.impersonate.clone();
        }
        let id = self.next_id();
        let mut s = self.shared.borrow_mut();
        s.outbox.push((id, request));
        s.in_flight.insert(id);
        if keep_warnings {
            s.keep_warnings.insert(id);
        }
        id
    }

    /// [`Api::call_raw`] that also hands back the answer's `Warning` headers, as they came, instead of
    /// printing them: what a real client's HTTP response carries (`kubeglass serve`).
    pub async fn call_raw_warned(&self, request: ApiRequest) -> (Result<ApiResponse, ClientError>, Vec<String>) {
        let id = self.send(request, true);
        let result = Response { shared: self.shared.clone(), id }.await;
        let warnings = self.shared.borrow_mut().warnings.remove(&id).unwrap_or_default();
        (result, warnings)
    }

    /// Sends a request straight to etcd member `to` (built around the request id) and waits for its reply:
    /// what etcdctl does on a control-plane node, without the apiserver in between.
    pub async fn etcd(
        &self,
        to: ComponentId,
        make: impl FnOnce(u64) -> EtcdMessage,
    ) -> Result<EtcdMessage, ClientError> {
        let id = self.next_id();
        {
            let mut s = self.shared.borrow_mut();
            s.etcd_outbox.push((id, to, make(id)));
            s.in_flight.insert(id);
        }
        EtcdReply { shared: self.shared.clone(), id }.await
    }

    /// Opens a watch straight to etcd member `to` on every key under `prefix` from `start_revision` (0: from
    /// now on); read it with [`Api::next_etcd_watch_message`].
    pub fn etcd_watch(&self, to: ComponentId, prefix: &str, start_revision: u64) -> u64 {
        let watch_id = self.next_id();
        let mut s = self.shared.borrow_mut();
        let msg = EtcdMessage::Watch { watch_id, prefix: prefix.to_string(), start_revision };
        s.etcd_outbox.push((watch_id, to, msg));
        watch_id
    }

    /// The next `WatchEvents` or `WatchCanceled` of an etcd watch, or None once its connection failed.
    pub async fn next_etcd_watch_message(&self, watch_id: u64) -> Option<EtcdMessage> {
        EtcdWatchMessage { shared: self.shared.clone(), watch_id }.await
    }

    /// The next event of a watch, or None when the watch ended.
    pub async fn next_event(&self, watch_id: u64) -> Option<WatchEvent> {
        NextOn { shared: self.shared.clone(), id: watch_id, queue: |s| &mut s.watch_events }.await
    }

    /// The next text of a followed log; None once the stream has ended.
    pub async fn next_chunk(&self, stream_id: u64) -> Option<String> {
        NextOn { shared: self.shared.clone(), id: stream_id, queue: |s| &mut s.log_chunks }.await
    }

    /// Waits `ms` of simulated time.
    pub async fn sleep(&self, ms: u64) {
        let token = self.next_id();
        self.shared.borrow_mut().timer_requests.push((token, ms));
        Sleep { shared: self.shared.clone(), token }.await
    }
}

struct Response {
    shared: Rc<RefCell<Shared>>,
    id: u64,
}

impl Future for Response {
    type Output = Result<ApiResponse, ClientError>;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.shared.borrow_mut();
        match s.responses.remove(&self.id) {
            Some(r) => {
                s.in_flight.remove(&self.id);
                Poll::Ready(r)
            }
            None => Poll::Pending,
        }
    }
}

struct EtcdReply {
    shared: Rc<RefCell<Shared>>,
    id: u64,
}

impl Future for EtcdReply {
    type Output = Result<EtcdMessage, ClientError>;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.shared.borrow_mut();
        match s.etcd_replies.remove(&self.id) {
            Some(r) => {
                s.in_flight.remove(&self.id);
                Poll::Ready(r)
            }
            None => Poll::Pending,
        }
    }
}

struct EtcdWatchMessage {
    shared: Rc<RefCell<Shared>>,
    watch_id: u64,
}

impl Future for EtcdWatchMessage {
    type Output = Option<EtcdMessage>;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.shared.borrow_mut();
        if let Some(m) = s.etcd_watch_messages.get_mut(&self.watch_id).and_then(VecDeque::pop_front) {
            return Poll::Ready(Some(m));
        }
        // A refused or broken connection answers the watch's id like a request.
        if s.etcd_replies.remove(&self.watch_id).is_some() {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

/// The next item that arrived on a stream (a watch's events, a followed log's text), or None once the
/// server has ended it.
struct NextOn<T> {
    shared: Rc<RefCell<Shared>>,
    id: u64,
    queue: fn(&mut Shared) -> &mut BTreeMap<u64, VecDeque<T>>,
}

impl<T> Future for NextOn<T> {
    type Output = Option<T>;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.shared.borrow_mut();
        if let Some(item) = (self.queue)(&mut s).get_mut(&self.id).and_then(VecDeque::pop_front) {
            return Poll::Ready(Some(item));
        }
        if s.closed_watches.contains(&self.id) {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

struct Sleep {
    shared: Rc<RefCell<Shared>>,
    token: u64,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.shared.borrow_mut().fired.remove(&self.token) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

type Program = Pin<Box<dyn Future<Output = i32>>>;

struct Process {
    program: Program,
    shared: Rc<RefCell<Shared>>,
    exit: Option<i32>,
}

/// A finished or running process as the host reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessStatus {
    pub output: String,
    pub exit: Option<i32>,
    /// What `kubectl edit` asked to open, if it did.
    pub edit: Option<EditRequest>,
}

/// The component that runs client processes and talks to the apiserver for them.
pub struct ProcessHost {
    server: ComponentId,
    ids: Rc<Cell<u64>>,
    processes: BTreeMap<u64, Process>,
    next_pid: u64,
    /// Request id → (pid, sent at, the etcd member it went to; None for the apiserver).
    request_owner: BTreeMap<u64, (u64, SimTime, Option<ComponentId>)>,
    watch_owner: BTreeMap<u64, u64>,
    /// etcd watch id → pid (`etcdctl watch`).
    etcd_watch_owner: BTreeMap<u64, u64>,
    timer_owner: BTreeMap<u64, u64>,
}

impl ProcessHost {
    pub fn new(server: ComponentId) -> ProcessHost {
        ProcessHost {
            server,
            ids: Rc::new(Cell::new(1)),
            processes: BTreeMap::new(),
            next_pid: 1,
            request_owner: BTreeMap::new(),
            watch_owner: BTreeMap::new(),
            etcd_watch_owner: BTreeMap::new(),
            timer_owner: BTreeMap::new(),
        }
    }

    /// A handle for a new process with these credentials.
    pub fn api(&self, credentials: Credentials, impersonate: Option<String>) -> (Api, u64) {
        let shared = Rc::new(RefCell::new(Shared::default()));
        let api = Api { shared, ids: self.ids.clone(), credentials, impersonate };
        (api, self.next_pid)
    }

    /// Starts a program made from `api` (obtained just before from [`ProcessHost::api`]) and runs it until it waits.
    pub fn spawn(&mut self, ctx: &mut Ctx, api: &Api, program: Program) -> u64 {
        let pid = self.next_pid;
        self.next_pid += 1;
        self.processes.insert(pid, Process { program, shared: api.shared.clone(), exit: None });
        self.poll(ctx, pid);
        pid
    }

    pub fn status(&self, pid: u64) -> Option<ProcessStatus> {
        self.processes.get(&pid).map(|p| {
            let shared = p.shared.borrow();
            ProcessStatus { output: shared.output.clone(), exit: p.exit, edit: shared.edit.clone() }
        })
    }

    /// Whether process `pid` has exited, and how (None: still running; unknown pids count as exited with 1).
    pub fn exit_code(&self, pid: u64) -> Option<i32> {
        self.processes.get(&pid).map_or(Some(1), |p| p.exit)
    }

    /// Takes the output written since the last call (for streaming to a terminal).
    pub fn take_output(&mut self, pid: u64) -> String {
        self.processes.get(&pid).map(|p| std::mem::take(&mut p.shared.borrow_mut().output)).unwrap_or_default()
    }

    /// Ends a process (Ctrl-C), keeping its output.
    pub fn kill(&mut self, pid: u64) {
        if let Some(p) = self.processes.get_mut(&pid) {
            if p.exit.is_none() {
                p.exit = Some(130);
                p.program = Box::pin(async { 130 });
            }
        }
    }

    pub fn forget(&mut self, pid: u64) {
        self.processes.remove(&pid);
        self.etcd_watch_owner.retain(|_, owner| *owner != pid);
    }

    /// Ends a process as Ctrl-C or a client hanging up does: it is killed, the watches it had open are
    /// closed at the apiserver, and it is forgotten.
    pub fn end(&mut self, ctx: &mut Ctx, pid: u64) {
        self.kill(pid);
        self.close_watches(ctx, pid);
        self.request_owner.retain(|_, (owner, _, _)| *owner != pid);
        self.forget(pid);
    }

    /// A process that ends closes its connections: the apiserver stops its watches.
    fn close_watches(&mut self, ctx: &mut Ctx, pid: u64) {
        let ids: Vec<u64> = self.watch_owner.iter().filter(|(_, owner)| **owner == pid).map(|(w, _)| *w).collect();
        for watch_id in ids {
            self.watch_owner.remove(&watch_id);
            ctx.send(self.server, Payload::WatchClosed { watch_id });
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        match payload {
            Payload::Etcd(
                msg @ (EtcdMessage::WatchEvents { watch_id, .. } | EtcdMessage::WatchCanceled { watch_id, .. }),
            ) => {
                let Some(&pid) = self.etcd_watch_owner.get(&watch_id) else { return };
                self.deliver(ctx, pid, |s| s.etcd_watch_messages.entry(watch_id).or_default().push_back(msg));
            }
            Payload::Etcd(msg) => {
                let Some(request_id) = msg.reply_to() else { return };
                let Some((pid, _, _)) = self.request_owner.remove(&request_id) else { return };
                self.deliver(ctx, pid, |s| {
                    s.etcd_replies.insert(request_id, Ok(msg));
                });
            }
            Payload::ApiResponse { request_id, response, warnings } => {
                let Some((pid, _, _)) = self.request_owner.remove(&request_id) else { return };
                if let ApiResponse::WatchStarted { watch_id, .. } | ApiResponse::LogStream { stream_id: watch_id, .. } =
                    response.as_ref()
                {
                    self.watch_owner.insert(*watch_id, pid);
                }
                self.deliver(ctx, pid, |s| {
                    if s.keep_warnings.remove(&request_id) {
                        s.warnings.insert(request_id, warnings);
                        s.responses.insert(request_id, Ok(*response));
                        return;
                    }
                    // kubectl's warning writer: one `Warning: <text>` line on stderr per distinct warning,
                    // as soon as the response arrives.
                    for w in warnings {
                        if !w.is_empty() && s.warned.insert(w.clone()) {
                            s.output.push_str(&format!("Warning: {w}\n"));
                        }
                    }
                    s.responses.insert(request_id, Ok(*response));
                });
            }
            Payload::WatchEnded { watch_id } => {
                let Some(pid) = self.watch_owner.remove(&watch_id) else { return };
                self.deliver(ctx, pid, |s| {
                    s.closed_watches.insert(watch_id);
                });
            }
            Payload::LogChunk { watch_id, text } => {
                let Some(&pid) = self.watch_owner.get(&watch_id) else { return };
                self.deliver(ctx, pid, |s| s.log_chunks.entry(watch_id).or_default().push_back(text));
            }
            Payload::WatchEvent { watch_id, event } => {
                let Some(&pid) = self.watch_owner.get(&watch_id) else {
                    return;
                };
                self.deliver(ctx, pid, |s| s.watch_events.entry(watch_id).or_default().push_back(*event));
            }
            Payload::ConnectionRefused { request_id } => {
                let Some((pid, _, etcd)) = self.request_owner.remove(&request_id) else { return };
                self.deliver(ctx, pid, |s| fail(s, request_id, etcd.is_some(), ClientError::ConnectionRefused));
            }
            Payload::Disconnected { peer, since } => {
                let target = (peer != self.server).then_some(peer);
                let broken: Vec<u64> = self
                    .request_owner
                    .iter()
                    .filter(|(_, (_, sent, to))| *sent < since && *to == target)
                    .map(|(id, _)| *id)
                    .collect();
                for request_id in broken {
                    let Some((pid, _, etcd)) = self.request_owner.remove(&request_id) else { continue };
                    self.deliver(ctx, pid, |s| fail(s, request_id, etcd.is_some(), ClientError::ConnectionReset));
                }
                if target.is_some() {
                    return;
                }
                let watches: Vec<(u64, u64)> = std::mem::take(&mut self.watch_owner).into_iter().collect();
                for (watch_id, pid) in watches {
                    self.deliver(ctx, pid, |s| {
                        s.closed_watches.insert(watch_id);
                    });
                }
            }
            _ => {}
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if let Some(pid) = self.timer_owner.remove(&token) {
            self.deliver(ctx, pid, |s| {
                s.fired.insert(token);
            });
        }
    }

    fn deliver(&mut self, ctx: &mut Ctx, pid: u64, f: impl FnOnce(&mut Shared)) {
        if let Some(p) = self.processes.get(&pid) {
            f(&mut p.shared.borrow_mut());
            self.poll(ctx, pid);
        }
    }

    fn poll(&mut self, ctx: &mut Ctx, pid: u64) {
        let Some(p) = self.processes.get_mut(&pid) else {
            return;
        };
        if p.exit.is_some() {
            return;
        }
        p.shared.borrow_mut().now = ctx.now;
        let mut cx = Context::from_waker(Waker::noop());
        let exited = if let Poll::Ready(code) = p.program.as_mut().poll(&mut cx) {
            p.exit = Some(code);
            true
        } else {
            false
        };
        let (outbox, timers, etcd) = {
            let mut s = p.shared.borrow_mut();
            (std::mem::take(&mut s.outbox), std::mem::take(&mut s.timer_requests), std::mem::take(&mut s.etcd_outbox))
        };
        for (id, request) in outbox {
            self.request_owner.insert(id, (pid, ctx.now, None));
            ctx.send(self.server, Payload::ApiRequest { request_id: id, request: Box::new(request) });
        }
        for (id, to, msg) in etcd {
            if matches!(msg, EtcdMessage::Watch { .. }) {
                self.etcd_watch_owner.insert(id, pid);
            }
            self.request_owner.insert(id, (pid, ctx.now, Some(to)));
            ctx.send(to, Payload::Etcd(msg));
        }
        for (token, ms) in timers {
            self.timer_owner.insert(token, pid);
            ctx.timer_in_chain(ms, token);
        }
        if exited {
            self.close_watches(ctx, pid);
        }
    }
}

/// Answers a request with a transport failure, in the map its caller waits on.
fn fail(s: &mut Shared, request_id: u64, etcd: bool, e: ClientError) {
    if etcd {
        s.etcd_replies.insert(request_id, Err(e));
    } else {
        s.responses.insert(request_id, Err(e));
    }
}
