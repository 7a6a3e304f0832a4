//! `systemctl status|stop|start|restart|is-active|is-enabled|enable|daemon-reload UNIT…` for the node's
//! units (kubelet, containerd), printed as systemd 255 prints them. `stop` and `start` really stop and
//! start the node's component; the control-plane components are static pods, not units, so
//! `systemctl status kube-apiserver` finds nothing, as on a kubeadm node.

use super::{Node, Outcome, UnitAction};
use crate::node::units::{self, Unit};
use crate::sim::time::Civil;
use crate::sim::SimTime;

/// How many journal lines `status` shows.
const STATUS_LINES: usize = 10;

pub fn run(node: &mut dyn Node, args: &[String]) -> Outcome {
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !matches!(*a, "--no-pager" | "-l" | "--full" | "--no-block" | "-q" | "--quiet"))
        .collect();
    let Some((verb, names)) = args.split_first() else {
        return Outcome::fail("kubeglass simulates systemctl status, start, stop, restart and is-active only\n", 1);
    };
    let needs_unit = !matches!(*verb, "daemon-reload");
    if needs_unit && names.is_empty() {
        return Outcome::fail("Too few arguments.\n", 1);
    }
    match *verb {
        "status" => status(node, names),
        "start" | "stop" | "restart" => act(node, verb, names),
        "is-active" => is_active(node, names),
        "is-enabled" => each(names, |u| match u {
            Some(_) => Outcome::ok("enabled\n"),
            None => Outcome::fail("Failed to get unit file state: No such file or directory\n", 1),
        }),
        "enable" | "daemon-reload" => Outcome::ok(""),
        "list-units" | "list-unit-files" | "disable" | "mask" | "unmask" | "reload" | "kill" | "show" | "cat" => {
            Outcome::fail(
                format!("systemctl {verb}: not simulated by kubeglass (status, start, stop, restart, is-active are)\n"),
                1,
            )
        }
        other => Outcome::fail(format!("Unknown command verb {other}.\n"), 1),
    }
}

fn each(names: &[&str], f: impl Fn(Option<Unit>) -> Outcome) -> Outcome {
    let mut out = Outcome::default();
    for name in names {
        let r = f(units::find(name));
        out.stdout.push_str(&r.stdout);
        out.stderr.push_str(&r.stderr);
        out.exit = out.exit.max(r.exit);
    }
    out
}

/// `kubelet` → `kubelet.service` (systemctl's mangling of a bare name).
fn service_name(name: &str) -> String {
    if name.contains('.') {
        name.to_string()
    } else {
        format!("{name}.service")
    }
}

fn act(node: &mut dyn Node, verb: &str, names: &[&str]) -> Outcome {
    let mut out = Outcome::default();
    for name in names {
        let Some(unit) = units::find(name) else {
            let why = if verb == "stop" { "not loaded" } else { "not found" };
            out.stderr.push_str(&format!(
                "Failed to {verb} {}: Unit {} {why}.\n",
                service_name(name),
                service_name(name)
            ));
            out.exit = 5;
            continue;
        };
        let action = match verb {
            "start" => UnitAction::Start,
            "stop" => UnitAction::Stop,
            _ => UnitAction::Restart,
        };
        node.unit_action(unit, action);
    }
    out
}

fn is_active(node: &mut dyn Node, names: &[&str]) -> Outcome {
    let mut out = Outcome::default();
    for name in names {
        let word = match units::find(name).map(|u| node.unit_state(u)) {
            Some(s) if s.running => "active",
            Some(s) if s.restarting => "activating",
            _ => "inactive",
        };
        out.stdout.push_str(&format!("{word}\n"));
        if word != "active" {
            out.exit = 3;
        }
    }
    out
}

fn status(node: &mut dyn Node, names: &[&str]) -> Outcome {
    let mut out = Outcome::default();
    for (i, name) in names.iter().enumerate() {
        let Some(unit) = units::find(name) else {
            out.stderr.push_str(&format!("Unit {} could not be found.\n", service_name(name)));
            out.exit = out.exit.max(4);
            continue;
        };
        if i > 0 && !out.stdout.is_empty() {
            out.stdout.push('\n');
        }
        let state = node.unit_state(unit);
        out.stdout.push_str(&unit_status(node, unit, state));
        if !state.running {
            out.exit = out.exit.max(3);
        }
    }
    out
}

fn unit_status(node: &dyn Node, unit: Unit, state: super::UnitState) -> String {
    let now = node.now();
    let (dot, active) = if state.running {
        ("●", "active (running)".to_string())
    } else if state.restarting {
        ("●", "activating (auto-restart) (Result: signal)".to_string())
    } else {
        ("○", "inactive (dead)".to_string())
    };
    let mut s = format!("{dot} {}\n", unit.status_name());
    s.push_str(&format!("     Loaded: loaded ({}; enabled; preset: enabled)\n", unit.unit_path()));
    if let Some((dir, file)) = unit.drop_in {
        s.push_str(&format!("    Drop-In: {dir}\n             └─{file}\n"));
    }
    s.push_str(&format!("     Active: {active} since {}; {}\n", timestamp(state.since), relative(now, state.since)));
    s.push_str(&format!("       Docs: {}\n", unit.docs));
    let program = unit.exec_start.split_whitespace().next().unwrap_or("").rsplit('/').next().unwrap_or("");
    if state.running {
        s.push_str(&format!("   Main PID: {} ({program})\n", state.pid));
        s.push_str(&format!("     CGroup: /system.slice/{}\n", unit.service()));
        s.push_str(&format!(
            "             └─{} {}\n",
            state.pid,
            unit.command_line.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
    } else {
        let how = if state.restarting { "code=killed, signal=KILL" } else { "code=exited, status=0/SUCCESS" };
        s.push_str(&format!("    Process: {} ExecStart={} ({how})\n", state.pid, unit.exec_start));
        s.push_str(&format!("   Main PID: {} ({how})\n", state.pid));
    }
    if let Some(journal) = node.journal(unit) {
        let lines = journal.lines(node.name());
        if !lines.is_empty() {
            s.push('\n');
            for l in &lines[lines.len().saturating_sub(STATUS_LINES)..] {
                s.push_str(&l.text);
                s.push('\n');
            }
        }
    }
    s
}

/// `Mon 2025-09-01 00:00:00 UTC`.
fn timestamp(t: SimTime) -> String {
    let c = Civil::of(t);
    format!(
        "{} {:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
        c.weekday_abbr(),
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second
    )
}

/// systemd's `format_timestamp_relative` (v255): `5min ago`, `4min 0s ago`, `1h 2min ago`.
pub fn relative(now: SimTime, then: SimTime) -> String {
    let d = now.since(then);
    const S: u64 = 1_000;
    const MIN: u64 = 60 * S;
    const H: u64 = 60 * MIN;
    const DAY: u64 = 24 * H;
    const WEEK: u64 = 7 * DAY;
    const MONTH: u64 = 2_629_800 * S;
    const YEAR: u64 = 31_557_600 * S;
    if d >= YEAR {
        format!("{} years {} months ago", d / YEAR, (d % YEAR) / MONTH)
    } else if d >= MONTH {
        format!("{} months {} days ago", d / MONTH, (d % MONTH) / DAY)
    } else if d >= WEEK {
        format!("{} weeks {} days ago", d / WEEK, (d % WEEK) / DAY)
    } else if d >= 2 * DAY {
        format!("{} days ago", d / DAY)
    } else if d >= 25 * H {
        format!("1 day {}h ago", (d - DAY) / H)
    } else if d >= 6 * H {
        format!("{}h ago", d / H)
    } else if d >= H {
        format!("{}h {}min ago", d / H, (d % H) / MIN)
    } else if d >= 5 * MIN {
        format!("{}min ago", d / MIN)
    } else if d >= MIN {
        format!("{}min {}s ago", d / MIN, (d % MIN) / S)
    } else if d >= S {
        format!("{}s ago", d / S)
    } else if d > 0 {
        format!("{d}ms ago")
    } else {
        "now".into()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;
    use super::*;

    #[test]
    fn relative_times_follow_systemd() {
        let t = |ms| relative(SimTime(ms), SimTime(0));
        assert_eq!(t(0), "now");
        assert_eq!(t(250), "250ms ago");
        assert_eq!(t(42_000), "42s ago");
        assert_eq!(t(240_000), "4min 0s ago");
        assert_eq!(t(300_000), "5min ago");
        assert_eq!(t(3_720_000), "1h 2min ago");
        assert_eq!(t(7 * 3_600_000), "7h ago");
        assert_eq!(t(26 * 3_600_000), "1 day 2h ago");
        assert_eq!(t(3 * 86_400_000), "3 days ago");
    }

    #[test]
    fn status_shows_the_unit_its_state_and_the_journal_tail() {
        let mut node = FakeNode::new("node01");
        node.now = SimTime(300_000);
        node.kubelet_journal.systemd(SimTime(0), "Started kubelet.service - kubelet: The Kubernetes Node Agent.");
        let r = run_line(&mut node, "systemctl status kubelet");
        assert_eq!(r.exit, 0);
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines[0], "● kubelet.service - kubelet: The Kubernetes Node Agent");
        assert_eq!(lines[1], "     Loaded: loaded (/usr/lib/systemd/system/kubelet.service; enabled; preset: enabled)");
        assert_eq!(lines[2], "    Drop-In: /usr/lib/systemd/system/kubelet.service.d");
        assert_eq!(lines[3], "             └─10-kubeadm.conf");
        assert_eq!(lines[4], "     Active: active (running) since Mon 2025-09-01 00:00:00 UTC; 5min ago");
        assert!(r.stdout.ends_with(
            "\nSep 01 00:00:00 node01 systemd[1]: Started kubelet.service - kubelet: The Kubernetes Node Agent.\n"
        ));

        let r = run_line(&mut node, "systemctl stop kubelet");
        assert_eq!((r.stdout.as_str(), r.exit), ("", 0));
        assert_eq!(node.actions, vec![("kubelet".to_string(), UnitAction::Stop)]);
        let r = run_line(&mut node, "systemctl status kubelet.service");
        assert_eq!(r.exit, 3);
        assert!(r.stdout.starts_with("○ kubelet.service - kubelet: The Kubernetes Node Agent\n"), "{}", r.stdout);
        assert!(
            r.stdout.contains("     Active: inactive (dead) since Mon 2025-09-01 00:05:00 UTC; now\n"),
            "{}",
            r.stdout
        );
        assert_eq!(run_line(&mut node, "systemctl is-active kubelet").stdout, "inactive\n");
    }

    #[test]
    fn unknown_units_fail_as_systemctl_does() {
        let mut node = FakeNode::new("controlplane");
        let r = run_line(&mut node, "systemctl status kube-apiserver");
        assert_eq!((r.stdout.as_str(), r.exit), ("Unit kube-apiserver.service could not be found.\n", 4));
        let r = run_line(&mut node, "systemctl stop kube-apiserver");
        assert_eq!(
            (r.stdout.as_str(), r.exit),
            ("Failed to stop kube-apiserver.service: Unit kube-apiserver.service not loaded.\n", 5)
        );
        let r = run_line(&mut node, "systemctl restart nope");
        assert_eq!(r.stdout, "Failed to restart nope.service: Unit nope.service not found.\n");
        assert_eq!(run_line(&mut node, "systemctl frobnicate kubelet").stdout, "Unknown command verb frobnicate.\n");
        assert_eq!(run_line(&mut node, "systemctl start").stdout, "Too few arguments.\n");
    }
}
