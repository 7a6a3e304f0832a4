//! `kubectl set image|resources|env|serviceaccount|selector|subject`: each reads the named objects, changes
//! them as its Go command does, and sends the strategic merge patch from the object read to the object
//! changed (`CreateTwoWayMergePatch`, [`crate::apiserver::strategic::two_way`]) with field manager
//! `kubectl-set`, printing `deployment.apps/web env updated`; `--dry-run=client` prints the changed object
//! without a request. Counterpart: kubectl's `pkg/cmd/set`.

mod env;
mod image;
mod resources;
mod selector;
mod service_account;
mod subject;

use serde_json::Value;

use crate::api::{ApiResponse, PatchBody, Verb};
use crate::apiserver::strategic;

use super::common::{self, DryRun, ErrLine};
use super::{Context, Failure};

const HELP: &str = "Configure application resources.

 These commands help you make changes to existing application resources.

Available Commands:
  env              Update environment variables on a pod template
  image            Update the image of a pod template
  resources        Update resource requests/limits on objects with pod templates
  selector         Set the selector on a resource
  serviceaccount   Update the service account of a resource
  subject          Update the user, group, or service account in a role binding or cluster role binding

Usage:
  kubectl set SUBCOMMAND [options]

Use \"kubectl set <command> --help\" for more information about a given command.
Use \"kubectl options\" for a list of global command-line options (applies to all commands).";

pub async fn set(ctx: &Context) -> Result<(), Failure> {
    match ctx.args.positional.get(1).map(String::as_str) {
        Some("env") => env::env(ctx).await,
        Some("image") => image::image(ctx).await,
        Some("resources") => resources::resources(ctx).await,
        Some("selector") => selector::selector(ctx).await,
        Some("serviceaccount" | "sa") => service_account::service_account(ctx).await,
        Some("subject") => subject::subject(ctx).await,
        Some(other) => Err(common::usage("kubectl set", &format!("unknown command {other:?}"))),
        None => Err(Failure(HELP.into())),
    }
}

/// The field manager kubectl's `set` commands name (`AddFieldManagerFlagVar(cmd, …, "kubectl-set")`).
const FIELD_MANAGER: &str = "kubectl-set";

/// Sends the strategic merge patch from `obj` as read to `changed` and prints the object's line, or, with
/// `--dry-run=client`, prints `changed` without a request. `always`: send even an empty patch, as `set
/// serviceaccount` does; the other commands skip an object nothing changed in, without a line.
pub(super) async fn send_changes(
    ctx: &Context,
    obj: &crate::api::Object,
    original: &Value,
    changed: &Value,
    change: Change<'_>,
    errors: &mut Vec<ErrLine>,
) -> Result<(), Failure> {
    let root =
        strategic::root_type(original["apiVersion"].as_str().unwrap_or(""), original["kind"].as_str().unwrap_or(""));
    let patch = strategic::two_way(original, changed, root);
    if !change.always && patch.as_object().is_some_and(serde_json::Map::is_empty) {
        return Ok(());
    }
    if change.dry == DryRun::Client {
        return common::print_object(ctx, changed, change.operation, change.dry);
    }
    let mut req = ctx.request(Verb::Patch, obj.info()).namespace(obj.namespace()).name(obj.name());
    req.patch = Some(PatchBody::Strategic(patch));
    req.params.dry_run = change.dry == DryRun::Server;
    req.params.field_manager = Some(FIELD_MANAGER.into());
    match ctx.api.call(req).await? {
        ApiResponse::Object(o) => common::print_object(ctx, &o.to_json(), change.operation, change.dry)?,
        // The command returns the server's error as it is (`Error from server (…): …`).
        ApiResponse::Error(s) if change.failed.is_empty() => return Err(Failure::from(s)),
        ApiResponse::Error(s) => errors.push(ErrLine::Plain(format!("{}{}", change.failed, s.message))),
        _ => {}
    }
    Ok(())
}

/// What a `set` command does to an object, for [`send_changes`].
pub(super) struct Change<'a> {
    pub dry: DryRun,
    /// The printed operation (`env updated`).
    pub operation: &'a str,
    /// The prefix of a failed patch's line (`failed to patch env update to pod template: `); empty: the
    /// server's error as it is.
    pub failed: &'a str,
    pub always: bool,
}

/// Whether container `name` matches `spec`, as kubectl's `selectString` decides: `*` alone matches all, a
/// spec without `*` only itself; otherwise each `*`-separated part must be found from the previous
/// match on and the last must end the name. Its quirks are kept (the first part need not start the name;
/// a later part is looked for relative to the previous match but compared with its absolute position).
pub(super) fn select_string(name: &str, spec: &str) -> bool {
    if spec == "*" {
        return true;
    }
    if !spec.contains('*') {
        return name == spec;
    }
    let parts: Vec<&str> = spec.split('*').collect();
    let mut pos = 0usize;
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let Some(next) = name.get(pos..).and_then(|rest| rest.find(part)) else { return false };
        if next < pos || (i == parts.len() - 1 && name.len() != part.len() + next) {
            return false;
        }
        pos = next;
    }
    true
}

/// The containers of `spec` whose names match `selector` (containers first, then init containers), as
/// (list, index) pairs.
pub(super) fn select_containers(spec: &Value, selector: &str) -> Vec<(&'static str, usize)> {
    let mut out = Vec::new();
    for list in ["containers", "initContainers"] {
        for (i, c) in spec[list].as_array().into_iter().flatten().enumerate() {
            if select_string(c["name"].as_str().unwrap_or(""), selector) {
                out.push((list, i));
            }
        }
    }
    out
}

/// Where a kind keeps its pod spec, as a JSON pointer.
pub(super) fn pod_spec_pointer(kind: crate::api::Kind) -> Option<&'static str> {
    use crate::api::Kind::*;
    match kind {
        Pod => Some("/spec"),
        Deployment | ReplicaSet | ReplicationController | DaemonSet | StatefulSet | Job => Some("/spec/template/spec"),
        CronJob => Some("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Where `obj` keeps its pod spec, or the error line kubectl gives an object without one.
pub(super) fn pod_spec_of(obj: &crate::api::Object, errors: &mut Vec<ErrLine>) -> Option<&'static str> {
    let info = obj.info();
    let pointer = pod_spec_pointer(info.kind);
    if pointer.is_none() {
        errors.push(ErrLine::Plain(format!(
            "error: {}/{} the object is not a pod or does not have a pod template: *v1.{}\n",
            info.resource,
            obj.name(),
            info.kind.name()
        )));
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_names_match_as_kubectls_select_string_decides() {
        assert!(select_string("nginx", "*"));
        assert!(select_string("nginx", "nginx"));
        assert!(!select_string("nginx", "ngin"));
        assert!(select_string("nginx", "ng*"));
        assert!(select_string("nginx", "*inx"));
        assert!(!select_string("nginx", "*ngi"));
        assert!(select_string("sidecar", "s*car"));
        // The first part is looked for anywhere, as kubectl does.
        assert!(select_string("xa", "a*"));
    }
}
