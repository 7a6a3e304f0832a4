//! `kubeglass check` in the test suite: a fixed set of 200 small seeds, drawing every fault, each keeps every
//! safety invariant after every delivery and converges once the faults end; a seed gives the same run twice; and the scenario files that runs found and shrinking cut down
//! (`tests/scenarios/check/`) pass once their bug was fixed.

use kubeglass::check::{self, Faults, Size};

const FLAGS: &str = "--size small";

fn seeds(range: std::ops::Range<u64>) {
    let mut failed = Vec::new();
    for seed in range {
        let s = check::generate(seed, Size::Small, Faults::ALL);
        let o = check::run(&s);
        if let Some(f) = &o.failure {
            failed.push(check::describe(&s, f, &check::replay_command(seed, FLAGS)));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn small_seeds_0_to_49_keep_every_invariant_and_converge() {
    seeds(0..50);
}

#[test]
fn small_seeds_50_to_99_keep_every_invariant_and_converge() {
    seeds(50..100);
}

#[test]
fn small_seeds_100_to_149_keep_every_invariant_and_converge() {
    seeds(100..150);
}

#[test]
fn small_seeds_150_to_199_keep_every_invariant_and_converge() {
    seeds(150..200);
}

#[test]
fn a_seed_gives_the_same_run_twice_and_seeds_differ() {
    let run = |seed| check::run_seed(seed, Size::Small, Faults::ALL);
    let (a, b) = (run(3), run(3));
    assert_eq!((a.trace_hash, a.deliveries, a.end_ms), (b.trace_hash, b.deliveries, b.end_ms));
    assert!(a.checks > 1_000, "the invariants were checked: {}", a.checks);
    assert_ne!(run(4).trace_hash, a.trace_hash);
}

#[test]
fn the_scenarios_shrinking_found_pass_now() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/check");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let s = kubeglass::scenario::parse(&text, &f.display().to_string()).unwrap();
        let o = check::run(&s);
        if let Some(failure) = &o.failure {
            panic!("{}", check::describe(&s, failure, &format!("kubeglass check --file {}", f.display())));
        }
    }
}
