//! The event stream inspector: the cluster's Kubernetes Events as `kubectl events -A` prints them, newest
//! first, cut to the latest [`EVENTS_MAX`].

use serde::{Deserialize, Serialize};

use crate::api::Kind;
use crate::apiserver::cache::WatchCache;
use crate::kubectl::printers::get::events_table;
use crate::sim::SimTime;

/// The stream shows this many of the latest events.
pub const EVENTS_MAX: usize = 100;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsView {
    /// `NAMESPACE`, `LAST SEEN`, `TYPE`, `REASON`, `OBJECT`, `MESSAGE`.
    pub headers: Vec<String>,
    /// Newest first.
    pub rows: Vec<Vec<String>>,
    /// How many events are stored in all.
    pub total: usize,
}

pub fn events_view(cache: &WatchCache, now: SimTime) -> EventsView {
    let events = cache.list(Kind::Event, None);
    let table = events_table(&events, now, true);
    let total = table.rows.len();
    EventsView { headers: table.headers, rows: table.rows.into_iter().rev().take(EVENTS_MAX).collect(), total }
}

#[cfg(test)]
mod tests {
    use crate::Cluster;

    #[test]
    fn events_come_newest_first_with_kubectls_columns() {
        let mut cluster = Cluster::new_default(1);
        let r = cluster.kubectl("kubectl run web --image=nginx", None, 30_000);
        assert_eq!(r.exit, Some(0));
        cluster.advance_ms(10_000);
        let v = cluster.events_view();
        assert_eq!(v.headers, ["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
        let reasons: Vec<&str> = v.rows.iter().filter(|r| r[4] == "Pod/web").map(|r| r[3].as_str()).collect();
        // The kubelet's Started comes after the scheduler's Scheduled, so it is listed before it.
        let started = reasons.iter().position(|r| *r == "Started").expect("Started");
        let scheduled = reasons.iter().position(|r| *r == "Scheduled").expect("Scheduled");
        assert!(started < scheduled, "{reasons:?}");
        assert!(v.total >= v.rows.len());
    }
}
