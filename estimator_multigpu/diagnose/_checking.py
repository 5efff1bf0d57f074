"""`check` and `check_input_fn`: the pipeline doctor's entry points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu.diagnose import _loading
from estimator_multigpu.diagnose._discovery import pipeline_feeding
from estimator_multigpu.diagnose._findings import Finding, sort_findings
from estimator_multigpu.diagnose._pipeline import Pipeline
from estimator_multigpu.diagnose._reading import read_dataset
from estimator_multigpu.diagnose._rules import Context, run_rules

DEFAULT_LARGE_CONSTANT_BYTES = 64 << 20


class NoPipelineError(ValueError):
    """The input_fn's result comes from no tf.data pipeline: nothing to check."""


def _check_count(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"`{name}` must be an int >= 1; received {value!r}.")


def _context(training, num_devices, num_input_pipelines, large_constant_bytes):
    if not isinstance(training, bool):
        raise TypeError(f"`training` must be True or False; received {training!r}.")
    _check_count("num_devices", num_devices)
    _check_count("num_input_pipelines", num_input_pipelines)
    _check_count("large_constant_bytes", large_constant_bytes)
    return Context(training, num_devices, num_input_pipelines, large_constant_bytes)


def check(
    dataset: tf.data.Dataset,
    *,
    training: bool = True,
    num_devices: int = 1,
    num_input_pipelines: int = 1,
    large_constant_bytes: int = DEFAULT_LARGE_CONSTANT_BYTES,
) -> list[Finding]:
    """Reads a dataset's own graph and reports what slows or breaks it.

    Works on eager and graph-mode datasets: the serialized dataset graph
    (eager) or the `tf.Graph` holding it is walked from the final
    transformation back to the sources, map functions included.

    Args:
      dataset: the pipeline, as the model will consume it.
      training: a training pipeline (order/determinism trade-offs apply).
      num_devices: devices each element (a global batch) is split over,
        e.g. by tower code or `tf.split`; 1 when each device has its own
        pipeline.
      num_input_pipelines: pipelines that together read the data (workers,
        or one per device); each should read only its share.
      large_constant_bytes: report stages embedding this many bytes of
        constants or more.

    Returns:
      Findings, errors first. Empty when every rule passes.

    Raises:
      TypeError, ValueError: for bad arguments, before anything runs.
    """
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"`dataset` must be a tf.data.Dataset; received {type(dataset).__name__}. "
            "For an input_fn use emg.diagnose.check_input_fn(input_fn)."
        )
    ctx = _context(training, num_devices, num_input_pipelines, large_constant_bytes)
    return sort_findings(run_rules(read_dataset(dataset), ctx))


def _independent_pipelines(pipeline: Pipeline) -> int:
    """Roots that share no stage (per-device pipelines, not per-device views)."""
    groups: list[set] = []
    for root in pipeline.roots:
        stages = set(pipeline.upstream(root)) | {root}
        overlapping = [g for g in groups if g & stages]
        for group in overlapping:
            stages |= group
            groups.remove(group)
        groups.append(stages)
    return len(groups)


def _input_fn_pipeline(input_fn: Callable, mode: str, params, config) -> Pipeline:
    with tf.Graph().as_default():
        result = _loading.call_input_fn(input_fn, mode, params, config)
        if isinstance(result, tf.data.Dataset):
            return read_dataset(result)
        pipeline = pipeline_feeding(result)
    if pipeline is None:
        raise NoPipelineError(
            f"`input_fn` ({getattr(input_fn, '__name__', input_fn)}) returned "
            f"a {type(result).__name__} of tensors that no tf.data iterator "
            "produces (queue runners or placeholders?), so there is no pipeline "
            "to check. Return the tf.data.Dataset itself from the input_fn "
            "(Estimators accept it), or check the function that builds it; "
            "`python -m estimator_multigpu.migrate` moves queue input to tf.data."
        )
    return pipeline


def check_input_fn(
    input_fn: Callable,
    *,
    mode: str = "train",
    params: dict | None = None,
    config: Any = None,
    num_devices: int = 1,
    num_input_pipelines: int | None = None,
    large_constant_bytes: int = DEFAULT_LARGE_CONSTANT_BYTES,
) -> list[Finding]:
    """Calls an input_fn as an Estimator would and checks its pipeline(s).

    The input_fn is called in a new graph with the arguments it names
    (`fn()`, `fn(params)`, `fn(params, config, mode)`). A returned dataset
    is checked as is; for returned tensors (`(features, labels)`, or
    `emg.PerDevice` shards) the datasets whose iterators produce them are
    found in the graph and checked together: one per device for
    `emg.inputs.sharded_input_fn`.

    Args:
      input_fn: an Estimator input_fn, or any function returning a dataset.
      mode: `'train'`, `'eval'` or `'infer'`; `'train'` checks a training
        pipeline.
      params, config: passed when the input_fn names them.
      num_devices: see `check`.
      num_input_pipelines: see `check`; default: the pipelines found.
      large_constant_bytes: see `check`.

    Returns:
      Findings, errors first.

    Raises:
      TypeError, ValueError: for bad arguments, or when the input_fn's result
        comes from no dataset.
    """
    _loading.check_input_fn_signature(input_fn)
    if mode not in _loading.MODES:
        raise ValueError(f"`mode` must be one of {_loading.MODES}; received {mode!r}.")
    _check_count("num_input_pipelines", num_input_pipelines, allow_none=True)
    pipeline = _input_fn_pipeline(input_fn, mode, params, config)
    pipelines = num_input_pipelines or _independent_pipelines(pipeline)
    ctx = _context(mode == "train", num_devices, pipelines, large_constant_bytes)
    return sort_findings(run_rules(pipeline, ctx))
