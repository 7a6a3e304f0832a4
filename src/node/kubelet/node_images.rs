//! The images a node reports in `status.images`: the kubelet's image cache, refreshed from containerd's
//! `ListImages` every 30 s, largest first, at most `nodeStatusMaxImages` (50) of them, each named by its
//! digest reference then its tag (at most 5 names). The scheduler's ImageLocality score reads them.
//! Counterpart: `pkg/kubelet/nodestatus/setters.go` (`Images`), `pkg/kubelet/images/image_gc_manager.go`
//! (the image cache and its 30 s refresh).

use serde_json::{json, Value};

use crate::node::runtime::Image;

/// `nodeStatusMaxImages`, the kubelet configuration's default.
pub const NODE_STATUS_MAX_IMAGES: usize = 50;
/// `MaxNamesPerImageInNodeStatus`.
pub const MAX_NAMES_PER_IMAGE: usize = 5;
/// How often the image cache asks the runtime for its images.
pub const IMAGE_CACHE_REFRESH_MS: u64 = 30_000;

/// The image cache from a `ListImages` answer: largest first (equal sizes by id, descending, as the
/// kubelet's `ByImageSize` sorts), cut to what the node status reports.
pub fn cache(mut images: Vec<Image>) -> Vec<Image> {
    images.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| b.id.cmp(&a.id)));
    images.truncate(NODE_STATUS_MAX_IMAGES);
    images
}

/// `status.images` for the cached images: `names` are the repo digests, then the repo tags.
pub fn status_images(images: &[Image]) -> Value {
    let list: Vec<Value> = images
        .iter()
        .map(|i| {
            let names: Vec<&str> =
                [i.digest_ref.as_str(), i.name.as_str()].into_iter().take(MAX_NAMES_PER_IMAGE).collect();
            json!({"names": names, "sizeBytes": i.size})
        })
        .collect();
    Value::Array(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::runtime::image_info;

    #[test]
    fn the_largest_images_are_reported_first_and_at_most_fifty() {
        let many: Vec<Image> = (0..60).map(|i| image_info(&format!("example.com/app{i}:v1"))).collect();
        let mut sizes: Vec<u64> = many.iter().map(|i| i.size).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let kept = cache(many);
        assert_eq!(kept.len(), NODE_STATUS_MAX_IMAGES);
        assert_eq!(kept.iter().map(|i| i.size).collect::<Vec<_>>(), sizes[..NODE_STATUS_MAX_IMAGES].to_vec());
        let nginx = image_info("nginx:1.27");
        let status = status_images(std::slice::from_ref(&nginx));
        assert_eq!(
            status,
            json!([{"names": [nginx.digest_ref, "docker.io/library/nginx:1.27"], "sizeBytes": nginx.size}])
        );
        assert!(status[0]["names"][0].as_str().is_some_and(|n| n.starts_with("docker.io/library/nginx@sha256:")));
    }
}
