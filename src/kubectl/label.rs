//! `kubectl label` and `kubectl annotate`: `TYPE NAME… | TYPE/NAME… | TYPE -l SEL | TYPE --all` followed by
//! `key=value` and `key-` changes, `--overwrite` to change an existing value, `--list` to print instead. Each
//! object is read, changed on the client (refusing to overwrite without `--overwrite` with kubectl's
//! messages), and sent back as a JSON merge patch of `metadata.labels` / `metadata.annotations`; the result
//! line is `pod/x labeled` (`unlabeled`, `not labeled`) or `pod/x annotated`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::api::{ApiResponse, Object, PatchBody, Verb};
use crate::apiserver::validation::names;

use super::common::{self, DryRun, ErrLine};
use super::{Context, Failure};

/// Which of the two maps a command edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Labels,
    Annotations,
}

impl Field {
    fn key(self) -> &'static str {
        match self {
            Field::Labels => "labels",
            Field::Annotations => "annotations",
        }
    }

    fn singular(self) -> &'static str {
        match self {
            Field::Labels => "label",
            Field::Annotations => "annotation",
        }
    }

    fn of(self, obj: &Object) -> BTreeMap<String, String> {
        let meta = obj.meta();
        match self {
            Field::Labels => meta.labels.clone(),
            Field::Annotations => meta.annotations.clone(),
        }
        .unwrap_or_default()
    }
}

pub async fn label(ctx: &Context) -> Result<(), Failure> {
    edit(ctx, Field::Labels).await
}

pub async fn annotate(ctx: &Context) -> Result<(), Failure> {
    edit(ctx, Field::Annotations).await
}

/// `label`'s own parser: `k=v` (exactly one `=`, a valid label value) or `k-`.
fn parse_label_pairs(pairs: &[String]) -> Result<(BTreeMap<String, String>, Vec<String>), Failure> {
    let mut new = BTreeMap::new();
    let mut remove = Vec::new();
    for spec in pairs {
        if spec.contains('=') {
            let parts: Vec<&str> = spec.split('=').collect();
            if parts.len() != 2 {
                return Err(common::error(format!("invalid label spec: {spec}")));
            }
            let errs = names::is_valid_label_value(parts[1]);
            if !errs.is_empty() {
                return Err(common::error(format!("invalid label value: {spec:?}: {}", errs.join(";"))));
            }
            new.insert(parts[0].to_string(), parts[1].to_string());
        } else if let Some(k) = spec.strip_suffix('-') {
            remove.push(k.to_string());
        } else {
            return Err(common::error(format!("unknown label spec: {spec}")));
        }
    }
    if remove.iter().any(|r| new.contains_key(r)) {
        return Err(common::error("can not both modify and remove a label in the same command"));
    }
    Ok((new, remove))
}

/// `annotate`'s parser (`cmdutil.ParsePairs`): `k=v` splits at the first `=`.
fn parse_annotation_pairs(pairs: &[String]) -> Result<(BTreeMap<String, String>, Vec<String>), Failure> {
    let mut new = BTreeMap::new();
    let mut remove = Vec::new();
    let mut invalid = Vec::new();
    for spec in pairs {
        if spec.contains('=') && !spec.starts_with('=') {
            let (k, v) = spec.split_once('=').unwrap_or((spec, ""));
            new.insert(k.to_string(), v.to_string());
        } else if spec.ends_with('-') && spec != "-" {
            remove.push(spec[..spec.len() - 1].to_string());
        } else {
            invalid.push(spec.clone());
        }
    }
    if !invalid.is_empty() {
        return Err(common::error(format!("invalid annotation format: {}", invalid.join(", "))));
    }
    let both: Vec<&String> = remove.iter().filter(|r| new.contains_key(*r)).collect();
    if !both.is_empty() {
        let list: Vec<&str> = both.iter().map(|s| s.as_str()).collect();
        return Err(common::error(format!(
            "can not both modify and remove the following annotation(s) in the same command: {}",
            list.join(", ")
        )));
    }
    Ok((new, remove))
}

async fn edit(ctx: &Context, field: Field) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    let (resources, pairs) = common::resources_and_pairs(ctx.args.operands(1), field.singular())?;
    let (new, remove) = match field {
        Field::Labels => parse_label_pairs(&pairs)?,
        Field::Annotations => parse_annotation_pairs(&pairs)?,
    };
    let list = ctx.args.has(&["list"]);
    let output = ctx.args.get(&["o", "output"]).unwrap_or("");
    if list && !output.is_empty() {
        return Err(common::error("--list and --output may not be specified together"));
    }
    common::check_output(ctx)?;
    let all = ctx.args.has(&["all"]);
    if all && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --selector at the same time"));
    }
    if all && ctx.args.get(&["field-selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --field-selector at the same time"));
    }
    if resources.is_empty() {
        return Err(common::error("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
    }
    if new.is_empty() && remove.is_empty() && !list {
        return Err(common::error(format!("at least one {} update is required", field.singular())));
    }
    let overwrite = ctx.args.has(&["overwrite"]);
    let targets = common::targets(ctx, &resources, "").await?;
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let old = field.of(obj);
        if list {
            if !targets.single {
                let info = obj.info();
                ctx.println(&format!(
                    "Listing {} for {}.{}/{}:",
                    field.key(),
                    info.kind.name(),
                    info.group,
                    obj.name()
                ));
            }
            let indent = if targets.single { "" } else { " " };
            for (k, v) in &old {
                ctx.println(&format!("{indent}{k}={v}"));
            }
            continue;
        }
        if !overwrite {
            let conflicts = conflicts(field, &old, &new);
            if !conflicts.is_empty() {
                errors.extend(conflicts.into_iter().map(ErrLine::Plain));
                continue;
            }
        }
        if dry == DryRun::None && field == Field::Labels {
            for r in remove.iter().filter(|r| !old.contains_key(*r)) {
                ctx.println(&format!("label {r:?} not found."));
            }
        }
        let mut updated = old.clone();
        updated.extend(new.clone());
        for r in &remove {
            updated.remove(r);
        }
        let operation = match field {
            Field::Annotations => "annotated",
            Field::Labels if obj.meta().labels.is_none() => "labeled",
            Field::Labels if updated == old => "not labeled",
            Field::Labels if !overwrite && encoded_len(&updated) < encoded_len(&old) => "unlabeled",
            Field::Labels => "labeled",
        };
        let mut shown = obj.to_json();
        shown["metadata"][field.key()] = json!(updated);
        if dry == DryRun::Client || updated == old {
            common::print_object(ctx, &shown, operation, dry)?;
            continue;
        }
        let mut patch = Map::new();
        for (k, v) in &updated {
            if old.get(k) != Some(v) {
                patch.insert(k.clone(), json!(v));
            }
        }
        for k in old.keys().filter(|k| !updated.contains_key(*k)) {
            patch.insert(k.clone(), Value::Null);
        }
        let mut req = ctx.request(Verb::Patch, obj.info()).namespace(obj.namespace()).name(obj.name());
        req.patch = Some(PatchBody::Merge(json!({"metadata": {field.key(): patch}})));
        req.params.dry_run = dry == DryRun::Server;
        match ctx.api.call(req).await? {
            ApiResponse::Object(o) => {
                let printed = if ctx.args.get(&["o", "output"]).is_some() { o.to_json() } else { shown };
                common::print_object(ctx, &printed, operation, dry)?
            }
            ApiResponse::Error(s) => errors.push(ErrLine::Api(s.kubectl_line())),
            _ => {}
        }
    }
    errors.extend(targets.errors);
    common::finish(errors)
}

/// The keys whose value would change without `--overwrite`, in kubectl's words (sorted by key).
fn conflicts(field: Field, old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> Vec<String> {
    let clashing: Vec<(&String, &String)> = new
        .iter()
        .filter(|(k, v)| old.get(*k).is_some_and(|cur| cur != *v))
        .filter(|(k, _)| field == Field::Labels || k.as_str() != "kubernetes.io/change-cause")
        .map(|(k, _)| (k, &old[k]))
        .collect();
    match field {
        Field::Labels => clashing
            .into_iter()
            .map(|(k, cur)| format!("'{k}' already has a value ({cur}), and --overwrite is false"))
            .collect(),
        Field::Annotations if clashing.is_empty() => Vec::new(),
        Field::Annotations => {
            let list: Vec<String> =
                clashing.iter().map(|(k, cur)| format!("'{k}' already has a value ({cur})")).collect();
            vec![format!("--overwrite is false but found the following declared annotation(s): {}", list.join("; "))]
        }
    }
}

/// How many bytes a map adds to the object's JSON (what kubectl compares to say `unlabeled`).
fn encoded_len(map: &BTreeMap<String, String>) -> usize {
    serde_json::to_string(map).map(|s| s.len()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_must_follow_the_resources() {
        let words: Vec<String> = ["pod", "x", "a=b", "c-"].iter().map(|s| s.to_string()).collect();
        let (r, p) = common::resources_and_pairs(&words, "label").unwrap_or_default();
        assert_eq!((r, p), (vec!["pod".to_string(), "x".into()], vec!["a=b".to_string(), "c-".into()]));
        let bad: Vec<String> = ["pod", "a=b", "x"].iter().map(|s| s.to_string()).collect();
        assert!(common::resources_and_pairs(&bad, "label").is_err());
    }

    #[test]
    fn label_specs_take_exactly_one_equals_sign() {
        assert!(parse_label_pairs(&["a=b=c".to_string()]).is_err());
        assert!(parse_label_pairs(&["a=b".to_string(), "a-".to_string()]).is_err());
        let (new, remove) = parse_label_pairs(&["a=b".to_string(), "c-".to_string()]).unwrap_or_default();
        assert_eq!(new.get("a").map(String::as_str), Some("b"));
        assert_eq!(remove, vec!["c".to_string()]);
        let (ann, _) = parse_annotation_pairs(&["note=a=b".to_string()]).unwrap_or_default();
        assert_eq!(ann.get("note").map(String::as_str), Some("a=b"));
    }
}
