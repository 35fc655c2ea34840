"""``--format records`` from the C scorer is the general path's, line for line, or declined.

The general path (:func:`~scorecard.core.record_line` of the scored record) is the definition;
``src/fastscore/record.c`` writes the same line around the scorecard line for a plain
observation. Each test gives both the same input and compares the record lines, their run keys
and the run summary: the conformance table, generated observations whose audit passes, fails
and lacks evidence, findings of every code and status, secret-shaped evidence, failures, rosters
with and without the candidate, every producer's spelling, blocks with lines to decline, ``.json``
arrays and several bundles through ``scorecard score``'s own run.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorecard.contract import written_name
from scorecard.contract._bundles import BundleInfo
from scorecard.contract._campaign import CandidateSpec
from scorecard.contract._catalog import Catalog, load_catalog
from scorecard.contract._errors import InputError
from scorecard.contract._policy import Policy
from scorecard.core import CHECKS, MARKER_MISSING
from scorecard.core._recognize import is_plainly_valid
from scorecard.engine._chunk_scorer import ChunkScorer
from scorecard.engine._chunks import Chunk
from scorecard.engine._io import parse_line
from scorecard.engine._parallel import score_text
from scorecard.engine._pipeline import RunSummary, score_record
from scorecard.fast import _fastpath as fastpath
from scorecard.simulate.producers import WRITERS
from tests.conftest import ROOT, c_only, conformance_rows, must_be_scored_in_c, runner_line
from tests.fast.test_fastpath import (
    PRODUCERS,
    PROFILE,
    _mixed_block,
    _sample_lines,
    audited_observations,
    policies,
    spellings,
)

pytestmark = c_only("these compare the C records writer with the Python path")

SCORED = [row for row in conformance_rows() if "error" not in row["expected"]]
SOURCE = "runs/t.jsonl"


def _roster(**labels: tuple[str, str]) -> dict[str, CandidateSpec]:
    """Roster entries holding only what a record reads of them (id, model, tier)."""
    construct: Any = CandidateSpec.model_construct
    return {
        candidate: construct(id=candidate, model=model, tier=tier)
        for candidate, (model, tier) in labels.items()
    }


# Bundles: no roster; a roster holding the candidates the generators draw (one label with text
# JSON escapes, one beyond ASCII); a roster without them (model and tier null).
BUNDLES = [
    BundleInfo(id="local-engine", kind="override"),
    BundleInfo(
        id="campaign-\u00e9t\u00e9",
        kind="campaign",
        candidates=_roster(
            **{
                "codex-luna": ('gpt "5.6"\\luna', "strong"),
                "opencode-sol": ("sol\u2028\u00e9", "inexpensive"),
                "acpx-terra": ("terra", "strong"),
            }
        ),
    ),
    BundleInfo(id="campaign-other", kind="campaign", candidates=_roster(nobody=("m", "strong"))),
]


def _labels(bundle: BundleInfo) -> dict[str, tuple[str | None, str | None]]:
    return {name: (spec.model, spec.tier) for name, spec in bundle.candidates.items()}


Recorded = tuple[str, list[tuple[str, str, str]], tuple[int, int, int, int]]
"""A record line (with its newline, repetition 0), its run keys and its summary counts."""


def general_record(
    raw: bytes, catalog: Catalog, policy: Policy, bundle: BundleInfo, number: int = 1
) -> Recorded | InputError:
    """What the general path writes of one line for ``--format records``."""
    record = parse_line(raw, number=number, source=SOURCE, bundle=bundle)
    result = score_record(record, catalog=catalog, policy=policy)
    if isinstance(result, InputError):
        return result
    tally = result.tally()
    counts = (
        1,
        int(tally.gate_failed and not tally.unscoreable),
        int(tally.unscoreable),
        tally.audit_failed,
    )
    return result.render("records") + "\n", [tally.run_key], counts


def fast_record(
    raw: bytes, catalog: Catalog, policy: Policy, bundle: BundleInfo, number: int = 1
) -> Recorded | None:
    """What the C scorer writes of one line for ``--format records``; None when it declines."""
    scorer = fastpath.fast_scorer(catalog, policy)
    assert scorer is not None
    pieces, counts = scorer.score_records(
        raw,
        number,
        bundle.id,
        _labels(bundle),
        written_name(SOURCE),
        audit_gates=policy.audit_gate,
    )
    if pieces == [(number, raw)]:
        assert counts == (0, 0, 0, 0)
        return None
    text, keys = pieces
    assert isinstance(text, str)
    assert isinstance(keys, list)
    return text, keys, counts


def assert_same_or_declined(
    raw: bytes, catalog: Catalog, policy: Policy, bundle: BundleInfo, number: int = 1
) -> bool:
    """The C records writer gives the general path's line, keys and counts, or declines a line
    it may decline; True when it answered."""
    fast = fast_record(raw, catalog, policy, bundle, number)
    general = general_record(raw, catalog, policy, bundle, number)
    if fast is None:
        assert not must_be_scored_in_c(raw, policy, general)  # type: ignore[arg-type]
        return False
    assert fast == general
    return True


def _gated(policy: Policy, audit_gate: bool) -> Policy:
    return dataclasses.replace(policy, audit_gate=audit_gate)


@pytest.mark.parametrize("row", SCORED[::3], ids=[row["id"] for row in SCORED[::3]])
def test_conformance_rows_give_the_general_path_records(
    row: dict[str, Any], catalog: Catalog
) -> None:
    """Every third scored row of the conformance table, in every producer's spelling, under
    each bundle and with and without the audit gating: the C scorer writes the general path's
    record."""
    if not is_plainly_valid(row["observation"]):
        pytest.skip("carries unknown fields: the Python path reports them")
    policy = Policy.from_overrides(
        row["options"].get("weights"),
        row["options"].get("thresholds"),
        require_positive_total=False,
    )
    for index, (producer, raw) in enumerate(spellings(row["observation"])):
        bundle = BUNDLES[index % len(BUNDLES)]
        gated = _gated(policy, audit_gate=index % 2 == 1)
        assert assert_same_or_declined(raw, catalog, gated, bundle, 7), producer


@PROFILE
@given(data=st.data())
def test_generated_observations_give_the_general_path_records(
    data: st.DataObject, catalog: Catalog
) -> None:
    """Valid observations with audit evidence that passes, fails and is missing, under
    generated policies, audit gating on or off, each bundle, in every producer's spelling."""
    document = data.draw(audited_observations(catalog))
    policy = _gated(data.draw(policies()), data.draw(st.booleans()))
    bundle = data.draw(st.sampled_from(BUNDLES))
    for producer, raw in spellings(document):
        assert assert_same_or_declined(raw, catalog, policy, bundle), producer


# ---------------------------------------------------------------------------------------------
# Findings of every code and status, evidence with secrets, failures.

_SECRET = "sk-" + "a1B2c3D4" * 4
_STATUS_FIELDS = ("issueStatus", "runStatus", "semanticDisposition", "recoveryOwner")


def _edits(document: dict[str, Any], catalog: Catalog) -> list[dict[str, Any]]:
    """``document`` edited so that each check of its case fails, lacks its evidence, or shows
    secret-shaped evidence; and with failures of each kind."""
    case = catalog[document["caseId"]]
    markers = list(case.assertions.ordered_markers or [])
    edited = []

    def edit(change: Any) -> None:
        copied = copy.deepcopy(document)
        change(copied)
        edited.append(copied)

    def absent(copied: dict[str, Any]) -> None:
        for key in (*_STATUS_FIELDS, "runs", "attempts"):
            copied["lifecycle"].pop(key, None)
        for key in ("commentCount", "responseSource", "markers", "activityFamilies"):
            copied["presentation"].pop(key, None)

    def mismatched(copied: dict[str, Any]) -> None:
        for key in _STATUS_FIELDS:
            copied["lifecycle"][key] = "other"
        copied["lifecycle"]["runs"] = 9
        copied["lifecycle"]["attempts"] = 9
        copied["presentation"]["commentCount"] = 7
        copied["presentation"]["responseSource"] = "elsewhere"
        copied["presentation"]["markers"] = [*reversed(markers), "noise"]
        copied["presentation"]["activityFamilies"] = []
        copied["artifactDigests"] = []
        forbidden = list(case.assertions.forbidden_prp_event_types or [])
        copied["observedPrpEventTypes"] = ["x", *forbidden, "y", *forbidden]
        copied["base"]["observedCalls"] = []
        lineage = copied["traceLineage"]
        lineage["digestVerified"] = not lineage["digestVerified"]
        lineage["ordered"] = not lineage["ordered"]

    def metered(copied: dict[str, Any]) -> None:
        copied["lifecycle"].pop("attempts", None)
        copied["metrics"]["attempts"] = 8
        copied["presentation"]["markers"] = markers[1:]  # the first one never shown

    def secret(copied: dict[str, Any]) -> None:
        for key in _STATUS_FIELDS:
            copied["lifecycle"][key] = f"token={_SECRET}"
        copied["presentation"]["responseSource"] = _SECRET
        copied["presentation"]["markers"] = [_SECRET, *reversed(markers), f"a\u2028b {_SECRET}"]

    def other_provider(copied: dict[str, Any]) -> None:
        copied["provider"] = (
            next(name for name in ("codex", "opencode", "acpx") if name not in case.providers)
            if len(case.providers) < 3
            else copied["provider"]
        )

    def failed(copied: dict[str, Any]) -> None:
        copied["classification"] = "candidate_failure"
        copied["failure"] = {
            "code": f"E_{_SECRET}",
            "category": "candidate",
            "retryable": True,
            "message": 'the agent stopped "early"\u00e9',
        }

    def infrastructure(copied: dict[str, Any]) -> None:
        copied["classification"] = "infrastructure_failure"
        copied["failure"] = {
            "code": "E_PROVIDER",
            "category": "provider",
            "retryable": False,
            "message": "upstream 503",
        }

    def measured(copied: dict[str, Any]) -> None:
        metrics = copied["metrics"]
        for key in ("timeToFirstVisibleProgressMs", "settlementMs", "totalTokens", "costUsd"):
            metrics.pop(key, None)
        metrics["costUsd"] = 1e-7
        metrics["settlementMs"] = 123456.5

    for change in (
        absent,
        mismatched,
        metered,
        secret,
        other_provider,
        failed,
        infrastructure,
        measured,
    ):
        edit(change)
    return edited


def _edited_corpus(catalog: Catalog) -> list[bytes]:
    """Edits (:func:`_edits`) of the sample observations' first runs of each case."""
    lines = []
    firsts: dict[str, bytes] = {}
    for line in _sample_lines():
        firsts.setdefault(json.loads(line)["caseId"], line)
    for line in [*firsts.values(), *_sample_lines()[:12]]:
        for document in _edits(json.loads(line), catalog):
            lines.append(runner_line(document))
    return lines


@pytest.fixture(scope="module")
def narrow_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The catalog with its first case run on one provider and asserting artifact digests (one
    of them secret-shaped), which no case of the repository's does."""
    folder = tmp_path_factory.mktemp("cases")
    for path in (ROOT / "cases").glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        if path.name.startswith("01-"):
            text = text.replace("providers: [codex, opencode, acpx]", "providers: [codex]")
            text = text.replace(
                "assertions:\n",
                f"assertions:\n  artifactDigests: [sha256:abc, 'token={_SECRET}']\n  maxAttempts: 2\n",
            )
        (folder / path.name).write_text(text, encoding="utf-8")
    return load_catalog(folder)


def test_findings_of_every_code_and_status_are_written_as_the_general_path_writes_them(
    catalog: Catalog, narrow_catalog: Catalog
) -> None:
    """Sample observations edited so that every check fails, lacks its evidence or shows
    secret-shaped evidence (and with failures, unscoreable runs and sparse metrics): the C
    scorer writes each of them (none declined), as the general path does, audit gating on and
    off; between them the lines hold a finding of every code, failed and not observed."""
    seen: set[tuple[str, str]] = set()
    for gated, cases in ((False, catalog), (True, catalog), (False, narrow_catalog)):
        policy = Policy.from_overrides(audit_gate=gated)
        for index, raw in enumerate(_edited_corpus(cases)):
            bundle = BUNDLES[index % len(BUNDLES)]
            assert fast_record(raw, cases, policy, bundle) is not None, raw[:200]
            assert assert_same_or_declined(raw, cases, policy, bundle)
            record = json.loads(fast_record(raw, cases, policy, bundle)[0])  # type: ignore[index]
            seen |= {(item["code"], item["status"]) for item in record["audit"]["findings"]}
    failing = {(check.code, "failed") for check in CHECKS.values()} | {(MARKER_MISSING, "failed")}
    absent = {
        (CHECKS[name].code, "not_observed")
        for name in (
            "issueStatus",
            "runStatus",
            "semanticDisposition",
            "maxRuns",
            "recoveryOwner",
            "commentCount",
            "responseSource",
            "orderedMarkers",
            "requiredActivityFamilies",
        )
    }
    assert failing | absent <= seen, sorted(failing | absent - seen)
    assert _SECRET not in "".join(
        fast_record(raw, catalog, Policy(), BUNDLES[0])[0]  # type: ignore[index]
        for raw in _edited_corpus(catalog)
    )


def test_a_secret_shaped_failure_message_is_left_to_the_general_path(catalog: Catalog) -> None:
    """A failure message shaped like a reference secret is declined (the contract refuses it);
    the general path reports it."""
    document = json.loads(_sample_lines()[0])
    document["classification"] = "candidate_failure"
    document["failure"] = {
        "code": "E",
        "category": "candidate",
        "retryable": False,
        "message": _SECRET,
    }
    raw = runner_line(document)
    assert fast_record(raw, catalog, Policy(), BUNDLES[0]) is None
    assert general_record(raw, catalog, Policy(), BUNDLES[0]) is not None


# ---------------------------------------------------------------------------------------------
# Blocks, arrays, runs.


def _shown(items: list[Any]) -> list[Any]:
    """A chunk's records items, errors as records."""
    return [item.to_record() if isinstance(item, InputError) else item for item in items]


def _records_and_summary(chunk: Chunk, scorer: ChunkScorer) -> tuple[list[Any], str]:
    items, summary = scorer.records(chunk)
    return _shown(items), summary.line()


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("first_line", [1, 41])
def test_a_block_with_lines_to_decline_gives_the_general_path_records(
    first_line: int, producer: str, monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """A block mixing plain lines with blank, CRLF, broken, unknown-field and secret-shaped
    lines (and a byte order mark) gives the general path's record lines, run keys, errors,
    line numbers and summary."""
    chunk = Chunk("t.jsonl", BUNDLES[1], _mixed_block(producer), first_line)
    compiled = ChunkScorer(catalog, Policy(), "records")
    assert compiled.fast is not None
    fast = _records_and_summary(chunk, compiled)
    monkeypatch.setattr(compiled, "fast", None)
    assert fast == _records_and_summary(chunk, compiled)
    assert len([item for item in fast[0] if isinstance(item, dict)]) == (
        2 if first_line == 1 else 3
    )


def _variants(folder: Path, catalog: Catalog) -> tuple[list[Path], int]:
    """The sample observations and the edited corpus as each producer writes them (one
    folder, so one bundle, each), with CRLF line ends, and as pretty ``.json`` arrays; and how
    many observations each holds."""
    documents = [json.loads(line) for line in _sample_lines()[:60]]
    documents += [json.loads(line) for line in _edited_corpus(catalog)[::5]]
    paths = []
    for name, write in {"runner": runner_line, **WRITERS}.items():
        path = folder / name / "observations.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"".join(write(document) + b"\n" for document in documents))
        paths.append(path.parent)
    crlf = folder / "crlf" / "observations.jsonl"
    crlf.parent.mkdir()
    crlf.write_bytes(b"".join(runner_line(document) + b"\r\n" for document in documents))
    pretty = folder / "pretty"
    pretty.mkdir()
    for start in range(0, len(documents), 25):
        (pretty / f"part-{start:03d}.json").write_text(
            json.dumps(documents[start : start + 25], indent=2), encoding="utf-8"
        )
    return [*paths, crlf.parent, pretty], len(documents)


def _records_run(paths: list[str], catalog: Catalog, workers: int) -> tuple[str, str]:
    summary = RunSummary()
    pieces = score_text(
        paths,
        catalog=catalog,
        policy=Policy(),
        workers=workers,
        output_format="records",
        summary=summary,
        chunk_bytes=64 << 10,
    )
    text = "".join(
        piece if isinstance(piece, str) else json.dumps(piece.to_record()) + "\n"
        for piece in pieces
    )
    return text, summary.line()


@pytest.mark.parametrize("workers", [1, 2])
def test_records_of_every_producer_and_bundle_are_the_same_without_the_extension(
    workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """``scorecard score --format records`` of the four sample bundles (rosters), and of the
    samples and edited observations as each producer writes them, with CRLF, and as ``.json``
    arrays (one bundle each): the same bytes and summary with the C scorer as without it, on
    one worker and two, in chunks small enough that runs repeat across them."""
    variants, count = _variants(tmp_path, catalog)
    paths = [str(ROOT / "observations"), *map(str, variants)]
    compiled = _records_run(paths, catalog, workers)
    monkeypatch.setattr(fastpath, "_fastscore", None)
    assert fastpath.fast_scorer(catalog, Policy()) is None
    assert _records_run(paths, catalog, workers) == compiled
    records = [json.loads(line) for line in compiled[0].split("\n")[:-1]]
    assert len(records) == 560 + len(variants) * count
    assert compiled[1].startswith(f"scored {len(records)}, rejected 0")
    assert max(record["repetition"] for record in records) > 1
    assert {record["source"]["index"] is None for record in records} == {True, False}
    assert {record["model"] is None for record in records} == {True, False}


def test_the_c_scorer_writes_every_plain_line_of_each_variant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catalog: Catalog
) -> None:
    """The comparison above is of the C scorer's lines: it declines none of the variants'
    (the general path writes none of them), ``.json`` arrays included."""
    written: list[Any] = []
    real = ChunkScorer._general

    def general(self: ChunkScorer, record: Any) -> Any:
        written.append(record)
        return real(self, record)

    monkeypatch.setattr(ChunkScorer, "_general", general)
    variants, _ = _variants(tmp_path, catalog)
    _records_run([str(ROOT / "observations"), *map(str, variants)], catalog, 1)
    assert written == []


def test_run_numbers_are_written_in_by_c_as_by_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The main process's numbering of record lines gives the same text and counts in C as in
    Python, a count carried from piece to piece; a piece whose lines and keys differ in number
    is refused by both."""
    line = '{"schema":"s","caseId":"a\\"repetition\\":0,","repetition":0,"x":"\u2028\u00e9"}\n'
    keys = [("b", "c", "one"), ("b", "c", "two"), ("b", "c", "one")]
    answers = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(fastpath, "_fastscore", None)
        repetitions = {("b", "c", "one"): 4}
        texts = [
            fastpath.number_records(line * 3, keys, repetitions),
            fastpath.number_records(line, keys[:1], repetitions),
        ]
        answers.append((texts, repetitions))
        for lines, wrong in ((line * 2, keys), (line * 3, keys[:2])):
            with pytest.raises(ValueError, match="record lines"):
                fastpath.number_records(lines, wrong, {})
    assert answers[0] == answers[1]
    assert [json.loads(text)["repetition"] for text in answers[0][0][0].split("\n")[:-1]] == [
        5,
        1,
        6,
    ]
    assert answers[0][1] == {("b", "c", "one"): 7, ("b", "c", "two"): 1}
