//! API failures as values: the `Status` the apiserver returns (reason, code, message, causes), built with the
//! same constructors and wording as apimachinery's `pkg/api/errors`, and rendered the way kubectl prints them.

use serde::{Deserialize, Serialize};

use super::ResourceInfo;

/// client-go's `maxUnstructuredResponseTextBytes`: how much of an undecodable body an error keeps.
const MAX_UNSTRUCTURED_BODY: usize = 2048;

/// `group` as the registry spells it (`""` for one nothing serves).
fn served_group(group: &str) -> &'static str {
    match super::RESOURCES.iter().find(|r| r.group == group) {
        Some(r) => r.group,
        None => super::custom::group_name(group),
    }
}

/// A JSON object with its fields in this order (values already encoded), as Go's encoder writes a struct.
fn ordered_json(fields: &[(&str, String)]) -> String {
    let parts: Vec<String> = fields.iter().map(|(k, v)| format!("{k:?}:{v}")).collect();
    format!("{{{}}}", parts.join(","))
}

/// The reason of a failed request (metav1.StatusReason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// No reason given (an unclassified server error, e.g. an etcd failure): kubectl prints `Error from server: …`.
    Unknown,
    Unauthorized,
    Forbidden,
    NotFound,
    AlreadyExists,
    Conflict,
    Gone,
    Expired,
    Invalid,
    BadRequest,
    MethodNotAllowed,
    NotAcceptable,
    RequestEntityTooLarge,
    UnsupportedMediaType,
    TooManyRequests,
    InternalError,
    ServiceUnavailable,
    Timeout,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Unknown => "",
            Reason::Unauthorized => "Unauthorized",
            Reason::Forbidden => "Forbidden",
            Reason::NotFound => "NotFound",
            Reason::AlreadyExists => "AlreadyExists",
            Reason::Conflict => "Conflict",
            Reason::Gone => "Gone",
            Reason::Expired => "Expired",
            Reason::Invalid => "Invalid",
            Reason::BadRequest => "BadRequest",
            Reason::MethodNotAllowed => "MethodNotAllowed",
            Reason::NotAcceptable => "NotAcceptable",
            Reason::RequestEntityTooLarge => "RequestEntityTooLarge",
            Reason::UnsupportedMediaType => "UnsupportedMediaType",
            Reason::TooManyRequests => "TooManyRequests",
            Reason::InternalError => "InternalError",
            Reason::ServiceUnavailable => "ServiceUnavailable",
            Reason::Timeout => "Timeout",
        }
    }
}

/// One field error of an `Invalid` status (`spec.selector: Required value`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cause {
    pub field: String,
    pub message: String,
}

impl Cause {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Cause {
        Cause { field: field.into(), message: message.into() }
    }

    pub fn required(field: impl Into<String>) -> Cause {
        Cause::new(field, "Required value")
    }

    /// `Invalid value: "Web": <detail>`.
    pub fn invalid(field: impl Into<String>, value: &str, detail: &str) -> Cause {
        Cause::new(field, format!("Invalid value: {value}: {detail}"))
    }

    /// The cause as a Status body lists it: its reason (`FieldValueRequired`, …) read off the message the
    /// field error renders to, then the message and the field.
    pub fn to_json(&self) -> String {
        const REASONS: [(&str, &str); 9] = [
            ("Required value", "FieldValueRequired"),
            ("Invalid value", "FieldValueInvalid"),
            ("Unsupported value", "FieldValueNotSupported"),
            ("Duplicate value", "FieldValueDuplicate"),
            ("Forbidden", "FieldValueForbidden"),
            ("Too long", "FieldValueTooLong"),
            ("Too many", "FieldValueTooMany"),
            ("Not found", "FieldValueNotFound"),
            ("Internal error", "InternalError"),
        ];
        let mut fields: Vec<(&str, String)> = Vec::new();
        if let Some((_, reason)) = REASONS.iter().find(|(prefix, _)| self.message.starts_with(prefix)) {
            fields.push(("reason", format!("{reason:?}")));
        }
        fields.push(("message", serde_json::Value::from(self.message.as_str()).to_string()));
        if !self.field.is_empty() {
            fields.push(("field", serde_json::Value::from(self.field.as_str()).to_string()));
        }
        ordered_json(&fields)
    }

    /// `<field>: <message>` as kubectl lists causes.
    pub fn render(&self) -> String {
        if self.field.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.field, self.message)
        }
    }
}

/// A failed API request: what the apiserver answers and kubectl renders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub code: u16,
    pub reason: Reason,
    pub message: String,
    /// The `details` of the body: for `Invalid` the kind (`Deployment`) and name used in kubectl's `The
    /// Deployment "web" is invalid` line; for the other reasons about one object the plural resource
    /// (`deployments`) and its group (`apps`).
    pub kind: String,
    pub name: String,
    /// One of the served groups (a `&'static str` keeps the status small: it is every request's error type).
    #[serde(skip)]
    pub group: &'static str,
    pub causes: Box<[Cause]>,
    /// `metadata.continue`: an expired list token's replacement (continuing at the newest revision).
    /// (Boxed, as the causes are: every request's error type stays small.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_token: Option<Box<String>>,
}

impl Status {
    fn new(code: u16, reason: Reason, message: impl Into<String>) -> Status {
        Status {
            code,
            reason,
            message: message.into(),
            kind: String::new(),
            name: String::new(),
            group: "",
            causes: Box::default(),
            continue_token: None,
        }
    }

    /// The same status with its details naming `qualified` (`deployments.apps`: kind `deployments`, group
    /// `apps`) and `name`, as apimachinery's constructors fill them.
    fn about(mut self, qualified: &str, name: &str) -> Status {
        let (kind, group) = qualified.split_once('.').unwrap_or((qualified, ""));
        self.kind = kind.to_string();
        self.group = served_group(group);
        self.name = name.to_string();
        self
    }

    /// Reads a `Status` body (what client-go decodes from an answer outside 2xx); None for anything else.
    pub fn from_json(body: &str) -> Option<Status> {
        let v: serde_json::Value = serde_json::from_str(body).ok()?;
        if v["kind"] != "Status" {
            return None;
        }
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        let reason = match v["reason"].as_str() {
            None | Some("") => Reason::Unknown,
            Some(r) => serde_json::from_value(r.into()).unwrap_or(Reason::Unknown),
        };
        let mut s = Status::new(v["code"].as_u64().and_then(|c| u16::try_from(c).ok())?, reason, text(&v["message"]));
        let d = &v["details"];
        (s.name, s.group, s.kind) =
            (text(&d["name"]), served_group(d["group"].as_str().unwrap_or("")), text(&d["kind"]));
        s.causes = d["causes"]
            .as_array()
            .map(|cs| cs.iter().map(|c| Cause::new(text(&c["field"]), text(&c["message"]))).collect())
            .unwrap_or_default();
        Some(s)
    }

    /// The body the apiserver writes for this status: `metav1.Status` as JSON, fields in the Go struct's
    /// order, empty details fields left out as `omitempty` does.
    pub fn to_json(&self) -> String {
        let mut details: Vec<(&str, serde_json::Value)> = Vec::new();
        for (key, value) in [("name", self.name.as_str()), ("group", self.group), ("kind", self.kind.as_str())] {
            if !value.is_empty() {
                details.push((key, value.into()));
            }
        }
        let causes: Vec<String> = self.causes.iter().map(Cause::to_json).collect();
        let metadata = match &self.continue_token {
            None => "{}".to_string(),
            Some(token) => format!("{{\"continue\":{}}}", serde_json::Value::from(token.as_str())),
        };
        let mut fields: Vec<(&str, String)> = vec![
            ("kind", "\"Status\"".into()),
            ("apiVersion", "\"v1\"".into()),
            ("metadata", metadata),
            ("status", "\"Failure\"".into()),
            ("message", serde_json::Value::from(self.message.as_str()).to_string()),
        ];
        if self.reason != Reason::Unknown {
            fields.push(("reason", format!("{:?}", self.reason.as_str())));
        }
        if !details.is_empty() || !causes.is_empty() || matches!(self.reason, Reason::NotFound) {
            let mut d: Vec<(&str, String)> = details.into_iter().map(|(k, v)| (k, v.to_string())).collect();
            if !causes.is_empty() {
                d.push(("causes", format!("[{}]", causes.join(","))));
            }
            fields.push(("details", ordered_json(&d)));
        }
        fields.push(("code", self.code.to_string()));
        ordered_json(&fields)
    }

    /// 401 from the authentication filter; the body's message is just `Unauthorized`.
    pub fn unauthorized() -> Status {
        Status::new(401, Reason::Unauthorized, "Unauthorized")
    }

    /// 429 from the eviction subresource when a PodDisruptionBudget allows no more disruptions.
    pub fn too_many_requests(message: impl Into<String>) -> Status {
        Status::new(429, Reason::TooManyRequests, message)
    }

    /// `pods "x" not found` (resource qualified with its group).
    pub fn not_found(qualified_resource: &str, name: &str) -> Status {
        Status::new(404, Reason::NotFound, format!("{qualified_resource} {name:?} not found"))
            .about(qualified_resource, name)
    }

    /// 404 for a path the server does not serve (an unknown subresource).
    pub fn no_such_resource() -> Status {
        Status::new(404, Reason::NotFound, "the server could not find the requested resource")
    }

    pub fn already_exists(qualified_resource: &str, name: &str) -> Status {
        Status::new(409, Reason::AlreadyExists, format!("{qualified_resource} {name:?} already exists"))
            .about(qualified_resource, name)
    }

    /// The optimistic-concurrency failure of an update with a stale resourceVersion.
    pub fn conflict(qualified_resource: &str, name: &str, detail: &str) -> Status {
        Status::new(
            409,
            Reason::Conflict,
            format!("Operation cannot be fulfilled on {qualified_resource} {name:?}: {detail}"),
        )
        .about(qualified_resource, name)
    }

    pub fn stale_object(qualified_resource: &str, name: &str) -> Status {
        Status::conflict(
            qualified_resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// `pods "x" is forbidden: <detail>`, or `pods is forbidden: <detail>` without a name.
    pub fn forbidden(qualified_resource: &str, name: &str, detail: &str) -> Status {
        let subject =
            if name.is_empty() { qualified_resource.to_string() } else { format!("{qualified_resource} {name:?}") };
        Status::new(403, Reason::Forbidden, format!("{subject} is forbidden: {detail}")).about(qualified_resource, name)
    }

    /// 422: `Deployment.apps "web" is invalid: spec.selector: Required value` (`kind` is the kubectl-facing Kind).
    pub fn invalid(group_kind: &str, kind: &str, name: &str, causes: Vec<Cause>) -> Status {
        let joined = causes.iter().map(Cause::render).collect::<Vec<_>>().join(", ");
        let joined = if causes.len() > 1 { format!("[{joined}]") } else { joined };
        let mut s = Status::new(422, Reason::Invalid, format!("{group_kind} {name:?} is invalid: {joined}"));
        s.kind = kind.to_string();
        s.name = name.to_string();
        s.group = served_group(group_kind.split_once('.').map_or("", |(_, g)| g));
        s.causes = causes.into_boxed_slice();
        s
    }

    /// An admission plugin's refusal in `admission.NewForbidden`'s words (`pods "x" is forbidden: <message>`)
    /// with another reason, as ValidatingAdmissionPolicy gives it (default `Invalid`, 422): the details name the
    /// plural resource and carry one cause without a field, so kubectl prints `The pods "x" is invalid: : …`.
    pub fn admission_denied(info: &ResourceInfo, name: &str, message: &str, reason: Reason) -> Status {
        let code = match reason {
            Reason::Unauthorized => 401,
            Reason::Forbidden => 403,
            Reason::RequestEntityTooLarge => 413,
            _ => 422,
        };
        let forbidden = Status::forbidden(&info.qualified(), name, message);
        let mut s = Status::new(code, reason, forbidden.message);
        s.kind = info.resource.to_string();
        s.group = info.group;
        s.name = name.to_string();
        s.causes = Box::new([Cause::new("", message)]);
        s
    }

    /// 422 for a request the server could not process (`NewGenericServerResponse`): the cause is not passed
    /// on, so kubectl can only say `The request is invalid: ` and this message (a JSON patch that does not
    /// apply).
    pub fn unprocessable() -> Status {
        Status::new(422, Reason::Invalid, "the server rejected our request due to an error in our request")
    }

    pub fn bad_request(message: impl Into<String>) -> Status {
        Status::new(400, Reason::BadRequest, message)
    }

    /// 415: a body in a media type the endpoint does not take.
    pub fn unsupported_media_type(accepted: &[&str]) -> Status {
        Status::new(
            415,
            Reason::UnsupportedMediaType,
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    pub fn method_not_allowed(message: impl Into<String>) -> Status {
        Status::new(405, Reason::MethodNotAllowed, message)
    }

    /// 410 for a watch or list from a resourceVersion older than the watch cache holds.
    pub fn expired(requested: u64, oldest: u64) -> Status {
        Status::new(
            410,
            Reason::Expired,
            format!("too old resource version: {requested} ({})", oldest.saturating_sub(1)),
        )
    }

    /// 410 Expired with a message of its own (an expired `continue` token).
    pub fn gone(message: impl Into<String>) -> Status {
        Status::new(410, Reason::Expired, message)
    }

    pub fn internal(message: impl Into<String>) -> Status {
        Status::new(500, Reason::InternalError, format!("Internal error occurred: {}", message.into()))
    }

    /// A storage error the apiserver does not classify (e.g. `etcdserver: request timed out`): 500, no reason.
    pub fn storage(message: impl Into<String>) -> Status {
        Status::new(500, Reason::Unknown, message)
    }

    pub fn service_unavailable(message: impl Into<String>) -> Status {
        Status::new(503, Reason::ServiceUnavailable, message)
    }

    pub fn timeout(message: impl Into<String>) -> Status {
        Status::new(504, Reason::Timeout, message)
    }

    /// What a client makes of an answer outside 2xx whose body it cannot decode (text, or JSON the server
    /// wrote without a JSON content type, as the apiserver's timeout filter does): client-go's
    /// `newUnstructuredResponseError` and apimachinery's `NewGenericServerResponse`. `target` is the typed
    /// request's (method, qualified resource, name); a raw request (`kubectl get --raw`) has none. The body
    /// is cut at 2048 bytes and trimmed.
    pub fn unexpected_response(code: u16, body: &str, target: Option<(&str, &str, &str)>) -> Status {
        let mut cut = body.len().min(MAX_UNSTRUCTURED_BODY);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        let server = body[..cut].trim();
        let (reason, message) = match code {
            409 if target.is_some_and(|(m, _, _)| m == "POST") => (Reason::AlreadyExists, "the server reported a conflict".into()),
            409 => (Reason::Conflict, "the server reported a conflict".into()),
            404 => (Reason::NotFound, "the server could not find the requested resource".into()),
            400 => (Reason::BadRequest, "the server rejected our request for an unknown reason".into()),
            401 => (Reason::Unauthorized, "the server has asked for the client to provide credentials".into()),
            403 => (Reason::Forbidden, server.to_string()),
            405 => (Reason::MethodNotAllowed, "the server does not allow this method on the requested resource".into()),
            422 => (Reason::Invalid, "the server rejected our request due to an error in our request".into()),
            503 => (Reason::ServiceUnavailable, "the server is currently unable to handle the request".into()),
            504 => (
                Reason::Timeout,
                "the server was unable to return a response in the time allotted, but may still be processing the request"
                    .into(),
            ),
            429 => {
                (Reason::TooManyRequests, "the server has received too many requests and has asked us to try again later".into())
            }
            c if c >= 500 => (
                Reason::InternalError,
                format!(
                    "an error on the server ({}) has prevented the request from succeeding",
                    crate::apiserver::validation::field::quote(server)
                ),
            ),
            c => (Reason::Unknown, format!("the server responded with the status code {c} but did not return more information")),
        };
        let mut status = Status::new(code, reason, message);
        if let Some((method, resource, name)) = target {
            let method = method.to_lowercase();
            status.message = match name {
                "" => format!("{} ({method} {resource})", status.message),
                name => format!("{} ({method} {resource} {name})", status.message),
            };
            status.kind = resource.to_string();
            status.name = name.to_string();
        }
        status
    }

    /// The line kubectl prints for this status (`StandardErrorMessage` in kubectl's helpers.go).
    pub fn kubectl_line(&self) -> String {
        match self.reason {
            Reason::Unauthorized => format!("error: You must be logged in to the server ({})", self.message),
            Reason::Invalid if !self.causes.is_empty() => self.invalid_lines(),
            // kubectl's checkErr: an Invalid status without causes names what is invalid, not why; when it
            // names neither kind nor object, the server's message follows.
            Reason::Invalid if self.kind.is_empty() && self.name.is_empty() && self.message.is_empty() => {
                "The request is invalid".into()
            }
            Reason::Invalid if self.kind.is_empty() && self.name.is_empty() => {
                format!("The request is invalid: {}", self.message)
            }
            Reason::Invalid => format!("The {} {:?} is invalid", self.kind, self.name),
            Reason::Unknown => format!("Error from server: {}", self.message),
            reason => format!("Error from server ({}): {}", reason.as_str(), self.message),
        }
    }

    /// kubectl's `The <Kind> "<name>" is invalid: ...` form: one cause inline, several as a bullet list.
    fn invalid_lines(&self) -> String {
        let mut seen = Vec::new();
        for c in &self.causes {
            // kubectl's statusCausesToAggrError prints `<field>: <message>` even for an empty field.
            let line = format!("{}: {}", c.field, c.message);
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
        // Details that name neither kind nor object (the reviews') make it `The request is invalid`.
        let what = if self.kind.is_empty() && self.name.is_empty() {
            "The request is invalid".to_string()
        } else {
            format!("The {} {:?} is invalid", self.kind, self.name)
        };
        if seen.len() == 1 {
            // MultilineError ends the line with a newline of its own, after one the cause may have (the
            // ephemeral containers' `may not be changed\n`); the printer adds one only where none ends it.
            let line = format!("{what}: {}", seen[0]);
            if line.ends_with('\n') {
                line + "\n"
            } else {
                line
            }
        } else {
            let bullets: Vec<String> = seen.iter().map(|l| format!("* {l}")).collect();
            format!("{what}: \n{}", bullets.join("\n"))
        }
    }

    /// The same status with `error when creating "<file>": ` put before its message (kubectl's AddSourceToErr).
    pub fn with_source(&self, verb: &str, source: &str) -> Status {
        let mut s = self.clone();
        if !matches!(s.reason, Reason::Invalid | Reason::Unauthorized) {
            s.message = format!("error when {verb} {source:?}: {}", s.message);
        }
        s
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_renders_statuses_like_standard_error_message() {
        assert_eq!(
            Status::not_found("pods", "x").kubectl_line(),
            r#"Error from server (NotFound): pods "x" not found"#
        );
        assert_eq!(
            Status::not_found("deployments.apps", "web").kubectl_line(),
            r#"Error from server (NotFound): deployments.apps "web" not found"#
        );
        assert_eq!(Status::unauthorized().kubectl_line(), "error: You must be logged in to the server (Unauthorized)");
        assert_eq!(
            Status::storage("etcdserver: request timed out").kubectl_line(),
            "Error from server: etcdserver: request timed out"
        );
        assert_eq!(
            Status::already_exists("pods", "x").with_source("creating", "pod.yaml").kubectl_line(),
            r#"Error from server (AlreadyExists): error when creating "pod.yaml": pods "x" already exists"#
        );
    }

    #[test]
    fn invalid_lists_one_cause_inline_and_several_as_bullets() {
        let one = Status::invalid("Deployment.apps", "Deployment", "web", vec![Cause::required("spec.selector")]);
        assert_eq!(one.message, r#"Deployment.apps "web" is invalid: spec.selector: Required value"#);
        assert_eq!(one.kubectl_line(), r#"The Deployment "web" is invalid: spec.selector: Required value"#);
        let two = Status::invalid(
            "Pod",
            "Pod",
            "p",
            vec![Cause::required("spec.containers[0].image"), Cause::required("spec.containers[0].name")],
        );
        assert_eq!(
            two.kubectl_line(),
            "The Pod \"p\" is invalid: \n* spec.containers[0].image: Required value\n* spec.containers[0].name: Required value"
        );
    }

    #[test]
    fn an_invalid_status_without_causes_or_names_gives_the_servers_message() {
        assert_eq!(
            Status::unprocessable().kubectl_line(),
            "The request is invalid: the server rejected our request due to an error in our request"
        );
        assert_eq!(Status::new(422, Reason::Invalid, "").kubectl_line(), "The request is invalid");
        assert_eq!(Status::unprocessable().code, 422);
    }

    #[test]
    fn expired_names_the_oldest_revision_minus_one() {
        assert_eq!(Status::expired(5, 120).message, "too old resource version: 5 (119)");
        assert_eq!(Status::expired(5, 120).code, 410);
    }
}
