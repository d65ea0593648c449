"""A thirteenth generator of seeded webs: how servers and applications read escapes, character sets
and non-ASCII in URLs.

Written by an outside checker from what wikis, IIS, old Apache servers, IDN hosts, Linux file
systems and CGI applications do with the bytes of a URL: spellings that answer one page (byte for
byte, or by a redirect to it) and, on the same host, the one or two places they do not. Each host is
one *kind*; each exception is linked late (after the host's coincidences have been linked many
times over) and is the only way to the document behind it.

Scrapy's own spelling decides what a link is: w3lib's ``safe_url_string`` encodes a non-ASCII path
as UTF-8 whatever the page's charset, and a non-ASCII query in the page's encoding, and maps a host
name through Python's IDNA 2003 codec (``straße`` is ``strasse``). Pages served in another charset
than UTF-8 here carry no raw non-ASCII byte (character references where a character is written), and
never a non-ASCII character in a query (escapes are written out, as an ``URLEncode`` in the page's
code page writes them).

- ``mediawiki`` (MediaWiki with short URLs, UTF-8 titles): ``/wiki/Café`` is linked raw, with
  upper- and lower-case escapes (one URL for stock); ``/wiki/A%20B`` and ``?title=A+B`` 301 to
  ``/wiki/A_B`` (spaces are underscores), a lower-case first letter (``/wiki/éclair``) 301s to the
  capital one, a title in NFD (``Cafe%CC%81``) 301s to its NFC form, ``/w/index.php?title=<title>``
  is the article (``200``), ``/`` and ``/w/index.php`` 301 to ``/wiki/Main_Page``. Exception: case
  past the first letter is part of a title: ``/wiki/Café_Society`` (a film) is another article than
  ``/wiki/Café_society``, and links a page linked nowhere else.
- ``iis`` (classic ASP on IIS, pages in ``windows-1252``): paths are case-insensitive, non-ASCII
  letters too (NTFS's upcase table: ``/Produits/CAF%C3%89.ASP`` is ``/produits/caf%C3%A9.asp``); a
  path that is no UTF-8 is read in the system code page (HTTP.sys's ``EnableNonUTF8``), so
  ``/Produits/Caf%E9.asp`` is the same file; ``%5C`` is a slash; ``/`` is ``/default.asp``, a
  directory without its slash 301s to it. Exceptions: the search page reads its query in the
  page's code page (``Request.QueryString`` under ``CODEPAGE=1252``): ``?q=caf%E9`` are results
  (a product linked nowhere else among them) where ``?q=caf%C3%A9`` is "cafÃ©", no results (a page
  with no document, linked early); and ``/app/``, a virtual directory proxied (ARR) to a
  case-sensitive UTF-8 backend, where ``/app/%C3%A9t%C3%A9`` (été) is another report than
  ``/app/%C3%89t%C3%A9`` (Été).
- ``latin1`` (Apache 2.2 on Linux serving files named in ISO-8859-1, pages in ``iso-8859-1``):
  ``/recettes/caf%E9.html`` is the file (``%e9`` alike, Apache decodes); ``/d`` 301s to ``/d/``,
  ``/d/index.html`` is ``/d/``; ``mod_speling`` with ``CheckCaseOnly`` 301s a wrong ASCII case of a
  name to the file (``CAF%E9.HTML``), compared byte-wise (``%C9``, É, is not ``%E9``: not linked);
  ``%7E`` is ``~`` (a user directory). Exceptions: ``caf%C3%A9.html``, a file beside ``caf%E9.html``
  whose name is the same word in UTF-8 (uploaded later, from another machine: another file), linking
  a page linked nowhere else; and ``Salade.html`` beside ``salade.html`` (two files: ``mod_speling``
  redirects a case it cannot find, an exact name is served).
- ``idn`` (a shop with an internationalized name, ``bücher<n>.test``): every request names the host
  in punycode (``xn--bcher<n>-…``), as Scrapy sends it, so the host spelled in Unicode, upper-case,
  in punycode or with a trailing dot is one host for stock; the shop also answers at its ASCII
  transliteration ``buecher<n>.test`` (the same pages, ``200``), paths with umlauts linked raw and
  escaped. Exception: ``xn--strae<n>-…`` (``straße<n>.test`` as IDNA 2008 and browsers spell it) is
  another registrant's host, linked in punycode once, with a page behind it; ``straße<n>.test``
  written in Unicode is ``strasse<n>.test`` to Scrapy (IDNA 2003), which no server answers (linked
  once, early: a ``404``).
- ``unicode_fs`` (nginx on Linux, ext4, byte-exact file names, ``merge_slashes on``): most files
  exist in one normalization form and are linked in it (some in NFD, uploaded from a Mac); doubled
  slashes are merged, ``%2F`` is decoded for static files (``/docs%2Fx.html`` is ``/docs/x.html``),
  ``/docs`` 301s to ``/docs/``, ``index.html`` is its directory; under ``/share/`` a ZFS dataset
  with ``normalization=formD`` finds a name in NFC or NFD alike (``200``). Exception: at the root,
  ``/docs/r%C3%A9sum%C3%A9.html`` (NFC) and ``/docs/re%CC%81sume%CC%81.html`` (NFD) are two files,
  the second linking a page linked nowhere else.
- ``query`` (a Perl CGI.pm search and listing application, ``-utf8``): ``;`` separates parameters
  as ``&`` does (``?cat=books;sort=title``), empty parameters are their defaults (``?sort=`` is
  ``?sort=title``, ``?q=go&lang=``), the first of a repeated name wins (never linked: stock sorts
  them), terms are trimmed, case-folded and their spaces collapsed (``?q=+Go+`` is ``?q=go``), so
  ``?q=c++`` (``+`` is a space) is ``?q=c``; ``?id=05`` is ``?id=5`` (Perl numbers). Exceptions:
  ``?q=c%2B%2B`` (C++) and ``?q=c%23`` (C#) are result pages of their own where ``?q=c++`` and
  ``?q=c#x`` are ``?q=c``, each linking an item linked nowhere else.

Dropped from the brief: a repeated parameter whose order matters (``?sort=price&sort=name``
against the reverse): stock's ``canonicalize_url`` sorts parameters by name and value, so it
fetches one of the two only; a second document there would be lost by stock itself.

Where unsure of the real software, a plausible behaviour is modelled and said so here: that IIS
applies NTFS's case folding to non-ASCII letters of a URL and falls back to the system code page
for the whole path when it is no UTF-8 (the default ``EnableNonUTF8``), and reads ``%5C`` as a
slash; that the ASP search echoes nothing of the term (results byte for byte) and compares terms
case-insensitively (a ``CI`` collation); that ``mod_speling`` corrects the last segment only and
answers ``300`` for two candidates; that MediaWiki's NFC redirect is a 301 like its other title
normalizations; that nginx decodes ``%2F`` before it maps a path to a file and merges the slashes
it makes; that the IDN shop serves its transliterated domain rather than redirecting; that the
CGI application case-folds and trims terms.

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: ``Location`` style, validators, ``HEAD``, gzip,
rotating ads, a visitor counter; every kind redirects with a ``301``, as its software does),
sometimes a ``www.`` twin that serves the same pages, and links are spelled with an upper-case host,
a trailing-dot host, ``:80``, tracking parameters and fragments where the server ignores them (each
checked).

Every document is collected by stock Scrapy by construction, which :meth:`EncodingWeb.check` proves
over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached from a start
URL through URLs that answer ``200``, and no two spellings stock takes as one (w3lib's
``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote_plus, unquote_to_bytes

from .commerceweb import _int, _link, _tail
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import NETLOC_HEADER, Reply
from .slugweb import SlugSite
from .wildweb import Pen, decode_path, encode_path, render

KINDS = ("mediawiki", "iis", "latin1", "idn", "unicode_fs", "query")
_HTML = {"Content-Type": "text/html; charset=utf-8"}
_WIKI_TITLES = (
    "Café",
    "Crème_brûlée",
    "Zürich",
    "Łódź",
    "Éclair",
    "Ångström",
    "São_Paulo",
    "Málaga",
    "Ñandú",
    "Øresund",
    "Île-de-France",
    "Ürümqi",
)
#: (an article, another whose title differs from it past the first letter only)
_WIKI_PAIRS = (
    ("Café_society", "Café_Society"),
    ("Zürich_affair", "Zürich_Affair"),
    ("Éclair_records", "Éclair_Records"),
)
_WIKI_HIDDEN = ("Madeleine_Carroll", "Jörg_Schneider", "Étienne_Marcel", "Dvořák_Hall")
_PRODUCTS = ("Café", "Thé_Vert", "Crème", "Pâtisserie", "Épicerie", "Chocolat", "Brioche", "Côtelette", "Soufflé")
_TERMS = ("café", "thé", "crème", "pâté")
_RECIPES = ("café", "crème", "gâteau", "menü", "thé", "pâtes", "fromage", "soupe", "crêpe", "purée")
_BOOKS = ("Die_Blechtrommel", "Effi_Briest", "Schöne_neue_Welt", "Die_Räuber", "Der_Prozess", "Märchen", "Faust")
_AUTHORS = ("müller", "böll", "grass", "kästner", "dürrenmatt", "fontane")
_FILES = ("café", "naïve", "noël", "été", "garçon", "déjà-vu", "façade", "über", "niño")
_SHARE = ("Präsentation", "Rückblick", "Übersicht", "Straßenfest", "Grüße", "Ärger")
_CGI_TERMS = ("python", "perl", "rust", "go", "unicode text", "café", "regular expressions")
_CATEGORIES = ("books", "music", "films", "games")


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _ucfirst(title: str) -> str:
    """MediaWiki's capital first letter (one letter only)."""
    first = title[:1].upper()
    return (first if len(first) == 1 else title[:1]) + title[1:]


def _lower_escapes(url: str) -> str:
    """``url`` with its percent-escapes in lower case."""
    return re.sub(r"%[0-9A-F]{2}", lambda match: match.group(0).lower(), url)


def _latin1(path: str) -> str:
    """A path whose file name is stored in ISO-8859-1 bytes, as :func:`decode_path` reads it."""
    return path.encode("latin-1").decode("utf-8", "surrogateescape")


def _ascii_lower(text: str) -> str:
    """``text`` with A-Z lowered only (a byte-wise, C-locale comparison)."""
    return re.sub("[A-Z]", lambda match: match.group(0).lower(), text)


def _cp1252(text: str) -> str:
    """``text`` escaped in Windows-1252, as an ``URLEncode`` under ``CODEPAGE=1252`` writes it."""
    return quote(text.encode("cp1252"), safe="/")


def _punycode(name: str) -> str:
    """A host name in IDNA 2008's punycode (non-transitional: ``ß`` kept), label by label."""
    return ".".join(
        "xn--" + label.encode("punycode").decode() if not label.isascii() else label for label in name.split(".")
    )


class EncodingSite(SlugSite):
    """A host of one kind: its :meth:`forms` are the other URLs that answer a page."""

    #: The pages' character set (others than UTF-8 carry no raw non-ASCII byte).
    charset = "utf-8"

    def render(self, page: Page) -> Reply:
        return self.charset_of(super().render(page))

    def charset_of(self, reply: Reply) -> Reply:
        """``reply`` in the host's charset: characters outside ASCII as character references."""
        if self.charset == "utf-8" or reply.status != 200:
            return reply
        text = reply.body.decode("utf-8").replace('<meta charset="utf-8">', f'<meta charset="{self.charset}">', 1)
        headers = {**reply.headers, "Content-Type": f"text/html; charset={self.charset}"}
        return Reply(200, text.encode("ascii", "xmlcharrefreplace"), headers)

    def nothing(self, title: str, text: str) -> Reply:
        """A page that is no document (a search without results, a form)."""
        return self.charset_of(Reply(200, render(None, ["/"], title=title, text=text), dict(_HTML)))

    def head_links(self, page: Page) -> str:
        return ""


# -- kinds ------------------------------------------------------------------------------------


class MediaWikiSite(EncodingSite):
    """MediaWiki with short URLs and non-ASCII titles: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.62 (Debian)", "nginx/1.24.0"))
        self.redirect_status = 301
        titles = ["Main_Page", *rng.sample(_WIKI_TITLES, max(3, min(9, budget - 4)))]
        self.articles: dict[str, Page] = {title: self.add(f"/wiki/{title}") for title in titles}
        self.home = self.articles["Main_Page"]
        plain, other = rng.choice(_WIKI_PAIRS)
        self.articles[plain] = self.add(f"/wiki/{plain}")
        self.home.links.append(self.articles[plain].path)
        self.other = self.exception(self.add(f"/wiki/{other}"))
        self.articles[other] = self.other
        self.texts[self.other.doc_id] = f"{other.replace('_', ' ')} is a film; for the social set, see {plain}."
        hidden = rng.choice(_WIKI_HIDDEN)
        self.articles[hidden] = self.behind(self.other, self.add(f"/wiki/{hidden}"))
        self.traps.append(
            f"%20 and ?title=A+B -> /wiki/A_B, first letter, NFD -> NFC (301), ?title= (200); "
            f"but /wiki/{other} vs /wiki/{plain}"
        )

    def head_links(self, page: Page) -> str:
        return _link("canonical", page.url)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.params(query)
        if path in ("/", "/w/index.php"):
            if not params.get("title"):
                return self.redirect(authority, "/wiki/Main_Page")
            title = params["title"]
        elif path.startswith("/wiki/"):
            title = path[len("/wiki/") :]
        else:
            return None
        if any("\udc80" <= char <= "\udcff" for char in title):
            return None  # (no UTF-8: a bad title)
        normal = _ucfirst(_nfc(title.replace(" ", "_")))
        page = self.articles.get(normal)
        if page is None:
            return None  # (MediaWiki's 404 for an article that does not exist)
        if title != normal:
            return self.redirect(authority, encode_path(f"/wiki/{normal}"))
        return page

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        title = next(name for name, found in self.articles.items() if found is page)
        if page is self.home:
            return [f"{base}/", f"{base}/w/index.php", f"{base}/wiki/Main%20Page", f"{base}/wiki/main_Page"]
        forms = [f"{base}/w/index.php?title={quote(title)}"]
        if not title.isascii():
            forms += [f"{base}/wiki/{title}", _lower_escapes(page.url)]
        if "_" in title:
            forms += [
                f"{base}/wiki/{quote(title.replace('_', ' '))}",
                f"{base}/w/index.php?title={quote(title, safe='_').replace('_', '+')}",
            ]
        lowered = title[:1].lower() + title[1:]
        if lowered != title:
            forms.append(f"{base}{encode_path('/wiki/' + lowered)}")
        if _nfd(title) != title:
            forms.append(f"{base}{encode_path('/wiki/' + _nfd(title))}")
        return forms


class IisSite(EncodingSite):
    """Classic ASP on IIS, Windows-1252: see the module's docstring."""

    charset = "windows-1252"

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Microsoft-IIS/8.5", "Microsoft-IIS/10.0"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.files: dict[str, Page] = {"/": self.home}  # lower-cased decoded path -> page
        self.dirs: list[Page] = []
        names = iter(rng.sample(_PRODUCTS, len(_PRODUCTS)))
        count = max(3, min(8, budget - 7))
        for folder in rng.sample(("Produits", "Boutique", "Épicerie_Fine"), 2):
            self.dirs.append(self.file(f"/{folder}/"))
        self.products: list[Page] = []
        for index in range(count):
            folder = self.dirs[index % 2]
            self.products.append(self.file(f"{decode_path(folder.path)}{next(names)}.asp"))
            folder.links.append(self.products[-1].path)
        self.app_index = self.add("/app/")
        self.app: dict[str, Page] = {"/": self.app_index}  # backend path (exact) -> page
        self.app["/Été"] = self.add("/app/Été")
        self.app_index.links.append(self.app["/Été"].path)
        self.lower = self.exception(self.add("/app/été"))
        self.app["/été"] = self.lower
        self.texts[self.lower.doc_id] = "Rapport été (draft, lower-case name on the backend)."
        self.app["/été/annexe"] = self.behind(self.lower, self.add("/app/été/annexe"))
        self.term = rng.choice(_TERMS)
        self.results = self.exception(self.add("/recherche.asp", f"q={_cp1252(self.term)}"))
        self.texts[self.results.doc_id] = f"Results for {self.term}: 3 products."
        self.results.links += [page.path for page in rng.sample(self.products, 2)]
        hidden = next(names)
        self.files[f"/produits/{hidden}.asp".lower()] = self.behind(self.results, self.add(f"/Produits/{hidden}.asp"))
        self.traps.append(
            f"case-insensitive paths (É = é), %E9 = %C3%A9 in paths, %5C, default.asp; "
            f"but /recherche.asp?q={_cp1252(self.term)} (code page) and /app/été vs /app/Été"
        )

    def file(self, path: str) -> Page:
        page = self.add(path)
        self.files[path.lower()] = page
        return page

    def decoded(self, raw_path: str) -> str:
        """The path as HTTP.sys reads it: UTF-8, else the system code page; ``\\`` a slash."""
        data = unquote_to_bytes(raw_path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", "replace")
        return text.replace("\\", "/")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        text = self.decoded(raw_path)
        if text.lower().startswith("/app/"):  # (the backend: exact, UTF-8 only)
            rest = decode_path(raw_path)[len("/app") :]
            return None if "\\" in raw_path or "%5C" in raw_path.upper() else self.app.get(rest)
        key = text.lower()
        if key == "/recherche.asp":
            params = {name.lower(): value for name, value in self.params_in(query, "cp1252").items()}
            term = params.get("q", "").strip().lower()
            if not term:
                return self.nothing("Recherche", "Search the shop.")
            return self.results if term == self.term else self.nothing("Recherche", f"No results for {term}.")
        if key.endswith("/default.asp"):
            key = key[: -len("default.asp")]
        if key in self.files:
            return self.files[key]
        if key + "/" in self.files:
            return self.redirect(authority, raw_path + "/" + _tail(query))
        return None

    def params_in(self, query: str, encoding: str) -> dict[str, str]:
        """The query as ``Request.QueryString`` reads it in ``encoding`` (the first value wins)."""
        found: dict[str, str] = {}
        for pair in query.split("&"):
            name, _, value = pair.partition("=")
            found.setdefault(unquote_plus(name, encoding), unquote_plus(value, encoding, "replace"))
        return found

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        # (an old link from a UTF-8 page: the term's UTF-8 escapes, read as "cafÃ©": no results)
        self.link_from(rng, pen, placed, f"http://{self.host}/recherche.asp?q={quote(self.term)}")

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        if page is self.home:
            return [f"{base}/default.asp", f"{base}/Default.asp", f"{base}/DEFAULT.ASP"]
        if page in self.dirs:
            return [f"{base}{page.path.lower()}", f"{base}{page.path.upper()}default.asp", page.url[:-1]]
        if page not in self.products:
            return []
        name = decode_path(page.path)
        folder, _, leaf = name.rpartition("/")
        forms = [f"{base}{encode_path(name.lower())}", f"{base}{encode_path(name.upper())}"]
        forms += [f"{base}{_cp1252(name)}", f"{base}{_cp1252(name.lower())}", _lower_escapes(page.url)]
        forms += [f"{base}{encode_path(folder)}%5C{encode_path(leaf)}"]
        return forms


class Latin1Site(EncodingSite):
    """Apache serving ISO-8859-1 file names: see the module's docstring."""

    charset = "iso-8859-1"

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.2.22 (Debian)", "Apache/2.2.16 (Debian)"))
        self.redirect_status = 301
        self.files: dict[str, Page] = {}  # decoded path (surrogates for the name's bytes) -> page
        self.home = self.file("/")
        user = rng.choice(("josé", "andré", "zoë", "hélène"))
        folders = ["/recettes/", "/présentation/", f"/~{user}/"]  # (as written; stored in ISO-8859-1)
        pages = [self.file(_latin1(folder)) for folder in folders]
        self.home.links += [page.path for page in pages]
        others = [name for name in rng.sample(_RECIPES, len(_RECIPES)) if name != "café"]
        names = iter(["café", *others])  # (café always: its UTF-8 twin is the exception)
        for index in range(max(3, min(9, budget - 7))):
            at = 0 if index < 2 else rng.randrange(len(folders))
            page = self.file(_latin1(f"{folders[at]}{next(names)}.html"))
            pages[at].links.append(page.path)
        self.salad = self.file("/recettes/salade.html")
        pages[0].links.append(self.salad.path)
        self.utf8_twin = self.exception(self.file("/recettes/café.html"))  # (the name in UTF-8 bytes)
        self.texts[self.utf8_twin.doc_id] = "Café (new upload, UTF-8 name): see the new recipes."
        self.behind(self.utf8_twin, self.file("/nouveau/crème.html"))
        self.upper = self.exception(self.file("/recettes/Salade.html"))
        self.texts[self.upper.doc_id] = "Salade (old version, capital S)."
        self.traps.append(
            "/d -> /d/, index.html, mod_speling CheckCaseOnly (ASCII, 301); "
            "but /recettes/caf%C3%A9.html beside caf%E9.html and Salade.html beside salade.html"
        )

    def file(self, path: str) -> Page:
        page = self.add(path)
        self.files[path] = page
        return page

    def entries(self, folder: str) -> list[str]:
        """The names in directory ``folder`` (decoded, its slash included), ``index.html`` too."""
        names = [path[len(folder) :] for path in self.files if path.startswith(folder) and path != folder]
        return [name for name in names if "/" not in name.rstrip("/")] + ["index.html"]

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in self.files:
            return self.files[path]
        if path + "/" in self.files:
            return self.redirect(authority, encode_path(path + "/"))
        folder, _, name = path.rstrip("/").rpartition("/")
        folder += "/"
        if name == "index.html" and folder in self.files and not path.endswith("/"):
            return self.files[folder]
        if folder not in self.files:
            return None
        found = [entry for entry in self.entries(folder) if _ascii_lower(entry.rstrip("/")) == _ascii_lower(name)]
        found = [entry for entry in found if entry.endswith("/") == path.endswith("/")]
        if len(found) == 1:  # (mod_speling: the one name that differs in case only)
            return self.redirect(authority, encode_path(folder + found[0]))
        if found:
            links = [encode_path(folder + entry) for entry in found]
            return Reply(300, render(None, links, title="Multiple Choices", text="Spelling fix."), dict(_HTML))
        return None

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        path = decode_path(page.path)
        if page is self.home:
            return [f"{base}/index.html", f"{base}/INDEX.HTML"]
        if path.endswith("/"):
            forms = [f"{page.url}index.html", page.url[:-1], _lower_escapes(page.url)]
            if "~" in path:
                forms.append(page.url.replace("~", "%7E"))
            elif path.count("/") == 2:
                forms.append(f"{base}{encode_path(path.upper())}")
            return forms
        if page is self.salad:
            return [_lower_escapes(page.url)]
        folder, _, name = path.rpartition("/")
        return [
            _lower_escapes(page.url),
            f"{base}{encode_path(folder + '/' + _ascii_lower(name).upper())}",
            f"{base}{encode_path(folder + '/' + name[:1].upper() + name[1:])}",
        ]


class IdnSite(EncodingSite):
    """A shop with an internationalized host name: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx", "Apache/2.4.57 (Debian)"))
        self.redirect_status = 301
        number = re.sub(r"\D", "", self.name)
        self.unicode_name = f"bücher{number}.test"
        self.name = self.unicode_name.encode("idna").decode()
        self.alias = f"buecher{number}.test"
        self.atlas_unicode = f"straße{number}.test"
        self.atlas = _punycode(self.atlas_unicode)
        self.home = self.add("/")
        self.books_index = self.add("/bücher/")
        self.authors_index = self.add("/autoren/")
        self.home.links += [self.books_index.path, self.authors_index.path]
        count = max(3, min(9, budget - 6))
        self.books = [self.add(f"/bücher/{title}") for title in rng.sample(_BOOKS, min(count, len(_BOOKS)))]
        self.books_index.links += [page.path for page in self.books]
        self.authors = [self.add(f"/autoren/{name}") for name in rng.sample(_AUTHORS, 2)]
        self.authors_index.links += [page.path for page in self.authors]
        self.add("/impressum")
        self.atlas_home = self.exception(self.add("/", authority=self.atlas))
        self.texts[self.atlas_home.doc_id] = "Straßen-Atlas: another registrant (IDNA 2008)."
        self.behind(self.atlas_home, self.add("/karte.html", authority=self.atlas), "/karte.html")
        self.traps.append(
            f"{self.unicode_name} = {self.name} = {self.alias} (200); but {self.atlas} ({self.atlas_unicode}, "
            f"IDNA 2008) is another host, and Scrapy sends {self.atlas_unicode} as strasse{number}.test"
        )

    @property
    def hosts(self) -> list[str]:
        return [*super().hosts, self.alias, self.atlas]

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", self.host).lower().rstrip(".")
        netloc = headers.get(NETLOC_HEADER, host).lower()
        _, sep, port = netloc.rpartition(":")
        if sep and port.isdigit() and port not in ("80", "443"):
            return self.finish(Reply.not_found(), headers)
        authority = self.atlas if host == self.atlas else self.host
        return self.finish(self.answer(authority, path, query), headers)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path != "/" and path.endswith("/") and (authority, path[:-1], "") in self.routes:
            return None
        found = self.routes.get((authority, path, ""))
        if found is None and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, encode_path(path + "/"))
        return found

    def evidence(self, pen: Pen, rng: random.Random, placed: list[Page]) -> None:
        super().evidence(pen, rng, placed)
        self.link_from(rng, pen, placed, f"http://{self.atlas_unicode}/")  # (strasse<n>.test to Scrapy: nobody)

    def forms(self, page: Page) -> list[str]:
        if page.host != self.host:
            return []
        path = decode_path(page.path)
        forms = [
            f"http://{self.unicode_name}{path}",
            f"http://{self.unicode_name.upper()}{page.path}",
            f"http://{self.name.upper()}{page.path}",
            f"http://{self.alias}{page.path}",
        ]
        if not path.isascii():
            forms += [f"http://{self.alias}{path}", _lower_escapes(page.url)]
        if path.endswith("/") and path != "/":
            forms.append(page.url[:-1])
        return forms


class UnicodeFsSite(EncodingSite):
    """nginx on ext4, byte-exact names, and a normalization-insensitive share: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("nginx/1.24.0", "nginx/1.18.0 (Ubuntu)"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.docs = self.add("/docs/")
        self.share_index = self.add("/share/")
        self.home.links += [self.docs.path, self.share_index.path]
        count = max(2, min(6, budget - 7))
        self.files: list[Page] = []
        for name in rng.sample(_FILES, count):
            form = _nfd(name) if rng.random() < 0.35 else name  # (some uploaded from a Mac: NFD)
            self.files.append(self.add(f"/docs/{form}.html"))
            self.docs.links.append(self.files[-1].path)
        self.resume = self.add("/docs/résumé.html")
        self.docs.links.append(self.resume.path)
        self.share: dict[str, Page] = {}  # NFC name -> page (stored in either form)
        for name in rng.sample(_SHARE, 2):
            form = _nfd(name) if rng.random() < 0.5 else name
            self.share[_nfc(name)] = self.add(f"/share/{form}.html")
            self.share_index.links.append(self.share[_nfc(name)].path)
        self.mac = self.exception(self.add(f"/docs/{_nfd('résumé')}.html"))
        self.texts[self.mac.doc_id] = "Résumé (the older copy, its name in NFD): see the references."
        self.behind(self.mac, self.add("/docs/références.html"))
        self.traps.append(
            "merge_slashes, %2F decoded, /d -> /d/, index.html, /share/ NFC = NFD (ZFS formD); "
            "but /docs/r%C3%A9sum%C3%A9.html vs /docs/re%CC%81sume%CC%81.html (two files)"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        path = re.sub("/+", "/", path.replace("%2F", "/"))
        if path.endswith("/index.html"):
            path = path[: -len("index.html")]
        if path.startswith("/share/") and not path.endswith("/"):  # (found in either form)
            return (
                self.share.get(_nfc(path[len("/share/") :]).removesuffix(".html")) if path.endswith(".html") else None
            )
        found = self.routes.get((authority, path, ""))
        if found is None and (authority, path + "/", "") in self.routes:
            return self.redirect(authority, encode_path(path + "/"))
        return found

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        path = decode_path(page.path)
        if page is self.home:
            return [f"{base}//", f"{base}/index.html"]
        forms = [f"{base}/{page.path}", _lower_escapes(page.url)]
        if path.endswith("/"):
            return [*forms, page.url[:-1], f"{page.url}index.html", f"{page.url}/"]
        folder, _, name = page.path.rpartition("/")
        forms += [f"{base}{folder}%2F{name}", f"{base}{folder}//{name}"]
        if path.startswith("/share/"):
            other = _nfc(path) if _nfc(path) != path else _nfd(path)
            forms.append(f"{base}{encode_path(other)}")
        return forms


class QuerySite(EncodingSite):
    """A Perl CGI.pm search and listing application: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache/2.4.41 (Ubuntu)", "Apache/2.4.57 (Debian)"))
        self.redirect_status = 301
        self.home = self.add("/")
        self.results: dict[str, Page] = {}  # folded term -> its results page
        terms = ["c", *rng.sample(_CGI_TERMS, max(2, min(4, budget - 10)))]
        for term in terms:
            self.results[term] = self.add("/cgi-bin/search.pl", f"q={quote(term, safe='').replace('%20', '+')}")
            self.home.links.append(self.results[term].key)
        self.items: dict[int, Page] = {}
        for number in rng.sample(range(2, 400), max(3, min(6, budget - 8))):
            self.items[number] = self.add("/cgi-bin/item.pl", f"id={number}")
        self.listings: dict[tuple[str, str], Page] = {}
        for category in rng.sample(_CATEGORIES, 2):
            for sort in ("title", "price"):
                query = f"cat={category}" + (f"&sort={sort}" if sort != "title" else "")
                page = self.listings[(category, sort)] = self.add("/cgi-bin/list.pl", query)
                page.links += [item.key for item in rng.sample(list(self.items.values()), 2)]
                if sort == "title":
                    self.home.links.append(page.key)
        for page in self.results.values():
            page.links += [item.key for item in rng.sample(list(self.items.values()), 2)]
        self.escaped: dict[str, Page] = {}
        for term, escaped in rng.sample((("c++", "c%2B%2B"), ("c#", "c%23")), rng.randint(1, 2)):
            page = self.escaped[term] = self.exception(self.add("/cgi-bin/search.pl", f"q={escaped}"))
            self.texts[page.doc_id] = f"Results for {term}."
            number = rng.choice([n for n in range(400, 999) if n not in self.items])
            self.items[number] = self.behind(page, self.add("/cgi-bin/item.pl", f"id={number}"))
        self.traps.append(
            "; as &, empty = default, terms trimmed and folded (?q=c++ is ?q=c), ?id=05; "
            f"but {' and '.join('?q=' + page.query[2:] for page in self.escaped.values())}"
        )

    def cgi(self, query: str) -> dict[str, str]:
        """The query as CGI.pm reads it: ``&`` or ``;`` between pairs, form-decoded, UTF-8, the
        first value of a name."""
        found: dict[str, str] = {}
        for pair in re.split("[&;]", query):
            if pair:
                name, _, value = pair.partition("=")
                found.setdefault(unquote_plus(name), unquote_plus(value))
        return found

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.cgi(query)
        if path in ("/", "/index.html"):
            return self.home
        if path == "/cgi-bin/search.pl":
            term = " ".join(params.get("q", "").split()).lower()
            if not term:
                return self.nothing("Search", "Type a term.")
            found = self.results.get(term) or self.escaped.get(term)
            if found is None or _int(params.get("page") or "1", 1) != 1:
                return self.nothing("Search", f"No results for {term}.")
            return found
        if path == "/cgi-bin/list.pl":
            key = (params.get("cat") or "", params.get("sort") or "title")
            return self.listings.get(key)
        if path == "/cgi-bin/item.pl":
            return self.items.get(_int(params.get("id", ""), -1))
        return None

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}/cgi-bin"
        if page is self.home:
            return [f"http://{self.host}/index.html"]
        for term, found in self.results.items():
            if found is page:
                spaced = quote(term, safe="").replace("%20", "+")
                forms = [f"{page.url}&lang=", f"{base}/search.pl?lang=;q={spaced}", f"{page.url};page=1"]
                forms += [f"{base}/search.pl?q=+{spaced.upper()}+", f"{base}/search.pl?page=1&q={spaced.title()}"]
                if " " in term:
                    forms.append(f"{base}/search.pl?q={spaced.replace('+', '++')}")
                if term == "c":
                    forms += [f"{base}/search.pl?q=c++", f"{base}/search.pl?q=c#sharp", f"{base}/search.pl?q=C+"]
                return forms
        for (category, sort), found in self.listings.items():
            if found is page:
                forms = [
                    f"{base}/list.pl?cat={category};sort={sort}",
                    f"{base}/list.pl?sort={sort}&cat={category}&page=",
                ]
                if sort == "title":
                    forms += [f"{page.url}&sort=", f"{base}/list.pl?sort=;cat={category}"]
                return forms
        for number, found in self.items.items():
            if found is page:
                return [f"{base}/item.pl?id=0{number}", f"{page.url};ref=list", f"{page.url}&view="]
        return []


_CLASSES: dict[str, type[EncodingSite]] = {
    "mediawiki": MediaWikiSite,
    "iis": IisSite,
    "latin1": Latin1Site,
    "idn": IdnSite,
    "unicode_fs": UnicodeFsSite,
    "query": QuerySite,
}


# -- the web ------------------------------------------------------------------------------------


class EncodingWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of encoding kinds (the same checks)."""


def generate_encoding_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> EncodingWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "encoding", seed, KINDS, _CLASSES, EncodingWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class EncodingComparison(FamilyComparison):
    """A comparison on an encoding web: requests, pages and documents per kind of host."""


async def compare_encoding(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> EncodingComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_encoding_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_encoding_web, EncodingComparison, seed, workdir, addon_settings, order)
