"""Shared helpers for the migrate tests: the corpus, its `# expect:` markers,
and the one way to run the CLI and (rewritten) scripts in a subprocess."""

import ast
import dataclasses
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable

from estimator_multigpu.migrate import _fixer, _passes, _runner, _scanner
from estimator_multigpu.migrate.__main__ import main
from estimator_multigpu.migrate._kept_comments import PREFIX

CORPUS = pathlib.Path(__file__).parent / "legacy_corpus"
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*([\w\-, ]+)")


def _marked_lines(path: pathlib.Path):
    """(number, line) of each line of `path` that can mark a finding: not a
    comment `--fix` carried out of code it rewrote (`# (before --fix) ...`,
    which stands on a line of its own, with no code to mark)."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.lstrip().startswith(PREFIX):
            yield number, line


def expected_findings(path: pathlib.Path) -> list[tuple[int, str]]:
    """Returns the sorted (line, rule_id) pairs that `# expect:` comments name."""
    out = []
    for number, line in _marked_lines(path):
        match = _EXPECT.search(line)
        if match:
            out.extend((number, rule.strip()) for rule in match.group(1).split(","))
    return sorted(out)


def ported_findings(path: pathlib.Path) -> list[tuple[int, str]]:
    """Returns the sorted (line, rule_id) pairs that `# port:` comments name
    (the findings after the passes, where `# expect:` names the table's)."""
    out = []
    for number, line in _marked_lines(path):
        match = re.search(r"#\s*port:\s*([\w\-, ]+)", line)
        if match:
            out.extend((number, rule.strip()) for rule in match.group(1).split(","))
    return sorted(out)


def fix_snippet(source: str, path: str = "snippet.py"):
    """The queue fixer run on `source` (dedented) as file `path`:
    (its result, the scanned findings)."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    findings = _scanner.scan_rules(tree, source, path)
    return _fixer.fix(source, tree, findings), findings


def fix_with_passes(source: str) -> tuple[str, list]:
    """The rule passes, then the queue fixer, on `source` (dedented): (the
    fixed text, the findings)."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    found = _scanner.scan_rules(tree, source, "snippet.py")
    findings = _passes.scan(tree, source, "snippet.py", found)
    return _fixer.fix(source, tree, findings).source, findings


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
runs, result, before_each = json.loads(sys.argv[1]), sys.argv[2], sys.argv[4]
out = {}
for label, path, argv in runs:
    exec(before_each)
    sys.argv[1:] = argv
    buffer = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(buffer):
            runpy.run_path(path, run_name="__main__")
    except BaseException as e:
        error = type(e).__name__ + ": " + str(e)
    out[label] = {"error": error, "stdout": buffer.getvalue().splitlines()}
with open(result, "w") as f:
    json.dump(out, f)
"""

# Preambles for `run_scripts`: two logical CPU devices (set once, before any
# script runs), a fresh default graph before each script, and enough inter-op
# threads for queue runners' blocking ops on a 2-core machine.
TWO_DEVICES = """
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
"""
RESET_GRAPH = "tf.compat.v1.reset_default_graph()"
V1 = "import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n"
QUEUE_THREADS = "import tensorflow as tf\ntf.config.threading.set_inter_op_parallelism_threads(16)\n"
_V1_SCRIPT = (
    "import os, runpy, sys, tensorflow as tf; tf.compat.v1.disable_v2_behavior(); "
    "sys.argv = sys.argv[1:]; sys.path.insert(0, os.path.dirname(sys.argv[0])); "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


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


def start(command, **env_extra) -> subprocess.Popen:
    """Starts `command` (a list) with `env(**env_extra)`; stdout piped as text."""
    command = [str(c) for c in command]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env=env(**env_extra)
    )


def run_script(path, *args, mode: str = "v2", **kwargs) -> subprocess.CompletedProcess:
    """`python PATH ARGS`; mode "v1" runs it under disable_v2_behavior() (see
    `run` for the keywords)."""
    prefix = ["-c", _V1_SCRIPT] if mode == "v1" else []
    return run([sys.executable, *prefix, path, *args], **kwargs)


def run_scripts(runs, preamble: str = "", before_each: str = "", **kwargs) -> dict:
    """Runs several scripts in one subprocess (TensorFlow is imported once).

    Args:
      runs: (label, path, argv) triples; each script runs as `__main__` with
        `sys.argv[1:] = argv`.
      preamble: code run once before the scripts (e.g. thread settings).
      before_each: code run before each script (e.g. `RESET_GRAPH`).
      **kwargs: as for `run`.

    Returns:
      label -> {"error": "Type: message" or None, "stdout": [lines]}.

    Raises:
      AssertionError: the subprocess itself failed (its stderr's tail).
    """
    runs = [[label, str(path), [str(a) for a in argv]] for label, path, argv in runs]
    with tempfile.TemporaryDirectory() as work:
        result = os.path.join(work, "result.json")
        command = [sys.executable, "-c", _SCRIPTS, json.dumps(runs), result]
        proc = run(command + [preamble, before_each], **kwargs)
        assert proc.returncode == 0 and os.path.exists(result), proc.stderr[-3000:]
        with open(result) as f:
            return json.load(f)


def script_lines(runs, preamble: str = "", before_each: str = "", **kwargs) -> dict:
    """label -> stdout lines of `run_scripts`; fails the test if a script raised."""
    out = run_scripts(runs, preamble, before_each, **kwargs)
    errors = {label: o["error"] for label, o in out.items() if o["error"]}
    assert not errors, errors
    return {label: o["stdout"] for label, o in out.items()}


def rewrite(name: str, work: pathlib.Path) -> str:
    """Writes the `--fix` text of corpus script `name` under `work`; its path."""
    result = _runner.process(str(CORPUS / name))
    assert result.rewritten, result.notes
    path = work / name
    path.write_text(result.rewritten)
    return str(path)


def fix_source(work: pathlib.Path, source: str, name: str = "a.py"):
    """The runner's result (findings, `--fix` text) for `source` written as `work/name`."""
    path = work / name
    path.write_text(source)
    return _runner.process(str(path))


def run_fixed(
    name: str, work: pathlib.Path, *args, all_fixed: bool = False, **kwargs
) -> str:
    """Runs the `--fix` text of corpus script `name` (written under `work`)
    with ARGS; its stdout, the test failing where it exits non-zero, or with
    `all_fixed` where `--fix` leaves a finding (see `run_script` for the
    keywords)."""
    if all_fixed:
        result = _runner.process(str(CORPUS / name))
        left = [f.api for f in result.findings if not f.fixed]
        assert result.findings and not left, (left, result.notes)
    proc = run_script(rewrite(name, work), *args, **kwargs)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def assert_fix_is_final(name: str, work: pathlib.Path) -> None:
    """`--fix` run on corpus script `name`'s `--fix` text finds nothing at
    all and changes nothing."""
    again = _runner.process(rewrite(name, work))
    assert again.rewritten is None and not again.findings


def copy_program(program: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    """A copy of the corpus folder `program` at work/program."""
    shutil.copytree(program, work / "program")
    return work / "program"


def fix_folder(folder: pathlib.Path) -> dict[str, str]:
    """`emg-migrate FOLDER --fix --no-backup` (in this process); the texts of
    the folder's .py files after it, by file name."""
    main([str(folder), "--fix", "--no-backup"])
    return {p.name: p.read_text() for p in folder.glob("*.py")}


def fixed_program(program: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    """A copy of the corpus folder `program` at work/program, `--fix`ed."""
    folder = copy_program(program, work)
    fix_folder(folder)
    return folder


def assert_program_fix_is_final(program: pathlib.Path, work: pathlib.Path) -> dict:
    """`--fix` run twice on a copy of the corpus folder `program` changes no
    file the second time; the texts after the first, by file name."""
    folder = copy_program(program, work)
    first = fix_folder(folder)
    assert fix_folder(folder) == first
    return first


def assert_guide_anchor(anchor: str) -> None:
    """migration_guide.md has the section `<a id="ANCHOR">` a finding links to."""
    guide = (ROOT / "migration_guide.md").read_text()
    assert f'<a id="{anchor}"></a>' in guide


@dataclasses.dataclass(frozen=True)
class RuleCorpus:
    """A rule and its corpus script: the checks each rule's tests make alike.

    Attributes:
      rule_id: the rule's findings' id.
      script: its corpus script (tiny data, prints what it computed).
      anchor: the migration_guide.md section its findings link to.
      marks: how the script marks its findings (`ported_findings`: `# port:`,
        `expected_findings`: `# expect:`).
    """

    rule_id: str
    script: pathlib.Path
    anchor: str
    marks: Callable[[pathlib.Path], list] = ported_findings

    def ours(self, result) -> list:
        """The findings of the rule in a runner's `result`."""
        return [f for f in result.findings if f.rule.rule_id == self.rule_id]

    def assert_guide_anchor(self) -> None:
        assert_guide_anchor(self.anchor)

    def assert_marked_findings(self) -> list:
        """The script reports exactly the (line, rule) pairs its comments
        mark, and marks some; its findings."""
        found = _runner.process(str(self.script)).findings
        marked = self.marks(self.script)
        assert marked
        assert sorted((f.line, f.rule.rule_id) for f in found) == marked
        return found

    def assert_second_fix_changes_nothing(self, work: pathlib.Path) -> str:
        """`--fix` run again on the script's `--fix` text finds nothing of
        the rule and changes nothing; the first `--fix` text."""
        once = fix_source(work, self.script.read_text()).rewritten
        assert once is not None, f"--fix changed nothing in {self.script.name}"
        again = fix_source(work, once)
        assert not self.ours(again)
        assert again.rewritten in (None, once)
        return once

    def run_fixed(self, work: pathlib.Path, *args, **kwargs) -> str:
        """`run_fixed` of the script."""
        return run_fixed(self.script.name, work, *args, **kwargs)

    def assert_fails_unfixed(self, work, fixed: str, left: str, error: str) -> None:
        """The script's `--fix` text with `fixed` put back as `left` (the use
        the rule rewrites) fails with `error` in stderr: once the rest is
        fixed, the script reaches that line."""
        path = pathlib.Path(rewrite(self.script.name, work))
        text = path.read_text()
        assert fixed in text
        path.write_text(text.replace(fixed, left))
        proc = run_script(path)
        assert proc.returncode != 0 and error in proc.stderr, proc.stderr[-2000:]


def run_pairs(names, work: pathlib.Path, mode: str = "v2", timeout=600) -> dict:
    """Runs corpus scripts before and after `--fix` in one subprocess.

    Args:
      names: corpus script names; each writes tiny data to the folder its
        first argument names and prints one line per batch and example.
      work: a folder for the rewrites and the data.
      mode: "v1" runs the scripts under tf.compat.v1.disable_v2_behavior().
      timeout: seconds for the whole subprocess.

    Returns:
      {name: {"original": lines, "rewritten": lines}}; a script that raised
      ends its lines with "FAILED Type: message".
    """
    runs = []
    for name in names:
        for label, path in (
            ("original", str(CORPUS / name)),
            ("rewritten", rewrite(name, work)),
        ):
            data = work / "data" / name / label
            data.mkdir(parents=True)
            runs.append([f"{name}:{label}", path, [data]])
    preamble = (V1 if mode == "v1" else "") + QUEUE_THREADS
    out = {}
    for key, o in run_scripts(runs, preamble, timeout=timeout).items():
        name, label = key.rsplit(":", 1)
        failed = ["FAILED " + o["error"]] if o["error"] else []
        out.setdefault(name, {})[label] = o["stdout"] + failed
    return out


# Two devices sum the towers' gradients in another order than one device, so a
# printed %.6f value may differ in its last digit: a step is "the same" when its
# words match exactly and its numbers to float32 rounding.
STEP_TOLERANCE = 2e-6


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def same_step(a: list[str], b: list[str], tolerance: float = STEP_TOLERANCE) -> bool:
    """Whether two runs printed the same lines, numbers equal to `tolerance`."""
    if len(a) != len(b):
        return False
    for line_a, line_b in zip(a, b):
        words_a, words_b = line_a.split(), line_b.split()
        if len(words_a) != len(words_b):
            return False
        for x, y in zip(words_a, words_b):
            if _is_number(x) and _is_number(y):
                if abs(float(x) - float(y)) > tolerance:
                    return False
            elif x != y:
                return False
    return True
