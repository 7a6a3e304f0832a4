//! Scenarios: the file format that describes a cluster and the steps to play on it ([`file`]), share links
//! that carry one in a URL fragment ([`url`]), the runner that plays one with its checks ([`runner`]), a
//! person's session recorded as one and replayed ([`session`]), and what the web app offers built in: example
//! manifests ([`examples`]) and the guided gallery ([`gallery`]).
//!
//! A scenario is the unit of sharing: a share link, a file a teacher commits, a test.

mod emit;
pub mod examples;
pub mod file;
pub mod gallery;
mod locate;
pub mod runner;
pub mod session;
pub mod url;

#[cfg(test)]
mod tests;

pub use file::{
    compile_match, parse, to_yaml, Action, ClusterSpec, Component, Expect, NodeSpec, Scenario, ScenarioError, Step,
    TaintEffect, TaintSpec, UserSpec,
};
pub use url::{decode, encode, UrlError};
