"""A compressed answer is decoded within ``max_response_bytes`` as it arrives (memguard/client/body.py).

httpx decoded a network chunk at a time: a 64 KiB chunk of a gzip bomb became 64 MiB in memory
before the client's limit looked at it. A real HTTP server on 127.0.0.1 serves the answers (a
gzip bomb among them); the client's allocations are traced while it reads one.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memguard.client import AsyncMemguardClient, MemguardClient, RateLimited, RetryPolicy
from memguard.errors import MemguardError

LIMIT = 2**20  # the client's max_response_bytes in these tests
BOMB_SIZE = 64 * 2**20  # what the bomb expands to: 64x the limit
SEARCH = json.dumps({"facts": []}).encode()


def _zeros_gzip(size: int) -> bytes:
    """``size`` zero bytes, gzip-compressed, built without holding them (about 1000:1)."""
    out = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(2**20)
    parts = [out.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, out.flush()])


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Server:
    base: str
    answer: Answer = field(default_factory=lambda: Answer(200, SEARCH))
    seen: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture(scope="module")
def bomb() -> bytes:
    data = _zeros_gzip(BOMB_SIZE)
    assert len(data) < LIMIT // 8  # small on the wire: no Content-Length refuses it
    return data


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(base="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.answer()

        def do_GET(self) -> None:
            self.answer()

        def answer(self) -> None:
            state.seen.append({k.lower(): v for k, v in self.headers.items()})
            a = state.answer
            self.send_response(a.status)
            for name, value in {"Content-Type": "application/json", **a.headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(a.body)))
            self.end_headers()
            self.wfile.write(a.body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _client(server: Server) -> MemguardClient:
    return MemguardClient(server.base, "t", retry=RetryPolicy.none(), max_response_bytes=LIMIT)


def _peak(call: Callable[[], object]) -> tuple[BaseException | None, int]:
    """What ``call`` raised, and the peak of the memory Python allocated meanwhile (bytes)."""
    tracemalloc.start()
    try:
        call()
        raised = None
    except Exception as exc:
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


def test_a_gzip_bomb_is_refused_without_being_expanded(server: Server, bomb: bytes) -> None:
    server.answer = Answer(200, bomb, {"Content-Encoding": "gzip"})
    with _client(server) as client:
        raised, peak = _peak(lambda: client.search("x"))
    assert isinstance(raised, MemguardError) and raised.code == "internal"
    assert str(raised) == "gateway answer too large"
    # about the limit and a chunk (httpx decoding itself held 64 MiB chunks: a peak of ~140 MiB)
    assert peak < 8 * LIMIT, f"peak {peak} bytes"


def test_the_async_client_refuses_a_gzip_bomb_alike(server: Server, bomb: bytes) -> None:
    server.answer = Answer(200, bomb, {"Content-Encoding": "gzip"})

    async def search() -> None:
        async with AsyncMemguardClient(server.base, "t", retry=RetryPolicy.none(),
                                       max_response_bytes=LIMIT) as client:  # fmt: skip
            await client.search("x")

    raised, peak = _peak(lambda: asyncio.run(search()))
    assert isinstance(raised, MemguardError) and str(raised) == "gateway answer too large"
    assert peak < 8 * LIMIT, f"peak {peak} bytes"


def test_a_refusal_that_is_a_bomb_is_still_its_typed_error(server: Server, bomb: bytes) -> None:
    server.answer = Answer(429, bomb, {"Content-Encoding": "gzip", "Retry-After": "1"})
    with _client(server) as client:
        raised, peak = _peak(lambda: client.search("x"))
    assert isinstance(raised, RateLimited)
    assert peak < 8 * LIMIT, f"peak {peak} bytes"


@pytest.mark.parametrize(
    ("coding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as RFC 9110 says
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some servers send
        ("identity", lambda b: b),
    ],
)
def test_a_compressed_answer_within_the_limit_decodes(
    server: Server, coding: str, encode: Callable[[bytes], bytes]
) -> None:
    fact = {"fact_id": "f", "text": "é" * 1000}
    payload = json.dumps({"facts": [], "padding": [fact] * 100}).encode()
    server.answer = Answer(200, encode(payload), {"Content-Encoding": coding})
    with _client(server) as client:
        assert client.search("x") == []
    assert server.seen[-1]["accept-encoding"] == "gzip, deflate"  # only what it can bound


def test_an_answer_just_over_the_limit_once_decoded_is_refused(server: Server) -> None:
    inside = b'{"facts": [], "x": "' + b"a" * (LIMIT - 40) + b'"}'
    assert len(inside) <= LIMIT
    server.answer = Answer(200, gzip.compress(inside), {"Content-Encoding": "gzip"})
    with _client(server) as client:
        assert client.search("x") == []
    over = b'{"facts": [], "x": "' + b"a" * LIMIT + b'"}'
    server.answer = Answer(200, gzip.compress(over), {"Content-Encoding": "gzip"})
    with _client(server) as client, pytest.raises(MemguardError, match="too large"):
        client.search("x")


@pytest.mark.parametrize(
    ("headers", "body", "problem"),
    [
        ({"Content-Encoding": "zstd"}, b"(\xb5/\xfd" + bytes(16), "did not accept"),
        ({"Content-Encoding": "br"}, b"\x0b\x02\x80{}\x03", "did not accept"),
        (
            {"Content-Encoding": "gzip, gzip"},
            gzip.compress(gzip.compress(SEARCH)),
            "did not accept",
        ),
        ({"Content-Encoding": "gzip"}, gzip.compress(SEARCH)[:-12], "does not decode"),  # cut short
        ({"Content-Encoding": "gzip"}, b"not gzip at all", "does not decode"),
        ({"Content-Encoding": "gzip"}, gzip.compress(SEARCH) + b"trailing", "does not decode"),
    ],
    ids=["zstd", "br", "stacked", "truncated", "garbage", "trailing"],
)
def test_an_answer_in_a_coding_not_accepted_or_broken_is_refused(
    server: Server, headers: dict[str, str], body: bytes, problem: str
) -> None:
    server.answer = Answer(200, body, headers)
    with _client(server) as client, pytest.raises(MemguardError, match=problem) as info:
        client.search("x")
    assert info.value.code == "internal"
