//! What a simulated container writes to stdout and stderr, and when: the lines containerd records for
//! `kubectl logs` (through the kubelet) and for `crictl logs`. No process runs; the output follows from the
//! image, the command and the pod's annotations, each line at a time after the container's start:
//! - images of the `nginx` repository without a command print the startup lines of the official image's
//!   entrypoint (`/docker-entrypoint.sh: …` on stdout) and nginx's `[notice]` lines (on stderr, stamped with
//!   the simulated wall clock), one worker process per CPU of a 2-CPU node;
//! - shell scripts (`sh -c`) print what their `echo` statements and `date` print, at the time the `sleep`s
//!   before them add up to; a `while true; do …; done` loop repeats its lines every pass;
//! - the pod annotation `kubeglass.dev/logs` adds its lines (split on newlines) at the start, for images
//!   whose real output kubeglass does not model.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use crate::sim::time::EPOCH_MS;
use crate::sim::SimTime;

/// The annotation whose lines every container of the pod prints when it starts.
pub const LOGS_ANNOTATION: &str = "kubeglass.dev/logs";

/// Which stream a line was written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// The stream's name in the CRI log format.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// One line a container wrote, as its log file holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub at: SimTime,
    pub stream: Stream,
    pub text: String,
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a planned line says; some texts depend on the moment they are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    Plain(String),
    /// nginx's error-log line: `2025/09/01 00:00:12 [notice] 1#1: <message>`.
    NginxNotice(String),
    /// What `date` prints at that moment.
    Date,
}

/// A line the process will write `after_ms` after its start (or after the start of a loop pass).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub after_ms: u64,
    pub stream: Stream,
    pub text: Text,
}

impl Planned {
    pub fn stdout(after_ms: u64, text: impl Into<String>) -> Planned {
        Planned { after_ms, stream: Stream::Stdout, text: Text::Plain(text.into()) }
    }
}

/// A loop that prints the same lines every `period_ms`, its first pass starting `from_ms` after the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeat {
    pub from_ms: u64,
    pub period_ms: u64,
    pub lines: Vec<Planned>,
}

/// Log lines kept per container (the kubelet rotates log files; older lines are gone).
pub const MAX_LINES: usize = 5_000;

/// Everything a process prints: lines once, then possibly a loop's lines forever. Shared: every container of
/// an image prints the same, and nothing is stored per line until someone reads the log.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    pub once: Arc<Vec<Planned>>,
    pub repeat: Option<Arc<Repeat>>,
}

impl Output {
    pub fn new(once: Vec<Planned>, repeat: Option<Repeat>) -> Output {
        Output { once: Arc::new(once), repeat: repeat.map(Arc::new) }
    }

    /// The loop, when it prints anything at all.
    fn looping(&self) -> Option<&Repeat> {
        self.repeat.as_deref().filter(|r| r.period_ms > 0 && !r.lines.is_empty())
    }

    /// The `index`-th line the process prints and its time after the start (None when it prints no more).
    pub fn line(&self, index: usize) -> Option<(u64, &Planned)> {
        if let Some(p) = self.once.get(index) {
            return Some((p.after_ms, p));
        }
        let r = self.looping()?;
        let k = index - self.once.len();
        let pass = (k / r.lines.len()) as u64;
        let p = &r.lines[k % r.lines.len()];
        let at = r.from_ms.saturating_add(pass.saturating_mul(r.period_ms)).saturating_add(p.after_ms);
        Some((at, p))
    }

    /// How many lines the process has printed `ms` after its start.
    pub fn count(&self, ms: u64) -> usize {
        let once = self.once.iter().filter(|p| p.after_ms <= ms).count();
        let Some(r) = self.looping().filter(|r| ms >= r.from_ms) else { return once };
        let into = ms - r.from_ms;
        let passes = (into / r.period_ms) as usize;
        let partial = r.lines.iter().filter(|p| p.after_ms <= into % r.period_ms).count();
        once + passes.saturating_mul(r.lines.len()).saturating_add(partial)
    }

    /// The log of a process started at `started`, as of `until`: its last [`MAX_LINES`] lines.
    pub fn written(&self, started: SimTime, until: SimTime) -> Vec<LogLine> {
        let n = self.count(until.since(started));
        (n.saturating_sub(MAX_LINES)..n)
            .filter_map(|i| self.line(i))
            .map(|(after, p)| render(p, started.plus_ms(after)))
            .collect()
    }

    /// What the process prints next, `offset_ms` after its start (the rest of a script that waited for the
    /// network): its lines after the ones so far, its loop instead of any.
    pub fn append_shifted(&mut self, next: Output, offset_ms: u64) {
        let shifted = next.once.iter().map(|p| Planned { after_ms: p.after_ms.saturating_add(offset_ms), ..p.clone() });
        let mut all: Vec<Planned> = self.once.iter().cloned().collect();
        all.extend(shifted);
        self.once = Arc::new(all);
        if let Some(r) = next.repeat {
            let mut r = (*r).clone();
            r.from_ms = r.from_ms.saturating_add(offset_ms);
            self.repeat = Some(Arc::new(r));
        }
    }

    /// Lines that come first, before any the command prints (the annotation's).
    pub fn prepend(&mut self, lines: Vec<Planned>) {
        let mut all = lines;
        all.extend(self.once.iter().cloned());
        self.once = Arc::new(all);
    }
}

/// The text of a planned line written at `at`.
pub fn render(p: &Planned, at: SimTime) -> LogLine {
    let text = match &p.text {
        Text::Plain(t) => t.clone(),
        Text::NginxNotice(m) => format!("{} [notice] 1#1: {m}", nginx_time(at)),
        Text::Date => date(at),
    };
    LogLine { at, stream: p.stream, text }
}

/// The image's own output when it runs without a command (None for images whose output is not modelled).
/// Built once per image and shared by its containers.
pub fn image_output(repository: &str, tag: &str) -> Option<Output> {
    static BUILT: OnceLock<Mutex<BTreeMap<String, Output>>> = OnceLock::new();
    let base = repository.rsplit('/').next().unwrap_or(repository);
    if base != "nginx" {
        return None;
    }
    let built = BUILT.get_or_init(|| Mutex::new(BTreeMap::new()));
    let mut built = built.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    Some(built.entry(tag.to_string()).or_insert_with(|| nginx(tag)).clone())
}

/// The lines of the annotation `kubeglass.dev/logs`, printed at the start.
pub fn annotation_lines(value: &str) -> Vec<Planned> {
    value.lines().map(|l| Planned::stdout(0, l)).collect()
}

/// The nginx version a tag stands for (the newest patch release of that line in September 2025).
fn nginx_version(tag: &str) -> String {
    let plain = tag.split('-').next().unwrap_or(tag);
    match plain {
        "" | "latest" | "mainline" | "1" | "1.29" => "1.29.1".into(),
        "stable" | "1.28" => "1.28.0".into(),
        "1.27" => "1.27.5".into(),
        "1.26" => "1.26.3".into(),
        "1.25" => "1.25.5".into(),
        "1.24" => "1.24.0".into(),
        v if v.split('.').count() == 3 && v.split('.').all(|p| p.parse::<u32>().is_ok()) => v.to_string(),
        _ => "1.29.1".into(),
    }
}

/// The official nginx image's entrypoint and nginx's startup, on a node with 2 CPUs.
fn nginx(tag: &str) -> Output {
    let alpine = tag.contains("alpine");
    let compiler =
        if alpine { "built by gcc 14.2.0 (Alpine 14.2.0)" } else { "built by gcc 12.2.0 (Debian 12.2.0-14+deb12u1) " };
    let entry = [
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
        "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
        "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
        "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
        "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
        "/docker-entrypoint.sh: Configuration complete; ready for start up",
    ];
    let mut once: Vec<Planned> = entry.iter().enumerate().map(|(i, l)| Planned::stdout(i as u64 * 3, *l)).collect();
    let notices = [
        "using the \"epoll\" event method".to_string(),
        format!("nginx/{}", nginx_version(tag)),
        compiler.to_string(),
        format!("OS: Linux {}", super::os::KERNEL_RELEASE),
        "getrlimit(RLIMIT_NOFILE): 1048576:1048576".to_string(),
        "start worker processes".to_string(),
        "start worker process 29".to_string(),
        "start worker process 30".to_string(),
    ];
    once.extend(notices.into_iter().map(|m| Planned {
        after_ms: 30,
        stream: Stream::Stderr,
        text: Text::NginxNotice(m),
    }));
    Output::new(once, None)
}

/// `2025/09/01 00:00:12`: nginx's log time.
fn nginx_time(at: SimTime) -> String {
    let s = at.rfc3339();
    format!("{} {}", s[..10].replace('-', "/"), &s[11..19])
}

/// `Mon Sep  1 00:05:12 UTC 2025`: what `date` prints (coreutils and busybox alike) in a container on UTC.
pub fn date(at: SimTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let s = at.rfc3339();
    let day_index = ((EPOCH_MS + at.ms()) / 86_400_000 % 7) as usize;
    let month = s[5..7].parse::<usize>().unwrap_or(1).clamp(1, 12);
    let day = s[8..10].parse::<u32>().unwrap_or(1);
    format!("{} {} {day:>2} {} UTC {}", DAYS[day_index], MONTHS[month - 1], &s[11..19], &s[..4])
}

/// RFC 3339 with nanoseconds and trailing zeros dropped, as Go's `time.RFC3339Nano` writes (`--timestamps`).
pub fn rfc3339_nano(at: SimTime) -> String {
    let s = at.rfc3339();
    match at.ms() % 1000 {
        0 => s,
        ms => {
            let frac = format!("{ms:03}");
            format!("{}.{}Z", s.trim_end_matches('Z'), frac.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_prints_the_weekday_and_a_space_padded_day() {
        assert_eq!(date(SimTime::ZERO), "Mon Sep  1 00:00:00 UTC 2025");
        assert_eq!(date(SimTime::ZERO.plus_ms(9 * 86_400_000 + 3_723_000)), "Wed Sep 10 01:02:03 UTC 2025");
    }

    #[test]
    fn go_nano_timestamps_drop_trailing_zeros() {
        assert_eq!(rfc3339_nano(SimTime::ZERO.plus_ms(12_000)), "2025-09-01T00:00:12Z");
        assert_eq!(rfc3339_nano(SimTime::ZERO.plus_ms(12_500)), "2025-09-01T00:00:12.5Z");
        assert_eq!(rfc3339_nano(SimTime::ZERO.plus_ms(12_034)), "2025-09-01T00:00:12.034Z");
    }

    #[test]
    fn nginx_prints_its_entrypoint_then_its_notices_with_the_version_of_the_tag() {
        let out = image_output("docker.io/library/nginx", "1.27").unwrap_or_default();
        let at = SimTime::ZERO.plus_ms(5_000);
        let lines: Vec<LogLine> = out.once.iter().map(|p| render(p, at)).collect();
        assert!(lines[0].text.starts_with("/docker-entrypoint.sh: "));
        assert!(lines.iter().any(|l| l.text == "2025/09/01 00:00:05 [notice] 1#1: nginx/1.27.5"));
        assert_eq!(lines.iter().filter(|l| l.text.contains("start worker process ")).count(), 2);
        assert!(lines.iter().filter(|l| l.text.contains("[notice]")).all(|l| l.stream == Stream::Stderr));
        assert!(image_output("docker.io/library/redis", "7").is_none());
    }

    #[test]
    fn a_loop_repeats_its_lines_every_pass() {
        let out = Output::new(
            vec![Planned::stdout(0, "start")],
            Some(Repeat { from_ms: 100, period_ms: 5_000, lines: vec![Planned::stdout(0, "tick")] }),
        );
        assert_eq!(out.line(0).map(|(t, _)| t), Some(0));
        assert_eq!(out.line(1).map(|(t, _)| t), Some(100));
        assert_eq!(out.line(3).map(|(t, _)| t), Some(10_100));
        assert!(Output::default().line(0).is_none());
        assert_eq!(
            (out.count(0), out.count(99), out.count(100), out.count(10_099), out.count(10_100)),
            (1, 1, 2, 3, 4)
        );
        // A loop that ran for a week keeps only the last lines.
        let week = out.written(SimTime::ZERO, SimTime::ZERO.plus_ms(7 * 86_400_000));
        assert_eq!(week.len(), MAX_LINES);
        assert!(week.iter().all(|l| l.text == "tick"));
    }
}
