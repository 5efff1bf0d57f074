"""`dataset_fn(input_context)` builders for `distribute_datasets_from_function`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _sharding
from estimator_multigpu.distribute import _batch_size, _multi_worker, _options
from estimator_multigpu.distribute._replica_context import (
    ReplicaInputContext,
    make_context,
)

DatasetFn = Callable[[ReplicaInputContext], tf.data.Dataset]


def _check_optional_count(value, argument: str, none_means: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"`{argument}` must be an int >= 1 or None ({none_means}); "
            f"received {value!r}."
        )


def _check_arguments(dataset_fn, shuffle_buffer_size, num_epochs, user_batches):
    if not callable(dataset_fn):
        raise TypeError(
            "`dataset_fn` must be a callable dataset_fn(ctx) -> tf.data.Dataset; "
            f"received {dataset_fn!r}."
        )
    _check_optional_count(shuffle_buffer_size, "shuffle_buffer_size", "no shuffle")
    _check_optional_count(num_epochs, "num_epochs", "repeat forever")
    if user_batches and (shuffle_buffer_size or num_epochs != 1):
        raise ValueError(
            "With `user_batches=True` the dataset_fn shuffles, repeats and batches "
            f"itself; received shuffle_buffer_size={shuffle_buffer_size!r} and "
            f"num_epochs={num_epochs!r}. Drop them, or set user_batches=False."
        )


def _check_dataset(dataset, ctx: ReplicaInputContext, user_batches: bool) -> None:
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"`dataset_fn` must return a tf.data.Dataset; pipeline "
            f"{ctx.shard_index} returned {type(dataset).__name__}."
        )
    if not user_batches:
        return
    first = tf.nest.flatten(dataset.element_spec)[0]
    size = first.shape[0] if first.shape.rank else None
    if size is not None and size != ctx.per_replica_batch_size:
        raise ValueError(
            f"`dataset_fn` returned batches of {size} examples, but each replica "
            f"takes {ctx.per_replica_batch_size} (global batch "
            f"{ctx.global_batch_size} / {ctx.num_replicas_in_sync} replicas). "
            "Batch with ctx.per_replica_batch_size."
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class _PipelineSettings:
    """How each pipeline shards, shuffles, repeats and batches."""

    shuffle_buffer_size: int | None
    num_epochs: int | None
    drop_remainder: bool
    user_shards: bool


def _shard_shuffle_batch(dataset, ctx, settings: _PipelineSettings):
    """Shards, then shuffles with the shard's seed, repeats and batches
    (`sharding.shard_then_shuffle`: shards stay disjoint whatever the seeds)."""
    plan = _sharding.Shard(
        num_shards=ctx.num_shards,
        shard_index=ctx.shard_index,
        per_device_batch_size=ctx.per_replica_batch_size,
        seed=ctx.seed,
    )
    dataset = _sharding.shard_then_shuffle(
        dataset,
        plan,
        shuffle_buffer_size=settings.shuffle_buffer_size,
        num_epochs=settings.num_epochs,
        sharder=None if settings.user_shards else _sharding.shard,
    )
    dataset = dataset.batch(
        ctx.per_replica_batch_size, drop_remainder=settings.drop_remainder
    )
    return dataset.prefetch(tf.data.AUTOTUNE)


def per_replica_dataset_fn(
    dataset_fn: DatasetFn,
    strategy: tf.distribute.Strategy,
    *,
    global_batch_size: int,
    options: tf.distribute.InputOptions | None = None,
    shuffle_buffer_size: int | None = None,
    seed: int | None = None,
    num_epochs: int | None = 1,
    drop_remainder: bool = False,
    user_shards: bool = False,
    user_batches: bool = False,
) -> Callable[[tf.distribute.InputContext], tf.data.Dataset]:
    """Builds the `dataset_fn(input_context)` for `distribute_datasets_from_function`.

    TF calls the result once per input pipeline: once per worker with
    `replication_mode='per_worker'` (the default, `options=None`), once per
    replica with `'per_replica'`. Each call runs `dataset_fn(ctx)` on the
    pipeline's device (`ctx.device`) with a `ReplicaInputContext`: the shard
    (`ctx.shard_index` = `input_pipeline_id` of `ctx.num_shards`), the replica
    devices it feeds (`ctx.devices`), `ctx.per_replica_batch_size` (the
    equal share of `global_batch_size`, from `sharding.per_replica_batch_size`)
    and `ctx.seed`, derived for the shard from `seed`.

    By default `dataset_fn` returns the whole dataset as unbatched examples;
    each pipeline takes its shard (before shuffling), shuffles with its seed,
    repeats `num_epochs` times and batches `per_replica_batch_size` examples,
    so each epoch every example reaches exactly one replica once. Under
    `MultiWorkerMirroredStrategy` each worker builds its own pipeline(s) and
    `ctx.shard_index` counts over all workers, so the shards are the workers'
    (taken before shuffling). The pipelines get auto-shard policy OFF (they
    are sharded already) unless `dataset_fn` chose one.

    Args:
      dataset_fn: `dataset_fn(ctx) -> tf.data.Dataset` of examples.
      strategy: the strategy whose `distribute_datasets_from_function` will
        call the result.
      global_batch_size: examples per step over all replicas.
      options: the `tf.distribute.InputOptions` that will be passed with it
        (see `input_options`); None for TF's defaults.
      shuffle_buffer_size: examples in each pipeline's shuffle buffer; None
        does not shuffle (evaluation).
      seed: one seed for all shuffles; None for nondeterministic ones.
      num_epochs: passes over the data; None repeats forever (then pass
        `steps_per_epoch` to Keras).
      drop_remainder: drop a final batch of fewer than
        `per_replica_batch_size` examples (static batch shapes) instead of
        keeping it.
      user_shards: `dataset_fn` already returns only shard `ctx.shard_index`
        (e.g. it shards a file list); no `Dataset.shard` is applied.
      user_batches: `dataset_fn` returns per-replica batches itself, already
        sharded, shuffled and repeated; only their size is checked.

    Returns:
      `dataset_fn(input_context) -> tf.data.Dataset` of per-replica batches.

    Raises:
      TypeError: for a `dataset_fn` that is not callable or a bad `strategy`.
      ValueError: if `global_batch_size` does not divide by the number of
        replicas, or for invalid `options` or settings.
    """
    _batch_size.check_global_batch_size(strategy, global_batch_size)
    _options.check_input_options(options, strategy)
    _check_arguments(dataset_fn, shuffle_buffer_size, num_epochs, user_batches)
    settings = _PipelineSettings(
        shuffle_buffer_size=shuffle_buffer_size,
        num_epochs=num_epochs,
        drop_remainder=drop_remainder,
        user_shards=user_shards,
    )

    def replica_dataset_fn(input_context):
        ctx = make_context(input_context, strategy, options, global_batch_size, seed)
        with tf.device(ctx.device):
            dataset = dataset_fn(ctx)
            _check_dataset(dataset, ctx, user_batches)
            if not user_batches:
                dataset = _shard_shuffle_batch(dataset, ctx, settings)
        return _multi_worker.explicit_auto_shard(dataset)

    return replica_dataset_fn


def distribute_dataset_fn(
    dataset_fn: DatasetFn,
    strategy: tf.distribute.Strategy,
    *,
    global_batch_size: int,
    options: tf.distribute.InputOptions | None = None,
    **kwargs,
) -> tf.distribute.DistributedDataset:
    """`strategy.distribute_datasets_from_function` of a `per_replica_dataset_fn`.

    Passes the same `options` to both, so that the builder and TensorFlow agree
    on the number of input pipelines.

    Args:
      dataset_fn: `dataset_fn(ctx)` returning the whole dataset, unbatched
        (see `per_replica_dataset_fn`).
      strategy: the `tf.distribute.Strategy` to distribute over.
      global_batch_size: examples per step over all replicas.
      options: `tf.distribute.InputOptions`, e.g. from `input_options`.
      **kwargs: further `per_replica_dataset_fn` arguments
        (`shuffle_buffer_size`, `seed`, `num_epochs`, ...).

    Returns:
      The distributed dataset; iterate it or pass it to Keras `fit`.
    """
    replica_fn = per_replica_dataset_fn(
        dataset_fn,
        strategy,
        global_batch_size=global_batch_size,
        options=options,
        **kwargs,
    )
    return strategy.distribute_datasets_from_function(replica_fn, options)
