//! `kubectl set selector (TYPE NAME | TYPE/NAME) 'k=v,…' [--resource-version=RV]`: replaces a Service's
//! selector with the given equality requirements (set-based ones are refused, and so is any kind but a
//! Service) and sends the strategic merge patch of the change, printing `service/web selector updated`.
//! Counterpart: kubectl's `pkg/cmd/set/set_selector.go`.

use serde_json::{json, Value};

use super::super::common::{self, ErrLine};
use super::super::{Context, Failure};
use super::{send_changes, Change};
use crate::api::selector::{LabelSelector, Requirement};
use crate::api::Kind;

/// `metav1.ParseToLabelSelector`: equality requirements become match labels, set-based ones match
/// expressions (as Go prints them, `{app In [web]}`); `!=` has no place in a LabelSelector.
fn parse(text: &str) -> Result<(Value, Vec<String>), Failure> {
    let parsed = LabelSelector::parse(text).map_err(common::error)?;
    let mut labels = serde_json::Map::new();
    let mut expressions = Vec::new();
    for r in parsed.requirements {
        match r {
            Requirement::Equals(k, v) => {
                labels.insert(k, json!(v));
            }
            Requirement::NotEquals(..) => return Err(common::error("\"!=\" is not a valid label selector operator")),
            Requirement::In(k, vs) => expressions.push(format!("{{{k} In [{}]}}", vs.join(" "))),
            Requirement::NotIn(k, vs) => expressions.push(format!("{{{k} NotIn [{}]}}", vs.join(" "))),
            Requirement::Exists(k) => expressions.push(format!("{{{k} Exists []}}")),
            Requirement::DoesNotExist(k) => expressions.push(format!("{{{k} DoesNotExist []}}")),
        }
    }
    Ok((Value::Object(labels), expressions))
}

pub async fn selector(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let words = ctx.args.operands(2);
    let Some((last, resources)) = words.split_last() else {
        return Err(common::error("one selector is required"));
    };
    let (labels, expressions) = parse(last)?;
    let targets = common::targets(ctx, resources, common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let version = ctx.args.get(&["resource-version"]).filter(|v| !v.is_empty());
    for obj in &targets.objects {
        if obj.info().kind != Kind::Service {
            return Err(common::error("setting a selector is only supported for Services"));
        }
        if !expressions.is_empty() {
            return Err(common::error(format!(
                "match expression [{}] not supported on this object",
                expressions.join(" ")
            )));
        }
        let mut original = obj.to_json();
        let mut changed = original.clone();
        changed["spec"]["selector"] = labels.clone();
        if let Some(version) = version {
            // kubectl clears the version it read, so the one asked for is always in the patch.
            if let Some(m) = original["metadata"].as_object_mut() {
                m.remove("resourceVersion");
            }
            changed["metadata"]["resourceVersion"] = json!(version);
        }
        let mut errors = Vec::new();
        let change = Change { dry, operation: "selector updated", failed: "", always: true };
        send_changes(ctx, obj, &original, &changed, change, &mut errors).await?;
        common::finish(errors)?;
    }
    Ok(())
}
