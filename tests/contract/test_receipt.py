"""Receipts as data (docs/receipts.md): the payload and policy digests, the order in which
differences are named, the engine as information, and located errors for a bad receipt."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import pytest

from scorecard.contract import (
    InputError,
    Receipt,
    ReceiptInput,
    engine_note,
    first_difference,
    payload_digest,
    policy_digest_of,
    read_receipt,
    receipt_line,
)

A, B, C = "a" * 64, "b" * 64, "c" * 64


def receipt(**changes: Any) -> Receipt:
    base = Receipt(
        command="gate",
        sources={"current": "night", "baselines": []},
        inputs=(ReceiptInput("current", "night-1", A, ("bundle.json", "runs.jsonl")),),
        catalog=B,
        policy=C,
        seed=0,
        version="1.0",
        engine="c",
        payload=A,
    )
    return dataclasses.replace(base, **changes)


def test_the_payload_digest_is_of_the_canonical_document_without_its_receipt() -> None:
    expected = hashlib.sha256(b'{"a":[1,0.5],"b":"x"}').hexdigest()
    assert (
        payload_digest({"b": "x", "a": [1.0, 0.5], "receipt": {"payload": "anything"}}) == expected
    )


def test_the_policy_digest_is_of_the_canonical_policy() -> None:
    expected = hashlib.sha256(b'{"gate":null,"scoring":{"auditGate":false}}').hexdigest()
    assert policy_digest_of({"auditGate": False}, None) == expected


def test_the_first_difference_is_named_in_order() -> None:
    """Inputs before catalog before policy before seed before version before payload."""
    changed_input = (ReceiptInput("current", "night-1", B, ("bundle.json", "runs.jsonl")),)
    everything = receipt(
        inputs=changed_input, catalog=C, policy=A, seed=1, version="2.0", payload=B
    )
    order = []
    found = everything
    fixes: tuple[tuple[str, Any], ...] = (
        ("inputs", receipt().inputs),
        ("catalog", B),
        ("policy", C),
        ("seed", 0),
        ("version", "1.0"),
        ("payload", A),
    )
    for field, value in fixes:
        difference = first_difference(receipt(), found)
        assert difference is not None
        order.append(difference.cause)
        found = dataclasses.replace(found, **{field: value})
    assert order == ["input", "catalog", "policy", "seed", "version", "payload"]
    assert first_difference(receipt(), found) is None


def test_a_changed_input_is_named_with_its_bundle_and_pointer() -> None:
    changed = receipt(
        inputs=(ReceiptInput("current", "night-1", B, ("bundle.json", "runs.jsonl")),)
    )
    difference = first_difference(receipt(), changed)
    assert difference is not None
    assert difference.pointer == "/receipt/inputs/0/sha256"
    assert difference.message.startswith("current bundle night-1: its bytes changed (sha256 aaaa")
    gone = receipt(inputs=(ReceiptInput("current", "night-1", A, ("bundle.json",)),))
    named = first_difference(receipt(), gone)
    assert named is not None
    assert named.message == "current bundle night-1: file runs.jsonl is gone"


def test_the_engine_is_information_not_a_difference() -> None:
    other = receipt(engine="python")
    assert first_difference(receipt(), other) is None
    assert engine_note(receipt(), other) == (
        "written with the c engine, recomputed with the python engine (the engine is no "
        "identity: both give the same bytes)"
    )
    assert engine_note(receipt(), receipt()) is None


def test_a_receipt_reads_back_as_written() -> None:
    written = receipt()
    assert read_receipt({"verdict": "pass", "receipt": written.to_json()}).to_json() == (
        written.to_json()
    )


@pytest.mark.parametrize(
    ("edit", "rule", "pointer"),
    [
        (lambda document: document.pop("receipt"), "no_receipt", "/receipt"),
        (lambda document: document["receipt"].update(schema="x"), "bad_receipt", "/receipt/schema"),
        (
            lambda document: document["receipt"]["inputs"][0].update(sha256="ABC"),
            "bad_receipt",
            "/receipt/inputs/0/sha256",
        ),
        (lambda document: document["receipt"].update(seed="0"), "bad_receipt", "/receipt/seed"),
        (
            lambda document: document["receipt"].pop("scorecard"),
            "bad_receipt",
            "/receipt/scorecard",
        ),
    ],
)
def test_a_bad_receipt_is_located(edit: Any, rule: str, pointer: str) -> None:
    document: dict[str, Any] = {"receipt": receipt().to_json()}
    edit(document)
    with pytest.raises(InputError) as raised:
        read_receipt(document, source="gate.json")
    assert (raised.value.rule, raised.value.pointer, raised.value.source) == (
        rule,
        pointer,
        "gate.json",
    )


def test_the_line_shows_the_payload_whole_and_the_rest_shortened() -> None:
    line = receipt_line(receipt())
    assert line.startswith(f"Receipt: payload sha256 {A} · inputs ")
    assert f" · catalog {B[:12]} · policy {C[:12]} · seed 0 · scorecard 1.0 " in line
    assert "\n" not in line
