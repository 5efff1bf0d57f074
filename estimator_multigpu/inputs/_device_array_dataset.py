"""`device_array_dataset`: batches of slices of a device-resident array."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from estimator_multigpu import _sharding
from estimator_multigpu.inputs import _fragment_index
from estimator_multigpu.inputs._device_array import (
    DeviceArray,
    current_device,
    gather_fragments,
    host_of,
)
from estimator_multigpu.inputs._fragment_index import check_starts

ElementFn = Callable[[tf.Tensor, tf.Tensor], Any]


def _start_lookup(shard, device: str | None) -> Callable[[tf.Tensor], tf.Tensor]:
    """Maps positions in this shard's index list to start indices."""
    if isinstance(shard, range):
        start, step = shard.start, shard.step
        return lambda positions: start + positions * step
    table = DeviceArray(shard, name="fragment_starts").on(device)
    return lambda positions: tf.gather(table, positions)


def device_array_dataset(
    array: DeviceArray | np.ndarray,
    indices: range | Sequence[int] | np.ndarray,
    fragment_length: int,
    per_device_batch_size: int,
    *,
    device: str | None = None,
    num_shards: int = 1,
    shard_index: int = 0,
    seed: int | None = None,
    shuffle: bool = True,
    num_epochs: int | None = 1,
    drop_remainder: bool = False,
    element_fn: ElementFn | None = None,
    gather_in_dataset: bool = True,
) -> tf.data.Dataset:
    """Batches of fragments `array[i : i + fragment_length]`, gathered on `device`.

    The array lives on `device` as one resident copy (`DeviceArray.on`), never
    as a graph constant. The dataset yields batches of positions in this
    shard's part of `indices`; one map step turns each batch of positions into
    start indices and gathers the whole batch of fragments with one gather op
    on `device`. `indices[shard_index::num_shards]` is this shard's part
    (sharded before shuffling, so shards are disjoint and together cover the
    index list); a shuffle permutes it anew each epoch (a stateless index
    permutation: no shuffle buffer, exact per-epoch shuffling) from seeds
    derived from `seed` and `shard_index`. Batches may straddle epoch
    boundaries, as after `repeat()`.

    Where the batch ends up depends on the iterator. tf.data returns a map
    function's outputs to the dataset's device, and tf.data's own kernels
    (range, batch, map) run on CPUs; so an iterator on the host (graph-mode
    `sharded_input_fn`, or tf.distribute with the dataset falling back to
    the host) gathers on the device but receives the batch in host memory,
    to be copied back by `prefetch_to_device`. For the copy-free path pass
    `gather_in_dataset=False`: the dataset then yields only the `[batch]`
    int64 starts, and the model gathers on its device with
    `DeviceArray.gather_fragments` (pass the same `DeviceArray` to both).

    Args:
      array: `[length, ...]` host array, or a `DeviceArray` to share copies
        between datasets.
      indices: start index of each example, a `range` (nothing is stored)
        or a 1-D integer array (stored on `device` beside the array).
      fragment_length: length of each fragment.
      per_device_batch_size: fragments per batch (per device).
      device: where the copy lives and the gather runs; default the current
        `tf.device` scope (tf.distribute sets it per replica).
      num_shards: number of shards the index list is split into.
      shard_index: this shard, in `[0, num_shards)`.
      seed: one seed for all shards and epochs; None draws one (logged).
      shuffle: permute each epoch (off for evaluation).
      num_epochs: passes over this shard; None repeats forever.
      drop_remainder: drop a final batch smaller than `per_device_batch_size`.
      element_fn: optional `element_fn(fragments, starts)` run on `device`
        after the gather, e.g. to split inputs and targets; by default the
        dataset yields the fragments.
      gather_in_dataset: False yields only the int64 `[per_device_batch_size]` starts
        (looked up on the host); gather in the model with
        `DeviceArray.gather_fragments` on each device.

    Returns:
      A dataset of `[per_device_batch_size, fragment_length, *array.shape[1:]]`
      batches
      (or of `element_fn`'s outputs, or of starts).

    Raises:
      TypeError, ValueError: for bad arguments, out-of-range `indices` (the
        message names the first one) or a bad shard.
    """
    array = array if isinstance(array, DeviceArray) else DeviceArray(array)
    indices = check_starts(indices, fragment_length, array.length)
    _fragment_index.check_args(
        per_device_batch_size, num_shards, shard_index, num_epochs
    )
    _check_gather_options(gather_in_dataset, element_fn)
    device = device or current_device()
    shard = _sharding.shard_list(
        indices,
        _sharding.Shard(
            num_shards=num_shards,
            shard_index=shard_index,
            per_device_batch_size=per_device_batch_size,
        ),
    )
    seeds = _fragment_index.shard_seeds(seed, shard_index) if shuffle else None
    order = _fragment_index.positions(len(shard), seeds)
    if gather_in_dataset:
        variable = array.on(device)
        lookup = _start_lookup(shard, device)
    else:
        variable, device = None, host_of(device)
        lookup = _start_lookup(shard, device)

    def batch_of(counter: tf.Tensor):
        with tf.device(device):
            starts = tf.cast(lookup(order(counter)), tf.int64)
            if variable is None:
                return starts
            fragments = gather_fragments(variable, starts, fragment_length)
            return element_fn(fragments, starts) if element_fn else fragments

    dataset = _fragment_index.counter(len(shard), num_epochs)
    batched = dataset.batch(per_device_batch_size, drop_remainder)
    return batched.map(batch_of).prefetch(1)


def _check_gather_options(gather_in_dataset: bool, element_fn) -> None:
    if not isinstance(gather_in_dataset, bool):
        raise TypeError(
            f"`gather_in_dataset` must be True or False; received {gather_in_dataset!r}."
        )
    if element_fn is not None and not gather_in_dataset:
        raise ValueError(
            "`element_fn` runs after the gather in the dataset, but "
            "gather_in_dataset=False yields only the starts; apply your function "
            "after DeviceArray.gather_fragments in the model instead."
        )


def device_array_dataset_fn(
    array: DeviceArray | np.ndarray,
    indices: range | Sequence[int] | np.ndarray,
    fragment_length: int,
    *,
    global_batch_size: int | None = None,
    seed: int | None = None,
    **options,
) -> Callable[[Any], tf.data.Dataset]:
    """A `dataset_fn(ctx)` for `sharded_input_fn` or tf.distribute.

    Validates everything once, up front. Each call builds shard
    `ctx.shard_index` of `ctx.num_shards` on `ctx.device`, batched by
    `ctx.per_device_batch_size` and seeded by `ctx.seed` (an
    `emg.inputs.InputContext`; pass `user_batches=True` to
    `sharded_input_fn`), or shard `input_pipeline_id` of
    `num_input_pipelines` on the current device scope, batched by
    the equal per-replica share of `global_batch_size` and seeded from
    `seed` (a `tf.distribute.InputContext`). For a gather in the dataset
    use PER_REPLICA replication with `experimental_place_dataset_on_device=
    True` and `experimental_fetch_to_device=False`, so that each replica's
    pipeline is built under its device and reads that device's copy; with
    `gather_in_dataset=False` any replication mode works, the replica
    function gathering with `DeviceArray.gather_fragments`. Pipelines on one
    device share one resident copy.

    Args:
      array, indices, fragment_length: as for `device_array_dataset`.
      global_batch_size: examples per step over all replicas; required for
        tf.distribute contexts.
      seed: one seed for all shards (tf.distribute contexts; an
        `emg.inputs.InputContext` brings its own per-shard seed).
      **options: `shuffle`, `num_epochs`, `drop_remainder`, `element_fn`,
        `gather_in_dataset` of `device_array_dataset`.

    Returns:
      `dataset_fn(ctx) -> tf.data.Dataset`.
    """
    array = array if isinstance(array, DeviceArray) else DeviceArray(array)
    indices = check_starts(indices, fragment_length, array.length)
    _fragment_index.check_int(
        "global_batch_size", global_batch_size, 1, allow_none=True
    )

    def dataset_fn(ctx) -> tf.data.Dataset:
        shard, device = _shard_of(ctx, global_batch_size, seed), None
        if not isinstance(ctx, tf.distribute.InputContext):
            device = ctx.device
        return device_array_dataset(
            array,
            indices,
            fragment_length,
            shard.per_device_batch_size,
            device=device,
            num_shards=shard.num_shards,
            shard_index=shard.shard_index,
            seed=shard.seed,
            **options,
        )

    return dataset_fn


def _shard_of(ctx, global_batch_size: int | None, seed) -> _sharding.Shard:
    """The shard of an `emg.inputs.InputContext` or a tf.distribute one."""
    if isinstance(ctx, tf.distribute.InputContext):
        return _sharding.distribute_shard(
            ctx, global_batch_size, seed, "device_array_dataset_fn"
        )
    return _sharding.Shard(
        num_shards=ctx.num_shards,
        shard_index=ctx.shard_index,
        per_device_batch_size=ctx.per_device_batch_size,
        seed=ctx.seed,
    )
