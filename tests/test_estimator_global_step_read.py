"""Hooks read the global step before the step's update, so it rises by one each step.

TensorFlow's hooks (`StepCounterHook`, `LoggingTensorHook`'s step, the saver's)
fetch the cached global step read (`global_step/add`) beside the train_op.
Unless the train_op's increment waits for that read, a step can read the
value after its own increment and the next one before its own: two steps
see the same value, and `StepCounterHook` warns "It seems that global step
(tf.train.get_global_step) has not been increased" for a model_fn that passes
the global step to `minimize`. A model_fn that never increments it still gets
the warning.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import tensorflow as tf
from conftest import ALL_DEVICES

from estimator_multigpu import estimator as est

STEPS = 200


def _model_fn(features, labels, mode, params):
    weights = tf.compat.v1.get_variable("w", [4], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.tensordot(features["x"], weights, 1) - labels))
    step = tf.compat.v1.train.get_global_step() if params["increment"] else None
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    x = np.random.default_rng(0).random((64, 4), dtype=np.float32)
    y = x @ np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)


class _ReadRecorder(tf.compat.v1.train.SessionRunHook):
    """Fetches the hooks' global step read each step; keeps the graph."""

    def begin(self):
        self.graph = tf.compat.v1.get_default_graph()
        self.read = self.graph.get_collection("global_step_read_op_cache")[0]
        self.values = []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.read)

    def after_run(self, run_context, run_values):
        self.values.append(int(run_values.results))


def _ancestors(op: tf.Operation) -> set[str]:
    """Names of every op `op` waits for, through data and control inputs."""
    seen, stack = set(), [op]
    while stack:
        current = stack.pop()
        for parent in [t.op for t in current.inputs] + list(current.control_inputs):
            if parent.name not in seen:
                seen.add(parent.name)
                stack.append(parent)
    return seen


def _increments(graph: tf.Graph) -> list[tf.Operation]:
    """The ops that add to the global step variable."""
    step = graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP)[0]
    return [
        op
        for op in graph.get_operations()
        if op.type in ("AssignAddVariableOp", "AssignAdd")
        and op.inputs[0].op.name == step.op.name
    ]


def _train(devices) -> _ReadRecorder:
    recorder = _ReadRecorder()
    config = est.RunConfig(model_dir=tempfile.mkdtemp(), devices=devices)
    estimator = est.Estimator(_model_fn, config=config, params={"increment": True})
    estimator.train(_input_fn, max_steps=STEPS, hooks=[recorder])
    return recorder


@pytest.mark.parametrize("count", [1, 2], ids=["1dev", "2dev"])
def test_the_increment_waits_for_the_hooks_read(count):
    recorder = _train(ALL_DEVICES[:count])
    increments = _increments(recorder.graph)
    assert increments, "the model_fn's minimize made no global step increment"
    for op in increments:
        assert recorder.read.op.name in _ancestors(op), op.name
    assert recorder.values == list(range(STEPS))


SCRIPT = """
import sys
sys.path.insert(0, {tests_dir!r})
import tempfile
import tensorflow as tf
from estimator_multigpu import estimator as est
import test_estimator_global_step_read as t

class StopAfter(tf.compat.v1.train.SessionRunHook):
    def __init__(self):
        self.runs = 0
    def after_run(self, run_context, run_values):
        self.runs += 1
        if self.runs >= 4:
            run_context.request_stop()

for increment in (True, False):
    print("TRAINING increment=%s" % increment, file=sys.stderr, flush=True)
    config = est.RunConfig(model_dir=tempfile.mkdtemp(), log_step_count_steps=1)
    estimator = est.Estimator(t._model_fn, config=config,
                              params={{"increment": increment}})
    hooks = [] if increment else [StopAfter()]
    estimator.train(t._input_fn, max_steps=t.STEPS if increment else None,
                    hooks=hooks)
"""
WARNING = "It seems that global step (tf.train.get_global_step) has not been increased"


@pytest.mark.slow
def test_the_warning_comes_only_when_the_model_fn_does_not_increment():
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(tests_dir=tests_dir)],
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
        timeout=300,
        check=True,
    )
    incrementing, _, not_incrementing = result.stderr.partition(
        "TRAINING increment=False"
    )
    assert "TRAINING increment=True" in incrementing
    assert WARNING not in incrementing
    assert WARNING in not_incrementing
