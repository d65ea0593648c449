"""The drop ledger: every drop is a promise that another request delivers the page.

A request is dropped only against a *representative*: the request that holds
the same key and has delivered its page (a final, non-redirect 2xx response)
or is still pending. A pending representative holds a :class:`Claim` on its
keys; each drop made against it is written under that claim. When the claim
settles:

- *delivered*: the drops are discharged (drops made by learned rules stay
  parked under their host, so a revoked rule can still release them);
- *not delivered* (an error status, a download error, an ignored or offsite
  request, a redirect nobody followed, a request dropped itself): everything
  dropped against it is released, that is scheduled again, once.

A redirect passes its claim to its target (:meth:`DropLedger.merge`): the
target's page is the one the source's drops were promised. At ``spider_idle``
no claim can still be pending (nothing is in flight), so whatever is left is
released before the spider may close (:meth:`DropLedger.release_orphans`).

The ledger is bounded: when it is full, :meth:`DropLedger.drop` says no and
the caller fetches the request instead. A duplicate costs one request; a lost
page costs the user's data.

A drop may *hold* something until it is settled (:attr:`Drop.hold`): in a
distributed crawl, the queue lease of the page that yielded it, so a worker
killed before the representative settles leaves that page to be fetched
again, its links with it (see :attr:`DropLedger.on_hold`).

Parked drops (learned drops whose representative delivered, kept only so
that a revoked rule can release them) are most of what a long crawl keeps
here, so they are kept light: a plain ``Request`` is parked as the few fields
it is rebuilt from (:class:`Parked`, about a third of a ``Request``); anything
else (a subclass, a body, cookies, other attributes) is kept whole. They are
bounded per host and in total (:data:`MAX_PARKED_PER_HOST`,
:data:`MAX_PARKED`; :mod:`scrapy_urlnorm.parking` keeps them): a learned drop
that cannot be parked is fetched instead (``urlnorm/parked_overflow``), never
dropped without its insurance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from scrapy import Request

from . import meta as M
from .callbacks import callback_name
from .depths import depth_of
from .parking import ParkedDrops, Parking

#: Drops held at once (waiting on pending claims, plus learned drops parked for revocation).
MAX_DROPS = 200_000
#: Learned drops parked per host for revocation (a rule's first drops on a host
#: are audited; a host that keeps more than this many is fetched beyond it).
MAX_PARKED_PER_HOST = 20_000
#: Learned drops parked in all (part of ``MAX_DROPS``).
MAX_PARKED = 100_000
#: A claim's drops looked through for a repeat (:meth:`Claim.repeats`); past this
#: many distinct spellings, a repeat is written again (it costs memory, not a request).
_REPEAT_SCAN = 256

#: The attributes of a plain ``Request`` (Scrapy 2.15+ declares them in ``__slots__``;
#: before, they are in its ``__dict__``); one with any other is parked whole.
_REQUEST_ATTRIBUTES = frozenset(
    {
        "_url", "method", "_body", "headers", "_headers", "_meta", "_cb_kwargs", "callback", "errback",
        "priority", "dont_filter", "_encoding", "flags", "_flags", "cookies", "_cookies",
    }
)  # fmt: skip


def same_url_and_callback(request: Request) -> int:
    """A parked drop's identity without a policy: its URL as written, and its callback."""
    return hash((request.url, callback_name(request)))


def _field(request: Request, name: str) -> Any:
    """A lazily made field of ``request`` (``cookies``, ``flags``, ``headers``), without making it."""
    fields = getattr(request, "__dict__", None)
    if fields is not None:
        return fields.get(name)
    return getattr(request, f"_{name}", None)


class Parked(tuple[Any, ...]):
    """A plain GET ``Request`` as its URL and a shared *template* it is rebuilt
    from: (callback, errback, priority, dont_filter, meta items, header items).
    The links of one page share their template (the same callback, depth,
    ``Referer``...), so a parked drop costs its URL and a few pointers."""

    __slots__ = ()

    @property
    def url(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    def rebuild(self) -> Request:
        url, (callback, errback, priority, dont_filter, meta, headers) = self
        return Request(
            url,
            callback=callback,
            errback=errback,
            priority=priority,
            dont_filter=dont_filter,
            meta=dict(meta) if meta else None,
            headers={name: list(values) for name, values in headers} if headers else None,
        )


#: Templates of recent parked requests (template -> itself), so equal ones are one object.
_TEMPLATES: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_TEMPLATES_SIZE = 4096


def lighten(request: Request) -> Request | Parked:
    """``request`` as a :class:`Parked` when it is a plain GET ``Request`` that
    rebuilds to an equal one, else ``request`` itself."""
    fields = getattr(request, "__dict__", None)
    if (
        type(request) is not Request
        or request.method != "GET"
        or request._body
        or _field(request, "cookies")
        or _field(request, "flags")
        or request._cb_kwargs
        or request._encoding != "utf-8"
        or (fields is not None and not _REQUEST_ATTRIBUTES.issuperset(fields))
    ):
        return request
    meta = request._meta
    headers = _field(request, "headers")
    template = (
        request.callback,
        request.errback,
        request.priority,
        request.dont_filter,
        tuple(meta.items()) if meta else None,
        tuple((name, tuple(values)) for name, values in headers.items()) if headers else None,
    )
    try:
        shared = _TEMPLATES.get(template)
    except TypeError:  # a meta value that cannot be hashed: not shared
        shared = None
    else:
        if shared is None:
            if len(_TEMPLATES) >= _TEMPLATES_SIZE:
                _TEMPLATES.clear()
            shared = _TEMPLATES[template] = template
    return Parked((request.url, shared if shared is not None else template))


def rebuilt(request: Request | Parked) -> Request:
    """``request`` as a ``Request`` again (rebuilt, when it was kept light: :func:`lighten`)."""
    return request.rebuild() if type(request) is Parked else request  # type: ignore[union-attr,return-value]


class Drop:
    """One request dropped against a claim (or parked under a learned rule)."""

    __slots__ = ("_request", "hold", "host", "learned", "reason", "settled", "swept")

    def __init__(self, request: Request, reason: str, host: str, learned: bool, hold: Any = None) -> None:
        self._request: Request | Parked = request
        self.reason = reason
        self.host = host
        self.learned = learned
        #: True once released or discharged for good: never released twice.
        self.settled = False
        #: True once the idle sweep looked at it (``unvouched``): what it found does not change.
        self.swept = False
        #: What is given back (``DropLedger.on_hold``) once the drop's fate is known.
        self.hold = hold

    @property
    def request(self) -> Request:
        """The dropped request (rebuilt, when it was parked light)."""
        return rebuilt(self._request)

    @property
    def url(self) -> str:
        return self._request.url

    @property
    def depth(self) -> int:
        """The depth ``DepthMiddleware`` gave the dropped request (``depths.depth_of``),
        read without rebuilding a request parked light."""
        request = self._request
        if isinstance(request, Parked):
            meta = request[1][4]
            return next((value for name, value in meta if name == "depth"), 0) if meta else 0
        return request.meta.get("depth", 0)

    def lighten(self) -> None:
        """Parked for good: keep the request as the fields it is rebuilt from, when it can be."""
        if type(self._request) is not Parked:
            self._request = lighten(self._request)  # type: ignore[arg-type]


#: The holder of a claim loaded from the last run (see :mod:`scrapy_urlnorm.resume`):
#: any request of its keys (``hash()`` of a ``str`` is never -1).
ANY_HOLDER = -1


class Claim:
    """The keys a pending representative holds, and what was dropped against it.

    One exists per request in flight or queued, so it is kept small: the
    holder is the hash of its URL (``hash(str)`` is cached by the string),
    ``drops`` is made on the first drop.
    """

    __slots__ = ("drops", "holder", "keys", "settled")

    def __init__(self, keys: tuple[int, ...], holder: str) -> None:
        self.keys = keys
        #: hash() of the URL of the request that holds the claim now (a redirect target takes it over).
        self.holder = hash(holder)
        self.drops: list[Drop] | None = None
        self.settled = False

    def held_by(self, url: str) -> bool:
        return self.holder == hash(url) or self.holder == ANY_HOLDER

    def hand_over(self, url: str) -> None:
        self.holder = hash(url)

    def repeats(self, request: Request) -> bool:
        """Whether this claim holds an unsettled drop of ``request``'s very URL and callback,
        no deeper and holding nothing: ``request`` is the same link met again on another
        page, and that drop's promise covers it, as stock's filter drops a URL it has
        scheduled. Without this, a tracking spelling of a page linked from every page
        was written once per page while its representative waited in a long queue (164
        copies on the Apache tree, ``fifo-c1``), filling the ledger towards its cap, and
        each copy went through the filter again when the claim moved on."""
        drops = self.drops
        if not drops or len(drops) > _REPEAT_SCAN:
            return False
        url = request.url
        for drop in drops:
            if drop.url == url and not drop.settled and drop.hold is None:
                kept = drop.request
                if callback_name(kept) == callback_name(request) and drop.depth <= depth_of(request):
                    return True
        return False


class ClaimTable:
    """Which keys are pending, and under which :class:`Claim` (one per representative;
    a redirect merges its claim into its target's)."""

    def __init__(self) -> None:
        self._claims: dict[int, Claim] = {}
        self._peak = 0  # the most claims held since the dict was last rebuilt

    def claim(self, keys: Iterable[int], holder: str) -> Claim:
        """A representative takes ``keys`` (a key already claimed joins that claim)."""
        claims = self._claims
        keys = keys if type(keys) is tuple else tuple(keys)
        claim = Claim(keys, holder)
        for key in keys:
            if key in claims:
                break
        else:
            for key in keys:
                claims[key] = claim
            if len(claims) > self._peak:
                self._peak = len(claims)
            return claim
        # A key is claimed already: that claim joins this one.
        claim.keys = ()
        for key in keys:
            old = claims.get(key)
            if old is not None and old is not claim:
                self.merge(old, claim)
            else:
                claims[key] = claim
                claim.keys += (key,)
        if len(claims) > self._peak:
            self._peak = len(claims)
        return claim

    def claim_of(self, key: int | None) -> Claim | None:
        return None if key is None else self._claims.get(key)

    def is_pending(self, key: int | None) -> bool:
        return key is not None and key in self._claims

    def merge(self, source: Claim, target: Claim) -> None:
        """``source``'s representative redirected to ``target``'s: one fate for both."""
        if source is target:
            return
        for key in source.keys:
            self._claims[key] = target
        target.keys += source.keys
        if source.drops:
            if target.drops is None:
                target.drops = []
            target.drops.extend(source.drops)
        source.keys, source.drops, source.settled = (), None, True

    def detach(self, claim: Claim, key: int) -> None:
        """``key`` no longer belongs to ``claim``."""
        if self._claims.get(key) is claim:
            del self._claims[key]
        claim.keys = tuple(k for k in claim.keys if k != key)

    def _close(self, claim: Claim) -> tuple[int, ...]:
        claim.settled = True
        claims = self._claims
        for key in claim.keys:
            if claims.get(key) is claim:
                del claims[key]
        keys, claim.keys = claim.keys, ()
        if self._peak > 4096 and len(claims) * 8 < self._peak:
            # A dict never shrinks by itself: after a burst of pending
            # requests has settled, give the memory back.
            self._claims = dict(claims)
            self._peak = len(claims)
        return keys

    def pending(self) -> list[Claim]:
        """Every pending claim, once each."""
        return list({id(claim): claim for claim in self._claims.values()}.values())

    def pending_claims(self) -> int:
        return len(self.pending())

    def pending_drops(self) -> Iterator[Drop]:
        """The drops written under pending claims (settled ones too)."""
        for claim in self.pending():
            yield from claim.drops or ()

    def take_drops(self, taken: Callable[[Drop], bool]) -> list[Drop]:
        """Remove from pending claims, and return, the drops ``taken`` says."""
        took: list[Drop] = []
        for claim in self.pending():
            if claim.drops:
                kept: list[Drop] = []
                for drop in claim.drops:
                    (took if taken(drop) else kept).append(drop)
                claim.drops = kept
        return took


class DropLedger(ClaimTable):
    """Claims of pending representatives and the drops written under them.

    ``reschedule(request, why)`` sends a released request back to the
    scheduler; ``count(key, n)`` counts into the crawl's stats.
    """

    def __init__(
        self,
        reschedule: Callable[[Request, str], None] | None,
        count: Callable[[str, int], None],
        *,
        max_drops: int | None = None,
        max_parked_per_host: int | None = None,
        max_parked: int | None = None,
        identity: Callable[[Request], int] | None = None,
    ) -> None:
        self._reschedule = reschedule
        #: Which parked drops are one URL (see :mod:`scrapy_urlnorm.parking`).
        self._identity = identity or same_url_and_callback
        self._count = count
        super().__init__()
        self.max_drops = MAX_DROPS if max_drops is None else max_drops
        #: Learned drops against delivered pages, for revocation (see :mod:`scrapy_urlnorm.parking`).
        self._parked = ParkedDrops(
            MAX_PARKED_PER_HOST if max_parked_per_host is None else max_parked_per_host,
            MAX_PARKED if max_parked is None else max_parked,
        )
        self.held = 0  # drops waiting on a claim or parked
        self.released = 0
        #: Called with a drop's ``hold`` once its representative delivered or it was released.
        self.on_hold: Callable[[Any], None] | None = None
        #: Called with a drop's ``hold`` when the drop takes it.
        self.on_take: Callable[[Any], None] | None = None
        #: Called with each drop parked (distributed: mirrored in Redis, see ``SharedParkedDrops``).
        self.on_park: Callable[[Drop], None] | None = None

    def delivered(self, claim: Claim) -> tuple[int, ...]:
        """The representative delivered its page: discharge its drops; its keys are returned."""
        keys = self._close(claim)
        for drop in claim.drops or ():
            if drop.learned and not drop.settled:
                self._park(drop)
            elif not drop.settled:
                drop.settled = True
                self.held -= 1
            self._unhold(drop)
        claim.drops = None
        return keys

    def failed(
        self,
        claim: Claim,
        why: str,
        mark: Callable[[tuple[int, ...]], None] | None = None,
        sent: Callable[[Request], bool] | None = None,
    ) -> tuple[int, ...]:
        """The representative settled without delivering: release its drops; its keys are returned.

        ``mark`` is given the keys *before* any drop is released: a released request goes
        back through the filter at once, and must find them failed, not delivered (its
        representative's claim is closed by then), or it is dropped again against the
        page that just failed.

        A drop ``sent`` says was sent already, as written (stock's fingerprint), is not
        released: stock Scrapy fetches a URL once, and would have filtered it too. Without
        this, each copy of a link to a page that keeps failing (``/docs`` redirecting to a
        ``robots.txt``-forbidden ``/docs/``) would be fetched in turn."""
        keys = self._close(claim)
        if mark is not None:
            mark(keys)
        drops, claim.drops = claim.drops or (), None
        for drop in drops:
            if sent is not None and not drop.settled and sent(drop.request):
                self._count("urlnorm/release_skipped_sent", 1)
                self.discharge(drop)
            else:
                self._release(drop, why)
        return keys

    # -- drops ---------------------------------------------------------------------

    def drop(
        self, request: Request, reason: str, host: str, *, learned: bool, claim: Claim | None, hold: Any = None
    ) -> bool:
        """Write a drop against ``claim`` (``None``: against a delivered page, kept
        only when ``learned``, so a revoked rule can release it). False when a
        drop against a pending claim does not fit: fetch instead.

        A learned drop against a delivered page that cannot be parked (its host's
        share, or all parked drops, at their cap) is not made: the request is
        fetched instead (``urlnorm/parked_overflow``). Its page was delivered,
        but a rule revoked later could not release it."""
        if claim is None and not learned:
            return True  # against a delivered page: nothing to keep
        entry = Drop(request, reason, host, learned)
        if claim is None:
            if self.held >= self.max_drops:
                self._count("urlnorm/parked_overflow", 1)
                return False
            return self._park(entry, counted=False)
        if self.held >= self.max_drops:
            self._count("urlnorm/ledger_full", 1)
            return False
        entry.hold = hold
        if claim.drops is None:
            claim.drops = []
        claim.drops.append(entry)
        if hold is not None and self.on_take is not None:
            self.on_take(hold)
        self.held += 1
        return True

    def restore(self, claim: Claim, request: Request, reason: str, host: str, *, learned: bool) -> None:
        """Write again a drop the last run made against ``claim`` (:mod:`scrapy_urlnorm.resume`):
        it was within the cap then, and is kept whatever the cap is now."""
        if claim.drops is None:
            claim.drops = []
        claim.drops.append(Drop(request, reason, host, learned))
        self.held += 1

    def parked_of(self, host: str) -> list[Drop]:
        """``host``'s parked drops not settled yet."""
        return self._parked.of_host(host)

    def parked_drops(self) -> Iterator[Drop]:
        """The learned drops parked against delivered pages, not settled yet."""
        return self._parked.unsettled()

    def restore_parked(self, request: Request, reason: str, host: str) -> bool:
        """Park again a learned drop the last run parked (:mod:`scrapy_urlnorm.resume`);
        False if it does not fit under the caps now (``urlnorm/parked_overflow``)."""
        return self._park(Drop(request, reason, host, True), counted=False)

    def _park(self, drop: Drop, *, counted: bool = True) -> bool:
        """Keep a learned drop whose page was delivered, light; False if it does not
        fit (``counted``: it was held already, and is released now: fetched after all)."""
        url = self._identity(drop.request)
        parked = self._parked.get(drop.host, url)
        if parked is not None and not parked.settled and drop.depth < parked.depth:
            # One link per URL is parked, the shallowest: released, its page's links come
            # at its depth (``DEPTH_LIMIT``: an audit that finds the URL a page of its own
            # releases it only if shallower than itself; the first, deeper link kept, the
            # page's links were cut, differential seed 76107). The deeper one is its repeat.
            self.discharge(parked)
        parking = self._parked.put(drop, url)
        if parking is Parking.REPEAT:
            if counted:
                drop.settled = True
                self.held -= 1
            return True
        if parking is Parking.FULL:
            self._count("urlnorm/parked_overflow", 1)
            if counted:  # dropped already: fetch it after all rather than keep no promise
                self._release(drop, "parked_overflow")
            return False
        if not counted:
            self.held += 1
        if self.on_park is not None:
            self.on_park(drop)
        return True

    def revoke_host(self, host: str) -> int:
        """A learned rule of ``host`` was revoked: release what learned rules dropped there."""
        # Collect first, release after: a released request goes back through the
        # filter and may be dropped again (under the host's other rules) into the
        # very lists walked here; walking them while they grow never ends.
        revoked = self._parked.pop_host(host)
        revoked += self.take_drops(lambda drop: drop.learned and drop.host == host and not drop.settled)
        for drop in revoked:
            self._release(drop, "revoked")
        return len(revoked)

    def discharge(self, drop: Drop) -> None:
        """``drop``'s request is being fetched after all (an audit): it needs no promise."""
        if not drop.settled:
            drop.settled = True
            self.held -= 1
        self._unhold(drop)

    def forget_request(self, host: str, request: Request) -> None:
        """``request`` is being fetched as written after all: do not release it again."""
        url = self._identity(request)
        drop = self._parked.get(host, url)
        if drop is not None:
            self.discharge(drop)
        for drop in self.pending_drops():
            if drop.url == request.url:
                self.discharge(drop)

    def parked_drop(self, host: str, request: Request) -> Drop | None:
        """The drop parked against a delivered page that is one URL with ``request``'s, if any."""
        return self._parked.get(host, self._identity(request))

    def release_as_written(self, drops: Iterable[Drop], why: str) -> int:
        """Release ``drops`` past the filter, to be fetched as written: each is
        known to need its own fetch, though its key is its representative's."""
        released = 0
        for drop in drops:
            if not drop.settled:
                request = drop.request
                drop._request = request.replace(dont_filter=True, meta={**request.meta, M.AS_WRITTEN: True})
                self._release(drop, why)
                released += 1
        return released

    def release_orphans(self, mark: Callable[[tuple[int, ...]], None] | None = None) -> int:
        """At ``spider_idle`` nothing is in flight: no pending claim can settle
        any more. Release what was dropped against them (``mark``: see :meth:`failed`)."""
        released = 0
        for claim in self.pending():
            released += sum(1 for drop in claim.drops or () if not drop.settled)
            self.failed(claim, "idle", mark)
        return released

    def _release(self, drop: Drop, why: str) -> None:
        if drop.settled:
            return
        drop.settled = True
        self.held -= 1
        self.released += 1
        self._count(f"urlnorm/released/{why}", 1)
        if self._reschedule is not None:
            self._reschedule(drop.request, why)
        self._unhold(drop)  # after: the request is queued again before what held it goes

    def _unhold(self, drop: Drop) -> None:
        hold = drop.hold
        if hold is not None:
            drop.hold = None
            if self.on_hold is not None:
                self.on_hold(hold)

    # -- figures --------------------------------------------------------------------

    def unsettled(self) -> int:
        """Drops still waiting on a pending claim."""
        return sum(1 for drop in self.pending_drops() if not drop.settled)

    def parked(self) -> int:
        return len(self._parked)

    def clear(self) -> None:
        self._claims.clear()
        self._parked.clear()
        self.held = 0
