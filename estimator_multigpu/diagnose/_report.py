"""The input-bound report as a table, and as JSON."""

from __future__ import annotations

import json

from estimator_multigpu.diagnose._input_bound import InputBoundReport
from estimator_multigpu.diagnose._stage_timing import StageThroughput


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _runs(report: InputBoundReport) -> list[str]:
    return [
        f"{'run':<22}{'ms/step':>12}{'examples/sec':>16}",
        f"{'real input':<22}{1000 * report.step_seconds:>12.2f}"
        f"{report.examples_per_sec:>16,.1f}",
        f"{'one cached batch':<22}{1000 * report.synthetic_step_seconds:>12.2f}"
        f"{report.synthetic_examples_per_sec:>16,.1f}",
    ]


def _stage_row(stage: StageThroughput, slowest: StageThroughput | None) -> str:
    mark = "  <- slowest" if stage == slowest else ""
    return (
        f"{stage.position:>3}  {stage.transformation:<44}"
        f"{_number(stage.elements_per_sec):>14}{_number(stage.examples_per_sec):>14}"
        f"{_number(stage.added_ms_per_example, 3):>12}{mark}"
    )


def _stages(report: InputBoundReport) -> list[str]:
    if not report.stages:
        return []
    lines = [
        "",
        "Each stage timed alone (the pipeline up to that transformation):",
        f"{'#':>3}  {'transformation':<44}{'elements/s':>14}{'examples/s':>14}"
        f"{'+ms/ex':>12}",
    ]
    lines.extend(_stage_row(s, report.slowest_stage) for s in report.stages)
    if report.slowest_stage is not None:
        slow = report.slowest_stage
        lines.append(f"Slowest stage: {slow.position} {slow.transformation}.")
    return lines


def format_report(report: InputBoundReport) -> str:
    """A table of the two runs, the verdict and the per-stage throughput."""
    lines = [
        f"Input-bound analysis: {report.steps} steps, "
        f"{report.examples_per_step:g} examples per step.",
        *_runs(report),
        f"Input: {100 * report.input_share:.1f}% of step time "
        f"({report.share_method}): {report.classification}.",
        *_stages(report),
    ]
    return "\n".join(lines) + "\n"


def report_as_json(report: InputBoundReport) -> str:
    """The report as indented JSON text (what `--format=json` prints)."""
    return json.dumps(report.to_dict(), indent=2) + "\n"
