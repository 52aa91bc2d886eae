"""``memguard eval --gateway URL --token-file F``: the eval measurement against a running gateway.

The same corpus, channels, writer chains and report as the embedded run (:mod:`memguard.evaluate`),
but every write, list, search, read and revocation goes over HTTP to a deployed gateway, with the
tokens the caller brings, so what is measured is that deployment: its policies, its scanner, its
store. The token file is JSON, one entry per writer chain (docs/scanner.md)::

    {"user": "eyJ...",
     "agent": {"token": "eyJ...", "workload": "eyJ..."},
     "sub-agent": {"token": "eyJ...", "workload": "eyJ..."},
     "revoker": "eyJ..."}

``user`` is required; ``agent`` and ``sub-agent`` are the user's chain exchanged to an agent and on
to a sub-agent (with the workload credential the gateway asks agents for); ``revoker`` is a token
with the revoke scope for the revocation check (without it that section says "not measured").
Every chain must act for the same user. The facts are written in the namespace ``eval``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memguard.client import MemguardClient, NewFact
from memguard.errors import AccessDenied
from memguard.evaluate import Deployment, EvalReport, Written, measure
from memguard.gateway.schemas.facts import FactOut
from memguard.guard import RecalledFact
from memguard.provenance import Provenance, Source, Turn
from memguard.revocation import RevocationSelector

__all__ = ["ChainToken", "GatewayDeployment", "TokenFileError", "load_tokens", "run_gateway_eval"]

CHAIN_NAMES = ("user", "agent", "sub-agent")
_KEYS = (*CHAIN_NAMES, "revoker")
#: facts per batch request (well under a gateway's body limit for corpus rows)
_BATCH = 50
_PAGE = 500


class TokenFileError(ValueError):
    """The token file is not the documented format (the message says what is wrong)."""


@dataclass(frozen=True, slots=True)
class ChainToken:
    """A bearer token and, for an agent, its workload credential."""

    token: str
    workload: str | None = None


def load_tokens(path: Path) -> dict[str, ChainToken]:
    """Read a token file (see the module doc)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TokenFileError(f"cannot read `{path}` as JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict):
        raise TokenFileError("the token file is a JSON object keyed by writer chain")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise TokenFileError(f"unknown keys {unknown}; expected some of {list(_KEYS)}")
    if "user" not in data:
        raise TokenFileError("the token file needs a `user` token")
    out: dict[str, ChainToken] = {}
    for name, value in data.items():
        if isinstance(value, str) and value:
            out[name] = ChainToken(value)
        elif (
            isinstance(value, dict)
            and set(value) <= {"token", "workload"}
            and isinstance(value.get("token"), str)
            and value["token"]
            and isinstance(value.get("workload", ""), str)
        ):
            out[name] = ChainToken(value["token"], value.get("workload") or None)
        else:
            raise TokenFileError(f'`{name}`: a token string or {{"token": ..., "workload": ...}}')
    return out


def recalled(fact: FactOut) -> RecalledFact:
    """A fact as the gateway returned it, as the prompt renderer takes it (the response's extra,
    derived fields, such as the writer's ``chain`` of subjects, are left out of the record)."""
    data = fact.provenance.model_dump(mode="json")
    for _ in range(16):
        try:
            provenance = Provenance.model_validate(data)
        except ValidationError as exc:
            extra = [e["loc"] for e in exc.errors() if e["type"] == "extra_forbidden"]
            if not extra:
                raise
            for loc in extra:
                _drop(data, loc)
            continue
        return RecalledFact(fact.fact_id, fact.text, dict(fact.metadata), provenance, fact.score)
    raise ValueError("the gateway's provenance does not read as a provenance record")


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    for key in loc[:-1]:
        data = data[key]
    del data[loc[-1]]


class GatewayDeployment:
    """A :class:`~memguard.evaluate.Deployment` behind a gateway URL."""

    def __init__(
        self,
        base_url: str,
        tokens: dict[str, ChainToken],
        *,
        timeout: float = 30.0,
        verify: Any = True,
    ) -> None:
        self.clients = {
            name: MemguardClient(base_url, t.token, workload_credential=t.workload,
                                 timeout=timeout, verify=verify)
            for name, t in tokens.items()
        }  # fmt: skip
        self.chains = tuple(c for c in CHAIN_NAMES if c in tokens)
        self.can_revoke = "revoker" in tokens

    def close(self) -> None:
        for client in self.clients.values():
            client.close()

    def write(
        self, chain: str, items: Sequence[tuple[str, tuple[str, ...]]], source: Source, session: str
    ) -> list[Written] | None:
        turn = Turn(session_id=session, turn_index=0)
        out: list[Written] = []
        try:
            for start in range(0, len(items), _BATCH):
                facts = [NewFact(text=t, namespace="eval", source=source, turn=turn, derived_from=d)
                         for t, d in items[start : start + _BATCH]]  # fmt: skip
                for w in self.clients[chain].write_many(facts):
                    scan = w.provenance.scan
                    out.append(Written(w.fact_id, w.provenance.trust,
                                       None if scan is None else scan.label))  # fmt: skip
        except AccessDenied:
            return None if not out else out  # refused by policy: what was stored is counted
        return out

    def listed(self, chain: str, purpose: str) -> list[RecalledFact]:
        out: list[RecalledFact] = []
        cursor: str | None = None
        while True:
            try:
                page = self.clients[chain].list_facts(limit=_PAGE, cursor=cursor, purpose=purpose)
            except AccessDenied:
                return out  # the purpose is refused outright: nothing reachable
            out.extend(recalled(f) for f in page.facts)
            cursor = page.next_cursor
            if cursor is None:
                return out

    def searched(self, chain: str, query: str, purpose: str) -> set[str]:
        try:
            return {f.fact_id for f in self.clients[chain].search(query, k=25, purpose=purpose)}
        except AccessDenied:
            return set()

    def readable(self, chain: str, fact_id: str) -> bool:
        try:
            self.clients[chain].get(fact_id)
        except AccessDenied:
            return False
        return True

    def revoke_domain(self, host: str) -> None:
        self.clients["revoker"].revoke(RevocationSelector.domain(host), reason="memguard eval")


def run_gateway_eval(
    corpus: Sequence[dict[str, Any]],
    base_url: str,
    tokens: dict[str, ChainToken],
    *,
    min_detection: float = 0.9,
    max_false_positives: float = 0.02,
    searches: int = 20,
    verify: Any = True,
) -> EvalReport:
    """Measure the gateway at ``base_url`` with ``corpus`` (see :mod:`memguard.evaluate`)."""
    report = EvalReport(min_detection=min_detection, max_false_positives=max_false_positives)
    deployment = GatewayDeployment(base_url, tokens, verify=verify)
    try:
        dep: Deployment = deployment
        measure(dep, corpus, report, searches)
    finally:
        deployment.close()
    return report
