//! `kubectl scale (deployment|replicaset|statefulset) NAME… --replicas=N [--current-replicas=M] [-l|--all]`:
//! reads the objects, then sends what kubectl's scaler sends, a JSON merge patch `{"spec":{"replicas":N}}` to
//! each object's `scale` subresource, and prints `deployment.apps/web scaled`. A `--current-replicas`
//! precondition is checked against the object just read (kubectl reads the Scale and sends a PUT; the
//! outcome is the same).

use serde_json::json;

use crate::api::{ApiResponse, Object, PatchBody, Verb};

use super::common::{self, DryRun};
use super::{Context, Failure};

pub async fn scale(ctx: &Context) -> Result<(), Failure> {
    const PATH: &str = "kubectl scale";
    let replicas = super::create::int_flag(ctx, &["replicas"], "--replicas", PATH)?.unwrap_or(-1);
    let current = super::create::int_flag(ctx, &["current-replicas"], "--current-replicas", PATH)?.unwrap_or(-1);
    // cobra checks the flags marked required before the command runs.
    if ctx.args.get(&["replicas"]).is_none() {
        return Err(common::required_flag("replicas"));
    }
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if replicas < 0 {
        return Err(common::error(
            "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
        ));
    }
    if current < -1 {
        return Err(common::error("The --current-replicas must specify an integer of -1 or greater"));
    }
    let targets = common::targets(ctx, ctx.args.operands(1), common::NO_RESOURCES).await?;
    if targets.objects.is_empty() {
        return match targets.errors.last() {
            Some(e) => Err(common::error(format!("no objects passed to scale {}", e.message()))),
            None => Err(common::error("no objects passed to scale")),
        };
    }
    for obj in &targets.objects {
        if dry == DryRun::Client {
            common::print_object(ctx, &obj.to_json(), "scaled", dry)?;
            continue;
        }
        if current != -1 {
            let actual = spec_replicas(obj);
            if actual != current {
                return Err(common::error(format!("Expected replicas to be {current}, was {actual}")));
            }
        }
        let info = obj.info();
        let mut req = ctx.request(Verb::Patch, info).namespace(obj.namespace()).name(obj.name()).subresource("scale");
        req.patch = Some(PatchBody::Merge(json!({"spec": {"replicas": replicas}})));
        req.params.dry_run = dry == DryRun::Server;
        if let ApiResponse::Error(s) = ctx.call(req).await? {
            return Err(Failure(s.kubectl_line()));
        }
        common::print_object(ctx, &obj.to_json(), "scaled", dry)?;
    }
    common::finish(targets.errors)
}

/// `spec.replicas` as the Scale subresource reports it (unset counts as the default of 1).
fn spec_replicas(obj: &Object) -> i64 {
    let v = obj.to_json();
    v["spec"]["replicas"].as_i64().unwrap_or(1)
}
