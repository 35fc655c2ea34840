"""The one scoring run: inputs found and read, records scored in input order (serial, on
workers, through the fast path where it accepts), rows for aggregation, atomic output.
Heavy optional backends are public submodules imported on demand:
:mod:`scorecard.engine.parquet` (pyarrow) and :mod:`scorecard.engine.distributed` (Dask).

Names load on first use (PEP 562): a command imports the modules of what it uses (checking an
output path does not load the scoring run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scorecard.contract import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "Background": "_background",
    "in_background": "_background",
    "BundleFiles": "_bundle_files",
    "bundle_files": "_bundle_files",
    "file_state": "_bundle_files",
    "input_digest": "_bundle_files",
    "Keep": "_chunk_scorer",
    "check_bundle_id": "_io",
    "empty_input_notices": "_io",
    "load_policy": "_io",
    "read_policy_file": "_io",
    "read_json_lines": "_io",
    "read_records": "_io",
    "scoring_policy": "_io",
    "atomic_binary_writer": "_output",
    "atomic_folder": "_output",
    "atomic_writer": "_output",
    "is_special_file": "_output",
    "output_problems": "_output",
    "collection_paused": "_parallel",
    "PackedDocuments": "_packed",
    "default_workers": "_pool",
    "forked_map": "_pool",
    "score_rows_parallel": "_parallel",
    "score_text": "_parallel",
    "RecordDetail": "_detail",
    "RunEvidence": "_detail",
    "record_detail": "_detail",
    "failure_text": "_detail",
    "source_text": "_detail",
    "run_evidence": "_detail",
    "RunSummary": "_pipeline",
    "score_records": "_pipeline",
    "CLASSIFICATIONS": "_rows",
    "ROW_FIELDS": "_rows",
    "LoadedRecords": "_rows",
    "Row": "_rows",
    "count_input_files": "_rows",
    "input_bundles": "_rows",
    "is_records_file": "_rows",
    "record_row": "_rows",
    "scored_row": "_rows",
    "scoring_catalog": "_catalog",
    "ScoringRun": "_run",
    "StoredBlock": "_stored",
    "StoredRun": "_stored",
    "stored_record": "_stored",
    "load_records": "_run",
    "score_paths": "_run",
    "score_run": "_run",
}

__all__ = [
    "CLASSIFICATIONS",
    "ROW_FIELDS",
    "Background",
    "BundleFiles",
    "Keep",
    "LoadedRecords",
    "PackedDocuments",
    "RecordDetail",
    "Row",
    "RunEvidence",
    "RunSummary",
    "ScoringRun",
    "StoredBlock",
    "StoredRun",
    "atomic_binary_writer",
    "atomic_folder",
    "atomic_writer",
    "bundle_files",
    "check_bundle_id",
    "collection_paused",
    "count_input_files",
    "default_workers",
    "empty_input_notices",
    "failure_text",
    "file_state",
    "forked_map",
    "in_background",
    "input_bundles",
    "input_digest",
    "is_records_file",
    "is_special_file",
    "load_policy",
    "load_records",
    "output_problems",
    "read_json_lines",
    "read_policy_file",
    "read_records",
    "record_detail",
    "record_row",
    "run_evidence",
    "score_paths",
    "score_records",
    "score_rows_parallel",
    "score_run",
    "score_text",
    "scored_row",
    "scoring_catalog",
    "scoring_policy",
    "source_text",
    "stored_record",
]


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, base=__name__)


if TYPE_CHECKING:
    from ._background import Background, in_background
    from ._bundle_files import BundleFiles, bundle_files, file_state, input_digest
    from ._catalog import scoring_catalog
    from ._chunk_scorer import Keep
    from ._detail import (
        RecordDetail,
        RunEvidence,
        failure_text,
        record_detail,
        run_evidence,
        source_text,
    )
    from ._io import (
        check_bundle_id,
        empty_input_notices,
        load_policy,
        read_json_lines,
        read_policy_file,
        read_records,
        scoring_policy,
    )
    from ._output import (
        atomic_binary_writer,
        atomic_folder,
        atomic_writer,
        is_special_file,
        output_problems,
    )
    from ._packed import PackedDocuments
    from ._parallel import collection_paused, score_rows_parallel, score_text
    from ._pipeline import RunSummary, score_records
    from ._pool import default_workers, forked_map
    from ._rows import (
        CLASSIFICATIONS,
        ROW_FIELDS,
        LoadedRecords,
        Row,
        count_input_files,
        input_bundles,
        is_records_file,
        record_row,
        scored_row,
    )
    from ._run import ScoringRun, load_records, score_paths, score_run
    from ._stored import StoredBlock, StoredRun, stored_record
