"""The drop ledger on its own: promises kept, and nothing it does feeds on itself."""

from __future__ import annotations

from collections import Counter

import pytest
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter

from scrapy_urlnorm import Policy
from scrapy_urlnorm import meta as M
from scrapy_urlnorm.audits import mark_audit
from scrapy_urlnorm.chains import MAX_UNCHECKED_HOPS
from scrapy_urlnorm.dedup import Deduplicator
from scrapy_urlnorm.depths import ClaimDepths
from scrapy_urlnorm.ledger import DropLedger
from scrapy_urlnorm.taught_forms import TaughtForms


def test_a_revoked_drop_dropped_again_by_another_rule_is_released_once() -> None:
    """Reproduces the differential seed 27 runaway: a revocation released a learned drop;
    the request went back through the filter and was dropped again, under the host's other
    rule, into the claim list being walked; the walk never ended and memory grew to GBs."""
    counts: Counter[str] = Counter()
    released: list[str] = []

    def reschedule(request: Request, why: str) -> None:
        released.append(request.url)
        ledger.drop(request, "learned:case", "a.test", learned=True, claim=claim)

    ledger = DropLedger(reschedule, lambda key, n: counts.update({key: n}))
    claim = ledger.claim((1, 2), "http://a.test/x")
    assert ledger.drop(Request("http://a.test/X/"), "learned:slash", "a.test", learned=True, claim=claim)

    assert ledger.revoke_host("a.test") == 1
    assert released == ["http://a.test/X/"]
    assert counts["urlnorm/released/revoked"] == 1
    # The new drop waits on the claim again, and a later revocation releases it once more.
    assert ledger.unsettled() == 1
    assert ledger.revoke_host("a.test") == 1
    assert len(released) == 2


def test_a_revocation_releases_parked_drops_of_that_host_only() -> None:
    released: list[str] = []
    ledger = DropLedger(lambda request, why: released.append(request.url), lambda key, n: None)
    ledger.drop(Request("http://a.test/p/"), "learned:slash", "a.test", learned=True, claim=None)
    ledger.drop(Request("http://b.test/p/"), "learned:slash", "b.test", learned=True, claim=None)
    assert ledger.parked() == 2
    assert ledger.revoke_host("a.test") == 1
    assert released == ["http://a.test/p/"]
    assert ledger.parked() == 1


def test_a_large_host_keeps_its_learned_drops_parked() -> None:
    """A crawl of a 20,996-document generated web (about 1,000 pages per host) fetched
    3,381 pages twice once its hosts' parked drops passed 1,000 each (the caps then):
    a learned drop that cannot be parked is fetched. The default caps hold a host of
    several thousand pages' variants (and stay bounded: see the trap benchmark)."""
    counts: Counter[str] = Counter()
    ledger = DropLedger(None, lambda key, n: counts.update({key: n}))
    for i in range(5_000):
        assert ledger.drop(
            Request(f"http://www.a.test/p/{i}.html"), "learned:www_alias", "a.test", learned=True, claim=None
        )
    assert ledger.parked() == 5_000
    assert counts["urlnorm/parked_overflow"] == 0


def test_parked_drops_are_bounded_and_a_drop_that_does_not_fit_is_fetched() -> None:
    """Parked drops are capped per host and in all: past the cap a learned drop against a
    delivered page is refused (the caller fetches it, ``urlnorm/parked_overflow``), never
    kept without its insurance. A repeat of a parked URL is no new entry, and settled
    entries are swept to make room."""
    counts: Counter[str] = Counter()
    ledger = DropLedger(None, lambda key, n: counts.update({key: n}), max_parked_per_host=2, max_parked=3)

    def park(url: str) -> bool:
        return ledger.drop(Request(url), "learned:slash", url.split("/")[2], learned=True, claim=None)

    assert park("http://a.test/1/") and park("http://a.test/2/")
    assert park("http://a.test/2/")  # a repeat: nothing more to keep
    assert not park("http://a.test/3/")  # the host's share is full
    assert park("http://b.test/1/")
    assert not park("http://c.test/1/")  # all parked drops are at their cap
    assert counts["urlnorm/parked_overflow"] == 2
    assert ledger.parked() == 3
    ledger.forget_request("a.test", Request("http://a.test/1/"))  # fetched as written after all: settled
    assert park("http://a.test/3/")  # the settled entry was swept to make room
    assert ledger.parked() == 3


@pytest.mark.parametrize("how", ["failed", "idle"])
def test_a_released_request_is_fetched_not_dropped_again_against_the_page_that_failed(how: str) -> None:
    """A released request goes back through the filter at once (the engine schedules it
    synchronously). Its representative's claim was closed by then, and its keys were only
    recorded as failed afterwards: the filter took them for a delivered page and dropped
    the request again, for good. A distributed crawl lost documents this way (a worker
    going idle released what it had dropped against a page another worker never fetched)."""
    verdicts: list[tuple[str, str | None]] = []
    dedup = Deduplicator(
        Policy.preset("default"),
        fallback=RequestFingerprinter().fingerprint,
        learn=True,
        reschedule=lambda request: verdicts.append((request.url, dedup.check(request))),
    )
    assert dedup.learned is not None
    dedup.learned.verify_taught = False
    dedup.responses.observe_redirect("http://h/a", "http://h/a/")
    dedup.responses.observe_redirect("http://h/b", "http://h/b/")  # trailing_slash (add) on h
    page, learned, tracked = Request("http://h/c/"), Request("http://h/c"), Request("http://h/c/?utm_source=x")
    assert dedup.check(page) is None
    assert dedup.check(learned) == "learned:trailing_slash"
    assert dedup.check(tracked) == "tracking_params"
    if how == "failed":
        dedup.settling.settle(page, delivered=False, why="status")
    else:
        assert dedup.settling.release_orphans() == 2
    assert verdicts[0] == (learned.url, None)  # fetched after all
    # ...and the other now waits on it, a pending page, not on the one that failed.
    assert verdicts[1] == (tracked.url, "tracking_params") and dedup.ledger.unsettled() == 1


def test_a_released_request_is_sent_again_as_a_new_object() -> None:
    """Scrapy keeps the requests in flight in sets (``Downloader.active``, the engine's
    slot). A drop made at download time raises for its request object; when its
    representative failed before that exception had unwound, the release sent the same
    object again, the first attempt's clean-up removed it from those sets, and the second
    attempt's response never reached the spider (real servers, Django, Scrapy 2.19:
    ``/article/?id=1`` dropped late against ``/article/index.html?id=1``, a 404; 5 crawls
    in ~200, most under load). A release sends a copy, as the request it was."""
    released: list[Request] = []
    dedup = Deduplicator(
        Policy.preset("default"),
        fallback=RequestFingerprinter().fingerprint,
        learn=True,
        reschedule=released.append,
    )
    page, tracked = Request("http://h/c/"), Request("http://h/c/?utm_source=x", meta={"depth": 2})
    assert dedup.check(page) is None
    assert dedup.check(tracked) == "tracking_params"
    dedup.settling.settle(page, delivered=False, why="status")
    (again,) = released
    assert again is not tracked
    assert (again.url, again.callback, again.meta, again.dont_filter) == (tracked.url, None, {"depth": 2}, False)


def test_an_audit_settled_by_an_earlier_answer_waits_for_its_representative_to_deliver() -> None:
    """At download time an audit whose URL was fetched since it was queued (another rule's
    audit of it) is settled by that answer, and the request is kept as a drop against a
    delivered page. While its representative is still pending that drop would have no
    claim to release it if the page then fails: the audit is fetched instead."""
    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    dedup.responses.observe_redirect("http://h/a", "http://h/a/")
    dedup.responses.observe_redirect("http://h/b", "http://h/b/")  # trailing_slash (add) on h
    page = Request("http://h/c/")
    assert dedup.check(page) is None  # the representative, pending
    meta: dict[str, object] = {}
    mark_audit(meta, dedup.keys.static(page).value, "learned:trailing_slash", "h")
    audit = Request("http://h/c", meta=meta, dont_filter=True)
    # An audit of /c for another rule answered: a redirect to /c/, which confirms this drop.
    dedup.audits.auditor.answered(dedup.keys.static(audit).value, "http://h/c/")

    assert not dedup.audits.gate.answered_since(audit)  # /c/ may still fail: fetch /c
    assert dedup.ledger.unsettled() == 0
    dedup.settling.settle(page, delivered=True)
    assert dedup.audits.gate.answered_since(audit)  # now the answer settles it


def test_a_failed_representative_releases_what_it_did_not_send_and_remembers_what_it_did() -> None:
    """``/docs`` failed after a redirect from ``/docs?sid=1``: a drop spelled as either
    was sent already (stock's filter drops it), a drop spelled otherwise is released;
    later, the key still failed, a copy of what was sent is known as such."""
    from scrapy_urlnorm.settling import SentAlready

    counts: Counter[str] = Counter()
    released: list[str] = []
    ledger = DropLedger(lambda request, why: released.append(request.url), lambda key, n: counts.update({key: n}))
    sent = SentAlready(RequestFingerprinter().fingerprint)
    claim = ledger.claim((1, 2), "http://a.test/docs")
    for url in ("http://a.test/docs#top", "http://a.test/docs?sid=1", "http://a.test/docs?sid=2"):
        assert ledger.drop(Request(url), "session_ids", "a.test", learned=False, claim=claim)
    failed = Request("http://a.test/docs", meta={"redirect_urls": ["http://a.test/docs?sid=1"]})

    ledger.failed(claim, "ignored", sent=sent.record(claim.keys, failed))
    assert released == ["http://a.test/docs?sid=2"]
    assert counts["urlnorm/release_skipped_sent"] == 2
    assert ledger.unsettled() == 0
    assert sent.before(1, Request("http://a.test/docs?sid=1"))
    assert not sent.before(1, Request("http://a.test/docs?sid=3"))
    sent.forget((1, 2))  # delivered after all
    assert not sent.before(1, Request("http://a.test/docs?sid=1"))


@pytest.mark.parametrize("older_key", [True, False])
def test_a_link_sent_in_its_taught_form_takes_its_drops_along(older_key: bool) -> None:
    """A link claimed its keys (its learned key under older rules too, or none); it is
    sent in the form its host's redirects taught. What was dropped against it follows
    that form's page: discharged when it delivers. Before, the claim kept its older
    key, settled by nobody, and its drops waited for ``spider_idle`` (seed 107005: 43
    released at idle); a claim left without keys was never settled at all."""
    released: list[str] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: released.append(request.url))
    link, taught = "http://h.test/p", "http://www.h.test/p"
    original = dedup.fingerprint(Request(link)).value
    claim = dedup.ledger.claim((original, 4242) if older_key else (original,), link)
    variant = Request("http://h.test/p?utm_source=a")
    assert dedup.ledger.drop(variant, "tracking_params", "h.test", learned=False, claim=claim)

    shortcut = Request(taught, meta={"_urlnorm_shortcut_of": link})
    dedup.shortcut_checks.took_over(shortcut, link)
    held = dedup.ledger.claim_of(dedup.fingerprint(shortcut).value)
    assert held is not None and held.drops and [drop.url for drop in held.drops] == [variant.url]
    assert [c for c in dedup.ledger.pending() if c is not held] == []

    dedup.settling.settle(shortcut, delivered=True)
    assert dedup.ledger.unsettled() == 0 and dedup.ledger.pending() == [] and released == []


def test_a_taught_form_another_worker_made_holds_the_claim_it_took_here() -> None:
    """Distributed: this worker queued ``h/p``; another popped it and sent it as its taught
    form ``www.h/p``, which came back through the shared queue to this worker. Popped
    here, the form took a claim on its own keys (as after a crash), apart from the link's,
    and was dropped against that very claim as if another request for ``www.h/p`` had been
    queued meanwhile: neither was fetched (``bench_differential.py --redis 2 --flaky
    --robots --params``, seed 146868, five pages). Recovered, the form goes on, and takes
    the link's claim over."""
    dedup = Deduplicator(Policy.preset("default"))
    link, taught = "http://h.test/p", "http://www.h.test/p"
    dedup.ledger.claim((dedup.fingerprint(Request(link)).value,), link)  # queued here
    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    dedup.claim_recovered(form)  # popped here: its own claim
    assert dedup.shortcut_checks.shortcut_queued(form, link, made_here=False) is None
    assert dedup.shortcut_checks.shortcut_queued(form, link, made_here=True) is not None  # made here: another's


def test_a_taught_form_queued_meanwhile_for_another_link_is_not_fetched_twice() -> None:
    """nginx, ``fifo-c1``: ``www.h/x`` was given up at download time against the claim of
    ``h/x`` (queued); linked again under rules changed since, which that claim's keys did
    not follow, it was admitted and queued. Then ``h/x`` was sent in its taught form,
    ``www.h/x``: the page was downloaded twice. The form is dropped instead, and what
    rests on ``h/x`` joins the queued request's claim: discharged when it delivers,
    released if it fails."""
    released: list[str] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: released.append(request.url))
    link, taught = "http://h.test/p", "http://www.h.test/p"
    claim = dedup.ledger.claim((dedup.fingerprint(Request(link)).value, 4242), link)
    variant = Request("http://h.test/p?utm_source=a")
    assert dedup.ledger.drop(variant, "tracking_params", "h.test", learned=False, claim=claim)
    queued = Request(taught)
    assert dedup.check(queued) is None  # admitted: a claim of its own

    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    assert dedup.shortcut_checks.shortcut_queued(form, link) is not None
    held = dedup.ledger.claim_of(dedup.fingerprint(queued).value)
    assert held is not None and held.held_by(taught)
    assert [drop.url for drop in held.drops or ()] == [variant.url]
    assert dedup.ledger.pending() == [held]
    dedup.settling.settle(queued, delivered=True)
    assert dedup.ledger.unsettled() == 0 and released == []


def test_a_taught_form_that_took_over_is_not_dropped_as_queued_on_a_retry() -> None:
    dedup = Deduplicator(Policy.preset("default"))
    link, taught = "http://h.test/p", "http://www.h.test/p"
    dedup.ledger.claim((dedup.fingerprint(Request(link)).value,), link)
    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    dedup.shortcut_checks.took_over(form, link)
    assert dedup.shortcut_checks.shortcut_queued(form, link) is None  # its own claim now


def test_a_retried_taught_form_goes_on_though_its_link_was_claimed_again_meanwhile() -> None:
    """Frameworks ``--flaky --params``, seed 582439 (``fifo-c16``, about one run in 25):
    ``/careers-summer`` was sent as its taught form ``/careers-summer/``, which took the
    link's claim over and failed once (a connection closed). While its retry waited, the
    link was met again and admitted under its given-up key, and the retry was dropped as
    a form "queued meanwhile" against the claim it held itself: nobody fetched the page,
    and the link released at idle redirected to the form's URL, an exact duplicate by
    then. The retry goes on and holds both claims: one fate for both."""
    released: list[str] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: released.append(request.url))
    link, taught = "http://h.test/p", "http://h.test/p/"
    dedup.ledger.claim((dedup.fingerprint(Request(link)).value,), link)
    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    dedup.shortcut_checks.took_over(form, link)
    again = dedup.ledger.claim((dedup.fingerprint(Request(link)).value,), link)  # the link, admitted anew
    variant = Request("http://h.test/p?utm_source=a")
    assert dedup.ledger.drop(variant, "tracking_params", "h.test", learned=False, claim=again)

    retry = form.replace(meta={**form.meta, "retry_times": 1})
    assert dedup.shortcut_checks.shortcut_queued(retry, link) is None
    dedup.shortcut_checks.took_over(retry, link)
    [held] = dedup.ledger.pending()
    assert held.held_by(taught) and [drop.url for drop in held.drops or ()] == [variant.url]
    dedup.settling.settle(retry, delivered=False)
    assert dedup.ledger.unsettled() == 0 and released == [variant.url]


@pytest.mark.parametrize("delivered", [True, False])
def test_a_taught_form_is_not_fetched_beside_a_redirect_to_it_that_joined_its_claim(delivered: bool) -> None:
    """Differential seed 130027 (``fifo-c16``): ``h/x`` waited in the queue as its taught
    form ``www.h/x`` while ``www.h/old/1`` redirected to ``www.h/x``. The redirect target,
    fetched to verify a rule every drop of which is verified, joined the link's claim
    through its learned key; then the form was sent too, and the page downloaded twice.
    The form is dropped: the redirect target settles the claim, and what rests on the
    link is released if it does not deliver. A form recovered after a crash holds that
    claim itself, and is sent."""
    released: list[str] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: released.append(request.url))
    link, taught = "http://h.test/x", "http://www.h.test/x"
    claim = dedup.ledger.claim((dedup.fingerprint(Request(link)).value, 4242), link)
    parked = Request(link, meta={"_urlnorm_no_shortcut": True})
    assert dedup.ledger.drop(parked, "learned:www_alias", "h.test", learned=True, claim=claim)
    target = Request(taught, meta={"redirect_urls": ["http://www.h.test/old/1"]})
    joined = dedup.ledger.claim((dedup.fingerprint(target).value, 4242), taught)
    assert dedup.ledger.claim_of(dedup.fingerprint(Request(link)).value) is joined

    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    assert dedup.shortcut_checks.shortcut_queued(form, link, made_here=False) is None  # recovered: its own claim
    assert dedup.shortcut_checks.shortcut_queued(form, link, made_here=True) is not None
    assert dedup.ledger.pending() == [joined]
    dedup.settling.settle(target, delivered=delivered)
    assert dedup.ledger.unsettled() == 0
    assert released == ([] if delivered else [link])


def test_a_taught_form_whose_url_an_audit_downloaded_is_not_sent() -> None:
    """Differential seed 130260 (``lifo-c1``): ``h/index.php`` was downloaded as an audit
    (of a ``default_page`` drop), then sent again as the taught form of ``www.h/index.php``.
    An audit claims no key, but its page went to the spider: the form is dropped, and
    what rests on the link rests on that page. A ``304`` or a ``HEAD`` gave the spider
    no page at that URL, so it does not count."""
    released: list[str] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=lambda request: released.append(request.url))
    link, taught = "http://www.h.test/index.php", "http://h.test/index.php"
    claim = dedup.ledger.claim((dedup.fingerprint(Request(link)).value,), link)
    variant = Request(link + "?utm_source=a")
    assert dedup.ledger.drop(variant, "tracking_params", "h.test", learned=False, claim=claim)
    form = Request(taught, meta={"_urlnorm_shortcut_of": link})
    own = dedup.keys.static(form).value

    dedup.audits.auditor.answered(own, 1234)  # settled by a 304: no page at this URL
    assert dedup.shortcut_checks.shortcut_delivered(form, link) is None
    dedup.audits.auditor.answered(own, 1234, downloaded=True)
    assert dedup.shortcut_checks.shortcut_delivered(form, link) is not None
    assert dedup.ledger.pending() == [] and dedup.ledger.unsettled() == 0 and released == []


def test_a_url_an_audit_downloaded_is_not_fetched_again() -> None:
    """Frameworks seed 570224 (``lifo-c1``): ``?replytocom=29`` was downloaded as an audit
    of an ``ignore_param`` drop; its page differed, the rule was revoked, and the drop of
    that very URL it released was admitted and downloaded again. An audit claims no key,
    but the spider had its page: a request for that URL is an exact copy (a redirect to it
    too, whose chain then rests on that page). A ``304`` gave the spider no page there."""
    dedup = Deduplicator(Policy.preset("default"))
    audited, tagged = "http://h.test/tips/?replytocom=29", "http://h.test/tips/?replytocom=30"
    dedup.audits.auditor.answered(dedup.keys.static(Request(audited)).value, 7, downloaded=True)
    dedup.audits.auditor.answered(dedup.keys.static(Request(tagged)).value, 7)
    assert dedup.check(Request(audited + "#respond")) == "exact"
    assert dedup.check(Request(audited)) == "exact"
    assert dedup.check(Request(tagged)) is None

    old = "http://h.test/old"
    assert dedup.check(Request(old)) is None
    assert dedup.ledger.pending() != []
    assert dedup.check(Request(audited, meta={"redirect_urls": [old]})) == "exact"
    assert dedup.ledger.pending() == [dedup.ledger.claim_of(dedup.keys.static(Request(tagged)).value)]


def test_a_drop_released_as_written_does_not_refetch_its_queued_representative() -> None:
    """Differential seed 130640 (``lifo-c1``): ``/DOWNLOAD/`` waited in the queue; a
    session-id spelling of ``/DOWNLOAD`` redirected to it, so its claim took the key of
    ``/DOWNLOAD`` too; ``/DOWNLOAD``, dropped against it under a rule revoked since, was
    released as written and redirected to ``/DOWNLOAD/``. That redirect met its chain's
    own key in a claim no request of the chain held, and took it over: ``/DOWNLOAD/`` was
    downloaded twice. It is a duplicate of the queued request, as stock's filter has it.
    A chain that holds its claim takes it over as before (``/pubs`` -> ``/pubs/``)."""
    dedup = Deduplicator(Policy.preset("default"))
    page, link = "http://h.test/DOWNLOAD/", "http://h.test/DOWNLOAD"
    assert dedup.check(Request(page)) is None
    assert dedup.check(Request(link + ";jsessionid=A1")) is None
    assert dedup.check(Request(page, meta={"redirect_urls": [link + ";jsessionid=A1"]})) == "exact"
    queued = dedup.ledger.claim_of(dedup.keys.static(Request(page)).value)
    assert queued is dedup.ledger.claim_of(dedup.keys.static(Request(link)).value)

    released = Request(page, meta={"redirect_urls": [link], "_urlnorm_as_written": True})
    assert dedup.check(released) == "exact"

    own = "http://h.test/pubs"
    assert dedup.check(Request(own)) is None
    assert dedup.check(Request(own + "/", meta={"redirect_urls": [own]})) is None


def test_a_drop_released_as_written_leaves_the_claim_to_its_queued_representative() -> None:
    """Differential seed 138092 (``lifo-c16``): ``/help;jsessionid=X`` was dropped against
    ``/help``, which redirected to ``/help/``, a duplicate of the queued ``:80/help/``; the
    session spelling was released as written (the server might answer it where it is).
    Sent past the filter, it took the queued request's claim over, so its own redirect to
    ``/help/`` passed as the claim's, and ``:80/help/`` downloaded the page again."""
    released: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=released.append)
    queued, link = "http://h.test:80/help/", "http://h.test/help"
    assert dedup.check(Request(queued)) is None
    assert dedup.check(Request(link)) is None
    assert dedup.check(Request(link + ";jsessionid=X")) == "session_ids"
    assert dedup.check(Request(link + "/", meta={"redirect_urls": [link]})) == "default_port"
    [spelling] = released
    assert spelling.meta.get(M.AS_WRITTEN) and spelling.dont_filter
    dedup.record(spelling)
    claim = dedup.ledger.claim_of(dedup.keys.static(Request(queued)).value)
    assert claim is not None and claim.held_by(queued)
    redirect = spelling.replace(url=link + "/", meta={**spelling.meta, "redirect_urls": [spelling.url]})
    assert dedup.check(redirect) == "default_port"


def test_a_redirect_to_its_own_key_is_not_sent_again_where_a_failed_representative_sent_it() -> None:
    """Differential seed 134400 (``--refresh``): ``/moved-0`` refreshed to itself (a loop,
    so its claim failed); ``/moved-0?utm_source=moved``, a URL of its own to stock, was
    fetched and refreshed to ``/moved-0``, which has its key: the chain took the claim
    over and ``/moved-0`` was downloaded a second time. Stock's filter drops it: it was
    sent already. A redirect to its own key that was not sent before still passes."""
    dedup = Deduplicator(Policy.preset("default"))
    page, tagged = "http://h.test/moved-0", "http://h.test/moved-0?utm_source=moved"
    assert dedup.check(Request(page)) is None
    assert dedup.check(Request(page, meta={"redirect_urls": [page]})) == "redirect_loop"
    assert dedup.check(Request(tagged)) is None
    assert dedup.check(Request(page, meta={"redirect_urls": [tagged]})) == "exact"
    assert dedup.ledger.unsettled() == 0

    own = "http://h.test/pubs"
    assert dedup.check(Request(own + "?utm_source=x")) is None
    assert dedup.check(Request(own, meta={"redirect_urls": [own + "?utm_source=x"]})) is None


def test_a_redirect_back_to_its_chains_first_key_that_nobody_holds_is_fetched_but_a_child_is_not() -> None:
    """Differential seed 157923 (cookieless ASP.NET, ``--params``): ``?page=3`` -> ``?page=3&
    AspxAutoDetectCookieSupport=1`` -> ``/(S(id))/catalog.htm?page=3``, whose key
    (``session_ids``) is the first URL's. The chain's claim was settled while it ran, and
    the last hop was dropped against a key no request held: the page was lost about one
    run in twenty. The hop Scrapy built from a redirect just seen is fetched; a child
    built with ``meta=response.meta`` carries the same ``redirect_urls`` and is not (fetching
    those ran away: ``test_children_built_with_the_parents_meta_*``)."""
    dedup = Deduplicator(Policy.preset("default"))
    first = "http://h.test/catalog.htm?page=3"
    asked = first + "&AspxAutoDetectCookieSupport=1"
    session = "http://h.test/(S(dxf0abcdefghijklmnopqrstuv))/catalog.htm?page=3"
    chain = [first, asked]
    assert dedup.check(Request(first)) is None
    middle = Request(asked, meta={"redirect_urls": [first]})
    assert dedup.check(middle) is None
    dedup.settling.settle(middle, delivered=True)  # the claim gone while the chain runs
    assert dedup.ledger.claim_of(dedup.fingerprint(Request(first)).value) is None
    assert dedup.check(Request(session, meta={"redirect_urls": chain})) == "session_ids"  # a child
    dedup.admission.chains.saw_redirect(asked)  # what RedirectLearningMiddleware sees
    assert dedup.check(Request(session, meta={"redirect_urls": chain})) is None
    assert dedup.counters.counts["urlnorm/redirects_passed"] == 1
    # Each redirect vouches for one request: a child of the page that hop fetched is dropped.
    assert dedup.check(Request(session, meta={"redirect_urls": chain})) == "session_ids"


def test_the_redirects_nobody_followed_are_forgotten_past_a_bound() -> None:
    dedup = Deduplicator(Policy.preset("default"))
    chains = dedup.admission.chains
    for n in range(MAX_UNCHECKED_HOPS + 10):
        chains.saw_redirect(f"http://h.test/{n}")
    assert len(chains._hops) == MAX_UNCHECKED_HOPS
    assert not chains.take_hop(Request("http://h.test/y", meta={"redirect_urls": ["http://h.test/0"]}))
    assert chains.take_hop(Request("http://h.test/y", meta={"redirect_urls": ["http://h.test/10"]}))


@pytest.mark.parametrize("delivered", [True, False])
def test_an_audit_of_a_url_pending_as_an_ordinary_request_is_not_sent(delivered: bool) -> None:
    """Differential seeds 130658 and 570399 (concurrency 16): an audit was sent while its
    very URL was pending as an ordinary request, and the page was downloaded twice. That
    request downloads it for the spider and the learner: the audit is kept as an exact
    drop against it instead. If that request fails, the URL answered no page: the drop
    is not fetched again (stock sends a URL once), as for any exact copy. An audit still
    queued when the request has delivered is not sent either (differential seed 134108:
    the URL admitted again after a rule change re-keyed its host, downloaded beside its
    queued audit): the spider has the page. After a failure it is sent."""
    released: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=released.append)
    url = "http://h.test/de/intro"
    ordinary = Request(url)
    assert dedup.check(ordinary) is None
    audit = Request(url + "#top")
    mark_audit(audit.meta, 4242, "learned:ignore_param", "h.test")
    assert dedup.late.pending_as_written(audit)
    if delivered:  # (what the response observer does with a 200 page)
        dedup.audits.auditor.remember(dedup.fingerprint(ordinary).keys, 7)
    dedup.settling.settle(ordinary, delivered=delivered)
    assert dedup.ledger.unsettled() == 0
    assert released == []
    assert dedup.late.pending_as_written(audit) is delivered  # delivered: had; failed: sent


def test_an_audit_of_a_url_an_audit_downloaded_is_not_sent_again() -> None:
    """An audit queued for a URL another audit downloaded in full since (one URL, two
    rules asking; the first found a page of its own): the spider has that page, so the
    second is kept as an exact drop, not a second download. Not a static step's drop,
    whose own key is its representative's."""
    dedup = Deduplicator(Policy.preset("default"))
    url = "http://h.test/report"
    own = dedup.keys.static(Request(url)).value
    audit = Request(url + "#top")
    mark_audit(audit.meta, 4242, "learned:extension_alias", "h.test")
    assert not dedup.late.pending_as_written(audit)
    dedup.audits.auditor.answered(own, 7, downloaded=True)
    assert dedup.late.pending_as_written(audit)
    static = Request(url)
    mark_audit(static.meta, own, "lowercase_path", "h.test")
    assert not dedup.late.pending_as_written(static)


def test_a_queued_request_for_a_url_an_audit_downloaded_meanwhile_is_not_sent() -> None:
    """Differential seed 135834 (concurrency 16): a link was admitted while an audit of
    its very URL was in flight (its key had been given up to a taught form), and the page
    was downloaded by both. The audit's page went to the spider: at send time the request
    is dropped as an exact copy, and what was dropped against it rests on that page."""
    released: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=released.append)
    url = "http://h.test/api?session=1"
    ordinary = Request(url + "#top")
    assert dedup.check(ordinary) is None
    assert dedup.check(Request(url)) == "exact"
    assert not dedup.late.audited_meanwhile(ordinary)
    dedup.audits.auditor.answered(dedup.keys.static(ordinary).value, 7, downloaded=True)
    assert dedup.late.audited_meanwhile(ordinary)
    assert dedup.ledger.pending_claims() == dedup.ledger.unsettled() == 0
    assert released == []
    redirected = Request(url, meta={"redirect_urls": ["http://h.test/old"]})
    assert not dedup.late.audited_meanwhile(redirected)


def test_a_drop_spelled_as_the_form_that_delivered_is_not_audited() -> None:
    """Differential seed 139008 (``URLNORM_REWRITE``): ``/x?utm_source=a`` was sent as
    ``/x``; ``:80/x#top``, dropped against the link, was made to rest on the form (as
    every drop against a link sent in another form is) and audited when ``/x`` delivered:
    the server was asked for ``/x`` twice. Its own URL is the form's up to static steps:
    there is nothing to verify."""
    released: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), reschedule=released.append, audit_rate=1.0)
    link, form = "http://h.test/x?utm_source=a", "http://h.test/x"
    assert dedup.check(Request(link)) is None
    assert dedup.check(Request("http://h.test:80/x#top")) == "tracking_params"
    sent = Request(form, meta={M.REWRITTEN_FROM: link})
    dedup.shortcut_checks.took_over(sent, link)
    dedup.audits.auditor.remember(dedup.fingerprint(sent).keys, 7)  # (what the response observer does)
    dedup.settling.settle(sent, delivered=True)
    assert released == []
    assert dedup.ledger.unsettled() == 0


def test_a_shallower_taught_form_is_sent_though_its_page_was_delivered_deeper() -> None:
    """Differential seed 131748 (``--robots --depth-limit 5 --callbacks``): a listing was
    delivered at depth 5, so its links (depth 6) were cut; linked again at depth 4, it
    was let through for being shallower, sent in its taught form, and that form dropped
    at send time as delivered meanwhile: the one document only that listing links to
    for the item callback was lost. A shallower request is fetched, whatever the form."""
    dedup = Deduplicator(Policy.preset("default"))
    dedup.depths = ClaimDepths()
    link, taught = "http://www.h.test/help/pricing-11.htm", "http://h.test/help/pricing-11.htm"
    deep = Request(taught, meta={"depth": 5})
    assert dedup.check(deep) is None
    dedup.settling.settle(deep, delivered=True)
    assert dedup.check(Request(link, meta={"depth": 4})) is None
    form = Request(taught, meta={"depth": 4, "_urlnorm_shortcut_of": link, "_urlnorm_shallower": True})
    assert dedup.shortcut_checks.shortcut_delivered(form, link) is None
    assert dedup.shortcut_checks.shortcut_queued(form, link, made_here=True) is None
    as_deep = Request(taught, meta={"depth": 5, "_urlnorm_shortcut_of": link})
    assert dedup.shortcut_checks.shortcut_delivered(as_deep, link) is not None


def test_a_url_an_audit_downloaded_is_not_audited_again_for_another_rule() -> None:
    """Differential seed 132140 (``lifo-c1``, ``URLNORM_LEARN_MIN_EVIDENCE=1``):
    ``www.h/api`` was dropped under ``www_alias`` and ``extension_alias`` together, audited,
    found a page of its own; ``www_alias`` was revoked, and the drop it released, matched
    under ``extension_alias`` alone, was audited again: downloaded twice. The spider had its
    page from the first audit (same URL, same callback): an exact copy, whatever rule
    would merge it now."""
    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    dedup.responses.observe_redirect("http://h/a", "http://h/a/")
    dedup.responses.observe_redirect("http://h/b", "http://h/b/")  # trailing_slash (add) on h
    page = Request("http://h/c/")
    assert dedup.check(page) is None
    dedup.settling.settle(page, delivered=True)
    link = Request("http://h/c")
    dedup.audits.auditor.answered(dedup.keys.static(link).value, 99, downloaded=True)
    assert dedup.check(link) == "exact"
    assert M.AUDIT not in link.meta


@pytest.mark.parametrize(
    ("status", "method", "kept"),
    [(404, "GET", True), (410, "GET", True), (300, "GET", True), (404, "HEAD", False), (503, "GET", False)],
)
def test_an_audit_of_a_url_an_earlier_audit_found_no_page_at_is_kept_as_its_drop(
    status: int, method: str, kept: bool
) -> None:
    """Real servers: a URL with no page there (nginx's ``404`` for a missing
    ``Index.html``, Apache's ``300 Multiple Choices`` for ``/vim/Cmdline``) was audited
    once per rule scope that dropped it, two or three fetches where stock makes one. A
    later audit of that URL and callback is kept as its drop. Not after a ``HEAD``
    audit's answer (a server may refuse ``HEAD``), nor a server error (it may pass)."""
    from scrapy.http import Response

    from scrapy_urlnorm.middlewares import NormalizeMiddleware

    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    dedup.responses.observe_redirect("http://h.test/a", "http://h.test/a/")
    dedup.responses.observe_redirect("http://h.test/b", "http://h.test/b/")  # trailing_slash (add)
    page = Request("http://h.test/c/")
    assert dedup.check(page) is None
    dedup.settling.settle(page, delivered=True)
    key = dedup.fingerprint(page).value

    def audit_of(url: str, method: str = "GET") -> Request:
        audit = Request(url, method=method, dont_filter=True)
        mark_audit(audit.meta, key, "learned:trailing_slash", "h.test")
        return audit

    first = audit_of("http://h.test/c", method)
    assert dedup.audits.gate.needless(first) is None
    NormalizeMiddleware(dedup).process_response(first, Response(first.url, status=status))
    parked = dedup.ledger.parked()
    assert (dedup.audits.gate.needless(audit_of("http://h.test/c")) is not None) is kept
    assert dedup.ledger.parked() == parked + kept  # (released if the rule is revoked)
    assert dedup.audits.gate.needless(audit_of("http://h.test/c?x")) is None  # another URL


def test_a_rewrite_sends_the_normalized_url_but_never_an_audit_or_a_request_as_written() -> None:
    """Differential seed 132200 (``URLNORM_REWRITE = True``): an audit of
    ``/x.html?fbclid=...`` dropped against ``/x.html?utm_campaign=launch`` (sent as
    ``/x.html``) was itself rewritten to ``/x.html``: the representative's page downloaded
    again, compared with itself. An audit, and a drop released or sent as written, go as
    written."""
    forms = TaughtForms(Deduplicator(Policy.preset("default")), rewrite=True)
    url = "http://h.test/x.html?fbclid=IwAR2xYz"
    rewritten = forms.rewritten(Request(url))
    assert rewritten is not None and rewritten.url == "http://h.test/x.html"
    for key in (M.AUDIT, M.AS_WRITTEN, M.NO_SHORTCUT):
        assert forms.rewritten(Request(url, meta={key: True})) is None, key


def test_a_redirect_like_the_canonical_spellings_leaves_the_drop_open_after_a_rule_change() -> None:
    """Random seeds 171960, 171961: ``h/go/0`` was claimed under ``www_alias`` and
    redirected to ``h/old/0`` after its host had learned another rule, so its redirect
    was remembered under keys of another rule set than the key of the drop of
    ``www.h/go/0``; that drop's audit redirected to ``www.h/old/0`` (the twin's own
    relative ``Location``), no redirect of the representative was found under its key,
    and ``www_alias`` was revoked for the whole site. Where the audited URL's spelling
    under today's rules redirected alike, the question is left open (followed)."""
    from scrapy_urlnorm.redirect_verdicts import REDIRECT_DIFFERS, REDIRECT_UNDECIDED

    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    observe = dedup.responses.observe_redirect
    observe("http://www.h.test/a", "http://h.test/a")
    observe("http://www.h.test/b", "http://h.test/b")  # www_alias (strip)
    audit = Request("http://www.h.test/go", dont_filter=True)
    key = dedup.fingerprint(audit).learned  # the key of the drop, under www_alias alone
    assert key is not None
    observe("http://h.test/c", "http://h.test/c/")
    observe("http://h.test/d", "http://h.test/d/")  # trailing_slash (add): a new rule set
    assert dedup.fingerprint(audit).learned not in (None, key)
    mark_audit(audit.meta, key, "learned:www_alias", "h.test")
    representative = Request("http://h.test/go")
    dedup.audits.auditor.representative_redirected(dedup.fingerprint(representative).keys, "http://h.test/old")
    assert dedup.audits.redirected(audit, "http://www.h.test/old") == REDIRECT_UNDECIDED
    assert dedup.audits.redirected(audit, "http://www.h.test/elsewhere") == REDIRECT_DIFFERS  # (revokes it)


def test_a_redirect_to_the_representatives_page_agrees_though_a_rule_was_revoked_since() -> None:
    """Frameworks seed 579217: ``www.h.test/x`` was audited under ``www_alias`` while
    ``trailing_slash`` merged it with the delivered ``www.h.test/x/``; the rule was revoked
    before the audit answered, renaming the keys, and its redirect to ``/x/`` (the very
    page the representative delivered) revoked ``www_alias`` for the whole site."""
    from scrapy_urlnorm.redirect_verdicts import REDIRECT_AGREES

    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, learn=True)
    observe = dedup.responses.observe_redirect
    observe("http://h.test/a", "http://www.h.test/a")
    observe("http://h.test/b", "http://www.h.test/b")  # www_alias (add)
    observe("http://www.h.test/c", "http://www.h.test/c/")
    observe("http://www.h.test/d", "http://www.h.test/d/")  # trailing_slash (add)
    page = Request("http://www.h.test/x/")
    assert dedup.check(page) is None
    dedup.settling.settle(page, delivered=True)
    dedup.audits.auditor.remember(dedup.fingerprint(page).keys, 7)
    audit = Request("http://www.h.test/x", dont_filter=True)
    key = dedup.fingerprint(audit).learned
    assert key is not None and dedup.audits.auditor.digest(key) == 7  # one key with /x/
    mark_audit(audit.meta, key, "learned:www_alias", "h.test")
    learner = dedup.learner
    assert learner is not None
    for rule in learner.active_rules():
        if rule.kind == "trailing_slash":
            learner.contradict(rule.host, rule.kind, "http://www.h.test/y", "http://www.h.test/y/")
    assert not any(rule.kind == "trailing_slash" for rule in learner.active_rules())
    assert dedup.audits.redirected(audit, "http://www.h.test/x/") == REDIRECT_AGREES


def test_drops_against_a_chain_that_ends_on_a_delivered_page_are_verified() -> None:
    """Hosting seed 359 (a Next.js host, ``fifo-c16-prio``, one run in a dozen): ``/docs``,
    a page of its own, was dropped under ``trailing_slash`` (taught by redirects, so every
    drop is verified) against the pending ``//docs/``, which redirected to ``/docs/``,
    delivered already. The chain settled its claim as delivered without the audits a
    delivery schedules, and ``/docs`` was parked unverified: lost, with the page only it
    links. A chain that ends on a delivered page audits its drops as a delivery does."""
    sent: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), learn=True, reschedule=sent.append)
    observe = dedup.responses.observe_redirect
    observe("http://h.test/c", "http://h.test/c/")
    observe("http://h.test/d", "http://h.test/d/")  # trailing_slash (add), taught by redirects
    page = Request("http://h.test/docs/")
    assert dedup.check(page) is None
    dedup.settling.settle(page, delivered=True)
    dedup.audits.auditor.remember(dedup.fingerprint(page).keys, 7)
    assert dedup.check(Request("http://h.test/go")) is None  # pending
    assert dedup.check(Request("http://h.test/go/")) == "learned:trailing_slash"  # against /go's claim
    hop = Request("http://h.test/docs/", meta={"redirect_urls": ["http://h.test/go"]})
    assert dedup.check(hop) is not None  # the chain ends on the delivered page
    assert [request.url for request in sent] == ["http://h.test/go/"]
    assert M.AUDIT in sent[0].meta


def test_spellings_of_a_key_that_keeps_failing_are_fetched_not_dropped_again_at_each_failure() -> None:
    """Random seed 173830 (``--flaky --sessions --mixed``): hundreds of links to one missing
    page, each with its own session (``/setup/?u=...``, one key under ``ignore_param:u``).
    Each failure released every drop against it, the next spelling took the key and the
    rest were dropped against it again: a filter pass per drop per failure, and the crawl
    slowed to its timeout. After three failed spellings the others are fetched as stock
    fetches them; the filter passes grow with the links, not with their square."""
    queue: list[Request] = []
    dedup = Deduplicator(Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, reschedule=queue.append)
    links = [Request(f"http://h/missing?utm_source={n}") for n in range(200)]
    passes = 0
    fetched: list[Request] = []
    queue.extend(links)
    while queue:  # a crawl: every request meets the filter; what it admits is fetched, and fails
        request = queue.pop(0)
        passes += 1
        if dedup.check(request) is None:
            fetched.append(request)
        if not queue or len(fetched) % 7 == 0:
            while fetched:
                dedup.settling.settle(fetched.pop(0), delivered=False, why="status")
    # Three rounds of releases before the rest are fetched: linear (it was len(links) ** 2 / 2).
    assert passes <= 4 * len(links)
    assert dedup.ledger.unsettled() == 0


def test_the_same_link_met_again_while_its_representative_waits_is_written_once() -> None:
    """A tracking spelling of a page every page links was written in the ledger once per
    page while its representative waited in a long queue (164 copies on the Apache tree,
    ``fifo-c1``): one drop covers them all, as stock's filter drops a URL it has queued.
    A shallower copy is written again (its page's links may reach further)."""
    released: list[Request] = []
    dedup = Deduplicator(
        Policy.preset("default"), fallback=RequestFingerprinter().fingerprint, reschedule=released.append
    )
    page = Request("http://h/about")
    assert dedup.check(page) is None
    for _ in range(50):
        assert dedup.check(Request("http://h/about?utm_source=nav", meta={"depth": 3})) == "tracking_params"
    assert dedup.ledger.unsettled() == 1
    assert dedup.check(Request("http://h/about?utm_source=nav", meta={"depth": 1})) == "tracking_params"
    assert dedup.ledger.unsettled() == 2
    dedup.settling.settle(page, delivered=False, why="status")
    assert sorted(r.meta["depth"] for r in released) == [1, 3]  # one of each, not 51
