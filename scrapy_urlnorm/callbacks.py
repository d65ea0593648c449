"""A page is fetched once for each callback that asks for it.

Stock Scrapy's fingerprint ignores the callback, but stock fetches each
*spelling* of a page, each for its own callback: ``/product/1?utm_source=menu``
for ``parse`` (a navigation link) and ``/product/1`` for ``parse_product`` (a
listing's link). Dropping the second against the first (``tracking_params``)
would run ``parse`` on the page and never ``parse_product``: its item is lost.
Exact copies are no safer: a listing fetched as ``h:80/list`` (a spelling the
add-on drops) links ``h:80/x``, a spelling stock fetches for ``parse_product``
where the add-on only met ``h/x``, claimed by ``parse``.

So a request's keys are its callback's own: every key of a request whose
callback is not the default is salted (``xor``) with a hash of the callback's
name (:func:`callback_salt`), in :class:`~scrapy_urlnorm.keys.RequestKeys`.
Everything keyed by them (the seen set, the claims and drops of the ledger,
learned keys, audits, depths, ``JOBDIR`` and Redis records) keeps callbacks
apart with no state of its own: a request is dropped only against a
representative of its own callback, which delivers the page to that callback,
and a claim never joins another callback's. A page is then fetched at most
once per callback that asks for it, one request more than stock where stock
dropped an exact copy for another callback (``urlnorm/callbacks_kept_apart``
counts the requests of a non-default callback fetched for a page the default
callback claimed).

A callback is told by its name; ``parse`` (and ``None``, which means ``parse``)
is the default, unsalted, so a crawl with one callback keys as before, and so
is ``CrawlSpider``'s own ``_parse``. A request of ``CrawlSpider._callback`` is
named by what its rule (``meta["rule"]``) does with the page, its callback and
``follow``: every ``CrawlSpider`` request has the callback ``_callback``, and a
spelling the item rule's pattern matches is read by other code than one only
the follow rule matches. A follow-only rule is the default unless the spider
overrides ``parse_start_url``: then the start pages' ``_parse`` reads them, and
a start page fetched through a follow-only link would not have been. Names are
stable, so keys are the same in every process of a distributed crawl and across
a ``JOBDIR`` resume. Not told apart: ``cb_kwargs`` and ``meta``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import xxhash
from scrapy.http.request import NO_CALLBACK
from scrapy.spiders import CrawlSpider

if TYPE_CHECKING:
    from scrapy import Request

#: Callback names that mean "the spider's default" (``CrawlSpider``'s start pages go to ``_parse``).
DEFAULT_CALLBACKS = frozenset({"parse", "_parse"})
#: Salts by callback name (a spider has few callbacks; bounded anyway).
_SALTS: dict[str, int] = {}
_SALTS_KEPT = 1024


def callback_name(request: Request) -> str | None:
    """The name of ``request``'s callback; ``None`` for the default."""
    callback = request.callback
    if callback is None or callback is NO_CALLBACK:
        return None
    name = _name(callback)
    if name == "_callback":
        return _rule_name(callback, request)
    return None if name in DEFAULT_CALLBACKS else name


def _name(callback: object) -> str:
    return getattr(callback, "__name__", None) or type(callback).__qualname__


def _rule_name(callback: object, request: Request) -> str | None:
    """A ``CrawlSpider`` request's callback: what its rule (``meta["rule"]``) does
    with the page. Every such request has the callback ``_callback``, but a
    spelling the item rule's pattern matches and one only the follow rule
    matches are read by different code. A follow-only rule is the default when
    it does what the start pages' ``_parse`` does (the spider keeps
    ``CrawlSpider.parse_start_url``, which reads nothing); a rule the spider does
    not have is the default too."""
    spider = getattr(callback, "__self__", None)
    rules = getattr(spider, "_rules", None)
    index = request.meta.get("rule")
    if not isinstance(index, int) or not isinstance(rules, list) or not 0 <= index < len(rules):
        return None
    rule = rules[index]
    target = getattr(rule, "callback", None)
    follow = "+follow" if getattr(rule, "follow", True) else ""
    if target is None:
        if follow and getattr(type(spider), "parse_start_url", None) is CrawlSpider.parse_start_url:
            return None
        return f"rule:{follow}"
    return f"rule:{_name(target)}{follow}"


def callback_salt(request: Request) -> int:
    """What ``request``'s keys are ``xor``-ed with: 0 for the default callback, else a
    64-bit hash of its callback's name (never 0)."""
    if request.callback is None:
        return 0  # (the usual case, first and cheap)
    name = callback_name(request)
    if name is None:
        return 0
    salt = _SALTS.get(name)
    if salt is None:
        if len(_SALTS) >= _SALTS_KEPT:
            _SALTS.clear()
        salt = _SALTS[name] = xxhash.xxh3_64_intdigest(b"callback\0" + name.encode("utf-8", "surrogatepass")) | 1
    return salt
