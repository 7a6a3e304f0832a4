//! Tab completion for the kubectl prompt, as kubectl's shell completion offers it: verbs, resource types
//! (`pods`, `deploy/…`), object names of the type already given (in the `-n` namespace or the current
//! one), namespaces after `-n`, nodes after `cordon`/`drain`, pods after `logs`/`exec`, output formats after
//! `-o`, and each command's own subcommands and flags (from [`super::flags`]). Given a line and a cursor,
//! it says which word to replace and with what.

use crate::api::kinds::{lookup, ResourceInfo, RESOURCES};
use crate::api::Kind;

use super::flags;

/// The verbs offered, in the order kubectl's help lists them (roughly).
pub const VERBS: [&str; 32] = [
    "annotate",
    "api-resources",
    "api-versions",
    "apply",
    "auth",
    "autoscale",
    "cluster-info",
    "config",
    "cordon",
    "create",
    "delete",
    "describe",
    "drain",
    "edit",
    "events",
    "exec",
    "explain",
    "expose",
    "get",
    "label",
    "logs",
    "patch",
    "replace",
    "rollout",
    "run",
    "scale",
    "set",
    "taint",
    "top",
    "uncordon",
    "version",
    "wait",
];

/// Verbs whose first argument is a resource type.
const TYPED: [&str; 11] =
    ["get", "describe", "delete", "edit", "label", "annotate", "patch", "scale", "explain", "wait", "set"];
const OUTPUTS: [&str; 7] = ["json", "jsonpath=", "custom-columns=", "name", "wide", "yaml", "go-template="];

/// What to put where: replace the characters `start..end` of the line with one of `candidates`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// Char offsets of the word being completed.
    pub start: usize,
    pub end: usize,
    /// Sorted, without duplicates.
    pub candidates: Vec<String>,
}

impl Completion {
    /// The line after pressing Tab and where the cursor goes: a single candidate is put in whole (with a
    /// space after it unless it ends in `=` or `/`); several are extended to their common prefix.
    pub fn apply(&self, line: &str) -> (String, usize) {
        let chars: Vec<char> = line.chars().collect();
        let insert = match self.candidates.as_slice() {
            [] => return (line.to_string(), self.end),
            [one] if one.ends_with(['=', '/']) => one.clone(),
            [one] => format!("{one} "),
            many => common_prefix(many),
        };
        let before: String = chars[..self.start.min(chars.len())].iter().collect();
        let after: String = chars[self.end.min(chars.len())..].iter().collect();
        let cursor = before.chars().count() + insert.chars().count();
        (format!("{before}{insert}{after}"), cursor)
    }
}

fn common_prefix(words: &[String]) -> String {
    let first = &words[0];
    let mut len = first.len();
    for w in &words[1..] {
        len = first.bytes().zip(w.bytes()).take(len).take_while(|(a, b)| a == b).count();
    }
    while !first.is_char_boundary(len) {
        len -= 1;
    }
    first[..len].to_string()
}

/// What completion asks the cluster: the names of the stored objects of a resource (in a namespace, or all
/// when cluster-scoped).
pub trait Names {
    fn names(&self, kind: Kind, namespace: Option<&str>) -> Vec<String>;
}

/// The resource type names offered: every stored resource's plural name.
fn resource_names() -> impl Iterator<Item = &'static str> {
    RESOURCES.iter().filter(|r| r.stored).map(|r| r.resource)
}

/// Completions for `line` with the cursor at char `cursor`; `namespace` is the current context's.
pub fn complete(line: &str, cursor: usize, namespace: &str, names: &dyn Names) -> Completion {
    let head: String = line.chars().take(cursor).collect();
    let end = head.chars().count();
    let word_start = head.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let partial = &head[word_start..];
    let start = head[..word_start].chars().count();
    let words: Vec<&str> = head[..word_start].split_whitespace().collect();
    let offer = |candidates: Vec<String>| {
        let mut c: Vec<String> = candidates.into_iter().filter(|c| c.starts_with(partial)).collect();
        c.sort();
        c.dedup();
        Completion { start, end, candidates: c }
    };
    let Some(first) = words.first() else {
        return offer(vec!["kubectl".to_string()]);
    };
    if !matches!(*first, "kubectl" | "k") {
        return Completion { start, end, candidates: Vec::new() };
    }
    let args = &words[1..];
    // The namespace: `-n ns`, `-nns`, `--namespace ns`, `--namespace=ns`.
    let mut ns = namespace.to_string();
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if matches!(a, "-n" | "--namespace") {
            if let Some(v) = args.get(i + 1) {
                ns = v.to_string();
            }
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--namespace=") {
            ns = v.to_string();
        } else if matches!(a, "-o" | "--output" | "-l" | "--selector" | "-c" | "--container" | "--as" | "--token") {
            i += 2;
            continue;
        } else if !a.starts_with('-') {
            positional.push(a);
        }
        i += 1;
    }
    let previous = args.last().copied().unwrap_or("");
    if matches!(previous, "-n" | "--namespace") {
        return offer(names.names(Kind::Namespace, None));
    }
    if matches!(previous, "-o" | "--output") {
        return offer(OUTPUTS.iter().map(|s| s.to_string()).collect());
    }
    let owned: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (command, _) = flags::resolve(&owned);
    if partial.starts_with('-') {
        return offer(command.flag_words());
    }
    let Some(verb) = positional.first().copied() else {
        return offer(VERBS.iter().map(|s| s.to_string()).collect());
    };
    let objects = |info: &ResourceInfo| names.names(info.kind, info.namespaced.then_some(ns.as_str()));
    let rest = &positional[1..];
    match verb {
        "logs" | "exec" | "attach" | "port-forward" if rest.is_empty() => offer(objects(Kind::Pod.info())),
        "cordon" | "uncordon" | "drain" if rest.is_empty() => offer(objects(Kind::Node.info())),
        "taint" if rest.is_empty() => offer(vec!["nodes".into()]),
        "taint" if rest.len() == 1 => offer(objects(Kind::Node.info())),
        _ if rest.is_empty() && !command.subcommands().is_empty() => {
            offer(command.subcommands().into_iter().map(str::to_string).collect())
        }
        "rollout" if rest.len() == 1 => {
            offer(["daemonsets", "deployments", "statefulsets"].iter().map(|s| s.to_string()).collect())
        }
        "rollout" if rest.len() == 2 => typed_names(rest[1], &objects, &offer),
        v if TYPED.contains(&v) && rest.is_empty() => match partial.split_once('/') {
            Some((kind, _)) => match lookup(kind) {
                Some(info) => offer(objects(info).into_iter().map(|n| format!("{kind}/{n}")).collect()),
                None => offer(Vec::new()),
            },
            None => offer(resource_names().map(str::to_string).collect()),
        },
        v if TYPED.contains(&v) && !rest[0].contains('/') => typed_names(rest[0], &objects, &offer),
        _ => offer(Vec::new()),
    }
}

fn typed_names(
    kind: &str,
    objects: &dyn Fn(&ResourceInfo) -> Vec<String>,
    offer: &dyn Fn(Vec<String>) -> Completion,
) -> Completion {
    match lookup(kind) {
        Some(info) => offer(objects(info)),
        None => offer(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;

    impl Names for Fake {
        fn names(&self, kind: Kind, namespace: Option<&str>) -> Vec<String> {
            match (kind, namespace) {
                (Kind::Pod, Some("default")) => vec!["web-1".into(), "web-2".into(), "db".into()],
                (Kind::Pod, Some("kube-system")) => vec!["coredns-abc".into(), "etcd-controlplane".into()],
                (Kind::Node, None) => vec!["controlplane".into(), "node01".into(), "node02".into()],
                (Kind::Namespace, None) => vec!["default".into(), "kube-system".into()],
                (Kind::Deployment, Some("default")) => vec!["web".into()],
                _ => vec![],
            }
        }
    }

    fn at_end(line: &str) -> Completion {
        complete(line, line.chars().count(), "default", &Fake)
    }

    fn tab(line: &str) -> String {
        at_end(line).apply(line).0
    }

    #[test]
    fn verbs_complete_after_kubectl() {
        assert_eq!(tab("kub"), "kubectl ");
        assert_eq!(tab("kubectl ge"), "kubectl get ");
        assert_eq!(at_end("kubectl de").candidates, ["delete", "describe"]);
        assert_eq!(tab("kubectl de"), "kubectl de", "the common prefix is what is typed");
        assert_eq!(tab("kubectl des"), "kubectl describe ");
        assert!(at_end("kubectl ").candidates.len() > 20);
        assert!(at_end("ls ").candidates.is_empty(), "only kubectl lines complete");
    }

    #[test]
    fn resource_types_and_type_slash_name() {
        assert!(at_end("kubectl get po").candidates.contains(&"pods".to_string()));
        assert_eq!(tab("kubectl get nod"), "kubectl get nodes ");
        assert!(at_end("kubectl get de").candidates.contains(&"deployments".to_string()));
        assert_eq!(at_end("kubectl describe pod/web").candidates, ["pod/web-1", "pod/web-2"]);
        assert_eq!(tab("kubectl delete deploy/w"), "kubectl delete deploy/web ");
    }

    #[test]
    fn names_come_from_the_namespace_given_or_the_current_one() {
        assert_eq!(at_end("kubectl get pods w").candidates, ["web-1", "web-2"]);
        assert_eq!(tab("kubectl get pods d"), "kubectl get pods db ");
        assert_eq!(tab("kubectl -n kube-system get po c"), "kubectl -n kube-system get po coredns-abc ");
        assert_eq!(
            tab("kubectl get pods --namespace=kube-system e"),
            "kubectl get pods --namespace=kube-system etcd-controlplane "
        );
        assert_eq!(tab("kubectl logs d"), "kubectl logs db ");
        assert_eq!(tab("kubectl cordon node0"), "kubectl cordon node0");
        assert_eq!(at_end("kubectl cordon node0").candidates, ["node01", "node02"]);
        assert_eq!(tab("kubectl get nodes c"), "kubectl get nodes controlplane ");
        assert_eq!(tab("kubectl get pods -n kube"), "kubectl get pods -n kube-system ");
        assert_eq!(tab("kubectl rollout st"), "kubectl rollout status ");
        assert_eq!(tab("kubectl rollout status deployments w"), "kubectl rollout status deployments web ");
    }

    #[test]
    fn flags_and_output_formats() {
        assert_eq!(tab("kubectl get pods -o y"), "kubectl get pods -o yaml ");
        assert_eq!(tab("kubectl get pods --names"), "kubectl get pods --namespace=");
        assert!(at_end("kubectl get pods --w").candidates.contains(&"--watch".to_string()));
        // Each command offers its own flags and subcommands.
        assert_eq!(tab("kubectl logs web --prev"), "kubectl logs web --previous ");
        assert!(!at_end("kubectl get pods --prev").candidates.contains(&"--previous".to_string()));
        assert_eq!(tab("kubectl create deployment web --ima"), "kubectl create deployment web --image=");
        assert_eq!(tab("kubectl config use-c"), "kubectl config use-context ");
    }

    #[test]
    fn the_cursor_may_be_inside_the_line() {
        let line = "kubectl ge pods";
        let c = complete(line, 10, "default", &Fake);
        assert_eq!((c.start, c.end), (8, 10));
        assert_eq!(c.apply(line), ("kubectl get  pods".to_string(), 12));
    }
}
