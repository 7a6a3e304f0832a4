//! busybox `wget` (v1.37, the `busybox` image's), as a container's process runs it: its command line, the
//! lines it writes to stderr, the body it writes, and its exit code. Where the connection goes is the
//! cluster's business (`cluster::network`); this module is what wget itself prints.
//!
//! Options: `-q`, `-O FILE` (`-` for stdout), `-T SEC` (default 900; it bounds the connect, not the name
//! lookup), `--spider`, `-S` (the status line only: kubeglass models no headers), `-U AGENT`, `-o FILE`
//! (the messages go there, not to stderr), `--no-check-certificate`, `-c`, `-Y on/off`, their long forms,
//! short flags combined (`-qO-`, `-T5`), and the GNU options busybox accepts and ignores (`-t N`/`--tries`,
//! `-nv`, `--no-verbose`, `--no-cache`, `--no-clobber`, `--passive-ftp`, `-P DIR`, …). Not quiet: `Connecting to HOST (IP:PORT)`, `writing to stdout` or `saving to 'FILE'`, the
//! progress meter as it prints when stderr is not a terminal, `written to stdout` or `'FILE' saved`.
//! Errors are `wget: …` lines on stderr whether quiet or not, and end wget with exit code 1 (the libc
//! option errors and the usage text included).
//!
//! Counterpart: busybox `networking/wget.c` and `libbb/progress.c`.

use super::net::{End, Fetched, NetAnswer, Reply, Url, SYN_RETRIES_MS};

/// What wget sends as its `User-Agent`.
pub const USER_AGENT: &str = "Wget";

/// Its default network timeout (seconds).
const DEFAULT_TIMEOUT_S: u64 = 900;

/// The usage text busybox prints for a command line it refuses (on stderr, exit 1).
pub const USAGE: &str = "BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.

Usage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]
\t[--post-data STR | --post-file FILE] [-Y on/off]
\t[--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL...

Retrieve files via HTTP or FTP

\t--spider\tOnly check URL existence: $? is 0 if exists
\t--header STR\tAdd STR (of form 'header: value') to headers
\t--post-data STR\tSend STR using POST method
\t--post-file FILE\tSend FILE using POST method
\t--no-check-certificate\tDon't validate the server's certificate
\t-c\t\tContinue retrieval of aborted transfer
\t-q\t\tQuiet
\t-P DIR\t\tSave to DIR (default .)
\t-S    \t\tShow server response
\t-T SEC\t\tNetwork read timeout is SEC seconds
\t-O FILE\t\tSave to FILE ('-' for stdout)
\t-o LOGFILE\tLog messages to FILE
\t-U STR\t\tUse STR for User-Agent header
\t-Y on/off\tUse proxy
";

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub urls: Vec<String>,
    pub quiet: bool,
    /// `-O`: a file, or `-` for stdout.
    pub output: Option<String>,
    pub timeout_s: u64,
    pub spider: bool,
    pub server_response: bool,
    pub user_agent: String,
    pub check_certificate: bool,
    /// `-o FILE`: what wget would write to stderr goes to that file instead.
    pub log_file: Option<String>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            urls: Vec::new(),
            quiet: false,
            output: None,
            timeout_s: DEFAULT_TIMEOUT_S,
            spider: false,
            server_response: false,
            user_agent: USER_AGENT.to_string(),
            check_certificate: true,
            log_file: None,
        }
    }
}

/// wget refusing its command line: what it printed (stderr) and exit code 1.
fn refused(text: String) -> (String, i32) {
    (text, 1)
}

fn usage_after(line: &str) -> (String, i32) {
    refused(format!("{line}{USAGE}"))
}

/// Reads wget's arguments (without the program name).
pub fn parse(words: &[&str]) -> Result<Args, (String, i32)> {
    let mut args = Args::default();
    let mut i = 0;
    let mut options_end = false;
    while i < words.len() {
        let w = words[i];
        i += 1;
        if options_end || !w.starts_with('-') || w == "-" {
            args.urls.push(w.to_string());
            continue;
        }
        if w == "--" {
            options_end = true;
            continue;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let takes = [
                "output-document",
                "timeout",
                "user-agent",
                "proxy",
                "header",
                "post-data",
                "post-file",
                "tries",
                "output-file",
                "directory-prefix",
            ];
            let value = if takes.contains(&name) {
                match inline {
                    Some(v) => Some(v),
                    None => match words.get(i) {
                        Some(v) => {
                            i += 1;
                            Some(v.to_string())
                        }
                        None => return Err(usage_after(&format!("wget: option '--{name}' requires an argument\n"))),
                    },
                }
            } else {
                None
            };
            match (name, value) {
                ("quiet", None) => args.quiet = true,
                ("spider", None) => args.spider = true,
                ("server-response", None) => args.server_response = true,
                ("no-check-certificate", None) => args.check_certificate = false,
                ("output-file", Some(v)) => args.log_file = Some(v),
                // Accepted and ignored, for compatibility with GNU wget (busybox's FEATURE_WGET_LONG_OPTIONS
                // with DESKTOP, as the image is built).
                (
                    "continue"
                    | "no-verbose"
                    | "no-cache"
                    | "no-clobber"
                    | "passive-ftp"
                    | "no-host-directories"
                    | "no-parent",
                    None,
                ) => {}
                ("tries" | "directory-prefix", Some(_)) => {}
                ("output-document", Some(v)) => args.output = Some(v),
                ("timeout", Some(v)) => args.timeout_s = seconds(&v)?,
                ("user-agent", Some(v)) => args.user_agent = v,
                ("proxy" | "header", Some(_)) => {}
                _ => return Err(usage_after(&format!("wget: unrecognized option '--{name}'\n"))),
            }
            continue;
        }
        // A cluster of short flags; one that takes a value takes the rest of the word, or the next word.
        let flags: Vec<char> = w[1..].chars().collect();
        let mut k = 0;
        while k < flags.len() {
            let c = flags[k];
            k += 1;
            match c {
                'q' => args.quiet = true,
                'S' => args.server_response = true,
                'c' => {}
                // `-nv`, `-nc`, …: ignored, with whatever follows it in the word.
                'n' => k = flags.len(),
                'O' | 'T' | 'U' | 'Y' | 'P' | 'o' | 't' => {
                    let rest: String = flags[k..].iter().collect();
                    k = flags.len();
                    let value = if rest.is_empty() {
                        match words.get(i) {
                            Some(v) => {
                                i += 1;
                                v.to_string()
                            }
                            None => return Err(usage_after(&format!("wget: option requires an argument -- '{c}'\n"))),
                        }
                    } else {
                        rest
                    };
                    match c {
                        'O' => args.output = Some(value),
                        'T' => args.timeout_s = seconds(&value)?,
                        'U' => args.user_agent = value,
                        'o' => args.log_file = Some(value),
                        _ => {}
                    }
                }
                other => return Err(usage_after(&format!("wget: invalid option -- '{other}'\n"))),
            }
        }
    }
    if args.urls.is_empty() {
        return Err(refused(USAGE.to_string()));
    }
    Ok(args)
}

fn seconds(text: &str) -> Result<u64, (String, i32)> {
    text.parse::<u64>().map_err(|_| refused(format!("wget: invalid number '{text}'\n")))
}

/// A URL as busybox reads it: no scheme means `http://`; the host as given (with its `:port`) is what its
/// messages name.
fn parse_url(text: &str) -> Result<(Url, String), String> {
    let (scheme, rest) = match text.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_string(), text),
    };
    if scheme != "http" && scheme != "https" {
        return Err(format!("wget: not an http or ftp url: {text}\n"));
    }
    let https = scheme == "https";
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => match p.parse::<u16>() {
            Ok(n) => (h, n),
            Err(_) => return Err(format!("wget: bad port spec '{authority}'\n")),
        },
        None => (authority, if https { 443 } else { 80 }),
    };
    Ok((Url { https, host: host.to_ascii_lowercase(), port, path }, authority.to_string()))
}

/// Runs wget with its arguments (without the program name); `fetch` is the network, asked once per URL with
/// the URL and the User-Agent. What wget printed, its exit code and how long it ran.
pub fn run(words: &[&str], mut fetch: impl FnMut(&Url, &str) -> Fetched) -> (NetAnswer, Option<Fetched>) {
    let args = match parse(words) {
        Ok(a) => a,
        Err((text, code)) => return (NetAnswer { output: vec![(true, text)], exit_code: code, after_ms: 0 }, None),
    };
    let mut answer = NetAnswer::default();
    let mut last = None;
    for text in &args.urls {
        let (url, shown) = match parse_url(text) {
            Ok(u) => u,
            Err(e) => {
                answer.output.push((true, e));
                answer.exit_code = 1;
                return (answer, last);
            }
        };
        let fetched = fetch(&url, &args.user_agent);
        let ok = one(&args, &url, &shown, &fetched, &mut answer);
        last = Some(fetched);
        if !ok {
            answer.exit_code = 1;
            break;
        }
    }
    if args.log_file.is_some() {
        // Its messages went to the log file (kubeglass keeps no container files).
        answer.output.retain(|(stderr, _)| !stderr);
    }
    (answer, last)
}

/// One URL: writes what wget prints into `answer` and adds its time; false when wget dies on it.
fn one(args: &Args, url: &Url, shown: &str, f: &Fetched, answer: &mut NetAnswer) -> bool {
    let err = |answer: &mut NetAnswer, text: String| answer.output.push((true, text));
    let ip = f.address.map(|a| a.to_string()).unwrap_or_default();
    match &f.end {
        End::NoSuchHost | End::NoDnsServer => {
            let ms = if f.end == End::NoDnsServer { crate::dns::RESOLVER_TIMEOUT_MS } else { f.connect_ms };
            answer.after_ms += ms;
            err(answer, format!("wget: bad address '{shown}'\n"));
            return false;
        }
        _ => {}
    }
    if !args.quiet {
        err(answer, format!("Connecting to {shown} ({ip}:{})\n", url.port));
    }
    let timeout_ms = (args.timeout_s > 0).then(|| args.timeout_s.saturating_mul(1000));
    let body = match &f.end {
        End::NoSuchHost | End::NoDnsServer => return false,
        End::Refused => {
            answer.after_ms += f.connect_ms;
            err(answer, format!("wget: can't connect to remote host ({ip}): Connection refused\n"));
            return false;
        }
        End::Dropped => {
            let kernel = f.connect_ms + SYN_RETRIES_MS;
            match timeout_ms.filter(|t| *t < kernel) {
                Some(t) => {
                    answer.after_ms += t;
                    err(answer, "wget: download timed out\n".into());
                }
                None => {
                    answer.after_ms += kernel;
                    err(answer, format!("wget: can't connect to remote host ({ip}): Connection timed out\n"));
                }
            }
            return false;
        }
        End::Answered(reply) => {
            answer.after_ms += f.reply_ms;
            if url.https && args.check_certificate {
                err(answer, "wget: note: TLS certificate validation not implemented\n".into());
            }
            match reply {
                Reply::Http(_) if url.https => {
                    // A plain-HTTP server answers the TLS hello with an HTTP error, which is no TLS record.
                    err(answer, "wget: got bad TLS record (len:20527) while expecting handshake record\n".into());
                    err(answer, "wget: error getting response\n".into());
                    return false;
                }
                Reply::Http(body) => {
                    status_line(args, answer, "HTTP/1.1 200 OK");
                    body.clone()
                }
                Reply::NotHttp => {
                    err(answer, "wget: error getting response\n".into());
                    return false;
                }
                Reply::Tls { .. } if !url.https => {
                    status_line(args, answer, "HTTP/1.0 400 Bad Request");
                    err(answer, "wget: server returned error: HTTP/1.0 400 Bad Request\n".into());
                    return false;
                }
                Reply::Tls { status, body } => {
                    let line = format!("HTTP/1.1 {status}");
                    status_line(args, answer, &line);
                    if !status.starts_with('2') {
                        err(answer, format!("wget: server returned error: {line}\n"));
                        return false;
                    }
                    body.clone()
                }
            }
        }
    };
    if args.spider {
        if !args.quiet {
            err(answer, "remote file exists\n".into());
        }
        return true;
    }
    let to_stdout = args.output.as_deref() == Some("-");
    let name = match &args.output {
        Some(o) => o.clone(),
        None => {
            let last = url.path.split(['?', '#']).next().unwrap_or("").rsplit('/').next().unwrap_or("");
            if last.is_empty() {
                "index.html".to_string()
            } else {
                last.to_string()
            }
        }
    };
    if !args.quiet {
        let opening = if to_stdout { "writing to stdout\n".to_string() } else { format!("saving to '{name}'\n") };
        err(answer, opening);
    }
    if to_stdout {
        answer.output.push((false, body.clone()));
    }
    if !args.quiet {
        if !body.is_empty() {
            err(answer, progress_line(&name, body.len() as u64));
        }
        let closing = if to_stdout { "written to stdout\n".to_string() } else { format!("'{name}' saved\n") };
        err(answer, closing);
    }
    true
}

/// `-S`: the server's status line, indented (busybox prints its headers too; kubeglass has none).
fn status_line(args: &Args, answer: &mut NetAnswer, line: &str) {
    if args.server_response {
        answer.output.push((true, format!("  {line}\n")));
    }
}

/// The progress meter's last line for a finished download of `size` bytes to `name` (its last path part
/// shows), as busybox writes it when
/// stderr is no terminal (80 columns: a 32-character bar).
pub fn progress_line(name: &str, size: u64) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    let column: String = base.chars().take(20).collect();
    format!("{column:<20} 100% |{}| {}  0:00:00 ETA\n", "*".repeat(32), ulltoa5(size))
}

/// busybox's `smart_ulltoa5`: a size in five characters, with a k, M, G or T suffix when it needs one.
fn ulltoa5(mut n: u64) -> String {
    if n < 100_000 {
        return format!("{n:>5}");
    }
    let mut suffix = ' ';
    for s in ['k', 'M', 'G', 'T', 'P', 'E'] {
        n /= 1024;
        suffix = s;
        if n < 10_000 {
            break;
        }
    }
    format!("{n:>4}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn fetched(end: End) -> Fetched {
        Fetched {
            address: Some(Ipv4Addr::new(10, 96, 0, 5)),
            end,
            connect_ms: 2,
            reply_ms: 4,
            rules: Vec::new(),
            answered_by: None,
            destination: None,
        }
    }

    fn stderr(a: &NetAnswer) -> String {
        a.output.iter().filter(|(e, _)| *e).map(|(_, t)| t.as_str()).collect()
    }

    fn stdout(a: &NetAnswer) -> String {
        a.output.iter().filter(|(e, _)| !*e).map(|(_, t)| t.as_str()).collect()
    }

    #[test]
    fn quiet_to_stdout_writes_the_body_only() {
        let (a, _) = run(&["-qO-", "web"], |_, agent| {
            assert_eq!(agent, "Wget");
            fetched(End::Answered(Reply::Http("hello\n".into())))
        });
        assert_eq!((stdout(&a), stderr(&a), a.exit_code, a.after_ms), ("hello\n".into(), String::new(), 0, 4));
    }

    #[test]
    fn not_quiet_it_connects_writes_the_meter_and_says_where_it_went() {
        let (a, _) = run(&["-O", "-", "http://web:80/"], |_, _| fetched(End::Answered(Reply::Http("x".repeat(615)))));
        assert_eq!(
            stderr(&a),
            "Connecting to web:80 (10.96.0.5:80)\nwriting to stdout\n-                    100% |********************************|   615  0:00:00 ETA\nwritten to stdout\n"
        );
        let (a, _) = run(&["http://web/"], |_, _| fetched(End::Answered(Reply::Http("ok".into()))));
        assert!(stderr(&a).starts_with("Connecting to web (10.96.0.5:80)\nsaving to 'index.html'\nindex.html "));
        assert!(stderr(&a).ends_with("'index.html' saved\n"));
        assert_eq!(stdout(&a), "");
    }

    #[test]
    fn failures_are_wget_lines_even_when_quiet_and_exit_1() {
        let cases = [
            (End::NoSuchHost, "wget: bad address 'web'\n"),
            (End::Refused, "wget: can't connect to remote host (10.96.0.5): Connection refused\n"),
            (End::Dropped, "wget: can't connect to remote host (10.96.0.5): Connection timed out\n"),
            (End::Answered(Reply::NotHttp), "wget: error getting response\n"),
        ];
        for (end, line) in cases {
            let (a, _) = run(&["-q", "-O-", "web"], |_, _| fetched(end.clone()));
            assert_eq!((stderr(&a), a.exit_code), (line.to_string(), 1));
        }
        let (a, _) = run(&["-q", "-T", "5", "web"], |_, _| fetched(End::Dropped));
        assert_eq!((stderr(&a), a.after_ms), ("wget: download timed out\n".to_string(), 5_000));
        let forbidden = Reply::Tls { status: "403 Forbidden", body: "{}".into() };
        let (a, _) =
            run(&["-q", "--no-check-certificate", "https://x"], |_, _| fetched(End::Answered(forbidden.clone())));
        assert_eq!(stderr(&a), "wget: server returned error: HTTP/1.1 403 Forbidden\n");
    }

    #[test]
    fn bad_command_lines_print_the_usage_and_exit_1() {
        let (a, _) = run(&[], |_, _| unreachable!());
        assert_eq!((stderr(&a), a.exit_code), (USAGE.to_string(), 1));
        let (a, _) = run(&["-z", "web"], |_, _| unreachable!());
        assert!(stderr(&a).starts_with("wget: invalid option -- 'z'\nBusyBox v1.37.0"));
        let (a, _) = run(&["--nope", "web"], |_, _| unreachable!());
        assert!(stderr(&a).starts_with("wget: unrecognized option '--nope'\nBusyBox"));
        let (a, _) = run(&["-T", "x", "web"], |_, _| unreachable!());
        assert_eq!(stderr(&a), "wget: invalid number 'x'\n");
    }

    #[test]
    fn gnu_options_busybox_ignores_are_accepted() {
        let (a, _) = run(&["--no-verbose", "--tries=1", "--spider", "-nv", "-t", "2", "http://web/"], |_, _| {
            fetched(End::Answered(Reply::Http("ok".into())))
        });
        assert_eq!((stderr(&a), a.exit_code), ("Connecting to web (10.96.0.5:80)\nremote file exists\n".into(), 0));
        let (a, _) = run(&["-o", "/tmp/log", "-O-", "web"], |_, _| fetched(End::Refused));
        assert_eq!((stderr(&a), a.exit_code), (String::new(), 1));
    }

    #[test]
    fn sizes_take_five_characters() {
        assert_eq!(ulltoa5(615), "  615");
        assert_eq!(ulltoa5(99_999), "99999");
        assert_eq!(ulltoa5(150_000), " 146k");
    }
}
