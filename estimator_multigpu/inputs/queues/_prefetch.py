"""`prefetch_queue`: slim's prefetch queue over tensors taken from an iterator."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common

# Ops that take the next element from a stateful source; a fresh copy of one,
# on the same iterator or queue resource, takes the element after.
SOURCE_OP_TYPES = frozenset(
    {
        "IteratorGetNext",
        "IteratorGetNextSync",
        "MultiDeviceIteratorGetNextFromShard",
        "QueueDequeue",
        "QueueDequeueV2",
        "QueueDequeueMany",
        "QueueDequeueManyV2",
        "QueueDequeueUpTo",
        "QueueDequeueUpToV2",
    }
)

# TF1 while-loop ops: a loop's frame cannot be copied op by op.
LOOP_OP_TYPES = frozenset(
    {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"}
)


class PrefetchQueue:
    """Each `dequeue()` gives the next element of the source of `tensors`.

    Built by `prefetch_queue`; holds the ops from the source's get-next op(s)
    to `tensors` and copies them, with fresh get-next ops on the same
    iterator or queue, on every `dequeue()`.

    Args:
      tensors: the tensors `prefetch_queue` was given.
      path: the ops from the source's get-next op(s) to `tensors`.
      name: the queue's name.
    """

    def __init__(self, tensors: Any, path: list[tf.Operation], name: str):
        self._tensors = tensors
        self._path = path
        self._name = name

    @property
    def name(self) -> str:
        """The name scope of the ops each `dequeue()` builds."""
        return self._name

    def dequeue(self, name: str | None = None) -> Any:
        """Tensors that give, on each `session.run`, the source's next element.

        Several `dequeue()` results run in one `session.run` give as many
        distinct, consecutive elements (in no fixed order between them, as
        with slim's queue).

        Args:
          name: name scope of the new ops (default: the queue's name +
            `_dequeue`).

        Returns:
          The structure of `tensors` (list, tuple or dict), same shapes and
          dtypes, computed from the next element.
        """
        graph = self._path[0].graph
        with graph.as_default(), tf.name_scope(name or f"{self._name}_dequeue"):
            copies = _copy_path(graph, self._path)
        flat = [_copied(t, copies) for t in _flatten(self._tensors)]
        return tf.nest.pack_sequence_as(self._tensors, flat, expand_composites=True)


def prefetch_queue(
    tensors: Any,
    capacity: int = 2,
    num_threads: int = 1,
    dynamic_pad: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> PrefetchQueue:
    """A drop-in for `tf.contrib.slim.prefetch_queue.prefetch_queue`.

    `slim.prefetch_queue.prefetch_queue([images, labels], capacity=...)`
    becomes `emg.inputs.queues.prefetch_queue([images, labels], ...)` where
    `images, labels` come (possibly through ops such as `tf.reshape` or
    `tf.cast`) from a tf.data iterator's `get_next()` — e.g.
    `queues.get_next(queues.shuffle_batch(...))` — or from a TF1 queue's
    dequeue. Each `dequeue()` rebuilds the ops from the iterator to `tensors`
    with a fresh get-next op on the same iterator, so that, as with slim,
    every `dequeue()` run gives the next element: two `dequeue()`s run
    together give two different, consecutive elements, and over an epoch
    every element comes out once. Prefetching is the dataset's own
    (`queues` batchers end in `prefetch`, their `capacity`); no thread or
    QueueRunner is started.

    Args:
      tensors: a list, tuple or dict of tensors computed from one or more
        iterators' (or queues') next element, e.g. `[images, labels]` with
        `images` `[batch_size, height, width, channels]`.
      capacity: slim's queue capacity, in elements (an int >= 1); the
        dataset's own `prefetch` holds the elements ahead here.
      num_threads: slim's enqueue threads (an int >= 1); tf.data's pipeline
        runs its own threads.
      dynamic_pad: accepted for slim's signature: each element comes out
        unchanged, as from slim's padding queue.
      shared_name: not supported (warns): the iterator is not shared.
      name: name scope of the dequeue ops (default `prefetch_queue`).

    Returns:
      A `PrefetchQueue`; its `dequeue()` returns the structure of `tensors`.

    Raises:
      TypeError: in eager mode, or if `tensors` holds something that is not
        a graph tensor, or for a non-int `capacity`/`num_threads`.
      ValueError: if `tensors` is empty or does not come from an iterator's
        or queue's next element, or `capacity`/`num_threads` is < 1.
    """
    _check_graph_mode()
    _common.check_int(capacity, "capacity")
    _common.check_int(num_threads, "num_threads")
    _common.warn_shared(shared_name)
    flat = _check_tensors(tensors)
    path = _source_path(flat)
    if not path:
        raise ValueError(_no_source_message(flat))
    _check_no_loop(path)
    tf.get_logger().info("prefetch_queue: %d op(s) copied per dequeue().", len(path))
    return PrefetchQueue(tensors, path, name or "prefetch_queue")


def _check_graph_mode() -> None:
    """Raises TypeError in eager mode: slim's queue is graph-only."""
    if tf.executing_eagerly():
        raise TypeError(
            "`prefetch_queue` is graph-only, like slim's: it needs graph tensors "
            "(inside `with tf.Graph().as_default():`, an Estimator input_fn, or "
            "after `tf.compat.v1.disable_v2_behavior()`); in eager code iterate "
            f"the dataset instead: `for batch in dataset:`. See "
            f"{_common.guide('queue-runners')}."
        )


def _flatten(tensors: Any) -> list:
    """The tensors of a structure, composite tensors as their components."""
    return tf.nest.flatten(tensors, expand_composites=True)


def _check_tensors(tensors: Any) -> list[tf.Tensor]:
    """Returns the flat graph tensors of `tensors`; raises on anything else."""
    flat = _flatten(tensors)
    if not flat:
        raise ValueError(
            f"`tensors` must hold at least one tensor; received {tensors!r}. "
            "Pass e.g. `[images, labels]` from `queues.get_next(...)`."
        )
    for value in flat:
        if not isinstance(value, tf.Tensor) or not hasattr(value, "op"):
            raise TypeError(
                f"`tensors` must hold graph tensors; received {value!r} "
                f"({type(value).__name__}). Pass the tensors of an iterator's "
                "`get_next()` (e.g. `queues.get_next(...)`)."
            )
    graphs = {value.graph for value in flat}
    if len(graphs) > 1:
        raise ValueError(
            f"`tensors` must all belong to one graph; received tensors of "
            f"{len(graphs)} graphs. Build the input and the dequeue ops in one "
            "`with tf.Graph().as_default():` block."
        )
    return flat


def _no_source_message(flat: list[tf.Tensor]) -> str:
    """The error for tensors that no iterator or queue feeds."""
    names = ", ".join(t.name for t in flat)
    return (
        f"`tensors` ({names}) do not come from an iterator's `get_next()` or a "
        "queue's dequeue, so each `dequeue()` could only repeat the same values. "
        "Build them from a dataset: `images, labels = "
        "emg.inputs.queues.get_next(dataset)`."
    )


def _check_no_loop(path: list[tf.Operation]) -> None:
    """Raises ValueError if a TF1 while loop lies between source and tensors."""
    loops = [op.name for op in path if op.type in LOOP_OP_TYPES]
    if loops:
        raise ValueError(
            f"`tensors` are computed from the iterator through a TF1 while loop "
            f"(`{loops[0]}`), which `prefetch_queue` cannot rebuild per dequeue(). "
            "Move the loop into the dataset (a `map` before batching), apply it "
            "after `dequeue()`, or use TF2 control flow "
            "(`tf.compat.v1.enable_control_flow_v2()`)."
        )


def _source_path(flat: list[tf.Tensor]) -> list[tf.Operation]:
    """The ops from the source get-next ops to `flat`, inputs before users."""
    on_path: dict[tf.Operation, bool] = {}
    order: list[tf.Operation] = []
    for tensor in flat:
        _visit(tensor.op, on_path, order)
    return order


def _visit(op: tf.Operation, on_path: dict, order: list) -> bool:
    """Marks whether `op` depends on a source op; appends it to `order` if so.

    Iterative (post-order) so that long op chains do not hit Python's
    recursion limit.
    """
    stack = [(op, False)]
    while stack:
        current, expanded = stack.pop()
        if current in on_path and not expanded:
            continue
        if current.type in SOURCE_OP_TYPES:
            on_path[current] = True
            order.append(current)
            continue
        parents = _parents(current)
        if not expanded:
            on_path[current] = False  # provisional: guards against cycles
            stack.append((current, True))
            stack.extend((p, False) for p in parents if p not in on_path)
            continue
        if any(on_path.get(p, False) for p in parents):
            on_path[current] = True
            order.append(current)
    return on_path[op]


def _parents(op: tf.Operation) -> list[tf.Operation]:
    """The ops `op` reads from or waits for."""
    return [t.op for t in op.inputs] + list(op.control_inputs)


def _copy_path(graph: tf.Graph, path: list[tf.Operation]) -> dict:
    """Copies `path` op by op (inputs first); returns original -> copy.

    Each copy's outputs get the static shapes of the original's: a queue's
    dequeue op infers none by itself (`QueueDequeueManyV2` gives an unknown
    shape; the Python `dequeue_many` sets the queue's shapes on its result).
    """
    copies: dict[tf.Operation, tf.Operation] = {}
    for op in path:
        copies[op] = _copy_op(graph, op, copies)
        for old, new in zip(op.outputs, copies[op].outputs):
            new.set_shape(old.shape)
    return copies


def _copy_op(graph: tf.Graph, op: tf.Operation, copies: dict) -> tf.Operation:
    """One op rebuilt with its inputs taken from `copies` where copied."""
    inputs = [_copied(t, copies) for t in op.inputs]
    controls = [copies.get(c, c) for c in op.control_inputs]
    with graph.device(None), graph.device(op.device or None):
        with graph.control_dependencies(controls):
            return graph.create_op(
                op.type,
                inputs,
                dtypes=[t.dtype for t in op.outputs],
                input_types=[t.dtype for t in op.inputs],
                name=op.name.rsplit("/", 1)[-1],
                attrs=_fresh_seeds(graph, dict(op.node_def.attr)),
                op_def=op.op_def,
            )


def _fresh_seeds(graph: tf.Graph, attrs: dict) -> dict:
    """`attrs` with a new op seed where a random op had a fixed one.

    A copy with its original's seeds would draw the same numbers as the
    original; a fresh op seed (from the graph seed, as for any new op)
    keeps each dequeue()'s draws its own and still repeatable.
    """
    if "seed" not in attrs or "seed2" not in attrs:
        return attrs
    if not (attrs["seed"].i or attrs["seed2"].i):
        return attrs  # unseeded: every op draws its own numbers already
    with graph.as_default():
        seed, seed2 = tf.compat.v1.random.get_seed(None)
    attrs["seed"] = tf.compat.v1.AttrValue(i=seed or 0)
    attrs["seed2"] = tf.compat.v1.AttrValue(i=seed2 or 0)
    return attrs


def _copied(tensor: tf.Tensor, copies: dict) -> tf.Tensor:
    """`tensor`, or the same output of its op's copy."""
    op = copies.get(tensor.op)
    return tensor if op is None else op.outputs[tensor.value_index]
