//! Scenarios: the file format that describes a cluster and the steps to play on it ([`file`]), and share
//! links that carry one in a URL fragment ([`url`]).
//!
//! A scenario is the unit of sharing: a share link, a file a teacher commits, a test.

mod emit;
pub mod file;
mod locate;
pub mod examples;
pub mod gallery;
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
