//! The `kubeglass` command line: run a scenario headlessly, open an interactive shell on a cluster, and
//! turn scenarios into share links and back.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use kubeglass::cluster::Cluster;
use kubeglass::scenario::{self, runner};

const USAGE: &str = "usage:
  kubeglass run FILE [--steps]   play a scenario; exit 0 when every expect holds, 1 when one fails, 2 when FILE is invalid
  kubeglass shell [FILE]         an interactive prompt: kubectl commands, stop/start/crash NAME, wait DURATION, steps
  kubeglass url FILE             print the share-link fragment (#s=...) of a scenario
  kubeglass decode URL           print the scenario a share link holds";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["run", file, rest @ ..] => run(file, rest.contains(&"--steps")),
        ["shell"] => shell(None),
        ["shell", file] => shell(Some(file)),
        ["url", file] => url(file),
        ["decode", link] => decode(link),
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
    loop {
        print!("[{}] $ ", kubeglass::sim::time::go_duration(cluster.now().ms()));
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 {
            println!();
            return ExitCode::SUCCESS;
        }
        let line = line.trim();
        let (verb, rest) = line.split_once(' ').unwrap_or((line, ""));
        let result = match verb {
            "" => Ok(()),
            "exit" | "quit" => return ExitCode::SUCCESS,
            "stop" => cluster.stop(rest.trim()),
            "start" => cluster.start(rest.trim()),
            "crash" => cluster.stop(rest.trim()).and_then(|_| cluster.start(rest.trim())),
            "wait" => kubeglass::sim::time::parse_duration_ms(rest.trim()).map(|ms| cluster.advance_ms(ms)),
            "steps" => {
                for f in kubeglass::view::steps::data_flow(cluster.kernel(), last_chain) {
                    println!("{}", f.line());
                }
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
