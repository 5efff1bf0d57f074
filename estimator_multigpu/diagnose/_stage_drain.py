"""Measures how fast one dataset yields elements, without Python capping the rate.

Each `next()` from Python costs tens of microseconds, which would make every
fast per-example stage look slow. After a short plain measurement, a fast
stage is drained through `dataset.shard(k, 0)`: one `next()` then pulls k
elements inside TensorFlow (ShardDataset reads k, returns one).
"""

from __future__ import annotations

import time

import tensorflow as tf

_PLAIN_SECONDS = 0.1
_CHUNK_SECONDS = 0.05
_MAX_CHUNK = 4096


def examples_in(element, batched: bool) -> int:
    """Examples in an element: its leading dimension when batched, else 1."""
    if not batched:
        return 1
    shape = getattr(tf.nest.flatten(element)[0], "shape", None)
    return int(shape[0]) if shape is not None and shape.rank and shape[0] else 1


def _drain(iterator, seconds: float, per_next: int, batched: bool):
    """`(elements, examples, elapsed, ended)` pulled within `seconds`."""
    elements = examples = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        element = next(iterator, None)
        if element is None:
            return elements, examples, time.perf_counter() - start, True
        elements += per_next
        examples += per_next * examples_in(element, batched)
    return elements, examples, time.perf_counter() - start, False


def rates(dataset: tf.data.Dataset, batched: bool, seconds: float):
    """Elements and examples per second after the first element, or Nones.

    The first element (start-up: buffers filling) is not timed.
    """
    iterator = iter(dataset)
    if next(iterator, None) is None:
        return None, None
    plain = min(_PLAIN_SECONDS, seconds)
    elements, examples, elapsed, ended = _drain(iterator, plain, 1, batched)
    per_next = min(_MAX_CHUNK, int(elements / elapsed * _CHUNK_SECONDS))
    if not ended and seconds > plain:
        if per_next >= 2:
            iterator = iter(dataset.shard(per_next, 0))
            if next(iterator, None) is None:
                return None, None
            elements = examples = elapsed = 0
        more = _drain(iterator, seconds - plain, max(per_next, 1), batched)
        elements, examples, elapsed = (
            elements + more[0],
            examples + more[1],
            elapsed + more[2],
        )
    if not elements:
        return None, None
    return elements / elapsed, examples / elapsed
