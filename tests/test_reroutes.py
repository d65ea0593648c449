"""``Reroutes``: which drops a redirect chain leaves behind, each URL once."""

from __future__ import annotations

from scrapy import Request

from scrapy_urlnorm.ledger import Drop
from scrapy_urlnorm.reroutes import Reroutes, routed

CHAIN = ["http://h.test/x/;jsessionid=A"]
TARGET = "http://h.test/x"


def drops(*urls: str, learned: bool = False) -> list[Drop]:
    return [Drop(Request(url), "session_ids", "h.test", learned) for url in urls]


def urls(found: list[Drop]) -> list[str]:
    return [drop.url for drop in found]


def test_a_path_the_server_never_answered_is_released_once() -> None:
    reroutes = Reroutes()
    release, copies = reroutes.left_behind(drops("http://h.test/x/", "http://h.test/x/#top"), CHAIN, TARGET)
    assert (urls(release), urls(copies)) == (["http://h.test/x/"], ["http://h.test/x/#top"])
    # Another representative of the key, redirected the same way, later: fetched as written already.
    release, copies = reroutes.left_behind(drops("http://h.test/x/"), ["http://h.test/x/;jsessionid=C"], TARGET)
    assert (urls(release), urls(copies)) == ([], ["http://h.test/x/"])


def test_what_the_server_answered_follows_the_chain() -> None:
    kept = drops(
        "http://h.test/x/;jsessionid=B",  # routed as A was
        "http://h.test/x/;jsessionid=A?utm_source=a",  # a query only
        "http://h.test:80/x/;jsessionid=A",  # a port only
        "http://h.test/y",  # the target's directory
    ) + drops("http://www.h.test/x/", learned=True)  # a rule the host taught
    assert Reroutes().left_behind(kept, CHAIN, TARGET) == ([], [])


def test_a_path_parameter_is_routed_whatever_its_value() -> None:
    assert routed("/x/;jsessionid=A") == routed("/x/;jsessionid=B") == "/x/;jsessionid="
    assert routed("/a;v=1/b;w=2") == "/a;v=/b;w="
    assert routed("/x/") == "/x/" != routed("/x/;jsessionid=A")
