#!/bin/sh
# Set-up for the framework families of benchmarks/bench_real_servers.py (Django, Flask and
# WhiteNoise under gunicorn, Starlette under uvicorn with httptools, aiohttp's and Tornado's
# own servers): installs their pip packages into
# the Python that runs the benchmark, $PYTHON (default: python3 on PATH, so
# PYTHON=.venv/bin/python for the project's venv). Called by setup.sh; idempotent (installs
# only what that Python cannot import). Needs no root unless that Python's site-packages do.
#
# The packages' current releases, unpinned: the benchmark is about servers nobody here
# tuned, so it runs what a site would install today.
set -eu

PYTHON="${PYTHON:-python3}"
# Import name = pip name for each (servers.FAMILIES' packages).
PACKAGES="django gunicorn flask starlette uvicorn httptools aiohttp tornado whitenoise"

missing=""
for package in $PACKAGES; do
    if ! "$PYTHON" -c "import $package" 2>/dev/null; then
        missing="$missing $package"
    fi
done

if [ -z "$missing" ]; then
    echo "real-servers set-up: $PYTHON already has ($PACKAGES)"
    exit 0
fi

"$PYTHON" -m pip install $missing
echo "real-servers set-up: installed into $PYTHON:$missing"
