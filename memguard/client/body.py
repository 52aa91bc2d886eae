"""A gateway answer's body, read as it arrives and decoded within ``max_response_bytes``.

httpx decodes a compressed answer a network chunk at a time, and a chunk of a gzip bomb expands
about a thousandfold (64 KiB of it: 64 MiB) before any limit can look at it. So the client asks
only for the codings it can decode with a bound (``Accept-Encoding: gzip, deflate``), reads the
raw bytes and decodes them itself with ``zlib``'s ``max_length``: at no point does it hold more
than the limit (plus one raw chunk). An answer in another coding (``br``, ``zstd``, stacked
codings) or one that does not decode is refused like one past the limit: ``internal``, and a
refusal's status is still its typed error.
"""

from __future__ import annotations

import zlib

import httpx

from memguard.client.errors import raise_for
from memguard.errors import MemguardError

__all__ = ["ACCEPT_ENCODING", "Body", "keep", "too_large"]

#: the content codings the client accepts: those it decodes within the limit (RFC 9110 8.4.1)
ACCEPT_ENCODING = "gzip, deflate"
TOO_LARGE = "gateway answer too large"


def too_large(response: httpx.Response, limit: int) -> bool:
    """Whether ``response`` says (``Content-Length``) it is larger than ``limit`` bytes."""
    declared = response.headers.get("content-length", "")
    return declared.isascii() and declared.isdigit() and int(declared) > limit


class Body:
    """The decoded body of ``response`` so far: while :attr:`wants_more`, :meth:`feed` it the raw
    chunks (``iter_raw``) while that returns ``True``, then :meth:`finish` at their end.
    ``problem`` says why it stopped early."""

    def __init__(self, response: httpx.Response, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.problem: str | None = TOO_LARGE if too_large(response, limit) else None
        self.wants_more = self.problem is None
        self._decoder: zlib._Decompress | None = None
        self._fed = False  # an empty body (a 204) decodes to nothing, whatever its coding
        self._raw_deflate = False  # a `deflate` answer without its zlib header (as httpx allows)
        self._deflate = False
        if self.wants_more and response.is_stream_consumed:
            # a transport that read it already (a test's, a caching one's): httpx decoded it
            self.wants_more = False
            self.feed(response.content)
            return
        codings = [
            c.strip().lower()
            for c in response.headers.get("content-encoding", "").split(",")
            if c.strip() and c.strip().lower() != "identity"
        ]
        self._deflate = codings == ["deflate"]
        if codings in (["gzip"], ["x-gzip"]):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self._deflate:
            self._decoder = zlib.decompressobj()
        elif codings:
            self.problem = "gateway answer in a coding the client did not accept"
            self.wants_more = False

    def feed(self, chunk: bytes) -> bool:
        """Add one raw chunk; ``False``: stop reading (``problem`` says why)."""
        if self.problem is not None:
            return False
        self._fed = self._fed or bool(chunk)
        if self._decoder is None:
            self.data += chunk
        else:
            self._decode(chunk)
        if len(self.data) > self.limit:
            self.problem = TOO_LARGE
        return self.problem is None

    def finish(self) -> None:
        """The end of the raw stream: what the decoder still holds, within the limit."""
        if self.problem is None and self._decoder is not None and self._fed:
            try:
                self.data += self._decoder.flush(self.limit + 1 - len(self.data))
            except zlib.error:
                self.problem = "gateway answer does not decode"
            else:
                if len(self.data) > self.limit:
                    self.problem = TOO_LARGE
                elif not self._decoder.eof:
                    self.problem = "gateway answer does not decode"  # cut short

    def _decode(self, chunk: bytes) -> None:
        assert self._decoder is not None
        data = chunk
        while data and self.problem is None:
            room = self.limit + 1 - len(self.data)  # one byte past the limit tells it is past
            try:
                self.data += self._decoder.decompress(data, room)
            except zlib.error:
                if self._deflate and not self._raw_deflate and not self.data:
                    self._raw_deflate = True  # raw deflate: start again without the header
                    self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                self.problem = "gateway answer does not decode"
                return
            if len(self.data) > self.limit:
                self.problem = TOO_LARGE
                return
            data = self._decoder.unconsumed_tail
            if self._decoder.eof and (data or self._decoder.unused_data):
                self.problem = "gateway answer does not decode"  # bytes after the end


def keep(response: httpx.Response, body: Body) -> None:
    """Hold ``body`` as the response's content, or refuse an answer past the limit (said or
    read: its reading stopped there), in a coding not accepted, or that does not decode."""
    if body.problem is not None:
        response._content = b""
        raise_for(response)  # a refusal is still its typed error (without its body)
        raise MemguardError(body.problem, code="internal")
    response._content = bytes(body.data)  # what httpx's own read() sets
