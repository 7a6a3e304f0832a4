//! `curl` on a node (the version in [`super::os`]): its command line, its URL, and its error lines. Where the
//! connection goes is the cluster's business (`cluster::network` walks the node's rules); this module is
//! what curl itself prints. Options: `-s`/`--silent`, `-S`/`--show-error`, `-k`/`--insecure`,
//! `-L`/`--location` (nothing redirects here), `-m`/`--max-time SECONDS`, `--connect-timeout SECONDS`, and
//! combined short flags (`-sS`, `-sSk`). Errors: `curl: (N) message` on standard error unless `-s` without
//! `-S`; the exit code is N.

use super::net::{End, Fetched, NetAnswer, Reply, Url, SYN_RETRIES_MS};
use super::os;

/// A parsed command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub url: String,
    pub silent: bool,
    pub show_error: bool,
    pub insecure: bool,
    pub max_time_ms: Option<u64>,
    pub connect_timeout_ms: Option<u64>,
}

const TRY_HELP: &str = "curl: try 'curl --help' or 'curl --manual' for more information\n";

/// A command line curl refuses before doing anything: its output and exit code 2.
fn usage(message: &str) -> (String, i32) {
    (format!("curl: {message}\n{TRY_HELP}"), 2)
}

fn seconds(option: &str, value: Option<&&str>) -> Result<u64, (String, i32)> {
    let parsed = value.and_then(|v| v.parse::<f64>().ok()).filter(|s| s.is_finite() && *s >= 0.0);
    match parsed {
        Some(s) => Ok((s * 1000.0).min(u64::MAX as f64 / 2.0) as u64),
        None if value.is_none() => Err(usage(&format!("option {option}: requires parameter"))),
        None => Err(usage(&format!("option {option}: expected a proper numerical parameter"))),
    }
}

/// Reads curl's arguments (without the program name). A command line that ends before any connection (an
/// error, or `--version`) gives its output and exit code instead.
pub fn parse(words: &[&str]) -> Result<Args, (String, i32)> {
    let mut args = Args::default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if w.starts_with("--") => (f, Some(v)),
            _ => (w, None),
        };
        match flag {
            "-s" | "--silent" => args.silent = true,
            "-S" | "--show-error" => args.show_error = true,
            "-k" | "--insecure" => args.insecure = true,
            "-L" | "--location" => {}
            "-V" | "--version" => return Err((os::curl_version_text(), 0)),
            "-m" | "--max-time" | "--connect-timeout" => {
                let value = match inline {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        words.get(i).copied()
                    }
                };
                let ms = seconds(flag, value.as_ref())?;
                if flag == "--connect-timeout" {
                    args.connect_timeout_ms = Some(ms);
                } else {
                    args.max_time_ms = Some(ms);
                }
            }
            _ if flag.starts_with("--") => return Err(usage(&format!("option {flag}: is unknown"))),
            _ if flag.starts_with('-') && flag.len() > 1 => {
                for c in flag[1..].chars() {
                    match c {
                        's' => args.silent = true,
                        'S' => args.show_error = true,
                        'k' => args.insecure = true,
                        'L' => {}
                        _ => return Err(usage(&format!("option -{c}: is unknown"))),
                    }
                }
            }
            _ if args.url.is_empty() => args.url = w.to_string(),
            _ => {}
        }
        i += 1;
    }
    if args.url.is_empty() {
        return Err((format!("curl: no URL specified\n{TRY_HELP}"), 2));
    }
    Ok(args)
}

/// Reads a URL the way curl guesses one: no scheme means `http://`.
pub fn parse_url(url: &str) -> Result<Url, (i32, String)> {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_string(), url),
    };
    if scheme != "http" && scheme != "https" {
        return Err((1, format!("Protocol \"{scheme}\" not supported")));
    }
    let https = scheme == "https";
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) if rest[i..].starts_with('/') => (&rest[..i], rest[i..].to_string()),
        Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
        None => (rest, "/".to_string()),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => match p.parse::<u16>() {
            Ok(n) => (h, n),
            Err(_) if p.is_empty() => (h, if https { 443 } else { 80 }),
            Err(_) => return Err((3, "URL rejected: Port number was not a decimal number between 0 and 65535".into())),
        },
        None => (authority, if https { 443 } else { 80 }),
    };
    if host.is_empty() {
        return Err((3, "URL rejected: No host part in the URL".into()));
    }
    Ok(Url { https, host: host.to_ascii_lowercase(), port, path })
}

/// Runs curl with its arguments (without the program name); `fetch` is the network, asked once for the URL
/// with curl's User-Agent. Gives what curl printed and how long it ran, and what the network did, if asked.
pub fn run(words: &[&str], fetch: impl FnOnce(&Url, &str) -> Fetched) -> (NetAnswer, Option<Fetched>) {
    let args = match parse(words) {
        Ok(a) => a,
        Err((output, code)) => {
            return (NetAnswer { output: vec![(code != 0, output)], exit_code: code, after_ms: 0 }, None)
        }
    };
    let url = match parse_url(&args.url) {
        Ok(u) => u,
        Err((code, message)) => return (failure(&args, code, &message, 0), None),
    };
    let limit = match (args.connect_timeout_ms, args.max_time_ms) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let fetched = fetch(&url, &os::curl_user_agent());
    let failed =
        |ms: u64, why: &str| format!("Failed to connect to {} port {} after {ms} ms: {why}", url.host, url.port);
    let unresolved = format!("Could not resolve host: {}", url.host);
    let answer = match &fetched.end {
        End::NoSuchHost => failure(&args, 6, &unresolved, fetched.connect_ms),
        End::NoDnsServer => match args.max_time_ms.filter(|m| *m < crate::dns::RESOLVER_TIMEOUT_MS) {
            Some(max) => failure(&args, 28, &format!("Resolving timed out after {max} milliseconds"), max),
            None => failure(&args, 6, &unresolved, crate::dns::RESOLVER_TIMEOUT_MS),
        },
        End::Refused => {
            let ms = fetched.connect_ms;
            failure(&args, 7, &failed(ms, "Couldn't connect to server"), ms)
        }
        End::Dropped => {
            let (ms, why) = match limit {
                Some(l) => (l, "Timeout was reached"),
                None => (fetched.connect_ms + SYN_RETRIES_MS, "Couldn't connect to server"),
            };
            failure(&args, 28, &failed(ms, why), ms)
        }
        End::Answered(reply) => {
            let ms = fetched.reply_ms;
            let body = |text: &str| NetAnswer { output: vec![(false, text.to_string())], exit_code: 0, after_ms: ms };
            match reply {
                Reply::Http(_) if url.https => failure(&args, 35, WRONG_VERSION, ms),
                Reply::Http(text) => body(text),
                Reply::NotHttp => failure(&args, 52, "Empty reply from server", ms),
                Reply::Tls { .. } if !url.https => body("Client sent an HTTP request to an HTTPS server.\n"),
                Reply::Tls { .. } if !args.insecure => failure(&args, 60, CERT_PROBLEM, ms),
                Reply::Tls { body: text, .. } => body(text),
            }
        }
    };
    (answer, Some(fetched))
}

/// curl ending with libcurl error `code` after `ms`.
fn failure(args: &Args, code: i32, message: &str, ms: u64) -> NetAnswer {
    NetAnswer { output: vec![(true, error_line(args, code, message))], exit_code: code, after_ms: ms }
}

/// A libcurl error as curl prints it (`curl: (7) Failed to connect …`), or nothing under `-s` alone.
pub fn error_line(args: &Args, code: i32, message: &str) -> String {
    if args.silent && !args.show_error {
        String::new()
    } else {
        format!("curl: ({code}) {message}\n")
    }
}

/// The `(60)` text for a server certificate curl cannot verify.
pub const CERT_PROBLEM: &str = "SSL certificate problem: unable to get local issuer certificate
More details here: https://curl.se/docs/sslcerts.html

curl failed to verify the legitimacy of the server and therefore could not
establish a secure connection to it. To learn more about this situation and
how to fix it, please visit the web page mentioned above.";

/// The `(35)` text for TLS spoken to a plain-HTTP port.
pub const WRONG_VERSION: &str = "OpenSSL/3.0.13: error:0A00010B:SSL routines::wrong version number";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_combine_and_take_their_values() {
        let a = parse(&["-sS", "-m", "5", "--connect-timeout=1.5", "http://web"]).unwrap();
        assert!(a.silent && a.show_error);
        assert_eq!((a.max_time_ms, a.connect_timeout_ms), (Some(5_000), Some(1_500)));
        assert_eq!(a.url, "http://web");
        let (out, code) = parse(&["-X", "web"]).unwrap_err();
        assert_eq!(code, 2);
        assert_eq!(
            out,
            "curl: option -X: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n"
        );
        assert!(parse(&["-m", "soon", "web"]).unwrap_err().0.contains("expected a proper numerical parameter"));
        assert!(parse(&["-s"]).unwrap_err().0.starts_with("curl: no URL specified"));
    }

    #[test]
    fn urls_default_to_http_and_port_80() {
        let u = parse_url("web").unwrap();
        assert_eq!((u.https, u.host.as_str(), u.port, u.path.as_str()), (false, "web", 80, "/"));
        let u = parse_url("https://10.96.0.1/healthz").unwrap();
        assert_eq!((u.https, u.port, u.path.as_str()), (true, 443, "/healthz"));
        let u = parse_url("192.168.56.11:30080/x?y=1").unwrap();
        assert_eq!((u.port, u.path.as_str(), u.host_header()), (30080, "/x?y=1", "192.168.56.11:30080".into()));
        assert_eq!(parse_url("ftp://x").unwrap_err().0, 1);
        assert_eq!(parse_url("web:99999").unwrap_err().0, 3);
        assert_eq!(parse_url("http://").unwrap_err().0, 3);
    }

    #[test]
    fn silent_hides_errors_unless_show_error() {
        let mut a = parse(&["-s", "x"]).unwrap();
        assert_eq!(error_line(&a, 6, "Could not resolve host: x"), "");
        a.show_error = true;
        assert_eq!(error_line(&a, 6, "Could not resolve host: x"), "curl: (6) Could not resolve host: x\n");
    }
}
