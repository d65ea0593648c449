"""Policy: presets, replace(), from_settings(), per-host overrides."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from scrapy_urlnorm import Policy, normalize_url
from scrapy_urlnorm.params import DEFAULT_PAGES
from scrapy_urlnorm.policy import SWITCHES


def test_presets_are_immutable_and_hashable() -> None:
    policy = Policy.preset("default")
    with pytest.raises(AttributeError):
        policy.lowercase_path = True  # type: ignore[misc]
    assert hash(policy) == hash(Policy())
    assert Policy.preset("default") is Policy.preset("default")


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown policy preset 'fast'"):
        Policy.preset("fast")


def test_replace_checks_names_and_values() -> None:
    with pytest.raises(TypeError, match="unknown switch"):
        Policy().replace(lowercase_paths=True)
    with pytest.raises(ValueError, match="trailing_slash must be one of"):
        Policy().replace(trailing_slash="yes")
    assert Policy().replace(default_pages=True).default_pages == DEFAULT_PAGES
    assert Policy().replace(default_pages=["Home.HTML"]).default_pages == ("home.html",)
    assert Policy().replace(remove_params="Ref, lang").remove_params == frozenset({"ref", "lang"})


def test_from_settings_reads_preset_and_switches() -> None:
    settings = Settings(
        {
            "URLNORM_POLICY": "safe",
            "URLNORM_LOWERCASE_PATH": "true",  # as given by `scrapy crawl -s`
            "URLNORM_TRAILING_SLASH": "add",
            "URLNORM_DEFAULT_PAGES": ["index.html"],
            "URLNORM_REMOVE_PARAMS": ["ref"],
            "URLNORM_KEEP_FRAGMENT": False,
        }
    )
    policy = Policy.from_settings(settings)
    assert policy == Policy.preset("safe").replace(
        lowercase_path=True, trailing_slash="add", default_pages=("index.html",), remove_params={"ref"}
    )
    assert Policy.from_settings({}) == Policy.preset("default")
    assert Policy.from_settings({"URLNORM_POLICY": "aggressive"}) == Policy.preset("aggressive")


def test_from_settings_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="URLNORM_LOWERCASE_PATH must be a boolean"):
        Policy.from_settings({"URLNORM_LOWERCASE_PATH": "maybe"})


def test_every_switch_has_a_setting() -> None:
    for name in SWITCHES:
        value = getattr(Policy.preset("aggressive"), name)
        assert Policy.from_settings({f"URLNORM_{name.upper()}": value}) is not None


class TestHostPolicies:
    def policy(self) -> Policy:
        return Policy.from_settings(
            {
                "URLNORM_HOST_POLICIES": {
                    "*.example.com": {"lowercase_path": True},
                    "shop.example.com": {"lowercase_path": False, "trailing_slash": "add"},
                    "news.test": {"remove_params": ["ref"], "www": "strip"},
                }
            }
        )

    def test_glob_patterns_match_hosts(self) -> None:
        policy = self.policy()
        assert normalize_url("http://a.example.com/ASP/X.asp", policy) == "http://a.example.com/asp/x.asp"
        # `*.example.com` matches subdomains, not the bare domain
        assert normalize_url("http://example.com/ASP/X.asp", policy) == "http://example.com/ASP/X.asp"

    def test_later_patterns_override_earlier(self) -> None:
        policy = self.policy()
        assert normalize_url("http://shop.example.com/Cart", policy) == "http://shop.example.com/Cart/"

    def test_match_is_on_the_canonical_host(self) -> None:
        policy = self.policy()
        assert normalize_url("http://NEWS.test.:80/?ref=x&id=1", policy) == "http://news.test/?id=1"
        assert normalize_url("http://www.news.test/", policy) == "http://www.news.test/"

    def test_host_overrides_are_validated(self) -> None:
        with pytest.raises(TypeError, match=r"URLNORM_HOST_POLICIES\['x'\]: unknown switch"):
            Policy.from_settings({"URLNORM_HOST_POLICIES": {"x": {"nope": 1}}})
        with pytest.raises(TypeError, match="must be a dict"):
            Policy.from_settings({"URLNORM_HOST_POLICIES": {"x": True}})

    def test_for_host_is_cached(self) -> None:
        policy = self.policy()
        assert policy.for_host("a.example.com") is policy.for_host("a.example.com")
        assert policy.for_host("other.org") is policy
