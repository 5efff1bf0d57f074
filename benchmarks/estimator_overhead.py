"""Training steps/sec of emg.estimator.Estimator vs tf.estimator.Estimator.

A small model (an MLP on 64 features, batch 32) so that the per-step
overhead of the runner (hooks, fetches, session wrapping) dominates. Each
round trains a fresh model for `--steps` steps with both runners, in
alternating order; steps/sec is timed by a hook from step `--warmup` on, so
graph building and session start-up are excluded. Needs TF <= 2.15 for the
reference runner; elsewhere only emg's number is printed.

Run: python -m benchmarks.estimator_overhead
"""

from __future__ import annotations

import statistics
import tempfile
import time

import numpy as np
import tensorflow as tf
from absl import app, flags

from estimator_multigpu import estimator as emg_estimator

_STEPS = flags.DEFINE_integer("steps", 600, "Training steps per run.", lower_bound=10)
_WARMUP = flags.DEFINE_integer("warmup", 50, "Untimed first steps.", lower_bound=1)
_REPEATS = flags.DEFINE_integer("repeats", 5, "Interleaved rounds.", lower_bound=1)
_STATIC = flags.DEFINE_boolean(
    "static_batch", True, "Static batch size (else emg fetches it each step)."
)


def _model_fn(features, labels, mode):
    hidden = features
    for i, width in enumerate([128, 128, 10]):
        kernel = tf.compat.v1.get_variable(
            f"dense{i}/kernel",
            [hidden.shape[1], width],
            initializer=tf.compat.v1.glorot_uniform_initializer(seed=i),
        )
        hidden = tf.matmul(hidden, kernel)
        hidden = tf.nn.relu(hidden) if width != 10 else hidden
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, hidden)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return emg_estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    rng = np.random.RandomState(0)
    x = rng.randn(1024, 64).astype(np.float32)
    y = rng.randint(0, 10, 1024).astype(np.int32)
    return (
        tf.data.Dataset.from_tensor_slices((x, y))
        .repeat()
        .batch(32, drop_remainder=_STATIC.value)
    )


class _Timer(tf.compat.v1.train.SessionRunHook):
    def __init__(self, warmup):
        self._warmup, self._step, self.first, self.last = warmup, 0, None, None

    def after_run(self, run_context, run_values):
        self._step += 1
        if self._step == self._warmup:
            self.first = time.perf_counter()
        self.last = time.perf_counter()


def _steps_per_sec(module) -> float:
    config = module.RunConfig(
        model_dir=tempfile.mkdtemp(),
        save_checkpoints_steps=10**9,
        log_step_count_steps=100,
    )
    estimator = module.Estimator(_model_fn, config=config)
    timer = _Timer(_WARMUP.value)
    estimator.train(_input_fn, steps=_STEPS.value, hooks=[timer])
    return (_STEPS.value - _WARMUP.value) / (timer.last - timer.first)


def main(argv):
    del argv
    runners = {"emg.estimator": emg_estimator}
    if emg_estimator.HAS_TF_ESTIMATOR:
        runners["tf.estimator"] = tf.estimator
    results = {name: [] for name in runners}
    for round_index in range(_REPEATS.value):
        order = list(runners) if round_index % 2 == 0 else list(runners)[::-1]
        for name in order:
            results[name].append(_steps_per_sec(runners[name]))
    print(
        f"TF {tf.__version__}, {_STEPS.value} steps, {_REPEATS.value} rounds, "
        f"static_batch={_STATIC.value}"
    )
    reference = results.get("tf.estimator", results["emg.estimator"])
    base = statistics.median(reference)
    for name, values in results.items():
        median = statistics.median(values)
        per_round = statistics.median(v / r for v, r in zip(values, reference))
        runs = " ".join(f"{v:.0f}" for v in values)
        print(
            f"{name:14s} median {median:8.1f} steps/s  ratio {median / base:.3f}  "
            f"per-round ratio {per_round:.3f}  runs: {runs}"
        )


if __name__ == "__main__":
    app.run(main)
