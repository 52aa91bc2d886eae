"""One audience and one ``typ`` per token use (DESIGN.md): a credential made for one use is refused
in every other one.

=====================================  ================  ==========================================
use                                    ``typ``           ``aud``
=====================================  ================  ==========================================
access token at the memory resource    ``at+jwt``        the resource identifier
presenter credential at the resource   ``wit+jwt``       ``{resource}/workload`` (by default)
client assertion at the token endpoint ``JWT`` or none   the token endpoint URL (or the STS issuer)
workload client assertion (jwt-spiffe) ``JWT``           the token endpoint URL (or the STS issuer)
actor token at the token endpoint      ``actor+jwt``     the token endpoint URL (or the STS issuer)
=====================================  ================  ==========================================

So the workload credential an agent sends with every memory call is neither a client assertion
nor an actor token at ``/token``, and the actor token a parent agent holds for its sub-agent is
not that sub-agent's presenter credential. Configurations that make two audiences of different
uses equal are refused when they load (:func:`check_distinct`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from memguard.errors import ConfigurationError

__all__ = [
    "ACCESS_TYPES",
    "ACTOR_TYP",
    "CLIENT_ASSERTION_TYP",
    "PRESENTER_TYP",
    "RESERVED_TYPES",
    "TOKEN_PATH",
    "check_distinct",
    "default_presenter_audience",
    "default_token_endpoint",
]

ACCESS_TYPES = frozenset({"at+jwt", "application/at+jwt"})
PRESENTER_TYP = "wit+jwt"
ACTOR_TYP = "actor+jwt"
CLIENT_ASSERTION_TYP = "JWT"
#: ``typ`` values a presenter credential may not be configured with (lowercase).
RESERVED_TYPES = frozenset({*ACCESS_TYPES, ACTOR_TYP, "jwt", "jose", "application/jwt"})


def default_presenter_audience(resource: str) -> str:
    """The audience of the workload credentials presented at ``resource``."""
    return f"{resource.rstrip('/')}/workload"


#: The token endpoint's path: the route is mounted there (``memguard.tokens.server``).
TOKEN_PATH = "/token"


def default_token_endpoint(base: str) -> str:
    """The token endpoint URL for a server at ``base`` (a resource or an issuer identifier): the
    route :data:`TOKEN_PATH` at ``base``'s origin, whatever path ``base`` has. The route, the
    RFC 8414 ``token_endpoint`` and the one audience of client assertions are this URL, so a
    resource ``https://host/mcp`` has its token endpoint at ``https://host/token``. A name that is
    not an http(s) URL (an in-process token service's issuer) gets the path appended."""
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{base.rstrip('/')}{TOKEN_PATH}"
    return f"{parts.scheme}://{parts.netloc}{TOKEN_PATH}"


def check_distinct(uses: Mapping[str, Iterable[str]]) -> None:
    """Refuse a configuration in which two token uses share an audience."""
    owner: dict[str, str] = {}
    for use, audiences in uses.items():
        for audience in audiences:
            other = owner.setdefault(audience, use)
            if other != use:
                raise ConfigurationError(
                    f"the audience `{audience}` is configured for both {other} and {use}; "
                    "each token use needs its own audience"
                )
