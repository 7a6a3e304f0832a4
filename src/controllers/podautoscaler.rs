//! The HorizontalPodAutoscaler controller (`autoscaling/v2`): every 15 s it reads the usage of the pods its
//! target selects, computes the replica count each Resource metric asks for, and writes the largest one to
//! the target's `scale` subresource. Watches: HorizontalPodAutoscalers, Pods, Deployments, ReplicaSets,
//! StatefulSets. Writes: the target's scale, the autoscaler's status (current and desired replicas, current
//! metrics, the AbleToScale/ScalingActive/ScalingLimited conditions, last scale time), Events
//! `SuccessfulRescale` (`New size: 4; reason: cpu resource utilization (percentage of request) above target`),
//! `FailedGetResourceMetric`, `FailedComputeMetricsReplicas`, `FailedGetScale`, `FailedRescale`.
//! Counterpart: `pkg/controller/podautoscaler/horizontal.go`, `replica_calculator.go`,
//! `metrics/utilization.go`.
//!
//! Usage model (the controller reads it directly rather than through metrics-server, which kubeglass only
//! runs when asked): a pod's usage of `cpu` (`memory`) is its annotation `kubeglass.dev/cpu-usage`
//! (`kubeglass.dev/memory-usage`), a quantity such as `250m` (`300Mi`), read as the kubelet reads it for
//! `/metrics/resource` ([`crate::node::usage`], so `kubectl top` shows the same figure), when it has one; otherwise, when the scale target carries `kubeglass.dev/cpu-load`
//! (`kubeglass.dev/memory-load`), that total is shared evenly by the target's Running pods, as a load
//! balancer would share a steady load; a pod with neither has no metrics yet. The arithmetic is the real
//! one: utilization = usage × 100 / requests over the pods with metrics (integer percent), ratio =
//! utilization / target, no change within the 0.1 tolerance, desired = ⌈ratio × ready pods⌉; pods without
//! metrics count as using their whole request when scaling down and nothing when scaling up, not-ready pods
//! count as nothing when scaling up, and for cpu a pod started less than 5 minutes ago counts as ready once
//! it has been Ready for one metrics window (15 s, metrics-server's default resolution). Without
//! `spec.behavior` a scale down takes the highest recommendation of the last 5 minutes and a scale up is
//! limited to max(2 × current, 4); with `spec.behavior` its stabilization windows and rate policies apply.
//! Only `Resource` metrics are measured; `Pods`, `Object`, `External` and `ContainerResource` metrics fail
//! as they do on a cluster without a custom metrics API.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::autoscaling::v2::{
    HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus,
    MetricSpec, MetricStatus, MetricValueStatus, ResourceMetricStatus,
};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::api::quantity::Quantity;
use crate::api::selector::LabelSelector;
use crate::api::{ApiResponse, Kind, Object};
use crate::apiserver::registry::k8s_time;
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::book::Book;
use super::recorder::Recorder;
use super::replicaset::sim_time;
use super::{Controller, Cx};

/// `--horizontal-pod-autoscaler-sync-period`.
pub const SYNC_MS: u64 = 15_000;
/// `--horizontal-pod-autoscaler-tolerance`.
pub const TOLERANCE: f64 = 0.1;
/// `--horizontal-pod-autoscaler-downscale-stabilization`.
pub const DOWNSCALE_WINDOW_MS: u64 = 300_000;
/// `--horizontal-pod-autoscaler-cpu-initialization-period`.
const CPU_INITIALIZATION_MS: u64 = 300_000;
/// `--horizontal-pod-autoscaler-initial-readiness-delay`.
const INITIAL_READINESS_DELAY_MS: u64 = 30_000;
/// The window of one metric sample.
const METRIC_WINDOW_MS: u64 = 15_000;

/// The target's load annotation, shared by its running pods: `kubeglass.dev/cpu-load`.
pub fn load_annotation(resource: &str) -> String {
    format!("kubeglass.dev/{resource}-load")
}

fn quantity_milli(text: &str) -> Option<i64> {
    Quantity::parse(text).map(|q| q.milli_value())
}

fn milli_quantity(milli: i64) -> ApiQuantity {
    ApiQuantity(
        Quantity::from_nanos(milli as i128 * 1_000_000, crate::api::quantity::QuantityFormat::DecimalSI).to_string(),
    )
}

/// One pod as the calculator sees it.
#[derive(Debug, Clone)]
pub struct PodSample {
    pub name: String,
    pub phase: String,
    pub deleting: bool,
    /// Ready condition: (status is True, last transition).
    pub ready: Option<(bool, SimTime)>,
    pub start: Option<SimTime>,
    /// Request of the resource per container; None for a container without one.
    pub requests: Vec<(String, Option<i64>)>,
    /// Usage in milli-units, if metrics-server would report one.
    pub usage: Option<i64>,
}

/// What one metric asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub replicas: i32,
    pub utilization: Option<i32>,
    /// Average usage per pod with metrics, in milli-units.
    pub average_milli: i64,
}

/// `GetResourceUtilizationRatio` over `(usage, request)` pairs: (ratio, utilization %, average usage).
fn utilization_ratio(samples: &[(i64, i64)], target: i32) -> Option<(f64, i32, i64)> {
    let (usage, requests): (i64, i64) = samples.iter().fold((0, 0), |(u, r), (a, b)| (u + a, r + b));
    if requests == 0 || samples.is_empty() {
        return None;
    }
    let utilization = (usage.saturating_mul(100) / requests) as i32;
    Some((f64::from(utilization) / f64::from(target.max(1)), utilization, usage / samples.len() as i64))
}

/// `GetResourceReplicas` (target: a utilization percent) or `GetRawResourceReplicas` (target: an average value
/// in milli-units), with the real handling of pods that are not ready or have no metrics.
pub fn replicas_for(
    resource: &str,
    pods: &[PodSample],
    current: i32,
    utilization_target: Option<i32>,
    average_target_milli: Option<i64>,
    now: SimTime,
) -> Result<Proposal, String> {
    if pods.iter().all(|p| p.usage.is_none()) {
        return Err(format!(
            "unable to get metrics for resource {resource}: no metrics returned from resource metrics API"
        ));
    }
    let (mut ready, mut unready, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    for p in pods {
        if p.deleting || p.phase == "Failed" {
            continue;
        }
        if p.phase == "Pending" {
            unready.push(p);
            continue;
        }
        let Some(_) = p.usage else {
            missing.push(p);
            continue;
        };
        if resource == "cpu" {
            let not_ready = match (p.ready, p.start) {
                (Some((status, since)), Some(start)) => {
                    if start.plus_ms(CPU_INITIALIZATION_MS) > now {
                        !status || now < since.plus_ms(METRIC_WINDOW_MS)
                    } else {
                        !status && start.plus_ms(INITIAL_READINESS_DELAY_MS) > since
                    }
                }
                _ => true,
            };
            if not_ready {
                unready.push(p);
                continue;
            }
        }
        ready.push(p);
    }
    if ready.is_empty() {
        return Err(format!("unable to get metrics for resource {resource}: did not receive metrics for targeted pods (pods might be unready)"));
    }
    let mut request_of = BTreeMap::new();
    for p in pods.iter().filter(|p| !p.deleting && p.phase != "Failed") {
        let mut total = 0;
        for (container, r) in &p.requests {
            match r {
                Some(r) => total += r,
                None if utilization_target.is_some() => {
                    return Err(format!("missing request for {resource} in container {container} of Pod {}", p.name))
                }
                None => {}
            }
        }
        request_of.insert(p.name.clone(), total);
    }
    // Raw values compare against the target times the pod count, as utilization compares usage to requests.
    let target = utilization_target.unwrap_or(100);
    let denominator = |p: &PodSample| match average_target_milli {
        Some(t) => t.max(1),
        None => request_of.get(&p.name).copied().unwrap_or(0),
    };
    let samples: Vec<(i64, i64)> = ready.iter().map(|p| (p.usage.unwrap_or(0), denominator(p))).collect();
    let (ratio, utilization, average) =
        utilization_ratio(&samples, target).ok_or_else(|| "no metrics returned matched known pods".to_string())?;
    let proposal =
        |replicas| Proposal { replicas, utilization: utilization_target.map(|_| utilization), average_milli: average };
    let scale_up_with_unready = !unready.is_empty() && ratio > 1.0;
    if !scale_up_with_unready && missing.is_empty() {
        if (1.0 - ratio).abs() <= TOLERANCE {
            return Ok(proposal(current));
        }
        return Ok(proposal((ratio * ready.len() as f64).ceil() as i32));
    }
    let mut all = samples;
    for p in &missing {
        let fallback = if ratio < 1.0 {
            match average_target_milli {
                Some(t) => t,
                None => denominator(p) * i64::from(target.max(100)) / 100,
            }
        } else {
            0
        };
        all.push((fallback, denominator(p)));
    }
    if scale_up_with_unready {
        all.extend(unready.iter().map(|p| (0, denominator(p))));
    }
    let Some((new_ratio, _, _)) = utilization_ratio(&all, target) else { return Ok(proposal(current)) };
    if (1.0 - new_ratio).abs() <= TOLERANCE || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        return Ok(proposal(current));
    }
    let replicas = (new_ratio * all.len() as f64).ceil() as i32;
    if (new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current) {
        return Ok(proposal(current));
    }
    Ok(proposal(replicas))
}

/// A scale change recorded for the behavior policies: (when, replicas added (+) or removed (−)).
type ScaleEvent = (SimTime, i32);

#[derive(Debug, Default, Clone)]
struct Memory {
    /// (recommendation, when).
    recommendations: Vec<(i32, SimTime)>,
    events: Vec<ScaleEvent>,
}

/// A condition of the status: (type, status, reason, message).
type Cond = (&'static str, &'static str, &'static str, String);

/// What a rescale waits for: the status to write once the target's scale answered.
#[derive(Debug)]
struct Rescale {
    hpa: String,
    from: i32,
    to: i32,
    reason: String,
    /// When it was decided (the scale event's time, for the rate policies).
    at: SimTime,
    conditions: Vec<Cond>,
    metrics: Option<Vec<MetricStatus>>,
}

#[derive(Debug)]
enum Op {
    Scale(Box<Rescale>),
    Status,
}

/// What the metrics ask for: the replica count, the name of the metric that asked for the most, the statuses.
type Computed = (i32, String, Vec<MetricStatus>);

const ABLE_TO_GET_SCALE: &str = "the HPA controller was able to get the target's current scale";

#[derive(Debug, Default)]
pub struct HorizontalController {
    memory: BTreeMap<String, Memory>,
    /// Autoscalers with a sync timer set.
    scheduled: BTreeSet<String>,
    book: Book<Op>,
    recorder: Recorder,
}

/// The sample of `pod` for `resource`, with its share of the target's load among `running` pods.
fn sample(pod: &Pod, resource: &str, load: Option<i64>, running: i64) -> PodSample {
    let status = pod.status.clone().unwrap_or_default();
    let ready = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "Ready")
        .map(|c| (c.status == "True", sim_time(c.last_transition_time.as_ref()).unwrap_or(SimTime::ZERO)));
    let phase = status.phase.clone().unwrap_or_default();
    let own = crate::node::usage::annotated_milli(pod, resource);
    let usage = match (own, load) {
        (Some(u), _) => Some(u),
        (None, Some(total)) if phase == "Running" && pod.metadata.deletion_timestamp.is_none() => {
            Some(total / running.max(1))
        }
        _ => None,
    }
    .filter(|_| phase == "Running");
    PodSample {
        name: pod.metadata.name.clone().unwrap_or_default(),
        phase,
        deleting: pod.metadata.deletion_timestamp.is_some(),
        ready,
        start: status.start_time.as_ref().and_then(|t| sim_time(Some(t))),
        requests: pod
            .spec
            .iter()
            .flat_map(|s| s.containers.iter())
            .map(|c| {
                let r = c.resources.as_ref().and_then(|r| r.requests.as_ref()).and_then(|r| r.get(resource));
                (c.name.clone(), r.and_then(|q| quantity_milli(&q.0)))
            })
            .collect(),
        usage,
    }
}

/// The highest recommendation of the window (`stabilizeRecommendation`, without behavior).
fn stabilize(memory: &mut Memory, desired: i32, now: SimTime, window_ms: u64) -> i32 {
    memory.recommendations.retain(|(_, at)| now.since(*at) < window_ms);
    let best = memory.recommendations.iter().map(|(r, _)| *r).chain([desired]).max().unwrap_or(desired);
    memory.recommendations.push((desired, now));
    best
}

/// `stabilizeRecommendationWithBehaviors`: the lowest recommendation of the up window and the highest of the
/// down window bound the move from the current count.
fn stabilize_with_behavior(
    memory: &mut Memory,
    desired: i32,
    current: i32,
    now: SimTime,
    up_ms: u64,
    down_ms: u64,
) -> i32 {
    let longest = up_ms.max(down_ms);
    memory.recommendations.retain(|(_, at)| now.since(*at) < longest);
    let (mut up, mut down) = (desired, desired);
    for (r, at) in &memory.recommendations {
        if now.since(*at) < up_ms {
            up = up.min(*r);
        }
        if now.since(*at) < down_ms {
            down = down.max(*r);
        }
    }
    memory.recommendations.push((desired, now));
    current.max(up).min(down)
}

/// The most the rules allow in one direction (`calculateScaleUpLimitWithScalingRules` and its scale-down twin).
fn policy_limit(rules: &HPAScalingRules, events: &[ScaleEvent], current: i32, now: SimTime, up: bool) -> i32 {
    if rules.select_policy.as_deref() == Some("Disabled") {
        return current;
    }
    let changed_within = |period: i32| -> i32 {
        events
            .iter()
            .filter(|(at, _)| now.since(*at) < period.max(0) as u64 * 1000)
            .map(|(_, d)| if up { (*d).max(0) } else { (-*d).max(0) })
            .sum()
    };
    let limits: Vec<i32> = rules
        .policies
        .iter()
        .flatten()
        .map(|p| {
            let start = if up {
                current - changed_within(p.period_seconds)
            } else {
                current + changed_within(p.period_seconds)
            };
            match (p.type_.as_str(), up) {
                ("Pods", true) => start + p.value,
                ("Pods", false) => start - p.value,
                (_, true) => (f64::from(start) * (1.0 + f64::from(p.value) / 100.0)).ceil() as i32,
                (_, false) => (f64::from(start) * (1.0 - f64::from(p.value) / 100.0)).ceil() as i32,
            }
        })
        .collect();
    let min_policy = rules.select_policy.as_deref() == Some("Min");
    let pick = if up == min_policy { limits.iter().min() } else { limits.iter().max() };
    pick.copied().unwrap_or(if up { i32::MAX } else { 0 })
}

impl HorizontalController {
    fn schedule(&mut self, key: &str, after_ms: u64, cx: &mut Cx) {
        if self.scheduled.insert(key.to_string()) {
            self.book.requeue(key, after_ms, cx);
        }
    }

    fn selected_pods(
        &self,
        ns: &str,
        selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
        cx: &Cx,
    ) -> Vec<Pod> {
        let Some(selector) = selector.and_then(|s| LabelSelector::from_api(s).ok()).filter(|s| !s.is_empty()) else {
            return Vec::new();
        };
        cx.cached_in(Kind::Pod, ns)
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::Pod(p) if selector.matches(p.metadata.labels.as_ref()) => Some((**p).clone()),
                _ => None,
            })
            .collect()
    }

    /// `computeReplicasForMetrics`: the largest proposal of the metrics that could be measured; Err((reason,
    /// message)) when none could.
    fn compute(
        &mut self,
        metrics: &[MetricSpec],
        pods: &[Pod],
        target: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        current: i32,
        about: &Object,
        cx: &mut Cx,
    ) -> Result<Computed, (&'static str, String)> {
        let running = pods.iter().filter(|p| {
            p.metadata.deletion_timestamp.is_none()
                && p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
        });
        let running = running.count() as i64;
        let mut best: Option<(i32, String)> = None;
        let mut statuses = Vec::new();
        let mut first_error: Option<(&'static str, String)> = None;
        let mut invalid = 0;
        for metric in metrics {
            let outcome = match (metric.type_.as_str(), metric.resource.as_ref()) {
                ("Resource", Some(r)) => {
                    let name = r.name.clone();
                    let load = target.annotations.as_ref().and_then(|a| a.get(&load_annotation(&name))).and_then(|v| quantity_milli(v));
                    let samples: Vec<PodSample> = pods.iter().map(|p| sample(p, &name, load, running)).collect();
                    let utilization = r.target.average_utilization.filter(|_| r.target.type_ == "Utilization");
                    let average = r.target.average_value.as_ref().and_then(|q| quantity_milli(&q.0)).filter(|_| r.target.type_ == "AverageValue");
                    let result = if utilization.is_none() && average.is_none() {
                        Err("invalid resource metric source: neither a utilization target nor a value target was set".to_string())
                    } else {
                        replicas_for(&name, &samples, current, utilization, average, cx.now)
                    };
                    match result {
                        Ok(p) => {
                            statuses.push(MetricStatus {
                                type_: "Resource".into(),
                                resource: Some(ResourceMetricStatus {
                                    name: name.clone(),
                                    current: MetricValueStatus {
                                        average_utilization: p.utilization,
                                        average_value: Some(milli_quantity(p.average_milli)),
                                        value: None,
                                    },
                                }),
                                ..MetricStatus::default()
                            });
                            let label = if utilization.is_some() {
                                format!("{name} resource utilization (percentage of request)")
                            } else {
                                format!("{name} resource")
                            };
                            Ok((p.replicas, label))
                        }
                        Err(e) => {
                            let what = if utilization.is_some() { "utilization" } else { "usage" };
                            Err(("FailedGetResourceMetric", format!("failed to get {name} {what}: {e}")))
                        }
                    }
                }
                ("Pods", _) => Err(("FailedGetPodsMetric", "unable to get metric: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered".to_string())),
                ("Object", _) => Err(("FailedGetObjectMetric", "unable to get metric: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered".to_string())),
                ("External", _) => Err(("FailedGetExternalMetric", "unable to get external metric: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered".to_string())),
                ("ContainerResource", _) => Err(("FailedGetContainerResourceMetric", "per-container metrics are not simulated".to_string())),
                (other, _) => Err(("InvalidMetricSourceType", format!("unknown metric source type {other:?}"))),
            };
            match outcome {
                Ok((replicas, label)) => {
                    if best.as_ref().is_none_or(|(r, _)| replicas > *r) {
                        best = Some((replicas, label));
                    }
                }
                Err((reason, msg)) => {
                    invalid += 1;
                    statuses.push(MetricStatus::default());
                    self.recorder.event(cx, about, "Warning", reason, &msg);
                    first_error.get_or_insert((reason, msg));
                }
            }
        }
        // Every metric invalid, or some invalid while the valid ones would scale down: no change.
        let blocked = best.as_ref().is_none_or(|(r, _)| invalid > 0 && *r < current);
        match (first_error, best) {
            (Some((reason, msg)), _) if blocked => {
                let text =
                    format!("invalid metrics ({invalid} invalid out of {}), first error is: {msg}", metrics.len());
                self.recorder.event(cx, about, "Warning", "FailedComputeMetricsReplicas", &text);
                Err((reason, msg))
            }
            (_, Some((replicas, label))) => Ok((replicas, label, statuses)),
            (_, None) => Err(("FailedGetResourceMetric", "the HPA has no metrics".to_string())),
        }
    }

    /// `reconcileAutoscaler`.
    fn sync(&mut self, key: &str, cx: &mut Cx) {
        let Some(obj) = cx.get(Kind::HorizontalPodAutoscaler, key) else {
            self.memory.remove(key);
            return;
        };
        let Object::HorizontalPodAutoscaler(hpa) = obj.as_ref() else { return };
        self.schedule(key, SYNC_MS, cx);
        let spec = hpa.spec.clone().unwrap_or_default();
        let ns = hpa.metadata.namespace.clone().unwrap_or_default();
        let about = Object::HorizontalPodAutoscaler(hpa.clone());
        let target_ref = &spec.scale_target_ref;
        let target_kind = match (target_ref.kind.as_str(), target_ref.api_version.as_deref().unwrap_or("")) {
            ("Deployment", "apps/v1") => Some(Kind::Deployment),
            ("ReplicaSet", "apps/v1") => Some(Kind::ReplicaSet),
            ("StatefulSet", "apps/v1") => Some(Kind::StatefulSet),
            _ => None,
        };
        let target = target_kind.and_then(|k| cx.get(k, &format!("{ns}/{}", target_ref.name)));
        let Some(target) = target else {
            let missing = match target_kind {
                Some(k) => format!("{} {:?} not found", k.info().qualified(), target_ref.name),
                None => format!(
                    "no matches for kind {:?} in group {:?}",
                    target_ref.kind,
                    target_ref.api_version.as_deref().unwrap_or("").split('/').next().unwrap_or("")
                ),
            };
            let msg = format!("the HPA controller was unable to get the target's current scale: {missing}");
            self.recorder.event(cx, &about, "Warning", "FailedGetScale", &msg);
            let current = hpa.status.as_ref().and_then(|s| s.current_replicas).unwrap_or(0);
            self.write_status(
                hpa,
                current,
                current,
                None,
                vec![("AbleToScale", "False", "FailedGetScale", msg)],
                false,
                cx,
            );
            return;
        };
        let (replicas, selector, target_meta) = match target.as_ref() {
            Object::Deployment(d) => {
                (d.spec.as_ref().and_then(|s| s.replicas), d.spec.as_ref().map(|s| s.selector.clone()), &d.metadata)
            }
            Object::ReplicaSet(r) => {
                (r.spec.as_ref().and_then(|s| s.replicas), r.spec.as_ref().map(|s| s.selector.clone()), &r.metadata)
            }
            Object::StatefulSet(s) => {
                (s.spec.as_ref().and_then(|s| s.replicas), s.spec.as_ref().map(|s| s.selector.clone()), &s.metadata)
            }
            _ => return,
        };
        let replicas = replicas.unwrap_or(1);
        let (min, max) = (spec.min_replicas.unwrap_or(1), spec.max_replicas);
        let got_scale: Cond = ("AbleToScale", "True", "SucceededGetScale", ABLE_TO_GET_SCALE.into());
        if replicas == 0 && min != 0 {
            let disabled: Cond = (
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero".into(),
            );
            self.write_status(hpa, 0, 0, None, vec![got_scale, disabled], false, cx);
            return;
        }
        let (desired, reason, conditions, metrics) = if replicas > max {
            (max, "Current number of replicas above Spec.MaxReplicas".to_string(), vec![got_scale], None)
        } else if replicas < min {
            (min, "Current number of replicas below Spec.MinReplicas".to_string(), vec![got_scale], None)
        } else {
            let pods = self.selected_pods(&ns, selector.as_ref(), cx);
            let metric_specs = spec.metrics.clone().unwrap_or_default();
            match self.compute(&metric_specs, &pods, target_meta, replicas, &about, cx) {
                Err((reason, msg)) => {
                    let inactive: Cond = (
                        "ScalingActive",
                        "False",
                        reason,
                        format!("the HPA was unable to compute the replica count: {msg}"),
                    );
                    self.write_status(hpa, replicas, replicas, None, vec![got_scale, inactive], false, cx);
                    return;
                }
                Ok((proposal, metric_name, statuses)) => {
                    let (desired, conditions) = self.normalize(key, &spec, proposal, replicas, &metric_name, cx.now);
                    let reason = if desired > replicas {
                        format!("{metric_name} above target")
                    } else {
                        "All metrics below target".to_string()
                    };
                    (desired, reason, conditions, Some(statuses))
                }
            }
        };
        if desired == replicas {
            self.write_status(hpa, replicas, desired, metrics, conditions, false, cx);
            return;
        }
        let rescale =
            Rescale { hpa: key.to_string(), from: replicas, to: desired, reason, at: cx.now, conditions, metrics };
        let tag = self.book.tag(Op::Scale(Box::new(rescale)));
        cx.patch(&target, Some("scale"), serde_json::json!({"spec": {"replicas": desired}}), tag);
    }

    /// Stabilization and the limits (`normalizeDesiredReplicas` / `normalizeDesiredReplicasWithBehaviors`): the
    /// count to scale to, and the conditions that say why.
    fn normalize(
        &mut self,
        key: &str,
        spec: &k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec,
        proposal: i32,
        current: i32,
        metric_name: &str,
        now: SimTime,
    ) -> (i32, Vec<Cond>) {
        let (min, max) = (spec.min_replicas.unwrap_or(1), spec.max_replicas);
        let memory = self.memory.entry(key.to_string()).or_default();
        let too_few = Some(("TooFewReplicas", "the desired replica count is less than the minimum replica count"));
        let too_many = Some(("TooManyReplicas", "the desired replica count is more than the maximum replica count"));
        let up_limit =
            Some(("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"));
        let (stabilized, (desired, limited)) = match &spec.behavior {
            None => {
                let s = stabilize(memory, proposal, now, DOWNSCALE_WINDOW_MS);
                let cap = (2 * current).max(4);
                let out = if s < min {
                    (min, too_few)
                } else if max > cap && s > cap {
                    (cap, up_limit)
                } else if s > max {
                    (max, too_many)
                } else {
                    (s, None)
                };
                (s, out)
            }
            Some(b) => {
                let up_rules = b.scale_up.clone().unwrap_or_default();
                let down_rules = b.scale_down.clone().unwrap_or_default();
                let up_ms = up_rules.stabilization_window_seconds.unwrap_or(0).max(0) as u64 * 1000;
                let down_ms =
                    down_rules.stabilization_window_seconds.map_or(DOWNSCALE_WINDOW_MS, |s| s.max(0) as u64 * 1000);
                let s = stabilize_with_behavior(memory, proposal, current, now, up_ms, down_ms);
                memory.events.retain(|(at, _)| now.since(*at) < 3_600_000);
                let out = if s > current {
                    let cap = policy_limit(&up_rules, &memory.events, current, now, true);
                    if s > cap.min(max) && cap < max {
                        (cap, up_limit)
                    } else if s > max {
                        (max, too_many)
                    } else {
                        (s, None)
                    }
                } else if s < current {
                    let floor = policy_limit(&down_rules, &memory.events, current, now, false);
                    if s < floor.max(min) && floor > min {
                        (
                            floor,
                            Some((
                                "ScaleDownLimit",
                                "the desired replica count is decreasing faster than the maximum scale rate",
                            )),
                        )
                    } else if s < min {
                        (min, too_few)
                    } else {
                        (s, None)
                    }
                } else {
                    (s, None)
                };
                (s, out)
            }
        };
        let able: Cond = if stabilized != proposal {
            (
                "AbleToScale",
                "True",
                "ScaleDownStabilized",
                "recent recommendations were higher than current one, applying the highest recent recommendation"
                    .into(),
            )
        } else {
            ("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size".into())
        };
        let active: Cond = (
            "ScalingActive",
            "True",
            "ValidMetricFound",
            format!("the HPA was able to successfully calculate a replica count from {metric_name}"),
        );
        let limit: Cond = match limited {
            Some((reason, message)) => ("ScalingLimited", "True", reason, message.to_string()),
            None => (
                "ScalingLimited",
                "False",
                "DesiredWithinRange",
                "the desired count is within the acceptable range".into(),
            ),
        };
        (desired, vec![able, active, limit])
    }

    /// `setStatus` and `updateStatusIfNeeded`: conditions keep their transition time while their status stays.
    #[allow(clippy::too_many_arguments)]
    fn write_status(
        &mut self,
        hpa: &HorizontalPodAutoscaler,
        current: i32,
        desired: i32,
        metrics: Option<Vec<MetricStatus>>,
        conditions: Vec<Cond>,
        rescaled: bool,
        cx: &mut Cx,
    ) {
        let old = hpa.status.clone().unwrap_or_default();
        let mut merged: Vec<HorizontalPodAutoscalerCondition> = old.conditions.clone().unwrap_or_default();
        for (type_, status, reason, message) in conditions {
            let since = merged
                .iter()
                .find(|c| c.type_ == type_ && c.status == status)
                .and_then(|c| c.last_transition_time.clone())
                .unwrap_or_else(|| k8s_time(cx.now));
            let c = HorizontalPodAutoscalerCondition {
                type_: type_.into(),
                status: status.into(),
                reason: Some(reason.into()),
                message: Some(message),
                last_transition_time: Some(since),
            };
            match merged.iter_mut().find(|x| x.type_ == type_) {
                Some(slot) => *slot = c,
                None => merged.push(c),
            }
        }
        let status = HorizontalPodAutoscalerStatus {
            conditions: Some(merged),
            current_metrics: metrics,
            current_replicas: Some(current),
            desired_replicas: desired,
            last_scale_time: if rescaled { Some(k8s_time(cx.now)) } else { old.last_scale_time.clone() },
            observed_generation: hpa.metadata.generation,
        };
        if hpa.status.as_ref() == Some(&status) {
            return;
        }
        let mut updated = hpa.clone();
        updated.status = Some(status);
        let tag = self.book.tag(Op::Status);
        cx.update_status(Object::HorizontalPodAutoscaler(Box::new(updated)), tag);
    }

    fn rescaled(&mut self, r: Rescale, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(obj) = cx.get(Kind::HorizontalPodAutoscaler, &r.hpa) else { return };
        let Object::HorizontalPodAutoscaler(hpa) = obj.as_ref() else { return };
        let about = Object::HorizontalPodAutoscaler(hpa.clone());
        let mut conditions = r.conditions;
        conditions.retain(|c| c.0 != "AbleToScale");
        match result {
            Ok(ApiResponse::Object(_)) => {
                let msg = format!("New size: {}; reason: {}", r.to, r.reason);
                self.recorder.event(cx, &about, "Normal", "SuccessfulRescale", &msg);
                self.memory.entry(r.hpa.clone()).or_default().events.push((r.at, r.to - r.from));
                let able = format!("the HPA controller was able to update the target scale to {}", r.to);
                conditions.insert(0, ("AbleToScale", "True", "SucceededRescale", able));
                self.write_status(hpa, r.from, r.to, r.metrics, conditions, true, cx);
            }
            other => {
                let err = match other {
                    Ok(ApiResponse::Error(s)) => s.message.clone(),
                    _ => "the apiserver did not answer".to_string(),
                };
                let msg = format!("New size: {}; reason: {}; error: {err}", r.to, r.reason);
                self.recorder.event(cx, &about, "Warning", "FailedRescale", &msg);
                let able = format!("the HPA controller was unable to update the target scale: {err}");
                conditions.insert(0, ("AbleToScale", "False", "FailedUpdateScale", able));
                self.write_status(hpa, r.from, r.from, r.metrics, conditions, false, cx);
            }
        }
    }
}

impl Controller for HorizontalController {
    fn name(&self) -> &'static str {
        "horizontal-pod-autoscaler"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::HorizontalPodAutoscaler, Kind::Pod, Kind::Deployment, Kind::ReplicaSet, Kind::StatefulSet]
    }

    fn on_start(&mut self) {
        *self = HorizontalController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for h in cx.list(Kind::HorizontalPodAutoscaler) {
            let key = h.ns_name();
            if !self.scheduled.contains(&key) {
                self.sync(&key, cx);
            }
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::HorizontalPodAutoscaler, Change::Added(o)) => self.sync(&o.ns_name(), cx),
            // Its own status writes come back too: only a new spec is looked at at once.
            (Kind::HorizontalPodAutoscaler, Change::Modified { old, new })
                if old.meta().generation != new.meta().generation =>
            {
                self.sync(&new.ns_name(), cx)
            }
            (Kind::HorizontalPodAutoscaler, Change::Deleted(o)) => {
                self.memory.remove(&o.ns_name());
                self.recorder.forget(o);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.book.fired(token) {
            self.scheduled.remove(&key);
            self.sync(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        if let Some(Op::Scale(r)) = self.book.answered(tag) {
            self.rescaled(*r, result, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, usage: Option<i64>, ready_for_ms: Option<u64>, now: SimTime) -> PodSample {
        PodSample {
            name: name.into(),
            phase: "Running".into(),
            deleting: false,
            ready: ready_for_ms.map(|ms| (true, SimTime::ZERO.plus_ms(now.ms() - ms))),
            start: Some(SimTime::ZERO),
            requests: vec![("app".into(), Some(200))],
            usage,
        }
    }

    #[test]
    fn desired_replicas_follow_the_ratio_with_a_tolerance() {
        let now = SimTime::ZERO.plus_ms(600_000);
        let two = |u| vec![pod("a", Some(u), Some(60_000), now), pod("b", Some(u), Some(60_000), now)];
        // 180m of 200m is 90 %, against 50 %: ratio 1.8, ⌈1.8 × 2⌉ = 4.
        assert_eq!(
            replicas_for("cpu", &two(180), 2, Some(50), None, now).map(|p| (p.replicas, p.utilization)),
            Ok((4, Some(90)))
        );
        // 54 % against 50 %: within the tolerance, no change.
        assert_eq!(replicas_for("cpu", &two(108), 2, Some(50), None, now).map(|p| p.replicas), Ok(2));
        // 20 %: ⌈0.4 × 2⌉ = 1.
        assert_eq!(replicas_for("cpu", &two(40), 2, Some(50), None, now).map(|p| p.replicas), Ok(1));
        // A raw average target: 300m per pod against 100m → 6.
        assert_eq!(replicas_for("cpu", &two(300), 2, None, Some(100), now).map(|p| p.replicas), Ok(6));
    }

    #[test]
    fn pods_without_metrics_or_not_ready_hold_back_the_change() {
        let now = SimTime::ZERO.plus_ms(600_000);
        // One hot pod, one without metrics: scaling up counts the missing one as idle.
        let pods = vec![pod("a", Some(200), Some(60_000), now), pod("b", None, Some(60_000), now)];
        assert_eq!(replicas_for("cpu", &pods, 2, Some(50), None, now).map(|p| p.replicas), Ok(2));
        // A pod Ready only 5 s ago right after start counts as not ready for cpu, and as idle when scaling up:
        // (400m + 0) of 400m is 100 %, ratio 2, ⌈2 × 2⌉ = 4 (counting b's usage would have given 8).
        let early = SimTime::ZERO.plus_ms(60_000);
        let pods = vec![pod("a", Some(400), Some(30_000), early), pod("b", Some(400), Some(5_000), early)];
        assert_eq!(replicas_for("cpu", &pods, 2, Some(50), None, early).map(|p| p.replicas), Ok(4));
        assert_eq!(
            replicas_for("cpu", &[pod("a", None, Some(1), now)], 1, Some(50), None, now),
            Err("unable to get metrics for resource cpu: no metrics returned from resource metrics API".into())
        );
        let mut no_request = pod("a", Some(100), Some(60_000), now);
        no_request.requests = vec![("app".into(), None)];
        assert_eq!(
            replicas_for("cpu", &[no_request], 1, Some(50), None, now),
            Err("missing request for cpu in container app of Pod a".into())
        );
    }

    #[test]
    fn scale_down_takes_the_highest_recommendation_of_the_window() {
        let mut m = Memory::default();
        let at = |s: u64| SimTime::ZERO.plus_ms(s * 1000);
        assert_eq!(stabilize(&mut m, 6, at(0), DOWNSCALE_WINDOW_MS), 6);
        assert_eq!(stabilize(&mut m, 2, at(60), DOWNSCALE_WINDOW_MS), 6);
        assert_eq!(stabilize(&mut m, 2, at(299), DOWNSCALE_WINDOW_MS), 6);
        assert_eq!(stabilize(&mut m, 2, at(301), DOWNSCALE_WINDOW_MS), 2);
    }

    #[test]
    fn policies_limit_the_rate() {
        let rules: HPAScalingRules = serde_yaml::from_str(
            "selectPolicy: Max\npolicies: [{type: Pods, value: 4, periodSeconds: 15}, {type: Percent, value: 100, periodSeconds: 15}]\n",
        )
        .expect("rules");
        let now = SimTime::ZERO.plus_ms(100_000);
        // From 3: +4 pods or +100 % → the larger, 7.
        assert_eq!(policy_limit(&rules, &[], 3, now, true), 7);
        // From 10: 20.
        assert_eq!(policy_limit(&rules, &[], 10, now, true), 20);
        // Having just added 5 (from 5 to 10), the period started at 5: 5 + 4 = 9 or 10 → 10.
        assert_eq!(policy_limit(&rules, &[(SimTime::ZERO.plus_ms(95_000), 5)], 10, now, true), 10);
        let down: HPAScalingRules =
            serde_yaml::from_str("selectPolicy: Max\npolicies: [{type: Percent, value: 50, periodSeconds: 60}]\n")
                .expect("rules");
        assert_eq!(policy_limit(&down, &[], 10, now, false), 5);
    }
}
