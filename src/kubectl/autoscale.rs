//! `kubectl autoscale (TYPE NAME | TYPE/NAME) [--min=N] --max=N [--cpu=70%|500m] [--memory=60%|200Mi]
//! [--cpu-percent=N] [--name=NAME]`: reads each named workload, checks that it has a scale subresource,
//! and creates an autoscaling/v2 HorizontalPodAutoscaler pointing at it (`horizontalpodautoscaler.autoscaling/web
//! autoscaled`). With no target given the apiserver's defaulting adds the 80% CPU utilization metric, as kubectl
//! relies on. The checks and their messages are kubectl v1.34's.

use serde_json::{json, Value};

use crate::api::quantity::parse_quantity;
use crate::api::{ApiResponse, Kind, Object, Verb};

use super::common::{self, DryRun};
use super::{transport_line, Context, Failure};

const PATH: &str = "kubectl autoscale";

/// A `--cpu`/`--memory` target: a utilization percentage or an average value.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Utilization(i64),
    AverageValue(String),
}

/// Reads a `--cpu`/`--memory` value as kubectl does: `70%` is utilization, a bare number takes the
/// resource's unit (`500` → `500m` CPU, `200` → `200Mi` memory), anything else must be a quantity.
fn parse_target(input: &str, resource: &str) -> Result<Target, Failure> {
    let input = input.trim();
    if let Some(percent) = input.strip_suffix('%') {
        return match percent.parse::<i32>() {
            Ok(v) if v >= 0 => Ok(Target::Utilization(i64::from(v))),
            _ => Err(common::error(format!("invalid percentage value: {percent}"))),
        };
    }
    let unit = if resource == "cpu" { "m" } else { "Mi" };
    let text = match input.parse::<f64>() {
        Ok(v) if v.is_finite() => format!("{v}{unit}"),
        _ => input.to_string(),
    };
    match parse_quantity(&text) {
        Ok(q) => Ok(Target::AverageValue(q.to_string())),
        Err(_) => Err(common::error(format!("invalid resource {resource} value: {input}"))),
    }
}

fn metric(resource: &str, target: &Target) -> Value {
    let target = match target {
        Target::Utilization(v) => json!({"type": "Utilization", "averageUtilization": v}),
        Target::AverageValue(q) => json!({"type": "AverageValue", "averageValue": q}),
    };
    json!({"type": "Resource", "resource": {"name": resource, "target": target}})
}

/// The workloads that have a scale subresource.
fn scalable(kind: Kind) -> bool {
    matches!(kind, Kind::Deployment | Kind::ReplicaSet | Kind::StatefulSet)
}

pub async fn autoscale(ctx: &Context) -> Result<(), Failure> {
    let int = |name: &str| super::create::int_flag(ctx, &[name], &format!("--{name}"), PATH);
    let (min, max, cpu_percent) = (int("min")?, int("max")?, int("cpu-percent")?);
    let Some(max) = max else {
        return Err(common::required_flag("max"));
    };
    let (min, cpu_percent) = (min.unwrap_or(-1), cpu_percent.unwrap_or(-1));
    let cpu = ctx.args.get(&["cpu"]).filter(|v| !v.is_empty());
    let memory = ctx.args.get(&["memory"]).filter(|v| !v.is_empty());
    let dry = common::dry_run(ctx)?;
    common::check_output(ctx)?;
    if max < 1 {
        return Err(common::error(format!("--max=MAXPODS is required and must be at least 1, max: {max}")));
    }
    if max < min {
        return Err(common::error(format!(
            "--max=MAXPODS must be larger or equal to --min=MINPODS, max: {max}, min: {min}"
        )));
    }
    if cpu_percent > 0 && cpu.is_some() {
        return Err(common::error("--cpu-percent and --cpu are mutually exclusive"));
    }
    let cpu = cpu.map(|c| parse_target(c, "cpu")).transpose()?;
    let memory = memory.map(|m| parse_target(m, "memory")).transpose()?;
    let targets = common::targets(ctx, ctx.args.operands(1), common::NO_RESOURCES).await?;
    if targets.objects.is_empty() {
        return match targets.errors.into_iter().last() {
            Some(e) => common::finish(vec![e]),
            None => Err(common::error("no objects passed to autoscale")),
        };
    }
    for obj in &targets.objects {
        let info = obj.info();
        if !scalable(obj.kind()) {
            return Err(common::error(format!(
                "cannot autoscale a {}: could not find scale subresource for {}/{}, Resource={} in discovery information",
                info.kind.name(),
                info.group,
                info.version,
                info.resource
            )));
        }
        let mut metrics = Vec::new();
        if cpu_percent > 0 {
            metrics.push(metric("cpu", &Target::Utilization(cpu_percent)));
        }
        if let Some(t) = &cpu {
            metrics.push(metric("cpu", t));
        }
        if let Some(t) = &memory {
            metrics.push(metric("memory", t));
        }
        let hpa = build(ctx, obj, max, min, metrics);
        send(ctx, hpa, dry).await?;
    }
    common::finish(targets.errors)
}

fn build(ctx: &Context, target: &Object, max: i64, min: i64, metrics: Vec<Value>) -> Value {
    let info = target.info();
    let api_version = info.api_version();
    let name = ctx.args.get(&["name"]).filter(|n| !n.is_empty()).unwrap_or(target.name());
    let mut spec = json!({
        "scaleTargetRef": {"apiVersion": api_version, "kind": info.kind.name(), "name": target.name()},
        "maxReplicas": max,
    });
    if min > 0 {
        spec["minReplicas"] = json!(min);
    }
    if !metrics.is_empty() {
        spec["metrics"] = Value::Array(metrics);
    }
    let mut metadata = json!({"name": name});
    if ctx.namespace_given() {
        metadata["namespace"] = json!(ctx.namespace());
    }
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": metadata,
        "spec": spec,
        "status": {"desiredReplicas": 0},
    })
}

async fn send(ctx: &Context, hpa: Value, dry: DryRun) -> Result<(), Failure> {
    if dry == DryRun::Client {
        return common::print_object(ctx, &hpa, "created", dry);
    }
    let ns = ctx.namespace();
    let mut req = ctx.request(Verb::Create, Kind::HorizontalPodAutoscaler.info()).namespace(Some(&ns));
    req.raw_body = Some(hpa);
    req.params.dry_run = dry == DryRun::Server;
    req.params.field_manager = Some("kubectl-autoscale".into());
    match ctx.api.call(req).await {
        Ok(ApiResponse::Object(o)) => common::print_object(ctx, &o.to_json(), "autoscaled", dry),
        Ok(ApiResponse::Error(s)) => Err(Failure(s.kubectl_line())),
        Ok(_) => Ok(()),
        Err(e) => Err(Failure(transport_line(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_read_as_percentages_bare_numbers_or_quantities() {
        assert_eq!(parse_target("70%", "cpu").ok(), Some(Target::Utilization(70)));
        assert_eq!(parse_target("500", "cpu").ok(), Some(Target::AverageValue("500m".into())));
        assert_eq!(parse_target("200", "memory").ok(), Some(Target::AverageValue("200Mi".into())));
        assert_eq!(parse_target("1Gi", "memory").ok(), Some(Target::AverageValue("1Gi".into())));
        assert_eq!(
            parse_target("-5%", "cpu").err().map(|f| f.0),
            Some("error: invalid percentage value: -5".to_string())
        );
        assert_eq!(
            parse_target("lots", "memory").err().map(|f| f.0),
            Some("error: invalid resource memory value: lots".to_string())
        );
    }
}
