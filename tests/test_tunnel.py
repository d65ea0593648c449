"""``benchmarks/real_servers/tunnel.py --origin-form``: what reaches a server that answers
only origin-form requests (h2o, BusyBox ``httpd``), over real sockets on loopback."""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "real_servers"))

from tunnel import Tunnel  # noqa: E402

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


async def _exchange(requests: bytes, answers: int) -> tuple[list[bytes], bytes]:
    """What a server behind the tunnel received (one entry per request head and body),
    and what the client read back, for ``requests`` sent on one connection."""
    received: list[bytes] = []

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(answers):
            head = await reader.readuntil(b"\r\n\r\n")
            body = await reader.readexactly(4) if b"Content-Length: 4" in head else b""
            received.append(head + body)
            writer.write(ANSWER)
            await writer.drain()
        writer.close()

    upstream = await asyncio.start_server(server, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    tunnel = Tunnel(port, port, [], origin_form=True)
    front = await asyncio.start_server(tunnel.handle, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.sockets[0].getsockname()[1])
    writer.write(requests)
    await writer.drain()
    replies = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    front.close()
    upstream.close()
    return received, replies


def test_each_request_on_a_connection_reaches_the_server_in_origin_form_with_its_host() -> None:
    requests = (
        b"GET http://www.h2.test/a/b.html?q=1 HTTP/1.1\r\nHost: www.h2.test\r\nAccept: */*\r\n\r\n"
        b"POST http://h2.test:8080/form HTTP/1.1\r\nHost: h2.test:8080\r\nContent-Length: 4\r\n\r\nx=ab"
        b"GET / HTTP/1.1\r\nHost: bb.test\r\n\r\n"
    )
    # A loop of its own, in a thread: the test session's reactor may be running asyncio's.
    with ThreadPoolExecutor(1) as thread:
        received, replies = thread.submit(asyncio.run, _exchange(requests, 3)).result(30)
    assert received == [
        b"GET /a/b.html?q=1 HTTP/1.1\r\nHost: www.h2.test\r\nAccept: */*\r\n\r\n",
        b"POST /form HTTP/1.1\r\nHost: h2.test:8080\r\nContent-Length: 4\r\n\r\nx=ab",
        b"GET / HTTP/1.1\r\nHost: bb.test\r\n\r\n",  # already in origin form: as it came
    ]
    assert replies == ANSWER * 3
