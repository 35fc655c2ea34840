"""The fast path of ``scorecard score`` for the usual line: a plainly valid observation, ``jsonl``
out (or its row, or its ``records`` line: :meth:`FastScorer.score_rows`,
:meth:`FastScorer.score_records`).

:meth:`FastScorer.score_block` hands a block of JSON Lines to the C extension
``scorecard.fast._fastscore``, which splits it into lines, checks on the raw bytes that the
general path would read each as msgspec does (any producer's JSON: key order, whitespace and
escapes are free; repeated keys, integers past 2**53, lone surrogates and the like are not),
decodes and recognises it with :data:`scorecard.core.OBSERVATION_DECODER`, checks the contract
rules, scores it, counts its failed audit findings and writes its scorecard line, all without
returning to Python. A line it is not sure of (an error, an unknown field, a secret-shaped id,
a repeated key) comes back as it was, for the general path of
:mod:`scorecard.engine._pipeline`, which stays the definition:
``tests/fast/test_fastpath.py`` checks both give the same bytes and counts. Without the compiled
extension (a platform without a C compiler), or with ``SCORECARD_ENGINE=python``
(:mod:`._extension`), :func:`fast_scorer` returns None and every line takes the general path.
``docs/performance.md`` explains the design.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from msgspec import UNSET

from scorecard.contract import (
    DEFAULT_WEIGHTS,
    DIMENSIONS,
    GATE_DIMENSIONS,
    ROW_COLUMNS,
    SCORECARD_V2_SCHEMA,
    format_js_number,
    matches_reference_secret,
)
from scorecard.core import (
    NOT_PLAIN_ERRORS,
    OBSERVATION_DECODER,
    UNSCOREABLE_REASON,
    dimension_json,
    identifier_secret,
    json_scalar,
    json_string,
    reason_json,
)

from ._extension import extension as _fastscore
from ._plans import case_plans
from ._records import record_checks, record_heads, roster_labels, source_head

if TYPE_CHECKING:
    from scorecard.contract import Catalog, Policy


__all__ = [
    "REPETITION_PLACEHOLDER",
    "FastScorer",
    "compiled",
    "fast_scorer",
    "number_records",
    "policy_plan",
    "row_plan",
]

_SAFE = 2**53
_HEADS_LIMIT = 256

if _fastscore is not None:
    _fastscore.configure(
        UNSET,
        reason_json,
        json_string,
        format_js_number,
        OBSERVATION_DECODER,
        NOT_PLAIN_ERRORS,
        identifier_secret,
        matches_reference_secret,
    )


def _exact_double(value: object) -> float | None:
    """``value`` as the double Python arithmetic would use, when that conversion is exact."""
    if type(value) is float:
        return value
    if type(value) is int and -_SAFE <= value <= _SAFE:
        return float(value)
    return None


def policy_plan(policy: Policy) -> tuple[tuple[Any, ...], ...] | None:
    """Per dimension (head, gate, weight, weight text, threshold, unscoreable entry), or None
    when a weight or threshold is a number doubles cannot stand for exactly."""
    plan = []
    for name in DIMENSIONS:
        gate = name in GATE_DIMENSIONS
        weight = _exact_double(policy.weights[name])
        threshold = _exact_double(policy.thresholds[name])
        if weight is None or threshold is None:
            return None
        unscoreable = dimension_json(
            name,
            {
                "dimension": name,
                "score": None,
                "passed": None,
                "gate": gate,
                "weight": DEFAULT_WEIGHTS[name],
                "reasons": [UNSCOREABLE_REASON],
            },
        )
        head = f'{json_string(name)}:{{"dimension":{json_string(name)},"score":'
        weight_text = json_scalar(0 if gate else policy.weights[name])
        plan.append((head, gate, weight, weight_text, threshold, unscoreable))
    return tuple(plan)


# Where the C code finds each column's value (``ROW_*`` in ``src/fastscore/fastscore.h``), by
# the column's pointer in a record.
_ROW_SOURCES: dict[str, tuple[int, Any]] = {
    "/bundleId": (0, None),
    "/candidateId": (1, None),
    "/provider": (2, None),
    "/model": (3, None),
    "/tier": (4, None),
    "/caseId": (5, None),
    "/repetition": (6, None),
    "/classification": (7, None),
    **{f"/scorecard/dimensions/{name}/score": (8, index) for index, name in enumerate(DIMENSIONS)},
    **{f"/scorecard/dimensions/{name}/passed": (9, index) for index, name in enumerate(DIMENSIONS)},
    "/scorecard/overall/score": (10, None),
    "/gatePassed": (11, None),
    "/scorecard/overall/passed": (12, None),
}
_METRIC_SOURCES = {"measure": 13, "count": 14}


def row_plan() -> tuple[tuple[int, Any], ...]:
    """Where the C code finds each column of :data:`~scorecard.contract.ROW_COLUMNS`, in order:
    the row stays defined by that table alone; a column the C code cannot fill raises here."""
    plan = []
    for column in ROW_COLUMNS:
        source = _ROW_SOURCES.get(column.pointer)
        if source is None and column.pointer.startswith("/metrics/"):
            kind = _METRIC_SOURCES.get(column.kind)
            source = None if kind is None else (kind, column.pointer.removeprefix("/metrics/"))
        if source is None:
            raise LookupError(f"the fast path cannot fill the row column {column.name}")
        plan.append(source)
    return tuple(plan)


_ROW_PLAN = row_plan()

Counts = tuple[int, int, int, int]
"""What a block's scored records add to the run summary: scored, gate failures, unscoreable,
failed audit findings."""
Piece = str | tuple[int, bytes]
"""Scorecard lines (each ending in a newline), or (line number, line) of a record the general
path must decide."""
RunKey = tuple[str, str, str]
"""(bundle, candidate, case): the runs a repetition counts."""
RecordPiece = str | list[RunKey] | tuple[int, bytes]
"""Record lines (each ending in a newline, repetition 0), the run keys of the lines of the
record piece before, or (line number, line) of a record the general path must decide."""
RowDetail = tuple[int, str, bytes]
"""(line number, scorecard line without its newline, line) of a scored line."""
RowPiece = tuple[tuple[Any, ...], int, RowDetail | None] | tuple[int, bytes]
"""A scored line's (row, failed audit findings, detail or None), or (line number, line) of a
record the general path must decide."""


class FastScorer:
    """Scores plainly valid JSON Lines records of one catalog and policy in compiled code."""

    def __init__(self, catalog: Catalog, policy_plan: tuple[Any, ...]) -> None:
        self._plans = case_plans(catalog)
        self._policy = policy_plan
        self._heads: dict[str, dict[str, str]] = {}
        self._record_heads: dict[str, dict[str, str]] = {}
        self._checks: dict[str, tuple[tuple[Any, ...], ...]] | None = None

    def _heads_of(self, bundle_id: str) -> dict[str, str]:
        """Each case's line start for one bundle: ``{"schema":...,"candidateId":``."""
        heads = self._heads.get(bundle_id)
        if heads is None:
            if len(self._heads) >= _HEADS_LIMIT:
                self._heads.clear()
            bundle = json_string(bundle_id)
            heads = self._heads[bundle_id] = {
                case_id: f'{{"schema":{json_string(SCORECARD_V2_SCHEMA)},"bundleId":{bundle},'
                f'"caseId":{json_string(case_id)},"candidateId":'
                for case_id in self._plans
            }
        return heads

    @staticmethod
    def array_block(data: bytes) -> bytes | None:
        """The elements of the top-level JSON array ``data`` (a ``.json`` file without its byte
        order mark) one per line, a block for :meth:`score_block` and :meth:`score_rows`: line
        ``n`` is element ``n - 1``. None when the text is not an array whose elements can be
        told apart surely (``src/fastscore/arrays.c``); the file then takes the general path."""
        return _fastscore.array_lines(data)

    def score_block(
        self, block: bytes, first_line: int, bundle_id: str
    ) -> tuple[list[Piece], Counts]:
        """The lines of a block of JSON Lines (numbered from ``first_line``, as
        :func:`scorecard.engine._io.numbered_lines` numbers them), scored in C where it may, in order,
        and what the scored ones add to the run summary."""
        return _fastscore.score_block(
            block, first_line, self._plans, self._policy, self._heads_of(bundle_id)
        )

    def score_records(
        self,
        block: bytes,
        first_line: int,
        bundle_id: str,
        labels: dict[str, tuple[str | None, str | None]],
        source: str,
        *,
        array: bool = False,
        audit_gates: bool = False,
    ) -> tuple[list[RecordPiece], Counts]:
        """The lines of a block scored as :meth:`score_block` scores them, each scored line
        written as its scored record (``scorecard.record.v1``, ``docs/records.md``) with the
        placeholder ``"repetition":0,`` (the run numbers are the caller's); ``labels`` gives
        each candidate's (model, tier), ``source`` is the file's name as outputs write it, and
        ``array`` says the block is a ``.json`` array's elements (:meth:`array_block`: line
        ``n`` is index ``n - 1``). With ``audit_gates`` (the policy's ``auditGate``), a failed
        finding fails the record's ``gatePassed``. Each piece of record lines is followed by
        the run keys of its lines."""
        if self._checks is None:
            self._checks = {case_id: record_checks(plan) for case_id, plan in self._plans.items()}
        heads = self._record_heads.get(bundle_id)
        if heads is None:
            if len(self._record_heads) >= _HEADS_LIMIT:
                self._record_heads.clear()
            heads = self._record_heads[bundle_id] = record_heads(bundle_id, list(self._plans))
        records = (
            self._checks,
            heads,
            roster_labels(labels),
            source_head(source, array),
            array,
            audit_gates,
            bundle_id,
        )
        return _fastscore.score_block(
            block, first_line, self._plans, self._policy, self._heads_of(bundle_id), records
        )

    def score_rows(
        self,
        block: bytes,
        first_line: int,
        bundle_id: str,
        labels: dict[str, tuple[str | None, str | None]],
        detail: int = 0,
        *,
        audit_gates: bool = False,
    ) -> tuple[list[RowPiece], Counts]:
        """The lines of a block scored as :meth:`score_block` scores them, each scored line as
        its row (:data:`~scorecard.contract.ROW_COLUMNS`, repetition 1: the run numbers are the
        caller's) and its count of failed audit findings; ``labels`` gives each candidate's
        (model, tier). ``detail`` 1 adds (line number, scorecard line, line) to the lines whose
        gate failed or whose audit found something, 2 to every line. A row's gate is the
        effective one: with ``audit_gates`` (the policy's ``auditGate``), a failed finding fails
        it too."""
        rows = (_ROW_PLAN, bundle_id, labels, math.nan, 1, audit_gates)
        return _fastscore.score_block(
            block, first_line, self._plans, self._policy, self._heads_of(bundle_id), rows, detail
        )


REPETITION_PLACEHOLDER = '"repetition":0,'
"""What a worker writes in a record for its run number, which only the main process knows."""


def number_records(text: str, keys: list[RunKey], repetitions: dict[RunKey, int]) -> str:
    """``text`` (whole record lines, each holding :data:`REPETITION_PLACEHOLDER`) with each
    line's run number written in: ``keys`` gives each line's run key, ``repetitions`` how many
    runs of each key came before (updated). In C where the extension is in use."""
    if _fastscore is not None:
        return _fastscore.number_records(text, keys, repetitions)
    # A JSON string's quotes are escaped: the placeholder is only ever the key itself.
    parts = text.split(REPETITION_PLACEHOLDER)
    if len(parts) != len(keys) + 1:
        raise ValueError("as many record lines as keys")
    written = [parts[0]]
    for key, part in zip(keys, parts[1:], strict=True):
        count = repetitions[key] = repetitions.get(key, 0) + 1
        written += (f'"repetition":{count},', part)
    return "".join(written)


def compiled() -> bool:
    """Whether this process scores in C: the extension was built (``pip install`` compiles it
    where a compiler is) and ``SCORECARD_ENGINE`` does not ask for Python alone."""
    return _fastscore is not None


def fast_scorer(catalog: Catalog, policy: Policy) -> FastScorer | None:
    """A fast scorer for this catalog and policy, or None when it cannot serve them."""
    if _fastscore is None:
        return None
    plan = policy_plan(policy)
    return None if plan is None else FastScorer(catalog, plan)
