"""The gateway's API reference: `/docs` from vendored Swagger UI (no CDN), and an OpenAPI document
in which every operation, parameter and schema has a description and an example, every example
validates against its schema, and the token endpoint and JWKS are described."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from gateway_helpers import Gateway, running_gateway
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from memguard.gateway.schemas import JwksOut, OAuthErrorOut

ASSETS = Path(__file__).resolve().parent.parent / "memguard" / "gateway" / "static" / "swagger-ui"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with running_gateway(tmp_path_factory.mktemp("docs"), mcp=False) as gw:
        yield gw


@pytest.fixture(scope="module")
def doc(gateway: Gateway) -> dict[str, Any]:
    res = httpx.get(f"{gateway.base}/openapi.json", timeout=10)
    assert res.status_code == 200
    return res.json()  # type: ignore[no-any-return]


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    return doc["components"]["schemas"][ref.rsplit("/", 1)[-1]]  # type: ignore[no-any-return]


def _validator(doc: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A JSON Schema 2020-12 validator that resolves `#/components/schemas/...` in `doc`."""
    resource: Resource[Any] = Resource(contents={"components": doc["components"]},
                                       specification=DRAFT202012)  # fmt: skip
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    text = json.dumps(schema).replace('"#/components/', '"urn:openapi#/components/')
    return jsonschema.Draft202012Validator(json.loads(text), registry=registry)


def test_docs_page_uses_only_vendored_assets(gateway: Gateway) -> None:
    res = httpx.get(f"{gateway.base}/docs", timeout=10)
    assert res.status_code == 200 and "text/html" in res.headers["content-type"]
    csp = res.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "<script>" not in res.text  # no inline script
    urls = re.findall(r'(?:src|href)="([^"]+)"', res.text)
    assert urls and all(u.startswith("/docs/static/") for u in urls), urls
    for url in urls:
        asset = httpx.get(f"{gateway.base}{url}", timeout=10)
        assert asset.status_code == 200, url
        name = url.rsplit("/", 1)[-1]
        assert asset.content == (ASSETS / name).read_bytes()
    assert 'data-openapi="/openapi.json"' in res.text


def test_vendored_assets_are_the_recorded_release() -> None:
    recorded = dict(
        reversed(line.split()) for line in (ASSETS / "VENDORED.md").read_text().splitlines()
        if re.fullmatch(r"[0-9a-f]{64}  \S+", line)
    )  # fmt: skip
    assert set(recorded) >= {"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"}
    for name, digest in recorded.items():
        assert hashlib.sha256((ASSETS / name).read_bytes()).hexdigest() == digest, name
    assert "Apache License" in (ASSETS / "LICENSE").read_text()


def test_every_operation_is_described_with_examples(doc: dict[str, Any]) -> None:
    operations = [(p, m, op) for p, item in doc["paths"].items() for m, op in item.items()]
    assert len(operations) >= 17
    for path, method, op in operations:
        where = f"{method.upper()} {path}"
        assert op.get("summary") and op.get("description"), where
        for param in op.get("parameters", []):
            assert param.get("description"), (where, param["name"])
            assert "example" in param or param.get("examples") or param["schema"].get("examples"), (
                where, param["name"])  # fmt: skip
        body = op.get("requestBody", {}).get("content", {})
        for media in body.values():
            schema = _resolve(doc, media["schema"])
            assert "example" in media or schema.get("examples"), where
        for status, response in op["responses"].items():
            assert response.get("description"), (where, status)
            if not status.startswith("2"):
                continue
            for media in response.get("content", {}).values():
                schema = _resolve(doc, media.get("schema", {}))
                assert "example" in media or schema.get("examples"), (where, status)


def test_every_schema_is_described_and_its_examples_validate(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    assert len(schemas) > 30
    for name, schema in schemas.items():
        assert schema.get("description"), name
        assert schema.get("examples"), name
        validator = _validator(doc, {"$ref": f"#/components/schemas/{name}"})
        for example in schema["examples"]:
            errors = list(validator.iter_errors(example))
            assert not errors, (name, [(list(e.absolute_path), e.message) for e in errors[:3]])
    for path, item in doc["paths"].items():
        for method, op in item.items():
            responses = [*op["responses"].values(), op.get("requestBody", {})]
            for response in responses:
                for media in response.get("content", {}).values():
                    if "example" in media and "schema" in media:
                        errors = list(_validator(doc, media["schema"]).iter_errors(media["example"]))
                        assert not errors, (method, path, [e.message for e in errors[:3]])


def test_token_endpoint_and_jwks_are_in_the_document_and_match_the_service(
    doc: dict[str, Any], gateway: Gateway
) -> None:
    paths = doc["paths"]
    token = paths["/token"]["post"]
    assert "application/x-www-form-urlencoded" in token["requestBody"]["content"]
    assert {"200", "400", "401"} <= set(token["responses"])
    for path in ("/.well-known/jwks.json", "/.well-known/workload-jwks.json",
                 "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource"):
        assert "get" in paths[path], path
    # what the service answers has the documented shape
    for path in ("/.well-known/jwks.json", "/.well-known/workload-jwks.json"):
        JwksOut.model_validate(httpx.get(f"{gateway.base}{path}", timeout=10).json())
    refused = httpx.post(f"{gateway.base}/token", data={"grant_type": "password"}, timeout=10)
    assert refused.status_code in (400, 401)
    OAuthErrorOut.model_validate(refused.json())
    validator = _validator(doc, token["responses"]["400"]["content"]["application/json"]["schema"])
    assert not list(validator.iter_errors(refused.json()))
