"""Simulated sites that behave like real server families.

Each site has documents with ids and links between them written the way
real pages write them: with and without trailing slashes, ``www.`` and bare,
mixed case, ``index.html``, tracking parameters. What a URL returns follows
the server family's rules, so the crawl sees what it would see on the web.
Every page carries its document id (``<meta name="doc-id">``), so figures
are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .server import Reply


@dataclass
class Doc:
    doc_id: str
    links: Sequence[str] = ()


@dataclass
class DocSite:
    """A site of documents; subclasses decide how URLs map to them."""

    host: str
    docs: dict[str, Doc] = field(default_factory=dict)  # canonical path -> document
    server: str = "Apache/2.4.57 (Unix)"

    def page(self, doc: Doc) -> Reply:
        return Reply.page(doc.doc_id, list(doc.links), extra_headers={"Server": self.server})

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        raise NotImplementedError


class ApacheSite(DocSite):
    """Case-sensitive; ``/dir`` -> 301 ``/dir/``; ``/dir/index.html`` serves the
    directory's page; the ``www.`` twin redirects to the bare host."""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host)
        if host.startswith("www."):
            return Reply.redirect(f"http://{self.host}{path}" + (f"?{query}" if query else ""))
        if path in self.docs:
            return self.page(self.docs[path])
        if path + "/" in self.docs:
            return Reply.redirect(f"http://{self.host}{path}/")
        if path.endswith("/index.html") and path[: -len("index.html")] in self.docs:
            return self.page(self.docs[path[: -len("index.html")]])
        return Reply.not_found()


class IISSite(DocSite):
    """Case-insensitive paths, ``default.htm`` as directory index, ``Server: Microsoft-IIS``."""

    server = "Microsoft-IIS/10.0"

    def __post_init__(self) -> None:
        self.docs = {path.lower(): doc for path, doc in self.docs.items()}
        self.server = "Microsoft-IIS/10.0"

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        lower = path.lower()
        if lower in self.docs:
            return self.page(self.docs[lower])
        if lower + "/" in self.docs:
            return Reply.redirect(f"http://{self.host}{path}/")
        if lower.endswith("/default.htm") and lower[: -len("default.htm")] in self.docs:
            return self.page(self.docs[lower[: -len("default.htm")]])
        return Reply.not_found()


class TwinSite(DocSite):
    """Serves ``www.`` and the bare host alike, without redirecting, and
    ignores session ids and tracking parameters (a news mirror)."""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        path = path.split(";")[0]
        if path in self.docs:
            return self.page(self.docs[path])
        return Reply.not_found()


class BlogSite(DocSite):
    """Canonical URLs have no trailing slash: ``/post/x/`` -> 301 ``/post/x``."""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        if path in self.docs:
            return self.page(self.docs[path])
        if path.endswith("/") and path.rstrip("/") in self.docs:
            return Reply.redirect(f"http://{self.host}{path.rstrip('/')}")
        return Reply.not_found()


class TrapSite(DocSite):
    """Look-alike URLs are different pages: ``/API/`` and ``/api/``, ``/report``
    and ``/report/``, ``www.`` and bare. Every path is served exactly."""

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host)
        key = f"//{host}{path}" if host != self.host else path
        if key in self.docs:
            return self.page(self.docs[key])
        return Reply.not_found()
