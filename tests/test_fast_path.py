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
from scrapy_urlnorm.steps import LEARNED_KINDS, STEP_RANKS

LEARNED = Policy.preset("default").replace(
    trailing_slash="add",
    lowercase_path=True,
    default_pages=("index.html",),
    ignore_params=frozenset({"ref"}),
    learned_steps=frozenset(LEARNED_KINDS),
)
_DEFAULT = Policy.preset("default")
#: Policies whose query steps combine in other ways than the presets'.
QUERY_POLICIES = [
    _DEFAULT.replace(remove_params=frozenset({"q"})),
    _DEFAULT.replace(keep_params=frozenset({"utm_source", "sid", "phpsessid"})),
    _DEFAULT.replace(remove_params=frozenset({"ref", "Q"}), keep_params=frozenset({"gclid"})),
    # remove_params runs the tracking step's filter with tracking_params off
    _DEFAULT.replace(tracking_params=False, remove_params=frozenset({"b"})),
    _DEFAULT.replace(drop_empty_query=False),
    _DEFAULT.replace(sort_query=False),
    _DEFAULT.replace(session_ids=False, sort_query=False, drop_empty_query=False),
    _DEFAULT.replace(ignore_params=frozenset({"a", "utm_source", ""}), learned_steps=frozenset({"ignore_params"})),
    Policy.preset("safe").replace(session_ids=True),
    Policy.preset("safe").replace(empty_path_slash=False, drop_empty_query=True),
]
ALL_POLICIES = [*POLICIES, LEARNED, *QUERY_POLICIES]

_PLAIN = st.sampled_from(["a", "b", "Z", "x.html", "index.html", "", "A.B", ";x", "(s)", ".", "..", "q", "ref"])
#: Path segments carrying session ids, as a path parameter or an ASP.NET cookieless segment.
_SESSION_SEGMENTS = st.sampled_from(
    [
        "x.jsp;jsessionid=0A1B2C3D4E5F", "a;JSESSIONID=1", "b;sid=", "c;phpsessid=x;v=2", "d;x=1",
        "(S(lit3py55t21z5v55vlm25s55))", "(S(short))", "(A(abcdefgh12)S(12345678abcd))", ";jsessionid=z",
        # Another URL in the path (a web archive's, a proxy's): its query keeps its parameters.
        "http:/", "https:", "ftp:", "http%3A", "x:",
    ]
)  # fmt: skip
#: Parameter names: tracking and session names in several spellings, and
#: names that look like them but are not.
_NAMES = st.sampled_from(
    [
        "a", "b", "A", "B", "q", "ref", "x+y", "a;b", "~", "?x", "a/b", "",
        "utm_source", "UTM_Medium", "Utm_", "utm", "utmx", "xutm_source", "utm-source",
        "fbclid", "FBCLID", "fbclid2", "gclid", "_ga", "_gax", "_g", "pk_campaign", "PK_", "mtm_kwd",
        "hsa_cam", "matomo_x", "mc_cid", "__hstc",
        "PHPSESSID", "phpsessid", "PhpSessId2", "jsessionid", "ASPSESSIONIDQQGGQGPG", "aspsessionid", "aspsession",
        "sid", "SID", "sessionid", "session_id", "Session", "sessid", "sessidx", "cfid", "CFTOKEN", "zenid",
    ]
)  # fmt: skip
_VALUES = st.sampled_from(
    [
        "", "1", "x+y", "abc", "3", "=", ";", "a=b", "?", "/p", "0A1B2C3D4E5F60718293A4B5C6D7E8F9",
        "a-b_c1234567890123", "a-b_c123456789012", "tok.en1234567890123", "tok%20en", "%41", "%7e",
        "a b", "é", "+", "%2B", "x%26y",
    ]
)  # fmt: skip


@st.composite
def queries(draw: st.DrawFn) -> str:
    """Queries with parameters to remove, sort or keep, and stray separators."""
    pairs = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(_NAMES)
        form = draw(st.sampled_from(["=", "=", "=", "no =", "empty value"]))
        if form == "=":
            pairs.append(f"{name}={draw(_VALUES)}")
        elif form == "no =":
            pairs.append(name)  # no "=" at all
        else:
            pairs.append(f"{name}=")
    query = draw(st.sampled_from(["&", "&", "&", ";", "&&"])).join(pairs)
    return draw(st.sampled_from(["", "", "&", "?"])) + query + draw(st.sampled_from(["", "", "&", "&&"]))


@st.composite
def plain_urls(draw: st.DrawFn) -> str:
    """URLs mostly in or near normal form: the fast check's own ground."""
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    host = draw(st.sampled_from(["example.com", "www.example.com", "Example.com", "127.0.0.1", "h", "www.co.uk"]))
    port = draw(st.sampled_from(["", "", ":80", ":443", ":8080", ":99999"]))
    segments = st.one_of(_PLAIN, _PLAIN, _SESSION_SEGMENTS)
    path = "".join("/" + draw(segments) for _ in range(draw(st.integers(0, 4))))
    query: str | None
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(["a", "b", "utm_source", "PHPSESSID", "ref", "q", "A", ""]), max_size=4))
        query = "&".join(f"{n}={draw(_PLAIN)}" if n else "" for n in names) if names else None
    else:
        query = draw(st.one_of(st.none(), queries()))
    # ("\t!/r": a hashbang once parsing drops the tab; found in CI by test_keys_cache)
    fragment = draw(st.sampled_from([None, "", "top", "!/r", "x\ty", "\t!/r"]))
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
        url.replace("re.html", "./re.html"),
        url.replace("re", "r%65"),
        "https://user@docs.python.org/",
    ):
        assert _already_normal(not_normal, policy) is None, not_normal


def test_fast_check_does_the_query_work() -> None:
    """Tracking parameters, session ids, order and stray separators no longer
    need the full way; the answer and rank are the full way's."""
    policy = Policy.preset("default")
    normalize_slowly("https://docs.python.org/3/", policy)
    url = "https://docs.python.org/3/library/re.html?a=1&b=2"
    for variant in (
        url + "&utm_source=x",
        url + "&UTM_Medium=email&fbclid=IwAR0x9f#top",
        url.replace("a=1&b=2", "b=2&a=1"),
        url.replace("a=1&b=2", "PHPSESSID=8f2d6a4c&b=2&&a=1&"),
        url.replace("re.html", "re.html;jsessionid=0A1B2C3D4E5F"),
        url.replace("?a=1&b=2", "?utm_source=x&gclid=y"),
        url.replace("?a=1&b=2", "?"),
        "https://docs.python.org",
    ):
        fast = _already_normal(variant, policy)
        assert fast is not None, variant
        assert fast == normalize_slowly(variant, policy), variant
    rank = normalize_slowly(url + "&utm_source=x", policy)[1]
    assert rank == STEP_RANKS["tracking_params"]
    assert _already_normal(url + "&utm_source=x", policy) == (url, rank)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_urls(), st.sampled_from(ALL_POLICIES))
def test_fast_query_work_agrees_with_the_full_way(url: str, policy: Policy) -> None:
    """Many near-normal URLs with busy queries: fast and full way give the same URL and rank."""
    _both_ways(url, policy)
    _both_ways(url, policy)
