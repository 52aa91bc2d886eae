"""Moved to :mod:`memguard.tokens.local`: the embedded token service's verifier is now a
configuration of the one :class:`~memguard.tokens.IdentityVerifier`. This import path stays for
code that imported it (``from memguard import LocalTokenService`` is the usual one)."""

from memguard.tokens.local import LocalTokenService, LocalVerifier

__all__ = ["LocalTokenService", "LocalVerifier"]
