"""Build hook: compile the normalization core with mypyc when we can.

The package metadata lives in ``pyproject.toml``; this file only adds C
extensions. The hot modules (``steps``, ``urlparts``, ``normalize``,
``hosts``, ``params``) are plain typed Python. When mypyc is importable in the
build environment, a C compiler is present, the build is not an editable
install and ``URLNORM_PURE_PYTHON`` is not set, they are compiled with mypyc
(same sources, same behaviour, about half the instructions per URL). Otherwise
the wheel holds the plain Python modules, which work everywhere.

pip builds in an isolated environment holding only ``setuptools``, so an
ordinary ``pip install .`` gives plain Python. To build the compiled wheel:

    pip install "mypy>=1.10" setuptools wheel
    pip wheel --no-build-isolation --no-deps -w dist .

(``make wheel-compiled`` does that in a scratch virtualenv.)
"""

from __future__ import annotations

import os
import shutil
import sys

from setuptools import setup

COMPILED = ["steps", "urlparts", "normalize", "hosts", "params"]


def _compiled_extensions() -> list:
    if os.environ.get("URLNORM_PURE_PYTHON", "").strip() not in ("", "0"):
        return []
    commands = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    if any(arg.startswith(("editable", "develop")) for arg in commands):
        return []  # the dev install stays plain Python
    if commands and all(arg in ("egg_info", "dist_info", "sdist") for arg in commands):
        return []  # metadata only: nothing to compile
    if not shutil.which(os.environ.get("CC", "cc")) and not shutil.which("gcc"):
        print("scrapy-urlnorm: no C compiler found, installing plain Python", file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    paths = [f"scrapy_urlnorm/{name}.py" for name in COMPILED]
    return mypycify(["--ignore-missing-imports", "--follow-imports=silent", *paths], opt_level="3")


setup(ext_modules=_compiled_extensions())
