//! Server-side printing, as Kubernetes keeps it in the apiserver: each served kind's table (columns with
//! their priorities, a row of cells per object), which `kubectl get` prints. `kubeglass serve` answers a
//! client that asks for `application/json;as=Table;g=meta.k8s.io;v=v1` with these tables; the simulated
//! kubectl prints the same rows. Also the formatting helpers both sides share (apimachinery's
//! `HumanDuration`, label and selector spellings).

mod cells;
pub mod duration;
mod infra;
pub mod util;

pub use cells::{cells, columns, node_roles, Col};
pub use infra::row_order;
