"""A real redis-server on a free loopback port, for the distributed tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """``redis-server`` with append-only persistence in ``directory``; start, stop, restart."""

    def __init__(self, directory: Path, *, aof: bool = True, fsync: str = "always") -> None:
        binary = shutil.which("redis-server")
        if binary is None:  # CI installs it (.ci/run)
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.directory = directory
        self.aof = aof
        self.fsync = fsync
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [
                self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--save", "", "--appendonly", "yes" if self.aof else "no", "--appendfsync", self.fsync,
                "--protected-mode", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        # Until it answers or exits: no deadline to miss on a loaded machine (an
        # AOF replay after a restart can take a while), only a generous guard.
        for _attempt in range(2400):  # 2,400 x 50 ms = 2 minutes at the very least
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode} before answering")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=120)
            self.process = None
