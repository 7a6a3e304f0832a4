//! The trace: one record per delivery attempt (delivered, dropped because the receiver stopped, or refused),
//! a running hash of all of them (the determinism check), a bounded window of recent records for the UI, and
//! each chain's records for the numbered data-flow steps.

use std::collections::{BTreeMap, VecDeque};

use std::fmt::Write as _;

use super::{ChainId, ComponentId, SimTime};

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
        let mut s = String::new();
        let _ = self.write_line(&mut s);
        s
    }

    fn write_line(&self, out: &mut impl std::fmt::Write) -> std::fmt::Result {
        write!(
            out,
            "{} {} {}->{} {:?} {} {} rev=",
            self.sent.ms(),
            self.delivered.ms(),
            self.from.0,
            self.to.0,
            self.outcome,
            self.label,
            self.object.as_deref().unwrap_or("-"),
        )?;
        match self.revision {
            Some(r) => write!(out, "{r}")?,
            None => out.write_char('-')?,
        }
        write!(out, " chain={}", self.chain)
    }
}

/// FNV-1a fed as text is written, so hashing a formatted line allocates nothing (same value as
/// [`super::rng::fnv1a64`] over the whole text).
struct Fnv(u64);

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for b in s.bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
        Ok(())
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
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        let _ = write!(h, "{:016x}", self.hash);
        let _ = d.write_line(&mut h);
        self.hash = h.0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::fnv1a64;

    #[test]
    fn the_running_hash_is_fnv_over_the_previous_hash_and_the_line() {
        let d = Delivery {
            id: 1,
            from: ComponentId(2),
            to: ComponentId(3),
            label: "create pods".into(),
            object: Some("default/web".into()),
            revision: Some(42),
            sent: SimTime::ZERO,
            delivered: SimTime::ZERO.plus_ms(3),
            chain: 7,
            outcome: Outcome::Delivered,
        };
        assert_eq!(d.line(), "0 3 2->3 Delivered create pods default/web rev=42 chain=7");
        let mut t = Trace::default();
        t.record(d.clone());
        assert_eq!(t.hash(), fnv1a64(format!("{:016x}{}", 0, d.line()).as_bytes()));
        let before = t.hash();
        let none = Delivery { revision: None, object: None, ..d };
        assert_eq!(none.line(), "0 3 2->3 Delivered create pods - rev=- chain=7");
        t.record(none.clone());
        assert_eq!(t.hash(), fnv1a64(format!("{before:016x}{}", none.line()).as_bytes()));
    }
}
