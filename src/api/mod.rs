//! The object model: every built-in kind as its real `k8s-openapi` type ([`Object`]), the resource table
//! ([`RESOURCES`]), REST-shaped requests and responses, label and field selectors, and failures as
//! [`Status`] values with kubectl's wording.

pub mod cron;
pub mod custom;
pub mod ephemeral;
pub mod events;
pub mod go_json;
pub mod hash;
pub mod jsonpath;
pub mod kinds;
pub mod manifest;
pub mod quantity;
pub mod replication;
pub mod request;
pub mod schema;
pub mod selector;
pub mod status;
pub mod table;
pub mod yaml_go;

pub use kinds::{lookup, lookup_kind, lookup_resource, Kind, Object, ResourceInfo, RESOURCES};
pub use request::{
    ApiRequest, ApiResponse, Credentials, ExecEnd, ExecResult, FieldValidation, More, Params, PatchBody, Verb,
    WatchEvent, WatchEventType,
};
pub use status::{Cause, Reason, Status};
pub use table::{Table, TableColumn};

pub use k8s_openapi::api;
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
