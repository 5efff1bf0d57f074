"""Shared helpers for the migrate tests: the corpus, its `# expect:` markers,
and the one way to run the CLI and (rewritten) scripts in a subprocess."""

import ast
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

CORPUS = pathlib.Path(__file__).parent / "legacy_corpus"
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*([\w\-, ]+)")


def expected_findings(path: pathlib.Path) -> list[tuple[int, str]]:
    """Returns the sorted (line, rule_id) pairs that `# expect:` comments name."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            out.extend((number, rule.strip()) for rule in match.group(1).split(","))
    return sorted(out)


def parse_ok(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


ROOT = pathlib.Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "estimator_multigpu.migrate"]
_SCRIPTS = """
import contextlib, io, json, runpy, sys
exec(sys.argv[3])
runs, result = json.loads(sys.argv[1]), sys.argv[2]
out = {}
for label, path, argv in runs:
    sys.argv[1:] = argv
    buffer = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(buffer):
            runpy.run_path(path, run_name="__main__")
    except Exception as e:
        error = type(e).__name__ + ": " + str(e)
    out[label] = {"error": error, "stdout": buffer.getvalue().splitlines()}
with open(result, "w") as f:
    json.dump(out, f)
"""


def env(pythonpath: str = "", **extra) -> dict:
    """os.environ with quiet TF logs and the checkout (after `pythonpath`) importable."""
    path = os.pathsep.join(filter(None, [str(pythonpath or ""), str(ROOT)]))
    return {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": path, **extra}


def run(command, timeout=300, cwd=None, **env_extra) -> subprocess.CompletedProcess:
    """Runs `command` (a list) with `env(**env_extra)`; text output captured."""
    return subprocess.run(
        [str(c) for c in command],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env(**env_extra),
    )


def run_cli(*args, **kwargs) -> subprocess.CompletedProcess:
    """`python -m estimator_multigpu.migrate ARGS` (see `run` for the keywords)."""
    return run(CLI + list(args), **kwargs)


def run_script(path, *args, **kwargs) -> subprocess.CompletedProcess:
    """`python PATH ARGS` (see `run` for the keywords)."""
    return run([sys.executable, path, *args], **kwargs)


def run_scripts(runs, preamble: str = "", **kwargs) -> dict:
    """Runs several scripts in one subprocess (TensorFlow is imported once).

    Args:
      runs: (label, path, argv) triples; each script runs as `__main__` with
        `sys.argv[1:] = argv`.
      preamble: code run once before the scripts (e.g. thread settings).
      **kwargs: as for `run`.

    Returns:
      label -> {"error": "Type: message" or None, "stdout": [lines]}.

    Raises:
      AssertionError: the subprocess itself failed (its stderr's tail).
    """
    runs = [[label, str(path), [str(a) for a in argv]] for label, path, argv in runs]
    with tempfile.TemporaryDirectory() as work:
        result = os.path.join(work, "result.json")
        command = [sys.executable, "-c", _SCRIPTS, json.dumps(runs), result, preamble]
        proc = run(command, **kwargs)
        assert proc.returncode == 0 and os.path.exists(result), proc.stderr[-3000:]
        with open(result) as f:
            return json.load(f)
