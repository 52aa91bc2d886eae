"""OAuth 2.0 Entity Profiles (draft-mora-oauth-entity-profiles) and the actor profile for delegation
(draft-mcguinness-oauth-actor-profile): ``sub_profile`` says what kind of entity a token's subject,
or one ``act`` entry, is.

``sub_profile`` is a string of space-separated profile values (``user``, ``ai_agent``,
``service``, ``device``, ...). memguard reads it on the token's subject and on every ``act``
entry, keeps it as a tuple of values on the principal (:class:`~memguard.identity.Principal`
``subject_profile``, :class:`~memguard.identity.Actor` ``profile``), and lets policies test it per
hop (``principal.subject_profile``, ``principal.delegator_profile``, ``principal.actor_profile``,
``principal.actor_profiles``). A profile is what the token's issuer asserted: it is only as good as
the issuer, and memguard never infers one (a hop without ``sub_profile`` has none, so a rule that
requires ``user`` does not match it).
"""

from __future__ import annotations

from memguard.errors import IdentityError
from memguard.identity import check_identifier

__all__ = ["HUMAN", "MAX_VALUES", "format_profile", "parse_profile"]

#: the profile value for a human user
HUMAN = "user"
MAX_VALUES = 8


def parse_profile(value: object, what: str = "sub_profile") -> tuple[str, ...]:
    """The values of a ``sub_profile`` claim (absent: none); anything but a string of at most
    :data:`MAX_VALUES` space-separated identifiers is refused."""
    if value is None:
        return ()
    if not isinstance(value, str) or not value or value != value.strip() or "  " in value:
        raise IdentityError(f"`{what}` must be space-separated values", code="identity.bad_claims")
    values = tuple(check_identifier(v, what, code="identity.bad_claims") for v in value.split(" "))
    if len(values) > MAX_VALUES or len(set(values)) != len(values):
        raise IdentityError(f"`{what}` has too many or repeated values", code="identity.bad_claims")
    return values


def format_profile(values: tuple[str, ...]) -> str | None:
    return " ".join(values) if values else None
