#!/usr/bin/env bash
# Sets up whatever is missing (scripts/setup.sh), then builds the web app in release mode and serves it at
# http://127.0.0.1:8080, rebuilding when the page, the app or the engine changes. Entirely offline.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
echo "kubeglass: building, then serving at http://127.0.0.1:8080 (Ctrl-C stops)" >&2
exec trunk serve --release "$@"
