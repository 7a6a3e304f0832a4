//! `ls [-laA1dhtr] [FILE]…` as GNU coreutils prints it: names in columns fitting a 120-column terminal
//! (one per line into a pipe), `-l` with mode, links, owner, size and time (`Sep  1 00:00`), symbolic links
//! as `name -> target`, `total` in 1K blocks, files before directories, a header per directory when more
//! than one is listed.

use super::files::{self, Meta};
use super::{Node, Outcome};
use crate::cluster::nodefs::{Kind, NodeFs};
use crate::sim::time::Civil;

/// The terminal's width (a wide terminal, as in seed 002's `ls /etc/kubernetes/manifests/`).
const WIDTH: usize = 120;

#[derive(Default)]
struct Opts {
    long: bool,
    all: bool,
    almost_all: bool,
    one: bool,
    dir_itself: bool,
    human: bool,
    by_time: bool,
    reverse: bool,
}

pub fn run(node: &mut dyn Node, args: &[String], tty: bool) -> Outcome {
    let mut o = Opts::default();
    let mut operands = Vec::new();
    for a in args {
        if a.starts_with('-') && a.len() > 1 && !a.starts_with("--") {
            for c in a[1..].chars() {
                match c {
                    'l' => o.long = true,
                    'a' => o.all = true,
                    'A' => o.almost_all = true,
                    '1' => o.one = true,
                    'd' => o.dir_itself = true,
                    'h' => o.human = true,
                    't' => o.by_time = true,
                    'r' => o.reverse = true,
                    'F' | 'G' | 'N' => {}
                    _ => {
                        return Outcome::fail(
                            format!("ls: invalid option -- '{c}'\nTry 'ls --help' for more information.\n"),
                            2,
                        )
                    }
                }
            }
        } else if a.starts_with("--") {
            match a.as_str() {
                "--all" => o.all = true,
                "--human-readable" => o.human = true,
                "--color" | "--color=auto" | "--color=never" | "--color=always" => {}
                _ => {
                    return Outcome::fail(
                        format!("ls: unrecognized option '{a}'\nTry 'ls --help' for more information.\n"),
                        2,
                    )
                }
            }
        } else {
            operands.push(a.clone());
        }
    }
    if operands.is_empty() {
        operands.push(".".into());
    }
    let mut out = Outcome::default();
    let mut plain: Vec<(String, Meta)> = Vec::new();
    let mut dirs: Vec<(String, String)> = Vec::new();
    for op in &operands {
        let abs = NodeFs::absolute(op);
        match files::stat(node, &abs) {
            None => {
                out.stderr.push_str(&format!("ls: cannot access '{op}': No such file or directory\n"));
                out.exit = 2;
            }
            Some(m) if m.kind == Kind::Dir && !o.dir_itself => dirs.push((op.clone(), abs)),
            Some(m) => plain.push((op.clone(), m)),
        }
    }
    plain.sort_by(|a, b| a.0.cmp(&b.0));
    dirs.sort();
    let mut blocks: Vec<String> = Vec::new();
    if !plain.is_empty() {
        blocks.push(render(&mut plain, &o, tty, false));
    }
    let headers = operands.len() > 1;
    for (shown, abs) in dirs {
        let mut entries = match files::list(node, &abs) {
            Ok(e) => e,
            Err(e) => {
                out.stderr.push_str(&format!("ls: cannot open directory '{shown}': {}\n", e.text()));
                out.exit = 2;
                continue;
            }
        };
        if o.all {
            for (name, path) in [(".", abs.clone()), ("..", NodeFs::parent(&abs))] {
                if let Some(m) = files::stat(node, &path) {
                    entries.insert(0, (name.to_string(), m));
                }
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
        } else if !o.almost_all {
            entries.retain(|(n, _)| !n.starts_with('.'));
        }
        let body = render(&mut entries, &o, tty, true);
        blocks.push(if headers { format!("{shown}:\n{body}") } else { body });
    }
    out.stdout = blocks.join("\n");
    out
}

fn render(entries: &mut [(String, Meta)], o: &Opts, tty: bool, total: bool) -> String {
    if o.by_time {
        entries.sort_by(|a, b| b.1.modified.cmp(&a.1.modified).then_with(|| a.0.cmp(&b.0)));
    }
    if o.reverse {
        entries.reverse();
    }
    if o.long {
        return long(entries, o, total);
    }
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    if names.is_empty() {
        return String::new();
    }
    if o.one || !tty {
        return names.iter().map(|n| format!("{n}\n")).collect();
    }
    columns(&names)
}

/// GNU ls's vertical columns: the most columns whose widths (name + 2, the last without) stay under 80.
fn columns(names: &[&str]) -> String {
    let n = names.len();
    let max_cols = n.clamp(1, WIDTH / 3);
    let mut chosen = (1, vec![0usize]);
    for cols in (1..=max_cols).rev() {
        let rows = n.div_ceil(cols);
        let mut widths = vec![3usize; cols];
        for (k, name) in names.iter().enumerate() {
            let idx = k / rows;
            let real = name.chars().count() + if idx + 1 == cols { 0 } else { 2 };
            widths[idx] = widths[idx].max(real);
        }
        if widths.iter().sum::<usize>() < WIDTH {
            chosen = (cols, widths);
            break;
        }
    }
    let (cols, widths) = chosen;
    let rows = n.div_ceil(cols);
    let mut out = String::new();
    for row in 0..rows {
        let mut line = String::new();
        for (col, width) in widths.iter().enumerate() {
            let Some(name) = names.get(col * rows + row) else { break };
            line.push_str(name);
            let next = names.get((col + 1) * rows + row).is_some() && col + 1 < cols;
            if next {
                line.push_str(&" ".repeat(width.saturating_sub(name.chars().count())));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn long(entries: &[(String, Meta)], o: &Opts, total: bool) -> String {
    let size_of = |m: &Meta| if o.human { human(m.size) } else { m.size.to_string() };
    let links = |m: &Meta| if m.kind == Kind::Dir { 2 } else { 1 };
    let size_w = entries.iter().map(|(_, m)| size_of(m).len()).max().unwrap_or(1);
    let link_w = entries.iter().map(|(_, m)| links(m).to_string().len()).max().unwrap_or(1);
    let mut out = String::new();
    if total {
        let kib: u64 = entries
            .iter()
            .filter(|(_, m)| m.target.is_none())
            .map(|(_, m)| if m.kind == Kind::Dir { 4 } else { m.size.div_ceil(4096) * 4 })
            .sum();
        out.push_str(&format!("total {}\n", if o.human { human(kib * 1024) } else { kib.to_string() }));
    }
    for (name, m) in entries {
        let c = Civil::of(m.modified);
        let when = format!("{} {:>2} {:02}:{:02}", c.month_abbr(), c.day, c.hour, c.minute);
        let link = m.target.as_ref().map(|t| format!(" -> {t}")).unwrap_or_default();
        out.push_str(&format!(
            "{} {:>link_w$} root root {:>size_w$} {when} {name}{link}\n",
            m.mode,
            links(m),
            size_of(m)
        ));
    }
    out
}

/// `ls -h`: powers of 1024, one decimal below 10, rounded up (`4.0K`, `12K`, `61M`).
fn human(size: u64) -> String {
    if size < 1024 {
        return size.to_string();
    }
    let units = ["K", "M", "G", "T"];
    let mut v = size as f64 / 1024.0;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if v < 10.0 {
        format!("{:.1}{}", (v * 10.0).ceil() / 10.0, units[i])
    } else {
        format!("{}{}", v.ceil() as u64, units[i])
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;
    use super::*;

    fn manifests() -> FakeNode {
        let mut node = FakeNode::new("controlplane");
        for f in ["etcd.yaml", "kube-apiserver.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml"] {
            node.write(&format!("/etc/kubernetes/manifests/{f}"), "kind: Pod\n");
        }
        node
    }

    #[test]
    fn a_terminal_gets_columns_and_a_pipe_one_name_per_line() {
        let mut node = manifests();
        assert_eq!(
            run_line(&mut node, "ls /etc/kubernetes/manifests/").stdout,
            "etcd.yaml  kube-apiserver.yaml  kube-controller-manager.yaml  kube-scheduler.yaml\n"
        );
        assert_eq!(run_line(&mut node, "ls /etc/kubernetes/manifests | grep sched").stdout, "kube-scheduler.yaml\n");
        let r = run_line(&mut node, "ls /nope");
        assert_eq!((r.stdout.as_str(), r.exit), ("ls: cannot access '/nope': No such file or directory\n", 2));
    }

    #[test]
    fn long_listings_show_mode_size_and_time() {
        let mut node = manifests();
        let r = run_line(&mut node, "ls -l /etc/kubernetes/manifests");
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines[0], "total 16");
        assert_eq!(lines[1], "-rw------- 1 root root 10 Sep  1 00:00 etcd.yaml");
        let r = run_line(&mut node, "ls -ld /etc/kubernetes/manifests");
        assert_eq!(r.stdout, "drwxr-xr-x 2 root root 4096 Sep  1 00:00 /etc/kubernetes/manifests\n");
    }

    #[test]
    fn many_names_wrap_into_columns_filled_top_to_bottom() {
        let names: Vec<String> = (0..12).map(|i| format!("file-number-{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let out = columns(&refs);
        let first = out.lines().next().unwrap_or("");
        assert!(first.starts_with("file-number-00  file-number-02"), "{out}");
        assert_eq!(out.lines().count(), 2);
        assert!(out.lines().all(|l| l.len() < WIDTH));
        assert_eq!(human(4096), "4.0K");
        assert_eq!(human(64_000_000), "62M");
    }
}
