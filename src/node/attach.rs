//! What a container's main process does with the input of a client attached to it (CRI `Attach`, what
//! `kubectl attach -i` and `kubectl run -i` reach): a shell reading its commands from the container's open
//! stdin runs each line it is given, as it would run that line in a script, until a line says `exit` or
//! the input ends. On a terminal (`tty: true`) the shell prints its prompt after each command and the
//! terminal echoes each line typed, every line ending in `\r\n`; without one nothing is echoed or
//! prompted. What it writes goes to the attached client and to the container's log alike.
//!
//! Counterpart: containerd's `Attach` (`internal/cri/server/container_attach.go`) and the container's own
//! shell (busybox's `ash`, `dash`, `bash`).

use super::exec::{self, ExecRun};
use super::net::{NetAnswer, NetCall};
use super::runtime::{Container, Sandbox};
use crate::sim::SimTime;

/// What the shell did with its input.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fed {
    /// What it wrote, in order (`true`: stderr; on a terminal everything is on stdout).
    pub output: Vec<(bool, String)>,
    /// The status of the last command it ran.
    pub last_code: i32,
    /// It ended, with this code: an `exit`, or the end of its input.
    pub exit: Option<i32>,
    /// A line ran a network program the runtime has no answer for yet: the call (see
    /// [`exec::ExecDone::needs`]). The rest of this result means nothing until that answer is in.
    pub needs: Option<NetCall>,
}

/// A line of input to the shell `shell` of `container`: the input `stdin` (lines ending in `\n`), after
/// which the input ends when `eof`. `last_code` is the status of the command it ran before.
pub struct Input<'a> {
    pub container: &'a Container,
    pub sandbox: Option<&'a Sandbox>,
    pub shell: &'a str,
    pub stdin: &'a str,
    pub eof: bool,
    pub tty: bool,
    pub last_code: i32,
    pub now: SimTime,
    /// containerd's id for the process of each line (named in a failure).
    pub exec_id: &'a str,
    /// The network's answers to the network programs the lines run, in order (see [`ExecRun::net`]).
    pub net: &'a [NetAnswer],
}

/// Runs the lines of `input` in the shell.
pub fn feed(input: &Input) -> Fed {
    let mut fed = Fed { last_code: input.last_code, ..Fed::default() };
    let hostname = input.sandbox.map(|s| s.hostname.as_str()).unwrap_or("");
    let prompt = exec::prompt(&input.container.image, input.shell, hostname);
    let write = |fed: &mut Fed, stderr: bool, text: &str| {
        if input.tty {
            fed.output.push((false, on_terminal(text)));
        } else {
            fed.output.push((stderr, text.to_string()));
        }
    };
    let mut used = 0;
    for line in input.stdin.lines() {
        if input.tty {
            write(&mut fed, false, &format!("{line}\n"));
        }
        if !line.trim().is_empty() {
            let cmd = [input.shell.to_string(), "-c".to_string(), line.to_string()];
            let run = ExecRun {
                container: input.container,
                sandbox: input.sandbox,
                cmd: &cmd,
                stdin: None,
                tty: input.tty,
                now: input.now,
                net: input.net.get(used..).unwrap_or_default(),
            };
            match exec::exec_sync(&run, input.exec_id) {
                Ok(done) if done.needs.is_some() => {
                    fed.needs = done.needs.map(|(_, call)| call);
                    return fed;
                }
                Ok(done) => {
                    used += done.net_used;
                    for (stderr, text) in &done.output {
                        write(&mut fed, *stderr, text);
                    }
                    fed.last_code = done.exit_code;
                    if done.exited {
                        fed.exit = Some(done.exit_code);
                        return fed;
                    }
                }
                Err(e) => {
                    write(&mut fed, true, &format!("{e}\n"));
                    fed.last_code = 126;
                }
            }
        }
        if input.tty {
            write(&mut fed, false, &prompt);
        }
    }
    if input.eof {
        fed.exit = Some(fed.last_code);
    }
    fed
}

/// A terminal ends every line with a carriage return and a newline.
fn on_terminal(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::exec::Env;
    use crate::node::runtime::test_container;

    fn feed_text(image: &str, stdin: &str, eof: bool, tty: bool) -> Fed {
        let container = test_container(image, Env::default());
        feed(&Input {
            container: &container,
            sandbox: None,
            shell: "sh",
            stdin,
            eof,
            tty,
            last_code: 0,
            now: SimTime::ZERO,
            exec_id: "e",
            net: &[],
        })
    }

    #[test]
    fn each_line_runs_and_exit_ends_the_shell_with_its_code() {
        let fed = feed_text("busybox", "echo one\nfalse\nexit 3\necho never\n", false, false);
        assert_eq!(fed.output, vec![(false, "one\n".to_string())]);
        assert_eq!(fed.exit, Some(3));
    }

    #[test]
    fn the_end_of_input_ends_the_shell_with_the_last_status_only_when_it_reaches_the_shell() {
        let open = feed_text("busybox", "false\n", false, false);
        assert_eq!((open.last_code, open.exit), (1, None));
        let closed = feed_text("busybox", "false\n", true, false);
        assert_eq!(closed.exit, Some(1));
    }

    #[test]
    fn a_terminal_echoes_each_line_and_prompts_after_it() {
        let fed = feed_text("busybox", "echo hi\n", false, true);
        let text: String = fed.output.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "echo hi\r\nhi\r\n/ # ");
        assert!(fed.output.iter().all(|(stderr, _)| !stderr));
    }

    #[test]
    fn a_missing_command_is_the_shells_error_on_stderr() {
        let fed = feed_text("busybox", "nosuch\n", true, false);
        assert_eq!(fed.output, vec![(true, "sh: nosuch: not found\n".to_string())]);
        assert_eq!(fed.exit, Some(127));
    }
}
