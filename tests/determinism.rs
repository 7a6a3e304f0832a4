//! Same scenario and seed ⇒ the same trace, delivery for delivery.

use kubeglass::cluster::Cluster;

fn run(seed: u64) -> (u64, u64, String) {
    let mut c = Cluster::new_default(seed);
    crate::apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n");
    c.stop("kube-apiserver").unwrap();
    c.advance_ms(1_000);
    c.start("kube-apiserver").unwrap();
    let (out, _) = crate::kubectl(&mut c, "get configmaps");
    (c.kernel().trace.hash(), c.kernel().trace.count(), out)
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    for seed in [1u64, 7, 2024] {
        let a = run(seed);
        let b = run(seed);
        assert_eq!(
            a, b,
            "seed {seed} diverged; replay with: cargo test --test tests determinism -- --nocapture (seed {seed})"
        );
    }
}

#[test]
fn different_seeds_give_different_traces() {
    assert_ne!(run(1).0, run(2).0);
}
