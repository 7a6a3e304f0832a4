//! `kubectl set resources … [-c GLOB] --limits=cpu=200m,memory=512Mi --requests=…` sets the containers'
//! resource limits and requests and sends the two-way strategic merge patch of the change (`resource requirements
//! updated`); an object where nothing changes is skipped without a line. Counterpart: kubectl's
//! `pkg/cmd/set/set_resources.go`.

use serde_json::{json, Value};

use super::super::common::{self, ErrLine};
use super::super::{Context, Failure};
use super::{pod_spec_of, select_containers, send_changes, Change};

/// `--limits`/`--requests`: `cpu=200m,memory=512Mi` as kubectl v1.34's populateResourceListV1 reads it, each value a
/// quantity in its canonical spelling.
fn resource_list(spec: Option<&str>) -> Result<serde_json::Map<String, Value>, Failure> {
    let mut out = serde_json::Map::new();
    for statement in spec.filter(|s| !s.is_empty()).into_iter().flat_map(|s| s.split(',')) {
        let parts: Vec<&str> = statement.split('=').collect();
        let [name, value] = parts[..] else {
            return Err(common::error(format!("Invalid argument syntax {statement}, expected <resource>=<value>")));
        };
        let quantity = crate::api::quantity::parse_quantity(value).map_err(common::error)?;
        out.insert(name.to_string(), json!(quantity.to_string()));
    }
    Ok(out)
}

pub async fn resources(ctx: &Context) -> Result<(), Failure> {
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if ctx.args.has(&["all"]) && ctx.args.get(&["l", "selector"]).is_some_and(|s| !s.is_empty()) {
        return Err(common::error("cannot set --all and --selector at the same time"));
    }
    let (limits, requests) = (ctx.args.get(&["limits"]), ctx.args.get(&["requests"]));
    if limits.is_none_or(str::is_empty) && requests.is_none_or(str::is_empty) {
        return Err(common::error(
            "you must specify an update to requests or limits (in the form of --requests/--limits)",
        ));
    }
    let (limits, requests) = (resource_list(limits)?, resource_list(requests)?);
    let selector = ctx.args.get(&["c", "containers"]).unwrap_or("*");
    let targets = common::targets(ctx, ctx.args.operands(2), common::NO_RESOURCES).await?;
    if let Some(ErrLine::Api(line)) = targets.errors.first() {
        return Err(Failure(line.clone()));
    }
    let mut errors = Vec::new();
    for obj in &targets.objects {
        let Some(pointer) = pod_spec_of(obj, &mut errors) else { continue };
        let original = obj.to_json();
        let mut json = original.clone();
        let Some(spec) = json.pointer_mut(pointer) else { continue };
        let chosen = select_containers(spec, selector);
        for &(list, i) in &chosen {
            for (field, wanted) in [("limits", &limits), ("requests", &requests)] {
                for (resource, value) in wanted {
                    spec[list][i]["resources"][field][resource] = value.clone();
                }
            }
        }
        if chosen.is_empty() {
            errors.push(ErrLine::Plain(format!("error: unable to find container named {selector}")));
        }
        let change = Change {
            dry,
            operation: "resource requirements updated",
            failed: "failed to patch resources update to pod template ",
            always: false,
        };
        send_changes(ctx, obj, &original, &json, change, &mut errors).await?;
    }
    common::finish(errors)
}
