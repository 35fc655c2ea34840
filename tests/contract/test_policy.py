"""Scoring policies: overrides validated and overlaid on the reference defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorecard.contract._errors import PolicyError
from scorecard.contract._policy import Policy, PolicyErrors, parse_policy_file
from scorecard.engine._io import load_policy
from scorecard.gate._rules import gate_policy


def test_defaults_are_the_reference_weights_and_thresholds() -> None:
    """Without overrides the policy is the reference's."""
    policy = Policy()
    assert dict(policy.weights) == {
        "hard_invariants": 0.0,
        "lifecycle_integrity": 0.0,
        "semantic_outcome": 0.2,
        "trajectory_restraint": 0.15,
        "trace_completeness": 0.1,
        "quality_efficiency": 0.1,
        "continuation_integrity": 0.2,
        "presentation_fidelity": 0.25,
    }
    assert set(policy.thresholds.values()) == {1.0}


def test_overrides_are_overlaid() -> None:
    """Overrides replace only the dimensions they name."""
    policy = Policy.from_overrides({"semantic_outcome": 2}, {"trace_completeness": 0.5})
    assert policy.weights["semantic_outcome"] == 2
    assert policy.weights["presentation_fidelity"] == 0.25
    assert policy.thresholds["trace_completeness"] == 0.5


@pytest.mark.parametrize(
    ("weights", "thresholds", "rule", "pointer"),
    [
        (
            {"semantic_outcome_x": 1},
            None,
            "policy_unknown_dimension",
            "/weights/semantic_outcome_x",
        ),
        ({"semantic_outcome": -0.1}, None, "policy_negative_weight", "/weights/semantic_outcome"),
        ({"hard_invariants": 1}, None, "policy_gate_weight", "/weights/hard_invariants"),
        ({"semantic_outcome": "1"}, None, "policy_type", "/weights/semantic_outcome"),
        ({"semantic_outcome": True}, None, "policy_type", "/weights/semantic_outcome"),
        ({"semantic_outcome": float("nan")}, None, "policy_type", "/weights/semantic_outcome"),
        (
            None,
            {"quality_efficiency": 1.5},
            "policy_threshold_range",
            "/thresholds/quality_efficiency",
        ),
        (
            None,
            {"quality_efficiency": -0.01},
            "policy_threshold_range",
            "/thresholds/quality_efficiency",
        ),
        (
            dict.fromkeys(
                [
                    "semantic_outcome",
                    "trajectory_restraint",
                    "trace_completeness",
                    "quality_efficiency",
                    "continuation_integrity",
                    "presentation_fidelity",
                ],
                0,
            ),
            None,
            "policy_zero_weights",
            "/weights",
        ),
    ],
)
def test_invalid_overrides_are_clear_errors(
    weights: dict[str, object] | None, thresholds: dict[str, object] | None, rule: str, pointer: str
) -> None:
    """Unknown dimensions, bad weights and thresholds each raise a located PolicyError."""
    with pytest.raises(PolicyError) as raised:
        Policy.from_overrides(weights, thresholds)
    assert (raised.value.rule, raised.value.pointer) == (rule, pointer)


def test_a_yaml_policy_file_is_read(tmp_path: Path) -> None:
    """A YAML policy file overlays its weights and thresholds."""
    path = tmp_path / "policy.yaml"
    path.write_text(
        "weights:\n  presentation_fidelity: 0.5\nthresholds:\n  quality_efficiency: 0.75\n"
    )
    policy = load_policy(path)
    assert policy.weights["presentation_fidelity"] == 0.5
    assert policy.thresholds["quality_efficiency"] == 0.75


def test_a_policy_file_error_names_file_line_and_field(tmp_path: Path) -> None:
    """A bad value in a policy file is reported with its line."""
    path = tmp_path / "policy.yaml"
    path.write_text("weights:\n  semantic_outcome: 0.2\n  presentation_fidelity: -1\n")
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    error = raised.value
    assert (error.source, error.line, error.pointer) == (
        str(path),
        3,
        "/weights/presentation_fidelity",
    )


def test_an_unknown_top_level_key_is_rejected(tmp_path: Path) -> None:
    """A policy file is closed: a misspelt section is an error, not ignored."""
    path = tmp_path / "policy.json"
    path.write_text('{"weigths": {"semantic_outcome": 1}}')
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    assert (raised.value.rule, raised.value.pointer) == ("policy_unknown_key", "/weigths")


def _alias_bomb(levels: int) -> str:
    """A "billion laughs" document: each level lists the previous one nine times."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [1, 6])
def test_a_policy_with_aliases_is_refused_before_it_expands(tmp_path: Path, levels: int) -> None:
    """Aliases are a located error, found without expanding them (6 levels would be 9**7 strings)."""
    path = tmp_path / "policy.yaml"
    path.write_text(_alias_bomb(levels))
    with pytest.raises(PolicyError) as caught:
        load_policy(path)
    assert caught.value.rule == "yaml_alias"
    assert caught.value.pointer == "/l1/0"


SCORING_PROBLEMS = [
    ("weights:\n  semantic_outcome: -1\n", "/weights/semantic_outcome", 2),
    ("thresholds:\n  trace_completeness: 2\n", "/thresholds/trace_completeness", 2),
    ("weights: 3\n", "/weights", 1),
    ("auditGate: yes please\n", "/auditGate", 1),
    ("weights:\n  no_such_dimension: 1\n", "/weights/no_such_dimension", 2),
]


@pytest.mark.parametrize(("text", "pointer", "line"), SCORING_PROBLEMS)
def test_a_scoring_section_is_refused_alike_by_score_and_gate(
    tmp_path: Path, text: str, pointer: str, line: int
) -> None:
    """``--policy`` files and gate policy files share one parser: the same error for both."""
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PolicyError) as scored:
        load_policy(path)
    with pytest.raises(PolicyError) as gated:
        gate_policy(text, source=str(path))
    assert (scored.value.pointer, scored.value.line, scored.value.source) == (
        pointer,
        line,
        str(path),
    )
    assert str(gated.value) == str(scored.value)
    assert gated.value.rule == scored.value.rule


def test_one_file_holds_every_section(tmp_path: Path) -> None:
    """One policy file serves every command: a ``gate`` section is known to all of them
    (score's --policy reads the scoring keys, the gate its section); other keys are refused."""
    path = tmp_path / "p.yaml"
    path.write_text("gate:\n  failOnInconclusive: true\nweights: {}\n", encoding="utf-8")
    assert load_policy(path) == Policy()
    parsed = parse_policy_file(path.read_text(encoding="utf-8"), source="p.yaml")
    assert parsed.policy == Policy()
    assert parsed.gate == {"fail_on_inconclusive": True}  # checked, by GateRules field
    assert parse_policy_file("gate: {}\n", source="p.yaml").policy is None
    path.write_text("weights: {}\ngates: {}\n", encoding="utf-8")
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    assert (raised.value.pointer, raised.value.line, raised.value.rule) == (
        "/gates",
        2,
        "policy_unknown_key",
    )
    assert raised.value.message == (
        "unknown policy key; did you mean gate? (expected weights, thresholds, auditGate and/or "
        "gate)"
    )
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    assert load_policy(tmp_path / "empty.json") == Policy()


def test_every_problem_of_a_policy_file_is_raised_at_once_in_file_order(tmp_path: Path) -> None:
    """A policy file with several problems names each, located, with "did you mean" for
    unknown keys, dimensions and gate settings: one run shows everything to fix."""
    path = tmp_path / "policy.yaml"
    path.write_text(
        "weigths:\n  x: 1\n"
        "weights:\n  semantic_outcom: 0.3\n  presentation_fidelity: -1\n"
        "thresholds:\n  trace_completeness: 2\n"
        "auditGate: maybe\n"
        "gate:\n  drop:\n    tolerence: 0.1\n  failOnInconclusiv: true\n",
        encoding="utf-8",
    )
    with pytest.raises(PolicyErrors) as raised:
        load_policy(path)
    assert isinstance(raised.value, PolicyError)
    assert [(e.line, e.pointer, e.rule, e.message) for e in raised.value.errors] == [
        (
            2,
            "/weigths",
            "policy_unknown_key",
            "unknown policy key; did you mean weights? (expected weights, thresholds, auditGate "
            "and/or gate)",
        ),
        (
            4,
            "/weights/semantic_outcom",
            "policy_unknown_dimension",
            "unknown dimension 'semantic_outcom'; did you mean semantic_outcome?",
        ),
        (5, "/weights/presentation_fidelity", "policy_negative_weight", "weights must be >= 0"),
        (
            7,
            "/thresholds/trace_completeness",
            "policy_threshold_range",
            "thresholds must lie in [0, 1]",
        ),
        (8, "/auditGate", "policy_type", "auditGate must be true or false"),
        (
            11,
            "/gate/drop/tolerence",
            "gate_policy_unknown_key",
            "unknown gate setting; did you mean drop/tolerance?",
        ),
        (
            12,
            "/gate/failOnInconclusiv",
            "gate_policy_unknown_key",
            "unknown gate setting; did you mean failOnInconclusive?",
        ),
    ]
    assert {error.source for error in raised.value.errors} == {str(path)}


def test_overrides_from_python_report_every_problem_too() -> None:
    """``Policy.from_overrides`` checks every entry before it raises."""
    with pytest.raises(PolicyErrors) as raised:
        Policy.from_overrides({"hard_invariants": 1, "semantic_outcome": "x"}, {"nope": 1})
    assert [(e.pointer, e.rule) for e in raised.value.errors] == [
        ("/weights/hard_invariants", "policy_gate_weight"),
        ("/weights/semantic_outcome", "policy_type"),
        ("/thresholds/nope", "policy_unknown_dimension"),
    ]
