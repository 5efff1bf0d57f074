"""`--upgrade-v2`: TensorFlow's own `tf_upgrade_v2` renamer, run in a subprocess.

The scanner never imports TensorFlow; only the child process started here
does (once for all files).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

_DRIVER = """
import json, sys
from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2
upgrader = ast_edits.ASTCodeUpgrader(tf_upgrade_v2.TFAPIChangeSpec())
out = {}
for src, dst in json.loads(sys.argv[1]):
    try:
        count, _, errors = upgrader.process_file(src, dst)
        out[src] = {"errors": [str(e) for e in errors]}
    except Exception as e:
        out[src] = {"errors": [f"{type(e).__name__}: {e}"]}
print("EMG-UPGRADE " + json.dumps(out))
"""


class UpgradeError(RuntimeError):
    """tf_upgrade_v2 could not run at all (e.g. TensorFlow is not installed)."""


def _run(pairs: list[tuple[str, str]], timeout: float) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, json.dumps(pairs)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("EMG-UPGRADE "):
            return json.loads(line[len("EMG-UPGRADE ") :])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    raise UpgradeError(
        f"--upgrade-v2 runs TensorFlow's tf_upgrade_v2 with {sys.executable}, "
        f"which failed ({tail[0]}); install TensorFlow there or drop --upgrade-v2"
    )


def upgrade(paths: list[str], timeout: float = 600) -> dict[str, tuple]:
    """Runs tf_upgrade_v2 on each regular file; returns path -> (new text, errors).

    The files themselves are only read; the output goes to a temporary folder.

    Args:
      paths: the files (others, such as FIFOs, are left out).
      timeout: seconds for the one child process.

    Raises:
      UpgradeError: the child process could not run the upgrader.
    """
    with tempfile.TemporaryDirectory(prefix="emg-upgrade-") as work:
        pairs = [
            (os.path.abspath(p), os.path.join(work, f"{i}.py"))
            for i, p in enumerate(paths)
            if os.path.isfile(p)
        ]
        done = _run(pairs, timeout) if pairs else {}
        out = {}
        for path, (src, dst) in zip([p for p in paths if os.path.isfile(p)], pairs):
            errors = done.get(src, {"errors": ["no result"]})["errors"]
            text = None
            if os.path.exists(dst):
                with open(dst, encoding="utf-8") as f:
                    text = f.read()
            out[path] = (text, errors)
        return out
