//! `journalctl [-u UNIT]… [-n N] [-f] [-r] [--no-pager]`: the journals of the node's units (the kubelet's
//! klog lines, containerd's logrus lines and systemd's lines about them) in journalctl's short format.
//! `-f` prints the last lines and returns instead of following.

use super::{Node, Outcome};
use crate::node::journal::{self, Journal};
use crate::node::units::{self, UNITS};

/// What `-f` and `-e` show without `-n`.
const FOLLOW_LINES: usize = 10;
const END_LINES: usize = 1000;

pub fn run(node: &mut dyn Node, args: &[String]) -> Outcome {
    let mut unit_names: Vec<String> = Vec::new();
    let mut lines: Option<usize> = None;
    let mut follow = false;
    let mut reverse = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: &mut usize, inline: Option<&str>| -> Result<String, Outcome> {
            if let Some(v) = inline {
                return Ok(v.to_string());
            }
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| Outcome::fail(format!("journalctl: option '{a}' requires an argument\n"), 1))
        };
        match a {
            "-u" | "--unit" => match value(&mut i, None) {
                Ok(v) => unit_names.push(v),
                Err(o) => return o,
            },
            "-n" | "--lines" => match value(&mut i, None) {
                Ok(v) => match v.parse() {
                    Ok(n) => lines = Some(n),
                    Err(_) => return Outcome::fail(format!("Failed to parse lines '{v}'.\n"), 1),
                },
                Err(o) => return o,
            },
            "-f" | "--follow" => follow = true,
            "-e" | "--pager-end" => lines = lines.or(Some(END_LINES)),
            "-r" | "--reverse" => reverse = true,
            "--no-pager" | "-l" | "--full" | "-x" | "--catalog" | "-b" | "--boot" | "-q" | "--quiet"
            | "--no-hostname" => {}
            _ if a.starts_with("--unit=") => unit_names.push(a["--unit=".len()..].to_string()),
            _ if a.starts_with("-u") && a.len() > 2 => unit_names.push(a[2..].to_string()),
            _ if a.starts_with("--lines=") || (a.starts_with("-n") && a.len() > 2) => {
                let v = a.trim_start_matches("--lines=").trim_start_matches("-n");
                match v.parse() {
                    Ok(n) => lines = Some(n),
                    Err(_) => return Outcome::fail(format!("Failed to parse lines '{v}'.\n"), 1),
                }
            }
            _ if a.starts_with('-') => {
                return Outcome::fail(format!("journalctl: option '{a}' is not simulated by kubeglass\n"), 1)
            }
            _ => return Outcome::fail(format!("Failed to add match '{a}': Invalid argument\n"), 1),
        }
        i += 1;
    }
    let journals: Vec<&Journal> = if unit_names.is_empty() {
        UNITS.iter().filter_map(|u| node.journal(*u)).collect()
    } else {
        unit_names.iter().filter_map(|n| units::find(n)).filter_map(|u| node.journal(u)).collect()
    };
    let mut all = journal::merge(&journals, node.name());
    if all.is_empty() {
        return Outcome::ok("-- No entries --\n");
    }
    let keep = lines.or(follow.then_some(FOLLOW_LINES)).unwrap_or(all.len());
    all.drain(..all.len().saturating_sub(keep));
    if reverse {
        all.reverse();
    }
    let mut out = String::new();
    for l in all {
        out.push_str(&l);
        out.push('\n');
    }
    Outcome::ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;
    use crate::sim::SimTime;

    #[test]
    fn a_units_journal_prints_in_order_and_n_keeps_the_last_lines() {
        let mut node = FakeNode::new("node01");
        node.kubelet_journal.systemd(SimTime(0), "Started kubelet.service - kubelet: The Kubernetes Node Agent.");
        node.kubelet_journal.set_pid(900);
        node.kubelet_journal.klog(
            SimTime(1_000),
            'I',
            "kubelet.go:2452",
            "\"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]",
        );
        node.containerd_journal.set_pid(800);
        node.containerd_journal.logrus(
            SimTime(500),
            "info",
            "starting containerd",
            "revision=05044ec0a9a75232cad458027ca83437aae3f4da version=1.7.27",
        );
        let r = run_line(&mut node, "journalctl -u kubelet --no-pager");
        assert_eq!(
            r.stdout,
            "Sep 01 00:00:00 node01 systemd[1]: Started kubelet.service - kubelet: The Kubernetes Node Agent.\n\
             Sep 01 00:00:01 node01 kubelet[900]: I0901 00:00:01.000000     900 kubelet.go:2452] \"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]\n"
        );
        let r = run_line(&mut node, "journalctl -u kubelet -n 1");
        assert_eq!(r.stdout.lines().count(), 1);
        assert!(r.stdout.contains("SyncLoop ADD"));
        let both = run_line(&mut node, "journalctl -u kubelet -u containerd.service");
        let order: Vec<bool> = both.stdout.lines().map(|l| l.contains("containerd[")).collect();
        assert_eq!(order, vec![false, true, false]);
        assert_eq!(run_line(&mut node, "journalctl -u kube-apiserver").stdout, "-- No entries --\n");
        assert_eq!(run_line(&mut node, "journalctl -n x").stdout, "Failed to parse lines 'x'.\n");
    }
}
