"""Private Apache and nginx instances serving Debian documentation trees on 127.0.0.1.

Used by ``benchmarks/bench_real_servers.py`` and ``tests/test_real_servers.py``. Nothing
here touches the system's own services: each server runs from a config rendered from the
templates next to this file into a temporary state directory (pid, logs, temp files),
listens on a free loopback port, and is stopped by its pid file when the ``with`` ends.

Both servers serve the same site root: a landing page linking to the documentation trees
in ``TREES`` (symlinks to the installed packages). Run ``setup.sh`` (as root) once first.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: URL path -> installed HTML tree (Debian packages ``doxygen-doc``, ``debian-reference-en``,
#: ``python-requests-doc``): a Doxygen manual with its examples, the Debian Reference, Sphinx docs.
TREES: dict[str, str] = {
    "doxygen": "/usr/share/doc/doxygen/html",
    "debian-reference": "/usr/share/debian-reference",
    "requests": "/usr/share/doc/python-requests-doc/html",
}

APACHE = "/usr/sbin/apache2"
NGINX = "/usr/sbin/nginx"

LANDING = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Documentation</title></head>
<body><h1>Documentation served by {server}</h1>
<ul>
{links}
</ul></body></html>
"""


def missing() -> list[str]:
    """What ``setup.sh`` still has to install: server binaries and documentation trees."""
    needed = [APACHE, NGINX] + [f"{tree}/index.html" for tree in TREES.values()]
    return [path for path in needed if not Path(path).exists()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def build_root(root: Path, server: str) -> None:
    """The site root: a landing page and one symlink per documentation tree."""
    root.mkdir(parents=True, exist_ok=True)
    links = "\n".join(f'<li><a href="/{name}/">{name}</a></li>' for name in TREES)
    (root / "index.html").write_text(LANDING.format(server=server, links=links), encoding="utf-8")
    for name, tree in TREES.items():
        link = root / name
        if not link.is_symlink():
            link.symlink_to(tree)


def user_directives(kind: str) -> str:
    """As root, the workers drop to www-data (Apache refuses to serve as root)."""
    if os.geteuid() != 0:
        return ""
    return "User www-data\nGroup www-data" if kind == "apache" else "user www-data;"


@dataclass
class Server:
    """One running server: its family, canonical host, port and state directory."""

    kind: str  # "apache" or "nginx"
    host: str  # the site's host; its www twin is www.<host>
    port: int
    state: Path

    @property
    def proxy(self) -> str:
        """Scrapy's ``meta["proxy"]`` for this server: requests go to 127.0.0.1:port in
        absolute form (``GET http://docs.test/x``), which both servers answer as origin
        servers, choosing the virtual host by the URL's host."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def start_url(self) -> str:
        return f"http://{self.host}/"

    @property
    def hosts(self) -> list[str]:
        return [self.host, f"www.{self.host}"]

    def log(self, name: str) -> str:
        path = self.state / f"{'apache2' if self.kind == 'apache' else 'nginx'}-{name}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def render(template: str, target: Path, **values: str) -> Path:
    text = (HERE / template).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    target.write_text(text, encoding="utf-8")
    return target


def _stop(pidfile: Path, seconds: float = 10.0) -> None:
    with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
        pid = int(pidfile.read_text().strip())
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            os.kill(pid, 0)  # raises ProcessLookupError once it is gone
            time.sleep(0.05)


@contextlib.contextmanager
def apache(host: str = "docs.test", state: Path | None = None) -> Iterator[Server]:
    with _serve(
        "apache", "apache2", "Apache", host, state, lambda conf, directory: [APACHE, "-f", str(conf), "-k", "start"]
    ) as server:
        yield server


@contextlib.contextmanager
def nginx(host: str = "ref.test", state: Path | None = None) -> Iterator[Server]:
    # -e: the error log before the config is read (nginx >= 1.19.5), so nothing goes to /var/log.
    def command(conf: Path, directory: Path) -> list[str]:
        return [NGINX, "-c", str(conf), "-p", str(directory), "-e", str(directory / "nginx-error.log")]

    with _serve("nginx", "nginx", "nginx", host, state, command) as server:
        yield server


@contextlib.contextmanager
def _serve(
    kind: str, name: str, label: str, host: str, state: Path | None, command: Callable[[Path, Path], list[str]]
) -> Iterator[Server]:
    """A private ``kind`` server for ``host``: its site root, ``<name>.conf`` from
    ``<name>.conf.in``, started with ``command(conf, directory)``, stopped by ``<name>.pid``."""
    with _state(state, kind) as directory:
        root = directory / "www"
        build_root(root, label)
        port = free_port()
        conf = render(
            f"{name}.conf.in",
            directory / f"{name}.conf",
            STATE=str(directory),
            ROOT=str(root),
            PORT=str(port),
            HOST=host,
            USER_DIRECTIVES=user_directives(kind),
        )
        subprocess.run(command(conf, directory), check=True, env=_clean_env())
        try:
            wait_for_port(port)
            yield Server(kind, host, port, directory)
        finally:
            _stop(directory / f"{name}.pid")


@contextlib.contextmanager
def _state(state: Path | None, kind: str) -> Iterator[Path]:
    if state is not None:
        state.mkdir(parents=True, exist_ok=True)
        state.chmod(0o755)
        yield state
        return
    directory = Path(tempfile.mkdtemp(prefix=f"urlnorm-{kind}-"))
    directory.chmod(0o755)  # the workers (www-data when started as root) read the site root here
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _clean_env() -> dict[str, str]:
    """The servers get a minimal environment (no proxy variables, a C locale)."""
    return {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "LANG": "C"}
