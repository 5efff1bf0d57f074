"""Command line: `python -m estimator_multigpu.launch --ps=1 --workers=2 -- CMD ...`.

Starts each task of a local cluster on 127.0.0.1 (free ports) running CMD
with its own `TF_CONFIG`, prefixes its output lines (`[worker:1] ...`), and
exits with the chief's status, or the status of the first task that fails.
An evaluator gets `--evaluator-grace-seconds` after the chief finishes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys

from estimator_multigpu.launch._plan import plan_tasks
from estimator_multigpu.launch._supervisor import Supervisor


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, not {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, not {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m estimator_multigpu.launch",
        description="Run a command as every task of a local TF_CONFIG cluster.",
        epilog="Every task, ps included, runs the command with its own TF_CONFIG.",
    )
    p.add_argument("--ps", type=_count, default=0, help="parameter-server tasks")
    p.add_argument("--workers", type=_count, default=1, help="worker tasks")
    p.add_argument("--chief", action="store_true", help="add a chief task")
    p.add_argument("--evaluator", action="store_true", help="add an evaluator")
    p.add_argument(
        "--restart-failed", action="store_true", help="restart crashed workers"
    )
    p.add_argument(
        "--max-restarts",
        type=_count,
        default=None,
        help="per worker, with --restart-failed (default 3)",
    )
    p.add_argument(
        "--grace-seconds",
        type=_seconds,
        default=10.0,
        help="SIGTERM to SIGKILL when stopping a task (default 10)",
    )
    p.add_argument(
        "--evaluator-grace-seconds",
        type=_seconds,
        default=120.0,
        help="after the chief finishes with status 0, how long an evaluator "
        "still running gets to evaluate the final checkpoint and exit before "
        "it is stopped (default 120); the other tasks are stopped at once",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD [ARG ...]")
    return p


class _Terminated(KeyboardInterrupt):
    """SIGTERM to the launcher: stop the tasks as on Ctrl-C."""

    signum = signal.SIGTERM


def _terminate(signum, frame):
    raise _Terminated


def _check_restarts(parser: argparse.ArgumentParser, args) -> None:
    if args.max_restarts is not None and not args.restart_failed:
        parser.error(
            f"--max-restarts={args.max_restarts} has no effect without "
            "--restart-failed: add --restart-failed (crashed workers are not "
            "restarted otherwise), or drop --max-restarts"
        )


def _check_command(parser: argparse.ArgumentParser, program: str) -> None:
    """Exits with a usage error if `program` cannot be run by every task."""
    if os.sep not in program:
        if shutil.which(program) is None:
            parser.error(
                f"command not found: {program!r} is not on PATH; give its path "
                "(e.g. ./train.sh) or the interpreter (e.g. -- python train.py)"
            )
        return
    if not os.path.exists(program):
        parser.error(f"command not found: {program!r} does not exist")
    if os.path.isdir(program) or not os.access(program, os.X_OK):
        parser.error(
            f"command {program!r} is not executable: run it through its "
            f"interpreter (e.g. -- python {program}) or chmod +x it"
        )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    _check_restarts(parser, args)
    if not command:
        parser.error("no command: put it after `--`, e.g. -- python -m cifar10.main")
    _check_command(parser, command[0])
    try:
        tasks = plan_tasks(args.ps, args.workers, args.chief, args.evaluator)
    except ValueError as error:
        parser.error(str(error))
    signal.signal(signal.SIGTERM, _terminate)
    restarts = 0
    if args.restart_failed:
        restarts = 3 if args.max_restarts is None else args.max_restarts
    supervisor = Supervisor(
        tasks,
        command,
        restarts,
        args.grace_seconds,
        evaluator_grace_seconds=args.evaluator_grace_seconds,
    )
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main())
