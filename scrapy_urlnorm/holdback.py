"""Hold-back: while a rule is undecided on a site, its variants wait their turn.

Learning needs a few pairs of URLs that turn out to be one page (or two). Left
alone, a crawl downloads every variant it meets while the rule is undecided,
and with 16 requests in flight that is most of a small site's variants. Here a
request the filter would admit, that differs from a URL already admitted only
in one learnable aspect (``/a`` vs ``/a/``, ``www.h/a`` vs ``h/a``, ``/A`` vs
``/a``, ``/d/index.html`` vs ``/d/``, ``/x`` vs ``/x.html``), goes through only
if no other variant of that rule on that site is being fetched: it is the
rule's *probe*. Later variants are *held*. When the probe settles (its page,
redirect or error has been seen by the learner):

- the rule became active or was revoked: every held variant is scheduled
  again, through the filter, which now drops or admits it under the decision;
- still undecided: the next held variant is scheduled again, as the new probe.

Held requests are not marked seen and hold no claim: being scheduled again is
their only way out, so nothing waits forever. At ``spider_idle`` everything
still held is scheduled again, marked never to be held again (a crawl always
ends), and ``holdback`` is bounded (``max_held``): past it, variants are fetched.

With ``JOBDIR`` a held request is journaled as a ``DROP`` record of its own
(:meth:`~scrapy_urlnorm.holds.LeaseHolds.journal_held`) until it is scheduled
again: killed or stopped while it waits, it goes through the filter again on
resume. A request that cannot be journaled (no crash-safe scheduler, a request
that does not serialize) is not held. Hold-back is off with a shared Redis store
(other workers share the seen set and the rules).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from . import meta as M
from .keys import host_of
from .learning import Learner, Rule
from .pairs import ALIAS_EXTENSIONS, one_step_pairs
from .params import DEFAULT_PAGES
from .session_links import refetching
from .urlparts import split_url

if TYPE_CHECKING:
    from scrapy import Request

    #: A held request, and its journal record's id (``None``: not journaled).
    _Held = tuple[Request, int | None]

#: Rule families worth holding variants for (a parameter or scheme variant is fetched).
_GATED = ("trailing_slash", "www_alias", "case_insensitive_path", "default_page", "extension_alias")
#: URLs remembered by their loose key (least recently used go first).
MAX_LOOSE = 50_000
#: Requests held at once, over all rules (past it, variants are fetched).
MAX_HELD = 20_000


def loose_key(url: str) -> str:
    """``url`` (statically normalized) with every aspect a learnable rule may
    erase erased: the ``www.`` label, case, a trailing slash, a default page, an
    alias extension. URLs with different loose keys are never variants."""
    head, sep, query = url.partition("?")
    head = head.lower().replace("://www.", "://", 1)
    path_start = head.find("/", head.find("://") + 3)
    if path_start >= 0:
        rest, _, last = head.rpartition("/")
        if last in DEFAULT_PAGES:
            head = rest
        else:
            stem, dot, extension = last.rpartition(".")
            if dot and stem and extension in ALIAS_EXTENSIONS:
                head = f"{rest}/{stem}"
        head = head.rstrip("/")
    return head + sep + query


def variant_kinds(a: str, b: str) -> list[str]:
    """The gated rule kinds under which ``a`` and ``b`` are one step apart."""
    try:
        ua, ub = split_url(a), split_url(b)
    except ValueError:
        return []
    return [kind for kind, _direction, _host in one_step_pairs(ua, ub) if kind.partition(":")[0] in _GATED]


def rule_of(learner: Learner, site: str, host: str, kind: str) -> Rule | None:
    """The learner's rule ``kind`` of ``site``, else of ``host`` (learned before the twins were one site)."""
    return learner.rules.get((site, kind)) or learner.rules.get((host, kind))


def undecided_rules(learner: Learner, first: str, url: str, host: str) -> list[tuple[str, str]]:
    """The (site, kind) of each gated rule under which ``first`` and ``url`` (on ``host``)
    are one step apart and that is neither active nor revoked: what the pair would test."""
    site = learner.site_of(host)
    undecided = []
    for kind in variant_kinds(first, url):
        rule = rule_of(learner, site, host, kind)
        if rule is None or not (rule.active or rule.revoked):
            undecided.append((site, kind))
    return undecided


class HeldJournal(Protocol):
    """Where a held request is kept until it is scheduled again (``JOBDIR``)."""

    def journal_held(self, request: Request) -> int | None: ...

    def held_released(self, drop_id: int) -> None: ...


@dataclass
class _Gate:
    """One undecided rule on one site: the variant being tested, and those waiting."""

    probe: str | None = None
    #: The probe and its partner while they are pending: the pair is judged once both settled.
    waiting: set[str] = field(default_factory=set)
    held: deque[_Held] = field(default_factory=deque)


class HoldBack:
    """Decides which variants wait; ``reschedule(request)`` sends one back to the scheduler."""

    def __init__(
        self,
        learner: Learner,
        reschedule: Callable[[Request], None],
        count: Callable[[str], None],
        pending: Callable[[str], bool] = lambda url: False,
        *,
        journal: HeldJournal | None = None,
        max_held: int = MAX_HELD,
        max_loose: int = MAX_LOOSE,
    ) -> None:
        self.learner = learner
        self.journal = journal  # set: a request is held only once journaled
        self.reschedule = reschedule
        self.count = count
        self.pending = pending  # whether a normalized URL's request is still to settle
        self.max_held = max_held
        self.max_loose = max_loose
        self._loose: OrderedDict[str, str] = OrderedDict()  # loose key -> first URL admitted
        self._gates: dict[tuple[str, str], _Gate] = {}
        self._probes: dict[str, list[tuple[str, str]]] = {}  # probe URL -> its gates
        self.held = 0

    def holds_request(self, request: Request, url: str | None) -> bool:
        """Whether the filter holds ``request`` (normalized ``url``) back instead of
        admitting it (:meth:`hold`). Never an audit, a ``verbatim_url`` request, a
        shortcut, nor one let through for its page's plain links (held, it would be dropped)."""
        meta = request.meta
        if url is None or M.AUDIT in meta or meta.get("verbatim_url") or M.SHORTCUT_OF in meta or refetching(request):
            return False
        return self.hold(request, url, host_of(url))

    def hold(self, request: Request, url: str, host: str) -> bool:
        """``request`` (normalized ``url`` on ``host``) is about to be admitted:
        hold it instead? If not, it is remembered, and may become a probe."""
        loose = loose_key(url)
        first = self._loose.get(loose)
        if first is None:
            self._loose[loose] = url
            if len(self._loose) > self.max_loose:
                self._loose.popitem(last=False)
            return False
        if first == url or request.meta.get(M.NO_HOLD):
            return False
        undecided = undecided_rules(self.learner, first, url, host)
        if not undecided:
            return False
        gates = self._gates
        busy = [gates[key] for key in undecided if key in gates and gates[key].probe not in (None, url)]
        if busy and self.held < self.max_held:
            record = None
            if self.journal is not None:
                record = self.journal.journal_held(request)
                if record is None:
                    return False  # nowhere to keep it through a kill: fetched
            busy[0].held.append((request, record))
            self.held += 1
            self.count("urlnorm/held_back")
            return True
        for key in undecided:  # the probe of every gate that is free
            gate = gates.setdefault(key, _Gate())
            if gate.probe is None:
                gate.probe = url
                gate.waiting = {url, first} if self.pending(first) else {url}
                for waited in gate.waiting:
                    self._probes.setdefault(waited, []).append(key)
        return False

    @property
    def testing(self) -> bool:
        """Whether a probe (or its partner) is still to settle."""
        return bool(self._probes)

    def settled(self, url: str) -> None:
        """The request for normalized ``url`` settled; once a probe and its partner
        both have, the learner has judged the pair: let the next variants go."""
        keys = self._probes.pop(url, None)
        if not keys:
            return
        for key in keys:
            gate = self._gates.get(key)
            if gate is None or url not in gate.waiting:
                continue
            gate.waiting.discard(url)
            if gate.waiting:
                continue
            gate.probe = None
            rule = self.learner.rules.get(key)
            decided = rule is not None and (rule.active or rule.revoked)
            self._release(gate, everything=decided)
            if not gate.held:
                del self._gates[key]

    def release_all(self) -> int:
        """At ``spider_idle``: schedule every held request again, never to be held again."""
        released = 0
        for gate in self._gates.values():
            released += self._release(gate, everything=True, final=True)
        self._gates.clear()
        self._probes.clear()
        return released

    def _release(self, gate: _Gate, *, everything: bool, final: bool = False) -> int:
        released = 0
        while gate.held and (everything or not released):
            request, record = gate.held.popleft()
            self.held -= 1
            if final:
                request.meta[M.NO_HOLD] = True
            self.count("urlnorm/held_back_released")
            self.reschedule(request)
            if record is not None and self.journal is not None:  # (queued or dropped again by now)
                self.journal.held_released(record)
            released += 1
        return released
