//! The trace: one record per delivery attempt (delivered, dropped because the receiver stopped, or refused),
//! a running hash of all of them (the determinism check), a bounded window of recent records for the UI, and
//! each chain's records for the numbered data-flow steps.

use std::collections::{BTreeMap, VecDeque};

use super::{rng::fnv1a64, ChainId, ComponentId, SimTime};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    /// The receiver stopped (or restarted) while the message was in flight.
    Dropped,
    /// The receiver was not running when the message was sent.
    Refused,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: u64,
    pub from: ComponentId,
    pub to: ComponentId,
    pub label: String,
    pub object: Option<String>,
    pub revision: Option<u64>,
    pub sent: SimTime,
    pub delivered: SimTime,
    pub chain: ChainId,
    pub outcome: Outcome,
}

impl Delivery {
    /// One stable text line per delivery: what the determinism hash covers.
    pub fn line(&self) -> String {
        format!(
            "{} {} {}->{} {:?} {} {} rev={} chain={}",
            self.sent.ms(),
            self.delivered.ms(),
            self.from.0,
            self.to.0,
            self.outcome,
            self.label,
            self.object.as_deref().unwrap_or("-"),
            self.revision.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
            self.chain
        )
    }
}

/// How many recent deliveries stay available for display.
pub const RECENT_MAX: usize = 4096;
/// How many deliveries one chain keeps (a chain is one request and what it caused).
pub const CHAIN_MAX: usize = 512;
/// How many chains are kept, oldest forgotten first.
pub const CHAINS_MAX: usize = 256;

#[derive(Debug, Default)]
pub struct Trace {
    hash: u64,
    count: u64,
    recent: VecDeque<Delivery>,
    chains: BTreeMap<ChainId, Vec<Delivery>>,
}

impl Trace {
    pub fn record(&mut self, d: Delivery) {
        self.hash = fnv1a64(format!("{:016x}{}", self.hash, d.line()).as_bytes());
        self.count += 1;
        if d.chain != 0 {
            let chain = self.chains.entry(d.chain).or_default();
            if chain.len() < CHAIN_MAX {
                chain.push(d.clone());
            }
            while self.chains.len() > CHAINS_MAX {
                self.chains.pop_first();
            }
        }
        if self.recent.len() == RECENT_MAX {
            self.recent.pop_front();
        }
        self.recent.push_back(d);
    }

    /// A hash of every delivery so far, in order: equal for equal runs.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn recent(&self) -> impl Iterator<Item = &Delivery> {
        self.recent.iter()
    }

    pub fn chain(&self, chain: ChainId) -> &[Delivery] {
        self.chains.get(&chain).map(Vec::as_slice).unwrap_or(&[])
    }
}
