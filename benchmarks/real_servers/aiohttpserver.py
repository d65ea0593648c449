"""aiohttp's static files as a real server for bench_real_servers.py (family ``aiohttp``).

A stock ``aiohttp.web.Application`` run by ``web.run_app`` on 127.0.0.1, serving the site
root with ``web.static`` routes (``show_index=True``, the rest aiohttp's defaults): one at
``/`` for the root, and one per documentation tree at ``/<name>``, as an aiohttp site
serves several directories. A route per tree because the trees are symlinks in the root
(``servers.build_root``): aiohttp does not follow a symlink out of a route's directory
(``follow_symlinks=False``: 404), and with ``follow_symlinks=True`` its listing of such a
directory fails (500: the resolved directory is not under the root).

aiohttp has no index files: a directory, with or without its trailing slash (``/d`` and
``/d/``), answers a generated listing (``Index of /d``) whose links are absolute and name
subdirectories without their slash; ``index.html`` only by its own name, so ``/`` is a
listing that links the landing page, ``/index.html``. A file: ``ETag`` and
``Last-Modified`` (conditional answers), byte ranges; no vhosts (the host is ignored);
case-sensitive; 404 as plain text. aiohttp's parser takes the path from an absolute-form
request target (``GET http://ah.test/x``), so it needs no tunnel.

    python aiohttpserver.py --root DIR --port PORT --pid-file FILE --log FILE

Writes its pid to ``--pid-file``, the access log to ``--log``, and serves until SIGTERM.
"""

from __future__ import annotations

import logging
import os
import sys

from aiohttp import web
from pyserver import server_arguments  # (next to this file: the script's directory is on sys.path)
from servers import TREES

#: The access log's format: the request line (absolute-form when proxied) and ``Host``.
ACCESS_FORMAT = '%a %t "%r" %s %b "%{Host}i"'


def application(root: str) -> web.Application:
    app = web.Application()
    # The trees first: a request goes to the route with the longest matching prefix.
    app.add_routes([web.static(f"/{name}", os.path.join(root, name), show_index=True) for name in TREES])
    app.add_routes([web.static("/", root, show_index=True)])
    return app


def main(argv: list[str] | None = None) -> int:
    args = server_arguments(__doc__, argv)
    access = logging.getLogger("aiohttp.access")
    access.addHandler(logging.FileHandler(args.log, encoding="utf-8"))
    access.setLevel(logging.INFO)
    app = application(str(args.root))

    async def write_pid(app: web.Application) -> None:
        args.pid_file.write_text(f"{os.getpid()}\n")

    app.on_startup.append(write_pid)
    try:
        # run_app stops on SIGTERM (and SIGINT) by itself.
        web.run_app(
            app, host="127.0.0.1", port=args.port, access_log=access, access_log_format=ACCESS_FORMAT, print=None
        )
    finally:
        args.pid_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
