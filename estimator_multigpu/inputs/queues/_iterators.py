"""`get_next`: the tensors of a dataset in graph mode, where a batcher's were;
TF 1.x's Dataset iterator methods as functions."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu import _dataset_graph, per_device
from estimator_multigpu._tf_internals import eager_mode, variant_tensor
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


def _checked(dataset: Any, function: str) -> tf.data.Dataset:
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            f"`{function}(dataset)`: `dataset` must be a tf.data.Dataset; received "
            f"{type(dataset).__name__}. It replaces `dataset.{function}()`: pass "
            "the dataset the method was called on."
        )
    return dataset


def _in_default_graph(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """`dataset`, or a copy of it in the default graph when it was made in
    another graph (or eagerly).

    TF 1.x's iterator methods copied the dataset's ops by value into the
    iterator's graph, so a dataset made in `main()` could be iterated inside an
    Estimator's input_fn, which runs in a graph of its own; TF 2.x refuses
    that ("the dataset was created in a different graph"). The copy holds the
    same ops, constants and functions; state the dataset captured (a variable,
    a table) is not carried over, as it was not by TF 1.x.
    """
    variant = variant_tensor(dataset)
    if not hasattr(variant, "graph"):  # made eagerly
        with eager_mode():
            graph_def = _dataset_graph.serialize(dataset)
        if graph_def is None:
            return dataset  # TensorFlow's own error follows
        [result] = [n for n in graph_def.node if n.op == "_Retval"]
        graph_def.node.remove(result)
        output = result.input[0]
    elif variant.graph is tf.compat.v1.get_default_graph():
        return dataset
    else:
        graph_def = tf.compat.v1.graph_util.extract_sub_graph(
            variant.graph.as_graph_def(), [variant.op.name]
        )
        output = variant.name
    [copy] = tf.graph_util.import_graph_def(
        graph_def,
        return_elements=[output if ":" in output else f"{output}:0"],
        name="dataset_copy",
    )
    return tf.data.experimental.from_variant(copy, dataset.element_spec)


def make_one_shot_iterator(dataset: tf.data.Dataset) -> Any:
    """TF 1.x's `dataset.make_one_shot_iterator()`, for any dataset.

    `tf.compat.v1.data.make_one_shot_iterator(dataset)` takes a TF 2 dataset
    too, but refuses one made in another graph. TF 1.x's method took it, since
    it copied the dataset into the iterator's graph: the common Estimator
    shape `input_fn=lambda: train.batch(32).make_one_shot_iterator().get_next()`
    with `train` made in `main()`. This does what the method did.

    Args:
      dataset: a `tf.data.Dataset` (TF 1.x or TF 2, from any graph or eager).

    Returns:
      A `tf.compat.v1.data.Iterator` in the default graph (an eager iterator
      when executing eagerly, as `tf.compat.v1.data`'s function returns).

    Raises:
      TypeError: if `dataset` is not a dataset.
    """
    dataset = _checked(dataset, "make_one_shot_iterator")
    if not tf.executing_eagerly():
        dataset = _in_default_graph(dataset)
    return tf.compat.v1.data.make_one_shot_iterator(dataset)


def make_initializable_iterator(
    dataset: tf.data.Dataset, shared_name: str | None = None
) -> Any:
    """TF 1.x's `dataset.make_initializable_iterator(shared_name)`, for any dataset.

    As `make_one_shot_iterator`: a dataset made in another graph is copied
    into the default graph first, as TF 1.x's method did. Run the iterator's
    `initializer` before reading, as with the method.

    Args:
      dataset: a `tf.data.Dataset` (TF 1.x or TF 2, from any graph or eager).
      shared_name: as the method's: share the iterator across sessions.

    Returns:
      A `tf.compat.v1.data.Iterator` in the default graph.

    Raises:
      TypeError: if `dataset` is not a dataset.
      RuntimeError: in eager mode (as the method: use `iter(dataset)`).
    """
    dataset = _checked(dataset, "make_initializable_iterator")
    if not tf.executing_eagerly():
        dataset = _in_default_graph(dataset)
    return tf.compat.v1.data.make_initializable_iterator(dataset, shared_name)
