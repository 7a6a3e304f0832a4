//! Commands run inside a simulated container with CRI `ExecSync` (what `kubectl exec` ends up running):
//! no process exists, so containerd answers from the container's image, environment and sandbox.
//!
//! - The image decides the userland: `busybox` and `alpine` images have busybox applets and its `ash`;
//!   other Docker Hub images are Debian-like (coreutils, `dash` as `sh`, `bash`); images from
//!   `registry.k8s.io` and distroless images have no shell and only their own binary.
//! - Simulated commands: `echo`, `cat` of `/etc/hostname`, `/etc/hosts` (the kubelet-managed file) and
//!   `/etc/resolv.conf` (from the sandbox's DNS settings), `hostname`, `env`/`printenv`, `ls /`, `pwd`,
//!   `whoami`, `id`, `uname [-snrm]`, `date` (the simulated clock), `sleep N` (the exec takes that long),
//!   `true`, `false`, and shells running `-c SCRIPT` or a script on stdin (`;`, `&&`, `||`, newlines,
//!   quotes, `$VAR`, `$(COMMAND)`, `exit N`, `> /dev/null`, `2>&1`).
//! - Files the container's command creates with `touch` and removes with `rm` exist for `cat` and `ls`
//!   exactly while the script has them (see [`super::runtime`]).
//! - `wget` and `curl` (where the image has them) go to the cluster's network: the command stops at the
//!   first one the runtime has no answer for ([`ExecDone::needs`]); the runtime asks the network and runs
//!   the command again from its start with the answers ([`ExecRun::net`]).
//! - An executable the image does not have fails with the OCI runtime's error; one it has but kubeglass
//!   does not simulate (`nslookup`, `ps`, …) says so on stderr and exits 126.
//!
//! Counterpart: containerd's `ExecSync`/`Exec` (`internal/cri/server/container_execsync.go`) with runc.

use std::sync::Arc;

use super::container_output;
use super::net::{NetAnswer, NetCall};
use super::os;
use super::runtime::{normalize, Container, Sandbox};
use crate::sim::SimTime;

/// The DNS settings of a sandbox (CRI `DNSConfig`), which containerd writes to its `/etc/resolv.conf`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DnsConfig {
    pub servers: Vec<String>,
    pub searches: Vec<String>,
    pub options: Vec<String>,
}

/// A container's environment: its own variables in the order of its spec, and the service variables the
/// kubelet adds (one list shared by every container).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Env {
    pub own: Vec<(String, String)>,
    pub services: Arc<Vec<(String, String)>>,
}

/// One ExecSync call.
pub struct ExecRun<'a> {
    pub container: &'a Container,
    pub sandbox: Option<&'a Sandbox>,
    pub cmd: &'a [String],
    pub stdin: Option<&'a str>,
    pub tty: bool,
    pub now: SimTime,
    /// The network's answers to the network programs (`wget`, `curl`) the command runs, in order, as far
    /// as the runtime has them.
    pub net: &'a [NetAnswer],
}

/// What the command wrote (in order; `true` marks stderr), how it exited and how long it ran.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecDone {
    pub output: Vec<(bool, String)>,
    pub exit_code: i32,
    pub after_ms: u64,
    /// The shell ended on an `exit` (rather than at the end of its script).
    pub exited: bool,
    /// The command reached a network program the runtime has no answer for yet: its call, and when
    /// (ms after the start). The rest of this result means nothing until that answer is in.
    pub needs: Option<(u64, NetCall)>,
    /// How many of [`ExecRun::net`]'s answers it used.
    pub net_used: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Userland {
    Busybox,
    Alpine,
    Debian,
    /// Distroless: only the image's own binaries.
    Bare,
}

const SIMULATED: &[&str] = &[
    "echo", "cat", "hostname", "env", "printenv", "ls", "pwd", "whoami", "id", "uname", "date", "sleep", "true",
    "false",
];

const SHELLS: &[&str] = &["sh", "ash", "dash", "bash"];

/// Tools a busybox image has besides the simulated ones.
const BUSYBOX_TOOLS: &[&str] = &[
    "sh", "ash", "wget", "tar", "nslookup", "ping", "ps", "top", "head", "tail", "grep", "sed", "awk", "wc", "mkdir",
    "rm", "touch", "cp", "mv", "sort", "uniq", "tr", "cut", "nc", "netstat", "ip", "ifconfig", "vi", "df", "du",
    "free", "kill", "ln", "chmod", "which", "seq", "printf", "test", "expr", "find", "xargs", "tee", "basename",
    "dirname",
];

/// Tools of a Debian-based image besides the simulated ones.
const DEBIAN_TOOLS: &[&str] = &[
    "sh", "dash", "bash", "tar", "head", "tail", "grep", "sed", "awk", "wc", "mkdir", "rm", "touch", "cp", "mv",
    "sort", "uniq", "tr", "cut", "df", "du", "kill", "ln", "chmod", "which", "seq", "printf", "test", "expr", "find",
    "xargs", "tee", "basename", "dirname", "apt", "apt-get", "dpkg",
];

/// Marks a variable reference inside a lexed word until the command runs.
const VAR_MARK: char = '\u{0}';
/// Starts a marked reference that is a command substitution (`$(…)`) rather than a variable.
const COMMAND_MARK: char = '\u{1}';

/// `tar cf - …` / `tar -cf - …`: create an archive on stdout (the one form of tar kubeglass runs).
fn is_create_to_stdout(args: &[String]) -> bool {
    let mode = args.first().map(|a| a.trim_start_matches('-')).unwrap_or("");
    mode.len() == 2 && mode.contains('c') && mode.ends_with('f') && args.get(1).map(String::as_str) == Some("-")
}

/// Where executables are looked up.
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

struct Image {
    userland: Userland,
    /// The repository's last path segment (`nginx`, `etcd`).
    base: String,
}

impl Image {
    fn of(image: &str) -> Image {
        let full = normalize(image);
        let no_tag = full.split('@').next().unwrap_or(&full);
        let (repo, tag) = match no_tag.rfind(':') {
            Some(i) if !no_tag[i..].contains('/') => (&no_tag[..i], &no_tag[i + 1..]),
            _ => (no_tag, ""),
        };
        let base = repo.rsplit('/').next().unwrap_or(repo).to_string();
        let userland = if base == "busybox" {
            Userland::Busybox
        } else if base == "alpine" || tag.contains("alpine") || repo == "docker.io/curlimages/curl" {
            Userland::Alpine
        } else if repo.starts_with("docker.io/") && !repo.contains("distroless") {
            Userland::Debian
        } else {
            Userland::Bare
        };
        Image { userland, base }
    }

    /// Whether the image has an executable called `name`.
    fn has(&self, name: &str) -> bool {
        match self.userland {
            Userland::Bare => self.own_binaries().contains(&name),
            Userland::Busybox => name != "bash" && (SIMULATED.contains(&name) || BUSYBOX_TOOLS.contains(&name)),
            Userland::Alpine => {
                name != "bash"
                    && (SIMULATED.contains(&name)
                        || BUSYBOX_TOOLS.contains(&name)
                        || self.own_binaries().contains(&name))
            }
            Userland::Debian => {
                SIMULATED.contains(&name) || DEBIAN_TOOLS.contains(&name) || self.own_binaries().contains(&name)
            }
        }
    }

    /// The binaries the image exists to ship.
    fn own_binaries(&self) -> Vec<&str> {
        match self.base.as_str() {
            "etcd" => vec!["etcd", "etcdctl", "etcdutl"],
            "nginx" => vec!["nginx", "curl"],
            "redis" => vec!["redis-server", "redis-cli"],
            "httpd" => vec!["httpd", "apachectl"],
            "postgres" => vec!["postgres", "psql"],
            "mysql" | "mariadb" => vec!["mysqld", "mysql"],
            "python" => vec!["python", "python3", "pip"],
            "node" => vec!["node", "npm"],
            "coredns" => vec!["coredns"],
            "pause" => vec!["pause"],
            other => vec![other],
        }
    }

    /// What `ls /` lists.
    fn root(&self) -> &'static [&'static str] {
        match (self.userland, self.base.as_str()) {
            (Userland::Busybox, _) => {
                &["bin", "dev", "etc", "home", "lib", "lib64", "proc", "root", "sys", "tmp", "usr", "var"]
            }
            (Userland::Alpine, _) => &[
                "bin", "dev", "etc", "home", "lib", "media", "mnt", "opt", "proc", "root", "run", "sbin", "srv", "sys",
                "tmp", "usr", "var",
            ],
            (_, "nginx") => &[
                "bin",
                "boot",
                "dev",
                "docker-entrypoint.d",
                "docker-entrypoint.sh",
                "etc",
                "home",
                "lib",
                "lib64",
                "media",
                "mnt",
                "opt",
                "proc",
                "root",
                "run",
                "sbin",
                "srv",
                "sys",
                "tmp",
                "usr",
                "var",
            ],
            _ => &[
                "bin", "boot", "dev", "etc", "home", "lib", "lib64", "media", "mnt", "opt", "proc", "root", "run",
                "sbin", "srv", "sys", "tmp", "usr", "var",
            ],
        }
    }

    fn busybox_like(&self) -> bool {
        matches!(self.userland, Userland::Busybox | Userland::Alpine)
    }
}

/// Runs `cmd` in the container, or the runtime's error when it cannot be started.
pub fn exec_sync(run: &ExecRun, exec_id: &str) -> Result<ExecDone, String> {
    let image = Image::of(&run.container.image);
    let Some(program) = run.cmd.first() else {
        return Err(oci_error(exec_id, "exec: \"\": executable file not found in $PATH"));
    };
    let name = match resolve(&image, program) {
        Ok(n) => n,
        Err(e) => return Err(oci_error(exec_id, &e)),
    };
    let mut sh = Shell::new(run, image);
    if SHELLS.contains(&name.as_str()) {
        let flavour = if name == "bash" { Flavour::Bash } else { sh.default_flavour() };
        let script = match run.cmd.iter().position(|a| a == "-c") {
            Some(i) => run.cmd.get(i + 1).cloned().unwrap_or_default(),
            None => sh.stdin.take().unwrap_or_default(),
        };
        sh.flavour = flavour;
        sh.script(&script);
    } else {
        let words: Vec<String> = std::iter::once(name).chain(run.cmd[1..].iter().cloned()).collect();
        let code = sh.command(&words);
        sh.code = code;
    }
    let (exit_code, after_ms) = (sh.code, sh.ms);
    let (exited, needs, net_used) = (sh.exited, sh.needs.take(), sh.net_next);
    Ok(ExecDone { output: sh.joined(), exit_code, after_ms, exited, needs, net_used })
}

/// The OCI runtime's error for a process that could not be started, as containerd wraps it.
fn oci_error(exec_id: &str, cause: &str) -> String {
    format!(
        "failed to exec in container: failed to start exec {exec_id:?}: OCI runtime exec failed: exec failed: unable to start container process: {cause}: unknown"
    )
}

/// The executable `program` names in `$PATH` (its base name), or the error execve gives.
fn resolve(image: &Image, program: &str) -> Result<String, String> {
    if program.contains('/') {
        let base = program.rsplit('/').next().unwrap_or("");
        let dir = &program[..program.len() - base.len()].trim_end_matches('/');
        let in_path = PATH.split(':').any(|d| d == *dir);
        if in_path && image.has(base) {
            return Ok(base.to_string());
        }
        return Err(format!("exec: {program:?}: stat {program}: no such file or directory"));
    }
    if image.has(program) {
        Ok(program.to_string())
    } else {
        Err(format!("exec: {program:?}: executable file not found in $PATH"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// busybox `ash`: `sh: foo: not found`.
    Ash,
    /// Debian's `dash`: `sh: 1: foo: not found`.
    Dash,
    /// `bash: line 1: foo: command not found`.
    Bash,
}

/// A tiny shell over the simulated commands.
struct Shell<'a> {
    run: &'a ExecRun<'a>,
    image: Image,
    flavour: Flavour,
    vars: Vec<(String, String)>,
    /// What was written so far, in order (`true`: stderr).
    output: Vec<(bool, String)>,
    code: i32,
    ms: u64,
    line: usize,
    exited: bool,
    /// What is left of the exec's stdin for the commands to read (none when it was the shell's script).
    stdin: Option<String>,
    /// How many of the network's answers were used.
    net_next: usize,
    /// The network program it reached without an answer, and when (ms after its start).
    needs: Option<(u64, NetCall)>,
}

/// Shell tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    /// `;`, `&&`, `||`, `|`, `&`, a newline, or a redirection (`>`, `2>`, `2>&1`, `>&2`, `<`, `>>`).
    Op(String),
}

impl<'a> Shell<'a> {
    fn new(run: &'a ExecRun<'a>, image: Image) -> Shell<'a> {
        let mut vars = vec![("PATH".to_string(), PATH.to_string()), ("HOSTNAME".to_string(), hostname(run))];
        vars.extend(run.container.env.own.iter().cloned());
        vars.extend(run.container.env.services.iter().cloned());
        if run.tty {
            vars.push(("TERM".into(), "xterm".into()));
        }
        vars.push(("HOME".into(), "/root".into()));
        let flavour = if image.busybox_like() { Flavour::Ash } else { Flavour::Dash };
        let stdin = run.stdin.map(str::to_string);
        Shell {
            run,
            image,
            flavour,
            vars,
            output: Vec::new(),
            code: 0,
            ms: 0,
            line: 1,
            exited: false,
            stdin,
            net_next: 0,
            needs: None,
        }
    }

    /// Writes to stdout or (`err`) stderr.
    fn write(&mut self, err: bool, text: &str) {
        self.output.push((err, text.to_string()));
    }

    /// The output with neighbouring writes to the same stream joined.
    fn joined(self) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for (err, text) in self.output {
            match out.last_mut() {
                Some((e, t)) if *e == err => t.push_str(&text),
                _ => out.push((err, text)),
            }
        }
        out
    }

    fn default_flavour(&self) -> Flavour {
        if self.image.busybox_like() {
            Flavour::Ash
        } else {
            Flavour::Dash
        }
    }

    fn var(&self, name: &str) -> String {
        if name == "?" {
            return self.code.to_string();
        }
        self.vars.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default()
    }

    /// Runs a script: lists of commands joined by `;`, `&&`, `||` and newlines.
    fn script(&mut self, text: &str) {
        let tokens = match self.lex(text) {
            Ok(t) => t,
            Err(e) => {
                self.shell_error(&e);
                self.code = 2;
                return;
            }
        };
        let mut words: Vec<String> = Vec::new();
        let mut redirects: Vec<String> = Vec::new();
        let mut skip = false;
        for t in tokens {
            match t {
                // A redirection that names no target yet (`>`, `2>`, `<`) takes the next word as its file.
                Token::Word(w) if redirects.last().is_some_and(|r| r.ends_with('>') || r.ends_with('<')) => {
                    let op = redirects.pop().unwrap_or_default();
                    redirects.push(format!("{op}{w}"));
                }
                Token::Word(w) => words.push(w),
                Token::Op(op) if op.contains('>') || op == "<" => redirects.push(op),
                Token::Op(op) => {
                    if !skip {
                        self.simple(&words, &redirects);
                    }
                    if self.exited {
                        return;
                    }
                    words.clear();
                    redirects.clear();
                    if op == "|" || op == "&" {
                        self.write(true, &format!("kubeglass: {op:?} (pipes and background jobs) is not simulated\n"));
                        self.code = 2;
                        return;
                    }
                    skip = match op.as_str() {
                        "&&" => self.code != 0,
                        "||" => self.code == 0,
                        _ => false,
                    };
                    if op == "\n" {
                        self.line += 1;
                    }
                }
            }
        }
        if !skip {
            self.simple(&words, &redirects);
        }
    }

    /// One simple command with its redirections.
    fn simple(&mut self, words: &[String], redirects: &[String]) {
        let words: Vec<String> = words.iter().map(|w| self.subst(w)).collect();
        let redirects: Vec<String> = redirects.iter().map(|r| self.subst(r)).collect();
        if self.exited {
            return;
        }
        let (words, redirects) = (words.as_slice(), redirects.as_slice());
        if words.is_empty() {
            return;
        }
        if let Some((k, v)) = words[0].split_once('=').filter(|(k, _)| is_name(k)) {
            if words.len() == 1 {
                self.vars.push((k.to_string(), v.to_string()));
                self.code = 0;
                return;
            }
        }
        let written = self.output.len();
        match words[0].as_str() {
            "exit" => {
                self.code = words.get(1).and_then(|c| c.parse::<i32>().ok()).unwrap_or(self.code) & 0xff;
                self.exited = true;
                return;
            }
            ":" => self.code = 0,
            "export" => {
                for w in &words[1..] {
                    if let Some((k, v)) = w.split_once('=') {
                        self.vars.push((k.to_string(), v.to_string()));
                    }
                }
                self.code = 0;
            }
            "cd" => self.code = 0,
            program => match resolve(&self.image, program) {
                Ok(name) => {
                    let mut argv = words.to_vec();
                    argv[0] = name;
                    self.code = self.command(&argv);
                }
                Err(_) => {
                    let what = match self.flavour {
                        Flavour::Ash => format!("sh: {program}: not found"),
                        Flavour::Dash => format!("sh: {}: {program}: not found", self.line),
                        Flavour::Bash => format!("bash: line {}: {program}: command not found", self.line),
                    };
                    self.write(true, &what);
                    self.write(true, "\n");
                    self.code = 127;
                }
            },
        }
        self.redirect(redirects, written);
    }

    /// Applies `> /dev/null`, `2> /dev/null`, `2>&1` and `>&2` to what the last command wrote (the chunks
    /// from `from` on).
    fn redirect(&mut self, redirects: &[String], from: usize) {
        for r in redirects {
            let (drop, retarget): (Option<bool>, Option<(bool, bool)>) = match r.as_str() {
                ">/dev/null" | "1>/dev/null" => (Some(false), None),
                "2>/dev/null" => (Some(true), None),
                "2>&1" => (None, Some((true, false))),
                ">&2" | "1>&2" => (None, Some((false, true))),
                other => {
                    self.write(true, &format!("kubeglass: the redirection {other:?} is not simulated\n"));
                    self.code = 2;
                    continue;
                }
            };
            let written: Vec<(bool, String)> = self.output.split_off(from.min(self.output.len()));
            for (err, text) in written {
                if drop == Some(err) {
                    continue;
                }
                let to = match retarget {
                    Some((a, b)) if a == err => b,
                    _ => err,
                };
                self.write(to, &text);
            }
        }
    }

    /// Runs one command found in `$PATH`; returns its exit code.
    fn command(&mut self, argv: &[String]) -> i32 {
        let args = &argv[1..];
        let bb = self.image.busybox_like();
        match argv[0].as_str() {
            "echo" => {
                let (newline, rest) = match args.first().map(String::as_str) {
                    Some("-n") => (false, &args[1..]),
                    _ => (true, args),
                };
                self.write(false, &rest.join(" "));
                if newline {
                    self.write(false, "\n");
                }
                0
            }
            "true" => 0,
            "false" => 1,
            "hostname" => {
                self.write(false, &format!("{}\n", hostname(self.run)));
                0
            }
            "pwd" => {
                self.write(false, "/\n");
                0
            }
            "whoami" => {
                self.write(false, "root\n");
                0
            }
            "id" => {
                let groups = match self.image.userland {
                    Userland::Busybox => "0(root),10(wheel)",
                    Userland::Alpine => {
                        "0(root),0(root),1(bin),2(daemon),3(sys),4(adm),6(disk),10(wheel),11(floppy),20(dialout),26(tape),27(video)"
                    }
                    _ => "0(root)",
                };
                self.write(false, &format!("uid=0(root) gid=0(root) groups={groups}\n"));
                0
            }
            "date" if args.is_empty() => {
                self.write(false, &container_output::date(self.run.now.plus_ms(self.ms)));
                self.write(false, "\n");
                0
            }
            "uname" => self.uname(args),
            "env" if args.is_empty() => {
                let text: String = self.vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
                self.write(false, &text);
                0
            }
            "printenv" => {
                if args.is_empty() {
                    return self.command(&["env".to_string()]);
                }
                let mut code = 0;
                for name in args {
                    match self.vars.iter().rev().find(|(k, _)| k == name) {
                        Some((_, v)) => self.write(false, &format!("{v}\n")),
                        None => code = 1,
                    }
                }
                code
            }
            "sleep" => self.sleep(args),
            "cat" => {
                let mut code = 0;
                if args.is_empty() {
                    // No file: cat copies its stdin (read once; what a later command reads is empty).
                    let stdin = self.stdin.take().unwrap_or_default();
                    self.write(false, &stdin);
                }
                for path in args {
                    if path == "-" {
                        let stdin = self.stdin.take().unwrap_or_default();
                        self.write(false, &stdin);
                        continue;
                    }
                    match self.file(path) {
                        Ok(text) => self.write(false, &text),
                        Err(e) => {
                            let msg = if bb {
                                format!("cat: can't open '{path}': {e}\n")
                            } else {
                                format!("cat: {path}: {e}\n")
                            };
                            self.write(true, &msg);
                            code = 1;
                        }
                    }
                }
                code
            }
            "ls" => self.ls(args),
            "wget" | "curl" => self.network(argv),
            "tar" if is_create_to_stdout(args) => self.tar(&args[2..]),
            other if SIMULATED.contains(&other) || SHELLS.contains(&other) => self.not_simulated(&argv.join(" ")),
            other => self.not_simulated(other),
        }
    }

    /// A network program: the network's answer when the runtime has it; otherwise the run stops here and
    /// asks for it (the runtime runs the command again, from its start, once the answer is in).
    fn network(&mut self, argv: &[String]) -> i32 {
        if self.needs.is_some() {
            return 0;
        }
        match self.run.net.get(self.net_next) {
            Some(answer) => {
                self.net_next += 1;
                for (stderr, text) in &answer.output {
                    self.write(*stderr, text);
                }
                self.ms = self.ms.saturating_add(answer.after_ms);
                answer.exit_code
            }
            None => {
                self.needs = Some((self.ms, NetCall::Program(argv.to_vec())));
                0
            }
        }
    }

    /// `tar cf - PATH…` (what `kubectl cp POD:PATH LOCAL` runs): an archive of the files on stdout, member
    /// names without their leading `/`; a file that is not there is reported and the exit code is 1, the
    /// archive written all the same (GNU tar in the Debian family, busybox's elsewhere).
    fn tar(&mut self, paths: &[String]) -> i32 {
        let gnu = !self.image.busybox_like();
        if paths.is_empty() {
            let (text, code) = if gnu {
                ("tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n", 2)
            } else {
                ("tar: empty archive\n", 1)
            };
            self.write(true, text);
            return code;
        }
        let mut archive = tar::Builder::new(Vec::new());
        let (mut failed, mut stripped) = (false, false);
        for path in paths {
            let text = match self.file(path) {
                Ok(text) => text,
                Err("Is a directory") => {
                    self.write(true, &format!("tar: {path}: kubeglass does not simulate archiving a directory\n"));
                    failed = true;
                    continue;
                }
                Err(why) => {
                    let line = if gnu {
                        format!("tar: {path}: Cannot stat: {why}\n")
                    } else {
                        format!("tar: {path}: {why}\n")
                    };
                    self.write(true, &line);
                    failed = true;
                    continue;
                }
            };
            let name = path.trim_start_matches('/');
            if name.len() != path.len() && !stripped {
                stripped = true;
                let note = if gnu {
                    "tar: Removing leading `/' from member names\n"
                } else {
                    "tar: removing leading '/' from member names\n"
                };
                self.write(true, note);
            }
            let mut header = tar::Header::new_gnu();
            header.set_size(text.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(crate::sim::time::EPOCH_MS.saturating_add(self.run.now.ms()) / 1000);
            header.set_entry_type(tar::EntryType::Regular);
            // Names and owners are plain ASCII or they fail here, as the member is then left out.
            let named = header.set_username("root").and_then(|()| header.set_groupname("root"));
            if named.is_ok() && archive.append_data(&mut header, name, text.as_bytes()).is_err() {
                failed = true;
            }
        }
        let bytes = archive.into_inner().unwrap_or_default();
        // Headers are ASCII and the files text: the archive is valid UTF-8.
        self.write(false, &String::from_utf8_lossy(&bytes));
        if failed {
            let last = if gnu {
                "tar: Exiting with failure status due to previous errors\n"
            } else {
                "tar: error exit delayed from previous errors\n"
            };
            self.write(true, last);
            return if gnu { 2 } else { 1 };
        }
        0
    }

    fn not_simulated(&mut self, what: &str) -> i32 {
        let hint = if what.starts_with("etcdctl") {
            " here; run etcdctl on the control-plane node instead (a scenario's `on: controlplane` step)"
        } else {
            ""
        };
        self.write(
            true,
            &format!("kubeglass: {what}: the container has it, but kubeglass does not simulate it{hint}\n"),
        );
        126
    }

    fn uname(&mut self, args: &[String]) -> i32 {
        let flavour = if self.image.busybox_like() { os::Uname::Busybox } else { os::Uname::Coreutils };
        match os::uname(args, &hostname(self.run), flavour) {
            Ok(text) => {
                self.write(false, &text);
                0
            }
            Err(bad) => self.not_simulated(&format!("uname {bad}")),
        }
    }

    fn sleep(&mut self, args: &[String]) -> i32 {
        let Some(arg) = args.first() else {
            self.write(
                true,
                if self.image.busybox_like() {
                    "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: sleep [N]...\n"
                } else {
                    "sleep: missing operand\nTry 'sleep --help' for more information.\n"
                },
            );
            return 1;
        };
        let (num, unit) = match arg.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
            Some(i) => (&arg[..i], &arg[i..]),
            None => (arg.as_str(), ""),
        };
        let factor = match unit {
            "" | "s" => 1_000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "d" => 86_400_000.0,
            _ => f64::NAN,
        };
        match num.parse::<f64>() {
            Ok(n) if factor.is_finite() => {
                self.ms = self.ms.saturating_add((n.max(0.0) * factor).min(u64::MAX as f64 / 2.0) as u64);
                0
            }
            _ => {
                let msg = if self.image.busybox_like() {
                    format!("sleep: invalid number '{arg}'\n")
                } else {
                    format!("sleep: invalid time interval '{arg}'\nTry 'sleep --help' for more information.\n")
                };
                self.write(true, &msg);
                1
            }
        }
    }

    /// The text of a file, or why it cannot be read.
    fn file(&self, path: &str) -> Result<String, &'static str> {
        let run = self.run;
        let sandbox = run.sandbox;
        // The files the container's own command creates and removes.
        match run.container.file_exists(path, run.now) {
            Some(true) => return Ok(String::new()),
            Some(false) => return Err("No such file or directory"),
            None => {}
        }
        match path {
            "/etc/hostname" => Ok(format!("{}\n", hostname(run))),
            "/etc/hosts" => Ok(hosts_file(sandbox)),
            "/etc/resolv.conf" => Ok(resolv_conf(sandbox.and_then(|s| s.dns.as_deref()))),
            p if self.image.root().iter().any(|d| p.trim_end_matches('/') == format!("/{d}")) || p == "/" => {
                Err("Is a directory")
            }
            p if self.image.root().iter().any(|d| p.starts_with(&format!("/{d}/"))) => {
                Err("kubeglass does not simulate this file")
            }
            _ => Err("No such file or directory"),
        }
    }

    fn ls(&mut self, args: &[String]) -> i32 {
        let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        let show_all = args.iter().any(|a| a.starts_with('-') && a.contains('a'));
        let path = paths.first().map(|p| p.as_str()).unwrap_or("/");
        let clean = if path == "/" { "/" } else { path.trim_end_matches('/') };
        if clean == "/" || clean == "/." {
            let mut names: Vec<&str> = self.image.root().to_vec();
            if show_all {
                names.splice(0..0, [".", ".."]);
            }
            self.write(false, &names.iter().map(|n| format!("{n}\n")).collect::<String>());
            return 0;
        }
        let made = self.run.container.file_exists(clean, self.run.now);
        if made == Some(true) {
            self.write(false, &format!("{clean}\n"));
            return 0;
        }
        if let Some(file) = ["/etc/hostname", "/etc/hosts", "/etc/resolv.conf"].iter().find(|f| **f == clean) {
            self.write(false, &format!("{file}\n"));
            return 0;
        }
        let known = self.image.root().iter().any(|d| clean == format!("/{d}") || clean.starts_with(&format!("/{d}/")));
        if known && made.is_none() {
            return self.not_simulated(&format!("ls {clean}"));
        }
        if self.image.busybox_like() {
            self.write(true, &format!("ls: {path}: No such file or directory\n"));
            1
        } else {
            self.write(true, &format!("ls: cannot access '{path}': No such file or directory\n"));
            2
        }
    }

    fn shell_error(&mut self, e: &str) {
        let prefix = match self.flavour {
            Flavour::Ash => "sh".to_string(),
            Flavour::Dash => format!("sh: {}", self.line),
            Flavour::Bash => format!("bash: line {}", self.line),
        };
        self.write(true, &format!("{prefix}: {e}\n"));
    }

    /// Splits a script into words (quotes, backslashes, `$VAR` and `${VAR}` expanded) and operators.
    fn lex(&self, text: &str) -> Result<Vec<Token>, String> {
        let mut tokens = Vec::new();
        let mut cur = String::new();
        let mut in_word = false;
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        let push = |tokens: &mut Vec<Token>, cur: &mut String, in_word: &mut bool| {
            if *in_word {
                tokens.push(Token::Word(std::mem::take(cur)));
                *in_word = false;
            }
        };
        while i < chars.len() {
            let c = chars[i];
            match c {
                '#' if !in_word => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                    continue;
                }
                '\'' => {
                    in_word = true;
                    i += 1;
                    while i < chars.len() && chars[i] != '\'' {
                        cur.push(chars[i]);
                        i += 1;
                    }
                    if i >= chars.len() {
                        return Err("Syntax error: Unterminated quoted string".into());
                    }
                }
                '"' => {
                    in_word = true;
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' && i + 1 < chars.len() && "\"\\$`".contains(chars[i + 1]) {
                            cur.push(chars[i + 1]);
                            i += 2;
                            continue;
                        }
                        if chars[i] == '$' {
                            i = self.expand(&chars, i, &mut cur);
                            continue;
                        }
                        cur.push(chars[i]);
                        i += 1;
                    }
                    if i >= chars.len() {
                        return Err("Syntax error: Unterminated quoted string".into());
                    }
                }
                '\\' => {
                    in_word = true;
                    if let Some(n) = chars.get(i + 1) {
                        if *n != '\n' {
                            cur.push(*n);
                        }
                    }
                    i += 1;
                }
                '$' => {
                    in_word = true;
                    i = self.expand(&chars, i, &mut cur);
                    continue;
                }
                ';' | '\n' => {
                    push(&mut tokens, &mut cur, &mut in_word);
                    tokens.push(Token::Op(c.to_string()));
                }
                '&' | '|' => {
                    push(&mut tokens, &mut cur, &mut in_word);
                    if chars.get(i + 1) == Some(&c) {
                        tokens.push(Token::Op(format!("{c}{c}")));
                        i += 1;
                    } else {
                        tokens.push(Token::Op(c.to_string()));
                    }
                }
                '>' | '<' => {
                    let fd =
                        if in_word && (cur == "1" || cur == "2") { std::mem::take(&mut cur) } else { String::new() };
                    if fd.is_empty() {
                        push(&mut tokens, &mut cur, &mut in_word);
                    } else {
                        in_word = false;
                    }
                    let mut op = format!("{fd}{c}");
                    if c == '>' && chars.get(i + 1) == Some(&'&') {
                        let target: String = chars[i + 2..].iter().take_while(|d| d.is_ascii_digit()).collect();
                        op.push('&');
                        op.push_str(&target);
                        i += 1 + target.len();
                    } else if c == '>' && chars.get(i + 1) == Some(&'>') {
                        op.push('>');
                        i += 1;
                    }
                    tokens.push(Token::Op(op));
                }
                c if c.is_whitespace() => push(&mut tokens, &mut cur, &mut in_word),
                c => {
                    in_word = true;
                    cur.push(c);
                }
            }
            i += 1;
        }
        push(&mut tokens, &mut cur, &mut in_word);
        Ok(tokens)
    }

    /// Reads `$NAME`, `${NAME}` or `$?` at `chars[i]` (a `$`) into `out` as a marker that [`Shell::subst`]
    /// replaces when the command runs (so `$?` is the status of the command before it); returns the index
    /// after it.
    fn expand(&self, chars: &[char], i: usize, out: &mut String) -> usize {
        let mut j = i + 1;
        let name: String = match chars.get(j) {
            Some('{') => {
                let name: String = chars[j + 1..].iter().take_while(|c| **c != '}').collect();
                j += name.chars().count() + 2;
                name
            }
            Some('?') => {
                j += 1;
                "?".into()
            }
            Some('(') => {
                // `$(…)`: the command runs when the word is used; its output replaces it.
                let mut depth = 0;
                let mut inner = String::new();
                j += 1;
                while let Some(&c) = chars.get(j) {
                    j += 1;
                    match c {
                        '(' => depth += 1,
                        ')' if depth == 0 => break,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    inner.push(c);
                }
                format!("{COMMAND_MARK}{inner}")
            }
            _ => {
                let name: String = chars[j..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == '_').collect();
                j += name.chars().count();
                name
            }
        };
        if name.is_empty() {
            out.push('$');
        } else {
            out.push(VAR_MARK);
            out.push_str(&name);
            out.push(VAR_MARK);
        }
        j
    }

    /// A word with its variables' current values and its command substitutions' output.
    fn subst(&mut self, word: &str) -> String {
        let mut out = String::new();
        for (i, part) in word.split(VAR_MARK).enumerate() {
            match part.strip_prefix(COMMAND_MARK) {
                Some(script) if i % 2 == 1 => out.push_str(&self.command_output(script)),
                _ if i % 2 == 1 => out.push_str(&self.var(part)),
                _ => out.push_str(part),
            }
        }
        out
    }

    /// What `script` prints on stdout, run in a subshell, without its final newlines (its stderr stays).
    fn command_output(&mut self, script: &str) -> String {
        let start = self.output.len();
        let (exited, line) = (self.exited, self.line);
        self.script(script);
        let mut text = String::new();
        for (err, t) in self.output.split_off(start) {
            if err {
                self.output.push((true, t));
            } else {
                text.push_str(&t);
            }
        }
        self.exited = exited;
        self.line = line;
        text.trim_end_matches('\n').to_string()
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The prompt an interactive `shell` on a terminal prints in a container of `image` (root in `/`):
/// busybox's and Alpine's ash `/ # `, bash `root@HOSTNAME:/# `, dash `# `.
pub fn prompt(image: &str, shell: &str, hostname: &str) -> String {
    if shell == "bash" {
        format!("root@{hostname}:/# ")
    } else if Image::of(image).busybox_like() {
        "/ # ".to_string()
    } else {
        "# ".to_string()
    }
}

fn hostname(run: &ExecRun) -> String {
    run.sandbox.map(|s| s.hostname.clone()).unwrap_or_default()
}

/// The kubelet-managed `/etc/hosts` of a pod (the node's own file for host-network pods).
pub fn hosts_file(sandbox: Option<&Sandbox>) -> String {
    let Some(s) = sandbox else { return String::new() };
    if s.host_network {
        return format!(
            "127.0.0.1 localhost\n127.0.1.1 {}\n\n# The following lines are desirable for IPv6 capable hosts\n::1     ip6-localhost ip6-loopback\nfe00::0 ip6-localnet\nff00::0 ip6-mcastprefix\nff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n",
            s.hostname
        );
    }
    format!(
        "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n{}\t{}\n",
        s.ip, s.hostname
    )
}

/// `/etc/resolv.conf` as containerd writes it from the sandbox's DNS settings (the node's without them).
pub fn resolv_conf(dns: Option<&DnsConfig>) -> String {
    let Some(d) = dns else { return String::new() };
    let mut text = String::new();
    if !d.searches.is_empty() {
        text.push_str(&format!("search {}\n", d.searches.join(" ")));
    }
    for s in &d.servers {
        text.push_str(&format!("nameserver {s}\n"));
    }
    if !d.options.is_empty() {
        text.push_str(&format!("options {}\n", d.options.join(" ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::runtime::test_container;

    fn sandbox() -> Sandbox {
        Sandbox {
            id: "s".repeat(64),
            uid: "uid".into(),
            name: "web".into(),
            namespace: "default".into(),
            ip: "10.244.1.7".into(),
            ready: true,
            created_at: SimTime::ZERO,
            hostname: "web".into(),
            host_network: false,
            dns: None,
        }
    }

    /// Runs `cmd` in a container of `image`: (stdout and stderr as written, exit code, ms).
    fn run(image: &str, cmd: &[&str], stdin: Option<&str>) -> Result<(String, i32, u64), String> {
        let env = Env { own: vec![("GREETING".into(), "hi".into())], services: Arc::new(Vec::new()) };
        let c = test_container(image, env);
        let s = sandbox();
        let cmd: Vec<String> = cmd.iter().map(|w| w.to_string()).collect();
        let run =
            ExecRun { container: &c, sandbox: Some(&s), cmd: &cmd, stdin, tty: false, now: SimTime::ZERO, net: &[] };
        exec_sync(&run, "e1").map(|d| (d.output.iter().map(|(_, t)| t.as_str()).collect(), d.exit_code, d.after_ms))
    }

    #[test]
    fn shells_run_lists_with_and_or_quotes_and_variables() {
        let sh = |script: &str| run("busybox", &["sh", "-c", script], None);
        assert_eq!(sh("echo \"$GREETING $HOSTNAME\"; echo '$GREETING'"), Ok(("hi web\n$GREETING\n".into(), 0, 0)));
        assert_eq!(sh("false && echo no || echo yes"), Ok(("yes\n".into(), 0, 0)));
        assert_eq!(sh("false; echo $?"), Ok(("1\n".into(), 0, 0)));
        assert_eq!(sh("X=1; echo ${X}2; exit 300"), Ok(("12\n".into(), 44, 0)));
        assert_eq!(sh("sleep 1.5 && sleep 2m"), Ok((String::new(), 0, 121_500)));
        assert_eq!(sh("echo a | wc -l").map(|r| r.1), Ok(2));
        assert_eq!(
            sh("echo \"I am $(hostname) on $(uname -s)\"; echo $(false; echo $?)"),
            Ok(("I am web on Linux\n1\n".into(), 0, 0))
        );
        assert_eq!(
            sh("echo 'open").map(|r| (r.0, r.1)),
            Ok(("sh: Syntax error: Unterminated quoted string\n".into(), 2))
        );
        assert_eq!(run("busybox", &["sh"], Some("echo piped\nexit 4\necho never")), Ok(("piped\n".into(), 4, 0)));
    }

    #[test]
    fn each_userland_words_a_missing_command_its_own_way() {
        let missing = |image: &str, shell: &str| run(image, &[shell, "-c", "true\nnope"], None).map(|r| (r.0, r.1));
        assert_eq!(missing("busybox", "sh"), Ok(("sh: nope: not found\n".into(), 127)));
        assert_eq!(missing("nginx:1.27", "sh"), Ok(("sh: 2: nope: not found\n".into(), 127)));
        assert_eq!(missing("ubuntu:24.04", "bash"), Ok(("bash: line 2: nope: command not found\n".into(), 127)));
        assert_eq!(missing("busybox", "/bin/sh"), Ok(("sh: nope: not found\n".into(), 127)));
        let bare = run("registry.k8s.io/etcd:3.6.4-0", &["sh"], None);
        assert_eq!(
            bare,
            Err("failed to exec in container: failed to start exec \"e1\": OCI runtime exec failed: exec failed: unable to start container process: exec: \"sh\": executable file not found in $PATH: unknown".into())
        );
        assert!(run("busybox", &["/opt/tool"], None)
            .unwrap_err()
            .contains("exec: \"/opt/tool\": stat /opt/tool: no such file or directory"));
        let (out, code, _) = run("registry.k8s.io/etcd:3.6.4-0", &["etcdctl", "version"], None).unwrap_or_default();
        assert_eq!(code, 126);
        assert!(out.contains("does not simulate"), "{out}");
    }

    #[test]
    fn tar_to_stdout_archives_the_files_as_kubectl_cp_reads_them() {
        let c = test_container("busybox", Env::default());
        let s = sandbox();
        let cmd: Vec<String> = ["tar", "cf", "-", "/etc/hostname", "/nope"].iter().map(|w| w.to_string()).collect();
        let run = ExecRun {
            container: &c,
            sandbox: Some(&s),
            cmd: &cmd,
            stdin: None,
            tty: false,
            now: SimTime::ZERO,
            net: &[],
        };
        let done = exec_sync(&run, "e1").unwrap();
        let stderr: String = done.output.iter().filter(|(e, _)| *e).map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            stderr,
            "tar: removing leading '/' from member names\ntar: /nope: No such file or directory\ntar: error exit delayed from previous errors\n"
        );
        assert_eq!(done.exit_code, 1);
        let bytes: Vec<u8> = done.output.iter().filter(|(e, _)| !*e).flat_map(|(_, t)| t.bytes()).collect();
        let mut archive = tar::Archive::new(bytes.as_slice());
        let mut members = Vec::new();
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let mut text = String::new();
            std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
            members.push((entry.path().unwrap().display().to_string(), text));
        }
        assert_eq!(members, [("etc/hostname".to_string(), "web\n".to_string())]);
    }

    #[test]
    fn files_and_listings_follow_the_userland() {
        assert_eq!(run("busybox", &["cat", "/etc/hostname"], None), Ok(("web\n".into(), 0, 0)));
        assert_eq!(run("nginx", &["cat"], Some("piped\n")), Ok(("piped\n".into(), 0, 0)));
        assert_eq!(run("nginx", &["sh", "-c", "cat - /etc/hostname"], Some("in\n")), Ok(("in\nweb\n".into(), 0, 0)));
        assert!(run("busybox", &["cat", "/etc/hosts"], None).unwrap_or_default().0.ends_with("10.244.1.7\tweb\n"));
        assert_eq!(
            run("nginx", &["cat", "/etc/nope"], None).map(|r| (r.0, r.1)),
            Ok(("cat: /etc/nope: kubeglass does not simulate this file\n".into(), 1))
        );
        assert_eq!(
            run("nginx", &["ls", "/nope"], None).map(|r| (r.0, r.1)),
            Ok(("ls: cannot access '/nope': No such file or directory\n".into(), 2))
        );
        assert_eq!(
            run("busybox", &["ls", "/nope"], None).map(|r| (r.0, r.1)),
            Ok(("ls: /nope: No such file or directory\n".into(), 1))
        );
        assert_eq!(
            run("alpine", &["id"], None).map(|r| r.0.starts_with("uid=0(root) gid=0(root) groups=0(root),0(root)")),
            Ok(true)
        );
        assert_eq!(run("busybox", &["uname", "-sr"], None), Ok((format!("Linux {}\n", os::KERNEL_RELEASE), 0, 0)));
        assert_eq!(run("busybox", &["printenv", "NOPE"], None), Ok((String::new(), 1, 0)));
    }

    #[test]
    fn resolv_conf_is_written_from_the_dns_settings() {
        let dns = DnsConfig {
            servers: vec!["10.96.0.10".into()],
            searches: vec!["a.svc.cluster.local".into()],
            options: vec!["ndots:5".into()],
        };
        assert_eq!(resolv_conf(Some(&dns)), "search a.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n");
        let mut host = sandbox();
        host.host_network = true;
        assert!(hosts_file(Some(&host)).starts_with("127.0.0.1 localhost\n127.0.1.1 web\n"));
    }
}
