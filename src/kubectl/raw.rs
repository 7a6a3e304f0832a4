//! `kubectl get --raw PATH`: one GET of a URL path, its body copied to the terminal as the server wrote it
//! (kubectl's `rawhttp.RawGet`). API paths (`/api/v1/namespaces/default/pods`, `/apis/apps/v1/...`) are read
//! as the typed request they name and printed as the apiserver encodes them (one line of JSON and a newline;
//! lists as `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":…},"items":[…]}` with the
//! items' own kind and apiVersion left out); other paths (`/readyz?verbose`, `/version`) go to the apiserver
//! as non-resource requests.
//!
//! A status outside 2xx fails as client-go's `Stream` does: a JSON `Status` body is the usual `Error from
//! server (Reason): message`; a text body becomes client-go's generic server response (`an error on the server
//! ("…") has prevented the request from succeeding`, the body cut at 2048 bytes and trimmed).
//!
//! Deviations: object fields after `kind`, `apiVersion` and `metadata` come in alphabetical order (Go writes
//! them in struct order); query parameters on API paths are ignored; discovery paths (`/api`, `/apis`) are
//! not served.

use serde_json::Value;

use crate::api::{lookup, ApiResponse, Object, ResourceInfo, Verb, RESOURCES};

use super::{Context, Failure};

/// Runs `kubectl get --raw PATH` (the flag's value; other arguments already refused).
pub async fn get_raw(ctx: &Context, raw: &str) -> Result<(), Failure> {
    if !raw.starts_with('/') {
        return Err(Failure(format!("error: --raw must be a valid URL path: parse {raw:?}: invalid URI for request")));
    }
    let path = raw.split('?').next().unwrap_or(raw);
    let response = match api_target(path) {
        Some(Ok((info, namespace, name))) => {
            let verb = if name.is_some() { Verb::Get } else { Verb::List };
            let mut req = ctx.request(verb, info).namespace(namespace.as_deref());
            if let Some(n) = &name {
                req = req.name(n);
            }
            ctx.api.call_raw(req).await?
        }
        Some(Err(())) => ApiResponse::Raw { code: 404, body: "404 page not found\n".into() },
        None => {
            let mut req = ctx.request(Verb::Get, lookup("namespaces").expect("namespaces are served"));
            req.non_resource_path = Some(raw.to_string());
            ctx.api.call_raw(req).await?
        }
    };
    match response {
        ApiResponse::Raw { code, body } if (200..300).contains(&code) => ctx.api.print(&body),
        ApiResponse::Raw { code, body } => return Err(Failure(unstructured_error(code, &body))),
        ApiResponse::Error(s) => return Err(Failure::from(s)),
        ApiResponse::Object(o) => ctx.api.print(&format!("{}\n", encode(&o, true))),
        ApiResponse::List { items, resource_version } => {
            let info = api_target(path).and_then(Result::ok).map(|(i, _, _)| i);
            ctx.api.print(&list_json(info, &items, resource_version));
        }
        ApiResponse::Text(t) => ctx.api.print(&t),
        ApiResponse::WatchStarted { .. } | ApiResponse::Exec(_) => {}
    }
    Ok(())
}

/// An API path's resource, namespace and name: `Some(Err)` for an API path naming no served resource, `None`
/// for a path outside `/api` and `/apis`.
#[allow(clippy::type_complexity)]
fn api_target(path: &str) -> Option<Result<(&'static ResourceInfo, Option<String>, Option<String>), ()>> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        ["api" | "apis", ..] => return Some(Err(())),
        _ => return None,
    };
    let (namespace, resource, name) = match rest {
        ["namespaces", ns, resource] => (Some(*ns), *resource, None),
        ["namespaces", ns, resource, name] => (Some(*ns), *resource, Some(*name)),
        ["namespaces", ns] => (None, "namespaces", Some(*ns)),
        [resource] => (None, *resource, None),
        [resource, name] => (None, *resource, Some(*name)),
        _ => return Some(Err(())),
    };
    let info = RESOURCES.iter().find(|r| r.group == group && r.version == version && r.resource == resource);
    match info {
        Some(info) if namespace.is_none() || info.namespaced => {
            Some(Ok((info, namespace.map(str::to_string), name.map(str::to_string))))
        }
        _ => Some(Err(())),
    }
}

/// An object as the apiserver's JSON serializer writes it: `kind`, `apiVersion`, `metadata` first.
fn encode(object: &Object, with_type: bool) -> String {
    let Value::Object(mut map) = object.to_json() else { return "null".into() };
    let mut parts = Vec::new();
    for key in ["kind", "apiVersion"] {
        if let Some(v) = map.remove(key) {
            if with_type {
                parts.push(format!("{key:?}:{v}"));
            }
        }
    }
    if let Some(v) = map.remove("metadata") {
        parts.push(format!("\"metadata\":{v}"));
    }
    for (k, v) in map {
        parts.push(format!("{}:{v}", Value::String(k)));
    }
    format!("{{{}}}", parts.join(","))
}

fn list_json(info: Option<&'static ResourceInfo>, items: &[std::sync::Arc<Object>], revision: u64) -> String {
    let (kind, api_version) = match info {
        Some(i) => (format!("{}List", i.kind.name()), i.api_version()),
        None => ("List".to_string(), "v1".to_string()),
    };
    let items: Vec<String> = items.iter().map(|o| encode(o, false)).collect();
    format!(
        "{{\"kind\":{kind:?},\"apiVersion\":{api_version:?},\"metadata\":{{\"resourceVersion\":\"{revision}\"}},\"items\":[{}]}}\n",
        items.join(",")
    )
}

/// client-go's `newUnstructuredResponseError` for a raw request, as kubectl's `StandardErrorMessage` prints it.
pub fn unstructured_error(code: u16, body: &str) -> String {
    crate::api::Status::unexpected_response(code, body, None).kubectl_line()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_paths_name_their_resource_namespace_and_name() {
        let (info, ns, name) = api_target("/api/v1/namespaces/default/pods").unwrap().unwrap();
        assert_eq!((info.resource, ns.as_deref(), name), ("pods", Some("default"), None));
        let (info, ns, name) = api_target("/apis/apps/v1/namespaces/kube-system/deployments/coredns").unwrap().unwrap();
        assert_eq!(
            (info.resource, ns.as_deref(), name.as_deref()),
            ("deployments", Some("kube-system"), Some("coredns"))
        );
        let (info, _, name) = api_target("/api/v1/namespaces/default").unwrap().unwrap();
        assert_eq!((info.resource, name.as_deref()), ("namespaces", Some("default")));
        assert_eq!(api_target("/api/v1/widgets").map(|r| r.is_err()), Some(true));
        assert!(api_target("/readyz").is_none());
    }

    #[test]
    fn a_text_error_body_is_quoted_cut_at_2048_bytes_and_trimmed() {
        assert_eq!(
            unstructured_error(500, "[-]etcd failed: reason withheld\nreadyz check failed\n"),
            "Error from server (InternalError): an error on the server (\"[-]etcd failed: reason withheld\\nreadyz check failed\") has prevented the request from succeeding"
        );
        let long = "x".repeat(3000);
        assert!(unstructured_error(500, &long).contains(&format!("(\"{}\")", "x".repeat(2048))));
        assert_eq!(
            unstructured_error(404, "404 page not found\n"),
            "Error from server (NotFound): the server could not find the requested resource"
        );
    }
}
