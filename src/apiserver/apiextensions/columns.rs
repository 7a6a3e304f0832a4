//! The table of a custom resource, as the apiserver prints it: `Name`, then the version's
//! `additionalPrinterColumns` (or `Age` when it has none), each cell read with the column's JSONPath and
//! typed as the column says — an `integer`, `number` or `boolean` cell is that JSON value, a `date` cell the
//! age of the time it finds, a `string` cell the text the JSONPath prints; a path that finds nothing is an
//! empty (`null`) cell. Counterpart: `apiextensions-apiserver/pkg/registry/customresource/tableconvertor`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::Served;
use crate::api::jsonpath::JsonPath;
use crate::api::{ApiResponse, Object, Table, TableColumn};
use crate::apiserver::printers::duration::{age_str, human_duration, sim_ms};
use crate::sim::SimTime;

/// ObjectMeta's documentation of `name` and `creationTimestamp`, the two columns' descriptions.
const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// The columns of `served`'s version.
pub fn columns(served: &Served) -> Vec<TableColumn> {
    let mut out = vec![TableColumn {
        name: "Name".into(),
        type_: "string".into(),
        format: "name".into(),
        description: NAME_DESCRIPTION.into(),
        priority: 0,
        json_path: None,
    }];
    let given = served.version().and_then(|v| v.additional_printer_columns.clone()).unwrap_or_default();
    if given.is_empty() {
        out.push(TableColumn {
            name: "Age".into(),
            type_: "date".into(),
            format: String::new(),
            description: CREATED_DESCRIPTION.into(),
            priority: 0,
            json_path: Some(".metadata.creationTimestamp".into()),
        });
    }
    for c in given {
        let description = c
            .description
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| format!("Custom resource definition column (in JSONPath format): {}", c.json_path));
        out.push(TableColumn {
            name: c.name,
            type_: c.type_,
            format: c.format.unwrap_or_default(),
            description,
            priority: c.priority.unwrap_or(0),
            json_path: Some(c.json_path),
        });
    }
    out
}

/// An object or a list answer as its Table at `now`; any other answer as it is.
pub fn table(columns: Arc<[TableColumn]>, response: ApiResponse, now: SimTime) -> ApiResponse {
    let row = |o: Arc<Object>| (cells(&columns, &o, now), o);
    match response {
        ApiResponse::Object(o) => {
            let rows = vec![row(o)];
            ApiResponse::Table(Box::new(Table { columns, rows, list: None }))
        }
        ApiResponse::List { items, resource_version, more } => {
            let rows = items.into_iter().map(row).collect();
            ApiResponse::Table(Box::new(Table { columns, rows, list: Some((resource_version, more)) }))
        }
        other => other,
    }
}

/// The cells of one object's row at `now`.
pub fn cells(columns: &[TableColumn], object: &Object, now: SimTime) -> Vec<Value> {
    let json = object.to_json();
    columns
        .iter()
        .map(|c| match &c.json_path {
            None => Value::String(object.name().to_string()),
            Some(path) => cell(c, path, &json, now),
        })
        .collect()
}

fn cell(column: &TableColumn, path: &str, object: &Value, now: SimTime) -> Value {
    let Ok(parsed) = JsonPath::parse(&format!("{{{path}}}")) else { return Value::Null };
    let first = match parsed.find_results(object) {
        Ok(results) => results.into_iter().next().and_then(|r| r.into_iter().next()),
        Err(_) => None,
    };
    let Some(value) = first else { return Value::Null };
    match column.type_.as_str() {
        "string" => match value {
            Value::String(s) => Value::String(s),
            Value::Object(_) | Value::Array(_) => Value::String(value.to_string()),
            other => Value::String(crate::api::jsonpath::go_v(&other)),
        },
        "integer" => match &value {
            Value::Number(n) => {
                n.as_i64().map_or_else(|| n.as_f64().map_or(Value::Null, |f| json!(f.trunc() as i64)), Value::from)
            }
            _ => Value::Null,
        },
        "number" => value.as_f64().map_or(Value::Null, |f| json!(f)),
        "boolean" => value.as_bool().map_or(Value::Null, Value::Bool),
        "date" => match value.as_str() {
            Some(text) => Value::String(date_age(text, now)),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// A date cell: the age of an RFC 3339 time, `<invalid>` for text that is not one.
fn date_age(text: &str, now: SimTime) -> String {
    let parsed =
        serde_json::from_value::<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>(Value::String(text.to_string()));
    match parsed {
        Ok(t) => human_duration(sim_ms(now).saturating_sub(t.0.as_millisecond())),
        Err(_) if text.is_empty() => age_str(None, now),
        Err(_) => "<invalid>".into(),
    }
}
