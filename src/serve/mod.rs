//! `kubeglass serve`: the simulated cluster's kube-apiserver for real clients (the person's kubectl, k9s,
//! client libraries, controllers under development), over HTTPS on 127.0.0.1.
//!
//! Three parts, each in its own file: [`pki`] makes the cluster's certificates and the kubeconfig, [`http`]
//! speaks TLS and HTTP and turns requests into API requests (read and written by the apiserver's own
//! `rest` module), and [`engine`] owns the cluster on its own thread, paces its clock against wall time and
//! sends each request into the kernel at the simulated moment it arrived. The engine never learns about
//! sockets; this module is native only (cargo feature `serve`) and the WebAssembly build links none of it.

pub mod bench;
pub mod engine;
mod exec;
pub mod http;
pub mod pki;
mod portforward;
mod spdy;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc;

use crate::cluster::{Cluster, ClusterConfig, NodeConfig};
use crate::scenario::Scenario;
use engine::{Command, Pace};
use pki::{ClientSubject, Pki};

/// What `kubeglass serve` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// A scenario to play before serving (its cluster, its steps).
    pub scenario: Option<Scenario>,
    /// Worker nodes of the default cluster (`--nodes`), and etcd members (`--etcd`).
    pub nodes: Option<usize>,
    pub etcd: Option<u8>,
    /// The port on 127.0.0.1 (0: any free one).
    pub port: u16,
    pub pace: Pace,
    /// Client certificates beyond the admin's (`--user alice:dev`).
    pub users: Vec<ClientSubject>,
    /// Where the kubeconfig is written (default: `<temp dir>/kubeglass-<port>/kubeconfig`).
    pub kubeconfig: Option<PathBuf>,
    pub seed: u64,
    /// Whether the control prompt reads the terminal.
    pub prompt: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            scenario: None,
            nodes: None,
            etcd: None,
            port: 6443,
            pace: Pace { speed: 1.0, paused: false },
            users: Vec::new(),
            kubeconfig: None,
            seed: 1,
            prompt: true,
        }
    }
}

const ADMIN: &str = "kubernetes-admin";

/// The cluster the options describe.
fn config(options: &Options) -> ClusterConfig {
    let mut config = match &options.scenario {
        Some(s) => crate::scenario::runner::cluster_config(s),
        None => ClusterConfig::default(),
    };
    if let Some(n) = options.nodes {
        config.nodes = (1..=n).map(|i| NodeConfig::worker(&format!("node{i:02}"))).collect();
    }
    if let Some(e) = options.etcd {
        config.etcd_members = e;
    }
    config
}

/// Parses `kubeglass serve` arguments.
pub fn parse_args(args: &[&str]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i];
        let mut value = || {
            i += 1;
            args.get(i).copied().ok_or_else(|| format!("flag needs an argument: {flag}"))
        };
        match flag {
            "--nodes" => o.nodes = Some(value()?.parse().map_err(|_| "--nodes takes a number".to_string())?),
            "--etcd" => {
                let n: u8 = value()?.parse().map_err(|_| "--etcd takes 1, 3 or 5".to_string())?;
                if ![1, 3, 5].contains(&n) {
                    return Err("--etcd takes 1, 3 or 5".into());
                }
                o.etcd = Some(n);
            }
            "--port" => o.port = value()?.parse().map_err(|_| "--port takes a port number".to_string())?,
            "--speed" => {
                let s: f64 = value()?.parse().map_err(|_| "--speed takes a number".to_string())?;
                if !(s > 0.0 && s <= 1000.0) {
                    return Err("--speed takes a number above 0, at most 1000".into());
                }
                o.pace.speed = s;
            }
            "--paused" => o.pace.paused = true,
            "--seed" => o.seed = value()?.parse().map_err(|_| "--seed takes a number".to_string())?,
            "--no-prompt" => o.prompt = false,
            "--kubeconfig" => o.kubeconfig = Some(PathBuf::from(value()?)),
            "--user" => {
                let v = value()?;
                let (user, groups) = v.split_once(':').unwrap_or((v, ""));
                if user.is_empty() {
                    return Err(format!("--user takes NAME[:GROUP,...], not {v:?}"));
                }
                let groups = groups.split(',').filter(|g| !g.is_empty()).map(str::to_string).collect();
                o.users.push(ClientSubject { user: user.to_string(), groups });
            }
            f if f.starts_with('-') => return Err(format!("unknown flag: {f}")),
            file if o.scenario.is_none() => {
                let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
                o.scenario = Some(crate::scenario::parse(&text, file).map_err(|e| e.to_string())?);
            }
            extra => return Err(format!("unexpected argument {extra:?}")),
        }
        i += 1;
    }
    Ok(o)
}

/// Builds the cluster, writes the kubeconfig, serves until the process ends.
/// `wall_ms` reads the wall clock the simulated one is paced against (see [`engine::run`]).
pub fn run(options: Options, wall_ms: engine::WallClock) -> Result<(), String> {
    let config = config(&options);
    let mut subjects = vec![ClientSubject { user: ADMIN.into(), groups: vec!["kubeadm:cluster-admins".into()] }];
    subjects.extend(options.users.iter().cloned());
    let names = pki::serving_names(&config.control_plane.name, crate::kubectl::SERVER.split(':').next().unwrap_or(""));
    let pki = Pki::generate(names, &subjects)?;
    let token_users: Vec<(String, String)> = config.users.iter().map(|u| (u.name.clone(), u.token.clone())).collect();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the server: {e}"))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(("127.0.0.1", options.port)))
        .map_err(|e| format!("listen on 127.0.0.1:{}: {e}", options.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let path = options
        .kubeconfig
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("kubeglass-{port}")).join("kubeconfig"));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let kubeconfig = pki.kubeconfig(&format!("https://127.0.0.1:{port}"), &token_users);
    std::fs::write(&path, kubeconfig).map_err(|e| format!("{}: {e}", path.display()))?;
    // The cluster CA beside it, for clients configured by flags (`--certificate-authority`).
    let ca = path.with_file_name("ca.crt");
    std::fs::write(&ca, &pki.ca_pem).map_err(|e| format!("{}: {e}", ca.display()))?;
    let acceptor = http::tls_acceptor(&pki)?;

    eprintln!(
        "kubeglass serve: building the cluster ({} nodes, {} etcd member(s))…",
        config.nodes.len() + 1,
        config.etcd_members
    );
    let (commands, inbox) = mpsc::channel::<Command>();
    let (built, ready) = mpsc::channel::<String>();
    let (scenario, seed, pace) = (options.scenario.clone(), options.seed, options.pace);
    let (listening, apiserver_up) = tokio::sync::watch::channel(true);
    std::thread::Builder::new()
        .name("engine".into())
        .spawn(move || {
            let cluster = match &scenario {
                Some(s) => crate::scenario::runner::play(s).0,
                None => Cluster::new(config, seed),
            };
            let nodes: Vec<String> = cluster.config().all_nodes().map(|n| n.name.clone()).collect();
            let _ = built.send(nodes.join(", "));
            engine::run(cluster, inbox, pace, listening, wall_ms);
        })
        .map_err(|e| format!("starting the engine: {e}"))?;
    let nodes = ready.recv().map_err(|_| "the engine stopped while building the cluster".to_string())?;
    println!("kubeglass serve: a Kubernetes v1.34 cluster ({nodes}) at https://127.0.0.1:{port}");
    println!("export KUBECONFIG={}", path.display());
    if options.pace.paused {
        println!("The clock is paused: it moves for `wait DURATION` and while a request waits for its answer.");
    }
    let _ = std::io::stdout().flush();
    if options.prompt {
        let prompt_commands = commands.clone();
        std::thread::spawn(move || prompt(prompt_commands));
    }
    runtime.block_on(http::accept(port, listener, acceptor, commands, apiserver_up));
    Ok(())
}

/// A line ending in a here-document operator (`<<EOF`, `<< 'EOF'`, `<<"EOF"`): the command before it and
/// the delimiter.
fn here_document(line: &str) -> Option<(String, String)> {
    let (command, word) = line.rsplit_once("<<")?;
    let delimiter = word.trim().trim_matches(['\'', '"']);
    let plain = !delimiter.is_empty() && delimiter.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (plain && !command.trim().is_empty()).then(|| (command.trim_end().to_string(), delimiter.to_string()))
}

/// The control prompt: faults and time for the cluster being served, and `ssh NODE` into a node's shell.
fn prompt(commands: mpsc::Sender<Command>) {
    let stdin = std::io::stdin();
    let mut on: Option<String> = None;
    println!(
        "Control prompt: stop|start|crash COMPONENT, poweroff|poweron NODE, wait DURATION, time, kubectl ARGS (the simulated one), ssh NODE"
    );
    loop {
        match &on {
            Some(node) => print!("root@{node}:~# "),
            None => print!("kubeglass> "),
        }
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut line = line.trim().to_string();
        // `kubectl apply -f - <<EOF`: the lines up to the delimiter are the command's standard input, as
        // bash reads a here-document (`> ` before each).
        let stdin = match (&on, here_document(&line)) {
            (None, Some((command, delimiter))) => {
                let mut text = String::new();
                loop {
                    print!("> ");
                    let _ = std::io::stdout().flush();
                    let mut next = String::new();
                    if stdin.lock().read_line(&mut next).unwrap_or(0) == 0
                        || next.trim_end_matches(['\r', '\n']) == delimiter
                    {
                        break;
                    }
                    text.push_str(next.trim_end_matches(['\r', '\n']));
                    text.push('\n');
                }
                line = command;
                Some(text)
            }
            _ => None,
        };
        if let (Some(node), "exit" | "logout") = (&on, line.split_once(' ').map_or(line.as_str(), |(v, _)| v)) {
            println!("logout\nConnection to {node} closed.");
            on = None;
            continue;
        }
        let ssh = on.is_none() && line.split_whitespace().next() == Some("ssh");
        let node = line["ssh".len().min(line.len())..].trim().trim_start_matches("root@").to_string();
        let (reply, answer) = mpsc::channel();
        if commands.send(Command::Control { node: on.clone(), line, stdin, reply }).is_err() {
            return;
        }
        match answer.recv() {
            // `ssh NODE` answers nothing when the node exists.
            Ok(out) if ssh && out.is_empty() => on = Some(node),
            Ok(out) => print!("{out}"),
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::here_document;

    #[test]
    fn a_here_document_operator_ends_the_command_and_names_its_delimiter() {
        let split = |line: &str| here_document(line);
        assert_eq!(split("kubectl apply -f - <<EOF"), Some(("kubectl apply -f -".into(), "EOF".into())));
        assert_eq!(split("kubectl create -f - << 'END_1'"), Some(("kubectl create -f -".into(), "END_1".into())));
        assert_eq!(split("kubectl apply -f - <<\"EOF\""), Some(("kubectl apply -f -".into(), "EOF".into())));
        assert_eq!(split("kubectl get pods"), None);
        assert_eq!(split("<<EOF"), None);
        assert_eq!(split("kubectl apply -f - <<"), None);
        assert_eq!(split("kubectl get pods -o jsonpath='{.a<<b}'"), None);
    }
}
