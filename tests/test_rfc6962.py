"""RFC 6962 hashing and proofs: published vectors (tests/vectors/rfc6962.json, from
transparency-dev/merkle) and properties over random trees."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memguard.errors import IntegrityError
from memguard.ledger import rfc6962 as r

VECTORS = json.loads((Path(__file__).parent / "vectors" / "rfc6962.json").read_text("utf-8"))
LEAVES = [bytes.fromhex(h) for h in VECTORS["leaves"]]
ROOTS = [bytes.fromhex(h) for h in VECTORS["roots"]]
LEAF_HASHES = [r.leaf_hash(d) for d in LEAVES]
ORACLE = r.oracle_from_leaf_hashes(LEAF_HASHES)
SOME_HASH = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")


def _h(values: list[str]) -> list[bytes]:
    return [bytes.fromhex(v) for v in values]


def _fails(check: Callable[[], None]) -> bool:
    try:
        check()
    except IntegrityError as exc:
        assert exc.code == "integrity.bad_proof"
        return True
    return False


# -- vectors ---------------------------------------------------------------------------------------


def test_hasher_vectors() -> None:
    v = VECTORS["hasher"]
    assert r.EMPTY_ROOT.hex() == v["empty_root"] == r.mth([]).hex()
    assert r.leaf_hash(b"").hex() == v["empty_leaf_hash"]
    assert r.leaf_hash(bytes.fromhex(v["leaf_data"])).hex() == v["leaf_hash"]
    node = r.node_hash(bytes.fromhex(v["node_left"]), bytes.fromhex(v["node_right"]))
    assert node.hex() == v["node_hash"]


def test_hasher_domain_separation() -> None:
    a, b = r.leaf_hash(b"Hello"), r.leaf_hash(b"World")
    assert a != b
    assert r.node_hash(a, b) != r.leaf_hash(a + b)  # second-preimage resistance of the prefixes
    assert r.node_hash(a, b) != r.node_hash(b, a)


@pytest.mark.parametrize("size", range(1, 9))
def test_roots(size: int) -> None:
    assert r.mth(LEAVES[:size]) == ROOTS[size - 1]
    assert r.tree_root(size, ORACLE) == ROOTS[size - 1]
    _, frontier = r.append_leaves(0, [], LEAF_HASHES[:size])
    assert r.root_from_frontier(frontier) == ROOTS[size - 1]


def test_append_in_steps_matches_the_vectors() -> None:
    frontier: list[bytes] = []
    stored: dict[tuple[int, int], bytes] = {(0, i): h for i, h in enumerate(LEAF_HASHES)}
    for size, step in ((0, 3), (3, 1), (4, 4)):
        nodes, frontier = r.append_leaves(size, frontier, LEAF_HASHES[size : size + step])
        stored.update({(lv, ix): h for lv, ix, h in nodes})
        assert r.root_from_frontier(frontier) == ROOTS[size + step - 1]
    assert len(stored) == 8 + 7  # every perfect subtree of 8 leaves, exactly once
    assert stored[(3, 0)] == ROOTS[7]


@pytest.mark.parametrize("vector", VECTORS["inclusion_proofs"], ids=lambda v: f"{v['leaf']}-{v['size']}")
def test_inclusion_vectors(vector: dict[str, object]) -> None:
    index, size = int(vector["leaf"]) - 1, int(vector["size"])  # type: ignore[call-overload]
    proof = _h(vector["proof"])  # type: ignore[arg-type]
    root, leaf = ROOTS[size - 1], LEAF_HASHES[index]
    assert r.inclusion_proof(index, size, ORACLE) == proof
    assert r.audit_path(index, LEAVES[:size]) == proof
    assert r.root_from_inclusion_proof(index, size, leaf, proof) == root
    r.verify_inclusion(index, size, leaf, proof, root)
    # the corruptions of transparency-dev/merkle's corruptInclusionProof: none may verify
    probes: list[tuple[str, int, int, bytes, list[bytes], bytes]] = [
        ("index - 1", index - 1, size, leaf, proof, root),
        ("index + 1", index + 1, size, leaf, proof, root),
        ("index ^ 2", index ^ 2, size, leaf, proof, root),
        ("size * 2", index, size * 2, leaf, proof, root),
        ("size // 2", index, size // 2, leaf, proof, root),
        ("wrong leaf", index, size, hashlib.sha256(b"WrongLeaf").digest(), proof, root),
        ("empty root", index, size, leaf, proof, r.EMPTY_ROOT),
        ("random root", index, size, leaf, proof, SOME_HASH),
        ("trailing garbage", index, size, leaf, [*proof, b""], root),
        ("trailing root", index, size, leaf, [*proof, root], root),
        ("preceding garbage", index, size, leaf, [b"", *proof], root),
        ("preceding root", index, size, leaf, [root, *proof], root),
    ]
    for i in range(len(proof)):
        flipped = [bytearray(p) for p in proof]
        flipped[i][0] ^= 8
        probes.append((f"proof[{i}] bit 3", index, size, leaf, [bytes(p) for p in flipped], root))
    if proof:
        probes.append(("removed component", index, size, leaf, proof[:-1], root))
    if len(proof) > 1:
        probes.append(("inserted component", index, size, leaf, [proof[0], SOME_HASH, *proof[1:]], root))
    wrong = []
    for desc, i, s, lf, p, rt in probes:
        if i < 0 or s < 0:
            continue
        if not _fails(lambda i=i, s=s, lf=lf, p=p, rt=rt: r.verify_inclusion(i, s, lf, p, rt)):
            wrong.append(desc)
    assert wrong == []


def test_inclusion_degenerate_probes() -> None:
    for index, size in ((0, 0), (0, 1), (1, 0), (2, 1)):
        assert _fails(lambda i=index, s=size: r.verify_inclusion(i, s, SOME_HASH, [], r.EMPTY_ROOT))
    single = r.leaf_hash(b"data")
    r.verify_inclusion(0, 1, single, [], single)  # a one-leaf tree: root = leaf hash, empty path
    assert _fails(lambda: r.verify_inclusion(0, 1, single, [], b""))
    assert _fails(lambda: r.verify_inclusion(0, 1, b"", [], single))


@pytest.mark.parametrize(
    "vector", VECTORS["consistency_proofs"], ids=lambda v: f"{v['size1']}-{v['size2']}"
)
def test_consistency_vectors(vector: dict[str, object]) -> None:
    m, n = int(vector["size1"]), int(vector["size2"])  # type: ignore[call-overload]
    proof = _h(vector["proof"])  # type: ignore[arg-type]
    root1, root2 = ROOTS[m - 1], ROOTS[n - 1]
    assert r.consistency_proof(m, n, ORACLE) == proof
    assert (r.subproof_reference(m, LEAVES[:n]) if m < n else []) == proof
    r.verify_consistency(m, n, root1, root2, proof)
    if not proof:
        return
    # transparency-dev/merkle's corruptConsistencyProof
    probes: list[tuple[str, int, int, bytes, bytes, list[bytes]]] = [
        ("size1 - 1", m - 1, n, root1, root2, proof),
        ("size1 + 1", m + 1, n, root1, root2, proof),
        ("size1 ^ 2", m ^ 2, n, root1, root2, proof),
        ("size2 * 2", m, n * 2, root1, root2, proof),
        ("size2 // 2", m, n // 2, root1, root2, proof),
        ("wrong root1", m, n, SOME_HASH, root2, proof),
        ("wrong root2", m, n, root1, SOME_HASH, proof),
        ("swapped roots", m, n, root2, root1, proof),
        ("empty proof", m, n, root1, root2, []),
        ("trailing garbage", m, n, root1, root2, [*proof, b""]),
        ("trailing root1", m, n, root1, root2, [*proof, root1]),
        ("trailing root2", m, n, root1, root2, [*proof, root2]),
        ("preceding garbage", m, n, root1, root2, [b"", *proof]),
        ("preceding root1", m, n, root1, root2, [root1, *proof]),
        ("preceding root2", m, n, root1, root2, [root2, *proof]),
        ("preceding proof[0]", m, n, root1, root2, [proof[0], *proof]),
        ("truncated proof", m, n, root1, root2, proof[:-1]),
    ]
    for i in range(len(proof)):
        flipped = [bytearray(p) for p in proof]
        flipped[i][0] ^= 16
        probes.append((f"proof[{i}] bit 4", m, n, root1, root2, [bytes(p) for p in flipped]))
    wrong = [
        desc
        for desc, a, b, ra, rb, p in probes
        if not _fails(lambda a=a, b=b, ra=ra, rb=rb, p=p: r.verify_consistency(a, b, ra, rb, p))
    ]
    assert wrong == []


def test_consistency_trivial_cases() -> None:
    """transparency-dev/merkle's TestVerifyConsistency table, with 32-byte placeholder roots.

    One deliberate difference: from size 0, the old root must be MTH({}) (the RFC 6962 empty
    root); transparency-dev ignores it. A size-0 tree head with any other root is bogus.
    """
    root1, root2 = hashlib.sha256(b"don't care 1").digest(), hashlib.sha256(b"don't care 2").digest()
    empty = r.EMPTY_ROOT
    cases = [
        (0, 0, root1, root2, [], True),
        (1, 1, root1, root2, [], True),
        (0, 0, empty, empty, [], False),
        (0, 1, empty, root2, [], False),
        (1, 1, root2, root2, [], False),
        (0, 1, root1, root2, [], True),  # transparency-dev accepts this; see the docstring
        (1, 0, root1, root2, [], True),
        (2, 1, root1, root2, [], True),
        (1, 2, root1, root2, [], True),
        (0, 0, empty, root2, [], True),
        (1, 1, empty, root2, [], True),
        (0, 0, empty, empty, [empty], True),
        (0, 1, empty, empty, [empty], True),
        (1, 1, empty, empty, [empty], True),
    ]
    for m, n, a, b, proof, want_error in cases:
        assert _fails(lambda m=m, n=n, a=a, b=b, p=proof: r.verify_consistency(m, n, a, b, p)) is want_error, (m, n)


def test_proof_functions_reject_bad_arguments() -> None:
    with pytest.raises(ValueError):
        r.inclusion_proof(8, 8, ORACLE)
    with pytest.raises(ValueError):
        r.consistency_proof(5, 4, ORACLE)
    with pytest.raises(ValueError):
        r.append_leaves(3, [LEAF_HASHES[0]], [LEAF_HASHES[1]])  # size 3 has a 2-subtree frontier
    with pytest.raises(ValueError):
        r.tree_root(-1, ORACLE)


# -- properties ------------------------------------------------------------------------------------

entries_st = st.lists(st.binary(max_size=12), min_size=1, max_size=70)


@settings(max_examples=150, deadline=None)
@given(entries=entries_st, data=st.data())
def test_oracle_proofs_equal_the_rfc_recursion_and_verify(
    entries: list[bytes], data: st.DataObject
) -> None:
    n = len(entries)
    hashes = [r.leaf_hash(e) for e in entries]
    oracle = r.oracle_from_leaf_hashes(hashes)
    root = r.mth(entries)
    assert r.tree_root(n, oracle) == root
    for m in range(n):
        path = r.inclusion_proof(m, n, oracle)
        assert path == r.audit_path(m, entries)
        r.verify_inclusion(m, n, hashes[m], path, root)
    for m in range(0, n + 1):
        proof = r.consistency_proof(m, n, oracle)
        assert proof == (r.subproof_reference(m, entries) if 0 < m < n else [])
        r.verify_consistency(m, n, r.mth(entries[:m]), root, proof)
    # appending in random steps produces the same tree
    size, frontier, nodes = 0, [], {}
    while size < n:
        step = data.draw(st.integers(1, n - size))
        new, frontier = r.append_leaves(size, frontier, hashes[size : size + step])
        nodes.update({(lv, ix): h for lv, ix, h in new})
        size += step
        assert r.root_from_frontier(frontier) == r.mth(entries[:size])
    for (level, index), h in nodes.items():
        assert h == oracle(level, index)
    assert len(nodes) == sum(n >> lv for lv in range(1, n.bit_length()))


def _flip(value: bytes, bit: int) -> bytes:
    out = bytearray(value)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(st.binary(max_size=8), min_size=2, max_size=64), data=st.data())
def test_any_single_bit_flip_fails_inclusion(entries: list[bytes], data: st.DataObject) -> None:
    n = len(entries)
    hashes = [r.leaf_hash(e) for e in entries]
    oracle = r.oracle_from_leaf_hashes(hashes)
    m = data.draw(st.integers(0, n - 1))
    path, root, leaf = r.inclusion_proof(m, n, oracle), r.mth(entries), hashes[m]
    r.verify_inclusion(m, n, leaf, path, root)
    bit = data.draw(st.integers(0, 255))
    target = data.draw(st.sampled_from(["leaf", "root", *(["path"] if path else [])]))
    if target == "leaf":
        leaf = _flip(leaf, bit)
    elif target == "root":
        root = _flip(root, bit)
    else:
        k = data.draw(st.integers(0, len(path) - 1))
        path = [*path[:k], _flip(path[k], bit), *path[k + 1 :]]
    with pytest.raises(IntegrityError):
        r.verify_inclusion(m, n, leaf, path, root)


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(st.binary(max_size=8), min_size=2, max_size=64), data=st.data())
def test_any_single_bit_flip_fails_consistency(entries: list[bytes], data: st.DataObject) -> None:
    n = len(entries)
    oracle = r.oracle_from_leaf_hashes([r.leaf_hash(e) for e in entries])
    m = data.draw(st.integers(1, n - 1))
    proof, old, new = r.consistency_proof(m, n, oracle), r.mth(entries[:m]), r.mth(entries)
    r.verify_consistency(m, n, old, new, proof)
    bit = data.draw(st.integers(0, 255))
    target = data.draw(st.sampled_from(["old", "new", "proof"]))
    if target == "old":
        old = _flip(old, bit)
    elif target == "new":
        new = _flip(new, bit)
    else:
        k = data.draw(st.integers(0, len(proof) - 1))
        proof = [*proof[:k], _flip(proof[k], bit), *proof[k + 1 :]]
    with pytest.raises(IntegrityError):
        r.verify_consistency(m, n, old, new, proof)


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 1 << 48), data=st.data())
def test_proofs_need_logarithmically_many_subtrees(size: int, data: st.DataObject) -> None:
    """What lets the SQL tree serve a proof in two queries: O(log n) look-ups, all aligned."""
    index = data.draw(st.integers(0, size - 1))
    old = data.draw(st.integers(0, size))
    bound = 2 * size.bit_length() + 2
    inclusion = r.needed_subtrees(lambda o: r.inclusion_proof(index, size, o))
    consistency = r.needed_subtrees(lambda o: r.consistency_proof(old, size, o))
    root = r.needed_subtrees(lambda o: r.tree_root(size, o))
    assert len(inclusion) <= bound and len(consistency) <= bound
    assert root == r.frontier_keys(size)
    for level, i in [*inclusion, *consistency, *root]:
        assert (i + 1) << level <= size  # a perfect subtree inside the tree
