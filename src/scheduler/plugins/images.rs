//! ImageLocality: favours nodes that already have the pod's images, weighted by image size and by how many
//! nodes share the image (so one node holding a common image is not overloaded). Images come from the
//! node's `status.images`. Counterpart: `pkg/scheduler/framework/plugins/imagelocality`.

use super::super::cache::Cache;
use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::PodInfo;
use super::resources::MAX_NODE_SCORE;

const MB: i64 = 1024 * 1024;
/// Below this sum the score is 0 (a small image is quick to pull anyway).
const MIN_THRESHOLD: i64 = 23 * MB;
/// Per container, above this sum the score is 100.
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// The image name as nodes report it: `:latest` added when the name has no tag.
pub fn normalized_image_name(name: &str) -> String {
    let colon = name.rfind(':').map_or(-1, |i| i as i64);
    let slash = name.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        format!("{name}:latest")
    } else {
        name.to_string()
    }
}

/// The pod's images (init containers first), as nodes name them.
pub fn pod_images(pod: &PodInfo) -> Vec<String> {
    let Some(spec) = pod.pod().spec.as_ref() else { return Vec::new() };
    spec.init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .map(|c| normalized_image_name(c.image.as_deref().unwrap_or("")))
        .collect()
}

/// The score for a node given the pod's images (see [`pod_images`]).
pub fn score(images: &[String], node: &NodeInfo, cache: &Cache) -> i64 {
    let total_nodes = cache.node_count().max(1) as f64;
    let mut sum: i64 = 0;
    for name in images {
        if let Some(size) = node.images.get(name) {
            let spread = cache.image_nodes(name) as f64 / total_nodes;
            sum = sum.saturating_add((*size as f64 * spread) as i64);
        }
    }
    let max_threshold = MAX_CONTAINER_THRESHOLD * images.len().max(1) as i64;
    let sum = sum.clamp(MIN_THRESHOLD, max_threshold);
    MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_names_get_latest() {
        assert_eq!(normalized_image_name("nginx"), "nginx:latest");
        assert_eq!(normalized_image_name("nginx:1.27"), "nginx:1.27");
        assert_eq!(normalized_image_name("localhost:5000/app"), "localhost:5000/app:latest");
    }
}
