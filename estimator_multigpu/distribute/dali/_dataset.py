"""The per-replica `dataset_fn` that runs one DALI pipeline on each replica."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import nvidia.dali.plugin.tf as dali_tf
import tensorflow as tf
from nvidia.dali import Pipeline

from estimator_multigpu import _sharding
from estimator_multigpu.distribute.dali import _checks
from estimator_multigpu.distribute.dali._context import DaliReplicaContext
from estimator_multigpu.distribute.dali._placement import dali_device_id

PipelineFn = Callable[[DaliReplicaContext], Pipeline]


def dali_input_options() -> tf.distribute.InputOptions:
    """The `InputOptions` DALI datasets need: one pipeline per replica, built
    on the replica's device, with no extra copy (`fetch_to_device=False`)."""
    return tf.distribute.InputOptions(
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
        experimental_place_dataset_on_device=True,
        experimental_fetch_to_device=False,
    )


def _replica_context(input_context, strategy, global_batch_size, seed, num_threads):
    replicas = tuple(strategy.extended.worker_devices)
    if input_context.num_input_pipelines != len(replicas):
        raise ValueError(
            f"TensorFlow runs {input_context.num_input_pipelines} input pipeline(s) "
            f"for {len(replicas)} replicas; a DALI dataset_fn needs one per "
            "replica. Pass options=emg.distribute.dali.dali_input_options() to "
            "strategy.distribute_datasets_from_function (or use distribute_dali)."
        )
    index = input_context.input_pipeline_id
    return DaliReplicaContext(
        shard_id=index,
        num_shards=len(replicas),
        device_id=dali_device_id(replicas[index]),
        per_device_batch_size=_sharding.per_replica_batch_size(
            global_batch_size, len(replicas)
        ),
        seed=_sharding.derive_seed(seed, index),
        global_seed=seed,
        num_threads=num_threads,
        device=replicas[index],
        global_batch_size=global_batch_size,
    )


def _check_strategy(strategy) -> None:
    if not isinstance(strategy, tf.distribute.MirroredStrategy):
        raise TypeError(
            "DALI datasets run one pipeline per replica, which needs a "
            f"tf.distribute.MirroredStrategy; received {strategy!r}."
        )


def dali_dataset_fn(
    pipeline_fn: PipelineFn,
    strategy: tf.distribute.MirroredStrategy,
    *,
    global_batch_size: int,
    seed: int | None = None,
    num_threads: int = 2,
    sample_shapes: Sequence[Sequence[int | None]] | None = None,
    **dataset_kwargs,
) -> Callable[[tf.distribute.InputContext], tf.data.Dataset]:
    """Builds the `dataset_fn(input_context)` that feeds each replica from DALI.

    For replica i, `pipeline_fn(ctx)` builds a DALI pipeline with
    `ctx.per_device_batch_size` examples per batch, `device_id=ctx.device_id` (None on a
    CPU replica: a CPU-only pipeline) and a reader sharded with
    `shard_id=ctx.shard_id`, `num_shards=ctx.num_shards`; its `seed` should be
    `ctx.seed`. For shuffled epochs in which each example reaches one replica
    once, give the reader `shuffle_after_epoch=True, seed=ctx.global_seed`
    (its `random_shuffle` buffer mixes in the next shard's examples). The pipeline must declare `output_dtype` and `output_ndim`.
    The pipeline is checked against the replica (device_id, batch size) and
    wrapped in a `DALIDataset` on the replica's device, whose dtypes and
    `[per_replica_batch_size, ...]` shapes come from the declared outputs.

    Use the result with `dali_input_options()` (see `distribute_dali`). DALI
    readers loop forever: pass `steps_per_epoch` to Keras.

    Args:
      pipeline_fn: `pipeline_fn(ctx: DaliReplicaContext) -> nvidia.dali.Pipeline`.
      strategy: a `tf.distribute.MirroredStrategy`.
      global_batch_size: examples per step over all replicas.
      seed: one seed, from which each replica's `ctx.seed` is derived.
      num_threads: CPU threads of each pipeline (`ctx.num_threads`).
      sample_shapes: per output, its static shape without the batch
        dimension, e.g. `[[32, 32, 3], [1]]`; None leaves dimensions unknown.
      **dataset_kwargs: more `DALIDataset` arguments, e.g. `prefetch_queue_depth`.

    Returns:
      `dataset_fn(input_context) -> DALIDataset` of per-replica batches.

    Raises:
      TypeError: for a strategy that is not a MirroredStrategy.
      ValueError: for a global batch that does not divide by the replica
        count; when called, for a pipeline built for another device or batch.
    """
    _check_strategy(strategy)
    _sharding.per_replica_batch_size(global_batch_size, strategy.num_replicas_in_sync)

    def replica_dataset_fn(input_context):
        ctx = _replica_context(
            input_context, strategy, global_batch_size, seed, num_threads
        )
        pipeline = pipeline_fn(ctx)
        _checks.check_pipeline(pipeline, ctx)
        dtypes, shapes = _checks.output_signature(
            pipeline, ctx.per_device_batch_size, sample_shapes
        )
        with tf.device(ctx.device):
            return dali_tf.DALIDataset(
                pipeline=pipeline,
                batch_size=ctx.per_device_batch_size,
                num_threads=pipeline.num_threads,
                device_id=ctx.device_id,
                output_dtypes=dtypes,
                output_shapes=shapes,
                fail_on_device_mismatch=True,
                **dataset_kwargs,
            )

    return replica_dataset_fn


def distribute_dali(
    pipeline_fn: PipelineFn,
    strategy: tf.distribute.MirroredStrategy,
    *,
    global_batch_size: int,
    **kwargs,
) -> tf.distribute.DistributedDataset:
    """`strategy.distribute_datasets_from_function` of a `dali_dataset_fn`,
    with `dali_input_options()`. `kwargs` go to `dali_dataset_fn`."""
    replica_fn = dali_dataset_fn(
        pipeline_fn, strategy, global_batch_size=global_batch_size, **kwargs
    )
    return strategy.distribute_datasets_from_function(replica_fn, dali_input_options())


def steps_per_epoch(epoch_size: int, global_batch_size: int, num_replicas: int) -> int:
    """Steps in which every replica reads only examples of its own shard once.

    DALI readers give shard i the examples `[floor(n*i/r), floor(n*(i+1)/r))`
    of the `n = epoch_size` (e.g. `pipeline.epoch_size('Reader')`); the
    smallest shard has `n // r`, so this is `(n // r) // per_replica_batch_size`.
    """
    per_replica = _sharding.per_replica_batch_size(global_batch_size, num_replicas)
    return (epoch_size // num_replicas) // per_replica
