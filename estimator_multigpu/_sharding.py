"""The batching and sharding rules every input source and `towers` share.

One place for: splitting a global batch into per-device sizes, the
`remainder` vocabulary, shard-then-shuffle, and the shard of a
`tf.distribute.InputContext`.

`remainder` is one of `REMAINDERS`, meaning everywhere what to do with a
batch that does not divide by the device count, and `'uneven'` is the
default everywhere (`sharded_input_fn`, `multi_device_input_fn`,
`replicate_model_fn`, the tower loop): a final batch that does not divide
is split unevenly, never a crash.

- `'uneven'`: the first `batch % num_devices` devices take one example more.
- `'drop'`: every device takes the same number of examples; those that do
  not divide are left out. `replicate_model_fn` and the tower loop drop
  `batch % num_devices` examples of the batch they split; the input
  builders, whose `global_batch_size` must then divide, drop the short final
  global batch (so every example of the others is seen once per epoch).
- `'error'`: a batch that does not divide is refused: by the input builders,
  a `global_batch_size` that does not divide (their short final batch is
  still split unevenly); by `replicate_model_fn`, any batch.

tf.distribute replicas take equal batches, so its builders and DALI accept
only `'error'`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

REMAINDERS = ("uneven", "drop", "error")
_DEVICES = "the number of devices"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Shard:
    """Which part of the data one input pipeline reads, and how it batches.

    Attributes:
      num_shards: how many pipelines read the data.
      shard_index: this pipeline, in `[0, num_shards)`.
      per_device_batch_size: examples per batch of this pipeline.
      seed: this shard's seed (None: nondeterministic shuffles).
    """

    num_shards: int
    shard_index: int
    per_device_batch_size: int
    seed: int | None = None


def check_remainder(remainder: str, allowed: Sequence[str] = REMAINDERS) -> str:
    """Returns `remainder` if it is one of `allowed` (a part of `REMAINDERS`).

    Raises:
      ValueError: naming the value received and what each choice means.
    """
    if remainder in allowed:
        return remainder
    why = ""
    if remainder in REMAINDERS:
        why = f" '{remainder}' does not apply here (see estimator_multigpu._sharding)."
    raise ValueError(
        f"`remainder` must be one of {list(allowed)}; received {remainder!r}.{why} "
        "'uneven' gives some devices one example more, 'drop' drops the "
        "examples that do not divide, 'error' rejects such batches."
    )


def _check_positive_int(value: Any, argument: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"`{argument}` must be an int; received {value!r} of type "
            f"{type(value).__name__}."
        )
    if value < 1:
        raise ValueError(f"`{argument}` must be >= 1; received {value}.")


def _nearest(global_batch_size: int, num_devices: int) -> str:
    lower = global_batch_size // num_devices * num_devices
    return " or ".join(str(s) for s in (lower, lower + num_devices) if s > 0)


def _check_divides(global_batch_size, num_devices, remainder, count_name) -> None:
    if global_batch_size < num_devices:
        raise ValueError(
            f"`global_batch_size` ({global_batch_size}) is smaller than "
            f"{count_name} ({num_devices}); every device needs at least one "
            f"example per step. Pass {num_devices}, or run on fewer devices."
        )
    if remainder in ("error", "drop") and global_batch_size % num_devices:
        uneven = ", or pass remainder='uneven'"
        if remainder == "drop":
            uneven = (
                " with remainder='drop' (every device takes the same batch)" + uneven
            )
        if count_name != _DEVICES:  # tf.distribute: replicas take equal batches.
            uneven = ": every replica takes the same number of examples per step"
        raise ValueError(
            f"`global_batch_size` ({global_batch_size}) must be divisible by "
            f"{count_name} ({num_devices}){uneven}. Pass "
            f"{_nearest(global_batch_size, num_devices)}, or run on a number "
            "of devices that divides it."
        )


def per_device_batch_sizes(
    global_batch_size: int,
    num_devices: int,
    remainder: str,
    *,
    allowed: Sequence[str] = REMAINDERS,
    count_name: str = _DEVICES,
) -> list[int]:
    """Splits a global batch size over devices, validated once.

    Args:
      global_batch_size: examples per step over all devices.
      num_devices: how many devices share the batch.
      remainder: one of `allowed` (see the module docstring).
      allowed: the `remainder` values the caller supports.
      count_name: how messages name `num_devices`, e.g. "`num_replicas_in_sync`".

    Returns:
      `sizes[d]`, the examples device d receives per full step.

    Raises:
      TypeError: if `global_batch_size` is not an int.
      ValueError: for a non-positive batch, a batch smaller than the device
        count, an uneven split with `remainder='error'` or `'drop'`, or a bad
        `remainder`.
    """
    _check_positive_int(global_batch_size, "global_batch_size")
    _check_positive_int(num_devices, "num_devices")
    check_remainder(remainder, allowed)
    _check_divides(global_batch_size, num_devices, remainder, count_name)
    return split_sizes(global_batch_size, num_devices, remainder)


def per_replica_batch_size(global_batch_size: int, num_replicas_in_sync: int) -> int:
    """The equal per-replica batch of a `tf.distribute` strategy.

    Unlike `tf.distribute.InputContext.get_per_replica_batch_size`, which
    fails inside the input pipeline, this fails where the batch size is
    chosen, with the nearest valid sizes in the message.

    Raises:
      TypeError: if either argument is not an int.
      ValueError: if either is < 1, or the global batch does not divide.
    """
    _check_positive_int(num_replicas_in_sync, "num_replicas_in_sync")
    sizes = per_device_batch_sizes(
        global_batch_size,
        num_replicas_in_sync,
        "error",
        allowed=("error",),
        count_name="`num_replicas_in_sync`",
    )
    return sizes[0]


def split_sizes(batch, num: int, remainder: str) -> list:
    """Per-device example counts of one batch of `batch` examples.

    `batch` is an int (static) or an integer scalar tensor; so are the
    counts. `'drop'` and `'error'` give `batch // num` each (`'error'` has
    been checked by the caller), `'uneven'` one more to the first
    `batch % num` devices (devices may get none when `batch < num`).
    """
    base, extra = batch // num, batch % num
    if remainder in ("drop", "error"):
        return [base] * num
    if isinstance(batch, int):
        return [base + (1 if i < extra else 0) for i in range(num)]
    return [base + tf.cast(i < extra, batch.dtype) for i in range(num)]


def derive_seed(seed: int | None, index: int) -> int | None:
    """Derives the seed of shard `index` from one user seed.

    Distinct shards get distinct, well-mixed seeds; the same `(seed, index)`
    always gets the same one. Returns None when `seed` is None.
    """
    if seed is None:
        return None
    state = np.random.SeedSequence([int(seed), int(index)]).generate_state(1)
    return int(state[0] % (2**31 - 1))


def shard_list(items: Sequence[Any], plan: Shard) -> Sequence[Any]:
    """Shard `plan.shard_index` of a list (a range, an array): every n-th item,
    as `shard` takes of a dataset."""
    return items[plan.shard_index :: plan.num_shards]


def shard_by_blocks(
    dataset: tf.data.Dataset, plan: Shard, global_batch_size: int, offset: int
) -> tf.data.Dataset:
    """Shard `plan.shard_index`: its slice of each block of a global batch.

    Example j goes to the shard whose range `[offset, offset +
    per_device_batch_size)` in `[0, global_batch_size)` holds `j %
    global_batch_size`, so every step takes one global batch, and the shards
    of a step, concatenated in device order, are the examples in input order
    (predictions come back in input order).

    Args:
      dataset: the whole dataset, unbatched.
      plan: this shard; its `per_device_batch_size` is the slice length.
      global_batch_size: the block length.
      offset: the sizes of the shards before this one, summed.
    """
    size, block = plan.per_device_batch_size, global_batch_size
    if size * plan.num_shards == block:  # Even: a cheaper, vectorised form.
        return dataset.batch(size).shard(plan.num_shards, plan.shard_index).unbatch()

    def mine(index, _):
        return in_block_slice(index, block, offset, size)

    return dataset.enumerate().filter(mine).map(lambda _, example: example)


def in_block_slice(index, global_batch_size: int, offset: int, size: int):
    """Whether example `index` is in the slice `[offset, offset + size)` of its block.

    The rule of `shard_by_blocks`, for sources that pick examples by index
    (a boolean tensor of `index`'s shape). `offset` and `size` come from
    `block_slice`.
    """
    place = index % global_batch_size
    return tf.logical_and(place >= offset, place < offset + size)


def block_slice(global_batch_size: int, num_shards: int, shard_index: int):
    """`(offset, size)` of shard `shard_index`'s slice of each global batch.

    The first `global_batch_size % num_shards` shards take one example more
    (`split_sizes` with `'uneven'`).
    """
    sizes = split_sizes(global_batch_size, num_shards, "uneven")
    return sum(sizes[:shard_index]), sizes[shard_index]


def shard(dataset: tf.data.Dataset, plan: Shard) -> tf.data.Dataset:
    """Shard `plan.shard_index` of `plan.num_shards`: every n-th element."""
    if plan.num_shards == 1:
        return dataset
    return dataset.shard(plan.num_shards, plan.shard_index)


def shuffle_and_repeat(
    dataset: tf.data.Dataset,
    *,
    shuffle_buffer_size: int | None,
    seed: int | None,
    num_epochs: int | None,
    repeat_first: bool = False,
) -> tf.data.Dataset:
    """Shuffles with the shard's `seed` and repeats `num_epochs` times (None:
    forever); `repeat_first` repeats before shuffling (no stall at an epoch
    end, blurred epoch boundaries)."""
    if repeat_first and num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    if shuffle_buffer_size:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=seed)
    if not repeat_first and num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    return dataset


def shard_then_shuffle(
    dataset: tf.data.Dataset,
    plan: Shard,
    *,
    shuffle_buffer_size: int | None,
    num_epochs: int | None,
    sharder: Callable[[tf.data.Dataset, Shard], tf.data.Dataset] | None = shard,
) -> tf.data.Dataset:
    """Shards, then shuffles with the shard's seed, then repeats.

    Sharding comes first: every shard then draws from a disjoint set of
    examples, whatever each shard's seed. Shuffling with per-shard seeds
    *before* sharding would give each shard a different permutation of the
    whole dataset to take its share of, so some examples would be seen twice
    per epoch and others never.

    Args:
      dataset: the whole dataset, unbatched.
      plan: this pipeline's shard and seed.
      shuffle_buffer_size: examples in the shuffle buffer; None: no shuffle.
      num_epochs: passes over the shard; None repeats forever.
      sharder: how to take the shard (default `shard`); None when the
        dataset is sharded already.
    """
    if sharder is not None:
        dataset = sharder(dataset, plan)
    return shuffle_and_repeat(
        dataset,
        shuffle_buffer_size=shuffle_buffer_size,
        seed=plan.seed,
        num_epochs=num_epochs,
    )


def distribute_shard(
    input_context: tf.distribute.InputContext,
    global_batch_size: int | None,
    seed: int | None,
    builder: str,
) -> Shard:
    """The shard of the pipeline `input_context` describes.

    Shard `input_pipeline_id` of `num_input_pipelines`, batched by the equal
    per-replica batch (`per_replica_batch_size`, checked here rather than by
    `get_per_replica_batch_size`), seeded with `seed` (the builder derives
    per-shard seeds from it).

    Raises:
      ValueError: if `global_batch_size` is None or does not divide.
    """
    if global_batch_size is None:
        raise ValueError(
            "`global_batch_size` is None, but a tf.distribute.InputContext needs "
            "it to compute the per-replica batch; pass "
            f"{builder}(..., global_batch_size=N)."
        )
    size = per_replica_batch_size(global_batch_size, input_context.num_replicas_in_sync)
    return Shard(
        num_shards=input_context.num_input_pipelines,
        shard_index=input_context.input_pipeline_id,
        per_device_batch_size=size,
        seed=seed,
    )
