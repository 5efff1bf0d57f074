"""Interrupted training (SIGKILL, KeyboardInterrupt) resumes from a sound checkpoint."""

import glob
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import tensorflow as tf
from estimator_models import dataset_input_fn, make_data, model_fn

from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _lock

X, Y = make_data(20)
TRAIN_FN = dataset_input_fn(X, Y, 8, repeat=True)

_CHILD = textwrap.dedent(
    """
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    sys.path.insert(0, {tests!r})
    from estimator_models import dataset_input_fn, make_data, model_fn
    from estimator_multigpu import estimator as emg_estimator

    x, y = make_data(20)
    config = emg_estimator.RunConfig(
        model_dir={model_dir!r}, save_checkpoints_steps=1, log_step_count_steps=1000
    )
    estimator = emg_estimator.Estimator(model_fn, config=config, params={{}})
    estimator.train(dataset_input_fn(x, y, 8, repeat=True), steps=10 ** 9)
    """
)


def _wait_for_checkpoints(model_dir, process, count, timeout=60):
    """Waits until `count` checkpoints were written (or the child died)."""
    deadline = time.time() + timeout
    while time.time() < deadline and process.poll() is None:
        path = tf.train.latest_checkpoint(model_dir)
        if path and int(path.rsplit("-", 1)[1]) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(
        f"no checkpoint {count} in {model_dir}; child rc={process.poll()}"
    )


@pytest.mark.slow
def test_sigkill_mid_training_then_resume(tmp_path):
    model_dir = str(tmp_path / "model")
    script = _CHILD.format(tests=os.path.dirname(__file__), model_dir=model_dir)
    child = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)
    try:
        _wait_for_checkpoints(model_dir, child, 5)
        time.sleep(0.3)  # Let it train and save on; the kill lands mid-stream.
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    estimator = emg_estimator.Estimator(model_fn, model_dir=model_dir, params={})
    saved_step = int(estimator.get_variable_value("global_step"))
    assert saved_step >= 5
    reader = tf.train.load_checkpoint(estimator.latest_checkpoint())
    assert reader.get_tensor("dense/kernel").shape == (4, 3)
    estimator.train(TRAIN_FN, steps=3)
    assert estimator.get_variable_value("global_step") == saved_step + 3
    # The killed trainer's lock and any half-written save are gone.
    assert not os.path.exists(_lock.lock_path(model_dir))
    assert not glob.glob(os.path.join(model_dir, "*_temp"))


class _InterruptAt(tf.compat.v1.train.SessionRunHook):
    def __init__(self, step):
        self._step = step

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._step:
            raise KeyboardInterrupt


def test_keyboard_interrupt_keeps_last_checkpoint(tmp_path):
    config = emg_estimator.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=3)
    estimator = emg_estimator.Estimator(model_fn, config=config, params={})
    with pytest.raises(KeyboardInterrupt):
        estimator.train(TRAIN_FN, steps=100, hooks=[_InterruptAt(5)])
    assert estimator.get_variable_value("global_step") == 3  # Steps 4-5 are lost.
    estimator.train(TRAIN_FN, steps=2)
    assert estimator.get_variable_value("global_step") == 5
