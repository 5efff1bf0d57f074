"""`device_array_dataset`: batches of slices of a device-resident array."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf
from absl import logging

from estimator_multigpu.inputs.device_array import DeviceArray, current_device

ElementFn = Callable[[tf.Tensor, tf.Tensor], Any]


def _check_int(name: str, value, low: int, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < low
    ):
        none = " or None" if allow_none else ""
        raise ValueError(f"`{name}` must be an int >= {low}{none}; received {value!r}.")


def check_starts(indices, fragment_length: int, length: int) -> range | np.ndarray:
    """Validates the start indices of the fragments, before anything runs.

    Args:
      indices: a `range` or a 1-D integer sequence of start indices.
      fragment_length: the length of each fragment.
      length: the length of the array the fragments come from.

    Returns:
      `indices` as a `range` or an int64 `[num_examples]` array.

    Raises:
      TypeError: if `indices` is not a range or integer sequence.
      ValueError: if it is empty, not 1-D, or holds a start `i` with `i < 0` or
        `i + fragment_length > length` (the message names the first one).
    """
    _check_int("fragment_length", fragment_length, 1)
    if fragment_length > length:
        raise ValueError(
            f"`fragment_length` ({fragment_length}) is longer than the array "
            f"({length}); pass fragment_length <= {length}."
        )
    if not isinstance(indices, range):
        indices = _as_index_array(indices)
    if len(indices) == 0:
        raise ValueError("`indices` is empty; pass at least one start index.")
    bad = _first_bad(indices, length - fragment_length)
    if bad is not None:
        raise ValueError(
            f"`indices[{bad}]` = {indices[bad]} is out of range: a fragment of "
            f"fragment_length={fragment_length} must start in "
            f"[0, {length - fragment_length}] for an array of length {length}. "
            "Drop the starts too close to the end of the array."
        )
    return indices


def _as_index_array(indices) -> np.ndarray:
    array = np.asarray(indices)
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(
            f"`indices` must hold integers; received dtype {array.dtype}. Pass a "
            "range or an integer array of start indices."
        )
    if array.ndim != 1:
        raise ValueError(
            f"`indices` must be 1-D [num_examples]; received shape {array.shape}."
        )
    return array.astype(np.int64, copy=False)


def _first_bad(indices, last_start: int) -> int | None:
    """The position of the first start outside `[0, last_start]`, or None."""
    if isinstance(indices, range):
        ok = [0 <= indices[0] <= last_start, 0 <= indices[-1] <= last_start]
        if all(ok):
            return None  # A range is monotonic: its ends bound it.
        if not ok[0]:
            return 0
        return next(p for p, i in enumerate(indices) if not 0 <= i <= last_start)
    bad = np.flatnonzero((indices < 0) | (indices > last_start))
    return int(bad[0]) if bad.size else None


def shard_seeds(seed: int | None, shard_index: int) -> tuple[int, int]:
    """Two 31-bit seeds for shard `shard_index`, derived from one user seed."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
        logging.info("device_array_dataset: no seed given; drew seed %d.", seed)
    state = np.random.SeedSequence([int(seed), int(shard_index)]).generate_state(2)
    return int(state[0] % 2**31), int(state[1] % 2**31)


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
    batch_size: int,
    *,
    device: str | None = None,
    num_shards: int = 1,
    shard_index: int = 0,
    seed: int | None = None,
    shuffle: bool = True,
    num_epochs: int | None = 1,
    drop_remainder: bool = False,
    element_fn: ElementFn | None = None,
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

    Where the batch ends up depends on the iterator: with tf.distribute and
    `InputOptions(experimental_place_dataset_on_device=True)` the whole
    pipeline runs on the replica's device and batches never leave it. An
    iterator on the host (e.g. graph-mode `sharded_input_fn`) still gathers
    on the device but receives the batch in host memory.

    Args:
      array: `[length, ...]` host array, or a `DeviceArray` to share copies
        between datasets.
      indices: start index of each example, a `range` (nothing is stored)
        or a 1-D integer array (stored on `device` beside the array).
      fragment_length: length of each fragment.
      batch_size: fragments per batch (per device).
      device: where the copy lives and the gather runs; default the current
        `tf.device` scope (tf.distribute sets it per replica).
      num_shards: number of shards the index list is split into.
      shard_index: this shard, in `[0, num_shards)`.
      seed: one seed for all shards and epochs; None draws one (logged).
      shuffle: permute each epoch (off for evaluation).
      num_epochs: passes over this shard; None repeats forever.
      drop_remainder: drop a final batch smaller than `batch_size`.
      element_fn: optional `element_fn(fragments, starts)` run on `device`
        after the gather, e.g. to split inputs and targets; by default the
        dataset yields the fragments.

    Returns:
      A dataset of `[batch_size, fragment_length, *array.shape[1:]]` batches
      (or of `element_fn`'s outputs).

    Raises:
      TypeError, ValueError: for bad arguments, out-of-range `indices` (the
        message names the first one) or a bad shard.
    """
    array = array if isinstance(array, DeviceArray) else DeviceArray(array)
    indices = check_starts(indices, fragment_length, array.length)
    _check_args(batch_size, num_shards, shard_index, num_epochs)
    device = device or current_device()
    shard = indices[shard_index::num_shards]
    variable, lookup = array.on(device), _start_lookup(shard, device)
    tag = device.replace("/", "").replace(":", "_")
    order = _positions(len(shard), num_epochs, shuffle, shard_seeds(seed, shard_index))

    def gather_batch(counter: tf.Tensor):
        with tf.device(variable.device):
            starts = tf.cast(lookup(order(counter)), tf.int64)
            offsets = tf.range(fragment_length, dtype=tf.int64)
            positions = starts[:, None] + offsets[None, :]
            fragments = tf.gather(variable, positions, name=f"gather_fragments_{tag}")
            return element_fn(fragments, starts) if element_fn else fragments

    dataset = _counter(len(shard), num_epochs).batch(batch_size, drop_remainder)
    return dataset.map(gather_batch).prefetch(1)


def _check_args(batch_size, num_shards, shard_index, num_epochs) -> None:
    _check_int("batch_size", batch_size, 1)
    _check_int("num_shards", num_shards, 1)
    _check_int("num_epochs", num_epochs, 1, allow_none=True)
    _check_int("shard_index", shard_index, 0)
    if shard_index >= num_shards:
        raise ValueError(
            f"`shard_index` ({shard_index}) must be < `num_shards` ({num_shards})."
        )


def _counter(size: int, num_epochs: int | None) -> tf.data.Dataset:
    """Element k is example k % size of epoch k // size."""
    if num_epochs is None and size:
        return tf.data.Dataset.range(2**62)
    return tf.data.Dataset.range(size * (num_epochs or 0))


def _positions(size: int, num_epochs, shuffle: bool, seeds) -> Callable:
    """Maps int64 `[batch]` counters to positions in the shard's index list."""

    def order(counter: tf.Tensor) -> tf.Tensor:
        epoch, position = counter // size, counter % size
        if not shuffle:
            return position
        fill = tf.ones_like(epoch)
        seed = tf.stack([fill * seeds[0], fill * seeds[1], epoch], axis=1)
        max_index = tf.constant(size - 1, tf.int64)
        return tf.raw_ops.RandomIndexShuffle(
            index=position, seed=seed, max_index=max_index
        )

    return order


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
    `ctx.get_per_replica_batch_size(global_batch_size)` and seeded from
    `seed` (a `tf.distribute.InputContext`; use PER_REPLICA replication
    with `experimental_place_dataset_on_device=True`). Replicas share one
    resident copy per device.

    Args:
      array, indices, fragment_length: as for `device_array_dataset`.
      global_batch_size: examples per step over all replicas; required for
        tf.distribute contexts.
      seed: one seed for all shards (tf.distribute contexts; an
        `emg.inputs.InputContext` brings its own per-shard seed).
      **options: `shuffle`, `num_epochs`, `drop_remainder`, `element_fn` of
        `device_array_dataset`.

    Returns:
      `dataset_fn(ctx) -> tf.data.Dataset`.
    """
    array = array if isinstance(array, DeviceArray) else DeviceArray(array)
    indices = check_starts(indices, fragment_length, array.length)
    _check_int("global_batch_size", global_batch_size, 1, allow_none=True)

    def dataset_fn(ctx) -> tf.data.Dataset:
        if isinstance(ctx, tf.distribute.InputContext):
            shard = _distribute_shard(ctx, global_batch_size, seed)
        else:
            shard = dict(
                num_shards=ctx.num_shards,
                shard_index=ctx.shard_index,
                device=ctx.device,
                batch_size=ctx.per_device_batch_size,
                seed=ctx.seed,
            )
        return device_array_dataset(array, indices, fragment_length, **shard, **options)

    return dataset_fn


def _distribute_shard(ctx, global_batch_size: int | None, seed) -> dict:
    if global_batch_size is None:
        raise ValueError(
            "`global_batch_size` is None, but a tf.distribute.InputContext needs "
            "it to compute the per-replica batch; pass "
            "device_array_dataset_fn(..., global_batch_size=N)."
        )
    return dict(
        num_shards=ctx.num_input_pipelines,
        shard_index=ctx.input_pipeline_id,
        batch_size=ctx.get_per_replica_batch_size(global_batch_size),
        seed=seed,
    )
