"""Python's own ``http.server`` as a real server for bench_real_servers.py.

Stock ``ThreadingHTTPServer`` + ``SimpleHTTPRequestHandler`` serving ``--root`` on
127.0.0.1: ``/dir`` -> 301 ``/dir/``, ``index.html`` for a directory, a generated listing
where there is none, ``Last-Modified`` and ``If-Modified-Since``, no ETag, HTTP/1.0. It
never looks at ``Host``, so ``py.test`` and ``www.py.test`` serve the same tree: a twin
that does not redirect.

One change, for the absolute-form request lines Scrapy sends through ``meta["proxy"]``
(``GET http://py.test/x HTTP/1.1``): the handler drops scheme and authority from
``self.path``, so the request is served as the origin-form ``GET /x`` it stands for (stock
``translate_path`` would look for ``<root>/http:/py.test/x``). The directory redirect's
``Location`` is then relative (``/dir/``), as stock sends it to any client, and listings
do not name the host, so both twins answer with the same bytes.

    python pyserver.py --root DIR --port PORT --pid-file FILE --log FILE

Writes its pid to ``--pid-file``, the request log (``http.server`` logs to stderr) to
``--log``, and serves until SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType

#: Scheme and authority of an absolute-form request target (RFC 9112, section 3.2.2).
ABSOLUTE_FORM = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def origin_form(target: str) -> str:
    """``http://host/x?q`` -> ``/x?q``; an origin-form target unchanged. The rest of the
    target is kept byte for byte, and leading slashes collapse as stock ``parse_request``
    collapses them for an origin-form target."""
    match = ABSOLUTE_FORM.match(target)
    if match is None:
        return target
    path = target[match.end() :]
    if not path.startswith("/"):
        return "/" + path
    return "/" + path.lstrip("/") if path.startswith("//") else path


class Handler(SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` that serves an absolute-form request as its origin form."""

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        self.path = origin_form(self.path)
        return True


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # out of serve_forever: the socket closes, the pid file goes


def server_arguments(description: str | None, argv: list[str] | None) -> argparse.Namespace:
    """The options every server script here takes: ``--root``, ``--port``, ``--pid-file``, ``--log``."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = server_arguments(__doc__, argv)
    sys.stderr = open(args.log, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 (for the process's life)
    signal.signal(signal.SIGTERM, _terminate)
    with ThreadingHTTPServer(("127.0.0.1", args.port), partial(Handler, directory=str(args.root))) as server:
        args.pid_file.write_text(f"{os.getpid()}\n")
        try:
            server.serve_forever()
        finally:
            args.pid_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
