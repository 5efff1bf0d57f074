"""Examples/sec of 1 worker vs 2 workers on localhost, on either multi-worker path.

Each round launches the job twice through `python -m estimator_multigpu.launch`
(1 worker, then 2, order alternating between rounds); every worker trains the
same MLP on `per_worker_batch` examples per step, and worker 0 reports the
job's examples/sec after warm-up steps. The ratio is 2 workers / 1 worker:
weak scaling, the per-worker batch fixed.

- `--path=distribute`: `MultiWorkerMirroredStrategy`, ring all-reduce on the
  CPU; examples/sec = global batch x timed steps / time.
- `--path=estimator`: `emg.estimator.train_and_evaluate` with 1 `ps` task
  (`--ps=1`), asynchronous workers; worker 0 (the chief) times its steps once
  every worker has warmed up: examples/sec = per-worker batch x global steps
  taken by all workers in that time / time.

    python -m benchmarks.multiworker --repeats=3 --steps=40
    python -m benchmarks.multiworker --path=estimator --repeats=3 --steps=40
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

from absl import app, flags, logging

_STEPS = flags.DEFINE_integer("steps", 40, "Timed steps per job.", lower_bound=1)
_WARMUP = flags.DEFINE_integer("warmup", 5, "Untimed steps first.", lower_bound=1)
_REPEATS = flags.DEFINE_integer("repeats", 3, "Interleaved rounds.", lower_bound=1)
_BATCH = flags.DEFINE_integer(
    "per_worker_batch", 128, "Examples per worker and step.", lower_bound=1
)
_WIDTH = flags.DEFINE_integer("width", 1024, "Hidden units of the MLP.", lower_bound=1)
_PATH = flags.DEFINE_enum(
    "path",
    "distribute",
    ["distribute", "estimator"],
    "distribute: MultiWorkerMirroredStrategy; estimator: train_and_evaluate "
    "with 1 ps task, asynchronous.",
)
_TASK_OUT = flags.DEFINE_string(
    "task_out", None, "Internal: a worker writes its rate here."
)

_FEATURES = 256


def _model_variables(width: int):
    import tensorflow as tf

    shapes = [(_FEATURES, width), (width, width), (width, 10)]
    init = tf.keras.initializers.GlorotUniform(seed=0)
    return [tf.Variable(init(shape)) for shape in shapes]


def _train_step(strategy, weights, optimizer):
    import tensorflow as tf

    def replica(x, y):
        with tf.GradientTape() as tape:
            h = x
            for w in weights[:-1]:
                h = tf.nn.relu(h @ w)
            logits = h @ weights[-1]
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
            )
        optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss

    @tf.function
    def step(x, y):
        return strategy.run(replica, (x, y))

    return step


def _data():
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.random((4096, _FEATURES), dtype=np.float32)
    return x, rng.integers(0, 10, 4096)


def _write_rate(out: str, rate: float) -> None:
    index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
    pathlib.Path(out, f"worker{index}.json").write_text(json.dumps({"rate": rate}))


def run_task(out: str) -> None:
    """One task of the job (TF_CONFIG set by the launcher)."""
    if _PATH.value == "estimator":
        run_estimator_task(out)
    else:
        run_distribute_task(out)


def run_distribute_task(out: str) -> None:
    """One MultiWorkerMirroredStrategy worker of the job."""
    import tensorflow as tf

    import estimator_multigpu.distribute as ed

    strategy = ed.multi_worker_strategy(communication="ring")
    x, y = _data()
    global_batch = _BATCH.value * strategy.num_replicas_in_sync
    dataset = ed.distribute_dataset_fn(
        lambda ctx: tf.data.Dataset.from_tensor_slices((x, y)),
        strategy,
        global_batch_size=global_batch,
        num_epochs=None,
        drop_remainder=True,
    )
    with strategy.scope():
        weights = _model_variables(_WIDTH.value)
        optimizer = tf.keras.optimizers.SGD(0.01)
    step, batches = _train_step(strategy, weights, optimizer), iter(dataset)
    for _ in range(_WARMUP.value):
        step(*next(batches))
    start = time.perf_counter()
    for _ in range(_STEPS.value):
        loss = step(*next(batches))
    strategy.experimental_local_results(loss)[0].numpy()
    _write_rate(out, global_batch * _STEPS.value / (time.perf_counter() - start))


def _mlp_model_fn(features, labels, mode, config):
    """The same MLP as a graph-mode model_fn, plain SGD (async on a cluster)."""
    import tensorflow as tf

    from estimator_multigpu import estimator

    del config
    shapes = [(_FEATURES, _WIDTH.value), (_WIDTH.value,) * 2, (_WIDTH.value, 10)]
    init = tf.compat.v1.glorot_uniform_initializer(seed=0)
    h = features
    for i, shape in enumerate(shapes):
        h = h @ tf.compat.v1.get_variable(f"w{i}", shape, initializer=init)
        h = tf.nn.relu(h) if i < len(shapes) - 1 else h
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, h))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    step = tf.compat.v1.train.get_global_step()
    train_op = optimizer.minimize(loss, global_step=step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _rate_hook(out: str, index: int, workers: int):
    """Worker 0 times the global steps of all workers once every one is warm."""
    import tensorflow as tf

    class RateHook(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self._global_step = tf.compat.v1.train.get_global_step()
            self._steps, self._start = 0, None

        def after_run(self, run_context, run_values):
            self._steps += 1
            if self._steps == _WARMUP.value:
                pathlib.Path(out, f"warm{index}").write_text("")
                if index == 0:
                    _wait_for_files(out, [f"warm{i}" for i in range(workers)])
                    self._start = self._now(run_context)
            elif index == 0 and self._steps == _WARMUP.value + _STEPS.value:
                (t0, g0), (t1, g1) = self._start, self._now(run_context)
                _write_rate(out, _BATCH.value * (g1 - g0) / (t1 - t0))
                run_context.request_stop()

        def _now(self, run_context):
            return time.perf_counter(), run_context.session.run(self._global_step)

    return RateHook()


def _wait_for_files(out: str, names: list[str], seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(pathlib.Path(out, name).exists() for name in names):
            return
        time.sleep(0.01)
    raise RuntimeError(f"workers not warm after {seconds} s: {names}")


def run_estimator_task(out: str) -> None:
    """One task (ps or worker) of an async `train_and_evaluate` job."""
    import tensorflow as tf

    from estimator_multigpu import estimator

    x, y = _data()

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((x, y.astype("int32")))
        return dataset.repeat().batch(_BATCH.value, drop_remainder=True)

    config = estimator.RunConfig(
        model_dir=os.path.join(out, "model"),
        save_checkpoints_steps=10**9,
        save_summary_steps=None,
        log_step_count_steps=10**9,
    )
    hook = _rate_hook(out, config.task_id, config.num_worker_replicas)
    train_spec = estimator.TrainSpec(input_fn, max_steps=10**9, hooks=[hook])
    eval_spec = estimator.EvalSpec(input_fn, steps=1)
    runner = estimator.Estimator(_mlp_model_fn, config=config)
    estimator.train_and_evaluate(runner, train_spec, eval_spec)


def launch(workers: int) -> float:
    """Runs a job of `workers` workers; returns worker 0's examples/sec."""
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-m", "estimator_multigpu.launch"]
        argv += ["--ps=1"] if _PATH.value == "estimator" else []
        argv += [f"--workers={workers}", "--", sys.executable, "-m"]
        argv += ["benchmarks.multiworker", f"--task_out={out}"]
        flags_passed = (_STEPS, _WARMUP, _BATCH, _WIDTH, _PATH)
        argv += [f"--{f.name}={f.value}" for f in flags_passed]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if result.returncode:
            raise RuntimeError(f"{workers}-worker job failed:\n{result.stdout[-3000:]}")
        return json.loads(pathlib.Path(out, "worker0.json").read_text())["rate"]


def main(argv):
    del argv
    if _TASK_OUT.value:
        run_task(_TASK_OUT.value)
        return
    logging.set_verbosity(logging.WARNING)
    rates = {1: [], 2: []}
    for round_index in range(_REPEATS.value):
        for workers in (1, 2) if round_index % 2 == 0 else (2, 1):
            rates[workers].append(launch(workers))
    one, two = rates[1], rates[2]
    paired = statistics.median(b / a for a, b in zip(one, two))
    print(f"{'job':<10} {'median ex/s':>12} {'ratio':>7} {'round ratio':>12}  runs")
    for workers, runs in rates.items():
        ratio = statistics.median(runs) / statistics.median(one)
        shown = f"{paired:.2f}x" if workers == 2 else "1.00x"
        all_runs = " ".join(f"{r:.0f}" for r in runs)
        print(
            f"{workers} worker{'s' if workers > 1 else ' '} {statistics.median(runs):>12.0f} "
            f"{ratio:>6.2f}x {shown:>12}  {all_runs}"
        )


if __name__ == "__main__":
    app.run(main)
