"""Public functions check their arguments where they enter: a wrong type is a ``TypeError`` (a
wrong value a ``ValueError``) naming the function and the parameter, raised within a few frames
of the call; a path is ``str`` or ``Path`` alike wherever one is taken."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import scorecard
from scorecard import api
from scorecard.aggregate import ComparisonSettings, analyze_campaign, records_frame
from tests.conftest import ROOT

OBSERVATIONS = ROOT / "observations" / "2026-11-22-nightly"
CASES = ROOT / "cases"


def _catalog() -> Any:
    return scorecard.load_catalog(CASES)


WRONG: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    (
        "a-single-path",
        lambda: scorecard.score_paths(OBSERVATIONS, catalog=_catalog()),  # type: ignore[arg-type]
        TypeError,
        "score_paths(): paths must be a list of paths, not PosixPath (a single path: give [path])",
    ),
    (
        "none-as-paths",
        lambda: scorecard.score_paths(None, catalog=_catalog()),  # type: ignore[arg-type]
        TypeError,
        "score_paths(): paths must be a list of paths, not None",
    ),
    (
        "a-number-among-paths",
        lambda: scorecard.score_paths(["a.jsonl", 3], catalog=_catalog()),  # type: ignore[list-item]
        TypeError,
        "score_paths(): paths[1] must be a path (str or pathlib.Path), not int",
    ),
    (
        "a-policy-mapping",
        lambda: scorecard.score_paths(
            [OBSERVATIONS],
            catalog=_catalog(),
            policy={"weights": {}},  # type: ignore[arg-type]
        ),
        TypeError,
        "score_paths(): policy must be a scorecard.Policy or None, not dict; "
        "Policy.from_overrides(weights, thresholds) makes one from mappings, load_policy(path) "
        "from a file",
    ),
    (
        "a-catalog-folder",
        lambda: scorecard.score_paths([OBSERVATIONS], catalog="cases"),  # type: ignore[arg-type]
        TypeError,
        "score_paths(): catalog must be a scorecard.Catalog, not str; load_catalog(folder) reads "
        "one",
    ),
    (
        "zero-workers",
        lambda: scorecard.score_paths([OBSERVATIONS], catalog=_catalog(), workers=0),
        ValueError,
        "score_paths(): workers must be at least 1",
    ),
    (
        "a-number-as-folder",
        lambda: scorecard.load_catalog(7),  # type: ignore[arg-type]
        TypeError,
        "load_catalog(): directory must be a path (str or pathlib.Path), not int",
    ),
    (
        "read-records-of-a-string",
        lambda: scorecard.read_records("observations"),
        TypeError,
        "read_records(): paths must be a list of paths, not str (a single path: give [path])",
    ),
    (
        "a-dict-to-score",
        lambda: scorecard.score_observation(
            {"schema": "x"},  # type: ignore[arg-type]
            _catalog()["final-response"],
            bundle_id="b",
        ),
        TypeError,
        "score_observation(): observation must be a WorkflowObservation (validate_observation"
        "(document) makes one from parsed JSON), not dict",
    ),
    (
        "load-policy-of-none",
        lambda: scorecard.load_policy(None),  # type: ignore[arg-type]
        TypeError,
        "load_policy(): path must be a path (str or pathlib.Path), not None",
    ),
    (
        "an-empty-path",
        lambda: scorecard.load_policy(""),
        ValueError,
        "load_policy(): path is an empty path",
    ),
    (
        "api-score-of-a-path",
        lambda: api.score(OBSERVATIONS, out="x.jsonl"),  # type: ignore[arg-type]
        TypeError,
        "score(): paths must be a list of paths, not PosixPath (a single path: give [path])",
    ),
    (
        "api-compare-one-candidate",
        lambda: api.compare([OBSERVATIONS], candidates="opencode-glm"),
        TypeError,
        "compare(): candidates must be a list of str, not str (a single id: give [id])",
    ),
    (
        "api-judge-negative-seed",
        lambda: api.judge(OBSERVATIONS, seed=-1),
        ValueError,
        "judge(): seed must be at least 0",
    ),
    (
        "api-policy-of-a-number",
        lambda: api.policy_file(3),  # type: ignore[arg-type]
        TypeError,
        "policy_file(): policy must be a path (a policy file's), a PolicyFile or None, not int",
    ),
    (
        "api-load-campaign-bool-workers",
        lambda: api.load_campaign([OBSERVATIONS], workers=True),
        TypeError,
        "load_campaign(): workers must be an int, not bool",
    ),
    (
        "api-explain-unknown-keyword",
        lambda: api.explain([OBSERVATIONS], candidate=["x"]),  # type: ignore[call-arg]
        TypeError,
        "explain(): got an unexpected keyword argument 'candidate'",
    ),
    (
        "an-empty-frame",
        lambda: analyze_campaign(pd.DataFrame(), ComparisonSettings(seed=0)),
        ValueError,
        "analyze_campaign(): frame lacks 34 of the records frame's columns (bundle, candidate, "
        "provider, model, tier, ...); make it with records_frame(paths or records)",
    ),
    (
        "records-as-a-frame",
        lambda: analyze_campaign([], ComparisonSettings(seed=0)),  # type: ignore[arg-type]
        TypeError,
        "analyze_campaign(): frame must be a pandas DataFrame made by records_frame(), not list",
    ),
    (
        "settings-as-a-seed",
        lambda: analyze_campaign(records_frame([]), 0),  # type: ignore[arg-type]
        TypeError,
        "analyze_campaign(): settings must be a ComparisonSettings (ComparisonSettings(seed=0)), "
        "not int",
    ),
]


@pytest.mark.parametrize(
    ("call", "kind", "message"),
    [case[1:] for case in WRONG],
    ids=[case[0] for case in WRONG],
)
def test_a_wrong_argument_is_named_at_the_boundary(
    call: Callable[[], Any], kind: type[Exception], message: str
) -> None:
    """The error names the function, the parameter and what it takes, a few frames deep."""
    with pytest.raises(kind) as raised:
        call()  # generator functions too: their arguments are checked before the first step
    assert str(raised.value) == message
    assert len(traceback.extract_tb(raised.value.__traceback__)) <= 5


def test_str_and_path_are_paths_alike(tmp_path: Path) -> None:
    """The same folder as text or as a Path gives the same catalog, policy, records."""
    assert scorecard.load_catalog(str(CASES)) == scorecard.load_catalog(CASES)
    policy = tmp_path / "policy.yaml"
    policy.write_text("weights:\n  semantic_outcome: 0.3\n")
    assert scorecard.load_policy(str(policy)) == scorecard.load_policy(policy)
    catalog = scorecard.load_catalog(CASES)
    as_text = list(scorecard.score_paths([str(OBSERVATIONS)], catalog=catalog))
    as_path = list(scorecard.score_paths((OBSERVATIONS,), catalog=catalog))
    assert [r.card for r in as_text] == [r.card for r in as_path]  # type: ignore[union-attr]
    manifest = OBSERVATIONS / "bundle.json"
    assert api.bundle_id(str(manifest)) == api.bundle_id(manifest)


def test_a_generator_of_paths_is_read_once() -> None:
    """An iterator is a list of paths too: checked, then scored, not exhausted by the check."""
    catalog = scorecard.load_catalog(CASES)
    scored = list(scorecard.score_paths((path for path in [OBSERVATIONS]), catalog=catalog))
    assert len(scored) == 140
