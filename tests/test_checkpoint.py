"""Signed checkpoints: c2sp.org/signed-note and tlog-checkpoint vectors (tests/vectors/signed_note.json,
from golang.org/x/mod sumdb/note and the C2SP spec), strict parsing, and the key file on disk."""

from __future__ import annotations

import base64
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from memguard.errors import ConfigurationError, IntegrityError
from memguard.ledger.checkpoint import (
    Checkpoint,
    CheckpointSigner,
    CheckpointVerifier,
    SignedNote,
    note_key_id,
)

V = json.loads((Path(__file__).parent / "vectors" / "signed_note.json").read_text("utf-8"))


def test_sign_vector_is_byte_exact() -> None:
    signer = CheckpointSigner.from_private_key_string(V["signer_key"])
    assert signer.name == "PeterNeumann" and signer.key_id == 0xC74F20A3
    assert signer.verifier_key() == V["verifier_key"]
    assert signer.private_key_string() == V["signer_key"]
    assert signer.sign_note(V["text"]) == V["signed"]


def test_key_id_is_the_recommended_hash() -> None:
    raw = base64.b64decode(V["verifier_key"].split("+", 2)[2])
    assert note_key_id("PeterNeumann", raw[1:]) == 0xC74F20A3


def test_open_vector_with_known_and_unknown_keys() -> None:
    peter = CheckpointVerifier.from_verifier_keys([V["verifier_key"]])
    both = CheckpointVerifier.from_verifier_keys([V["verifier_key"], V["second_verifier_key"]])
    note = V["signed"] + V["second_signature_line"]
    opened = peter.open(note)  # Enoch's signature is from an unknown key: ignored
    assert opened.text == V["text"] and [s.name for s in opened.signatures] == ["PeterNeumann"]
    assert [s.name for s in both.open(note).signatures] == ["PeterNeumann", "EnochRoot"]
    enoch = CheckpointVerifier.from_verifier_keys([V["second_verifier_key"]])
    assert [s.name for s in enoch.open(note).signatures] == ["EnochRoot"]


def test_no_trusted_signature_is_rejected() -> None:
    enoch = CheckpointVerifier.from_verifier_keys([V["second_verifier_key"]])
    with pytest.raises(IntegrityError) as err:
        enoch.open(V["signed"])
    assert err.value.code == "integrity.unknown_key"


def test_a_bad_signature_from_a_known_key_rejects_the_note() -> None:
    peter = CheckpointVerifier.from_verifier_keys([V["verifier_key"]])
    line = V["signed"].rsplit("\n\n", 1)[1]
    bad = V["text"] + "\n" + line[:60] + "ABCD" + line[60:]
    with pytest.raises(IntegrityError) as err:
        peter.open(bad)
    assert err.value.code == "integrity.bad_signature"
    # the text is what is signed: one changed character fails too
    with pytest.raises(IntegrityError) as err:
        peter.open(V["signed"].replace("cryptography", "cryptographY"))
    assert err.value.code == "integrity.bad_signature"


@pytest.mark.parametrize("vkey", V["bad_verifier_keys"] + ["", "a+b", V["verifier_key"][:-2]])
def test_bad_verifier_keys(vkey: str) -> None:
    with pytest.raises(ConfigurationError):
        CheckpointVerifier.from_verifier_keys([vkey])


def test_duplicate_verifier_keys_are_ambiguous() -> None:
    with pytest.raises(ConfigurationError):
        CheckpointVerifier.from_verifier_keys([V["verifier_key"], V["verifier_key"]])


def _malformed() -> list[str]:
    """golang.org/x/mod note_test.go TestOpen's badMsgs, and a few of our own."""
    text, signed = V["text"], V["signed"]
    sig = signed.rsplit("\n\n", 1)[1]
    return [
        text,
        text + "\n",
        text + "\n" + sig[:-1],
        "\x01" + text + "\n" + sig,
        text + "\n" + sig.replace("PeterNeumann", "Bad Name"),
        text + "\n" + sig + "Unexpected line.\n",
        text + "\n" + sig.replace("\u2014", "-"),
        text + "\n" + sig.replace("PeterNeumann", "Peter+Neumann"),
        text + "\n" + sig[:-3] + "!=\n",
        text + "\n" + "\u2014 PeterNeumann AAAA\n",  # fewer than 4+1 bytes
        text + "\n" + sig * 101,
    ]


@pytest.mark.parametrize("note", _malformed())
def test_malformed_notes(note: str) -> None:
    peter = CheckpointVerifier.from_verifier_keys([V["verifier_key"]])
    with pytest.raises(IntegrityError) as err:
        peter.open(note)
    assert err.value.code == "integrity.malformed_note"


def test_note_bytes_must_be_utf8() -> None:
    with pytest.raises(IntegrityError):
        SignedNote.parse(b"\xff" + V["signed"].encode("utf-8"))
    assert SignedNote.parse(V["signed"].encode("utf-8")).format() == V["signed"]


def test_checkpoint_text_vector() -> None:
    cp = Checkpoint.parse(V["checkpoint_text"])
    assert cp.origin == V["checkpoint_origin"]
    assert cp.tree_size == V["checkpoint_tree_size"]
    assert base64.b64encode(cp.root_hash).decode() == V["checkpoint_root_base64"]
    assert cp.text() == V["checkpoint_text"]


@pytest.mark.parametrize(
    "text",
    [
        "example.com/log\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  # leading zero
        "example.com/log\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
        "example.com/log\n 1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
        "example.com/log\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n",  # no padding
        "example.com/log\n1\nCsUYapGGPo4dkMgIAUqom_Xajj7h2fB2MPA3j2jxq2I=\n",  # url alphabet
        "example.com/log\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxqw==\n",  # 31 bytes
        "example.com/log\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=",  # no final newline
        "example.com/log\n1\n",
        "\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
        "example.com/log\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n",  # empty extension
    ],
)
def test_checkpoint_text_is_parsed_strictly(text: str) -> None:
    with pytest.raises(IntegrityError):
        Checkpoint.parse(text)


def test_checkpoint_sign_and_verify_round_trip() -> None:
    signer = CheckpointSigner.generate("example.com/log")
    note = signer.sign(5, bytes(range(32)))
    cp = signer.verifier().verify_checkpoint(note, origin="example.com/log")
    assert (cp.origin, cp.tree_size, cp.root_hash) == ("example.com/log", 5, bytes(range(32)))
    with pytest.raises(IntegrityError):
        signer.verifier().verify_checkpoint(note, origin="example.com/other")
    # a checkpoint whose origin is not its signer's name is refused
    other = CheckpointSigner.generate("example.com/other")
    forged = other.sign_note(Checkpoint("example.com/log", 5, bytes(32)).text())
    with pytest.raises(IntegrityError):
        other.verifier().verify_checkpoint(forged)


@pytest.mark.parametrize("origin", ["", "has space", "a+b", "tab\there"])
def test_invalid_origins(origin: str) -> None:
    with pytest.raises(ConfigurationError):
        CheckpointSigner.generate(origin)


def test_key_file_is_created_0600_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "checkpoint.key"
    signer = CheckpointSigner.load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text().startswith("PRIVATE+KEY+memguard.local/audit-log+")
    again = CheckpointSigner.load_or_create(path)
    assert again.verifier_key() == signer.verifier_key()
    assert [p.name for p in path.parent.iterdir()] == ["checkpoint.key"]  # no temp file left


def test_key_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.key"
    CheckpointSigner.load_or_create(path)
    os.chmod(path, 0o644)
    with pytest.raises(ConfigurationError):
        CheckpointSigner.load(path)


def test_malformed_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"PRIVATE+KEY+name+00000000+AAAA\n")
    os.close(fd)
    with pytest.raises(ConfigurationError):
        CheckpointSigner.load(path)


def test_concurrent_creation_yields_one_key(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "checkpoint.key"
    keys: list[str] = []
    barrier = threading.Barrier(8)

    def create() -> None:
        barrier.wait()
        keys.append(CheckpointSigner.load_or_create(path).verifier_key())

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and len(keys) == 8
