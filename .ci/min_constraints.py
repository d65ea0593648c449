"""Print pip constraints pinning every dependency to the floor pyproject.toml declares.

CI installs the package with these (``make test-min``) and runs the suite, so
each ``>=`` in pyproject.toml is a version the tests actually exercised.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

#: Not our dependency, but Scrapy's: Scrapy 2.13.0 (our floor) does not start
#: on Twisted releases made after it (an SSL helper it imports was removed),
#: so the floor job pairs it with the Twisted of its time.
CONTEMPORARY = {"twisted": "25.5.0"}


def main() -> None:
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    pins = dict(CONTEMPORARY)
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)", requirement.strip())
        if match is None:
            raise SystemExit(f"pyproject.toml: {requirement!r} has no plain >= floor")
        pins[match.group(1).lower()] = match.group(2)
    for name, version in sorted(pins.items()):
        print(f"{name}=={version}")


if __name__ == "__main__":
    main()
