"""`input_bound`: how much of each training step is spent waiting for input."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu.diagnose import (
    _loading,
    _stage_timing,
    _step_runs,
)
from estimator_multigpu.diagnose._stage_timing import StageThroughput

NOT_INPUT_BOUND = "not input-bound"
MODERATELY = "moderately input-bound"
HIGHLY = "highly input-bound"
MEASURED = "measured wait"
SYNTHETIC = "synthetic comparison"


@dataclasses.dataclass(frozen=True)
class InputBoundReport:
    """What `input_bound` measured.

    Attributes:
      steps: timed steps per run.
      examples_per_step: mean examples per step.
      step_seconds: mean step time on the real input.
      synthetic_step_seconds: mean step time on one cached batch.
      examples_per_sec: throughput on the real input.
      synthetic_examples_per_sec: throughput without input cost.
      input_share: share of the real step time spent on input, in [0, 1].
      share_method: `'measured wait'` (time blocked on the iterator, eager)
        or `'synthetic comparison'` (1 - synthetic / real step time).
      classification: `'not input-bound'` (< 5%), `'moderately
        input-bound'` (5-20%) or `'highly input-bound'` (>= 20%), the
        TensorFlow Profiler's bands.
      stages: each stage's throughput alone, sources first.
      slowest_stage: the stage adding the most time per example.
    """

    steps: int
    examples_per_step: float
    step_seconds: float
    synthetic_step_seconds: float
    examples_per_sec: float
    synthetic_examples_per_sec: float
    input_share: float
    share_method: str
    classification: str
    stages: tuple[StageThroughput, ...] = ()
    slowest_stage: StageThroughput | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def classify(input_share: float) -> str:
    """The Profiler's bands: < 5% not, 5-20% moderately, >= 20% highly."""
    if input_share < 0.05:
        return NOT_INPUT_BOUND
    return MODERATELY if input_share < 0.20 else HIGHLY


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"`{name}` must be an int >= {low}; received {value!r}.")


def _check(source, step_fn, model_fn, steps, warmup_steps, stage_seconds) -> None:
    if (step_fn is None) == (model_fn is None):
        raise ValueError(
            "Pass exactly one of `step_fn` (an eager step: step_fn(batch)) and "
            f"`model_fn` (an Estimator model_fn); received step_fn={step_fn!r}, "
            f"model_fn={model_fn!r}."
        )
    for name, fn in (("step_fn", step_fn), ("model_fn", model_fn)):
        if fn is not None and not callable(fn):
            raise TypeError(f"`{name}` must be callable; received {fn!r}.")
    if model_fn is not None and isinstance(source, tf.data.Dataset):
        raise TypeError(
            "With `model_fn`, pass the input_fn (a function returning the "
            "dataset), not a dataset: it is built in the model's graph."
        )
    if not isinstance(source, tf.data.Dataset) and not callable(source):
        raise TypeError(
            "`input_fn_or_dataset` must be a tf.data.Dataset or a function "
            f"returning one; received {source!r}."
        )
    _check_int("steps", steps, 1)
    _check_int("warmup_steps", warmup_steps, 0)
    if not isinstance(stage_seconds, (int, float)) or stage_seconds <= 0:
        raise ValueError(f"`stage_seconds` must be > 0; received {stage_seconds!r}.")


def _check_timeout(input_timeout) -> None:
    if input_timeout is None:
        return
    number = isinstance(input_timeout, (int, float)) and not isinstance(
        input_timeout, bool
    )
    if not number or not input_timeout > 0:
        raise ValueError(
            "`input_timeout` must be a number of seconds > 0, or None to wait "
            f"forever; received {input_timeout!r}."
        )


def _eager_dataset(source, params) -> tf.data.Dataset:
    if isinstance(source, tf.data.Dataset):
        dataset = source
    else:
        _loading.check_input_fn_signature(source, "input_fn_or_dataset")
        dataset = _loading.call_input_fn(source, "train", params)
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            "`input_fn_or_dataset` must return a tf.data.Dataset when called "
            f"eagerly; it returned {type(dataset).__name__}. Pass the function "
            "that builds the dataset (e.g. your dataset_fn), not one returning "
            "tensors."
        )
    if tf.is_symbolic_tensor(_tf_internals.variant_tensor(dataset)):
        raise TypeError(
            "`input_fn_or_dataset` is a graph-mode dataset; build it eagerly, or "
            "pass the input_fn with `model_fn=` to time it in graph mode."
        )
    return dataset


def _share(real: _step_runs.Run, synthetic: _step_runs.Run) -> tuple[float, str]:
    if real.wait_seconds is not None:
        return sum(real.wait_seconds) / real.total_seconds, MEASURED
    saved = 1 - synthetic.total_seconds / real.total_seconds
    return min(max(saved, 0.0), 1.0), SYNTHETIC


def _report(real, synthetic, stages) -> InputBoundReport:
    steps = len(real.step_seconds)
    share, method = _share(real, synthetic)
    return InputBoundReport(
        steps=steps,
        examples_per_step=real.examples / steps,
        step_seconds=real.total_seconds / steps,
        synthetic_step_seconds=synthetic.total_seconds / steps,
        examples_per_sec=real.examples / real.total_seconds,
        synthetic_examples_per_sec=synthetic.examples / synthetic.total_seconds,
        input_share=share,
        share_method=method,
        classification=classify(share),
        stages=tuple(stages),
        slowest_stage=_stage_timing.slowest(stages),
    )


def _log_progress(phase: str, done: int, total: int, rate: float) -> None:
    if done == total or done % max(1, total // 5) == 0:
        tf.get_logger().info(
            "input_bound: %s: step %d/%d, %.1f examples/sec.", phase, done, total, rate
        )


def _stage_progress(progress):
    def report(done: int, total: int, label: str) -> None:
        progress(f"stage {label}", done, total, 0.0)

    return report


def input_bound(
    input_fn_or_dataset: tf.data.Dataset | Callable,
    step_fn: Callable | None = None,
    *,
    model_fn: Callable | None = None,
    params: dict | None = None,
    steps: int = 50,
    warmup_steps: int = 5,
    stage_seconds: float = 1.0,
    time_stages: bool = True,
    progress: Callable[[str, int, int, float], None] | None = None,
    input_timeout: float | None = 300.0,
) -> InputBoundReport:
    """Measures whether training waits for its input, and which stage is slow.

    Runs `steps` training steps on the real input, then `steps` on one batch
    reused every step (tf_cnn_benchmarks' synthetic data), after
    `warmup_steps` untimed steps each. With `step_fn` (eager) the time each
    step waits for its batch is measured; with `model_fn` (graph mode) the
    input's share is `1 - synthetic / real` step time. Then every prefix of
    the pipeline is iterated alone for `stage_seconds`.

    Args:
      input_fn_or_dataset: a dataset of batches, or a function returning one
        (called like an input_fn: `fn()`, `fn(params)`, ...).
      step_fn: `step_fn(batch)`, one training step (e.g. a `tf.function`).
      model_fn: an Estimator model_fn instead; its TRAIN `train_op` is run
        in a session. Needs a function as `input_fn_or_dataset`.
      params: passed to the input_fn and model_fn when they take `params`.
      steps: timed steps per run.
      warmup_steps: untimed steps first (tracing, buffers filling).
      stage_seconds: time spent timing each stage.
      time_stages: time each stage (needs an eager-built dataset).
      progress: `progress(phase, steps_done, steps_total, examples_per_sec)`
        after every step and stage; default: logs a few lines at INFO.
      input_timeout: seconds to wait for any one batch of the real input
        (a warning names the step awaited every 30 s meanwhile); None waits
        forever.

    Returns:
      An `InputBoundReport`; `format_report` makes a table of it.

    Raises:
      TypeError, ValueError: for bad arguments, before anything runs, or an
        input that ends before `warmup_steps + steps`.
      InputTimeoutError: (a `TimeoutError`) no batch within `input_timeout`.
    """
    source = input_fn_or_dataset
    _check(source, step_fn, model_fn, steps, warmup_steps, stage_seconds)
    _check_timeout(input_timeout)
    progress = progress or _log_progress
    if model_fn is not None:
        args = (source, model_fn, params, steps, warmup_steps)
        real = _step_runs.graph_run(*args, False, progress, input_timeout)
        synthetic = _step_runs.graph_run(*args, True, progress)
        dataset = _eager_dataset(source, params) if time_stages else None
    else:
        dataset = _eager_dataset(source, params)
        real, synthetic = _step_runs.eager_runs(
            dataset, step_fn, steps, warmup_steps, progress, input_timeout
        )
    stages = []
    if time_stages:
        stages = _stage_timing.stage_throughputs(
            dataset, stage_seconds, _stage_progress(progress)
        )
    return _report(real, synthetic, stages)
