"""tf.data equivalents of `tf.compat.v1.train.batch`, `shuffle_batch` and kin.

Each takes a dataset of per-example structures (or a list of them for the
`*_join` forms) where the queue API took per-example tensors, keeps the
queue API's argument names and semantics, and returns a dataset of batches:

- `allow_smaller_final_batch=False` (the default) drops the last partial
  batch, so the batch dimension is static (`Dataset.batch` keeps it).
- `min_after_dequeue` sets the shuffle buffer (`min_after_dequeue +
  batch_size` examples); `capacity` sets the prefetch headroom in batches.
- Order: deterministic when `num_threads == 1` and not a join; otherwise
  free, like several enqueue threads. `deterministic=` overrides.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _batching


def batch(
    tensors: tf.data.Dataset,
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
    """Batches of `batch_size` examples, like `train.batch`.

    Args:
      tensors: dataset of per-example structures (a batch of examples each,
        leading dimension first, when `enqueue_many`).
      batch_size: examples per batch.
      num_threads: > 1 lets the order vary, as several enqueue threads did.
      capacity: prefetch headroom, in examples.
      enqueue_many: each element of `tensors` holds several examples.
      shapes: the shape of each example tensor (flattened, dict keys sorted).
      dynamic_pad: pad variable-length tensors to the longest in the batch.
      allow_smaller_final_batch: keep the last partial batch (the batch
        dimension becomes unknown).
      shared_name: not supported; warns and is ignored.
      name: accepted for compatibility; unused.
      deterministic: keep a fixed order; None means `num_threads == 1`.

    Returns:
      A dataset of batches: each tensor `[batch_size, ...]`.
    """
    return _batching.build(
        tensors,
        batch_size,
        capacity,
        joined=False,
        num_threads=num_threads,
        dynamic_pad=dynamic_pad,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def batch_join(
    tensors_list: list[tf.data.Dataset],
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
    """Batches mixing several datasets read in parallel, like `train.batch_join`.

    Args:
      tensors_list: datasets with the same structure, one per reader; each
        element is one example (several when `enqueue_many`). Readers that
        shared one filename queue are one `queues.read(..., num_readers=n)`.
      deterministic: strict round-robin over `tensors_list`; None means False.
      (other arguments as in `batch`.)

    Returns:
      A dataset of batches: each tensor `[batch_size, ...]`.
    """
    return _batching.build(
        tensors_list,
        batch_size,
        capacity,
        joined=True,
        dynamic_pad=dynamic_pad,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def shuffle_batch(
    tensors: tf.data.Dataset,
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
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
    """Shuffled batches, like `train.shuffle_batch`.

    Args:
      tensors: dataset of per-example structures.
      batch_size: examples per batch.
      capacity: examples held in all (shuffle buffer plus prefetch); must be
        bigger than `min_after_dequeue`.
      min_after_dequeue: the shuffle buffer holds `min_after_dequeue +
        batch_size` examples.
      seed: shuffle seed.
      (other arguments as in `batch`.)

    Returns:
      A dataset of shuffled batches: each tensor `[batch_size, ...]`.

    Raises:
      ValueError: if `capacity <= min_after_dequeue`.
    """
    return _batching.build(
        tensors,
        batch_size,
        capacity,
        joined=False,
        num_threads=num_threads,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )


def shuffle_batch_join(
    tensors_list: list[tf.data.Dataset],
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
    *,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Shuffled batches from several datasets, like `train.shuffle_batch_join`.

    Args:
      tensors_list: datasets with the same structure, one per reader (as in
        `batch_join`).
      batch_size: examples per batch.
      capacity: examples held in all (shuffle buffer plus prefetch).
      min_after_dequeue: the least examples left to mix with.
      (other arguments as in `shuffle_batch`.)

    Returns:
      A dataset of shuffled batches: each tensor `[batch_size, ...]`.
    """
    return _batching.build(
        tensors_list,
        batch_size,
        capacity,
        joined=True,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        deterministic=deterministic,
    )
