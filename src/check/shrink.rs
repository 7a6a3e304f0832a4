//! Shrinking a failing run: delta debugging (Zeller's ddmin) over the scenario's steps. A candidate keeps
//! a subset of the steps in their order; it is kept when its run fails with the same name (the same broken
//! invariant, or the same convergence checks). Every candidate still ends with the heal phase, so dropping a
//! `start` never leaves a component down for good.

use crate::scenario::{Scenario, Step};

/// The smallest subset of `s`'s steps ddmin finds for which `fails` still holds, and how many candidates it
/// ran. `fails(&s)` must hold on entry.
pub fn shrink(s: &Scenario, mut fails: impl FnMut(&Scenario) -> bool) -> (Scenario, u32) {
    let mut steps: Vec<Step> = s.steps.clone();
    let mut runs = 0;
    let mut n = 2usize;
    let with = |steps: &[Step]| Scenario { steps: steps.to_vec(), ..s.clone() };
    while steps.len() >= 2 {
        let chunks = n;
        let chunk = steps.len().div_ceil(chunks);
        let mut reduced = false;
        // Each chunk alone, then each complement.
        for i in 0..chunks {
            let (lo, hi) = (i * chunk, ((i + 1) * chunk).min(steps.len()));
            if lo >= hi {
                continue;
            }
            let part = &steps[lo..hi];
            runs += 1;
            if part.len() < steps.len() && fails(&with(part)) {
                steps = part.to_vec();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced {
            for i in 0..chunks {
                let (lo, hi) = (i * chunk, ((i + 1) * chunk).min(steps.len()));
                if lo >= hi {
                    continue;
                }
                let rest: Vec<Step> = steps[..lo].iter().chain(&steps[hi..]).cloned().collect();
                runs += 1;
                if fails(&with(&rest)) {
                    steps = rest;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= steps.len() {
                break;
            }
            n = (n * 2).min(steps.len());
        }
    }
    if steps.len() == 1 {
        runs += 1;
        if fails(&with(&[])) {
            steps.clear();
        }
    }
    (with(&steps), runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Action;

    fn scenario(n: u64) -> Scenario {
        let steps =
            (1..=n).map(|ms| Step { at_ms: None, line: 0, action: Action::Wait { ms }, expect: None }).collect();
        Scenario { name: "s".into(), description: String::new(), seed: 1, cluster: Default::default(), steps }
    }

    fn waits(s: &Scenario) -> Vec<u64> {
        s.steps.iter().filter_map(|st| if let Action::Wait { ms } = st.action { Some(ms) } else { None }).collect()
    }

    #[test]
    fn ddmin_finds_the_two_steps_that_together_make_the_failure() {
        let s = scenario(20);
        let fails = |c: &Scenario| {
            let w = waits(c);
            w.contains(&4) && w.contains(&17)
        };
        let (min, runs) = shrink(&s, fails);
        assert_eq!(waits(&min), [4, 17]);
        assert!(runs < 60, "{runs}");
    }

    #[test]
    fn a_failure_that_needs_no_step_shrinks_to_none() {
        let (min, _) = shrink(&scenario(5), |_| true);
        assert!(min.steps.is_empty());
    }
}
