//! Scheme defaulting (placeholder until the full per-kind defaults land).
use crate::api::Object;

pub fn apply_defaults(_obj: &mut Object) {}
