//! Every etcd member stopped: kube-apiserver's etcd client waits for its channel (clientv3's `WaitForReady`)
//! instead of failing at once, so a request that needs etcd answers 504 when `--request-timeout` (60 s) has
//! passed, with the error client-go makes of the timeout filter's body; the apiserver does not hammer the
//! members meanwhile (it reconnects on gRPC's backoff), and once etcd is back it reconnects and nothing that
//! failed was applied.

use kubeglass::apiserver::{etcd_client, REQUEST_TIMEOUT_MS};
use kubeglass::cluster::Cluster;

use crate::kubectl;

/// A default cluster, settled, with its single etcd member stopped.
fn cluster_without_etcd() -> Cluster {
    let mut c = Cluster::new_default(4);
    c.advance_ms(30_000);
    c.stop("etcd").unwrap();
    c.advance_ms(1_000);
    c
}

#[test]
fn a_write_waits_out_the_request_timeout_and_fails_with_client_gos_timeout_error() {
    let mut c = cluster_without_etcd();
    let started = c.now().ms();
    let (out, code) = kubectl(&mut c, "create configmap lost --from-literal=k=v");
    let waited = c.now().ms() - started;
    assert_eq!(
        out,
        "error: failed to create configmap: the server was unable to return a response in the time allotted, but may still be processing the request (post configmaps)\n"
    );
    assert_eq!(code, Some(1));
    assert!((REQUEST_TIMEOUT_MS..REQUEST_TIMEOUT_MS + 1_000).contains(&waited), "waited {waited} ms");
    // A consistent list needs etcd's current revision too.
    let (out, code) = kubectl(&mut c, "get pods");
    assert_eq!(
        out,
        "Error from server (Timeout): the server was unable to return a response in the time allotted, but may still be processing the request (get pods)\n"
    );
    assert_eq!(code, Some(1));
    // A named get names its object.
    let (out, _) = kubectl(&mut c, "get configmap kube-root-ca.crt -o name");
    assert!(out.ends_with("(get configmaps kube-root-ca.crt)\n"), "{out}");
}

#[test]
fn while_etcd_is_unreachable_the_apiserver_backs_off_instead_of_retrying_in_a_loop() {
    let mut healthy = Cluster::new_default(4);
    healthy.advance_ms(31_000);
    let before = healthy.kernel().trace.count();
    healthy.advance_ms(120_000);
    let healthy_deliveries = healthy.kernel().trace.count() - before;

    let mut c = cluster_without_etcd();
    let before = c.kernel().trace.count();
    c.advance_ms(120_000);
    let outage_deliveries = c.kernel().trace.count() - before;
    // Fewer than the healthy cluster's: controllers' writes wait instead of completing, nothing loops.
    assert!(
        outage_deliveries < healthy_deliveries,
        "{outage_deliveries} deliveries in two minutes without etcd, {healthy_deliveries} with it"
    );
    // The reconnect attempts to the stopped member follow gRPC's backoff: a handful, not thousands.
    let k = c.kernel();
    let refused = k
        .trace
        .recent()
        .filter(|d| k.name(d.from) == "etcd" && d.label == "connection refused")
        .filter(|d| d.delivered.ms() > c.now().ms() - 120_000)
        .count();
    assert!(refused < 200, "{refused} refusals in two minutes");
}

#[test]
fn once_etcd_is_back_the_apiserver_reconnects_and_the_failed_write_was_never_applied() {
    let mut c = cluster_without_etcd();
    let (_, code) = kubectl(&mut c, "create configmap lost --from-literal=k=v");
    assert_eq!(code, Some(1));
    c.start("etcd").unwrap();
    c.advance_ms(etcd_client::RECONNECT_MAX_MS);
    assert_eq!(kubectl(&mut c, "get --raw /readyz"), ("ok".to_string(), Some(0)));
    assert_eq!(
        kubectl(&mut c, "get configmap lost"),
        ("Error from server (NotFound): configmaps \"lost\" not found\n".to_string(), Some(1))
    );
    assert_eq!(
        kubectl(&mut c, "create configmap kept --from-literal=k=v"),
        ("configmap/kept created\n".to_string(), Some(0))
    );
}
