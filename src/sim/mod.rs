//! The simulation kernel: a virtual clock, an event queue ordered by (time, sequence), the seeded network
//! (per-connection FIFO delivery with small seeded latencies), component lifecycle (stop / crash / start with
//! incarnations, so a restarted process never receives its predecessor's messages) and the trace of every
//! delivery. The kernel owns no component: `cluster` dispatches each delivery to its receiver.

pub mod message;
pub mod rng;
pub mod time;
pub mod trace;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use crate::node::net::NetCall;

pub use message::{Envelope, Payload};
pub use rng::Rng;
pub use time::SimTime;
pub use trace::{Delivery, Outcome, Trace};

/// A component's index in the kernel's registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComponentId(pub u32);

/// A chain of causally related messages, rooted at one request (a person's kubectl command, a scenario step).
pub type ChainId = u64;

/// What a component handler asks the kernel to do.
#[derive(Debug)]
pub enum Command {
    /// A message on the chain that was current when it was sent.
    Send { to: ComponentId, payload: Payload, chain: ChainId },
    /// A timer; its chain is 0 unless it continues the chain that set it.
    Timer { after_ms: u64, token: u64, chain: ChainId },
    /// Start (`run`) or stop another process of the same machine, by its name: what containerd does when it
    /// starts or ends a static pod's container whose binary is a simulated component. The kernel hands these
    /// back from [`Kernel::apply`]; the cluster carries them out.
    Lifecycle { name: String, run: bool },
    /// The process ends itself with this exit status (kube-scheduler after losing its lease exits 1); the
    /// cluster hands the exit to whoever supervises the process (containerd for a static pod's container).
    Exit { code: i32 },
    /// The process writes a line to its standard error (klog's stream): the log of the container it runs in,
    /// if it runs in one.
    Log { text: String },
    /// A process in the pod whose address is `ip` runs a network program: the network answers it with a
    /// [`Payload::NetAnswer`] carrying `id`, once the program is done.
    Connect { id: u64, ip: String, searches: Vec<String>, call: NetCall },
}

/// What a handler asked of the processes of its machine, for the cluster to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lifecycle {
    /// Start (`run`) or stop the process named `name`.
    Set { name: String, run: bool },
    /// The handler's own process exits.
    Exit { code: i32 },
    /// The handler's own process wrote a line to its standard error.
    Log { text: String },
    /// A network program run from the pod at `ip` (see [`Command::Connect`]).
    Connect { id: u64, ip: String, searches: Vec<String>, call: NetCall },
}

/// The handler's view of the world: the time, its own id, a random stream, and the command buffer.
pub struct Ctx<'a> {
    pub now: SimTime,
    pub me: ComponentId,
    /// The chain of the message being handled; sends inherit it.
    pub chain: ChainId,
    pub rng: &'a mut Rng,
    pub out: &'a mut Vec<Command>,
}

impl Ctx<'_> {
    pub fn send(&mut self, to: ComponentId, payload: Payload) {
        self.out.push(Command::Send { to, payload, chain: self.chain });
    }

    /// A timer for the component's own periodic work (heartbeats, resyncs): it starts no chain of its own.
    pub fn timer(&mut self, after_ms: u64, token: u64) {
        self.out.push(Command::Timer { after_ms, token, chain: 0 });
    }

    /// A timer that continues the current chain (a command that sleeps, then acts again).
    pub fn timer_in_chain(&mut self, after_ms: u64, token: u64) {
        self.out.push(Command::Timer { after_ms, token, chain: self.chain });
    }

    /// Starts (`run`) or stops the process named `name` on this machine.
    pub fn lifecycle(&mut self, name: &str, run: bool) {
        self.out.push(Command::Lifecycle { name: name.to_string(), run });
    }

    /// Ends this process with exit status `code`.
    pub fn exit(&mut self, code: i32) {
        self.out.push(Command::Exit { code });
    }

    /// Runs the network program `call` from the pod at `ip` (names resolved with `searches`); the answer
    /// comes back as a [`Payload::NetAnswer`] with `id`.
    pub fn connect(&mut self, id: u64, ip: &str, searches: Vec<String>, call: NetCall) {
        self.out.push(Command::Connect { id, ip: ip.to_string(), searches, call });
    }

    /// Writes a klog line (`E0901 00:00:10.250000       1 file.go:42] message`) to this process's standard
    /// error, as a containerized component (pid 1 in its container) logs.
    pub fn klog(&mut self, severity: char, location: &str, message: &str) {
        let text = crate::node::journal::klog_line(self.now, 1, severity, location, message);
        self.out.push(Command::Log { text });
    }
}

/// A scheduled occurrence: a message arriving or a timer firing.
#[derive(Debug)]
pub enum Event {
    Deliver(Envelope),
    Timer { to: ComponentId, incarnation: u32, token: u64, chain: ChainId },
}

#[derive(Debug)]
struct Scheduled {
    at: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// Registry entry of one component.
#[derive(Debug, Clone)]
pub struct Slot {
    pub name: String,
    pub running: bool,
    /// Bumped at every start: messages and timers addressed to an older incarnation are lost.
    pub incarnation: u32,
    /// When the component last started or stopped (what `systemctl status` shows after `since`).
    pub since: SimTime,
}

/// Network latency bounds for one hop, in milliseconds.
pub const LATENCY_MS_MIN: u64 = 1;
pub const LATENCY_MS_MAX: u64 = 4;

/// The kernel.
pub struct Kernel {
    now: SimTime,
    seq: u64,
    next_message_id: u64,
    next_chain: ChainId,
    queue: BinaryHeap<Reverse<Scheduled>>,
    slots: Vec<Slot>,
    by_name: BTreeMap<String, ComponentId>,
    /// Per ordered pair of components: when the last message on that connection arrives (FIFO delivery).
    connections: BTreeMap<(ComponentId, ComponentId), SimTime>,
    /// Peers each component has talked to, so a stop can notify them (a TCP reset).
    peers: BTreeMap<ComponentId, BTreeSet<ComponentId>>,
    network: Rng,
    root: Rng,
    pub trace: Trace,
    /// Messages in the queue (on the wire), and how many of them belong to a chain (a request caused them):
    /// counted as they are queued and popped, so asking costs nothing.
    on_wire: usize,
    caused_on_wire: usize,
}

impl Kernel {
    pub fn new(seed: u64) -> Kernel {
        let root = Rng::new(seed);
        Kernel {
            now: SimTime::ZERO,
            seq: 0,
            next_message_id: 1,
            next_chain: 1,
            queue: BinaryHeap::new(),
            on_wire: 0,
            caused_on_wire: 0,
            slots: Vec::new(),
            by_name: BTreeMap::new(),
            connections: BTreeMap::new(),
            peers: BTreeMap::new(),
            network: root.fork("network"),
            root,
            trace: Trace::default(),
        }
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Registers a component (running) and returns its id and its own random stream.
    pub fn register(&mut self, name: &str) -> (ComponentId, Rng) {
        let id = ComponentId(self.slots.len() as u32);
        self.slots.push(Slot { name: name.to_string(), running: true, incarnation: 1, since: self.now });
        self.by_name.insert(name.to_string(), id);
        (id, self.root.fork(name))
    }

    pub fn id(&self, name: &str) -> Option<ComponentId> {
        self.by_name.get(name).copied()
    }

    pub fn name(&self, id: ComponentId) -> &str {
        &self.slots[id.0 as usize].name
    }

    pub fn slot(&self, id: ComponentId) -> &Slot {
        &self.slots[id.0 as usize]
    }

    pub fn slots(&self) -> impl Iterator<Item = (ComponentId, &Slot)> {
        self.slots.iter().enumerate().map(|(i, s)| (ComponentId(i as u32), s))
    }

    pub fn is_running(&self, id: ComponentId) -> bool {
        self.slots[id.0 as usize].running
    }

    /// A fresh chain id for a new root request.
    pub fn new_chain(&mut self) -> ChainId {
        let c = self.next_chain;
        self.next_chain += 1;
        c
    }

    /// Stops a component: it receives nothing more, and every peer it was connected to learns the connection
    /// is gone (after one network latency).
    pub fn stop(&mut self, id: ComponentId) {
        let slot = &mut self.slots[id.0 as usize];
        if !slot.running {
            return;
        }
        slot.running = false;
        slot.since = self.now;
        let peers: Vec<ComponentId> = self.peers.remove(&id).unwrap_or_default().into_iter().collect();
        for peer in peers {
            if let Some(set) = self.peers.get_mut(&peer) {
                set.remove(&id);
            }
            self.connections.remove(&(id, peer));
            self.connections.remove(&(peer, id));
            if self.is_running(peer) {
                let since = self.now;
                self.deliver_from_network(id, peer, Payload::Disconnected { peer: id, since }, 0);
            }
        }
    }

    /// Starts a stopped component as a new incarnation.
    pub fn start(&mut self, id: ComponentId) -> bool {
        let slot = &mut self.slots[id.0 as usize];
        if slot.running {
            return false;
        }
        slot.running = true;
        slot.incarnation += 1;
        slot.since = self.now;
        true
    }

    /// Queues a message from `from` to `to`. A running receiver gets it after a seeded latency, in order with
    /// earlier messages on the same connection; a stopped one refuses the connection, which the sender learns.
    pub fn send(&mut self, from: ComponentId, to: ComponentId, payload: Payload, chain: ChainId) {
        if !self.is_running(to) {
            let label = payload.label();
            let id = self.next_id();
            self.trace.record(Delivery {
                id,
                from,
                to,
                label,
                object: payload.object_ref(),
                revision: payload.revision(),
                sent: self.now,
                delivered: self.now,
                chain,
                outcome: Outcome::Refused,
            });
            if let Some(refusal) = payload.refusal() {
                self.deliver_from_network(to, from, refusal, chain);
            }
            return;
        }
        self.peers.entry(from).or_default().insert(to);
        self.peers.entry(to).or_default().insert(from);
        let latency = self.network.between(LATENCY_MS_MIN, LATENCY_MS_MAX);
        let earliest = self.now.plus_ms(latency);
        let last = self.connections.entry((from, to)).or_insert(SimTime::ZERO);
        let at = earliest.max(*last);
        *last = at;
        self.deliver_at(from, to, payload, at, chain);
    }

    /// What the network answers a program run by `to` (see [`Command::Connect`]), `after_ms` from now.
    pub fn answer_from_network(&mut self, to: ComponentId, payload: Payload, after_ms: u64, chain: ChainId) {
        let at = self.now.plus_ms(after_ms.max(LATENCY_MS_MIN));
        self.deliver_at(to, to, payload, at, chain);
    }

    /// A message the network itself produces (a refused connection, a reset) arriving at `to`.
    fn deliver_from_network(&mut self, from: ComponentId, to: ComponentId, payload: Payload, chain: ChainId) {
        let at = self.now.plus_ms(LATENCY_MS_MIN);
        self.deliver_at(from, to, payload, at, chain);
    }

    /// Schedules `payload` from `from` to arrive at `to` at `at`.
    fn deliver_at(&mut self, from: ComponentId, to: ComponentId, payload: Payload, at: SimTime, chain: ChainId) {
        let id = self.next_id();
        let envelope = Envelope {
            id,
            from,
            to,
            to_incarnation: self.slot(to).incarnation,
            sent: self.now,
            deliver: at,
            chain,
            payload,
        };
        self.schedule(at, Event::Deliver(envelope));
    }

    pub fn set_timer(&mut self, to: ComponentId, after_ms: u64, token: u64, chain: ChainId) {
        let incarnation = self.slot(to).incarnation;
        self.schedule(self.now.plus_ms(after_ms), Event::Timer { to, incarnation, token, chain });
    }

    fn next_id(&mut self) -> u64 {
        let id = self.next_message_id;
        self.next_message_id += 1;
        id
    }

    fn schedule(&mut self, at: SimTime, event: Event) {
        self.seq += 1;
        if let Event::Deliver(env) = &event {
            self.on_wire += 1;
            self.caused_on_wire += usize::from(env.chain != 0);
        }
        self.queue.push(Reverse(Scheduled { at, seq: self.seq, event }));
    }

    /// When the next event happens, if any.
    pub fn next_time(&self) -> Option<SimTime> {
        self.queue.peek().map(|Reverse(s)| s.at)
    }

    /// Pops the next event that its receiver can still take, advancing the clock to it. Messages and timers
    /// for stopped components or older incarnations are recorded as dropped and skipped.
    pub fn pop(&mut self) -> Option<Event> {
        while let Some(Reverse(s)) = self.queue.pop() {
            self.now = self.now.max(s.at);
            match s.event {
                Event::Deliver(env) => {
                    self.on_wire -= 1;
                    self.caused_on_wire -= usize::from(env.chain != 0);
                    let slot = self.slot(env.to);
                    let alive = slot.running && slot.incarnation == env.to_incarnation;
                    self.trace.record(Delivery {
                        id: env.id,
                        from: env.from,
                        to: env.to,
                        label: env.payload.label(),
                        object: env.payload.object_ref(),
                        revision: env.payload.revision(),
                        sent: env.sent,
                        delivered: env.deliver,
                        chain: env.chain,
                        outcome: if alive { Outcome::Delivered } else { Outcome::Dropped },
                    });
                    if alive {
                        return Some(Event::Deliver(env));
                    }
                    // A request that reaches a dead process is answered by the network with a reset.
                    if let Some(refusal) = env.payload.refusal() {
                        if self.is_running(env.from) {
                            self.deliver_from_network(env.to, env.from, refusal, env.chain);
                        }
                    }
                }
                Event::Timer { to, incarnation, token, chain } => {
                    let slot = self.slot(to);
                    if slot.running && slot.incarnation == incarnation {
                        return Some(Event::Timer { to, incarnation, token, chain });
                    }
                }
            }
        }
        None
    }

    /// Moves the clock forward to `t` when no event comes earlier (time jumps straight to the next event).
    pub fn advance_to(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }

    /// Messages sent but not yet delivered, earliest first: what the UI draws in flight.
    pub fn in_flight(&self) -> Vec<&Envelope> {
        let mut v: Vec<&Envelope> = self
            .queue
            .iter()
            .filter_map(|Reverse(s)| match &s.event {
                Event::Deliver(e) => Some(e),
                Event::Timer { .. } => None,
            })
            .collect();
        v.sort_by_key(|e| (e.deliver, e.id));
        v
    }

    /// Whether a message on the wire satisfies `f` (no order: cheaper than [`Kernel::in_flight`]).
    pub fn any_in_flight(&self, f: impl Fn(&Envelope) -> bool) -> bool {
        self.queue.iter().any(|Reverse(s)| matches!(&s.event, Event::Deliver(e) if f(e)))
    }

    /// How many messages are on the wire: `(all, caused by a request)`.
    pub fn on_wire(&self) -> (usize, usize) {
        (self.on_wire, self.caused_on_wire)
    }

    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// Applies a handler's commands (each carries its own chain) and returns the lifecycle requests among
    /// them, in order, for the owner of the components to carry out.
    pub fn apply(&mut self, from: ComponentId, commands: Vec<Command>) -> Vec<Lifecycle> {
        let mut lifecycle = Vec::new();
        for c in commands {
            match c {
                Command::Send { to, payload, chain } => self.send(from, to, payload, chain),
                Command::Timer { after_ms, token, chain } => self.set_timer(from, after_ms, token, chain),
                Command::Lifecycle { name, run } => lifecycle.push(Lifecycle::Set { name, run }),
                Command::Exit { code } => lifecycle.push(Lifecycle::Exit { code }),
                Command::Log { text } => lifecycle.push(Lifecycle::Log { text }),
                Command::Connect { id, ip, searches, call } => {
                    lifecycle.push(Lifecycle::Connect { id, ip, searches, call })
                }
            }
        }
        lifecycle
    }
}
