"""Normalization policy: which steps run, as immutable data.

A :class:`Policy` is a frozen set of switches, one per normalization step (see
:mod:`scrapy_urlnorm.steps` for what each does, in order). Presets ``safe``,
``default`` and ``aggressive`` are ready-made policies; ``replace()`` changes
switches; ``from_settings()`` reads ``URLNORM_*`` Scrapy settings; per-host
overrides pick a different policy for hosts matching a glob pattern.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from .params import DEFAULT_PAGES

TrailingSlash = Literal["keep", "add", "remove"]
WwwMode = Literal["keep", "strip", "add"]

_CHOICES: dict[str, tuple[str, ...]] = {"trailing_slash": ("keep", "add", "remove"), "www": ("keep", "strip", "add")}
_NAME_SETS = ("remove_params", "keep_params", "ignore_params", "alias_extensions", "learned_steps")
_NOT_SWITCHES = ("host_policies", "ignore_params", "alias_extensions", "learned_steps")


@dataclasses.dataclass(frozen=True, slots=True)
class Policy:
    """Immutable normalization switches. Build with :meth:`preset` and :meth:`replace`."""

    # RFC 3986 §6.2.2-6.2.3 and host canonicalization (preset "safe").
    lowercase_scheme: bool = True
    lowercase_host: bool = True
    idna_host: bool = True
    strip_host_dot: bool = True
    canonical_ip: bool = True
    default_port: bool = True
    empty_userinfo: bool = True
    uppercase_escapes: bool = True
    decode_unreserved: bool = True
    remove_dot_segments: bool = True
    empty_path_slash: bool = True
    keep_fragment: bool = False
    keep_hashbang: bool = False
    # Crawler steps (preset "default").
    percent_encode: bool = True
    sort_query: bool = True
    drop_empty_query: bool = True
    tracking_params: bool = True
    session_ids: bool = True
    remove_params: frozenset[str] = frozenset()
    keep_params: frozenset[str] = frozenset()
    # The paper's semantic-changing steps (preset "aggressive").
    lowercase_path: bool = False
    trailing_slash: TrailingSlash = "keep"
    www: WwwMode = "keep"
    default_pages: tuple[str, ...] = ()
    collapse_slashes: bool = False
    https_to_http: bool = False
    # Per-host overrides: ((glob pattern, ((switch, value), ...)), ...), applied in order.
    host_policies: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    # Set by the learner on a host's policy, never by users: parameters the
    # host ignores, and the steps it switched on (duplicates they cause are
    # reported as learned rules, e.g. "learned:trailing_slash").
    ignore_params: frozenset[str] = frozenset()
    # Extensions the host serves its pages without (MultiViews, try_files): /x = /x.html.
    alias_extensions: frozenset[str] = frozenset()
    learned_steps: frozenset[str] = frozenset()

    _host_cache: dict[str, Policy] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    # (authority steps, other steps) compiled by steps.compiled() on first use.
    _compiled: tuple[Any, Any] | None = dataclasses.field(
        default=None, init=False, repr=False, compare=False, hash=False
    )
    # What normalize.py's one-pass check looks at under this policy, made on first use.
    _fast_plan: Any = dataclasses.field(default=None, init=False, repr=False, compare=False, hash=False)
    # (scheme, userinfo, host, port) -> (normalized fields, rank): see normalize.py.
    _authority_cache: dict[tuple[Any, ...], Any] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {getattr(self, name)!r}")
        for name in _NAME_SETS:
            value = getattr(self, name)
            if not isinstance(value, frozenset):
                object.__setattr__(self, name, _name_set(value, name))
        pages = self.default_pages
        if not isinstance(pages, tuple) or any(not isinstance(p, str) or p != p.lower() for p in pages):
            object.__setattr__(self, "default_pages", _page_list(pages))
        if self.host_policies:
            object.__setattr__(self, "host_policies", _host_policies(self.host_policies))

    # -- construction -------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> Policy:
        """One of ``"safe"``, ``"default"``, ``"aggressive"``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown policy preset {name!r}; choose one of {sorted(PRESETS)}") from None

    def replace(self, **switches: Any) -> Policy:
        """A copy with some switches changed: ``policy.replace(lowercase_path=True)``."""
        _check_switches(switches, "Policy.replace()")
        return dataclasses.replace(self, **switches)

    @classmethod
    def from_settings(cls, settings: Any) -> Policy:
        """The policy a crawl's settings ask for.

        ``URLNORM_POLICY`` names the preset; each switch ``URLNORM_<NAME>``
        (for example ``URLNORM_LOWERCASE_PATH``) that is set overrides it;
        ``URLNORM_HOST_POLICIES`` adds per-host overrides. ``settings`` is a
        Scrapy ``Settings`` object or any mapping.
        """
        policy = cls.preset(str(settings.get("URLNORM_POLICY") or "default"))
        switches: dict[str, Any] = {}
        for name in SWITCHES:
            value = None if name in _NOT_SWITCHES else settings.get(f"URLNORM_{name.upper()}")
            if value is not None:
                switches[name] = _coerce(name, value)
        host_policies = settings.get("URLNORM_HOST_POLICIES")
        if isinstance(host_policies, str):  # a JSON object, as Scrapy's own dict settings accept
            host_policies = json.loads(host_policies) if host_policies.strip() else None
        if host_policies:
            switches["host_policies"] = host_policies
        return policy.replace(**switches) if switches else policy

    # -- per-host policies ----------------------------------------------------

    def for_host(self, host: str) -> Policy:
        """The policy for ``host`` (lower-case ASCII): this one with matching overrides applied."""
        if not self.host_policies:
            return self
        cached = self._host_cache.get(host)
        if cached is None:
            overrides: dict[str, Any] = {}
            for pattern, switches in self.host_policies:
                if fnmatch.fnmatchcase(host, pattern):
                    overrides.update(switches)
            cached = dataclasses.replace(self, host_policies=(), **overrides) if overrides else self
            if len(self._host_cache) >= 65536:
                self._host_cache.clear()
            self._host_cache[host] = cached
        return cached

    def switches(self) -> dict[str, Any]:
        """The switch values as a plain dict (for reports and ``--json``)."""
        return {name: _plain(getattr(self, name)) for name in SWITCHES}


def _plain(value: Any) -> Any:
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return value


#: Every switch name (the ``Policy`` fields a user may set).
SWITCHES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Policy) if f.init and f.name != "host_policies")


def _check_switches(switches: Mapping[str, Any], where: str) -> None:
    unknown = set(switches) - set(SWITCHES) - set(_NOT_SWITCHES)
    if unknown:
        raise TypeError(f"{where}: unknown switch(es) {sorted(unknown)}; known switches: {', '.join(SWITCHES)}")


def _name_set(value: Any, name: str) -> frozenset[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of names, not {value!r}")
    if name == "learned_steps":
        return frozenset(value)
    return frozenset(str(v).strip().lower() for v in value if str(v).strip())


def _page_list(value: Any) -> tuple[str, ...]:
    if value is True:
        return DEFAULT_PAGES
    if value is False or value is None:
        return ()
    if isinstance(value, str):
        value = value.split(",")
    return tuple(str(v).strip().lower() for v in value if str(v).strip())


def _host_policies(value: Any) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    if isinstance(value, tuple) and all(isinstance(v, tuple) for v in value):
        items = [(pattern, dict(switches)) for pattern, switches in value]
    elif isinstance(value, Mapping):
        items = list(value.items())
    else:
        raise TypeError(f"URLNORM_HOST_POLICIES must be a dict of host pattern -> switches, not {value!r}")
    result = []
    for pattern, switches in items:
        if not isinstance(switches, Mapping):
            raise TypeError(f"URLNORM_HOST_POLICIES[{pattern!r}] must be a dict of switches, not {switches!r}")
        _check_switches(switches, f"URLNORM_HOST_POLICIES[{pattern!r}]")
        frozen = tuple(sorted((name, _freeze(name, _coerce(name, v))) for name, v in switches.items()))
        result.append((str(pattern).lower(), frozen))
    return tuple(result)


def _freeze(name: str, value: Any) -> Any:
    if name in _NAME_SETS:
        return _name_set(value, name)
    if name == "default_pages":
        return _page_list(value)
    return value


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _coerce(name: str, value: Any) -> Any:
    """Settings arrive as strings from ``-s NAME=value``; turn them into switch values."""
    if name in _CHOICES or name in _NAME_SETS or name == "default_pages":
        if name == "default_pages" and isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        return value
    if isinstance(value, str):
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ValueError(f"URLNORM_{name.upper()} must be a boolean, not {value!r}")
    return bool(value)


_SAFE = Policy(
    percent_encode=False,
    sort_query=False,
    drop_empty_query=False,
    tracking_params=False,
    session_ids=False,
)
_DEFAULT = Policy()
_AGGRESSIVE = Policy(
    lowercase_path=True,
    trailing_slash="add",
    www="strip",
    default_pages=DEFAULT_PAGES,
    collapse_slashes=True,
)

#: The named presets (see the README for what each contains).
PRESETS: dict[str, Policy] = {"safe": _SAFE, "default": _DEFAULT, "aggressive": _AGGRESSIVE}
