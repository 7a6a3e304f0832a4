//! Clients from outside the simulation (`kubeglass serve`): the person's own kubectl, k9s, a client library.
//! Each user agent is a client component of its own (`kubectl/v1.32.0`, `python-requests`), and each HTTP
//! request it makes is a process on that component that sends one API request into the kernel, at the
//! simulated moment it arrived, and collects what comes back: the answer with its warnings, then the events
//! of a watch. The apiserver handles it exactly as the simulated kubectl's: the request log, the stages and
//! the numbered steps are the same. Nothing here knows about sockets.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::{Cluster, Component, ProcessHost};
use crate::api::{ApiRequest, ApiResponse, Credentials, WatchEvent};
use crate::client::ClientError;
use crate::sim::ComponentId;

/// What a remote client's request got, in the order it came.
#[derive(Debug)]
pub enum RemoteEvent {
    /// The apiserver's answer and its `Warning` headers.
    Answer { result: Result<ApiResponse, ClientError>, warnings: Vec<String> },
    /// One event of the watch the answer started.
    Event(WatchEvent),
    /// More text of the log the answer started following.
    Chunk(String),
    /// The watch ended from the server's side (the apiserver went away).
    Ended,
}

type Sink = Rc<RefCell<VecDeque<RemoteEvent>>>;

/// A remote request in progress: its client component, its process there, and what it received.
pub(super) struct RemoteCall {
    host: ComponentId,
    pid: u64,
    sink: Sink,
}

/// A component name for a user agent: its product token (`kubectl/v1.32.0`), or `remote client` for none.
pub fn client_name(user_agent: &str) -> String {
    let product = user_agent.split_whitespace().next().unwrap_or("");
    let clean: String = product.chars().filter(|c| c.is_ascii_graphic()).take(64).collect();
    if clean.is_empty() {
        "remote client".to_string()
    } else {
        clean
    }
}

impl Cluster {
    /// Sends `request` from the client component named `client` (made on first use) with `credentials`, now.
    /// Returns the call's id: read what comes back with [`Cluster::take_remote`], end it with
    /// [`Cluster::end_remote`].
    pub fn remote_call(&mut self, client: &str, credentials: Credentials, request: ApiRequest) -> u64 {
        let host = self.remote_host(client);
        let sink: Sink = Rc::default();
        let out = Rc::clone(&sink);
        let (pid, _) = self.spawn_on(host, credentials, move |api| {
            Box::pin(async move {
                let (result, warnings) = api.call_raw_warned(request).await;
                let (watch, stream) = match &result {
                    Ok(ApiResponse::WatchStarted { watch_id, .. }) => (Some(*watch_id), None),
                    Ok(ApiResponse::LogStream { stream_id, .. }) => (None, Some(*stream_id)),
                    _ => (None, None),
                };
                out.borrow_mut().push_back(RemoteEvent::Answer { result, warnings });
                if let Some(watch_id) = watch {
                    while let Some(event) = api.next_event(watch_id).await {
                        out.borrow_mut().push_back(RemoteEvent::Event(event));
                    }
                    out.borrow_mut().push_back(RemoteEvent::Ended);
                }
                if let Some(stream_id) = stream {
                    while let Some(text) = api.next_chunk(stream_id).await {
                        out.borrow_mut().push_back(RemoteEvent::Chunk(text));
                    }
                    out.borrow_mut().push_back(RemoteEvent::Ended);
                }
                0
            })
        });
        let id = self.next_remote;
        self.next_remote += 1;
        self.remote_calls.insert(id, RemoteCall { host, pid, sink });
        id
    }

    /// What call `id` received since the last time; a finished call is forgotten once read.
    pub fn take_remote(&mut self, id: u64) -> Vec<RemoteEvent> {
        let Some(call) = self.remote_calls.get(&id) else { return Vec::new() };
        let events: Vec<RemoteEvent> = call.sink.borrow_mut().drain(..).collect();
        let (host, pid) = (call.host, call.pid);
        let done = match &self.components[host.0 as usize] {
            Component::Host(h) => h.exit_code(pid).is_some(),
            _ => true,
        };
        if done {
            self.remote_calls.remove(&id);
            if let Component::Host(h) = &mut self.components[host.0 as usize] {
                h.forget(pid);
            }
        }
        events
    }

    /// The client hung up: the request's process ends and a watch it held is closed at the apiserver.
    pub fn end_remote(&mut self, id: u64) {
        if let Some(call) = self.remote_calls.remove(&id) {
            self.end_on(call.host, call.pid);
        }
    }

    /// Whether kube-apiserver is listening (running, on a machine that is on): a real client's connection
    /// is refused otherwise.
    pub fn apiserver_listening(&self) -> bool {
        self.kernel.is_running(self.apiserver)
    }

    /// Whether call `id` is still in progress (waiting for its answer, or a watch still open).
    pub fn remote_call_open(&self, id: u64) -> bool {
        self.remote_calls.contains_key(&id)
    }

    /// Whether a message sent to a remote client at or before `sent_by` is still on the wire: a watch's
    /// first events, written with its answer, follow it by a few milliseconds.
    pub fn remote_in_flight_sent_by(&self, sent_by: crate::sim::SimTime) -> bool {
        let hosts: std::collections::BTreeSet<ComponentId> = self.remote_calls.values().map(|c| c.host).collect();
        !hosts.is_empty() && self.kernel.any_in_flight(|e| e.sent <= sent_by && hosts.contains(&e.to))
    }

    fn remote_host(&mut self, client: &str) -> ComponentId {
        if let Some(id) = self.remote_hosts.get(client) {
            return *id;
        }
        let id = self.reserve(client, "client", None);
        self.components[id.0 as usize] = Component::Host(Box::new(ProcessHost::new(self.apiserver)));
        self.remote_hosts.insert(client.to_string(), id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_agent_names_its_client_component_by_its_product() {
        assert_eq!(client_name("kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9"), "kubectl/v1.32.0");
        assert_eq!(client_name(""), "remote client");
        assert_eq!(client_name("\u{7}\u{8}"), "remote client");
    }
}
