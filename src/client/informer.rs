//! An informer: the list-then-watch loop every controller runs (client-go's reflector + store), as an
//! explicit state machine. It lists (from the watch cache, `resourceVersion=0`), replaces its store whole,
//! watches from the list's revision, applies each event to the store, and relists when the watch breaks
//! or the apiserver answers 410 Gone. Each step returns the requests to send and the changes to react to;
//! the owning component sends them. Counterpart: `k8s.io/client-go/tools/cache` (Reflector, Store).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, Verb, WatchEvent, WatchEventType};

/// How long to wait before relisting after a failure (client-go backs off from 800 ms; kept fixed here).
pub const RELIST_BACKOFF_MS: u64 = 1_000;

/// A change the owner reacts to.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Added(Arc<Object>),
    Modified {
        old: Arc<Object>,
        new: Arc<Object>,
    },
    Deleted(Arc<Object>),
    /// The store was replaced by a (re)list; everything in it is current.
    Resynced,
}

/// Where the informer is in its loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not started, or waiting out a backoff before relisting.
    Idle,
    Listing {
        request_id: u64,
    },
    /// A watch request is in flight.
    StartingWatch {
        request_id: u64,
    },
    Watching {
        watch_id: u64,
    },
}

/// What a step asks of its owner.
#[derive(Debug, Default)]
pub struct Output {
    pub send: Vec<(u64, ApiRequest)>,
    pub changes: Vec<Change>,
    /// Relist after this many milliseconds (the owner sets a timer and calls [`Informer::relist`]).
    pub relist_after_ms: Option<u64>,
}

/// One informer over one kind (optionally one namespace and selectors).
#[derive(Debug, Clone)]
pub struct Informer {
    kind: Kind,
    namespace: Option<String>,
    field_selector: Option<String>,
    label_selector: Option<String>,
    credentials: Credentials,
    state: State,
    store: BTreeMap<String, Arc<Object>>,
    resource_version: u64,
    synced: bool,
    relists: u64,
}

impl Informer {
    pub fn new(kind: Kind, credentials: Credentials) -> Informer {
        Informer {
            kind,
            namespace: None,
            field_selector: None,
            label_selector: None,
            credentials,
            state: State::Idle,
            store: BTreeMap::new(),
            resource_version: 0,
            synced: false,
            relists: 0,
        }
    }

    pub fn with_field_selector(mut self, selector: &str) -> Informer {
        self.field_selector = Some(selector.to_string());
        self
    }

    pub fn with_label_selector(mut self, selector: &str) -> Informer {
        self.label_selector = Some(selector.to_string());
        self
    }

    pub fn in_namespace(mut self, ns: &str) -> Informer {
        self.namespace = Some(ns.to_string());
        self
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// Whether the first list has completed (controllers wait for this before acting: WaitForCacheSync).
    pub fn has_synced(&self) -> bool {
        self.synced
    }

    /// How many times the informer has listed (1 after start; more after 410s and broken watches).
    pub fn lists(&self) -> u64 {
        self.relists
    }

    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    pub fn get(&self, key: &str) -> Option<&Arc<Object>> {
        self.store.get(key)
    }

    pub fn objects(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.store.values()
    }

    /// The objects of one namespace: a range of the store, whose keys (`namespace/name`) keep each namespace's
    /// objects together, so no index beside it is needed.
    pub fn objects_in<'a>(&'a self, namespace: &str) -> impl Iterator<Item = &'a Arc<Object>> + 'a {
        let prefix = format!("{namespace}/");
        self.store.range(prefix.clone()..).take_while(move |(k, _)| k.starts_with(&prefix)).map(|(_, o)| o)
    }

    pub fn len(&self) -> usize {
        self.store.len()
    }

    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    fn request(&self, verb: Verb) -> ApiRequest {
        let mut req =
            ApiRequest::new(self.credentials.clone(), verb, self.kind.info()).namespace(self.namespace.as_deref());
        req.params.field_selector = self.field_selector.clone();
        req.params.label_selector = self.label_selector.clone();
        req
    }

    /// Forgets everything cached: a restarted process starts with an empty, unsynced informer.
    pub fn reset(&mut self) {
        self.store.clear();
        self.resource_version = 0;
        self.synced = false;
        self.state = State::Idle;
    }

    /// Starts (or restarts) the loop with a list from the watch cache. `request_id` names the request.
    pub fn relist(&mut self, request_id: u64) -> Output {
        let mut req = self.request(Verb::List);
        req.params.resource_version = Some("0".into());
        self.state = State::Listing { request_id };
        Output { send: vec![(request_id, req)], ..Output::default() }
    }

    /// Whether `request_id` belongs to this informer (the owner routes responses by it).
    pub fn owns_request(&self, request_id: u64) -> bool {
        matches!(self.state, State::Listing { request_id: r } | State::StartingWatch { request_id: r } if r == request_id)
    }

    pub fn owns_watch(&self, watch_id: u64) -> bool {
        matches!(self.state, State::Watching { watch_id: w } if w == watch_id)
    }

    /// The answer to this informer's list or watch request. `next_id` names the next request if one is needed.
    pub fn on_response(&mut self, response: ApiResponse, next_id: u64) -> Output {
        match (self.state, response) {
            (State::Listing { .. }, ApiResponse::List { items, resource_version, .. }) => {
                self.store = items.into_iter().map(|o| (o.ns_name(), o)).collect();
                self.resource_version = resource_version;
                self.synced = true;
                self.relists += 1;
                let mut req = self.request(Verb::Watch);
                req.params.resource_version = Some(resource_version.to_string());
                req.params.allow_bookmarks = true;
                self.state = State::StartingWatch { request_id: next_id };
                Output { send: vec![(next_id, req)], changes: vec![Change::Resynced], relist_after_ms: None }
            }
            (State::StartingWatch { .. }, ApiResponse::WatchStarted { watch_id, .. }) => {
                self.state = State::Watching { watch_id };
                Output::default()
            }
            _ => self.fail(),
        }
    }

    /// An event of this informer's watch.
    pub fn on_event(&mut self, event: WatchEvent) -> Output {
        let changes = match (event.kind, event.object) {
            (WatchEventType::Error, _) => return self.fail(),
            (WatchEventType::Bookmark, _) => Vec::new(),
            (WatchEventType::Added | WatchEventType::Modified, Some(new)) => {
                let key = new.ns_name();
                match self.store.insert(key, new.clone()) {
                    Some(old) => vec![Change::Modified { old, new }],
                    None => vec![Change::Added(new)],
                }
            }
            (WatchEventType::Deleted, Some(gone)) => {
                self.store.remove(&gone.ns_name());
                vec![Change::Deleted(gone)]
            }
            (_, None) => Vec::new(),
        };
        self.resource_version = self.resource_version.max(event.resource_version);
        Output { changes, ..Output::default() }
    }

    /// The connection broke or the request failed: back off, then relist.
    pub fn fail(&mut self) -> Output {
        self.state = State::Idle;
        Output { relist_after_ms: Some(RELIST_BACKOFF_MS), ..Output::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::ConfigMap;
    use crate::api::{ObjectMeta, Status};

    fn cm(name: &str, rv: u64) -> Arc<Object> {
        Arc::new(Object::ConfigMap(Box::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                resource_version: Some(rv.to_string()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        })))
    }

    fn event(kind: WatchEventType, obj: Option<Arc<Object>>, rv: u64) -> WatchEvent {
        WatchEvent { kind, object: obj, resource_version: rv, status: None }
    }

    #[test]
    fn an_informer_lists_then_watches_from_the_lists_revision() {
        let mut i = Informer::new(Kind::ConfigMap, Credentials::Anonymous);
        let out = i.relist(1);
        assert_eq!(out.send[0].1.verb, Verb::List);
        assert_eq!(out.send[0].1.params.resource_version.as_deref(), Some("0"));
        let out = i.on_response(ApiResponse::List { items: vec![cm("a", 5)], resource_version: 9, more: None }, 2);
        assert!(i.has_synced());
        assert_eq!(out.changes, vec![Change::Resynced]);
        let (id, watch) = &out.send[0];
        assert_eq!((*id, watch.verb, watch.params.resource_version.as_deref()), (2, Verb::Watch, Some("9")));
        i.on_response(ApiResponse::WatchStarted { watch_id: 77, table: None }, 3);
        assert!(i.owns_watch(77));
    }

    #[test]
    fn watch_events_update_the_store_and_report_changes() {
        let mut i = Informer::new(Kind::ConfigMap, Credentials::Anonymous);
        i.relist(1);
        i.on_response(ApiResponse::List { items: vec![cm("a", 5)], resource_version: 9, more: None }, 2);
        i.on_response(ApiResponse::WatchStarted { watch_id: 1, table: None }, 3);
        let out = i.on_event(event(WatchEventType::Added, Some(cm("b", 10)), 10));
        assert!(matches!(&out.changes[0], Change::Added(o) if o.name() == "b"));
        let out = i.on_event(event(WatchEventType::Modified, Some(cm("a", 11)), 11));
        assert!(
            matches!(&out.changes[0], Change::Modified { old, new } if old.resource_version() == 5 && new.resource_version() == 11)
        );
        i.on_event(event(WatchEventType::Deleted, Some(cm("b", 12)), 12));
        assert_eq!(i.len(), 1);
        assert_eq!(i.resource_version(), 12);
    }

    #[test]
    fn a_namespace_is_a_range_of_the_store_not_a_prefix_of_its_neighbours() {
        let in_ns = |ns: &str, name: &str| {
            let mut o = cm(name, 1).as_ref().clone();
            o.meta_mut().namespace = Some(ns.into());
            Arc::new(o)
        };
        let mut i = Informer::new(Kind::ConfigMap, Credentials::Anonymous);
        i.relist(1);
        let items = vec![in_ns("a", "x"), in_ns("a-b", "y"), in_ns("ab", "z"), in_ns("a", "w"), in_ns("b", "v")];
        i.on_response(ApiResponse::List { items, resource_version: 9, more: None }, 2);
        let names = |ns: &str| i.objects_in(ns).map(|o| o.name().to_string()).collect::<Vec<_>>();
        assert_eq!(names("a"), ["w", "x"]);
        assert_eq!(names("a-b"), ["y"]);
        assert_eq!(names("b"), ["v"]);
        assert!(names("c").is_empty());
    }

    #[test]
    fn a_410_gone_makes_the_informer_relist_after_a_backoff() {
        let mut i = Informer::new(Kind::ConfigMap, Credentials::Anonymous);
        i.relist(1);
        i.on_response(ApiResponse::List { items: vec![], resource_version: 3, more: None }, 2);
        i.on_response(ApiResponse::WatchStarted { watch_id: 1, table: None }, 3);
        let gone = WatchEvent {
            kind: WatchEventType::Error,
            object: None,
            resource_version: 3,
            status: Some(Status::expired(3, 50)),
        };
        let out = i.on_event(gone);
        assert_eq!(out.relist_after_ms, Some(RELIST_BACKOFF_MS));
        assert_eq!(i.state(), State::Idle);
        let out = i.relist(4);
        assert_eq!(out.send[0].1.verb, Verb::List);
        i.on_response(ApiResponse::List { items: vec![cm("z", 60)], resource_version: 60, more: None }, 5);
        assert_eq!(i.lists(), 2);
        assert!(i.get("default/z").is_some());
    }

    #[test]
    fn an_error_answer_to_the_list_backs_off() {
        let mut i = Informer::new(Kind::ConfigMap, Credentials::Anonymous);
        i.relist(1);
        let out = i.on_response(ApiResponse::Error(Status::storage("etcdserver: request timed out")), 2);
        assert_eq!(out.relist_after_ms, Some(RELIST_BACKOFF_MS));
        assert!(!i.has_synced());
    }
}
