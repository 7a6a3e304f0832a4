//! Indexed Jobs (`completionMode: Indexed`): each pod carries its completion index in the
//! `batch.kubernetes.io/job-completion-index` annotation and label, its hostname is `<job>-<index>`, its
//! containers get `JOB_COMPLETION_INDEX` from the annotation, and the Job's `status.completedIndexes` lists
//! the succeeded indexes as intervals (`0-2,4,6,7`). Counterpart: `pkg/controller/job/indexed_job_utils.go`.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{EnvVar, EnvVarSource, ObjectFieldSelector, Pod, PodTemplateSpec};

pub const INDEX_KEY: &str = "batch.kubernetes.io/job-completion-index";
const ENV: &str = "JOB_COMPLETION_INDEX";
/// The longest generateName prefix the apiserver keeps (`names.MaxGeneratedNameLength`).
const MAX_GENERATED_NAME: usize = 58;

/// The pod's completion index, if its annotation holds a valid one.
pub fn completion_index(pod: &Pod) -> Option<i32> {
    let v = pod.metadata.annotations.as_ref()?.get(INDEX_KEY)?;
    v.parse::<i32>().ok().filter(|i| *i >= 0)
}

/// `status.completedIndexes` (or `failedIndexes`) read back, keeping indexes below `completions`.
pub fn parse(text: &str, completions: i32) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<i32>(), b.parse::<i32>()),
            None => (part.parse::<i32>(), part.parse::<i32>()),
        };
        let (Ok(first), Ok(last)) = (first, last) else { continue };
        out.extend((first.max(0)..=last.min(completions.saturating_sub(1))).take(completions.max(0) as usize));
    }
    out
}

/// Indexes as intervals: runs of three or more as `a-b`, pairs as `a,b`.
pub fn format(set: &BTreeSet<i32>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = set.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&(last + 1)) {
            last += 1;
            iter.next();
        }
        match last - first {
            0 => parts.push(first.to_string()),
            1 => parts.push(format!("{first},{last}")),
            _ => parts.push(format!("{first}-{last}")),
        }
    }
    parts.join(",")
}

/// The lowest `count` indexes below `completions` neither succeeded nor held by an active pod.
pub fn first_pending(succeeded: &BTreeSet<i32>, active: &BTreeSet<i32>, count: usize, completions: i32) -> Vec<i32> {
    (0..completions.max(0)).filter(|i| !succeeded.contains(i) && !active.contains(i)).take(count).collect()
}

/// `<job>-<index>-`, the job name cut so the prefix fits the apiserver's limit.
pub fn generate_name(job: &str, index: i32) -> String {
    let suffix = format!("-{index}-");
    let keep = MAX_GENERATED_NAME.saturating_sub(suffix.len()).min(job.len());
    format!("{}{suffix}", job.get(..keep).unwrap_or(job))
}

/// Stamps a pod template with its index: annotation, label, hostname and the environment variable.
pub fn stamp(template: &mut PodTemplateSpec, job: &str, index: i32) {
    let meta = template.metadata.get_or_insert_with(Default::default);
    meta.annotations.get_or_insert_with(Default::default).insert(INDEX_KEY.into(), index.to_string());
    meta.labels.get_or_insert_with(Default::default).insert(INDEX_KEY.into(), index.to_string());
    let Some(spec) = template.spec.as_mut() else { return };
    spec.hostname = Some(format!("{job}-{index}"));
    let containers = spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten());
    for c in containers {
        let env = c.env.get_or_insert_with(Vec::new);
        if env.iter().any(|e| e.name == ENV) {
            continue;
        }
        env.push(EnvVar {
            name: ENV.into(),
            value_from: Some(EnvVarSource {
                field_ref: Some(ObjectFieldSelector {
                    field_path: format!("metadata.annotations['{INDEX_KEY}']"),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completed_indexes_read_and_print_as_intervals() {
        let set = parse("0-2,4,6,7,9-11", 11);
        assert_eq!(set.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 4, 6, 7, 9, 10]);
        assert_eq!(format(&set), "0-2,4,6,7,9,10");
        assert_eq!(format(&BTreeSet::new()), "");
        assert_eq!(parse("x,3-y,-5", 10), BTreeSet::new(), "garbage is skipped");
        assert_eq!(parse("0-2147483647", 3).len(), 3, "bounded by completions");
    }

    #[test]
    fn pending_indexes_skip_succeeded_and_running_ones() {
        let succeeded: BTreeSet<i32> = [0, 2].into();
        let active: BTreeSet<i32> = [1].into();
        assert_eq!(first_pending(&succeeded, &active, 2, 6), [3, 4]);
        assert_eq!(first_pending(&succeeded, &active, 9, 4), [3]);
    }

    #[test]
    fn generated_names_keep_the_index_within_the_limit() {
        assert_eq!(generate_name("pi", 3), "pi-3-");
        let long = "a".repeat(70);
        let name = generate_name(&long, 12);
        assert_eq!(name.len(), MAX_GENERATED_NAME);
        assert!(name.ends_with("a-12-"));
    }
}
