//! The ClusterIP allocator's records (networking.k8s.io/v1 IPAddress, GA in v1.33): every address a Service
//! holds is an object named by the address, pointing back at its Service, written in the same etcd
//! transaction as the Service it was allocated for and removed with it. Counterpart:
//! `pkg/registry/core/service/ipallocator/ipallocator.go` (labels `ipaddress.kubernetes.io/ip-family` and
//! `…/managed-by: ipallocator.k8s.io`).

use std::sync::Arc;

use k8s_openapi::api::networking::v1::{IPAddress, IPAddressSpec, ParentReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{Kind, Object};
use crate::etcd::{Compare, CompareTarget, Op, Txn};
use crate::sim::{Rng, SimTime};

use super::registry;

/// The cluster IPs a Service holds (none for headless and ExternalName Services).
fn cluster_ips(obj: &Object) -> Vec<String> {
    let Object::Service(svc) = obj else { return Vec::new() };
    let Some(spec) = svc.spec.as_ref() else { return Vec::new() };
    if spec.type_.as_deref() == Some("ExternalName") {
        return Vec::new();
    }
    let ips = spec.cluster_ips.clone().or_else(|| spec.cluster_ip.clone().map(|ip| vec![ip])).unwrap_or_default();
    ips.into_iter().filter(|ip| !ip.is_empty() && ip != "None").collect()
}

fn record(ip: &str, svc: &Object, now: SimTime, rng: &mut Rng) -> Object {
    let family = if ip.contains(':') { "IPv6" } else { "IPv4" };
    let meta = ObjectMeta {
        name: Some(ip.to_string()),
        labels: Some(
            [
                ("ipaddress.kubernetes.io/ip-family".to_string(), family.to_string()),
                ("ipaddress.kubernetes.io/managed-by".to_string(), "ipallocator.k8s.io".to_string()),
            ]
            .into(),
        ),
        ..Default::default()
    };
    let mut obj = Object::IPAddress(Box::new(IPAddress {
        metadata: meta,
        spec: Some(IPAddressSpec {
            parent_ref: ParentReference {
                group: None,
                resource: "services".into(),
                namespace: svc.namespace().map(str::to_string),
                name: svc.name().to_string(),
            },
        }),
    }));
    registry::prepare_create(&mut obj, now, rng);
    obj
}

/// A Service's create with its addresses' records, each only if no record of that address exists.
pub fn allocating(mut txn: Txn, svc: &Object, now: SimTime, rng: &mut Rng) -> Txn {
    for ip in cluster_ips(svc) {
        let key = Kind::IPAddress.info().key(None, &ip);
        txn.compare.push(Compare { key: key.clone(), target: CompareTarget::CreateRevision, value: 0 });
        txn.success.push(Op::Put { key, value: Arc::new(record(&ip, svc, now, rng)) });
    }
    txn
}

/// A Service's removal with its addresses' records.
pub fn releasing(mut txn: Txn, svc: &Object) -> Txn {
    for ip in cluster_ips(svc) {
        txn.success.push(Op::Delete { key: Kind::IPAddress.info().key(None, &ip) });
    }
    txn
}
