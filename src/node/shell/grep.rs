//! `grep [-iEvcnwqF] PATTERN [FILE]…`: lines of the files (or standard input) that match, as GNU grep
//! prints them (`file:line` with several files), exit 0 when something matched, 1 when nothing did, 2 on
//! an error. Patterns are basic regular expressions unless `-E` (or `-F` for fixed strings).

use super::files;
use super::{Node, Outcome};
use crate::cluster::nodefs::NodeFs;

pub fn run(node: &mut dyn Node, args: &[String], stdin: Option<&str>) -> Outcome {
    let (mut ignore, mut extended, mut fixed, mut invert, mut count, mut number, mut word, mut quiet) =
        (false, false, false, false, false, false, false, false);
    let mut operands: Vec<&str> = Vec::new();
    let mut pattern: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-e" {
            i += 1;
            pattern = args.get(i).cloned();
        } else if a.starts_with('-') && a.len() > 1 {
            for c in a.trim_start_matches('-').chars() {
                match c {
                    'i' => ignore = true,
                    'E' => extended = true,
                    'F' => fixed = true,
                    'v' => invert = true,
                    'c' => count = true,
                    'n' => number = true,
                    'w' => word = true,
                    'q' => quiet = true,
                    'H' | 's' | 'r' => {}
                    _ => {
                        return Outcome::fail(
                            format!("grep: invalid option -- '{c}'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"),
                            2,
                        )
                    }
                }
            }
        } else {
            operands.push(a);
        }
        i += 1;
    }
    let pattern = match pattern {
        Some(p) => p,
        None if !operands.is_empty() => operands.remove(0).to_string(),
        None => {
            return Outcome::fail(
                "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n",
                2,
            )
        }
    };
    let mut source = if fixed {
        regex_lite::escape(&pattern)
    } else if extended {
        pattern.clone()
    } else {
        basic_to_extended(&pattern)
    };
    if word {
        source = format!(r"\b(?:{source})\b");
    }
    if ignore {
        source = format!("(?i){source}");
    }
    let re = match regex_lite::Regex::new(&source) {
        Ok(r) => r,
        Err(_) => return Outcome::fail("grep: Unmatched ( or \\(\n", 2),
    };
    let mut inputs: Vec<(Option<String>, Result<String, String>)> = Vec::new();
    if operands.is_empty() {
        inputs.push((None, Ok(stdin.unwrap_or("").to_string())));
    }
    for f in &operands {
        let text = if *f == "-" {
            Ok(stdin.unwrap_or("").to_string())
        } else {
            files::read(node, &NodeFs::absolute(f)).map_err(|e| format!("grep: {f}: {}\n", e.text()))
        };
        inputs.push((Some(f.to_string()), text));
    }
    let label = operands.len() > 1;
    let mut out = Outcome { exit: 1, ..Outcome::default() };
    let mut errors = false;
    for (name, text) in inputs {
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                out.stderr.push_str(&e);
                errors = true;
                continue;
            }
        };
        let prefix = if label { format!("{}:", name.unwrap_or_default()) } else { String::new() };
        let mut n = 0;
        for (line_no, line) in text.lines().enumerate() {
            if re.is_match(line) != invert {
                n += 1;
                if !count && !quiet {
                    let num = if number { format!("{}:", line_no + 1) } else { String::new() };
                    out.stdout.push_str(&format!("{prefix}{num}{line}\n"));
                }
            }
        }
        if count && !quiet {
            out.stdout.push_str(&format!("{prefix}{n}\n"));
        }
        if n > 0 {
            out.exit = 0;
        }
    }
    if errors && out.exit != 0 {
        out.exit = 2;
    }
    if quiet {
        out.stdout.clear();
    }
    out
}

/// A POSIX basic regular expression in the extended syntax: `+ ? | ( ) { }` are literal unless escaped.
fn basic_to_extended(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(x @ ('+' | '?' | '|' | '(' | ')' | '{' | '}')) => out.push(x),
                Some(x) => {
                    out.push('\\');
                    out.push(x);
                }
                None => out.push_str("\\\\"),
            },
            '+' | '?' | '|' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeNode;
    use super::super::run_line;
    use super::*;

    #[test]
    fn grep_filters_lines_and_exits_by_match() {
        let mut node = FakeNode::new("n");
        node.write(
            "/var/lib/kubelet/config.yaml",
            "kind: KubeletConfiguration\nstaticPodPath: /etc/kubernetes/manifests\n",
        );
        assert_eq!(
            run_line(&mut node, "grep staticPodPath /var/lib/kubelet/config.yaml").stdout,
            "staticPodPath: /etc/kubernetes/manifests\n"
        );
        assert_eq!(run_line(&mut node, "grep -c kind /var/lib/kubelet/config.yaml").stdout, "1\n");
        let r = run_line(&mut node, "grep nothing /var/lib/kubelet/config.yaml");
        assert_eq!((r.stdout.as_str(), r.exit), ("", 1));
        let r = run_line(&mut node, "grep x /nope");
        assert_eq!((r.stdout.as_str(), r.exit), ("grep: /nope: No such file or directory\n", 2));
        assert_eq!(run_line(&mut node, "echo 'a+b' | grep 'a+b'").stdout, "a+b\n");
        assert_eq!(run_line(&mut node, "echo 'aab' | grep -E 'a+b'").stdout, "aab\n");
        assert_eq!(run_line(&mut node, "echo KUBE | grep -i kube").exit, 0);
        assert_eq!(basic_to_extended(r"a\(b\)+"), r"a(b)\+");
    }
}
