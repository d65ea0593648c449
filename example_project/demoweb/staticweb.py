"""An eleventh generator of seeded webs: how static hosts, site generators and multilingual sites spell URLs.

Written by an outside checker from what static site generators (Hugo, Docusaurus, MkDocs with
mike), static hosts (Cloudflare Pages, Vercel, S3's website endpoint, GitHub Pages, nginx) and a
multilingual CMS do with the spelling of a URL: spellings that answer one page (byte for byte,
by a redirect to it, by a client-side redirect page, or as the same document in other bytes)
and, on the same host, the one or two places they do not. Each host is one *kind*; each
exception is linked late (after the host's coincidences have been linked many times over) and is
the only way to the document behind it. Where a real page links every version or every language
of itself (a version dropdown, a language switcher), those links are left out: each version is
linked where the model says, so that an older or unreleased version stays an exception.

Client-side redirect pages are modelled as the generators write them: ``200`` answers without a
document, Hugo's and Docusaurus's with a ``<meta http-equiv="refresh">`` (which Scrapy's
``MetaRefreshMiddleware`` follows), mike's with the refresh inside ``<noscript>`` (which it does
not: w3lib ignores ``noscript``) and a link to the target (which a crawl follows as a link).

- ``hugo`` (Hugo, multilingual with ``defaultContentLanguageInSubdir = false``, behind nginx with
  ``try_files $uri $uri/ =404``): the default language at the root, the other (``fr`` or ``de``)
  under ``/fr/`` with translated slugs (``/about/`` and ``/fr/a-propos/``, ``<link rel="alternate"
  hreflang>`` both ways, and a language switcher's link); ``/x/index.html`` is ``/x/`` byte for
  byte, ``/x`` -> 301 ``/x/``, the query is ignored; Hugo's alias pages (a meta refresh, the
  target as canonical) for a paginated list's first pager (``/posts/page/1/`` -> ``/posts/``,
  ``/tags/<tag>/page/1/``: ``pagination.disableAliases`` is false by default) and for a post's
  front-matter ``aliases`` (its old ``/2019/05/<slug>/``). On half the hosts nginx still has
  ``rewrite ^/en/(.*)$ /$1 permanent;`` from when the default language had a subdirectory
  (``/en/about/`` -> 301 ``/about/``); on the others ``/en/...`` is 404, as Hugo writes nothing
  there. Exception: ``/posts/page/2/``, the list's second pager, where the oldest post is listed
  (linked nowhere else).
- ``docusaurus`` (Docusaurus 3 with versioned docs, on GitHub Pages): the last released version
  at ``/docs/<id>``, ``@docusaurus/plugin-client-redirects`` writing a redirect page (a meta
  refresh, the target as canonical) at ``/docs/<latest>/<id>`` for each; ``trailingSlash`` drawn:
  ``false`` writes ``docs/<id>.html`` (GitHub Pages serves ``/docs/<id>`` and ``/docs/<id>.html``
  alike, ``/docs/<id>/`` is 404), ``true`` writes ``docs/<id>/index.html`` (``/docs/<id>`` -> 301
  ``/docs/<id>/``, ``index.html`` the same bytes). Exceptions: ``/docs/next/<id>``, the unreleased
  version (the "unreleased documentation" banner), whose sidebar links a doc only ``next`` has;
  and ``/docs/<older>/<id>``, an older version ("no longer actively maintained"), whose link
  leads to a doc removed since. Neither is linked nowhere else: the version dropdown is left out.
- ``mkdocs`` (MkDocs with Material, ``use_directory_urls: true``, versions deployed by mike on
  GitHub Pages): ``/<v>/page/`` is ``/<v>/page/index.html``, ``/<v>/page`` -> 301 ``/<v>/page/``,
  ``/<v>/page.md`` and ``/<v>/page.html`` 404; the alias ``latest`` of the current version is
  drawn as mike deploys it: a symlink or a copy (``/latest/page/`` byte for byte), or mike's
  redirect pages (``/latest/page/`` a ``noscript`` refresh and a link ``../../<v>/page/``); the root
  is ``mike set-default``'s redirect page to ``latest/``. Material's version selector is written by
  a script (``versions.json``): no version links in the pages. Exceptions: ``/dev/<page>/`` (the
  docs built from ``main``), whose relative link leads to a page only ``dev`` has, and
  ``/<older>/<page>/``, an older version, whose relative link leads to a page removed since.
- ``cfpages`` (Cloudflare Pages): a file ``x.html`` is served at ``/x``, ``/x.html`` and ``/x/`` ->
  308 ``/x``; a directory's ``/d/`` serves ``d/index.html``, ``/d`` and ``/d/index.html`` -> 308
  ``/d/``; the query is ignored; every ``200`` has an entity tag. Its ``_redirects`` moved the blog
  (``/blog/*  /posts/:splat  301``: ``/blog/<slug>`` -> ``/posts/<slug>``) but, listed above the
  splat (the topmost rule wins; redirects apply whether or not a file matches), keeps the old
  blog's archive by a rewrite: ``/blog/archive  /legacy/archive  200``. Exception:
  ``/blog/archive``, that archive (not ``/posts/archive``, a 404), listing an old post
  ``/legacy/<slug>`` linked nowhere else.
- ``vercel`` (a static deployment on Vercel, ``vercel.json`` with ``cleanUrls: true``,
  ``trailingSlash: false`` and ``{"source": "/en/:path*", "destination": "/:path*"}``: English at
  the root, French files under ``/fr/``): any path ending in ``.html`` -> 308 without it
  (``/d/index.html`` -> ``/d``), a trailing slash -> 308 without it, ``/x`` serves ``x.html`` or
  ``x/index.html``, the query is ignored; ``/en/x`` is rewritten to ``/x`` (the same bytes, ``200``).
  Rewrites are applied after the file system, so a file left under ``en/`` from an older layout
  wins. Exception: ``/en/terms``, such a stale file (the old terms, not ``/terms``), whose relative
  link ``terms-2019`` leads to another stale file linked nowhere else.
- ``s3website`` (an S3 bucket's static website endpoint, index document ``index.html``): ``/d/``
  serves ``d/index.html`` as does ``/d/index.html``, ``/d`` -> 302 ``/d/``; keys are
  case-sensitive and the path is read as S3 reads it, ``+`` decoded as a space (so
  ``/files/release+notes.html`` is ``/files/release%20notes.html``, the key ``release notes.html``);
  the query is ignored; a routing rule moved the manual (``KeyPrefixEquals: docs/``,
  ``HttpErrorCodeReturnedEquals: 404``, ``ReplaceKeyPrefixWith: guide/``, ``HttpRedirectCode: 301``:
  ``/docs/x.html`` -> ``/guide/x.html``, but only where no object answers). Exceptions: the key
  ``notes/c++.html``, reachable only as ``/notes/c%2B%2B.html`` (``/notes/c++.html`` asks for the key
  ``notes/c  .html``, a 404), whose relative link ``c%2B%2B11.html`` leads to a page linked nowhere
  else; and an object left under ``docs/`` (the old manual's page, not ``/guide/`` 's), which the
  404 condition lets answer, its relative link to another old page linked nowhere else.
- ``wpml`` (WordPress with WPML, the language as a parameter, the site mid-translation with
  "display as translated"): ``/x`` -> 301 ``/x/``, ``/?page_id=N`` and ``/?p=N`` -> 301 the
  permalink (``redirect_canonical``), ``/index.php`` -> 301 ``/``; ``?lang=en`` (the default
  language) is the page byte for byte; ``?lang=fr`` or ``?lang=de`` on a page not translated into
  it is the page in other bytes (the original's text, the theme's strings and ``<html lang>`` in
  that language). Exception: ``/about/?lang=fr`` (one page translated, the translation keeping the
  original's slug), the French text, whose link leads to a page only French has
  (``/mentions-legales/?lang=fr``), linked nowhere else.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; the status of a redirect the
software always answers with one is that status), sometimes a ``www.`` twin that serves the same
pages, and links are spelled with an upper-case host, a trailing-dot host, ``:80``, tracking
parameters and fragments where the server ignores them (each checked). None of these kinds puts
a per-request token in its pages.

Where I was unsure of the real software, I chose a plausible configuration: that S3's website
endpoint decodes ``+`` in a path as its REST endpoint does (a space); that a directory redirect
(nginx's, GitHub Pages', S3's, Vercel's) keeps the query; that mike's redirect pages link their
target relatively; that WPML serves ``?lang=en`` (the default language) as the page itself, not by
a redirect, and lets a translation keep the original's slug; which file Docusaurus's client
redirects are written to under each ``trailingSlash``; that Cloudflare Pages answers ``/x/`` of a
file ``x.html`` with a 308 to ``/x`` (its documentation names ``/x.html`` and ``/d/index.html``), and
that every Pages host has a top-level ``404.html`` (without one, Pages answers every unknown path
with the root page, ``200``: not modelled).

Every document is collected by stock Scrapy by construction, which :meth:`StaticWeb.check` proves
over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached from a
start URL through URLs that answer ``200``, and no two spellings stock takes as one (w3lib's
``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import html
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from .commerceweb import _link, _tail
from .communityweb import CommunitySite
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply
from .wildweb import Pen, encode_path

KINDS = ("hugo", "docusaurus", "mkdocs", "cfpages", "vercel", "s3website", "wpml")
_HTML = {"Content-Type": "text/html; charset=utf-8"}
#: English slugs and their translations (Hugo's ``slug`` front matter, a French or German site).
_TRANSLATIONS = {
    "fr": {
        "about": "a-propos",
        "contact": "contact",
        "team": "equipe",
        "privacy": "confidentialite",
        "pricing": "tarifs",
        "services": "services",
        "history": "histoire",
        "careers": "carrieres",
    },
    "de": {
        "about": "ueber-uns",
        "contact": "kontakt",
        "team": "team",
        "privacy": "datenschutz",
        "pricing": "preise",
        "services": "leistungen",
        "history": "geschichte",
        "careers": "karriere",
    },
}
_POSTS = (
    "hello-world",
    "release-notes",
    "why-static",
    "ci-setup",
    "benchmarks",
    "migration-guide",
    "roadmap-2024",
    "dark-mode",
    "v2-launch",
    "faster-builds",
)
_TAGS = ("release", "tutorial", "news", "performance")
_DOCS = ("intro", "installation", "configuration", "deployment", "api", "faq", "troubleshooting", "cli", "plugins")
#: Docs only the unreleased version (``next``, ``dev``) has.
_NEW_DOCS = ("streaming", "edge-runtime", "typed-config", "plugin-hooks")
#: Docs an older version has and the current one dropped.
_REMOVED_DOCS = ("legacy-config", "migrating-from-1x", "xml-output", "python2-support")
#: (the last released version, an older one) of a Docusaurus site.
_DOCUSAURUS_VERSIONS = (("3.5", "2.4"), ("2.1", "1.8"), ("1.4", "1.1"), ("4.0", "3.6"))
#: (the current version, an older one) of a site versioned with mike.
_MIKE_VERSIONS = (("1.4", "1.3"), ("2.0", "1.9"), ("0.9", "0.8"), ("3.2", "2.7"))
_REFERENCE = ("commands", "settings", "environment", "glossary")
_WORDS = ("about", "pricing", "features", "careers", "security", "customers", "changelog", "press")
_GUIDES = ("getting-started", "custom-domains", "caching", "forms", "analytics", "rollbacks")
#: Files with spaces in their names (an S3 bucket filled from a desktop folder).
_SPACED = ("release notes.html", "annual report 2023.html", "meeting minutes.html", "price list.html")
_NOTES = ("rust.html", "python.html", "go.html", "haskell.html")
#: Pages only the French version of a WordPress site has.
_FRENCH_ONLY = ("mentions-legales", "politique-cookies")
_LANGUAGES = {"fr": ("fr-FR", "Accueil · À propos · Contact"), "de": ("de-DE", "Startseite · Über uns · Kontakt")}


def _hugo_alias(target: str) -> Reply:
    """The page Hugo writes for an alias (``alias.html``): a meta refresh, the target as canonical."""
    url = html.escape(target)
    body = (
        f'<!DOCTYPE html><html lang="en-us"><head><title>{url}</title><link rel="canonical" href="{url}">'
        f'<meta name="robots" content="noindex"><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0; url={url}"></head></html>'
    )
    return Reply(200, body.encode(), dict(_HTML))


def _client_redirect(target: str) -> Reply:
    """The page ``@docusaurus/plugin-client-redirects`` writes at a redirect's source."""
    url = html.escape(target)
    body = (
        f'<!DOCTYPE html><html><head><meta charset="UTF-8"><meta http-equiv="refresh" content="0; url={url}">'
        f'<link rel="canonical" href="{url}" /></head><script>window.location.href = "{url}" + '
        "window.location.search + window.location.hash;</script></html>"
    )
    return Reply(200, body.encode(), dict(_HTML))


def _mike_redirect(href: str) -> Reply:
    """mike's redirect page (its ``redirect.html``): the refresh inside ``<noscript>``, a link to ``href``."""
    url = html.escape(href)
    body = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Redirecting</title><noscript>'
        f'<meta http-equiv="refresh" content="1; url={url}" /></noscript><script>window.location.replace('
        f'"{url}" + window.location.search + window.location.hash);</script></head>'
        f'<body>Redirecting to <a href="{url}">{url}</a>...</body></html>'
    )
    return Reply(200, body.encode(), dict(_HTML))


class StaticSite(CommunitySite):
    """A host of one kind serving a tree of files: :attr:`files` maps a file's key (its path
    below the root, decoded, ``index.html`` spelled out) to its page or to a client-side redirect
    page; :attr:`leads` are the redirect pages' URLs and the page each leads to (linked as
    evidence, as other spellings are). No per-request tokens: none of these kinds writes one."""

    files: dict[str, Page | Reply]
    leads: list[tuple[str, Page]]

    def tree(self) -> None:
        self.files = {}
        self.leads = []

    @staticmethod
    def key_of(path: str) -> str:
        """The file a decoded path names (``/d/`` is ``d/index.html``, ``/`` is ``index.html``)."""
        key = path[1:]
        return key + "index.html" if key == "" or key.endswith("/") else key

    def page(self, path: str, file: str | None = None, query: str = "") -> Page:
        """A document at decoded ``path``, its file ``file`` (by default the one ``path`` names)."""
        page = self.add(path, query)
        self.files[file if file is not None else self.key_of(path)] = page
        return page

    def lead(self, path: str, file: str, reply: Reply, page: Page) -> None:
        """A client-side redirect page at ``path`` (its file ``file``) that leads to ``page``."""
        self.files[file] = reply
        self.leads.append((f"http://{self.host}{encode_path(path)}", page))

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        for url, _ in self.leads:
            self.link_from(rng, pen, placed, url)

    def plain(self, page: Page) -> bool:
        """Whether ``page`` may be spelled otherwise in evidence (no exception, nothing behind one)."""
        return page.doc_id not in self.late and page.doc_id not in self.hidden

    def github_pages(self, authority: str, path: str, query: str) -> Page | Reply | None:
        """GitHub Pages: a file by its path, ``x.html`` at ``/x`` too (``200``), a directory's
        ``index.html`` at ``/d/``, ``/d`` -> 301 ``/d/``; case-sensitive, the query ignored."""
        key = path[1:]
        if key == "" or key.endswith("/"):
            return self.files.get(key + "index.html")
        found = self.files.get(key) or self.files.get(f"{key}.html")
        if found is None and f"{key}/index.html" in self.files:
            return self.redirect(authority, f"{encode_path(path)}/" + _tail(query), 301)
        return found


# -- kinds ------------------------------------------------------------------------------------


class HugoSite(StaticSite):
    """Hugo, multilingual, behind nginx: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "nginx"
        self.redirect_status = 301
        self.lang = rng.choice(sorted(_TRANSLATIONS))
        self.legacy_en = rng.random() < 0.5
        lang = self.lang
        self.home = self.page("/")
        self.lang_home = self.page(f"/{lang}/")
        count = 2 if budget < 12 else 3
        words = rng.sample(sorted(_TRANSLATIONS[lang]), count)
        self.english = {word: self.page(f"/{word}/") for word in words}
        self.translations: dict[str, Page] = {}  # doc id -> its translation (both ways)
        for word in words[:-1]:  # (the last one untranslated)
            english, other = self.english[word], self.page(f"/{lang}/{_TRANSLATIONS[lang][word]}/")
            self.translations[english.doc_id], self.translations[other.doc_id] = other, english
            english.links.append(other.path)  # (the language switcher)
            other.links.append(english.path)
            self.texts[other.doc_id] = f"[{lang}] {word}: traduction."
        slugs = rng.sample(_POSTS, max(2, min(6, budget - 5 - 2 * count)) + 1)
        self.section = self.page("/posts/")
        self.posts = {slug: self.page(f"/posts/{slug}/") for slug in slugs[:-1]}
        self.section.links += [post.path for post in self.posts.values()]
        self.texts[self.section.doc_id] = f"Posts. Page 1 of 2 ({len(slugs)} posts, {len(slugs) - 1} a page)."
        tag = rng.choice(_TAGS)
        self.tag = self.page(f"/tags/{tag}/")
        self.tag.links += [post.path for post in list(self.posts.values())[:2]]
        base = f"http://{self.host}"
        for listing in (self.section, self.tag):  # (the first pager's alias)
            self.lead(
                f"{listing.path}page/1/", f"{listing.path[1:]}page/1/index.html", _hugo_alias(listing.url), listing
            )
        moved = slugs[0]
        old = f"/{rng.randint(2017, 2020)}/{rng.randint(1, 12):02d}/{moved}/"  # (front matter: aliases)
        self.lead(old, f"{old[1:]}index.html", _hugo_alias(f"{base}/posts/{moved}/"), self.posts[moved])
        self.second = self.exception(self.page("/posts/page/2/"))
        self.texts[self.second.doc_id] = "Posts. Page 2 of 2."
        self.posts[slugs[-1]] = self.behind(self.second, self.page(f"/posts/{slugs[-1]}/"))
        self.traps.append(
            "x/index.html, /x -> /x/, page/1/ and old paths (Hugo's alias pages)"
            + (", /en/x -> /x" if self.legacy_en else "")
            + "; but /posts/page/2/"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if self.legacy_en and (path == "/en" or path.startswith("/en/")):  # (rewrite ... permanent)
            return self.redirect(authority, encode_path(path[3:] or "/") + _tail(query), 301)
        key = self.key_of(path)
        found = self.files.get(key)
        if found is None and not path.endswith("/") and f"{key}/index.html" in self.files:  # ($uri/)
            return self.redirect(authority, f"{encode_path(path)}/" + _tail(query), 301)
        return found

    def head_links(self, page: Page) -> str:
        links = [_link("canonical", page.url)]
        other = self.translations.get(page.doc_id)
        if other is not None:
            english, translated = (page, other) if not page.path.startswith(f"/{self.lang}/") else (other, page)
            links += [
                f'<link rel="alternate" hreflang="en" href="{html.escape(english.url)}">',
                f'<link rel="alternate" hreflang="{self.lang}" href="{html.escape(translated.url)}">',
            ]
        return "".join(links)

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        base = f"http://{self.host}"
        forms = [f"{page.url}index.html"]
        if page is not self.home:
            forms.append(page.url[:-1])
        if self.legacy_en and not page.path.startswith(f"/{self.lang}/"):
            forms += [f"{base}/en{page.path}", f"{base}/en{page.path[:-1]}"]
        return forms


class DocusaurusSite(StaticSite):
    """Docusaurus with versioned docs on GitHub Pages: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "GitHub.com"
        self.redirect_status = 301
        self.slash = rng.random() < 0.5  # (trailingSlash: true)
        self.latest, self.older = rng.choice(_DOCUSAURUS_VERSIONS)
        self.home = self.doc("/")
        names = rng.sample(_DOCS, max(3, min(7, budget - 6)))
        self.docs = {name: self.doc(f"/docs/{name}") for name in names}
        self.blog = self.doc("/blog")
        for slug in rng.sample(_POSTS, 2):
            self.blog.links.append(self.doc(f"/blog/{slug}").path)
        for name, page in self.docs.items():
            path, file = self.at(f"/docs/{self.latest}/{name}")
            self.lead(path, file, _client_redirect(page.path), page)
            self.texts[page.doc_id] = f"{name} ({self.latest})."
        first, second = names[:2]
        self.next_page = self.exception(self.doc(f"/docs/next/{first}"))
        self.texts[self.next_page.doc_id] = f"This is unreleased documentation for Canary. {first} (next)."
        self.behind(self.next_page, self.doc(f"/docs/next/{rng.choice(_NEW_DOCS)}"))
        self.old_page = self.exception(self.doc(f"/docs/{self.older}/{second}"))
        self.texts[self.old_page.doc_id] = (
            f"This is documentation for {self.older}, which is no longer actively maintained. {second}."
        )
        self.behind(self.old_page, self.doc(f"/docs/{self.older}/{rng.choice(_REMOVED_DOCS)}"))
        self.traps.append(
            f"trailingSlash {'true' if self.slash else 'false'}, /docs/{self.latest}/x (client redirects); "
            f"but /docs/next/{first} and /docs/{self.older}/{second}"
        )

    def at(self, path: str) -> tuple[str, str]:
        """(the URL path, the file) of a route, as Docusaurus writes it with this ``trailingSlash``."""
        if path == "/":
            return "/", "index.html"
        return (f"{path}/", f"{path[1:]}/index.html") if self.slash else (path, f"{path[1:]}.html")

    def doc(self, route: str) -> Page:
        path, file = self.at(route)
        return self.page(path, file)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        return self.github_pages(authority, path, query)

    def head_links(self, page: Page) -> str:
        return _link("canonical", page.url)

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        if page is self.home:
            return [f"{page.url}index.html"]
        return [f"{page.url}index.html", page.url[:-1]] if self.slash else [f"{page.url}.html"]


class MkDocsSite(StaticSite):
    """MkDocs with Material, versioned by mike on GitHub Pages: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "GitHub.com"
        self.redirect_status = 301
        self.alias_type = rng.choice(("symlink", "copy", "redirect"))  # (mike deploy --alias-type)
        self.version, self.older = rng.choice(_MIKE_VERSIONS)
        version = self.version
        self.home = self.page(f"/{version}/")
        names = rng.sample(_DOCS, max(2, min(6, budget - 8)))
        self.versioned: dict[str, Page] = {"": self.home}  # path below the version -> page
        for name in names:
            self.versioned[f"{name}/"] = self.page(f"/{version}/{name}/")
        self.versioned["reference/"] = self.page(f"/{version}/reference/")
        for name in rng.sample(_REFERENCE, 2):
            self.versioned[f"reference/{name}/"] = self.page(f"/{version}/reference/{name}/")
        self.lead("/", "index.html", _mike_redirect("latest/"), self.home)  # (mike set-default latest)
        for rest, page in self.versioned.items():
            if self.alias_type == "redirect":
                href = "../" * (1 + rest.count("/")) + f"{version}/{rest}"
                self.lead(f"/latest/{rest}", f"latest/{rest}index.html", _mike_redirect(href), page)
            else:
                self.files[f"latest/{rest}index.html"] = page
        first, second = names[0], names[-1]
        self.dev = self.exception(self.page(f"/dev/{first}/"))
        self.texts[self.dev.doc_id] = f"{first} (dev). New: see the new page."
        new = rng.choice(_NEW_DOCS)
        self.behind(self.dev, self.page(f"/dev/{new}/"), f"../{new}/")
        self.old = self.exception(self.page(f"/{self.older}/{second}/"))
        self.texts[self.old.doc_id] = f"{second} ({self.older})."
        removed = rng.choice(_REMOVED_DOCS)
        self.behind(self.old, self.page(f"/{self.older}/{removed}/"), f"../{removed}/")
        self.traps.append(
            f"/{version}/x/index.html, /latest/ ({self.alias_type}), / -> latest/; but /dev/{first}/ "
            f"and /{self.older}/{second}/"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        return self.github_pages(authority, path, query)

    def head_links(self, page: Page) -> str:  # (site_url per version, as mike deploys it)
        return _link("canonical", page.url)

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        forms = [f"{page.url}index.html", page.url[:-1]]
        rest = next((rest for rest, known in self.versioned.items() if known is page), None)
        if rest is not None and self.alias_type != "redirect":
            latest = f"http://{self.host}/latest/{rest}"
            forms += [latest, f"{latest}index.html", latest[:-1]]
        return forms


class CloudflarePagesSite(StaticSite):
    """Cloudflare Pages with a ``_redirects`` file: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "cloudflare"
        self.redirect_status = 308
        if self.etags == "none":  # (Pages sends an ETag with every 200)
            self.etags = "content"
        self.home = self.page("/")
        for word in rng.sample(_WORDS, max(1, min(3, budget - 10))):
            self.page(f"/{word}", f"{word}.html")
        self.guides = self.page("/guides/")
        for name in rng.sample(_GUIDES, 2):
            self.guides.links.append(self.page(f"/guides/{name}", f"guides/{name}.html").path)
        slugs = rng.sample(_POSTS, max(2, min(5, budget - 7)) + 1)
        self.blog = self.page("/posts/")
        self.posts = {slug: self.page(f"/posts/{slug}", f"posts/{slug}.html") for slug in slugs[:-1]}
        self.blog.links += [post.path for post in self.posts.values()]
        self.archive = self.exception(self.add("/blog/archive"))
        self.files["legacy/archive.html"] = self.archive  # (also at /legacy/archive: not linked)
        self.texts[self.archive.doc_id] = "Blog archive (2015-2019), from the old site."
        self.behind(self.archive, self.page(f"/legacy/{slugs[-1]}", f"legacy/{slugs[-1]}.html"))
        self.traps.append("/x.html and /x/ -> /x, /d -> /d/ (308), /blog/* -> /posts/:splat; but /blog/archive (200)")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/blog/archive":  # (_redirects, topmost first: /blog/archive /legacy/archive 200)
            return self.assets(authority, "/legacy/archive", "")
        if path.startswith("/blog/"):  # (/blog/*  /posts/:splat  301)
            return self.redirect(authority, f"/posts/{encode_path(path[len('/blog/') :])}" + _tail(query), 301)
        return self.assets(authority, path, query)

    def assets(self, authority: str, path: str, query: str) -> Page | Reply | None:
        """Pages' route matching: HTML files at their extension-less paths, other spellings 308."""
        key = path[1:]
        if key == "" or key.endswith("/"):
            found = self.files.get(key + "index.html")
            if found is None and key and f"{key[:-1]}.html" in self.files:
                return self.redirect(authority, encode_path(path[:-1]) + _tail(query), 308)
            return found
        if key.endswith(".html") and key in self.files:
            target = path[: -len("index.html")] if key.endswith("index.html") else path[: -len(".html")]
            return self.redirect(authority, encode_path(target) + _tail(query), 308)
        found = self.files.get(f"{key}.html")
        if found is None and f"{key}/index.html" in self.files:
            return self.redirect(authority, f"{encode_path(path)}/" + _tail(query), 308)
        return found

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{page.url}index.html"]
        if page.path.endswith("/"):
            forms = [f"{page.url}index.html", page.url[:-1]]
        else:
            forms = [f"{page.url}.html", f"{page.url}/"]
        if page.path.startswith("/posts/"):
            forms.append(f"{base}/blog/{page.path[len('/posts/') :]}")
        return forms


class VercelSite(StaticSite):
    """A static deployment on Vercel: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "Vercel"
        self.redirect_status = 308
        self.home = self.page("/")
        self.words = rng.sample([word for word in _WORDS if word != "about"], max(1, min(3, budget - 11)))
        for word in self.words:
            self.page(f"/{word}", f"{word}.html")
        self.terms = self.page("/terms", "terms.html")
        self.docs = self.page("/docs", "docs/index.html")
        for name in rng.sample(_DOCS, max(2, min(4, budget - 9))):
            self.docs.links.append(self.page(f"/docs/{name}", f"docs/{name}.html").path)
        self.french = self.page("/fr", "fr/index.html")
        for word in rng.sample(sorted(_TRANSLATIONS["fr"]), 2):
            slug = _TRANSLATIONS["fr"][word]
            self.texts[self.page(f"/fr/{slug}", f"fr/{slug}.html").doc_id] = f"[fr] {word}."
        self.stale = self.exception(self.page("/en/terms", "en/terms.html"))
        self.texts[self.stale.doc_id] = "Terms of service (2021). Previous version: terms-2019."
        self.behind(self.stale, self.page("/en/terms-2019", "en/terms-2019.html"), "terms-2019")
        self.traps.append("cleanUrls and trailingSlash 308, /en/x rewritten to /x; but /en/terms (a stale file)")

    def files_at(self, path: str) -> Page | Reply | None:
        key = path[1:]
        if key == "":
            return self.files.get("index.html")
        return self.files.get(f"{key}.html") or self.files.get(f"{key}/index.html")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path.endswith(".html"):  # (cleanUrls: /x.html and /x/index.html -> /x)
            target = path.removesuffix(".html").removesuffix("/index") or "/"
            return self.redirect(authority, encode_path(target) + _tail(query), 308)
        if path != "/" and path.endswith("/"):  # (trailingSlash: false)
            return self.redirect(authority, encode_path(path.rstrip("/") or "/") + _tail(query), 308)
        found = self.files_at(path)
        if found is None and (path == "/en" or path.startswith("/en/")):  # (rewrites: after the file system)
            return self.files_at(path[3:] or "/")
        return found

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/index.html", f"{base}/en", f"{base}/en/"]
        directory = f"{page.path[1:]}/index.html" in self.files
        forms = [f"{page.url}/index.html" if directory else f"{page.url}.html", f"{page.url}/"]
        if not page.path.startswith("/fr") and self.files_at(f"/en{page.path}") is None:
            forms += [f"{base}/en{page.path}", f"{base}/en{page.path}/"]
        return forms


class S3WebsiteSite(StaticSite):
    """An S3 bucket's static website endpoint: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = "AmazonS3"
        self.redirect_status = 302
        self.home = self.page("/")
        self.guide = self.page("/guide/")
        names = rng.sample(_GUIDES, max(2, min(4, budget - 9)) + 1)
        self.chapters = {name: self.page(f"/guide/{name}.html") for name in names}
        self.guide.links += [f"{name}.html" for name in names]  # (relative)
        self.spaced = {name: self.page(f"/files/{name}") for name in rng.sample(_SPACED, 2)}
        self.notes_index = self.page("/notes/")
        for name in rng.sample(_NOTES, max(1, min(2, budget - 10))):
            self.notes_index.links.append(self.page(f"/notes/{name}").path)
        self.plus = self.exception(self.add("/notes/c%2B%2B.html"))  # (the key notes/c++.html)
        self.files["notes/c++.html"] = self.plus
        self.texts[self.plus.doc_id] = "Notes on C++. See also: C++11."
        hidden = self.add("/notes/c%2B%2B11.html")
        self.files["notes/c++11.html"] = hidden
        self.behind(self.plus, hidden, "c%2B%2B11.html")
        self.stale_name = names[0]
        self.stale = self.exception(self.page(f"/docs/{self.stale_name}.html"))
        self.texts[self.stale.doc_id] = f"{self.stale_name} (manual 1.x). Next: the upgrade notes."
        self.behind(self.stale, self.page("/docs/upgrade-notes.html"), "upgrade-notes.html")
        self.traps.append(
            f"/d -> /d/ (302), index.html, + as a space, docs/ -> guide/ on 404 (301); but notes/c%2B%2B.html "
            f"and /docs/{self.stale_name}.html (an object left)"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        key = unquote_plus(raw_path)[1:]  # (S3 reads + as a space)
        index = key == "" or key.endswith("/")
        found = self.files.get(key + "index.html" if index else key)
        if found is None and not index and f"{key}/index.html" in self.files:
            return self.redirect(authority, f"{raw_path}/" + _tail(query), 302)
        if found is None and key.startswith("docs/"):  # (the routing rule, on a 404)
            return self.redirect(authority, encode_path(f"/guide/{key[len('docs/') :]}"), 301)
        return found

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        base = f"http://{self.host}"
        if page.path.endswith("/"):
            forms = [f"{page.url}index.html"] + ([page.url[:-1]] if page is not self.home else [])
        else:
            forms = [page.url.replace("%20", "+")] if "%20" in page.path else []
        if page.path.startswith("/guide/") and page is not self.chapters[self.stale_name]:
            forms.append(f"{base}/docs/{page.path[len('/guide/') :]}")
        return forms


class WpmlSite(StaticSite):
    """WordPress with WPML, the language as a parameter: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.tree()
        self.server = rng.choice(("Apache", "nginx"))
        self.redirect_status = 301
        self.home = self.page("/")
        ids = iter(rng.sample(range(2, 900), 20))
        self.ids: dict[int, Page] = {}  # page_id or p -> page
        words = rng.sample(sorted(_TRANSLATIONS["fr"]), max(2, min(5, budget - 8)))
        if "about" not in words:
            words[0] = "about"
        for word in words:
            self.ids[next(ids)] = self.page(f"/{word}/")
        for slug in rng.sample(_POSTS, max(2, min(4, budget - 9))):
            self.ids[next(ids)] = self.page(f"/{rng.randint(2019, 2024)}/{rng.randint(1, 12):02d}/{slug}/")
        self.about = next(page for page in self.ids.values() if page.path == "/about/")
        self.by_path = {page.path: page for page in self.pages}
        #: (path, language) -> a translation (the original's slug kept) or a page only that language has
        self.translated: dict[tuple[str, str], Page] = {}
        self.french = self.exception(self.add("/about/", "lang=fr"))
        self.translated[("/about/", "fr")] = self.french
        self.texts[self.french.doc_id] = "À propos de nous. Mentions légales."
        legal = rng.choice(_FRENCH_ONLY)
        self.translated[(f"/{legal}/", "fr")] = self.behind(self.french, self.add(f"/{legal}/", "lang=fr"))
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"Link": f'<http://{self.host}/wp-json/>; rel="https://api.w.org/"'}
        self.traps.append("?lang=en the page, ?lang=fr|de shown as translated, /?page_id= -> 301; but /about/?lang=fr")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        lang = params.get("lang", "en")
        if path in ("/", "/index.php") and ("page_id" in params or "p" in params):  # (redirect_canonical)
            number = params.get("page_id") or params.get("p") or ""
            found = self.ids.get(int(number)) if number.isdigit() else None
            if found is None:
                return None
            return self.redirect(authority, found.path + (f"?lang={lang}" if lang != "en" else ""), 301)
        if path == "/index.php":
            return self.redirect(authority, "/" + _tail(query), 301)
        known = {page_path for page_path, _ in self.translated} | set(self.by_path)
        if not path.endswith("/") and f"{path}/" in known:
            return self.redirect(authority, f"{encode_path(path)}/" + _tail(query), 301)
        if (path, lang) in self.translated:
            return self.translated[(path, lang)]
        page = self.by_path.get(path)
        if page is None or lang == "en":
            return page
        if lang not in _LANGUAGES:
            return None  # (a language the site does not have: not modelled)
        code, menu = _LANGUAGES[lang]
        reply = self.noted(page, menu)  # (display as translated: the original, the theme's strings in lang)
        body = reply.body.replace(b"<html>", f'<html lang="{code}">'.encode(), 1)
        return Reply(reply.status, body, reply.headers)

    def head_links(self, page: Page) -> str:
        if page is self.french or page is self.about:
            return (
                f'<link rel="alternate" hreflang="en-US" href="{html.escape(self.about.url)}">'
                f'<link rel="alternate" hreflang="fr-FR" href="{html.escape(self.french.url)}">'
            )
        return ""

    def spellings(self, page: Page) -> list[str]:
        if not self.plain(page):
            return []
        base = f"http://{self.host}"
        forms = [f"{page.url}?lang=en", f"{page.url}?lang=de"]
        if page is not self.about:
            forms.append(f"{page.url}?lang=fr")
        if page is self.home:
            return [*forms, f"{base}/index.php"]
        number = next(number for number, known in self.ids.items() if known is page)
        kind = "page_id" if page.path.count("/") == 2 else "p"
        return [*forms, page.url[:-1], f"{page.url[:-1]}?lang=de", f"{base}/?{kind}={number}"]


_CLASSES: dict[str, type[StaticSite]] = {
    "hugo": HugoSite,
    "docusaurus": DocusaurusSite,
    "mkdocs": MkDocsSite,
    "cfpages": CloudflarePagesSite,
    "vercel": VercelSite,
    "s3website": S3WebsiteSite,
    "wpml": WpmlSite,
}


# -- the web ------------------------------------------------------------------------------------


class StaticWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of static-site kinds (the same checks)."""


def generate_static_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> StaticWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds("static", seed, KINDS, _CLASSES, StaticWeb, meta_refresh=meta_refresh, query_pages=query_pages)


# -- the comparison ---------------------------------------------------------------------------


class StaticComparison(FamilyComparison):
    """A comparison on a static web: requests, pages and documents per kind of host."""


async def compare_static(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> StaticComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_static_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_static_web, StaticComparison, seed, workdir, addon_settings, order)
