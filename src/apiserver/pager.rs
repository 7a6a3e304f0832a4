//! Lists in pages: `limit` cuts a list after that many items (in etcd key order) and hands back a
//! `continue` token, the opaque cursor of the next page: `{"v":"meta.k8s.io/v1","rv":R,"start":KEY}` in
//! URL-safe base64, where R is the revision the first page was read at and KEY the key after the last one
//! returned, relative to the list's prefix. Later pages read etcd at R, so the pages together are one
//! consistent list; once R is compacted the token has expired (410) and the answer carries a token that
//! continues at the newest revision instead. Counterpart: k8s.io/apiserver `pkg/storage/continue.go` and
//! the etcd3 store's `GetList`.

use std::cmp::Ordering;
use std::sync::Arc;

use data_encoding::BASE64URL_NOPAD;
use serde_json::Value;

use crate::api::{ApiRequest, ApiResponse, More, Object, Status};

/// A decoded `continue` token: the revision to read (None: the newest) and the first key of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub revision: Option<u64>,
    pub start_key: String,
}

/// What the apiserver says about an expired token; the answer carries a token for the newest revision.
pub const INCONSISTENT_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list \
result. You can start a new list without the continue parameter, or use the continue token in this response to \
retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - \
objects that were created, modified, or deleted between the time the first chunk was returned and now may show up \
in the list.";

/// The token for a page that starts at `start_key` (a full etcd key under `prefix`), read at `revision`
/// (-1: the newest).
pub fn encode(prefix: &str, start_key: &str, revision: i64) -> String {
    let start = start_key.strip_prefix(prefix).unwrap_or(start_key);
    // The fields in the Go struct's order.
    let token = format!(r#"{{"v":"meta.k8s.io/v1","rv":{revision},"start":{}}}"#, Value::from(start));
    BASE64URL_NOPAD.encode(token.as_bytes())
}

/// The cursor a request's `continue` names, or the `BadRequest` a broken token gets.
pub fn decode(token: &str, prefix: &str) -> Result<Cursor, Status> {
    let invalid = |why: String| Status::bad_request(format!("invalid continue token: {why}"));
    let bytes = BASE64URL_NOPAD
        .decode(token.as_bytes())
        .map_err(|e| invalid(format!("continue key is not valid: illegal base64 data at input byte {}", e.position)))?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| invalid(format!("continue key is not valid: {e}")))?;
    let version = value["v"].as_str().unwrap_or("");
    if version != "meta.k8s.io/v1" {
        return Err(invalid(format!("server does not recognize this encoded version {version}")));
    }
    let revision = value["rv"].as_i64().unwrap_or(0);
    if revision == 0 {
        return Err(invalid(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into(),
        ));
    }
    let start = value["start"].as_str().unwrap_or("");
    if start.is_empty() {
        return Err(invalid("continue key is empty".into()));
    }
    // A start key may not climb out of the list's prefix (`../secrets/…`).
    if start.split('/').any(|part| part == ".." || part == ".") || start.starts_with('/') {
        return Err(invalid(format!("continue key is not valid: {start}")));
    }
    Ok(Cursor { revision: u64::try_from(revision).ok(), start_key: format!("{prefix}{start}") })
}

/// The page of `items` (every match of the list, any order) that `req` asks for, read at `revision`:
/// items from `start_key` on, in key order, at most `limit` of them, with the token of the next page
/// when more are left. `counted`: whether the remaining items can be counted (no selectors).
///
/// Keys are compared as they would be written (`namespace/name` below the resource's prefix) without writing
/// them, and only the page itself is sorted: a page of a big list costs a pass over the list, not a sort.
pub fn page(
    req: &ApiRequest,
    mut items: Vec<Arc<Object>>,
    revision: u64,
    start_key: Option<&str>,
    counted: bool,
) -> ApiResponse {
    let limit = req.params.limit.filter(|l| *l > 0).map(|l| l as usize);
    if limit.is_none() && start_key.is_none() {
        return ApiResponse::List { items, resource_version: revision, more: None };
    }
    let base = req.resource.prefix(None);
    let namespaced = req.resource.namespaced;
    let key_order = |a: &Arc<Object>, b: &Arc<Object>| relative_key(a, namespaced).cmp(relative_key(b, namespaced));
    if let Some(start) = start_key {
        let start = start.strip_prefix(base.as_str()).unwrap_or(start).as_bytes();
        items.retain(|o| relative_key(o, namespaced).cmp(start.iter().copied()) != Ordering::Less);
    }
    let more = match limit {
        Some(limit) if items.len() > limit => {
            let left = (items.len() - limit) as u64;
            // The `limit` first in key order, then those sorted.
            items.select_nth_unstable_by(limit, key_order);
            items.truncate(limit);
            items.sort_by(key_order);
            let last = items.last().map(|o| o.key()).unwrap_or_default();
            let prefix = req.resource.prefix(req.namespace.as_deref());
            Some(More {
                token: encode(&prefix, &format!("{last}\u{0}"), revision as i64),
                remaining: counted.then_some(left),
            })
        }
        _ => {
            items.sort_by(key_order);
            None
        }
    };
    ApiResponse::List { items, resource_version: revision, more }
}

/// An object's etcd key below its resource's prefix (`namespace/name`, or `name`), byte by byte.
fn relative_key(o: &Object, namespaced: bool) -> impl Iterator<Item = u8> + '_ {
    let namespace = o.namespace().filter(|_| namespaced);
    namespace.into_iter().flat_map(|ns| ns.bytes().chain(std::iter::once(b'/'))).chain(o.name().bytes())
}

/// The 410 for a token whose revision has been compacted, with a token that continues at the newest one.
pub fn expired(prefix: &str, cursor: &Cursor) -> Status {
    let mut status = Status::gone(INCONSISTENT_CONTINUE);
    status.continue_token = Some(Box::new(encode(prefix, &cursor.start_key, -1)));
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_and_names_the_key_after_the_page() {
        let token = encode("/registry/pods/default/", "/registry/pods/default/web-1\u{0}", 42);
        let json = String::from_utf8(BASE64URL_NOPAD.decode(token.as_bytes()).unwrap()).unwrap();
        assert_eq!(json, r#"{"v":"meta.k8s.io/v1","rv":42,"start":"web-1\u0000"}"#);
        let cursor = decode(&token, "/registry/pods/default/").unwrap();
        assert_eq!(cursor, Cursor { revision: Some(42), start_key: "/registry/pods/default/web-1\u{0}".into() });
        let newest = decode(&encode("/registry/pods/", "/registry/pods/a/b", -1), "/registry/pods/").unwrap();
        assert_eq!(newest.revision, None);
    }

    #[test]
    fn an_expired_token_gets_a_410_that_continues_at_the_newest_revision() {
        let cursor = Cursor { revision: Some(7), start_key: "/registry/pods/default/b\u{0}".into() };
        let status = expired("/registry/pods/", &cursor);
        assert_eq!((status.code, status.message.as_str()), (410, INCONSISTENT_CONTINUE));
        let body: Value = serde_json::from_str(&status.to_json()).unwrap();
        assert_eq!(body["reason"], "Expired");
        let renewed = decode(body["metadata"]["continue"].as_str().unwrap(), "/registry/pods/").unwrap();
        assert_eq!(renewed, Cursor { revision: None, start_key: cursor.start_key });
    }

    #[test]
    fn broken_tokens_are_bad_requests() {
        let message = |t: &str| decode(t, "/registry/pods/").unwrap_err().message;
        assert_eq!(
            message("%%%"),
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 0"
        );
        let b64 = |s: &str| BASE64URL_NOPAD.encode(s.as_bytes());
        assert_eq!(
            message(&b64(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#)),
            "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        );
        assert_eq!(
            message(&b64(r#"{"v":"meta.k8s.io/v1","rv":5,"start":""}"#)),
            "invalid continue token: continue key is empty"
        );
        assert!(message(&b64(r#"{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"}"#)).contains("not valid"));
        assert_eq!(
            message(&b64(r#"{"v":"v9","rv":5,"start":"a"}"#)),
            "invalid continue token: server does not recognize this encoded version v9"
        );
    }
}
