"""Sitemaps on generated webs (``--sitemaps``): what a ``SitemapSpider`` reads beside the links.

About half the sites (drawn from the web's seed and the site's name) publish a sitemap,
as a CMS or a static generator writes one: a single ``/sitemap.xml``, or an index
(``/sitemap_index.xml``) of two sitemaps, one of them gzipped (``.xml.gz``). A
``Sitemap:`` line of the site's ``robots.txt`` names it, spelled on the canonical host,
on the ``www.`` twin (a redirect away) or with ``:80``. Its entries spell most pages as
their canonical URL and some as another spelling the server answers with the same page
(checked against the servers, as links are): the twin host, the other trailing slash,
``index.html``, a tracking parameter. A few entries are stale (the server answers
``404`` or a soft 404), and a few name pages nothing links (``sitemap-only`` pages, whose
only way in is the sitemap). Sitemap and page URLs go to the spider
(:func:`sitemap_urls`): each site's ``robots.txt`` or, for some, the sitemap itself.

Pure data from the web (drawn from its seed): :func:`plan` gives the same files on every
call, so the server (:class:`Sitemaps`) and the spider's settings agree without sharing
state.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from .server import Reply, Site

_SECTIONS = ("archive", "legacy", "press", "old", "landing")
_WORDS = ("offer", "notice", "spring", "recap", "launch", "terms", "promo", "digest")
_TRACKING = ("utm_source=sitemap", "utm_medium=xml&utm_source=sitemap", "ref=sitemap")


@dataclass
class SitemapPlan:
    """What one site publishes: files by path (``(body, content type)``), the ``Sitemap:``
    lines of its ``robots.txt``, its ``sitemap-only`` pages by path, and the URL the
    spider is given for it (its ``robots.txt`` or a sitemap)."""

    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    robots_lines: list[str] = field(default_factory=list)
    orphans: dict[str, Reply] = field(default_factory=dict)
    start: str = ""


def _salt(web: Any) -> str:
    return f"{web.seed}:sitemaps"


def _server(site: Any) -> str:
    """The ``Server`` header of what the sitemaps serve for ``site``."""
    return site.server or "nginx"


def plan(web: Any, site: Any) -> SitemapPlan | None:
    """The sitemaps ``site`` of ``web`` publishes (``None``: none), drawn from the web's seed."""
    rng = random.Random(f"{_salt(web)}:{site.name}")
    if rng.random() < 0.5:
        return None
    result = SitemapPlan()
    home = f"http://{site.host}"
    entries: list[str] = []
    for page in site.pages:
        if rng.random() < 0.8:
            entries.append(_spelling(rng, web, site, page) if rng.random() < 0.35 else page.url)
    for number in range(rng.choice((0, 0, 1, 2))):
        entries.append(f"{home}/{rng.choice(_SECTIONS)}/gone-{number}{rng.choice(('', '/', '.html'))}")
    used = {urlsplit(page.url).path for page in site.pages}
    for number in range(rng.choice((0, 1, 1, 2, 3))):
        path = f"/{rng.choice(_SECTIONS)}/{rng.choice(_WORDS)}-{number}{rng.choice(('.html', '/', ''))}"
        if path in used or web.resolve(home + path) is not None:
            continue
        used.add(path)
        links = [f"{home}/"] + ([rng.choice(site.pages).url] if site.pages else [])
        doc = Reply.page(f"{site.host}{path}", links, title="sitemap-only")
        result.orphans[path] = Reply(doc.status, doc.body, {**doc.headers, "Server": _server(site)})
        entries.append(home + path)
    rng.shuffle(entries)
    if rng.random() < 0.5:
        result.files["/sitemap.xml"] = (_urlset(rng, entries), "application/xml")
        top = "/sitemap.xml"
    else:
        half = len(entries) // 2
        result.files["/sitemap-pages.xml"] = (_urlset(rng, entries[:half]), "application/xml")
        packed = gzip.compress(_urlset(rng, entries[half:]), mtime=0)
        result.files["/sitemap-more.xml.gz"] = (packed, "application/x-gzip")
        children = [_on_some_host(rng, site, path) for path in ("/sitemap-pages.xml", "/sitemap-more.xml.gz")]
        result.files["/sitemap_index.xml"] = (_index(children), "application/xml")
        top = "/sitemap_index.xml"
    result.robots_lines.append(f"Sitemap: {_on_some_host(rng, site, top)}")
    roll = rng.random()
    result.start = _on_some_host(rng, site, top) if roll < 0.3 else f"{home}/robots.txt"
    return result


def _on_some_host(rng: random.Random, site: Any, path: str) -> str:
    """``path`` on the canonical host, mostly; else on the twin (a redirect or the same
    answer) or with ``:80``."""
    roll = rng.random()
    if roll < 0.2 and site.other_host and site.twin != "different":
        return f"http://{site.other_host}{path}"
    if roll < 0.3:
        return f"http://{site.host}:80{path}"
    return f"http://{site.host}{path}"


def _spelling(rng: random.Random, web: Any, site: Any, page: Any) -> str:
    """Another URL the servers answer with ``page`` (else its own)."""
    parts = urlsplit(page.url)
    host, path, query = parts.netloc, parts.path, parts.query
    hosts = [host] + ([site.other_host] if site.other_host and site.twin != "different" else [])
    paths = [path]
    if path != "/":
        paths.append(path[:-1] if path.endswith("/") else path + "/")
    if path.endswith("/"):
        paths.append(path + "index.html")
    if path.endswith(".html"):
        paths.append(path.removesuffix(".html"))
    queries = [query, "&".join(filter(None, [query, rng.choice(_TRACKING)]))]
    candidates = [f"http://{h}{p}" + (f"?{q}" if q else "") for h in hosts for p in paths for q in queries]
    rng.shuffle(candidates)
    for url in candidates:
        if url != page.url and web.resolve(url) == page.doc_id:
            return url
    return page.url


def _urlset(rng: random.Random, urls: list[str]) -> bytes:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for url in urls:
        day = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"
        lastmod = f"<lastmod>{day}</lastmod>" if rng.random() < 0.5 else ""
        lines.append(f"  <url><loc>{escape(url)}</loc>{lastmod}</url>")
    lines.append("</urlset>")
    return "\n".join(lines).encode()


def _index(urls: list[str]) -> bytes:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"  <sitemap><loc>{escape(url)}</loc></sitemap>" for url in urls]
    lines.append("</sitemapindex>")
    return "\n".join(lines).encode()


def sitemap_urls(web: Any) -> list[str]:
    """What the spider is given: for each site that publishes sitemaps, its ``robots.txt``
    or a sitemap (and for a few others, their ``robots.txt``, which names none)."""
    urls = []
    for site in web.hosts:
        planned = plan(web, site)
        if planned is not None:
            urls.append(planned.start)
        elif random.Random(f"{_salt(web)}:{site.name}:none").random() < 0.3:
            urls.append(f"http://{site.host}/robots.txt")
    return urls


class Sitemaps:
    """``inner`` (a site, or a front of it) with the sitemaps :func:`plan` draws for
    ``site``: its files and ``sitemap-only`` pages where the site answers itself (the
    canonical host, or either twin where both serve), and ``Sitemap:`` lines added to
    its ``robots.txt`` (one of its own where it has none)."""

    def __init__(self, inner: Site, web: Any, site: Any) -> None:
        self.inner = inner
        self.site = site
        self.plan = plan(web, site)

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        planned = self.plan
        host = headers.get("Host", "").lower()
        answers = host == self.site.host or (self.site.twin == "same" and host in self.site.hosts)
        if planned is None or not answers:
            return self.inner.handle(path, query, headers)
        if path in planned.files and not query:
            body, kind = planned.files[path]
            return Reply(200, body, {"Content-Type": kind, "Server": _server(self.site)})
        if path in planned.orphans and not query:
            return planned.orphans[path]
        reply = self.inner.handle(path, query, headers)
        if path != "/robots.txt":
            return reply
        lines = "\n".join(planned.robots_lines) + "\n"
        if reply.status == 200 and reply.headers.get("Content-Type", "").startswith("text/plain"):
            return Reply(200, reply.body.rstrip(b"\n") + b"\n\n" + lines.encode(), reply.headers)
        text = f"User-agent: *\nDisallow:\n\n{lines}"
        return Reply(200, text.encode(), {"Content-Type": "text/plain", "Server": _server(self.site)})
