//! kubectl's printers, byte for byte: `get` tables ([`get`]), `describe` ([`describe`]), and the
//! `-o` formats `yaml`, `json`, `name`, `jsonpath=…` and `custom-columns=…` ([`output`]).
//!
//! Everything here is a pure function of API objects and the simulated "now": no clocks, no I/O.

pub mod describe;
pub use crate::apiserver::printers::duration;
pub mod get;
pub mod output;
pub mod quantity;
pub mod table;

pub use crate::api::jsonpath;
use crate::apiserver::printers::util;
pub mod yaml;

pub use describe::{describe, Related};
pub use duration::{age, human_duration};
pub use get::{events_table, get_table, no_events_found, table_for, GetOptions};
pub use output::{name_line, print_objects, render, OutputFormat, PrintOptions};
pub use table::{no_resources_found, render_tables, with_labels, with_namespace, Table};

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{Object, RESOURCES};
    use crate::sim::SimTime;

    #[test]
    fn every_printer_accepts_an_empty_object_of_every_kind() {
        for info in RESOURCES {
            let empty = Object::from_json_as(info.kind, serde_json::json!({}))
                .unwrap_or_else(|e| panic!("{:?}: {e}", info.kind));
            let objs = vec![Arc::new(empty)];
            let now = SimTime(1_000);
            for wide in [false, true] {
                let table = table_for(info.kind, &objs, now, wide);
                assert_eq!(table.rows[0].len(), table.headers.len(), "{:?}", info.kind);
            }
            let text = describe(&objs[0], &Related::default(), now);
            assert!(text.starts_with("Name:"), "{:?}", info.kind);
            for format in ["yaml", "json", "name", "jsonpath={..}", "custom-columns=N:.metadata.name"] {
                let format = OutputFormat::parse(format).expect("format");
                let out = print_objects(info.kind, &objs, &format, now, &PrintOptions::default());
                assert!(out.is_ok(), "{:?} {format:?}: {out:?}", info.kind);
            }
        }
    }
}
