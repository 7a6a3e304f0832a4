#!/usr/bin/env bash
# Installs whatever this machine lacks to build, serve and test kubeglass, from the package registries only
# (crates.io, npm, Debian's apt): the wasm32 target, Trunk, wasm-bindgen-cli (the version in Cargo.lock),
# wasm-opt (npm binaryen). Safe to run again: each step
# checks first and does nothing when the tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.22.1
log() { printf '[setup] %s\n' "$*" >&2; }

export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "installing trunk $TRUNK_VERSION (about 12 minutes on 2 cores, once)"
  cargo install trunk --locked --version "$TRUNK_VERSION" --ignore-rust-version
fi

# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION"
  if ! cargo install wasm-bindgen-cli --version "$WB_VERSION"; then
    # Its own lockfile may pin a crate version the registry no longer serves: build from source, relocked.
    src=$(mktemp -d)
    (cd "$src" && cargo new --quiet fetcher && cd fetcher &&
      cargo add --quiet "wasm-bindgen-cli@=$WB_VERSION" && cargo fetch --quiet)
    dir=$(find "$HOME/.cargo/registry/src" -maxdepth 2 -type d -name "wasm-bindgen-cli-$WB_VERSION" | head -n 1)
    cp -r "$dir" "$src/cli" && (cd "$src/cli" && cargo update --quiet -p webpki-roots --precise 1.0.10 &&
      cargo install --path . --locked)
    rm -rf "$src"
  fi
fi

if [ ! -x node_modules/.bin/wasm-opt ]; then
  log "installing npm packages (binaryen for wasm-opt)"
  npm ci --no-audit --no-fund
fi
log "all tools present"
