//! kubectl's printers, byte for byte: `get` tables ([`get`]), `describe` ([`describe`]), and the
//! `-o` formats `yaml`, `json`, `name`, `jsonpath=…` and `custom-columns=…` ([`output`]).
//!
//! Everything here is a pure function of API objects and the simulated "now": no clocks, no I/O.

pub mod describe;
pub mod duration;
pub mod get;
pub mod output;
pub mod quantity;
pub mod table;

mod jsonpath;
mod util;
mod yaml;

pub use describe::{describe, Related};
pub use duration::{age, human_duration};
pub use get::{events_table, get_table, no_events_found, table_for, GetOptions};
pub use output::{name_line, print_objects, render, OutputFormat, PrintOptions};
pub use table::{no_resources_found, render_tables, with_labels, with_namespace, Table};
