"""Rules on parallelism: sequential maps and reads, cycle_length, element order."""

from __future__ import annotations

import os

from estimator_multigpu import _tf_internals
from estimator_multigpu.diagnose import _ops
from estimator_multigpu.diagnose._cardinality import cardinality
from estimator_multigpu.diagnose._findings import INFO, WARNING
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage
from estimator_multigpu.diagnose._rules._common import (
    CHEAP_OPS,
    Context,
    batch_levels,
    finding,
    input_level,
    reads_files,
)

_PARALLEL_MAP = "dataset = dataset.map(fn, num_parallel_calls=tf.data.AUTOTUNE)"
_PARALLEL_READ = (
    "dataset = files.interleave(\n"
    "    tf.data.TFRecordDataset, cycle_length=tf.data.AUTOTUNE,\n"
    "    num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)"
)


def _many_elements(stage: Stage) -> bool:
    """Whether the stage's input may have more than one element."""
    count = cardinality(stage.inputs[0]) if stage.inputs else None
    return count is None or count > 1


def sequential_map(pipeline: Pipeline, ctx: Context):
    levels = batch_levels(pipeline)
    for stage in pipeline.stages:
        if stage.family != "map" or stage.op in _ops.PARALLEL_OPS:
            continue
        work = sorted(stage.function_ops() - CHEAP_OPS)
        if not work or not _many_elements(stage):
            continue
        batched = input_level(levels, stage) > 0
        yield finding(
            pipeline,
            stage,
            "sequential-map",
            INFO if batched else WARNING,
            f"map runs its function ({', '.join(work[:4])}) on one "
            f"{'batch' if batched else 'element'} at a time, in the thread that "
            "asks for the next element; num_parallel_calls spreads the calls "
            "over the cores."
            + (" Batched work is often vectorised already." if batched else ""),
            _PARALLEL_MAP,
        )


def sequential_interleave(pipeline: Pipeline, ctx: Context):
    for stage in pipeline.stages:
        if stage.op == "InterleaveDataset":
            why = (
                "interleave without num_parallel_calls opens cycle_length inputs "
                "but reads them one after another, in one thread."
            )
        elif (
            stage.family == "flat_map" and reads_files(stage) and _many_elements(stage)
        ):
            why = (
                "flat_map reads each file to its end before opening the next, in "
                "one thread: no two files are ever read at once."
            )
        else:
            continue
        yield finding(
            pipeline, stage, "sequential-interleave", WARNING, why, _PARALLEL_READ
        )


def _auto_cycle_length() -> int:
    """The cycle_length TensorFlow picks for AUTOTUNE parallelism: cores / 3."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    return -(-cores // 3)


def _cycle_length_one(stage: Stage) -> bool:
    """cycle_length=1, unless TensorFlow may have chosen it.

    With AUTOTUNE parallelism an eager dataset serializes the cycle_length
    TensorFlow picked (one per three cores), so on up to three cores
    `cycle_length=AUTOTUNE` and `cycle_length=1` read the same.
    """
    if stage.family != "interleave" or stage.int_arg("cycle_length") != 1:
        return False
    auto = stage.int_arg("num_parallel_calls") == _ops.AUTOTUNE
    return not (auto and _auto_cycle_length() == 1)


def interleave_cycle_length_one(pipeline: Pipeline, ctx: Context):
    for stage in filter(_cycle_length_one, pipeline.stages):
        if reads_files(stage) and _many_elements(stage):
            yield finding(
                pipeline,
                stage,
                "interleave-cycle-length-one",
                WARNING,
                "interleave with cycle_length=1 reads one file at a time, "
                "whatever num_parallel_calls says: reads never overlap.",
                _PARALLEL_READ,
            )


def _pipeline_deterministic(pipeline: Pipeline) -> bool | None:
    for stage in reversed(pipeline.stages):
        if stage.op == "OptionsDataset" and stage.node is not None:
            value = stage.node.attr["serialized_options"].s
            deterministic = _tf_internals.options_deterministic(value)
            if deterministic is not None:
                return deterministic
    return None


def _keeps_order(stage: Stage, default: bool) -> bool:
    if stage.node is None:
        return False
    if "sloppy" in stage.node.attr:
        return not stage.node.attr["sloppy"].b
    setting = stage.attr_text("deterministic") or "default"
    return setting == "true" or (setting == "default" and default)


def deterministic_order(pipeline: Pipeline, ctx: Context):
    if not ctx.training:
        return
    default = _pipeline_deterministic(pipeline) is not False
    for stage in pipeline.stages:
        if stage.op in _ops.PARALLEL_OPS and _keeps_order(stage, default):
            yield finding(
                pipeline,
                stage,
                "deterministic-order",
                INFO,
                "This parallel stage keeps a fixed element order, so one slow "
                "element holds back the finished ones behind it. Training "
                "rarely needs the exact order.",
                "options = tf.data.Options()\n"
                "options.deterministic = False\n"
                "dataset = dataset.with_options(options)",
            )


RULES = (
    sequential_map,
    sequential_interleave,
    interleave_cycle_length_one,
    deterministic_order,
)
