"""Exceptions raised by scrapy-urlnorm."""

from __future__ import annotations


class InvalidURL(ValueError):
    """The input cannot be parsed as an absolute http(s), ws(s) or ftp URL.

    The message says what is wrong; ``url`` holds the offending input.
    """

    def __init__(self, message: str, url: object = None) -> None:
        super().__init__(message)
        self.url = url


class UnsupportedScheme(InvalidURL):
    """A well-formed URL whose scheme we do not normalize (``mailto:``, ``data:``, ``file:``...).

    A subclass of :class:`InvalidURL` so ``except InvalidURL`` catches it; the
    Scrapy components tell it apart to fall back to Scrapy's own fingerprint
    without counting the URL as invalid.
    """

    def __init__(self, scheme: str, url: object = None) -> None:
        super().__init__(f"unsupported scheme {scheme!r} (only http, https, ws, wss and ftp are normalized)", url)
        self.scheme = scheme


class SettingsError(ValueError):
    """A ``URLNORM_*`` setting has a value scrapy-urlnorm cannot use.

    Raised once, when the crawl starts (from the add-on, or when the dupe
    filter is built), before any request is sent. The message names the
    setting, the value given and the values that work; ``setting`` and
    ``value`` hold them.
    """

    def __init__(self, setting: str, value: object, expected: str) -> None:
        super().__init__(f"{setting} = {value!r} is not valid: {expected}")
        self.setting = setting
        self.value = value
        self.expected = expected
