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
