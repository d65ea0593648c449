"""Split an absolute URL into its RFC 3986 components once, and join it back.

The normalizer parses a URL once, lets each step rewrite components of the
:class:`SplitURL`, and serializes once. Parsing here validates only what every
policy needs (a supported scheme, an authority, a host, a numeric port);
canonicalization is left to the steps so that each one can be switched off.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple

from .errors import InvalidURL, UnsupportedScheme

#: Schemes we normalize, with their default ports (``None``: no port to drop).
DEFAULT_PORTS: dict[str, str | None] = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
# Characters that can never be part of a host name, before or after decoding.
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20\x7f<>\\^|\[\]#/?@]")
# Leading/trailing C0 controls and space are stripped, tab and newlines removed
# inside, as browsers do with hrefs copied out of HTML.
_STRIP = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = re.compile(r"[\t\n\r]")


class SplitURL(NamedTuple):
    """The components of an absolute URL, raw (still escaped) as found.

    ``userinfo``, ``query`` and ``fragment`` are ``None`` when absent, which is
    different from present but empty (``http://h/?`` has ``query == ""``).
    ``port`` is ``""`` when absent.
    """

    scheme: str
    userinfo: str | None
    host: str
    port: str
    path: str
    query: str | None
    fragment: str | None


_new = tuple.__new__  # NamedTuple's own __new__ is a Python frame; this is the hot path
# Hosts repeat across a crawl: remember the ones already checked.
_VALID_HOSTS: set[str] = set()


def split_url(url: str | object) -> SplitURL:
    """Split ``url``; raise :class:`InvalidURL` if it is not an absolute URL we handle."""
    if not isinstance(url, str):
        raise InvalidURL(f"expected a str URL, got {type(url).__name__}", url)
    original = url
    if url and (url[0] <= " " or url[-1] <= " "):
        url = url.strip(_STRIP)
    if not url.isprintable():  # one pass rules out tabs and newlines for nearly every URL
        url = _TAB_NEWLINE.sub("", url)
    colon = url.find(":")
    if colon <= 0:
        raise InvalidURL(f"not an absolute URL (no scheme): {original!r}", original)
    scheme = url[:colon]
    if scheme not in DEFAULT_PORTS:
        if _SCHEME.fullmatch(scheme) is None:
            raise InvalidURL(f"invalid scheme {scheme!r} in {original!r}", original)
        if scheme.lower() not in DEFAULT_PORTS:
            raise UnsupportedScheme(scheme.lower(), original)
    if url[colon + 1 : colon + 3] != "//":
        raise InvalidURL(f"missing '//' and authority after {scheme!r}: {original!r}", original)

    rest = url[colon + 3 :]
    fragment = query = None
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest, fragment = rest[:hash_at], rest[hash_at + 1 :]
    question = rest.find("?")
    if question >= 0:
        rest, query = rest[:question], rest[question + 1 :]
    slash = rest.find("/")
    if slash >= 0:
        authority, path = rest[:slash], rest[slash:]
    else:
        authority, path = rest, ""

    userinfo = None
    if "@" in authority:
        userinfo, _, authority = authority.rpartition("@")

    port = ""
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            raise InvalidURL(f"unterminated IPv6 address in {original!r}", original)
        host, after = authority[: close + 1], authority[close + 1 :]
        if after:
            if after[0] != ":":
                raise InvalidURL(f"unexpected {after!r} after IPv6 address in {original!r}", original)
            port = after[1:]
        _check_ipv6(host, original)
    else:
        if ":" in authority:
            host, _, port = authority.partition(":")
        else:
            host = authority
        if host not in _VALID_HOSTS:
            if _FORBIDDEN_HOST.search(host):
                raise InvalidURL(f"forbidden character in host {host!r} of {original!r}", original)
            if len(_VALID_HOSTS) >= 1 << 16:
                _VALID_HOSTS.clear()
            _VALID_HOSTS.add(host)
    if not host:
        raise InvalidURL(f"empty host in {original!r}", original)
    if port:
        if not port.isascii() or not port.isdigit():
            raise InvalidURL(f"invalid port {port!r} in {original!r}", original)
        number = int(port)
        if number > 65535:
            raise InvalidURL(f"port {number} out of range in {original!r}", original)
        port = str(number)
    return _new(SplitURL, (scheme, userinfo, host, port, path, query, fragment))


def replace_field(u: SplitURL, index: int, value: str | None) -> SplitURL:
    """``u`` with field ``index`` set to ``value`` (a faster ``u._replace``)."""
    fields = list(u)
    fields[index] = value
    return _new(SplitURL, fields)


#: Field indexes, for :func:`replace_field`.
SCHEME, USERINFO, HOST, PORT, PATH, QUERY, FRAGMENT = range(7)


def _check_ipv6(host: str, original: str) -> None:
    try:
        ipaddress.IPv6Address(host[1:-1].replace("%25", "%", 1))
    except ValueError as exc:
        raise InvalidURL(f"invalid IPv6 address {host!r} in {original!r}: {exc}", original) from None


def unsplit_url(u: SplitURL) -> str:
    """Join components back into a URL string (the inverse of :func:`split_url`)."""
    scheme, userinfo, host, port, path, query, fragment = u
    netloc = f"{host}:{port}" if port else host
    if userinfo is not None:
        netloc = f"{userinfo}@{netloc}"
    url = f"{scheme}://{netloc}{path}"
    if query is not None:
        url = f"{url}?{query}"
    if fragment is not None:
        url = f"{url}#{fragment}"
    if url[-1] <= " ":
        # split_url strips trailing spaces and controls; escape them so the
        # result parses back to the same components.
        kept = url.rstrip(_STRIP)
        url = kept + "".join(f"%{ord(c):02X}" for c in url[len(kept) :])
    return url
