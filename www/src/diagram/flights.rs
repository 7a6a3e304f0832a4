//! Messages on the wire (the engine's `View::in_flight`), each drawn where it is at the shown simulated
//! instant: an arrow that grows from its sender towards its receiver between its send and delivery times,
//! with a tag naming the verb or event type. A message whose receiver has stopped is drawn dashed: it will
//! be dropped on arrival.

use std::collections::BTreeMap;

use kubeglass::view::MessageView;
use leptos::prelude::*;

use super::geometry::Point;
use super::layout::Layout;
use super::States;
use crate::app::use_sim;

/// The message classes the engine reports, with what the legend calls them.
pub const CLASSES: [(&str, &str); 7] = [
    ("request", "Request (to kube-apiserver)"),
    ("response", "Response"),
    ("watch", "Watch event"),
    ("etcd", "etcd request / reply"),
    ("cri", "CRI call (kubelet ↔ containerd)"),
    ("kubelet", "kubelet API (logs, exec, metrics)"),
    ("network", "Connection refused / reset"),
];

/// How far along its path a message is at `shown`: 0 when sent, 1 when delivered.
pub fn progress(shown: f64, sent_ms: u64, deliver_ms: u64) -> f64 {
    if deliver_ms <= sent_ms {
        return 1.0;
    }
    ((shown - sent_ms as f64) / (deliver_ms - sent_ms) as f64).clamp(0.0, 1.0)
}

/// Where a message's tag sits relative to the message: a little to the left of its direction of travel, so
/// a request and its response on the same connection keep to opposite sides.
pub fn tag_offset(a: Point, b: Point) -> Point {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let length = (dx * dx + dy * dy).sqrt();
    if length < f64::EPSILON {
        return Point { x: 0.0, y: -TAG_DISTANCE };
    }
    Point { x: dy / length * TAG_DISTANCE, y: -dx / length * TAG_DISTANCE }
}

const TAG_DISTANCE: f64 = 12.0;

/// The width of a tag for `label` (10-unit monospace text with a little padding).
pub fn tag_width(label: &str) -> f64 {
    label.chars().count() as f64 * 6.1 + 12.0
}

/// The tag each message shows. Messages sent together on one connection travel on top of one another (a
/// controller starting a dozen watches, a watch event fanned out twice to one client): the first of them
/// is tagged for all, `watch pods +11`, and the others show no tag.
pub fn tags(in_flight: &[MessageView]) -> BTreeMap<u64, String> {
    let mut groups: BTreeMap<(&str, &str, u64, u64), Vec<&MessageView>> = BTreeMap::new();
    for m in in_flight {
        groups.entry((&m.from, &m.to, m.sent_ms, m.deliver_ms)).or_default().push(m);
    }
    groups
        .into_values()
        .filter_map(|group| {
            let first = group.iter().min_by_key(|m| m.id)?;
            let tag = match group.len() {
                1 => first.label.clone(),
                n => format!("{} +{}", first.label, n - 1),
            };
            Some((first.id, tag))
        })
        .collect()
}

#[component]
pub fn Flights(layout: Memo<Layout>) -> impl IntoView {
    let view = use_sim().view();
    let flights = Memo::new(move |_| view.with(|v| v.in_flight.clone()));
    let tags = Memo::new(move |_| flights.with(|f| tags(f)));
    view! {
        <g class="flights" aria-hidden="true">
            <For each=move || flights.get() key=|m| m.id let:message>
                <Flight
                    tag=Signal::derive({
                        let id = message.id;
                        move || tags.with(|t| t.get(&id).cloned())
                    })
                    message
                    layout
                />
            </For>
        </g>
    }
}

#[component]
fn Flight(message: MessageView, layout: Memo<Layout>, tag: Signal<Option<String>>) -> impl IntoView {
    let sim = use_sim();
    let states = expect_context::<Memo<States>>();
    let path = {
        let (from, to) = (message.from.clone(), message.to.clone());
        Memo::new(move |_| layout.with(|l| l.path(&from, &to)))
    };
    let (sent, deliver) = (message.sent_ms, message.deliver_ms);
    let at = Memo::new(move |_| progress(sim.time.get(), sent, deliver));
    let doomed = {
        let to = message.to.clone();
        Memo::new(move |_| states.with(|s| !s.running(&to)))
    };
    let title = format!(
        "{} → {}: {}{}",
        message.from,
        message.to,
        message.label,
        message.object.as_ref().map(|o| format!(" ({o})")).unwrap_or_default()
    );
    move || {
        let (a, b) = path.get()?;
        let here = move || a.lerp(b, at.get());
        let angle = a.angle_to(b);
        let offset = tag_offset(a, b);
        Some(view! {
            <g
                class=format!("flight flight-{}", message.class)
                class:doomed=move || doomed.get()
                data-from=message.from.clone()
                data-to=message.to.clone()
                data-class=message.class.clone()
                data-label=message.label.clone()
            >
                <title>{title.clone()}</title>
                <line class="track" x1=a.x y1=a.y x2=b.x y2=b.y></line>
                <line class="trail" x1=a.x y1=a.y x2=move || here().x y2=move || here().y></line>
                <path
                    class="head"
                    d="M2,0 L-8,-5 L-8,5 Z"
                    transform=move || {
                        let p = here();
                        format!("translate({:.2},{:.2}) rotate({angle:.1})", p.x, p.y)
                    }
                ></path>
                {move || {
                    tag.get()
                        .map(|text| {
                            let width = tag_width(&text);
                            view! {
                                <g
                                    class="tag"
                                    transform=move || {
                                        let p = here();
                                        format!("translate({:.2},{:.2})", p.x + offset.x, p.y + offset.y)
                                    }
                                >
                                    <rect x=-width / 2.0 y="-7.5" width=width height="15" rx="7.5"></rect>
                                    <text text-anchor="middle">{text}</text>
                                </g>
                            }
                        })
                }}
            </g>
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_runs_from_send_to_delivery() {
        assert_eq!(progress(100.0, 100, 104), 0.0);
        assert_eq!(progress(101.0, 100, 104), 0.25);
        assert_eq!(progress(104.0, 100, 104), 1.0);
        assert_eq!(progress(99.0, 100, 104), 0.0, "never before the sender");
        assert_eq!(progress(200.0, 100, 104), 1.0, "never past the receiver");
        assert_eq!(progress(100.0, 100, 100), 1.0, "an instant delivery is already there");
    }

    #[test]
    fn a_request_and_its_response_keep_to_opposite_sides() {
        let (a, b) = (Point { x: 0.0, y: 100.0 }, Point { x: 0.0, y: 0.0 });
        let up = tag_offset(a, b);
        let down = tag_offset(b, a);
        assert_eq!((up.x + down.x, up.y + down.y), (0.0, 0.0));
        assert!((up.x.hypot(up.y) - TAG_DISTANCE).abs() < 1e-9);
        // Travelling right, the tag sits above.
        let right = tag_offset(Point { x: 0.0, y: 0.0 }, Point { x: 10.0, y: 0.0 });
        assert!(right.y < 0.0 && right.x.abs() < 1e-9);
        assert_eq!(tag_offset(a, a), Point { x: 0.0, y: -TAG_DISTANCE });
    }

    #[test]
    fn every_class_the_engine_reports_is_in_the_legend() {
        let mut cluster = kubeglass::Cluster::new_default(1);
        cluster.stop("kube-scheduler").unwrap();
        cluster.start("kube-scheduler").unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.extend(cluster.view().in_flight.into_iter().map(|m| m.class));
            cluster.run_next_instant();
        }
        assert!(seen.len() >= 3, "{seen:?}");
        for class in seen {
            assert!(CLASSES.iter().any(|(c, _)| *c == class), "{class} has a legend entry");
        }
    }

    fn message(id: u64, from: &str, to: &str, label: &str, sent_ms: u64, deliver_ms: u64) -> MessageView {
        MessageView {
            id,
            from: from.into(),
            to: to.into(),
            label: label.into(),
            class: "request".into(),
            sent_ms,
            deliver_ms,
            chain: 0,
            object: None,
        }
    }

    #[test]
    fn messages_travelling_together_share_one_tag() {
        let flights = [
            message(7, "kcm", "kube-apiserver", "watch pods", 10, 12),
            message(8, "kcm", "kube-apiserver", "watch nodes", 10, 12),
            message(9, "kcm", "kube-apiserver", "watch leases", 10, 12),
            message(10, "kcm", "kube-apiserver", "create events", 11, 13),
            message(11, "kube-apiserver", "kcm", "200 OK", 10, 12),
        ];
        let tags = tags(&flights);
        assert_eq!(tags.get(&7).map(String::as_str), Some("watch pods +2"));
        assert_eq!(tags.get(&8), None);
        assert_eq!(tags.get(&9), None);
        assert_eq!(tags.get(&10).map(String::as_str), Some("create events"), "sent later: it is elsewhere on the line");
        assert_eq!(tags.get(&11).map(String::as_str), Some("200 OK"), "the other direction is another connection");
    }

    #[test]
    fn tags_fit_their_label() {
        assert!(tag_width("ADDED pods") > tag_width("200 OK"));
        assert!(tag_width("") > 0.0);
    }
}
