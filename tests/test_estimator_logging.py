"""Console logging: TensorFlow's logger, each line once, as tf.estimator logs."""

import os
import re
import subprocess
import sys

import pytest

from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))

SCRIPT = """
import logging, sys, tempfile
sys.path.insert(0, {tests_dir!r})
import tensorflow as tf
from estimator_models import dataset_input_fn, make_data, model_fn
if {impl!r} == "emg":
    from estimator_multigpu import estimator as est
else:
    est = tf.estimator
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
FILES = []
class Files(logging.Handler):
    def emit(self, record):
        FILES.append(record.filename)
tf.get_logger().addHandler(Files())
x, y = make_data(16)
config = est.RunConfig(model_dir=tempfile.mkdtemp(), log_step_count_steps=1)
estimator = est.Estimator(model_fn, config=config, params={{}})
estimator.train(dataset_input_fn(x, y, 8), steps=2)
estimator.evaluate(dataset_input_fn(x, y, 8))
print("ROOT_HANDLERS", len(logging.getLogger().handlers), file=sys.stderr)
print("LOGGED_FROM", sorted(set(FILES)), file=sys.stderr)
"""


def _run(impl: str) -> str:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    script = SCRIPT.format(tests_dir=TESTS_DIR, impl=impl)
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    return result.stderr


def _info_lines(output: str) -> list[str]:
    """INFO lines with numbers, times and paths masked; the config line dropped."""
    lines = [line for line in output.splitlines() if line.startswith("INFO:")]
    lines = [line for line in lines if "Using config" not in line]
    masked = [re.sub(r"/\S+", "PATH", line) for line in lines]
    return [re.sub(r"[-+]?\d[\d.:T-]*(e[-+]?\d+)?", "N", line) for line in masked]


@pytest.fixture(scope="module")
def emg_output():
    return _run("emg")


@pytest.mark.slow
@pytest.mark.parametrize(
    "line", ["Loss for final step: ", "Saving dict for global step 2: "]
)
def test_key_lines_show_once(emg_output, line):
    assert emg_output.count(line) == 1, emg_output


@pytest.mark.slow
def test_no_root_handler_and_no_line_twice(emg_output):
    assert "ROOT_HANDLERS 0" in emg_output
    info = [line for line in emg_output.splitlines() if line.startswith("INFO:")]
    assert info.count("INFO:tensorflow:Calling model_fn.") == 2  # train, evaluate


@pytest.mark.slow
def test_records_name_the_module_that_logged(emg_output):
    """As tf.estimator's `file:line` did; never the logging helper module."""
    files = re.search(r"LOGGED_FROM \[(.*)\]", emg_output).group(1)
    assert "'_log.py'" not in files and "'_train.py'" in files, files


@pytest.mark.slow
def test_info_lines_match_tf_estimator(emg_output):
    if not emg_estimator.HAS_TF_ESTIMATOR:
        pytest.skip("tf.estimator (the reference) exists on TF <= 2.15 only")
    assert _info_lines(emg_output) == _info_lines(_run("tf_estimator"))
