//! A component's connection to kube-apiserver: its credentials, request ids, the informers it runs and
//! the calls it is waiting on. The component hands every delivery to [`ApiConn::on_message`] and reacts to
//! what comes back — informer changes or answers to its own calls — as controllers do over client-go.

use std::collections::BTreeMap;

use crate::api::{ApiRequest, ApiResponse, Credentials};
use crate::sim::{ComponentId, Ctx, Payload, SimTime};

use super::informer::{Change, Informer};
use super::{ClientError, Target};

/// Timer tokens at or above this belong to the connection (informer relists); components use smaller ones.
pub const CONN_TIMER_BASE: u64 = 1 << 62;

/// What a delivery meant to the component.
#[derive(Debug)]
pub enum Incoming {
    /// Informer `index` changed.
    Changes { informer: usize, changes: Vec<Change> },
    /// The answer to a call made with `tag`.
    Answer { tag: u64, result: Result<ApiResponse, ClientError> },
}

#[derive(Debug)]
pub struct ApiConn {
    server: ComponentId,
    credentials: Credentials,
    next_id: u64,
    informers: Vec<Informer>,
    /// Calls in flight: request id → (tag, when sent, what it asked for).
    calls: BTreeMap<u64, (u64, SimTime, Target)>,
}

impl ApiConn {
    pub fn new(server: ComponentId, credentials: Credentials) -> ApiConn {
        ApiConn { server, credentials, next_id: 1, informers: Vec::new(), calls: BTreeMap::new() }
    }

    /// Numbers its requests from `first` on: two connections of one component to the same server (the
    /// apiserver's loopback clients) must not share request ids.
    pub fn with_first_request_id(mut self, first: u64) -> ApiConn {
        self.next_id = first;
        self
    }

    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// Adds an informer (started by [`ApiConn::start`]); returns its index.
    pub fn add_informer(&mut self, informer: Informer) -> usize {
        self.informers.push(informer);
        self.informers.len() - 1
    }

    pub fn informer(&self, index: usize) -> &Informer {
        &self.informers[index]
    }

    /// Whether every informer has completed its first list.
    pub fn synced(&self) -> bool {
        self.informers.iter().all(Informer::has_synced)
    }

    fn id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// (Re)starts every informer; pending calls and cached objects are forgotten (the process restarted, so
    /// it has not synced until its first lists come back).
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.reset();
        self.start_informers(ctx);
    }

    /// The process restarted: pending calls and cached objects are forgotten, and the informers wait for
    /// [`ApiConn::start_informers`] (kube-controller-manager starts them once it leads).
    pub fn reset(&mut self) {
        self.calls.clear();
        for informer in &mut self.informers {
            informer.reset();
        }
    }

    /// Lists (and then watches) with every informer.
    pub fn start_informers(&mut self, ctx: &mut Ctx) {
        for i in 0..self.informers.len() {
            self.relist(ctx, i);
        }
    }

    fn relist(&mut self, ctx: &mut Ctx, index: usize) {
        let id = self.id();
        let out = self.informers[index].relist(id);
        self.send_all(ctx, out.send);
    }

    fn send_all(&mut self, ctx: &mut Ctx, requests: Vec<(u64, ApiRequest)>) {
        for (id, mut req) in requests {
            req.credentials = self.credentials.clone();
            ctx.send(self.server, Payload::ApiRequest { request_id: id, request: Box::new(req) });
        }
    }

    /// Sends a request; its answer comes back as `Incoming::Answer` with `tag`.
    pub fn call(&mut self, ctx: &mut Ctx, mut request: ApiRequest, tag: u64) -> u64 {
        let id = self.id();
        request.credentials = self.credentials.clone();
        self.calls.insert(id, (tag, ctx.now, Target::of(&request)));
        ctx.send(self.server, Payload::ApiRequest { request_id: id, request: Box::new(request) });
        id
    }

    /// How many calls are waiting for an answer.
    pub fn calls_in_flight(&self) -> usize {
        self.calls.len()
    }

    /// What a delivery means to the component (empty for the connection's own bookkeeping).
    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) -> Vec<Incoming> {
        match payload {
            Payload::ApiResponse { request_id, response, .. } => self.on_response(ctx, request_id, Ok(*response)),
            Payload::ConnectionRefused { request_id } => {
                self.on_response(ctx, request_id, Err(ClientError::ConnectionRefused))
            }
            Payload::WatchEvent { watch_id, event } => {
                let Some(index) = self.informers.iter().position(|i| i.owns_watch(watch_id)) else { return Vec::new() };
                let out = self.informers[index].on_event(*event);
                self.after(ctx, index, out)
            }
            Payload::Disconnected { peer, since } if peer == self.server => self.on_disconnected(ctx, since),
            _ => Vec::new(),
        }
    }

    fn on_response(
        &mut self,
        ctx: &mut Ctx,
        request_id: u64,
        result: Result<ApiResponse, ClientError>,
    ) -> Vec<Incoming> {
        if let Some((tag, _, target)) = self.calls.remove(&request_id) {
            return vec![Incoming::Answer { tag, result: result.map(|r| target.decode(r)) }];
        }
        let Some(index) = self.informers.iter().position(|i| i.owns_request(request_id)) else { return Vec::new() };
        let out = match result {
            Ok(response) => {
                let next = self.id();
                self.informers[index].on_response(response, next)
            }
            Err(_) => self.informers[index].fail(),
        };
        self.after(ctx, index, out)
    }

    fn after(&mut self, ctx: &mut Ctx, index: usize, out: super::informer::Output) -> Vec<Incoming> {
        if let Some(ms) = out.relist_after_ms {
            ctx.timer(ms, CONN_TIMER_BASE + index as u64);
        }
        self.send_all(ctx, out.send);
        if out.changes.is_empty() {
            Vec::new()
        } else {
            vec![Incoming::Changes { informer: index, changes: out.changes }]
        }
    }

    /// The apiserver went away: watches are broken (relist later) and calls sent before then fail.
    fn on_disconnected(&mut self, ctx: &mut Ctx, since: SimTime) -> Vec<Incoming> {
        for index in 0..self.informers.len() {
            let out = self.informers[index].fail();
            if let Some(ms) = out.relist_after_ms {
                ctx.timer(ms, CONN_TIMER_BASE + index as u64);
            }
        }
        let broken: Vec<u64> = self.calls.iter().filter(|(_, (_, sent, _))| *sent < since).map(|(id, _)| *id).collect();
        broken
            .into_iter()
            .filter_map(|id| self.calls.remove(&id))
            .map(|(tag, _, _)| Incoming::Answer { tag, result: Err(ClientError::ConnectionReset) })
            .collect()
    }

    /// Handles a connection timer; false when the token is the component's own.
    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) -> bool {
        if token < CONN_TIMER_BASE {
            return false;
        }
        let index = (token - CONN_TIMER_BASE) as usize;
        if index < self.informers.len() {
            self.relist(ctx, index);
        }
        true
    }
}
