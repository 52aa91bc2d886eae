"""The HTTP edge's b64token syntax (RFC 6750 2.1) is matched over the whole value: ``$`` in
``re.match`` accepts a trailing newline, which the edge must refuse before any verifier runs."""

from __future__ import annotations

import pytest
from starlette.datastructures import Headers

from memguard.gateway.auth import WORKLOAD_HEADER, bearer_token
from memguard.gateway.errors import GatewayError

GOOD = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"


def test_a_well_formed_token_and_credential_pass() -> None:
    headers = Headers({"authorization": f"Bearer {GOOD}", WORKLOAD_HEADER.lower(): GOOD})
    assert bearer_token(headers) == (GOOD, GOOD)


@pytest.mark.parametrize("tail", ["\n", "\r\n", "\n\n", "\x00", "\v", " x"])
def test_a_token_with_a_trailing_line_break_or_junk_is_refused(tail: str) -> None:
    with pytest.raises(GatewayError) as exc:
        bearer_token(Headers({"authorization": f"Bearer {GOOD}{tail}"}))
    assert exc.value.code == "bearer.invalid_token"


@pytest.mark.parametrize("tail", ["\n", "\r\n", "\x00", "\f", " x"])
def test_a_workload_credential_with_a_trailing_line_break_is_refused(tail: str) -> None:
    headers = Headers({"authorization": f"Bearer {GOOD}", WORKLOAD_HEADER.lower(): GOOD + tail})
    with pytest.raises(GatewayError) as exc:
        bearer_token(headers)
    assert exc.value.code == "bearer.invalid_token"
