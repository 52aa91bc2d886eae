"""The OpenAI Agents SDK through memguard: a ``Session`` whose items are provenance-stamped facts.

::

    session = GuardedSession("chat-42", guard=guard, identity=me)
    result = await Runner.run(agent, "hello", session=session)

See :mod:`.session` and ``docs/adapters/openai-agents.md``.
"""

from __future__ import annotations

from .session import GuardedSession, source_kind_of

__all__ = ["GuardedSession", "source_kind_of"]
