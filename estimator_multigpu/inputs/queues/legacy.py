"""Queue-runner entry points, kept so that old calls explain what replaces them."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common

_QUEUE_RUNNERS = tf.compat.v1.GraphKeys.QUEUE_RUNNERS


def start_queue_runners(
    sess: Any = None,
    coord: Any = None,
    daemon: bool = True,
    start: bool = True,
    collection: str = _QUEUE_RUNNERS,
) -> list:
    """Starts the graph's remaining queue runners, if any; tf.data needs none.

    With no queue runner left in `collection` this warns and returns `[]`;
    otherwise (a half-migrated graph) it calls
    `tf.compat.v1.train.start_queue_runners` with the same arguments.

    Returns:
      The started threads (`[]` when the graph has no queue runner).
    """
    if tf.compat.v1.get_collection(collection):
        return tf.compat.v1.train.start_queue_runners(
            sess, coord, daemon, start, collection
        )
    _common.warn(
        "start_queue_runners() has nothing to start: tf.data pipelines run "
        "without threads or a Coordinator; delete the call.",
        "queue-runners",
    )
    return []


class QueueRunner:
    """Not supported: a tf.data pipeline has no queue runner to build."""

    def __init__(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(
            "QueueRunner has no tf.data equivalent: build the input as a dataset "
            "(queues producers, read, batchers) and take tensors with "
            f"`queues.get_next`. See {_common.guide('queue-runners')}."
        )


def add_queue_runner(qr: Any, collection: str = _QUEUE_RUNNERS) -> None:
    """Not supported; raises NotImplementedError naming the replacement."""
    QueueRunner()


def Coordinator(clean_stop_exception_types: Any = None):  # noqa: N802
    """A `tf.compat.v1.train.Coordinator`, with a warning that none is needed.

    Kept so that `coord.request_stop()` / `coord.join(threads)` in migrated
    code keep working until they are deleted.
    """
    _common.warn(
        "A Coordinator has nothing to coordinate: tf.data pipelines run without "
        "threads; delete it with its request_stop()/join() calls.",
        "queue-runners",
    )
    return tf.compat.v1.train.Coordinator(clean_stop_exception_types)
