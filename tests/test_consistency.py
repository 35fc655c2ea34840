"""One analysis, many views: every number a user can read about a subject is the same in every
view that shows it.

Subjects are a candidate in a bundle (pass rate, gate-pass rate and mean overall with their
intervals) and a candidate's comparison of a bundle with the one before it (paired means,
difference and interval, p-value, Holm-adjusted p-value, verdict). The views are the ones a user
reads: ``scorecard compare`` as table, JSON and CSV, ``compare --across-bundles`` as table, JSON
and CSV, ``scorecard gate`` as JSON, markdown and HTML (all through the real command line), the
plots' drawn numbers, and the notebook's own variables (its cells run here).

The expected value of each view is taken from another view, never from the code under test
reformatting itself; JSON and CSV numbers must be equal to the last bit, text views must spell
the same digits.
"""

from __future__ import annotations

import csv
import html.parser
import io
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from matplotlib.container import ErrorbarContainer
from typer.testing import CliRunner

from scorecard.aggregate import ComparisonSettings, analyze_campaign, records_frame
from scorecard.cli._app import app
from scorecard.engine import load_records
from scorecard.plots import plot_overall_scores, plot_paired_differences, plot_trends
from scorecard.simulate import simulate_campaign

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "observations"
NOTEBOOK = ROOT / "notebooks" / "compare_candidates.ipynb"
RATES = ("pass_rate", "gate_pass_rate", "mean_overall")
COMPARED = ("current", "baseline", "difference", "low", "high", "p_value", "p_adjusted", "verdict")

Summary = dict[str, tuple[float, float, float]]  # statistic -> (value, low, high)
Comparison = dict[str, Any]  # COMPARED fields


def run(*args: str | Path) -> str:
    """``scorecard ARGS`` through the real entry point; it must succeed (exit 0 or the gate's 1/3)."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


# --- what each view says -------------------------------------------------------------------


@dataclass
class Readings:
    """What every view says, by subject and view name."""

    summaries: dict[tuple[str, str], dict[str, Summary]] = field(default_factory=dict)
    """(bundle, candidate) -> view -> statistic -> (value, low, high)."""
    comparisons: dict[tuple[str, str, str], dict[str, Comparison]] = field(default_factory=dict)
    """(candidate, baseline bundle, current bundle) -> view -> fields."""
    texts: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)
    """(kind, subject...) -> view -> the text a text view shows."""

    def summary(self, bundle: str, candidate: str, view: str, values: Summary) -> None:
        self.summaries.setdefault((bundle, candidate), {})[view] = values

    def comparison(self, key: tuple[str, str, str], view: str, values: Comparison) -> None:
        self.comparisons.setdefault(key, {})[view] = values

    def text(self, key: tuple[str, ...], view: str, value: str) -> None:
        self.texts.setdefault(key, {})[view] = value


def _float(value: Any) -> float:
    return math.nan if value in (None, "") else float(value)


def _summary(row: dict[str, Any]) -> Summary:
    return {
        name: (_float(row[name]), _float(row[f"{name}_low"]), _float(row[f"{name}_high"]))
        for name in RATES
    }


def _comparison(document: dict[str, Any]) -> Comparison:
    overall = document["overall"]
    values: Comparison = {name: _float(overall[name]) for name in COMPARED[:-1]}
    values["verdict"] = document["verdict"]
    return values


def interval_text(values: tuple[float, float, float], digits: str = ".3f") -> str:
    """How the tables spell an estimate with its interval."""
    value, low, high = values
    return f"{value:{digits}} [{low:{digits}}, {high:{digits}}]"


def delta_text(values: Comparison) -> str:
    """How the tables spell a paired difference with its interval."""
    return f"{values['difference']:+.3f} [{values['low']:+.3f}, {values['high']:+.3f}]"


def table_rows(text: str) -> Iterator[list[str]]:
    """The body rows of rich tables, as stripped cells."""
    for line in text.splitlines():
        if line.startswith("│"):
            yield [cell.strip() for cell in line.strip("│").split("│")]


def markdown_table(text: str, first_header: str) -> list[dict[str, str]]:
    """The rows of the markdown table whose header starts with ``| first_header |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    header = [cell.strip() for cell in lines[start].strip("|").split(" | ")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


class _Tables(html.parser.HTMLParser):
    """Every HTML table as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_table(page: str, first_header: str, needs: str) -> list[dict[str, str]]:
    """The rows of the HTML table whose header starts with ``first_header`` and has ``needs``."""
    parser = _Tables()
    parser.feed(page)
    table = next(t for t in parser.tables if t and t[0][0] == first_header and needs in t[0])
    return [dict(zip(table[0], row, strict=True)) for row in table[1:]]


# --- the views -----------------------------------------------------------------------------


def read_compare(readings: Readings, inputs: list[Path], bundle: str) -> None:
    """``scorecard compare INPUTS --bundle B`` as JSON, CSV and table."""
    document = json.loads(run("compare", *inputs, "--bundle", bundle, "--format", "json"))
    for row in document["groups"]:
        readings.summary(bundle, row["candidate"], "compare json", _summary(row))
    for row in csv.DictReader(
        io.StringIO(run("compare", *inputs, "--bundle", bundle, "--format", "csv"))
    ):
        readings.summary(bundle, row["candidate"], "compare csv", _summary(row))
    for cells in table_rows(run("compare", *inputs, "--bundle", bundle)):
        if len(cells) == 9 and cells[1].isdigit():
            shown = dict(zip(RATES, cells[3:6], strict=True))
            for name, text in shown.items():
                readings.text(("summary", bundle, cells[0], name), "compare table", text)


def read_across(readings: Readings, inputs: list[Path], candidate: str) -> None:
    """``scorecard compare INPUTS --across-bundles C`` as JSON, CSV and table."""
    base: tuple[str | Path, ...] = ("compare", *inputs, "--across-bundles", candidate)
    document = json.loads(run(*base, "--format", "json"))
    for row in document["bundles"]:
        readings.summary(row["bundle"], candidate, "across json", _summary(row))
    for item in document["comparisons"]:
        key = (candidate, item["baseline"]["bundle"], item["current"]["bundle"])
        readings.comparison(key, "across json", _comparison(item))
    for row in csv.DictReader(io.StringIO(run(*base, "--format", "csv"))):
        readings.summary(row["bundle"], candidate, "across csv", _summary(row))
        if row["previous_bundle"]:
            values: Comparison = {
                "difference": _float(row["difference"]),
                "low": _float(row["difference_low"]),
                "high": _float(row["difference_high"]),
                "p_value": _float(row["p_value"]),
                "p_adjusted": _float(row["p_adjusted"]),
                "verdict": row["verdict"],
            }
            readings.comparison(
                (candidate, row["previous_bundle"], row["bundle"]), "across csv", values
            )
    bundles = [row["bundle"] for row in document["bundles"]]
    for cells in table_rows(run(*base)):
        if len(cells) == 8 and cells[1].isdigit():
            for name, text in zip(RATES, cells[3:6], strict=True):
                readings.text(("summary", cells[0], candidate, name), "across table", text)
        elif len(cells) == 8 and "/" in cells[1]:
            previous = bundles[bundles.index(cells[0]) - 1]
            subject = ("comparison", candidate, previous, cells[0])
            readings.text((*subject, "difference"), "across table", cells[2])
            readings.text((*subject, "p_value"), "across table", cells[3])
            readings.text((*subject, "p_adjusted"), "across table", cells[4])
            readings.text((*subject, "verdict"), "across table", cells[7])


def read_gate(readings: Readings, current: Path, baseline: Path, folder: Path) -> dict[str, Any]:
    """``scorecard gate CURRENT --baseline BASELINE`` as JSON, markdown and HTML."""
    json_file, markdown, page = folder / "gate.json", folder / "gate.md", folder / "gate.html"
    run(
        "gate",
        current,
        "--baseline",
        baseline,
        "--json",
        json_file,
        "--markdown",
        markdown,
        "--html",
        page,
    )
    document: dict[str, Any] = json.loads(json_file.read_text(encoding="utf-8"))
    now, before = document["current_bundle"], document["baseline_bundle"]
    for item in document["candidates"]:
        if item["candidate"] == "(all candidates)":
            continue
        for role, bundle in (("current", now), ("baseline", before)):
            side = item[role]
            if side is not None:
                values = {
                    name: tuple(_float(side[name][k]) for k in ("value", "low", "high"))
                    for name in RATES
                }
                readings.summary(bundle, item["candidate"], f"gate json ({role})", values)  # type: ignore[arg-type]
    for item in document["comparisons"]:
        if item["metric"] == "mean_overall" and item["candidate"] != "(all candidates)":
            key = (item["candidate"], before, now)
            readings.comparison(key, "gate json", _comparison(item["comparison"]))
    text = markdown.read_text(encoding="utf-8")
    rows = markdown_table(text, "candidate")
    cells = html_table(page.read_text(encoding="utf-8"), "candidate", "paired case means")
    for view, found in (("gate markdown", rows), ("gate html", cells)):
        for row in found:
            name = row["candidate"].replace("\\", "")
            if "all candidates" in name:
                continue
            readings.text(("summary", now, name, "mean_overall"), view, row["mean overall"])
            readings.text(
                ("summary", before, name, "mean_overall"), view, row["baseline mean overall"]
            )
            subject = ("comparison", name, before, now)
            readings.text((*subject, "means"), view, row["paired case means"])
            readings.text((*subject, "difference"), view, row["paired difference"])
            readings.text((*subject, "p_adjusted3"), view, row["Holm p"])
    return document


def read_plots(readings: Readings, inputs: list[Path]) -> None:
    """The numbers the plots draw, from the analysis the plot command builds."""
    loaded = load_records([str(path) for path in inputs])
    analysis = analyze_campaign(
        records_frame(loaded, bundle_order=loaded.bundle_order),
        ComparisonSettings(seed=0, tolerance=0.05),
    )
    for bundle in analysis.bundles:
        [axes] = plot_overall_scores(analysis, bundle=bundle).axes
        bars = [item for item in axes.containers if isinstance(item, ErrorbarContainer)]
        names = [label.get_text() for label in axes.get_yticklabels()]
        for name, bar in zip(names, bars, strict=True):
            mean = float(np.asarray(bar.lines[0].get_xdata(), dtype=np.float64)[0])
            segment = bar.lines[2][0].get_segments()[0]
            drawn: Summary = {"mean_overall": (mean, float(segment[0][0]), float(segment[1][0]))}
            readings.summary(bundle, name, "overall plot", drawn)
    top = plot_trends(analysis).axes[0]
    for bar in (item for item in top.containers if isinstance(item, ErrorbarContainer)):
        name = str(bar.get_label())
        xs = np.rint(np.asarray(bar.lines[0].get_xdata(), dtype=np.float64)).astype(int)
        ys = np.asarray(bar.lines[0].get_ydata(), dtype=np.float64)
        segments = bar.lines[2][0].get_segments()
        for x, y, segment in zip(xs, ys, segments, strict=True):
            point: Summary = {
                "mean_overall": (float(y), float(segment[0][1]), float(segment[1][1]))
            }
            readings.summary(analysis.bundles[x], name, "trends plot", point)
    for baseline, current in analysis.comparison_pairs():
        for name, comparison in analysis.family(baseline, current).items():
            if name == "(all candidates)":
                continue
            [axes] = plot_paired_differences(comparison).axes
            overall = next(
                text.get_text() for text in axes.texts if text.get_fontweight() == "bold"
            )
            verdict = axes.get_title().rsplit("verdict: ", 1)[1].lower()
            key = ("comparison", name, baseline, current)
            readings.text((*key, "paired plot"), "paired plot", f"{overall} {verdict}")


def read_notebook(readings: Readings) -> None:
    """Run the notebook's code cells (from notebooks/, as a user would) and read its variables."""
    namespace: dict[str, Any] = {}
    notebook = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    previous = Path.cwd()
    os.chdir(NOTEBOOK.parent)
    try:
        for cell in notebook.cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, "notebook-cell", "exec"), namespace)
    finally:
        os.chdir(previous)
    for row in namespace["summary"].to_dict(orient="records"):
        readings.summary(str(row["bundle"]), str(row["candidate"]), "notebook", _summary(row))
    for row in namespace["changes"].to_dict(orient="records"):
        if row["candidate"] == "(all candidates)":
            continue
        values: Comparison = {
            "difference": row["difference"],
            "low": row["low"],
            "high": row["high"],
            "p_value": row["p_value"],
            "p_adjusted": row["p_adjusted"],
            "verdict": row["verdict"],
        }
        readings.comparison((row["candidate"], row["previous"], row["newest"]), "notebook", values)
    drop = namespace["drop"]
    key = (drop.current.candidate, drop.baseline.bundle, drop.current.bundle)
    readings.comparison(key, "notebook plot", _comparison(drop.to_json()))


# --- the checks ----------------------------------------------------------------------------


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    return bool(left == right)


def assert_views_agree(readings: Readings) -> None:
    """Every view's number equals every other view's for the same subject."""
    problems = []
    for key, views in readings.summaries.items():
        names = sorted(views)
        for statistic in RATES:
            seen = {name: views[name][statistic] for name in names if statistic in views[name]}
            first = next(iter(seen.values()))
            for name, values in seen.items():
                # Drawn whisker ends are mean -/+ (mean - low) in floats: equal to 12 digits.
                exact = "plot" not in name
                close = all(
                    _same(a, b) if exact else math.isclose(a, b, abs_tol=1e-12)
                    for a, b in zip(values, first, strict=True)
                )
                if not close:
                    problems.append(f"{key} {statistic}: {name} {values} vs {first}")
            text = interval_text(first)
            for view, shown in readings.texts.get(("summary", *key, statistic), {}).items():
                if shown != text:
                    problems.append(f"{key} {statistic}: {view} shows {shown!r}, others {text!r}")
    for pair, compared in readings.comparisons.items():
        first_name, reference = next(iter(sorted(compared.items())))
        for name, found in compared.items():
            for field_name, value in found.items():
                if field_name in reference and not _same(value, reference[field_name]):
                    problems.append(
                        f"{pair} {field_name}: {name} {value!r} vs {first_name} {reference[field_name]!r}"
                    )
        full = compared.get("across json") or compared.get("gate json") or reference
        texts = readings.texts
        expected = {
            "difference": delta_text(full),
            "p_value": f"{full['p_value']:.4f}",
            "p_adjusted": f"{full['p_adjusted']:.4f}",
            "p_adjusted3": f"{full['p_adjusted']:.3f}",
            "verdict": full["verdict"],
            "paired plot": (
                f"{full['difference']:+.3f} [{full['low']:+.3f}, {full['high']:+.3f}]  "
                f"p={full['p_adjusted']:.3g} {full['verdict']}"
            ),
        }
        if "current" in full:
            expected["means"] = f"{full['current']:.3f} vs {full['baseline']:.3f}"
        for field_name, text in expected.items():
            for view, shown in texts.get(("comparison", *pair, field_name), {}).items():
                if shown != text:
                    problems.append(f"{pair} {field_name}: {view} shows {shown!r}, others {text!r}")
    assert problems == []


def records_files(folders: list[Path], out: Path) -> list[Path]:
    """Each bundle folder scored once into its own records file (what CI keeps)."""
    files = []
    for folder in folders:
        target = out / f"{folder.name}.jsonl"
        run("score", folder, "--format", "records", "--out", target)
        files.append(target)
    return files


def collect(folders: list[Path], tmp_path: Path, *, notebook: bool = False) -> Readings:
    """Every view of a campaign (bundle folders oldest first), read into one :class:`Readings`."""
    files = records_files(folders, tmp_path)
    readings = Readings()
    document = json.loads(
        run("compare", *files, "--across-bundles", _any_candidate(files[0]), "--format", "json")
    )
    bundles = [row["bundle"] for row in document["bundles"]]
    for bundle in bundles:
        read_compare(readings, files, bundle)
    candidates = sorted({candidate for (_, candidate) in readings.summaries})
    for candidate in candidates:
        read_across(readings, files, candidate)
    for index in range(1, len(files)):
        gate_folder = tmp_path / f"gate-{index}"
        gate_folder.mkdir()
        read_gate(readings, files[index], files[index - 1], gate_folder)
    read_plots(readings, files)
    if notebook:
        read_notebook(readings)
    return readings


def _any_candidate(records: Path) -> str:
    first = json.loads(records.read_text(encoding="utf-8").splitlines()[0])
    return str(first["candidateId"])


# --- the tests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_readings(tmp_path_factory: pytest.TempPathFactory) -> Readings:
    """Every view of the sample campaign, the notebook included."""
    folders = sorted(path for path in SAMPLES.iterdir() if path.is_dir())
    return collect(folders, tmp_path_factory.mktemp("sample"), notebook=True)


def test_every_view_of_the_sample_campaign_agrees(sample_readings: Readings) -> None:
    """Intervals, p-values, verdicts and means of each subject are the same in every view."""
    assert_views_agree(sample_readings)


def test_every_subject_is_seen_by_several_views(sample_readings: Readings) -> None:
    """The agreement is not vacuous: each newest-bundle summary is read by the compare views,
    the gate, the plots and the notebook; each comparison of the newest pair by the across-bundles
    views, the gate, the paired plot and the notebook."""
    summary = sample_readings.summaries[("campaign-2026-11-22", "opencode-glm")]
    assert set(summary) == {
        "across csv",
        "across json",
        "compare csv",
        "compare json",
        "gate json (current)",
        "notebook",
        "overall plot",
        "trends plot",
    }
    key = ("opencode-glm", "campaign-2026-11-15", "campaign-2026-11-22")
    assert set(sample_readings.comparisons[key]) == {
        "across csv",
        "across json",
        "gate json",
        "notebook",
        "notebook plot",
    }
    assert len(sample_readings.comparisons) == 3 * 7
    text_views = {
        view
        for subject, views in sample_readings.texts.items()
        if subject[:2] == ("comparison", "opencode-glm")
        for view in views
    }
    assert text_views == {"across table", "gate markdown", "gate html", "paired plot"}


def test_the_issue_numbers_are_one_number_each(sample_readings: Readings) -> None:
    """opencode-glm in 2026-11-22: one interval, one Holm p, one verdict (the issue saw three
    intervals, two p-values and two verdicts)."""
    summary = sample_readings.summaries[("campaign-2026-11-22", "opencode-glm")]
    intervals = {interval_text(values["mean_overall"]) for values in summary.values()}
    # The gate-pass x quality interval of mean overall (docs/aggregation.md section 3).
    assert intervals == {"0.445 [0.251, 0.635]"}
    key = ("opencode-glm", "campaign-2026-11-15", "campaign-2026-11-22")
    views = sample_readings.comparisons[key]
    assert {values["p_value"] for values in views.values()} == {0.015625}
    # Holm over the 7 candidates of the pair (the pooled comparison is shown, not a member):
    # 7 x 0.015625.
    assert {values["p_adjusted"] for values in views.values()} == {0.109375}
    assert {values["verdict"] for values in views.values()} == {"inconclusive"}


@pytest.mark.parametrize("seed", [7])
def test_every_view_of_a_generated_campaign_agrees(seed: int, tmp_path: Path) -> None:
    """The same on generated three-night campaigns (scorecard.simulate), other seeds."""
    folders = simulate_campaign(tmp_path / "observations", seed=seed, bundles=3)
    readings = collect(folders, tmp_path)
    assert len(readings.comparisons) >= 2 * 6
    assert_views_agree(readings)
