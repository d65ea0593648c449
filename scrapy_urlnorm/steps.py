"""The normalization steps: small pure functions over a :class:`SplitURL`.

Each step takes the URL components and the policy and returns new components
(the same object when it changes nothing, which the normalizer uses to tell
which steps mattered). :data:`STEPS` lists them in the one fixed order they
run in, whatever the policy; the policy only switches them on and off. The
order matters for idempotence, and the comments say why where it does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote_from_bytes

from . import bulk_escapes, hosts, params
from .urlparts import DEFAULT_PORTS, FRAGMENT, HOST, PATH, PORT, QUERY, SCHEME, USERINFO, SplitURL, replace_field

if TYPE_CHECKING:
    from .policy import Policy

# -- percent-encoding ---------------------------------------------------------

_HEX = "0123456789ABCDEFabcdef"
_UNRESERVED_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
_UNRESERVED = frozenset(_UNRESERVED_CHARS)
#: ``%XX`` (any case) -> the unreserved character it encodes.
_UNRESERVED_ESCAPES: dict[str, str] = {
    f"%{a}{b}": chr(int(a + b, 16)) for a in _HEX for b in _HEX if chr(int(a + b, 16)) in _UNRESERVED
}
_LOWER_ESCAPE = re.compile(r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F])")
# What may stay unencoded in each component (RFC 3986 §3), besides valid escapes.
_SUB_DELIMS = "!$&'()*+,;="
_ALLOWED = {
    USERINFO: _UNRESERVED_CHARS + _SUB_DELIMS + ":%",
    PATH: _UNRESERVED_CHARS + _SUB_DELIMS + ":@/%",
    QUERY: _UNRESERVED_CHARS + _SUB_DELIMS + ":@/?%",
    FRAGMENT: _UNRESERVED_CHARS + _SUB_DELIMS + ":@/?%#",
}
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# Per component: (index, characters quote() leaves alone, the bytes allowed raw).
_ENCODE_FIELDS = tuple(
    (index, allowed.replace("%", ""), allowed.encode("ascii")) for index, allowed in _ALLOWED.items()
)
_ESCAPED_FIELDS = (USERINFO, PATH, QUERY, FRAGMENT)


_ESCAPE_SPLIT = re.compile(r"(%[0-9A-Fa-f]{2})")
#: Every escape spelling -> its upper-case spelling.
_UPPER_ESCAPES: dict[str, str] = {f"%{a}{b}": f"%{a}{b}".upper() for a in _HEX for b in _HEX}


def _rewrite_escapes(value: str, mapping: dict[str, str]) -> str:
    """Replace each ``%XX`` of ``value`` through ``mapping`` (linear: one split,
    one lookup per escape, no per-match callback)."""
    parts = _ESCAPE_SPLIT.split(value)
    parts[1::2] = [mapping.get(escape, escape) for escape in parts[1::2]]
    return "".join(parts)


#: Components this long go to ``bulk_escapes``. Call sites compare lengths
#: first, so ordinary URLs pay a comparison, not a call; the ``_long_*``
#: helpers below take only such long components, and use the per-escape way
#: for the rare non-ASCII one.
_LONG = bulk_escapes.LONG
_UNRESERVED_BYTES = bulk_escapes.byte_table(_UNRESERVED_CHARS.encode("ascii"))


def _long_has_stray_percent(value: str) -> bool:
    return bulk_escapes.has_stray_percent(value) if value.isascii() else _BAD_PERCENT.search(value) is not None


def _long_has_lowercase_escape(value: str) -> bool:
    return bulk_escapes.has_lowercase_escape(value) if value.isascii() else _LOWER_ESCAPE.search(value) is not None


def _long_uppercase_escapes(value: str) -> str:
    return bulk_escapes.uppercase_escapes(value) if value.isascii() else _rewrite_escapes(value, _UPPER_ESCAPES)


def _long_decode_unreserved(value: str) -> str:
    if value.isascii():
        return bulk_escapes.decode_escapes(value, _UNRESERVED_BYTES)
    return _rewrite_escapes(value, _UNRESERVED_ESCAPES)


def _encode_piece(piece: str, safe: str) -> str:
    try:
        data = piece.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no byte stands for
        data = piece.encode("utf-8", "replace")
    return quote_from_bytes(data, safe)


#: quote()'s own always-safe characters plus each component's ``safe``, as encoding tables.
_ENCODING_TABLES = {
    safe: bulk_escapes.encoding_table(bulk_escapes.byte_table((_UNRESERVED_CHARS + safe).encode("ascii")))
    for _, safe, _ in _ENCODE_FIELDS
}


def _encode(value: str, safe: str) -> str:
    """Percent-encode everything outside ``safe``, keeping valid escapes as they are."""
    if len(value) >= _LONG:
        try:
            encoded = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            pass  # a lone surrogate: the piece-by-piece way below says what it becomes
        else:
            return bulk_escapes.encode(encoded, _ENCODING_TABLES[safe])
    return _encode_by_pieces(value, safe)


def _encode_by_pieces(value: str, safe: str) -> str:
    parts = _ESCAPE_SPLIT.split(value)
    parts[0::2] = [_encode_piece(piece, safe) if piece else piece for piece in parts[0::2]]
    return "".join(parts)


def percent_encode(u: SplitURL, p: Policy) -> SplitURL:
    """Encode non-ASCII (as UTF-8), spaces, other characters not allowed in a
    component, and a ``%`` that starts no valid escape (as ``%25``)."""
    for index, safe, allowed in _ENCODE_FIELDS:
        value = u[index]
        if not value:
            continue
        # Fast check first: deleting the allowed bytes from ASCII leaves nothing.
        if value.isascii() and not value.encode("ascii").translate(None, allowed):
            if "%" not in value:
                continue
            if not (_BAD_PERCENT.search(value) if len(value) < _LONG else _long_has_stray_percent(value)):
                continue
        new = _encode(value, safe)
        if new != value:
            u = replace_field(u, index, new)
    return u


def uppercase_escapes(u: SplitURL, p: Policy) -> SplitURL:
    """``%3a`` -> ``%3A`` (RFC 3986 §6.2.2.1)."""
    for index in _ESCAPED_FIELDS:
        value = u[index]
        if not value or "%" not in value:
            continue
        if len(value) < _LONG:
            if _LOWER_ESCAPE.search(value):
                u = replace_field(u, index, _rewrite_escapes(value, _UPPER_ESCAPES))
        elif _long_has_lowercase_escape(value):
            u = replace_field(u, index, _long_uppercase_escapes(value))
    return u


def decode_unreserved(u: SplitURL, p: Policy) -> SplitURL:
    """``%7E`` -> ``~``, ``%41`` -> ``A``: only unreserved characters; never
    ``%2F``, ``%26``, ``%3D``, ``%23``, ``%3F`` and the other reserved ones,
    whose escaped and literal forms mean different things (RFC 3986 §6.2.2.2)."""
    for index in _ESCAPED_FIELDS:
        value = u[index]
        if value and "%" in value:
            if _BAD_PERCENT.search(value) if len(value) < _LONG else _long_has_stray_percent(value):
                new = _decode_beside_stray_percent(value)
            else:
                new = (
                    _rewrite_escapes(value, _UNRESERVED_ESCAPES)
                    if len(value) < _LONG
                    else _long_decode_unreserved(value)
                )
            if new != value:
                u = replace_field(u, index, new)
    return u


def _decode_beside_stray_percent(value: str) -> str:
    """Decode unreserved escapes in a value holding a ``%`` that starts no
    escape (possible when ``percent_encode`` is off), without letting a
    decoded hex digit complete a new escape with it: ``%%41a`` stays
    ``%%41a``, since ``%Aa`` would decode differently next time."""
    parts = _ESCAPE_SPLIT.split(value)
    out = [parts[0]]
    tail = parts[0][-2:]
    for escape, text in zip(parts[1::2], parts[2::2], strict=True):
        char = _UNRESERVED_ESCAPES.get(escape)
        if char is None or (char in _HEX and (tail[-1:] == "%" or (tail[:1] == "%" and tail[1:] in _HEX))):
            char = escape
        out += (char, text)
        tail = (tail + char + text)[-2:]
    return "".join(out)


# -- scheme, host, port, userinfo ----------------------------------------------


def lowercase_scheme(u: SplitURL, p: Policy) -> SplitURL:
    return u if u.scheme.islower() else replace_field(u, SCHEME, u.scheme.lower())


def lowercase_host(u: SplitURL, p: Policy) -> SplitURL:
    host = u.host.lower() if u.host.isascii() else u.host
    return u if host == u.host else replace_field(u, HOST, host)


def idna_host(u: SplitURL, p: Policy) -> SplitURL:
    """Percent-decode the host and convert internationalized names to punycode."""
    if u.host.isascii() and "%" not in u.host:
        return u
    host = hosts.idna_host(u.host)
    return u if host == u.host else replace_field(u, HOST, host)


def strip_host_dot(u: SplitURL, p: Policy) -> SplitURL:
    """``example.com.`` -> ``example.com`` (the fully-qualified form)."""
    if not u.host.endswith("."):
        return u
    host = u.host.rstrip(".")
    return replace_field(u, HOST, host) if host else u


def canonical_ip(u: SplitURL, p: Policy) -> SplitURL:
    """``0x7f.1`` -> ``127.0.0.1``; IPv6 compressed and lower-case."""
    host = u.host
    if not (host[0].isdigit() or host[0] == "["):  # every IP form starts with a digit
        return u
    ip = hosts.canonical_ip(host)
    return u if ip is None or ip == host else replace_field(u, HOST, ip)


def default_port(u: SplitURL, p: Policy) -> SplitURL:
    """Drop the scheme's default port (``:80`` for http)."""
    if u.port and u.port == DEFAULT_PORTS.get(u.scheme.lower()):
        return replace_field(u, PORT, "")
    return u


def https_to_http(u: SplitURL, p: Policy) -> SplitURL:
    """Treat https as http (and wss as ws): for sites serving both alike.

    Runs before :func:`default_port` so ``https://h:443/`` becomes ``http://h/``.
    """
    scheme = u.scheme.lower()
    if scheme not in ("https", "wss"):
        return u
    port = "" if u.port == "443" else u.port
    return u._replace(scheme=scheme[:-1], port=port)


def empty_userinfo(u: SplitURL, p: Policy) -> SplitURL:
    """``http://@h/``, ``http://:@h/`` -> ``http://h/``; ``user:@`` -> ``user@``."""
    userinfo = u.userinfo
    if userinfo is None:
        return u
    if userinfo.endswith(":") and userinfo.count(":") == 1:
        userinfo = userinfo[:-1]
    if userinfo == u.userinfo and userinfo:
        return u
    return replace_field(u, USERINFO, userinfo or None)


_WWW = "www."


def www(u: SplitURL, p: Policy) -> SplitURL:
    """Strip (or add) ``www.``; never leaving a public suffix or a single label."""
    host = u.host
    if p.www == "strip":
        if not host.startswith(_WWW):
            return u
        bare = host[len(_WWW) :]
        if "." not in bare or hosts.is_ip_literal(bare) or hosts.is_public_suffix(bare):
            return u
        return replace_field(u, HOST, bare)
    if host.startswith(_WWW) or "." not in host or hosts.is_ip_literal(host) or not hosts.is_registrable_domain(host):
        return u
    return replace_field(u, HOST, _WWW + host)


# -- path ------------------------------------------------------------------------


#: A path that carries another absolute URL (``/web/2020/http://h/x``, ``/proxy/https:/h/x``);
#: also at its end (``/web/2020/http:``), so that removing a trailing slash keeps it one.
_EMBEDDED_URL = re.compile(r"/(?:https?|ftp)(?::|%3a)(?:/|$)", re.IGNORECASE)


def embeds_url(path: str) -> bool:
    """Whether ``path`` carries another absolute URL, as a web archive's or a proxy's
    paths do (``/web/20200615120000/http://h/x``): the query is then the embedded URL's,
    part of the name of the resource (an archive's capture of ``/x?fbclid=1`` is not its
    capture of ``/x``), so no parameter is removed from it (differential wild seed 20)."""
    return (":" in path or "%3" in path) and _EMBEDDED_URL.search(path) is not None


def session_ids(u: SplitURL, p: Policy) -> SplitURL:
    """Remove well-known session ids: query parameters (``PHPSESSID``,
    ``ASPSESSIONID*``...), ``;jsessionid=`` path parameters and ASP.NET
    cookieless ``/(S(...))/`` path segments; nothing from a URL whose path
    carries another (:func:`embeds_url`)."""
    path = u.path
    if ";" in path:
        path = params.SESSION_PATH_PARAM.sub("", path)
    if "(" in path:
        path = params.ASPNET_SESSION_SEGMENT.sub("", path)
    query = u.query
    if query and params.mentions(params.SESSION_HINT, query):
        keep = p.keep_params
        query = _filter_query(query, lambda name, value: params.is_session_param(name, value) and name not in keep)
    if path == u.path and query == u.query:
        return u
    # (Judged on the path dot segments will leave, as tracking_params, which runs
    # after them, judges it: else a second pass could remove what the first kept.)
    if embeds_url(remove_dot_segments_from_path(u.path) if "/." in u.path else u.path):
        return u
    return u._replace(path=path, query=query)


def remove_dot_segments(u: SplitURL, p: Policy) -> SplitURL:
    """RFC 3986 §5.2.4. ``%2E`` is already decoded by :func:`decode_unreserved`,
    so ``/a/%2e%2e/b`` loses its dot segment too."""
    path = u.path
    if "/." not in path:  # a dot segment in an absolute path always follows a "/"
        return u
    new = remove_dot_segments_from_path(path)
    return u if new == path else replace_field(u, PATH, new)


def remove_dot_segments_from_path(path: str) -> str:
    """The path algorithm of RFC 3986 §5.2.4, in one linear pass over segments."""
    segments = path.split("/")
    if "." not in segments and ".." not in segments:
        return path
    absolute = path.startswith("/")
    if absolute:
        segments = segments[1:]
    output: list[str] = []
    for segment in segments:
        if segment == ".":
            continue
        if segment == "..":
            if output:
                output.pop()
            continue
        output.append(segment)
    if segments[-1] in (".", ".."):
        output.append("")
    result = "/".join(output)
    return "/" + result if absolute else result


def collapse_slashes(u: SplitURL, p: Policy) -> SplitURL:
    """``/a//b`` -> ``/a/b``. After :func:`remove_dot_segments`, which can
    create ``//`` (``/.//b``) but never the other way round."""
    if "//" not in u.path:
        return u
    return replace_field(u, PATH, collapsed(u.path))


_SLASHES = re.compile(r"/{2,}")


def collapsed(path: str) -> str:
    """``path`` with each run of slashes made one (``/a//b`` -> ``/a/b``)."""
    return _SLASHES.sub("/", path)


def lowercase_path(u: SplitURL, p: Policy) -> SplitURL:
    """Lower-case the path (not the query), keeping escapes upper-case.
    For case-insensitive (Windows/IIS) servers."""
    path = u.path
    if len(path) >= _LONG and path.isascii():
        lowered = bulk_escapes.lowercase_outside_escapes(path)
        return u if lowered == path else replace_field(u, PATH, lowered)
    lowered = path.lower()
    if lowered == path:
        return u
    if "%" in lowered:  # a long ASCII path took the array way above
        lowered = _rewrite_escapes(lowered, _UPPER_ESCAPES)
    return u if lowered == path else replace_field(u, PATH, lowered)


def default_pages(u: SplitURL, p: Policy) -> SplitURL:
    """``/dir/index.html`` -> ``/dir/`` for the configured default pages."""
    path = u.path
    slash = path.rfind("/")
    if slash < 0 or path[slash + 1 :].lower() not in p.default_pages:
        return u
    return replace_field(u, PATH, path[: slash + 1])


def extension_alias(u: SplitURL, p: Policy) -> SplitURL:
    """``/doc/intro.html`` -> ``/doc/intro`` for extensions the host serves its pages
    without (learned: Apache MultiViews, nginx ``try_files $uri.html``)."""
    path = u.path
    slash, dot = path.rfind("/"), path.rfind(".")
    if dot <= slash + 1 or path[dot + 1 :].lower() not in p.alias_extensions:
        return u
    return replace_field(u, PATH, path[:dot])


def _is_directory_like(segment: str) -> bool:
    return "." not in segment


def trailing_slash(u: SplitURL, p: Policy) -> SplitURL:
    """Add (``/pubs`` -> ``/pubs/``) or remove the slash after a directory-like
    last segment, one without an extension."""
    path = u.path
    if p.trailing_slash == "add":
        if path.endswith("/") or not path or not _is_directory_like(path[path.rfind("/") + 1 :]):
            return u
        return replace_field(u, PATH, path + "/")
    if len(path) <= 1 or not path.endswith("/"):
        return u
    stripped = path.rstrip("/")
    if not stripped or not _is_directory_like(stripped[stripped.rfind("/") + 1 :]):
        return u
    return replace_field(u, PATH, stripped)


def empty_path_slash(u: SplitURL, p: Policy) -> SplitURL:
    """``http://h`` -> ``http://h/`` (RFC 3986 §6.2.3)."""
    return replace_field(u, PATH, "/") if not u.path else u


# -- query and fragment --------------------------------------------------------


def _filter_query(query: str, drop: Callable[[str, str], bool]) -> str | None:
    """``query`` without the parameters for which ``drop(lower_name, value)``
    holds; ``None`` (no ``?`` at all) when that removes every parameter.

    A pair whose value holds a ``;`` is kept whatever its name: servers that
    split queries on ``;`` too (CGI.pm, Apache's listings) read
    ``?utm_source=x;id=5`` as two parameters, and removing the pair would
    remove ``id=5`` with it. Stock Scrapy fetches such a URL as written."""
    kept = []
    removed = False
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if ";" not in value and drop(name.lower(), value):
            removed = True
        else:
            kept.append(pair)
    if not removed:
        return query
    return "&".join(kept) if any(kept) else None


def tracking_params(u: SplitURL, p: Policy) -> SplitURL:
    """Remove campaign/click tracking parameters (``utm_*``, ``fbclid``...) and
    the names in ``URLNORM_REMOVE_PARAMS``, except those in ``URLNORM_KEEP_PARAMS``;
    none from a URL whose path carries another (:func:`embeds_url`)."""
    query = u.query
    if not query or not (p.remove_params or params.mentions(params.TRACKING_HINT, query)) or embeds_url(u.path):
        return u
    extra, keep = p.remove_params, p.keep_params

    def drop(name: str, value: str) -> bool:
        return (params.is_tracking_param(name) or name in extra) and name not in keep

    query = _filter_query(query, drop)
    return u if query == u.query else replace_field(u, QUERY, query)


def ignore_params(u: SplitURL, p: Policy) -> SplitURL:
    """Remove the parameters the learner found this host ignores."""
    if not u.query:
        return u
    ignored = p.ignore_params
    query = _filter_query(u.query, lambda name, value: name in ignored)
    return u if query == u.query else replace_field(u, QUERY, query)


def sort_query(u: SplitURL, p: Policy) -> SplitURL:
    """Sort parameters by name; repeated names keep their relative order,
    because ``a=1&a=2`` and ``a=2&a=1`` can mean different lists."""
    query = u.query
    if not query or "&" not in query:
        return u
    pairs = query.split("&")
    ordered = sorted(pairs, key=param_name)
    return u if ordered == pairs else replace_field(u, QUERY, "&".join(ordered))


def param_name(pair: str) -> str:
    """The name of a ``name=value`` query pair: the sort key of ``sort_query``."""
    return pair.partition("=")[0]


def drop_empty_query(u: SplitURL, p: Policy) -> SplitURL:
    """Drop an empty ``?`` and stray ``&`` separators (``?a=1&&b=2&``)."""
    query = u.query
    if query is None:
        return u
    if "&&" in query or query.startswith("&") or query.endswith("&"):
        query = "&".join(pair for pair in query.split("&") if pair)
    if not query:
        return replace_field(u, QUERY, None)
    return u if query == u.query else replace_field(u, QUERY, query)


def drop_fragment(u: SplitURL, p: Policy) -> SplitURL:
    """Drop ``#fragment``: browsers never send it. With ``keep_hashbang``,
    AJAX routes (``#!/page``) stay."""
    if u.fragment is None or (p.keep_hashbang and u.fragment.startswith("!")):
        return u
    return replace_field(u, FRAGMENT, None)


# -- the ordered registry --------------------------------------------------------


class Step(NamedTuple):
    """One named normalization step."""

    name: str
    #: How far the step departs from what stock Scrapy already treats as equal:
    #: 0 Scrapy does it too ("exact"), 1 RFC 3986-safe, 2 crawler heuristics,
    #: 3 the paper's semantic-changing steps.
    tier: int
    enabled: Callable[[Policy], bool]
    apply: Callable[[SplitURL, Policy], SplitURL]
    summary: str


def _on(switch: str) -> Callable[[Policy], bool]:
    return lambda p: bool(getattr(p, switch))


def _removes_params(p: Policy) -> bool:
    return p.tracking_params or bool(p.remove_params)


#: The steps that read and write only scheme, userinfo, host and port. They
#: run first, and their combined result is cached per authority (hosts repeat).
AUTHORITY_STEPS: tuple[Step, ...] = (
    Step("lowercase_scheme", 0, _on("lowercase_scheme"), lowercase_scheme, "lower-case the scheme"),
    Step("https_to_http", 3, _on("https_to_http"), https_to_http, "treat https as http"),
    Step("lowercase_host", 0, _on("lowercase_host"), lowercase_host, "lower-case the host"),
    # IDNA after lower-casing (cheap, ASCII), before the trailing dot: UTS #46
    # mapping can turn a full-width dot into a trailing ".".
    Step("idna_host", 0, _on("idna_host"), idna_host, "percent-decode the host, IDN to punycode"),
    Step("strip_host_dot", 1, _on("strip_host_dot"), strip_host_dot, "drop the host's trailing dot"),
    Step("canonical_ip", 1, _on("canonical_ip"), canonical_ip, "dotted-quad IPv4, compressed IPv6"),
    Step("www", 3, lambda p: p.www != "keep", www, "strip or add www."),
    Step("default_port", 1, _on("default_port"), default_port, "drop the scheme's default port"),
    Step("empty_userinfo", 1, _on("empty_userinfo"), empty_userinfo, "drop empty user info and password"),
)  # fmt: skip

#: The steps on path, query and fragment, in execution order.
PATH_QUERY_STEPS: tuple[Step, ...] = (
    # Escapes first: every later step then sees one spelling of each character
    # (a %2E is a dot before dot segments go, a %5F an underscore for params).
    Step("percent_encode", 0, _on("percent_encode"), percent_encode, "percent-encode non-ASCII, spaces, stray %"),
    Step("uppercase_escapes", 0, _on("uppercase_escapes"), uppercase_escapes, "upper-case escape hex digits"),
    Step("decode_unreserved", 0, _on("decode_unreserved"), decode_unreserved, "decode escaped unreserved characters"),
    Step("session_ids", 2, _on("session_ids"), session_ids, "remove session ids"),
    Step("remove_dot_segments", 0, _on("remove_dot_segments"), remove_dot_segments, "remove . and .. segments"),
    Step("collapse_slashes", 3, _on("collapse_slashes"), collapse_slashes, "collapse duplicate slashes"),
    # Lower-casing after decoding, so a decoded %41 cannot reintroduce upper case.
    Step("lowercase_path", 3, _on("lowercase_path"), lowercase_path, "lower-case the path"),
    Step("default_pages", 3, lambda p: bool(p.default_pages), default_pages, "remove default pages (index.html...)"),
    Step("extension_alias", 4, _on("alias_extensions"), extension_alias, "drop extensions the host ignores (learned)"),
    Step("trailing_slash", 3, lambda p: p.trailing_slash != "keep", trailing_slash, "add or remove the trailing slash"),
    Step("empty_path_slash", 0, _on("empty_path_slash"), empty_path_slash, "empty path to /"),
    Step("tracking_params", 2, _removes_params, tracking_params, "remove tracking parameters"),
    Step("ignore_params", 4, _on("ignore_params"), ignore_params, "remove parameters the host ignores (learned)"),
    Step("sort_query", 0, _on("sort_query"), sort_query, "sort query parameters by name"),
    Step("drop_empty_query", 0, _on("drop_empty_query"), drop_empty_query, "drop empty ? and stray &"),
    Step("drop_fragment", 0, lambda p: not p.keep_fragment, drop_fragment, "drop the fragment"),
)  # fmt: skip

#: Every step, in execution order.
STEPS: tuple[Step, ...] = AUTHORITY_STEPS + PATH_QUERY_STEPS
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in STEPS)

#: Rank of each step as a duplicate *reason*: 0 for the steps stock Scrapy's
#: fingerprint already performs ("exact"), then riskier tiers rank higher, so
#: the riskiest step that made two URLs collide is the one reported.
STEP_RANKS: dict[str, int] = {
    step.name: 0 if step.tier == 0 else step.tier * 32 + index for index, step in enumerate(STEPS)
}

#: The learned rule kind each step implements when the learner switches it on.
LEARNED_KINDS: dict[str, str] = {
    "trailing_slash": "trailing_slash",
    "www": "www_alias",
    "lowercase_path": "case_insensitive_path",
    "default_pages": "default_page",
    "ignore_params": "ignore_param",
    "https_to_http": "https_alias",
    "extension_alias": "extension_alias",
    "collapse_slashes": "duplicate_slashes",  # (appended: ranks are stored in JOBDIR seen sets)
}
#: Steps switched on by learning rank above every static step.
LEARNED_RANKS: dict[str, int] = {step: 160 + index for index, step in enumerate(LEARNED_KINDS)}
#: The rank of each learned rule family (``www_alias`` -> the ``www`` step's learned rank).
LEARNED_FAMILY_RANKS: dict[str, int] = {family: LEARNED_RANKS[step] for step, family in LEARNED_KINDS.items()}

#: Reason names by rank (rank 0 is "exact").
REASONS: dict[int, str] = (
    {0: "exact"}
    | {rank: name for name, rank in STEP_RANKS.items() if rank}
    | {rank: f"learned:{LEARNED_KINDS[step]}" for step, rank in LEARNED_RANKS.items()}
)

CompiledSteps = tuple[tuple[Callable[[SplitURL, "Policy"], SplitURL], str, int], ...]


def _rank(step: Step, policy: Policy) -> int:
    if step.name in policy.learned_steps:
        return LEARNED_RANKS[step.name]
    return STEP_RANKS[step.name]


def compile_steps(policy: Policy) -> tuple[CompiledSteps, CompiledSteps]:
    """The enabled steps of ``policy`` as (function, name, rank), in order:
    the authority steps, then the others."""
    return (
        tuple((s.apply, s.name, _rank(s, policy)) for s in AUTHORITY_STEPS if s.enabled(policy)),
        tuple((s.apply, s.name, _rank(s, policy)) for s in PATH_QUERY_STEPS if s.enabled(policy)),
    )


def compiled(policy: Policy) -> tuple[CompiledSteps, CompiledSteps]:
    """``compile_steps(policy)``, computed once per policy object (policies are frozen)."""
    steps = policy._compiled
    if steps is None:
        steps = compile_steps(policy)
        object.__setattr__(policy, "_compiled", steps)
    return steps


def enabled_steps(policy: Policy) -> tuple[str, ...]:
    """Names of the steps ``policy`` runs, in order."""
    authority, other = compiled(policy)
    return tuple(name for _, name, _ in authority + other)


#: The lowest rank a learned step reports (every static step ranks below it).
FIRST_LEARNED_RANK = min(LEARNED_RANKS.values())


def learned_rank(own: int, stored: int) -> int:
    """The rank a learned match is reported and audited under: the learned rule that
    changed this request, when one did (its own spelling is what the rule vouches for:
    ``/status`` matched against a key ``/status/index.html`` stored first is a
    ``trailing_slash`` drop, and is checked under that rule's budget), else the riskier."""
    return own if own >= FIRST_LEARNED_RANK else max(own, stored)
