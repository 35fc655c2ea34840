"""One policy reader: ``scorecard.load_policy``, every command and the library calls refuse
exactly the same policy files, whichever sections they use."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import scorecard
from scorecard import api
from scorecard.cli._app import app
from scorecard.contract import PolicyError
from tests.conftest import ROOT

NIGHT = ROOT / "observations" / "2026-11-15-nightly"

#: Policy file text -> whether it is valid (each bad one breaks one rule of one section).
POLICIES = {
    "weights:\n  semantic_outcome: 0.3\n": True,
    "gate:\n  drop:\n    tolerance: 0.1\n": True,
    "auditGate: true\ngate:\n  audit:\n    mode: any\n": True,
    "{}\n": True,
    "gate:\n  bogusRule: 7\n": False,
    "gate:\n  drop:\n    tolerance: 2\n": False,
    "gate:\n  drop: 3\n": False,
    "gate: [1]\n": False,
    "weights:\n  semantic_outcome: -1\n": False,
    "thresholds:\n  nothing: 0.5\n": False,
    "auditGate: maybe\n": False,
    "colour: blue\n": False,
    "- 1\n- 2\n": False,
}


def cli_refuses(*args: str | Path) -> bool:
    result = CliRunner().invoke(app, [str(arg) for arg in args], input="")
    assert result.exit_code in (0, 1, 2), result.output
    return result.exit_code == 2 and "policy" in result.stderr


@pytest.mark.parametrize(("text", "valid"), list(POLICIES.items()))
def test_every_entry_point_refuses_the_same_policy_files(
    tmp_path: Path, text: str, valid: bool
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(text, encoding="utf-8")
    try:
        scorecard.load_policy(policy)
        loaded = True
    except PolicyError:
        loaded = False
    observations = NIGHT / "observations.jsonl"
    refusals = {
        "load_policy": not loaded,
        "score": cli_refuses("score", observations, "--policy", policy, "--workers", "1"),
        "explain": cli_refuses("explain", observations, "--policy", policy, "--workers", "1"),
        "gate": cli_refuses("gate", NIGHT, "--policy", policy, "--workers", "1"),
        "compare": cli_refuses("compare", NIGHT, "--policy", policy, "--workers", "1"),
    }
    assert refusals == dict.fromkeys(refusals, not valid)


def test_score_on_a_cluster_refuses_a_bad_policy_before_connecting(tmp_path: Path) -> None:
    """`score-dask` reads the policy through the same reader, before any cluster is reached."""
    policy = tmp_path / "policy.yaml"
    policy.write_text("gate:\n  bogusRule: 7\n", encoding="utf-8")
    with pytest.raises(PolicyError) as raised:
        api.score_on_cluster(
            [NIGHT], scheduler="tcp://127.0.0.1:9", out=tmp_path / "out.parquet", policy=policy
        )
    assert (raised.value.pointer, raised.value.rule) == (
        "/gate/bogusRule",
        "gate_policy_unknown_key",
    )
