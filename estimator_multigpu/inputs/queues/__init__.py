"""tf.data equivalents of the TF1 queue input APIs, with their argument names.

A queue pipeline is a chain — producer -> reader -> per-example ops ->
batcher. Here every link returns a `tf.data.Dataset` and `get_next` turns the
last one into graph tensors. See migration_guide.md#queue-api-table.
"""

from estimator_multigpu.inputs.queues._batchers import (
    batch,
    batch_join,
    shuffle_batch,
    shuffle_batch_join,
)
from estimator_multigpu.inputs.queues._common import QueueSemanticsWarning
from estimator_multigpu.inputs.queues._iterators import (
    get_next,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from estimator_multigpu.inputs.queues._legacy import (
    Coordinator,
    QueueRunner,
    add_queue_runner,
    start_queue_runners,
)
from estimator_multigpu.inputs.queues._maybe_batchers import (
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
)
from estimator_multigpu.inputs.queues._per_thread import per_thread
from estimator_multigpu.inputs.queues._pipeline import input_pipeline
from estimator_multigpu.inputs.queues._prefetch import PrefetchQueue, prefetch_queue
from estimator_multigpu.inputs.queues._producers import (
    input_producer,
    limit_epochs,
    range_input_producer,
    slice_input_producer,
    string_input_producer,
)
from estimator_multigpu.inputs.queues._raw_queues import FIFOQueue, RandomShuffleQueue
from estimator_multigpu.inputs.queues._readers import (
    FixedLengthRecordReader,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
    read,
)

__all__ = [
    "Coordinator",
    "FIFOQueue",
    "FixedLengthRecordReader",
    "PrefetchQueue",
    "QueueRunner",
    "QueueSemanticsWarning",
    "RandomShuffleQueue",
    "TFRecordReader",
    "TextLineReader",
    "WholeFileReader",
    "add_queue_runner",
    "batch",
    "batch_join",
    "get_next",
    "input_pipeline",
    "input_producer",
    "limit_epochs",
    "make_initializable_iterator",
    "make_one_shot_iterator",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
    "per_thread",
    "prefetch_queue",
    "range_input_producer",
    "read",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "start_queue_runners",
    "string_input_producer",
]
