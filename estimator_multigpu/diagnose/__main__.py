"""Command line: `python -m estimator_multigpu.diagnose my_pkg.input:train_input_fn`.

Checks the pipeline the function returns (a dataset, or an input_fn's
datasets) and prints the findings; with `--input-bound` it times training
steps instead. Exit status: 0 no error found, 1 error-severity findings,
2 bad usage (a target that cannot be loaded, called or checked).
"""

from __future__ import annotations

import argparse
import json
import sys

from estimator_multigpu.diagnose import (
    _checking,
    _loading,
    _plot,
    _report,
)
from estimator_multigpu.diagnose._findings import (
    ERROR,
    findings_as_json,
    format_findings,
)
from estimator_multigpu.diagnose._input_bound import input_bound
from estimator_multigpu.diagnose._waiting import InputTimeoutError


def _params(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON ({error})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object, e.g. '{\"lr\": 0.1}'")
    return value


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, not {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, not {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m estimator_multigpu.diagnose",
        description="Check a tf.data input pipeline for what slows or breaks "
        "it, or (--input-bound) measure whether training waits for it.",
    )
    p.add_argument(
        "target",
        metavar="MODULE:FUNCTION",
        help="a function returning a tf.data.Dataset, or an Estimator input_fn",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--mode", choices=_loading.MODES, default="train")
    p.add_argument("--params", type=_params, default=None, help="JSON object")
    p.add_argument("--num-devices", type=_positive, default=1)
    p.add_argument("--num-input-pipelines", type=_positive, default=None)
    bound = p.add_argument_group("input-bound analysis")
    bound.add_argument("--input-bound", action="store_true")
    bound.add_argument("--step", metavar="MODULE:FUNCTION", help="step_fn(batch)")
    bound.add_argument("--model-fn", metavar="MODULE:FUNCTION")
    bound.add_argument("--steps", type=_positive, default=50)
    bound.add_argument("--warmup-steps", type=int, default=5)
    bound.add_argument("--stage-seconds", type=float, default=1.0)
    bound.add_argument(
        "--input-timeout",
        type=_seconds,
        default=300.0,
        help="seconds to wait for one batch before giving up (default 300)",
    )
    bound.add_argument("--plot", metavar="PNG", help="per-stage throughput chart")
    return p


def _check(args, target) -> int:
    findings = _checking.check_input_fn(
        target,
        mode=args.mode,
        params=args.params,
        num_devices=args.num_devices,
        num_input_pipelines=args.num_input_pipelines,
    )
    text = findings_as_json if args.format == "json" else format_findings
    sys.stdout.write(text(findings))
    return 1 if any(f.severity == ERROR for f in findings) else 0


def _progress(phase: str, done: int, total: int, rate: float) -> None:
    speed = f", {rate:,.1f} examples/sec" if rate else ""
    end = "\n" if done == total else ""
    sys.stderr.write(f"\r{phase}: {done}/{total}{speed}   {end}")
    sys.stderr.flush()


def _input_bound(args, target, parser) -> int:
    if bool(args.step) == bool(args.model_fn):
        parser.error("--input-bound needs exactly one of --step and --model-fn")
    step = _loading.load_target(args.step) if args.step else None
    model_fn = _loading.load_target(args.model_fn) if args.model_fn else None
    if args.plot:
        _plot.check_path(args.plot, "--plot")
        _plot.require_matplotlib()
    result = input_bound(
        target,
        step,
        model_fn=model_fn,
        params=args.params,
        steps=args.steps,
        warmup_steps=args.warmup_steps,
        stage_seconds=args.stage_seconds,
        progress=_progress,
        input_timeout=args.input_timeout,
    )
    text = _report.report_as_json if args.format == "json" else _report.format_report
    sys.stdout.write(text(result))
    if args.plot:
        sys.stderr.write(f"Wrote {_plot.plot_stages(result, args.plot)}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Runs the tool on `argv` (default: sys.argv[1:]); returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        target = _loading.load_input_fn(args.target)
        if args.input_bound:
            return _input_bound(args, target, parser)
        return _check(args, target)
    except (
        _loading.UsageError,
        _checking.NoPipelineError,
        _plot.PlotPathError,
        InputTimeoutError,
        ImportError,
    ) as error:
        sys.stderr.write(f"error: {error}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
