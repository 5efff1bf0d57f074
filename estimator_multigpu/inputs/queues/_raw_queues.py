"""tf.data equivalents of raw `FIFOQueue` / `RandomShuffleQueue` fed by QueueRunners.

TF1 code built its own queue, enqueue ops, and a QueueRunner whose threads
ran those ops until their input ended:

    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, [tf.string])
    enqueue = queue.enqueue([value])            # value from reader.read(...)
    tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 4))
    serialized = queue.dequeue()

Here `enqueue`/`enqueue_many` take a dataset (one element per run of the
op), or tensors that depend on no reader, queue or iterator (an op that
enqueues the same values on every run, forever); `dequeue`,
`dequeue_many` and `dequeue_up_to` return datasets (`queues.get_next` gives
their tensors). The queue holds every enqueue op made on it; several ops
(or threads on one op) are read in parallel, in no fixed order.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _batching, _common

# Ops that take the next element of a stateful source: tensors computed from
# one cannot be enqueued as constants (each run of a TF1 op read anew).
_STATEFUL_TYPES = frozenset(
    {
        "IteratorGetNext",
        "IteratorGetNextSync",
        "QueueDequeueV2",
        "QueueDequeueManyV2",
        "QueueDequeueUpToV2",
        "ReaderReadV2",
        "ReaderReadUpToV2",
        "CountUpTo",  # limit_epochs: its end would repeat forever as a constant
    }
)


class EnqueueOp:
    """What `enqueue`/`enqueue_many` return: the elements one run adds."""

    def __init__(self, queue: QueueBase, dataset: tf.data.Dataset, many: bool):
        self.queue = queue
        self.dataset = dataset
        self.many = many
        self.threads = 1


class QueueBase:
    """The queue both classes share: enqueue ops in, datasets out."""

    def __init__(self, capacity, dtypes, shapes, names, shared_name, shuffle):
        self._capacity = _common.check_int(capacity, "capacity")
        self._dtypes = _as_list(dtypes, "dtypes")
        self._dtypes = [tf.as_dtype(d) for d in self._dtypes]
        self._shapes = None if shapes is None else _as_list(shapes, "shapes")
        if self._shapes is not None and len(self._shapes) != len(self._dtypes):
            raise ValueError(
                f"`shapes` has {len(self._shapes)} entries but `dtypes` has "
                f"{len(self._dtypes)}; give one shape per component."
            )
        self._names = None if names is None else _as_list(names, "names")
        self._shuffle = shuffle
        self._ops: list[EnqueueOp] = []
        _common.warn_shared(shared_name)

    @property
    def dtypes(self) -> list[tf.DType]:
        return list(self._dtypes)

    def enqueue(self, vals: Any, name: str | None = None) -> EnqueueOp:
        """Adds the examples of `vals`: a dataset, one example per element;
        or tensors, the same example on every run (forever)."""
        return self._add(vals, many=False)

    def enqueue_many(self, vals: Any, name: str | None = None) -> EnqueueOp:
        """Like `enqueue`, with several examples (leading dimension) per run."""
        return self._add(vals, many=True)

    def dequeue(self, name: str | None = None) -> tf.data.Dataset:
        """The dataset of single examples, as `queue.dequeue()` gave them."""
        return self._examples(1).prefetch(1)

    def dequeue_many(self, n: int, name: str | None = None) -> tf.data.Dataset:
        """Batches of `n` examples; a last partial batch is dropped, as the
        queue raised OutOfRangeError for it."""
        return self._batches(n, drop=True)

    def dequeue_up_to(self, n: int, name: str | None = None) -> tf.data.Dataset:
        """Batches of `n` examples; the last one may be smaller."""
        return self._batches(n, drop=False)

    def _add(self, vals: Any, many: bool) -> EnqueueOp:
        if isinstance(vals, tf.data.Dataset):
            dataset = vals
        else:
            dataset = _constant(
                vals, "enqueue_many" if many else "enqueue", self._value_dtypes(vals)
            )
        dataset = _components(dataset, len(self._dtypes), self._names)
        dataset = dataset.unbatch() if many else dataset
        self._check_dtypes(dataset)
        op = EnqueueOp(self, dataset, many)
        self._ops.append(op)
        return op

    def _value_dtypes(self, vals: Any) -> list | None:
        """The queue's dtype for each of `vals`' flattened values, in their
        order (a dict's sorted keys), or None when they do not line up."""
        if self._names is not None and isinstance(vals, dict):
            by_name = dict(zip(self._names, self._dtypes))
            return [by_name.get(k) for k in sorted(vals)]
        flat = tf.nest.flatten(vals)
        return self._dtypes if len(flat) == len(self._dtypes) else None

    def _check_dtypes(self, dataset: tf.data.Dataset) -> None:
        got = [s.dtype for s in tf.nest.flatten(dataset.element_spec)]
        if got != self._dtypes:
            raise ValueError(
                f"The queue holds {[d.name for d in self._dtypes]} but the "
                f"enqueued values are {[d.name for d in got]}; enqueue one value "
                "per component, in the order of `dtypes`."
            )

    def _examples(self, n: int) -> tf.data.Dataset:
        if not self._ops:
            raise ValueError(
                "Nothing was enqueued on this queue before `dequeue`: call "
                "`queue.enqueue(dataset)` (or `enqueue_many`) first, as the "
                "QueueRunner's enqueue ops were made before the dequeue."
            )
        det = len(self._ops) == 1 and self._ops[0].threads == 1
        datasets = [op.dataset for op in self._ops]
        joined = datasets[0] if len(datasets) == 1 else _batching.join(datasets, det)
        joined = _batching.apply_shapes(joined, self._shapes)
        if self._shuffle is not None:
            size = _batching.shuffle_buffer(n, self._capacity, self._shuffle[0])
            joined = joined.shuffle(size, seed=self._shuffle[1])
        options = tf.data.Options()
        options.deterministic = det
        return joined.with_options(options)

    def _batches(self, n: int, drop: bool) -> tf.data.Dataset:
        if not tf.is_tensor(n):
            n = _common.check_int(n, "n")
        size = n if isinstance(n, int) else 1
        batched = _batching.batched(self._examples(size), n, False, not drop)
        return batched.prefetch(max(1, self._capacity // size))


class FIFOQueue(QueueBase):
    """A drop-in for `tf.queue.FIFOQueue` fed by QueueRunner enqueue ops.

    Args:
      capacity: the queue's capacity (an int >= 1): the prefetch headroom of
        `dequeue_many`/`dequeue_up_to`, in batches of that many examples.
      dtypes: one dtype per component of an example.
      shapes: one shape per component, or None; `dequeue_many` needs fully
        defined shapes, as the queue did.
      names: one name per component (examples are then dicts), or None.
      shared_name: not supported (warns): the dataset is not shared.
      name: accepted for the TF1 signature; unused.

    Raises:
      TypeError: if `capacity` is not an int or `dtypes` is not a list.
      ValueError: if `capacity` < 1 or `shapes` and `dtypes` differ in length.
    """

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: str | None = None,
        name: str = "fifo_queue",
    ):
        super().__init__(capacity, dtypes, shapes, names, shared_name, None)


class RandomShuffleQueue(QueueBase):
    """A drop-in for `tf.queue.RandomShuffleQueue`: a shuffle buffer of
    `min_after_dequeue` + the dequeued count, seeded by `seed`.

    Args:
      capacity: the queue's capacity; must be bigger than `min_after_dequeue`.
      min_after_dequeue: examples held back for mixing (an int >= 0).
      dtypes: one dtype per component of an example.
      shapes: one shape per component, or None.
      names: one name per component (examples are then dicts), or None.
      seed: the shuffle seed (None: a fresh order each run, as the queue).
      shared_name: not supported (warns): the dataset is not shared.
      name: accepted for the TF1 signature; unused.

    Raises:
      ValueError: if `capacity <= min_after_dequeue` (as the queue refused).
    """

    def __init__(
        self,
        capacity: int,
        min_after_dequeue: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        seed: int | None = None,
        shared_name: str | None = None,
        name: str = "random_shuffle_queue",
    ):
        _batching.shuffle_buffer(1, capacity, min_after_dequeue)
        shuffle = (min_after_dequeue, seed)
        super().__init__(capacity, dtypes, shapes, names, shared_name, shuffle)


def _as_list(value: Any, argument: str) -> list:
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str | tf.DType) or hasattr(value, "as_list"):
        return [value]
    raise TypeError(
        f"`{argument}` must be a list (one entry per component); received "
        f"{value!r} ({type(value).__name__})."
    )


def _components(dataset: tf.data.Dataset, count: int, names) -> tf.data.Dataset:
    """Each element as the queue gives it: one tensor, a tuple or a dict."""
    spec = dataset.element_spec
    flat = tf.nest.flatten(spec)
    if len(flat) != count:
        raise ValueError(
            f"The queue has {count} component(s) but each enqueued element has "
            f"{len(flat)} tensor(s) ({spec}); enqueue one tensor per component."
        )

    def shape(*args):
        values = tf.nest.flatten(_batching.element_from_args(spec, args))
        if names is not None:
            return dict(zip(names, values))
        return values[0] if count == 1 else tuple(values)

    return dataset.map(shape)


def _constant(vals: Any, method: str, dtypes: list | None = None) -> tf.data.Dataset:
    """The dataset of an enqueue op over fixed tensors: them, forever.

    A value that is not yet a tensor (a numpy array, a list) becomes one of
    the queue's dtype for it, as TF 1.x's enqueue converted it (float64
    arrays into a float32 queue); a tensor keeps its own.
    """
    flat = tf.nest.flatten(vals)
    dtypes = dtypes or [None] * len(flat)
    tensors = [
        tf.convert_to_tensor(v, dtype=None if tf.is_tensor(v) else d)
        for v, d in zip(flat, dtypes)
    ]
    stateful = _stateful_source(tensors)
    if stateful is not None:
        raise TypeError(
            f"`{method}` received tensors computed from `{stateful}`, which reads "
            "the next element on every run; as constants they would repeat one "
            "value. Pass a tf.data.Dataset instead: e.g. "
            "`queues.read(filenames, reader).map(fn)` for a reader's records."
        )
    value = tf.nest.pack_sequence_as(vals, tensors)
    if isinstance(value, list):
        value = tuple(value)
    return tf.data.Dataset.from_tensors(value).repeat()


def _stateful_source(tensors: list) -> str | None:
    """The name of a reader/queue/iterator op `tensors` depend on, if any."""
    if tf.executing_eagerly():
        return None
    seen, stack = set(), [t.op for t in tensors]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in _STATEFUL_TYPES:
            return op.name
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return None
