"""Session-like parameters: recognised by their values, confirmed by content, per resource.

A site that writes a session token into its links when the client keeps no
cookie (``/a?s=8f3a...``, under a name no list knows) gives every page as many
URLs as there are answers linking to it, and a fresh token in every answer's
links: stock Scrapy fetches each spelling, and each answer makes new ones.
``ignore_param:s`` is learned from content, but, as every ``ignore_param``
rule, verified on every drop (``VERIFIED_FAMILIES``: a parameter ignored on
articles may select the page of a list), so each spelling is still downloaded.

Four things together tell a session token from a parameter that selects a
page, and only then is a spelling's drop not verified on its own (it is
sampled like any learned drop):

- its values look like random tokens (:func:`~scrapy_urlnorm.params.looks_like_token`:
  no number, word or slug; ``?ref=footer`` and ``?page=2`` never qualify);
- the host's values of that parameter are not tied to a path: one value was
  seen on three paths (a session's token rides on every link of an answer; an
  identifier names one resource, or a few: ``/item?id=...`` and
  ``/item/reviews?id=...``);
- on this *resource* (the URL less that parameter: ``/a`` for ``/a?s=...``),
  two token spellings answered one page and none answered another (a list
  that varies never settles);
- and the resource answered that page to a token nobody issued: once the second
  spelling agrees, the add-on asks for the resource with a value of its own
  making (the last value seen, turned round: same length, same characters),
  once, never shown to the spider (``urlnorm/spelling_probes``). A server that
  keeps sessions in URLs serves any value alike; a revision id (``?id=<hash>``
  on a repository browser, where three revisions of a file may agree and the
  fourth not) or an item id answers an error or another page, and the
  resource never settles.

What a resource learned stays there: a spelling elsewhere is verified as
before. A settled resource that answers another page later unsettles for good,
and :meth:`ParamSpellings.observe` names it, so the drops made on its settling
are fetched after all.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import unquote

from scrapy import Request

from . import meta as M
from .params import looks_like_token
from .recent import put_recent

#: Token spellings of a parameter that must answer one page on a resource.
SPELLINGS_TO_SETTLE = 2
#: Resources (URL less one parameter) remembered, least recently seen forgotten first.
RESOURCES_REMEMBERED = 20_000
#: Token values remembered with the paths they were seen on.
VALUES_REMEMBERED = 20_000
#: Paths one token value must be seen on for its parameter to be session-like.
PATHS_OF_A_SESSION = 3
#: Query pairs of a URL looked at (a longer query's later parameters are not).
PAIRS_LOOKED_AT = 8
#: A resource that answered two pages.
_VARIED = -1
#: A resource's probe: not sent yet; sent; answered with the resource's page.
_UNASKED, _ASKED, _CONFIRMED = 0, 1, 2


class ParamSpellings:
    """Which parameters carry session-like tokens, and which resources settled on one page."""

    def __init__(self, cap: int = RESOURCES_REMEMBERED) -> None:
        self.cap = cap
        #: Sends a probe past the filter (unset: no probes, so no resource settles).
        self.send: Callable[[Request], None] | None = None
        self.count: Callable[[str], None] = lambda key: None
        # hash((URL less the parameter, its name)) -> [digest or _VARIED, token spellings seen, probe state]
        self._resources: OrderedDict[int, list] = OrderedDict()
        # hash((host, name, value)) -> hashes of the paths it was seen on (up to PATHS_OF_A_SESSION)
        self._values: OrderedDict[int, tuple[int, ...]] = OrderedDict()
        self._session_like: set[int] = set()  # hash((host, name)) of parameters whose tokens ride on paths

    def observe(self, url: str, digest: int) -> set[int]:
        """Normalized ``url`` answered a page ``digest``; returns the settled resources
        of it that answered another page now (the drops made on their settling are
        suspect: see :meth:`resources`)."""
        unsettled = set()
        for resource, name, spelling in _spellings_of(url):
            token = _tokens(spelling)
            if token:
                self._saw(url, name, spelling)
            entry = self._resources.get(resource)
            if entry is None:
                put_recent(self._resources, resource, [digest, {spelling} if token else set(), _UNASKED], self.cap)
                continue
            self._resources.move_to_end(resource)
            if entry[0] == _VARIED:
                continue
            if entry[0] != digest:
                if entry[2] == _CONFIRMED:
                    unsettled.add(resource)
                entry[0], entry[1] = _VARIED, set()
            elif token and len(entry[1]) < SPELLINGS_TO_SETTLE:
                entry[1].add(spelling)
                if len(entry[1]) >= SPELLINGS_TO_SETTLE:
                    self._probe(entry, url, name, spelling)
        return unsettled

    def _probe(self, entry: list, url: str, name: str, spelling: str) -> None:
        """Ask for ``url`` with ``name`` set to a value nobody issued (once per resource)."""
        if entry[2] != _UNASKED or self.send is None or "\0" in spelling:
            return
        entry[2] = _ASKED
        made_up = spelling[::-1] if spelling[::-1] != spelling else spelling[1:] + spelling[0]
        head, _, query = url.partition("?")
        pairs = [f"{name}={made_up}" if pair.partition("=")[0] == name else pair for pair in query.split("&")]
        self.count("urlnorm/spelling_probes")
        self.send(
            Request(
                f"{head}?{'&'.join(pairs)}",
                dont_filter=True,
                priority=1000,  # before the drops that wait for its answer
                meta={M.SPELLING_PROBE: name, "dont_redirect": True, "dont_retry": True},
            )
        )

    def probed(self, url: str, name: str, digest: int | None) -> None:
        """The probe for ``url``'s resource (parameter ``name``) answered the page
        ``digest`` (``None``: anything but a page): the resource settles if it is its page."""
        for resource, spelled, _spelling in _spellings_of(url):
            if spelled != name:
                continue
            entry = self._resources.get(resource)
            if entry is None or entry[0] == _VARIED:
                return
            if entry[0] == digest:
                entry[2] = _CONFIRMED
            else:
                entry[0], entry[1] = _VARIED, set()

    def settles(self, url: str, digest: int) -> bool:
        """Whether normalized ``url`` spells a session-like parameter with a token, on a
        resource whose token spellings all answered the page ``digest``."""
        host = _host_of(url)
        for resource, name, spelling in _spellings_of(url):
            if hash((host, name)) not in self._session_like or not _tokens(spelling):
                continue
            entry = self._resources.get(resource)
            if entry is not None and entry[0] == digest and entry[2] == _CONFIRMED:
                return True
        return False

    @staticmethod
    def resources(url: str) -> set[int]:
        """The resources normalized ``url`` is a spelling of (as :meth:`observe` returns them)."""
        return {resource for resource, _name, _spelling in _spellings_of(url)}

    def _saw(self, url: str, name: str, spelling: str) -> None:
        """A token ``spelling`` of ``name`` on ``url``'s path: enough paths make it session-like."""
        host = _host_of(url)
        value = hash((host, name, spelling))
        path = hash(url.partition("?")[0])
        paths = self._values.get(value, ())
        if path in paths or len(paths) >= PATHS_OF_A_SESSION:
            return
        paths = (*paths, path)
        put_recent(self._values, value, paths, VALUES_REMEMBERED)
        if len(paths) >= PATHS_OF_A_SESSION and len(self._session_like) < VALUES_REMEMBERED:
            self._session_like.add(hash((host, name)))

    def __len__(self) -> int:
        return len(self._resources) + len(self._values)


def _tokens(spelling: str) -> bool:
    """Whether each of ``spelling``'s values (``\\0``-joined) looks like a random token."""
    return all(looks_like_token(unquote(value)) for value in spelling.split("\0"))


def _host_of(url: str) -> str:
    return url.partition("//")[2].partition("/")[0].partition("?")[0]


def _spellings_of(url: str) -> list[tuple[int, str, str]]:
    """``url``'s resources, one per parameter name in its query (each the URL less that
    parameter, hashed with its name), with the name and its spelling (its values)."""
    head, sep, rest = url.partition("?")
    if not sep:
        return []
    query = rest.partition("#")[0]
    pairs = query.split("&")[:PAIRS_LOOKED_AT]
    names: dict[str, list[str]] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name:
            names.setdefault(name, []).append(value)
    out = []
    for name, values in names.items():
        others = "&".join(pair for pair in pairs if pair.partition("=")[0] != name)
        out.append((hash((head, others, name)), name, "\0".join(sorted(values))))
    return out
