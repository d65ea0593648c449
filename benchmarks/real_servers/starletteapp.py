"""A Starlette site for bench_real_servers.py, served by uvicorn (with ``httptools``).

Routing, static files and the host check are Starlette's own, with their defaults where
they have one:

- the router's ``redirect_slashes``: a path that matches no route while its twin with or
  without a trailing slash does answers 307 to the twin (``/articles`` -> ``/articles/``,
  ``/about/`` -> ``/about``, ``/doxygen`` -> ``/doxygen/``), query string kept;
- the documentation trees as ``StaticFiles(html=True)`` mounts: a directory with an
  ``index.html`` serves it (``/doxygen/`` and ``/doxygen/index.html`` are the same file),
  the directory without its slash answers 307 to it, a file by its own name (ETags,
  ``Last-Modified``, conditional answers); no ``/x`` -> ``/x.html`` (``html=True`` does not
  do that), paths cleaned by ``os.path.normpath`` (``/a//b``, ``/a/./b`` serve ``/a/b``
  without a redirect), case-sensitive, 404 as plain text;
- ``TrustedHostMiddleware`` allowing only ``www.<host>``: the bare host answers 307 to
  ``http://www.<host>/...`` (its ``www_redirect``), any other host 400;
- application pages (``webapps.py``): ``/articles/`` (``?page=N``, page 1 = no parameter,
  404 past the last page), ``/articles/{id:int}`` (404 for an unknown id), ``/about`` linked
  with ``?ref=...`` (ignored).

    python starletteapp.py --port PORT --pid-file FILE --log-dir DIR

Runs uvicorn on 127.0.0.1:PORT with ``http="httptools"``: its parser takes the path from
the absolute-form request lines Scrapy sends through ``meta["proxy"]`` (``GET
http://st.test/x HTTP/1.1``), where the pure-Python ``h11`` one would make the whole URL
the path. Writes its pid to ``--pid-file``, ``starlette-access.log`` and
``starlette-error.log`` to ``--log-dir``, and serves until SIGTERM.
"""

from __future__ import annotations

import argparse
import html
import os
import signal
import sys
from pathlib import Path
from types import FrameType

import webapps
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles


def page(title: str, content: str) -> HTMLResponse:
    return HTMLResponse(
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>\n'
        f'<body>{content}\n<p><a href="/">Home</a> <a href="/articles/">Articles</a>'
        ' <a href="/about?ref=footer">About</a></p></body></html>\n'
    )


async def landing(request: Request) -> HTMLResponse:
    return HTMLResponse(webapps.landing(["/articles/", "/about?ref=landing", "/articles/1"]))


async def articles(request: Request) -> HTMLResponse:
    try:
        number = int(request.query_params.get("page", "1"))
    except ValueError:
        raise HTTPException(404) from None
    pages = (len(webapps.ARTICLES) + webapps.PER_PAGE - 1) // webapps.PER_PAGE
    if not 1 <= number <= pages:
        raise HTTPException(404)
    shown = webapps.ARTICLES[(number - 1) * webapps.PER_PAGE : number * webapps.PER_PAGE]
    items = "\n".join(f'<li><a href="/articles/{a.id}">{html.escape(a.title)}</a></li>' for a in shown)
    previous = f'<a href="?page={number - 1}">previous</a> ' if number > 1 else ""
    following = f' <a href="?page={number + 1}">next</a>' if number < pages else ""
    return page(
        f"Articles, page {number}",
        f"<h1>Articles</h1>\n<ul>\n{items}\n</ul>\n<p>{previous}Page {number} of {pages}{following}</p>",
    )


async def article(request: Request) -> HTMLResponse:
    found = webapps.ARTICLES_BY_ID.get(request.path_params["article_id"])
    if found is None:
        raise HTTPException(404)
    return page(
        found.title,
        f"<h1>{html.escape(found.title)}</h1>\n<p>{html.escape(found.body)}</p>\n"
        f'<p><a href="/about?ref=article-{found.id}">About</a></p>',
    )


async def about(request: Request) -> HTMLResponse:
    return page("About", "<h1>About</h1>\n<p>Articles and documentation served by Starlette.</p>")


routes: list[BaseRoute] = [
    Route("/", landing),
    Route("/articles/", articles),
    Route("/articles/{article_id:int}", article),
    Route("/about", about),
    *(
        Mount(f"/{name}", app=StaticFiles(directory=directory, html=True, follow_symlink=True))
        for name, directory in webapps.TREE_DIRS.items()
    ),
]

app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=[f"www.{webapps.HOST}"])])


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # uvicorn re-raises the SIGTERM it caught once it has shut down


def main(argv: list[str] | None = None) -> int:
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file", type=Path, required=True)
    parser.add_argument("--log-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    logging = {**LOGGING_CONFIG, "handlers": {**LOGGING_CONFIG["handlers"]}}
    for name, handler in (("default", "error"), ("access", "access")):
        logging["handlers"][name] = {
            "formatter": name,
            "class": "logging.FileHandler",
            "filename": str(args.log_dir / f"starlette-{handler}.log"),
        }
    signal.signal(signal.SIGTERM, _terminate)
    config = uvicorn.Config(app, host="127.0.0.1", port=args.port, http="httptools", log_config=logging)
    args.pid_file.write_text(f"{os.getpid()}\n")
    try:
        uvicorn.Server(config).run()
    finally:
        args.pid_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
