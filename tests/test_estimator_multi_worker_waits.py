"""A cluster task never waits silently: bounded waits that name what is awaited.

A chief whose TF_CONFIG names a parameter server nobody serves, and a
synchronous chief whose peer worker died, used to wait forever without a
word. Now each wait logs the task and address it waits for, and ends after a
bound the user sets (`RunConfig.session_creation_timeout_secs` for the
servers, `sync_replicas_optimizer(step_timeout_secs=...)` for a step).
Servers run in this process; the tasks that do not answer are never started.
"""

import json
import logging
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

import estimator_multigpu as emg
from estimator_multigpu import estimator as emg_estimator

pytestmark = pytest.mark.tf_compat


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _address() -> str:
    return f"127.0.0.1:{_free_port()}"


def _model_fn(features, labels, mode, params, config):
    weights = tf.compat.v1.get_variable(
        "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if params.get("sync"):
        optimizer = emg.estimator.sync_replicas_optimizer(
            optimizer, config, step_timeout_secs=params.get("step_timeout_secs")
        )
    step = tf.compat.v1.train.get_or_create_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    x = np.ones([8, 4], np.float32)
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).repeat().batch(4)


def _train_as(monkeypatch, tmp_path, jobs, params, **config):
    tf_config = {"cluster": jobs, "task": {"type": "worker", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    estimator = emg_estimator.Estimator(
        _model_fn,
        model_dir=str(tmp_path),
        params=params,
        config=emg_estimator.RunConfig(**config),
    )
    emg_estimator.train_and_evaluate(
        estimator,
        emg_estimator.TrainSpec(_input_fn, max_steps=3),
        emg_estimator.EvalSpec(_input_fn, steps=1),
    )


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_ps_nobody_serves_is_named_and_the_wait_ends(monkeypatch, tmp_path, caplog):
    ps = _address()  # Nobody listens there.
    jobs = {"worker": [_address()], "ps": [ps]}
    started = time.monotonic()
    with pytest.raises(
        RuntimeError,
        match=rf"/job:ps/task:0 at {ps}.*session_creation_timeout_secs=2",
    ):
        _train_as(monkeypatch, tmp_path, jobs, {}, session_creation_timeout_secs=2)
    assert time.monotonic() - started < 30
    assert any(f"/job:ps/task:0 at {ps}" in m for m in _warnings(caplog))


# A synchronous cluster: ps, worker 0 (the chief) and worker 1, each its own
# process. Worker 1 dies right after a step, holding the token of a gradient
# it never sends: the chief's next step waits for it, forever before.
_SYNC_TASK = r"""
import json, os, sys
import numpy as np
import tensorflow as tf
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _waits as waits

waits.LOG_EVERY_SECS = 1
model_dir, step_timeout = sys.argv[1], float(sys.argv[2])
task = json.loads(os.environ["TF_CONFIG"])["task"]


def input_fn():
    x = np.ones([8, 4], np.float32)
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).repeat().batch(4)


def model_fn(features, labels, mode, params, config):
    weights = tf.compat.v1.get_variable("w", [4, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    optimizer = emg_estimator.sync_replicas_optimizer(
        tf.compat.v1.train.GradientDescentOptimizer(0.01),
        config,
        step_timeout_secs=step_timeout,
    )
    step = tf.compat.v1.train.get_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class DieAfterFiveSteps(tf.compat.v1.train.SessionRunHook):
    steps = 0

    def after_run(self, run_context, run_values):
        self.steps += 1
        if task["type"] == "worker" and task["index"] == 1 and self.steps == 5:
            os._exit(3)


config = emg_estimator.RunConfig(
    model_dir=model_dir, save_checkpoints_secs=None, save_checkpoints_steps=None,
    experimental_max_worker_delay_secs=1,
)
estimator = emg_estimator.Estimator(model_fn, config=config)
emg_estimator.train_and_evaluate(
    estimator,
    emg_estimator.TrainSpec(input_fn, max_steps=100000, hooks=[DieAfterFiveSteps()]),
    emg_estimator.EvalSpec(input_fn, steps=1),
)
"""


def _start(script, tmp_path, jobs, task_type, index, step_timeout):
    tf_config = {"cluster": jobs, "task": {"type": task_type, "index": index}}
    env = dict(os.environ, TF_CONFIG=json.dumps(tf_config), TF_CPP_MIN_LOG_LEVEL="2")
    argv = [sys.executable, str(script), str(tmp_path / "model"), str(step_timeout)]
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_a_sync_chief_names_the_dead_worker_and_its_step_ends(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(_SYNC_TASK)
    jobs = {"worker": [_address(), _address()], "ps": [_address()]}
    tasks = [("ps", 0), ("worker", 0), ("worker", 1)]
    ps, chief, worker = [_start(script, tmp_path, jobs, *t, 5) for t in tasks]
    try:
        _, chief_log = chief.communicate(timeout=240)
        worker.communicate(timeout=60)
    finally:
        for process in (ps, chief, worker):
            process.kill()
            process.wait()
    assert worker.returncode == 3  # It died after 5 steps, as planned.
    dead = f"/job:worker/task:1 at {jobs['worker'][1]}"
    assert chief.returncode != 0, chief_log[-3000:]
    last = chief_log.strip().splitlines()[-1]
    assert "RuntimeError: A synchronous training step waited more than " in last
    assert "step_timeout_secs=5 s" in last and dead in last
    waiting = [line for line in chief_log.splitlines() if "has waited" in line]
    assert waiting and dead in waiting[0], chief_log[-3000:]


@pytest.mark.parametrize(
    "value", [0, -1, True, "5"], ids=["zero", "neg", "bool", "str"]
)
def test_sync_step_timeout_must_be_positive_seconds(monkeypatch, value):
    jobs = {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"]}
    tf_config = {"cluster": jobs, "task": {"type": "worker", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    plain = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    with pytest.raises(
        ValueError, match=rf"`step_timeout_secs` must be .* > 0 or None; got {value!r}"
    ):
        emg.estimator.sync_replicas_optimizer(
            plain, emg_estimator.RunConfig(), step_timeout_secs=value
        )
