"""The one-pass "already normal" check agrees with the full normalizer.

``normalize_with_rank`` answers from :func:`~scrapy_urlnorm.normalize._already_normal`
when it can; these tests run every URL both ways, after the full way has
warmed the per-policy authority cache the fast check reads.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import POLICIES, urls

from scrapy_urlnorm import InvalidURL, Policy
from scrapy_urlnorm.normalize import _already_normal, normalize_slowly, normalize_with_rank
from scrapy_urlnorm.steps import LEARNED_KINDS

LEARNED = Policy.preset("default").replace(
    trailing_slash="add",
    lowercase_path=True,
    default_pages=("index.html",),
    ignore_params=frozenset({"ref"}),
    learned_steps=frozenset(LEARNED_KINDS),
)
ALL_POLICIES = [*POLICIES, LEARNED, Policy.preset("default").replace(remove_params=frozenset({"q"}))]

_PLAIN = st.sampled_from(["a", "b", "Z", "x.html", "index.html", "", "A.B", ";x", "(s)", ".", "..", "q", "ref"])


@st.composite
def plain_urls(draw: st.DrawFn) -> str:
    """URLs mostly in or near normal form: the fast check's own ground."""
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    host = draw(st.sampled_from(["example.com", "www.example.com", "Example.com", "127.0.0.1", "h", "www.co.uk"]))
    port = draw(st.sampled_from(["", "", ":80", ":443", ":8080", ":99999"]))
    path = "".join("/" + draw(_PLAIN) for _ in range(draw(st.integers(0, 4))))
    names = draw(st.lists(st.sampled_from(["a", "b", "utm_source", "PHPSESSID", "ref", "q", "A", ""]), max_size=4))
    query = "&".join(f"{n}={draw(_PLAIN)}" if n else "" for n in names) if names else None
    fragment = draw(st.sampled_from([None, "", "top", "!/r", "x\ty"]))
    url = f"{scheme}://{host}{port}{path or draw(st.sampled_from(['', '/']))}"
    if query is not None:
        url += "?" + query
    if fragment is not None:
        url += "#" + fragment
    return url


def _both_ways(url: str, policy: Policy) -> None:
    try:
        slow = normalize_slowly(url, policy)
    except InvalidURL:
        assert _already_normal(url, policy) is None
        return
    assert normalize_with_rank(url, policy) == slow
    # The normal form is normal: the fast check must accept it (or defer), never change it.
    fast = _already_normal(slow[0], policy)
    assert fast is None or fast[0] == slow[0]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(plain_urls(), urls()), st.sampled_from(ALL_POLICIES))
def test_fast_check_agrees_with_the_full_way(url: str, policy: Policy) -> None:
    _both_ways(url, policy)
    _both_ways(url, policy)  # now with the authority cached


def test_fast_check_takes_the_common_case() -> None:
    policy = Policy.preset("default")
    normalize_slowly("https://docs.python.org/3/", policy)
    url = "https://docs.python.org/3/library/re.html?a=1&b=2"
    assert _already_normal(url, policy) == (url, 0)
    assert _already_normal(url + "#search", policy) == (url, 0)
    upper = url.replace("docs", "DOCS")
    assert _already_normal(upper, policy) is None  # a new authority takes the full way once
    normalize_slowly(upper, policy)
    assert _already_normal(upper, policy) == (url, 0)
    for not_normal in (
        url + "&utm_source=x",
        url.replace("a=1&b=2", "b=2&a=1"),
        url.replace("re.html", "./re.html"),
        url.replace("re", "r%65"),
        "https://user@docs.python.org/",
        "https://docs.python.org",
    ):
        assert _already_normal(not_normal, policy) is None, not_normal
