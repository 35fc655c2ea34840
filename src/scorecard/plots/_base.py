"""Shared pieces of the plotting layer: figures, colours, selections and empty-panel messages.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas: no pyplot, no
global figure registry, no change to ``rcParams``; every style choice is passed explicitly to
the artist that needs it.
"""

from __future__ import annotations

import io
import weakref
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FuncFormatter

from scorecard.aggregate import CampaignAnalysis, observed_categories, select_rows
from scorecard.contract import InputError, printable, shortened, xml_characters

__all__ = [
    "DPI",
    "MARKERS",
    "NO_COST_DATA",
    "NO_SCOREABLE_RUNS",
    "OKABE_ITO",
    "TEXT_LIMIT",
    "VERDICT_COLOURS",
    "bundle_rows",
    "bundle_table",
    "candidate_styles",
    "chosen_bundle",
    "error_bar",
    "figure_and_axes",
    "figure_and_panels",
    "in_bundle",
    "new_figure",
    "note_below",
    "point_labels",
    "save_figure",
    "select_candidates",
    "show_message",
]

DPI = 100
#: Okabe & Ito's colour-blind-safe qualitative palette (yellow last: faint on white).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
#: Markers paired with the colours, so series stay apart in greyscale too.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
VERDICT_COLOURS = {"better": "#0072B2", "worse": "#D55E00", "inconclusive": "#7F7F7F"}
NO_SCOREABLE_RUNS = "no scoreable runs"
NO_COST_DATA = "no cost data"


TEXT_LIMIT = 200
"""Characters of one line of figure text (a title, an axis label, a note) drawn at most: a
longer line (one naming an id of any length) is drawn shortened with a digest
(:func:`~scorecard.contract.shortened`); laying out its glyphs would take time in proportion."""
LABEL_LIMIT = 60
"""Characters of a tick label, legend entry or annotation (an id, mostly) drawn at most: beyond
it a label would squeeze the panel to nothing (constrained layout gives up)."""


class _Figure(Figure):
    """A figure whose texts are made inert and bounded (:func:`_make_texts_inert`) whenever it
    is drawn, whatever draws it (saving as PNG or SVG, measuring for a layout), before any of
    their glyphs are laid out."""

    def draw(self, renderer: Any) -> None:
        _make_texts_inert(self)
        super().draw(renderer)


def new_figure(size: tuple[float, float]) -> Figure:
    """A figure of ``size`` inches at :data:`DPI`, laid out by constrained layout, on Agg; its
    texts made inert and bounded when drawn."""
    figure = _Figure(figsize=size, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _owner(ax: Axes) -> Figure:
    figure = ax.get_figure(root=True)
    if not isinstance(figure, Figure):
        raise ValueError("the axes belong to no figure")
    return figure


def figure_and_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """Draw into ``ax`` (returning its figure), or into the one axes of a new figure."""
    if ax is not None:
        return _owner(ax), ax
    figure = new_figure(size)
    return figure, figure.add_subplot()


def figure_and_panels(
    axes: Sequence[Axes] | None,
    size: tuple[float, float],
    *,
    rows: int,
    columns: int,
    share: str,
) -> tuple[Figure, list[Axes]]:
    """Draw into the given ``rows * columns`` axes, or into a new grid sharing the ``share`` axis."""
    count = rows * columns
    if axes is not None:
        panels = list(axes)
        if len(panels) != count:
            raise ValueError(f"this plot draws {count} panels; got {len(panels)} axes")
        return _owner(panels[0]), panels
    figure = new_figure(size)
    grid = figure.subplots(
        rows, columns, sharex=share == "x", sharey=share == "y", squeeze=False
    ).ravel()
    return figure, list(grid)


def error_bar(
    estimate: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike
) -> list[npt.NDArray[np.float64]]:
    """The lengths below and above ``estimate`` of the interval ``[low, high]`` (matplotlib's
    ``xerr``/``yerr``), never negative: a bound computed in another order of sums can lie a
    rounding step past the estimate (a mean of 0.9000000000000001 with a high of 0.9), which
    matplotlib refuses."""
    value = np.asarray(estimate, dtype=np.float64)
    below = np.maximum(value - np.asarray(low, dtype=np.float64), 0.0)
    above = np.maximum(np.asarray(high, dtype=np.float64) - value, 0.0)
    return [np.atleast_1d(below), np.atleast_1d(above)]


def show_message(ax: Axes, message: str) -> None:
    """Say in the middle of the panel why there is nothing to draw (never an empty panel)."""
    ax.text(
        0.5,
        0.5,
        message,
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=12,
        color="#444444",
        bbox={"boxstyle": "round,pad=0.6", "facecolor": "#F2F2F2", "edgecolor": "#BBBBBB"},
    )
    ax.set_xticks([])
    ax.set_yticks([])


def note_below(ax: Axes, message: str) -> None:
    """A small note under the panel (missing data left out), where it cannot hide a point."""
    ax.annotate(
        message,
        xy=(0, 0),
        xycoords="axes fraction",
        xytext=(0, -34),
        textcoords="offset points",
        ha="left",
        va="top",
        fontsize=8,
        color="#444444",
    )


def in_bundle(bundle: str | None) -> str:
    """`` in BUNDLE`` for titles, or nothing when there are no runs."""
    return f" in {bundle}" if bundle else ""


def bundle_rows(frame: pd.DataFrame, bundle: str | None) -> tuple[pd.DataFrame, str | None]:
    """The rows of ``bundle``, or of the newest bundle (last in bundle order) when None."""
    if bundle is not None:
        return select_rows(frame, bundle=bundle), bundle
    present = observed_categories(frame["bundle"])
    if not present:
        return frame, None
    return select_rows(frame, bundle=present[-1]), present[-1]


def chosen_bundle(analysis: CampaignAnalysis, bundle: str | None) -> str | None:
    """``bundle`` (checked), or the newest bundle the analysis shows; None when it has no rows."""
    present = observed_categories(analysis.frame["bundle"])
    if bundle is not None:
        if bundle not in present:
            select_rows(analysis.frame, bundle=bundle)  # an unknown bundle is a clear error
        return bundle
    return present[-1] if present else None


def bundle_table(table: pd.DataFrame, bundle: str | None) -> pd.DataFrame:
    """The rows of an analysis table that belong to ``bundle`` (none when None)."""
    mask = (table["bundle"] == bundle).to_numpy(dtype=bool) & (bundle is not None)
    return table.loc[mask].reset_index(drop=True)


def select_candidates(frame: pd.DataFrame, candidates: Sequence[str] | None) -> pd.DataFrame:
    """Only the rows of ``candidates`` (all rows when None or empty); unknown ids are bad input."""
    if not candidates:
        return frame
    present = observed_categories(frame["candidate"])
    unknown = [name for name in candidates if name not in present]
    if unknown:
        known = ", ".join(present) or "none"
        raise InputError(
            f"no candidate {unknown[0]!r} in the records (found: {known})",
            rule="unknown_candidate",
        )
    mask = frame["candidate"].isin(list(candidates)).to_numpy()
    return frame.loc[mask].reset_index(drop=True)


def candidate_styles(frame: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Colour and marker per candidate, fixed by the candidate's place among all categories, so a
    candidate looks the same in every plot of the same records."""
    names = [str(name) for name in frame["candidate"].cat.categories]
    return {
        name: (
            OKABE_ITO[index % len(OKABE_ITO)],
            MARKERS[(index + index // len(OKABE_ITO)) % len(MARKERS)],
        )
        for index, name in enumerate(names)
    }


_POINT_LABELS: weakref.WeakSet[Text] = weakref.WeakSet()


def point_labels(labels: Sequence[Text]) -> None:
    """Mark ``labels`` as labels of points (ids): drawn within :data:`LABEL_LIMIT`."""
    _POINT_LABELS.update(labels)


def _shown(text: str, limit: int = TEXT_LIMIT) -> str:
    # Lines stay lines (wrapped labels); every other control is spelt as an escape, and a line
    # longer than ``limit`` is shortened with a digest.
    return "\n".join(shortened(printable(line), limit) for line in text.split("\n"))


def _label(text: str) -> str:
    return _shown(text, LABEL_LIMIT)


def _plain(text: str, limit: int) -> bool:
    return text.isascii() and text.replace("\n", "").isprintable() and len(text) <= limit


def _make_texts_inert(figure: Figure) -> None:
    """Spell the controls of every text of ``figure`` (titles, labels, legends, annotations,
    and fixed tick labels, which become text only when drawn) as visible escapes, and shorten
    a line past :data:`TEXT_LIMIT` characters (a tick label or legend entry past
    :data:`LABEL_LIMIT`). Doing it again changes nothing."""
    labels = {
        id(text)
        for legend in [*figure.legends, *(axes.get_legend() for axes in figure.axes)]
        if legend is not None
        for text in legend.get_texts()
    }
    for text in figure.findobj(Text):
        shown = text.get_text()
        limit = LABEL_LIMIT if id(text) in labels or text in _POINT_LABELS else TEXT_LIMIT
        if not _plain(shown, limit):
            text.set_text(_shown(shown, limit))
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, FixedFormatter):
                formatter.seq = [_label(str(label)) for label in formatter.seq]
            elif isinstance(formatter, FuncFormatter) and not getattr(
                formatter.func, "inert", False
            ):  # what set_ticks(..., labels) makes
                formatter.func = _inert_labels(formatter.func)


def _inert_labels(label: Callable[[float, int | None], str]) -> Callable[[float, int | None], str]:
    def shown(value: float, position: int | None = None) -> str:
        return _label(str(label(value, position)))

    shown.inert = True  # type: ignore[attr-defined]
    return shown


def save_figure(figure: Figure, stream: IO[bytes], image_format: str) -> None:
    """Write ``figure`` as PNG or SVG, reproducibly (no date, no software stamp), its texts
    (ids, reasons) shown with their controls spelt as escapes. An SVG is XML: any character XML
    does not allow left in it is spelt the same way
    (:func:`~scorecard.contract.xml_characters`), so the file always parses."""
    _make_texts_inert(figure)
    if image_format != "svg":
        figure.savefig(stream, format=image_format, metadata={"Software": None})
        return
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    stream.write(xml_characters(buffer.getvalue().decode("utf-8")).encode("utf-8"))
