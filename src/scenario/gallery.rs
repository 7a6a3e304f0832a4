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
pub const GALLERY: [Entry; 11] = [
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
    entry!("metrics-server and kubectl top", "11-metrics-server.yaml"),
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

    #[test]
    fn the_metrics_entry_ends_before_any_scrape_and_top_works_half_a_minute_later() {
        let entry = GALLERY.iter().find(|e| e.yaml.contains("metricsServer: true")).expect("a metrics-server entry");
        let (mut session, _) = Session::replay(&entry.scenario().unwrap());
        let cluster = session.cluster_mut();
        assert_eq!(
            runner::kubectl(cluster, "top node", None).0,
            "error: metrics not available yet\n",
            "the person sees the wait"
        );
        cluster.advance_ms(35_000);
        let (nodes, code, _) = runner::kubectl(cluster, "top node", None);
        assert_eq!(code, Some(0), "{nodes}");
        let header: Vec<&str> = nodes.lines().next().unwrap_or("").split_whitespace().collect();
        assert_eq!(header, ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]);
        assert_eq!(nodes.lines().count(), 1 + 3, "{nodes}");
        let (pods, code, _) = runner::kubectl(cluster, "top pod -l app=web", None);
        assert_eq!(code, Some(0), "{pods}");
        let rows: Vec<Vec<&str>> = pods.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(rows.len(), 2, "{pods}");
        assert!(rows.iter().all(|r| r[1..] == ["120m", "48Mi"]), "{pods}");
    }
}
