"""Identifiers whose spacing hides a difference are refused (memguard/identity.py).

``"alice "`` and ``"alice"`` were two principals, namespaces or fact ids that look the same in the
console, the logs and audit output. The one identifier check now refuses leading, trailing and
repeated spaces, any whitespace but U+0020 and the default-ignorable code points, for every kind
of identifier it guards; a fact stored before the rule (its id or namespace spaced) stays readable,
auditable, updatable and deletable, and nothing new may be named that way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import memguard.stamp
from memguard import FactInput, FactState, MemoryGuard, Source, SourceKind, Turn
from memguard.errors import FactNotFound, IdentityError, InvalidRequest
from memguard.identity import check_identifier
from memguard.ledger import Ledger
from memguard.scope import DefaultScopeResolver
from memguard.stores.memory import InMemoryStore
from memguard.tokens.local import LocalTokenService

SPACED = ["alice ", " alice", "  alice", "alice  ", "al  ice", " "]
OTHER_SPACES = ["alice\u1680", "al\u1680ice", "alice\u00a0", "alice\u2003", "alice\u3000",
                "alice\u202f", "alice\t", "alice\n", "alice\x0b", "alice\x1f", "alice\x85",
                "alice\u2028"]  # fmt: skip
INVISIBLE = ["alice\u034f", "alice\u3164", "alice\u115f", "alice\ufe0f", "alice\U000e0100",
             "alice\u17b4", "alice\u180b"]  # fmt: skip
ACCEPTED = ["alice", "alice bob", "a b c", "zo\u00eb", "spiffe://memguard.local/agent/planner",
            "https://issuer.example/tenant 1", "\u0430lice"]  # fmt: skip
SENDER = Source(kind=SourceKind.USER_MESSAGE)


@pytest.mark.parametrize("value", SPACED + OTHER_SPACES + INVISIBLE, ids=repr)
def test_a_spaced_or_invisibly_padded_identifier_is_refused(value: str) -> None:
    with pytest.raises(IdentityError) as info:
        check_identifier(value, "sub")
    assert info.value.code == "identity.bad_identifier"
    with pytest.raises(IdentityError) as info:  # a caller's own code is kept
        check_identifier(value, "sub", code="identity.bad_claims")
    assert info.value.code == "identity.bad_claims"


@pytest.mark.parametrize("value", ACCEPTED, ids=repr)
def test_single_inner_spaces_and_plain_identifiers_are_accepted(value: str) -> None:
    assert check_identifier(value, "sub") == value


@pytest.mark.parametrize("value", [*SPACED, "alice\u1680", "alice\u034f", "alice\ufe0f"], ids=repr)
def test_a_recorded_identifier_is_held_to_the_rules_of_when_it_was_stored(value: str) -> None:
    assert check_identifier(value, "fact id", recorded=True) == value


@pytest.mark.parametrize("value", ["alice\x00", "alice\t ", "ali\u202ece ", "al\u200bice ",
                                   "\uff41lice ", "alice\u00a0", "", "x" * 1025], ids=repr)  # fmt: skip
def test_recorded_never_relaxes_the_older_rules(value: str) -> None:
    with pytest.raises(IdentityError):
        check_identifier(value, "fact id", recorded=True)


# -- every kind of identifier, through the paths that name it ------------------------------------


@pytest.fixture
def tokens(tmp_path: Path) -> LocalTokenService:
    return LocalTokenService(tmp_path / "keys")


@pytest.fixture
def guard(tmp_path: Path, tokens: LocalTokenService) -> Iterator[MemoryGuard]:
    g = MemoryGuard(
        store=InMemoryStore(dimension=8),
        ledger=Ledger.sqlite(tmp_path / "ledger.db"),
        verifier=tokens.verifier(),
        scope=DefaultScopeResolver(namespaces=("*",)),
    )
    yield g
    g.close()


def _fact(text: str, namespace: str = "notes") -> FactInput:
    return FactInput(text=text, namespace=namespace, source=SENDER,
                     turn=Turn(session_id="s", turn_index=0))  # fmt: skip


def _denials(guard: MemoryGuard, action: str) -> list[str]:
    return [e.reason for e in guard.ledger.events(decision="deny") if e.action == action]


@pytest.mark.parametrize("subject", ["alice ", " alice", "al  ice", "alice\u1680"], ids=repr)
def test_a_token_subject_or_actor_with_hidden_spacing_is_refused_and_audited(
    guard: MemoryGuard, tokens: LocalTokenService, subject: str
) -> None:
    for token in (tokens.issue(subject), tokens.issue("alice", actors=[subject])):
        with pytest.raises(IdentityError) as info:
            guard.authenticate(token)
        assert info.value.code == "identity.bad_identifier"
    assert len(guard.ledger.events(decision="deny")) == 2  # each refusal is a deny event
    assert guard.authenticate(tokens.issue("alice")).principal.subject.subject == "alice"


@pytest.mark.parametrize("issuer", ["https://issuer.example ", " https://issuer.example"])
def test_an_issuer_with_hidden_spacing_is_refused(tmp_path: Path, issuer: str) -> None:
    with pytest.raises(IdentityError) as info:
        LocalTokenService(tmp_path / "keys", issuer=issuer)
    assert info.value.code == "identity.bad_identifier"


@pytest.mark.parametrize("namespace", ["notes ", " notes", "my  notes", "notes\u3164"], ids=repr)
def test_a_namespace_with_hidden_spacing_is_refused_and_audited(
    guard: MemoryGuard, tokens: LocalTokenService, namespace: str
) -> None:
    me = guard.authenticate(tokens.issue("alice"))
    with pytest.raises(InvalidRequest, match="namespace has forbidden characters"):
        guard.write(
            me, "x", namespace=namespace, source=SENDER, turn=Turn(session_id="s", turn_index=0)
        )
    with pytest.raises(InvalidRequest):  # one in a batch refuses the batch
        guard.write_many(me, [_fact("ok"), _fact("x", namespace)])
    assert len(_denials(guard, "write")) == 2
    assert guard.ledger.in_state(FactState.COMMITTED) == []
    guard.write(
        me, "fine", namespace="my notes", source=SENDER, turn=Turn(session_id="s", turn_index=0)
    )


@pytest.mark.parametrize("fact_id", ["f-1 ", " f-1", "f  1", "f-1\u1680", "f-1\u034f"], ids=repr)
def test_a_new_fact_id_with_hidden_spacing_is_refused_and_audited(
    guard: MemoryGuard, tokens: LocalTokenService, fact_id: str
) -> None:
    me = guard.authenticate(tokens.issue("alice"))
    with pytest.raises(InvalidRequest, match="fact id has forbidden characters"):
        guard.write_many(me, [_fact("x")], fact_ids=[fact_id])
    assert len(_denials(guard, "write")) == 1
    assert guard.ledger.in_state(FactState.COMMITTED) == []


# -- a ledger written before the rule ------------------------------------------------------------


def test_a_fact_stored_before_the_rule_stays_readable_auditable_updatable_and_deletable(
    guard: MemoryGuard, tokens: LocalTokenService, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = guard.authenticate(tokens.issue("alice"))
    turn = Turn(session_id="s", turn_index=0)
    with monkeypatch.context() as old:  # the rules of before: spacing not checked
        old.setattr(memguard.stamp, "check_identifier",
                    functools.partial(check_identifier, recorded=True))  # fmt: skip
        legacy = guard.write_many(me, [_fact("old fact", "team ")], fact_ids=["old-id "])[0]
        twin = guard.write_many(me, [_fact("its twin", "team")], fact_ids=["old-id"])[0]
    assert (legacy.fact_id, legacy.namespace) == ("old-id ", "team ")
    assert twin.fact_id == "old-id"  # two facts whose ids look alike: why the rule exists

    # read and audited as before, by its exact id; never confused with its look-alike
    assert guard.get(me, "old-id ").text == "old fact"
    assert guard.get(me, "old-id").text == "its twin"
    assert [h.fact_id for h in guard.search(me, "old fact", k=10, namespaces=["team "])] == [
        "old-id "
    ]
    report = guard.audit(me, "old-id ")
    assert (report["fact_id"], report["state"], report["verification"]["verified"]) == (
        "old-id ",
        "committed",
        True,
    )
    # updated in place: a new version of the stored id, in its stored namespace
    updated = guard.update(me, "old-id ", "old fact, revised", source=SENDER, turn=turn)
    assert (updated.fact_id, updated.version, updated.namespace) == ("old-id ", 2, "team ")
    # but nothing new is named so: not another fact in that namespace, nor a new spaced id, even
    # in a batch that also updates the stored fact
    with pytest.raises(InvalidRequest, match="namespace"):
        guard.write(me, "new", namespace="team ", source=SENDER, turn=turn)
    with pytest.raises(InvalidRequest, match="fact id"):
        guard.write_many(me, [_fact("new", "team")], fact_ids=["new-id "])
    with pytest.raises(InvalidRequest, match="namespace"):
        guard.write_many(me, [_fact("v3", "team "), _fact("new", "team ")],
                         fact_ids=["old-id ", "new-id"])  # fmt: skip
    assert guard.get(me, "old-id ").provenance.version == 2  # the refused batch wrote nothing
    # and it can be deleted
    guard.delete(me, "old-id ")
    with pytest.raises(FactNotFound):
        guard.get(me, "old-id ")
    assert guard.get(me, "old-id").text == "its twin"
