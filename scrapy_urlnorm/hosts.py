"""Host-name canonicalization: IDNA, IP literals, public suffixes.

Hosts repeat millions of times in a crawl while URLs do not, so the expensive
parts (IDNA, the public-suffix lookup) are cached per host.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from urllib.parse import unquote

import idna

from .errors import InvalidURL

_HOST_CACHE_SIZE = 1 << 16
_FORBIDDEN_DECODED_HOST = re.compile(r"[\x00-\x20\x7f<>\\^|\[\]#/?@%:]")
_IPV4_PART = re.compile(r"0[xX][0-9A-Fa-f]*|[0-9]+")


@lru_cache(maxsize=_HOST_CACHE_SIZE)
def idna_host(host: str) -> str:
    """ASCII form of a host: percent-decoded, UTS #46 mapped, IDNA 2008 punycode.

    ASCII hosts are only lower-cased: running them through IDNA would reject
    names like ``my_host`` that resolvers and servers accept every day.
    """
    if "%" in host:
        try:
            host = unquote(host, errors="strict")
        except UnicodeDecodeError:
            raise InvalidURL(f"host {host!r} is not valid percent-encoded UTF-8", host) from None
    if host.isascii():
        ascii_host = host.lower()
    else:
        # Map (UTS #46) before encoding label by label, so a full-width dot
        # separates labels and an empty final label (trailing dot) survives.
        try:
            mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
            trailing = mapped.endswith(".")
            labels = mapped[:-1].split(".") if trailing else mapped.split(".")
            encoded = [label if label.isascii() else _to_alabel(label) for label in labels]
        except (idna.IDNAError, UnicodeError, ValueError) as exc:
            raise InvalidURL(f"invalid internationalized host name {host!r}: {exc}", host) from None
        ascii_host = ".".join(encoded).lower() + ("." if trailing else "")
    if not ascii_host or _FORBIDDEN_DECODED_HOST.search(ascii_host):
        raise InvalidURL(f"invalid host name {host!r}", host)
    return ascii_host


def _to_alabel(label: str) -> str:
    try:
        return idna.alabel(label).decode("ascii")
    except idna.IDNAError:
        # Symbols such as U+2603 are not IDNA 2008 but UTS #46 (what browsers
        # and servers use) still encodes them: plain punycode, as they do.
        return "xn--" + label.encode("punycode").decode("ascii")


def canonical_ip(host: str) -> str | None:
    """Canonical text of an IP literal host, or ``None`` if ``host`` is a name.

    IPv6 in brackets comes back compressed and lower-case. IPv4 is accepted in
    every form ``inet_aton`` (and so the resolver Scrapy uses) accepts:
    decimal, octal (leading 0), hex (0x), and the 1-, 2- and 3-part shorthands.
    """
    if host.startswith("["):
        inner = host[1:-1]
        zone = ""
        if "%" in inner:
            inner, _, zone = inner.partition("%25") if "%25" in inner else inner.partition("%")
            zone = "%25" + zone
        return "[" + ipaddress.IPv6Address(inner).compressed + zone + "]"
    if not host[-1:].isdigit() and "x" not in host.rpartition(".")[2].lower():
        return None
    parts = host.split(".")
    if len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        if _IPV4_PART.fullmatch(part) is None:
            return None
        if part[:2] in ("0x", "0X"):
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part[0] == "0":
            if any(c in "89" for c in part):
                return None
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        return None
    value = last
    for index, number in enumerate(numbers):
        value += number << (8 * (3 - index))
    return str(ipaddress.IPv4Address(value))


def is_ip_literal(host: str) -> bool:
    return host.startswith("[") or (host[-1:].isdigit() and canonical_ip(host) == host)


@lru_cache(maxsize=1)
def _suffix_extractor():
    import tldextract

    # The snapshot bundled with tldextract: no network, no cache directory.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True)


@lru_cache(maxsize=_HOST_CACHE_SIZE)
def is_public_suffix(host: str) -> bool:
    """``host`` is itself a public suffix (``co.uk``, ``github.io``), not a site."""
    extracted = _suffix_extractor()(host)
    return not extracted.domain and bool(extracted.suffix)


@lru_cache(maxsize=_HOST_CACHE_SIZE)
def is_registrable_domain(host: str) -> bool:
    """``host`` is exactly a registrable domain (``example.co.uk``): no subdomain."""
    extracted = _suffix_extractor()(host)
    return bool(extracted.domain) and bool(extracted.suffix) and not extracted.subdomain
