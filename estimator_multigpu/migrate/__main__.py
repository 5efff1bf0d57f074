"""Command line: `python -m estimator_multigpu.migrate PATH...` (also `emg-migrate`).

Exit status: 0 when nothing is left to migrate (findings accepted with
`# emg-migrate: ignore[rule]` or `--ignore RULE` do not count), 1 when findings remain,
2 when a file could not be read, parsed or written (it is reported, left
unchanged, and the other files are still processed). Paths that are not
regular files (FIFOs, devices, broken links) are skipped with a note.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from estimator_multigpu.migrate import (
    _ignore,
    _queue_program,
    _report,
    _runner,
    _upgrade,
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="emg-migrate",
        description="Find TF 1.x queue, Estimator, contrib and tower-loop code; "
        "rewrite what is safe onto estimator_multigpu.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument(
        "--fix",
        action="store_true",
        help="rewrite the files (each replaced atomically; the original is kept "
        "as FILE.bak, or FILE.bak.N if that name is taken)",
    )
    p.add_argument("--diff", action="store_true", help="print the rewrite as a diff")
    p.add_argument(
        "--no-backup", action="store_true", help="with --fix, keep no backup copy"
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="RULE",
        help="do not report findings of RULE (e.g. queue-runner); repeatable. "
        "To accept one line, end it with `# emg-migrate: ignore[RULE]` "
        "(or `# emg-migrate: ignore` for every rule on that line)",
    )
    p.add_argument(
        "--upgrade-v2",
        action="store_true",
        help="first run TensorFlow's tf_upgrade_v2 (in a subprocess; needs "
        "TensorFlow) to rename TF 1.x names to tf.compat.v1.*, instead of "
        "switching `import tensorflow as tf` to the compat.v1 module (the default)",
    )
    return p


def _upgraded(paths: list[str], wanted: bool) -> dict:
    """path -> tf_upgrade_v2's `upgrade.Upgraded`, with --upgrade-v2 (else empty)."""
    return _upgrade.upgrade(paths) if wanted else {}


def _emit(stream, text: str) -> None:
    """Writes `text`; what the stream cannot encode (a file name that is not
    UTF-8, say) is written as a backslash escape instead of failing."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def main(argv: list[str] | None = None) -> int:
    """Runs the tool on `argv` (default: sys.argv[1:]); returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    unknown = sorted(set(args.ignore) - _ignore.known_rules())
    if unknown:
        parser.error(
            f"--ignore {unknown[0]!r} is not a rule id; use one of: "
            + ", ".join(sorted(_ignore.known_rules()))
        )
    ignored = frozenset(args.ignore)
    paths = _runner.collect(args.paths)
    try:
        upgraded = _upgraded(paths, args.upgrade_v2)
    except (_upgrade.UpgradeError, OSError, subprocess.TimeoutExpired) as e:
        _emit(sys.stderr, f"emg-migrate: error: {e}\n")
        return 2
    results = _queue_program.process_all(paths, ignored, _upgrade.texts(upgraded))
    _upgrade.keep_failed(results, upgraded)
    if args.diff:
        _emit(sys.stdout, "".join(_runner.diff(r) for r in results))
    if args.fix:
        for r in results:
            _runner.write(r, backup=not args.no_backup)
    fmt = _report.as_json if args.format == "json" else _report.as_text
    out = fmt(results, applied=args.fix)
    _emit(sys.stderr if args.diff and args.format == "text" else sys.stdout, out)
    if any(r.error for r in results):
        return 2
    left = [r.remaining if args.fix else r.findings for r in results]
    return 1 if any(left) else 0


def run() -> None:
    """Console-script entry point (`emg-migrate`)."""
    sys.exit(main())


if __name__ == "__main__":
    run()
