"""Each normalization step in isolation, in each preset, and their order."""

from __future__ import annotations

import pytest

from scrapy_urlnorm import InvalidURL, Policy, UnsupportedScheme, explain_url, normalize_url
from scrapy_urlnorm.steps import STEP_NAMES, STEPS, enabled_steps

SAFE = Policy.preset("safe")
DEFAULT = Policy.preset("default")
AGGRESSIVE = Policy.preset("aggressive")

# Everything off: each case below switches on exactly its own step.
NOTHING = Policy(
    **{
        name: False
        for name in (
            "lowercase_scheme", "lowercase_host", "idna_host", "strip_host_dot", "canonical_ip",
            "default_port", "empty_userinfo", "uppercase_escapes", "decode_unreserved",
            "remove_dot_segments", "empty_path_slash", "percent_encode", "sort_query",
            "drop_empty_query", "tracking_params", "session_ids",
        )
    },
    keep_fragment=True,
)  # fmt: skip

# (step, switches that enable it alone, input, expected)
ISOLATED = [
    ("lowercase_scheme", {"lowercase_scheme": True}, "HTTP://h/", "http://h/"),
    ("https_to_http", {"https_to_http": True}, "https://h:443/", "http://h/"),
    ("https_to_http", {"https_to_http": True}, "https://h:8443/", "http://h:8443/"),
    ("lowercase_host", {"lowercase_host": True}, "http://ExAmple.COM/A", "http://example.com/A"),
    ("idna_host", {"idna_host": True}, "http://b\u00fccher.de/", "http://xn--bcher-kva.de/"),
    ("idna_host", {"idna_host": True}, "http://%62%c3%bccher.de/", "http://xn--bcher-kva.de/"),
    (
        "idna_host",
        {"idna_host": True},
        "http://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\u3002com/",
        "http://example.com/",
    ),
    ("strip_host_dot", {"strip_host_dot": True}, "http://example.com./", "http://example.com/"),
    ("canonical_ip", {"canonical_ip": True}, "http://0x7f.1/", "http://127.0.0.1/"),
    ("canonical_ip", {"canonical_ip": True}, "http://2130706433/", "http://127.0.0.1/"),
    ("canonical_ip", {"canonical_ip": True}, "http://0177.0.0.01/", "http://127.0.0.1/"),
    ("canonical_ip", {"canonical_ip": True}, "http://127.1/", "http://127.0.0.1/"),
    ("canonical_ip", {"canonical_ip": True}, "http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"),
    ("www", {"www": "strip"}, "http://www.example.com/", "http://example.com/"),
    ("www", {"www": "add"}, "http://example.com/", "http://www.example.com/"),
    ("default_port", {"default_port": True}, "http://h:80/", "http://h/"),
    ("default_port", {"default_port": True}, "https://h:443/", "https://h/"),
    ("default_port", {"default_port": True}, "ftp://h:21/", "ftp://h/"),
    ("default_port", {"default_port": True}, "wss://h:443/", "wss://h/"),
    ("empty_userinfo", {"empty_userinfo": True}, "http://:@h/", "http://h/"),
    ("empty_userinfo", {"empty_userinfo": True}, "http://user:@h/", "http://user@h/"),
    (
        "percent_encode",
        {"percent_encode": True},
        "http://h/caf\u00e9 x?q=\u00e9 y",
        "http://h/caf%C3%A9%20x?q=%C3%A9%20y",
    ),
    ("percent_encode", {"percent_encode": True}, "http://h/100%", "http://h/100%25"),
    ("uppercase_escapes", {"uppercase_escapes": True}, "http://h/a%c3%a9?x=%2f", "http://h/a%C3%A9?x=%2F"),
    ("decode_unreserved", {"decode_unreserved": True}, "http://h/%7Euser/%41%2d", "http://h/~user/A-"),
    ("session_ids", {"session_ids": True}, "http://h/c;jsessionid=A1B2?x=1", "http://h/c?x=1"),
    ("session_ids", {"session_ids": True}, "http://h/?PHPSESSID=abc&ASPSESSIONIDQQ=Z&x=1", "http://h/?x=1"),
    ("session_ids", {"session_ids": True}, "http://h/(S(lit3py55t21z5v55vlm25s55))/p.aspx", "http://h/p.aspx"),
    ("session_ids", {"session_ids": True}, "http://h/a/(S(lit3py55t21z5v55vlm25s55))", "http://h/a/"),
    ("remove_dot_segments", {"remove_dot_segments": True}, "http://h/a/b/c/./../../g", "http://h/a/g"),
    ("collapse_slashes", {"collapse_slashes": True}, "http://h/a//b///c", "http://h/a/b/c"),
    ("lowercase_path", {"lowercase_path": True}, "http://h/ASP/Own%c3%a9.asp?Q=A", "http://h/asp/own%C3%A9.asp?Q=A"),
    ("default_pages", {"default_pages": True}, "http://h/dir/Index.HTML?x", "http://h/dir/?x"),
    ("trailing_slash", {"trailing_slash": "add"}, "http://h/pubs", "http://h/pubs/"),
    ("trailing_slash", {"trailing_slash": "remove"}, "http://h/pubs/", "http://h/pubs"),
    ("empty_path_slash", {"empty_path_slash": True}, "http://h", "http://h/"),
    ("tracking_params", {"tracking_params": True}, "http://h/?utm_source=a&fbclid=b&x=1", "http://h/?x=1"),
    # Matomo's campaign names go; a site's own pk_ key stays (a page of its own for stock Scrapy)
    ("tracking_params", {"tracking_params": True}, "http://h/?pk_id=3&pk_campaign=a&PK_KWD=b", "http://h/?pk_id=3"),
    ("ignore_params", {"ignore_params": {"view"}}, "http://h/?view=print&id=3", "http://h/?id=3"),
    ("extension_alias", {"alias_extensions": {"html"}}, "http://h/doc/Intro.HTML?x", "http://h/doc/Intro?x"),
    ("sort_query", {"sort_query": True}, "http://h/?b=1&a=2&a=1", "http://h/?a=2&a=1&b=1"),
    ("drop_empty_query", {"drop_empty_query": True}, "http://h/?", "http://h/"),
    ("drop_empty_query", {"drop_empty_query": True}, "http://h/?&a=1&&b=2&", "http://h/?a=1&b=2"),
    ("drop_fragment", {"keep_fragment": False}, "http://h/#top", "http://h/"),
]


@pytest.mark.parametrize(("step", "switches", "url", "expected"), ISOLATED)
def test_step_in_isolation(step: str, switches: dict, url: str, expected: str) -> None:
    policy = NOTHING.replace(**switches)
    assert normalize_url(url, policy) == expected
    assert [s.step for s in explain_url(url, policy)] == [step]


def test_every_step_has_an_isolated_case() -> None:
    assert {case[0] for case in ISOLATED} == set(STEP_NAMES)


def test_steps_off_change_nothing() -> None:
    url = "HTTP://WWW.Ex.com:80/a/./b/%7e/index.html?utm_source=x&b=1&a=2#f"
    assert normalize_url(url, NOTHING.replace(default_port=False)) == url


@pytest.mark.parametrize(
    ("preset", "steps"),
    [
        (
            "safe",
            {
                "lowercase_scheme", "lowercase_host", "idna_host", "strip_host_dot", "canonical_ip",
                "default_port", "empty_userinfo", "uppercase_escapes", "decode_unreserved",
                "remove_dot_segments", "empty_path_slash", "drop_fragment",
            },
        ),
        ("default", {"percent_encode", "sort_query", "drop_empty_query", "tracking_params", "session_ids"}),
        ("aggressive", {"lowercase_path", "trailing_slash", "www", "default_pages", "collapse_slashes"}),
    ],
)  # fmt: skip
def test_presets_are_cumulative(preset: str, steps: set[str]) -> None:
    """Each preset is the previous one plus exactly the steps DESIGN.md lists."""
    previous = {
        "safe": set(),
        "default": set(enabled_steps(Policy.preset("safe"))),
        "aggressive": set(enabled_steps(DEFAULT)),
    }[preset]
    assert set(enabled_steps(Policy.preset(preset))) == previous | steps
    assert "https_to_http" not in enabled_steps(Policy.preset(preset))  # optional everywhere


def test_step_order_is_fixed_and_documented() -> None:
    aggressive = AGGRESSIVE.replace(https_to_http=True, ignore_params={"x"}, alias_extensions={"html"})
    assert enabled_steps(aggressive) == STEP_NAMES
    assert [s.name for s in STEPS] == list(STEP_NAMES)
    # order matters: escapes before dot segments, dot segments before collapsing
    order = {name: i for i, name in enumerate(STEP_NAMES)}
    assert order["decode_unreserved"] < order["remove_dot_segments"] < order["collapse_slashes"]
    assert order["decode_unreserved"] < order["lowercase_path"]
    assert order["default_pages"] < order["trailing_slash"]
    assert order["default_pages"] < order["extension_alias"] < order["trailing_slash"]  # /x.html -> /x -> /x/
    assert order["https_to_http"] < order["default_port"]
    assert order["tracking_params"] < order["sort_query"] < order["drop_empty_query"]


@pytest.mark.parametrize(
    ("url", "safe", "default", "aggressive"),
    [
        (
            "HTTP://WWW.Example.COM:80/a/./b/../Shop?utm_source=x&b=2&a=1#r",
            "http://www.example.com/a/Shop?utm_source=x&b=2&a=1",
            "http://www.example.com/a/Shop?a=1&b=2",
            "http://example.com/a/shop/?a=1&b=2",
        ),
        ("http://h/caf\u00e9?", "http://h/caf\u00e9?", "http://h/caf%C3%A9", "http://h/caf%C3%A9/"),
        ("http://h//x/index.php?id=3", "http://h//x/index.php?id=3", "http://h//x/index.php?id=3", "http://h/x/?id=3"),
    ],
)
def test_presets_end_to_end(url: str, safe: str, default: str, aggressive: str) -> None:
    assert normalize_url(url, SAFE) == safe
    assert normalize_url(url, DEFAULT) == default
    assert normalize_url(url) == default
    assert normalize_url(url, AGGRESSIVE) == aggressive


def test_explain_ends_with_normal_form() -> None:
    url = "HTTP://Example.COM:80/%7euser/?b=1&a=2"
    steps = explain_url(url)
    assert [s.step for s in steps] == [
        "lowercase_scheme", "lowercase_host", "default_port", "uppercase_escapes",
        "decode_unreserved", "sort_query",
    ]  # fmt: skip
    assert steps[-1].url == normalize_url(url)
    assert explain_url(normalize_url(url)) == []


class TestReservedEscapes:
    @pytest.mark.parametrize("escape", ["%2F", "%26", "%3D", "%23", "%3F", "%25", "%2B", "%40", "%3A"])
    def test_reserved_escapes_are_never_decoded(self, escape: str) -> None:
        url = f"http://h/a{escape}b?k=v{escape}w"
        assert normalize_url(url) == url
        assert normalize_url(url.lower(), DEFAULT) == url.replace("?k=v", "?k=v")
        assert normalize_url(url, AGGRESSIVE) == f"http://h/a{escape}b/?k=v{escape}w"

    def test_decoding_never_completes_an_escape_with_a_stray_percent(self) -> None:
        # Without percent_encode a lone "%" stays; decoding %41 beside it
        # would make "%Aa", a new escape: not idempotent.
        assert normalize_url("http://example.com/%%41a", SAFE) == "http://example.com/%%41a"
        assert normalize_url("http://example.com/%4%41", SAFE) == "http://example.com/%4%41"
        assert normalize_url("http://example.com/%%7e", SAFE) == "http://example.com/%~"
        assert normalize_url("http://example.com/%%41a") == "http://example.com/%25Aa"

    def test_dot_escapes_count_as_dots(self) -> None:
        assert normalize_url("http://h/a/b/%2e%2E/c/%2e/d") == "http://h/a/c/d"


class TestHosts:
    def test_userinfo_is_never_lowercased(self) -> None:
        assert normalize_url("http://User:PassWord@EXAMPLE.com/") == "http://User:PassWord@example.com/"

    @pytest.mark.parametrize("host", ["www.co.uk", "www.localhost", "www.github.io", "www.127.0.0.1"])
    def test_www_is_kept_when_the_rest_is_no_site(self, host: str) -> None:
        url = f"http://{host}/"
        assert normalize_url(url, AGGRESSIVE) == url

    def test_www_is_added_only_to_registrable_domains(self) -> None:
        add = DEFAULT.replace(www="add")
        assert normalize_url("http://example.co.uk/", add) == "http://www.example.co.uk/"
        assert normalize_url("http://blog.example.com/", add) == "http://blog.example.com/"
        assert normalize_url("http://localhost/", add) == "http://localhost/"
        assert normalize_url("http://10.0.0.1/", add) == "http://10.0.0.1/"

    def test_idna_results_are_cached(self) -> None:
        from scrapy_urlnorm import hosts

        hosts.idna_host.cache_clear()
        for path in ("a", "b", "c"):
            explain_url(f"http://b\u00fccher.de/{path}")  # explain_url runs every step
        assert hosts.idna_host.cache_info().hits >= 2
        policy = Policy.preset("default").replace(keep_fragment=True)  # a fresh authority cache
        for path in ("a", "b", "c"):
            normalize_url(f"http://b\u00fccher.de/{path}", policy)
        assert len(policy._authority_cache) == 1

    def test_not_an_ip(self) -> None:
        assert normalize_url("http://1.2.3.4.5/") == "http://1.2.3.4.5/"
        assert normalize_url("http://0x7g.1/") == "http://0x7g.1/"
        assert normalize_url("http://256.256.256.256/") == "http://256.256.256.256/"


class TestQuery:
    def test_repeated_names_keep_their_order(self) -> None:
        assert normalize_url("http://h/?z=1&a=2&z=0&a=1") == "http://h/?a=2&a=1&z=1&z=0"

    def test_valueless_params_stay_valueless(self) -> None:
        # ``a`` and ``a=`` differ for some servers; we keep the distinction.
        assert normalize_url("http://h/?b&a=") == "http://h/?a=&b"

    def test_remove_and_keep_params(self) -> None:
        policy = DEFAULT.replace(remove_params={"ref", "Lang"}, keep_params={"utm_campaign"})
        url = "http://h/?ref=x&lang=en&utm_campaign=spring&utm_source=mail&id=1"
        assert normalize_url(url, policy) == "http://h/?id=1&utm_campaign=spring"

    @pytest.mark.parametrize(
        "query",
        ["utm_source=x;id=5", "fbclid=a;page=2&b=1", "PHPSESSID=8f2d6a4c;id=5", "sid=0123456789abcdef0123;p=2"],
    )
    def test_a_removable_pair_holding_more_pairs_after_a_semicolon_stays(self, query: str) -> None:
        # CGI.pm and Apache's listings split queries on ";" too: removing
        # "utm_source=x;id=5" would remove id=5 with it, and merge two pages.
        url = f"http://h/list?{query}"
        normal = normalize_url(url)
        assert sorted(normal.partition("?")[2].split("&")) == sorted(query.split("&"))

    def test_generic_session_names_need_token_values(self) -> None:
        assert normalize_url("http://h/?sid=12") == "http://h/?sid=12"
        assert normalize_url("http://h/?sid=0123456789abcdef0123") == "http://h/"

    @pytest.mark.parametrize("policy", ["default", "aggressive"])
    def test_a_cookieless_session_as_the_last_segment_goes_in_one_pass(self, policy: str) -> None:
        # Found only before a "/" it came back after aggressive's trailing slash: not idempotent.
        url = "http://example.com/(S(lit3py55t21z5v55vlm25s55))"
        once = normalize_url(url, Policy.preset(policy))
        assert once == "http://example.com/" == normalize_url(once, Policy.preset(policy))

    @pytest.mark.parametrize(
        "value",
        ["8df13f021b538e13", "D9EFE28B3BCB50B3", "lit3py55t21z5v55vlm25s55", "0f8fad5b-d9cb-469f-a165-70867728950e"],
    )
    def test_token_values_of_generic_session_names_go(self, value: str) -> None:
        assert normalize_url(f"http://h/talks?session={value}") == "http://h/talks"

    @pytest.mark.parametrize(
        "value",
        ["opening-keynote-day-1", "python-3-11-release-notes", "1234567890123456789", "deadbeefdeadbeef"],
    )
    def test_slugs_and_numbers_in_generic_session_names_stay(self, value: str) -> None:
        # A conference's ``?session=`` slug or a long numeric id selects a page: removing
        # it would merge distinct pages, and no later evidence could undo that.
        assert normalize_url(f"http://h/talks?session={value}") == f"http://h/talks?session={value}"

    def test_removing_every_parameter_removes_the_question_mark(self) -> None:
        safe_with_removal = SAFE.replace(tracking_params=True, session_ids=True)
        assert normalize_url("http://h/a?utm_source=x&utm_medium=y", safe_with_removal) == "http://h/a"
        assert normalize_url("http://h/a?PHPSESSID=1&", safe_with_removal) == "http://h/a"
        assert normalize_url("http://h/a?", safe_with_removal) == "http://h/a?"  # was empty already: RFC keeps it

    @pytest.mark.parametrize(
        "url",
        [
            "http://a/web/20200615120000/http://w/index.php?title=Fig&fbclid=IwAR0&utm_source=rss",
            "http://a/web/2020id_/https:/w/x?PHPSESSID=8f2d6a4c&utm_medium=mail",
            "http://a/proxy/http%3A/w/x;jsessionid=0123456789ABCDEF?gclid=1",
        ],
    )
    def test_parameters_of_a_url_embedded_in_the_path_stay(self, url: str) -> None:
        # A web archive's capture of /x?fbclid=1 is not its capture of /x: the query
        # belongs to the archived URL, part of the resource's name (wild seed 20 lost one).
        normalized = normalize_url(url)
        assert all(name in normalized for name in ("fbclid", "utm_", "PHPSESSID", "gclid", "jsessionid") if name in url)
        assert normalize_url("http://a/web/2020/page?utm_source=rss") == "http://a/web/2020/page"

    def test_plus_and_space_escape_stay_distinct(self) -> None:
        assert normalize_url("http://h/?q=a+b") != normalize_url("http://h/?q=a%20b")
        assert normalize_url("http://h/?q=a b") == "http://h/?q=a%20b"


class TestFragments:
    def test_hashbang_can_be_kept(self) -> None:
        policy = DEFAULT.replace(keep_hashbang=True)
        assert normalize_url("http://h/#!/inbox/1", policy) == "http://h/#!/inbox/1"
        assert normalize_url("http://h/#section", policy) == "http://h/"

    def test_fragment_can_be_kept_and_normalized(self) -> None:
        policy = DEFAULT.replace(keep_fragment=True)
        assert normalize_url("http://h/#caf\u00e9%7e", policy) == "http://h/#caf%C3%A9~"


class TestErrors:
    @pytest.mark.parametrize(
        ("url", "message"),
        [
            ("/relative/path", "no scheme"),
            ("example.com/path", "no scheme"),
            ("http:example.com", "missing '//'"),
            ("http://", "empty host"),
            ("http://host:99999/", "out of range"),
            ("http://host:8o/", "invalid port"),
            ("http://[::1/", "unterminated IPv6"),
            ("http://[:::1]/", "invalid IPv6"),
            ("http://ho st/", "forbidden character"),
            ("http://%ff/", "not valid percent-encoded UTF-8"),
            ("1http://h/", "invalid scheme"),
        ],
    )
    def test_invalid_urls_say_what_is_wrong(self, url: str, message: str) -> None:
        with pytest.raises(InvalidURL, match=message) as caught:
            normalize_url(url)
        assert isinstance(caught.value, ValueError)
        assert caught.value.url == url

    @pytest.mark.parametrize("url", ["mailto:joe@example.com", "javascript:void(0)", "data:,hi", "file:///etc/x"])
    def test_other_schemes_are_rejected_consistently(self, url: str) -> None:
        with pytest.raises(UnsupportedScheme) as caught:
            normalize_url(url)
        assert isinstance(caught.value, InvalidURL)

    def test_non_string_input(self) -> None:
        with pytest.raises(InvalidURL, match="expected a str"):
            normalize_url(b"http://h/")  # type: ignore[arg-type]

    def test_whitespace_is_trimmed_and_tabs_removed(self) -> None:
        assert normalize_url("  http://exa\tmple.com/a\n ") == "http://example.com/a"


class TestPaperExamples:
    """Lee, Kim and Hong, *On URL Normalization*, section 4."""

    def test_path_case(self) -> None:
        a, b = "http://www.nasdaq.com/asp/ownership.asp", "http://www.nasdaq.com/ASP/ownership.asp"
        assert normalize_url(a) != normalize_url(b)
        policy = DEFAULT.replace(lowercase_path=True)
        assert normalize_url(a, policy) == normalize_url(b, policy) == a

    def test_trailing_slash(self) -> None:
        a, b = "http://acm.org/pubs", "http://acm.org/pubs/"
        assert normalize_url(a) != normalize_url(b)
        policy = DEFAULT.replace(trailing_slash="add")
        assert normalize_url(a, policy) == normalize_url(b, policy) == b

    def test_default_page(self) -> None:
        a, b = "http://www.acm.org/", "http://www.acm.org/index.htm"
        assert normalize_url(a) != normalize_url(b)
        policy = DEFAULT.replace(default_pages=True)
        assert normalize_url(a, policy) == normalize_url(b, policy) == a
