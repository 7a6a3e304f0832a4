//! kube-proxy `<node>/kube-proxy`: the kube-proxy DaemonSet's process on each node, in iptables mode, as
//! `system:serviceaccount:kube-system:kube-proxy` (bound to `system:node-proxier`). Watches: Services and
//! EndpointSlices through kube-apiserver (two informers with kube-proxy's label selector
//! `!service.kubernetes.io/headless,!service.kubernetes.io/service-proxy-name`). Writes nothing to the API:
//! it programs its node's netfilter tables. Counterpart: `cmd/kube-proxy`, `pkg/proxy/config` (the informer
//! handlers), `pkg/proxy/iptables/proxier.go` (syncProxyRules) and `pkg/proxy/runner` (the bounded-frequency
//! sync runner).
//!
//! How it runs: once both informers have listed, it syncs at once (OnServiceSynced/OnEndpointSlicesSynced);
//! after that every change marks its Service dirty and asks for a sync, which runs at most once per
//! `minSyncPeriod` (1 s). A sync recomputes the dirty Services' ports and endpoints ([`state`]) and writes
//! them into the node's tables, from which [`rules`] derives every rule.
//!
//! What outlives the process: the programmed tables live in the node's kernel, not in kube-proxy, so a
//! stopped kube-proxy leaves them as they were (no flush on exit; only `--cleanup` removes them): existing
//! Services keep working from the node with the endpoints they had, new Services and endpoint changes are
//! not programmed there. A started kube-proxy lists again and its first sync replaces the tables whole.

pub mod hash;
pub mod packet;
pub mod rules;
pub mod save;
pub mod slices;
pub mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{Credentials, Kind, Object};
use crate::client::informer::{Change, Informer};
use crate::client::{ApiConn, Incoming};
use crate::sim::{ComponentId, Ctx, Payload, Rng, SimTime};

use packet::RecentLists;
use rules::{NodeNet, Tables};
use slices::SliceIndex;
use state::PortEntry;

/// The service account token kube-proxy's pod mounts.
pub const TOKEN: &str = "kube-proxy-token";
/// kube-proxy's informer label selector (server.go: no headless slices, no other service proxy).
pub const LABEL_SELECTOR: &str = "!service.kubernetes.io/headless,!service.kubernetes.io/service-proxy-name";
/// `iptables.minSyncPeriod`: syncs run at most this often.
pub const MIN_SYNC_PERIOD_MS: u64 = 1_000;

const SERVICES: usize = 0;
const SLICES: usize = 1;
const TIMER_SYNC: u64 = 1;

/// What the node's kernel holds for kube-proxy: the service ports it last programmed (by Service), the
/// `recent` lists of session affinity and the kernel's random stream (`statistic`). It is not process
/// memory: it survives kube-proxy's stop and start.
#[derive(Debug, Clone)]
pub struct Programmed {
    pub services: BTreeMap<String, Arc<Vec<PortEntry>>>,
    /// When the tables were last written; None before the first sync.
    pub at: Option<SimTime>,
    pub recent: RecentLists,
    pub rng: Rng,
}

impl Programmed {
    /// Every programmed service port, in name order.
    pub fn entries(&self) -> impl Iterator<Item = &PortEntry> + Clone {
        self.services.values().flat_map(|ports| ports.iter())
    }
}

/// The kube-proxy process of one node.
pub struct KubeProxy {
    net: NodeNet,
    conn: ApiConn,
    slices: SliceIndex,
    /// Services changed since the last sync.
    dirty: BTreeSet<String>,
    /// The next sync rebuilds every Service (after a (re)list).
    full: bool,
    sync_armed: bool,
    last_sync: Option<SimTime>,
    syncs: u64,
    programmed: Programmed,
}

impl KubeProxy {
    /// kube-proxy for the node `net` describes; `kernel_rng` is the node kernel's random stream.
    pub fn new(server: ComponentId, net: NodeNet, kernel_rng: Rng) -> KubeProxy {
        let credentials = Credentials::Token(TOKEN.into());
        let mut conn = ApiConn::new(server, credentials.clone());
        conn.add_informer(Informer::new(Kind::Service, credentials.clone()).with_label_selector(LABEL_SELECTOR));
        conn.add_informer(Informer::new(Kind::EndpointSlice, credentials).with_label_selector(LABEL_SELECTOR));
        KubeProxy {
            net,
            conn,
            slices: SliceIndex::default(),
            dirty: BTreeSet::new(),
            full: true,
            sync_armed: false,
            last_sync: None,
            syncs: 0,
            programmed: Programmed { services: BTreeMap::new(), at: None, recent: RecentLists::new(), rng: kernel_rng },
        }
    }

    /// A fresh process: informers list again and the first sync rewrites the tables; the tables themselves
    /// are the kernel's and stay as they are until then.
    pub fn on_start(&mut self, ctx: &mut Ctx) {
        self.slices = SliceIndex::default();
        self.dirty.clear();
        self.full = true;
        self.sync_armed = false;
        self.last_sync = None;
        self.conn.start(ctx);
    }

    pub fn node(&self) -> &str {
        &self.net.node
    }

    pub fn net(&self) -> &NodeNet {
        &self.net
    }

    /// How many times this node's tables were written (across restarts).
    pub fn syncs(&self) -> u64 {
        self.syncs
    }

    /// What the node's kernel holds.
    pub fn programmed(&self) -> &Programmed {
        &self.programmed
    }

    pub fn programmed_mut(&mut self) -> &mut Programmed {
        &mut self.programmed
    }

    /// The node's netfilter tables as programmed now.
    pub fn tables(&self) -> Tables {
        rules::build(self.programmed.entries(), &self.net)
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            if let Incoming::Changes { informer, changes } = incoming {
                for change in changes {
                    self.on_change(informer, change);
                }
            }
        }
        if self.full || !self.dirty.is_empty() {
            self.request_sync(ctx);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, token: u64) {
        if self.conn.on_timer(ctx, token) {
            return;
        }
        if token == TIMER_SYNC {
            self.sync_armed = false;
            self.sync(ctx.now);
        }
    }

    fn on_change(&mut self, informer: usize, change: Change) {
        match (informer, change) {
            (_, Change::Resynced) => {
                if informer == SLICES {
                    self.slices.rebuild(self.conn.informer(SLICES).objects());
                }
                self.full = true;
            }
            (SERVICES, Change::Added(o) | Change::Deleted(o) | Change::Modified { new: o, .. }) => {
                self.dirty.insert(o.ns_name());
            }
            (SLICES, change) => self.dirty.extend(self.slices.apply(&change)),
            _ => {}
        }
    }

    /// Asks for a sync: at once when the last one is at least `minSyncPeriod` old, else when it will be.
    fn request_sync(&mut self, ctx: &mut Ctx) {
        if self.sync_armed || !self.conn.synced() {
            return;
        }
        let after = match self.last_sync {
            Some(t) => t.plus_ms(MIN_SYNC_PERIOD_MS).ms().saturating_sub(ctx.now.ms()),
            None => 0,
        };
        self.sync_armed = true;
        ctx.timer(after, TIMER_SYNC);
    }

    /// syncProxyRules: recompute the dirty Services (all of them after a list) and write the tables.
    fn sync(&mut self, now: SimTime) {
        if !self.conn.synced() {
            return;
        }
        let keys: Vec<String> = if self.full {
            let mut all: BTreeSet<String> = self.programmed.services.keys().cloned().collect();
            all.extend(self.conn.informer(SERVICES).objects().map(|o| o.ns_name()));
            all.into_iter().collect()
        } else {
            self.dirty.iter().cloned().collect()
        };
        for key in keys {
            let ports = self.ports_of(&key);
            if ports.is_empty() {
                self.programmed.services.remove(&key);
            } else {
                self.programmed.services.insert(key, Arc::new(ports));
            }
        }
        self.dirty.clear();
        self.full = false;
        self.last_sync = Some(now);
        self.programmed.at = Some(now);
        self.syncs += 1;
    }

    fn ports_of(&self, service_key: &str) -> Vec<PortEntry> {
        let Some(obj) = self.conn.informer(SERVICES).get(service_key) else { return Vec::new() };
        let Object::Service(svc) = obj.as_ref() else { return Vec::new() };
        let slices: Vec<&crate::api::api::discovery::v1::EndpointSlice> = self
            .slices
            .of(service_key)
            .filter_map(|k| match self.conn.informer(SLICES).get(k).map(|o| o.as_ref()) {
                Some(Object::EndpointSlice(s)) => Some(&**s),
                _ => None,
            })
            .collect();
        state::port_entries(svc, &slices)
    }
}
