//! Events as components record them: `<object>.<16 hex>` names, involvedObject, reason, message, the
//! reporting component and instance, first and last timestamps and a count. Counterpart: client-go's
//! `tools/record` (core/v1 Events; kubectl reads both APIs from the same storage).

use crate::api::api::core::v1::{Event, EventSource, ObjectReference};
use crate::api::{Object, ObjectMeta};
use crate::apiserver::registry::k8s_time;
use crate::sim::{Rng, SimTime};

/// Who records an event: `default-scheduler`, `kubelet` on `node01`, `deployment-controller`.
#[derive(Debug, Clone, Copy)]
pub struct Reporter<'a> {
    pub component: &'a str,
    pub host: Option<&'a str>,
}

/// A new Event about `about`.
pub fn event(
    about: &Object,
    by: Reporter,
    type_: &str,
    reason: &str,
    message: &str,
    now: SimTime,
    rng: &mut Rng,
) -> Object {
    let (component, host) = (by.component, by.host);
    let info = about.info();
    // client-go names an event `<object>.<hex of the Unix time in ns>`, so names sort in time order.
    let nanos = (crate::sim::time::EPOCH_MS + now.ms()) * 1_000_000 + rng.below(1_000_000);
    let name = format!("{}.{nanos:016x}", about.name());
    let namespace = about.namespace().map(str::to_string).unwrap_or_else(|| "default".to_string());
    let meta = about.meta();
    Object::Event(Box::new(Event {
        metadata: ObjectMeta { name: Some(name), namespace: Some(namespace), ..ObjectMeta::default() },
        involved_object: ObjectReference {
            api_version: Some(info.api_version()),
            kind: Some(info.kind.name().to_string()),
            name: meta.name.clone(),
            namespace: meta.namespace.clone(),
            uid: meta.uid.clone(),
            resource_version: meta.resource_version.clone(),
            field_path: None,
        },
        reason: Some(reason.to_string()),
        message: Some(message.to_string()),
        type_: Some(type_.to_string()),
        source: Some(EventSource { component: Some(component.to_string()), host: host.map(str::to_string) }),
        reporting_component: Some(component.to_string()),
        reporting_instance: Some(host.unwrap_or(component).to_string()),
        first_timestamp: Some(k8s_time(now)),
        last_timestamp: Some(k8s_time(now)),
        count: Some(1),
        ..Event::default()
    }))
}
