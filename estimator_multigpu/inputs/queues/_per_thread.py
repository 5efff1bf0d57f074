"""`per_thread`: the per-thread preprocessing of a `batch_join` over N threads.

TF1 code ran N copies of its preprocessing, each dequeuing from one shared
source, and joined them:

    images_and_labels = []
    for thread_id in range(num_preprocess_threads):
        image = preprocess(serialized, thread_id)   # Python code may read thread_id
        images_and_labels.append([image, label])
    images, labels = tf.train.batch_join(images_and_labels, batch_size)

Each example went through one copy. Here `per_thread(dataset, fn, N)` traces
`fn(thread_id, *example)` once per thread id and sends example i through
copy `i % N`, so that every example is processed once, by one copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _batching, _common


def per_thread(
    dataset: tf.data.Dataset, fn: Callable[..., Any], num_threads: int
) -> list[tf.data.Dataset]:
    """The `tensors_list` of a `batch_join` whose threads each ran `fn`.

    Args:
      dataset: the shared source, one example per element.
      fn: `fn(thread_id, *example)` (a non-tuple example is passed as one
        argument) returns the example to batch; `thread_id` is a Python int,
        as in the loop it replaces.
      num_threads: the number of copies (an int >= 1).

    Returns:
      A list holding one dataset of processed examples, for
      `batch_join`/`shuffle_batch_join`.

    Raises:
      TypeError: if `dataset` is not a dataset or `fn` is not callable.
    """
    _batching.check_dataset(dataset, "dataset")
    if not callable(fn):
        raise TypeError(
            f"`fn` must be callable as fn(thread_id, *example); received {fn!r}."
        )
    count = _common.check_int(num_threads, "num_threads")

    def branch(thread_id: int, element: Any) -> Callable[[], Any]:
        def run():
            out = _batching.call_unpacked(lambda *a: fn(thread_id, *a), element)
            return tuple(out) if isinstance(out, list) else out

        return run

    if count == 1:
        return [dataset.map(lambda *args: branch(0, _element(dataset, args))())]

    def pick(index, element):
        branches = [branch(t, element) for t in range(count)]
        return tf.switch_case(tf.cast(index % count, tf.int32), branches)

    return [dataset.enumerate().map(pick)]


def _element(dataset: tf.data.Dataset, args: tuple) -> Any:
    return _batching.element_from_args(dataset.element_spec, args)
