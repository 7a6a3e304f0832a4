//! NodeResourcesFit (the filter: pod count, cpu, memory, ephemeral storage, extended resources; the
//! LeastAllocated score) and NodeResourcesBalancedAllocation (the score favouring nodes whose cpu and memory
//! use stay even). Counterpart: `pkg/scheduler/framework/plugins/noderesources` (fit.go, least_allocated.go,
//! balanced_allocation.go, resource_allocation.go).

use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::PodInfo;
use super::Rejection;

pub const MAX_NODE_SCORE: i64 = 100;

/// Every resource the node lacks for the pod (all of them, as the real filter reports them).
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let mut reasons: Vec<String> = Vec::new();
    if node.pods.len() as i64 + 1 > node.allowed_pods {
        reasons.push("Too many pods".into());
    }
    let want = &pod.requests;
    if !want.is_zero() {
        let (alloc, used) = (&node.allocatable, &node.requested);
        if want.milli_cpu > 0 && want.milli_cpu > alloc.milli_cpu - used.milli_cpu {
            reasons.push("Insufficient cpu".into());
        }
        if want.memory > 0 && want.memory > alloc.memory - used.memory {
            reasons.push("Insufficient memory".into());
        }
        if want.ephemeral_storage > 0 && want.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage {
            reasons.push("Insufficient ephemeral-storage".into());
        }
        for (name, q) in &want.scalar {
            let free = alloc.scalar.get(name).copied().unwrap_or(0) - used.scalar.get(name).copied().unwrap_or(0);
            if *q > 0 && *q > free {
                reasons.push(format!("Insufficient {name}"));
            }
        }
    }
    (!reasons.is_empty()).then_some(Rejection { plugin: "NodeResourcesFit", reasons, unresolvable: false })
}

fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        0
    } else {
        (capacity - requested) * MAX_NODE_SCORE / capacity
    }
}

/// LeastAllocated over cpu and memory (weight 1 each), counting the non-zero defaults.
pub fn least_allocated(pod: &PodInfo, node: &NodeInfo) -> i64 {
    let pairs = [
        (node.non_zero_requested.0 + pod.non_zero.0, node.allocatable.milli_cpu),
        (node.non_zero_requested.1 + pod.non_zero.1, node.allocatable.memory),
    ];
    let (mut score, mut weights) = (0, 0);
    for (requested, capacity) in pairs {
        if capacity == 0 {
            continue;
        }
        score += least_requested(requested, capacity);
        weights += 1;
    }
    if weights == 0 {
        0
    } else {
        score / weights
    }
}

/// Whether BalancedAllocation scores the pod: best-effort pods (no cpu or memory request) are skipped.
pub fn balanced_applies(pod: &PodInfo) -> bool {
    pod.requests.milli_cpu != 0 || pod.requests.memory != 0
}

/// (1 - the standard deviation of the cpu and memory fractions) × 100, with the pod's actual requests.
pub fn balanced_allocation(pod: &PodInfo, node: &NodeInfo) -> i64 {
    let pairs = [
        (node.requested.milli_cpu + pod.requests.milli_cpu, node.allocatable.milli_cpu),
        (node.requested.memory + pod.requests.memory, node.allocatable.memory),
    ];
    let fractions: Vec<f64> =
        pairs.iter().filter(|(_, cap)| *cap != 0).map(|(req, cap)| (*req as f64 / *cap as f64).min(1.0)).collect();
    let std = match fractions.len() {
        2 => ((fractions[0] - fractions[1]) / 2.0).abs(),
        n if n > 2 => {
            let mean = fractions.iter().sum::<f64>() / n as f64;
            (fractions.iter().map(|f| (f - mean) * (f - mean)).sum::<f64>() / n as f64).sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}
