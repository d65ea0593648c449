#!/bin/sh
# Set-up for benchmarks/bench_real_servers.py (and tests/test_real_servers.py): installs
# Debian's Apache 2.4, nginx, lighttpd, Caddy, h2o, BusyBox (its httpd), mini_httpd, Tomcat 10, Jetty 9,
# PHP's CLI (its built-in server), webfs (webfsd), Ruby with WEBrick, Go (golang-go: the go
# family's goserver.go is built with it when the family starts), uWSGI's core (uwsgi-core: its
# static files, with the core's notfound plugin; no language plugin), and three
# documentation packages with HTML trees (Python's http.server needs nothing). Run as root;
# idempotent (installs only what is missing). First, setup-frameworks.sh installs the
# framework families' pip packages (Django, Flask, Starlette, aiohttp, Tornado, WhiteNoise and their
# servers) into $PYTHON (default python3; PYTHON=.venv/bin/python for the project's venv), and
# setup-node.sh the Node.js servers (serve, http-server, Express) with npm, where npm is.
#
# It never starts, stops or reconfigures the system's services: the package scripts are
# told not to start them (policy-rc.d answers 101 for the duration of the install, and
# RUNLEVEL=1), and the benchmark runs its own instances from the templates next to this
# file on free 127.0.0.1 ports, with pid and log files in a temporary directory.
set -eu

sh "$(dirname "$0")/setup-frameworks.sh"
sh "$(dirname "$0")/setup-node.sh"

PACKAGES="apache2 nginx lighttpd caddy h2o busybox mini-httpd php-cli tomcat10 webfs ruby ruby-webrick jetty9 golang-go uwsgi-core"
PACKAGES="$PACKAGES doxygen-doc debian-reference-en python-requests-doc"

missing=""
for package in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    echo "real-servers set-up: already installed ($PACKAGES)"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "real-servers set-up: run as root to install:$missing" >&2
    exit 1
fi

# Keep the packages' maintainer scripts from starting apache2/nginx/h2o (port 80), webfs and jetty9.
policy=/usr/sbin/policy-rc.d
created_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    created_policy=1
fi
cleanup() {
    if [ -n "$created_policy" ]; then rm -f "$policy"; fi
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive RUNLEVEL=1
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi
echo "real-servers set-up: installed$missing"
