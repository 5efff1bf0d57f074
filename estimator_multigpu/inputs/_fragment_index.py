"""Fragment start indices: validation, sharding checks, per-epoch permutation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import tensorflow as tf


def check_int(name: str, value, low: int, allow_none: bool = False) -> None:
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
    check_int("fragment_length", fragment_length, 1)
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
        tf.get_logger().info("device_array_dataset: no seed given; drew seed %d.", seed)
    state = np.random.SeedSequence([int(seed), int(shard_index)]).generate_state(2)
    return int(state[0] % 2**31), int(state[1] % 2**31)


def check_args(per_device_batch_size, num_shards, shard_index, num_epochs) -> None:
    check_int("per_device_batch_size", per_device_batch_size, 1)
    check_int("num_shards", num_shards, 1)
    check_int("num_epochs", num_epochs, 1, allow_none=True)
    check_int("shard_index", shard_index, 0)
    if shard_index >= num_shards:
        raise ValueError(
            f"`shard_index` ({shard_index}) must be < `num_shards` ({num_shards})."
        )


def counter(size: int, num_epochs: int | None) -> tf.data.Dataset:
    """Element k is example k % size of epoch k // size."""
    if num_epochs is None and size:
        return tf.data.Dataset.range(2**62)
    return tf.data.Dataset.range(size * (num_epochs or 0))


def positions(size: int, seeds: tuple[int, int] | None) -> Callable:
    """Returns `order(counter)`: int64 `[batch]` counters -> index-list positions.

    Counter k is example `k % size` of epoch `k // size`. With `seeds`, each
    epoch is an exact permutation of `[0, size)` keyed by `(seeds, epoch)`
    (`RandomIndexShuffle`: stateless, no buffer); without, the identity.

    Args:
      size: the shard's number of examples (>= 1 when `order` runs).
      seeds: the shard's two seeds (`shard_seeds`), or None for no shuffle.
    """

    def order(counter: tf.Tensor) -> tf.Tensor:
        epoch, position = counter // size, counter % size
        if seeds is None:
            return position
        fill = tf.ones_like(epoch)
        seed = tf.stack([fill * seeds[0], fill * seeds[1], epoch], axis=1)
        max_index = tf.constant(size - 1, tf.int64)
        return tf.raw_ops.RandomIndexShuffle(
            index=position, seed=seed, max_index=max_index
        )

    return order
