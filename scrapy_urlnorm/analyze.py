"""``python -m scrapy_urlnorm analyze FILE``: the paper's Table 1 for your own crawl.

Lee, Kim and Hong (*On URL Normalization*, section 3) judge a normalization
option by decomposing the URLs into *candidate sets* (URLs that the option
would merge; sets of one are dropped) and, with ``D_i`` the documents
downloaded from set ``U_i``:

- redundancy rate = Σ(n(D_i) − un(D_i)) / Σ n(D_i): how many downloads were
  duplicates, without the option;
- coverage loss rate = 1 − D_downloaded / Σ un(D_i): how many distinct
  documents the option would lose, where ``D_downloaded`` counts the sets
  whose *normalized* URL (the one the option sends) was downloaded.

Input is a plain URL list (one per line; no digests, so only the set counts
and the request reduction) or a crawl log written with ``URLNORM_CRAWL_LOG``
(JSON lines with ``url``, ``status`` and ``digest``). Lines are streamed;
unparseable ones are counted, never fatal.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from .errors import InvalidURL
from .normalize import normalize_url
from .params import DEFAULT_PAGES
from .policy import Policy

_SAFE = Policy.preset("safe")
_STEP = {
    "lowercase_path": _SAFE.replace(lowercase_path=True),
    "add_slash": _SAFE.replace(trailing_slash="add"),
    "remove_slash": _SAFE.replace(trailing_slash="remove"),
    "strip_www": _SAFE.replace(www="strip"),
    "add_www": _SAFE.replace(www="add"),
    "default_pages": _SAFE.replace(default_pages=DEFAULT_PAGES),
    "sort_query": _SAFE.replace(sort_query=True),
    "tracking_params": _SAFE.replace(tracking_params=True),
    "session_ids": _SAFE.replace(session_ids=True),
}


def _upper_path(url: str) -> str:
    """The paper's third path-case option: upper-case the path (escapes kept)."""
    start = url.find("/", url.find("//") + 2)
    if start < 0:
        return url
    end = min(i for i in (url.find("?", start), len(url)) if i >= 0)
    return url[:start] + url[start:end].upper() + url[end:]


def _with(step: str) -> Callable[[str], str]:
    policy = _STEP[step]
    return lambda url: normalize_url(url, policy)


@dataclass(frozen=True)
class Study:
    """One aspect of the paper's Table 1: how URLs group, and the options' representatives."""

    name: str
    key: Callable[[str], str]
    options: dict[str, Callable[[str], str]]


STUDIES = (
    Study("path case", _with("lowercase_path"), {"lower": _with("lowercase_path"), "upper": _upper_path}),
    Study("last slash", _with("remove_slash"), {"add": _with("add_slash"), "remove": _with("remove_slash")}),
    Study("www", _with("strip_www"), {"strip": _with("strip_www"), "add": _with("add_www")}),
    Study("default pages", _with("default_pages"), {"remove": _with("default_pages")}),
    Study("query order", _with("sort_query"), {"sort": _with("sort_query")}),
    Study("tracking params", _with("tracking_params"), {"remove": _with("tracking_params")}),
    Study("session ids", _with("session_ids"), {"remove": _with("session_ids")}),
)


@dataclass
class Outcome:
    study: str
    option: str
    candidate_urls: int
    candidate_sets: int
    downloaded: int  # Σ n(D_i)
    unique: int  # Σ un(D_i)
    kept: int  # D_downloaded
    has_digests: bool

    @property
    def requests(self) -> int:
        """What the option sends: one request per URL without it (``keep``), one per set with it."""
        return self.candidate_urls if self.option == "keep" else self.candidate_sets

    @property
    def request_reduction(self) -> float:
        return 1 - self.candidate_sets / self.candidate_urls if self.candidate_urls else 0.0

    @property
    def redundancy_rate(self) -> float | None:
        if not self.has_digests or not self.downloaded:
            return None
        return (self.downloaded - self.unique) / self.downloaded

    @property
    def coverage_loss_rate(self) -> float | None:
        if not self.has_digests or not self.unique:
            return None
        if self.option == "keep":
            return 0.0
        return 1 - self.kept / self.unique

    def as_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "option": self.option,
            "candidate_urls": self.candidate_urls,
            "candidate_sets": self.candidate_sets,
            "requests": self.requests,
            "request_reduction": round(self.request_reduction, 4),
            "redundancy_rate": None if self.redundancy_rate is None else round(self.redundancy_rate, 4),
            "coverage_loss_rate": None if self.coverage_loss_rate is None else round(self.coverage_loss_rate, 4),
        }


@dataclass
class Analysis:
    lines: int = 0
    urls: int = 0
    invalid: int = 0
    has_digests: bool = False
    outcomes: list[Outcome] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "urls": self.urls,
            "invalid_lines": self.invalid,
            "has_digests": self.has_digests,
            "options": [outcome.as_dict() for outcome in self.outcomes],
        }


def parse_lines(lines: Iterable[str], analysis: Analysis) -> Iterator[tuple[str, str | None]]:
    """(URL, digest or None) for each usable line; counts the others."""
    for raw in lines:
        analysis.lines += 1
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        digest = None
        if line.startswith("{"):
            try:
                record = json.loads(line)
                url = record["url"]
            except (ValueError, KeyError, TypeError):
                analysis.invalid += 1
                continue
            analysis.has_digests = True
            if record.get("status") == 200 and record.get("digest"):
                digest = str(record["digest"])
        else:
            url = line.split()[0]
        yield url, digest


def analyze(
    lines: Iterable[str],
    progress: Callable[[int], None] | None = None,
    studies: Callable[[Sequence[Study]], Iterable[Study]] | None = None,
) -> Analysis:
    """The analysis of ``lines``; ``progress(urls)`` is called every 10,000 URLs read,
    and ``studies`` may wrap the sequence of studies (for a progress bar)."""
    analysis = Analysis()
    digests: dict[str, str | None] = {}  # safe-normalized URL -> digest of its download
    for url, digest in parse_lines(lines, analysis):
        try:
            normal = normalize_url(url, _SAFE)
        except InvalidURL:
            analysis.invalid += 1
            continue
        analysis.urls += 1
        if digest is not None or normal not in digests:
            digests[normal] = digest
        if progress is not None and analysis.urls % 10_000 == 0:
            progress(analysis.urls)
    for study in studies(STUDIES) if studies is not None else STUDIES:
        analysis.outcomes += _study(study, digests, analysis.has_digests)
    return analysis


def _study(study: Study, digests: dict[str, str | None], has_digests: bool) -> list[Outcome]:
    groups: dict[str, list[str]] = {}
    for url in digests:
        try:
            groups.setdefault(study.key(url), []).append(url)
        except InvalidURL:
            continue
    sets = [urls for urls in groups.values() if len(urls) > 1]
    candidate_urls = sum(len(urls) for urls in sets)
    downloaded = unique = 0
    for urls in sets:
        docs = [digests[u] for u in urls if digests[u] is not None]
        downloaded += len(docs)
        unique += len(set(docs))
    outcomes = [Outcome(study.name, "keep", candidate_urls, candidate_urls, downloaded, unique, unique, has_digests)]
    for option, representative in study.options.items():
        kept = 0
        for urls in sets:
            try:
                target = representative(urls[0])
            except InvalidURL:
                continue
            # The option sends the normalized URL: its document is kept if that
            # very URL was downloaded (a form nobody linked to is unknown: lost).
            if digests.get(target) is not None:
                kept += 1
        outcomes.append(Outcome(study.name, option, candidate_urls, len(sets), downloaded, unique, kept, has_digests))
    return outcomes


def format_table(analysis: Analysis) -> str:
    """The table: the same figures as ``--json``, one row per option."""
    rows = [
        f"{analysis.urls:,} URLs from {analysis.lines:,} lines"
        + (f" ({analysis.invalid:,} unparseable, skipped)" if analysis.invalid else "")
        + ("" if analysis.has_digests else "; no digests: redundancy and coverage need a crawl log"),
        f"{'study':<16}{'option':<8}{'candidate URLs':>15}{'sets':>8}{'requests':>10}{'reduction':>11}"
        f"{'redundancy':>12}{'coverage loss':>15}",
    ]

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    for outcome in analysis.outcomes:
        rows.append(
            f"{outcome.study:<16}{outcome.option:<8}{outcome.candidate_urls:>15,}{outcome.candidate_sets:>8,}"
            f"{outcome.requests:>10,}{rate(outcome.request_reduction):>11}"
            f"{rate(outcome.redundancy_rate):>12}{rate(outcome.coverage_loss_rate):>15}"
        )
    return "\n".join(rows)


def run(
    path: str,
    *,
    as_json: bool,
    progress: bool | None = None,
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
) -> int:
    """``analyze FILE``: the table (or JSON) on ``out``, problems on ``err``. A progress
    bar (done/total, rate, ETA) goes to ``err`` if ``progress``, or by default when
    ``err`` is a terminal; it needs ``tqdm`` (``pip install scrapy-urlnorm[cli]``)."""
    show = progress if progress is not None else (hasattr(err, "isatty") and err.isatty())
    try:
        handle = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror}", file=err)
        return 2
    with handle:
        analysis = _analyze_file(handle, path, err) if show else analyze(_decoded(handle))
    if not analysis.urls:
        print(f"error: no URL found in {path} ({analysis.lines} lines, {analysis.invalid} unparseable)", file=err)
        return 1
    if analysis.invalid:
        print(f"{analysis.invalid:,} unparseable line(s) skipped", file=err)
    print(json.dumps(analysis.as_dict(), indent=2) if as_json else format_table(analysis), file=out)
    return 0


def _decoded(handle: IO[bytes], advance: Callable[[int], None] | None = None) -> Iterator[str]:
    for raw in handle:
        if advance is not None:
            advance(len(raw))
        yield raw.decode("utf-8", errors="replace")


def _analyze_file(handle: IO[bytes], path: str, err: IO[str]) -> Analysis:
    """``analyze`` with progress bars: bytes read of the file (of its size: done/total,
    rate and ETA), then the studies."""
    try:
        from tqdm import tqdm
    except ImportError:
        print("(no progress bar: it needs tqdm, pip install 'scrapy-urlnorm[cli]')", file=err)
        return analyze(_decoded(handle))
    try:
        total: int | None = os.fstat(handle.fileno()).st_size or None
    except (OSError, ValueError):
        total = None
    name = "stdin" if path == "-" else os.path.basename(path)
    with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=f"reading {name}", file=err) as bar:
        pending = 0

        def advance(size: int) -> None:
            nonlocal pending
            pending += size
            if pending >= 1 << 16:
                bar.update(pending)
                pending = 0

        def urls_read(count: int) -> None:
            bar.set_postfix_str(f"{count:,} URLs", refresh=False)

        def studies(all_studies: Sequence[Study]) -> Iterable[Study]:
            # Reading is done: the bar ends full, and a bar over the studies follows.
            bar.update(pending + max(0, (bar.total or 0) - bar.n - pending))
            bar.close()
            return tqdm(all_studies, desc="studies", unit="study", file=err)

        return analyze(_decoded(handle, advance), urls_read, studies)
