//! Quantities as the printers use them: the engine's one implementation of `resource.Quantity`.

pub use crate::api::quantity::{canonical_text as canonical, Quantity};
