//! The ServiceAccount controller: every active namespace gets a `default` ServiceAccount, recreated if
//! deleted. Watches: Namespaces, ServiceAccounts. Writes: ServiceAccounts.
//! Counterpart: `pkg/controller/serviceaccount/serviceaccounts_controller.go`.

use crate::api::api::core::v1::ServiceAccount;
use crate::api::{Kind, Object, ObjectMeta};
use crate::client::informer::Change;

use super::{Controller, Cx};

#[derive(Debug, Default)]
pub struct ServiceAccountController;

impl ServiceAccountController {
    fn ensure(&self, namespace: &Object, cx: &mut Cx) {
        let Object::Namespace(ns) = namespace else { return };
        let active = ns.metadata.deletion_timestamp.is_none()
            && ns.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Terminating");
        let name = ns.metadata.name.clone().unwrap_or_default();
        if active && cx.get(Kind::ServiceAccount, &format!("{name}/default")).is_none() {
            let sa = ServiceAccount {
                metadata: ObjectMeta { name: Some("default".into()), namespace: Some(name), ..ObjectMeta::default() },
                ..ServiceAccount::default()
            };
            cx.create(Object::ServiceAccount(Box::new(sa)), 0);
        }
    }
}

impl Controller for ServiceAccountController {
    fn name(&self) -> &'static str {
        "service-account-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Namespace, Kind::ServiceAccount]
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for ns in cx.list(Kind::Namespace) {
            self.ensure(&ns, cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::Namespace, Change::Added(ns) | Change::Modified { new: ns, .. }) => self.ensure(ns, cx),
            (Kind::ServiceAccount, Change::Deleted(sa)) if sa.name() == "default" => {
                let ns = sa.namespace().unwrap_or("").to_string();
                if let Some(namespace) = cx.get(Kind::Namespace, &ns) {
                    self.ensure(&namespace, cx);
                }
            }
            _ => {}
        }
    }
}
