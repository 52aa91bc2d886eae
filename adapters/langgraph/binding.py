"""Identity resolution for a LangGraph run: the caller a run carries (a Binding or a token)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memguard.context import Binding, CallContext
from memguard.errors import IdentityError, InvalidRequest
from memguard.kernel import Kernel
from memguard.provenance import Turn

from .._toolkit import PerCallTurn, per_call_turn
from .base import BINDING_KEY, TURN_KEY


def _run_values() -> tuple[object, Mapping[str, Any]]:
    """The caller a LangGraph run carries (runtime context first, then ``configurable``) and the
    run's ``configurable``; ``(None, {})`` outside a run."""
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):
        return None, {}
    configurable = config.get("configurable") or {}
    if not isinstance(configurable, Mapping):
        return None, {}
    value: object = None
    runtime = configurable.get("__pregel_runtime")
    ctx = getattr(runtime, "context", None)
    if isinstance(ctx, Mapping):
        value = ctx.get(BINDING_KEY)
    elif ctx is not None:
        value = getattr(ctx, BINDING_KEY, None)
    if value is None:
        value = configurable.get(BINDING_KEY)
    return value, configurable


def _run_binding(kernel: Kernel, default: CallContext | None) -> Binding | None:
    """The caller of the current LangGraph run, if the run names one. A token is verified here,
    on every call, and stamps the store's default channel with the run's thread as its session."""
    value, configurable = _run_values()
    if value is None:
        return None
    if isinstance(value, Binding):
        return value
    if isinstance(value, str):
        if default is None:
            raise IdentityError(
                "a token in the run needs a store built with a default `context` (its channel)",
                code="identity.missing",
            )
        identity = kernel.authenticate(value)
        thread = configurable.get("thread_id")
        session = str(thread) if thread is not None else default.turn.session_id
        if TURN_KEY not in configurable and isinstance(default.turn, PerCallTurn):
            # the run names no turn and the store's default names none: a fresh one per call
            return Binding(identity, default.replace(turn=per_call_turn(session)))
        index = configurable.get(TURN_KEY, default.turn.turn_index)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise InvalidRequest(f"`{TURN_KEY}` must be a non-negative integer")
        turn = Turn(session_id=session, turn_index=index)
        return Binding(identity, default.replace(turn=turn))
    raise IdentityError(
        f"the run's `{BINDING_KEY}` must be a memguard Binding or an access token",
        code="identity.missing",
    )
