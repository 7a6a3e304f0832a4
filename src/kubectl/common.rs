//! What the write verbs share: the `--dry-run` strategy, kubectl's usage errors, printing the object a
//! command made or changed (the name printer's `<kind>[.<group>]/<name> <operation>` line, or `-o
//! yaml|json|name`), and a column writer with the settings of kubectl's tabwriter.
//!
//! The YAML text of client-built objects goes through [`to_yaml`]; it follows go-yaml's quoting for the
//! scalars these commands produce (numbers, booleans and empty strings in double quotes). When the full
//! printers land, [`to_yaml`] and [`to_json`] are the two functions to point at them.

use serde_json::Value;

use super::{Context, Failure};
use crate::api::FieldValidation;

/// `--dry-run`: none (send it), client (print it, send nothing) or server (send with `dryRun=All`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    /// What the name printer appends: ` (dry run)` or ` (server dry run)`.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

/// The `--dry-run` flag as `cmdutil.GetDryRunStrategy` reads it (a bare `--dry-run` is the deprecated client form).
pub fn dry_run(ctx: &Context) -> Result<DryRun, Failure> {
    match ctx.args.get(&["dry-run"]).unwrap_or("none") {
        "none" | "false" => Ok(DryRun::None),
        "client" | "unchanged" | "true" => Ok(DryRun::Client),
        "server" => Ok(DryRun::Server),
        other => Err(Failure(format!(
            "error: Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
        ))),
    }
}

/// `--validate`: the `fieldValidation` directive kubectl sends with a write (Go's ParseBool values, or
/// strict, warn, ignore; strict when the flag is absent or bare).
pub fn field_validation(ctx: &Context) -> Result<FieldValidation, Failure> {
    match ctx.args.get(&["validate"]).unwrap_or("strict") {
        "1" | "t" | "T" | "TRUE" | "true" | "True" | "strict" => Ok(FieldValidation::Strict),
        "0" | "f" | "F" | "FALSE" | "false" | "False" | "ignore" => Ok(FieldValidation::Ignore),
        "warn" => Ok(FieldValidation::Warn),
        other => Err(error(format!(
            "invalid - validate option {other:?}; must be one of: strict (or true), warn, ignore (or false)"
        ))),
    }
}

/// kubectl's usage error: the message, then where to find help for the command.
pub fn usage(command_path: &str, message: &str) -> Failure {
    Failure(format!("error: {message}\nSee '{command_path} -h' for help and examples"))
}

/// A plain `error: …` line.
pub fn error(message: impl std::fmt::Display) -> Failure {
    Failure(format!("error: {message}"))
}

/// cobra's message when a flag marked required was not given.
pub fn required_flag(name: &str) -> Failure {
    Failure(format!("error: required flag(s) \"{name}\" not set"))
}

/// Output formats the write commands accept, in the order kubectl lists them.
const ALLOWED_FORMATS: &str =
    "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml";

/// Checks `-o` before anything is sent, as the printer is built in the commands' Complete step.
pub fn check_output(ctx: &Context) -> Result<(), Failure> {
    use super::printers::output::OutputFormat;
    match ctx.args.get(&["o", "output"]).unwrap_or("") {
        "" | "yaml" | "json" | "name" => Ok(()),
        other if other.starts_with("jsonpath") => match OutputFormat::parse(other) {
            Ok(OutputFormat::JsonPath(_) | OutputFormat::JsonPathAsJson(_)) => Ok(()),
            Ok(_) => Err(error(format!(
                "unable to match a printer suitable for the output format {other:?}, allowed formats are: {ALLOWED_FORMATS}"
            ))),
            Err(e) => Err(error(e)),
        },
        other => Err(error(format!(
            "unable to match a printer suitable for the output format {other:?}, allowed formats are: {ALLOWED_FORMATS}"
        ))),
    }
}

/// `deployment.apps/web` for an object's JSON (its `apiVersion`, `kind` and `metadata.name`).
pub fn name_of(value: &Value) -> String {
    let kind = value["kind"].as_str().unwrap_or("").to_ascii_lowercase();
    // The name printer says `<unknown>` for an object without a name (a review).
    let name = value["metadata"]["name"].as_str().filter(|n| !n.is_empty()).unwrap_or("<unknown>");
    match value["apiVersion"].as_str().and_then(|v| v.split_once('/')) {
        Some((group, _)) => format!("{kind}.{group}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

/// Prints what a command did to `value` the way its printer does: `-o yaml|json|name`, or the name line with
/// the operation (`created`, `labeled`, …) and the dry-run suffix.
pub fn print_object(ctx: &Context, value: &Value, operation: &str, dry: DryRun) -> Result<(), Failure> {
    match ctx.args.get(&["o", "output"]).unwrap_or("") {
        "" => ctx.println(&format!("{} {operation}{}", name_of(value), dry.suffix())),
        "name" => ctx.println(&name_of(value)),
        "yaml" => ctx.api.print(&to_yaml(value)),
        "json" => ctx.api.print(&to_json(value)),
        other => {
            check_output(ctx)?;
            use super::printers::output::{run_jsonpath, OutputFormat};
            let text = match OutputFormat::parse(other) {
                Ok(OutputFormat::JsonPath(t)) => run_jsonpath(&t, value, false),
                Ok(OutputFormat::JsonPathAsJson(t)) => run_jsonpath(&t, value, true),
                _ => Ok(String::new()),
            };
            ctx.api.print(&text.map_err(error)?);
        }
    }
    Ok(())
}

/// YAML as kubectl prints it (the printers' go-yaml writer).
pub use super::printers::yaml::to_yaml;

/// JSON as kubectl's JSON printer writes it: four-space indentation and a final newline.
pub fn to_json(value: &Value) -> String {
    let mut text = super::printers::jsonpath::go_json(value, Some("    "));
    text.push('\n');
    text
}

/// kubectl's tabwriter over rows of cells (widths remembered across flushes, so `get -w` rows stay aligned).
#[derive(Debug, Clone)]
pub struct TabWriter(super::printers::table::TabWriter);

impl Default for TabWriter {
    fn default() -> TabWriter {
        TabWriter(super::printers::table::TabWriter::kubectl())
    }
}

impl TabWriter {
    /// Lays out one flush worth of lines (each a list of cells).
    pub fn flush(&mut self, lines: &[Vec<String>]) -> String {
        let text: String = lines.iter().map(|l| l.join("\t") + "\n").collect();
        self.0.format(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_double_quotes_strings_that_look_like_other_types() {
        let v = serde_json::json!({"data": {"a": "1", "b": "two", "c": "", "d": "true", "e": "*/5 * * * *"}});
        assert_eq!(to_yaml(&v), "data:\n  a: \"1\"\n  b: two\n  c: \"\"\n  d: \"true\"\n  e: '*/5 * * * *'\n");
    }

    #[test]
    fn json_is_indented_by_four_spaces() {
        assert_eq!(to_json(&serde_json::json!({"a": {"b": 1}})), "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n");
    }

    #[test]
    fn names_carry_the_group_of_the_api_version() {
        let d = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
        assert_eq!(name_of(&d), "deployment.apps/web");
        let p = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}});
        assert_eq!(name_of(&p), "pod/x");
    }

    #[test]
    fn the_tabwriter_pads_all_but_the_last_cell_and_remembers_widths() {
        let mut w = TabWriter::default();
        let first = w.flush(&[
            vec!["CURRENT".into(), "NAME".into(), "NAMESPACE".into()],
            vec!["*".into(), "a".into(), "".into()],
        ]);
        assert_eq!(first, "CURRENT   NAME   NAMESPACE\n*         a      \n");
        assert_eq!(w.flush(&[vec!["x".into(), "y".into(), "z".into()]]), "x         y      z\n");
    }
}

/// The error when `TYPE/NAME` words are mixed with plain ones.
/// kubectl's message when a command that acts on resources names none (the resource builder's).
pub const NO_RESOURCES: &str = "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'";

pub const TYPE_AND_TYPE_NAME: &str = "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'";

/// The objects a command names (`TYPE NAME…`, `TYPE/NAME…`, or `TYPE` with `-l`/`--all`), fetched as
/// kubectl's resource builder fetches them: one GET per name, or one LIST. Objects that could not be fetched
/// become error lines, which kubectl prints after handling the rest.
pub struct Targets {
    pub objects: Vec<std::sync::Arc<crate::api::Object>>,
    pub errors: Vec<ErrLine>,
    /// Exactly one object was named (`IntoSingleItemImplied`).
    pub single: bool,
}

/// Splits the words after the verb into resources and `k=v` / `k-` pairs (`GetResourcesAndPairs`); `what`
/// names the pairs in the error for a resource after them (`label`, `image`).
pub fn resources_and_pairs(words: &[String], what: &str) -> Result<(Vec<String>, Vec<String>), Failure> {
    let mut resources = Vec::new();
    let mut pairs = Vec::new();
    for w in words {
        let is_pair = (w.contains('=') && !w.starts_with('=')) || (w.ends_with('-') && w != "-");
        match (pairs.is_empty(), is_pair) {
            (_, true) => pairs.push(w.clone()),
            (true, false) => resources.push(w.clone()),
            (false, false) => return Err(error(format!("all resources must be specified before {what} changes: {w}"))),
        }
    }
    Ok((resources, pairs))
}

/// Resolves `words` into objects; `missing` is the message when no resource is named at all.
pub async fn targets(ctx: &Context, words: &[String], missing: &str) -> Result<Targets, Failure> {
    use crate::api::{ApiResponse, Verb};
    let selector = ctx.args.get(&["l", "selector"]).filter(|s| !s.is_empty());
    let field_selector = ctx.args.get(&["field-selector"]).filter(|s| !s.is_empty());
    let all = ctx.args.has(&["all"]);
    let Some(first) = words.first() else {
        return Err(error(missing));
    };
    let ns = ctx.namespace();
    let mut pairs: Vec<(&'static crate::api::ResourceInfo, String)> = Vec::new();
    if first.contains('/') {
        for w in words {
            let Some((t, n)) = w.split_once('/') else {
                return Err(error(TYPE_AND_TYPE_NAME));
            };
            pairs.push((super::discovery::resolve(ctx, t).await?, n.to_string()));
        }
    } else {
        let info = super::discovery::resolve(ctx, first).await?;
        for n in &words[1..] {
            if n.contains('/') {
                return Err(error(TYPE_AND_TYPE_NAME));
            }
            pairs.push((info, n.clone()));
        }
        if pairs.is_empty() {
            if selector.is_none() && field_selector.is_none() && !all {
                return Err(error("resource(s) were provided, but no name was specified"));
            }
            let namespace = if ctx.all_namespaces() { None } else { Some(ns.as_str()) };
            let mut req = ctx.request(Verb::List, info).namespace(namespace);
            req.params.label_selector = selector.map(str::to_string);
            req.params.field_selector = field_selector.map(str::to_string);
            let objects = match list_call(ctx, info, req).await? {
                ApiResponse::List { items, .. } => items,
                _ => Vec::new(),
            };
            return Ok(Targets { objects, errors: Vec::new(), single: false });
        }
    }
    if selector.is_some() {
        return Err(error("name cannot be provided when a selector is specified"));
    }
    let single = pairs.len() == 1;
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for (info, name) in pairs {
        match ctx.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(&name)).await {
            Ok(ApiResponse::Object(o)) => objects.push(o),
            Ok(_) => {}
            Err(Failure(line)) => errors.push(ErrLine::Api(line)),
        }
    }
    Ok(Targets { objects, errors, single })
}

/// One error of a command that carries on past failures: an API or transport failure already rendered
/// (`Error from server (NotFound): …`), or a plain client-side message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrLine {
    Api(String),
    Plain(String),
}

impl ErrLine {
    /// The message without kubectl's framing.
    pub fn message(&self) -> &str {
        match self {
            ErrLine::Api(l) => match l.strip_prefix("Error from server") {
                Some(rest) => rest.split_once("): ").map_or(rest.trim_start_matches(": "), |(_, m)| m),
                None => l.strip_prefix("error: ").unwrap_or(l),
            },
            ErrLine::Plain(m) => m,
        }
    }
}

/// The command's failure from the errors it collected, as `cmdutil.CheckErr` prints an aggregate: one error
/// alone is a normal error line (`error: …` for plain messages); several are printed one per line, plain
/// messages then without the `error: ` prefix.
pub fn finish(errors: Vec<ErrLine>) -> Result<(), Failure> {
    match errors.as_slice() {
        [] => Ok(()),
        [ErrLine::Api(line)] => Err(Failure(line.clone())),
        [ErrLine::Plain(m)] if m.starts_with("error: ") => Err(Failure(m.clone())),
        [ErrLine::Plain(m)] => Err(error(m)),
        many => Err(Failure(
            many.iter()
                .map(|e| match e {
                    ErrLine::Api(l) | ErrLine::Plain(l) => l.as_str(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )),
    }
}

/// A list request whose BadRequest or NotFound answer kubectl's resource builder reworded: it names the
/// resource and, when there are any, the selectors (`Unable to find "/v1, Resource=pods" that match label
/// selector "…", field selector "…": <the server's message>`).
pub async fn list_call(
    ctx: &Context,
    info: &crate::api::ResourceInfo,
    req: crate::api::ApiRequest,
) -> Result<crate::api::ApiResponse, Failure> {
    use crate::api::ApiResponse;
    use crate::api::Reason;
    let (labels, fields) = (req.params.label_selector.clone(), req.params.field_selector.clone());
    match ctx.api.call(req).await? {
        ApiResponse::Error(mut s) if matches!(s.reason, Reason::BadRequest | Reason::NotFound) => {
            let gvr = format!("{}/{}, Resource={}", info.group, info.version, info.resource);
            let (ls, fs) = (labels.unwrap_or_default(), fields.unwrap_or_default());
            s.message = if ls.is_empty() && fs.is_empty() {
                format!("Unable to list {gvr:?}: {}", s.message)
            } else {
                format!("Unable to find {gvr:?} that match label selector {ls:?}, field selector {fs:?}: {}", s.message)
            };
            Err(Failure::from(s))
        }
        ApiResponse::Error(s) => Err(Failure::from(s)),
        other => Ok(other),
    }
}
