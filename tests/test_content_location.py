"""Negotiating servers name the file they served: ``Content-Location``.

Apache MultiViews answers ``/x`` with the page of ``x.html`` and says so
(``Content-Location: x.html``), and gives that response its own entity tag
(``"<file's tag>;<variant>"``), so a conditional audit of ``/x`` never matches.
These crawls run against a VirtualWeb site that does both, as Apache does."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.crawling import crawl
from demoweb.server import EntityTagged, FunctionSite, Reply, VirtualWeb
from test_learning import ADDON

from scrapy_urlnorm.learning import Learner, negotiated_pair

ONE_AT_A_TIME = {**ADDON, "CONCURRENT_REQUESTS": 1}


def negotiating_reply(site: str, pages: dict[str, list[str]], path: str) -> Reply:
    """As Apache MultiViews answers: the file at ``path``, else ``path.html`` naming it, else 404."""
    if path in pages:
        return Reply.page(f"{site}:{path}", pages[path])
    if path + ".html" in pages:
        reply = Reply.page(f"{site}:{path}.html", pages[path + ".html"])
        name = path.rsplit("/", 1)[-1] + ".html"
        return Reply(200, reply.body, {**reply.headers, "Content-Location": name, "Vary": "negotiate"})
    return Reply.not_found()


def apache_tag(path: str, reply: Reply) -> str:
    """The file's tag; a negotiated response's is the file's with a variant suffix."""
    tag = f'"{zlib.crc32(reply.body):08x}-{len(reply.body):x}'
    return tag + (';5e1f"' if "Content-Location" in reply.headers else '"')


def pairs_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/pN`` and ``/pN.html`` are one page; the home page links both forms of each,
    in either order (so either may be fetched first)."""
    pairs = [f"/p{n}" for n in range(1, 13)]
    home = [link for n, p in enumerate(pairs) for link in ((p, p + ".html") if n % 2 else (p + ".html", p))]
    pages: dict[str, list[str]] = {"/": home}
    pages |= {p + ".html": [] for p in pairs}
    return negotiating_reply("mv", pages, path)


def files_first_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/a`` and ``/b`` (negotiated) teach the rule first; then ``/hub.html`` links the
    files ``/pN.html``, and a page one level deeper links ``/pN``: whatever the crawl
    order, the files are delivered before their extensionless links are seen."""
    files = [f"/p{n}.html" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": ["/a"], "/a.html": ["/b"], "/b.html": ["/hub.html"]}
    pages |= {"/hub.html": ["/deeper.html", *files], "/deeper.html": ["/more.html"]}
    pages |= {"/more.html": [f.removesuffix(".html") for f in files]} | {f: [] for f in files}
    return negotiating_reply("mv", pages, path)


def queued_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """The home page links the files ``/pN.html`` and ``/more.html``, which links every
    ``/pN``: those are queued before the rule is learned from the first two."""
    pairs = [f"/p{n}" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": [p + ".html" for p in pairs] + ["/more.html"], "/more.html": pairs}
    pages |= {p + ".html": [] for p in pairs}
    return negotiating_reply("mv", pages, path)


def shadowed_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """As ``pairs_site``, but ``/status`` is a file of its own beside ``/status.html``:
    served as itself, with no ``Content-Location``."""
    pairs = [f"/p{n}" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": [link for p in pairs for link in (p, p + ".html")] + ["/more.html"]}
    pages |= {p + ".html": [] for p in pairs}
    pages |= {"/more.html": ["/status.html", "/status"], "/status.html": [], "/status": []}
    return negotiating_reply("mv", pages, path)


def checked_late_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """``/a`` and ``/b`` teach the rule; ``/status.html`` is delivered before the page
    that links ``/status`` (a file of its own) is: the filter makes it an audit at once."""
    pages: dict[str, list[str]] = {"/": ["/a"], "/a.html": ["/b"], "/b.html": ["/hub.html"]}
    pages |= {"/hub.html": ["/status.html", "/deeper.html"], "/deeper.html": ["/status"]}
    pages |= {"/status.html": [], "/status": []}
    return negotiating_reply("mv", pages, path)


def page_downloads(web: VirtualWeb) -> int:
    """Pages downloaded for the spider (not the entity-tag canary's, the add-on's own question)."""
    return sum(1 for hit in web.hits if hit.status == 200 and hit.method == "GET" and not hit.canary)


def test_only_a_file_the_server_may_negotiate_is_a_negotiated_pair() -> None:
    assert negotiated_pair("http://h.test/a/x", "http://h.test/a/x.html")
    assert negotiated_pair("http://h.test/a/", "http://h.test/a/index.html")
    assert negotiated_pair("http://h.test/d/ch11.en", "http://h.test/d/ch11.en.html")  # a dotted name
    assert not negotiated_pair("http://h.test/a/x", "http://h.test/a/y.html")  # another file
    assert not negotiated_pair("http://h.test/x?sort=1", "http://h.test/x")  # a query variant
    assert not negotiated_pair("http://h.test/x", "http://www.h.test/x.html")  # two steps
    assert not negotiated_pair("http://h.test/x", "http://h.test/x/")  # not a file negotiated
    assert not negotiated_pair("http://h.test/x", "http://h.test/x")
    assert not negotiated_pair("http://h.test/x", "not a url")


def test_content_location_teaches_extension_alias_from_single_downloads() -> None:
    learner = Learner()
    learner.observe_content_location("http://h.test/a", "http://h.test/a.html")
    assert not learner.is_active("h.test", "extension_alias:html")
    learner.observe_content_location("http://h.test/b", "http://h.test/b.html")
    assert learner.is_active("h.test", "extension_alias:html")
    # A canonical-like use of the header teaches nothing.
    learner.observe_content_location("http://h.test/c?page=1", "http://h.test/c")
    learner.observe_content_location("http://h.test/d?page=1", "http://h.test/d")
    assert learner.rules.get(("h.test", "ignore_param:page")) is None


@pytest_twisted.ensureDeferred
async def test_negotiated_twins_are_verified_without_a_second_download() -> None:
    """Every ``extension_alias`` drop is verified. Here neither side needs a download:
    ``/x.html`` dropped against ``/x`` is settled by ``/x``'s own ``Content-Location``,
    ``/x`` dropped against ``/x.html`` by a ``HEAD`` naming ``x.html`` (which of the two
    a crawl order needs varies). Nothing is lost, and no ``HEAD`` response reaches the spider."""
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(pairs_site), apache_tag)}) as web:
        full = await crawl(web, ["http://mv.test/"], {**ONE_AT_A_TIME, "URLNORM_CONDITIONAL_AUDITS": False})
        full_downloads = page_downloads(web)
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(pairs_site), apache_tag)}) as web:
        cheap = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        cheap_downloads = page_downloads(web)
        heads = [hit for hit in web.hits if hit.method == "HEAD"]
    assert set(cheap.doc_ids) == set(full.doc_ids) and len(set(full.doc_ids)) == 13
    negotiated = cheap.stats.get("urlnorm/audits_negotiated", 0)
    assert len(heads) == negotiated  # every audit's HEAD settled its audit
    answered = cheap.stats.get("urlnorm/audits_answered", 0)
    assert answered >= 1  # the representative named the URL
    settled = negotiated + answered
    assert settled >= 11  # every drop of the rule verified, none by a download
    assert cheap_downloads <= full_downloads - settled
    assert len(cheap.doc_ids) == cheap_downloads  # the spider saw each download once, and no HEAD
    assert "urlnorm/audit_mismatches" not in cheap.stats and "urlnorm/revoked_rules" not in cheap.stats


@pytest_twisted.ensureDeferred
async def test_a_file_beside_its_negotiated_twin_is_collected() -> None:
    """``/status`` is served as itself: its ``HEAD`` names no file, so it is fetched in
    full as a ``GET``, found to be a page of its own, and collected."""
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(shadowed_site), apache_tag)}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        status_requests = [hit.method for hit in web.hits if hit.target == "/status"]
    assert {"mv:/status", "mv:/status.html"} <= set(result.doc_ids)
    assert result.stats["urlnorm/audit_mismatches"] >= 1
    assert "GET" in status_requests and len(status_requests) <= 2


@pytest_twisted.ensureDeferred
async def test_with_jobdir_a_settled_head_audit_leaves_nothing_in_flight(tmp_path: Path) -> None:
    """A ``HEAD`` audit that settles raises no response and no error for the journal;
    ``request_ended`` settles its entry: a second run of the finished job fetches nothing."""
    settings = {**ONE_AT_A_TIME, "JOBDIR": str(tmp_path / "job")}
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(files_first_site), apache_tag)}) as web:
        first = await crawl(web, ["http://mv.test/"], settings)
        fetched = len(web.hits)
        again = await crawl(web, ["http://mv.test/"], settings)
        assert len(web.hits) == fetched
    assert len(set(first.doc_ids)) == 14 and first.stats["urlnorm/audits_negotiated"] >= 3
    assert again.stats.get("urlnorm/frontier/recovered", 0) == 0


@pytest_twisted.ensureDeferred
async def test_with_jobdir_variants_queued_before_the_rule_are_verified_with_head(tmp_path: Path) -> None:
    """Without hold-back (``JOBDIR``), ``/p3``..``/p8`` are queued before the rule is
    learned; at download time each is a drop to verify against its delivered file, and
    it is verified as an audit, with a ``HEAD``, not downloaded again as written."""
    settings = {**ONE_AT_A_TIME, "JOBDIR": str(tmp_path / "job")}
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(queued_site), apache_tag)}) as web:
        result = await crawl(web, ["http://mv.test/"], settings)
        heads = sorted(hit.target for hit in web.hits if hit.method == "HEAD")
        fetched = len(web.hits)
        again = await crawl(web, ["http://mv.test/"], settings)
        assert len(web.hits) == fetched
    assert len(set(result.doc_ids)) == 10
    audit_heads = len(heads)
    assert audit_heads >= 4 and result.stats["urlnorm/audits_negotiated"] == audit_heads
    assert len(result.doc_ids) <= 10 + 8 - audit_heads
    assert again.stats.get("urlnorm/frontier/recovered", 0) == 0


@pytest_twisted.ensureDeferred
async def test_a_file_audited_at_check_time_is_fetched_in_full_after_its_head() -> None:
    """The filter admits ``/status`` as an audit (its twin delivered); the ``HEAD`` names
    no file, so it goes back through the scheduler as a ``GET``, and must not be taken
    for a duplicate of itself there: the page is collected."""
    with VirtualWeb({"mv.test": EntityTagged(FunctionSite(checked_late_site), apache_tag)}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        status = [hit.method for hit in web.hits if hit.target == "/status"]
    assert "mv:/status" in result.doc_ids and "mv:/status.html" in result.doc_ids
    assert status == ["HEAD", "GET"]


def twins_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """One site under ``mv.test`` and ``www.mv.test`` (no redirect: ``www_alias`` is
    taught by content, so its drops are sampled), negotiating as Apache does, with no
    entity tags (a tree a package installed: they would be no evidence). ``/pN`` are
    delivered first; a page deeper links the files on the other twin, ``www.mv.test/pN.html``."""
    www = "http://www.mv.test"
    pairs = [f"/p{n}" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": ["/c.html", f"{www}/c.html", "/d.html", f"{www}/d.html", "/hub.html"]}
    pages |= {"/c.html": [], "/d.html": [], "/hub.html": ["/deeper.html", *pairs], "/deeper.html": ["/more.html"]}
    pages |= {"/more.html": [f"{www}{p}.html" for p in pairs]} | {p + ".html": [] for p in pairs}
    return negotiating_reply("mv", pages, path)


@pytest_twisted.ensureDeferred
async def test_a_twins_file_is_verified_by_what_the_other_twin_negotiated() -> None:
    """``www.mv.test/pN.html`` against the delivered ``mv.test/pN`` rests on
    ``extension_alias`` (verified on every drop) and ``www_alias`` (sampled). ``/pN``
    named ``pN.html`` as the file it served, so ``mv.test/pN.html`` answered that page
    already: only the twins' rule is left, as for any drop between twins. No download
    (real Apache on a documentation tree: every such drop was one)."""
    site = FunctionSite(twins_site)
    with VirtualWeb({"mv.test": site, "www.mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        twin_files = [hit for hit in web.hits if hit.host == "www.mv.test" and hit.target.startswith("/p")]
    assert len(set(result.doc_ids)) == 14  # the home page, c, d, hub, deeper, more and the eight pN
    assert len(twin_files) <= 2  # (the twins' rule's own first drops may be audited)
    assert result.stats.get("urlnorm/audits_answered", 0) >= 6


def twins_learned_late_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """As ``twins_site``, in another order (breadth first, one request at a time): ``/pN``
    (each naming ``pN.html``) are delivered at depth 2, the pairs that teach ``www_alias``
    (``/c.html``, ``/d.html`` on both twins) at depth 3, and the files on the other twin,
    ``www.mv.test/pN.html``, are linked at depth 4."""
    www = "http://www.mv.test"
    pairs = [f"/p{n}" for n in range(1, 9)]
    pages: dict[str, list[str]] = {"/": ["/hub.html"], "/hub.html": [*pairs, "/twins.html"]}
    pages |= {"/twins.html": ["/c.html", f"{www}/c.html", "/d.html", f"{www}/d.html", "/deep.html"]}
    pages |= {"/c.html": [], "/d.html": [], "/deep.html": ["/more.html"]}
    pages |= {"/more.html": [f"{www}{p}.html" for p in pairs]} | {p + ".html": [] for p in pairs}
    return negotiating_reply("mv", pages, path)


@pytest_twisted.ensureDeferred
async def test_a_file_named_before_the_twins_were_one_site_answers_for_the_other_twin() -> None:
    """A named file's answer is kept under its spelling by its host's sampled rules: when
    ``/pN`` named ``pN.html``, ``www_alias`` was not learned yet (and ``extension_alias``,
    verified on every drop, was all the host had: no such spelling at all). Once the twins
    are one site, the files are answered again under the new rules, so
    ``www.mv.test/pN.html`` is settled by what ``mv.test/pN`` named, as when the twins
    came first (Debian's handbook on Apache: each such drop was a download)."""
    site = FunctionSite(twins_learned_late_site)
    with VirtualWeb({"mv.test": site, "www.mv.test": site}) as web:
        result = await crawl(web, ["http://mv.test/"], ONE_AT_A_TIME)
        twin_files = [hit for hit in web.hits if hit.host == "www.mv.test" and hit.target.startswith("/p")]
    assert len(set(result.doc_ids)) == 15  # the home page, hub, twins, c, d, deep, more and the eight pN
    assert len(twin_files) <= 2  # (the twins' rule's own first drops may be audited)
    assert result.stats.get("urlnorm/audits_answered", 0) >= 6


def speling_site(path: str, query: str, headers: Mapping[str, str]) -> Reply:
    """Apache with MultiViews and ``mod_speling`` (``CheckCaseOnly``) on a file system
    that tells case apart: a file is served as itself; ``/x`` negotiates ``x.html``
    (naming it); a path with neither redirects to the one file its case-folded
    spelling names. ``/FAQ.html`` and ``/faq.html`` are two files (as in Debian's
    valgrind manual), and ``/faq.html`` is linked only as ``/faq``, after ``/FAQ.html``
    was delivered and both rules were learned."""
    files: dict[str, list[str]] = {"/": ["/A.html", "/B.html", "/p1", "/p2", "/more.html"]}
    files |= {"/a.html": [], "/b.html": [], "/p1.html": [], "/p2.html": []}
    files |= {"/more.html": ["/FAQ.html", "/deeper.html"], "/deeper.html": ["/faq"], "/FAQ.html": [], "/faq.html": []}
    reply = negotiating_reply("sp", files, path)
    if reply.status != 404:
        return reply
    matches = [name for name in files if name.lower() == path.lower()]
    return Reply.redirect(matches[0]) if len(matches) == 1 else reply


@pytest_twisted.ensureDeferred
async def test_a_file_named_by_content_location_is_no_proof_across_a_verified_rule() -> None:
    """``/faq`` keys as the delivered ``/FAQ.html`` under ``extension_alias`` and the
    case rule the host's redirects taught (verified on every drop). Its ``HEAD`` names
    ``faq.html``: that proves ``/faq`` is ``/faq.html``, not that ``/faq.html`` is
    ``/FAQ.html``, so the page is fetched and collected."""
    with VirtualWeb({"sp.test": FunctionSite(speling_site)}) as web:
        result = await crawl(web, ["http://sp.test/"], ONE_AT_A_TIME)
    assert {"sp:/FAQ.html", "sp:/faq.html"} <= set(result.doc_ids)


def test_named_files_are_bounded_and_found_by_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files kept to be answered again are the latest, and a rule change walks its
    hosts' files only."""
    from scrapy import Request
    from scrapy.utils.request import RequestFingerprinter

    from scrapy_urlnorm import Policy, answers
    from scrapy_urlnorm.dedup import Deduplicator

    monkeypatch.setattr(answers, "NAMED_FILES_REMEMBERED", 3)
    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    named = dedup.audits.answers
    for n, host in enumerate(["a.test", "a.test", "b.test", "c.test"]):
        named.named(Request(f"http://{host}/p{n}.html"), n)
    assert len(named) == 3 and sorted(named._named_by_host) == ["a.test", "b.test", "c.test"]
    asked: list[str] = []
    monkeypatch.setattr(named, "answered_as", lambda request, digest: asked.append(request.url))
    named.rekey(["a.test", "www.a.test"])
    assert asked == ["http://a.test/p1.html"]  # p0, the oldest, was forgotten
