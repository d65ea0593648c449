"""The request meta keys scrapy-urlnorm sets, all prefixed ``_urlnorm``.

Children built with ``meta=response.meta`` would inherit them, so the add-on's
spider middleware (:class:`~scrapy_urlnorm.middlewares.ScrubMetaMiddleware`)
removes them from every request a callback yields.
"""

from __future__ import annotations

from typing import Any

PREFIX = "_urlnorm"
#: The namespace of the host's learned rules when the request was checked.
RULES_VERSION = "_urlnorm_rules_version"
#: On a request the filter admitted: its URL then. A retry of it (``dont_filter`` set by
#: Scrapy's ``RetryMiddleware``) keeps the mark, and its redirect goes through the filter.
ADMITTED = "_urlnorm_admitted"
#: On an audit: what it is compared with ({"key", "reason", "scope"}).
AUDIT = "_urlnorm_audit"
#: On a descendant of an audit that confirmed its drop: ``[host, retractions]``, that audit's
#: host and its site's rule retractions then; never audited itself while they stand (``True``
#: in queues written before: for good).
NO_AUDIT = "_urlnorm_no_audit"
#: On a request sent in the form its host's redirects taught: the URL as written.
SHORTCUT_OF = "_urlnorm_shortcut_of"
#: On a request sent with its normalized URL (``URLNORM_REWRITE``): the URL as written.
REWRITTEN_FROM = "_urlnorm_rewritten_from"
#: On a request that must be sent as written.
NO_SHORTCUT = "_urlnorm_no_shortcut"
#: On a link fetched as written because its taught form answered an error:
#: ``[link, taught form]``. Only if it then delivers a page is the rule wrong
#: (a link broken in both forms says nothing against it). Redirects keep it.
SHORTCUT_FELL_BACK = "_urlnorm_shortcut_fell_back"
#: On a variant released by hold-back at idle: never held again (see ``holdback``).
NO_HOLD = "_urlnorm_no_hold"
#: On a request let through for being shallower than every claim of its key
#: (``DEPTH_LIMIT``, see ``depths``): never dropped later against them (at download
#: time, or as a twin probe): its claim joined theirs, and its depth is its key's now.
SHALLOWER = "_urlnorm_shallower"
#: On an entity-tag canary (see ``canary``): the host it asks about.
CANARY = "_urlnorm_canary"
#: On a session probe (see ``spellings``): the parameter whose value it made up.
SPELLING_PROBE = "_urlnorm_spelling_probe"
#: On a directory probe (see ``twin_dirs``): the delivered URL whose ``www`` twin it asks.
DIRECTORY_PROBE = "_urlnorm_directory_probe"
#: The add-on's own questions to a host: no claim, no check, answered to the asker only.
OWN_QUESTIONS = (CANARY, SPELLING_PROBE, DIRECTORY_PROBE)


def own_question(meta: dict[str, Any]) -> bool:
    """Whether a request with ``meta`` is one of :data:`OWN_QUESTIONS`."""
    return any(key in meta for key in OWN_QUESTIONS)


#: On a drop released to be fetched as written (past the filter: its key is its
#: representative's). Where it redirects, the target is checked as any redirect is.
AS_WRITTEN = "_urlnorm_as_written"
#: On a request let through to fetch a page again for the plain links a cookieless
#: answer did not have (see ``session_links``): sent as written, never dropped later
#: against that page (at download time, or as a twin probe, whose 304 has no links).
SESSION_REFETCH = "_urlnorm_session_refetch"
#: On a request for a page its URL's session was written into, sent without that session
#: (1) and, answered with a new session's cookie, once more with it (2): see ``session_links``.
SESSION_PRIMER = "_urlnorm_session_primer"
#: On a request the crash-safe frontier scheduled again after a crash or stop: it
#: holds its keys' claim, so it is their representative, never their duplicate.
RECOVERED = "_urlnorm_recovered"


def scrub(meta: dict[str, Any]) -> bool:
    """Remove scrapy-urlnorm's keys from ``meta``; whether the request descends from an audit."""
    inherited = [key for key in meta if key.startswith(PREFIX) and not key.startswith("_urlnorm_frontier")]
    lineage = False
    for key in inherited:
        if key in (AUDIT, NO_AUDIT):
            lineage = True
        del meta[key]
    return lineage


#: On a variant sent with its delivered twin's entity tag (see ``twins``): {"key", "tag"}.
TWIN = "_urlnorm_twin"


#: Why the add-on sent a request other than as an ordinary one, by the meta key that says so.
_SENT_AS = (
    (AUDIT, "audit"),
    (TWIN, "twin_probe"),
    (DIRECTORY_PROBE, "directory_probe"),
    (CANARY, "canary"),
    (SPELLING_PROBE, "spelling_probe"),
    (SHORTCUT_OF, "shortcut"),
    (REWRITTEN_FROM, "rewritten"),
    (NO_SHORTCUT, "as_written"),
    (AS_WRITTEN, "released"),
)


def sent_before(meta: dict[str, Any]) -> bool:
    """Whether the request is a copy of one already sent: Scrapy's retry counts its tries
    in ``retry_times``, and a second chance sets it (at 0) for the same reason."""
    return "retry_times" in meta


def sent_as(meta: dict[str, Any]) -> str | None:
    """Why the add-on sent a request: ``audit`` (a drop fetched to compare its page),
    ``twin_probe`` (a variant sent with its twin's entity tag), ``directory_probe``
    (a ``www`` twin asked once per top directory: ``twin_dirs``), ``shortcut`` (a link
    sent in the form its host's redirects taught), ``rewritten`` (sent normalized),
    ``as_written`` (kept from its taught form: a learned drop fetched to check its rule,
    a shortcut's fallback, an audit fetched in full after all), ``released`` (a drop
    released past the filter: a spelling the server never answered, a page found
    shallower), or ``None``: an ordinary request. The crawl log's ``sent_as``, and
    how the report breaks duplicate downloads down."""
    for key, role in _SENT_AS:
        if key in meta:
            return role
    return None
