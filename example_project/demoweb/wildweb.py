"""A third, independent generator of seeded webs: hosts that behave as servers in the wild do.

:mod:`demoweb.randomweb` draws its hosts from server families (Apache, IIS, nginx,
twins, MultiViews, traps) and :mod:`demoweb.frameworkweb` from application
frameworks and hosting platforms. This module was written by an outside checker,
from what a crawler meets on the real web that neither models; each host is one
*kind* with its own quirks:

- ``wiki`` (MediaWiki): articles at ``/wiki/Title``; only the first letter of a
  title folds case (``/wiki/apple_pie`` -> 301 ``/wiki/Apple_pie``, but
  ``/wiki/Apple_Pie`` is another article), ``/wiki/Apple%20pie`` -> 301 the
  underscore form, ``/w/index.php?title=Apple_pie`` serves the article (no
  redirect), ``&printable=yes`` and unknown parameters change nothing;
  ``?oldid=N`` old revisions (a word different from the article), where the
  ``title`` parameter is ignored (``?title=Other&oldid=N`` is revision N);
  ``&action=history`` and ``&action=info`` pages of their own (only ever spelled with
  ``?title=``).
- ``doku`` (DokuWiki): pages at ``/doku.php?id=ns:page`` (``id`` read as DokuWiki's
  ``cleanID`` does: ``NS/Page`` is ``ns:page``, no redirect); every page has a revision
  dated by the import that created the wiki (one 10-digit ``?rev=`` on every page):
  the current page where it was never edited, an old revision (a word different)
  where it was; a ``rev`` it has no revision for answers the current page (with a
  notice on half the hosts, byte for byte on the others); ``&do=revisions`` a page of its own, other actions ``403``.
- ``records`` (a Rails application): ``/articles/<id>`` with comment pages
  ``?page=2``..., ``?page=1`` (or a page it cannot read) the first page, ``?ref=``
  ignored; its entity tags key on the record (``fresh_when(@article)``), so every
  page of one record has one weak tag and answers ``304`` to it, as Rails does when
  the tag leaves the page number out; a third of them also name the record's URL
  (page 1) in ``Content-Location`` on every page of it (not sure how common: the
  header is rarer than the ``rel=canonical`` such paginations get wrong).
- ``mirror`` (a wget/HTTrack mirror on a plain static server): UTF-8 paths (links
  as raw IRIs, lower-case escapes), ``~user`` directories (``%7E``/``%7e``), a file
  whose name holds an encoded ``?`` (``/list.html%3Fpage=2.html``) beside
  ``/list.html`` whose query the server ignores, ``/my%20file.html`` beside
  ``/my+file.html``, a Latin-1 file name (``%E9``) beside the UTF-8 one; ``/d`` ->
  301 ``/d/``, ``/d/index.html`` the directory's page, every query ignored.
- ``cms`` (PHP under Apache, ``DirectoryIndex index.php index.html``): a directory
  whose ``index.php`` answers ``/d/`` while a stray ``index.html`` beside it is
  another page; other directories have only ``index.html``; every page carries a
  ``<base href>`` (the site's root, now and then its ``www.`` twin's) and writes
  its links relative to it; unknown paths 302 to the home page, or a 200 that
  echoes the URL; removed pages ``410 Gone``; on half the hosts WPML's language
  parameter: ``?lang=de`` is a translation on the pages that have one and is ignored
  on every other (each page's switcher links its own ``?lang=de`` or ``?lang=en``).
- ``java`` (a Tomcat/JAX-RS application on ``:8080`` beside another site on port
  80 of the same name): ``;jsessionid=`` ignored, ``;v=2`` matrix parameters select
  another version, ``h:8080/x`` and ``h/x`` different documents, and the
  application's ``/app`` redirect drops the port (``302 http://h/app/``, where port
  80 serves a page of its own), as a container behind a misconfigured proxy does.
- ``cdn`` (a static site behind a CDN): one entity tag (``W/"deploy-..."`` or
  strong) and one ``Last-Modified`` for every page, honoured in conditional
  requests (so any page answers ``304`` to another's tag); ``HEAD`` answered
  ``405`` now and then; Angular-style ``<base href="/">`` on every page with links
  relative to the root; ``/x.html`` and ``/x/`` -> 308 ``/x``, except ``/docs``
  and ``/docs/``, two pages; unknown paths the app shell (200, no document).
- ``archive`` (a Wayback-style web archive): ``/web/<14 digits>/http://host/path``
  snapshots of the other hosts' pages (two dates of one URL: two documents, a
  word apart), the archived URL's query part of the resource (``?utm_source=rss``
  captured apart from the plain URL: another document; so is a URL some page wrote
  with a doubled slash, ``http://h/docs//x``, captured on its own date), each capture's links
  rewritten to its own date (``/web/<its date>/<link>``, a 302 to the nearest
  capture of that URL, or a 404), ``/web/<year>/...`` -> 302 the nearest snapshot, ``http:/`` (a merged ``//``) -> 301 ``http://``,
  ``id_`` raw captures.

Each host also draws its redirect status (301/302/303/307/308) and ``Location``
style (relative, absolute, upper-case host, ``:80``, scheme-relative), a ``www.``
twin, validators (content tags, weak tags, none), a ``HEAD`` that ignores
conditions while ``GET`` answers ``304`` to any ``If-None-Match`` (a naive GET-only
cache), gzip (with Apache's ``-gzip`` tag suffix that never matches again), and
rotating ad slots (bytes differ between answers). Links are also spelled with an
upper-case host, a trailing-dot host (``h.test.``), ``:80``, scheme-relative,
tracking parameters (where the server ignores them) and fragments.

Every document is reachable by stock Scrapy by construction: each page but a
host's home is linked, in the exact URL that serves it (no redirect), from a page
of its site that is itself reached that way, resolved against the page's
``<base href>`` as Scrapy does; each home is a start URL or linked by its absolute
URL from an earlier host's page. :meth:`WildWeb.check` verifies it over the data.
"""

from __future__ import annotations

import functools
import gzip
import html
import itertools
import random
import re
import threading
import zlib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote_to_bytes, urljoin, urlsplit

from .randomweb import (
    CrawlOrder,
    FamilyComparison,
    Page,
    RandomWeb,
    TwinHosts,
    _relative,
    canonicalize_url,
    compare_by_family,
    route,
    safe_url_string,
    serve,
    span_sites,
)
from .server import NETLOC_HEADER, Reply, VirtualWeb

KINDS = ("wiki", "doku", "records", "mirror", "cms", "java", "cdn", "archive")
#: Query parameters that select nothing on hosts that read their query (they ignore them).
TRACKING = ("utm_source=rss", "utm_source=newsletter&utm_medium=email", "fbclid=IwAR0wild", "ref=sidebar")
FRAGMENTS = ("top", "content", "footer", "cite_note-1")
_WORDS = ("intro", "guide", "history", "pricing", "setup", "roadmap", "faq", "notes", "install", "team")
_FILLER = (
    "Integer posuere erat a ante venenatis dapibus posuere velit aliquet.",
    "Nullam quis risus eget urna mollis ornare vel eu leo.",
    "Donec ullamcorper nulla non metus auctor fringilla.",
    "Cras justo odio, dapibus ac facilisis in, egestas eget quam.",
    "Etiam porta sem malesuada magna mollis euismod.",
)
_SWAPS = (("quis", "quid"), ("risus", "rosus"), ("nulla", "nullo"), ("odio", "odium"), ("porta", "porto"))
_HREF = re.compile(r'<a href="([^"]*)"')
_BASE = re.compile(r'<base href="([^"]*)">')
#: Tracking parameters of URLs an archive captured (each capture a record of its own).
_CAPTURED_TRACKING = ("utm_source=rss", "fbclid=IwAR0wild", "gclid=EAIaIQobChMI", "_ga=2.1234.5678", "mc_cid=3f2a1b")
_ADS = ("Buy more widgets!", "Try our new app", "Sponsored: cheap flights", "Subscribe today")

#: The request method the in-process server is answering, per server thread (see :func:`serve_wild`).
_METHOD = threading.local()


def request_method() -> str:
    return str(getattr(_METHOD, "value", "GET"))


def decode_path(raw: str) -> str:
    """``raw`` percent-decoded as UTF-8 (bytes that are not UTF-8 kept apart, as surrogates),
    an encoded slash left as ``%2F``: how the file system or router sees it."""
    parts = re.split(r"%2[fF]", raw)
    return "%2F".join(unquote_to_bytes(part).decode("utf-8", "surrogateescape") for part in parts)


def encode_path(path: str) -> str:
    """A decoded path in the form Scrapy sends it (UTF-8, upper-case escapes)."""
    return quote(path.encode("utf-8", "surrogateescape"), safe="/;=~!$&'()*+,:@%-._")


def _first_word_swapped(text: str, rng: random.Random) -> str:
    """``text`` with one word changed: a near-duplicate of a page."""
    for old, new in rng.sample(_SWAPS, len(_SWAPS)):
        if old in text:
            return text.replace(old, new, 1)
    return text + " (rev)"


def content_tag(body: bytes, *, weak: bool = False) -> str:
    """The entity tag a server computing it from the body gives ``body`` (strong or weak)."""
    return f'W/"{zlib.crc32(body):08x}-{len(body):x}"' if weak else f'"{zlib.crc32(body):08x}"'


def render(
    doc_id: str | None,
    links: list[str],
    *,
    title: str,
    text: str,
    base: str | None = None,
    banner: str = "",
) -> bytes:
    esc = html.escape
    head = f'<meta charset="utf-8"><title>{esc(title)}</title>'
    if doc_id is not None:
        head = f'<meta name="doc-id" content="{esc(doc_id)}">' + head
    if base is not None:
        head += f'<base href="{esc(base)}">'
    anchors = "\n".join(f'<li><a href="{esc(href)}">{esc(href)}</a></li>' for href in links)
    body = f"<h1>{esc(title)}</h1>{banner}<p>{esc(text)}</p><ul>\n{anchors}\n</ul>"
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>".encode()


@dataclass(eq=False)
class WildSite(TwinHosts):
    """One host (its ``www.`` twin, and for ``java`` its other port) of one kind."""

    name: str
    kind: str
    twin: str = "none"
    server: str = ""
    redirect_status: int = 301
    #: "relative", "absolute", "upper" (upper-case host), "port" (``:80``), "schemeless" (``//h/x``)
    location: str = "absolute"
    #: Unknown paths: "404", "echo" (200 naming the URL, no document), "home" (302 to ``/``), "shell".
    fallback: str = "404"
    #: "none", "content" (a digest), "weak" (``W/`` digest), "constant" (one tag for all pages).
    etags: str = "none"
    last_modified: bool = False
    #: "same"; "405" (``HEAD`` not allowed); "plain" (``HEAD`` ignores conditions, while a
    #: naive cache answers every conditional ``GET`` with ``304``).
    head: str = "same"
    gzip: bool = False
    ads: bool = False
    pages: list[Page] = field(default_factory=list)
    #: (authority, decoded path, query key) -> document
    routes: dict[tuple[str, str, str], Page] = field(default_factory=dict)
    specials: dict[tuple[str, str, str], Reply] = field(default_factory=dict)
    bases: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    banners: dict[str, str] = field(default_factory=dict)
    traps: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deploy: str = ""
    _answers: int = 0

    # -- building --------------------------------------------------------------------------

    def authority(self, port: int | None = None) -> str:
        return self.host if port in (None, 80) else f"{self.host}:{port}"

    def add(self, path: str, query: str = "", *, authority: str | None = None, doc: str | None = None) -> Page:
        """A document at decoded ``path`` (+ ``query``), on ``authority`` (the canonical host)."""
        authority = authority or self.host
        key = encode_path(path) + (f"?{query}" if query else "")
        page = Page(doc or f"{authority}{key}", authority, encode_path(path), query)
        self.pages.append(page)
        self.routes[(authority, self.fold(path), self.query_key(path, query))] = page
        rng = random.Random(page.doc_id)
        self.texts[page.doc_id] = " ".join(rng.sample(_FILLER, 2))
        return page

    def fold(self, path: str) -> str:
        return path

    def query_key(self, path: str, query: str) -> str:
        """The query as the application reads it (default: without tracking parameters)."""
        kept = [p for p in query.split("&") if p and not p.startswith(("utm_", "fbclid=", "ref="))]
        return "&".join(kept)

    def spellings(self, page: Page) -> list[str]:
        """Other URLs this kind may serve ``page`` at (checked by the caller)."""
        return []

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        """Links the kind's templates always write (history pages, listings...)."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        """Draws the host's parameters and documents (``others``: earlier hosts' pages)."""
        raise NotImplementedError

    # -- serving ---------------------------------------------------------------------------

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower().rstrip(".")
        netloc = headers.get(NETLOC_HEADER, host).lower()
        port: int | None = None
        _, sep, tail = netloc.rpartition(":")
        if sep and tail.isdigit() and "]" not in tail:
            port = int(tail)
        if self.twin in ("to_bare", "to_www") and host != self.host:
            where = self.host + (f":{port}" if port not in (None, 80, 443) else "")
            return self.finish(Reply.redirect(f"http://{where}{path}" + (f"?{query}" if query else ""), 301), headers)
        if self.twin == "same":
            host = self.host
        authority = host if port in (None, 80, 443) else f"{host}:{port}"
        return self.finish(self.answer(authority, path, query), headers)

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        key = (authority, self.fold(path), self.query_key(path, query))
        special = self.specials.get(key)
        if special is not None:
            return special
        page = self.routes.get(key)
        if page is not None:
            return self.render(page)
        return self.fall_back(authority, raw_path)

    def render(self, page: Page) -> Reply:
        body = render(
            page.doc_id,
            page.links,
            title=page.doc_id.split("/", 1)[-1] or "Home",
            text=self.texts.get(page.doc_id, ""),
            base=self.bases.get(page.doc_id),
            banner=self.banners.get(page.doc_id, ""),
        )
        return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})

    def redirect(self, authority: str, target: str, status: int | None = None) -> Reply:
        """A redirect to ``target`` (a path, or an absolute URL) in the host's ``Location`` style."""
        if target.startswith("/"):
            style = self.location
            if style == "absolute":
                target = f"http://{authority}{target}"
            elif style == "upper":
                target = f"http://{authority.upper()}{target}"
            elif style == "port" and ":" not in authority:
                target = f"http://{authority}:80{target}"
            elif style == "schemeless":
                target = f"//{authority}{target}"
        return Reply.redirect(target, status or self.redirect_status)

    def fall_back(self, authority: str, raw_path: str) -> Reply:
        if self.fallback == "echo":
            body = render(None, ["/"], title="Not found", text=f"Sorry, {raw_path} does not exist here.")
            return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})
        if self.fallback == "home":
            return self.redirect(authority, "/", 302)
        if self.fallback == "shell":
            body = render(None, [], title="App", text="Loading...", base="/")
            return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})
        return Reply.not_found()

    def finish(self, reply: Reply, headers: Mapping[str, str]) -> Reply:
        """Server header, ads, validators, conditional requests, ``HEAD`` quirks, gzip."""
        method = request_method()
        answer = dict(reply.headers)
        if self.server:
            answer.setdefault("Server", self.server)
        if method == "HEAD" and self.head == "405":
            return Reply(405, b"", {"Allow": "GET, POST", **({"Server": self.server} if self.server else {})})
        if reply.status != 200:
            return Reply(reply.status, reply.body, answer)
        body = reply.body
        tag = answer.get("ETag", "")  # (a kind's own validator, if it sets one)
        if tag:
            pass
        elif self.etags == "constant":
            tag = self.deploy
        elif self.etags in ("content", "weak"):
            tag = content_tag(body, weak=self.etags == "weak")
        if self.ads and b"</body>" in body:
            self._answers += 1
            ad = _ADS[self._answers % len(_ADS)]
            body = body.replace(b"</body>", f'<div class="ad">{ad}</div></body>'.encode(), 1)
        wanted = next((v for k, v in headers.items() if k.lower() == "if-none-match"), "")
        since = next((v for k, v in headers.items() if k.lower() == "if-modified-since"), "")
        if self.last_modified:
            answer["Last-Modified"] = "Tue, 14 Nov 2023 08:12:31 GMT"
        if tag:
            answer["ETag"] = tag
        if wanted and self.head == "plain" and method == "GET":
            return Reply(304, b"", {k: v for k, v in answer.items() if k != "Content-Type"})
        if method == "HEAD" and self.head == "plain":
            wanted = since = ""
        if tag and wanted:
            if tag.removeprefix("W/") in {v.strip().removeprefix("W/") for v in wanted.split(",")}:
                return Reply(304, b"", {k: v for k, v in answer.items() if k != "Content-Type"})
        elif self.last_modified and since == answer["Last-Modified"]:
            return Reply(304, b"", {k: v for k, v in answer.items() if k != "Content-Type"})
        accepts = next((v for k, v in headers.items() if k.lower() == "accept-encoding"), "")
        if self.gzip and "gzip" in accepts:
            body = gzip.compress(body, mtime=0)
            answer["Content-Encoding"] = "gzip"
            answer["Vary"] = "Accept-Encoding"
            if tag:  # Apache's mod_deflate: the tag of the compressed variant, never matched again
                answer["ETag"] = tag[:-1] + '-gzip"'
        return Reply(200, body, answer)

    def describe(self) -> str:
        flags = [
            self.kind,
            f"twin={self.twin}" if self.twin != "none" else "",
            f"server={self.server.split('/')[0]}" if self.server else "",
            f"redirect={self.redirect_status}/{self.location}",
            f"fallback={self.fallback}",
            f"etags={self.etags}" if self.etags != "none" else "",
            "last-modified" if self.last_modified else "",
            {"same": "", "405": "HEAD=405", "plain": "HEAD-ignores-conditions+GET-304-to-any-tag"}[self.head],
            "gzip" if self.gzip else "",
            "ads" if self.ads else "",
            f"bases={len(self.bases)}" if self.bases else "",
            *self.notes,
            f"docs={len(self.pages)}",
            f"traps=[{', '.join(self.traps)}]" if self.traps else "",
            f"moves=[{', '.join(self.loops)}]" if self.loops else "",
        ]
        return f"{self.host:18} " + " ".join(flag for flag in flags if flag)


# -- kinds ------------------------------------------------------------------------------------


def _title(word: str) -> str:
    return word[:1].upper() + word[1:]


class WikiSite(WildSite):
    """MediaWiki: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "nginx/1.25.3", "ATS/9.2.3"))
        self.revisions: dict[str, Page] = {}  # oldid -> revision page
        self.current: dict[str, str] = {}  # title -> its current oldid
        self.articles: dict[str, Page] = {}
        self.histories: dict[str, Page] = {}
        self.infos: dict[str, Page] = {}
        titles = ["Main_Page"]
        stems = rng.sample(("Apple_pie", "Banana_bread", "Cherry_tart", "Lemon_cake", "Plum_jam", "Fig_roll"), 4)
        trap = rng.random() < 0.7
        for stem in stems:
            if len(titles) * 2 >= budget:
                break
            titles.append(stem)
        if trap and len(titles) > 1:
            twin = titles[1].split("_")[0] + "_" + _title(titles[1].split("_")[1])  # Apple_Pie
            titles.append(twin)
            self.traps.append(f"/wiki/{titles[1]} vs /wiki/{twin} (case after the first letter)")
        oldid = rng.randrange(10_000_000, 90_000_000)
        for title in titles:
            page = self.add(f"/wiki/{title}")
            self.articles[title] = page
        for title in titles:
            article = self.articles[title]
            olds = rng.randint(0, 2) if len(self.pages) < budget else 0
            text = self.texts[article.doc_id]
            for _ in range(olds):
                oldid += rng.randrange(3, 5000)
                revision = self._revision(title, str(oldid), doc=None)
                text = _first_word_swapped(text, rng)
                self.texts[revision.doc_id] = text
            oldid += rng.randrange(3, 5000)
            self.current[title] = str(oldid)
            if olds:
                history = self.add("/w/index.php", f"title={title}&action=history")
                self.histories[title] = history
            if rng.random() < 0.3 and len(self.pages) < budget:
                self.infos[title] = self.add("/w/index.php", f"title={title}&action=info")
        if len(self.revisions) >= 1:
            self.traps.append("?title=X&oldid=N is revision N whatever X")

    def _revision(self, title: str, oldid: str, doc: str | None) -> Page:
        page = Page(doc or f"{self.host}/w/index.php?title={title}&oldid={oldid}", self.host, "/w/index.php")
        page.query = f"title={title}&oldid={oldid}"
        self.pages.append(page)
        self.revisions[oldid] = page
        self.banners[page.doc_id] = f"<p>Revision as of {oldid} of {html.escape(title)}</p>"
        return page

    def normal(self, title: str) -> str:
        return _title(title.replace(" ", "_"))

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        special = self.specials.get((authority, path, query))
        if special is not None:
            return special
        if path == "/":
            return self.redirect(authority, "/wiki/Main_Page", 301)
        if path.startswith("/wiki/"):
            title = path[len("/wiki/") :]
            if self.normal(title) != title:
                return self.redirect(authority, "/wiki/" + encode_path(self.normal(title)), 301)
            return self.article(title)
        if path == "/w/index.php":
            oldid = params.get("oldid", "")
            if oldid:
                if oldid in self.revisions:
                    return self.render(self.revisions[oldid])
                for title, current in self.current.items():
                    if current == oldid:
                        reply = self.render(self.articles[title])
                        banner = f"<p>Revision as of {oldid} (current)</p>".encode()
                        return Reply(200, reply.body.replace(b"<p>", banner + b"<p>", 1), reply.headers)
                return Reply(404, b"<html><body>The revision could not be found.</body></html>", {})
            title = decode_path(params.get("title", "").replace("+", " "))
            if not title:
                return self.redirect(authority, "/wiki/Main_Page", 301)
            if self.normal(title) != title:
                return self.redirect(authority, "/w/index.php?title=" + encode_path(self.normal(title)), 301)
            if params.get("action") == "history" and title in self.histories:
                return self.render(self.histories[title])
            if params.get("action") == "info" and title in self.infos:
                return self.render(self.infos[title])
            if params.get("action", "view") == "view":
                return self.article(title)
        return self.fall_back(authority, raw_path)

    def article(self, title: str) -> Reply:
        page = self.articles.get(title)
        if page is None:
            body = render(None, ["/wiki/Main_Page"], title=title, text="There is currently no text in this page.")
            return Reply(404, body, {"Content-Type": "text/html; charset=utf-8"})
        return self.render(page)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for title, article in self.articles.items():
            if article is page:
                lower = title[:1].lower() + title[1:]
                return [
                    f"{base}/wiki/{lower}",
                    f"{base}/wiki/{encode_path(title.replace('_', ' '))}",
                    f"{base}/w/index.php?title={title}",
                    f"{base}/w/index.php?title={lower}",
                    f"{base}/w/index.php?title={title}&printable=yes",
                    f"{base}/wiki/{title}?useskin=vector",
                    f"{base}/w/index.php?title={title}&oldid={self.current[title]}",
                    f"{base}/w/index.php?oldid={self.current[title]}",
                ]
        for oldid, revision in self.revisions.items():
            if revision is page:
                other = next(iter(self.articles))
                return [
                    f"{base}/w/index.php?oldid={oldid}",
                    f"{base}/w/index.php?title={other}&oldid={oldid}",
                    f"{base}/w/index.php?oldid={oldid}&title={other}",
                ]
        return []

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        for title, info in self.infos.items():
            self.articles[title].links.append(f"/w/index.php?title={title}&action=info")
            info.links.append(f"/wiki/{title}")
        for title, history in self.histories.items():
            article = self.articles[title]
            article.links.append(f"/w/index.php?title={title}&action=history")
            history.links.append(f"/wiki/{title}")
            for oldid, revision in self.revisions.items():
                if revision.query.startswith(f"title={title}&"):
                    history.links.append(rng.choice((f"?title={title}&oldid={oldid}", f"/w/index.php?oldid={oldid}")))
            history.links.append(f"/w/index.php?title={title}&oldid={self.current[title]}")


class DokuSite(WildSite):
    """DokuWiki: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.57 (Debian)", "nginx/1.22.1"))
        #: The import that created every page: one revision date on every page.
        self.imported = str(rng.randrange(1_600_000_000, 1_650_000_000))
        #: Whether a ``rev`` it has no revision for says so (else: the current page, byte for byte).
        self.notice = rng.random() < 0.5
        self.articles: dict[str, Page] = {}
        self.revisions: dict[tuple[str, str], Page] = {}  # (id, rev) -> an old revision
        self.current: dict[str, str] = {}  # id -> the date of its current revision
        self.listings: dict[str, Page] = {}
        ids = ["start"]
        spaces = rng.sample(("wiki", "howto", "team", "infra", "ops"), 2)
        while len(ids) * 2 < budget and len(ids) < 12:
            page_id = f"{rng.choice(spaces)}:{rng.choice(_WORDS)}"
            if page_id not in ids:
                ids.append(page_id)
        for page_id in ids:
            self.articles[page_id] = self.add("/doku.php", f"id={page_id}")
        edited = 0
        for page_id in ids:
            if rng.random() < 0.5 and len(self.pages) < budget:
                edited += 1
                revision = Page(f"{self.host}/doku.php?id={page_id}&rev={self.imported}", self.host, "/doku.php")
                revision.query = f"id={page_id}&rev={self.imported}"
                self.pages.append(revision)
                self.revisions[(page_id, self.imported)] = revision
                self.texts[revision.doc_id] = _first_word_swapped(self.texts[self.articles[page_id].doc_id], rng)
                self.current[page_id] = str(int(self.imported) + rng.randrange(86_400, 90_000_000))
                self.listings[page_id] = self.add("/doku.php", f"id={page_id}&do=revisions")
            else:
                self.current[page_id] = self.imported
        self.traps.append(
            f"?rev={self.imported} on every page: the current page on {len(ids) - edited}, "
            f"an old revision on {edited}; an unknown rev answers the current page"
            + (" with a notice" if self.notice else " byte for byte")
        )

    def clean(self, page_id: str) -> str:
        """DokuWiki's ``cleanID``: lower case, ``/`` and ``;`` as namespace separators."""
        return page_id.lower().replace("/", ":").replace(";", ":").strip(":")

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        special = self.specials.get((authority, path, query))
        if special is not None:
            return special
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        if path == "/":
            return self.redirect(authority, "/doku.php?id=start", 302)
        if path != "/doku.php":
            return self.fall_back(authority, raw_path)
        page_id = self.clean(decode_path(params.get("id", "start")))
        article = self.articles.get(page_id)
        if article is None:
            body = render(None, ["/doku.php?id=start"], title=page_id, text="This topic does not exist yet")
            return Reply(404, body, {"Content-Type": "text/html; charset=utf-8"})
        action = params.get("do", "show")
        if action == "revisions" and page_id in self.listings:
            return self.render(self.listings[page_id])
        if action != "show":
            body = render(None, [article.key], title="Login", text="You are not allowed to do that.")
            return Reply(403, body, {"Content-Type": "text/html; charset=utf-8"})
        rev = params.get("rev", "")
        if rev and (page_id, rev) in self.revisions:
            return self.render(self.revisions[(page_id, rev)])
        reply = self.render(article)
        if self.notice and rev and rev != self.current[page_id]:  # no such revision: the current one, noted
            notice = b"<div class='notify'>This revision does not exist.</div>"
            reply = Reply(200, reply.body.replace(b"<p>", notice + b"<p>", 1), reply.headers)
        return reply

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}/doku.php"
        for page_id, article in self.articles.items():
            if article is page:
                upper = page_id.replace(":", "/").upper()
                return [
                    f"{base}?id={upper}",
                    f"{base}?id={page_id.replace(':', '/')}",
                    f"{base}?id={page_id}&rev={self.current[page_id]}",
                    f"{base}?id={page_id}&rev={self.imported}",
                    f"{base}?id={page_id}&rev={int(self.current[page_id]) + 7}",
                    f"{base}?id={page_id}&utm_source=rss",
                ]
        return []

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        for page_id, listing in self.listings.items():
            article = self.articles[page_id]
            article.links.append(f"?id={page_id}&do=revisions")
            listing.links += [f"?id={page_id}&rev={self.imported}", f"?id={page_id}&rev={self.current[page_id]}"]
            listing.links.append(article.key)
        for page_id, article in self.articles.items():
            if page_id not in self.listings and rng.random() < 0.5:
                article.links.append(f"/doku.php?id={page_id}&rev={self.imported}")  # "permalink to this version"


class RecordsSite(WildSite):
    """A Rails application whose validators key on the record: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Puma", "nginx/1.24.0 + Phusion Passenger(R) 6.0.18", "Cowboy"))
        self.tags: dict[str, str] = {}  # path -> the tag of its record, whatever the page
        #: The record's URL as ``Content-Location`` on every page of it (the helper that writes
        #: ``rel=canonical`` to page 1, as misconfigured paginations do, writing the header too).
        self.content_location = rng.random() < 0.35
        if self.content_location:
            self.notes.append("Content-Location=the-record's-URL-on-every-page")
        section = rng.choice(("articles", "posts", "products", "recipes"))
        listing = f"/{section}"
        self.add(listing)
        self.tags[listing] = f'W/"{rng.getrandbits(64):016x}"'
        pages = rng.randint(1, 3)
        for number in range(2, pages + 1):
            self.add(listing, f"page={number}")
        while len(self.pages) < budget:
            path = f"/{section}/{rng.randrange(10, 5000)}"
            if path in self.tags:
                continue
            self.add(path)
            self.tags[path] = f'W/"{rng.getrandbits(64):016x}"'
            for number in range(2, rng.choice((1, 1, 2, 3, 4)) + 1):  # comment pages
                self.add(path, f"page={number}")
        paged = [path for path in self.tags if (self.host, path, "page=2") in self.routes]
        if paged:
            self.traps.append(
                f"?page=2 beside ?page=1 (= no page) on {len(paged)} paths, one entity tag for every "
                "page of a record (fresh_when(@record) ignores the page)"
            )

    def query_key(self, path: str, query: str) -> str:
        kept = [p for p in query.split("&") if p.startswith("page=")]
        page = kept[-1].partition("=")[2] if kept else "1"
        page = page if page.isdigit() and page != "0" else "1"  # (Kaminari: a page it cannot read is the first)
        return "" if page == "1" else f"page={int(page)}"

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        reply = super().answer(authority, raw_path, query)
        path = decode_path(raw_path).removesuffix("/")
        if reply.status == 200 and path in self.tags:
            extra = {"ETag": self.tags[path]}
            if self.content_location:
                extra["Content-Location"] = encode_path(path)
            reply = Reply(200, reply.body, {**reply.headers, **extra})
        return reply

    def fall_back(self, authority: str, raw_path: str) -> Reply:
        return Reply(404, b"<html><body>The page you were looking for doesn't exist.</body></html>", {})

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}{page.path}"
        number = page.query.partition("=")[2] or "1"
        return [
            f"{base}?page={number}",
            f"{base}?page={number}&ref=sidebar",
            f"{base}?ref=nav&page={number}",
            f"{base}?page={number}&page={number}",
        ]

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        by_path: dict[str, list[Page]] = {}
        for page in self.pages:
            by_path.setdefault(page.path, []).append(page)
        for pages in by_path.values():
            for first, second in itertools.pairwise(pages):
                first.links.append(f"?page={second.query.partition('=')[2]}")
                second.links.append(rng.choice(("?page=1", first.path)) if not first.query else f"?{first.query}")


class MirrorSite(WildSite):
    """A static mirror: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.58 (Unix)", "lighttpd/1.4.73", "SimpleHTTP/0.6 Python/3.12.1"))
        self.files: dict[str, Page] = {}
        plan: list[str] = ["/"]
        unicode_names = ["/wiki/Café.html", "/docs/Résumé/", "/文档/intro.html", "/über-uns.html", "/naïve–guide.html"]
        plan += rng.sample(unicode_names, rng.randint(1, 3))
        if rng.random() < 0.6:
            plan += ["/~alice/", "/~alice/notes.html"]
        if rng.random() < 0.6:
            plan += ["/list.html", "/list.html?page=2.html"]
            self.traps.append("/list.html?page=2.html (query, ignored) vs /list.html%3Fpage=2.html (a file)")
        if rng.random() < 0.5:
            plan += ["/my file.html", "/my+file.html"]
            self.traps.append("/my%20file.html vs /my+file.html")
        if rng.random() < 0.3:
            plan += ["/café.html", "/caf\udce9.html"]
            self.traps.append("/caf%C3%A9.html vs /caf%E9.html (Latin-1 name)")
        while len(plan) < budget:
            word = rng.choice(_WORDS)
            path = rng.choice((f"/{word}.html", f"/{word}/", f"/docs/{word}.html"))
            if path not in plan:
                plan.append(path)
            elif len(plan) > 3 and rng.random() < 0.2:
                break
        for path in plan:
            self.files[path] = self.add(path)

    def query_key(self, path: str, query: str) -> str:
        return ""  # a static server: the query selects nothing

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        if path.endswith("/index.html"):
            page = self.routes.get((authority, path[: -len("index.html")], ""))
            if page is not None:
                return self.render(page)
        if not path.endswith("/") and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/")
        return super().answer(authority, raw_path, query)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        raw = page.path
        decoded = decode_path(raw)
        out = [f"{base}{raw.lower()}" if "%" in raw else "", f"{base}{raw}?v=3", f"{base}{raw}?"]
        if "\udce9" not in decoded and decoded != raw:
            out.append(f"{base}{decoded}")  # a raw IRI
        if "~" in raw:
            out += [f"{base}{raw.replace('~', '%7E')}", f"{base}{raw.replace('~', '%7e')}"]
        if raw.endswith("/"):
            out += [f"{base}{raw}index.html", f"{base}{raw[:-1]}"]
        return [url for url in out if url]


class CmsSite(WildSite):
    """PHP under Apache: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache/2.4.41 (Ubuntu)"
        self.fallback = rng.choice(("home", "echo", "404"))
        self.php_dirs: set[str] = set()
        self.html_dirs: set[str] = set()
        self.add("/")
        self.php_dirs.add("/")
        dirs = rng.sample(("blog", "shop", "events", "members", "gallery", "downloads"), rng.randint(2, 4))
        for name in dirs:
            path = f"/{name}/"
            self.add(path)
            if rng.random() < 0.5:
                self.php_dirs.add(path)
                if rng.random() < 0.6:
                    self.add(path + "index.html")
                    self.traps.append(f"{path} (index.php) vs {path}index.html (a stray file)")
            else:
                self.html_dirs.add(path)
        while len(self.pages) < budget:
            name = rng.choice(dirs)
            path = f"/{name}/{rng.choice(_WORDS)}-{rng.randrange(100)}.php"
            if (self.host, path, "") not in self.routes:
                self.add(path)
        for number in range(rng.randint(0, 2)):
            path = f"/old-{rng.choice(_WORDS)}-{number}.html"
            self.specials[(self.host, path, "")] = Reply(410, b"<html><body>Gone</body></html>", {})
            self.loops.append(f"{path}->410")
        # WPML's language as a parameter: a page with a translation answers ?lang=de with it,
        # every other page ignores the parameter (its default language, byte for byte).
        self.translated: set[str] = set()
        if rng.random() < 0.5:
            originals = [page for page in self.pages if not page.query]
            for page in rng.sample(originals, min(len(originals), rng.randint(1, 3))):
                self.translated.add(decode_path(page.path))
                self.add(decode_path(page.path), "lang=de")
            self.traps.append(f"?lang=de a translation on {len(self.translated)} page(s), ignored on the others")
        www = rng.random() < 0.3 and self.twin == "same"
        root = f"http://{self.other_host if www else self.host}/"
        for page in self.pages:
            self.bases[page.doc_id] = root
        self.notes.append(f"base={root}")

    def query_key(self, path: str, query: str) -> str:
        # Its scripts read no other parameter: PHPSESSID, utm_source... change nothing.
        if path in getattr(self, "translated", ()) and "lang=de" in query.split("&"):
            return "lang=de"
        return ""

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        if self.translated:
            for page in self.pages:
                page.links.append(page.key + ("&" if page.query else "?") + rng.choice(("lang=de", "lang=en")))

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        for name in ("index.php", "index.html"):
            if path.endswith("/" + name):
                directory = path[: -len(name)]
                served_by = "index.php" if directory in self.php_dirs else "index.html"
                if served_by == name and (authority, directory, "") in self.routes:
                    return self.render(self.routes[(authority, directory, "")])
        if not path.endswith("/") and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, raw_path + "/")
        return super().answer(authority, raw_path, query)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        out = [f"{base}{page.key}?utm_source=rss", f"{base}{page.key}?PHPSESSID=8a9f0e"]
        if page.path.endswith("/") and page.path in self.php_dirs:
            out.append(f"{base}{page.path}index.php")
        if page.path.endswith("/") and page.path in self.html_dirs:
            out.append(f"{base}{page.path}index.html")
        if page.path.endswith("/") and page.path != "/":
            out.append(f"{base}{page.path[:-1]}")
        return out


class JavaSite(WildSite):
    """A servlet application on ``:8080`` beside another site on port 80: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache-Coyote/1.1"
        self.app = self.authority(8080)
        self.add("/", authority=self.app)  # (pages[0]: the application's home)
        self.add("/", authority=self.host)
        self.add("/app/", authority=self.host)
        self.add("/app/", authority=self.app)
        self.traps.append(f"{self.app}/app/ vs {self.host}/app/ (another site on port 80)")
        self.specials[(self.app, "/app", "")] = Reply.redirect(f"http://{self.host}/app/", 302)
        self.loops.append(f"{self.app}/app -> 302 http://{self.host}/app/ (port dropped)")
        if rng.random() < 0.7:
            self.add("/app/api/spec", authority=self.app)
            self.add("/app/api/spec;v=2", authority=self.app)
            self.traps.append("/app/api/spec vs /app/api/spec;v=2 (matrix parameter)")
        while len(self.pages) < budget:
            word = rng.choice(_WORDS)
            authority = self.app if rng.random() < 0.7 else self.host
            path = f"/app/{word}" if authority == self.app else f"/{word}"
            if (authority, path, "") not in self.routes:
                self.add(path, authority=authority)
                if authority == self.app and (self.host, path, "") not in self.routes and rng.random() < 0.3:
                    self.add(path, authority=self.host)
                    self.traps.append(f"{self.app}{path} vs {self.host}{path}")
        self.notes.append(f"port-80-site={self.host}({len([p for p in self.pages if p.host == self.host])} docs)")

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        if authority == self.app:
            raw_path = re.sub(r";jsessionid=[^;/?]*", "", raw_path, flags=re.IGNORECASE)
        if authority not in (self.app, self.host):
            return Reply.not_found()
        return super().answer(authority, raw_path, query)

    def spellings(self, page: Page) -> list[str]:
        hostname, _, port = page.host.partition(":")
        upper = hostname.upper() + (f":{port}" if port else "")
        dotted = hostname + "." + (f":{port}" if port else "")
        out = [f"http://{upper}{page.key}", f"http://{dotted}{page.key}", f"http://{page.host}{page.key}?ref=nav"]
        if page.host == self.app and ";" not in page.path:
            out.append(f"http://{page.host}{page.path};jsessionid=F00DCAFE0123{page.query and '?' + page.query}")
        if not port:
            out.append(f"http://{hostname}:80{page.key}")
        return out


class CdnSite(WildSite):
    """A static site behind a CDN: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("cloudfront", "Netlify", "Vercel", "BunnyCDN-DE1-1053"))
        self.redirect_status = 308
        self.etags = "constant"
        self.deploy = rng.choice(('W/"deploy-{:x}"', '"{:x}"')).format(rng.getrandbits(40))
        self.last_modified = rng.random() < 0.6
        self.head = rng.choice(("405", "same", "same"))
        self.fallback = rng.choice(("shell", "404"))
        self.add("/")
        if rng.random() < 0.6:
            self.add("/docs")
            self.add("/docs/")
            self.traps.append("/docs vs /docs/ (two pages)")
        while len(self.pages) < budget:
            path = f"/{rng.choice(('guide', 'blog', 'docs', 'news'))}/{rng.choice(_WORDS)}"
            if rng.random() < 0.3:
                path += f"/{rng.choice(_WORDS)}"
            if (self.host, path, "") not in self.routes and (self.host, path + "/", "") not in self.routes:
                self.add(path)
        for page in self.pages:
            self.bases[page.doc_id] = "/"
        self.notes.append('base="/"')

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        path = decode_path(raw_path)
        if (authority, path, self.query_key(path, query)) not in self.routes:
            if path.endswith(".html") and (authority, path[:-5], "") in self.routes:
                return self.redirect(authority, raw_path[:-5] + (f"?{query}" if query else ""))
            if path.endswith("/") and path != "/" and (authority, path[:-1], "") in self.routes:
                return self.redirect(authority, raw_path[:-1] + (f"?{query}" if query else ""))
        return super().answer(authority, raw_path, query)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        out = [f"{base}{page.path}?utm_source=newsletter&utm_medium=email"]
        if page.path != "/" and not page.path.endswith("/"):
            out += [f"{base}{page.path}.html", f"{base}{page.path}/"]
        return out


class ArchiveSite(WildSite):
    """A web archive: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.snapshots: dict[str, list[tuple[str, Page]]] = {}  # archived URL -> (timestamp, page)
        self.add("/")
        self.originals = {page.url: page for page in others}
        pool = [page.url for page in others] or ["http://example.test/"]
        #: capture (doc id) -> the plain URL its page links as its own (a nav link to itself)
        self.navs: dict[str, str] = {}
        while len(self.pages) < budget:
            url = clean = rng.choice(pool)
            roll = rng.random()
            if roll < 0.25:
                url += ("&" if "?" in url else "?") + rng.choice(_CAPTURED_TRACKING)
            elif roll < 0.4 and urlsplit(url).path not in ("", "/"):
                # A link some page wrote with a doubled slash ($base/$path), captured on its own date:
                # the original server merged the slashes, so it is the page as it was then.
                parts = urlsplit(url)
                inner = parts.path.rfind("/")
                doubled = parts.path[:inner] + "/" + parts.path[inner:] if inner > 0 else "/" + parts.path
                url = f"{parts.scheme}://{parts.netloc}{doubled}" + (f"?{parts.query}" if parts.query else "")
            year = rng.choice((2019, 2021, 2023))
            stamp = f"{year}{rng.randrange(1, 13):02d}{rng.randrange(1, 28):02d}{rng.randrange(0, 24):02d}0000"
            if any(stamp == known for known, _ in self.snapshots.get(url, [])):
                continue
            page = self.snap(stamp, url, rng)
            if url != clean:
                self.navs[page.doc_id] = clean
            if rng.random() < 0.4:  # captured again by the next year's big crawl (one date for all it took)
                later = f"{year + 1}0615120000"
                if all(later != known for known, _ in self.snapshots[url]):
                    self.snap(later, url, rng)
        tracked = [url for url in self.snapshots if any(name.split("=")[0] + "=" in url for name in _CAPTURED_TRACKING)]
        if tracked:
            self.traps.append(f"captures of URLs with tracking parameters ({len(tracked)})")
        doubled_urls = [url for url in self.snapshots if "//" in url.partition("://")[2]]
        if doubled_urls:
            self.traps.append(f"captures of URLs with a doubled slash ({len(doubled_urls)})")
        if any(len(snaps) > 1 for snaps in self.snapshots.values()):
            self.traps.append("two dates of one URL")

    def snap(self, stamp: str, url: str, rng: random.Random) -> Page:
        path, _, query = f"/web/{stamp}/{url}".partition("?")
        page = self.add(path, query)
        earlier = self.snapshots.setdefault(url, [])
        if earlier:
            self.texts[page.doc_id] = _first_word_swapped(self.texts[earlier[-1][1].doc_id], rng)
        earlier.append((stamp, page))
        return page

    def query_key(self, path: str, query: str) -> str:
        return query if path.startswith("/web/") else ""

    def answer(self, authority: str, raw_path: str, query: str) -> Reply:
        # (the archived URL as it was captured, escapes and all: not decoded)
        match = re.fullmatch(r"/web/(\d{1,14})(id_)?/(https?):(/+)(.*)", raw_path)
        if match is None:
            return super().answer(authority, raw_path, query)
        stamp, raw_mode, scheme, slashes, rest = match.groups()
        url = f"{scheme}://{rest}" + (f"?{query}" if query else "")
        if slashes != "//":  # a client (or a normalizer) merged the slashes: put them back
            return self.redirect(authority, f"/web/{stamp}{raw_mode or ''}/{url}")
        snaps = self.snapshots.get(url)
        if not snaps:
            return Reply(404, b"<html><body>Hrm. This URL has not been archived.</body></html>", {})
        for known, page in snaps:
            if known == stamp:
                reply = self.render(page)
                if raw_mode:
                    reply = Reply(200, reply.body.replace(b"<h1>", b"<h1>[raw] ", 1), reply.headers)
                return reply
        nearest = min(snaps, key=lambda snap: abs(int(snap[0][:4]) - int(stamp[:4].ljust(4, "0"))))[0]
        return self.redirect(authority, f"/web/{nearest}/{url}", 302)

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{page.host}"
        match = re.fullmatch(r"/web/(\d{14})/(https?)://(.*)", page.path)
        if match is None:
            return []
        stamp, scheme, rest = match.groups()
        tail = rest + (f"?{page.query}" if page.query else "")
        return [
            f"{base}/web/{stamp}id_/{scheme}://{tail}",
            f"{base}/web/{stamp}/{scheme}:/{tail}",
            f"{base}/web/{stamp[:4]}/{scheme}://{tail}",
        ]

    def natural_links(self, pen: Pen, rng: random.Random) -> None:
        for snaps in self.snapshots.values():
            for (_, page), (_, later) in itertools.pairwise(snaps):
                page.links.append(later.key)
                later.links.append(page.key)
        for doc_id, clean in self.navs.items():  # the page's own nav link, at the capture's date
            page = next(page for page in self.pages if page.doc_id == doc_id)
            page.links.append(f"/web/{page.path.split('/')[2]}/{clean}")
        # As the Wayback Machine rewrites a capture's links: each to the capture's own date,
        # which redirects to the nearest capture of that URL (or is a 404: never archived).
        for url, snaps in self.snapshots.items():
            original = self.originals.get(url)
            if original is None:
                continue
            outlinks = [pen.lands(original, href) for href in original.links[:8]]
            for stamp, page in snaps:
                for link in rng.sample(outlinks, min(3, len(outlinks))):
                    page.links.append(f"/web/{stamp}/{link}")


_CLASSES: dict[str, type[WildSite]] = {
    "wiki": WikiSite,
    "doku": DokuSite,
    "records": RecordsSite,
    "mirror": MirrorSite,
    "cms": CmsSite,
    "java": JavaSite,
    "cdn": CdnSite,
    "archive": ArchiveSite,
}


# -- the web ------------------------------------------------------------------------------------


# The generators' self-checks read each page's links many times over (a pure function of
# the URL and the bytes): kept, the generator tests take a fraction of the time.
@functools.lru_cache(maxsize=1 << 15)
def _links_of(url: str, body: bytes) -> tuple[str, ...]:
    text = body.decode("utf-8", "replace")
    base_match = _BASE.search(text)
    base = urljoin(url, html.unescape(base_match.group(1))) if base_match else url
    return tuple(safe_url_string(urljoin(base, html.unescape(href).strip())) for href in _HREF.findall(text))


class WildWeb(RandomWeb):
    """A :class:`RandomWeb` whose fetches name the port (``h:8080``) and the method, and whose
    stock simulation resolves links against ``<base href>`` as Scrapy does."""

    def fetch(self, url: str, headers: Mapping[str, str] | None = None, method: str = "GET") -> Reply:
        parts = urlsplit(url)
        netloc = (parts.hostname or "").rstrip(".").lower() + (f":{parts.port}" if parts.port else "")
        previous = request_method()
        _METHOD.value = method
        try:
            return route(self.sites, url, {**(headers or {}), NETLOC_HEADER: netloc})
        finally:
            _METHOD.value = previous

    def links_of(self, url: str, body: bytes) -> list[str]:
        """The URLs Scrapy follows from a page at ``url``: each ``<a href>`` joined to the page's base."""
        return list(_links_of(url, body))

    def plain_reachable(self) -> set[str]:
        """Documents reached from the start URLs by links that name a document's own URL
        exactly (resolved against ``<base href>``): no redirect, no other spelling."""
        by_url = {page.url: page for page in self.pages}
        reached: set[str] = set()
        queue = deque(url for url in self.start_urls if url in by_url)
        while queue:
            url = queue.popleft()
            page = by_url[url]
            if page.doc_id in reached:
                continue
            reached.add(page.doc_id)
            reply = self.fetch(url)
            for link in self.links_of(url, reply.body):
                if link in by_url and by_url[link].doc_id not in reached:
                    queue.append(link)
        return reached

    def check(self) -> list[str]:
        problems = super().check()
        problems += [
            f"{page.url} is not in the form Scrapy sends"
            for page in self.pages
            if safe_url_string(page.url) != page.url
        ]
        keys: dict[str, str] = {}
        for page in self.pages:
            key = canonicalize_url(page.url)
            if key in keys and keys[key] != page.doc_id:
                problems.append(f"{page.url} and {keys[key]} share stock's fingerprint")
            keys[key] = page.doc_id
        missing = self.documents - self.plain_reachable()
        if missing:
            problems.append(f"not reachable in canonical form: {sorted(missing)}")
        return problems


class Pen:
    """Writes links as pages write them, each checked against the servers (and ``<base href>``)."""

    def __init__(self, rng: random.Random, web: WildWeb) -> None:
        self.rng = rng
        self.web = web

    def site(self, page: Page) -> WildSite:
        site = self.web.sites[page.host.partition(":")[0]]
        assert isinstance(site, WildSite)
        return site

    def base_of(self, page: Page) -> str:
        base = self.site(page).bases.get(page.doc_id)
        return urljoin(page.url, base) if base else page.url

    def lands(self, source: Page, href: str) -> str:
        return safe_url_string(urljoin(self.base_of(source), href))

    def spell(self, source: Page, url: str, *, exact: bool) -> str:
        """``url`` written from ``source`` in a random form (absolute, root-relative, relative),
        landing on ``url`` as Scrapy resolves it (``exact``: byte for byte)."""
        base = urlsplit(self.base_of(source))
        parts = urlsplit(url)
        forms = [url]
        if parts.scheme and parts.netloc == base.netloc:
            tail = parts.path + (f"?{parts.query}" if parts.query else "")
            forms += [tail, _relative(base.path or "/", parts.path) + (f"?{parts.query}" if parts.query else "")]
        href = self.rng.choice(forms)
        wanted = safe_url_string(url)
        if self.lands(source, href) != wanted or (exact and url != wanted):
            href = url
        if parts.fragment and "#" not in href:
            href += f"#{parts.fragment}"
        return href

    def plain(self, source: Page, target: Page) -> str:
        return self.spell(source, target.url, exact=True)

    def variant(self, source: Page, target: Page) -> str:
        site = self.site(target)
        hostname, _, port = target.host.partition(":")
        suffix = f":{port}" if port else ""
        options = list(site.spellings(target))
        options += [
            f"http://{hostname.upper()}{suffix}{target.key}",
            f"http://{hostname}.{suffix}{target.key}",
            f"{target.url}#{self.rng.choice(FRAGMENTS)}",
            f"{target.url}{'&' if target.query else '?'}{self.rng.choice(TRACKING)}",
        ]
        if not port:
            options.append(f"http://{hostname}:80{target.key}")
        if site.other_host and site.twin != "different" and not port:
            options.append(f"http://{site.other_host}{target.key}")
        self.rng.shuffle(options)
        for url in options[:6]:
            absolute = urljoin(target.url, url)
            if absolute.split("#")[0] != target.url and self.web.resolve(absolute) == target.doc_id:
                return self.spell(source, absolute, exact=False)
        return self.plain(source, target)

    def broken(self, source: Page) -> str:
        site = self.site(source)
        for _ in range(4):
            page = self.rng.choice(site.pages)
            roll = self.rng.random()
            if roll < 0.3:
                url = f"http://{page.host}/missing-{self.rng.randrange(100)}.html"
            elif roll < 0.6:
                url = f"http://{page.host}{page.path.upper()}"
            elif roll < 0.8:
                url = f"http://{page.host}{page.path.replace('/', '%2F', 2).replace('%2F', '/', 1)}"
            else:
                url = f"http://{page.host}{page.path}\\x"
            if self.web.resolve(url) is None:
                return url
        return f"http://{source.host}/missing.html"


def refresh_stub(url: str) -> Reply:
    """A page that moves on to ``url`` by ``<meta http-equiv="refresh">`` at once."""
    body = (
        f'<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0; url={html.escape(url)}">'
        "<title>Moved</title></head><body>Moved.</body></html>"
    ).encode()
    return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})


def split_budget(rng: random.Random, total: int, parts: int, least: int = 4) -> list[int]:
    """``total`` documents shared among ``parts`` hosts, ``least`` each at least."""
    shares = [least] * parts
    for _ in range(max(0, total - least * parts)):
        shares[rng.randrange(parts)] += 1
    return shares


def generate_wild_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> WildWeb:
    """A web of 2-5 wild hosts and about 12-70 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">`` (to a page on
    another host now and then); ``query_pages``: the wiki's ``?title=`` forms and the CMS's
    ``?page=`` listings appear more (both only add links and stubs)."""
    rng = random.Random(f"wild:{seed}")
    count = rng.randint(2, 5)
    budgets = split_budget(rng, rng.randint(12, 70), count)
    kinds = [rng.choice(KINDS) for _ in range(count)]
    if kinds[0] == "archive":
        kinds[0] = rng.choice(KINDS[:-1])
    sites: list[WildSite] = []
    for index, kind in enumerate(kinds):
        site = _CLASSES[kind](f"{kind}{index}.test", kind)
        if kind in ("mirror", "cms", "cdn") and rng.random() < 0.4:
            site.twin = rng.choice(("to_www", "to_bare", "same"))
        site.redirect_status = rng.choice((301, 301, 302, 303, 307, 308))
        site.location = rng.choice(("absolute", "relative", "upper", "port", "schemeless"))
        site.etags = rng.choice(("none", "none", "content", "weak"))
        site.last_modified = rng.random() < 0.3
        site.head = rng.choice(("same", "same", "405", "plain", "plain"))
        if site.head == "plain" and site.etags == "none":
            site.etags = "content"
        site.gzip = rng.random() < 0.3
        site.ads = rng.random() < 0.25
        budget = min(budgets[index], 18)
        site.build(rng, budget, [page for other in sites for page in other.pages])
        sites.append(site)
    by_host: dict[str, Any] = {host: site for site in sites for host in site.hosts}
    for site in sites:
        for page in site.pages:
            by_host.setdefault(page.host, site)  # (``h:8080``, for family_of)
    documents = {page.doc_id for site in sites for page in site.pages}
    web = WildWeb(seed, by_host, [], documents, sites)  # type: ignore[arg-type]
    pen = Pen(rng, web)

    # The spanning links: every page from a reachable parent, in its exact URL.
    span_sites(rng, web, sites, pen)

    # Moves: redirects in the host's style (303s and 307s too), chains across hosts, 410s.
    for index, site in enumerate(sites):
        for number in range(rng.choice((0, 1, 1, 2))):
            target = rng.choice(site.pages)
            if len(sites) > 1 and rng.random() < 0.3:
                other = rng.choice(sites[:index] + sites[index + 1 :])
                hop = f"/go-{index}-{number}"
                other.specials[(other.host, hop, "")] = Reply.redirect(target.url, rng.choice((302, 307)))
                location = f"http://{other.host}{hop}"
                other.loops.append(f"{hop}->{target.url}")
            else:
                location = target.url + ("?" if rng.random() < 0.2 and "?" not in target.url else "")
            path = f"/moved-{number}"
            status = rng.choice((301, 302, 303, 307, 308))
            authority = site.pages[0].host
            site.specials[(authority, path, "")] = Reply.redirect(location, status)
            site.loops.append(f"{path}->{status}->{location}")
            source = rng.choice([page for page in site.pages if page.host == authority])
            source.links.append(pen.spell(source, f"http://{authority}{path}", exact=False))

    # Extra links: random targets, mostly written as variants; some broken.
    everything = web.pages
    for site in sites:
        for page in site.pages:
            for _ in range(rng.randint(1, 4)):
                target = rng.choice(site.pages) if rng.random() < 0.8 else rng.choice(everything)
                page.links.append(pen.plain(page, target) if rng.random() < 0.3 else pen.variant(page, target))
            if rng.random() < 0.15:
                page.links.append(pen.spell(page, pen.broken(page), exact=False))
    if meta_refresh:
        _add_refreshes(random.Random(f"wild:{seed}:refresh"), web, pen)
    if query_pages:
        _add_query_links(random.Random(f"wild:{seed}:params"), web, pen)
    for site in sites:
        for page in site.pages:
            rng.shuffle(page.links)
    return web


def _add_refreshes(rng: random.Random, web: WildWeb, pen: Pen) -> None:
    """On about half the hosts, a page that moves on by ``<meta http-equiv="refresh">``."""
    for site in web.hosts:
        assert isinstance(site, WildSite)
        if rng.random() < 0.5:
            continue
        target = rng.choice(web.pages)
        url = rng.choice((target.url, pen.variant(target, target)))
        authority = site.pages[0].host
        site.specials[(authority, "/refresh", "")] = refresh_stub(url)
        site.pages[0].links.append(f"http://{authority}/refresh")
        site.loops.append(f"refresh->{url}")


def _add_query_links(rng: random.Random, web: WildWeb, pen: Pen) -> None:
    """More links in query forms: wiki ``?title=`` spellings, parameters static servers ignore."""
    for page in web.pages:
        if rng.random() < 0.3:
            page.links.append(pen.variant(page, rng.choice(web.pages)))


# -- the comparison ---------------------------------------------------------------------------


def serve_wild(web: RandomWeb, order: CrawlOrder | None = None) -> VirtualWeb:
    """:func:`~demoweb.randomweb.serve`, with each request's method told to the sites (``HEAD``)."""
    server = serve(web, order)
    original = server._serve

    def serve_request(handler: Any) -> None:
        _METHOD.value = handler.command
        try:
            original(handler)
        finally:
            _METHOD.value = "GET"

    server._serve = serve_request  # type: ignore[method-assign]
    return server


def kind_of(web: RandomWeb, host: str) -> str:
    site = web.sites.get(host) or web.sites.get(host.partition(":")[0])
    return getattr(site, "kind", "?")


class WildComparison(FamilyComparison):
    """A comparison on a wild web: requests, pages and documents per kind of host."""


async def compare_wild(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> WildComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_wild_web(seed)``, with per-kind tallies
    where a crawl runs on one server (stops and kills use the shared machinery, without ``HEAD``
    quirks: their servers do not tell the method)."""
    order = order or CrawlOrder.from_seed(seed)
    web = generate_wild_web(seed, meta_refresh=order.refresh, query_pages=order.params)
    return await compare_by_family(
        web, seed, workdir, addon_settings, order, family=kind_of, comparison=WildComparison, serving=serve_wild
    )
