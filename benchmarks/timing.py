"""Timing helpers the benchmark scripts share."""

from __future__ import annotations

import time

import tensorflow as tf


def examples_per_sec(dataset: tf.data.Dataset, batches: int, batch_size: int) -> float:
    """Times `batches` batches of an eager dataset after 10 warm-up batches.

    The warm-up fills prefetch and shuffle buffers, so the timed window
    measures the steady state.
    """
    iterator = iter(dataset)
    for _ in range(10):
        next(iterator)
    start = time.perf_counter()
    for _ in range(batches):
        next(iterator)
    return batches * batch_size / (time.perf_counter() - start)
