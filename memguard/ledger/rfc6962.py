"""RFC 6962 Merkle tree hashes, audit paths and consistency proofs; RFC 9162 proof verification.

Pure functions over bytes, no I/O. The spec's words sit next to the code that enforces them.

Two kinds of functions:

- the *reference* definitions (:func:`mth`, :func:`audit_path`, :func:`subproof_reference`) follow the
  RFC 6962 recursion literally over a list of entries. They are O(n) and are used by tests;
- the *oracle* functions (:func:`tree_root`, :func:`inclusion_proof`, :func:`consistency_proof`) take a
  :data:`SubtreeOracle`, a callable returning the hash of the perfect subtree at ``(level, index)``
  (the subtree over leaves ``[index * 2**level, (index + 1) * 2**level)``; level 0 is a leaf hash).
  They call it O(log n) times, so a tree whose perfect-subtree hashes are stored in SQL serves proofs
  without reading its leaves. :func:`needed_subtrees` lists the calls in advance, so the caller can
  fetch them in one query.

Verification (:func:`verify_inclusion`, :func:`verify_consistency`) raises
:class:`~memguard.errors.IntegrityError` (code ``integrity.bad_proof``) on any failure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from memguard.errors import IntegrityError

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "SubtreeOracle",
    "append_leaves",
    "audit_path",
    "consistency_proof",
    "frontier_keys",
    "inclusion_proof",
    "leaf_hash",
    "mth",
    "needed_subtrees",
    "node_hash",
    "oracle_from_leaf_hashes",
    "root_from_frontier",
    "root_from_inclusion_proof",
    "subproof_reference",
    "tree_root",
    "verify_consistency",
    "verify_inclusion",
]

HASH_SIZE = 32

#: RFC 6962 §2.1: "The hash of an empty list is the hash of an empty string: MTH({}) = SHA-256()."
EMPTY_ROOT = hashlib.sha256(b"").digest()

SubtreeOracle = Callable[[int, int], bytes]
"""``oracle(level, index)``: the hash of the perfect subtree over leaves
``[index << level, (index + 1) << level)``."""

_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"


def _bad_proof(message: str) -> IntegrityError:
    return IntegrityError(message, code="integrity.bad_proof")


def _check_size(value: int, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"`{name}` must be a non-negative int")


def leaf_hash(data: bytes) -> bytes:
    """RFC 6962 §2.1: "The hash of a list with one entry (also known as a leaf hash) is:
    MTH({d(0)}) = SHA-256(0x00 || d(0))."""
    return hashlib.sha256(_LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 §2.1: "MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))"."""
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


def _split(n: int) -> int:
    """RFC 6962 §2.1: "For n > 1, let k be the largest power of two smaller than n (i.e., k < n <= 2k)"."""
    return 1 << ((n - 1).bit_length() - 1)


# -- reference definitions (literal recursion over the entries) ------------------------------------


def mth(entries: Sequence[bytes]) -> bytes:
    """The Merkle Tree Hash of a list of entries (data, not leaf hashes), as RFC 6962 §2.1 defines it."""
    n = len(entries)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaf_hash(entries[0])
    k = _split(n)
    return node_hash(mth(entries[:k]), mth(entries[k:]))


def audit_path(m: int, entries: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 6962 §2.1.1, literally.

    "The path for the single leaf in a tree with a one-element input list D[1] = {d(0)} is empty:
    PATH(0, {d(0)}) = {}. For n > 1, let k be the largest power of two smaller than n. [...]
    PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]) for m < k; and
    PATH(m, D[n]) = PATH(m - k, D[k:n]) : MTH(D[0:k]) for m >= k"
    """
    n = len(entries)
    if not 0 <= m < n:
        raise ValueError("`m` must be a leaf index of the tree")
    if n == 1:
        return []
    k = _split(n)
    if m < k:
        return [*audit_path(m, entries[:k]), mth(entries[k:])]
    return [*audit_path(m - k, entries[k:]), mth(entries[:k])]


def subproof_reference(m: int, entries: Sequence[bytes], b: bool = True) -> list[bytes]:
    """SUBPROOF(m, D[n], b) of RFC 6962 §2.1.2, literally; PROOF(m, D[n]) = SUBPROOF(m, D[n], true).

    "SUBPROOF(m, D[m], true) = {}" and "SUBPROOF(m, D[m], false) = {MTH(D[m])}". For m < n:
    "If m <= k [...] SUBPROOF(m, D[n], b) = SUBPROOF(m, D[0:k], b) : MTH(D[k:n])";
    "If m > k [...] SUBPROOF(m, D[n], b) = SUBPROOF(m - k, D[k:n], false) : MTH(D[0:k])".
    """
    n = len(entries)
    if not 0 < m <= n:
        raise ValueError("`m` must be in 1..n")
    if m == n:
        return [] if b else [mth(entries)]
    k = _split(n)
    if m <= k:
        return [*subproof_reference(m, entries[:k], b), mth(entries[k:])]
    return [*subproof_reference(m - k, entries[k:], False), mth(entries[:k])]


# -- oracle-based (O(log n) subtree look-ups) ------------------------------------------------------


def _range_root(start: int, end: int, oracle: SubtreeOracle) -> bytes:
    """MTH(D[start:end]) for a range that the RFC 6962 recursion produces.

    Such a range starts at a multiple of its own split point, so its left part is a perfect
    subtree and only its right edge recurses: O(log n) oracle calls.
    """
    n = end - start
    if n <= 0:
        raise ValueError("empty range")
    if n & (n - 1) == 0:
        level = n.bit_length() - 1
        if start % n:
            raise ValueError("range is not aligned to a subtree")
        return oracle(level, start >> level)
    k = _split(n)
    return node_hash(_range_root(start, start + k, oracle), _range_root(start + k, end, oracle))


def tree_root(size: int, oracle: SubtreeOracle) -> bytes:
    """MTH(D[size]) from perfect-subtree hashes (at most one look-up per set bit of ``size``)."""
    _check_size(size, "size")
    return EMPTY_ROOT if size == 0 else _range_root(0, size, oracle)


def inclusion_proof(index: int, size: int, oracle: SubtreeOracle) -> list[bytes]:
    """PATH(index, D[size]) (RFC 6962 §2.1.1) from perfect-subtree hashes, deepest sibling first."""
    _check_size(index, "index")
    _check_size(size, "size")
    if index >= size:
        raise ValueError("`index` must be smaller than `size`")
    siblings: list[bytes] = []
    start, n, m = 0, size, index
    while n > 1:
        k = _split(n)
        if m < k:  # PATH(m, D[0:k]) : MTH(D[k:n])
            siblings.append(_range_root(start + k, start + n, oracle))
            n = k
        else:  # PATH(m - k, D[k:n]) : MTH(D[0:k])
            siblings.append(_range_root(start, start + k, oracle))
            start, m, n = start + k, m - k, n - k
    siblings.reverse()
    return siblings


def consistency_proof(old_size: int, new_size: int, oracle: SubtreeOracle) -> list[bytes]:
    """PROOF(old_size, D[new_size]) (RFC 6962 §2.1.2) from perfect-subtree hashes.

    RFC 6962 defines it for 0 < m < n; for m == n and for m == 0 it is the empty list (RFC 9162
    §2.1.4: a tree is consistent with itself, and the empty tree with every tree).
    """
    _check_size(old_size, "old_size")
    _check_size(new_size, "new_size")
    if old_size > new_size:
        raise ValueError("`old_size` must not exceed `new_size`")
    if old_size in (0, new_size):
        return []
    collected: list[bytes] = []
    start, n, m, b = 0, new_size, old_size, True
    while m != n:
        k = _split(n)
        if m <= k:  # SUBPROOF(m, D[0:k], b) : MTH(D[k:n])
            collected.append(_range_root(start + k, start + n, oracle))
            n = k
        else:  # SUBPROOF(m - k, D[k:n], false) : MTH(D[0:k])
            collected.append(_range_root(start, start + k, oracle))
            start, m, n, b = start + k, m - k, n - k, False
    proof = [] if b else [_range_root(start, start + n, oracle)]  # SUBPROOF(m, D[m], false)
    proof.extend(reversed(collected))
    return proof


def needed_subtrees(compute: Callable[[SubtreeOracle], object]) -> list[tuple[int, int]]:
    """The ``(level, index)`` look-ups that ``compute(oracle)`` makes, in order, without values.

    The proof functions only choose subtrees from sizes and indexes, never from hash values, so a
    dry run with placeholder hashes lists exactly the subtrees to fetch.
    """
    keys: list[tuple[int, int]] = []

    def record(level: int, index: int) -> bytes:
        keys.append((level, index))
        return bytes(HASH_SIZE)

    compute(record)
    return list(dict.fromkeys(keys))


def oracle_from_leaf_hashes(leaf_hashes: Sequence[bytes]) -> SubtreeOracle:
    """An in-memory oracle over a list of leaf hashes (builds every level once, O(n))."""
    levels: list[list[bytes]] = [list(leaf_hashes)]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([node_hash(below[i], below[i + 1]) for i in range(0, len(below) - 1, 2)])

    def oracle(level: int, index: int) -> bytes:
        try:
            return levels[level][index]
        except IndexError:
            raise ValueError(f"no perfect subtree at ({level}, {index})") from None

    return oracle


# -- appending: the frontier (compact range) of a growing tree --------------------------------------


def frontier_keys(size: int) -> list[tuple[int, int]]:
    """The perfect subtrees that make up a tree of ``size`` leaves, largest (leftmost) first.

    One per set bit of ``size``; their hashes are all a tree needs to append leaves and to compute
    its root.
    """
    _check_size(size, "size")
    keys: list[tuple[int, int]] = []
    start = 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            keys.append((level, start >> level))
            start += 1 << level
    return keys


def root_from_frontier(frontier: Sequence[bytes]) -> bytes:
    """MTH of a tree from its frontier hashes (largest first): a right fold of node hashes."""
    if not frontier:
        return EMPTY_ROOT
    acc = frontier[-1]
    for left in reversed(frontier[:-1]):
        acc = node_hash(left, acc)
    return acc


def append_leaves(
    size: int, frontier: Sequence[bytes], leaf_hashes: Sequence[bytes]
) -> tuple[list[tuple[int, int, bytes]], list[bytes]]:
    """Append ``leaf_hashes`` to a tree of ``size`` leaves given its frontier.

    Returns the perfect subtrees of level >= 1 that the new leaves complete, as
    ``(level, index, hash)``, and the frontier of the grown tree.
    """
    keys = frontier_keys(size)
    if len(keys) != len(frontier):
        raise ValueError("the frontier does not match the tree size")
    stack = [(level, h) for (level, _), h in zip(keys, frontier, strict=True)]
    nodes: list[tuple[int, int, bytes]] = []
    for offset, h in enumerate(leaf_hashes):
        index, level, cur = size + offset, 0, h
        while stack and stack[-1][0] == level:
            _, left = stack.pop()
            cur = node_hash(left, cur)
            level += 1
            index >>= 1
            nodes.append((level, index, cur))
        stack.append((level, cur))
    return nodes, [h for _, h in stack]


# -- verification (RFC 9162) ------------------------------------------------------------------------


def _check_hash(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise _bad_proof(f"{what} is not a {HASH_SIZE}-byte hash")


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes:
    """The root that ``path`` proves ``leaf`` (a leaf hash) under, per RFC 9162 §2.1.3.2 steps 1-4."""
    _check_size(index, "index")
    _check_size(size, "size")
    _check_hash(leaf, "the leaf hash")
    for p in path:
        _check_hash(p, "an inclusion path entry")
    # "1. Compare leaf_index against tree_size. If leaf_index is greater than or equal to
    # tree_size, then fail the proof verification."
    if index >= size:
        raise _bad_proof("leaf index is outside the tree")
    # "2. Set fn to leaf_index and sn to tree_size - 1."
    fn, sn = index, size - 1
    # "3. Set r to hash."
    r = leaf
    # "4. For each value p in the inclusion_path array:"
    for p in path:
        # "a. If sn is 0, then stop the iteration and fail the proof verification."
        if sn == 0:
            raise _bad_proof("inclusion path is too long")
        # "b. If LSB(fn) is set, or if fn is equal to sn, then:"
        if fn & 1 or fn == sn:
            # "1. Set r to HASH(0x01 || p || r)."
            r = node_hash(p, r)
            # "2. If LSB(fn) is not set, then right-shift both fn and sn equally until either
            # LSB(fn) is set or fn is 0."
            if not fn & 1:
                while not (fn & 1 or fn == 0):
                    fn >>= 1
                    sn >>= 1
        else:
            # "Otherwise: 1. Set r to HASH(0x01 || r || p)."
            r = node_hash(r, p)
        # "c. Finally, right-shift both fn and sn one time."
        fn >>= 1
        sn >>= 1
    # "5. Compare sn to 0. [...] If sn is equal to 0 and r and the root_hash are equal, then the
    # log has proven the inclusion of hash. Otherwise, fail the proof verification."
    if sn != 0:
        raise _bad_proof("inclusion path is too short")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, path: Sequence[bytes], root: bytes
) -> None:
    """RFC 9162 §2.1.3.2: raise :class:`IntegrityError` unless ``path`` proves ``leaf`` at ``index``
    in the tree of ``size`` leaves whose root is ``root``."""
    _check_hash(root, "the root hash")
    if root_from_inclusion_proof(index, size, leaf, path) != root:
        raise _bad_proof("inclusion proof does not lead to the root")


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, path: Sequence[bytes]
) -> None:
    """RFC 9162 §2.1.4.2: raise :class:`IntegrityError` unless ``path`` proves that the tree of
    ``new_size`` leaves (root ``new_root``) extends the tree of ``old_size`` leaves (``old_root``)."""
    _check_size(old_size, "old_size")
    _check_size(new_size, "new_size")
    _check_hash(old_root, "the old root hash")
    _check_hash(new_root, "the new root hash")
    for c in path:
        _check_hash(c, "a consistency path entry")
    if old_size > new_size:
        raise _bad_proof("the old tree is larger than the new tree")
    # The algorithm below is stated for 0 < first < second. The two trivial cases have an empty
    # proof: a tree is consistent with itself (same root), and the empty tree, whose root is
    # MTH({}) (RFC 6962 §2.1), with every tree.
    if old_size == new_size:
        if path:
            raise _bad_proof("a proof between equal sizes must be empty")
        if old_root != new_root:
            raise _bad_proof("equal tree sizes with different roots")
        return
    if old_size == 0:
        if path:
            raise _bad_proof("a proof from the empty tree must be empty")
        if old_root != EMPTY_ROOT:
            raise _bad_proof("the empty tree has a different root")
        return
    # "1. If consistency_path is an empty array, stop and fail the proof verification."
    if not path:
        raise _bad_proof("consistency path is empty")
    proof = list(path)
    # "2. If first is an exact power of 2, then prepend first_hash to the consistency_path array."
    if old_size & (old_size - 1) == 0:
        proof.insert(0, old_root)
    # "3. Set fn to first - 1 and sn to second - 1."
    fn, sn = old_size - 1, new_size - 1
    # "4. If LSB(fn) is set, then right-shift both fn and sn equally until LSB(fn) is not set."
    while fn & 1:
        fn >>= 1
        sn >>= 1
    # "5. Set both fr and sr to the first value in the consistency_path array."
    fr = sr = proof[0]
    # "6. For each subsequent value c in the consistency_path array:"
    for c in proof[1:]:
        # "a. If sn is 0, then stop the iteration and fail the proof verification."
        if sn == 0:
            raise _bad_proof("consistency path is too long")
        # "b. If LSB(fn) is set, or if fn is equal to sn, then:"
        if fn & 1 or fn == sn:
            # "1. Set fr to HASH(0x01 || c || fr)." "2. Set sr to HASH(0x01 || c || sr)."
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            # "3. If LSB(fn) is not set, then right-shift both fn and sn equally until either
            # LSB(fn) is set or fn is 0."
            if not fn & 1:
                while not (fn & 1 or fn == 0):
                    fn >>= 1
                    sn >>= 1
        else:
            # "Otherwise: 1. Set sr to HASH(0x01 || sr || c)."
            sr = node_hash(sr, c)
        # "c. Finally, right-shift both fn and sn one time."
        fn >>= 1
        sn >>= 1
    # "7. [...] verify that the fr calculated is equal to the first_hash supplied, that the sr
    # calculated is equal to the second_hash supplied, and that sn is 0."
    if sn != 0:
        raise _bad_proof("consistency path is too short")
    if fr != old_root:
        raise _bad_proof("consistency proof does not lead to the old root")
    if sr != new_root:
        raise _bad_proof("consistency proof does not lead to the new root")
