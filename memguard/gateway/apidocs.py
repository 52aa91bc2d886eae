"""The gateway's API reference: ``/docs`` (Swagger UI from vendored assets) and the parts of the
OpenAPI document FastAPI cannot see by itself.

Swagger UI 5 (npm ``swagger-ui-dist``, Apache-2.0) ships in the wheel under
``memguard/gateway/static/swagger-ui`` (VENDORED.md there says which version and how to update it);
nothing is loaded from a CDN. The page has no inline script and a Content-Security-Policy that
allows scripts and connections to this origin only (Swagger UI sets element styles, so styles may
be inline).

The token endpoint, the JWKS documents and the authorization-server metadata are served by the
token service's own Starlette routes (:mod:`memguard.tokens.server`); :func:`add_token_service_paths`
describes them in the OpenAPI document with their request and response schemas and examples.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from memguard.gateway.schemas import (
    AuthServerMetadataOut,
    JwksOut,
    OAuthErrorOut,
    TokenExchangeForm,
    TokenResponseOut,
)
from memguard.tokens.uses import TOKEN_PATH

__all__ = ["DOCS_CSP", "add_token_service_paths", "mount_api_docs"]

DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'"
)
_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memguard gateway API</title>
<link rel="stylesheet" href="{static}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{static}/swagger-ui-bundle.js"></script>
<script src="{static}/init.js"></script>
</body>
</html>
"""


def _schema_ref(doc: dict[str, Any], model: type[Any]) -> dict[str, str]:
    """Add ``model``'s JSON Schema to the document's components; its ``$ref``."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    for name, sub in schema.pop("$defs", {}).items():
        components.setdefault(name, sub)
    components[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _example(model: type[Any]) -> Any:
    """The first example of a schema model (they all have one: tests/test_gateway_docs.py)."""
    return model.model_json_schema()["examples"][0]


def _json(doc: dict[str, Any], model: type[Any], description: str) -> dict[str, Any]:
    content = {"schema": _schema_ref(doc, model), "example": _example(model)}
    return {"description": description, "content": {"application/json": content}}


def add_token_service_paths(doc: dict[str, Any]) -> None:
    """Describe ``POST /token`` (RFC 8693), the JWKS documents and RFC 8414 metadata."""
    error = _json(
        doc, OAuthErrorOut, "the request was refused (RFC 6749 5.2 error codes, RFC 8693 2.2.2)"
    )
    form_example = _example(TokenExchangeForm)
    paths = doc.setdefault("paths", {})
    paths[TOKEN_PATH] = {"post": {
        "tags": ["token service"],
        "summary": "Exchange a token (RFC 8693): delegation to the calling agent",
        "description": (
            "OAuth 2.0 Token Exchange, delegation only. The client authenticates with "
            "`private_key_jwt` (RFC 7523); the subject token is the user's (or the previous "
            "hop's) access token; with `actor_token` the new token's `act` chain gains the actor. "
            "The issued scope must be a subset of the subject's, the actor's and the policy's "
            "(`invalid_scope` otherwise, never a silent narrowing); the lifetime never exceeds "
            "the inputs'. Responses carry `Cache-Control: no-store`."
        ),
        "operationId": "token_exchange",
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {
            "schema": _schema_ref(doc, TokenExchangeForm), "example": form_example}}},
        "responses": {
            "200": _json(doc, TokenResponseOut, "the issued token (RFC 8693 2.2.1)"),
            "400": error,
            "401": {**error, "description": "client authentication failed (`invalid_client`)"},
            "429": {"description": "too many token requests (Retry-After)"},
        },
        "security": [],
    }}  # fmt: skip
    jwks = _json(doc, JwksOut, "the public keys (RFC 7517), cacheable for 60 s")
    paths["/.well-known/jwks.json"] = {"get": {
        "tags": ["token service"], "operationId": "jwks",
        "summary": "Public keys of the access tokens this gateway issues",
        "description": "Verifiers of this gateway's `at+jwt` access tokens fetch these keys.",
        "responses": {"200": jwks}, "security": [],
    }}  # fmt: skip
    paths["/.well-known/workload-jwks.json"] = {"get": {
        "tags": ["token service"], "operationId": "workload_jwks",
        "summary": "Public keys of the workload credentials this gateway issues",
        "description": "Verifiers of the JWT-SVID-style `wit+jwt` workload credentials "
        "(`Workload-Identity-Token`) fetch these keys.",
        "responses": {"200": jwks}, "security": [],
    }}  # fmt: skip
    paths["/.well-known/oauth-authorization-server"] = {"get": {
        "tags": ["token service"], "operationId": "authorization_server_metadata",
        "summary": "Authorization server metadata (RFC 8414)",
        "description": "Where the token endpoint and JWKS are, and which grant and client "
        "authentication this token service supports.",
        "responses": {"200": _json(doc, AuthServerMetadataOut, "the metadata")}, "security": [],
    }}  # fmt: skip


_FRAMEWORK = {
    "HTTPValidationError": (
        "The request did not match its schema (FastAPI's validation error).",
        {"detail": [{"loc": ["body", "k"], "msg": "Input should be less than or equal to 100",
                     "type": "less_than_equal"}]},
    ),
    "ValidationError": (
        "One validation problem: where, what, and its type.",
        {"loc": ["body", "k"], "msg": "Input should be less than or equal to 100",
         "type": "less_than_equal"},
    ),
    "SourceKind": ("The channel a fact came through; it sets the trust the fact can get.", "web"),
}  # fmt: skip


def _restore_examples(doc: dict[str, Any]) -> None:
    """FastAPI drops every ``null`` from the document it generates, examples included (a field
    that is ``null`` in an example would look absent); put the models' own examples back."""
    from pydantic import BaseModel

    from memguard.gateway import schemas as models

    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        model = getattr(models, name, None)
        if isinstance(model, type) and issubclass(model, BaseModel):
            examples = model.model_json_schema().get("examples")
            if examples:
                schema["examples"] = examples


def _describe_framework_schemas(doc: dict[str, Any]) -> None:
    """Descriptions and examples for the schemas FastAPI and enums generate on their own."""
    schemas = doc.get("components", {}).get("schemas", {})
    for name, (description, example) in _FRAMEWORK.items():
        if name in schemas:
            schemas[name].setdefault("description", description)
            schemas[name].setdefault("examples", [example])


def mount_api_docs(app: FastAPI, *, token_service: bool) -> None:
    """Serve ``/docs`` and its assets, and complete the OpenAPI document."""
    from importlib.resources import files

    static = str(files("memguard.gateway") / "static" / "swagger-ui")
    app.mount("/docs/static", StaticFiles(directory=static), name="docs-static")

    async def docs(request: Request) -> Response:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        html = _PAGE.format(static=f"{root}/docs/static", openapi=f"{root}{app.openapi_url}")
        return HTMLResponse(html, headers={
            "Content-Security-Policy": DOCS_CSP, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
        })  # fmt: skip

    app.add_api_route("/docs", docs, methods=["GET"], include_in_schema=False)

    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = generate()
            if token_service:
                add_token_service_paths(doc)
            _restore_examples(doc)
            _describe_framework_schemas(doc)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
