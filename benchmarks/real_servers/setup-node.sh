#!/bin/sh
# The Node.js static servers of bench_real_servers.py (``serve``, ``http-server``), pinned,
# into node/ next to this file. Needs node and npm; no root. Idempotent.
set -eu
cd "$(dirname "$0")"
if [ -x node/node_modules/.bin/serve ] && [ -x node/node_modules/.bin/http-server ]; then
    echo "node servers: already installed"
    exit 0
fi
if ! command -v npm >/dev/null; then
    echo "node servers: npm not found (apt-get install nodejs npm); the serve and httpserver families are skipped" >&2
    exit 0
fi
mkdir -p node
npm install --prefix node --no-audit --no-fund --no-save serve@14.2.7 http-server@14.1.1
