"""Routes declared at module level and added to an app exactly as ``@app.get(...)`` adds them.

Not an ``APIRouter``: ``include_router`` copies (or, in newer FastAPI, wraps) the routes, which
would change what ``app.routes`` holds and which app their dependency overrides come from; a
:class:`RouteTable` only remembers the decorator's arguments and calls ``app.add_api_route``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import FastAPI

__all__ = ["RouteTable"]

_Endpoint = TypeVar("_Endpoint", bound=Callable[..., Any])


@dataclass
class RouteTable:
    """An ordered list of routes; :meth:`add_to` adds them to an app in declaration order."""

    _routes: list[tuple[str, str, Callable[..., Any], dict[str, Any]]] = field(default_factory=list)

    def route(self, method: str, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
        """Declare ``path`` for ``method``; ``options`` are ``add_api_route``'s."""

        def declare(endpoint: _Endpoint) -> _Endpoint:
            self._routes.append((method, path, endpoint, options))
            return endpoint

        return declare

    def get(self, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
        return self.route("POST", path, **options)

    def put(self, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
        return self.route("PUT", path, **options)

    def delete(self, path: str, **options: Any) -> Callable[[_Endpoint], _Endpoint]:
        return self.route("DELETE", path, **options)

    def add_to(self, app: FastAPI) -> None:
        """Add every route to ``app`` (the order is the OpenAPI document's)."""
        for method, path, endpoint, options in self._routes:
            app.add_api_route(path, endpoint, methods=[method], **options)
