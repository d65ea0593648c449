"""Property tests: idempotence and "only InvalidURL escapes", on generated URLs."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_urlnorm import InvalidURL, Policy, explain_url, normalize_url
from scrapy_urlnorm.normalize import host_key
from scrapy_urlnorm.steps import compiled
from scrapy_urlnorm.urlparts import split_url

POLICIES = [
    Policy.preset("safe"),
    Policy.preset("default"),
    Policy.preset("aggressive"),
    Policy.preset("aggressive").replace(www="add", trailing_slash="remove", https_to_http=True, keep_hashbang=True),
    Policy.preset("default").replace(keep_fragment=True),
]

_TOKENS = [*"aAzZ09-._~!$&'()*+,;=:@/?#[]% \t\u00e9\u4e2d\u2603\x00\x7f\\\"<>^`{|}"]
_TOKENS += ["%2e", "%2E", "%41", "%7e", "%2F", "%c3%a9", "..", "//", "www.", "index.html", "utm_source=1", "?a=1"]
_URL_CHARS = st.sampled_from(_TOKENS)


def _text(max_size: int) -> st.SearchStrategy[str]:
    return st.lists(_URL_CHARS, max_size=max_size).map("".join)


_segment = _text(8)
_host = st.one_of(
    st.sampled_from(
        [
            "example.com", "WWW.Example.COM", "www.co.uk", "b\u00fccher.de", "127.0.0.1", "0x7f.1",
            "[::1]", "[2001:DB8::1]", "localhost", "example.com.", "xn--bcher-kva.de", "%65xample.com",
            "www.example.com", "a.b.c.d.e", "1.2.3.4.5", "www", "\u2603.net",
        ]
    ),
    st.text(alphabet="abcXYZ019-.%_\u00e9", min_size=1, max_size=15),
)  # fmt: skip


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "HTTPS", "ws", "wss", "ftp", "Http"]))
    userinfo = draw(st.sampled_from(["", "user@", "u:p@", ":@", "User:@"]))
    host = draw(_host)
    port = draw(st.sampled_from(["", ":80", ":443", ":8080", ":", ":021"]))
    path = "".join(draw(st.lists(st.builds(lambda s: "/" + s, _segment), max_size=5)))
    query = draw(st.one_of(st.none(), _text(12)))
    fragment = draw(st.one_of(st.none(), st.sampled_from(["", "top", "!/route", "a#b"])))
    url = f"{scheme}://{userinfo}{host}{port}{path}"
    if query is not None:
        url += "?" + query
    if fragment is not None:
        url += "#" + fragment
    return url


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls(), st.sampled_from(POLICIES))
def test_idempotent_and_only_invalid_url_escapes(url: str, policy: Policy) -> None:
    try:
        normal = normalize_url(url, policy)
    except InvalidURL:
        return
    assert normalize_url(normal, policy) == normal
    steps = explain_url(url, policy)
    assert (steps[-1].url if steps else normalize_url(url, policy)) == normal


@settings(max_examples=300, deadline=None)
@given(urls(), st.sampled_from(POLICIES))
def test_steps_return_the_same_object_exactly_when_nothing_changes(url: str, policy: Policy) -> None:
    """The normalizer and explain_url rely on this to tell which steps acted."""
    try:
        u = split_url(url)
        policy = policy.for_host(host_key(u.host))
        authority_steps, other_steps = compiled(policy)
        for apply, name, _rank in authority_steps:
            new = apply(u, policy)
            assert (new is u) == (new == u), name
            assert new[4:] == u[4:], f"{name} is an authority step but changed the path, query or fragment"
            u = new
        for apply, name, _rank in other_steps:
            new = apply(u, policy)
            assert (new is u) == (new == u), name
            u = new
    except InvalidURL:
        return


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.sampled_from(POLICIES))
def test_arbitrary_text_never_raises_anything_else(text: str, policy: Policy) -> None:
    for candidate in (text, "http://" + text, "http://h/" + text, "https://h/?" + text):
        try:
            normal = normalize_url(candidate, policy)
        except InvalidURL:
            continue
        assert normalize_url(normal, policy) == normal
