//! The HorizontalPodAutoscaler end to end over simulated usage: a steady load on a Deployment shared by its
//! running pods, scaling up within the rate limit, settling, and scaling down after the 5-minute window.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn deployment(load: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: php-apache\n  annotations:\n    kubeglass.dev/cpu-load: {load}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: php-apache}}\n  template:\n    metadata:\n      labels: {{app: php-apache}}\n    spec:\n      containers:\n      - name: php-apache\n        image: registry.k8s.io/hpa-example\n        resources:\n          requests: {{cpu: 200m}}\n"
    )
}

const HPA: &str = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: php-apache\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: php-apache\n  minReplicas: 1\n  maxReplicas: 10\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target:\n        type: Utilization\n        averageUtilization: 50\n";

fn replicas(c: &mut Cluster) -> String {
    kubectl(c, "get deployment php-apache -o 'jsonpath={.spec.replicas}'").0
}

fn rescales(c: &mut Cluster) -> String {
    kubectl(c, "get events --field-selector reason=SuccessfulRescale").0
}

#[test]
fn a_steady_load_scales_up_within_the_rate_limit_then_down_after_five_minutes() {
    let mut c = Cluster::new_default(31);
    apply(&mut c, &deployment("500m"));
    c.advance_ms(30_000);
    apply(&mut c, HPA);
    c.advance_ms(1_000);
    // 500m on one pod that requests 200m: 250 % against 50 %, so 5 pods, but at most max(2 × 1, 4) at once.
    assert_eq!(replicas(&mut c), "4");
    let events = rescales(&mut c);
    assert!(
        events.contains("New size: 4; reason: cpu resource utilization (percentage of request) above target"),
        "{events}"
    );
    let limited = kubectl(&mut c, "get hpa php-apache -o 'jsonpath={.status.conditions[2].reason}'").0;
    assert_eq!(limited, "ScaleUpLimit");
    // Four pods share it (62 %); once the new ones have been ready for a metrics window, a fifth comes.
    c.advance_ms(60_000);
    assert_eq!(replicas(&mut c), "5");
    let (out, _) = kubectl(&mut c, "get hpa");
    assert!(
        out.starts_with("NAME         REFERENCE               TARGETS        MINPODS   MAXPODS   REPLICAS   AGE\n"),
        "{out}"
    );
    assert!(
        out.contains("php-apache   Deployment/php-apache   cpu: 50%/50%   1         10        5          "),
        "{out}"
    );
    let status = "get hpa php-apache -o 'jsonpath={.status.currentReplicas}/{.status.desiredReplicas} {.status.currentMetrics[0].resource.current.averageValue}'";
    assert_eq!(kubectl(&mut c, status).0, "5/5 100m");

    // The load drops to a fifth: the recommendation is 1 at once, but the 5-minute window keeps 5 until then.
    kubectl(&mut c, "annotate deployment php-apache kubeglass.dev/cpu-load=100m --overwrite");
    c.advance_ms(240_000);
    assert_eq!(replicas(&mut c), "5");
    let stabilized = kubectl(&mut c, "get hpa php-apache -o 'jsonpath={.status.conditions[0].reason}'").0;
    assert_eq!(stabilized, "ScaleDownStabilized");
    c.advance_ms(90_000);
    assert_eq!(replicas(&mut c), "1");
    let events = rescales(&mut c);
    assert!(events.contains("New size: 1; reason: All metrics below target"), "{events}");
}

#[test]
fn pods_without_metrics_leave_the_autoscaler_unable_to_compute() {
    let mut c = Cluster::new_default(32);
    let manifest = deployment("500m").replace("  annotations:\n    kubeglass.dev/cpu-load: 500m\n", "");
    apply(&mut c, &manifest);
    c.advance_ms(30_000);
    apply(&mut c, HPA);
    c.advance_ms(20_000);
    let (out, _) = kubectl(&mut c, "get hpa php-apache");
    assert!(out.contains("cpu: <unknown>/50%"), "{out}");
    let (events, _) = kubectl(&mut c, "get events --field-selector reason=FailedGetResourceMetric");
    assert!(
        events.contains("failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"),
        "{events}"
    );
    let active = "get hpa php-apache -o 'jsonpath={.status.conditions[1].status} {.status.conditions[1].reason}'";
    assert_eq!(kubectl(&mut c, active).0, "False FailedGetResourceMetric");
    assert_eq!(replicas(&mut c), "1");
    // A pod's own usage annotation is a metric too.
    let pod = kubectl(&mut c, "get pods -l app=php-apache -o name").0.trim().to_string();
    kubectl(&mut c, &format!("annotate {pod} kubeglass.dev/cpu-usage=300m"));
    c.advance_ms(16_000);
    // 300m of 200m: 150 % against 50 %, ratio 3 → 3 pods.
    assert_eq!(replicas(&mut c), "3");
}

#[test]
fn a_scale_down_policy_removes_one_pod_a_minute() {
    let mut c = Cluster::new_default(33);
    apply(&mut c, &deployment("1000m"));
    c.advance_ms(30_000);
    let behavior = "  behavior:\n    scaleDown:\n      stabilizationWindowSeconds: 0\n      policies:\n      - type: Pods\n        value: 1\n        periodSeconds: 60\n";
    apply(&mut c, &format!("{HPA}{behavior}"));
    c.advance_ms(120_000);
    assert_eq!(replicas(&mut c), "10");
    kubectl(&mut c, "annotate deployment php-apache kubeglass.dev/cpu-load=10m --overwrite");
    let mut seen = Vec::new();
    for _ in 0..6 {
        c.advance_ms(30_000);
        seen.push(replicas(&mut c));
    }
    // One pod per minute, never two within 60 s.
    assert_eq!(seen, ["9", "9", "8", "8", "7", "7"]);
}

#[test]
fn kubectl_autoscale_creates_the_autoscaler_and_checks_its_flags_as_kubectl_does() {
    let mut c = Cluster::new_default(32);
    apply(&mut c, &deployment("500m"));
    c.advance_ms(30_000);
    assert_eq!(
        kubectl(&mut c, "autoscale deployment php-apache --min=2"),
        ("error: required flag(s) \"max\" not set\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "autoscale deployment php-apache --min=3 --max=2").0,
        "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 3\n"
    );
    assert_eq!(
        kubectl(&mut c, "autoscale deployment php-apache --max=5 --cpu-percent=50 --cpu=50%").0,
        "error: --cpu-percent and --cpu are mutually exclusive\n"
    );
    let pod = kubectl(&mut c, "get pods -o name").0;
    let (out, code) = kubectl(&mut c, &format!("autoscale {} --max=3", pod.lines().next().unwrap_or("")));
    assert_eq!(
        (out.as_str(), code),
        ("error: cannot autoscale a Pod: could not find scale subresource for /v1, Resource=pods in discovery information\n", Some(1))
    );
    let (dry, _) = kubectl(&mut c, "autoscale deploy/php-apache --max=4 --memory=200 --dry-run=client -o yaml");
    assert!(dry.contains("apiVersion: autoscaling/v2\n"), "{dry}");
    assert!(dry.contains("averageValue: 200Mi"), "{dry}");
    assert!(!dry.contains("minReplicas"), "{dry}");

    // With no target the apiserver's defaulting adds 80 % CPU utilization; the autoscaler then acts on it.
    assert_eq!(
        kubectl(&mut c, "autoscale deployment php-apache --min=2 --max=6"),
        ("horizontalpodautoscaler.autoscaling/php-apache autoscaled\n".to_string(), Some(0))
    );
    let spec = "get hpa php-apache -o 'jsonpath={.spec.minReplicas} {.spec.maxReplicas} {.spec.metrics[0].resource.target.averageUtilization} {.spec.scaleTargetRef.kind}'";
    assert_eq!(kubectl(&mut c, spec).0, "2 6 80 Deployment");
    c.advance_ms(30_000);
    assert_ne!(replicas(&mut c), "1", "the autoscaler acts on the object kubectl created");
    assert!(kubectl(&mut c, "autoscale deployment php-apache --max=6").0.contains("AlreadyExists"));
}
