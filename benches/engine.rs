//! Engine benchmarks (criterion): the etcd MVCC store's put throughput, an etcd member's put + watch fan-out
//! (events delivered per second to N watchers), and the apiserver's create pipeline — pods created per wall
//! second by client programs into a cluster that already stores 5,000 nodes and 150,000 pods.
//!
//! `cargo bench --bench engine` takes about three minutes, most of it building the big cluster once.
//! `KUBEGLASS_BENCH_NODES` and `KUBEGLASS_BENCH_PODS` shrink that cluster for a quicker look.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use kubeglass::cluster::Cluster;
use kubeglass::etcd::store::Store;
use kubeglass::etcd::{Op, Txn};
use kubeglass::workload;

const STORE_PUTS: usize = 10_000;
const FANOUT_PUTS: usize = 500;
/// Pods one measured iteration creates, and how many client programs create them at once.
const CREATES_PER_ITERATION: usize = 500;
const CREATE_WORKERS: usize = 32;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

fn store_puts(c: &mut Criterion) {
    let value = Arc::new(workload::pod("default", "p", None));
    let txns: Vec<Txn> = (0..STORE_PUTS)
        .map(|i| {
            let op = Op::Put { key: format!("/registry/pods/default/pod-{i}"), value: Arc::clone(&value) };
            Txn { success: vec![op], ..Txn::default() }
        })
        .collect();
    let mut group = c.benchmark_group("etcd");
    group.sample_size(20).measurement_time(Duration::from_secs(5)).throughput(Throughput::Elements(STORE_PUTS as u64));
    group.bench_function("store_put", |b| {
        b.iter_batched(
            Store::new,
            |mut store| {
                for txn in &txns {
                    black_box(store.apply(txn));
                }
                store
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn put_watch_fanout(c: &mut Criterion) {
    let mut group = c.benchmark_group("etcd_put_watch_fanout");
    group.sample_size(10).measurement_time(Duration::from_secs(8));
    for watchers in [10usize, 100] {
        // Throughput counts watch events delivered: every put reaches every watcher.
        group.throughput(Throughput::Elements((FANOUT_PUTS * watchers) as u64));
        group.bench_function(format!("{watchers}_watchers"), |b| {
            b.iter_batched(
                || workload::EtcdFanout::new(watchers, 1),
                |mut f| {
                    f.put_pods(FANOUT_PUTS);
                    assert_eq!(f.events_delivered, (FANOUT_PUTS * watchers) as u64);
                    f
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

// Benchmarks time themselves with the wall clock; the engine they drive never reads it.
#[allow(clippy::disallowed_methods)]
fn apiserver_creates(c: &mut Criterion) {
    let nodes = env_or("KUBEGLASS_BENCH_NODES", 5_000);
    let pods = env_or("KUBEGLASS_BENCH_PODS", 150_000);
    let mut cluster = Cluster::new(workload::cluster_config(nodes), 1);
    let fill = workload::create_pods_concurrently(&mut cluster, 0, pods, CREATE_WORKERS);
    assert_eq!(fill.created, pods, "the prefill must store every pod");
    let mut next = pods;
    let mut group = c.benchmark_group("apiserver");
    // Every iteration adds pods for good: a short measurement keeps the cluster near its prefilled size.
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(CREATES_PER_ITERATION as u64));
    group.bench_function(format!("create_pods_into_{nodes}_nodes_{pods}_pods"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                let run = workload::create_pods_concurrently(&mut cluster, next, CREATES_PER_ITERATION, CREATE_WORKERS);
                total += started.elapsed();
                assert_eq!(run.created, CREATES_PER_ITERATION);
                next += CREATES_PER_ITERATION;
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, store_puts, put_watch_fanout, apiserver_creates);
criterion_main!(benches);
