"""A deterministic corpus of realistic crawl URLs for the benchmarks.

Mixes what a crawler meets: many URLs per host, mostly lower-case paths,
queries with a few parameters (some tracking, some session ids), occasional
fragments, escapes, non-ASCII, default ports, www twins and index pages.
"""

from __future__ import annotations

import random

_WORDS = (
    "news sport world tech article story item product cart search tag category page archive blog post about "
    "contact help faq docs api v1 v2 en de images media static user profile login 2024 2025 report"
).split()
_TLDS = ("com", "org", "net", "de", "co.uk", "io", "fr", "jp")
_PARAMS = ("id", "page", "q", "sort", "lang", "ref", "category", "limit", "offset", "view")
_TRACKING = ("utm_source", "utm_medium", "utm_campaign", "fbclid", "gclid")


def make_urls(count: int, seed: int = 1) -> list[str]:
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
                names.append(rng.choice(_TRACKING))
            query = "?" + "&".join(f"{n}={rng.choice(_WORDS)}{rng.randint(0, 50)}" for n in names)
        fragment = f"#{rng.choice(_WORDS)}" if rng.random() < 0.1 else ""
        urls.append(f"{scheme}://{host}{port}{path}{query}{fragment}")
    return urls
