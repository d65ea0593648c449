"""A ninth generator of seeded webs: how package registries, paper archives and versioned docs spell URLs.

Written by an outside checker from what package registries, preprint archives, institutional
repositories and versioned documentation hosts do with the spelling of a URL: spellings that
answer one page (byte for byte, by a redirect to it, or as the same document in other bytes)
and, on the same host, the one place they do not. Each host is one *kind*; each exception is
linked late (after the host's coincidences have been linked many times over) and is the only way
to the document behind it. Where a real page links every version of a thing (a release history,
a version switcher, a record's version list), those links are left out: each version is linked
where the model says, so that an older version stays an exception.

- ``pypi`` (Warehouse): a project's name is looked up PEP 503-normalized and every other spelling
  301s to the name as registered (``/project/flask_login/``, ``/project/FLASK-LOGIN/`` ->
  ``/project/Flask-Login/``), a missing slash is appended (``/project/x`` -> 301 ``/project/x/``),
  the legacy ``/pypi/<name>/`` 301s to ``/project/<name>/``; a release's version is looked up by
  its canonical form (``/project/x/2.3.0.0/`` -> 301 ``/project/x/2.3.0/``); the latest release's
  page ``/project/x/<latest>/`` is the project page in other bytes (its ``pip install x==<latest>``),
  every release page names the project page as canonical; ``/simple/<Name>/`` -> 301
  ``/simple/<normalized>/``, usernames found case-insensitively (301); unknown parameters are
  ignored, but every page names the URL it was asked at in its ``og:url`` (Pyramid's
  ``current_route_url``, the query included), so no two spellings answer the same bytes.
  Exceptions: an older release ``/project/x/<old>/`` (canonical: the project page, as Warehouse
  writes it), whose description links a project linked nowhere else; and a pre-release
  ``/project/x/<next>rc1/``, newer than the latest (which skips pre-releases).
- ``npm`` (the npmjs.com website): ``/package/<name>`` is ``?activeTab=readme`` (the default tab)
  and ``/package/<name>/v/<latest>``, scoped packages at ``/package/@scope/<name>``; the legacy
  ``/browse/keyword/<word>`` 301s to ``/search?q=keywords:<word>``. Exceptions:
  ``?activeTab=versions`` on one package, the versions tab, whose list links an old version
  ``/package/<name>/v/<old>`` linked nowhere else; and ``/package/jsonstream``, another package than
  ``/package/JSONStream`` (published before npm made names lower-case: both exist).
- ``docsrs`` (docs.rs): ``/<crate>`` and ``/<crate>/latest`` 302 to ``/<crate>/latest/<target>/``,
  ``/crate/<crate>`` 302 to ``/crate/<crate>/latest``, a crate's name with ``-`` for ``_`` (or the
  reverse) 302s to the name as published, semver requirements (``/<crate>/^1/<target>/``) 302 to
  the version they match, ``*`` to ``latest``; ``/<crate>/latest/<target>/`` is its ``index.html``
  and rustdoc's ``?search=`` is read by the page's script (the same bytes);
  ``/<crate>/<latest version>/...`` is the ``latest`` page in other bytes (the version in its
  header). Exception: an older version's docs ``/<crate>/<old>/<target>/``, whose relative link
  leads to an item since removed, linked nowhere else.
- ``arxiv`` (arXiv's abstract pages, ``arxiv-browse``): ``/abs/<id>`` is the latest version,
  ``/abs/<id>v<latest>`` the same abstract in other bytes (the requested id in its title);
  ``?context=<its primary category>`` (or a context it does not know) is the default browse
  context, the same bytes, another category's context the same abstract in other bytes;
  ``/abs/arXiv:<id>`` -> 301 ``/abs/<id>``; old-style ids ``/abs/hep-th/9901001`` also at the legacy
  ``/abs/hep-th?papernum=9901001`` and ``/abs/hep-th?9901001`` (``200``), a subject class in an
  old id 301s (``/abs/math.GT/0309136`` -> ``/abs/math/0309136``); a listing
  ``/list/<category>/recent`` is ``?skip=0&show=25`` (the defaults; a value it cannot read is the
  default too), ``/pastweek`` the same listing in other bytes. Exceptions: ``/abs/<id>v1``, the
  first version, whose comments name a companion paper linked nowhere else; and a listing's second
  page ``?skip=25&show=25``, which lists a paper linked nowhere else.
- ``dspace`` (DSpace 6, XMLUI): items, collections and communities at ``/handle/<prefix>/<n>``,
  ``?locale-attribute=en`` (the default locale) the same bytes; bitstreams at
  ``/bitstream/handle/<prefix>/<n>/<name>?sequence=<s>&isAllowed=y``, where ``isAllowed`` is
  ignored and ``sequence`` finds the file whatever the name (``.../README.HTML?sequence=1``), and a
  name without ``sequence`` finds it by name. Exceptions: one item's ``?show=full`` (the full
  item record) whose ``dc.relation.isversionof`` links an item linked nowhere else; and an HTML
  bitstream whose relative link ``appendix.html`` is another bitstream, found by its name.
- ``zenodo`` (Zenodo on InvenioRDM): ``/record/<id>`` -> 301 ``/records/<id>``,
  ``/doi/10.5281/zenodo.<id>`` and ``/records/<id>/latest`` 302 to the latest version, a concept
  record's id 302s to its latest version. Exception: the older version ``/records/<v1>`` ("a newer
  version exists"), whose related works link a record linked nowhere else.
- ``debian`` (packages.debian.org): a suite's alias is its codename (``/stable/curl`` is
  ``/bookworm/curl`` byte for byte, suite and section indexes, file lists and
  ``/source/stable/<src>`` too), a directory's slash is added (``/stable`` -> 301 ``/stable/``,
  ``/bookworm/web`` -> 301 ``/bookworm/web/``, the section); the search reads ``searchon=names`` and
  ``section=all`` as its defaults. Exceptions: ``/sid/<pkg>`` (unstable: another version) whose
  dependency list links a package only sid has, linked nowhere else; and ``/bookworm/perl`` (or
  ``ruby``), the package, beside its section ``/bookworm/perl/``, its relative link to its
  versioned dependency (``perl-modules-5.36``) a page linked nowhere else.
- ``pgdocs`` (PostgreSQL's documentation): ``/docs/current/x.html`` is ``/docs/<current>/x.html``
  byte for byte (both name ``current`` as canonical), the legacy ``/docs/<v>/static/x.html`` and
  ``/docs/<v>/interactive/x.html`` 301 to ``/docs/<v>/x.html``, ``/docs/<v>/index.html`` is the
  version's table of contents, ``/docs/current`` -> 301 ``/docs/current/``. Exception:
  ``/docs/<older>/x.html``, an older major's page, whose relative link leads to a chapter removed
  since, linked nowhere else.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; kinds whose software answers with
one status set it), sometimes a ``www.`` twin that serves the same pages, and links are spelled
with an upper-case host, a trailing-dot host, ``:80``, tracking parameters and fragments where
the server ignores them (each checked). None of these kinds puts a per-request token in its
pages.

Every document is collected by stock Scrapy by construction, which :meth:`RegistryWeb.check`
proves over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached
from a start URL through URLs that answer ``200``, and no two spellings stock takes as one
(w3lib's ``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .commerceweb import _link, _tail
from .communityweb import _USERS, CommunitySite
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply

KINDS = ("pypi", "npm", "docsrs", "arxiv", "dspace", "zenodo", "debian", "pgdocs")
_PROJECTS = (
    "Flask-Login",
    "zope.interface",
    "ruamel.yaml",
    "typing_extensions",
    "PyYAML",
    "Jinja2",
    "python-dateutil",
    "SQLAlchemy",
    "websocket_client",
    "Markdown",
)
_NPM = ("left-pad", "chalk", "debug", "lodash.merge", "uuid", "semver", "ms", "yargs-parser", "cross-env")
_SCOPES = ("acme", "babel", "types", "vue")
#: Packages published before npm made names lower-case, and the lower-case packages beside them.
_LEGACY = (("JSONStream", "jsonstream"), ("webStorage", "webstorage"), ("JSON2", "json2"))
_KEYWORDS = ("cli", "color", "parser", "http", "testing")
_CRATES = ("serde_json", "tokio-util", "regex-syntax", "anyhow", "rand_core", "async-trait", "http-body")
_ITEMS = ("struct.Error.html", "fn.from_str.html", "trait.Visitor.html", "enum.Value.html", "macro.json.html")
_REMOVED_ITEMS = ("struct.LegacyConfig.html", "fn.from_reader_unchecked.html", "trait.OldVisitor.html")
_CATEGORIES = ("cs.LG", "cs.CL", "math.CO", "math.AG", "hep-th", "astro-ph.GA", "q-bio.NC", "quant-ph")
#: Old-style archives and a subject class an old id may carry (``math.GT/0309136``), "" for none.
_OLD_ARCHIVES = (("hep-th", ""), ("math", "GT"), ("math", "AG"), ("cs", "AI"), ("quant-ph", ""), ("astro-ph", ""))
_HANDLE_PREFIXES = ("123456789", "1721.1", "10023", "2142", "11250")
_COMMUNITIES = ("astro", "biosyslit", "open-hardware", "eu", "zenodo-docs")
_DEBIAN = ("curl", "python3-requests", "nginx-light", "libssl3", "git", "vim-tiny", "jq", "htop", "rsync", "zstd")
_DEB_SECTIONS = ("web", "python", "libs", "utils", "editors", "net", "vcs")
#: Sections named as a package is (the package page beside the section's), and the package's
#: versioned dependency per stable codename.
_DEB_CLASHES = {
    "perl": {"bullseye": "perl-modules-5.32", "bookworm": "perl-modules-5.36", "trixie": "perl-modules-5.40"},
    "ruby": {"bullseye": "ruby2.7", "bookworm": "ruby3.1", "trixie": "ruby3.3"},
}
#: (stable's codename, the next release's): packages.debian.org's suite aliases.
_RELEASES = (("bullseye", "bookworm"), ("bookworm", "trixie"), ("trixie", "forky"))
_PG_PAGES = (
    "sql-select",
    "datatype-json",
    "functions-string",
    "indexes-types",
    "runtime-config-wal",
    "app-psql",
    "tutorial-join",
    "ddl-constraints",
    "queries-with",
    "plpgsql-control-structures",
)
#: Chapters the documentation dropped, with the last major version that has them.
_PG_REMOVED = (
    ("recovery-config", 11),
    ("pgstandby", 13),
    ("default-roles", 13),
    ("plpython-python23", 14),
    ("adminpack", 16),
)


def _pep503(name: str) -> str:
    """A project's name as PEP 503 normalizes it (runs of ``-_.`` one ``-``, lower-case)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _canonical_version(version: str) -> str:
    """``packaging.utils.canonicalize_version`` for the versions drawn here: a leading ``v`` and
    the release's trailing zeros dropped, a pre-release's separator and case normalized
    (``2.4.0RC1``, ``2.4-rc1`` and ``2.4rc1`` alike)."""
    match = re.fullmatch(r"v?(\d+(?:\.\d+)*)[-_.]?([a-z]+\d*)?", version.lower())
    if match is None:
        return version.lower()
    parts = [int(part) for part in match.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return ".".join(map(str, parts)) + (match.group(2) or "")


def _version(rng: random.Random, major: int) -> str:
    return f"{major}.{rng.randint(0, 12)}.{rng.choice((0, 0, 1, 2, 3))}"


class RegistrySite(CommunitySite):
    """A host of one kind (no per-request tokens: none of these kinds' software puts one in a page)."""


# -- kinds ------------------------------------------------------------------------------------


class PyPISite(RegistrySite):
    """Warehouse (PyPI): see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301  # (HTTPMovedPermanently)
        self.home = self.add("/")
        names = rng.sample(_PROJECTS, max(3, min(5, (budget - 5) // 2)) + 1)
        self.names: dict[str, str] = {}  # normalized name -> the name as registered
        self.latest: dict[str, str] = {}  # normalized name -> its latest release
        self.projects: dict[str, Page] = {}
        self.simple: dict[str, Page] = {}
        for name in names:
            key = _pep503(name)
            self.names[key] = name
            self.latest[key] = _version(rng, rng.randint(1, 5))
        for name in names[:-1]:
            key = _pep503(name)
            self.projects[key] = self.add(f"/project/{name}/")
            self.simple[key] = self.add(f"/simple/{key}/")
            self.texts[self.projects[key].doc_id] = f"{name} {self.latest[key]}. pip install {name}"
        maintainer = rng.choice(_USERS)
        self.users = {maintainer.lower(): self.add(f"/user/{maintainer}/")}
        name, latest = names[0], self.latest[_pep503(names[0])]
        self.long = _pep503(name)
        major, minor = (int(part) for part in latest.split(".")[:2])
        old = f"{major - 1}.{rng.randint(0, 9)}.{rng.randint(0, 5)}" if major > 1 else f"0.{rng.randint(1, 9)}"
        self.older = self.exception(self.add(f"/project/{name}/{old}/"))
        other = names[-1]
        self.texts[self.older.doc_id] = f"{name} {old}. Newer version available ({latest}). Formerly {other}."
        hidden = self.add(f"/project/{other}/")
        self.projects[_pep503(other)] = self.behind(self.older, hidden)
        pre = f"{major}.{minor + 1}.0rc1"
        self.pre = self.exception(self.add(f"/project/{name}/{pre}/"))
        self.texts[self.pre.doc_id] = f"{name} {pre}. Stable version available ({latest})."
        self.releases = {self.long: {old: self.older, pre: self.pre}}  # (other than the latest)
        self.traps.append(
            f"names PEP 503-folded (301), /pypi/ legacy, versions canonicalized; but /project/{name}/{old}/ "
            f"and /{pre}/ (canonical: the project page)"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        found = self.view(authority, path, raw_path, query)
        if isinstance(found, Page):
            found = self.render(found)
        if found is None or found.status != 200:
            return found
        echo = f'<meta property="og:url" content="{html.escape(f"http://{authority}{raw_path}" + _tail(query))}">'
        return Reply(200, found.body.replace(b"</head>", echo.encode() + b"</head>", 1), found.headers)

    def view(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        """The page (or redirect) Warehouse's views answer; :meth:`route` adds the URL's echo."""
        if path == "/":
            return self.home
        match = re.fullmatch(r"/(project|pypi|simple|user)/([^/]+)(?:/([^/]+))?(/?)", path)
        if match is None:
            return None
        section, name, version, slash = match.groups()
        if section == "pypi":  # (the legacy routes)
            return self.redirect(authority, f"/project/{name}/" + (f"{version}/" if version else "") + _tail(query))
        if not slash:  # (Pyramid's append_slash, on a route that would match)
            return self.redirect(authority, f"{raw_path}/" + _tail(query))
        if section == "user":
            found = next((page for user, page in self.users.items() if user == name.lower()), None)
            if found is None or version:
                return None
            return found if found.path == f"/user/{name}/" else self.redirect(authority, found.path + _tail(query))
        key = _pep503(name)
        if section == "simple":
            if key not in self.simple or version:
                return None
            return self.simple[key] if name == key else self.redirect(authority, f"/simple/{key}/" + _tail(query))
        if key not in self.projects:
            return None
        display = self.names[key]
        if version is None:
            if name != display:
                return self.redirect(authority, f"/project/{display}/" + _tail(query))
            return self.projects[key]
        wanted = _canonical_version(version)
        releases = {self.latest[key]: None, **self.releases.get(key, {})}
        release = next((known for known in releases if _canonical_version(known) == wanted), None)
        if release is None:
            return None
        if name != display or version != release:  # (release_detail: the names as registered)
            return self.redirect(authority, f"/project/{display}/{release}/" + _tail(query))
        page = releases[release]
        if page is None:  # (the latest release: the project page's view, its pip command pinned)
            return self.noted(self.projects[key], f"pip install {display}=={release}")
        return page

    def head_links(self, page: Page) -> str:
        for key, project in self.projects.items():
            if page is project or any(page is release for release in self.releases.get(key, {}).values()):
                return _link("canonical", project.url)  # (every release page: the project's)
        return self.canonical(page) if page in self.users.values() or page is self.home else ""

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        forms: list[str] = []
        for key, project in self.projects.items():
            name, latest = self.names[key], self.latest[key]
            if project is page:
                forms = [f"{base}/project/{key}/", f"{base}/project/{name.upper()}/", f"{base}/project/{name}"]
                forms += [f"{base}/project/{name.replace('-', '_')}/", f"{base}/pypi/{name}/", f"{base}/pypi/{key}"]
                forms += [f"{base}/project/{name}/{latest}/", f"{base}/project/{key}/{latest}.0/"]
                forms += [f"{base}/project/{name}/{latest}", f"{base}/pypi/{name}/{latest}/"]
            elif self.simple.get(key) is page:
                forms = [f"{base}/simple/{name}/", f"{base}/simple/{key}", f"{base}/simple/{name.upper()}/"]
        for user, profile in self.users.items():
            if profile is page:
                forms = [f"{base}/user/{user.title()}/", f"{base}/user/{user.upper()}/", f"{base}/user/{user}"]
        return [form for form in forms if form != page.url]


class NpmSite(RegistrySite):
    """The npmjs.com website: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "cloudflare"
        self.redirect_status = 301
        self.home = self.add("/")
        scope = rng.choice(_SCOPES)
        names = rng.sample(_NPM, max(2, min(5, budget - 8)))
        names.append(f"@{scope}/{rng.choice(('core', 'cli', 'parser', 'runtime'))}")
        legacy, lower = rng.choice(_LEGACY)
        names += [legacy, lower]
        self.latest: dict[str, str] = {name: _version(rng, rng.randint(1, 9)) for name in names}
        self.packages = {name: self.add(f"/package/{name}") for name in names[:-1]}
        for name, page in self.packages.items():
            self.texts[page.doc_id] = f"{name} {self.latest[name]} - Public - Published 3 months ago. Readme."
        self.lower = self.exception(self.add(f"/package/{lower}"))  # (another package: names are case-sensitive)
        self.packages[lower] = self.lower
        self.texts[self.lower.doc_id] = f"{lower} {self.latest[lower]}. Deprecated: this package is {legacy}."
        self.users = {user: self.add(f"/~{user}") for user in rng.sample([u for u in _USERS if "_" not in u], 2)}
        self.org = self.add(f"/org/{scope}")
        words = rng.sample(_KEYWORDS, 2)
        self.searches = {word: self.add("/search", f"q=keywords:{word}") for word in words}
        self.long = names[0]
        major = int(self.latest[self.long].split(".")[0])
        self.old = f"{major - 1}.{rng.randint(0, 9)}.{rng.randint(0, 9)}" if major > 1 else "0.1.0"
        self.versions = self.exception(self.add(f"/package/{self.long}", "activeTab=versions"))
        self.texts[self.versions.doc_id] = f"{self.long}: Version history ({self.latest[self.long]}, ..., {self.old})."
        self.old_page = self.behind(self.versions, self.add(f"/package/{self.long}/v/{self.old}"))
        self.texts[self.old_page.doc_id] = f"{self.long} {self.old}. This version is deprecated."
        self.traps.append(
            f"?activeTab=readme, /v/<latest> the package page; but /package/{self.long}?activeTab=versions "
            f"and /package/{lower} (not {legacy})"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        match = re.fullmatch(r"/~([\w.-]+)", path)
        if match:
            return self.users.get(match.group(1))
        if path == f"/org/{self.org.path.rsplit('/', 1)[1]}":
            return self.org
        if path == "/search":
            word = params.get("q", "").removeprefix("keywords:")
            return self.searches.get(word) if params.get("q", "").startswith("keywords:") else None
        match = re.fullmatch(r"/browse/keyword/([\w-]+)", path)
        if match:
            return self.redirect(authority, f"/search?q=keywords:{match.group(1)}")
        match = re.fullmatch(r"/package/((?:@[\w-]+/)?[\w.-]+)(?:/v/([\w.+-]+))?", path)
        if match is None or match.group(1) not in self.packages:
            return None
        name, version = match.groups()
        tab = params.get("activeTab", "readme")
        if version is not None and version != self.latest[name]:
            return self.old_page if (name, version, tab) == (self.long, self.old, "readme") else None
        if tab == "readme":
            return self.packages[name]
        return self.versions if (name, version, tab) == (self.long, None, "versions") else None

    def head_links(self, page: Page) -> str:
        for name, package in self.packages.items():
            if page is package or (name == self.long and page in (self.versions, self.old_page)):
                return _link("canonical", package.url)
        return ""

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for name, package in self.packages.items():
            if package is page and page is not self.lower:
                latest = f"{page.url}/v/{self.latest[name]}"
                return [f"{page.url}?activeTab=readme", latest, f"{latest}?activeTab=readme"]
        for word, search in self.searches.items():
            if search is page:
                return [f"{base}/browse/keyword/{word}"]
        return []


class DocsRsSite(RegistrySite):
    """docs.rs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "CloudFront"))
        self.redirect_status = 302
        self.home = self.add("/")
        names = rng.sample(_CRATES, 2 if budget < 12 else 3)
        self.versions: dict[str, list[str]] = {}  # crate -> versions, the latest first
        self.crates: dict[str, Page] = {}  # crate -> /crate/<crate>/latest
        self.files: dict[str, dict[str, Page]] = {}  # crate -> file below the target's root -> page
        for name in names:
            major = rng.randint(1, 4)
            old = f"{major - 1}.{rng.randint(0, 9)}.{rng.randint(0, 9)}"
            self.versions[name] = [_version(rng, major), old]
            self.crates[name] = self.add(f"/crate/{name}/latest")
            root = f"/{name}/latest/{self.target(name)}/"
            self.files[name] = {"": self.add(root)}
            for item in rng.sample(_ITEMS, rng.randint(1, 2)):
                self.files[name][item] = self.add(root + item)
                self.files[name][""].links.append(item)  # (rustdoc's links: relative)
            self.texts[self.crates[name].doc_id] = f"{name} {self.versions[name][0]}. Documentation. Source."
        self.long = names[0]
        old = self.versions[self.long][1]
        self.old_root = self.exception(self.add(f"/{self.long}/{old}/{self.target(self.long)}/"))
        self.texts[self.old_root.doc_id] = f"Crate {self.target(self.long)} {old}. Structs. Functions."
        removed = rng.choice(_REMOVED_ITEMS)
        self.old_files = {"": self.old_root, removed: self.add(self.old_root.path + removed)}
        self.behind(self.old_root, self.old_files[removed], removed)
        self.traps.append(
            f"/<crate>, /crate/<crate>, -/_ names, ^N and * redirect; /latest/ = index.html = ?search=; "
            f"but /{self.long}/{old}/"
        )

    @staticmethod
    def target(name: str) -> str:
        return name.replace("-", "_")

    def crate(self, name: str) -> str | None:
        """The crate published under ``name``, ``-`` and ``_`` alike (``match_version``'s fallback)."""
        return next((crate for crate in self.versions if self.target(crate) == self.target(name)), None)

    def resolve_version(self, crate: str, wanted: str) -> str | None:
        """The version a request names: a version, ``latest``, or a semver requirement (the highest it matches)."""
        if wanted == "latest":
            return "latest"
        if wanted == "*":
            return "*"
        prefix = wanted.lstrip("^~=").split(".")
        if not prefix or not all(part.isdigit() for part in prefix):
            return None
        for version in sorted(self.versions[crate], key=lambda v: [int(p) for p in v.split(".")], reverse=True):
            if version.split(".")[: len(prefix)] == [str(int(part)) for part in prefix]:
                return version
        return None

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/":
            return self.home
        match = re.fullmatch(r"/crate/([\w-]+)(?:/([^/]+))?/?", path)
        if match:
            name, wanted = match.groups()
            crate = self.crate(name)
            if crate is None:
                return None
            if crate != name or wanted is None:
                return self.redirect(authority, f"/crate/{crate}/{wanted or 'latest'}")
            version = self.resolve_version(crate, wanted)
            if version == "*" or version not in (None, "latest", wanted):
                return self.redirect(authority, f"/crate/{crate}/{'latest' if version == '*' else version}")
            if version in ("latest", self.versions[crate][0]):
                page = self.crates[crate]
                return page if wanted == "latest" else self.noted(page, f"{crate} {version}")
            return None  # (an older version's crate page: not modelled)
        match = re.fullmatch(r"/([\w-]+)(?:/([^/]+)(?:/(\w+)(/.*)?)?)?/?", path)
        if match is None or match.group(1) == "crate":
            return None
        name, wanted, target, rest = match.groups()
        crate = self.crate(name)
        if crate is None:
            return None
        root = self.target(crate)
        if crate != name or wanted is None or target is None:
            tail = f"{target}{rest or '/'}" if target else f"{root}/"
            return self.redirect(authority, f"/{crate}/{wanted or 'latest'}/{tail}")
        version = self.resolve_version(crate, wanted)
        if target != root or version is None or rest is None:
            return None
        name_below = rest[1:].removesuffix("index.html") if rest.endswith("/index.html") else rest[1:]
        if version == "*" or (version != wanted and version != "latest"):
            return self.redirect(authority, f"/{crate}/{'latest' if version == '*' else version}/{root}{rest}")
        if version == "latest" or version == self.versions[crate][0]:
            file = self.files[crate].get(name_below)
            if file is None or version == "latest":
                return file
            return self.noted(file, f"{crate} {version}")
        if crate == self.long:
            return self.old_files.get(name_below)
        return None

    def head_links(self, page: Page) -> str:
        for name, file in self.old_files.items():  # (every version's docs: the latest's URL as canonical)
            if file is page:
                return _link("canonical", f"http://{self.host}/{self.long}/latest/{self.target(self.long)}/{name}")
        return self.canonical(page) if page is not self.home else ""

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for crate, listing in self.crates.items():
            latest = self.versions[crate][0]
            alias = crate.replace("_", "-") if "_" in crate else crate.replace("-", "_")
            root = f"{base}/{crate}/latest/{self.target(crate)}/"
            if listing is page:
                forms = [f"{base}/crate/{crate}", f"{base}/crate/{crate}/{latest}", f"{base}/crate/{crate}/"]
                return forms + ([f"{base}/crate/{alias}/latest"] if alias != crate else [])
            for name, file in self.files[crate].items():
                if file is not page:
                    continue
                pinned = f"{base}/{crate}/{latest}/{self.target(crate)}/{name}"
                forms = [f"{page.url}?search={random.Random(page.doc_id).choice(('Error', 'from', 'map'))}", pinned]
                if alias != crate:
                    forms.append(f"{base}/{alias}/latest/{self.target(crate)}/{name}")
                if name:
                    return [*forms, f"{base}/{crate}/*/{self.target(crate)}/{name}"]
                forms += [f"{root}index.html", f"{base}/{crate}", f"{base}/{crate}/latest", f"{base}/{crate}/"]
                return [*forms, f"{base}/{crate}/^{latest.split('.')[0]}/{self.target(crate)}/"]
        return []


class ArxivSite(RegistrySite):
    """arXiv's abstract pages: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache", "Google Frontend"))
        self.redirect_status = 301  # (check_supplied_identifier)
        self.home = self.add("/")
        categories = rng.sample(_CATEGORIES, 2)
        self.listings = {category: self.add(f"/list/{category}/recent") for category in categories}
        count = max(3, min(6, budget - 8))
        self.papers: dict[str, tuple[str, int, Page]] = {}  # id -> (primary category, versions, page)
        for number in rng.sample(range(1, 25000), count + 2):
            paper = f"{rng.randint(21, 24)}{rng.randint(1, 12):02d}.{number:05d}"
            self.papers[paper] = (rng.choice(categories), rng.randint(1, 3), self.add(f"/abs/{paper}"))
        self.old: dict[str, tuple[str, str]] = {}  # old-style id -> (archive, subject class)
        for archive, subject in rng.sample(_OLD_ARCHIVES, rng.randint(1, 2)):
            paper = f"{archive}/{rng.randint(92, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 999):03d}"
            self.old[paper] = (archive, subject)
            self.papers[paper] = (archive, 1, self.add(f"/abs/{paper}"))
        ids = list(self.papers)
        self.long, self.companion, self.later = ids[0], ids[count], ids[count + 1]
        later = self.later
        category, versions, latest = self.papers[self.long]
        self.papers[self.long] = (category, max(2, versions), latest)
        first_listed = categories[0]
        self.papers[later] = (first_listed, 1, self.papers[later][2])
        for paper, (category, _, page) in self.papers.items():
            self.texts[page.doc_id] = f"[{paper}] Abstract. Subjects: {category}."
            if paper not in self.old and paper not in (self.companion, later):
                self.listings[category].links.append(page.path)
        for category, listing in self.listings.items():
            self.texts[listing.doc_id] = f"{category}: recent submissions. Total of 31 entries: 1-25."
        self.paged = self.exception(self.add(f"/list/{first_listed}/recent", "skip=25&show=25"))
        self.texts[self.paged.doc_id] = f"{first_listed}: recent submissions. Total of 31 entries: 26-31."
        self.behind(self.paged, self.papers[later][2])
        self.first = self.exception(self.add(f"/abs/{self.long}v1"))
        self.texts[self.first.doc_id] = f"[{self.long}v1] Abstract. Comments: see the companion arXiv:{self.companion}."
        self.behind(self.first, self.papers[self.companion][2])
        self.traps.append(
            f"?context=<primary>, vN (latest), arXiv:, legacy old ids, ?skip=0&show=25; but /abs/{self.long}v1 "
            f"and /list/{first_listed}/recent?skip=25&show=25"
        )

    @staticmethod
    def contexts() -> set[str]:
        """The browse contexts the site knows: categories, archives, ``arxiv``."""
        archives = {category.split(".")[0] for category in _CATEGORIES} | {archive for archive, _ in _OLD_ARCHIVES}
        return {"arxiv", *_CATEGORIES, *archives}

    def abstract(self, paper: str, version: int | None, params: Mapping[str, str]) -> Page | Reply | None:
        if paper not in self.papers:
            return None
        category, versions, page = self.papers[paper]
        if version is not None and version != versions:
            return self.first if (paper, version) == (self.long, 1) else None  # (other old versions: not modelled)
        context = params.get("context", category)  # (_check_context: one it does not know is the default)
        notes = [f"[{paper}v{version}]"] if version else []  # (the requested id, in the title)
        if context in self.contexts() and context != category:
            notes.append(f"Current browse context: {context}")
        return self.noted(page, " ".join(notes)) if notes else page

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path == "/":
            return self.home
        match = re.fullmatch(r"/list/([\w.-]+)/(recent|pastweek)", path)
        if match:  # (get_listing: a skip or show it cannot read is the default, show at most 2000)
            listing = self.listings.get(match.group(1))
            skip, show = params.get("skip", ""), params.get("show", "")
            shown = (min(int(show), 2000) if show.isdigit() else 25, int(skip) if skip.isdigit() else 0)
            if listing is None or shown != (25, 0):
                return self.paged if listing is not None and self.paged.path == path and shown == (25, 25) else None
            return listing if match.group(2) == "recent" else self.noted(listing, "Listing: pastweek")
        if not path.startswith("/abs/"):
            return None
        supplied = path[len("/abs/") :]
        if "/" not in supplied and params:  # (_check_legacy_id_params: /abs/hep-th?papernum=9901001)
            singletons = (name for name, value in params.items() if not value and re.fullmatch(r"\d{7}", name))
            number = params.get("papernum") or next(singletons, "")
            if number:
                supplied = f"{supplied}/{number}"
        match = re.fullmatch(
            r"(?:[Aa]r[Xx]iv:)?(?:(\d{4}\.\d{5})|([a-z-]+)(?:\.([A-Z]{2}))?/(\d{7}))(?:v(\d+))?", supplied
        )
        if match is None:
            return None
        new, archive, _, number, version = match.groups()
        canonical = (new or f"{archive}/{number}") + (f"v{version}" if version else "")
        if supplied != canonical:  # (check_supplied_identifier)
            return self.redirect(authority, f"/abs/{canonical}")
        return self.abstract(new or f"{archive}/{number}", int(version) if version else None, params)

    def head_links(self, page: Page) -> str:
        return self.canonical(page) if page.path.startswith("/abs/") else ""

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if any(page is listing for listing in self.listings.values()):
            forms = [f"{page.url}?skip=0&show=25", f"{page.url}?skip=0", f"{page.url}?show=25", f"{page.url}?skip="]
            return [*forms, f"{page.url.removesuffix('/recent')}/pastweek"]
        for paper, (category, versions, abstract) in self.papers.items():
            if abstract is not page or page.doc_id in self.hidden:
                continue
            forms = [f"{page.url}?context={category}", f"{page.url}?context=", f"{page.url}?context=physics.none"]
            forms.append(f"{base}/abs/arXiv:{paper}")
            if paper in self.old:
                archive, subject = self.old[paper]
                number = paper.split("/")[1]
                forms += [f"{base}/abs/{archive}?papernum={number}", f"{base}/abs/{archive}?{number}"]
                return forms + ([f"{base}/abs/{archive}.{subject}/{number}"] if subject else [])
            other = next(listing for listing in self.listings if listing != category)
            return [
                *forms,
                f"{page.url}v{versions}",
                f"{base}/abs/arXiv:{paper}v{versions}",
                f"{page.url}?context={other}",
            ]
        return []


class DSpaceSite(RegistrySite):
    """DSpace 6 with the XMLUI: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache-Coyote/1.1"
        self.prefix = rng.choice(_HANDLE_PREFIXES)
        self.home = self.add("/")
        self.listing = self.add("/community-list")
        numbers = rng.sample(range(2, 9999), max(3, min(6, budget - 8)) + 3)
        community, collection, *items, other = numbers
        self.handles: dict[int, Page] = {}
        for number in (community, collection, *items):
            self.handles[number] = self.add(f"/handle/{self.prefix}/{number}")
        self.handles[collection].links += [f"/handle/{self.prefix}/{number}" for number in items]
        #: (item, file name) -> (sequence, the bitstream's page): HTML bitstreams.
        self.bitstreams: dict[tuple[int, str], tuple[int, Page]] = {}
        shown = items[1]
        readme = self.add(f"/bitstream/handle/{self.prefix}/{shown}/readme.html", "sequence=1&isAllowed=y")
        self.bitstreams[(shown, "readme.html")] = (1, readme)
        self.long = items[0]
        self.full = self.exception(self.add(f"/handle/{self.prefix}/{self.long}", "show=full"))
        self.texts[self.full.doc_id] = f"Full item record. dc.relation.isversionof: {self.prefix}/{other}"
        self.handles[other] = self.behind(self.full, self.add(f"/handle/{self.prefix}/{other}"))
        folder = f"/bitstream/handle/{self.prefix}/{self.long}"
        report = self.exception(self.add(f"{folder}/report.html", "sequence=1&isAllowed=y"))
        self.texts[report.doc_id] = "Technical report (HTML). Figures and tables: see the appendix."
        appendix = self.behind(report, self.add(f"{folder}/appendix.html"), "appendix.html")
        self.bitstreams[(self.long, "report.html")] = (1, report)
        self.bitstreams[(self.long, "appendix.html")] = (2, appendix)
        self.traps.append(
            f"?locale-attribute=en, isAllowed=y ignored, ?sequence= finds a bitstream by any name; "
            f"but /handle/{self.prefix}/{self.long}?show=full and {folder}/report.html's appendix.html"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/community-list"):
            return self.home if path == "/" else self.listing
        match = re.fullmatch(rf"/handle/{re.escape(self.prefix)}/(\d+)", path)
        if match:
            if params.get("locale-attribute", "en") != "en":
                return None  # (another language of the interface: not modelled)
            number = int(match.group(1))
            if params.get("show") == "full":  # (ItemViewer: "full".equals(show))
                return self.full if number == self.long else None  # (other full records: not modelled)
            return self.handles.get(number)
        match = re.fullmatch(rf"/bitstream/handle/{re.escape(self.prefix)}/(\d+)/([^/]+)", path)
        if match is None:
            return None
        item, name = int(match.group(1)), match.group(2)
        files = {known: found for (number, known), found in self.bitstreams.items() if number == item}
        sequence = params.get("sequence", "")
        by_sequence = next((page for number, page in files.values() if str(number) == sequence), None)
        if by_sequence is not None:  # (BitstreamReader: the sequence first, the name only without one)
            return by_sequence
        return files[name][1] if name in files else None

    def spellings(self, page: Page) -> list[str]:
        if any(page is handle for handle in self.handles.values()):
            return [f"{page.url}?locale-attribute=en"]
        for (item, name), (sequence, bitstream) in self.bitstreams.items():
            if bitstream is page and page.doc_id not in self.late and page.doc_id not in self.hidden:
                folder = f"http://{self.host}/bitstream/handle/{self.prefix}/{item}"
                forms = [f"{folder}/{name}?sequence={sequence}", f"{folder}/{name}"]
                return [*forms, f"{folder}/{name.upper()}?sequence={sequence}&isAllowed=y"]
        return []


class ZenodoSite(RegistrySite):
    """Zenodo on InvenioRDM: see the module's docstring."""

    DOI = "10.5281/zenodo."

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 302
        self.home = self.add("/")
        self.slug = rng.choice(_COMMUNITIES)
        self.community = self.add(f"/communities/{self.slug}")
        ids = sorted(rng.sample(range(10**6, 9 * 10**6), max(2, min(6, budget - 7)) + 4))
        concept, first, latest, related, *plain = ids  # (a concept's id is minted before its versions')
        self.records: dict[int, Page] = {number: self.add(f"/records/{number}") for number in (latest, *plain)}
        self.community.links += [f"/records/{number}" for number in plain]
        self.concepts = {concept: latest}
        self.newer = {first: latest}  # an older version -> the latest
        self.latest_version = latest
        self.texts[self.records[latest].doc_id] = f"Version 2. Cite all versions: {self.DOI}{concept}."
        self.older = self.exception(self.add(f"/records/{first}"))
        self.texts[self.older.doc_id] = "Version 1. There is a newer version of the record available."
        self.records[first] = self.older
        self.records[related] = self.behind(self.older, self.add(f"/records/{related}"))
        self.traps.append(f"/record/ (301), /doi/, /latest and the concept id (302); but /records/{first}")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in ("/", f"/communities/{self.slug}"):
            return self.home if path == "/" else self.community
        match = re.fullmatch(r"/record/(\d+)(/.*)?", path)
        if match:  # (Zenodo's legacy routes)
            return self.redirect(authority, f"/records/{match.group(1)}{match.group(2) or ''}" + _tail(query), 301)
        match = re.fullmatch(rf"/doi/{re.escape(self.DOI)}(\d+)", path)
        if match:
            return self.redirect(authority, f"/records/{match.group(1)}")
        match = re.fullmatch(r"/records/(\d+)(/latest)?", path)
        if match is None:
            return None
        number = int(match.group(1))
        if number in self.concepts:  # (a concept record resolves to its latest version)
            return self.redirect(authority, f"/records/{self.concepts[number]}")
        if number not in self.records or self.params(query).get("preview") == "1":
            return None  # (a draft's preview: not for an anonymous visitor)
        if match.group(2):
            return self.redirect(authority, f"/records/{self.newer.get(number, number)}")
        return self.records[number]

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        for number, record in self.records.items():
            if record is not page or page.doc_id in self.late or page.doc_id in self.hidden:
                continue
            forms = [f"{base}/record/{number}", f"{page.url}/latest", f"{base}/doi/{self.DOI}{number}"]
            if number == self.latest_version:
                concept = next(iter(self.concepts))
                forms += [f"{base}/records/{concept}", f"{base}/doi/{self.DOI}{concept}"]
                forms += [f"{base}/records/{older}/latest" for older in self.newer]
            return forms
        return []


class DebianSite(RegistrySite):
    """packages.debian.org: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Apache"
        self.redirect_status = 301
        self.codename, self.testing = rng.choice(_RELEASES)
        code = self.codename
        self.home = self.add("/")
        self.suite = self.add(f"/{code}/")
        names = rng.sample(_DEBIAN, max(3, min(6, budget - 9)) + 1)
        names, newer = names[:-1], names[-1]
        self.packages = {name: self.add(f"/{code}/{name}") for name in names}
        self.clash = rng.choice(sorted(_DEB_CLASHES))
        self.sections: dict[str, Page] = {self.clash: self.add(f"/{code}/{self.clash}/")}
        for index, name in enumerate(names):
            section = self.clash if index == len(names) - 1 else rng.choice(_DEB_SECTIONS)
            if section not in self.sections:
                self.sections[section] = self.add(f"/{code}/{section}/")
            self.sections[section].links.append(f"../{name}")  # (relative, as the listings write them)
        for name in names[1:3]:
            self.add(f"/{code}/amd64/{name}/filelist")
        self.add(f"/source/{code}/{names[1]}")
        self.search = self.add("/search", f"keywords={names[2]}&searchon=names&suite=all&section=all")
        self.sid = self.exception(self.add(f"/sid/{names[0]}"))
        self.texts[self.sid.doc_id] = f"Package: {names[0]} (sid). Depends: {newer}."
        self.behind(self.sid, self.add(f"/sid/{newer}"), newer)
        self.package = self.exception(self.add(f"/{code}/{self.clash}"))  # (the package, beside its section)
        depends = _DEB_CLASHES[self.clash][code]
        self.texts[self.package.doc_id] = f"Package: {self.clash} ({code}). Depends: {depends}."
        self.behind(self.package, self.add(f"/{code}/{depends}"), depends)
        self.by_path = {page.path: page for page in self.pages}
        self.traps.append(
            f"/stable/ = /{code}/ byte for byte, /{code}/<section> -> /; but /sid/{names[0]} and "
            f"/{code}/{self.clash} (the package, not the section /{code}/{self.clash}/)"
        )

    def aliases(self) -> dict[str, str]:
        """Suite aliases -> codenames, as the site's rewrite rules read them."""
        code = self.codename
        return {"stable": code, "testing": self.testing, "unstable": "sid", "stable-backports": f"{code}-backports"}

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path == "/search":
            params = self.params(query)
            wanted = (params.get("searchon", "names"), params.get("section", "all"), params.get("suite"))
            ours = self.params(self.search.query)
            same = params.get("keywords") == ours["keywords"] and wanted == ("names", "all", ours["suite"])
            return self.search if same else None
        parts = path.split("/")
        index = 2 if len(parts) > 2 and parts[1] == "source" else 1
        if len(parts) > index:
            parts[index] = self.aliases().get(parts[index], parts[index])
        found = self.by_path.get("/".join(parts))
        if found is None and "/".join(parts) + "/" in self.by_path:  # (mod_dir: a directory's slash added)
            return self.redirect(authority, f"{raw_path}/" + _tail(query))
        return found

    def spellings(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        code = self.codename
        if page is self.search:
            return [f"{base}/search?keywords={self.params(page.query)['keywords']}&suite=all"]
        if page.doc_id in self.late or page.doc_id in self.hidden:
            return []
        if page is self.suite:
            return [f"{base}/stable/", f"{base}/stable", f"{base}/{code}"]
        if any(page is section for section in self.sections.values()) and page.path != f"/{code}/{self.clash}/":
            return [
                f"{base}/stable{page.path[len(code) + 1 :]}",
                page.url[:-1],
                f"{base}/stable{page.path[len(code) + 1 : -1]}",
            ]
        if page.path.startswith(f"/{code}/"):
            return [f"{base}/stable/{page.path[len(code) + 2 :]}"]
        if page.path.startswith(f"/source/{code}/"):
            return [f"{base}/source/stable/{page.path.rsplit('/', 1)[1]}"]
        return []


class PgDocsSite(RegistrySite):
    """PostgreSQL's documentation: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "nginx"
        self.redirect_status = 301
        self.current = rng.choice((15, 16, 17))
        self.older = self.current - rng.randint(2, 5)
        self.home = self.add("/docs/")
        self.toc = self.add("/docs/current/")
        names = rng.sample(_PG_PAGES, max(3, min(8, budget - 6)))
        self.chapters = {f"{name}.html": self.add(f"/docs/current/{name}.html") for name in names}
        self.toc.links += list(self.chapters)  # (relative)
        first = f"{names[0]}.html"
        self.old_page = self.exception(self.add(f"/docs/{self.older}/{first}"))
        removed = rng.choice([f"{name}.html" for name, last in _PG_REMOVED if self.older <= last < self.current])
        self.texts[self.old_page.doc_id] = f"PostgreSQL {self.older}: {names[0]}. See also {removed}."
        self.old_pages = {first: self.old_page, removed: self.add(f"/docs/{self.older}/{removed}")}
        self.behind(self.old_page, self.old_pages[removed], removed)
        self.traps.append(
            f"/docs/current/ = /docs/{self.current}/, /static/ and /interactive/ 301; but /docs/{self.older}/"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in ("/docs", "/docs/"):
            return self.home if path == "/docs/" else self.redirect(authority, "/docs/")
        match = re.fullmatch(r"/docs/(current|devel|\d+)(?:/(static|interactive))?(/.*)?", path)
        if match is None:
            return None
        version, legacy, rest = match.groups()
        if rest is None or legacy:
            return self.redirect(authority, f"/docs/{version}{rest or '/'}" + _tail(query))
        name = rest[1:]
        if version in ("current", str(self.current)):
            return self.toc if name in ("", "index.html") else self.chapters.get(name)
        return self.old_pages.get(name) if version == str(self.older) else None

    def head_links(self, page: Page) -> str:
        if page is self.old_page:  # (an older version's page names the current one)
            return _link("canonical", f"http://{self.host}/docs/current/{page.path.rsplit('/', 1)[1]}")
        return self.canonical(page)

    def spellings(self, page: Page) -> list[str]:
        base, current = f"http://{self.host}", self.current
        if page is self.home:
            return [f"{base}/docs"]
        if page is self.toc:
            forms = [f"{page.url}index.html", f"{base}/docs/{current}/", f"{base}/docs/{current}/index.html"]
            return [*forms, f"{base}/docs/current", f"{base}/docs/{current}", f"{base}/docs/current/static/"]
        for name, chapter in self.chapters.items():
            if chapter is page:
                forms = [f"{base}/docs/{current}/{name}", f"{base}/docs/{current}/static/{name}"]
                return [*forms, f"{base}/docs/current/static/{name}", f"{base}/docs/current/interactive/{name}"]
        return []


_CLASSES: dict[str, type[RegistrySite]] = {
    "pypi": PyPISite,
    "npm": NpmSite,
    "docsrs": DocsRsSite,
    "arxiv": ArxivSite,
    "dspace": DSpaceSite,
    "zenodo": ZenodoSite,
    "debian": DebianSite,
    "pgdocs": PgDocsSite,
}


# -- the web ------------------------------------------------------------------------------------


class RegistryWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of registry kinds (the same checks)."""


def generate_registry_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> RegistryWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "registry", seed, KINDS, _CLASSES, RegistryWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class RegistryComparison(FamilyComparison):
    """A comparison on a registry web: requests, pages and documents per kind of host."""


async def compare_registry(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> RegistryComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_registry_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_registry_web, RegistryComparison, seed, workdir, addon_settings, order)
