"""``normalize_url`` and ``explain_url``: parse once, run the policy's steps, serialize once."""

from __future__ import annotations

from typing import NamedTuple

from . import hosts
from .errors import InvalidURL
from .policy import Policy
from .steps import CompiledSteps, compiled
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


def normalize_url(url: str, policy: Policy | None = None) -> str:
    """Normalize ``url`` under ``policy`` (``None``: the ``default`` preset).

    Raises :class:`~scrapy_urlnorm.InvalidURL` (a ``ValueError``) if ``url`` is
    not an absolute http(s), ws(s) or ftp URL. Idempotent:
    ``normalize_url(normalize_url(u, p), p) == normalize_url(u, p)``.
    """
    return normalize_with_rank(url, policy or DEFAULT_POLICY)[0]


_AUTHORITY_CACHE_SIZE = 1 << 16


def normalize_with_rank(url: str, policy: Policy) -> tuple[str, int]:
    """``normalize_url`` plus the rank of the riskiest step that changed the URL
    (0 if only steps stock Scrapy also performs did); see ``steps.REASONS``."""
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


def _about(exc: InvalidURL, url: str) -> InvalidURL:
    """A step's error (host-level, cached) restated about the whole URL."""
    return exc if exc.url == url else InvalidURL(f"{exc} in {url!r}", url)


def explain_url(url: str, policy: Policy | None = None) -> list[ExplainedStep]:
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
