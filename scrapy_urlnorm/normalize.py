"""``normalize_url`` and ``explain_url``: parse once, run the policy's steps, serialize once."""

from __future__ import annotations

import re
from typing import NamedTuple

from . import hosts, params
from .errors import InvalidURL
from .policy import Policy
from .steps import CompiledSteps, compiled, embeds_url, param_name
from .urlparts import SplitURL, split_url, unsplit_url

_new = tuple.__new__

DEFAULT_POLICY = Policy.preset("default")


class ExplainedStep(NamedTuple):
    """A step that changed the URL, and the URL right after it."""

    step: str
    url: str


def host_key(host: str) -> str:
    """The lower-case ASCII form of a raw host, as per-host policies match it."""
    try:
        return hosts.idna_host(host).rstrip(".") or host
    except ValueError:
        return host.lower()


def _policy_for(u: SplitURL, policy: Policy) -> Policy:
    return policy.for_host(host_key(u.host)) if policy.host_policies else policy


def normalize_url(url: str | object, policy: Policy | None = None) -> str:
    """Normalize ``url`` under ``policy`` (``None``: the ``default`` preset).

    Raises :class:`~scrapy_urlnorm.InvalidURL` (a ``ValueError``) if ``url`` is
    not an absolute http(s), ws(s) or ftp URL. Idempotent:
    ``normalize_url(normalize_url(u, p), p) == normalize_url(u, p)``.
    """
    return normalize_with_rank(url, policy or DEFAULT_POLICY)[0]


_AUTHORITY_CACHE_SIZE = 1 << 16


def normalize_with_rank(url: str | object, policy: Policy) -> tuple[str, int]:
    """``normalize_url`` plus the rank of the riskiest step that changed the URL
    (0 if only steps stock Scrapy also performs did); see ``steps.REASONS``.

    URLs are typed ``str | object`` so that, compiled with mypyc too, a
    non-string raises :class:`InvalidURL` rather than a ``TypeError``."""
    if not policy.host_policies:
        found = _already_normal(url, policy)
        if found is not None:
            return found
    return normalize_slowly(url, policy)


# -- the fast path: one check that a URL is already normal -------------------------------
#
# Most links a site writes are in normal form but for their fragment, their
# query parameters (tracking, session ids, order) and perhaps a session id
# path parameter, and their authority (scheme, host, port) is one the
# normalizer has met before. For those, one regular expression over the URL
# (no escapes, no user info, no dot segment, only characters every component
# allows as they are), a few substring tests and parameter-level work on the
# query replace parsing, fifteen steps and serializing. The authority comes
# from the per-policy authority cache, so the host steps (lower case, IDNA,
# IP forms, www, default port) are not redone either. Any doubt returns
# ``None`` and the URL takes the full way, which gives the same answer
# (``tests/test_fast_path.py`` checks both agree).
#
# Without "%" the escape steps (percent_encode, uppercase_escapes,
# decode_unreserved) leave every component as it is, so the later steps see
# the raw path and query: the fast path runs the same name tests on the same
# strings.

_FAST_AUTHORITY = (
    r"([A-Za-z][A-Za-z0-9+.\-]*)://"  # scheme
    r"([^\x00-\x20\x7f/?#@\[\]:%<>\\^|]+)"  # host: no user info, no IPv6, no escape
    r"(?::([1-9][0-9]{0,4}))?"  # port, as split_url would write it
)
_FAST_QUERY = r"(?:\?([A-Za-z0-9\-._~!$&'()*+,;=:@/?]*))?"  # query: what the path allows, plus "?"
# path: only characters it allows raw
_FAST_URL = re.compile(_FAST_AUTHORITY + r"(/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)" + _FAST_QUERY)
# The same without a path ("http://h", "http://h?q"; the path group matches ""),
# tried only when the first fails: an optional path group slows every match.
_FAST_NO_PATH = re.compile(_FAST_AUTHORITY + "()" + _FAST_QUERY)


#: What a fragment that may be a hashbang starts with, as written (WHATWG drops tabs and newlines).
HASHBANG_STARTS = ("!", "\t", "\n", "\r")


class _FastPlan(NamedTuple):
    """What the fast check must look at under one policy."""

    keep_fragment: bool
    keep_hashbang: bool
    session_ids: bool
    collapse_slashes: bool
    lowercase_path: bool
    default_pages: tuple[str, ...]
    alias_extensions: frozenset[str]
    trailing_slash: str
    # The rank of each step the fast path may see change the URL, -1 when the
    # policy does not run it (ranks depend on the policy: learned steps rank higher).
    session_rank: int
    empty_path_rank: int
    tracking_rank: int
    ignore_rank: int
    sort_rank: int
    empty_query_rank: int
    remove_params: frozenset[str]
    keep_params: frozenset[str]
    ignore_params: frozenset[str]
    query_steps: bool  # whether any of the query steps runs
    removes_params: bool  # whether session_ids, tracking_params or ignore_params runs
    fast_query: bool  # False: URLs with a query take the full way
    #: Raw parameter name -> the rank of the step that removes it (_KEPT: none,
    #: _IF_TOKEN: it depends on the value); filled as names are met.
    verdicts: dict[str, int]


_QUERY_STEPS = ("session_ids", "tracking_params", "ignore_params", "sort_query", "drop_empty_query")


def _fast_plan(policy: Policy) -> _FastPlan:
    ranks = {name: rank for _apply, name, rank in compiled(policy)[1]}
    return _FastPlan(
        policy.keep_fragment,
        policy.keep_hashbang,
        policy.session_ids,
        policy.collapse_slashes,
        policy.lowercase_path,
        policy.default_pages,
        policy.alias_extensions,
        policy.trailing_slash,
        ranks.get("session_ids", -1),
        ranks.get("empty_path_slash", -1),
        ranks.get("tracking_params", -1),
        ranks.get("ignore_params", -1),
        ranks.get("sort_query", -1),
        ranks.get("drop_empty_query", -1),
        policy.remove_params,
        policy.keep_params,
        policy.ignore_params,
        any(name in ranks for name in _QUERY_STEPS),
        any(name in ranks for name in _QUERY_STEPS[:3]),
        # A name set holding "" (possible only when built as a frozenset by hand)
        # would have a step remove empty pairs, which _fast_query assumes none does.
        "" not in policy.remove_params and "" not in policy.ignore_params,
        {},
    )


_KEPT = -1
_IF_TOKEN = -2
#: Names remembered per plan: a site's parameter names are few, a trap's need
#: not be, and each host with learned rules has a policy, so a plan, of its own.
_VERDICTS_PER_PLAN = 64


def _param_verdict(plan: _FastPlan, name: str) -> int:
    """The rank of the first removing step whose test picks a parameter named
    ``name`` (raw), as steps.session_ids, tracking_params and ignore_params test
    it; remembered, since a site repeats its parameter names on every link."""
    lowered = name.lower()
    if plan.session_rank >= 0 and lowered not in plan.keep_params:
        if params.is_session_name(lowered):
            verdict = plan.session_rank
        elif lowered in params.SESSION_PARAMS_IF_TOKEN:
            verdict = _IF_TOKEN
        else:
            verdict = _name_verdict(plan, lowered)
    else:
        verdict = _name_verdict(plan, lowered)
    if len(plan.verdicts) < _VERDICTS_PER_PLAN:
        plan.verdicts[name] = verdict
    return verdict


def _name_verdict(plan: _FastPlan, lowered: str) -> int:
    """The verdict of the steps after session_ids, which look at the name only."""
    if (
        plan.tracking_rank >= 0
        and (params.is_tracking_param(lowered) or lowered in plan.remove_params)
        and lowered not in plan.keep_params
    ):
        return plan.tracking_rank
    if plan.ignore_rank >= 0 and lowered in plan.ignore_params:
        return plan.ignore_rank
    return _KEPT


def _already_normal(url: str | object, policy: Policy) -> tuple[str, int] | None:
    """``(normal form, rank)`` when the one-pass check can tell, else ``None``."""
    if type(url) is not str or not url.isascii():
        return None
    plan: _FastPlan | None = policy._fast_plan
    if plan is None:
        plan = _fast_plan(policy)
        object.__setattr__(policy, "_fast_plan", plan)
    head = url
    hash_at = url.find("#")
    if hash_at >= 0:
        # (Tabs and newlines go before parsing: "#\t!" is a hashbang; the full way sees it.)
        if plan.keep_fragment or (plan.keep_hashbang and url[hash_at + 1 : hash_at + 2] in HASHBANG_STARTS):
            return None
        head = url[:hash_at]
    match = _FAST_URL.fullmatch(head)
    if match is None:
        match = _FAST_NO_PATH.fullmatch(head)
        if match is None:
            return None
    scheme, host, port, path, query = match.groups()
    cached = policy._authority_cache.get((scheme, None, host, port or ""))
    if cached is None:
        return None
    new_authority, rank = cached
    if new_authority is not None and new_authority[1] is not None:
        return None
    changed = False
    if "/." in path:
        return None
    if ":" in path and embeds_url(path):
        return None  # (another URL in the path: its query keeps its parameters; the full way)
    if plan.session_ids and (";" in path or "(" in path):
        # ASP.NET cookieless segments ("/(S(...))/") are rare: the full way takes them.
        if "(" in path:
            return None
        # ";jsessionid=..." and its kind, as steps.session_ids removes them. A
        # removal cannot make a dot segment (the path had none), but it can
        # join two slashes ("/a/;sid=x/b"): the checks below see the new path.
        new_path = params.SESSION_PATH_PARAM.sub("", path)
        if new_path != path:
            path = new_path
            changed = True
            if plan.session_rank > rank:
                rank = plan.session_rank
    if plan.collapse_slashes and "//" in path:
        return None
    if plan.lowercase_path and not path.islower() and path.lower() != path:
        return None
    if plan.default_pages or plan.trailing_slash != "keep" or plan.alias_extensions:
        last = path[path.rfind("/") + 1 :]
        if last.lower() in plan.default_pages:
            return None
        if plan.alias_extensions and last.rpartition(".")[2].lower() in plan.alias_extensions and "." in last[1:]:
            return None
        if plan.trailing_slash == "add" and last and "." not in last:
            return None
        if plan.trailing_slash == "remove" and not last and len(path) > 1:
            return None
    if not path and plan.empty_path_rank >= 0:
        path = "/"
        changed = True
        if plan.empty_path_rank > rank:
            rank = plan.empty_path_rank
    if query is not None and plan.query_steps:
        if not plan.fast_query:
            return None
        new_query, query_rank = _fast_query(query, plan)
        if new_query is not query:
            query = new_query
            changed = True
            if query_rank > rank:
                rank = query_rank
    if new_authority is None and not changed:
        return head, rank
    if new_authority is not None:
        scheme, _userinfo, host, port = new_authority
    authority = f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}"
    return (f"{authority}{path}?{query}" if query is not None else f"{authority}{path}"), rank


def _fast_query(query: str, plan: _FastPlan) -> tuple[str | None, int]:
    """``query`` after the policy's query steps (``None``: no ``?`` left), and
    the rank of the riskiest one that changed it; ``query`` itself, the very
    same object, when none did. Mirrors ``steps.session_ids``,
    ``tracking_params``, ``ignore_params``, ``sort_query`` and
    ``drop_empty_query``, in that order, on a query without escapes."""
    if not query:
        # Only drop_empty_query acts on an empty query ("http://h/?").
        return (None, plan.empty_query_rank) if plan.empty_query_rank >= 0 else (query, 0)
    pairs = query.split("&")
    rank = -1  # no step changed the query yet
    unsorted = False
    if plan.removes_params:
        # The three removing steps in one pass. Each removes the pairs its test
        # picks among those the steps before it kept, so a pair goes to the
        # first step that picks it (its verdict). No step picks an empty pair
        # ("&&"; see _fast_plan), so a step that leaves only empty pairs, making
        # the query None and stopping the ones after it, leaves them nothing to pick.
        verdicts = plan.verdicts
        kept: list[str] = []
        previous = ""
        for pair in pairs:
            name, _, value = pair.partition("=")
            verdict = verdicts.get(name)
            if verdict is None:
                verdict = _param_verdict(plan, name)
            if verdict == _IF_TOKEN:  # sid=..., session=...: removed if the value is a token
                verdict = plan.session_rank if params.looks_like_token(value) else _name_verdict(plan, name.lower())
            if verdict != _KEPT and ";" in value:  # may hold more pairs: kept (steps._filter_query)
                verdict = _KEPT
            if verdict == _KEPT:
                kept.append(pair)
                if name < previous:  # the kept pairs are out of order: sort_query acts
                    unsorted = True
                previous = name
            elif verdict > rank:
                rank = verdict
        if rank >= 0:
            if not any(kept):  # as steps._filter_query: nothing but empty pairs left
                return None, rank
            pairs = kept
    elif plan.sort_rank >= 0:
        previous = ""
        for pair in pairs:
            name = pair.partition("=")[0]
            if name < previous:
                unsorted = True
                break
            previous = name
    if unsorted and plan.sort_rank >= 0:
        # sorted() is stable: repeated names keep their order, as in steps.sort_query.
        pairs = sorted(pairs, key=param_name)
        if plan.sort_rank > rank:
            rank = plan.sort_rank
    if plan.empty_query_rank >= 0 and "" in pairs:
        pairs = [pair for pair in pairs if pair]
        if plan.empty_query_rank > rank:
            rank = plan.empty_query_rank
        if not pairs:
            return None, rank
    return (query, 0) if rank < 0 else ("&".join(pairs), rank)


def normalize_slowly(url: str | object, policy: Policy) -> tuple[str, int]:
    """:func:`normalize_with_rank` the full way: parse, run every step, serialize."""
    u = split_url(url)
    if policy.host_policies:
        policy = policy.for_host(host_key(u.host))
    authority_steps, other_steps = policy._compiled or compiled(policy)
    try:
        # The authority steps depend on (scheme, userinfo, host, port) alone,
        # which repeat across a crawl: run them once per distinct authority.
        authority = u[:4]
        cached = policy._authority_cache.get(authority)
        if cached is None:
            new, rank = _run_steps(u, policy, authority_steps)
            cached = (None if new is u else new[:4], rank)
            cache = policy._authority_cache
            if len(cache) >= _AUTHORITY_CACHE_SIZE:
                cache.clear()
            cache[authority] = cached
        new_authority, rank = cached
        if new_authority is not None:
            u = _new(SplitURL, (*new_authority, u[4], u[5], u[6]))
        # _run_steps, inlined: this loop runs for every URL.
        for apply, _name, step_rank in other_steps:
            new = apply(u, policy)
            if new is not u:
                u = new
                if step_rank > rank:
                    rank = step_rank
    except InvalidURL as exc:
        raise _about(exc, url) from None
    return unsplit_url(u), rank


def _run_steps(u: SplitURL, policy: Policy, steps: CompiledSteps) -> tuple[SplitURL, int]:
    rank = 0
    # Steps return the very same object when they change nothing.
    for apply, _name, step_rank in steps:
        new = apply(u, policy)
        if new is not u:
            u = new
            if step_rank > rank:
                rank = step_rank
    return u, rank


def _about(exc: InvalidURL, url: object) -> InvalidURL:
    """A step's error (host-level, cached) restated about the whole URL."""
    return exc if exc.url == url else InvalidURL(f"{exc} in {url!r}", url)


def explain_url(url: str | object, policy: Policy | None = None) -> list[ExplainedStep]:
    """The steps that changed ``url``, in order, each with the URL after it.

    An empty list means the URL is already normal. The last entry's ``url`` is
    ``normalize_url(url, policy)``.
    """
    u = split_url(url)
    policy = _policy_for(u, policy or DEFAULT_POLICY)
    explained = []
    try:
        authority_steps, other_steps = compiled(policy)
        for apply, name, _rank in authority_steps + other_steps:
            new = apply(u, policy)
            if new is not u:
                explained.append(ExplainedStep(name, unsplit_url(new)))
                u = new
    except InvalidURL as exc:
        raise _about(exc, url) from None
    return explained
