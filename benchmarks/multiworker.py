"""Examples/sec of 1 worker vs 2 workers (MultiWorkerMirroredStrategy) on localhost.

Each round launches the job twice through `python -m estimator_multigpu.launch`
(1 worker, then 2, order alternating between rounds); every worker trains the
same MLP on `per_worker_batch` examples per step with ring all-reduce on the
CPU, and worker 0 reports the job's examples/sec (global batch x timed steps /
time) after warm-up steps. The ratio is 2 workers / 1 worker: weak scaling,
the per-worker batch fixed.

    python -m benchmarks.multiworker --repeats=3 --steps=40
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


def run_task(out: str) -> None:
    """One worker of the job (TF_CONFIG set by the launcher)."""
    import numpy as np
    import tensorflow as tf

    import estimator_multigpu.distribute as ed

    strategy = ed.multi_worker_strategy(communication="ring")
    rng = np.random.default_rng(0)
    x = rng.random((4096, _FEATURES), dtype=np.float32)
    y = rng.integers(0, 10, 4096)
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
    rate = global_batch * _STEPS.value / (time.perf_counter() - start)
    index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
    pathlib.Path(out, f"worker{index}.json").write_text(json.dumps({"rate": rate}))


def launch(workers: int) -> float:
    """Runs a job of `workers` workers; returns worker 0's examples/sec."""
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-m", "estimator_multigpu.launch"]
        argv += [f"--workers={workers}", "--", sys.executable, "-m"]
        argv += ["benchmarks.multiworker", f"--task_out={out}"]
        argv += [f"--{f.name}={f.value}" for f in (_STEPS, _WARMUP, _BATCH, _WIDTH)]
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
