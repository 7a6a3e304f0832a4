//! kubectl's command line: shell-style word splitting (quotes, escapes) and the parsed words and flags.

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

/// A parsed command line: positional words and flags (last value wins; repeated `-l`-style flags keep all).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    pub positional: Vec<String>,
    pub flags: BTreeMap<String, Vec<String>>,
    /// How many positional words came before `--` (cobra's `ArgsLenAtDash`), when there was one.
    pub dash: Option<usize>,
}

impl Args {
    /// Reads a command line (without the leading `kubectl`) against the flags of the command it runs
    /// ([`super::flags`]); errors are kubectl's lines.
    pub fn parse(words: &[String]) -> Result<Args, String> {
        super::flags::parse(words)
    }

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
    fn words_after_a_double_dash_are_kept_apart_from_the_operands() {
        let a = Args::parse(&split_words("create job pi --image=perl -- perl -wle 'print 1'").unwrap()).unwrap();
        assert_eq!(a.operands(2), ["pi"]);
        assert_eq!(a.after_dash(), ["perl", "-wle", "print 1"]);
        let b = Args::parse(&split_words("run x --image=busybox").unwrap()).unwrap();
        assert!(b.after_dash().is_empty());
        assert_eq!(b.operands(1), ["x"]);
    }

    #[test]
    fn a_bare_dry_run_means_unchanged_and_slices_split_on_commas() {
        let a = Args::parse(&split_words("create role x --dry-run --verb=get,list --verb watch").unwrap()).unwrap();
        assert_eq!(a.get(&["dry-run"]), Some("unchanged"));
        assert_eq!(a.positional, ["create", "role", "x"]);
        assert_eq!(a.list(&["verb"]), ["get", "list", "watch"]);
    }
}
