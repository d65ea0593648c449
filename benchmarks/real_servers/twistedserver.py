"""Twisted's ``twisted.web.static.File`` as a real server for bench_real_servers.py.

Stock ``static.File`` serving ``--root`` on 127.0.0.1 under a stock ``server.Site``:
``/dir`` -> 302 ``/dir/`` (an absolute ``Location`` and a small HTML body), ``index``,
``index.html``, ``index.htm`` as a directory's index, a generated listing where there is
none, 404 for ``/x.html/``, ``Last-Modified`` and no ETag, byte ranges, HTTP/1.1
keep-alive. It has no virtual hosts, so ``tw.test`` and ``www.tw.test`` serve the same tree.

One change, for the absolute-form request lines Scrapy sends through ``meta["proxy"]``
(``GET http://tw.test/x HTTP/1.1``): the request is served as the origin-form ``GET /x``
it stands for, and told it came for that host on port 80 (``Request.setHost``, Twisted's
own hook for requests that came through a proxy), so the directory redirect names
``http://tw.test/dir/`` as it would for a browser, not the private port.

    python twistedserver.py --root DIR --port PORT --pid-file FILE --log FILE

Writes its pid to ``--pid-file``, Twisted's access log to ``--log``, and serves until SIGTERM.
"""

from __future__ import annotations

import os
import re
import sys

from pyserver import server_arguments  # (next to this file: the script's directory is on sys.path)
from twisted.internet import reactor
from twisted.web import server, static

#: Scheme and authority of an absolute-form request target (RFC 9112, section 3.2.2).
ABSOLUTE_FORM = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)")


class OriginFormRequest(server.Request):
    """``server.Request`` that serves an absolute-form target as its origin form."""

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        match = ABSOLUTE_FORM.match(path)
        if match is not None:
            host = match.group(1).rsplit(b":", 1)[0]
            path = path[match.end() :] or b"/"
            self.setHost(host, 80)
        super().requestReceived(command, path, version)


def main(argv: list[str] | None = None) -> int:
    args = server_arguments(__doc__, argv)
    site = server.Site(static.File(str(args.root)), logPath=str(args.log))
    site.requestFactory = OriginFormRequest
    reactor.listenTCP(args.port, site, interface="127.0.0.1")  # type: ignore[attr-defined]
    args.pid_file.write_text(f"{os.getpid()}\n")
    try:
        reactor.run()  # type: ignore[attr-defined]  # the default SIGTERM handler stops it
    finally:
        args.pid_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
