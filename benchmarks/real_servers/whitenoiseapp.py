"""WhiteNoise serving the site root as a WSGI application, for bench_real_servers.py
(family ``whitenoise``), run by gunicorn as the Django and Flask families are.

``WhiteNoise(application, root=<site root>, index_file=True)``, the rest its defaults
(no ``autorefresh``: the files are found once, at start, following the trees' symlinks;
``max_age=60``). The wrapped application is what a request for no file reaches: here a
plain-text 404, where a site would have its framework's application. What WhiteNoise
does with it:

- ``/d/`` serves ``d/index.html``; ``/d/index.html`` -> 302 ``./`` and ``/d`` -> 302
  ``d/`` (relative ``Location`` values, the query dropped), only for a directory with an
  ``index.html``: another directory, with or without its slash, is the application's
  404 (no listings);
- a file: a size-mtime ``ETag``, ``Last-Modified``, conditional answers (304), byte
  ranges, ``Cache-Control: max-age=60, public``; it serves a file only at its exact
  path (``/x.html/``, ``/a//b``, another case: the application's);
- no vhosts (the host is ignored).

gunicorn takes the path from an absolute-form request target (``GET http://wn.test/x``),
so the crawl needs no tunnel. ``servers.serve`` passes the site root in
``URLNORM_SITE_ROOT``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from whitenoise import WhiteNoise


def not_found(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """What a request for no file reaches: a plain-text 404."""
    body = b"Not Found\n"
    start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]


application = WhiteNoise(not_found, root=os.environ.get("URLNORM_SITE_ROOT", "."), index_file=True)
