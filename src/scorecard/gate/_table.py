"""One side's runs as columns: what every rule reads, the same whichever way the runs came.

A :class:`RunTable` is the runs of a side in run order (candidate, case in catalog order,
repetition), as a sequence of :class:`~scorecard.gate._input.RunFacts`. Made from run facts
(records files, runs built by hand) it holds them; made from a records frame (observations
scored on the fast path, Parquet rows) it holds the frame and, for the runs that have it, the
untrusted detail a verdict shows (reasons, failed findings, failure, source): a run is made
as a :class:`RunFacts` only when it is asked for. Either way the rules read the same columns
(:attr:`RunTable.candidate` ...), so their inputs do not depend on where the runs came from.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast, overload

import numpy as np

from scorecard.aggregate import column_values, records_frame
from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS, ROW_COLUMNS, ROW_FIELDS
from scorecard.engine import LoadedRecords, RunEvidence

from ._runs import AuditFinding, RunFacts, facts_of_columns, frame_row

__all__ = ["Detail", "RunTable"]

#: What a run holds beyond its row: reasons per dimension, failed findings, whether they gated,
#: failure text, source (``file:line``); :data:`scorecard.engine.RecordDetail` with the findings
#: as :class:`AuditFinding`.
Detail = tuple[
    tuple[tuple[str, ...], ...],
    tuple[AuditFinding, ...],
    bool,
    str | None,
    str | None,
    RunEvidence | None,
]
_NO_DETAIL: Detail = (tuple(() for _ in DIMENSIONS), (), False, None, None, None)
_GATES = tuple(name for name in DIMENSIONS if name in GATE_DIMENSIONS)
_BLOCK = 4096
_NUMBERS = tuple(column.name for column in ROW_COLUMNS if column.arrow_type == "float64")
_LISTED = tuple(name for name in ROW_FIELDS if name not in _NUMBERS)


def _is_false(flags: Any) -> np.ndarray:
    """Which flags are False (not True, not None): a nullable boolean array, a numpy array
    or a sequence of Python values."""
    if isinstance(flags, np.ndarray) and flags.dtype == bool:
        return ~flags
    if hasattr(flags, "isna") and hasattr(flags, "to_numpy"):  # a nullable boolean array
        return cast(np.ndarray, ~flags.to_numpy(dtype=bool, na_value=True))
    return np.fromiter((flag is False for flag in flags), dtype=bool, count=len(flags))


def _failing_of(code: int) -> tuple[str, ...]:
    """The failing gates a code of :meth:`RunTable.failing_at` stands for (-1: the gate
    passed)."""
    if code < 0:
        return ()
    failing: tuple[str, ...] = tuple(name for bit, name in enumerate(_GATES) if code >> bit & 1)
    if code >> len(_GATES) & 1:
        failing = (*failing, "audit")
    return failing or ("gate",)


class RunTable(Sequence[RunFacts]):
    """The runs of one side: columns for the rules, runs made when asked for."""

    def __init__(
        self,
        columns: Mapping[str, Sequence[Any]],
        *,
        frame: Any = None,
        details: Mapping[int, Detail] | None = None,
        runs: Sequence[RunFacts] | None = None,
    ) -> None:
        self._frame = frame
        self._details = dict(details or {})
        self._runs = tuple(runs) if runs is not None else None
        self.candidate: list[str] = list(columns["candidate"])
        """Candidate of each run."""
        self.case: list[str] = list(columns["case"])
        """Case of each run."""
        self.provider: list[str] = list(columns["provider"])
        """Provider of each run."""
        self.classification: list[str] = list(columns["classification"])
        """Classification of each run."""
        self.scoreable = np.asarray(columns["scoreable"], dtype=bool)
        """Whether each run has an overall score."""
        self.gate_failed = self.scoreable & _is_false(columns["gate_passed"])
        """Scoreable runs whose effective gate failed."""
        self.failed = self.scoreable & _is_false(columns["passed"])
        """Scoreable runs that did not pass (``overall.passed`` false)."""
        self.settlement_ms = np.asarray(columns["settlement_ms"], dtype=np.float64)
        """``metrics.settlementMs`` (NaN when absent)."""
        self.cost_usd = np.asarray(columns["cost_usd"], dtype=np.float64)
        """``metrics.costUsd`` (NaN when absent)."""
        # Per gate dimension, the runs whose flag is False (not None): bit i of a run's code.
        self._failed_code = np.zeros(len(self.candidate), dtype=np.int64)
        for bit, name in enumerate(_GATES):
            self._failed_code |= _is_false(columns[f"passed_{name}"]).astype(np.int64) << bit
        self._audit_failed = np.zeros(len(self.candidate), dtype=bool)
        """Runs whose failed findings failed the effective gate (``audit_gates`` and findings)."""
        for index, detail in self._details.items():
            if detail[2] and detail[1]:
                self._audit_failed[index] = True
        self._candidates: tuple[dict[str, int], np.ndarray] | None = None

    @classmethod
    def of_runs(cls, runs: Sequence[RunFacts]) -> RunTable:
        """The table of ``runs`` as they are (their order kept)."""
        columns: dict[str, Sequence[Any]] = {
            "candidate": [run.candidate for run in runs],
            "case": [run.case for run in runs],
            "provider": [run.provider for run in runs],
            "classification": [run.classification for run in runs],
            "scoreable": [run.scoreable for run in runs],
            "gate_passed": [run.gate_passed for run in runs],
            "passed": [run.passed for run in runs],
            "settlement_ms": [
                np.nan if run.settlement_ms is None else run.settlement_ms for run in runs
            ],
            "cost_usd": [np.nan if run.cost_usd is None else run.cost_usd for run in runs],
        }
        for name in _GATES:
            index = DIMENSIONS.index(name)
            columns[f"passed_{name}"] = [run.dimension_passed[index] for run in runs]
        return cls(columns, runs=runs)

    @classmethod
    def of_frame(cls, frame: Any, details: Mapping[int, Detail]) -> RunTable:
        """The table of a sorted records frame of one bundle and the detail of some of its runs
        (by row)."""
        columns: dict[str, Any] = dict(
            column_values(frame, ("candidate", "case", "provider", "classification"))
        )
        for name in ("gate_passed", "passed", *(f"passed_{name}" for name in _GATES)):
            columns[name] = frame[name].array  # nullable booleans: read as arrays
        for name in ("settlement_ms", "cost_usd"):
            columns[name] = frame[name].to_numpy(dtype=np.float64)
        columns["scoreable"] = frame["scoreable"].to_numpy(dtype=bool)
        return cls(columns, frame=frame, details=details)

    @property
    def of_a_frame(self) -> bool:
        """Whether the table was made of a records frame (:meth:`of_frame`)."""
        return self._runs is None

    @property
    def details(self) -> Mapping[int, Detail]:
        """The detail of the runs that have one, by position (a table of a frame)."""
        return self._details

    # --- what the rules read ------------------------------------------------------------------

    def findings(self, index: int) -> tuple[AuditFinding, ...]:
        """Failed audit findings of run ``index``."""
        if self._runs is not None:
            return self._runs[index].findings
        return self._details.get(index, _NO_DETAIL)[1]

    def finding_runs(self) -> list[int]:
        """The runs with failed audit findings, in order."""
        if self._runs is not None:
            return [index for index, run in enumerate(self._runs) if run.findings]
        return sorted(index for index, detail in self._details.items() if detail[1])

    def failing_gates(self, index: int) -> tuple[str, ...]:
        """:meth:`RunFacts.failing_gates` of run ``index``."""
        return self.failing_at([index])[0]

    def failing_at(self, positions: Sequence[int]) -> list[tuple[str, ...]]:
        """:meth:`RunFacts.failing_gates` of the runs at ``positions``, made together: each
        run's failed gate dimensions (and whether its audit failed it) are one code, and each
        code's names are made once."""
        if self._runs is not None:
            return [self._runs[position].failing_gates() for position in positions]
        chosen = np.asarray(positions, dtype=np.intp)
        audit = self._audit_failed[chosen].astype(np.int64) << len(_GATES)
        codes = np.where(self.gate_failed[chosen], self._failed_code[chosen] | audit, -1)
        names = {int(code): _failing_of(int(code)) for code in np.unique(codes)}
        return [names[code] for code in codes.tolist()]

    def scoreable_runs(self) -> Counter[tuple[str, str]]:
        """Scoreable runs per (candidate, case)."""
        keys = zip(self.candidate, self.case, strict=True)
        return Counter(itertools.compress(keys, self.scoreable.tolist()))

    def of_candidate(self, candidate: str | None) -> np.ndarray:
        """Which runs are ``candidate``'s (all for None)."""
        if candidate is None:
            return np.ones(len(self.candidate), dtype=bool)
        if self._candidates is None:
            names = sorted(set(self.candidate))
            code = {name: index for index, name in enumerate(names)}
            codes = np.fromiter(map(code.__getitem__, self.candidate), np.int64, len(self))
            self._candidates = (code, codes)
        code, codes = self._candidates
        if candidate not in code:
            return np.zeros(len(self.candidate), dtype=bool)
        mine: np.ndarray = codes == code[candidate]
        return mine

    def runs_at(self, positions: Sequence[int]) -> list[RunFacts]:
        """The runs at ``positions``, made together."""
        if self._runs is not None:
            return [self._runs[position] for position in positions]
        return list(self._made(list(positions)))

    # --- the frame the analysis reads ---------------------------------------------------------

    def frame(self) -> Any:
        """The records frame of these runs (bundle as the runs say)."""
        if self._frame is None:
            rows = LoadedRecords()
            rows.rows.extend(
                frame_row(run, run.bundle, overall=run.overall, scores=run.scores)
                for run in self._runs or ()
            )
            self._frame = records_frame(rows)
        return self._frame

    # --- the runs themselves ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.candidate)

    @overload
    def __getitem__(self, index: int) -> RunFacts: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RunFacts]: ...

    def __getitem__(self, index: int | slice) -> RunFacts | Sequence[RunFacts]:
        if self._runs is not None:
            return self._runs[index]
        if isinstance(index, slice):  # made together, as runs_at makes them
            return self.runs_at(range(*index.indices(len(self))))
        position = range(len(self))[index]
        return self._made([position])[0]

    def __iter__(self) -> Iterator[RunFacts]:
        if self._runs is not None:
            yield from self._runs
            return
        for start in range(0, len(self), _BLOCK):
            yield from self._made(range(start, min(start + _BLOCK, len(self))))

    def _made(self, positions: Sequence[int]) -> list[RunFacts]:
        chosen = list(positions)
        columns: dict[str, Sequence[Any]] = dict(column_values(self._frame, _LISTED, chosen))
        for name in _NUMBERS:  # as arrays: NaN becomes None in one step
            columns[name] = self._frame[name].to_numpy(dtype=np.float64)[chosen]
        details = map(self._details.get, chosen, itertools.repeat(_NO_DETAIL))
        return facts_of_columns(columns, details)
