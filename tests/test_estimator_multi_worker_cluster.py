"""emg.estimator.train_and_evaluate on a localhost cluster started by the launcher."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from estimator_multigpu import estimator as emg_estimator

# The data and model every task (and the one-process reference) trains.
_MODEL = r"""
import numpy as np
import tensorflow as tf
from estimator_multigpu import estimator as emg_estimator
from estimator_multigpu.estimator import _distributed as distributed

rng = np.random.RandomState(0)
X = rng.normal(size=(256, 8)).astype("float32")
Y = X @ rng.normal(size=(8, 1)).astype("float32")


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(16)


def model_fn(features, labels, mode, params, config):
    weights = tf.compat.v1.get_variable(
        "w", [8, 1], initializer=tf.compat.v1.zeros_initializer()
    )
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    if params.get("sync"):
        optimizer = distributed.sync_replicas_optimizer(optimizer, config)
    step = tf.compat.v1.train.get_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
"""

# One task: records the global step before each of its steps in
# OUT/<task>.<pid>.steps; `faults` makes it kill itself once.
_TASK = r"""
import json, os, pathlib, signal, sys, time

out = pathlib.Path(sys.argv[1])
options = json.loads(sys.argv[2])
task = json.loads(os.environ["TF_CONFIG"])["task"]
name = f"{task['type']}{task['index']}"
(out / f"{name}.pid").write_text(str(os.getpid()))
faults = set(options.get("faults", ()))


def wait_for(path, seconds=60):
    deadline = time.time() + seconds
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)


def die_once(marker):
    if not (out / marker).exists():
        (out / marker).write_text("")
        os.kill(os.getpid(), signal.SIGKILL)


class Record(tf.compat.v1.train.SessionRunHook):
    def begin(self):
        self.steps = []
        self.global_step = tf.compat.v1.train.get_global_step()
        self.path = out / f"{name}.{os.getpid()}.steps"

    def after_create_session(self, session, coord):
        if (out / "worker1_killed").exists() and name == "worker1":
            (out / "worker1_rejoined").write_text("")
        (out / f"{name}.ready").write_text("")
        for other in ("worker0", "worker1"):  # Both train from the start.
            wait_for(out / f"{other}.ready")

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.global_step)

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))
        self.path.write_text(json.dumps(self.steps))
        time.sleep(options.get("sleep", 0.01))
        if "worker1" in faults and name == "worker1" and len(self.steps) == 5:
            die_once("worker1_killed")
        if "worker1" in faults and name == "worker0" and len(self.steps) == 10:
            wait_for(out / "worker1_rejoined")
        if "chief" in faults and name == "worker0" and self.steps[-1] >= 25:
            die_once("chief_killed")


config = emg_estimator.RunConfig(
    model_dir=str(out / "model"),
    save_checkpoints_steps=10,
    log_step_count_steps=10,
    experimental_max_worker_delay_secs=30,
)
estimator = emg_estimator.Estimator(
    model_fn, config=config, params={"sync": options.get("sync", False)}
)
train_spec = emg_estimator.TrainSpec(
    input_fn, max_steps=options["max_steps"], hooks=[Record()]
)
eval_spec = emg_estimator.EvalSpec(
    input_fn, steps=4, start_delay_secs=0, throttle_secs=0
)
emg_estimator.train_and_evaluate(estimator, train_spec, eval_spec)
(out / f"{name}.done").write_text("")
"""


def _launch(tmp_path, options, *flags, timeout=120):
    """Runs the launcher (ps, 2 workers, `flags`) over the task script."""
    script = tmp_path / "task.py"
    script.write_text(_MODEL + _TASK)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--ps=1"]
    argv += ["--workers=2", *flags, "--", sys.executable, str(script)]
    argv += [str(tmp_path), json.dumps(options)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env
    )


def _steps(tmp_path, task):
    """Per run (process) of `task`: the global step before each of its steps."""
    runs = sorted(tmp_path.glob(f"{task}.*.steps"), key=os.path.getmtime)
    return [json.loads(path.read_text()) for path in runs]


def _checkpoint_step(tmp_path) -> int:
    path = tf.train.latest_checkpoint(str(tmp_path / "model"))
    return int(path.rsplit("-", 1)[1])


def _eval_losses(tmp_path) -> dict:
    """step -> loss from the evaluator's event files."""
    losses = {}
    for path in (tmp_path / "model" / "eval").glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                if value.tag == "loss":
                    losses[event.step] = value.simple_value
    return losses


def _one_process_loss(tmp_path, max_steps) -> float:
    namespace = {}
    exec(_MODEL, namespace)
    estimator = emg_estimator.Estimator(
        namespace["model_fn"], model_dir=str(tmp_path / "single"), params={}
    )
    estimator.train(namespace["input_fn"], max_steps=max_steps)
    return estimator.evaluate(namespace["input_fn"], steps=4)["loss"]


def _assert_ok(result):
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


@pytest.mark.slow
def test_async_workers_share_the_steps_and_evaluator_writes_metrics(tmp_path):
    max_steps = 100
    options = {"max_steps": max_steps, "evaluator": True}
    _assert_ok(_launch(tmp_path, options, "--evaluator"))
    (worker0,), (worker1,) = _steps(tmp_path, "worker0"), _steps(tmp_path, "worker1")
    assert worker0 and worker1  # Both contributed.
    # Asynchronous: every step of every worker advanced the global step (the
    # last one may have been stopped before recording it).
    assert max_steps - 1 <= len(worker0) + len(worker1) <= max_steps + 2
    assert max_steps <= _checkpoint_step(tmp_path) <= max_steps + 2
    losses = _eval_losses(tmp_path)
    assert max(losses) >= max_steps
    single = _one_process_loss(tmp_path, max_steps)
    assert abs(losses[max(losses)] - single) < 0.1 + 0.5 * single


@pytest.mark.slow
def test_sync_global_step_advances_once_per_aggregated_step(tmp_path):
    max_steps = 30
    _assert_ok(_launch(tmp_path, {"max_steps": max_steps, "sync": True}))
    (worker0,), (worker1,) = _steps(tmp_path, "worker0"), _steps(tmp_path, "worker1")
    assert _checkpoint_step(tmp_path) == max_steps
    # Two workers' steps per global step (the last ones may be cut short).
    assert len(worker0) + len(worker1) >= 2 * max_steps - 3
    assert min(len(worker0), len(worker1)) >= max_steps // 2  # Both took part.


@pytest.mark.slow
def test_killed_worker_restarts_and_rejoins(tmp_path):
    max_steps = 60
    options = {"max_steps": max_steps, "faults": ["worker1"]}
    result = _launch(tmp_path, options, "--restart-failed")
    _assert_ok(result)
    assert "worker:1 failed with status 137: restart 1" in result.stdout
    first, rejoined = _steps(tmp_path, "worker1")
    assert len(first) == 5 and rejoined  # Trained again after the restart.
    assert rejoined[0] >= first[-1]
    assert _checkpoint_step(tmp_path) >= max_steps


def _checkpoint_steps(tmp_path) -> list:
    state = tf.train.get_checkpoint_state(str(tmp_path / "model"))
    paths = state.all_model_checkpoint_paths
    for path in paths:  # Every checkpoint listed is whole.
        tf.train.load_checkpoint(path).get_tensor("w")
    return [int(path.rsplit("-", 1)[1]) for path in paths]


@pytest.mark.slow
def test_killed_chief_resumes_from_its_last_checkpoint(tmp_path):
    max_steps = 40
    options = {"max_steps": max_steps, "faults": ["chief"]}
    first = _launch(tmp_path, options)
    assert first.returncode == 128 + signal.SIGKILL, first.stdout[-3000:]
    assert "worker:0 exited with status 137" in first.stdout
    saved = _checkpoint_steps(tmp_path)
    assert saved == sorted(saved) and saved[-1] >= 10
    _assert_ok(_launch(tmp_path, options))  # The rerun.
    _, resumed = _steps(tmp_path, "worker0")
    assert resumed[0] >= saved[-1]  # Restored, never behind the checkpoint.
    steps = _checkpoint_steps(tmp_path)
    assert steps == sorted(steps) and steps[-1] >= max_steps


@pytest.mark.slow
def test_killed_ps_stops_the_job_and_a_rerun_resumes(tmp_path):
    max_steps = 40
    script_options = {"max_steps": max_steps, "sleep": 0.05}
    script = tmp_path / "task.py"
    script.write_text(_MODEL + _TASK)
    argv = [sys.executable, "-m", "estimator_multigpu.launch", "--ps=1"]
    argv += ["--workers=2", "--", sys.executable, str(script), str(tmp_path)]
    argv += [json.dumps(script_options)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as launcher:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and _progress(tmp_path) < 15:
            time.sleep(0.1)
        os.kill(int((tmp_path / "ps0.pid").read_text()), signal.SIGKILL)
        output, _ = launcher.communicate(timeout=60)
    assert launcher.returncode == 128 + signal.SIGKILL, output[-3000:]
    assert "ps:0 failed with status 137: stopping all tasks" in output
    saved = _checkpoint_steps(tmp_path)
    _assert_ok(_launch(tmp_path, dict(script_options, sleep=0.01)))
    _, resumed = _steps(tmp_path, "worker0")
    assert resumed[0] >= saved[-1]
    assert _checkpoint_steps(tmp_path)[-1] >= max_steps


def _progress(tmp_path) -> int:
    """The steps worker 0 has run so far (0 while its file is being written)."""
    try:
        runs = _steps(tmp_path, "worker0")
    except ValueError:
        return 0
    return len(runs[0]) if runs else 0


def test_one_process_reference_trains(tmp_path):
    loss = _one_process_loss(tmp_path, 100)
    assert np.isfinite(loss) and loss < 1.0
