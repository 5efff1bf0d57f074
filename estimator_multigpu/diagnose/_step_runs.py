"""Timed training steps on the real input and on one cached batch repeated.

The cached-batch run is tf_cnn_benchmarks' synthetic-data method: the same
steps without the input pipeline, so the difference is what the input costs.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu.diagnose import _loading
from estimator_multigpu.diagnose._stage_drain import examples_in
from estimator_multigpu.diagnose._waiting import bounded

Progress = Callable[[str, int, int, float], None]


@dataclasses.dataclass(frozen=True)
class Run:
    """Timings of one run.

    Attributes:
      step_seconds: wall time of each timed step, input included.
      wait_seconds: time each step waited for its input; None when the step
        reads its input itself (graph mode).
      examples: examples over all timed steps.
    """

    step_seconds: tuple[float, ...]
    wait_seconds: tuple[float, ...] | None
    examples: int

    @property
    def total_seconds(self) -> float:
        return sum(self.step_seconds)


def _sync(outputs: Any) -> None:
    """Waits for the step's results, so asynchronous devices are timed too."""
    for value in tf.nest.flatten(outputs):
        if hasattr(value, "numpy"):
            value.numpy()


def _ended(done: int, total: int) -> ValueError:
    return ValueError(
        f"The input ended after {done} of {total} steps (warm-up included); "
        "pass fewer `steps`, or a dataset that repeats (dataset.repeat())."
    )


def _report(progress, phase, done, total, run_examples, elapsed):
    if progress is not None:
        progress(phase, done, total, run_examples / elapsed if elapsed else 0.0)


def eager_run(next_element, step_fn, steps, warmup, phase, progress) -> Run:
    """Runs `step_fn(next_element())` for `warmup` + `steps` steps."""
    for i in range(warmup):
        _sync(step_fn(next_element(i)))
    steps_s, waits, examples = [], [], 0
    for i in range(steps):
        start = time.perf_counter()
        element = next_element(warmup + i)
        ready = time.perf_counter()
        _sync(step_fn(element))
        steps_s.append(time.perf_counter() - start)
        waits.append(ready - start)
        examples += examples_in(element, True)
        _report(progress, phase, i + 1, steps, examples, sum(steps_s))
    return Run(tuple(steps_s), tuple(waits), examples)


def _waiting_for(i: int, total: int) -> str:
    return f"step {i + 1} of {total}, real input"


def eager_runs(
    dataset, step_fn, steps, warmup, progress, input_timeout=None
) -> tuple[Run, Run]:
    """The real run, then the same steps on its last batch, reused every step.

    Each real batch is awaited at most `input_timeout` seconds (None: no
    bound).
    """
    iterator, kept = iter(dataset), []

    def next_real(i):
        what = _waiting_for(i, warmup + steps)
        try:
            kept[:] = [bounded(lambda: next(iterator), what, input_timeout)]
        except StopIteration:
            raise _ended(i, warmup + steps) from None
        return kept[0]

    real = eager_run(next_real, step_fn, steps, warmup, "real input", progress)
    cached = kept[0]
    synthetic = eager_run(
        lambda i: cached, step_fn, steps, warmup, "one cached batch", progress
    )
    return real, synthetic


def _call_model_fn(model_fn: Callable, features, labels, params):
    names = inspect.signature(model_fn).parameters
    values = {"labels": labels, "mode": "train", "params": params, "config": None}
    kwargs = {k: v for k, v in values.items() if k in names}
    spec = model_fn(features=features, **kwargs)
    if getattr(spec, "train_op", None) is None:
        raise TypeError(
            "`model_fn` must return an EstimatorSpec with a train_op in TRAIN "
            f"mode; it returned {spec!r}."
        )
    return spec.train_op


def _graph_dataset(input_fn, params, synthetic: bool) -> tf.data.Dataset:
    dataset = _loading.call_input_fn(input_fn, "train", params)
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            "With `model_fn`, the input_fn must return a tf.data.Dataset (it is "
            f"rebuilt around one cached batch); it returned {type(dataset).__name__}."
            " Pass the function that builds the dataset."
        )
    return dataset.take(1).cache().repeat() if synthetic else dataset


def _graph_step(input_fn, model_fn, params, synthetic):
    tf.compat.v1.train.get_or_create_global_step()
    dataset = _graph_dataset(input_fn, params, synthetic)
    iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
    element = iterator.get_next()
    pair = isinstance(element, tuple) and len(element) == 2
    features, labels = element if pair else (element, None)
    train_op = _call_model_fn(model_fn, features, labels, params)
    count = tf.reduce_prod(tf.shape(tf.nest.flatten(element)[0])[:1])  # 1 if scalar
    inits = [
        tf.compat.v1.global_variables_initializer(),
        tf.compat.v1.local_variables_initializer(),
        tf.compat.v1.tables_initializer(),
        iterator.initializer,
    ]
    return inits, (train_op, count)


def graph_run(
    input_fn, model_fn, params, steps, warmup, synthetic, progress, input_timeout=None
) -> Run:
    """Runs a model_fn's train_op in a session on the input_fn's dataset.

    Each step of the real run waits at most `input_timeout` seconds.
    """
    phase = "one cached batch" if synthetic else "real input"
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        inits, fetches = _graph_step(input_fn, model_fn, params, synthetic)
        session.run(inits)
        steps_s, examples = [], 0
        try:
            for i in range(warmup + steps):
                start = time.perf_counter()
                what = _waiting_for(i, warmup + steps)
                run = functools.partial(session.run, fetches)
                timeout = None if synthetic else input_timeout
                _, count = bounded(run, what, timeout)
                if i >= warmup:
                    steps_s.append(time.perf_counter() - start)
                    examples += int(count)
                    _report(
                        progress, phase, i + 1 - warmup, steps, examples, sum(steps_s)
                    )
        except tf.errors.OutOfRangeError:
            raise _ended(i, warmup + steps) from None
    return Run(tuple(steps_s), None, examples)
