//! kube-apiserver's identity Lease (`APIServerIdentity`, on by default): every apiserver process keeps Lease
//! `kube-system/apiserver-<id>`, where `<id>` is derived from its hostname (the lowercase unpadded base32 of
//! the first 16 bytes of SHA-256 over the hostname and `kube-apiserver`, each prefixed with its 16-bit
//! length), held by `<lease name>_<uuid>` (a new uuid every start), labelled
//! `apiserver.kubernetes.io/identity=kube-apiserver` and `kubernetes.io/hostname=<host>`, with
//! leaseDurationSeconds 3600, renewed every 10 s. It writes through its own loopback client (user
//! `system:apiserver` in `system:masters`), so the writes take the whole handler chain like any other.
//!
//! Watches nothing; writes the Lease (get, create, update). Counterpart:
//! `staging/src/k8s.io/apiserver/pkg/server/config.go` `NewConfig` (the id), `pkg/controlplane` the
//! `start-kube-apiserver-identity-lease-controller` post-start hook, and the heartbeat controller in
//! `k8s.io/component-helpers/apimachinery/lease`.

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, Verb};
use crate::client::{ApiConn, ClientError, Incoming};
use crate::node::kubelet::micro_time;
use crate::sim::{ComponentId, Ctx, Payload};

/// `IdentityLeaseRenewIntervalPeriod`.
pub const RENEW_INTERVAL_MS: u64 = 10_000;
/// `IdentityLeaseDurationSeconds`.
pub const LEASE_DURATION_S: u64 = 3_600;
/// `IdentityLeaseComponentLabelKey`.
pub const COMPONENT_LABEL: &str = "apiserver.kubernetes.io/identity";

/// The name of the identity Lease of the apiserver on `hostname`.
pub fn lease_name(hostname: &str) -> String {
    let mut data = Vec::with_capacity(hostname.len() + 20);
    for part in [hostname.as_bytes(), b"kube-apiserver".as_slice()] {
        data.extend_from_slice(&(part.len() as u16).to_be_bytes());
        data.extend_from_slice(part);
    }
    let hash = Sha256::digest(&data);
    format!("apiserver-{}", data_encoding::BASE32_NOPAD.encode(&hash[..16]).to_lowercase())
}

/// The heartbeat controller of one apiserver process.
#[derive(Debug)]
pub struct IdentityLease {
    conn: ApiConn,
    hostname: String,
    name: String,
    holder: String,
    /// The Lease's resourceVersion as last read or written (None: it must be read or created first).
    resource_version: Option<String>,
    in_flight: bool,
    timer: u64,
}

impl IdentityLease {
    /// The controller of the apiserver `me` on `hostname`; its timer is `timer`.
    pub fn new(me: ComponentId, hostname: &str, timer: u64) -> IdentityLease {
        let credentials = Credentials::ClientCert {
            common_name: "system:apiserver".into(),
            organizations: vec!["system:masters".into()],
        };
        IdentityLease {
            conn: ApiConn::new(me, credentials),
            hostname: hostname.to_string(),
            name: lease_name(hostname),
            holder: String::new(),
            resource_version: None,
            in_flight: false,
            timer,
        }
    }

    /// The post-start hook: a new holder identity, and the first heartbeat at once.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.conn.reset();
        self.holder = format!("{}_{}", self.name, crate::apiserver::registry::uid(ctx.rng));
        self.resource_version = None;
        self.in_flight = false;
        self.heartbeat(ctx);
    }

    /// Whether `token` is its timer.
    pub fn owns_timer(&self, token: u64) -> bool {
        token == self.timer
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        if !self.in_flight {
            self.heartbeat(ctx);
        }
    }

    /// An answer to its loopback client.
    pub fn on_message(&mut self, ctx: &mut Ctx, payload: Payload) {
        for incoming in self.conn.on_message(ctx, payload) {
            if let Incoming::Answer { result, .. } = incoming {
                self.on_answer(ctx, &result);
            }
        }
    }

    fn request(&self, verb: Verb) -> ApiRequest {
        ApiRequest::new(Credentials::Anonymous, verb, Kind::Lease.info()).namespace(Some("kube-system"))
    }

    /// Reads the Lease when it has none yet, otherwise writes this process as the holder with a new renewTime.
    fn heartbeat(&mut self, ctx: &mut Ctx) {
        let req = match &self.resource_version {
            None => self.request(Verb::Get).name(&self.name),
            Some(rv) => {
                let mut req = self.request(Verb::Update).name(&self.name);
                req.raw_body = Some(self.lease(ctx, Some(rv)));
                req
            }
        };
        self.in_flight = true;
        self.conn.call(ctx, req, 0);
    }

    fn lease(&self, ctx: &Ctx, resource_version: Option<&str>) -> serde_json::Value {
        json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": self.name, "namespace": "kube-system", "resourceVersion": resource_version,
                         "labels": {COMPONENT_LABEL: "kube-apiserver", "kubernetes.io/hostname": self.hostname}},
            "spec": {"holderIdentity": self.holder, "leaseDurationSeconds": LEASE_DURATION_S,
                     "renewTime": micro_time(ctx.now)},
        })
    }

    fn on_answer(&mut self, ctx: &mut Ctx, result: &Result<ApiResponse, ClientError>) {
        self.in_flight = false;
        match result {
            Ok(ApiResponse::Object(o)) => {
                let read = self.resource_version.is_none();
                self.resource_version = o.meta().resource_version.clone();
                if read && matches!(o.as_ref(), Object::Lease(_)) {
                    // Found the Lease a previous process kept: take it over at once.
                    return self.heartbeat(ctx);
                }
            }
            Ok(ApiResponse::Error(s)) if s.code == 404 && self.resource_version.is_none() => {
                let mut req = self.request(Verb::Create);
                req.raw_body = Some(self.lease(ctx, None));
                self.in_flight = true;
                self.conn.call(ctx, req, 0);
                return;
            }
            // A conflict or another failure: read it again at the next heartbeat.
            _ => self.resource_version = None,
        }
        ctx.timer(RENEW_INTERVAL_MS, self.timer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lease_name_is_the_base32_of_the_hostnames_hash() {
        // Computed independently with Python's hashlib and base64 from config.go's construction
        // (u16-length-prefixed hostname and "kube-apiserver", sha256, first 16 bytes, lowercase unpadded
        // base32).
        assert_eq!(lease_name("controlplane"), "apiserver-ivtlveyukuyrha5ia44unn7io4");
        assert_ne!(lease_name("controlplane"), lease_name("node01"));
    }
}
