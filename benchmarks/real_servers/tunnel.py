"""A forwarding proxy in front of a real server that speaks TLS: what Scrapy needs to crawl
``https://`` URLs through ``meta["proxy"]`` on loopback.

For an ``https://`` URL with an HTTP proxy, Scrapy sends ``CONNECT host:443 HTTP/1.1``,
waits for ``200``, then does its TLS handshake inside the tunnel and sends origin-form
requests with a ``Host`` header. nginx does not do ``CONNECT``; this does, and nothing
else: it listens on 127.0.0.1 and

- answers ``CONNECT <host>:443`` for the hosts it is given with ``200 Connection
  established``, then relays bytes both ways to the server's TLS port on 127.0.0.1 (the
  handshake is between Scrapy and the server; this never sees the plaintext);
- relays any other connection (absolute-form plain ``http``: ``GET http://h/x``), from its
  first byte, to the server's plain ``http`` port on 127.0.0.1; with ``--origin-form``, for a
  server that answers only origin-form requests (h2o, BusyBox ``httpd`` take ``http://h/x``
  for a path), each request goes as ``GET /x`` with ``Host: h`` instead.

A ``CONNECT`` to another host or port is answered ``403``: it only ever connects to the two
loopback ports it was given. One line per connection goes to ``--log`` (the first request
line and where it went); the server's own access log has every request.

    python tunnel.py --port=8443 --http-port=8080 --tls-port=8081 --host=tls.test \\
        --host=www.tls.test --pid-file=tunnel.pid --log=tunnel.log

Run by ``servers.py`` for a family with ``tls`` set, in the foreground until ``SIGTERM``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

#: The most a request head may take before the tunnel gives up on the connection.
HEAD_LIMIT = 64 * 1024
ESTABLISHED = b"HTTP/1.1 200 Connection established\r\n\r\n"
FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Tunnel:
    """Forwards connections to ``127.0.0.1:http_port`` or, through ``CONNECT``, to
    ``127.0.0.1:tls_port``."""

    def __init__(
        self, http_port: int, tls_port: int, hosts: list[str], log: TextIO | None = None, origin_form: bool = False
    ) -> None:
        self.http_port = http_port
        self.tls_port = tls_port
        self.hosts = {host.lower() for host in hosts}
        self.log = log
        self.origin_form = origin_form

    def _note(self, line: str) -> None:
        if self.log is not None:
            self.log.write(line + "\n")
            self.log.flush()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a client that connected and left (a port check), or a reset: nothing to relay
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        method, _, rest = line.partition(" ")
        target = rest.split(" ", 1)[0]
        if method.upper() != "CONNECT":
            # Plain http in absolute form: the server answers it. The head read so far goes
            # first; the body and any later requests on the connection follow in the relay.
            self._note(f"{line} -> http {self.http_port}")
            if self.origin_form:
                await self._relay(reader, writer, self.http_port, b"", _origin_form_pipe(head))
            else:
                await self._relay(reader, writer, self.http_port, head)
            return
        host, _, port = target.rpartition(":")
        if host.lower() not in self.hosts or port != "443":
            self._note(f"CONNECT {target} refused")
            writer.write(FORBIDDEN)
            await writer.drain()
            return
        self._note(f"CONNECT {target} -> tls {self.tls_port}")
        writer.write(ESTABLISHED)
        await writer.drain()
        await self._relay(reader, writer, self.tls_port, b"")

    async def _relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        port: int,
        already: bytes,
        upward: Pipe | None = None,
    ) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            if already:
                upstream_writer.write(already)
            await asyncio.gather((upward or _pipe)(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            upstream_writer.close()
            with contextlib.suppress(OSError):
                await upstream_writer.wait_closed()


Pipe = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def _origin_form_pipe(first: bytes) -> Pipe:
    """A client-to-server pipe that sends each request in origin form: ``GET http://h/x``
    as ``GET /x`` with ``Host: h`` (``first``, the head already read, goes first). Bodies
    pass by ``Content-Length`` (a crawl's requests have none, or one of known length)."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = first
        try:
            while head:
                writer.write(_in_origin_form(head))
                length = re.search(rb"\r\ncontent-length:\s*(\d+)", head, re.IGNORECASE)
                if length:
                    writer.write(await reader.readexactly(int(length.group(1))))
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        _pass_eof(writer)

    return pipe


def _in_origin_form(head: bytes) -> bytes:
    line, _, fields = head.partition(b"\r\n")
    method, target, version = line.split(b" ", 2)
    parts = urlsplit(target.decode("latin-1"))
    if not parts.scheme:
        return head
    origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [field for field in fields.split(b"\r\n") if not field.lower().startswith(b"host:")]
    host = f"Host: {parts.netloc}".encode("latin-1")
    return b"\r\n".join([b" ".join([method, origin.encode("latin-1"), version]), host, *kept])


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until end of stream, then pass the end on (half-close), so the other side
    closes in turn and the other direction ends too."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    _pass_eof(writer)


def _pass_eof(writer: asyncio.StreamWriter) -> None:
    """The end of the stream passed on (half-close), so the other side closes in turn."""
    with contextlib.suppress(OSError, RuntimeError):
        if writer.can_write_eof() and not writer.is_closing():
            writer.write_eof()


async def serve(port: int, tunnel: Tunnel) -> None:
    server = await asyncio.start_server(tunnel.handle, "127.0.0.1", port, limit=HEAD_LIMIT)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True, help="where the tunnel listens (127.0.0.1)")
    parser.add_argument("--http-port", type=int, required=True, help="the server's plain http port")
    parser.add_argument("--tls-port", type=int, required=True, help="the server's TLS port")
    parser.add_argument("--host", action="append", default=[], help="a host CONNECT may name (repeatable)")
    parser.add_argument("--pid-file", type=Path)
    parser.add_argument("--log", type=Path, help="one line per connection")
    parser.add_argument(
        "--origin-form", action="store_true", help="send plain http requests in origin form, with a Host header"
    )
    args = parser.parse_args(argv)
    log = args.log.open("a", encoding="utf-8") if args.log else None
    if args.pid_file:
        args.pid_file.write_text(f"{os.getpid()}\n")
    tunnel = Tunnel(args.http_port, args.tls_port, args.host, log, args.origin_form)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, tunnel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
