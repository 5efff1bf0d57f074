"""A PNG bar chart of per-stage throughput (needs the `[diagnose]` extra: matplotlib)."""

from __future__ import annotations

import os
import tempfile

from estimator_multigpu.diagnose._input_bound import InputBoundReport


class PlotPathError(ValueError):
    """The chart's path cannot take a new file."""


def check_path(path: str, name: str = "`path`") -> None:
    """Raises PlotPathError unless a new file can be created at `path`.

    Run before measuring, so a bad path does not cost the measurement.
    """
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise PlotPathError(
            f"{name}: the folder {folder!r} does not exist (path {path!r}); "
            "create it first, or choose a path in an existing folder."
        )
    if os.path.exists(path):
        raise PlotPathError(
            f"{name}: {path!r} exists; it is never overwritten. Choose a new name."
        )
    if not os.access(folder, os.W_OK):
        raise PlotPathError(
            f"{name}: the folder {folder!r} is not writable; choose another path."
        )


def require_matplotlib():
    """`(FigureCanvasAgg, Figure)`; ImportError naming the extra without it."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            "plot_stages needs matplotlib: pip install 'estimator-multigpu[diagnose]'."
        ) from error
    return FigureCanvasAgg, Figure


def _figure(report: InputBoundReport):
    FigureCanvasAgg, Figure = require_matplotlib()  # noqa: N806
    stages = [s for s in report.stages if s.examples_per_sec or s.elements_per_sec]
    figure = Figure(figsize=(8, 0.5 * len(stages) + 1.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    values = [s.examples_per_sec or s.elements_per_sec for s in stages]
    colors = ["tab:red" if s == report.slowest_stage else "tab:blue" for s in stages]
    axes.barh(
        [f"{s.position} {s.transformation}" for s in stages], values, color=colors
    )
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("examples/sec, each stage alone (red: slowest)")
    figure.tight_layout()
    return figure


def plot_stages(report: InputBoundReport, path: str) -> str:
    """Writes a bar chart of each stage's throughput to a new PNG file.

    The file is written to a temporary file in the same folder and linked
    into place, so a reader never sees half a file; an existing file is
    never replaced.

    Args:
      report: from `input_bound` (with stages timed).
      path: the PNG file to create.

    Returns:
      `path`.

    Raises:
      ValueError: if the report has no timed stages.
      FileExistsError: if `path` exists.
      PlotPathError: (a ValueError) its folder is missing or not writable.
      ImportError: without matplotlib.
    """
    if not report.stages:
        raise ValueError(
            "The report has no stage timings to plot; run input_bound with "
            "time_stages=True."
        )
    if os.path.exists(path):
        raise FileExistsError(
            f"{path!r} exists; plot_stages never overwrites a file. Choose a new name."
        )
    check_path(path)
    return save_png(_figure(report), path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_png(figure, path: str) -> str:
    """Writes a matplotlib `figure` to a new PNG file, atomically.

    The PNG goes to a temporary file in the same folder, is flushed to disk
    and linked into place, so a reader never sees half a file; the file gets
    the permissions the umask gives new files; an existing file is never
    replaced.

    Returns:
      `path`.

    Raises:
      FileExistsError: if `path` exists (also if it appears meanwhile).
    """
    handle, temporary = tempfile.mkstemp(
        suffix=".png", dir=os.path.dirname(os.path.abspath(path))
    )
    try:
        with os.fdopen(handle, "wb") as out:
            figure.savefig(out, format="png", dpi=100)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private.
        os.link(temporary, path)  # Fails, atomically, if `path` appeared meanwhile.
    finally:
        os.unlink(temporary)
    return path
