"""RFC 6750 bearer-token handling at the gateway's edge.

RFC 6750 2.1: the token travels in ``Authorization: Bearer <token>``; that is the only method the
gateway accepts. 2.2 (form-encoded body parameter) and 2.3 (URI query parameter: "Because of the
security weaknesses associated with the URI method ... it SHOULD NOT be used") are refused with
``400 invalid_request``, whether or not a header is present too (3.1: a request that "uses more than
one method for including an access token" is ``invalid_request``).

RFC 6750 3: a refusal carries ``WWW-Authenticate: Bearer realm=..., error=..., error_description=...``;
"If the request lacks any authentication information ... the resource server SHOULD NOT include an
error code". RFC 9728 5.1: the challenge names this resource's metadata URL in ``resource_metadata``.

The workload credential (a JWT-SVID-style ``wit+jwt``) travels in the ``Workload-Identity-Token``
header (the header name of the IETF WIMSE drafts); it is verified together with the token (presenter
binding, :mod:`memguard.tokens.verifier`). Inside a trust domain that is configured for it, a
workload may instead pass on the Transaction Token of the call in the ``Txn-Token`` header
(:func:`presented_credentials`, :class:`memguard.tokens.txn_token.ResourceTxnTokens`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.gateway.challenge import bearer_challenge, metadata_url
from memguard.gateway.errors import GatewayError
from memguard.gateway.responses import error_response
from memguard.tokens.txn_token import TXN_TOKEN_HEADER

__all__ = [
    "TXN_TOKEN_HEADER",
    "WORKLOAD_HEADER",
    "BearerOnlyMiddleware",
    "Presented",
    "bearer_challenge",
    "bearer_token",
    "metadata_url",
    "presented_credentials",
]

WORKLOAD_HEADER = "Workload-Identity-Token"
MAX_CREDENTIAL = 8192  # the verifiers cap a token at 8 KiB too; refuse earlier, cheaper
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")  # RFC 6750 2.1 b64token
_TOKEN_PARAMS = frozenset({"access_token"})


def _refuse(message: str, code: str = "bearer.invalid_request", status: int = 400) -> GatewayError:
    return GatewayError(message, code=code, status=status)


def bearer_token(headers: Headers) -> tuple[str, str | None]:
    """The bearer token and the workload credential of a request, or a :class:`GatewayError`.

    No ``Authorization`` header at all is a 401 without an error code (RFC 6750 3.1).
    """
    values = headers.getlist("authorization")
    if not values:
        raise _refuse("authentication required", code="bearer.missing", status=401)
    if len(values) > 1:
        raise _refuse("more than one authorization header")
    scheme, _, token = values[0].partition(" ")
    if scheme.lower() != "bearer":
        raise _refuse("authentication required", code="bearer.missing", status=401)
    token = token.strip(" \t")  # optional whitespace (RFC 9110 5.6.3), nothing else
    if not token or len(token) > MAX_CREDENTIAL or not _B64TOKEN.fullmatch(token):
        raise _refuse("malformed bearer token", code="bearer.invalid_token", status=401)
    creds = headers.getlist(WORKLOAD_HEADER.lower())
    if len(creds) > 1:
        raise _refuse("more than one workload credential")
    credential = creds[0].strip(" \t") if creds else None
    if credential is not None and (
        not credential or len(credential) > MAX_CREDENTIAL or not _B64TOKEN.fullmatch(credential)
    ):
        raise _refuse("malformed workload credential", code="bearer.invalid_token", status=401)
    return token, credential


@dataclass(frozen=True, slots=True)
class Presented:
    """What a request authenticates with: an access token (``Authorization: Bearer``), or a
    Txn-Token passed on inside its trust domain (``transaction``), and the workload credential."""

    token: str
    workload_credential: str | None
    transaction: bool = False


def presented_credentials(headers: Headers) -> Presented:
    """The request's credentials, or a :class:`GatewayError`.

    draft-ietf-oauth-transaction-tokens: a Txn-Token travels in the ``Txn-Token`` header. It does
    not authenticate the caller, so the calling workload's own credential must come with it; and a
    request carries an access token or a Txn-Token, never both (which one would it act as?).
    """
    txn = headers.getlist(TXN_TOKEN_HEADER.lower())
    if not txn:
        token, credential = bearer_token(headers)
        return Presented(token, credential)
    if len(txn) > 1:
        raise _refuse("more than one transaction token")
    if headers.getlist("authorization"):
        raise _refuse("send an access token or a transaction token, not both")
    value = txn[0].strip(" \t")
    if not value or len(value) > MAX_CREDENTIAL or not _B64TOKEN.fullmatch(value):
        raise _refuse("malformed transaction token", code="bearer.invalid_token", status=401)
    creds = headers.getlist(WORKLOAD_HEADER.lower())
    if len(creds) != 1:
        raise _refuse(
            "a transaction token needs the calling workload's credential",
            code="bearer.missing",
            status=401,
        )
    credential = creds[0].strip(" \t")
    if not credential or len(credential) > MAX_CREDENTIAL or not _B64TOKEN.fullmatch(credential):
        raise _refuse("malformed workload credential", code="bearer.invalid_token", status=401)
    return Presented(value, credential, transaction=True)


class BearerOnlyMiddleware:
    """Refuses tokens in the URL query, and form-encoded bodies, before anything else runs.

    A URL ends up in access logs, proxies and browser history; a token there is refused (400), not
    used. Memory endpoints take JSON, so a form body there is refused too (RFC 6750 2.2 is not
    supported), and any other non-JSON body with 415; the token endpoint (``form_paths``) takes its RFC 6749 form as usual, but never with
    an ``access_token`` parameter in the query.
    """

    def __init__(self, app: ASGIApp, *, resource: str, form_paths: frozenset[str]) -> None:
        self.app = app
        self.resource = resource
        self.form_paths = form_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        names = {name.lower() for name, _ in parse_qsl(query, keep_blank_values=True)}
        if names & _TOKEN_PARAMS:
            await self._send(
                scope, send, "access tokens are accepted in the authorization header only"
            )
            return
        if scope["path"] not in self.form_paths:
            headers = Headers(scope=scope)
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
                await self._send(scope, send, "form bodies are not accepted; send json")
                return
            has_body = (
                ctype
                or headers.get("content-length", "0") != "0"
                or ("transfer-encoding" in headers)
            )
            if (
                scope["path"].startswith("/v1/")
                and scope["method"] in ("POST", "PUT", "PATCH")
                and has_body
                and ctype != "application/json"
                and not ctype.endswith("+json")
            ):
                await self._send(
                    scope,
                    send,
                    "the body must be json",
                    code="invalid_request.media_type",
                    status=415,
                )
                return
        await self.app(scope, receive, send)

    async def _send(
        self,
        scope: Scope,
        send: Send,
        message: str,
        *,
        code: str = "bearer.invalid_request",
        status: int = 400,
    ) -> None:
        response = error_response(_refuse(message, code=code, status=status), self.resource)
        await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}
