"""The case catalog: the 12 cases, closed and strictly typed, with YAML traps caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from scorecard.contract import _yaml as yamltext
from scorecard.contract._catalog import Catalog, load_catalog, parse_case
from scorecard.contract._errors import CaseError
from scorecard.contract._models import CASE_IDS
from tests.conftest import CASE_SCHEMA, ROOT, SHARED

CASE_FILES = sorted((ROOT / "cases").glob("*.yaml"))
TRACE_CASE = (ROOT / "cases" / "12-trace-lineage.yaml").read_text(encoding="utf-8")


def test_the_catalog_has_exactly_the_twelve_cases_in_order(catalog: Catalog) -> None:
    """Loading yields the 12 ids in canonical catalog order."""
    assert list(catalog) == list(CASE_IDS)
    assert len(CASE_FILES) == 12


@pytest.mark.parametrize("path", CASE_FILES, ids=[path.name for path in CASE_FILES])
def test_every_case_file_validates_against_the_upstream_schema(path: Path) -> None:
    """Each case file is valid per runner-workflow-eval-case.v1.schema.json."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert [error.message for error in CASE_SCHEMA.iter_errors(document)] == []


def test_the_case_files_carry_the_shared_catalog_data(catalog: Catalog) -> None:
    """cases/ holds the same data as ../shared/spec/catalog.yaml, case for case."""
    shared = yaml.safe_load((SHARED / "spec" / "catalog.yaml").read_text(encoding="utf-8"))
    ours = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in CASE_FILES]
    assert ours == shared


def test_the_trace_case_expects_capture_on(catalog: Catalog) -> None:
    """The quoted "on" in the trace-lineage case is the string, not a boolean."""
    trace = catalog["trace-lineage"].assertions.trace
    assert trace is not None
    assert trace.capture == "on"


LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


@pytest.fixture(params=LOADERS, ids=lambda loader: loader.__name__)
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type:
    """Each YAML parser the reader may use: PyYAML's own and libyaml's, when built."""
    monkeypatch.setattr(yamltext, "_LOADER", request.param)
    return request.param  # type: ignore[no-any-return]


def test_both_parsers_read_the_catalog_alike(loader: type) -> None:
    """Either parser gives the 12 cases, each equal to its file parsed with PyYAML's own."""
    catalog = load_catalog(ROOT / "cases")
    assert sorted(catalog) == sorted(CASE_IDS)
    for path in sorted((ROOT / "cases").glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        case = catalog[document["id"]]
        assert case.model_dump(by_alias=True, exclude_none=True) == document


def test_unquoted_capture_on_is_an_error_with_a_hint(loader: type) -> None:
    """YAML 1.1 reads `capture: on` as true; that must fail loudly, not mis-score."""
    text = TRACE_CASE.replace('capture: "on"', "capture: on")
    with pytest.raises(CaseError) as raised:
        parse_case(text, source="12-trace-lineage.yaml")
    error = raised.value
    assert error.pointer == "/assertions/trace/capture"
    assert error.line == TRACE_CASE.splitlines().index('    capture: "on"') + 1
    assert "quote it" in error.message


@pytest.mark.parametrize(
    ("old", "new", "rule", "pointer"),
    [
        ("title: Correlate", "owner: someone\ntitle: Correlate", "unknown_field", "/owner"),
        ("version: 1", "version: 2", "invalid_value", "/version"),
        ("tags: [trace, lineage, redaction]", "tags: [trace, trace]", "duplicate_items", "/tags"),
        (
            "providers: [codex, opencode, acpx]",
            "providers: [codex, codex]",
            "duplicate_items",
            "/providers",
        ),
        (
            "providers: [codex, opencode, acpx]",
            "providers: [claude]",
            "invalid_value",
            "/providers/0",
        ),
        (
            "{kind: run_start, taskMode: execute}",
            "{kind: run_start, taskMode: yolo}",
            "invalid_value",
            "/steps/0/taskMode",
        ),
        ("{kind: run_start, taskMode: execute}", "{kind: teleport}", "invalid_value", "/steps/0"),
        ("    ordered: true", "    ordered: 'yes'", "wrong_type", "/assertions/trace/ordered"),
        (
            "  issueStatus: done",
            "  issueStatus: done\n  issueStatus: done",
            "duplicate_key",
            "/assertions/issueStatus",
        ),
        (
            "  issueStatus: done",
            "  forbiddenPrpEventTypes: [run.terminal]",
            "prp_event_required_and_forbidden",
            "/assertions/forbiddenPrpEventTypes",
        ),
        ("id: trace-lineage", "id: [unclosed", "yaml_syntax", ""),
    ],
)
def test_broken_cases_are_rejected_with_a_location(
    old: str, new: str, rule: str, pointer: str
) -> None:
    """Every structural problem of a case names its rule, pointer and line."""
    assert old in TRACE_CASE
    with pytest.raises(CaseError) as raised:
        parse_case(TRACE_CASE.replace(old, new, 1), source="case.yaml")
    assert (raised.value.rule, raised.value.pointer) == (rule, pointer)
    assert raised.value.line is not None
    assert raised.value.source == "case.yaml"


def _copy_catalog(tmp_path: Path) -> Path:
    target = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", target)
    return target


def test_a_missing_case_is_reported(tmp_path: Path) -> None:
    """A catalog without one of the 12 cases is incomplete."""
    folder = _copy_catalog(tmp_path)
    (folder / "05-steering-causality.yaml").unlink()
    with pytest.raises(CaseError) as raised:
        load_catalog(folder)
    assert raised.value.rule == "catalog_incomplete"
    assert "steering-causality" in raised.value.message


def test_a_case_defined_twice_is_reported(tmp_path: Path) -> None:
    """Two files with the same case id are an error, not a silent overwrite."""
    folder = _copy_catalog(tmp_path)
    shutil.copy(folder / "01-final-response.yaml", folder / "13-copy.yaml")
    with pytest.raises(CaseError) as raised:
        load_catalog(folder)
    assert raised.value.rule == "duplicate_case_id"


def test_an_unknown_case_id_is_rejected() -> None:
    """Only the 12 known ids are valid case ids."""
    with pytest.raises(CaseError) as raised:
        parse_case(TRACE_CASE.replace("id: trace-lineage", "id: time-travel"), source="c.yaml")
    assert (raised.value.rule, raised.value.pointer) == ("invalid_value", "/id")
