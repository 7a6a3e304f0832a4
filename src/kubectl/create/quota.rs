//! `kubectl create quota NAME [--hard=pods=10,cpu=1] [--scopes=BestEffort,…]` and `kubectl create
//! poddisruptionbudget NAME --selector=… (--min-available=N | --max-unavailable=N)`: the two policy
//! generators, built as kubectl's `create_quota.go` and `create_pdb.go` build them.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::api::quantity::parse_quantity;
use crate::api::selector::LabelSelector;
use crate::api::Kind;

use super::super::common;
use super::super::{Context, Failure};
use super::{name, send};

/// `--hard`: `resource=quantity` pairs separated by commas, each quantity in its printed form.
fn hard(spec: &str) -> Result<BTreeMap<String, String>, Failure> {
    let mut list = BTreeMap::new();
    if spec.is_empty() {
        return Ok(list);
    }
    for statement in spec.split(',') {
        let parts: Vec<&str> = statement.split('=').collect();
        let [resource, value] = parts.as_slice() else {
            return Err(common::error(format!("Invalid argument syntax {statement}, expected <resource>=<value>")));
        };
        let quantity = parse_quantity(value).map_err(common::error)?;
        list.insert(resource.to_string(), quantity.to_string());
    }
    Ok(list)
}

pub(super) async fn quota(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create quota")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let hard = hard(ctx.args.get(&["hard"]).unwrap_or(""))?;
    let scopes = ctx.args.get(&["scopes"]).unwrap_or("");
    let mut spec = json!({});
    if !hard.is_empty() {
        spec["hard"] = json!(hard);
    }
    if !scopes.is_empty() {
        if scopes.split(',').any(str::is_empty) {
            return Err(common::error("invalid resource quota scope \"\""));
        }
        spec["scopes"] = json!(scopes.split(',').collect::<Vec<_>>());
    }
    let obj =
        json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": spec, "status": {}});
    send(ctx, Kind::ResourceQuota, obj, dry, Some("failed to create quota: ")).await
}

/// An int-or-string flag value as `intstr.Parse` reads it: a number when it is one, else the text.
fn int_or_string(text: &str) -> Value {
    match text.parse::<i32>() {
        Ok(n) => json!(n),
        Err(_) => json!(text),
    }
}

pub(super) async fn pdb(ctx: &Context) -> Result<(), Failure> {
    let name = name(ctx, 2, "kubectl create poddisruptionbudget")?;
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    let selector = ctx.args.get(&["selector"]).unwrap_or("");
    let min = ctx.args.get(&["min-available"]).unwrap_or("");
    let max = ctx.args.get(&["max-unavailable"]).unwrap_or("");
    if selector.is_empty() {
        return Err(common::error("a selector must be specified"));
    }
    if min.is_empty() && max.is_empty() {
        return Err(common::error("one of min-available or max-unavailable must be specified"));
    }
    if !min.is_empty() && !max.is_empty() {
        return Err(common::error("min-available and max-unavailable cannot be both specified"));
    }
    let selector = LabelSelector::parse(selector).map_err(common::error)?.to_api_json().map_err(common::error)?;
    let mut spec = json!({"selector": selector});
    if !min.is_empty() {
        spec["minAvailable"] = int_or_string(min);
    } else {
        spec["maxUnavailable"] = int_or_string(max);
    }
    let status = json!({"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0});
    let obj = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec, "status": status});
    send(ctx, Kind::PodDisruptionBudget, obj, dry, Some("failed to create poddisruptionbudgets: ")).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_limits_read_as_kubectl_reads_them() {
        let h = hard("pods=10,cpu=1,requests.memory=1Gi").ok();
        assert_eq!(
            h.map(|m| m.into_iter().collect::<Vec<_>>()),
            Some(vec![
                ("cpu".to_string(), "1".to_string()),
                ("pods".to_string(), "10".to_string()),
                ("requests.memory".to_string(), "1Gi".to_string()),
            ])
        );
        assert_eq!(
            hard("pods").err().map(|f| f.0),
            Some("error: Invalid argument syntax pods, expected <resource>=<value>".into())
        );
        assert!(hard("pods=abc").err().is_some_and(|f| f.0.starts_with("error: quantities must match")));
        assert_eq!(int_or_string("1"), json!(1));
        assert_eq!(int_or_string("50%"), json!("50%"));
    }
}
