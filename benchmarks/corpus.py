"""The benchmarks' URLs: real links out of real HTML documentation.

Every speed benchmark takes its URLs from here. :func:`real_links` reads the
HTML documentation Debian installs (``python3-doc``, else
``debian-reference-en``, else any ``/usr/share/doc/*/html``; the benchmark
set-up installs ``python3-doc`` when it can: ``apt-get install python3-doc``),
extracts every ``href`` in page order, absolutizes it against the address the
documentation is published at (``https://docs.python.org/3.11/...``), and
mixes in the variants a crawler meets on real sites, each from a seeded RNG:

- tracking parameters (``utm_source``, ``fbclid``...) added to 6% of links,
- session ids (``;jsessionid=``, ``PHPSESSID=``) on 3%,
- case variants (upper-case host or scheme) on 3%,
- slash variants (added or removed trailing slash, ``index.html``) on 4%,
- a ``www.`` twin of the host on 2%.

Fragments (``#section``) and links repeated on every page (navigation) stay
as the pages wrote them. The list is cached in ``benchmarks/.corpus/``
(gitignored), keyed by the documentation found, so every run of every
benchmark sees the same URLs.

Without any HTML documentation the benchmarks fall back to
:func:`synthetic_urls` (a seeded generator of plausible crawl URLs) and say so
on stderr.

    python benchmarks/corpus.py          # build (or show) the cached corpus
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"

#: (HTML root, the address the same pages are published at), first found wins.
SOURCES: tuple[tuple[str, str], ...] = (
    ("/usr/share/doc/python3-doc/html", "https://docs.python.org/3/"),
    ("/usr/share/doc/python3.11/html", "https://docs.python.org/3.11/"),
    ("/usr/share/debian-reference", "https://www.debian.org/doc/manuals/debian-reference/"),
)

_TRACKING = ("utm_source=newsletter", "utm_medium=email", "utm_campaign=spring", "fbclid=IwAR0x9f", "gclid=Cj0KCQ")
_SESSION = (";jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9", "PHPSESSID=8f2d6a4c1b9e7f30a5d4c3b2a1908f7e")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("a", "link", "area"):
            for name, value in attrs:
                if name == "href" and value:
                    self.hrefs.append(value)


def _find_root() -> tuple[Path, str] | None:
    for root, base in SOURCES:
        if Path(root).is_dir() and any(Path(root).glob("*.html")):
            return Path(root).resolve(), base
    for html in sorted(Path("/usr/share/doc").glob("*/html")):
        if any(html.glob("*.html")):
            return html.resolve(), f"https://{html.parent.name}.docs.example.org/"
    return None


def _install_docs() -> None:
    """Install ``python3-doc`` when we may (root, Debian): the benchmark set-up."""
    if os.name != "posix" or os.geteuid() != 0 or not Path("/usr/bin/apt-get").exists():
        return
    print("corpus: installing python3-doc for real links (apt-get)...", file=sys.stderr)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "install", "-y", "-qq", "python3-doc"], env=env, check=False, capture_output=True)
    if not Path("/usr/share/doc/python3-doc/html").exists():
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "python3-doc"], env=env, check=False, capture_output=True)


def _extract(root: Path, base: str) -> list[str]:
    """Every http(s) href of every page, absolutized, in page order."""
    links: list[str] = []
    for page in sorted(root.rglob("*.html")):
        relative = page.relative_to(root).as_posix()
        if relative.startswith(("_sources/", "_static/")):
            continue
        parser = _Links()
        try:
            parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        except Exception:  # a page the parser chokes on is skipped, not fatal
            continue
        page_url = urljoin(base, relative)
        for href in parser.hrefs:
            href = href.strip()
            if href.startswith(("mailto:", "javascript:", "data:", "tel:")):
                continue
            url = urljoin(page_url, href)
            if url.startswith(("http://", "https://")):
                links.append(url)
    return links


def _variant(url: str, rng: random.Random) -> str:
    """``url`` as a crawler may also meet it (see the module docstring)."""
    parts = urlsplit(url)
    roll = rng.random()
    if roll < 0.06:
        extra = "&".join(rng.sample(_TRACKING, rng.randint(1, 3)))
        query = f"{parts.query}&{extra}" if parts.query else extra
        return parts._replace(query=query).geturl()
    if roll < 0.09:
        session = rng.choice(_SESSION)
        if session.startswith(";"):
            return parts._replace(path=parts.path + session).geturl()
        return parts._replace(query=f"{parts.query}&{session}" if parts.query else session).geturl()
    if roll < 0.12:
        if rng.random() < 0.5:
            return parts._replace(netloc=parts.netloc.upper()).geturl()
        return parts._replace(scheme=parts.scheme.upper()).geturl()
    if roll < 0.16:
        path = parts.path
        if path.endswith("/index.html"):
            path = path[: -len("index.html")]
        elif path.endswith("/"):
            path = path + ("index.html" if rng.random() < 0.5 else "")
            path = path if path.endswith("index.html") else path.rstrip("/") or "/"
        else:
            path += "/"
        return parts._replace(path=path).geturl()
    if roll < 0.18:
        host = parts.netloc
        twin = host[4:] if host.startswith("www.") else "www." + host
        return parts._replace(netloc=twin).geturl()
    return url


def _build(root: Path, base: str) -> list[str]:
    rng = random.Random(15)
    return [_variant(url, rng) for url in _extract(root, base)]


def real_links() -> list[str] | None:
    """The cached corpus (built on first use), or ``None`` without HTML docs."""
    found = _find_root()
    if found is None:
        _install_docs()
        found = _find_root()
    if found is None:
        return None
    root, base = found
    pages = sorted(str(p) for p in root.rglob("*.html"))
    tag = hashlib.sha1(f"v1|{root}|{base}|{len(pages)}".encode()).hexdigest()[:12]
    cached = CACHE / f"links-{tag}.txt"
    if cached.exists():
        return cached.read_text(encoding="utf-8").split("\n")
    links = _build(root, base)
    CACHE.mkdir(exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_text("\n".join(links), encoding="utf-8")
    tmp.replace(cached)
    return links


_warned = False


def make_urls(count: int, seed: int = 1) -> list[str]:
    """``count`` URLs from the real-link corpus, in page order (links repeat as
    navigation does). ``seed`` picks where in the corpus to start. Past the end
    the corpus repeats with a seeded query suffix (``?p=<n>``), so a count
    larger than the corpus still gets distinct URLs."""
    global _warned
    links = real_links()
    if not links:
        if not _warned:
            print("corpus: no HTML documentation found; using synthetic URLs", file=sys.stderr)
            _warned = True
        return synthetic_urls(count, seed)
    start = (seed * 7919) % len(links)
    out = []
    lap = 0
    while len(out) < count:
        take = links[start:] + links[:start]
        if lap:
            take = [_lap(url, lap) for url in take]
        out.extend(take[: count - len(out)])
        lap += 1
    return out


def distinct_urls(count: int, seed: int = 1, key: Callable[[str], str] | None = None) -> list[str]:
    """``count`` URLs from the corpus that differ beyond their fragment (so
    Scrapy's fingerprints differ too), or by ``key`` when given, first
    occurrences in page order, starting where ``seed`` says."""
    links = real_links()
    if not links:
        links = synthetic_urls(count * 2, seed)
    start = (seed * 7919) % len(links)
    first: dict[str, str] = {}
    for url in links[start:] + links[:start]:
        first.setdefault(key(url) if key is not None else url.partition("#")[0], url)
    unique = list(first.values())
    out = unique[:count]
    lap = 1
    while len(out) < count:
        out.extend(_lap(url, lap) for url in unique[: count - len(out)])
        lap += 1
    return out


def _lap(url: str, lap: int) -> str:
    head, _, fragment = url.partition("#")
    joiner = "&" if "?" in head else "?"
    return f"{head}{joiner}p={lap}" + (f"#{fragment}" if fragment else "")


# -- synthetic fallback ----------------------------------------------------------------

_WORDS = (
    "news sport world tech article story item product cart search tag category page archive blog post about "
    "contact help faq docs api v1 v2 en de images media static user profile login 2024 2025 report"
).split()
_TLDS = ("com", "org", "net", "de", "co.uk", "io", "fr", "jp")
_PARAMS = ("id", "page", "q", "sort", "lang", "ref", "category", "limit", "offset", "view")
_TRACKING_NAMES = ("utm_source", "utm_medium", "utm_campaign", "fbclid", "gclid")


def synthetic_urls(count: int, seed: int = 1) -> list[str]:
    """Plausible crawl URLs from a seeded generator (the fallback without HTML docs)."""
    rng = random.Random(seed)
    hosts = [
        f"{rng.choice(['', '', 'www.', 'blog.', 'shop.'])}{rng.choice(_WORDS)}{rng.randint(1, 999)}.{rng.choice(_TLDS)}"
        for _ in range(max(count // 200, 10))
    ]
    urls = []
    for _ in range(count):
        scheme = rng.choice(("http", "https", "https", "https"))
        host = rng.choice(hosts)
        if rng.random() < 0.03:
            host = host.upper()
        port = ":443" if scheme == "https" and rng.random() < 0.02 else ""
        segments = [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.3:
            segments.append(f"{rng.choice(_WORDS)}-{rng.randint(1, 99999)}.html")
        elif rng.random() < 0.05:
            segments.append("index.html")
        if rng.random() < 0.03:
            segments.insert(0, "caf\u00e9")
        if rng.random() < 0.03:
            segments.append("%7Euser")
        path = "/" + "/".join(segments)
        if segments and rng.random() < 0.2:
            path += "/"
        query = ""
        if rng.random() < 0.4:
            names = rng.sample(_PARAMS, rng.randint(1, 3))
            if rng.random() < 0.25:
                names.append(rng.choice(_TRACKING_NAMES))
            query = "?" + "&".join(f"{n}={rng.choice(_WORDS)}{rng.randint(0, 50)}" for n in names)
        fragment = f"#{rng.choice(_WORDS)}" if rng.random() < 0.1 else ""
        urls.append(f"{scheme}://{host}{port}{path}{query}{fragment}")
    return urls


def main() -> None:
    links = real_links()
    if not links:
        print("no HTML documentation found (apt-get install python3-doc)")
        return
    unique = set(links)
    hosts = {urlsplit(u).netloc.lower() for u in links}
    print(f"{len(links):,} links, {len(unique):,} distinct, {len(hosts):,} hosts; cached in {CACHE}")
    rng = random.Random(0)
    for url in rng.sample(links, 8):
        print("  ", url)


if __name__ == "__main__":
    main()
