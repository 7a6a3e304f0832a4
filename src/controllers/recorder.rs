//! The event recorder's correlator, for loops whose events repeat (a claim that stays Pending is reported at
//! every resync): the same event about the same object again bumps `count` and `lastTimestamp` of the one
//! already recorded instead of making a new one, as client-go's `EventCorrelator` does.
//! Counterpart: `k8s.io/client-go/tools/record/events_cache.go`.

use std::collections::BTreeMap;

use serde_json::json;

use k8s_openapi::api::core::v1::Event;

use crate::api::{Object, ObjectMeta};
use crate::apiserver::registry::k8s_time;

use super::Cx;

#[derive(Debug, Default)]
pub struct Recorder {
    /// Object uid → (type, reason, message, component) → (event name, count).
    recorded: BTreeMap<String, BTreeMap<String, (String, i32)>>,
}

impl Recorder {
    /// Records an event about `about` from the loop itself.
    pub fn event(&mut self, cx: &mut Cx, about: &Object, type_: &str, reason: &str, message: &str) {
        let component = cx.component();
        self.event_from(cx, component, about, type_, reason, message);
    }

    /// Records an event about `about` in the name of `component`.
    pub fn event_from(
        &mut self,
        cx: &mut Cx,
        component: &str,
        about: &Object,
        type_: &str,
        reason: &str,
        message: &str,
    ) {
        let uid = about.meta().uid.clone().unwrap_or_default();
        let key = format!("{type_}|{reason}|{message}|{component}");
        if let Some((name, count)) = self.recorded.get_mut(&uid).and_then(|m| m.get_mut(&key)) {
            *count += 1;
            let event = Object::Event(Box::new(Event {
                metadata: ObjectMeta {
                    name: Some(name.clone()),
                    namespace: Some(about.namespace().unwrap_or("default").to_string()),
                    ..ObjectMeta::default()
                },
                ..Event::default()
            }));
            cx.patch(&event, None, json!({"count": *count, "lastTimestamp": k8s_time(cx.now)}), 0);
            return;
        }
        let name = cx.event_from(component, about, type_, reason, message);
        self.recorded.entry(uid).or_default().insert(key, (name, 1));
    }

    /// Forgets what was recorded about an object that is gone.
    pub fn forget(&mut self, about: &Object) {
        if let Some(uid) = about.meta().uid.as_deref() {
            self.recorded.remove(uid);
        }
    }
}
