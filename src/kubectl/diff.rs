//! `kubectl diff -f FILE`: for each object of the manifests, the live object (a GET; none when it does not
//! exist) and the object as it would be once applied (the apply patch sent with `dryRun=All`, or a dry-run
//! create for a new object; the live object itself when the patch is empty), both without managedFields
//! and a Secret's `data` values masked (`***`, `*** (before)` / `*** (after)` where they differ), written
//! as YAML to the files `LIVE-…/<group.>version.Kind.namespace.name` and `MERGED-…/…` and compared as
//! `diff -u -N` compares the two directories. Exit status 0 when nothing would change, 1 when something
//! would, 2 on an error (kubectl's `CheckDiffErr`). Counterpart: kubectl's `pkg/cmd/diff`.

use serde_json::{json, Value};
use similar::TextDiff;

use crate::api::{ApiResponse, Kind, PatchBody, Verb};
use crate::sim::time::{civil_from_days, EPOCH_MS};

use super::apply::{self, LAST_APPLIED};
use super::{common, Context, Failure};

/// What GNU diff prints of a line-by-line comparison: three lines of context.
const CONTEXT: usize = 3;

/// Runs the command and returns its exit status.
pub async fn diff(ctx: &Context) -> i32 {
    match compare(ctx).await {
        Ok(text) if text.is_empty() => 0,
        Ok(text) => {
            ctx.api.print(&text);
            1
        }
        Err(Failure(line)) => {
            ctx.api.print(&line);
            if !line.ends_with('\n') {
                ctx.api.print("\n");
            }
            2
        }
    }
}

/// One object's two versions, by the file name both directories give it.
struct Versions {
    file: String,
    live: String,
    merged: String,
}

async fn compare(ctx: &Context) -> Result<String, Failure> {
    let unexpected = ctx.args.operands(1);
    if !unexpected.is_empty() {
        return Err(common::usage("kubectl diff", &format!("Unexpected args: [{}]", unexpected.join(" "))));
    }
    if ctx.args.has(&["force-conflicts"]) && !ctx.args.has(&["server-side"]) {
        return Err(common::error("--force-conflicts only works with --server-side"));
    }
    let (docs, source) = apply::any_documents(ctx)?;
    let mut versions = Vec::new();
    for doc in docs {
        versions.push(versions_of(ctx, doc.value, &source).await?);
    }
    versions.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(unified(ctx, &versions))
}

async fn versions_of(ctx: &Context, mut doc: Value, source: &str) -> Result<Versions, Failure> {
    // The builder maps the kind before it sets the default namespace, so a mapping error names none.
    let info = apply::info_for(ctx, &doc, source, "").await?;
    let ns = doc["metadata"]["namespace"].as_str().map_or_else(|| ctx.namespace(), str::to_string);
    let name = doc["metadata"]["name"].as_str().unwrap_or("").to_string();
    if info.namespaced {
        doc["metadata"]["namespace"] = json!(ns);
    }
    let live = match ctx.api.call(ctx.request(Verb::Get, info).namespace(Some(&ns)).name(&name)).await? {
        ApiResponse::Object(o) => Some(o),
        ApiResponse::Error(s) if s.code == 404 => None,
        ApiResponse::Error(s) => return Err(Failure::from(s)),
        _ => None,
    };
    let merged = match &live {
        None => {
            let mut req = ctx.request(Verb::Create, info).namespace(Some(&ns));
            req.raw_body = Some(doc);
            req.params.dry_run = true;
            answer(ctx.call(req).await?)
        }
        Some(live) => {
            // The configuration as apply would send it, but without recording it (`annotate=false`).
            if let Some(m) = doc["metadata"].as_object_mut() {
                let annotations = m.entry("annotations").or_insert_with(|| json!({}));
                if let Some(a) = annotations.as_object_mut() {
                    a.remove(LAST_APPLIED);
                }
            }
            let mut patch = apply::three_way_patch(live, &doc);
            if patch.as_object().is_some_and(serde_json::Map::is_empty) {
                Some(live.to_json())
            } else {
                // The version read is a precondition, as kubectl's patcher sends it.
                patch["metadata"]["resourceVersion"] = json!(live.meta().resource_version.clone().unwrap_or_default());
                let mut req = ctx.request(Verb::Patch, info).namespace(Some(&ns)).name(&name);
                req.patch = Some(match info.kind {
                    Kind::Custom(_) => PatchBody::Merge(patch),
                    _ => PatchBody::Strategic(patch),
                });
                req.params.dry_run = true;
                answer(ctx.call(req).await?)
            }
        }
    };
    let mut live = live.map(|o| o.to_json());
    let mut merged = merged;
    if !ctx.args.has(&["show-managed-fields"]) {
        for v in [&mut live, &mut merged].into_iter().flatten() {
            if let Some(m) = v["metadata"].as_object_mut() {
                m.remove("managedFields");
            }
        }
    }
    let secret = info.kind == Kind::Secret;
    if secret {
        mask(&mut live, &mut merged);
    }
    let group = if info.group.is_empty() { String::new() } else { format!("{}.", info.group) };
    let namespace = if info.namespaced { ns.as_str() } else { "" };
    let print = |v: &Option<Value>| match v {
        Some(v) => common::to_yaml(v),
        // A Secret is masked as unstructured content, and a missing one prints as YAML's null.
        None if secret => "null\n".to_string(),
        None => String::new(),
    };
    Ok(Versions {
        file: format!("{group}{}.{}.{namespace}.{name}", info.version, info.kind.name()),
        live: print(&live),
        merged: print(&merged),
    })
}

fn answer(response: ApiResponse) -> Option<Value> {
    match response {
        ApiResponse::Object(o) => Some(o.to_json()),
        _ => None,
    }
}

/// kubectl's Masker: every `data` value becomes `***`; a key both versions hold with different values
/// becomes `*** (before)` and `*** (after)`, so the change still shows.
fn mask(live: &mut Option<Value>, merged: &mut Option<Value>) {
    let data = |v: &Option<Value>| v.as_ref().and_then(|v| v["data"].as_object().cloned());
    let (before, after) = (data(live), data(merged));
    let masked = |own: &Option<serde_json::Map<String, Value>>, other: &Option<serde_json::Map<String, Value>>, tag| {
        own.as_ref().map(|own| {
            own.iter()
                .map(|(k, v)| {
                    let changed = other.as_ref().and_then(|o| o.get(k)).is_some_and(|o| o != v);
                    (k.clone(), json!(if changed { tag } else { "***" }))
                })
                .collect::<serde_json::Map<_, _>>()
        })
    };
    let (masked_before, masked_after) =
        (masked(&before, &after, "*** (before)"), masked(&after, &before, "*** (after)"));
    if let (Some(v), Some(m)) = (live.as_mut(), masked_before) {
        v["data"] = Value::Object(m);
    }
    if let (Some(v), Some(m)) = (merged.as_mut(), masked_after) {
        v["data"] = Value::Object(m);
    }
}

/// `diff -u -N LIVE-… MERGED-…` over the two directories: for each file whose versions differ, the
/// command line diff prints for it, the two file headers (path and modification time) and the hunks.
fn unified(ctx: &Context, versions: &[Versions]) -> String {
    let now_ms = ctx.api.now().ms();
    // The directories are os.MkdirTemp's (`LIVE-` and a random number); here the clock gives the numbers.
    let live_dir = format!("/tmp/LIVE-{}", temp_number(now_ms, 0x9e37_79b9));
    let merged_dir = format!("/tmp/MERGED-{}", temp_number(now_ms, 0x85eb_ca6b));
    let stamp = file_time(EPOCH_MS + now_ms);
    let mut out = String::new();
    for v in versions.iter().filter(|v| v.live != v.merged) {
        let (from, to) = (format!("{live_dir}/{}", v.file), format!("{merged_dir}/{}", v.file));
        out.push_str(&format!("diff -u -N {from} {to}\n"));
        let diff = TextDiff::from_lines(&v.live, &v.merged);
        let body = diff
            .unified_diff()
            .context_radius(CONTEXT)
            .header(&format!("{from}\t{stamp}"), &format!("{to}\t{stamp}"))
            .to_string();
        out.push_str(&body);
    }
    out
}

fn temp_number(now_ms: u64, salt: u64) -> u32 {
    (now_ms.wrapping_add(1).wrapping_mul(salt) >> 7) as u32
}

/// A file's modification time as GNU diff prints it: `2025-09-01 00:15:03.554000000 +0000`.
fn file_time(epoch_ms: u64) -> String {
    let secs = epoch_ms / 1000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:09} +0000",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        (epoch_ms % 1000) * 1_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secrets_values_are_masked_and_changed_ones_marked() {
        let mut live = Some(json!({"data": {"a": "YQ==", "b": "Yg==", "gone": "eA=="}}));
        let mut merged = Some(json!({"data": {"a": "YQ==", "b": "Yw==", "new": "eQ=="}}));
        mask(&mut live, &mut merged);
        assert_eq!(live.unwrap()["data"], json!({"a": "***", "b": "*** (before)", "gone": "***"}));
        assert_eq!(merged.unwrap()["data"], json!({"a": "***", "b": "*** (after)", "new": "***"}));
        let (mut none, mut created) = (None, Some(json!({"data": {"p": "eA=="}})));
        mask(&mut none, &mut created);
        assert_eq!(created.unwrap()["data"], json!({"p": "***"}));
    }

    #[test]
    fn modification_times_print_as_gnu_diff_prints_them() {
        assert_eq!(file_time(EPOCH_MS + 903_554), "2025-09-01 00:15:03.554000000 +0000");
    }
}
