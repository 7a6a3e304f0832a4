#!/usr/bin/env bash
# Everything CI runs (.ci/run): sets up whatever is missing, then formatting, clippy (natively and for wasm32),
# the Rust tests, the release build of the web app, and the browser end-to-end tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

step() { printf '\n==> %s\n' "$*" >&2; }
timed() {
  local start=$SECONDS
  "$@"
  printf '    (%ss)\n' "$((SECONDS - start))" >&2
}

step "cargo fmt --all -- --check"
timed cargo fmt --all -- --check

step "cargo clippy --workspace --all-targets -- -D warnings"
timed cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy -p kubeglass-www --target wasm32-unknown-unknown --all-targets -- -D warnings"
timed cargo clippy -p kubeglass-www --target wasm32-unknown-unknown --all-targets -- -D warnings

step "cargo test --workspace (the engine's unit and integration tests, the app's unit tests)"
timed cargo test --workspace

step "trunk build --release"
timed trunk build --release

step "browser tests: node --test tests/browser/"
timed node --test --test-reporter=spec tests/browser/

printf '\nall tests passed\n' >&2
