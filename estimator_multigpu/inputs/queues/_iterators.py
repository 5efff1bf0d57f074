"""`get_next`: the tensors of a dataset in graph mode, where a batcher's were."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu import per_device
from estimator_multigpu.inputs.queues import _common


def get_next(dataset: tf.data.Dataset, name: str | None = None) -> Any:
    """The next element of `dataset` as graph tensors, like a batcher's output.

    `images, labels = get_next(shuffle_batch(...))` replaces
    `images, labels = tf.compat.v1.train.shuffle_batch([image, label], ...)`.
    The iterator needs no initializer run by the user: it is a one-shot
    iterator, or, for a dataset that captures state (a variable, a table), an
    initializable one whose initializer runs in every session's local
    initialisation (`MonitoredTrainingSession` does it; with a plain
    `Session` run `tf.compat.v1.tables_initializer()`). Like the queue,
    `session.run` raises `tf.errors.OutOfRangeError` after the last element.

    Args:
      dataset: a `tf.data.Dataset`, e.g. from `queues.shuffle_batch`.
      name: name of the `get_next` op.

    Returns:
      The dataset's element structure, as tensors: e.g. a tuple
      `([batch_size, ...], ...)`.

    Raises:
      TypeError: if `dataset` is not a dataset, or in eager mode.
    """
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"`dataset` must be a tf.data.Dataset; received {type(dataset).__name__}. "
            "Pass the result of a `queues` batcher."
        )
    if tf.executing_eagerly():
        raise TypeError(
            "`get_next` builds graph tensors and needs graph mode (inside "
            "`with tf.Graph().as_default():` or an Estimator input_fn); in eager "
            f"code iterate the dataset: `for batch in dataset:`. See "
            f"{_common.guide('queue-runners')}."
        )
    try:
        iterator = tf.compat.v1.data.make_one_shot_iterator(dataset)
    except ValueError as error:
        tf.get_logger().info(
            "One-shot iterator refused (%s); using an initializable one.", error
        )
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        per_device.register_initializer(iterator.initializer)
    return iterator.get_next(name=name)
