"""The `maybe_*` batchers: batch only the examples whose `keep_input` is True.

`keep_input` is a Python bool, a scalar bool tensor, or a function of the
example (called with tf.data's convention: a tuple is unpacked) returning a
scalar bool — a `[n]` bool vector per element when `enqueue_many=True`.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _batching


def _check_keep(keep_input: Any) -> Any:
    if keep_input is True or keep_input is False or callable(keep_input):
        return keep_input
    if tf.is_tensor(keep_input) and keep_input.dtype == tf.bool:
        return keep_input
    raise TypeError(
        "`keep_input` must be a bool, a bool tensor, or a function of the example "
        f"returning one; received {keep_input!r}. Wrap a per-example condition "
        "as `lambda image, label: <condition>`."
    )


def maybe_batch(
    tensors: tf.data.Dataset,
    keep_input: Any,
    batch_size: Any,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
    *,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Like `batch`, keeping only the examples where `keep_input` holds.

    Args:
      tensors: dataset of per-example structures.
      keep_input: a bool, a scalar bool tensor, or a function of the example
        returning one (a `[n]` bool vector per element with `enqueue_many`).
      batch_size: examples per batch.
      (other arguments as in `batch`.)

    Returns:
      A dataset of batches of the kept examples.

    Raises:
      TypeError: for a `keep_input` of another kind, or `tensors` that is not
        a dataset.
    """
    _batching.check_dataset(tensors, "tensors")
    return _batching.build(
        tensors,
        batch_size,
        capacity,
        joined=False,
        num_threads=num_threads,
        keep_input=_check_keep(keep_input),
        dynamic_pad=dynamic_pad,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def maybe_batch_join(
    tensors_list: list[tf.data.Dataset],
    keep_input: Any,
    batch_size: Any,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
    *,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Like `batch_join`, keeping only the examples where `keep_input` holds.

    Args:
      tensors_list: datasets with the same structure, one per reader.
      keep_input: as in `maybe_batch`.
      (other arguments as in `batch_join`.)

    Returns:
      A dataset of batches of the kept examples.

    Raises:
      TypeError: as `maybe_batch`.
    """
    return _batching.build(
        tensors_list,
        batch_size,
        capacity,
        joined=True,
        keep_input=_check_keep(keep_input),
        dynamic_pad=dynamic_pad,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def maybe_shuffle_batch(
    tensors: tf.data.Dataset,
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
    *,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Like `shuffle_batch`, keeping only the examples where `keep_input` holds.

    Args:
      keep_input: as in `maybe_batch`.
      (other arguments as in `shuffle_batch`.)

    Returns:
      A dataset of shuffled batches of the kept examples.

    Raises:
      TypeError: as `maybe_batch`.
    """
    _batching.check_dataset(tensors, "tensors")
    return _batching.build(
        tensors,
        batch_size,
        capacity,
        joined=False,
        num_threads=num_threads,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        keep_input=_check_keep(keep_input),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def maybe_shuffle_batch_join(
    tensors_list: list[tf.data.Dataset],
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
    *,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Like `shuffle_batch_join`, keeping only examples where `keep_input` holds.

    Args:
      keep_input: as in `maybe_batch`.
      (other arguments as in `shuffle_batch_join`.)

    Returns:
      A dataset of shuffled batches of the kept examples.

    Raises:
      TypeError: as `maybe_batch`.
    """
    return _batching.build(
        tensors_list,
        batch_size,
        capacity,
        joined=True,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        keep_input=_check_keep(keep_input),
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )
