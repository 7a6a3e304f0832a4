//! Validation (placeholder until the full per-kind rules land).
use crate::api::{Cause, Object};

pub fn validate_create(_obj: &Object) -> Vec<Cause> {
    Vec::new()
}

pub fn validate_update(_old: &Object, _new: &Object) -> Vec<Cause> {
    Vec::new()
}
