"""The maintained lists: tracking parameters, session ids, default pages.

One data module so additions are one-line changes. Names are matched
case-insensitively. Users extend the removal list with ``URLNORM_REMOVE_PARAMS``
and protect names with ``URLNORM_KEEP_PARAMS``.
"""

from __future__ import annotations

import re

#: Query parameters that only carry campaign/click attribution.
TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
        "twclid", "ttclid", "li_fat_id", "igshid", "srsltid", "mc_cid", "mc_eid",
        "_ga", "_gl", "_hsenc", "_hsmi", "__hstc", "__hssc", "__hsfp", "hsctatracking",
        "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "vero_conv", "rb_clickid",
        "s_kwcid", "ef_id", "epik", "_openstat", "wickedid",
        # Matomo's (Piwik's) campaign names: by name, not by the prefix, which sites use for
        # their own keys (``?pk_id=3``, Django's ``?pk__in=1,2``).
        "pk_campaign", "pk_cpn", "pk_kwd", "pk_keyword", "pk_source", "pk_medium", "pk_content",
        "pk_cid", "pk_group", "pk_placement", "pk_vid",
    }
)  # fmt: skip

#: Name prefixes of tracking parameter families (``utm_source``, ``mtm_campaign``...).
TRACKING_PREFIXES: tuple[str, ...] = ("utm_", "mtm_", "hsa_", "matomo_")

#: Session-id parameters removed whatever their value: the names are unambiguous.
SESSION_PARAMS: frozenset[str] = frozenset({"phpsessid", "jsessionid", "cfid", "cftoken", "oscsid", "zenid", "sessid"})

#: Name prefixes of session-id parameters (IIS classic ASP appends a random suffix).
SESSION_PREFIXES: tuple[str, ...] = ("aspsessionid",)

#: Generic names removed only when the value looks like a session token,
#: because ``sid=3`` is as likely a section id as a session, and
#: ``session=keynote-day-2`` a conference session's own page.
SESSION_PARAMS_IF_TOKEN: frozenset[str] = frozenset({"sid", "sessionid", "session_id", "session"})
#: A token: 16+ letters, digits, ``_`` or ``-``, with at least one digit and one letter...
SESSION_TOKEN = re.compile(r"(?=[^0-9]*[0-9])(?=[^A-Za-z]*[A-Za-z])[0-9A-Za-z_\-]{16,}")
#: ...and no word in it: a run of 3+ letters between separators with a letter no hex
#: digit has (``keynote``), which random ids (hex, UUIDs, base 32/36) rarely make.
_WORD = re.compile(r"(?:^|[-_])(?=[A-Za-z]*[G-Zg-z])[A-Za-z]{3,}(?=$|[-_])")

#: Session ids carried as path parameters (``/cart;jsessionid=0A1B...``) and
#: ASP.NET cookieless session segments (``/(S(lit3py55t21z5v55vlm25s55))/``).
SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/;?]*", re.IGNORECASE)
_ASPNET_SESSION = r"\((?:[A-Za-z]\([0-9A-Za-z_\-]{8,}\))+\)"
#: (As the last segment its ``/`` stays: ``/a/(S(x))`` is ``/a/``, and found there
#: the step stays idempotent once a trailing slash is added after it.)
ASPNET_SESSION_SEGMENT = re.compile(f"/{_ASPNET_SESSION}(?=/)|(?<=/){_ASPNET_SESSION}$")

#: Default pages the paper studies (``index.html``...), plus common siblings.
DEFAULT_PAGES: tuple[str, ...] = (
    "index.html", "index.htm", "index.php", "index.asp", "index.shtml",
    "default.htm", "default.html", "default.asp", "default.aspx",
)  # fmt: skip


def _trie_pattern(words: list[str]) -> str:
    """A regex alternation shaped as a trie: the engine then tests each
    position against a few first letters instead of every name in turn."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[:1], []).append(word[1:])
    alternatives = []
    for first, rests in sorted(groups.items()):
        if first == "":
            continue
        inner = _trie_pattern([r for r in rests if r]) if any(rests) else ""
        optional = "" in rests
        if inner:
            alternatives.append(re.escape(first) + "(?:" + inner + ")" + ("?" if optional else ""))
        else:
            alternatives.append(re.escape(first))
    return "|".join(alternatives)


def _hint(names: frozenset[str], prefixes: tuple[str, ...]) -> re.Pattern[str]:
    # Starting with a literal "&" lets the regex engine jump from one "&" to
    # the next instead of trying the trie at every position (2.5x faster).
    return re.compile("&(?:" + _trie_pattern(sorted({*names, *prefixes})) + ")")


#: Cheap pre-checks: a query with no match here has nothing to remove.
TRACKING_HINT = _hint(TRACKING_PARAMS, TRACKING_PREFIXES)
SESSION_HINT = _hint(SESSION_PARAMS | SESSION_PARAMS_IF_TOKEN, SESSION_PREFIXES)


def mentions(hint: re.Pattern[str], query: str) -> bool:
    """Whether some parameter name of ``query`` may be one ``hint`` stands for."""
    return hint.search("&" + query.lower()) is not None


def is_tracking_param(name: str) -> bool:
    """``name`` (lower-cased) is a known tracking parameter."""
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


def is_session_name(name: str) -> bool:
    """``name`` (lower-cased) is a session id whatever its value."""
    return name in SESSION_PARAMS or name.startswith(SESSION_PREFIXES)


def is_session_param(name: str, value: str) -> bool:
    """``name`` (lower-cased) with ``value`` is a well-known session id."""
    if is_session_name(name):
        return True
    return name in SESSION_PARAMS_IF_TOKEN and looks_like_token(value)


def looks_like_token(value: str) -> bool:
    """``value`` looks like a random session token, not a number or a slug: when in
    doubt it does not, and the parameter stays (a duplicate costs a request, a
    removed parameter that selects a page costs the page)."""
    return SESSION_TOKEN.fullmatch(value) is not None and _WORD.search(value) is None
