"""Runs corpus queue scripts before and after `--fix` in one subprocess.

Each script writes tiny data to the folder named by its first argument, runs
its pipeline and prints one line per batch and per example; the tests
compare what the original and the rewritten script printed.
"""

import json
import os
import subprocess
import sys

from migrate_helpers import CORPUS

from estimator_multigpu.migrate import runner

_DRIVER = """
import contextlib, io, json, os, runpy, sys, traceback
import tensorflow as tf
if sys.argv[3] == "v1":
    tf.compat.v1.disable_v2_behavior()
# Queue runners' blocking ops can starve a small inter-op pool.
tf.config.threading.set_inter_op_parallelism_threads(16)
work, pairs = sys.argv[1], json.loads(sys.argv[2])
out = {}
for name, paths in pairs.items():
    for label, path in zip(("original", "rewritten"), paths):
        data_dir = os.path.join(work, name, label)
        os.makedirs(data_dir)
        sys.argv[1:] = [data_dir]
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                runpy.run_path(path, run_name="__main__")
        except BaseException:
            buffer.write("FAILED " + traceback.format_exc())
        out.setdefault(name, {})[label] = buffer.getvalue().splitlines()
print(json.dumps(out))
"""


def rewrite(name: str, work) -> str:
    """Writes the `--fix` text of corpus script `name` under `work`; its path."""
    result = runner.process(str(CORPUS / name))
    assert result.rewritten, result.notes
    path = work / name
    path.write_text(result.rewritten)
    return str(path)


def run_pairs(names, work, mode: str = "v2") -> dict:
    """{name: {'original': lines, 'rewritten': lines}}; mode 'v1' runs both
    under tf.compat.v1.disable_v2_behavior()."""
    pairs = {n: [str(CORPUS / n), rewrite(n, work)] for n in names}
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(work / "data"), json.dumps(pairs), mode],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])
