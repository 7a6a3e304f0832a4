//! `head`, `tail` and `wc` over standard input or files: enough to cut a long listing down
//! (`journalctl -u kubelet | tail -n 5`, `crictl ps -a | wc -l`).

use super::Outcome;

/// `head [-n N] [-N]` or `tail [-n N] [-N]` (standard input; 10 lines by default).
pub fn head(args: &[String], stdin: Option<&str>, program: &str) -> Outcome {
    let mut n: usize = 10;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let v = if a == "-n" {
            i += 1;
            args.get(i).map(String::as_str)
        } else if let Some(v) = a.strip_prefix("-n").or_else(|| a.strip_prefix('-')) {
            Some(v)
        } else {
            return Outcome::fail(format!("{program}: reading files is not simulated; pipe into {program}\n"), 1);
        };
        match v.and_then(|v| v.trim_start_matches('+').parse().ok()) {
            Some(x) => n = x,
            None => return Outcome::fail(format!("{program}: invalid number of lines: '{}'\n", v.unwrap_or("")), 1),
        }
        i += 1;
    }
    let lines: Vec<&str> = stdin.unwrap_or("").lines().collect();
    let picked: &[&str] =
        if program == "head" { &lines[..n.min(lines.len())] } else { &lines[lines.len().saturating_sub(n)..] };
    Outcome::ok(picked.iter().map(|l| format!("{l}\n")).collect::<String>())
}

/// `wc [-l|-w|-c]` of standard input.
pub fn wc(args: &[String], stdin: Option<&str>) -> Outcome {
    let text = stdin.unwrap_or("");
    let (l, w, c) = (text.lines().count(), text.split_whitespace().count(), text.len());
    let out = match args.first().map(String::as_str) {
        Some("-l") => l.to_string(),
        Some("-w") => w.to_string(),
        Some("-c") => c.to_string(),
        None => format!("{l:>7} {w:>7} {c:>7}"),
        Some(other) => return Outcome::fail(format!("wc: invalid option -- '{}'\n", other.trim_start_matches('-')), 1),
    };
    Outcome::ok(format!("{out}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_tail_and_wc_count_lines() {
        let input = "a\nb\nc\n";
        let args = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(head(&args(&["-n", "2"]), Some(input), "head").stdout, "a\nb\n");
        assert_eq!(head(&args(&["-1"]), Some(input), "tail").stdout, "c\n");
        assert_eq!(wc(&args(&["-l"]), Some(input)).stdout, "3\n");
        assert_eq!(wc(&[], Some(input)).stdout, "      3       3       6\n");
        assert_eq!(head(&args(&["-n", "x"]), Some(input), "head").exit, 1);
    }
}
