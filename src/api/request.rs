//! Requests and responses shaped like the Kubernetes REST API: verb, resource, namespace, name,
//! subresource and query parameters in; an object, a list, a watch stream or a `Status` out.

use std::sync::Arc;

use super::{Object, ResourceInfo, Status};

/// The REST verb, as RBAC names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
}

impl Verb {
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }

    /// The HTTP method a request with this verb is sent with.
    pub fn http_method(self) -> &'static str {
        match self {
            Verb::Get | Verb::List | Verb::Watch => "GET",
            Verb::Create => "POST",
            Verb::Update => "PUT",
            Verb::Patch => "PATCH",
            Verb::Delete | Verb::DeleteCollection => "DELETE",
        }
    }

    pub fn parse(text: &str) -> Option<Verb> {
        Some(match text {
            "get" => Verb::Get,
            "list" => Verb::List,
            "watch" => Verb::Watch,
            "create" => Verb::Create,
            "update" => Verb::Update,
            "patch" => Verb::Patch,
            "delete" => Verb::Delete,
            "deletecollection" => Verb::DeleteCollection,
            _ => return None,
        })
    }

    pub fn is_write(self) -> bool {
        matches!(self, Verb::Create | Verb::Update | Verb::Patch | Verb::Delete | Verb::DeleteCollection)
    }
}

/// What a client presents to the authentication filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `Authorization: Bearer <token>` (user tokens and service account tokens).
    Token(String),
    /// A client certificate: CN is the user name, O entries are groups.
    ClientCert { common_name: String, organizations: Vec<String> },
    /// No credentials at all.
    Anonymous,
}

/// Query parameters of list, watch, write and delete requests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// `""` = most recent (consistent read), `"0"` = any (from the watch cache), or a revision.
    pub resource_version: Option<String>,
    pub allow_bookmarks: bool,
    pub dry_run: bool,
    pub field_manager: Option<String>,
    /// What a write does with fields the schema does not know (`fieldValidation`).
    pub field_validation: FieldValidation,
    /// Delete: `Background`, `Foreground` or `Orphan`.
    pub propagation_policy: Option<String>,
    pub grace_period_seconds: Option<i64>,
    /// Lists: a page of at most `limit` items, and `continue`, the token of the page before.
    pub limit: Option<i64>,
    pub continue_token: Option<String>,
    /// Watches: the server ends the watch after this many seconds (`timeoutSeconds`).
    pub timeout_seconds: Option<i64>,
    /// Logs and exec: the container (empty: the pod's only one).
    pub container: Option<String>,
    /// Logs: `tailLines`, `sinceSeconds`, `sinceTime` (RFC 3339), `limitBytes`, `previous`, `timestamps`,
    /// `follow`.
    pub tail_lines: Option<i64>,
    pub since_seconds: Option<i64>,
    pub since_time: Option<String>,
    pub limit_bytes: Option<i64>,
    pub previous: bool,
    pub timestamps: bool,
    pub follow: bool,
    /// Exec: the `command` parameters, the streams asked for, and what is written to stdin.
    pub command: Vec<String>,
    pub tty: bool,
    pub stdin: Option<String>,
    /// Attach: this `stdin` is one piece of a session's input that goes on (its stdin is not closed after
    /// it). Set by a transport that reads a terminal line by line; never from a query.
    pub keep_stdin_open: bool,
    /// Port-forward: the pod's port one forwarded connection goes to (its `stdin` is what the client wrote
    /// on it); none while the stream is being set up. Set by the transport, from a stream's headers.
    pub port: Option<u16>,
    /// Discovery: the client's `Accept` asks for the aggregated list (`apidiscovery.k8s.io/v2`).
    pub aggregated_discovery: bool,
    /// A read of a custom resource asks for its Table (`Accept: application/json;as=Table;g=meta.k8s.io`):
    /// a get or list is answered with [`ApiResponse::Table`], a watch is told its columns when it starts.
    pub as_table: bool,
}

/// `fieldValidation`: what the apiserver does with the fields of a written object that its schema does not
/// know. Strict refuses the write (kubectl sends it); Warn, the apiserver's default when a client names
/// none, drops them with a `Warning` each; Ignore drops them silently (`kubectl --validate=false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FieldValidation {
    #[default]
    Strict,
    Warn,
    Ignore,
}

impl FieldValidation {
    /// The query parameter's value; Warn, the server's default, for none.
    pub fn from_param(value: Option<&str>) -> FieldValidation {
        match value {
            Some("Strict") => FieldValidation::Strict,
            Some("Ignore") => FieldValidation::Ignore,
            _ => FieldValidation::Warn,
        }
    }
}

/// The body of a PATCH request.
#[derive(Debug, Clone, PartialEq)]
pub enum PatchBody {
    /// RFC 7386 JSON merge patch.
    Merge(serde_json::Value),
    /// Strategic merge patch: like a merge patch, but lists with a merge key (containers by `name`, …) merge by key.
    Strategic(serde_json::Value),
    /// RFC 6902 JSON patch: a list of operations (`add`, `remove`, `replace`, `move`, `copy`, `test`).
    Json(serde_json::Value),
}

/// One REST request to kube-apiserver.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub credentials: Credentials,
    /// `Impersonate-User` (kubectl `--as`).
    pub impersonate: Option<String>,
    pub verb: Verb,
    pub resource: &'static ResourceInfo,
    pub subresource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub body: Option<Object>,
    /// A body as the client sent it (kubectl's JSON), decoded strictly by the apiserver.
    pub raw_body: Option<serde_json::Value>,
    pub patch: Option<PatchBody>,
    pub params: Params,
    /// A non-resource path with its query (`/readyz?verbose`, `/version`): `kubectl get --raw`. When set,
    /// `resource` and the rest are ignored.
    pub non_resource_path: Option<String>,
}

impl ApiRequest {
    pub fn new(credentials: Credentials, verb: Verb, resource: &'static ResourceInfo) -> ApiRequest {
        ApiRequest {
            credentials,
            impersonate: None,
            verb,
            resource,
            subresource: None,
            namespace: None,
            name: None,
            body: None,
            raw_body: None,
            patch: None,
            params: Params::default(),
            non_resource_path: None,
        }
    }

    pub fn namespace(mut self, ns: Option<&str>) -> ApiRequest {
        self.namespace = if self.resource.namespaced { ns.map(str::to_string) } else { None };
        self
    }

    pub fn name(mut self, name: &str) -> ApiRequest {
        self.name = Some(name.to_string());
        self
    }

    pub fn body(mut self, body: Object) -> ApiRequest {
        self.body = Some(body);
        self
    }

    pub fn subresource(mut self, sub: &str) -> ApiRequest {
        self.subresource = Some(sub.to_string());
        self
    }

    /// `create pods`, `update pods/status`, `watch nodes`: how traces and arrows label a request.
    pub fn summary(&self) -> String {
        let mut s = format!("{} {}", self.verb.as_str(), self.resource.resource);
        if let Some(sub) = &self.subresource {
            s.push('/');
            s.push_str(sub);
        }
        s
    }

    /// The URL path the real apiserver would serve this at (`/api/v1/namespaces/default/pods/x`).
    pub fn path(&self) -> String {
        let r = self.resource;
        let mut p =
            if r.group.is_empty() { format!("/api/{}", r.version) } else { format!("/apis/{}/{}", r.group, r.version) };
        if let Some(ns) = &self.namespace {
            p.push_str("/namespaces/");
            p.push_str(ns);
        }
        p.push('/');
        p.push_str(r.resource);
        if let Some(n) = &self.name {
            p.push('/');
            p.push_str(n);
        }
        if let Some(sub) = &self.subresource {
            p.push('/');
            p.push_str(sub);
        }
        p
    }
}

/// ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl WatchEventType {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
            WatchEventType::Bookmark => "BOOKMARK",
            WatchEventType::Error => "ERROR",
        }
    }
}

/// One event of a watch stream.
#[derive(Debug, Clone)]
pub struct WatchEvent {
    pub kind: WatchEventType,
    /// The object (for BOOKMARK only its resourceVersion matters; for ERROR absent).
    pub object: Option<Arc<Object>>,
    pub resource_version: u64,
    /// For ERROR: the status (410 Expired after compaction).
    pub status: Option<Status>,
}

/// The apiserver's answer.
#[derive(Debug, Clone)]
pub enum ApiResponse {
    Object(Arc<Object>),
    List {
        items: Vec<Arc<Object>>,
        resource_version: u64,
        /// A page with more after it: the next page's token (`metadata.continue`).
        more: Option<More>,
    },
    /// A watch was established; its events follow as separate messages carrying this id.
    WatchStarted {
        watch_id: u64,
        /// The columns of a custom resource's Table, for a watch that asked for one.
        table: Option<Arc<[super::TableColumn]>>,
    },
    /// A get or list of a custom resource that asked for its Table.
    Table(Box<super::Table>),
    /// Plain text (logs).
    Text(String),
    /// A followed log (`follow=true` on a running container): its text so far; what it writes next comes as
    /// `LogChunk` messages carrying this id, until the container exits (`WatchEnded`) or the client hangs up.
    LogStream {
        stream_id: u64,
        text: String,
    },
    /// A non-resource path's answer as the server wrote it: status code and body (text or JSON bytes).
    Raw {
        code: u16,
        body: String,
    },
    /// An exec stream that was set up and ran to its end.
    Exec(ExecResult),
    Error(Status),
}

/// What follows a page of a list: the token of the next page and, for a list without selectors, how many
/// items are left (`metadata.remainingItemCount`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct More {
    pub token: String,
    pub remaining: Option<u64>,
}

/// What an exec stream carried: its output in the order it was written (`true` marks stderr) and how it
/// ended (the remotecommand error channel).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecResult {
    pub output: Vec<(bool, String)>,
    pub end: ExecEnd,
}

/// How an exec stream ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ExecEnd {
    /// The command exited 0.
    #[default]
    Success,
    /// The command exited with this code (status reason `NonZeroExitCode`).
    ExitCode(i32),
    /// The error channel carried this failure (e.g. the runtime could not start the command).
    Failure(String),
    /// The connection was never upgraded: the kubelet answered with this plain-text error.
    NotUpgraded(String),
}

impl ApiResponse {
    pub fn status(&self) -> Option<&Status> {
        match self {
            ApiResponse::Error(s) => Some(s),
            _ => None,
        }
    }
}
