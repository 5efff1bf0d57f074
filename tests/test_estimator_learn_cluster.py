"""learn_runner.run's default schedules on a localhost TF_CONFIG cluster."""

import os
import subprocess
import sys

import pytest
import tensorflow as tf

# Every task runs this with its own TF_CONFIG: learn_runner picks the schedule
# from the task type (chief/worker train, ps serves, evaluator evaluates).
_TASK = r"""
import json, os, pathlib, sys

import numpy as np
import tensorflow as tf
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import learn_runner

out = pathlib.Path(sys.argv[1])
task = json.loads(os.environ["TF_CONFIG"])["task"]
name = f"{task['type']}{task['index']}"
rng = np.random.RandomState(0)
X = rng.normal(size=(64, 4)).astype("float32")
Y = X @ rng.normal(size=(4, 1)).astype("float32")


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(8)


def model_fn(features, labels, mode):
    weights = tf.compat.v1.get_variable(
        "w", [4, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    step = tf.compat.v1.train.get_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def experiment_fn(run_config, hparams):
    estimator = emg_estimator.Estimator(model_fn, config=run_config)
    return emg_estimator.Experiment(
        estimator,
        input_fn,
        input_fn,
        train_steps=hparams.train_steps,
        eval_steps=2,
        eval_delay_secs=0,
        continuous_eval_throttle_secs=1,
    )


config = emg_estimator.RunConfig(
    model_dir=str(out / "model"),
    save_checkpoints_steps=10,
    experimental_max_worker_delay_secs=5,
)
(out / f"{name}.schedule").write_text(learn_runner.default_schedule(config))
learn_runner.run(
    experiment_fn, run_config=config, hparams=emg_estimator.HParams(train_steps=40)
)
(out / f"{name}.done").write_text("")
"""


def _launch(tmp_path, timeout=180):
    script = tmp_path / "task.py"
    script.write_text(_TASK)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--ps=1", "--chief"]
    argv += ["--workers=1", "--evaluator", "--evaluator-grace-seconds=60"]
    argv += ["--", sys.executable, str(script), str(tmp_path)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env
    )


def _eval_steps(eval_dir) -> set:
    steps = set()
    for path in eval_dir.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            if any(value.tag == "loss" for value in event.summary.value):
                steps.add(event.step)
    return steps


@pytest.mark.slow
def test_default_schedules_train_between_graph_and_evaluate_continuously(tmp_path):
    result = _launch(tmp_path)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    schedules = {
        name: (tmp_path / f"{name}.schedule").read_text()
        for name in ("chief0", "worker0", "ps0", "evaluator0")
    }
    assert schedules == {
        "chief0": "train",
        "worker0": "train",
        "ps0": "run_std_server",
        "evaluator0": "continuous_eval",
    }
    for name in ("chief0", "worker0", "evaluator0"):
        assert (tmp_path / f"{name}.done").exists(), result.stdout[-4000:]
    checkpoint = tf.train.latest_checkpoint(str(tmp_path / "model"))
    assert int(checkpoint.rsplit("-", 1)[1]) >= 40
    assert max(_eval_steps(tmp_path / "model" / "eval_continuous")) >= 40
