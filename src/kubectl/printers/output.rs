//! Interim output.
use std::sync::Arc;

use crate::api::Object;

pub fn render(format: &str, objects: &[Arc<Object>], _single: bool) -> Result<String, String> {
    match format {
        "yaml" => Ok(objects
            .iter()
            .map(|o| serde_yaml::to_string(&o.to_json()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("---\n")),
        "name" => Ok(objects.iter().map(|o| format!("{}\n", super::super::kind_name(o))).collect()),
        other => Err(format!("error: unable to match a printer suitable for the output format {other:?}")),
    }
}
