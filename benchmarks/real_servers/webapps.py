"""What the framework families' applications (``djangoapp.py``, ``flaskapp.py``,
``starletteapp.py``) share: the site they serve and the application pages' data.

Static servers only map paths to files; an application adds pages of its own whose URLs
carry parameters with different meanings, and those are what a crawl of a real site meets
beside the documents. Each application serves, under its framework's own conventions:

- the landing page: ``servers.LANDING`` linking to the documentation trees (``servers.TREES``,
  through the symlinks ``servers.build_root`` puts in the site root), plus the pages below;
- a paginated article list, ``?page=N``, where page 1 is also the list without the parameter
  (its "previous" link on page 2 is ``?page=1``, as paginating templates write it);
- one page per article, whose content depends on the article's id;
- an about page linked with ``?ref=<where from>``, a parameter it ignores.

``servers.serve`` starts each application with the site root, its host and its label in
the environment (``URLNORM_SITE_ROOT``, ``URLNORM_SITE_HOST``, ``URLNORM_SITE_LABEL``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from servers import LANDING, TREES

SITE_ROOT = Path(os.environ.get("URLNORM_SITE_ROOT", "."))
HOST = os.environ.get("URLNORM_SITE_HOST", "localhost")
LABEL = os.environ.get("URLNORM_SITE_LABEL", "a web framework")

#: URL path segment -> the tree's directory in the site root (a symlink to the installed tree).
TREE_DIRS: dict[str, Path] = {name: SITE_ROOT / name for name in TREES}

#: Articles per list page: 23 articles, so pages 1-3.
PER_PAGE = 10

TOPICS = ("crawling", "redirects", "caching", "parsing", "scheduling", "politeness", "encodings")


@dataclass(frozen=True)
class Article:
    id: int
    title: str
    body: str


ARTICLES: list[Article] = [
    Article(
        number,
        f"Article {number}: notes on {TOPICS[number % len(TOPICS)]}",
        f"Part {number // len(TOPICS) + 1} of the notes on {TOPICS[number % len(TOPICS)]} (article {number}).",
    )
    for number in range(1, 24)
]
ARTICLES_BY_ID: dict[int, Article] = {article.id: article for article in ARTICLES}


def featured(spell: str) -> list[str]:
    """Links to a few documents in an application's own spelling of a page (``spell``: a
    format with ``{tree}`` and ``{page}``, the page's path without ``.html``), for those the
    installed trees have."""
    pages = {
        "doxygen": ["install", "faq", "commands"],
        "debian-reference": ["ch01.en", "ch03.en"],
        "requests": ["user/quickstart", "api"],
    }
    return [
        spell.format(tree=tree, page=page)
        for tree, names in pages.items()
        if tree in TREE_DIRS  # (other trees: bench_real_servers.py --trees)
        for page in names
        if (TREE_DIRS[tree] / f"{page}.html").is_file()
    ]


def landing(app_links: list[str]) -> str:
    """``servers.LANDING`` with the trees and ``app_links`` (URLs) as its list."""
    urls = [f"/{name}/" for name in TREES] + app_links
    return LANDING.format(server=LABEL, links="\n".join(f'<li><a href="{url}">{url}</a></li>' for url in urls))
