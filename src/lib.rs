//! kubeglass: a whole Kubernetes v1.34 cluster, simulated deterministically.
//!
//! The engine is a set of actors (kube-apiserver, etcd members, kube-scheduler, controllers, kubelets, …)
//! that only exchange messages through the simulation kernel ([`sim`]): a virtual clock, an event queue
//! ordered by (time, sequence) and one seeded random generator. The same scenario and seed give the same
//! trace, natively and in WebAssembly.
//!
//! Entry points: [`Cluster`] (build, advance, run kubectl, look at the [`view::View`]) and [`scenario`].

pub mod api;
pub mod apiserver;
pub mod check;
pub mod client;
pub mod cluster;
pub mod controllers;
pub mod dns;
pub mod etcd;
pub mod etcdctl;
pub mod kubectl;
pub mod metrics;
pub mod node;
pub mod proxy;
pub mod scenario;
pub mod scheduler;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sim;
pub mod view;
pub mod workload;

pub use cluster::Cluster;
