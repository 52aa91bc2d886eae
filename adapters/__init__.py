"""Guarded wrappers of the memory clients agents already use (``memguard.adapters.<store>``).

Each adapter keeps its client's API, routes every call through :class:`memguard.MemoryGuard`, imports
only its own backend, and checks the backend's version with :func:`memguard.compat.require_version`.
"""
