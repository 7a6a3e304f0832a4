//! The two Event APIs over one storage: `events.k8s.io/v1` Events are stored as core/v1 Events (as the
//! real apiserver stores both in `/registry/events`) and converted on the way in and out.
//! Field mapping (pkg/apis/events/v1/conversion.go): regarding ↔ involvedObject, note ↔ message,
//! reportingController ↔ reportingComponent, deprecatedSource ↔ source, deprecatedFirstTimestamp ↔
//! firstTimestamp, deprecatedLastTimestamp ↔ lastTimestamp, deprecatedCount ↔ count.

use k8s_openapi::api::core::v1::Event as CoreEvent;
use k8s_openapi::api::events::v1::Event as EventV1;

use super::Object;

/// events.k8s.io/v1 → core/v1.
pub fn to_core(e: &EventV1) -> CoreEvent {
    CoreEvent {
        metadata: e.metadata.clone(),
        involved_object: e.regarding.clone().unwrap_or_default(),
        related: e.related.clone(),
        message: e.note.clone(),
        reason: e.reason.clone(),
        type_: e.type_.clone(),
        action: e.action.clone(),
        event_time: e.event_time.clone(),
        series: e.series.as_ref().map(|s| k8s_openapi::api::core::v1::EventSeries {
            count: Some(s.count),
            last_observed_time: Some(s.last_observed_time.clone()),
        }),
        reporting_component: e.reporting_controller.clone(),
        reporting_instance: e.reporting_instance.clone(),
        source: e.deprecated_source.clone(),
        first_timestamp: e.deprecated_first_timestamp.clone(),
        last_timestamp: e.deprecated_last_timestamp.clone(),
        count: e.deprecated_count,
    }
}

/// core/v1 → events.k8s.io/v1.
pub fn to_v1(e: &CoreEvent) -> EventV1 {
    EventV1 {
        metadata: e.metadata.clone(),
        regarding: Some(e.involved_object.clone()),
        related: e.related.clone(),
        note: e.message.clone(),
        reason: e.reason.clone(),
        type_: e.type_.clone(),
        action: e.action.clone(),
        event_time: e.event_time.clone(),
        series: e.series.as_ref().and_then(|s| {
            Some(k8s_openapi::api::events::v1::EventSeries {
                count: s.count?,
                last_observed_time: s.last_observed_time.clone()?,
            })
        }),
        reporting_controller: e.reporting_component.clone(),
        reporting_instance: e.reporting_instance.clone(),
        deprecated_source: e.source.clone(),
        deprecated_first_timestamp: e.first_timestamp.clone(),
        deprecated_last_timestamp: e.last_timestamp.clone(),
        deprecated_count: e.count,
    }
}

/// An object as the events.k8s.io API shows it (core Events converted, anything else unchanged).
pub fn as_v1(obj: &Object) -> Object {
    match obj {
        Object::Event(e) => Object::EventV1(Box::new(to_v1(e))),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ObjectMeta;

    #[test]
    fn both_event_apis_carry_the_same_information() {
        let core = CoreEvent {
            metadata: ObjectMeta {
                name: Some("x.1".into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            involved_object: k8s_openapi::api::core::v1::ObjectReference {
                name: Some("x".into()),
                kind: Some("Pod".into()),
                ..Default::default()
            },
            message: Some("Successfully assigned default/x to node01".into()),
            reason: Some("Scheduled".into()),
            type_: Some("Normal".into()),
            reporting_component: Some("default-scheduler".into()),
            count: Some(1),
            ..CoreEvent::default()
        };
        let v1 = to_v1(&core);
        assert_eq!(v1.note.as_deref(), Some("Successfully assigned default/x to node01"));
        assert_eq!(v1.regarding.as_ref().and_then(|r| r.name.as_deref()), Some("x"));
        assert_eq!(v1.reporting_controller.as_deref(), Some("default-scheduler"));
        assert_eq!(to_core(&v1), core);
    }
}
