"""Rules on where prefetch, shuffle, shard and repeat sit in the pipeline."""

from __future__ import annotations

from estimator_multigpu.diagnose._cardinality import INFINITE, cardinality
from estimator_multigpu.diagnose._findings import ERROR, INFO, WARNING
from estimator_multigpu.diagnose._pipeline import DEVICE_COPY, Pipeline, Stage
from estimator_multigpu.diagnose._rules._common import (
    Context,
    batch_levels,
    finding,
    input_level,
)

_SHARD_FIRST = (
    "dataset = dataset.shard(num_shards, index)  # first\n"
    "dataset = dataset.shuffle(buffer_size, seed=seed)"
)


def no_final_prefetch(pipeline: Pipeline, ctx: Context):
    for root in pipeline.roots:
        last = pipeline.last(root)
        if last.family != "prefetch":
            yield finding(
                pipeline,
                last,
                "no-final-prefetch",
                WARNING,
                "The pipeline does not end with prefetch, so the training step "
                "waits while the next batch is made instead of both running at "
                "once. Prefetching costs only the memory of the batches ahead.",
                "dataset = dataset.prefetch(tf.data.AUTOTUNE)  # last",
            )


def _copy_is_last(pipeline: Pipeline, stage: Stage) -> bool:
    lasts = {pipeline.last(root) for root in pipeline.roots}
    consumers = pipeline.consumers.get(stage, [])
    if stage in lasts:
        return True
    return (
        len(consumers) == 1
        and consumers[0] in lasts
        and (consumers[0].family == "prefetch")
    )


def prefetch_to_device_not_last(pipeline: Pipeline, ctx: Context):
    for stage in pipeline.stages:
        if stage.kind == DEVICE_COPY and not _copy_is_last(pipeline, stage):
            yield finding(
                pipeline,
                stage,
                "prefetch-to-device-not-last",
                ERROR,
                "prefetch_to_device (copy_to_device) must be the final "
                "transformation, as TensorFlow documents: what follows it runs "
                "on the host again, so batches travel to the device and back, "
                "and an iterator on a GPU cannot be built.",
                "dataset = dataset.map(...)  # everything else first\n"
                "dataset = dataset.apply(tf.data.experimental.prefetch_to_device(device))",
            )


def shuffle_after_batch(pipeline: Pipeline, ctx: Context):
    levels = batch_levels(pipeline)
    for stage in pipeline.stages:
        if stage.family == "shuffle" and input_level(levels, stage) > 0:
            yield finding(
                pipeline,
                stage,
                "shuffle-after-batch",
                WARNING,
                "shuffle comes after batch, so it reorders whole batches: the "
                "same examples always share a batch, epoch after epoch, and the "
                "gradient noise that shuffling should bring is lost.",
                "dataset = dataset.shuffle(buffer_size).batch(batch_size)",
            )


def _unseeded(stage: Stage) -> bool:
    return stage.int_arg("seed") == 0 and stage.int_arg("seed2") == 0


def shuffle_before_shard(pipeline: Pipeline, ctx: Context):
    for stage in pipeline.stages:
        if stage.family != "shard":
            continue
        shuffles = [s for s in pipeline.upstream(stage) if s.family == "shuffle"]
        if any(_unseeded(s) for s in shuffles):
            yield finding(
                pipeline,
                stage,
                "shard-after-unseeded-shuffle",
                ERROR,
                "shard takes every n-th element of an order that a shuffle "
                "without a fixed seed makes different in every worker, so the "
                "shards overlap: some examples are read several times per "
                "epoch and others never.",
                _SHARD_FIRST,
            )
        elif shuffles:
            yield finding(
                pipeline,
                stage,
                "shuffle-before-shard",
                WARNING,
                "A shuffle runs before shard: every worker reads and shuffles "
                "the whole dataset to keep one element in n, and the shards "
                "stay disjoint only while all workers use the same seed and "
                "the same number of epochs.",
                _SHARD_FIRST,
            )


def _buffer_findings(pipeline: Pipeline, stage: Stage):
    size = stage.int_arg("buffer_size")
    count = cardinality(stage.inputs[0]) if stage.inputs else None
    if size == 1 and (count is None or count > 1):
        yield finding(
            pipeline,
            stage,
            "shuffle-buffer-one",
            WARNING,
            "shuffle(buffer_size=1) yields the elements in input order: it "
            "shuffles nothing and still copies every element.",
            "dataset = dataset.shuffle(10_000)  # several files' worth of examples",
        )
    elif size and count not in (None, INFINITE) and size > count:
        yield finding(
            pipeline,
            stage,
            "shuffle-buffer-exceeds-data",
            INFO,
            f"buffer_size ({size}) is larger than the {int(count)} elements it "
            "shuffles: the buffer holds all of them in memory and the first "
            "element waits until every one is read. That is a full shuffle; "
            "if intended, say so with the data's size.",
            f"dataset = dataset.shuffle({int(count)})",
        )


def shuffle_buffer(pipeline: Pipeline, ctx: Context):
    for stage in pipeline.stages:
        if stage.family == "shuffle":
            yield from _buffer_findings(pipeline, stage)


def _repeats(stage: Stage) -> bool:
    return stage.family == "repeat" and stage.int_arg("count") != 1


def repeat_shuffle_order(pipeline: Pipeline, ctx: Context):
    for stage in filter(_repeats, pipeline.stages):
        after = [s for s in pipeline.downstream(stage) if s.family == "shuffle"]
        before = [s for s in pipeline.upstream(stage) if s.family == "shuffle"]
        if after:
            yield finding(
                pipeline,
                stage,
                "repeat-before-shuffle",
                INFO,
                "repeat comes before shuffle: the buffer never drains at an "
                "epoch end (no refill pause), but epochs blur: an example can "
                "come back before others were seen once this epoch.",
                "dataset = dataset.shuffle(buffer_size).repeat()  # strict epochs",
            )
        elif before:
            yield finding(
                pipeline,
                stage,
                "shuffle-before-repeat",
                INFO,
                "shuffle comes before repeat: every epoch is complete before "
                "the next starts, but the buffer drains at each epoch end and "
                "must refill before the next element: a pause per epoch.",
                "dataset = dataset.repeat().shuffle(buffer_size)  # no pause; epochs blur",
            )


RULES = (
    no_final_prefetch,
    prefetch_to_device_not_last,
    shuffle_after_batch,
    shuffle_before_shard,
    shuffle_buffer,
    repeat_shuffle_order,
)
