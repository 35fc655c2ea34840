"""The candidate-comparison notebook: committed without outputs, and runs end to end."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "compare_candidates.ipynb"


def read_notebook() -> NotebookNode:
    """The committed notebook."""
    notebook: NotebookNode = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]  # nbformat's reader is unannotated
    return notebook


def shown_text(notebook: NotebookNode) -> str:
    """Every markdown and plain-text output of the executed notebook, joined."""
    parts: list[str] = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                parts.append(output.text)
            for kind in ("text/markdown", "text/plain"):
                parts.append(output.get("data", {}).get(kind, ""))
    return "\n".join(parts)


def test_the_committed_notebook_has_no_outputs() -> None:
    """Outputs are cleared before committing: no outputs, no execution counts."""
    notebook = read_notebook()
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] for cell in code)
    assert all(cell.execution_count is None for cell in code)


def test_the_notebook_runs_and_names_the_regressed_candidate() -> None:
    """Run from notebooks/, every cell succeeds, nothing is written to stderr, every plot is
    shown, and the conclusions name opencode-glm as regressed."""
    notebook = read_notebook()
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )
    client.execute()  # raises CellExecutionError when any cell fails
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    assert [output for output in outputs if output.get("name") == "stderr"] == []
    images = [output for output in outputs if "image/png" in output.get("data", {})]
    assert len(images) == 8
    text = shown_text(notebook)
    assert "**opencode-glm** regressed in campaign-2026-11-22" in text
    assert "Verdict: **" in text


@pytest.mark.parametrize("where", ["root", "notebooks", "elsewhere"])
def test_the_notebook_finds_the_repository_from_any_working_directory(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The setup cell finds the repository from its root, from notebooks/, or from a folder
    outside it (through the installed package), without a kernel."""
    folders = {"root": ROOT, "notebooks": ROOT / "notebooks", "elsewhere": tmp_path}
    monkeypatch.chdir(folders[where])
    setup = next(cell for cell in read_notebook().cells if cell.cell_type == "code")
    namespace: dict[str, object] = {}
    exec(compile(setup.source, "setup-cell", "exec"), namespace)
    assert namespace["ROOT"] == ROOT
    assert namespace["OBSERVATIONS"] == ROOT / "observations"
