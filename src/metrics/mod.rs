//! The metrics-server add-on and the `metrics.k8s.io` API it serves (what `kubectl top` reads). The usage
//! it reports comes from the kubelets, which take it from the usage model in [`crate::node::usage`].

pub mod api;
pub mod server;

pub use server::MetricsServer;
