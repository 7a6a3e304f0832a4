//! The apiextensions controllers that run inside kube-apiserver, over its loopback client (user
//! `system:apiserver`): the naming controller accepts a definition's names unless another definition of the
//! group holds them (`NamesAccepted`), the establishing controller then marks it `Established` (at once: one
//! apiserver, no wait for others), and the finalizer deletes a definition's custom resources once it is being
//! deleted, then removes the `customresourcecleanup.apiextensions.k8s.io` finalizer so the definition goes.
//! Each writes the definition's `/status`, one write per definition at a time; a definition changed meanwhile
//! is looked at again when its write is answered. They read the definitions from the apiserver's own watch
//! cache, which tells them of every change (the real ones keep an informer over the loopback client; here
//! that would add a list and a watch to every cluster's start for a kind most clusters never use).
//!
//! Watches: CustomResourceDefinitions (the watch cache). Writes: `customresourcedefinitions/status`; lists and deletes of the
//! custom resources of a definition being deleted. Counterpart: `apiextensions-apiserver/pkg/controller`
//! (`status/naming_controller.go`, `establish/establishing_controller.go`, `finalizer/crd_finalizer.go`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionNames,
};

use super::{condition_true, kind_of, set_condition, CLEANUP_FINALIZER};
use crate::api::custom;
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, Verb};
use crate::apiserver::cache::WatchCache;
use crate::client::{ApiConn, ClientError, Incoming};
use crate::sim::{ComponentId, Ctx, Payload};

/// Where the loopback client's request ids start (the identity Lease's client counts from 1).
const FIRST_REQUEST_ID: u64 = 1 << 40;
/// How often the finalizer looks again whether a definition's objects are gone (its poll interval).
pub const CLEANUP_POLL_MS: u64 = 5_000;

/// What a call in flight was for.
#[derive(Debug, Clone)]
enum Call {
    /// A status write of this definition.
    Status(String),
    /// The list of a definition's objects, for the finalizer.
    List(String),
    /// A delete of one of its objects.
    Delete,
}

/// The three controllers and their loopback client.
#[derive(Debug)]
pub struct Controllers {
    conn: ApiConn,
    /// Definitions with a call in flight, looked at again when it is answered.
    busy: BTreeSet<String>,
    calls: BTreeMap<u64, Call>,
    next_tag: u64,
    /// Definitions being emptied: their objects' deletes are sent, the list is polled until it is empty.
    emptying: BTreeSet<String>,
    /// The timer the finalizer polls with, and the definitions waiting for it.
    timer: u64,
    polling: BTreeSet<String>,
}

impl Controllers {
    pub fn new(me: ComponentId, timer: u64) -> Controllers {
        let credentials = Credentials::ClientCert {
            common_name: "system:apiserver".into(),
            organizations: vec!["system:masters".into()],
        };
        Controllers {
            conn: ApiConn::new(me, credentials).with_first_request_id(FIRST_REQUEST_ID),
            busy: BTreeSet::new(),
            calls: BTreeMap::new(),
            next_tag: 1,
            emptying: BTreeSet::new(),
            timer,
            polling: BTreeSet::new(),
        }
    }

    /// The process started: nothing is in flight.
    pub fn start(&mut self) {
        self.busy.clear();
        self.calls.clear();
        self.emptying.clear();
        self.polling.clear();
        self.conn.reset();
    }

    pub fn owns_timer(&self, token: u64) -> bool {
        token == self.timer
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, cache: &WatchCache) {
        for name in std::mem::take(&mut self.polling) {
            self.list_objects(ctx, cache, &name);
        }
    }

    /// The watch cache was filled: every definition is looked at.
    pub fn resync(&mut self, ctx: &mut Ctx, cache: &WatchCache) {
        for crd in cache.list(Kind::CustomResourceDefinition, None) {
            self.changed(ctx, cache, crd.name());
        }
    }

    /// Whether an answer from the apiserver itself is to this client.
    pub fn owns(payload: &Payload) -> bool {
        matches!(payload, Payload::ApiResponse { request_id, .. } | Payload::ConnectionRefused { request_id }
            if *request_id >= FIRST_REQUEST_ID)
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, cache: &WatchCache, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            if let Incoming::Answer { tag, result } = incoming {
                self.on_answer(ctx, cache, tag, result);
            }
        }
    }

    fn call(&mut self, ctx: &mut Ctx, req: ApiRequest, what: Call) {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.calls.insert(tag, what);
        self.conn.call(ctx, req, tag);
    }

    /// Definition `name` changed (or went): what the finalizer, the naming or the establishing controller
    /// has to do for it.
    pub fn changed(&mut self, ctx: &mut Ctx, cache: &WatchCache, name: &str) {
        if self.busy.contains(name) || self.emptying.contains(name) || self.polling.contains(name) {
            return;
        }
        let Some(mut crd) = definition(cache, name) else { return };
        let deleting = crd.metadata.deletion_timestamp.is_some()
            && crd.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER);
        if deleting {
            return self.finalize(ctx, cache, crd);
        }
        if crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()) != Some(&crd.spec.names) {
            accept_names(&mut crd, cache, ctx);
            return self.write_status(ctx, crd);
        }
        if condition_true(&crd, "NamesAccepted") && !condition_true(&crd, "Established") {
            set_condition(
                &mut crd,
                "Established",
                "True",
                "InitialNamesAccepted",
                "the initial names have been accepted",
                ctx.now,
            );
            self.write_status(ctx, crd);
        }
    }

    /// The finalizer's steps for a definition being deleted: say the deletion is in progress, delete its
    /// objects and wait until none is left, say so, then remove the finalizer.
    fn finalize(&mut self, ctx: &mut Ctx, cache: &WatchCache, mut crd: CustomResourceDefinition) {
        let reason = crd
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|cs| cs.iter().find(|c| c.type_ == "Terminating"))
            .and_then(|c| c.reason.clone())
            .unwrap_or_default();
        match reason.as_str() {
            "InstanceDeletionInProgress" if condition_true(&crd, "Established") => {
                let name = crd.metadata.name.clone().unwrap_or_default();
                self.list_objects(ctx, cache, &name);
            }
            "InstanceDeletionInProgress" => {
                set_condition(
                    &mut crd,
                    "Terminating",
                    "False",
                    "NeverEstablished",
                    "resource was never established",
                    ctx.now,
                );
                self.write_status(ctx, crd);
            }
            "InstanceDeletionCompleted" | "NeverEstablished" => {
                if let Some(f) = crd.metadata.finalizers.as_mut() {
                    f.retain(|f| f != CLEANUP_FINALIZER);
                }
                self.write_status(ctx, crd);
            }
            _ => {
                set_condition(
                    &mut crd,
                    "Terminating",
                    "True",
                    "InstanceDeletionInProgress",
                    "CustomResource deletion is in progress",
                    ctx.now,
                );
                self.write_status(ctx, crd);
            }
        }
    }

    /// The storage version's resource row of a definition, for listing and deleting its objects.
    fn row(crd: &CustomResourceDefinition) -> Option<&'static crate::api::ResourceInfo> {
        let Kind::Custom(def) = kind_of(crd) else { return None };
        let version = crd.spec.versions.iter().find(|v| v.storage)?;
        Some(custom::row(def, &version.name))
    }

    fn list_objects(&mut self, ctx: &mut Ctx, cache: &WatchCache, name: &str) {
        let Some(crd) = definition(cache, name) else { return };
        let Some(row) = Self::row(&crd) else { return };
        self.emptying.insert(name.to_string());
        self.call(ctx, ApiRequest::new(Credentials::Anonymous, Verb::List, row), Call::List(name.to_string()));
    }

    fn write_status(&mut self, ctx: &mut Ctx, crd: CustomResourceDefinition) {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Update, Kind::CustomResourceDefinition.info())
            .name(&name)
            .subresource("status");
        let mut body = serde_json::to_value(&crd).unwrap_or_default();
        body["apiVersion"] = "apiextensions.k8s.io/v1".into();
        body["kind"] = "CustomResourceDefinition".into();
        req.raw_body = Some(body);
        self.busy.insert(name.clone());
        self.call(ctx, req, Call::Status(name));
    }

    fn on_answer(&mut self, ctx: &mut Ctx, cache: &WatchCache, tag: u64, result: Result<ApiResponse, ClientError>) {
        let Some(call) = self.calls.remove(&tag) else { return };
        match call {
            Call::Status(name) => {
                self.busy.remove(&name);
                self.changed(ctx, cache, &name);
            }
            Call::List(name) => match result {
                Ok(ApiResponse::List { items, .. }) if items.is_empty() => {
                    self.emptying.remove(&name);
                    if let Some(mut crd) = definition(cache, &name) {
                        set_condition(
                            &mut crd,
                            "Terminating",
                            "False",
                            "InstanceDeletionCompleted",
                            "removed all instances",
                            ctx.now,
                        );
                        self.write_status(ctx, crd);
                    }
                }
                Ok(ApiResponse::List { items, .. }) => {
                    for item in items.iter().filter(|o| o.meta().deletion_timestamp.is_none()) {
                        let req = ApiRequest::new(Credentials::Anonymous, Verb::Delete, item.info())
                            .namespace(item.namespace())
                            .name(item.name());
                        self.call(ctx, req, Call::Delete);
                    }
                    self.poll_later(ctx, &name);
                }
                _ => self.poll_later(ctx, &name),
            },
            Call::Delete => {}
        }
    }

    fn poll_later(&mut self, ctx: &mut Ctx, name: &str) {
        self.emptying.remove(name);
        if self.polling.is_empty() {
            ctx.timer(CLEANUP_POLL_MS, self.timer);
        }
        self.polling.insert(name.to_string());
    }
}

/// The naming controller: the names another definition of the group has not accepted already.
fn accept_names(crd: &mut CustomResourceDefinition, cache: &WatchCache, ctx: &Ctx) {
    let requested = crd.spec.names.clone();
    let mut resources = BTreeSet::new();
    let mut kinds = BTreeSet::new();
    for other in cache.list(Kind::CustomResourceDefinition, None) {
        let Object::CustomResourceDefinition(o) = other.as_ref() else { continue };
        if o.metadata.name == crd.metadata.name || o.spec.group != crd.spec.group {
            continue;
        }
        let Some(names) = o.status.as_ref().and_then(|s| s.accepted_names.as_ref()) else { continue };
        resources.insert(names.plural.clone());
        resources.extend(names.singular.clone());
        resources.extend(names.short_names.clone().unwrap_or_default());
        kinds.insert(names.kind.clone());
        kinds.extend(names.list_kind.clone());
    }
    let accepted = crd.status.as_ref().and_then(|s| s.accepted_names.clone()).unwrap_or_default();
    let mut conflict = None;
    let mut names = CustomResourceDefinitionNames { categories: requested.categories.clone(), ..accepted.clone() };
    let mut take = |wanted: &str, used: &BTreeSet<String>, reason: &'static str| -> bool {
        if used.contains(wanted) {
            conflict = Some((reason, format!("{wanted:?} is already in use")));
            false
        } else {
            true
        }
    };
    if take(&requested.plural, &resources, "PluralConflict") {
        names.plural = requested.plural.clone();
    }
    let singular = requested.singular.clone().unwrap_or_default();
    if take(&singular, &resources, "SingularConflict") {
        names.singular = requested.singular.clone();
    }
    let shorts = requested.short_names.clone().unwrap_or_default();
    if shorts.iter().all(|s| take(s, &resources, "ShortNamesConflict")) {
        names.short_names = requested.short_names.clone();
    }
    if take(&requested.kind, &kinds, "KindConflict") {
        names.kind = requested.kind.clone();
    }
    let list_kind = requested.list_kind.clone().unwrap_or_default();
    if take(&list_kind, &kinds, "ListKindConflict") {
        names.list_kind = requested.list_kind.clone();
    }
    crd.status.get_or_insert_with(Default::default).accepted_names = Some(names);
    match conflict {
        Some((reason, message)) => {
            set_condition(crd, "NamesAccepted", "False", reason, &message, ctx.now);
            if !condition_true(crd, "Established") {
                set_condition(crd, "Established", "False", "NotAccepted", "not all names are accepted", ctx.now);
            }
        }
        None => {
            set_condition(crd, "NamesAccepted", "True", "NoConflicts", "no conflicts found", ctx.now);
            if !condition_true(crd, "Established") {
                set_condition(
                    crd,
                    "Established",
                    "False",
                    "Installing",
                    "the initial names have been accepted",
                    ctx.now,
                );
            }
        }
    }
}

fn definition(cache: &WatchCache, name: &str) -> Option<CustomResourceDefinition> {
    match cache.get(Kind::CustomResourceDefinition, None, name).as_deref() {
        Some(Object::CustomResourceDefinition(d)) => Some(d.as_ref().clone()),
        _ => None,
    }
}
