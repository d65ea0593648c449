"""Tornado's ``StaticFileHandler`` as a real server for bench_real_servers.py (family ``tornado``).

A stock ``tornado.web.Application`` with one rule, ``r"/(.*)"`` to ``StaticFileHandler``
over the site root with ``default_filename="index.html"`` (its documented way to serve a
directory's index) and, as the trees are symlinks in the root, ``allowed_symlink_directory``
naming them (Tornado's own setting for that: without it, 403), on 127.0.0.1. What Tornado
does with it:

- ``/d`` -> 301 ``/d/`` (a relative ``Location``), ``/d/`` serves ``d/index.html``;
- ``/d/index.html`` serves the same file by its own name; a directory without
  ``index.html`` answers 403 (no listings);
- a file: a content ``ETag`` (SHA-512 of the body), ``Last-Modified``, conditional answers
  (304), byte ranges;
- no vhosts (the host is ignored), case-sensitive, a styled 404 (``404: Not Found``).

Tornado routes the request target as it comes, so an absolute-form one (``GET
http://to.test/x``, what a proxied crawl sends) matches no rule and answers 404: the crawl
reaches it through ``tunnel.py --origin-form``.

    python tornadoserver.py --root DIR --port PORT --pid-file FILE --log FILE

Writes its pid to ``--pid-file``, Tornado's access log to ``--log``, and serves until SIGTERM.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

from pyserver import server_arguments  # (next to this file: the script's directory is on sys.path)
from servers import TREES
from tornado.web import Application, StaticFileHandler


def application(root: str) -> Application:
    # The trees are symlinks out of the root (servers.build_root), which Tornado follows
    # only into the directories it is told of: the root and the trees.
    allowed = [root, *TREES.values()]
    options = {"path": root, "default_filename": "index.html", "allowed_symlink_directory": allowed}
    return Application([(r"/(.*)", StaticFileHandler, options)])


async def serve(root: str, port: int) -> None:
    server = application(root).listen(port, address="127.0.0.1")
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopped.set)
    await stopped.wait()
    server.stop()


def main(argv: list[str] | None = None) -> int:
    args = server_arguments(__doc__, argv)
    access = logging.getLogger("tornado.access")
    access.addHandler(logging.FileHandler(args.log, encoding="utf-8"))
    access.setLevel(logging.INFO)
    args.pid_file.write_text(f"{os.getpid()}\n")
    try:
        asyncio.run(serve(str(args.root), args.port))
    finally:
        args.pid_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
