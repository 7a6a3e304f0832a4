//! Interim get printer.
use std::sync::Arc;

use super::table::Table;
use crate::api::{Kind, Object};
use crate::sim::SimTime;

pub fn table_for(_kind: Kind, objects: &[Arc<Object>], _now: SimTime, _wide: bool) -> Table {
    Table { headers: vec!["NAME".into()], rows: objects.iter().map(|o| vec![o.name().to_string()]).collect() }
}
