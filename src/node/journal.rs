//! A systemd unit's journal on a node: what `journalctl -u kubelet` and the tail of `systemctl status`
//! print. The kubelet writes klog lines (`I0901 00:00:10.000000    1234 kubelet.go:2413] "SyncLoop ADD" …`),
//! containerd logrus lines (`time="…" level=info msg="…"`), and systemd its own lines about the unit
//! (`Started kubelet.service - kubelet: The Kubernetes Node Agent.`), each as it happens, in simulated time. The journal
//! outlives the process (journald keeps it) and is a bounded ring: the oldest lines go first. The bound
//! shrinks as clusters grow ([`capacity_for`]), so that thousands of nodes keep a few lines each while a
//! small cluster keeps its whole story.

use std::collections::VecDeque;

use crate::sim::time::Civil;
use crate::sim::SimTime;

/// How many lines a unit's journal keeps by default (a small cluster).
pub const CAPACITY: usize = 400;
/// The fewest lines a unit's journal keeps, however big the cluster.
pub const MIN_CAPACITY: usize = 32;
/// Lines per unit kind the whole cluster keeps (divided among its nodes).
const CLUSTER_LINES: usize = 20_000;

/// The capacity of each unit's journal in a cluster of `nodes` nodes: 400 lines up to 50 nodes, then less,
/// down to 32 (5,000 nodes keep 32 lines per unit, about 100 MB in all).
pub fn capacity_for(nodes: usize) -> usize {
    (CLUSTER_LINES / nodes.max(1)).clamp(MIN_CAPACITY, CAPACITY)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    /// systemd's own line about the unit (`systemd[1]: …`).
    Systemd(Box<str>),
    /// A klog line: severity (`I`, `W`, `E`), source location, message.
    Klog { severity: char, location: &'static str, message: Box<str> },
    /// A logrus line: level (`info`, `error`), message, extra `key=value` fields.
    Logrus { level: &'static str, message: Box<str>, fields: Box<str> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    at: SimTime,
    pid: u32,
    text: Text,
}

/// One unit's journal.
#[derive(Debug, Clone)]
pub struct Journal {
    /// The syslog identifier of the unit's process (`kubelet`, `containerd`).
    ident: &'static str,
    entries: VecDeque<Entry>,
    capacity: usize,
    /// The unit's current main process id (systemd sets it at each start).
    pid: u32,
}

/// A formatted journal line with its time, for merging journals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub at: SimTime,
    pub text: String,
}

impl Journal {
    pub fn new(ident: &'static str) -> Journal {
        Journal::with_capacity(ident, CAPACITY)
    }

    /// A journal keeping the last `capacity` lines (at least one).
    pub fn with_capacity(ident: &'static str, capacity: usize) -> Journal {
        Journal { ident, entries: VecDeque::new(), capacity: capacity.max(1), pid: 0 }
    }

    fn push(&mut self, entry: Entry) {
        if self.entries.len() >= self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// A line systemd writes about the unit.
    pub fn systemd(&mut self, at: SimTime, text: &str) {
        self.push(Entry { at, pid: 1, text: Text::Systemd(text.into()) });
    }

    /// The unit's process started as `pid`: its lines from now on carry it.
    pub fn set_pid(&mut self, pid: u32) {
        self.pid = pid;
    }

    /// A klog line from the unit's process.
    pub fn klog(&mut self, at: SimTime, severity: char, location: &'static str, message: &str) {
        let pid = self.pid;
        self.push(Entry { at, pid, text: Text::Klog { severity, location, message: message.into() } });
    }

    /// A logrus line from the unit's process; `fields` are extra `key=value` pairs after the message.
    pub fn logrus(&mut self, at: SimTime, level: &'static str, message: &str, fields: &str) {
        let pid = self.pid;
        self.push(Entry { at, pid, text: Text::Logrus { level, message: message.into(), fields: fields.into() } });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every line as journalctl's short format prints it on `host`, oldest first.
    pub fn lines(&self, host: &str) -> Vec<Line> {
        self.entries.iter().map(|e| Line { at: e.at, text: self.format(e, host) }).collect()
    }

    fn format(&self, e: &Entry, host: &str) -> String {
        let stamp = syslog_time(e.at);
        match &e.text {
            Text::Systemd(t) => format!("{stamp} {host} systemd[1]: {t}"),
            Text::Klog { severity, location, message } => {
                format!(
                    "{stamp} {host} {}[{}]: {}",
                    self.ident,
                    e.pid,
                    klog_line(e.at, e.pid, *severity, location, message)
                )
            }
            Text::Logrus { level, message, fields } => {
                let sep = if fields.is_empty() { "" } else { " " };
                format!(
                    "{stamp} {host} {}[{}]: time=\"{}\" level={level} msg={}{sep}{fields}",
                    self.ident,
                    e.pid,
                    rfc3339_nano(e.at),
                    go_quote(message)
                )
            }
        }
    }
}

/// `Sep 01 00:00:10`: journalctl's short timestamp.
pub fn syslog_time(t: SimTime) -> String {
    let c = Civil::of(t);
    format!("{} {:02} {:02}:{:02}:{:02}", c.month_abbr(), c.day, c.hour, c.minute, c.second)
}

/// `I0901 00:00:10.250000    1234 kubelet.go:2413] message`.
pub fn klog_line(t: SimTime, pid: u32, severity: char, location: &str, message: &str) -> String {
    let c = Civil::of(t);
    format!(
        "{severity}{:02}{:02} {:02}:{:02}:{:02}.{:06} {pid:>7} {location}] {message}",
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        c.millis * 1000
    )
}

/// `2025-09-01T00:00:10.250000000Z`.
pub fn rfc3339_nano(t: SimTime) -> String {
    let c = Civil::of(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z",
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        c.millis * 1_000_000
    )
}

/// Go's `%q` (klog's and logrus's quoting of values): the engine's one `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    crate::apiserver::validation::field::quote(s)
}

/// Merges journals' lines in time order (ties keep the order the journals were given in).
pub fn merge(journals: &[&Journal], host: &str) -> Vec<String> {
    let mut all: Vec<(SimTime, usize, usize, String)> = Vec::new();
    for (j, journal) in journals.iter().enumerate() {
        for (i, line) in journal.lines(host).into_iter().enumerate() {
            all.push((line.at, j, i, line.text));
        }
    }
    all.sort();
    all.into_iter().map(|(_, _, _, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_formatted_as_journalctl_shows_them() {
        let mut j = Journal::new("kubelet");
        j.systemd(SimTime(0), "Started kubelet.service - kubelet: The Kubernetes Node Agent.");
        j.set_pid(1234);
        j.klog(SimTime(10_250), 'I', "kubelet.go:2413", "\"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]");
        let lines = j.lines("node01");
        assert_eq!(
            lines[0].text,
            "Sep 01 00:00:00 node01 systemd[1]: Started kubelet.service - kubelet: The Kubernetes Node Agent."
        );
        assert_eq!(
            lines[1].text,
            "Sep 01 00:00:10 node01 kubelet[1234]: I0901 00:00:10.250000    1234 kubelet.go:2413] \"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]"
        );
        let mut c = Journal::new("containerd");
        c.set_pid(77);
        c.logrus(SimTime(1), "info", "StartContainer for \"abc\" returns successfully", "");
        assert_eq!(
            c.lines("n")[0].text,
            "Sep 01 00:00:00 n containerd[77]: time=\"2025-09-01T00:00:00.001000000Z\" level=info msg=\"StartContainer for \\\"abc\\\" returns successfully\""
        );
    }

    #[test]
    fn the_ring_keeps_the_newest_lines() {
        let mut j = Journal::new("kubelet");
        for i in 0..(CAPACITY as u64 + 5) {
            j.systemd(SimTime(i), &format!("line {i}"));
        }
        assert_eq!(j.len(), CAPACITY);
        let lines = j.lines("h");
        assert!(lines[0].text.ends_with("line 5"));
        assert!(lines[CAPACITY - 1].text.ends_with(&format!("line {}", CAPACITY + 4)));
    }

    #[test]
    fn bigger_clusters_keep_fewer_lines_per_unit() {
        assert_eq!(capacity_for(3), CAPACITY);
        assert_eq!(capacity_for(200), 100);
        assert_eq!(capacity_for(5_000), MIN_CAPACITY);
        assert_eq!(capacity_for(0), CAPACITY);
        let mut j = Journal::with_capacity("kubelet", 2);
        for i in 0..5 {
            j.systemd(SimTime(i), &format!("{i}"));
        }
        assert_eq!(
            j.lines("h").iter().map(|l| l.text.rsplit(' ').next().unwrap_or("").to_string()).collect::<Vec<_>>(),
            ["3", "4"]
        );
    }

    #[test]
    fn merged_journals_are_in_time_order() {
        let (mut a, mut b) = (Journal::new("kubelet"), Journal::new("containerd"));
        a.systemd(SimTime(2_000), "a2");
        b.systemd(SimTime(1_000), "b1");
        a.systemd(SimTime(3_000), "a3");
        let merged = merge(&[&a, &b], "h");
        let ends: Vec<&str> = merged.iter().map(|l| l.rsplit(' ').next().unwrap_or("")).collect();
        assert_eq!(ends, vec!["b1", "a2", "a3"]);
    }
}
