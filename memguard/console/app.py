"""The audit console's web application (Starlette, Jinja2 templates, server-rendered SVG).

Pages::

    GET  /                      -> /facts
    GET  /signin                local: spend the one-time link; gateway: the sign-in form
    POST /signin                gateway: a bearer token into the session cookie
    GET  /signin/pick, POST     local: which principal's view to take
    POST /signout
    GET  /facts                 the facts the principal may audit (filters: trust, source kind,
                                source, session, writer chain, state); ``q``: a similarity search
                                in the principal's read scope (a recorded read)
    GET  /facts/{id}            provenance, scanner verdict, lineage graph, audit trail with
                                inclusion proofs, readers, revocations; ``?text=1`` the text
    GET  /revoke/preview        what a revocation would quarantine (a dry run), and the form
    POST /revoke                the revocation (CSRF-protected)
    GET  /health                audit-log health; ``?verify=1`` runs a full verification
    GET  /static/...            CSS and JS shipped in the wheel (no CDN)

Every page runs as the signed-in principal through the guard (see :mod:`.pages`); a refusal is a
refusal page with the status the API would give, never another owner's data. Responses carry a
strict Content-Security-Policy (no inline script or style), ``no-store`` caching, a same-origin referrer
policy and no framing. Sign-in and CSRF: :mod:`.signin`.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memguard.console.graph import TRUST_STYLE
from memguard.console.pages import (
    CONSOLE_SELECTOR_KINDS,
    SCAN_FILTERS,
    STATES,
    Console,
    FactFilters,
)
from memguard.console.signin import LocalSignIn, Session, TokenSignIn
from memguard.console.svg import render_svg
from memguard.errors import (
    AccessDenied,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    MemguardError,
)
from memguard.events import AuditEvent, Decision
from memguard.guard import MemoryGuard
from memguard.identity import Identity
from memguard.logging import get_logger
from memguard.revocation import RevocationSelector, uri_host
from memguard.trust import SourceKind, TrustLevel

__all__ = ["ConsoleScopes", "create_console_app"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
MAX_FORM = 16 * 1024


@dataclass(frozen=True)
class ConsoleScopes:
    """OAuth scopes a gateway token needs for the console's pages (``None``: not checked)."""

    audit: str | None = None
    read: str | None = None
    revoke: str | None = None


class _SecurityHeaders:
    """Adds the security headers to every response (and ``no-store`` to every page)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith(f"{scope.get('root_path', '')}/static/")

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] not in dict(_HEADERS)]
                headers += _HEADERS
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, wrapped)


class _Refusal(Exception):
    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


class _SignInRequired(Exception):
    pass


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("memguard.console", "templates"),
        autoescape=select_autoescape(["html"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["trust_levels"] = [t.label for t in sorted(TrustLevel, reverse=True)]
    env.globals["source_kinds"] = [k.value for k in SourceKind]
    env.globals["states"] = STATES
    env.globals["scan_filters"] = SCAN_FILTERS
    env.globals["trust_style"] = TRUST_STYLE
    return env


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body, capped, one value per field."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/x-www-form-urlencoded":
        raise _Refusal(415, "Unsupported form", "forms are sent url-encoded")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise _Refusal(413, "Too large", "the form is too large")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=32)
    except (UnicodeDecodeError, ValueError):
        raise _Refusal(400, "Bad form", "the form could not be read") from None
    if any(len(v) != 1 for v in fields.values()):
        raise _Refusal(400, "Bad form", "a field was sent twice")
    return {k: v[0] for k, v in fields.items()}


def _same_origin(request: Request) -> bool:
    """A POST from the console's own pages: ``Origin`` (when sent) and ``Sec-Fetch-Site``."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        # no Origin (an old or non-browser client): the CSRF token decides; "null": only with
        # the browser's own word that the request is same-origin
        return origin is None or site == "same-origin"
    own = urlsplit(str(request.url))
    got = urlsplit(origin)
    return (got.scheme, got.netloc) == (own.scheme, own.netloc)


def _selector(values: dict[str, str]) -> RevocationSelector:
    kind = values.get("kind", "")
    value = values.get("value", "")
    if kind not in CONSOLE_SELECTOR_KINDS or not value:
        raise InvalidRequest("choose what to revoke")
    try:
        if kind == "turn":
            index = values.get("turn_index", "")
            if not index.isdigit():
                raise InvalidRequest("a turn needs its index")
            return RevocationSelector.turn(value, int(index))
        if kind == "domain":
            return RevocationSelector.domain(value)
        return RevocationSelector.model_validate({"kind": kind, "value": value})
    except ValueError:
        raise InvalidRequest("invalid selector") from None


def _revocation_choices(report: dict[str, Any]) -> list[dict[str, str]]:
    """What the fact page offers to revoke: the fact, its source, domain, session and turn."""
    prov = report["provenance"]
    src, turn = prov["source"], prov["turn"]
    out = [{"kind": "fact", "value": report["fact_id"], "label": "this fact and its descendants"}]
    if src.get("uri"):
        out.append({"kind": "source", "value": src["uri"], "label": f"the source {src['uri']}"})
        host = uri_host(src["uri"])
        if host:
            out.append({"kind": "domain", "value": host, "label": f"everything from {host}"})
    out.append({"kind": "session", "value": turn["session_id"],
                "label": f"the session {turn['session_id']}"})  # fmt: skip
    out.append({"kind": "turn", "value": turn["session_id"], "turn_index": str(turn["turn_index"]),
                "label": f"the turn {turn['session_id']}#{turn['turn_index']}"})  # fmt: skip
    return out


def create_console_app(
    guard: MemoryGuard,
    signin: LocalSignIn | TokenSignIn,
    *,
    scopes: ConsoleScopes | None = None,
    allowed_hosts: Iterable[str] | None = None,
) -> Starlette:
    """The console over ``guard``. ``signin``: :class:`LocalSignIn` (``memguard console``) or
    :class:`TokenSignIn` (mounted in the gateway); ``scopes``: what a gateway token must carry;
    ``allowed_hosts``: ``Host`` values to accept (the local console: its loopback names)."""
    console = Console(guard)
    env = _env()
    need = scopes or ConsoleScopes()
    log = get_logger()

    def base(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")

    def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        html = env.get_template(template).render(base=base(request), **ctx)
        return HTMLResponse(html, status_code=status)

    def cookie_args(request: Request) -> dict[str, Any]:
        return {"httponly": True, "samesite": "strict", "path": base(request) or "/",
                "secure": request.url.scheme == "https"}  # fmt: skip

    # -- who is signed in ---------------------------------------------------------------------------

    def to_signin(request: Request) -> Response:
        return RedirectResponse(f"{base(request)}/signin", status_code=303)

    def local_session(request: Request) -> Session | None:
        assert isinstance(signin, LocalSignIn)
        return signin.session(request.cookies.get(signin.cookie_name))

    async def current(request: Request) -> tuple[Identity, str]:
        """The signed-in identity and the session's CSRF token, or :class:`_SignInRequired`."""
        if isinstance(signin, LocalSignIn):
            session = local_session(request)
            if session is None or session.subject is None:
                raise _SignInRequired
            return await run_in_threadpool(signin.identity, session), signin.csrf(session)
        token = request.cookies.get(signin.cookie_name)
        if not token:
            raise _SignInRequired
        identity = await run_in_threadpool(signin.identity, token)
        if identity is None:
            raise _SignInRequired
        return identity, signin.csrf(token)

    def need_scope(identity: Identity, scope: str | None) -> None:
        if scope is not None and scope not in identity.principal.scopes:
            raise _Refusal(403, "Not permitted", f"your token lacks the `{scope}` scope")

    def who(identity: Identity) -> str:
        p = identity.principal
        return " -> ".join([p.subject.subject, *(a.subject for a in p.actors)])

    async def record_refusal(request: Request, reason: str) -> None:
        """Refusals at the console's edge are audit events too (sign-in failures, CSRF)."""
        event = AuditEvent(action="console", decision=Decision.DENY, reason=reason,
                           detail={"path": request.url.path})  # fmt: skip
        try:
            await run_in_threadpool(guard.ledger.record, [event])
        except MemguardError:
            log.error("audit_event_lost", event_id=event.event_id, op="console")

    async def check_post(request: Request, csrf: str, form: dict[str, str]) -> None:
        given = form.get("csrf", "")
        if not _same_origin(request) or not hmac.compare_digest(given.encode(), csrf.encode()):
            await record_refusal(request, "console.csrf")
            raise _Refusal(403, "Refused", "the form did not come from this console; reload it")

    def page(
        handler: Callable[[Request, Identity, str], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A signed-in page: every refusal becomes a refusal page (fail closed)."""

        async def endpoint(request: Request) -> Response:
            try:
                identity, csrf = await current(request)
            except _SignInRequired:
                return to_signin(request)
            except IdentityError as exc:
                response = render(request, "refused.html", 401, title="Signed out",
                                  message=f"your sign-in no longer verifies ({exc.code})",
                                  signin=True)  # fmt: skip
                if isinstance(signin, TokenSignIn):
                    response.delete_cookie(signin.cookie_name, path=base(request) or "/")
                return response
            except MemguardError as exc:
                return render(request, "refused.html", 503, title="Unavailable",
                              message=f"the ledger or store failed ({exc.code})")  # fmt: skip
            ctx = {"who": who(identity), "csrf": csrf}
            try:
                need_scope(identity, need.audit)
                return await handler(request, identity, csrf)
            except _Refusal as exc:
                return render(request, "refused.html", exc.status, title=exc.title,
                              message=exc.message, **ctx)  # fmt: skip
            except FactNotFound:
                return render(request, "refused.html", 404, title="Not found",
                              message="no such fact, or it is outside your scope", **ctx)  # fmt: skip
            except AccessDenied as exc:
                return render(request, "refused.html", 403, title="Refused",
                              message=f"not permitted ({exc.code})", **ctx)  # fmt: skip
            except InvalidRequest as exc:
                return render(request, "refused.html", 400, title="Bad request",
                              message=str(exc), **ctx)  # fmt: skip
            except IdentityError as exc:
                return render(request, "refused.html", 401, title="Refused",
                              message=f"your identity was refused ({exc.code})", **ctx)  # fmt: skip
            except MemguardError as exc:
                return render(request, "refused.html", 503, title="Unavailable",
                              message=f"the ledger or store failed ({exc.code})", **ctx)  # fmt: skip
            except ValueError as exc:  # e.g. an unknown trust level in a filter
                return render(request, "refused.html", 400, title="Bad request",
                              message=str(exc), **ctx)  # fmt: skip
            except Exception as exc:
                log.error("console.unexpected", error=type(exc).__name__, path=request.url.path)
                return render(request, "refused.html", 500, title="Error",
                              message="an unexpected error; nothing was shown", **ctx)  # fmt: skip

        return endpoint

    # -- sign-in ------------------------------------------------------------------------------------

    async def signin_get(request: Request) -> Response:
        if isinstance(signin, TokenSignIn):
            return render(request, "signin_token.html", title="Sign in")
        code = request.query_params.get("code")
        if code is None:
            return render(request, "signin_local.html", title="Sign in")
        try:
            session = signin.redeem(code)
        except IdentityError:
            await record_refusal(request, "console.signin_link")
            return render(request, "refused.html", 403, title="Link used",
                          message="this sign-in link is invalid or was already used; restart "
                          "`memguard console` for a new one")  # fmt: skip
        response = RedirectResponse(f"{base(request)}/signin/pick", status_code=303)
        response.set_cookie(signin.cookie_name, session.sid, **cookie_args(request))
        return response

    async def signin_post(request: Request) -> Response:
        if not isinstance(signin, TokenSignIn):
            return render(request, "refused.html", 405, title="Refused", message="not here")
        try:
            form = await _form(request)
        except _Refusal as exc:
            return render(request, "refused.html", exc.status, title=exc.title,
                          message=exc.message)  # fmt: skip
        if not _same_origin(request):
            await record_refusal(request, "console.csrf")
            return render(request, "refused.html", 403, title="Refused",
                          message="the form did not come from this console")  # fmt: skip
        token = form.get("token", "").strip()
        try:
            identity = await run_in_threadpool(signin.identity, token)
            if identity is None:
                raise IdentityError("no token", code="identity.missing")
            need_scope(identity, need.audit)
        except (IdentityError, _Refusal) as exc:
            reason = exc.code if isinstance(exc, IdentityError) else "the token lacks the scope"
            return render(request, "signin_token.html", 401, title="Sign in",
                          error=f"the token was refused ({reason})")  # fmt: skip
        response = RedirectResponse(f"{base(request)}/facts", status_code=303)
        max_age = max(int(identity.expires_at - time.time()), 1)
        response.set_cookie(signin.cookie_name, token, max_age=max_age, **cookie_args(request))
        return response

    async def pick_get(request: Request) -> Response:
        session = local_session(request) if isinstance(signin, LocalSignIn) else None
        if session is None:
            return to_signin(request)
        assert isinstance(signin, LocalSignIn)
        owners = await run_in_threadpool(console.owners)
        return render(request, "signin_pick.html", title="Choose a principal", owners=owners,
                      issuer=signin.issuer, csrf=session.csrf, current=session.subject)  # fmt: skip

    async def pick_post(request: Request) -> Response:
        session = local_session(request) if isinstance(signin, LocalSignIn) else None
        if session is None:
            return to_signin(request)
        assert isinstance(signin, LocalSignIn)
        try:
            form = await _form(request)
            await check_post(request, session.csrf, form)
        except _Refusal as exc:
            return render(request, "refused.html", exc.status, title=exc.title,
                          message=exc.message)  # fmt: skip
        subject = (form.get("other", "").strip() or form.get("subject", "")).strip()
        scopes = form.get("scopes", "").split()
        try:
            if not subject:
                raise IdentityError("choose a principal", code="identity.missing")
            await run_in_threadpool(signin.choose, session, subject, scopes)
        except IdentityError as exc:
            session.subject = None
            owners = await run_in_threadpool(console.owners)
            return render(request, "signin_pick.html", 401, title="Choose a principal",
                          owners=owners, issuer=signin.issuer, csrf=session.csrf,
                          error=f"refused ({exc.code})")  # fmt: skip
        return RedirectResponse(f"{base(request)}/facts", status_code=303)

    async def signout(request: Request) -> Response:
        response = RedirectResponse(f"{base(request)}/signin", status_code=303)
        try:
            form = await _form(request)
        except _Refusal:
            return response
        if isinstance(signin, LocalSignIn):
            session = local_session(request)
            if session is not None and hmac.compare_digest(
                form.get("csrf", "").encode(), session.csrf.encode()
            ):
                signin.sign_out(session)
        response.delete_cookie(signin.cookie_name, path=base(request) or "/")
        return response

    # -- pages ---------------------------------------------------------------------------------------

    async def home(request: Request) -> Response:
        return RedirectResponse(f"{base(request)}/facts", status_code=303)

    @page
    async def facts(request: Request, identity: Identity, csrf: str) -> Response:
        filters = FactFilters.from_query(request.query_params)
        cursor = request.query_params.get("cursor") or None
        query = (request.query_params.get("q") or "").strip()
        if query:
            need_scope(identity, need.read)
            result = await run_in_threadpool(console.search, identity, query, filters)
        else:
            result = await run_in_threadpool(console.facts, identity, filters, cursor)
        next_link = None
        if result.next_cursor is not None:
            next_link = "?" + urlencode({**filters.query(), "cursor": result.next_cursor})
        return render(request, "facts.html", title="Facts", nav="facts", who=who(identity),
                      csrf=csrf, filters=filters, page=result, next_link=next_link,
                      query=query)  # fmt: skip

    @page
    async def fact(request: Request, identity: Identity, csrf: str) -> Response:
        fact_id = request.path_params["fact_id"]
        if len(fact_id) > 64 or not fact_id.isprintable():
            raise FactNotFound("fact not found")
        view = await run_in_threadpool(console.fact, identity, fact_id)
        text = text_refused = None
        if request.query_params.get("text") == "1":
            try:
                need_scope(identity, need.read)
                text = await run_in_threadpool(console.content, identity, fact_id)
            except (FactNotFound, AccessDenied, _Refusal):
                text_refused = (
                    "your read scope does not return this fact's text (quarantined "
                    "facts are never returned)"
                )
        svg = render_svg(view.graph, lambda fid: f"{base(request)}/facts/{fid}")
        return render(request, "fact.html", title=f"Fact {fact_id[:8]}", nav="facts",
                      who=who(identity), csrf=csrf, report=view.report, graph=view.graph,
                      svg=svg, scanner=view.scanner, text=text, text_refused=text_refused,
                      choices=_revocation_choices(view.report))  # fmt: skip

    @page
    async def preview(request: Request, identity: Identity, csrf: str) -> Response:
        need_scope(identity, need.revoke)
        selector = _selector(dict(request.query_params))
        view = await run_in_threadpool(console.preview, identity, selector)
        return render(request, "preview.html", title="Revocation preview", nav="facts",
                      who=who(identity), csrf=csrf, view=view, selector=selector)  # fmt: skip

    @page
    async def revoke(request: Request, identity: Identity, csrf: str) -> Response:
        need_scope(identity, need.revoke)
        form = await _form(request)
        await check_post(request, csrf, form)
        selector = _selector(form)
        reason = form.get("reason", "").strip()
        if not reason or not reason.isprintable() or len(reason) > 2000:
            raise InvalidRequest("give a reason (one line, at most 2000 characters)")
        report, shown = await run_in_threadpool(console.revoke, identity, selector, reason)
        return render(request, "revoked.html", title="Revoked", nav="facts",
                      who=who(identity), csrf=csrf, report=report, shown=shown,
                      hidden=report.count - len(shown), selector=selector)  # fmt: skip

    @page
    async def health(request: Request, identity: Identity, csrf: str) -> Response:
        verify = request.query_params.get("verify") == "1"
        view = await run_in_threadpool(lambda: console.health(verify=verify))
        return render(request, "health.html", title="Ledger health", nav="health",
                      who=who(identity), csrf=csrf, view=view)  # fmt: skip

    routes = [
        Route("/", home),
        Route("/signin", signin_get, methods=["GET"]),
        Route("/signin", signin_post, methods=["POST"]),
        Route("/signin/pick", pick_get, methods=["GET"]),
        Route("/signin/pick", pick_post, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/facts", facts, methods=["GET"]),
        Route("/facts/{fact_id}", fact, methods=["GET"]),
        Route("/revoke/preview", preview, methods=["GET"]),
        Route("/revoke", revoke, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Mount("/static", app=StaticFiles(packages=[("memguard.console", "static")])),
    ]
    middleware = [Middleware(_SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    return Starlette(routes=routes, middleware=middleware)
