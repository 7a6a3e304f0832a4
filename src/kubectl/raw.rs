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
//! Paths are read and answers written by the apiserver's own [`rest`] module, as `kubeglass serve` reads
//! and writes them. Deviations: object fields after `kind`, `apiVersion` and `metadata` come in alphabetical
//! order (Go writes them in struct order); query parameters on API paths are ignored.

use crate::api::{lookup, ApiResponse, Status, Verb};
use crate::apiserver::rest;

use super::{Context, Failure};

/// Runs `kubectl get --raw PATH` (the flag's value; other arguments already refused).
pub async fn get_raw(ctx: &Context, raw: &str) -> Result<(), Failure> {
    if !raw.starts_with('/') {
        return Err(Failure(format!("error: --raw must be a valid URL path: parse {raw:?}: invalid URI for request")));
    }
    let path = raw.split('?').next().unwrap_or(raw);
    let mut target = rest::target(path);
    if matches!(&target, Some(Err(_))) && path.starts_with("/apis/") {
        // A path no built-in resource serves: the resources discovery lists may name it.
        let discovered = super::discovery::discover(ctx).await?;
        target = rest::target_with(path, &super::discovery::Listed(&discovered));
    }
    let response = match &target {
        Some(Ok(t)) => {
            let verb = if t.name.is_some() { Verb::Get } else { Verb::List };
            let mut req = ctx.request(verb, t.info).namespace(t.namespace.as_deref());
            if let Some(n) = &t.name {
                req = req.name(n);
            }
            if let Some(sub) = &t.subresource {
                req = req.subresource(sub);
            }
            ctx.api.call_raw(req).await?
        }
        Some(Err(answer)) => ApiResponse::Raw { code: answer.code, body: answer.body.clone() },
        None => {
            let mut req = ctx.request(Verb::Get, lookup("namespaces").expect("namespaces are served"));
            req.non_resource_path = Some(raw.to_string());
            ctx.api.call_raw(req).await?
        }
    };
    match response {
        ApiResponse::Raw { code, body } if (200..300).contains(&code) => ctx.api.print(&body),
        ApiResponse::Raw { body, .. } if Status::from_json(&body).is_some() => {
            return Err(Failure::from(Status::from_json(&body).unwrap_or_else(Status::no_such_resource)))
        }
        ApiResponse::Raw { code, body } => return Err(Failure(unstructured_error(code, &body))),
        ApiResponse::Error(s) => return Err(Failure::from(s)),
        other => {
            let info = target.and_then(Result::ok).map(|t| t.info);
            ctx.api.print(&rest::answer(info, &other).body);
        }
    }
    Ok(())
}

/// client-go's `newUnstructuredResponseError` for a raw request, as kubectl's `StandardErrorMessage` prints it.
pub fn unstructured_error(code: u16, body: &str) -> String {
    crate::api::Status::unexpected_response(code, body, None).kubectl_line()
}

#[cfg(test)]
mod tests {
    use super::*;

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
