"""The rewritten corpus input pipelines produce the examples the queue versions do.

Each legacy script generates tiny data, runs its queue pipeline with
tf.compat.v1 and prints one line per batch and per example. The test runs the
original and the `--fix` output in one subprocess (one TensorFlow start) and
compares what they print.
"""

import json
import os
import subprocess
import sys

import pytest
from migrate_helpers import CORPUS

from estimator_multigpu.migrate import runner

_DRIVER = """
import contextlib, io, json, os, runpy, sys
out = {}
original, rewritten, work = sys.argv[1:4]
for label, path in (("original", original), ("rewritten", rewritten)):
    data_dir = os.path.join(work, label)
    os.makedirs(data_dir)
    sys.argv[1:] = [data_dir]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    out[label] = buffer.getvalue().splitlines()
print(json.dumps(out))
"""

# script -> whether its pipeline has a fixed order (one thread, no shuffling).
SCRIPTS = {
    "cifar10_helpers_input.py": True,
    "cifar10_queue_input.py": True,
    "csv_text_line_reader.py": True,
    "fully_connected_reader.py": False,
    "numpy_slice_producer.py": True,
    "reader_helpers.py": True,
    "tfrecord_shuffle_batch.py": False,
}


def _run_both(original, rewritten, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(original), str(rewritten), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    return out["original"], out["rewritten"]


@pytest.mark.slow
@pytest.mark.parametrize("name, ordered", sorted(SCRIPTS.items()), ids=sorted(SCRIPTS))
def test_rewritten_pipeline_produces_the_same_examples(name, ordered, tmp_path):
    result = runner.process(str(CORPUS / name))
    assert result.rewritten and "emg.inputs.queues.get_next(" in result.rewritten
    assert ".read(filename_queue)" not in result.rewritten
    rewritten = tmp_path / name
    rewritten.write_text(result.rewritten)
    original, new = _run_both(CORPUS / name, rewritten, tmp_path)
    examples = [line for line in original if line.startswith(("example", "value"))]
    assert len(examples) >= 4, original
    if ordered:
        assert new == original
    else:
        assert sorted(new) == sorted(original)
        batches = [line for line in original if line.startswith("batch")]
        assert [line for line in new if line.startswith("batch")] == batches
