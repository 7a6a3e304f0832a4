//! `kubectl edit`: reads the objects named (`TYPE NAME…`, `TYPE/NAME…`, or `TYPE -l …`) and, where real
//! kubectl would write them to a temporary file and open `$EDITOR` on it, hands that text to whoever runs the
//! command as an [`EditRequest`]: the web app opens it in its manifest editor and applies the result. The text is
//! what kubectl's editor shows: its `# Please edit the object below…` header, then the object (a `v1` `List`
//! for several) as YAML, or JSON with `-o json`, without `metadata.managedFields` (kubectl strips them before
//! editing and puts them back when saving). A command line has no editor, so kubectl here also prints how to
//! make the same change with `kubectl apply -f -` and exits 1: nothing was edited.

use std::sync::Arc;

use crate::api::Object;
use crate::client::EditRequest;

use super::common::{self, ErrLine};
use super::printers;
use super::{Context, Failure};

/// The header kubectl writes above the objects (`editHeader.writeTo` in its normal edit mode).
pub const HEADER: &str = "# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
";

/// The editor's text for `objects` in `format` (`yaml` or `json`): the header, then the object alone or a
/// `List` of them, as `kubectl get -o yaml|json` prints them (no managed fields).
pub fn editor_text(objects: &[Arc<Object>], format: &str) -> Result<String, String> {
    let body = printers::output::render(format, objects, objects.len() == 1)?;
    Ok(format!("{HEADER}{body}"))
}

pub async fn edit(ctx: &Context) -> Result<(), Failure> {
    let format = match ctx.args.get(&["o", "output"]).unwrap_or("yaml") {
        "" | "yaml" => "yaml",
        "json" => "json",
        other => return Err(common::error(format!("the edit mode must be one of yaml, json, not {other:?}"))),
    };
    if ctx.args.get(&["f", "filename"]).is_some() {
        return Err(common::error("kubeglass has no files to edit: kubectl edit reads objects from the cluster"));
    }
    let targets = common::targets(ctx, ctx.args.operands(1), common::NO_RESOURCES).await?;
    let mut errors = targets.errors;
    if !targets.objects.is_empty() {
        let text = editor_text(&targets.objects, format).map_err(Failure)?;
        let objects: Vec<String> = targets.objects.iter().map(|o| super::kind_name(o)).collect();
        ctx.api.request_edit(EditRequest {
            text,
            format: format.to_string(),
            namespace: ctx.namespace(),
            objects: objects.clone(),
        });
        let first = &targets.objects[0];
        let get = format!(
            "kubectl get {}{} -o {format}",
            super::kind_name(first),
            first.namespace().map(|ns| format!(" -n {ns}")).unwrap_or_default()
        );
        errors.push(ErrLine::Plain(format!(
            "error: kubeglass has no terminal editor to open {} in. In the web app, kubectl edit opens it in the manifest editor and Apply saves it; here, print it with `{get}`, change it and send it back with `kubectl apply -f -`, or use kubectl patch, set, scale or label",
            objects.join(", ")
        )));
    }
    common::finish(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment() -> Arc<Object> {
        let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  resourceVersion: \"42\"\n  managedFields:\n  - manager: kubectl-client-side-apply\n    operation: Update\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: nginx, image: nginx:1.27}\n";
        let value: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        Arc::new(Object::from_json_as(crate::api::Kind::Deployment, value).unwrap())
    }

    #[test]
    fn the_editor_text_is_the_header_then_the_object_without_managed_fields() {
        let text = editor_text(&[deployment()], "yaml").unwrap();
        assert!(text.starts_with(HEADER), "{text}");
        let body = &text[HEADER.len()..];
        assert!(body.starts_with("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"), "{body}");
        assert!(body.contains("  resourceVersion: \"42\"\n"), "{body}");
        assert!(!body.contains("managedFields"), "{body}");
        assert!(!body.contains("kind: List"), "{body}");
    }

    #[test]
    fn several_objects_are_edited_as_one_list_and_json_is_json() {
        let text = editor_text(&[deployment(), deployment()], "yaml").unwrap();
        assert!(text[HEADER.len()..].starts_with("apiVersion: v1\nitems:\n- apiVersion: apps/v1\n"), "{text}");
        assert!(text.ends_with("kind: List\nmetadata:\n  resourceVersion: \"\"\n"), "{text}");
        let json = editor_text(&[deployment()], "json").unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&json[HEADER.len()..]).unwrap();
        assert_eq!(parsed["metadata"]["name"], "web");
        assert!(parsed["metadata"].get("managedFields").is_none());
    }
}
