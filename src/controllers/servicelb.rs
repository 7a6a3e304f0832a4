//! The service controller of cloud-controller-manager: a load balancer in the cloud for each Service of type
//! LoadBalancer. Watches: Services. Writes: the finalizer `service.kubernetes.io/load-balancer-cleanup`, the
//! Service's `status.loadBalancer.ingress` (the balancer's address, `ipMode: VIP`), Events
//! `EnsuringLoadBalancer`/`EnsuredLoadBalancer` and `DeletingLoadBalancer`/`DeletedLoadBalancer`.
//! Counterpart: `k8s.io/cloud-provider/controllers/service/controller.go`.
//!
//! A balancer takes a provisioning delay of 2–4 s (seeded) between `Ensuring` and `Ensured`, during which
//! `kubectl get svc` shows `<pending>`. When the Service is deleted (its finalizer holds it) or stops being a
//! LoadBalancer, the balancer is deleted, the status cleared and the finalizer removed. The real controller
//! also updates balancers when the set of nodes changes; simulated balancers have no node list to update.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus, Service};

use crate::api::{ApiResponse, Kind, Object};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::book::Book;
use super::cloud::Cloud;
use super::{Controller, Cx};

pub const CLEANUP_FINALIZER: &str = "service.kubernetes.io/load-balancer-cleanup";
const DELAY_MS: u64 = 2_000;
const DELAY_SPREAD_MS: u64 = 2_000;

#[derive(Debug)]
pub struct ServiceLbController {
    cloud: Rc<RefCell<Cloud>>,
    /// Services with a provisioning timer or write in flight.
    working: BTreeSet<String>,
    book: Book<String>,
}

impl ServiceLbController {
    pub fn new(cloud: Rc<RefCell<Cloud>>) -> ServiceLbController {
        ServiceLbController { cloud, working: BTreeSet::new(), book: Book::default() }
    }
}

fn wants_balancer(svc: &Service) -> bool {
    svc.metadata.deletion_timestamp.is_none()
        && svc.spec.as_ref().and_then(|s| s.type_.as_deref()) == Some("LoadBalancer")
}

fn has_finalizer(svc: &Service) -> bool {
    svc.metadata.finalizers.iter().flatten().any(|f| f == CLEANUP_FINALIZER)
}

fn ingress_ips(svc: &Service) -> Vec<String> {
    svc.status
        .as_ref()
        .and_then(|s| s.load_balancer.as_ref())
        .and_then(|l| l.ingress.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|i| i.ip.clone())
        .collect()
}

impl ServiceLbController {
    fn sync(&mut self, key: &str, cx: &mut Cx) {
        if self.working.contains(key) {
            return;
        }
        let Some(obj) = cx.get(Kind::Service, key) else { return };
        let Object::Service(svc) = obj.as_ref() else { return };
        if wants_balancer(svc) {
            if !has_finalizer(svc) {
                let mut updated = svc.clone();
                updated.metadata.finalizers.get_or_insert_with(Vec::new).push(CLEANUP_FINALIZER.into());
                self.working.insert(key.to_string());
                let tag = self.book.tag(key.to_string());
                cx.update(Object::Service(updated), tag);
                return;
            }
            let ip = self.cloud.borrow().load_balancer(key).map(str::to_string);
            if ip.is_none() || ingress_ips(svc) != ip.into_iter().collect::<Vec<_>>() {
                cx.event(&obj, "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
                self.working.insert(key.to_string());
                let delay = DELAY_MS + cx.rng().below(DELAY_SPREAD_MS);
                self.book.requeue(&format!("provision:{key}"), delay, cx);
            }
            return;
        }
        // Not (or no longer) a LoadBalancer, or being deleted: the balancer goes, then the finalizer.
        if !has_finalizer(svc) {
            return;
        }
        cx.event(&obj, "Normal", "DeletingLoadBalancer", "Deleting load balancer");
        self.cloud.borrow_mut().delete_load_balancer(key);
        cx.event(&obj, "Normal", "DeletedLoadBalancer", "Deleted load balancer");
        let mut updated = svc.clone();
        if let Some(f) = updated.metadata.finalizers.as_mut() {
            f.retain(|x| x != CLEANUP_FINALIZER);
        }
        if !ingress_ips(svc).is_empty() {
            let mut cleared = svc.clone();
            cleared.status.get_or_insert_with(Default::default).load_balancer = Some(LoadBalancerStatus::default());
            cx.update_status(Object::Service(cleared), 0);
            updated.metadata.resource_version = None;
        }
        self.working.insert(key.to_string());
        let tag = self.book.tag(key.to_string());
        cx.update(Object::Service(updated), tag);
    }

    /// The provisioning delay is over: the balancer exists and its address goes into the status.
    fn provisioned(&mut self, key: &str, cx: &mut Cx) {
        self.working.remove(key);
        let Some(obj) = cx.get(Kind::Service, key) else { return };
        let Object::Service(svc) = obj.as_ref() else { return };
        if !wants_balancer(svc) {
            self.sync(key, cx);
            return;
        }
        let Some(ip) = self.cloud.borrow_mut().ensure_load_balancer(key) else {
            cx.event(
                &obj,
                "Warning",
                "SyncLoadBalancerFailed",
                "Error syncing load balancer: failed to ensure load balancer: no addresses left",
            );
            return;
        };
        let mut updated = svc.clone();
        updated.status.get_or_insert_with(Default::default).load_balancer = Some(LoadBalancerStatus {
            ingress: Some(vec![LoadBalancerIngress {
                ip: Some(ip),
                ip_mode: Some("VIP".into()),
                ..LoadBalancerIngress::default()
            }]),
        });
        cx.event(&obj, "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
        self.working.insert(key.to_string());
        let tag = self.book.tag(key.to_string());
        cx.update_status(Object::Service(updated), tag);
    }
}

impl Controller for ServiceLbController {
    fn name(&self) -> &'static str {
        "service-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Service]
    }

    fn on_start(&mut self) {
        self.working.clear();
        self.book = Book::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for svc in cx.list(Kind::Service) {
            self.sync(&svc.ns_name(), cx);
        }
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, cx: &mut Cx) {
        match change {
            Change::Added(o) | Change::Modified { new: o, .. } => self.sync(&o.ns_name(), cx),
            Change::Deleted(o) => {
                self.cloud.borrow_mut().delete_load_balancer(&o.ns_name());
            }
            Change::Resynced => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        match self.book.fired(token).as_deref().and_then(|k| k.split_once(':')) {
            Some(("provision", key)) => self.provisioned(key, cx),
            Some((_, key)) => {
                self.working.remove(key);
                self.sync(key, cx);
            }
            None => {}
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(key) = self.book.answered(tag) else { return };
        self.working.remove(&key);
        if let Ok(ApiResponse::Object(written)) = result {
            // Its watch event may have come first, while the write was in flight: decide again if so.
            if cx.get(Kind::Service, &key).is_some_and(|o| o.resource_version() >= written.resource_version()) {
                self.sync(&key, cx);
            }
        } else {
            // A conflict (the Service changed meanwhile) or a lost connection: look again shortly.
            self.book.requeue(&format!("sync:{key}"), 1_000, cx);
            self.working.insert(key);
        }
    }
}
