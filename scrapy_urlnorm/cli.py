"""Command line: ``python -m scrapy_urlnorm`` (also installed as ``scrapy-urlnorm``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator, Sequence

from .errors import InvalidURL
from .normalize import explain_url, normalize_url
from .policy import PRESETS, SWITCHES, Policy

_COMMANDS = ("normalize", "explain", "analyze")


def _urls(arguments: Sequence[str]) -> Iterator[str]:
    if arguments:
        yield from arguments
        return
    for line in sys.stdin:
        line = line.strip()
        if line and not line.startswith("#"):
            yield line


def _policy(args: argparse.Namespace) -> Policy:
    settings: dict[str, str] = {"URLNORM_POLICY": args.policy}
    for assignment in args.set or ():
        name, equals, value = assignment.partition("=")
        name = name.strip().lower()
        if not equals or name not in SWITCHES:
            raise ValueError(f"--set takes SWITCH=VALUE with one of: {', '.join(SWITCHES)}; got {assignment!r}")
        settings[f"URLNORM_{name.upper()}"] = value
    return Policy.from_settings(settings)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scrapy_urlnorm",
        description="Normalize URLs the way scrapy-urlnorm's dupe filter does.",
    )
    sub = parser.add_subparsers(dest="command")
    for name, help_text in (
        ("normalize", "print each URL's normal form (one per line; stdin when no URL is given)"),
        ("explain", "print each step that changed a URL, with the URL after it"),
    ):
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.add_argument("urls", nargs="*", metavar="URL")
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
        "or a crawl log written with URLNORM_CRAWL_LOG ('-' for standard input).",
    )
    analyze.add_argument("file", metavar="FILE")
    analyze.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in (*_COMMANDS, "-h", "--help"):
        argv.insert(0, "normalize")  # `python -m scrapy_urlnorm URL...` is the common case
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "analyze":
        from .analyze import run

        return run(args.file, as_json=args.json)
    try:
        policy = _policy(args)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    explain = args.command == "explain" or getattr(args, "explain", False)
    return _run(_urls(args.urls), policy, explain=explain, as_json=args.json)


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
            print(f"error: {exc}", file=sys.stderr)
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
