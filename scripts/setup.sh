#!/usr/bin/env bash
# Installs whatever this machine lacks to build, serve and test kubeglass, from the package registries only
# (crates.io, npm, Debian's apt), never a prebuilt binary from GitHub: the wasm32 target, rustfmt and clippy,
# Trunk, wasm-bindgen-cli (the version in Cargo.lock), wasm-opt (npm binaryen) and playwright-core, Debian's
# Chromium, kubectl and the Kubernetes Python client (the real ones, for the serve tests), and the crates (Trunk builds with --offline). Safe to run again: each step checks first, and with
# everything present the whole script takes about a second.
#
# Other scripts source it (`. scripts/setup.sh`) to get the PATH it sets up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TRUNK_VERSION=0.22.1
BINARYEN_VERSION=132
log() { printf '[setup] %s\n' "$*" >&2; }

export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Trunk otherwise asks crates.io whether a newer Trunk exists.
export TRUNK_SKIP_VERSION_CHECK=true

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

installed_components=$(rustup component list --installed)
for component in rustfmt clippy; do
  if ! grep -q "^$component" <<<"$installed_components"; then
    log "adding the $component component"
    rustup component add "$component"
  fi
done

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "installing trunk $TRUNK_VERSION (about 12 minutes on 2 cores, once)"
  # 0.22.x declares a newer rust-version than it needs.
  cargo install trunk --locked --version "$TRUNK_VERSION" --ignore-rust-version
fi

# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION (about 2 minutes)"
  if ! cargo install wasm-bindgen-cli --version "$WB_VERSION" --force; then
    # Fall back to its own lockfile, relocked where it pins a crate version the registry no longer serves
    # (webpki-roots). The failed install above left the crate's source in cargo's registry.
    src=$(find "$HOME/.cargo/registry/src" -maxdepth 2 -type d -name "wasm-bindgen-cli-$WB_VERSION" | head -n 1)
    [ -n "$src" ] || { log "no source of wasm-bindgen-cli $WB_VERSION in ~/.cargo/registry"; exit 1; }
    work=$(mktemp -d)
    cp -r "$src" "$work/cli"
    (cd "$work/cli" && cargo update --quiet -p webpki-roots --precise 1.0.10 && cargo install --path . --locked --force)
    rm -rf "$work"
  fi
fi

if ! [ -d node_modules/playwright-core ] ||
  [ "$(wasm-opt --version 2>/dev/null)" != "wasm-opt version $BINARYEN_VERSION (version_$BINARYEN_VERSION)" ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages (binaryen for wasm-opt, playwright-core for the browser tests)"
  npm ci --no-audit --no-fund
fi

if ! [ -x /usr/bin/chromium ]; then
  log "installing Debian's chromium (about a minute)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# The real kubectl judges `kubeglass serve` (tests/serve.rs): apt's kubectl package where its repository is
# configured, else Debian's own kubernetes-client.
if ! command -v kubectl >/dev/null; then
  log "installing kubectl from apt"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubectl >/dev/null 2>&1 ||
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
fi

# The official Python client, judge of `kubeglass serve` too (tests/python/serve_client.py), from PyPI.
PYTHON_CLIENT_VERSION=34.1.0
if [ "$(python3 -c 'import kubernetes; print(kubernetes.__version__)' 2>/dev/null)" != "$PYTHON_CLIENT_VERSION" ]; then
  log "installing the Kubernetes Python client $PYTHON_CLIENT_VERSION from PyPI"
  python3 -m pip install --quiet --disable-pip-version-check "kubernetes==$PYTHON_CLIENT_VERSION"
fi

# Trunk runs cargo with --offline: every crate, for every target, must already be downloaded.
cargo fetch --quiet

log "all tools present"
