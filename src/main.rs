//! The `kubeglass` command line: run a scenario headlessly, open an interactive shell on a cluster, and
//! turn scenarios into share links and back.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use kubeglass::check;
use kubeglass::cluster::Cluster;
use kubeglass::scenario::{self, runner};

const USAGE: &str = "usage:
  kubeglass run FILE [--steps]   play a scenario; exit 0 when every expect holds, 1 when one fails, 2 when FILE is invalid
  kubeglass shell [FILE]         an interactive prompt: kubectl commands, etcdctl/etcdutl (on the control plane),
                                 ssh NODE (a node's shell: systemctl, journalctl, crictl, ls, cat, mv; exit leaves),
                                 stop/start/crash NAME, wait DURATION, steps
  kubeglass url FILE             print the share-link fragment (#s=...) of a scenario
  kubeglass decode URL           print the scenario a share link holds
  kubeglass check --seed N [--size small|full] [--without F,..] [--shrink [--out FILE]]
                 [--hash] [--yaml]
                                 one seeded run of random faults under the safety invariants, then the
                                 convergence checks; --shrink writes a minimal failing scenario file
  kubeglass check --seeds N [--from S] [--size small|full] [--without F,..]
                                 N seeded runs from seed S (default 0), and a summary
  kubeglass serve [FILE] [--nodes N] [--etcd 1|3|5] [--port 6443] [--speed X] [--paused] [--user NAME:GROUP]
                 [--kubeconfig PATH] [--seed N] [--no-prompt]
                                 serve the cluster (or FILE's, after its steps) to real clients over HTTPS on
                                 127.0.0.1 and write their kubeconfig; a control prompt for faults and time
  kubeglass check --file FILE    a scenario file (one --shrink wrote) under the invariants and convergence checks
  kubeglass bench [--nodes N] [--pods N] [--creates N] [--workers N] [--watchers N] [--puts N] [--fanout-puts N]
                                 time the engine: etcd puts and watch fan-out, building a cluster of N nodes,
                                 filling it with pods through the apiserver, then pod creates per second
  kubeglass bench scheduling [--nodes N] [--pods N] [--workers N]
                                 scheduling throughput: N pending pods created through the apiserver on a cluster
                                 of N nodes (default 5,000 and 10,000), timed until a watching client sees all bound
  kubeglass bench deployment [--nodes N] [--replicas N]
                                 one Deployment of N replicas (default 150,000 on 5,000 nodes) created with kubectl
                                 and run until all are available: wall time, simulated time, peak memory
  kubeglass bench serve [--pods N] [--listings N]
                                 serve a cluster of N pods (default 1,000) and time real HTTPS clients: `get pods`
                                 as Table pages (requests/s, p50/p99), a watch's delivery rate, the HTTP layer's cost
  kubeglass bench replay FILE    replay a scenario as the web app replays a share link, timed: the engine's speed
                                 in simulated seconds per wall second (scripts/measure-web.mjs compares the page)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["run", file, rest @ ..] => run(file, rest.contains(&"--steps")),
        ["shell"] => shell(None),
        ["shell", file] => shell(Some(file)),
        ["url", file] => url(file),
        ["decode", link] => decode(link),
        ["check", rest @ ..] => check(rest),
        #[cfg(feature = "serve")]
        ["serve", rest @ ..] => serve(rest),
        #[cfg(feature = "serve")]
        ["bench", "serve", rest @ ..] => bench_serve(rest),
        ["bench", "scheduling", rest @ ..] => bench_scheduling(rest),
        ["bench", "replay", file] => bench_replay(file),
        ["bench", "deployment", rest @ ..] => bench_deployment(rest),
        ["bench", rest @ ..] => bench(rest),
        ["--version"] | ["version"] => {
            println!("kubeglass {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

#[cfg(feature = "serve")]
fn serve(args: &[&str]) -> ExitCode {
    let options = match kubeglass::serve::parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Serving real clients is where simulated time is paced against wall time; the engine only gets this.
    #[allow(clippy::disallowed_methods)]
    let start = std::time::Instant::now();
    let wall_ms = Box::new(move || start.elapsed().as_secs_f64() * 1000.0);
    match kubeglass::serve::run(options, wall_ms) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load(file: &str) -> Result<scenario::Scenario, ExitCode> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        eprintln!("{file}: {e}");
        ExitCode::from(2)
    })?;
    scenario::parse(&text, file).map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(2)
    })
}

fn run(file: &str, steps: bool) -> ExitCode {
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let report = runner::run(&s);
    print!("{}", report.transcript(steps));
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        let failed = report.steps.iter().filter(|s| !s.failures.is_empty()).count();
        eprintln!("{file}: {failed} step(s) failed their expectations (seed {}, replay: kubeglass run {file})", s.seed);
        ExitCode::from(1)
    }
}

/// `kubeglass check` flags.
struct CheckArgs {
    seed: Option<u64>,
    seeds: Option<u64>,
    from: u64,
    size: check::Size,
    shrink: bool,
    out: Option<String>,
    file: Option<String>,
    hash: bool,
    yaml: bool,
    without: String,
}

fn check_args(words: &[&str]) -> Result<CheckArgs, String> {
    let mut a = CheckArgs {
        seed: None,
        seeds: None,
        from: 0,
        size: check::Size::Full,
        shrink: false,
        out: None,
        file: None,
        hash: false,
        yaml: false,
        without: String::new(),
    };
    let mut it = words.iter();
    let number = |flag: &str, v: Option<&&str>| -> Result<u64, String> {
        v.and_then(|v| v.parse().ok()).ok_or_else(|| format!("{flag} needs a number"))
    };
    while let Some(w) = it.next() {
        match *w {
            "--seed" => a.seed = Some(number("--seed", it.next())?),
            "--seeds" => a.seeds = Some(number("--seeds", it.next())?),
            "--from" => a.from = number("--from", it.next())?,
            "--size" => {
                let v = it.next().copied().unwrap_or("");
                a.size = check::Size::parse(v).ok_or_else(|| format!("--size is small or full, not {v:?}"))?;
            }
            "--shrink" => a.shrink = true,
            "--hash" => a.hash = true,
            "--yaml" => a.yaml = true,
            "--without" => a.without = it.next().ok_or("--without needs fault names")?.to_string(),
            "--out" => a.out = Some(it.next().ok_or("--out needs a file")?.to_string()),
            "--file" => a.file = Some(it.next().ok_or("--file needs a file")?.to_string()),
            other => return Err(format!("unknown flag {other:?}")),
        }
    }
    Ok(a)
}

// The CLI times the runs with the wall clock (the engine never sees it).
#[allow(clippy::disallowed_methods)]
fn check(words: &[&str]) -> ExitCode {
    let a = match check_args(words) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let faults = match check::Faults::ALL.without(&a.without) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut flags = format!("--size {}", a.size.as_str());
    if !a.without.is_empty() {
        flags.push_str(&format!(" --without {}", a.without));
    }
    if let Some(n) = a.seeds {
        let started = std::time::Instant::now();
        let mut summary = check::Summary::default();
        for seed in a.from..a.from + n {
            let o = check::run_seed(seed, a.size, faults);
            if let Some(f) = &o.failure {
                eprintln!("seed {seed}: {}", f.name());
            }
            summary.add(seed, &o);
        }
        print!("{}", summary.text(&flags));
        println!("wall time {:.1} s", started.elapsed().as_secs_f64());
        return if summary.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    }
    let (s, replay) = match (&a.file, a.seed) {
        (Some(f), _) => match load(f) {
            Ok(s) => (s, format!("kubeglass check --file {f}")),
            Err(code) => return code,
        },
        (None, Some(seed)) => (check::generate(seed, a.size, faults), check::replay_command(seed, &flags)),
        (None, None) => {
            eprintln!("check needs --seed N, --seeds N or --file FILE\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if a.yaml {
        print!("{}", scenario::to_yaml(&s));
        return ExitCode::SUCCESS;
    }
    let started = std::time::Instant::now();
    let o = check::run(&s);
    if a.hash {
        println!("{:016x}", o.trace_hash);
        return ExitCode::SUCCESS;
    }
    if std::env::var_os("KUBEGLASS_CHECK_BUSIEST").is_some() {
        for (what, n) in &o.busiest {
            eprintln!("{n:6} {what}");
        }
    }
    let Some(failure) = o.failure else {
        println!(
            "seed {}: passed ({} steps, {} deliveries, {} invariant checks, {} simulated, trace {:016x}, {:.1} s)",
            s.seed,
            s.steps.len(),
            o.deliveries,
            o.checks,
            kubeglass::sim::time::go_duration(o.end_ms),
            o.trace_hash,
            started.elapsed().as_secs_f64()
        );
        return ExitCode::SUCCESS;
    };
    print!("{}", check::describe(&s, &failure, &replay));
    if a.shrink {
        let name = failure.name();
        let signature = failure.signature();
        eprintln!("shrinking {} steps (each candidate is a whole run) ...", s.steps.len());
        let (min, runs) =
            check::shrink::shrink(&s, |c| check::run(c).failure.is_some_and(|f| f.signature() == signature));
        let out = a.out.clone().unwrap_or_else(|| format!("check-seed-{}.yaml", s.seed));
        let min = scenario::Scenario {
            name: format!("check-seed-{}-shrunk", s.seed),
            description: format!("{name}: shrunk from {replay} ({runs} runs); replay: kubeglass check --file {out}"),
            ..min
        };
        if let Err(e) = std::fs::write(&out, scenario::to_yaml(&min)) {
            eprintln!("{out}: {e}");
            return ExitCode::from(2);
        }
        println!(
            "shrunk to {} of {} steps in {runs} runs: wrote {out} (replay: kubeglass check --file {out})",
            min.steps.len(),
            s.steps.len()
        );
    }
    ExitCode::from(1)
}

fn shell(file: Option<&str>) -> ExitCode {
    let mut cluster = match file {
        Some(f) => match load(f) {
            Ok(s) => Cluster::new(runner::cluster_config(&s), s.seed),
            Err(code) => return code,
        },
        None => Cluster::new_default(1),
    };
    let stdin = std::io::stdin();
    let mut last_chain = 0;
    // The node the prompt is logged in to with `ssh`, if any.
    let mut on: Option<String> = None;
    loop {
        match &on {
            Some(node) => print!("[{}] root@{node}:~# ", kubeglass::sim::time::go_duration(cluster.now().ms())),
            None => print!("[{}] $ ", kubeglass::sim::time::go_duration(cluster.now().ms())),
        }
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 {
            println!();
            return ExitCode::SUCCESS;
        }
        let line = line.trim();
        let (verb, rest) = line.split_once(' ').unwrap_or((line, ""));
        if let Some(node) = on.clone() {
            match verb {
                "exit" | "logout" => {
                    println!("logout\nConnection to {node} closed.");
                    on = None;
                }
                "" => {}
                _ => {
                    let r = cluster.shell(&node, line, runner::COMMAND_LIMIT_MS);
                    last_chain = r.chain;
                    print!("{}", r.output);
                }
            }
            continue;
        }
        let result = match verb {
            "" => Ok(()),
            "exit" | "quit" => return ExitCode::SUCCESS,
            "ssh" => {
                let node = rest.trim().trim_start_matches("root@");
                if cluster.config().all_nodes().any(|n| n.name == node) {
                    on = Some(node.to_string());
                    Ok(())
                } else {
                    Err(format!("ssh: Could not resolve hostname {node}: Name or service not known"))
                }
            }
            "stop" => cluster.stop(rest.trim()),
            "start" => cluster.start(rest.trim()),
            "crash" => cluster.crash(rest.trim()),
            "wait" => kubeglass::sim::time::parse_duration_ms(rest.trim()).map(|ms| cluster.advance_ms(ms)),
            "steps" => {
                for f in kubeglass::view::steps::data_flow(cluster.kernel(), last_chain) {
                    println!("{}", f.line());
                }
                Ok(())
            }
            _ if kubeglass::etcdctl::command_words(line)
                .is_ok_and(|w| matches!(w.first().map(String::as_str), Some("etcdctl" | "etcdutl"))) =>
            {
                let node = cluster.config().control_plane.name.clone();
                let r = cluster.shell(&node, line, runner::COMMAND_LIMIT_MS);
                last_chain = r.chain;
                print!("{}", r.output);
                Ok(())
            }
            _ => {
                let command = line.strip_prefix("kubectl ").unwrap_or(line);
                let r = cluster.kubectl(command, None, runner::COMMAND_LIMIT_MS);
                last_chain = r.chain;
                print!("{}", r.output);
                Ok(())
            }
        };
        if let Err(e) = result {
            println!("error: {e}");
        }
    }
}

fn url(file: &str) -> ExitCode {
    match std::fs::read_to_string(file) {
        Ok(text) => match scenario::parse(&text, file) {
            Ok(_) => {
                println!("#{}", scenario::encode(&text));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        },
        Err(e) => {
            eprintln!("{file}: {e}");
            ExitCode::from(2)
        }
    }
}

fn decode(link: &str) -> ExitCode {
    match scenario::decode(link) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `kubeglass bench`'s knobs.
struct BenchArgs {
    nodes: usize,
    pods: usize,
    creates: usize,
    workers: usize,
    watchers: usize,
    puts: usize,
    fanout_puts: usize,
}

fn bench_args(words: &[&str]) -> Result<BenchArgs, String> {
    let mut a = BenchArgs {
        nodes: 5_000,
        pods: 150_000,
        creates: 5_000,
        workers: 32,
        watchers: 100,
        puts: 100_000,
        fanout_puts: 2_000,
    };
    let mut i = 0;
    while i < words.len() {
        let (flag, inline) = match words[i].split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (words[i], None),
        };
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                words.get(i).copied().ok_or_else(|| format!("{flag} needs a number"))?
            }
        };
        let n: usize = value.replace('_', "").parse().map_err(|_| format!("{flag}: {value:?} is not a number"))?;
        match flag {
            "--nodes" => a.nodes = n.min(scenario::file::MAX_NODES),
            "--pods" | "--replicas" => a.pods = n,
            "--creates" => a.creates = n,
            "--workers" => a.workers = n.max(1),
            "--watchers" => a.watchers = n,
            "--puts" => a.puts = n,
            "--fanout-puts" => a.fanout_puts = n,
            other => return Err(format!("unknown flag {other}")),
        }
        i += 1;
    }
    Ok(a)
}

// The CLI may time what it runs; the engine it drives never reads the wall clock.
#[allow(clippy::disallowed_methods)]
fn bench_scheduling(words: &[&str]) -> ExitCode {
    use kubeglass::workload;
    use std::time::Instant;
    let mut a = match bench_args(words) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !words.iter().any(|w| w.starts_with("--pods")) {
        a.pods = 10_000;
    }
    let started = Instant::now();
    let mut cluster = Cluster::new(workload::cluster_config(a.nodes), 1);
    // Settle: the kube-proxy DaemonSet puts a pod on every node through the scheduler first.
    cluster.advance_ms(2_000);
    while cluster.scheduler().is_some_and(|s| s.pending() > 0) && cluster.now().ms() < 120_000 {
        cluster.advance_ms(1_000);
    }
    let t = started.elapsed();
    println!(
        "cluster: {} worker nodes, built and settled in {t:.2?} (simulated {})",
        a.nodes,
        kubeglass::sim::time::go_duration(cluster.now().ms())
    );
    let before = cluster.scheduler().map(|s| s.stats()).unwrap_or_default();
    let started = Instant::now();
    let run = workload::schedule_pods(&mut cluster, a.pods, a.workers);
    let t = started.elapsed();
    let stats = cluster.scheduler().map(|s| s.stats()).unwrap_or_default();
    let simulated_s = run.simulated_ms as f64 / 1000.0;
    println!(
        "scheduling: {}/{} pods created by {} client programs, {} seen bound, in {t:.2?} wall ({} through the whole \
         pipeline) and {} simulated ({:.0} pods/s simulated)",
        run.created,
        run.requested,
        a.workers,
        if run.all_bound { "all" } else { "not all" },
        rate(run.requested as u64, t),
        kubeglass::sim::time::go_duration(run.simulated_ms),
        run.requested as f64 / simulated_s.max(1e-9),
    );
    println!(
        "kube-scheduler: {} attempts, {} bindings sent, {} bound, {} unschedulable, {} preemptions",
        stats.attempts - before.attempts,
        stats.bindings_sent - before.bindings_sent,
        stats.bound - before.bound,
        stats.unschedulable - before.unschedulable,
        stats.preemptions - before.preemptions
    );
    print_memory(&cluster);
    if run.all_bound && run.created == run.requested {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `kubeglass bench deployment`: issue 3's "one Deployment of 150,000 pods on 5,000 nodes until all are
/// Running", through kubectl, the controllers, the scheduler and every kubelet.
// The CLI may time what it runs; the engine it drives never reads the wall clock.
#[allow(clippy::disallowed_methods)]
fn bench_deployment(words: &[&str]) -> ExitCode {
    use kubeglass::api::{Kind, Object};
    use kubeglass::workload;
    use std::time::Instant;
    let mut a = match bench_args(words) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !words.iter().any(|w| w.starts_with("--replicas")) {
        a.pods = 150_000;
    }
    let started = Instant::now();
    let mut cluster = Cluster::new(workload::cluster_config(a.nodes), 1);
    cluster.advance_ms(5_000);
    println!("cluster: {} worker nodes built and settled in {:.2?}", a.nodes, started.elapsed());
    let available = |c: &Cluster| {
        c.apiserver()
            .and_then(|s| s.cache().get(Kind::Deployment, Some("default"), "big"))
            .and_then(|o| match o.as_ref() {
                Object::Deployment(d) => d.status.as_ref().and_then(|s| s.available_replicas),
                _ => None,
            })
            .unwrap_or(0) as usize
    };
    let started = Instant::now();
    let start_ms = cluster.now().ms();
    let line = format!("create deployment big --image=nginx:1.27 --replicas={}", a.pods);
    let r = cluster.kubectl(&line, None, runner::COMMAND_LIMIT_MS);
    print!("$ kubectl {line}\n{}", r.output);
    // Up to a simulated hour, checking each simulated second.
    while available(&cluster) < a.pods && cluster.now().ms() - start_ms < 3_600_000 {
        cluster.advance_ms(1_000);
    }
    let done = available(&cluster);
    println!(
        "deployment: {done}/{} replicas available after {:.2?} wall, {} simulated",
        a.pods,
        started.elapsed(),
        kubeglass::sim::time::go_duration(cluster.now().ms() - start_ms)
    );
    print_memory(&cluster);
    if done == a.pods {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `kubeglass bench serve`: [`kubeglass::serve::bench`]'s figures, timed with the wall clock handed to it.
#[cfg(feature = "serve")]
#[allow(clippy::disallowed_methods)]
fn bench_serve(words: &[&str]) -> ExitCode {
    let mut pods = 1_000;
    let mut listings = 100;
    let mut i = 0;
    while i < words.len() {
        let (flag, inline) = match words[i].split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (words[i], None),
        };
        let value = inline.or_else(|| {
            i += 1;
            words.get(i).copied()
        });
        let parsed = value.and_then(|v| v.replace(['_', ','], "").parse::<usize>().ok()).filter(|n| *n > 0);
        match (flag, parsed) {
            ("--pods", Some(n)) => pods = n,
            ("--listings", Some(n)) => listings = n,
            _ => {
                eprintln!("error: bench serve: unknown flag or bad value {:?}\n{USAGE}", words[i.min(words.len() - 1)]);
                return ExitCode::from(2);
            }
        }
        i += 1;
    }
    let origin = std::time::Instant::now();
    let clock: kubeglass::serve::bench::Clock = std::sync::Arc::new(move || origin.elapsed());
    match kubeglass::serve::bench::run(pods, listings, clock) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: bench serve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Replays `file` with [`kubeglass::scenario::session::Session::replay`], the code path a share link takes in the
/// page, and prints the simulated time it covered, the wall time it took and their ratio.
// The CLI may time what it runs; the engine it drives never reads the wall clock.
#[allow(clippy::disallowed_methods)]
fn bench_replay(file: &str) -> ExitCode {
    use kubeglass::scenario::session::Session;
    use std::time::Instant;
    let s = match load(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let started = Instant::now();
    let (session, _) = Session::replay(&s);
    let wall = started.elapsed();
    let simulated_ms = session.cluster().now().ms();
    let pods = session.cluster().apiserver().map_or(0, |a| a.cache().count(kubeglass::api::Kind::Pod));
    println!(
        "replay {}: {} steps, {pods} pods stored, simulated {simulated_ms} ms in {} ms wall: {:.2} simulated s per wall s",
        s.name,
        s.steps.len(),
        wall.as_millis(),
        simulated_ms as f64 / wall.as_secs_f64().max(1e-9) / 1000.0,
    );
    ExitCode::SUCCESS
}

/// What the cluster holds that grows with its history (etcd's revisions and history, the watch cache's
/// window), then the process's peak memory.
fn print_memory(cluster: &Cluster) {
    if let (Some(server), Some(etcd)) = (cluster.apiserver(), cluster.etcd_member(0)) {
        let store = etcd.store();
        println!(
            "held: etcd revision {}, {} keys, {} history events ({} of them holding replaced values as JSON); watch \
             cache {} window events",
            store.revision(),
            store.len(),
            store.history_len(),
            store.history_cold_values(),
            server.cache().window_len()
        );
    }
    match peak_memory_kib() {
        Some(kib) => println!("peak memory (VmHWM): {} MiB", kib / 1024),
        None => println!("peak memory: unknown (no /proc/self/status)"),
    }
}

/// Peak resident memory of this process in KiB (Linux `VmHWM`), when the system tells.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn rate(count: u64, elapsed: std::time::Duration) -> String {
    let per_second = count as f64 / elapsed.as_secs_f64().max(1e-9);
    format!("{per_second:.0}/s")
}

// The CLI may time what it runs; the engine it drives never reads the wall clock.
#[allow(clippy::disallowed_methods)]
fn bench(words: &[&str]) -> ExitCode {
    use kubeglass::workload;
    use std::time::Instant;
    let a = match bench_args(words) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let puts = a.puts as u64;
    let started = Instant::now();
    let mut store = kubeglass::etcd::store::Store::new();
    let value = std::sync::Arc::new(workload::pod("default", "p", None));
    for i in 0..puts {
        let key = format!("/registry/pods/default/pod-{i}");
        let op = kubeglass::etcd::Op::Put { key, value: std::sync::Arc::clone(&value) };
        store.apply(&kubeglass::etcd::Txn { success: vec![op], ..Default::default() });
    }
    let t = started.elapsed();
    println!("etcd store: {puts} puts in {t:.2?} ({})", rate(puts, t));

    let started = Instant::now();
    let mut fanout = workload::EtcdFanout::new(a.watchers, 1);
    let fan_puts = a.fanout_puts;
    fanout.put_pods(fan_puts);
    let t = started.elapsed();
    println!(
        "etcd member: {fan_puts} puts to {} watchers in {t:.2?}: {} events delivered ({})",
        fanout.watcher_count(),
        fanout.events_delivered,
        rate(fanout.events_delivered, t)
    );

    let started = Instant::now();
    let mut cluster = Cluster::new(workload::cluster_config(a.nodes), 1);
    let t = started.elapsed();
    let nodes = cluster.apiserver().map_or(0, |s| s.cache().count(kubeglass::api::Kind::Node));
    println!(
        "cluster: {} worker nodes configured, {nodes} Node objects stored, built in {t:.2?} (simulated {})",
        a.nodes,
        kubeglass::sim::time::go_duration(cluster.now().ms())
    );

    let started = Instant::now();
    let fill = workload::create_pods_concurrently(&mut cluster, 0, a.pods, a.workers);
    let t = started.elapsed();
    println!(
        "prefill: {}/{} pods created by {} client programs in {t:.2?} ({}; simulated {})",
        fill.created,
        fill.requested,
        a.workers,
        rate(fill.created as u64, t),
        kubeglass::sim::time::go_duration(fill.simulated_ms)
    );

    let started = Instant::now();
    let run = workload::create_pods_concurrently(&mut cluster, a.pods, a.creates, a.workers);
    let t = started.elapsed();
    let stored = cluster.apiserver().map_or(0, |s| s.cache().count(kubeglass::api::Kind::Pod));
    println!(
        "creates: {}/{} pods created in {t:.2?} wall, {} simulated: {} requests handled per wall second ({} pods stored)",
        run.created,
        run.requested,
        kubeglass::sim::time::go_duration(run.simulated_ms),
        rate(run.created as u64, t),
        stored
    );

    let started = Instant::now();
    let r = cluster.kubectl("get pods -A --field-selector spec.nodeName=node0001", None, runner::COMMAND_LIMIT_MS);
    let t = started.elapsed();
    println!("kubectl get pods --field-selector spec.nodeName=node0001: {} lines in {t:.2?}", r.output.lines().count());
    print_memory(&cluster);
    if fill.created == fill.requested && run.created == run.requested {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
