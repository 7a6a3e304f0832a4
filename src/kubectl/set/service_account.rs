//! `kubectl set serviceaccount (TYPE NAME | TYPE/NAME) SERVICE_ACCOUNT` (`set sa`): sets
//! `serviceAccountName` in a pod spec or pod template and sends the strategic merge patch of the change,
//! even an empty one, printing `deployment.apps/web serviceaccount updated`. Counterpart: kubectl's
//! `pkg/cmd/set/set_serviceaccount.go`.

use serde_json::json;

use super::super::common::{self, ErrLine};
use super::super::{Context, Failure};
use super::{pod_spec_of, send_changes, Change};

pub async fn service_account(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let Some((account, resources)) = ctx.args.operands(2).split_last() else {
        return Err(common::error("serviceaccount is required"));
    };
    let targets = common::targets(ctx, resources, common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let Some(pointer) = pod_spec_of(obj, &mut errors) else { continue };
        let original = obj.to_json();
        let mut changed = original.clone();
        if let Some(spec) = changed.pointer_mut(pointer) {
            spec["serviceAccountName"] = json!(account);
        }
        let change = Change {
            dry,
            operation: "serviceaccount updated",
            failed: "failed to patch ServiceAccountName ",
            always: true,
        };
        send_changes(ctx, obj, &original, &changed, change, &mut errors).await?;
    }
    common::finish(errors)
}
