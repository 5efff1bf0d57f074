"""The --plot flag of the benchmark scripts: a PNG bar chart of medians and ratios."""

from __future__ import annotations

import dataclasses
import os
import statistics
from collections.abc import Mapping, Sequence

from absl import flags

from estimator_multigpu.diagnose import _plot as plot_lib

_INSTALL = "pip install 'estimator-multigpu[diagnose]' (or pip install matplotlib)"


@dataclasses.dataclass(frozen=True)
class Bar:
    """One contender: its median, its runs and the ratio written beside it."""

    label: str
    median: float
    runs: tuple[float, ...]
    note: str


def ratio_bars(
    rates: Mapping[str, Sequence[float]],
    reference: str,
    scale: float = 1.0,
    reference_over_this: bool = False,
) -> list[Bar]:
    """Bars of each contender's median, annotated with its ratio to `reference`.

    Args:
      rates: contender name -> one rate per interleaved round (round i of
        every contender measured side by side).
      reference: the contender the ratios are taken against.
      scale: multiplies every rate (e.g. global batch size: steps -> examples).
      reference_over_this: annotate `reference / this` (how our contender
        compares with each alternative) instead of `this / reference`.

    Returns:
      One `Bar` per contender, in the order of `rates`. The note gives the
      ratio of medians and, in brackets, the median of per-round ratios.

    Raises:
      ValueError: if `reference` is not one of the contenders.
    """
    if reference not in rates:
        raise ValueError(
            f"`reference` ({reference!r}) must be one of the contenders "
            f"{sorted(rates)}; pass the name of the baseline."
        )
    base = rates[reference]
    return [
        _bar(name, runs, base, scale, reference, reference_over_this)
        for name, runs in rates.items()
    ]


def _bar(name, runs, base, scale, reference, reference_over_this) -> Bar:
    pairs = [(b, r) if reference_over_this else (r, b) for r, b in zip(runs, base)]
    paired = statistics.median(top / bottom for top, bottom in pairs)
    ratio = statistics.median(runs) / statistics.median(base)
    if reference_over_this:
        ratio, prefix = 1 / ratio, f"{reference} / this"
    else:
        prefix = f"this / {reference}"
    note = f"{prefix}: {ratio:.2f}× (per round {paired:.2f}×)"
    scaled = tuple(r * scale for r in runs)
    return Bar(name, statistics.median(scaled), scaled, note)


def check_path(path: str) -> str:
    """Checks, before a benchmark runs, that its plot can be written to `path`.

    Raises:
      ValueError: `path` does not end in .png or its folder does not exist.
      FileExistsError: `path` exists (a plot never replaces a file).
      ImportError: matplotlib is not installed.
    """
    if not path.lower().endswith(".png"):
        raise ValueError(f"--plot ({path!r}) must name a .png file, e.g. plot.png.")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(
            f"--plot ({path!r}): the folder {folder!r} does not exist; create it first."
        )
    if os.path.lexists(path):
        raise FileExistsError(
            f"--plot ({path!r}) exists; a plot never replaces a file. "
            "Choose a new name or remove the old plot."
        )
    _matplotlib()
    return path


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(f"--plot needs matplotlib: {_INSTALL}.") from error
    return Figure, FigureCanvasAgg


def define_plot_flag(
    what: str, flag_values: flags.FlagValues = flags.FLAGS
) -> flags.FlagHolder:
    """Defines `--plot=PATH`, checked by `check_path` when flags are parsed."""
    holder = flags.DEFINE_string(
        "plot",
        None,
        f"Write a PNG bar chart of {what} to this new file.",
        flag_values=flag_values,
    )
    flags.register_validator(
        holder.name, _validate, "--plot cannot be written.", flag_values
    )
    return holder


def _validate(path: str | None) -> bool:
    if path is None:
        return True
    try:
        check_path(path)
    except (ValueError, OSError, ImportError) as error:
        raise flags.ValidationError(str(error)) from error
    return True


def _figure(bars: Sequence[Bar], title: str, xlabel: str):
    figure_class, canvas_class = _matplotlib()
    figure = figure_class(figsize=(9, 0.8 * len(bars) + 1.4))
    canvas_class(figure)
    axes = figure.add_subplot()
    rows = range(len(bars))
    axes.barh(rows, [b.median for b in bars], color="tab:blue", alpha=0.75)
    for row, bar in zip(rows, bars):
        axes.plot(bar.runs, [row] * len(bar.runs), "k.", markersize=4)
    labels = [f"{b.label}\nmedian {b.median:,.0f}; {b.note}" for b in bars]
    axes.set_yticks(list(rows), labels, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.05 * max(max(b.runs + (b.median,)) for b in bars))
    axes.set_xlabel(xlabel)
    figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    return figure


def write_bar_chart(bars: Sequence[Bar], path: str, title: str, xlabel: str) -> str:
    """Writes bars (median, runs as dots, ratio note) to a new PNG file.

    The chart goes to a temporary file in the same folder, is synced, then
    linked into place, so a reader never sees half a file and an existing
    file is never replaced.

    Args:
      bars: from `ratio_bars`, top to bottom.
      path: the PNG file to create.
      title: the chart's title (what was compared, where).
      xlabel: the unit of the bars.

    Returns:
      `path`.

    Raises:
      ValueError: no bars, or a bad `path` (see `check_path`).
      FileExistsError: if `path` exists.
      ImportError: without matplotlib.
    """
    if not bars:
        raise ValueError("`bars` is empty; pass at least one contender to plot.")
    check_path(path)
    return plot_lib.save_png(_figure(bars, title, xlabel), path)
