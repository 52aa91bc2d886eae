"""Issuer-qualified subjects: RFC 9493 ``sub_id`` through the exchange, and explicit tenancy.

An exchanged token keeps ``iss`` = the token service and ``sub``, and names the subject's own
issuer in ``sub_id``; the verifier maps it back only when the token's issuer is configured to
attest that issuer, ``sub_id.sub`` equals ``sub`` and the format is exactly ``iss_sub``. Several
issuers share one tenant space only through an unambiguous ``tenancy`` section.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest
from helpers import PLANNER, Clock
from identity_helpers import AUDIENCE, ISSUER, LOGIN_A, LOGIN_B, TwoIssuers, two_issuers

from memguard import ConfigurationError, IdentityError
from memguard.tokens import IdentityConfig, IdentityVerifier

NOW = 1_800_000_000


@pytest.fixture
def world(tmp_path: Path) -> TwoIssuers:
    return two_issuers(tmp_path, Clock(NOW))


def sts_token(world: TwoIssuers, sub_id: object, sub: str = "alice", **over: Any) -> str:
    """A token signed by the token service with the given ``sub_id`` (and a planner hop)."""
    claims = {"iss": ISSUER, "sub": sub, "aud": AUDIENCE, "iat": NOW, "exp": NOW + 600,
              "jti": secrets.token_urlsafe(8), "client_id": PLANNER, "scope": "memory:read",
              "act": {"sub": PLANNER, "iss": "spiffe://memguard.local"}, **over}
    if sub_id is not None:
        claims["sub_id"] = sub_id
    return world.sts.access_keys.sign(claims, "at+jwt")


def principal(verifier: IdentityVerifier, world: TwoIssuers, token: str) -> tuple[str, str]:
    identity = verifier.verify_presented(token, world.presenter())
    return identity.principal.subject.issuer, identity.principal.subject.subject


def test_exchanged_tokens_name_the_subjects_issuer(world: TwoIssuers) -> None:
    v = world.verifier()
    for iss in (LOGIN_A, LOGIN_B):
        assert v.verify(world.user_token(iss)).principal.subject.issuer == iss
        assert principal(v, world, world.agent_token(iss)) == (iss, "alice")


def test_a_token_without_sub_id_names_its_own_issuer(world: TwoIssuers) -> None:
    assert principal(world.verifier(), world, sts_token(world, None)) == (ISSUER, "alice")


@pytest.mark.parametrize(
    "sub_id",
    [
        "alice",
        ["iss_sub", LOGIN_A, "alice"],
        {"format": "iss_sub", "iss": LOGIN_A},
        {"format": "iss_sub", "sub": "alice"},
        {"format": "iss_sub", "iss": LOGIN_A, "sub": "alice", "email": "a@example.org"},
        {"format": "email", "email": "alice@login-a.example"},
        {"format": "ISS_SUB", "iss": LOGIN_A, "sub": "alice"},
        {"format": "iss_sub", "iss": LOGIN_A, "sub": "mallory"},  # another sub than the token's
        {"format": "iss_sub", "iss": "https://evil.example", "sub": "alice"},  # not attested
        {"format": "iss_sub", "iss": LOGIN_A + "/", "sub": "alice"},
    ],
    ids=repr,
)
def test_bad_or_unattested_sub_id_is_refused(world: TwoIssuers, sub_id: object) -> None:
    with pytest.raises(IdentityError) as info:
        principal(world.verifier(), world, sts_token(world, sub_id))
    assert info.value.code == "identity.bad_subject_id"


def test_sub_id_with_an_unsafe_issuer_is_refused(world: TwoIssuers) -> None:
    with pytest.raises(IdentityError) as info:
        principal(world.verifier(), world,
                  sts_token(world, {"format": "iss_sub", "iss": "https://login-\uff41.example",
                                    "sub": "alice"}))
    assert info.value.code == "identity.bad_identifier"


def _with(world: TwoIssuers, **over: Any) -> IdentityVerifier:
    data = world.config().model_dump(mode="json", exclude_none=True)
    for key, value in over.items():
        data[key] = value
    return IdentityVerifier(IdentityConfig.from_mapping(data), clock=world.clock)


def test_an_issuer_attests_another_issuers_users_only_when_configured(world: TwoIssuers) -> None:
    """login-a's own token naming login-b's alice: refused, unless login-a is trusted to."""
    claims = {"sub_id": {"format": "iss_sub", "iss": LOGIN_B, "sub": "alice"}}
    token = world.idps[LOGIN_A].access_keys.sign({
        "iss": LOGIN_A, "sub": "alice", "aud": AUDIENCE, "iat": NOW, "exp": NOW + 600,
        "jti": "x", "client_id": "c", **claims}, "at+jwt")
    with pytest.raises(IdentityError) as info:
        world.verifier().verify(token)
    assert info.value.code == "identity.bad_subject_id"
    data = world.config().model_dump(mode="json", exclude_none=True)
    for issuer in data["access_tokens"]["issuers"]:
        if issuer["issuer"] == LOGIN_A:
            issuer["attests"] = [LOGIN_B]
    trusting = IdentityVerifier(IdentityConfig.from_mapping(data), clock=world.clock)
    assert trusting.verify(token).principal.subject.issuer == LOGIN_B


def test_tenancy_maps_aliases_to_one_tenant(world: TwoIssuers) -> None:
    v = _with(world, tenancy=[{"issuer": LOGIN_A, "aliases": [LOGIN_B]}])
    assert v.verify(world.user_token(LOGIN_B)).principal.subject.issuer == LOGIN_A
    assert principal(v, world, world.agent_token(LOGIN_B)) == (LOGIN_A, "alice")
    assert v.verify(world.user_token(LOGIN_A)).principal.subject.issuer == LOGIN_A


@pytest.mark.parametrize(
    ("tenancy", "message"),
    [
        ([{"issuer": LOGIN_A, "aliases": [LOGIN_B]}, {"issuer": ISSUER, "aliases": [LOGIN_B]}],
         "more than once"),
        ([{"issuer": LOGIN_A, "aliases": [LOGIN_B]}, {"issuer": LOGIN_B, "aliases": [ISSUER]}],
         "more than once"),
        ([{"issuer": LOGIN_A, "aliases": [LOGIN_A]}], "more than once"),
        ([{"issuer": LOGIN_A, "aliases": ["https://unknown.example"]}], "not a trusted issuer"),
        ([{"issuer": LOGIN_A, "aliases": []}], "at least 1"),
    ],
)
def test_ambiguous_tenancy_is_refused_at_load(world: TwoIssuers, tenancy: Any, message: str) -> None:
    data = world.config().model_dump(mode="json", exclude_none=True)
    with pytest.raises(ConfigurationError, match=message):
        IdentityConfig.from_mapping({**data, "tenancy": tenancy})


def test_an_issuer_listed_twice_is_refused(world: TwoIssuers) -> None:
    data = world.config().model_dump(mode="json", exclude_none=True)
    data["access_tokens"]["issuers"].append(dict(data["access_tokens"]["issuers"][0]))
    with pytest.raises(ConfigurationError, match="listed twice"):
        IdentityConfig.from_mapping(data)


POLICY = """\
apiVersion: memguard/v1
kind: PolicySet
rules:
  - id: own
    effect: permit
    actions: [search, get]
    when:
      all:
        - {attr: fact.owner_iss, eq: {attr: principal.issuer}}
        - {attr: fact.owner_sub, eq: {attr: principal.subject}}
  - id: write
    effect: permit
    actions: [write]
  - id: no-login-b-agents
    description: agents may act for login-a's users only
    effect: forbid
    actions: [write, search, get]
    when:
      all:
        - {attr: principal.issuer, eq: "https://login-b.example"}
        - {attr: principal.depth, gte: 1}
"""


def test_policies_see_the_subjects_issuer_through_the_exchange(world: TwoIssuers, tmp_path: Path) -> None:
    """``principal.issuer`` in a rule is the user's issuer for her agents too (not the STS)."""
    from memguard import Ledger, MemoryGuard, PolicyResolver, Source, SourceKind, Turn
    from memguard.errors import AccessDenied
    from memguard.stores import InMemoryStore

    guard = MemoryGuard(store=InMemoryStore(384), ledger=Ledger.sqlite(tmp_path / "p.db"),
                        verifier=world.verifier(), scope=PolicyResolver.from_text(POLICY),
                        clock=world.clock)
    try:
        def write(identity: Any) -> str:
            return guard.write(identity, "a note", namespace="notes",
                               source=Source(kind=SourceKind.USER_MESSAGE),
                               turn=Turn(session_id="s", turn_index=0)).fact_id

        a_agent = guard.authenticate(world.agent_token(LOGIN_A), workload_credential=world.presenter())
        b_user = guard.authenticate(world.user_token(LOGIN_B))
        b_agent = guard.authenticate(world.agent_token(LOGIN_B), workload_credential=world.presenter())
        assert guard.get(a_agent, write(a_agent)).text == "a note"
        own = write(b_user)
        assert guard.get(b_user, own).text == "a note"
        with pytest.raises(AccessDenied):
            write(b_agent)
        with pytest.raises(AccessDenied):
            guard.get(b_agent, own)
    finally:
        guard.close()
