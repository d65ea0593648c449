"""The thirteenth generator (:mod:`demoweb.encodingweb`): each kind's coincidences and exceptions
answered as described, and a differential crawl or two. The battery every generator passes
(deterministic, every document collected by stock, every kind drawn) is in
``test_generators.py``."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_twisted
from demoweb.encodingweb import (
    KINDS,
    EncodingSite,
    EncodingWeb,
    IdnSite,
    IisSite,
    Latin1Site,
    MediaWikiSite,
    QuerySite,
    UnicodeFsSite,
    compare_encoding,
    generate_encoding_web,
)
from demoweb.randomweb import Page, doc_id_of
from demoweb.wildweb import decode_path, encode_path
from generator_checks import assert_behind as _behind
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import assert_same_bytes as _same
from generator_checks import (
    quiet_site,
    sites_of,
)
from w3lib.url import safe_url_string

SEEDS = range(80)  # (the generator was checked on 200 seeds when written; the benchmark crawls more)
MOVED = frozenset({301})


def test_pages_in_another_charset_carry_no_raw_byte_outside_ascii() -> None:
    """What Scrapy reads from them does not depend on how it decodes them (the check reads UTF-8)."""
    for web, site in _sites(IisSite, range(10)):
        for page in site.pages:
            reply = web.fetch(page.url)
            assert reply.headers["Content-Type"] == "text/html; charset=windows-1252"
            assert reply.body.isascii() or reply.headers.get("Content-Encoding") == "gzip"
    for web, site in _sites(Latin1Site, range(10)):
        for page in site.pages:
            assert web.fetch(page.url).headers["Content-Type"] == "text/html; charset=iso-8859-1"


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[EncodingSite], seeds: range = SEEDS) -> Iterator[tuple[EncodingWeb, EncodingSite]]:
    return sites_of(generate_encoding_web, kind, seeds)


def _quiet(kind: type[EncodingSite], nth: int = 0) -> tuple[EncodingWeb, EncodingSite]:
    return quiet_site(generate_encoding_web, kind, SEEDS, nth)


def _behind_it(site: EncodingSite, page: Page) -> Page:
    """The page hidden behind the exception ``page`` (linked from it alone)."""
    return next(found for found in site.pages if found.doc_id in site.hidden and found.key in page.links)


def _no_document(web: EncodingWeb, url: str) -> None:
    """``url`` answers, but with no document (a search without results)."""
    reply = web.fetch(url)
    assert reply.status == 200 and doc_id_of(reply) is None, (url, reply.status)


# -- kinds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nth", range(3))
def test_mediawiki_titles_escapes_case_and_normalization(nth: int) -> None:
    web, site = _quiet(MediaWikiSite, nth)
    assert isinstance(site, MediaWikiSite)
    base = f"http://{site.host}"
    for title, page in site.articles.items():
        if not site.plain(page) or page is site.home:
            continue
        _same(web, page.url, f"{base}/wiki/{title}", f"{base}/w/index.php?title={quote(title)}")
        _same(web, page.url, page.url.replace("%C3", "%c3"))
        lowered = title[:1].lower() + title[1:]
        if lowered != title:
            _moves(web, f"{base}{encode_path('/wiki/' + lowered)}", page.url, MOVED)
        nfd = unicodedata.normalize("NFD", title)
        if nfd != title:
            _moves(web, f"{base}{encode_path('/wiki/' + nfd)}", page.url, MOVED)
        if "_" in title:
            _moves(web, f"{base}/wiki/{quote(title.replace('_', ' '))}", page.url, MOVED)
            _moves(web, f"{base}/w/index.php?title={quote(title, safe='_').replace('_', '+')}", page.url, MOVED)
    _moves(web, f"{base}/", site.home.url, MOVED)
    _moves(web, f"{base}/wiki/main_Page", site.home.url, MOVED)
    other = decode_path(site.other.path)[len("/wiki/") :]
    plain = next(title for title in site.articles if title.lower() == other.lower() and title != other)
    _other(web, site.other.url, site.articles[plain].url)  # (case past the first letter: two articles)
    _behind(web, site, site.other.url, _behind_it(site, site.other).path)
    assert web.fetch(f"{base}/wiki/Caf%E9").status == 404  # (no UTF-8: a bad title)


@pytest.mark.parametrize("nth", range(3))
def test_iis_case_code_page_backslashes_and_the_exceptions(nth: int) -> None:
    web, site = _quiet(IisSite, nth)
    assert isinstance(site, IisSite)
    base = f"http://{site.host}"
    _same(web, site.home.url, f"{base}/default.asp", f"{base}/DEFAULT.ASP")
    for folder in site.dirs:
        _same(web, folder.url, f"{base}{folder.path.upper()}default.asp")
        _moves(web, folder.url[:-1], folder.url, MOVED)
    for page in site.products:
        name = decode_path(page.path)
        head, _, leaf = name.rpartition("/")
        cp1252 = quote(name.encode("cp1252"), safe="/")
        upper = encode_path(name.upper())
        _same(web, page.url, f"{base}{upper}", f"{base}{cp1252}", f"{base}{cp1252.upper()}")
        _same(web, page.url, f"{base}{encode_path(head)}%5C{encode_path(leaf)}")
    # The query is read in the code page: the UTF-8 escapes are another term ("cafÃ©"), no results.
    _no_document(web, f"{base}/recherche.asp?q={quote(site.term)}")
    _other(web, site.results.url, f"{base}/recherche.asp?q={quote(site.term)}")
    assert web.resolve(f"{base}/recherche.asp?Q={quote(site.term.upper().encode('cp1252'))}") == site.results.doc_id
    _behind(web, site, site.results.url, _behind_it(site, site.results).path)
    # The backend behind /app/ is case-sensitive, where the rest of the host is not.
    _other(web, site.lower.url, site.app["/Été"].url)
    _same(web, site.app["/Été"].url, site.app["/Été"].url.replace("%C3%89", "%c3%89"))
    assert web.fetch(f"{base}/app/%C9t%E9").status == 404  # (no UTF-8 there)
    _behind(web, site, site.lower.url, _behind_it(site, site.lower).path)


@pytest.mark.parametrize("nth", range(3))
def test_latin1_file_names_speling_and_the_twins(nth: int) -> None:
    web, site = _quiet(Latin1Site, nth)
    assert isinstance(site, Latin1Site)
    base = f"http://{site.host}"
    cafe = site.files[decode_path("/recettes/caf%E9.html")]
    _same(web, cafe.url, f"{base}/recettes/caf%e9.html", f"{base}/recettes/%63af%E9.html")
    _moves(web, f"{base}/recettes/CAF%E9.HTML", cafe.url, MOVED)
    _moves(web, f"{base}/RECETTES/", f"{base}/recettes/", MOVED)
    _moves(web, f"{base}/recettes", f"{base}/recettes/", MOVED)
    _same(web, f"{base}/recettes/", f"{base}/recettes/index.html")
    assert web.fetch(f"{base}/recettes/caf%C9.html").status == 404  # (É is another byte: no fix)
    # The same word in UTF-8 bytes is another file; a page written raw is sent that way by Scrapy.
    assert safe_url_string(f"{base}/recettes/café.html") == site.utf8_twin.url
    _other(web, site.utf8_twin.url, cafe.url)
    _behind(web, site, site.utf8_twin.url, _behind_it(site, site.utf8_twin).path)
    _other(web, site.upper.url, site.salad.url)
    assert web.fetch(f"{base}/recettes/SALADE.html").status == 300  # (two candidates)
    user = next(page for page in site.pages if "/~" in page.path)
    _same(web, user.url, user.url.replace("~", "%7E"))


@pytest.mark.parametrize("nth", range(3))
def test_idn_host_spellings_the_alias_and_the_idna_2008_host(nth: int) -> None:
    web, site = _quiet(IdnSite, nth)
    assert isinstance(site, IdnSite)
    assert site.host.startswith("xn--") and site.unicode_name.encode("idna").decode() == site.host
    for page in site.pages:
        if not site.plain(page):
            continue
        raw = decode_path(page.path)
        unicode = (f"http://{site.unicode_name}{raw}", f"http://{site.unicode_name.upper()}{page.path}")
        _same(web, page.url, *(safe_url_string(url) for url in unicode))  # (as Scrapy sends them)
        _same(web, page.url, f"http://{site.host.upper()}{page.path}", f"http://{site.alias}{page.path}")
    assert safe_url_string(f"http://{site.atlas_unicode}/") != f"http://{site.atlas}/"  # (IDNA 2003: strasse)
    assert web.resolve(f"http://{site.atlas_unicode}/") is None
    _other(web, f"http://{site.atlas}/", site.home.url)
    _behind(web, site, site.atlas_home.url, "/karte.html")


@pytest.mark.parametrize("nth", range(3))
def test_unicode_fs_slashes_forms_and_the_nfd_twin(nth: int) -> None:
    web, site = _quiet(UnicodeFsSite, nth)
    assert isinstance(site, UnicodeFsSite)
    base = f"http://{site.host}"
    for page in [*site.files, site.resume]:
        head, _, name = page.path.rpartition("/")
        _same(web, page.url, f"{base}/{page.path}", f"{base}{head}%2F{name}", f"{base}{head}//{name}")
        path = decode_path(page.path)
        for other in {unicodedata.normalize("NFC", path), unicodedata.normalize("NFD", path)} - {path}:
            if page is not site.resume:  # (one form on disk: the other is a 404)
                assert web.fetch(f"{base}{encode_path(other)}").status == 404
    for page in site.share.values():
        path = decode_path(page.path)
        other = unicodedata.normalize("NFC", path) if unicodedata.is_normalized("NFD", path) else path
        _same(web, page.url, f"{base}{encode_path(unicodedata.normalize('NFD', path))}", f"{base}{encode_path(other)}")
    _moves(web, f"{base}/docs", site.docs.url, MOVED)
    _same(web, site.docs.url, f"{base}/docs/index.html", f"{base}//docs//")
    _other(web, site.mac.url, site.resume.url)
    _behind(web, site, site.mac.url, _behind_it(site, site.mac).path)


@pytest.mark.parametrize("nth", range(3))
def test_query_separators_empty_parameters_and_escaped_terms(nth: int) -> None:
    web, site = _quiet(QuerySite, nth)
    assert isinstance(site, QuerySite)
    base = f"http://{site.host}/cgi-bin"
    c = site.results["c"]
    _same(web, c.url, f"{base}/search.pl?q=c++", f"{base}/search.pl?q=+C+", f"{base}/search.pl?q=c#sharp")
    _same(web, c.url, f"{c.url}&lang=", f"{base}/search.pl?lang=;q=c", f"{c.url};page=1")
    for term, page in site.escaped.items():
        _other(web, page.url, c.url)
        assert web.resolve(f"{base}/search.pl?q={quote(term)}") == page.doc_id
        _behind(web, site, page.url, _behind_it(site, page).key)
    for (category, sort), page in site.listings.items():
        _same(web, page.url, f"{base}/list.pl?cat={category};sort={sort}", f"{base}/list.pl?sort={sort}&cat={category}")
        if sort == "title":
            _same(web, page.url, f"{page.url}&sort=", f"{base}/list.pl?sort=;cat={category}")
    title, price = (site.listings[(next(iter(site.listings))[0], sort)] for sort in ("title", "price"))
    _other(web, price.url, title.url)
    for number, page in site.items.items():
        _same(web, page.url, f"{base}/item.pl?id=0{number}", f"{page.url};ref=list")
    _no_document(web, f"{base}/search.pl?q=no-such-term")


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_encoding(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
