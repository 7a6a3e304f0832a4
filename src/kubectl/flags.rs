//! Which flags each kubectl command accepts, and how cobra and pflag read a command line against them.
//!
//! The table ([`super::flag_table`]) is generated from a real kubectl's `--help` by
//! `scripts/kubectl-flags.py`: each command path (aliases such as `create ns` included), the flags it
//! defines, and the flags every command inherits (`kubectl options`). Reading follows pflag: `--name=value`,
//! `--name value`, `-n value`, `-nvalue`, `-n=value`, clusters of one-letter booleans (`-it`), booleans
//! that take a value only with `=`, and cobra's errors, word for word, for an unknown flag, a missing value
//! or a boolean that is not one.

use super::args::Args;
use super::flag_table::{COMMANDS, FLAGS, GLOBAL, TOP_LEVEL};

/// One flag of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    pub name: &'static str,
    pub short: Option<char>,
    pub boolean: bool,
}

impl Flag {
    fn from_index(i: u16) -> Option<Flag> {
        let (name, short, boolean) = *FLAGS.get(usize::from(i))?;
        Some(Flag { name, short: (short != ' ').then_some(short), boolean })
    }

    /// How cobra names the flag in errors: `-w, --watch` or `--show-labels`.
    fn display(&self) -> String {
        match self.short {
            Some(c) => format!("-{c}, --{}", self.name),
            None => format!("--{}", self.name),
        }
    }
}

/// Flags whose value may be left out, and the value they then take (pflag's `NoOptDefVal`).
const OPTIONAL_VALUES: &[(&str, &str)] = &[("dry-run", "unchanged"), ("validate", "strict"), ("cascade", "background")];

/// A command: its own name (`create namespace` for `create ns`; empty for kubectl itself) and its flags.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    pub name: &'static str,
    own: &'static [u16],
}

impl Command {
    /// kubectl itself, before any command word: only the flags every command has.
    pub fn root() -> Command {
        Command { name: "", own: &[] }
    }

    /// The command at `path` as typed (`create ns`, `rollout status`), if kubectl has it.
    pub fn find(path: &str) -> Option<Command> {
        if let Ok(i) = COMMANDS.binary_search_by(|(p, _, _)| (*p).cmp(path)) {
            let (_, name, own) = COMMANDS[i];
            return Some(Command { name, own });
        }
        // A subcommand under an alias (`create svc clusterip`): the alias's own command's subcommand.
        let (parent, last) = path.rsplit_once(' ')?;
        let canonical = Command::find(parent)?.name;
        (canonical != parent).then(|| Command::find(&format!("{canonical} {last}"))).flatten()
    }

    fn flags(&self) -> impl Iterator<Item = Flag> + '_ {
        self.own.iter().chain(GLOBAL).filter_map(|&i| Flag::from_index(i))
    }

    pub fn long(&self, name: &str) -> Option<Flag> {
        self.flags().find(|f| f.name == name)
    }

    pub fn short(&self, c: char) -> Option<Flag> {
        self.flags().find(|f| f.short == Some(c))
    }

    /// What completion offers for a flag word: `--watch` for booleans, `--namespace=` for the others,
    /// and the one-letter forms.
    pub fn flag_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        for f in self.flags() {
            words.push(if f.boolean { format!("--{}", f.name) } else { format!("--{}=", f.name) });
            if let Some(c) = f.short {
                words.push(format!("-{c}"));
            }
        }
        words
    }

    /// The subcommands of this command, by their own names (aliases left out), as completion offers them.
    pub fn subcommands(&self) -> Vec<&'static str> {
        if self.name.is_empty() {
            return Vec::new();
        }
        let prefix = format!("{} ", self.name);
        COMMANDS
            .iter()
            .filter(|(path, name, _)| path == name)
            .filter_map(|(path, _, _)| path.strip_prefix(prefix.as_str()))
            .filter(|rest| !rest.contains(' '))
            .collect()
    }

    /// cobra's pointer to the help of this command, the second line of every flag error.
    fn see_help(&self) -> String {
        if self.name == "diff" {
            // diff's own flag error function makes it a usage error (`UsageErrorf`).
            return "See 'kubectl diff -h' for help and examples".to_string();
        }
        if self.name.is_empty() {
            "See 'kubectl --help' for usage.".to_string()
        } else {
            format!("See 'kubectl {} --help' for usage.", self.name)
        }
    }

    fn error(&self, message: &str) -> String {
        format!("error: {message}\n{}", self.see_help())
    }
}

/// pflag's boolean values (Go's `strconv.ParseBool`).
fn parse_bool(value: &str) -> Option<bool> {
    match value {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

fn is_short_cluster(word: &str) -> bool {
    word.len() > 1
        && word.starts_with('-')
        && !word.starts_with("--")
        && !word[1..].starts_with(|c: char| c.is_ascii_digit())
}

/// Finds the command a line runs: the longest run of leading positional words that names one (flags
/// between them are skipped, reading a flag's value only when the command so far knows it takes one).
pub fn resolve(words: &[String]) -> (Command, String) {
    let mut command = Command::root();
    let mut path = String::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "--" {
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let takes_value = !long.contains('=') && command.long(long).is_some_and(|f| !f.boolean);
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        if is_short_cluster(w) {
            let mut chars = w[1..].chars();
            let takes_value =
                chars.next().and_then(|c| command.short(c)).is_some_and(|f| !f.boolean) && chars.as_str().is_empty();
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        let candidate = if path.is_empty() { w.clone() } else { format!("{path} {w}") };
        match Command::find(&candidate) {
            Some(c) => {
                command = c;
                path = candidate;
            }
            None => break,
        }
        i += 1;
    }
    (command, path)
}

/// Edit distance between two words, ignoring case (cobra's `ld` with `ignoreCase`).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// What kubectl answers for a first word that is not one of its commands: cobra's error with the commands
/// within two edits of it or starting with it; for a real kubectl command kubeglass does not simulate, says so.
pub fn unknown_command(word: &str) -> String {
    if TOP_LEVEL.contains(&word) {
        return format!("error: kubeglass does not simulate \"kubectl {word}\" yet");
    }
    let close: Vec<&str> = TOP_LEVEL
        .iter()
        .copied()
        .filter(|c| distance(word, c) <= 2 || (!word.is_empty() && c.starts_with(&word.to_lowercase())))
        .collect();
    let mut message = format!("error: unknown command \"{word}\" for \"kubectl\"");
    if !close.is_empty() {
        message.push_str("\n\nDid you mean this?");
        for c in close {
            message.push_str("\n\t");
            message.push_str(c);
        }
    }
    message
}

/// What a command made only of subcommands answers when none is named (kubectl prints the command's help,
/// which kubeglass does not carry) or an unknown one is.
pub fn missing_subcommand(command: &str, word: &str) -> super::Failure {
    if word.is_empty() {
        return super::Failure(format!(
            "kubectl {command} needs a subcommand: {}",
            Command::find(command).map(|c| c.subcommands().join(", ")).unwrap_or_default()
        ));
    }
    super::Failure(format!("error: unknown command \"{word}\"\nSee 'kubectl {command} -h' for help and examples"))
}

/// What kubeglass says for `-h`/`--help`: it does not carry kubectl's help pages.
fn help_line(command: &Command) -> String {
    let name = if command.name.is_empty() { "kubectl".to_string() } else { format!("kubectl {}", command.name) };
    format!(
        "error: {name}: kubeglass does not include kubectl's help pages; the command and its flags work as in kubectl v1.34"
    )
}

/// Reads a command line (without the leading `kubectl`) against the flags of the command it runs.
/// Errors are kubectl's two lines (the message and where to find help).
pub fn parse(words: &[String]) -> Result<Args, String> {
    let (command, _) = resolve(words);
    let mut args = Args::default();
    let mut seen_positional = false;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "--" {
            args.dash = Some(args.positional.len());
            args.positional.extend(words[i + 1..].iter().cloned());
            break;
        }
        let unknown = |message: String| {
            if seen_positional {
                command.error(&message)
            } else {
                format!("Error: flags cannot be placed before plugin name: {w}")
            }
        };
        if let Some(long) = w.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if name == "help" {
                return Err(help_line(&command));
            }
            let flag = command.long(name).ok_or_else(|| unknown(format!("unknown flag: --{name}")))?;
            let value = match inline {
                Some(v) if flag.boolean => bool_value(&command, &flag, v)?,
                Some(v) => v.to_string(),
                None if flag.boolean => "true".to_string(),
                None => match OPTIONAL_VALUES.iter().find(|(n, _)| *n == name) {
                    Some((_, default)) => default.to_string(),
                    None => {
                        i += 1;
                        let v =
                            words.get(i).ok_or_else(|| command.error(&format!("flag needs an argument: --{name}")))?;
                        v.clone()
                    }
                },
            };
            args.flags.entry(name.to_string()).or_default().push(value);
        } else if is_short_cluster(w) {
            let letters = &w[1..];
            for (at, c) in letters.char_indices() {
                if c == 'h' && command.short('h').is_none() {
                    return Err(help_line(&command));
                }
                let flag = command.short(c).ok_or_else(|| unknown(format!("unknown shorthand flag: '{c}' in {w}")))?;
                let rest = &letters[at + c.len_utf8()..];
                let key = c.to_string();
                if let Some(v) = rest.strip_prefix('=') {
                    let v = if flag.boolean { bool_value(&command, &flag, v)? } else { v.to_string() };
                    args.flags.entry(key).or_default().push(v);
                    break;
                }
                if flag.boolean {
                    args.flags.entry(key).or_default().push("true".into());
                    continue;
                }
                if !rest.is_empty() {
                    args.flags.entry(key).or_default().push(rest.to_string());
                    break;
                }
                i += 1;
                let v = words.get(i).ok_or_else(|| command.error(&format!("flag needs an argument: '{c}' in {w}")))?;
                args.flags.entry(key).or_default().push(v.clone());
                break;
            }
        } else {
            seen_positional = true;
            args.positional.push(w.clone());
        }
        i += 1;
    }
    Ok(args)
}

fn bool_value(command: &Command, flag: &Flag, value: &str) -> Result<String, String> {
    match parse_bool(value) {
        Some(b) => Ok(b.to_string()),
        None => Err(command.error(&format!(
            "invalid argument \"{value}\" for \"{}\" flag: strconv.ParseBool: parsing \"{value}\": invalid syntax",
            flag.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubectl::args::split_words;

    fn parse_line(line: &str) -> Result<Args, String> {
        parse(&split_words(line).unwrap())
    }

    #[test]
    fn the_table_is_sorted_for_lookup_and_every_index_is_a_flag() {
        assert!(COMMANDS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(Command::find("create svc clusterip").map(|c| c.name), Some("create service clusterip"));
        assert!(Command::find("create svc nope").is_none());
        assert!(COMMANDS.iter().flat_map(|(_, _, f)| f.iter()).chain(GLOBAL).all(|&i| usize::from(i) < FLAGS.len()));
        assert_eq!(Command::find("create ns").map(|c| c.name), Some("create namespace"));
        assert!(Command::find("get pods").is_none());
        let rollout = Command::find("rollout").unwrap().subcommands();
        assert_eq!(rollout, ["history", "pause", "restart", "resume", "status", "undo"]);
        assert!(Command::find("create").unwrap().subcommands().contains(&"deployment"));
        assert!(!Command::find("create").unwrap().subcommands().contains(&"deploy"));
        assert!(Command::find("get").unwrap().flag_words().contains(&"--watch".to_string()));
        assert!(Command::find("get").unwrap().flag_words().contains(&"--namespace=".to_string()));
    }

    #[test]
    fn commands_resolve_through_subcommands_aliases_and_flags_between_them() {
        let (c, path) = resolve(&split_words("-n dev create ns x --dry-run=client -o yaml").unwrap());
        assert_eq!((c.name, path.as_str()), ("create namespace", "create ns"));
        let (c, _) = resolve(&split_words("create --image=nginx deployment web").unwrap());
        assert_eq!(c.name, "create deployment");
        let (c, _) = resolve(&split_words("get pods web").unwrap());
        assert_eq!(c.name, "get");
    }

    #[test]
    fn flags_read_as_pflag_reads_them() {
        let a =
            parse_line("get pods -n kube-system -o=wide -lapp=web --field-selector status.phase=Running -A").unwrap();
        assert_eq!(a.positional, ["get", "pods"]);
        assert_eq!(a.get(&["n", "namespace"]), Some("kube-system"));
        assert_eq!(a.get(&["o", "output"]), Some("wide"));
        assert_eq!(a.get(&["l", "selector"]), Some("app=web"));
        assert!(a.has(&["A", "all-namespaces"]));
        // `-f` is a boolean for logs and a file for apply; `-it` sets both letters.
        let logs = parse_line("logs -f web -c app --tail 3").unwrap();
        assert_eq!((logs.has(&["f"]), logs.get(&["c"]), logs.positional.len()), (true, Some("app"), 2));
        assert_eq!(parse_line("apply -f web.yaml").unwrap().get(&["f"]), Some("web.yaml"));
        let exec = parse_line("exec -it web -- sh").unwrap();
        assert!(exec.has(&["i"]) && exec.has(&["t"]));
        assert_eq!(exec.after_dash(), ["sh"]);
        // Booleans take a value only after `=`; `--dry-run` alone means "unchanged".
        assert!(!parse_line("get pods -w=false").unwrap().has(&["w"]));
        assert_eq!(parse_line("get pods --show-labels=0").unwrap().get(&["show-labels"]), Some("false"));
        assert_eq!(parse_line("create ns x --dry-run").unwrap().get(&["dry-run"]), Some("unchanged"));
        assert_eq!(parse_line("get pod web -o yaml --show-managed-fields").unwrap().get(&["o"]), Some("yaml"));
    }

    #[test]
    fn bad_flags_fail_with_cobras_two_lines() {
        assert_eq!(
            parse_line("get pods --foo").unwrap_err(),
            "error: unknown flag: --foo\nSee 'kubectl get --help' for usage."
        );
        assert_eq!(
            parse_line("create ns x --foo").unwrap_err(),
            "error: unknown flag: --foo\nSee 'kubectl create namespace --help' for usage."
        );
        assert_eq!(
            parse_line("logs -fZ x").unwrap_err(),
            "error: unknown shorthand flag: 'Z' in -fZ\nSee 'kubectl logs --help' for usage."
        );
        assert_eq!(
            parse_line("get pods -n").unwrap_err(),
            "error: flag needs an argument: 'n' in -n\nSee 'kubectl get --help' for usage."
        );
        assert_eq!(
            parse_line("get pods --namespace").unwrap_err(),
            "error: flag needs an argument: --namespace\nSee 'kubectl get --help' for usage."
        );
        assert_eq!(
            parse_line("get pods -w=maybe").unwrap_err(),
            "error: invalid argument \"maybe\" for \"-w, --watch\" flag: strconv.ParseBool: parsing \"maybe\": \
             invalid syntax\nSee 'kubectl get --help' for usage."
        );
        assert_eq!(parse_line("-Z get pods").unwrap_err(), "Error: flags cannot be placed before plugin name: -Z");
        assert!(parse_line("get pods --help").unwrap_err().contains("kubectl get: kubeglass does not include"));
    }

    #[test]
    fn unknown_commands_get_cobras_suggestions() {
        assert_eq!(
            unknown_command("gte"),
            "error: unknown command \"gte\" for \"kubectl\"\n\nDid you mean this?\n\tget"
        );
        assert_eq!(
            unknown_command("foo"),
            "error: unknown command \"foo\" for \"kubectl\"\n\nDid you mean this?\n\ttop"
        );
        assert_eq!(unknown_command("zzzzzz"), "error: unknown command \"zzzzzz\" for \"kubectl\"");
        assert!(unknown_command("rol").ends_with("Did you mean this?\n\trun\n\trollout\n\ttop"));
        assert!(unknown_command("Get").ends_with("Did you mean this?\n\tset\n\tget"));
        assert_eq!(unknown_command("port-forward"), "error: kubeglass does not simulate \"kubectl port-forward\" yet");
    }
}
