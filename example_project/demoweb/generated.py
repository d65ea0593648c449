"""A generated demo web of any size, for the end-to-end benchmark.

Hosts cycle through the five server families of :mod:`demoweb.sites`. Each
host has sections (directories) of pages; every page links to a few others
on its host, written the way that family's pages write links (no trailing
slash, ``index.html``, random case, the ``www.`` twin, tracking parameters,
session ids), often relatively, so a variant URL drags its relative links
along with it, as on the real web. Trap hosts serve look-alike URLs as
different documents. Deterministic for a given size and seed.
"""

from __future__ import annotations

import random

from .server import Site
from .sites import ApacheSite, BlogSite, Doc, IISSite, TrapSite, TwinSite

FAMILIES = ("apache", "iis", "twin", "blog", "trap")
_LINKS_PER_PAGE = 6
_PAGES_PER_SECTION = 25


def _case(rng: random.Random, path: str) -> str:
    choice = rng.random()
    if choice < 0.5:
        return path
    if choice < 0.75:
        return "/".join(part[:1].upper() + part[1:] for part in path.split("/"))
    return path.upper()


def generate(documents: int = 20_000, hosts: int = 20, seed: int = 7) -> tuple[dict[str, Site], list[str], int]:
    """(host -> site, start URLs, number of distinct documents)."""
    rng = random.Random(seed)
    per_host = max(documents // hosts, 10)
    sites: dict[str, Site] = {}
    starts: list[str] = []
    total = 0
    names = [f"{FAMILIES[i % len(FAMILIES)]}{i}.test" for i in range(hosts)]
    for index, host in enumerate(names):
        family = FAMILIES[index % len(FAMILIES)]
        paths = _paths(family, per_host)
        docs: dict[str, Doc] = {}
        for position, path in enumerate(paths):
            links = [_write_link(rng, family, host, path, rng.choice(paths)) for _ in range(_LINKS_PER_PAGE)]
            # Every document is reachable: each page also links to the next one
            # (a "next" link, written as the family writes links).
            links.append(_write_link(rng, family, host, path, paths[(position + 1) % len(paths)]))
            links.append(f"http://{rng.choice(names)}/")
            docs[path] = Doc(f"{host}:{path}", links)
        if family == "trap":
            # Look-alikes that are different documents: /Sec1/ next to /sec1/, /x next to /x/.
            for path in list(docs)[: per_host // 4]:
                twin = path.upper() if path != path.upper() else path.lower()
                if path.endswith("/") and len(path) > 1:
                    twin = path.rstrip("/")
                if twin not in docs:
                    docs[twin] = Doc(f"{host}:{twin}", [path, "/"])
                    docs[path].links = [*docs[path].links, twin]
        site_class = {"apache": ApacheSite, "iis": IISSite, "twin": TwinSite, "blog": BlogSite, "trap": TrapSite}[
            family
        ]
        site = site_class(host, docs)
        sites[host] = site
        if family in ("apache", "twin", "trap"):
            sites[f"www.{host}"] = site
        starts.append(f"http://{host}/")
        total += len(docs)
    return sites, starts, total


def _paths(family: str, count: int) -> list[str]:
    paths = ["/"]
    section = 0
    while len(paths) < count:
        section += 1
        if family == "blog":
            paths += [f"/post/{section}-{n}" for n in range(_PAGES_PER_SECTION)]
            continue
        paths.append(f"/sec{section}/")
        extension = ".aspx" if family == "iis" else ".html"
        paths += [f"/sec{section}/page{n}{extension}" for n in range(_PAGES_PER_SECTION - 1)]
    return paths[:count]


def _relative(source: str, target: str) -> str:
    """``target`` as a relative link from ``source`` when they share a directory."""
    directory = source[: source.rfind("/") + 1]
    if target.startswith(directory) and target != directory and "/" not in target[len(directory) :]:
        return target[len(directory) :]
    return target


def _write_link(rng: random.Random, family: str, host: str, source: str, target: str) -> str:
    roll = rng.random()
    if family == "apache":
        if target.endswith("/") and len(target) > 1:
            if roll < 0.35:
                return target.rstrip("/")
            if roll < 0.55:
                return target + "index.html"
        if roll > 0.85:
            return f"http://www.{host}{target}"
    elif family == "iis":
        if target.endswith("/") and roll < 0.2:
            target += "default.htm"
        return _relative(source, _case(rng, target)) if rng.random() < 0.5 else _case(rng, target)
    elif family == "twin":
        if roll < 0.3:
            return f"http://www.{host}{target}"
        if roll < 0.4:
            return f"{target}?utm_source=newsletter&utm_medium=email"
        if roll < 0.45 and not target.endswith("/"):
            return f"{target};jsessionid={rng.getrandbits(48):012X}"
    elif family == "blog" and roll < 0.4 and target != "/":
        return target + "/"
    return _relative(source, target) if rng.random() < 0.5 else target
