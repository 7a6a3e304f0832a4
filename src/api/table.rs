//! A `meta.k8s.io/v1` Table as the apiserver's TableConvertor makes it for a custom resource: its column
//! definitions (each with the JSONPath its cells are read with) and a row of typed cells per object. The
//! apiserver answers a request that asks for one ([`super::Params::as_table`]) with it; a watch that asks
//! for one is told its columns when it starts, and each event's row is made from them.

use std::sync::Arc;

use serde_json::Value;

use super::{More, Object};

/// One column: what `TableColumnDefinition` says, and where its cells come from.
#[derive(Debug, Clone, PartialEq)]
pub struct TableColumn {
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: String,
    pub format: String,
    pub description: String,
    /// 0: always shown; above: only with `-o wide`.
    pub priority: i32,
    /// The JSONPath of its cells (`.spec.replicas`); None for the name column.
    pub json_path: Option<String>,
}

impl TableColumn {
    /// The `TableColumnDefinition` as the apiserver writes it: every field (the Go struct has no
    /// omitempty), in the struct's order.
    pub fn definition(&self) -> String {
        format!(
            "{{\"name\":{},\"type\":{},\"format\":{},\"description\":{},\"priority\":{}}}",
            Value::from(self.name.as_str()),
            Value::from(self.type_.as_str()),
            Value::from(self.format.as_str()),
            Value::from(self.description.as_str()),
            self.priority
        )
    }
}

/// A table of objects: its columns and one row of cells per object, with the list's revision and page.
#[derive(Debug, Clone)]
pub struct Table {
    pub columns: Arc<[TableColumn]>,
    pub rows: Vec<(Vec<Value>, Arc<Object>)>,
    /// The list's resourceVersion and next page (None for a single object).
    pub list: Option<(u64, Option<More>)>,
}
