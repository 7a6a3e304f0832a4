//! What clients of the apiserver are made of: [`process`] runs client programs (kubectl, etcdctl, shells)
//! as futures that await API responses, watch events and timers delivered by the kernel, so a command is
//! written as straight-line code and still moves through simulated time like every other message.

pub mod conn;
pub mod events;
pub mod informer;
pub mod leader_election;
pub mod process;

pub use conn::{ApiConn, Incoming};
pub use process::{Api, ClientError, EditRequest, ProcessHost};

use crate::api::{ApiRequest, ApiResponse, Status, Verb};

/// What a typed request asked for, as client-go names it in an error it makes itself (`(post configmaps)`,
/// `(get pods web)`): the HTTP method, the qualified resource and the object's name. A create is POSTed to
/// the collection, so it names no object.
#[derive(Debug, Clone)]
pub struct Target {
    method: &'static str,
    resource: String,
    name: String,
}

impl Target {
    pub fn of(request: &ApiRequest) -> Target {
        let name = if request.verb == Verb::Create { String::new() } else { request.name.clone().unwrap_or_default() };
        Target { method: request.verb.http_method(), resource: request.resource.qualified(), name }
    }

    /// The answer as the client hands it on: one outside 2xx whose body it cannot decode becomes the error
    /// client-go makes of it ([`Status::unexpected_response`]); anything else as it came.
    pub fn decode(&self, response: ApiResponse) -> ApiResponse {
        match response {
            ApiResponse::Raw { code, body } if !(200..300).contains(&code) => ApiResponse::Error(
                Status::unexpected_response(code, &body, Some((self.method, &self.resource, &self.name))),
            ),
            response => response,
        }
    }
}
