//! Scenarios: the unit of sharing (a file, a share URL, a test) and the runner that plays one.

pub mod runner;
