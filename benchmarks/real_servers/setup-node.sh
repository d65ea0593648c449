#!/bin/sh
# The Node.js static servers of bench_real_servers.py (``serve``, ``http-server``, and
# Express, whose static middleware expressserver.js runs), pinned, into node/ next to this
# file, in one install (npm removes from node/ what an install does not name). Needs node
# and npm; no root. Idempotent.
set -eu
cd "$(dirname "$0")"
if [ -x node/node_modules/.bin/serve ] && [ -x node/node_modules/.bin/http-server ] \
    && [ -f node/node_modules/express/package.json ]; then
    echo "node servers: already installed"
    exit 0
fi
if ! command -v npm >/dev/null; then
    echo "node servers: npm not found (apt-get install nodejs npm); the serve, httpserver and express families are skipped" >&2
    exit 0
fi
mkdir -p node
npm install --prefix node --no-audit --no-fund --no-save serve@14.2.7 http-server@14.1.1 express@5.3.0
