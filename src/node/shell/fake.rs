//! A node for the shell's unit tests: a filesystem, units whose state `systemctl` changes, journals, and a
//! containerd driven through its CRI calls.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::{Node, Outcome, UnitAction, UnitState};
use crate::cluster::{NodeFile, NodeFs};
use crate::node::journal::Journal;
use crate::node::runtime::{ContainerSpec, Containerd, CriCall, CriMessage, CriReply};
use crate::node::units::Unit;
use crate::sim::{Command, ComponentId, Ctx, Payload, Rng, SimTime};

pub struct FakeNode {
    pub name: String,
    pub now: SimTime,
    pub fs: Rc<RefCell<NodeFs>>,
    pub containerd: Option<Containerd>,
    pub containerd_up: bool,
    pub kubelet_journal: Journal,
    pub containerd_journal: Journal,
    pub units: BTreeMap<&'static str, UnitState>,
    pub actions: Vec<(String, UnitAction)>,
}

impl FakeNode {
    pub fn new(name: &str) -> FakeNode {
        let mut fs = NodeFs::new();
        fs.mkdir("/root", SimTime::ZERO);
        fs.mkdir("/tmp", SimTime::ZERO);
        let up = UnitState { running: true, since: SimTime::ZERO, pid: 900, restarting: false };
        FakeNode {
            name: name.to_string(),
            now: SimTime::ZERO,
            fs: Rc::new(RefCell::new(fs)),
            containerd: None,
            containerd_up: true,
            kubelet_journal: Journal::new("kubelet"),
            containerd_journal: Journal::new("containerd"),
            units: BTreeMap::from([("kubelet", up), ("containerd", UnitState { pid: 800, ..up })]),
            actions: Vec::new(),
        }
    }

    /// A node whose containerd runs pod `pod` (namespace `default`) with one container.
    pub fn with_pod(name: &str, pod: &str, container: &str, image: &str) -> FakeNode {
        let mut node = FakeNode::new(name);
        let mut c = Containerd::new(ComponentId(1), "192.168.56.11", "10.244.1", &[image]);
        let mut rng = Rng::new(7);
        let mut call = |c: &mut Containerd, id: u64, call: CriCall| -> Option<CriReply> {
            let mut out = Vec::new();
            let mut ctx = Ctx { now: SimTime(1_000), me: ComponentId(1), chain: 0, rng: &mut rng, out: &mut out };
            c.on_message(&mut ctx, ComponentId(0), Payload::Cri(Box::new(CriMessage::Request { id, call })));
            out.into_iter().find_map(|cmd| match cmd {
                Command::Send { payload: Payload::Cri(m), .. } => match *m {
                    CriMessage::Reply { result: Ok(r), .. } => Some(r),
                    _ => None,
                },
                _ => None,
            })
        };
        let sandbox = match call(
            &mut c,
            1,
            CriCall::RunPodSandbox {
                uid: "uid-1".into(),
                name: pod.into(),
                namespace: "default".into(),
                host_network: false,
                hostname: pod.into(),
                dns: None,
            },
        ) {
            Some(CriReply::Sandbox(s)) => s.id,
            other => panic!("no sandbox: {other:?}"),
        };
        let spec = ContainerSpec { name: container.into(), image: image.into(), ..ContainerSpec::default() };
        let id = match call(&mut c, 2, CriCall::CreateContainer { sandbox_id: sandbox, spec }) {
            Some(CriReply::Container(x)) => x.id,
            other => panic!("no container: {other:?}"),
        };
        call(&mut c, 3, CriCall::StartContainer { id });
        node.containerd = Some(c);
        node
    }

    pub fn write(&mut self, path: &str, text: &str) {
        self.fs.borrow_mut().write(path, NodeFile::Text(Rc::from(text)));
    }
}

impl Node for FakeNode {
    fn name(&self) -> &str {
        &self.name
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn fs(&self) -> Rc<RefCell<NodeFs>> {
        Rc::clone(&self.fs)
    }

    fn containerd(&self) -> Option<&Containerd> {
        self.containerd.as_ref()
    }

    fn containerd_running(&self) -> bool {
        self.containerd_up
    }

    fn unit_state(&self, unit: Unit) -> UnitState {
        self.units.get(unit.name).copied().unwrap_or(UnitState {
            running: false,
            since: SimTime::ZERO,
            pid: 0,
            restarting: false,
        })
    }

    fn journal(&self, unit: Unit) -> Option<&Journal> {
        match unit.name {
            "kubelet" => Some(&self.kubelet_journal),
            "containerd" => Some(&self.containerd_journal),
            _ => None,
        }
    }

    fn unit_action(&mut self, unit: Unit, action: UnitAction) {
        self.actions.push((unit.name.to_string(), action));
        if let Some(s) = self.units.get_mut(unit.name) {
            s.running = action != UnitAction::Stop;
            s.since = self.now;
        }
    }

    fn process(&mut self, _words: &[String], _stdin: Option<&str>) -> Option<Outcome> {
        None
    }
}
