//! The numbered badges of the selected request's data flow on the diagram: each step's number sits on the
//! connection it travelled, a little to the left of its direction of travel (so a request and its answer on
//! one connection keep to opposite sides), spread along the line; a connection with more steps than fit
//! shows the first ones and a `+N` badge. The step focused in the Data flow list is drawn over everything
//! as a thick arrow with its number. Geometry here is pure and unit-tested; [`StepBadges`] draws it.

use std::collections::BTreeMap;

use kubeglass::view::steps::{circled, FlowStep};
use leptos::prelude::*;

use crate::diagram::flights::tag_offset;
use crate::diagram::geometry::Point;
use crate::diagram::layout::Layout;

/// Badges on one connection are at least this far apart along it.
pub const SPACING: f64 = 20.0;
/// The badge circles' radius.
pub const RADIUS: f64 = 8.5;

#[derive(Debug, Clone, PartialEq)]
pub struct Badge {
    /// The step's number, or None for a `+N` badge.
    pub number: Option<usize>,
    pub text: String,
    pub at: Point,
}

/// Where each step's badge goes.
pub fn badges(layout: &Layout, steps: &[FlowStep]) -> Vec<Badge> {
    let mut by_link: BTreeMap<(&str, &str), Vec<&FlowStep>> = BTreeMap::new();
    for s in steps {
        by_link.entry((&s.from, &s.to)).or_default().push(s);
    }
    let mut out = Vec::new();
    for ((from, to), on_link) in by_link {
        let Some((a, b)) = layout.path(from, to) else { continue };
        let length = (b.x - a.x).hypot(b.y - a.y);
        if length < f64::EPSILON {
            continue;
        }
        let offset = tag_offset(a, b);
        // The middle half of the line holds the badges.
        let fit = ((length * 0.5 / SPACING).floor() as usize + 1).max(1);
        let shown = if on_link.len() > fit { fit - 1 } else { on_link.len() };
        let slots = on_link.len().min(fit);
        let span = SPACING * slots.saturating_sub(1) as f64;
        let start = (length - span) / 2.0;
        let place = |i: usize| {
            let t = (start + SPACING * i as f64) / length;
            let p = a.lerp(b, t);
            Point { x: p.x + offset.x, y: p.y + offset.y }
        };
        for (i, s) in on_link.iter().take(shown).enumerate() {
            out.push(Badge { number: Some(s.number), text: s.number.to_string(), at: place(i) });
        }
        if shown < on_link.len() {
            out.push(Badge { number: None, text: format!("+{}", on_link.len() - shown), at: place(shown) });
        }
    }
    out
}

/// The focused step's arrow: its path, and where its number goes.
pub fn highlight(layout: &Layout, step: &FlowStep) -> Option<(Point, Point, Point)> {
    let (a, b) = layout.path(&step.from, &step.to)?;
    let mid = a.lerp(b, 0.5);
    let offset = tag_offset(a, b);
    Some((a, b, Point { x: mid.x + offset.x * 1.6, y: mid.y + offset.y * 1.6 }))
}

/// The arrowhead of the focused step's arrow (goes in the diagram's `<defs>`).
pub fn marker() -> impl IntoView {
    view! {
        <marker id="step-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto">
            <path d="M0,0 L10,5 L0,10 z"></path>
        </marker>
    }
}

#[component]
pub fn StepBadges(layout: Memo<Layout>) -> impl IntoView {
    let inspect = super::use_inspect();
    let steps = inspect.steps;
    let placed = Memo::new(move |_| steps.with(|s| layout.with(|l| badges(l, s))));
    let focused = inspect.focused;
    view! {
        <g class="step-badges" aria-hidden="true">
            {move || {
                placed
                    .get()
                    .into_iter()
                    .map(|b| {
                        let number = b.number;
                        let wide = b.text.chars().count() > 2;
                        let r = if wide { RADIUS + 3.0 } else { RADIUS };
                        view! {
                            <g
                                class="step-badge"
                                class:more=number.is_none()
                                class:focused=move || number.is_some() && focused.get() == number
                                data-step=number.map(|n| n.to_string()).unwrap_or_default()
                            >
                                <circle cx=b.at.x cy=b.at.y r=r></circle>
                                <text x=b.at.x y=b.at.y text-anchor="middle">{b.text.clone()}</text>
                            </g>
                        }
                    })
                    .collect_view()
            }}
            {move || {
                let n = focused.get()?;
                let step = steps.with(|s| s.iter().find(|s| s.number == n).cloned())?;
                let (a, b, label) = layout.with(|l| highlight(l, &step))?;
                Some(view! {
                    <g class="step-highlight" data-step=n.to_string()>
                        <line x1=a.x y1=a.y x2=b.x y2=b.y marker-end="url(#step-head)"></line>
                        <circle cx=label.x cy=label.y r="12"></circle>
                        <text x=label.x y=label.y text-anchor="middle">{circled(n)}</text>
                    </g>
                })
            }}
        </g>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubeglass::Cluster;

    fn step(number: usize, from: &str, to: &str) -> FlowStep {
        FlowStep {
            number,
            sent_ms: 0,
            delivered_ms: 0,
            from: from.into(),
            to: to.into(),
            label: "x".into(),
            object: None,
            revision: None,
            outcome: "delivered".into(),
        }
    }

    fn layout() -> Layout {
        crate::diagram::layout::layout(&Cluster::new_default(1).view())
    }

    #[test]
    fn every_step_gets_a_badge_on_its_connection_and_they_do_not_overlap() {
        let l = layout();
        let steps = [
            step(1, "kubectl", "kube-apiserver"),
            step(2, "kube-apiserver", "etcd-0"),
            step(3, "etcd-0", "kube-apiserver"),
            step(4, "kube-apiserver", "kubectl"),
            step(5, "kube-apiserver", "kube-scheduler"),
        ];
        let placed = badges(&l, &steps);
        let mut numbers: Vec<usize> = placed.iter().filter_map(|b| b.number).collect();
        numbers.sort();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                assert!((a.at.x - b.at.x).hypot(a.at.y - b.at.y) >= 2.0 * RADIUS, "{a:?} {b:?}");
            }
        }
        // A request and its answer sit on opposite sides of the connection.
        let (req, resp) = (
            &placed.iter().find(|b| b.number == Some(1)).unwrap().at,
            &placed.iter().find(|b| b.number == Some(4)).unwrap().at,
        );
        let (a, b) = l.path("kubectl", "kube-apiserver").unwrap();
        let side = |p: &Point| (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        assert!(side(req) * side(resp) < 0.0);
    }

    #[test]
    fn a_busy_connection_shows_what_fits_and_counts_the_rest() {
        let l = layout();
        let steps: Vec<FlowStep> = (1..=60).map(|n| step(n, "kube-apiserver", "etcd-0")).collect();
        let placed = badges(&l, &steps);
        let more = placed.iter().find(|b| b.number.is_none()).expect("a +N badge");
        let shown = placed.iter().filter(|b| b.number.is_some()).count();
        assert_eq!(more.text, format!("+{}", 60 - shown));
        assert!((1..60).contains(&shown));
        assert_eq!(placed.iter().filter_map(|b| b.number).collect::<Vec<_>>(), (1..=shown).collect::<Vec<_>>());
    }

    #[test]
    fn steps_between_things_not_drawn_get_no_badge() {
        let placed = badges(&layout(), &[step(1, "nowhere", "kube-apiserver")]);
        assert!(placed.is_empty());
        assert!(highlight(&layout(), &step(1, "kubectl", "kube-apiserver")).is_some());
    }
}
