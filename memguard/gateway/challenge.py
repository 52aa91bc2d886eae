"""The ``WWW-Authenticate: Bearer`` challenge of a refusal (RFC 6750 3) and the protected-resource
metadata URL it names (RFC 9728 3.1, 5.1). Imported by both the edge (:mod:`memguard.gateway.auth`)
and the error responses (:mod:`memguard.gateway.responses`), so neither imports the other."""

from __future__ import annotations

__all__ = ["REALM", "bearer_challenge", "metadata_url"]

REALM = "memguard"


def metadata_url(resource: str) -> str:
    """RFC 9728 3.1: ``/.well-known/oauth-protected-resource`` inserted before the resource's path."""
    scheme, rest = resource.split("://", 1)
    host, _, path = rest.partition("/")
    suffix = f"/{path}".rstrip("/") if path else ""
    return f"{scheme}://{host}/.well-known/oauth-protected-resource{suffix}"


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def bearer_challenge(
    resource: str,
    error: str | None = None,
    description: str | None = None,
    scope: str | None = None,
) -> str:
    """The ``WWW-Authenticate`` value for a refusal (RFC 6750 3, RFC 9728 5.1)."""
    parts = [f'realm="{REALM}"']
    if error is not None:
        parts.append(f'error="{error}"')
        if description:
            parts.append(f'error_description="{_quote(description)}"')
        if scope:
            parts.append(f'scope="{_quote(scope)}"')
    parts.append(f'resource_metadata="{metadata_url(resource)}"')
    return "Bearer " + ", ".join(parts)
