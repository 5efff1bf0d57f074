"""Rules for pipelines that feed several devices or are one of several pipelines."""

from __future__ import annotations

from estimator_multigpu.diagnose._cardinality import INFINITE, cardinality
from estimator_multigpu.diagnose._findings import ERROR, INFO, WARNING
from estimator_multigpu.diagnose._pipeline import Pipeline, Stage
from estimator_multigpu.diagnose._rules._common import Context, finding, reads_files


def _last_batch(pipeline: Pipeline, root: Stage) -> Stage | None:
    stage = pipeline.last(root)
    while stage is not None:
        if stage.family in ("batch", "map_and_batch"):
            return stage
        stage = stage.inputs[0] if len(stage.inputs) == 1 else None
    return None


def _remainder(pipeline: Pipeline, batch: Stage, n: int):
    drop = batch.arg("drop_remainder")
    count = cardinality(batch.inputs[0]) if batch.inputs else None
    if (drop is not None and bool(drop)) or count == INFINITE:
        return
    yield finding(
        pipeline,
        batch,
        "batch-remainder-multi-device",
        WARNING,
        f"batch keeps a short final batch (drop_remainder=False), which does "
        f"not split into {n} equal parts: tower code that splits with tf.split "
        "fails on the last step, and some devices may get no examples.",
        "dataset = dataset.batch(global_batch_size, drop_remainder=True)\n"
        "# or emg.inputs.multi_device_input_fn, which splits a short batch unevenly",
    )


def batch_for_devices(pipeline: Pipeline, ctx: Context):
    n = ctx.num_devices
    if n < 2:
        return
    for batch in filter(None, (_last_batch(pipeline, r) for r in pipeline.roots)):
        size = batch.int_arg("batch_size")
        if size is not None and size % n:
            yield finding(
                pipeline,
                batch,
                "batch-not-divisible",
                ERROR,
                f"Batches of {size} examples do not split evenly over {n} "
                "devices: tf.split fails, and tf.distribute pads or idles devices.",
                f"dataset = dataset.batch({max(size - size % n, n)})  # a multiple of {n}",
            )
        yield from _remainder(pipeline, batch, n)


def _sharded(pipeline: Pipeline, stage: Stage, direction) -> bool:
    return any(s.family == "shard" for s in direction(stage))


def files_not_sharded(pipeline: Pipeline, ctx: Context):
    n = ctx.num_input_pipelines
    if n < 2:
        return
    for stage in filter(reads_files, pipeline.stages):
        if _sharded(pipeline, stage, pipeline.upstream):
            continue
        if _sharded(pipeline, stage, pipeline.downstream):
            yield finding(
                pipeline,
                stage,
                "records-sharded-not-files",
                INFO,
                f"Each of the {n} input pipelines reads every file and keeps one "
                f"record in {n}: {n} times the I/O of sharding the file list.",
                "files = files.shard(num_shards, index)  # before reading, given "
                "at least num_shards files",
            )
        else:
            yield finding(
                pipeline,
                stage,
                "files-not-sharded",
                WARNING,
                f"This pipeline is one of {n}, yet nothing in it shards: unless it "
                f"splits the data another way, every pipeline reads every file "
                f"and each example is seen {n} times per epoch.",
                "files = tf.data.Dataset.from_tensor_slices(sorted(filenames))\n"
                "files = files.shard(num_shards, index)",
            )


RULES = (batch_for_devices, files_not_sharded)
