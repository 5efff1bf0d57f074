"""Pipeline doctor and input-bound analysis (`python -m estimator_multigpu.diagnose`)."""

from estimator_multigpu.diagnose._checking import (
    NoPipelineError,
    check,
    check_input_fn,
)
from estimator_multigpu.diagnose._findings import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    findings_as_json,
    format_findings,
)
from estimator_multigpu.diagnose._input_bound import (
    HIGHLY,
    MODERATELY,
    NOT_INPUT_BOUND,
    InputBoundReport,
    input_bound,
)
from estimator_multigpu.diagnose._plot import plot_stages
from estimator_multigpu.diagnose._report import format_report, report_as_json
from estimator_multigpu.diagnose._rules import RULE_IDS
from estimator_multigpu.diagnose._stage_timing import StageThroughput

__all__ = [
    "ERROR",
    "HIGHLY",
    "INFO",
    "MODERATELY",
    "NOT_INPUT_BOUND",
    "RULE_IDS",
    "WARNING",
    "Finding",
    "InputBoundReport",
    "NoPipelineError",
    "StageThroughput",
    "check",
    "check_input_fn",
    "findings_as_json",
    "format_findings",
    "format_report",
    "input_bound",
    "plot_stages",
    "report_as_json",
]
