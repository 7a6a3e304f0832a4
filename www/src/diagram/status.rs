//! How the diagram colours what the engine reports: a pod's STATUS column (as `kubectl get pods` prints it)
//! becomes one of a few colour classes, and long names are shortened to fit a chip.

/// The colour class of a pod chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PodClass {
    /// Running and every container ready.
    Running,
    /// Running, not every container ready yet.
    Starting,
    /// Waiting for a node (unscheduled) or for its containers to be created.
    Pending,
    /// Being deleted.
    Terminating,
    /// Finished successfully.
    Succeeded,
    /// Failed, crash-looping, or unable to pull its image.
    Failed,
}

impl PodClass {
    /// Of the STATUS column and the READY column (`1/2`) of `kubectl get pods`.
    pub fn of(status: &str, ready: &str) -> PodClass {
        match status {
            "Running" => {
                let all_ready = ready.split_once('/').is_some_and(|(r, t)| r == t);
                if all_ready {
                    PodClass::Running
                } else {
                    PodClass::Starting
                }
            }
            "Pending" | "ContainerCreating" | "PodInitializing" => PodClass::Pending,
            s if s.starts_with("Init:") && !s.contains("Error") && !s.contains("BackOff") => PodClass::Pending,
            "Terminating" => PodClass::Terminating,
            "Completed" | "Succeeded" => PodClass::Succeeded,
            _ => PodClass::Failed,
        }
    }

    /// The CSS class suffix (`pod-running`, …).
    pub fn css(self) -> &'static str {
        match self {
            PodClass::Running => "running",
            PodClass::Starting => "starting",
            PodClass::Pending => "pending",
            PodClass::Terminating => "terminating",
            PodClass::Succeeded => "succeeded",
            PodClass::Failed => "failed",
        }
    }

    /// Every class, in the order the legend lists them.
    pub const ALL: [PodClass; 6] = [
        PodClass::Running,
        PodClass::Starting,
        PodClass::Pending,
        PodClass::Terminating,
        PodClass::Succeeded,
        PodClass::Failed,
    ];

    /// What the legend calls it.
    pub fn legend(self) -> &'static str {
        match self {
            PodClass::Running => "Running",
            PodClass::Starting => "Running, not ready",
            PodClass::Pending => "Pending / creating",
            PodClass::Terminating => "Terminating",
            PodClass::Succeeded => "Completed",
            PodClass::Failed => "Failed / back-off",
        }
    }
}

/// Whether a node's STATUS column (`Ready`, `NotReady,SchedulingDisabled`, …) says Ready.
pub fn node_ready(status: &str) -> bool {
    status.split(',').next() == Some("Ready")
}

/// `name` cut to at most `max` characters, keeping its end (where generated names differ) behind an ellipsis:
/// `web-7957885594-drk9t` → `web-79…-drk9t`.
pub fn shorten(name: &str, max: usize) -> String {
    let count = name.chars().count();
    if count <= max {
        return name.to_string();
    }
    if max <= 1 {
        return "…".chars().take(max).collect();
    }
    let tail = (max - 1) * 2 / 5;
    let head = max - 1 - tail;
    let mut out: String = name.chars().take(head).collect();
    out.push('…');
    out.extend(name.chars().skip(count - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_classes_follow_the_status_column() {
        assert_eq!(PodClass::of("Running", "1/1"), PodClass::Running);
        assert_eq!(PodClass::of("Running", "0/1"), PodClass::Starting);
        assert_eq!(PodClass::of("Running", "1/2"), PodClass::Starting);
        assert_eq!(PodClass::of("Pending", "0/1"), PodClass::Pending);
        assert_eq!(PodClass::of("ContainerCreating", "0/1"), PodClass::Pending);
        assert_eq!(PodClass::of("Init:0/1", "0/1"), PodClass::Pending);
        assert_eq!(PodClass::of("Init:CrashLoopBackOff", "0/1"), PodClass::Failed);
        assert_eq!(PodClass::of("Terminating", "1/1"), PodClass::Terminating);
        assert_eq!(PodClass::of("Completed", "0/1"), PodClass::Succeeded);
        for failed in ["Error", "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "Failed", "Evicted"] {
            assert_eq!(PodClass::of(failed, "0/1"), PodClass::Failed, "{failed}");
        }
    }

    #[test]
    fn every_class_has_its_own_css_name() {
        let mut names: Vec<_> = PodClass::ALL.iter().map(|c| c.css()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PodClass::ALL.len());
    }

    #[test]
    fn node_readiness_reads_the_first_word() {
        assert!(node_ready("Ready"));
        assert!(node_ready("Ready,SchedulingDisabled"));
        assert!(!node_ready("NotReady"));
        assert!(!node_ready("Unknown"));
    }

    #[test]
    fn shortening_keeps_the_distinguishing_end() {
        assert_eq!(shorten("web", 10), "web");
        assert_eq!(shorten("web-7957885594-drk9t", 20), "web-7957885594-drk9t");
        let short = shorten("web-7957885594-drk9t", 14);
        assert_eq!(short.chars().count(), 14);
        assert!(short.starts_with("web-"));
        assert!(short.ends_with("drk9t"));
        assert!(short.contains('…'));
        assert_eq!(shorten("abc", 1), "…");
        assert_eq!(shorten("abc", 0), "");
    }
}
