//! The node shell: what `on: <node>` scenario steps, `kubeglass shell` (`ssh node01`) and later the web
//! terminal run on a node, as root in `/root`. A line is parsed like bash's ([`parse`]): pipelines,
//! `;`/`&&`/`||`, quotes, `$(…)`; a leading `sudo` and `VAR=value` assignments are dropped. Each program is
//! its own module; they reach the node only through [`Node`]: its filesystem, its systemd units and their
//! journals, and containerd's state (what crictl reads over containerd's socket, so it works while the
//! apiserver is down and fails as crictl does while containerd is stopped).
//!
//! Programs: `systemctl`, `journalctl`, `crictl`, `ls`, `cat`, `mv`, `cp`, `rm`, `grep`, `head`, `tail`,
//! `wc`, `echo`, `hostname`, `uname`, and — through [`Node::process`], as the cluster runs them — `kubectl`,
//! `etcdctl`, `etcdutl`, `iptables-save` and `curl`. Anything else is `bash: <name>: command not found`
//! (exit 127).

mod cat;
mod crictl;
mod files;
mod grep;
mod journalctl;
mod ls;
pub mod parse;
mod podlogs;
mod systemctl;
mod text;

use std::cell::RefCell;
use std::rc::Rc;

use super::journal::Journal;
use super::os;
use super::runtime::Containerd;
use super::units::Unit;
use crate::cluster::NodeFs;
use crate::sim::SimTime;

use parse::{Join, Part, Word};

/// What a program printed and how it exited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

impl Outcome {
    pub fn ok(stdout: impl Into<String>) -> Outcome {
        Outcome { stdout: stdout.into(), stderr: String::new(), exit: 0 }
    }

    pub fn fail(stderr: impl Into<String>, exit: i32) -> Outcome {
        Outcome { stdout: String::new(), stderr: stderr.into(), exit }
    }

    /// Standard output then standard error, as a terminal shows a finished command.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// A systemd unit as `systemctl` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitState {
    pub running: bool,
    /// When it last started or stopped.
    pub since: SimTime,
    /// Its main process (the current one, or the last one when stopped).
    pub pid: u32,
    /// Its process died and systemd restarts it soon (`activating (auto-restart)`).
    pub restarting: bool,
}

/// What `systemctl` asks systemd to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitAction {
    Start,
    Stop,
    Restart,
}

/// The node a shell runs on.
pub trait Node {
    fn name(&self) -> &str;
    fn now(&self) -> SimTime;
    fn fs(&self) -> Rc<RefCell<NodeFs>>;
    /// containerd's state (its images, sandboxes, containers and their logs, as on disk), running or not.
    fn containerd(&self) -> Option<&Containerd>;
    /// Whether containerd runs (its socket accepts connections).
    fn containerd_running(&self) -> bool;
    fn unit_state(&self, unit: Unit) -> UnitState;
    fn journal(&self, unit: Unit) -> Option<&Journal>;
    fn unit_action(&mut self, unit: Unit, action: UnitAction);
    /// Runs a program the cluster answers for this node (`kubectl`, `etcdctl`, `etcdutl`, `iptables-save`,
    /// `curl`) until it exits; None when the node has no such program.
    fn process(&mut self, words: &[String], stdin: Option<&str>) -> Option<Outcome>;
}

/// Runs one command line on `node`.
pub fn run_line(node: &mut dyn Node, line: &str) -> Outcome {
    let list = match parse::parse(line) {
        Ok(l) => l,
        Err(e) => return Outcome { stdout: format!("bash: {e}\n"), stderr: String::new(), exit: 2 },
    };
    let mut out = Outcome::default();
    for (join, pipeline) in list {
        let skip = match join {
            Join::Always => false,
            Join::IfOk => out.exit != 0,
            Join::IfFailed => out.exit == 0,
        };
        if skip {
            continue;
        }
        let r = run_pipeline(node, &pipeline);
        out.stdout.push_str(&r.stderr);
        out.stdout.push_str(&r.stdout);
        out.exit = r.exit;
    }
    // Everything was written to the terminal in order.
    Outcome { stdout: out.stdout, stderr: String::new(), exit: out.exit }
}

fn run_pipeline(node: &mut dyn Node, pipeline: &[Vec<Word>]) -> Outcome {
    let mut stdin: Option<String> = None;
    let mut stderr = String::new();
    let mut last = Outcome::default();
    for (i, command) in pipeline.iter().enumerate() {
        let words = match expand(node, command) {
            Ok(w) => w,
            Err(o) => return o,
        };
        let tty = i + 1 == pipeline.len();
        let r = run_command(node, &words, stdin.as_deref(), tty);
        stderr.push_str(&r.stderr);
        stdin = Some(r.stdout.clone());
        last = r;
    }
    Outcome { stdout: last.stdout, stderr, exit: last.exit }
}

/// Words with their `$(…)` replaced by the command's output (split into words unless quoted).
fn expand(node: &mut dyn Node, command: &[Word]) -> Result<Vec<String>, Outcome> {
    let mut words = Vec::new();
    for word in command {
        let mut pieces: Vec<String> = vec![String::new()];
        let mut split = false;
        for part in word {
            match part {
                Part::Text(t) => {
                    if let Some(last) = pieces.last_mut() {
                        last.push_str(t);
                    }
                }
                Part::Subst { line, quoted } => {
                    let r = run_line(node, line);
                    let output = r.stdout.trim_end_matches('\n').to_string();
                    if *quoted {
                        if let Some(last) = pieces.last_mut() {
                            last.push_str(&output);
                        }
                    } else {
                        split = true;
                        let mut fields = output.split_whitespace();
                        if let (Some(first), Some(last)) = (fields.next(), pieces.last_mut()) {
                            last.push_str(first);
                        }
                        pieces.extend(fields.map(str::to_string));
                    }
                }
            }
        }
        // An unquoted substitution that printed nothing leaves no word at all.
        if split && pieces.len() == 1 && pieces[0].is_empty() {
            continue;
        }
        words.extend(pieces);
    }
    Ok(words)
}

/// The words of a command without a leading `sudo` and `VAR=value` assignments.
pub fn program_words(words: &[String]) -> &[String] {
    let skip = words
        .iter()
        .take_while(|w| {
            *w == "sudo" || (w.contains('=') && !w.starts_with('-') && w.split('=').next().is_some_and(is_env_name))
        })
        .count();
    &words[skip..]
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// Runs one program with its arguments; `tty` when its output goes to the terminal (not a pipe).
fn run_command(node: &mut dyn Node, words: &[String], stdin: Option<&str>, tty: bool) -> Outcome {
    let words = program_words(words);
    let Some(program) = words.first() else { return Outcome::default() };
    let args = &words[1..];
    match program.as_str() {
        "systemctl" => systemctl::run(node, args),
        "journalctl" => journalctl::run(node, args),
        "crictl" => crictl::run(node, args),
        "ls" => ls::run(node, args, tty),
        "cat" => cat::run(node, args, stdin),
        "mv" => files::mv(node, args),
        "cp" => files::cp(node, args),
        "rm" => files::rm(node, args),
        "grep" => grep::run(node, args, stdin),
        "head" => text::head(args, stdin, "head"),
        "tail" => text::head(args, stdin, "tail"),
        "wc" => text::wc(args, stdin),
        "echo" => Outcome::ok(format!("{}\n", args.join(" "))),
        "hostname" => Outcome::ok(format!("{}\n", node.name())),
        "uname" => match os::uname(args, node.name(), os::Uname::Coreutils) {
            Ok(text) => Outcome::ok(text),
            Err(bad) => Outcome::fail(
                format!("uname: unrecognized option '{bad}'\nTry 'uname --help' for more information.\n"),
                1,
            ),
        },
        "true" => Outcome::ok(""),
        "false" => Outcome::fail("", 1),
        // kubectl, etcdctl, etcdutl, and kube-proxy's view of the node (`iptables-save`, `curl`).
        _ => match node.process(words, stdin) {
            Some(outcome) => outcome,
            None => Outcome::fail(format!("bash: {program}: command not found\n"), 127),
        },
    }
}

#[cfg(test)]
pub(crate) mod fake;

#[cfg(test)]
mod tests {
    use super::fake::FakeNode;
    use super::*;

    #[test]
    fn unknown_programs_are_not_found_and_sudo_is_dropped() {
        let mut node = FakeNode::new("node01");
        let r = run_line(&mut node, "foo --bar");
        assert_eq!((r.stdout.as_str(), r.exit), ("bash: foo: command not found\n", 127));
        let r = run_line(&mut node, "sudo KUBECONFIG=/x hostname");
        assert_eq!((r.stdout.as_str(), r.exit), ("node01\n", 0));
        let r = run_line(&mut node, "echo 'a b");
        assert_eq!(r.exit, 2);
        assert_eq!(r.stdout, "bash: unexpected EOF while looking for matching `''\n");
    }

    #[test]
    fn lists_run_by_exit_code_and_substitutions_become_words() {
        let mut node = FakeNode::new("n");
        assert_eq!(run_line(&mut node, "false && echo no || echo yes").stdout, "yes\n");
        assert_eq!(run_line(&mut node, "echo a; echo b").stdout, "a\nb\n");
        assert_eq!(run_line(&mut node, "echo $(hostname) \"[$(echo x  y)]\"").stdout, "n [x y]\n");
        assert_eq!(run_line(&mut node, "echo a b c | wc -w").stdout, "3\n");
        let r = run_line(&mut node, "nope | wc -l");
        assert_eq!((r.stdout.as_str(), r.exit), ("bash: nope: command not found\n0\n", 0));
    }
}
