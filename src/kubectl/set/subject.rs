//! `kubectl set subject (TYPE NAME | TYPE/NAME | TYPE -l SEL | TYPE --all) [--user=U]… [--group=G]…
//! [--serviceaccount=NS:NAME]…`: adds the subjects a RoleBinding or ClusterRoleBinding lacks (users, then
//! groups, then service accounts, each sorted; a service account's empty namespace is the current one,
//! which a ClusterRoleBinding refuses) and sends the patch, printing
//! `rolebinding.rbac.authorization.k8s.io/rb subjects updated`; a binding that has them all is left
//! without a line. Counterpart: kubectl's `pkg/cmd/set/set_subject.go`.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::super::common::{self, DryRun, ErrLine};
use super::super::{Context, Failure};
use super::{send_changes, Change};
use crate::api::Kind;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

pub async fn subject(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let local = ctx.args.has(&["local"]);
    if local && !ctx.args.operands(2).is_empty() {
        return Err(common::error("error: you must specify resources by --filename when --local is set."));
    }
    let targets = common::targets(ctx, ctx.args.operands(2), common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    if local && dry == DryRun::Server {
        return Err(common::error("cannot specify --local and --dry-run=server - did you mean --dry-run=client?"));
    }
    if ctx.args.has(&["all"]) && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --selector at the same time"));
    }
    let users: BTreeSet<String> = ctx.args.all(&["user"]).into_iter().collect();
    let groups: BTreeSet<String> = ctx.args.all(&["group"]).into_iter().collect();
    let accounts: BTreeSet<String> = ctx.args.all(&["serviceaccount"]).into_iter().collect();
    if users.is_empty() && groups.is_empty() && accounts.is_empty() {
        return Err(common::error("you must specify at least one value of user, group or serviceaccount"));
    }
    for account in &accounts {
        let parts: Vec<&str> = account.split(':').collect();
        if parts.len() != 2 || parts[1].is_empty() {
            return Err(common::error("serviceaccount must be <namespace>:<name>"));
        }
        if parts[0].is_empty() && targets.objects.iter().any(|o| o.info().kind == Kind::ClusterRoleBinding) {
            return Err(common::error("serviceaccount must be <namespace>:<name>, namespace must be specified"));
        }
    }
    let mut wanted: Vec<Value> = Vec::new();
    wanted.extend(users.iter().map(|u| json!({"kind": "User", "apiGroup": RBAC_GROUP, "name": u})));
    wanted.extend(groups.iter().map(|g| json!({"kind": "Group", "apiGroup": RBAC_GROUP, "name": g})));
    for account in &accounts {
        let (ns, name) = account.split_once(':').unwrap_or_default();
        let ns = if ns.is_empty() { ctx.namespace() } else { ns.to_string() };
        wanted.push(json!({"kind": "ServiceAccount", "namespace": ns, "name": name}));
    }
    let mut errors = Vec::new();
    for obj in &targets.objects {
        if !matches!(obj.info().kind, Kind::RoleBinding | Kind::ClusterRoleBinding) {
            errors.push(ErrLine::Plain(format!(
                "error: {}/{} setting subjects is only supported for RoleBinding/ClusterRoleBinding\n",
                obj.info().resource,
                obj.name()
            )));
            continue;
        }
        let original = obj.to_json();
        let mut changed = original.clone();
        let existing: Vec<Value> = original["subjects"].as_array().cloned().unwrap_or_default();
        let same = |a: &Value, b: &Value| {
            ["kind", "apiGroup", "name", "namespace"]
                .iter()
                .all(|f| a[*f].as_str().unwrap_or("") == b[*f].as_str().unwrap_or(""))
        };
        let added: Vec<Value> = wanted.iter().filter(|w| !existing.iter().any(|e| same(e, w))).cloned().collect();
        if added.is_empty() {
            continue;
        }
        changed["subjects"] = Value::Array(existing.into_iter().chain(added).collect());
        let change = Change {
            dry,
            operation: "subjects updated",
            failed: "failed to patch subjects to rolebinding: ",
            always: false,
        };
        send_changes(ctx, obj, &original, &changed, change, &mut errors).await?;
    }
    common::finish(errors)
}
