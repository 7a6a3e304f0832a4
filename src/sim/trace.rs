//! The trace: one record per delivery attempt (delivered, dropped because the receiver stopped, or refused),
//! a running hash of all of them (the determinism check), a bounded window of recent records for the UI, and
//! each chain's records for the numbered data-flow steps.

use std::collections::{BTreeMap, VecDeque};

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

/// FNV-1a over the fields of each delivery, fed in a fixed order: numbers as their little-endian bytes,
/// texts as their bytes followed by a 0xff separator (never a byte of UTF-8), so no text is built to hash.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    fn u64(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }

    fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
        self.bytes(&[0xff]);
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
        h.u64(self.hash);
        h.u64(d.sent.ms());
        h.u64(d.delivered.ms());
        h.u64(u64::from(d.from.0) << 32 | u64::from(d.to.0));
        h.bytes(&[d.outcome as u8]);
        h.text(&d.label);
        h.text(d.object.as_deref().unwrap_or("-"));
        h.u64(d.revision.map_or(u64::MAX, |r| r));
        h.u64(d.chain);
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

    /// A hash of every delivery so far (each one's time, endpoints, outcome, label, object, revision and
    /// chain), in order: equal for equal runs.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The latest deliveries, oldest first (a double-ended iterator: `.rev()` walks back from the newest).
    pub fn recent(&self) -> std::collections::vec_deque::Iter<'_, Delivery> {
        self.recent.iter()
    }

    pub fn chain(&self, chain: ChainId) -> &[Delivery] {
        self.chains.get(&chain).map(Vec::as_slice).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_hash_covers_every_field_of_every_delivery_in_order() {
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
        let hash = |ds: &[Delivery]| {
            let mut t = Trace::default();
            ds.iter().for_each(|d| t.record(d.clone()));
            t.hash()
        };
        let base = hash(std::slice::from_ref(&d));
        assert_eq!(base, hash(std::slice::from_ref(&d)));
        let variants = [
            Delivery { revision: None, ..d.clone() },
            Delivery { object: None, ..d.clone() },
            Delivery { label: "create pod".into(), object: Some("sdefault/web".into()), ..d.clone() },
            Delivery { to: ComponentId(4), ..d.clone() },
            Delivery { outcome: Outcome::Dropped, ..d.clone() },
            Delivery { chain: 8, ..d.clone() },
        ];
        for v in &variants {
            assert_ne!(hash(std::slice::from_ref(v)), base, "{}", v.line());
        }
        let other = Delivery { chain: 9, ..d.clone() };
        assert_ne!(hash(&[d.clone(), other.clone()]), hash(&[other, d.clone()]));
        assert_eq!(
            Delivery { revision: None, object: None, ..d }.line(),
            "0 3 2->3 Delivered create pods - rev=- chain=7"
        );
    }
}
