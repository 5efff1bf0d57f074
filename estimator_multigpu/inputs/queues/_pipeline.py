"""`input_pipeline`: a whole producer -> reader -> example_fn -> batcher chain."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import (
    _batchers,
    _maybe_batchers,
    _producers,
    _readers,
)

BATCHERS = {
    "batch": _batchers.batch,
    "shuffle_batch": _batchers.shuffle_batch,
    "maybe_batch": _maybe_batchers.maybe_batch,
    "maybe_shuffle_batch": _maybe_batchers.maybe_shuffle_batch,
}
_SEEDED = ("shuffle_batch", "maybe_shuffle_batch")


def _batcher(batcher: Any) -> Callable[..., tf.data.Dataset]:
    if callable(batcher):
        return batcher
    if batcher not in BATCHERS:
        raise ValueError(
            f"`batcher` must be one of {sorted(BATCHERS)} or a function of the "
            f"dataset; received {batcher!r}."
        )
    return BATCHERS[batcher]


def input_pipeline(
    filenames: Any,
    reader: Any,
    example_fn: Callable[..., Any] | None = None,
    batcher: Any = "shuffle_batch",
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    num_readers: int = 1,
    num_parallel_calls: int | None = None,
    **batcher_kwargs: Any,
) -> tf.data.Dataset:
    """The queue chain in one call, as a dataset of batches.

    Equivalent to `string_input_producer(filenames, num_epochs, shuffle,
    seed)` -> `read(..., reader, num_readers=)` -> `.map(example_fn)` ->
    `batcher(dataset, **batcher_kwargs)`.

    Args:
      filenames: list or 1-D tensor of file names.
      reader: a reader spec, e.g. `queues.FixedLengthRecordReader(3073)`.
      example_fn: `example_fn(key, value)` -> one example's structure (e.g.
        `(image, label)`); None keeps `(key, value)`.
      batcher: 'batch', 'shuffle_batch', 'maybe_batch', 'maybe_shuffle_batch'
        or a function of the example dataset.
      num_epochs: passes over the files; None repeats forever.
      shuffle: shuffle the file order every epoch.
      seed: seed for the file order and (unless given) the batcher.
      num_readers: files read in parallel.
      num_parallel_calls: parallel calls of `example_fn` (e.g.
        `tf.data.AUTOTUNE`); None runs it sequentially.
      **batcher_kwargs: the batcher's arguments, e.g. `batch_size=128,
        capacity=2000, min_after_dequeue=1000`.

    Returns:
      A `tf.data.Dataset` of batches.
    """
    batch_fn = _batcher(batcher)
    files = _producers.string_input_producer(filenames, num_epochs, shuffle, seed)
    dataset = _readers.read(files, reader, num_readers=num_readers)
    if example_fn is not None:
        dataset = dataset.map(example_fn, num_parallel_calls=num_parallel_calls)
    if batcher in _SEEDED:
        batcher_kwargs.setdefault("seed", seed)
    return batch_fn(dataset, **batcher_kwargs)
