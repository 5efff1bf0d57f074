"""Queue-runner entry points, kept so that old calls explain what replaces them."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common, _raw_queues

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

    Args:
      sess: the session to run the runners in (default: the default one).
      coord: a `tf.train.Coordinator` for the threads, or None.
      daemon: make the threads daemons.
      start: start the threads (else only create them).
      collection: the graph collection holding the queue runners.

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
    """The runner of a `queues.FIFOQueue`/`RandomShuffleQueue`: no thread.

    Its enqueue ops are read when the queue is dequeued; an op listed
    several times (`[enqueue] * 4`, four threads) is read in parallel, in no
    fixed order. Any other queue (a TF1 one) has no tf.data equivalent:
    NotImplementedError.
    """

    def __init__(self, queue: Any = None, enqueue_ops: Any = None, *args, **kwargs):
        if not isinstance(queue, _raw_queues.QueueBase):
            raise NotImplementedError(
                "QueueRunner has no tf.data equivalent for a TF1 queue: build the "
                "input as a dataset (queues producers, read, batchers, or "
                "queues.FIFOQueue / RandomShuffleQueue) and take tensors with "
                f"`queues.get_next`. See {_common.guide('queue-runners')}."
            )
        ops = list(enqueue_ops or [])
        for i, op in enumerate(ops):
            if not isinstance(op, _raw_queues.EnqueueOp) or op.queue is not queue:
                raise ValueError(
                    f"`enqueue_ops[{i}]` is {op!r}, not an enqueue op of this "
                    "queue; pass the results of `queue.enqueue(...)`."
                )
        for op in ops:
            op.threads = ops.count(op)
        self.queue = queue
        self.enqueue_ops = ops

    def create_threads(
        self,
        sess: Any = None,
        coord: Any = None,
        daemon: bool = False,
        start: bool = False,
    ) -> list:
        """TF 1.x's start of this runner's threads by hand: none to start.

        The queue reads its enqueue ops itself when it is dequeued, so this
        returns `[]`, which `coord.join(threads)` accepts.
        """
        del sess, coord, daemon, start
        return []


def add_queue_runner(qr: Any, collection: str = _QUEUE_RUNNERS) -> None:
    """Accepts a `queues.QueueRunner` (nothing to register: no threads);
    raises NotImplementedError naming the replacement for anything else."""
    if not isinstance(qr, QueueRunner):
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
