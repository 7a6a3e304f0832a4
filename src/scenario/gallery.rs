//! The guided gallery: one scenario for each trap the seed documents warn about (what keeps working and what
//! stops when a component goes down, and why). Each is a scenario file under `gallery/`, built into the
//! engine; its `metadata.description` is the explanation the web app shows, written to say what to watch on
//! the diagram. A test plays every one and checks its expectations, so an explanation cannot drift from what
//! the simulation does.

use super::file::{parse, Scenario};

/// One gallery entry: a short title for the list and the scenario's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub title: &'static str,
    pub yaml: &'static str,
}

impl Entry {
    /// The scenario (the test below proves every entry reads).
    pub fn scenario(&self) -> Result<Scenario, super::ScenarioError> {
        parse(self.yaml, &format!("gallery/{}", self.title))
    }
}

macro_rules! entry {
    ($title:expr, $file:expr) => {
        Entry { title: $title, yaml: include_str!(concat!("gallery/", $file)) }
    };
}

/// Every entry, in the order the page lists them.
pub const GALLERY: [Entry; 10] = [
    entry!("API server down, pods keep running", "01-apiserver-down.yaml"),
    entry!("Scheduler down and the nodeName bypass", "02-scheduler-down.yaml"),
    entry!("Controller manager down", "03-controller-manager-down.yaml"),
    entry!("Kubelet down: NotReady", "04-kubelet-down.yaml"),
    entry!("kube-proxy down: stale rules", "05-kube-proxy-down.yaml"),
    entry!("Static pods", "06-static-pods.yaml"),
    entry!("401, 403 and admission", "07-authn-authz-admission.yaml"),
    entry!("etcd loses its majority", "08-etcd-majority.yaml"),
    entry!("Rolling update", "09-rolling-update.yaml"),
    entry!("Node failure and eviction", "10-node-failure.yaml"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::runner;
    use crate::scenario::session::{open_file, Session};

    #[test]
    fn every_entry_plays_with_its_expectations_holding_and_the_page_can_open_it() {
        let mut names = std::collections::BTreeSet::new();
        let mut failed = Vec::new();
        for entry in GALLERY {
            let scenario = entry.scenario().unwrap_or_else(|e| panic!("{e}"));
            assert!(names.insert(scenario.name.clone()), "two entries named {}", scenario.name);
            assert!(scenario.description.len() > 150, "{}: explain what to watch", scenario.name);
            assert!(scenario.steps.iter().any(|s| s.expect.is_some()), "{}: check something", scenario.name);
            assert!(open_file(entry.yaml, entry.title).is_ok());
            let report = runner::run(&scenario);
            if !report.passed() {
                failed.push(format!("{} failed:\n{}", scenario.name, report.transcript(false)));
                continue;
            }
            // The page's replay reaches the state the runner reached.
            let (session, _) = Session::replay(&scenario);
            assert_eq!(session.cluster().kernel().trace.hash(), report.trace_hash, "{}", scenario.name);
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
