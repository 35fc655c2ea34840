"""The one scoring run: inputs found and read, records scored in input order (serial, on
workers, through the fast path where it accepts), rows for aggregation, atomic output.
Heavy optional backends are public submodules imported on demand:
:mod:`scorecard.engine.parquet` (pyarrow) and :mod:`scorecard.engine.distributed` (Dask).
"""

from ._io import load_policy, read_json_lines, read_records, scoring_policy
from ._output import (
    atomic_binary_writer,
    atomic_folder,
    atomic_writer,
    is_special_file,
    output_problems,
)
from ._parallel import default_workers, score_rows_parallel, score_text
from ._pipeline import RunSummary, score_records
from ._rows import (
    CLASSIFICATIONS,
    ROW_FIELDS,
    LoadedRecords,
    Row,
    count_input_files,
    is_records_file,
    record_row,
    scored_row,
)
from ._run import ScoringRun, load_records, score_paths, score_run

__all__ = [
    "CLASSIFICATIONS",
    "ROW_FIELDS",
    "LoadedRecords",
    "Row",
    "RunSummary",
    "ScoringRun",
    "atomic_binary_writer",
    "atomic_folder",
    "atomic_writer",
    "count_input_files",
    "default_workers",
    "is_records_file",
    "is_special_file",
    "load_policy",
    "load_records",
    "output_problems",
    "read_json_lines",
    "read_records",
    "record_row",
    "score_paths",
    "score_records",
    "score_rows_parallel",
    "score_run",
    "score_text",
    "scored_row",
    "scoring_policy",
]
