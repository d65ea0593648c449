"""Command line: ``scrapy-urlnorm`` (also ``python -m scrapy_urlnorm``).

URLs are given as arguments; files of URLs (one per line, ``-`` for standard
input) with ``-f FILE``; with neither, URLs are read from standard input.
``analyze`` reads files only: ``analyze FILE`` is ``analyze -f FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from . import __version__
from .errors import InvalidURL
from .normalize import explain_url, normalize_url
from .policy import PRESETS, SWITCHES, Policy

_COMMANDS = ("normalize", "explain", "analyze")


#: Exit status after the reader of standard output went away (``| head``), as for
#: a tool killed by SIGPIPE.
EXIT_BROKEN_PIPE = 141


def _lines(path: str) -> Iterator[str]:
    """The URL lines of a file (``-``: standard input): blank lines and ``#`` comments skipped."""
    with sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


def _urls(arguments: Sequence[str], files: Sequence[str] = ()) -> Iterator[str]:
    yield from arguments
    for path in files:
        yield from _lines(path)
    if not arguments and not files:
        yield from _lines("-")


def _policy(args: argparse.Namespace) -> Policy:
    settings: dict[str, str] = {"URLNORM_POLICY": args.policy}
    for assignment in args.set or ():
        name, equals, value = assignment.partition("=")
        name = name.strip().lower()
        if not equals or name not in SWITCHES:
            raise ValueError(f"--set takes SWITCH=VALUE with one of: {', '.join(SWITCHES)}; got {assignment!r}")
        settings[f"URLNORM_{name.upper()}"] = value
    return Policy.from_settings(settings)


def program_name(argv0: str | None = None) -> str:
    """How the user started us: ``scrapy-urlnorm``, or ``python -m scrapy_urlnorm``."""
    name = Path(sys.argv[0] if argv0 is None else argv0).name
    return "python -m scrapy_urlnorm" if name in ("__main__.py", "", "-c") else name


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog or program_name(),
        description="Normalize URLs the way scrapy-urlnorm's dupe filter does. URLs are arguments; "
        "files of URLs are given with -f FILE ('-' for standard input); with neither, URLs are read "
        "from standard input.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"scrapy-urlnorm {__version__}")
    sub = parser.add_subparsers(dest="command")
    for name, help_text in (
        ("normalize", "print each URL's normal form (one per line; stdin when no URL is given)"),
        ("explain", "print each step that changed a URL, with the URL after it"),
    ):
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.add_argument("urls", nargs="*", metavar="URL")
        command.add_argument(
            "-f", "--file", action="append", default=[], metavar="FILE",
            help="read URLs from FILE, one per line ('-' for standard input; repeatable)",
        )  # fmt: skip
        command.add_argument(
            "-p", "--policy", default="default", choices=sorted(PRESETS), help="preset (default: %(default)s)"
        )
        command.add_argument(
            "-s", "--set", action="append", metavar="SWITCH=VALUE",
            help="override a switch, e.g. -s lowercase_path=true -s trailing_slash=add (repeatable)",
        )  # fmt: skip
        command.add_argument("--json", action="store_true", help="one JSON object per URL")
        if name == "normalize":
            command.add_argument("-e", "--explain", action="store_true", help="also show the steps (same as 'explain')")
    analyze = sub.add_parser(
        "analyze",
        help="the paper's Table 1 (candidate sets, redundancy, coverage loss) for a URL list or crawl log",
        description="Decompose the URLs of FILE into candidate sets for each normalization option and report "
        "request reduction, redundancy rate and coverage loss rate (Lee, Kim and Hong). FILE is a URL list "
        "or a crawl log written with URLNORM_CRAWL_LOG ('-' for standard input). To compare with a stock "
        "crawl, log one with URLNORM_ENABLED = False and URLNORM_CRAWL_LOG set.",
    )
    analyze.add_argument("file", nargs="?", metavar="FILE", help="the URL list or crawl log (same as -f FILE)")
    analyze.add_argument("-f", "--file", dest="file_option", metavar="FILE", help="the URL list or crawl log")
    analyze.add_argument("--json", action="store_true", help="machine-readable output")
    analyze.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="show a progress bar on standard error (default: when it is a terminal)",
    )  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit status. A closed standard output (``| head``)
    ends the run quietly with status 141."""
    try:
        status = _main(argv, prog)
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
        return status
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at /dev/null so that is quiet too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None, prog: str | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in (*_COMMANDS, "-h", "--help", "-V", "--version"):
        argv.insert(0, "normalize")  # `scrapy-urlnorm URL...` is the common case
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.command == "analyze":
        from .analyze import run

        if args.file and args.file_option:
            parser.error("analyze takes one FILE: give it as an argument or with -f, not both")
        return run(args.file or args.file_option or "-", as_json=args.json, progress=args.progress)
    try:
        policy = _policy(args)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    explain = args.command == "explain" or getattr(args, "explain", False)
    try:
        urls = _urls(args.urls, args.file)
        return _run(urls, policy, explain=explain, as_json=args.json)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2


def _run(urls: Iterable[str], policy: Policy, *, explain: bool, as_json: bool) -> int:
    invalid = 0
    out = sys.stdout
    for url in urls:
        try:
            steps = explain_url(url, policy) if explain else None
            normal = steps[-1].url if steps else normalize_url(url, policy)
        except InvalidURL as exc:
            invalid += 1
            if as_json:
                print(json.dumps({"url": url, "error": str(exc)}), file=out)
            hint = (
                f" (to read URLs from the file {url!r}: -f {url})" if "://" not in url and os.path.isfile(url) else ""
            )
            print(f"error: {exc}{hint}", file=sys.stderr)
            continue
        if as_json:
            record: dict[str, object] = {"url": url, "normalized": normal}
            if steps is not None:
                record["steps"] = [{"step": s.step, "url": s.url} for s in steps]
            print(json.dumps(record, ensure_ascii=False), file=out)
        elif explain:
            print(url, file=out)
            for step in steps or ():
                print(f"  {step.step:<20} {step.url}", file=out)
            print(f"  {'=':<20} {normal}", file=out)
        else:
            print(normal, file=out)
    if invalid:
        print(f"{invalid} invalid URL(s)", file=sys.stderr)
    return 1 if invalid else 0
