"""``VirtualWeb``: many simulated hosts behind one HTTP server on 127.0.0.1.

Crawlers reach the hosts by name through Scrapy's proxy support: with
``meta["proxy"]`` set to the server's address, Scrapy sends absolute-URI
requests (``GET http://www.example.test/a HTTP/1.1``) and the server picks the
site by that host, so no DNS and no internet are involved. Direct requests
are routed by their ``Host`` header.

``https://`` URLs go the way Scrapy sends them through a proxy: a ``CONNECT`` tunnel,
in which the server speaks TLS with a self-signed certificate (Scrapy does not
verify certificates by default) and routes the requests by their ``Host`` header.

Every request is logged (host, raw path and query, status) so tests and
benchmarks count what was really fetched.
"""

from __future__ import annotations

import contextlib
import re
import ssl
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol
from urllib.parse import urljoin, urlsplit

#: A :class:`Reply` status that makes the server close the connection without answering.
DROP_CONNECTION = 0
#: The request's host and port as sent (``h.test:80``), given to sites beside ``Host`` (the host alone).
NETLOC_HEADER = "X-Demoweb-Netloc"
#: The scheme a request came in on (``http``; ``https`` inside a ``CONNECT`` tunnel), given to sites.
SCHEME_HEADER = "X-Demoweb-Scheme"
#: The request's method and its body (Latin-1 decoded), for sites that answer forms.
METHOD_HEADER = "X-Demoweb-Method"
BODY_HEADER = "X-Demoweb-Body"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def page(
        cls, doc_id: str, links: Sequence[str] = (), *, title: str = "", extra_headers: Mapping[str, str] | None = None
    ) -> Reply:
        anchors = "\n".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
        html = (
            f'<!DOCTYPE html><html><head><meta name="doc-id" content="{doc_id}">'
            f"<title>{title or doc_id}</title></head>"
            f"<body><h1>{doc_id}</h1><ul>\n{anchors}\n</ul></body></html>"
        )
        headers = {"Content-Type": "text/html; charset=utf-8", **(extra_headers or {})}
        return cls(200, html.encode(), headers)

    @classmethod
    def redirect(cls, location: str, status: int = 301) -> Reply:
        return cls(status, b"", {"Location": location})

    @classmethod
    def not_found(cls) -> Reply:
        return cls(404, b"<html><body>not found</body></html>", {"Content-Type": "text/html"})


class Site(Protocol):
    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply: ...


def site_draw(salt: str, host: str) -> int:
    """A front's draw for ``host``'s site (``www.`` twins alike), from ``salt``."""
    return zlib.crc32(f"{salt}\0{host.removeprefix('www.')}".encode())


def with_cookie(headers: Mapping[str, str], cookie: str) -> dict[str, str]:
    """``headers`` with one more ``Set-Cookie`` (several are kept as lines of one value,
    each sent as a header of its own), as a front adds its cookie to its site's."""
    offered = headers.get("Set-Cookie")
    return {**headers, "Set-Cookie": f"{offered}\n{cookie}" if offered else cookie}


def request_cookie(headers: Mapping[str, str], name: str) -> str:
    """The value of cookie ``name`` the request sent (``""``: none)."""
    for header, value in headers.items():
        if header.lower() != "cookie":
            continue
        for pair in value.split(";"):
            key, _, found = pair.strip().partition("=")
            if key == name:
                return found
    return ""


@dataclass(frozen=True)
class Hit:
    host: str
    target: str  # raw path?query as sent
    status: int
    method: str = "GET"
    netloc: str = ""  # the host as the request spelled it, with its port if it had one
    scheme: str = "http"
    if_none_match: str = ""  # the request's If-None-Match (a canary names a tag no server gave)

    @property
    def canary(self) -> bool:
        """Whether this was the add-on's entity-tag canary (its own question, not a page)."""
        return "urlnorm-canary" in self.if_none_match


_TLS: ssl.SSLContext | None = None
_TLS_LOCK = threading.Lock()


def self_signed_pem(hosts: Sequence[str], days: int = 30) -> tuple[bytes, bytes]:
    """A self-signed P-256 certificate for ``hosts`` (the first its common name) and its
    key, both PEM; Scrapy does not verify certificates by default, so this is all an
    https site takes."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host) for host in hosts]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def tls_context() -> ssl.SSLContext:
    """A server context with a self-signed certificate (made once per process)."""
    global _TLS
    with _TLS_LOCK:
        if _TLS is None:
            certificate, key = self_signed_pem(["demoweb.test"])
            with tempfile.TemporaryDirectory() as tmp:
                path = f"{tmp}/demoweb.pem"
                with open(path, "wb") as pem:
                    pem.write(certificate + key)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(path)
            _TLS = context
        return _TLS


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A crawler killed mid-request (the crash tests do it) is no server error.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class VirtualWeb:
    """Serve ``sites`` (host name -> Site) on 127.0.0.1; use as a context manager."""

    def __init__(self, sites: Mapping[str, Site], *, delay: float = 0.0, port: int = 0) -> None:
        self.sites = {host.lower(): site for host, site in sites.items()}
        self.delay = delay
        self.hits: list[Hit] = []
        self._lock = threading.Lock()
        web = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            scheme = "http"
            # Headers and body are written separately: without TCP_NODELAY, Nagle's algorithm
            # and the client's delayed ACK cost ~40 ms per response, which one-at-a-time
            # crawls wait out (a test of 50 requests waited two seconds of its three).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                web._serve(self)

            do_HEAD = do_GET
            do_POST = do_GET

            def do_CONNECT(self) -> None:
                web._tunnel(self, SecureHandler)

            def log_message(self, format: str, *args: object) -> None:
                pass

            def version_string(self) -> str:
                # The site's own Server header, like a real server family's.
                return getattr(self, "site_server", "VirtualWeb")

        class SecureHandler(Handler):
            scheme = "https"

        self._server = _QuietServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> VirtualWeb:
        # ``shutdown()`` waits for the serving loop to look up: at the default half second,
        # each crawl test spent about that long stopping its server.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="VirtualWeb", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> VirtualWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _tunnel(self, handler: BaseHTTPRequestHandler, secure: type[BaseHTTPRequestHandler]) -> None:
        """A proxy's ``CONNECT``: established, then TLS, then requests served as ``https``."""
        handler.send_response(200, "Connection established")
        handler.end_headers()
        handler.close_connection = True  # (the tunnel's connection ends with its TLS session)
        try:
            tunnel = tls_context().wrap_socket(handler.connection, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            secure(tunnel, handler.client_address, self._server)
        except (ssl.SSLError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                tunnel.close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        scheme = getattr(handler, "scheme", "http")
        target = handler.path
        if target.startswith(("http://", "https://")):  # proxy form: absolute URI
            netloc_at = target.find("//") + 2
            slash = target.find("/", netloc_at)
            host = (urlsplit(target).hostname or "").rstrip(".")
            netloc = target[netloc_at : slash if slash >= 0 else None]
            target = target[slash:] if slash >= 0 else "/"
        else:
            netloc = handler.headers.get("Host") or ""
            host = netloc.rsplit(":", 1)[0].rstrip(".")
        path, _, query = target.partition("?")
        site = self.sites.get(host.lower())
        if self.delay:
            time.sleep(self.delay)
        # Sites see the host they were reached as (one site may serve a www twin).
        headers = {name: value for name, value in handler.headers.items() if name.lower() != "host"}
        headers["Host"] = host.lower()
        headers[NETLOC_HEADER] = netloc.lower()
        headers[SCHEME_HEADER] = scheme
        headers[METHOD_HEADER] = handler.command
        length = int(handler.headers.get("Content-Length") or 0)
        headers[BODY_HEADER] = handler.rfile.read(length).decode("latin-1") if length else ""
        reply = site.handle(path, query, headers) if site is not None else Reply.not_found()
        with self._lock:
            condition = handler.headers.get("If-None-Match") or ""
            hit = Hit(host.lower(), target, reply.status, handler.command, netloc.lower(), scheme, condition)
            self.hits.append(hit)
        if reply.status == DROP_CONNECTION:
            handler.close_connection = True  # no answer at all: the client sees the connection lost
            return
        headers = dict(reply.headers)
        handler.site_server = headers.pop("Server", "VirtualWeb")  # type: ignore[attr-defined]
        handler.send_response(reply.status)
        for name, value in headers.items():
            for line in value.split("\n") if name == "Set-Cookie" else (value,):  # (one header per cookie)
                handler.send_header(name, line)
        handler.send_header("Content-Length", str(len(reply.body)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(reply.body)

    def wait_for_hits(self, count: int, timeout: float = 60.0) -> int:
        """Block until the server has answered ``count`` requests (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        while len(self.hits) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.hits)

    def fetched(self, host: str | None = None) -> list[str]:
        """Targets requested so far (optionally of one host), in order."""
        with self._lock:
            return [hit.target for hit in self.hits if host is None or hit.host == host]


class FunctionSite:
    """A site from a plain function ``(path, query, headers) -> Reply``."""

    def __init__(self, handle: Callable[[str, str, Mapping[str, str]], Reply]) -> None:
        self.handle = handle  # type: ignore[method-assign]


class EntityTagged:
    """``site`` with entity tags, as Apache and nginx serve files: each 200 reply
    carries ``ETag: tag(path, reply)`` (by default a digest of its body; ``None``:
    no tag), and a request whose ``If-None-Match`` names it is answered
    ``304 Not Modified`` with no body."""

    def __init__(self, site: Site, tag: Callable[[str, Reply], str | None] | None = None) -> None:
        self.site = site
        self.tag = tag or (lambda path, reply: f'"{zlib.crc32(reply.body):08x}-{len(reply.body):x}"')
        self.not_modified = 0

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        reply = self.site.handle(path, query, headers)
        if reply.status != 200:
            return reply
        tag = self.tag(path, reply)
        if tag is None:
            return reply
        wanted = next((value for name, value in headers.items() if name.lower() == "if-none-match"), None)
        if wanted is not None and tag.removeprefix("W/") in {t.strip().removeprefix("W/") for t in wanted.split(",")}:
            self.not_modified += 1
            return Reply(304, b"", {"ETag": tag})
        return Reply(reply.status, reply.body, {**reply.headers, "ETag": tag})


class Flaky:
    """``site`` behind a flaky front: a request target fails its first few requests
    (a ``503`` or a dropped connection), then is served. How many, and how, is drawn
    from ``salt``, the host and the target alone, and the count is kept per
    ``Flaky`` (one per server run): a crawl that asks again, as Scrapy's
    ``RetryMiddleware`` does, eventually gets through, unless the target fails
    more often than the crawl retries. So two crawls of one web, each on a fresh
    server, meet the same failures."""

    #: (share of targets, failures before the answer): 1, 2, and 3 (more than
    #: Scrapy's two retries: that spelling fails for the whole crawl, unless asked again).
    FAILURES = ((0.06, 1), (0.03, 2), (0.03, 3))

    def __init__(self, site: Site, salt: str) -> None:
        self.site = site
        self.salt = salt
        self.attempts: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def failures(self, host: str, target: str) -> tuple[int, int]:
        """How many times ``host`` + ``target`` fails, and with which status."""
        draw = zlib.crc32(f"{self.salt}\0{host}\0{target}".encode()) / 2**32
        status = 503 if zlib.crc32(f"{self.salt}\0how\0{host}{target}".encode()) % 2 else DROP_CONNECTION
        for share, count in self.FAILURES:
            if draw < share:
                return count, status
            draw -= share
        return 0, 200

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", "")
        target = path + (f"?{query}" if query else "")
        count, status = self.failures(host, target)
        if path == "/robots.txt":
            # Fetched once per host *and port* (``h:80`` is another robots.txt for Scrapy):
            # counted apart, or which of two fetches in flight meets the failures is a race.
            # And a 503, not a dropped connection: Twisted resends a request whose reused
            # connection drops, unseen, so how many tries a drop costs depends on timing.
            host, status = headers.get(NETLOC_HEADER, host), 503
        if count:
            with self._lock:
                seen = self.attempts[(host, target)] = self.attempts.get((host, target), 0) + 1
            if seen <= count:
                if status == DROP_CONNECTION:
                    return Reply(DROP_CONNECTION)
                return Reply(503, b"<html><body>busy, try again</body></html>", {"Content-Type": "text/html"})
        return self.site.handle(path, query, headers)


class Dynamic:
    """``site`` as an application renders it: about half the hosts (drawn from
    ``salt`` and the host) put a token of each answer's own in every HTML page they
    answer ``200`` (a form's CSRF field, a "rendered in" footer), so no two answers
    of a page are byte-identical. Of those, half send no entity tag or
    ``Last-Modified`` (an application that computes none); the others keep the
    site's, as a ``W/`` weak tag (the same page, not the same bytes)."""

    def __init__(self, site: Site, salt: str) -> None:
        self.site = site
        self.salt = salt
        self._answers = 0
        self._lock = threading.Lock()

    def kind(self, host: str) -> int:
        """0: not dynamic; 1: dynamic, no validators; 2: dynamic, weak entity tags."""
        return site_draw(self.salt, host) % 4 % 3

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        reply = self.site.handle(path, query, headers)
        kind = self.kind(headers.get("Host", ""))
        if not kind or reply.status != 200 or b"</body>" not in reply.body:
            return reply
        with self._lock:
            self._answers += 1
            token = self._answers
        field = b'<form><input type="hidden" name="csrf" value="%08x"></form></body>' % zlib.crc32(b"%d" % token)
        answer = dict(reply.headers)
        if kind == 1:
            answer.pop("ETag", None)
            answer.pop("Last-Modified", None)
        elif "ETag" in answer and not answer["ETag"].startswith("W/"):
            answer["ETag"] = "W/" + answer["ETag"]
        return Reply(reply.status, reply.body.replace(b"</body>", field, 1), answer)


class Lenient:
    """``site`` as a lenient application server answers: about half the hosts (drawn
    from ``salt`` and the host) serve a page under the spellings the site would
    redirect by one step (``/x`` and ``/x/``, ``www.h`` and ``h``) with a ``200`` of
    the page itself, as non-strict routing and a host alias do, instead of the
    redirect. What a redirect taught is then taught by content alone, and the site's
    look-alike pages of their own (``/report`` beside ``/report/``) stay pages."""

    def __init__(self, site: Site, salt: str) -> None:
        self.site = site
        self.salt = salt

    def lenient(self, host: str) -> bool:
        return site_draw(self.salt, host) % 2 == 0

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        reply = self.site.handle(path, query, headers)
        host = headers.get("Host", "")
        if not 300 <= reply.status < 400 or not self.lenient(host):
            return reply
        here = urlsplit(f"http://{host}{path}" + (f"?{query}" if query else ""))
        there = urlsplit(urljoin(here.geturl(), reply.headers.get("Location", "")))
        # Routed as the application routes it: without a session id in the path
        # (``/x/;jsessionid=A`` is ``/x/``, as a servlet container strips it).
        routed = here.path.split(";", 1)[0]
        one_step = (
            there.query == here.query
            and there.hostname is not None
            and (
                (there.hostname == here.hostname and there.path.rstrip("/") == routed.rstrip("/"))
                or (there.path == routed and there.hostname.removeprefix("www.") == host.removeprefix("www."))
            )
        )
        if not one_step or there.geturl() == here.geturl():
            return reply
        target = self.site.handle(there.path, there.query, {**headers, "Host": there.hostname or host})
        return target if target.status == 200 else reply


class Secure:
    """``site`` as the web has moved to HTTPS: about half the hosts (drawn from ``salt``
    and the bare host, so ``www.`` twins alike) are HTTPS sites. Of those, two in three
    answer every ``http://`` URL with a ``301`` to its ``https://`` spelling (``robots.txt``
    too), as most sites now do; the others serve both schemes alike, as a site half way
    through its move does. Every page spells some of its absolute links to HTTPS sites
    (its own or another's; which ones is drawn from the link) with ``https://``, and a
    redirect answered over HTTPS names ``https://`` where its site is an HTTPS site. Other
    hosts serve plain HTTP (their pages never link them as ``https://``)."""

    _LINK = re.compile(rb'(href=")http://([^/"?#:]+)(?=[/"?#])([^"]*")')  # (not ``h:80``)

    def __init__(self, site: Site, salt: str) -> None:
        self.site = site
        self.salt = salt

    def kind(self, host: str) -> int:
        """0: plain HTTP; 1: ``http://`` redirected to ``https://``; 2: both served alike."""
        draw = site_draw(self.salt, host) % 6
        return 0 if draw < 3 else (1 if draw < 5 else 2)

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", "")
        kind = self.kind(host)
        secure = headers.get(SCHEME_HEADER) == "https"
        if kind == 1 and not secure:
            netloc = headers.get(NETLOC_HEADER, host).removesuffix(":80")
            return Reply.redirect(f"https://{netloc}{path}" + (f"?{query}" if query else ""), 301)
        reply = self.site.handle(path, query, headers)
        answer = dict(reply.headers)
        location = answer.get("Location", "")
        if secure and location.startswith("http://"):
            there = urlsplit(location).hostname or ""
            if self.kind(there):
                answer["Location"] = "https://" + location[len("http://") :]
        body = reply.body
        if reply.status == 200 and b'href="http://' in body:
            body = self._LINK.sub(self._spell, body)
        if body is reply.body and answer == reply.headers:
            return reply
        return Reply(reply.status, body, answer)

    def _spell(self, match: re.Match[bytes]) -> bytes:
        host = match.group(2).decode("latin-1").lower()
        if self.kind(host) and zlib.crc32(f"{self.salt}\0link\0".encode() + match.group(0)) % 2:
            return match.group(1) + b"https://" + match.group(2) + match.group(3)
        return match.group(0)
