"""The eighth generator (:mod:`demoweb.communityweb`): each kind's coincidences and exceptions
answered as described, per-request tokens where the software has them, and a differential crawl or
two. The battery every generator passes (deterministic, every document collected by stock, every
kind drawn) is in ``test_generators.py``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import pytest_twisted
from demoweb.communityweb import (
    KINDS,
    CommunitySite,
    CommunityWeb,
    DiscourseSite,
    GiteaSite,
    GitLabSite,
    MastodonSite,
    MediaWikiSite,
    ReadTheDocsSite,
    StackExchangeSite,
    compare_community,
    generate_community_web,
)
from demoweb.randomweb import doc_id_of
from generator_checks import assert_behind as _behind
from generator_checks import assert_moves as _moves
from generator_checks import assert_other_document as _other
from generator_checks import (
    quiet_site,
    sites_of,
)

SEEDS = range(80)  # (the generator was checked on 200 seeds when written; the benchmark crawls more)
_TOKEN = re.compile(rb'(content="|"wgRequestId":")[0-9a-f]{32}"')


def test_every_spelling_leads_to_its_page_and_no_exception_is_one() -> None:
    """What the evidence links and the pen's variants draw from: each spelling ends at its page's
    document; the exceptions and what hides behind them are spelled nowhere."""
    for seed in range(60):
        web = generate_community_web(seed)
        for site in web.hosts:
            assert isinstance(site, CommunitySite)
            for page in site.pages:
                if page.doc_id in site.late or page.doc_id in site.hidden:
                    continue
                for url in site.spellings(page):
                    assert web.resolve(url) == page.doc_id, (seed, site.kind, page.url, url)
            for page in site.pages:
                if page.doc_id in site.late:
                    assert web.resolve(page.url) == page.doc_id
                    assert sum(page.key in other.links for other in site.pages) <= 1, page.url


def test_check_rejects_a_pair_stock_takes_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Stack Exchange whose sort read ``?lq=1&answertab=votes`` apart from ``?answertab=votes&lq=1``
    (one fingerprint) would hide a page from stock."""
    original = StackExchangeSite.question

    def by_order(self: StackExchangeSite, authority: str, qid: int, slug: str | None, answer: str | None, query: str):  # type: ignore[no-untyped-def]
        if query.startswith("lq=") and qid == self.long:
            return self.oldest
        return original(self, authority, qid, slug, answer, query)

    monkeypatch.setattr(StackExchangeSite, "question", by_order)
    web, site = _site(StackExchangeSite)
    assert isinstance(site, StackExchangeSite)
    page = site.questions[site.long][1]
    site.home.links += [f"{page.path}?lq=1&answertab=votes", f"{page.path}?answertab=votes&lq=1"]
    assert any("one fingerprint" in problem for problem in web.check())


# -- helpers ------------------------------------------------------------------------------------


def _sites(kind: type[CommunitySite], seeds: range = SEEDS) -> Iterator[tuple[CommunityWeb, CommunitySite]]:
    return sites_of(generate_community_web, kind, seeds)


def _site(kind: type[CommunitySite]) -> tuple[CommunityWeb, CommunitySite]:
    return next(_sites(kind))


def _quiet(kind: type[CommunitySite]) -> tuple[CommunityWeb, CommunitySite]:
    return quiet_site(generate_community_web, kind, SEEDS)


def _body(web: CommunityWeb, url: str, headers: Mapping[str, str] | None = None) -> bytes:
    """``url``'s answer with its per-request token (if any) taken out."""
    return _TOKEN.sub(rb"\1TOKEN", web.fetch(url, headers).body)


def _same(web: CommunityWeb, first: str, *others: str) -> None:
    """``first`` and ``others`` answer one page byte for byte, but for a per-request token."""
    body = _body(web, first)
    assert doc_id_of(web.fetch(first)), first
    for url in others:
        reply = web.fetch(url)
        assert reply.status == 200 and _body(web, url) == body, (first, url, reply.status)


def _alike(web: CommunityWeb, first: str, *others: str) -> None:
    """``others`` lead to ``first``'s document (by a redirect, or in other bytes)."""
    for url in others:
        assert web.resolve(url) == web.resolve(first) is not None, (first, url)


# -- tokens ---------------------------------------------------------------------------------------


def test_gitlab_masks_its_token_anew_on_every_answer() -> None:
    web, site = _quiet(GitLabSite)
    assert isinstance(site, GitLabSite)
    first, second = web.fetch(site.project_page.url), web.fetch(site.project_page.url)
    assert b'name="csrf-token"' in first.body and first.body != second.body
    assert _body(web, site.project_page.url) == _body(web, site.project_page.url)


def test_gitea_binds_its_token_to_a_cookie() -> None:
    web, site = _quiet(GiteaSite)
    assert isinstance(site, GiteaSite)
    url = site.repo_home.url
    first = web.fetch(url)
    assert first.body != web.fetch(url).body  # (no cookie: a new session every time)
    cookie = first.headers["Set-Cookie"].split(";")[0]
    kept = web.fetch(url, {"Cookie": cookie})
    assert kept.body == first.body and "Set-Cookie" not in kept.headers
    assert (
        web.fetch(f"http://{site.host}/{site.owner.lower()}/{site.repo.lower()}", {"Cookie": cookie}).body == first.body
    )


def test_half_the_wikis_render_a_request_id() -> None:
    marked = [bool(site.token_markup) for _, site in _sites(MediaWikiSite)]
    assert any(marked) and not all(marked)
    web, site = next((web, site) for web, site in _sites(MediaWikiSite) if site.token_markup)
    url = f"http://{site.host}/wiki/Main_Page"
    assert b"wgRequestId" in web.fetch(url).body and web.fetch(url).body != web.fetch(url).body


# -- kinds ----------------------------------------------------------------------------------------


def test_discourse_slugs_post_numbers_and_the_second_page() -> None:
    web, site = _quiet(DiscourseSite)
    assert isinstance(site, DiscourseSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/", f"{base}/latest")
    for name, (_, listing) in site.categories.items():
        _moves(web, f"{base}/c/{name}", listing.url, frozenset({301}))
        _same(web, listing.url, f"{listing.url}/l/latest", f"{listing.url}/")
    for number, pages in site.topics.items():
        topic = pages[0]
        slug = site.slugs[number]
        _moves(web, f"{base}/t/{number}", topic.url, frozenset({301}))
        _moves(web, f"{base}/t/wrong-slug/{number}", topic.url, frozenset({301}))
        _same(web, topic.url, f"{topic.url}/1", f"{topic.url}?page=1", f"{topic.url}?u=alice", f"{topic.url}/20")
        assert f'<link rel="canonical" href="{base}/t/{slug}/{number}">'.encode() in web.fetch(topic.url).body
        if len(pages) == 1:
            _same(web, topic.url, f"{topic.url}/25", f"{topic.url}/99")
            assert web.fetch(f"{topic.url}?page=2").status == 404
    first, second = site.topics[site.long]
    _other(web, f"{first.url}/{site.post}", first.url)
    _same(web, second.url, f"{first.url}/{site.post}", f"{first.url}/{site.CHUNK + 1}", f"{first.url}?page=2&u=bob")
    _moves(web, f"{base}/t/{site.long}/{site.post}", second.url)
    hidden = next(href for href in second.links if href.startswith("/u/"))
    _behind(web, site, second.url, hidden)


@pytest.mark.parametrize("lenient", [False, True])
def test_stackexchange_short_links_parameters_and_the_oldest_answers(lenient: bool) -> None:
    web, site = next(
        (web, site)
        for web, site in _sites(StackExchangeSite)
        if not (site.counter or site.ads) and getattr(site, "lenient", None) is lenient
    )
    assert isinstance(site, StackExchangeSite)
    base = f"http://{site.host}"
    _same(web, f"{base}/questions", f"{base}/questions?tab=newest", f"{base}/questions?page=1")
    for qid, (_, question) in site.questions.items():
        url = question.url
        _same(web, url, f"{url}?noredirect=1", f"{url}?lq=1", f"{url}?answertab=votes", f"{url}?answertab=scoredesc")
        for spelling in (f"{base}/questions/{qid}", f"{base}/questions/{qid}/not-the-slug"):
            if lenient:
                _same(web, url, spelling)
            else:
                _moves(web, spelling, url, frozenset({301}))
        _moves(web, f"{base}/q/{qid}", url, frozenset({302}))
        for aid in (aid for aid, of in site.answers.items() if of == qid):
            _same(web, url, f"{url}/{aid}")
            _moves(web, f"{base}/a/{aid}", url, frozenset({302}))
        if qid != site.long:  # (another order of the same answers: the same document in other bytes)
            _alike(web, url, f"{url}?answertab=oldest")
            assert web.fetch(f"{url}?answertab=oldest").body != web.fetch(url).body
    first = site.questions[site.long][1].url
    oldest = f"{first}?answertab=oldest"
    _other(web, oldest, first)
    _same(web, oldest, f"{first}?answertab=createdasc")
    second = f"{first}?page=2&tab=scoredesc"
    _same(web, first, f"{first}?page=1&tab=scoredesc", f"{first}?tab=scoredesc")
    _other(web, second, first)
    assert web.resolve(second) != web.resolve(oldest)
    _same(web, second, f"{first}?page=2", f"{first}?tab=votes&page=2")
    for page, url in ((site.oldest, oldest), (site.second, second)):
        hidden = next(href for href in page.links if href.startswith("/users/"))
        _behind(web, site, url, hidden)
    for uid, (_, profile) in site.users.items():
        _moves(web, f"{base}/users/{uid}", profile.url, frozenset({301}))


def test_mediawiki_entry_points_and_the_redirect_page() -> None:
    web, site = _quiet(MediaWikiSite)
    assert isinstance(site, MediaWikiSite)
    base = f"http://{site.host}"
    for url in (f"{base}/", f"{base}/w/index.php", f"{base}/w/index.php?title="):
        _moves(web, url, f"{base}/wiki/Main_Page", frozenset({301}))
    for title, article in site.articles.items():
        if article.doc_id in site.hidden:
            continue
        _same(
            web,
            article.url,
            f"{base}/w/index.php?title={title}",
            f"{base}/w/index.php/{title}",
            f"{base}/?title={title}",
            f"{base}/w/index.php?curid={site.ids[title]}",
            f"{article.url}?action=view",
            f"{base}//wiki/{title}",
            f"{article.url}?redirect=no",
        )
        _moves(web, f"{base}/wiki/{title[0].lower()}{title[1:]}", article.url, frozenset({301}))
        if "_" in title:
            _moves(web, f"{base}/wiki/{title.replace('_', '%20')}", article.url, frozenset({301}))
            _moves(web, f"{base}/w/index.php?title={title.replace('_', '+')}", article.url, frozenset({301}))
            head, tail = title.split("_", 1)
            if tail != tail.title() and f"{head}_{tail.title()}" != site.twin:  # (case after the first letter)
                assert web.fetch(f"{base}/wiki/{head}_{tail.title()}").status == 404
        assert web.fetch(f"{article.url}?action=history").status == 404
    alias, target = site.shortcut
    redirected = web.fetch(f"{base}/wiki/{alias}")
    assert redirected.status == 200 and b"Redirected from" in redirected.body
    _alike(web, f"{base}/wiki/{target}", f"{base}/wiki/{alias}")
    _other(web, f"{base}/wiki/{alias}?redirect=no", f"{base}/wiki/{target}")
    _behind(web, site, site.redirect_page.url, "/wiki/Category:Redirects_from_short_names")
    head, tail = site.twin.split("_", 1)
    twin, plain = f"{base}/wiki/{site.twin}", f"{base}/wiki/{head}_{tail.lower()}"
    _other(web, twin, plain)
    _same(web, twin, f"{base}/w/index.php?title={site.twin}", f"{base}/w/index.php?curid={site.ids[site.twin]}")
    _moves(web, f"{base}/wiki/{head.lower()}_{tail.lower()}", plain, frozenset({301}))
    _moves(web, f"{base}/wiki/{head.lower()}_{tail.title()}", twin, frozenset({301}))


def test_gitea_case_insensitive_names_over_a_case_sensitive_tree() -> None:
    web, site = _quiet(GiteaSite)
    assert isinstance(site, GiteaSite)
    base = f"http://{site.host}"
    owner, repo = site.owner, site.repo
    _same(web, site.profile.url, f"{base}/{owner.lower()}", f"{base}/{owner.upper()}/")
    for page in site.pages:
        if not page.path.startswith(site.link) or page.doc_id in site.late or page.doc_id in site.hidden:
            continue
        tail = page.path[len(site.link) :]
        _same(
            web,
            page.url,
            f"{base}/{owner.lower()}/{repo.lower()}{tail}",
            f"{base}/{owner}/{repo}.git{tail}",
            f"{base}/{owner.upper()}/{repo}{tail}/",
        )
    readme = site.files["README.md"].url
    for legacy in (f"{base}{site.link}/src/main/README.md", f"{base}{site.link}/src/README.md"):
        _moves(web, legacy, readme, frozenset({303}))
    lower = f"{base}{site.link}/src/branch/main/readme.md"
    _other(web, lower, readme)
    _behind(web, site, lower, f"{site.link}/src/branch/main/docs/old-setup.md")
    assert web.fetch(f"{base}{site.link}/src/branch/main/Readme.md").status == 404


def test_gitlab_canonical_paths_legacy_routes_and_the_source_view() -> None:
    web, site = _quiet(GitLabSite)
    assert isinstance(site, GitLabSite)
    base = f"http://{site.host}"
    moved = frozenset({301})
    _moves(web, f"{base}/{site.group.upper()}", site.group_page.url, moved)
    _moves(web, f"{base}{site.link}.git", site.project_page.url, moved)
    _moves(web, f"{base}/{site.group.title()}{site.link[len(site.group) + 1 :]}", site.project_page.url, moved)
    for name, blob in site.blobs.items():
        _same(web, blob.url, f"{blob.url}?ref_type=heads", f"{blob.url}?plain=0")
        _moves(web, f"{base}{site.link}/blob/main/{name}", blob.url, moved)
        _moves(web, f"{base}/{site.group.title()}/{site.project}/-/blob/main/{name}", blob.url, moved)
    _moves(web, f"{base}{site.link}/tree/main", site.trees[""].url, moved)
    for number, issue in site.issues.items():
        if number:
            _moves(web, f"{base}{site.link}/issues/{number}", issue.url, moved)
    readme = site.blobs["README.md"].url
    _other(web, f"{readme}?plain=1", readme)
    _behind(web, site, f"{readme}?plain=1", site.blame.key)
    assert web.fetch(f"{readme}?ref_type=tags").status == 404
    lower = site.lower.url
    upper = next(blob.url for name, blob in site.blobs.items() if name.lower() in lower and blob is not site.lower)
    _other(web, lower, upper)
    _moves(web, lower.replace(site.link, f"/{site.group.title()}/{site.project}"), lower, moved)


def test_readthedocs_versions_directories_and_the_unreleased_changelog() -> None:
    web, site = _quiet(ReadTheDocsSite)
    assert isinstance(site, ReadTheDocsSite)
    base = f"http://{site.host}"
    latest = f"{base}/en/latest/"
    for url in (f"{base}/", f"{base}/en/", f"{base}/en/latest"):
        _moves(web, url, latest, frozenset({302}))
    for name, page in site.files.items():
        if page.doc_id in site.late or page.doc_id in site.hidden:
            continue
        stable = page.url.replace("/en/latest/", "/en/stable/")
        _same(web, page.url, stable, f"{page.url}?highlight=setup")
        if name.endswith("index.html"):
            _same(web, page.url, f"{page.url}index.html", f"{stable}index.html")
            if page.url != latest:
                _moves(web, page.url[:-1], page.url, frozenset({302}))
        else:
            _moves(web, f"{base}/page/{name}", page.url, frozenset({302}))
    released, unreleased = f"{base}/en/stable/changelog.html", f"{base}/en/latest/changelog.html"
    _other(web, unreleased, released)
    canonical = f'<link rel="canonical" href="{unreleased}">'.encode()
    assert canonical in web.fetch(released).body and canonical in web.fetch(unreleased).body
    _behind(web, site, unreleased, "migration.html")
    assert web.fetch(f"{base}/en/stable/migration.html").status == 404


def test_mastodon_account_routes_and_the_embed_view() -> None:
    web, site = _quiet(MastodonSite)
    assert isinstance(site, MastodonSite)
    base = f"http://{site.host}"
    for name, profile in site.accounts.values():
        _same(
            web,
            profile.url,
            f"{base}/@{name.swapcase()}",
            f"{profile.url}/with_replies",
            f"{profile.url}/media",
            f"{profile.url}/",
        )
        _moves(web, f"{base}/users/{name.lower()}", profile.url, frozenset({301}))
    for number, (account, status) in site.statuses.items():
        name = site.accounts[account][0]
        _same(web, status.url, f"{status.url}/", f"{base}/@{account}/{number}")
        _moves(web, f"{base}/users/{name}/statuses/{number}", status.url, frozenset({301}))
        _moves(web, f"{base}/web/@{name}/{number}", status.url, frozenset({302}))
    for tag, page in site.hashtags.items():
        _same(web, page.url, f"{base}/tags/{tag.title()}", f"{base}/tags/{tag.upper()}")
    embed = site.embed.url
    _other(web, embed, embed.removesuffix("/embed"))
    other = next(status for _, status in site.statuses.values() if status.url + "/embed" != embed)
    assert web.fetch(other.url + "/embed").status == 404


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest_twisted.ensureDeferred
async def test_stock_collects_every_document_and_the_addon_too(seed: int, tmp_path: Path) -> None:
    comparison = await compare_community(seed, tmp_path)
    assert not comparison.sanity_problems(), comparison.report()
    assert comparison.stock.docs == comparison.web.documents
    assert not comparison.problems(), comparison.report()
    assert comparison.families and set(comparison.families) - {"?"} <= set(KINDS)
