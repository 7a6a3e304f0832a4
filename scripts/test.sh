#!/usr/bin/env bash
# Sets up whatever is missing, then runs every check: formatting, clippy (engine and web app), the unit and
# integration tests, and a release build of the web app with Trunk.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
cargo clippy -p kubeglass-www --target wasm32-unknown-unknown -- -D warnings
echo "== trunk build --release"
trunk build --release
echo "== cargo test"
cargo test
