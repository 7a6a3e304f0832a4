//! kubectl's command line: shell-style word splitting (quotes, escapes) and the flags every verb shares.

use std::collections::BTreeMap;

/// Splits a command line like a POSIX shell would (single and double quotes, backslash escapes).
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unexpected EOF while looking for matching `''".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err("unexpected EOF while looking for matching `\"'".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("unexpected EOF while looking for matching `\"'".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Flags that take no value.
const BOOL_FLAGS: &[&str] = &[
    "A",
    "all-namespaces",
    "show-labels",
    "no-headers",
    "w",
    "watch",
    "force",
    "overwrite",
    "all",
    "ignore-daemonsets",
    "delete-emptydir-data",
    "recursive",
    "list",
    "wait",
    "quiet",
    "now",
    "watch-only",
    "short",
    "current",
    "command",
    "global-default",
    "q",
    "minify",
    "flatten",
    "local",
    "i",
    "stdin",
    "t",
    "tty",
    "rm",
    "expose",
    "save-config",
    "ignore-not-found",
    "show-kind",
    "show-managed-fields",
    "show-events",
    "server-side",
    "force-conflicts",
    "output-watch-events",
    "allow-missing-template-keys",
    "containers",
    "sum",
];

/// Flags that may be given without a value, and the value they then take (pflag's `NoOptDefVal`).
const OPTIONAL_VALUE_FLAGS: &[(&str, &str)] = &[("dry-run", "unchanged")];

/// A parsed command line: positional words and flags (last value wins; repeated `-l`-style flags keep all).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    pub positional: Vec<String>,
    pub flags: BTreeMap<String, Vec<String>>,
    /// How many positional words came before `--` (cobra's `ArgsLenAtDash`), when there was one.
    pub dash: Option<usize>,
}

/// The verb of a command line: its first word that is neither a flag nor the value of one.
pub fn verb_of(words: &[String]) -> Option<&str> {
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "--" {
            return None;
        }
        if let Some(flag) = w.strip_prefix('-') {
            let name = flag.trim_start_matches('-');
            let takes_value = !name.contains('=')
                && !BOOL_FLAGS.contains(&name)
                && !OPTIONAL_VALUE_FLAGS.iter().any(|(n, _)| *n == name)
                && (flag.starts_with('-') || name.len() == 1);
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        return Some(w);
    }
    None
}

impl Args {
    pub fn parse(words: &[String]) -> Result<Args, String> {
        Args::parse_with(words, &[])
    }

    /// Parses with `bools` as flags that take no value besides the common ones (a verb's own, such as
    /// `logs -f` and `-p`); a cluster of one-letter boolean flags (`-it`) sets each of them.
    pub fn parse_with(words: &[String], bools: &[&str]) -> Result<Args, String> {
        let is_bool = |n: &str| BOOL_FLAGS.contains(&n) || bools.contains(&n);
        let mut args = Args::default();
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            if w == "--" {
                args.dash = Some(args.positional.len());
                args.positional.extend(words[i + 1..].iter().cloned());
                break;
            }
            let name_value = if let Some(long) = w.strip_prefix("--") {
                Some(match long.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (long.to_string(), None),
                })
            } else if let Some(short) =
                w.strip_prefix('-').filter(|s| !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()))
            {
                let (n, rest) = short.split_at(1);
                if is_bool(n) && !rest.is_empty() && rest.chars().all(|c| is_bool(&c.to_string())) {
                    for c in short.chars() {
                        args.flags.entry(c.to_string()).or_default().push("true".into());
                    }
                    i += 1;
                    continue;
                }
                let v = rest.strip_prefix('=').unwrap_or(rest);
                Some((n.to_string(), (!v.is_empty()).then(|| v.to_string())))
            } else {
                None
            };
            match name_value {
                None => args.positional.push(w.clone()),
                Some((name, Some(v))) => args.flags.entry(name).or_default().push(v),
                Some((name, None)) if is_bool(&name) => args.flags.entry(name).or_default().push("true".into()),
                Some((name, None)) if OPTIONAL_VALUE_FLAGS.iter().any(|(n, _)| *n == name) => {
                    let default = OPTIONAL_VALUE_FLAGS.iter().find(|(n, _)| *n == name).map_or("", |(_, d)| *d);
                    args.flags.entry(name).or_default().push(default.to_string())
                }
                Some((name, None)) => {
                    i += 1;
                    let v = words.get(i).ok_or_else(|| format!("flag needs an argument: --{name}"))?;
                    args.flags.entry(name).or_default().push(v.clone());
                }
            }
            i += 1;
        }
        Ok(args)
    }

    /// The last value of a flag given by any of its names.
    pub fn get(&self, names: &[&str]) -> Option<&str> {
        names.iter().filter_map(|n| self.flags.get(*n).and_then(|v| v.last())).next().map(String::as_str)
    }

    pub fn has(&self, names: &[&str]) -> bool {
        self.get(names).is_some_and(|v| v != "false")
    }

    pub fn all(&self, names: &[&str]) -> Vec<String> {
        names.iter().flat_map(|n| self.flags.get(*n).cloned().unwrap_or_default()).collect()
    }

    /// Every value of a pflag string-slice flag: repeated flags and comma-separated values alike.
    pub fn list(&self, names: &[&str]) -> Vec<String> {
        self.all(names).iter().flat_map(|v| v.split(',')).filter(|v| !v.is_empty()).map(str::to_string).collect()
    }

    /// The positional words after the verb path (e.g. after `create deployment`), before any `--`.
    pub fn operands(&self, skip: usize) -> &[String] {
        let end = self.dash.unwrap_or(self.positional.len()).min(self.positional.len());
        self.positional.get(skip..end).unwrap_or(&[])
    }

    /// The words after `--`.
    pub fn after_dash(&self) -> &[String] {
        match self.dash {
            Some(d) => self.positional.get(d..).unwrap_or(&[]),
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"get pods -o jsonpath='{.items[*].metadata.name}'"#).unwrap()[3],
            "jsonpath={.items[*].metadata.name}"
        );
        assert_eq!(split_words(r#"label pod x "a=b c""#).unwrap(), vec!["label", "pod", "x", "a=b c"]);
        assert!(split_words("get 'pods").is_err());
    }

    #[test]
    fn flags_take_values_in_every_spelling() {
        let w =
            split_words("get pods -n kube-system -o=wide -lapp=web --field-selector status.phase=Running -A").unwrap();
        let a = Args::parse(&w).unwrap();
        assert_eq!(a.positional, vec!["get", "pods"]);
        assert_eq!(a.get(&["n", "namespace"]), Some("kube-system"));
        assert_eq!(a.get(&["o", "output"]), Some("wide"));
        assert_eq!(a.get(&["l", "selector"]), Some("app=web"));
        assert_eq!(a.get(&["field-selector"]), Some("status.phase=Running"));
        assert!(a.has(&["A", "all-namespaces"]));
        assert!(Args::parse(&split_words("get pods -n").unwrap()).is_err());
        let b = Args::parse(&split_words("get pod web -o yaml --show-managed-fields").unwrap()).unwrap();
        assert!(b.has(&["show-managed-fields"]));
        assert_eq!(b.get(&["o", "output"]), Some("yaml"));
        let c = Args::parse(&split_words("apply --server-side -f web.yaml").unwrap()).unwrap();
        assert_eq!((c.has(&["server-side"]), c.get(&["f"])), (true, Some("web.yaml")));
    }

    #[test]
    fn words_after_a_double_dash_are_kept_apart_from_the_operands() {
        let a = Args::parse(&split_words("create job pi --image=perl -- perl -wle 'print 1'").unwrap()).unwrap();
        assert_eq!(a.operands(2), ["pi"]);
        assert_eq!(a.after_dash(), ["perl", "-wle", "print 1"]);
        let b = Args::parse(&split_words("run x --image=busybox").unwrap()).unwrap();
        assert!(b.after_dash().is_empty());
        assert_eq!(b.operands(1), ["x"]);
    }

    #[test]
    fn a_verbs_own_boolean_flags_take_no_value_and_clusters_set_each() {
        let w = split_words("-n dev logs -f web -c app --tail 3").unwrap();
        assert_eq!(verb_of(&w), Some("logs"));
        let a = Args::parse_with(&w, &["f"]).unwrap();
        assert_eq!(a.positional, ["logs", "web"]);
        assert!(a.has(&["f"]));
        assert_eq!(a.get(&["c"]), Some("app"));
        let b = Args::parse(&split_words("exec -it web -- sh").unwrap()).unwrap();
        assert!(b.has(&["i"]) && b.has(&["t"]));
        assert_eq!(b.after_dash(), ["sh"]);
        assert_eq!(verb_of(&split_words("--as=jane -A get pods").unwrap()), Some("get"));
    }

    #[test]
    fn a_bare_dry_run_means_unchanged_and_slices_split_on_commas() {
        let a = Args::parse(&split_words("create ns x --dry-run --verb=get,list --verb watch").unwrap()).unwrap();
        assert_eq!(a.get(&["dry-run"]), Some("unchanged"));
        assert_eq!(a.positional, ["create", "ns", "x"]);
        assert_eq!(a.list(&["verb"]), ["get", "list", "watch"]);
    }
}
