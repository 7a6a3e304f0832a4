//! The one integration test binary: scenario files, kubectl output, determinism.
