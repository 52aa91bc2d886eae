"""The stamp step of a write: decide each fact and build its provenance (memguard's trust rules).

Trust comes from the channel, capped by the writer's ceiling, the policy, the inputs it was derived
from, what its turn has read and the scan verdict (:func:`scan`, the scan stage between decide and
stamp). :meth:`memguard.kernel.Operation.stamp` runs :func:`stamp`; nothing else calls it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memguard.errors import (
    AccessDenied,
    FactNotFound,
    IdentityError,
    InvalidRequest,
    TrustEscalation,
)
from memguard.expiry import expiry_fields
from memguard.identity import Principal, PrincipalId, check_identifier
from memguard.ledger import FactState, LedgerRecord
from memguard.ledger.lineage import is_read_set, read_set_id
from memguard.lineage_trust import channel_class, lineage_trust_of
from memguard.provenance import Provenance, ScanRecord, WriterChain, new_uuid7, now_utc
from memguard.recovery import claim
from memguard.scan.verdict import ScanContext
from memguard.scope import ReadRequest, ScopePlan, WriteDecision
from memguard.telemetry import hooks as telemetry
from memguard.trust import SourceKind, TrustLevel

if TYPE_CHECKING:
    from memguard.kernel import Operation, StampRequest
    from memguard.ledger import Ledger

__all__ = ["new_fact_id", "recorded_inputs", "scan_texts", "stamp", "stamp_adopted"]

_GET = ReadRequest("get")
_UPDATE = ReadRequest("update")
_MAX_DERIVED_FROM = 256
#: ids per query of the rows a batch's turns read and its inputs (well under SQLite's
#: bound-parameter limit)
_READS_PER_QUERY = 5000


def new_fact_id() -> str:
    """A new fact's id: a time-ordered UUID (:func:`memguard.provenance.new_uuid7`). Ids made
    close in time sort close together, so a batch's rows land on the last pages of every index
    keyed by fact id (the provenance key, the event and change-entry links) instead of on one
    random page per fact each: a write of 64 facts touched about 380 random index pages (about
    1 MB of SQLite WAL at 10^4 facts, and a page read per key once the indexes outgrow the
    cache). The ids stay unique and unguessable; they tell the millisecond they were made, which
    the provenance record says anyway."""
    return new_uuid7()


def _check_name(value: str, what: str, *, recorded: bool) -> bool:
    """Whether ``value`` is a valid new namespace or fact id (``True``) or one the ledger already
    holds (``recorded``) that only the rules of when it was stored accept (``False``); anything
    else is refused (``invalid_request``: the same character rules as identifiers, but no
    identity)."""
    try:
        check_identifier(value, what)
        return True
    except IdentityError:
        if not recorded:
            raise InvalidRequest(f"{what} has forbidden characters") from None
    try:
        check_identifier(value, what, recorded=True)
    except IdentityError:
        raise InvalidRequest(f"{what} has forbidden characters") from None
    return False


def stamp(op: Operation, requests: Sequence[StampRequest]) -> list[Provenance]:
    """Decide each write and build its provenance: trust from the channel, capped by the
    writer's ceiling, policy, the inputs it was derived from and what its turn has read."""
    principal = op.who
    kernel = op.kernel
    ledger = kernel.ledger
    now = now_utc()
    named = [r.fact_id for r in requests if r.fact_id is not None]
    if len(set(named)) != len(named):
        raise InvalidRequest("a batch names the same fact twice")
    claim(kernel, op, named)  # one writer per fact id at a time in this process
    heads = ledger.latest(named) if named else {}
    stuck = [f for f, h in heads.items() if h.state is FactState.PENDING and f in kernel._stuck]
    if stuck:  # a write of ours whose abort the ledger refused: resolve it now, then go on
        kernel.resolve_stuck(stuck)
        heads = ledger.latest(named)
    next_versions = ledger.next_versions(named) if named else {}
    # every version of the inputs the known facts were derived from (a new version stays
    # capped by them), in one query for the batch
    inherited_ids = list(dict.fromkeys(i for h in heads.values() if h.state is FactState.COMMITTED
                                       for i in h.provenance.derived_from))  # fmt: skip
    inherited_versions = ledger.versions_many(inherited_ids) if inherited_ids else {}
    bars = kernel.write_bars()
    plans: dict[str, ScopePlan] = {}
    read_sets: dict[str, bool] = {}
    out: list[Provenance] = []
    scans = scan_texts(op, requests)
    # what each turn of the batch has read, in one query (the turn's taint)
    taint = ledger.lineage.turn_reads_many(
        principal.subject.issuer,
        principal.subject.subject,
        [(r.turn.session_id, r.turn.turn_index) for r in requests],
    )
    # the ledger rows of everything those turns read, in one query (their lineage caps each
    # fact below), not one query per fact: a batch written in one turn shares its reads
    read_ids = list(dict.fromkeys(fid for reads in taint.values() for fid, _ in reads))
    read_heads = _latest(ledger, read_ids)
    # the same for the inputs the batch names (each fact's are checked against these rows; a
    # request naming too many is refused below, before anything of it is read)
    named_inputs = (i for r in requests if len(r.derived_from) <= _MAX_DERIVED_FROM
                    for i in r.derived_from)  # fmt: skip
    input_heads = _latest(ledger, list(dict.fromkeys(named_inputs)))
    # the same for every fact of the batch (one principal, one operation): decided once per
    # namespace / channel, not once per fact (a policy resolver's decision can be costly)
    decisions: dict[str, WriteDecision] = {}
    new_names: set[str] = set()  # namespaces valid as new ones (checked once per batch)
    trusts: dict[tuple[SourceKind, TrustLevel | None, TrustLevel], tuple[TrustLevel, str]] = {}
    writer = WriterChain.from_principal(principal)  # immutable: one per batch
    for index, req in enumerate(requests):
        # an update names a fact the ledger holds: its id and namespace were checked when it was
        # first stored, under the rules of then (`recorded` of check_identifier); a new one in full
        head = heads.get(req.fact_id) if req.fact_id is not None else None
        if req.namespace not in new_names:
            stored_in = head is not None and head.provenance.namespace == req.namespace
            if _check_name(req.namespace, "namespace", recorded=stored_in):
                new_names.add(req.namespace)
        decision = decisions.get(req.namespace)
        if decision is None:
            decision = decisions[req.namespace] = kernel.scope.write_decision(
                principal, req.namespace
            )
        if req.fact_id is not None:
            if not (0 < len(req.fact_id) <= 64) or is_read_set(req.fact_id):
                raise InvalidRequest("a fact id has 1 to 64 characters and no reserved prefix")
            # stored, logged, shown in the console: no control, bidi or zero-width marks
            _check_name(req.fact_id, "fact id", recorded=req.fact_id in next_versions)
            if _uuid_alias(req.fact_id):  # the Qdrant stores key a point by the UUID it spells
                raise InvalidRequest("a fact id that is a UUID is written lower case, hyphenated")
        if len(req.derived_from) > _MAX_DERIVED_FROM:
            raise InvalidRequest(f"at most {_MAX_DERIVED_FROM} inputs per derived fact")
        op.policy_digest = decision.policy_digest
        if not decision.allowed:
            raise AccessDenied("write not permitted", code="access_denied.policy")
        trust_key = (req.source.kind, req.trust, decision.max_trust)
        assigned = trusts.get(trust_key)
        if assigned is None:  # a refusal raises, so only assignments are kept
            assigned = trusts[trust_key] = kernel.assign_trust(principal, req, decision.max_trust)
        level, reason = assigned
        fact_id = req.fact_id or new_fact_id()
        edges: list[tuple[str, str, str]] = []
        requested = tuple(dict.fromkeys(req.derived_from))
        inherited: tuple[str, ...] = ()
        version, owner = 1, principal.subject
        if fact_id in next_versions:  # an existing id: this is an update of that fact
            head = heads.get(fact_id)
            if head is not None:
                if head.state is FactState.PENDING:
                    raise AccessDenied("the fact is being written", code="access_denied.conflict")
                if "update" not in plans:
                    plans["update"] = op.read_plan(_UPDATE)
                op._require_visible(plans["update"], _UPDATE, head, allow_deleted=True)
                owner = head.provenance.owner
                if head.state is FactState.COMMITTED:
                    # the lineage stays with the fact: a new version is still capped by the
                    # inputs of the one it replaces (an overwrite cannot launder its trust)
                    inherited = tuple(dict.fromkeys(head.provenance.derived_from))
            version = next_versions[fact_id]
        new_inputs = tuple(i for i in requested if i not in inherited)
        inputs = (*inherited, *new_inputs)
        lineage = channel_class(req.source.kind)
        if inputs:
            if fact_id in inputs:
                raise InvalidRequest("a fact cannot be derived from itself")
            upstream: list[Provenance] = []
            if new_inputs:  # named now: the writer must be able to read each of them
                if "get" not in plans:
                    plans["get"] = op.read_plan(_GET)
                records = op.visible_records(plans["get"], _GET, list(new_inputs),
                                             known=input_heads)  # fmt: skip
                upstream.extend(r.provenance for r in records)
            # the fact's own inputs may since be deleted, quarantined or out of its owner's
            # scope: the edge stays (to the tombstone) and every version they had still caps
            upstream.extend(recorded_inputs(op, inherited, known=inherited_versions))
            weakest = min(p.trust for p in upstream)
            if weakest < level:  # model output (agent_inference) is already capped at derived
                level = weakest
                reason += f"; min of inputs = {weakest.label}"
            lineage = min(lineage, *(lineage_trust_of(p) for p in upstream))
            edges.extend((fact_id, parent, "derived") for parent in inputs)
        key = (req.turn.session_id, req.turn.turn_index)
        read = [(fid, t) for fid, t in taint[key] if fid != fact_id]
        if read:
            lowest = TrustLevel(min(t for _, t in read))
            if lowest < level:
                level = lowest
                reason += f"; turn tainted: it read {lowest.label} facts"
            # what the turn read: its trust when read, and its lineage (never above either)
            lineage = min(
                lineage,
                *(min(TrustLevel(t), lineage_trust_of(read_heads[fid].provenance))
                  if fid in read_heads else TrustLevel(t) for fid, t in read),
            )  # fmt: skip
            node = read_set_id(
                principal.subject.issuer, principal.subject.subject, *key,
                [fid for fid, _ in read],
            )  # fmt: skip
            edges.append((fact_id, node, "context"))
            if node not in read_sets:
                read_sets[node] = ledger.lineage.has_read_set(node)
                if not read_sets[node]:
                    edges.extend((node, fid, "read") for fid, _ in read)
        if req.trust is not None and level < req.trust:
            # the writer asked for more than its inputs or its turn allow: refuse, never narrow
            raise TrustEscalation(
                "requested trust is above what the inputs or the turn's reads allow"
            )
        scan = scans[index]
        if scan is not None:  # the content's verdict caps what the channel gave
            if scan.refused:
                op.detail.setdefault("scan", []).append({"fact_id": req.fact_id, **scan.summary()})
                raise AccessDenied(
                    "the content scanner refused this text", code="access_denied.scanner"
                )
            cap = scan.cap
            if cap is not None and cap < level:
                scan = scan.model_copy(update={"uncapped": level})
                level = cap
                reason += f"; scan {scan.label} cap {cap.label}"
        prov = Provenance(
            fact_id=fact_id,
            version=version,
            namespace=req.namespace,
            owner=owner,
            source=req.source,
            turn=telemetry.stamp_turn(req.turn),
            trust=level,
            trust_reason=reason,
            writer=writer,
            derived_from=inputs,
            created_at=now,
            content_digest=req.content_digest,
            policy_digest=decision.policy_digest,
            lineage_trust=lineage,
            scan=scan,
            **expiry_fields(kernel.clock(), req.ttl_seconds),
        )
        if scan is not None and scan.label != "clean":
            op.detail.setdefault("scan", []).append({"fact_id": fact_id, **scan.summary()})
            if scan.label == "error":
                op.alarm(fact_id, "scan.failed")
        for revocation in bars:
            if revocation.reaches(owner.issuer, owner.subject) and revocation.selector.matches(
                prov
            ):
                op.detail["revocation_id"] = revocation.revocation_id
                raise AccessDenied(
                    "the source, turn or writer is revoked", code="access_denied.revoked"
                )
        op._edges[fact_id] = edges
        op._fence[fact_id] = {*new_inputs, *(fid for fid, _ in read)}
        out.append(prov)
    return telemetry.stamped(op, out)


def _uuid_alias(fact_id: str) -> bool:
    """Whether ``fact_id`` spells a UUID other than as ``str(uuid.UUID(...))`` does (upper case,
    no hyphens, braces, ``urn:uuid:``): the ledger compares ids byte-exactly, but the Qdrant
    stores key a point by the UUID, so another user's alias of a fact id replaced its point."""
    try:
        return str(uuid.UUID(fact_id)) != fact_id
    except ValueError:
        return False


def _latest(ledger: Ledger, fact_ids: list[str]) -> dict[str, LedgerRecord]:
    """:meth:`Ledger.latest` of ``fact_ids``, a query per :data:`_READS_PER_QUERY` ids."""
    out: dict[str, LedgerRecord] = {}
    for start in range(0, len(fact_ids), _READS_PER_QUERY):
        out.update(ledger.latest(fact_ids[start : start + _READS_PER_QUERY]))
    return out


def scan_texts(op: Operation, requests: Sequence[StampRequest]) -> list[ScanRecord | None]:
    """The scan stage: every request with text, scanned together; fails closed per fact.

    Within one operation a text is scanned once per (text, context, stage): an adapter that
    stamps twice (decide before the backend call, again with the backend's ids, once more under
    a trust cap) reuses the verdict the kernel itself recorded in this operation. The memo lives
    on the operation, so a verdict never outlives the call that produced it."""
    stage = op.kernel.scan_stage
    if stage is None:
        return [None] * len(requests)
    memo = op._scanned
    keyed = [
        (i, r.text, ScanContext(r.namespace, r.source.kind, bool(r.derived_from)))
        for i, r in enumerate(requests)
        if r.text is not None
    ]
    out: list[ScanRecord | None] = [None] * len(requests)
    fresh: dict[tuple[int, str, ScanContext], list[int]] = {}
    for i, text, ctx in keyed:
        key = (id(stage), text, ctx)
        if key in memo:
            out[i] = memo[key]
        else:
            fresh.setdefault(key, []).append(i)
    try:
        records = stage.scan_batch([(text, ctx) for _, text, ctx in fresh])
    except Exception as exc:  # the stage itself broke: every fact is capped, never clean
        records = [stage.error_record(f"scan.error:{type(exc).__name__}") for _ in fresh]
    for (key, indexes), record in zip(fresh.items(), records, strict=True):
        memo[key] = record
        for i in indexes:
            out[i] = record
    for i, req in enumerate(requests):
        if req.text is None:  # a scanner is configured but the adapter sent no text
            out[i] = stage.error_record("scan.no_text")
    return out


def recorded_inputs(
    op: Operation,
    fact_ids: Sequence[str],
    *,
    known: Mapping[str, list[LedgerRecord]] | None = None,
) -> list[Provenance]:
    """Every recorded version of each input, whatever its state now (deleted, quarantined, out
    of scope): a new version of a fact stays capped by the inputs it was derived from.
    ``known``: :meth:`Ledger.versions_many` of a set of ids that holds ``fact_ids`` (a batch's,
    read once)."""
    out: list[Provenance] = []
    for fact_id in fact_ids:
        versions = op.kernel.ledger.versions(fact_id) if known is None else known.get(fact_id)
        if not versions:  # pragma: no cover - an input id the ledger never held
            raise FactNotFound("fact not found")
        out.extend(v.provenance for v in versions)
    return out


def stamp_adopted(
    op: Operation, requests: Sequence[tuple[StampRequest, PrincipalId]], *, operator: str
) -> list[Provenance | None]:
    """Stamp data that existed before memguard for the owner the operator's mapping named
    (``memguard adopt``, memguard/adopt/): source kind ``legacy``, written by
    ``operator:NAME``, trust ``untrusted`` unless the request states a level (never above an
    owner's own direct write, nor the policy's cap), then capped by the scan verdict.

    Admin-only: the operation's action is ``adopt`` and it has no caller identity (the local
    operator with file access). Each owner must be allowed to write the namespace by policy;
    an id the ledger already holds is refused (adoption never overwrites a fact; an aborted
    attempt, whose store write failed, is retried as the next version). ``None`` in the
    result: the scanner refused that text (recorded in the event, nothing stamped)."""
    if op.action != "adopt" or op.principal is not None:
        raise AccessDenied(
            "adoption is the local operator's operation", code="access_denied.not_allowed"
        )
    kernel = op.kernel
    policy = kernel.trust_policy
    op.detail["operator"] = operator
    operator = operator.removeprefix("operator:")
    writer = WriterChain(
        subject=PrincipalId(issuer="memguard:operator", subject=operator),
        token_jti=f"operator:{operator}",
    )
    ids = [r.fact_id for r, _ in requests]
    if any(i is None for i in ids) or len(set(ids)) != len(ids):
        raise InvalidRequest("every adopted fact needs its own fact id")
    named = [i for i in ids if i is not None]
    if kernel.ledger.latest(named):  # only aborted attempts (a failed batch) may be retried
        raise InvalidRequest("an adopted fact id is already in the ledger")
    versions = kernel.ledger.next_versions(named)
    scans = scan_texts(op, [r for r, _ in requests])
    bars = kernel.write_bars()
    now = now_utc()
    out: list[Provenance | None] = []
    for (req, owner), scan in zip(requests, scans, strict=True):
        assert req.fact_id is not None
        if req.source.kind is not SourceKind.LEGACY:
            raise InvalidRequest("adopted facts have source kind `legacy`")
        try:
            check_identifier(req.namespace, "namespace")
        except IdentityError:
            raise InvalidRequest("namespace has forbidden characters") from None
        check_identifier(owner.issuer, "owner issuer")
        check_identifier(owner.subject, "owner subject")
        as_owner = Principal(subject=owner, token_jti=writer.token_jti)
        decision = kernel.scope.write_decision(as_owner, req.namespace)
        op.policy_digest = decision.policy_digest
        if not decision.allowed:
            raise AccessDenied("write not permitted", code="access_denied.policy")
        ceiling = min(policy.ceiling(0, frozenset()), decision.max_trust)
        level = min(policy.source_defaults[SourceKind.LEGACY], ceiling)
        reason = f"source legacy default {level.label}; adopted by operator {operator}"
        if req.trust is not None:
            if req.trust > ceiling:
                raise TrustEscalation(f"adopted trust is at most `{ceiling.label}`")
            level = req.trust
            reason += f"; stated by the operator: {level.label}"
        if scan is not None:
            if scan.refused:
                op.detail.setdefault("scan", []).append({"fact_id": req.fact_id, **scan.summary()})
                out.append(None)
                continue
            cap = scan.cap
            if cap is not None and cap < level:
                scan = scan.model_copy(update={"uncapped": level})
                level = cap
                reason += f"; scan {scan.label} cap {cap.label}"
        prov = Provenance(
            fact_id=req.fact_id, version=versions.get(req.fact_id, 1),
            namespace=req.namespace, owner=owner,
            source=req.source, turn=req.turn, trust=level, trust_reason=reason,
            writer=writer, created_at=now, content_digest=req.content_digest,
            policy_digest=decision.policy_digest,
            lineage_trust=channel_class(SourceKind.LEGACY), scan=scan,
        )  # fmt: skip
        if scan is not None and scan.label != "clean":
            op.detail.setdefault("scan", []).append({"fact_id": req.fact_id, **scan.summary()})
        for revocation in bars:
            if revocation.reaches(owner.issuer, owner.subject) and revocation.selector.matches(
                prov
            ):
                op.detail["revocation_id"] = revocation.revocation_id
                raise AccessDenied("the source is revoked", code="access_denied.revoked")
        op._edges[req.fact_id] = []
        out.append(prov)
    return out
