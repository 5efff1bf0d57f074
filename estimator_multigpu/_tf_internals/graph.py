"""Graph surgery on built ops, where no public API can edit a graph."""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu._tf_internals._access import member


def add_control_input(op: tf.Operation, control: tf.Operation) -> None:
    """`op._add_control_input(control)`: `op` waits for `control` too.

    Why: the towers' update is built after the op the model_fn already holds
    as its train op. Public alternative: none (`tf.control_dependencies`
    works only while an op is created).
    """
    member(op, "_add_control_input")(control)


def update_input(op: tf.Operation, index: int, tensor: tf.Tensor) -> None:
    """`op._update_input(index, tensor)`: rewires input `index` of `op`.

    Why: the tensor handed to hooks and summaries must stay the same object
    while its value becomes the all-tower mean. Public alternative: none.
    """
    member(op, "_update_input")(index, tensor)


def graph_collections(graph: tf.Graph) -> dict | None:
    """The graph's own collection store (`graph._collections`), or None.

    Why: towers after the first must add UPDATE_OPS nowhere; the public
    `get_collection_ref` cannot swap the list. Public alternative: none.
    None when a TensorFlow keeps collections otherwise (callers fall back).
    """
    store = getattr(graph, "_collections", None)
    return store if isinstance(store, dict) else None
