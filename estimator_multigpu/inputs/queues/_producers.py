"""tf.data equivalents of the queue producers (`tf.compat.v1.train.*_producer`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common


def _epochs(dataset, size, num_epochs, shuffle, seed):
    """Repeats `dataset` per epoch, reshuffling all `size` elements each epoch."""
    if shuffle:
        size = tf.cast(size, tf.int64)
        dataset = dataset.shuffle(size, seed=seed, reshuffle_each_iteration=True)
    return _common.repeat(dataset, num_epochs)


def _check_common(num_epochs, capacity, shared_name, cancel_op=None):
    _common.check_int(capacity, "capacity")
    _common.warn_shared(shared_name, cancel_op)
    return _common.check_num_epochs(num_epochs)


def _static_size(tensor: tf.Tensor, argument: str) -> tf.Tensor:
    """Number of rows of `tensor`; ValueError if statically zero or a scalar."""
    if tensor.shape.rank == 0:
        raise ValueError(
            f"`{argument}` must have at least one dimension to produce rows from; "
            f"received a scalar {tensor!r}. Wrap it in a list."
        )
    if tensor.shape.rank is not None and tensor.shape[0] == 0:
        raise ValueError(
            f"`{argument}` is empty (shape {tensor.shape}); a producer needs at "
            "least one element."
        )
    return tf.shape(tensor, out_type=tf.int64)[0]


def _text(shape: tf.TensorShape) -> str:
    """`(None, 3)` under v1 and v2 behaviour alike (v1 prints `(?, 3)`)."""
    return "<unknown>" if shape.rank is None else str(tuple(shape.as_list()))


def _check_same_length(tensors: tuple[tf.Tensor, ...]) -> None:
    """ValueError if the tensors' first dimensions are known and differ."""
    lengths = [
        tf.compat.dimension_value(t.shape[0]) if t.shape.rank else None for t in tensors
    ]
    known = {n for n in lengths if n is not None}
    if len(known) > 1:
        raise ValueError(
            f"`tensor_list` tensors must have the same first dimension; received "
            f"lengths {lengths}. Slice i takes row i of every tensor."
        )


def input_producer(
    input_tensor: Any,
    element_shape: Any = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    summary_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> tf.data.Dataset:
    """The rows of `input_tensor`, epoch after epoch, like `train.input_producer`.

    Args:
      input_tensor: `[num_rows, ...]` tensor (or array-like).
      element_shape: shape of one row; needed when the row shape is unknown.
      num_epochs: epochs to produce; None repeats forever.
      shuffle: reshuffle all rows at the start of every epoch.
      seed: shuffle seed.
      capacity: accepted for compatibility (the queue's size); unused.
      shared_name: not supported; warns and is ignored.
      summary_name: accepted for compatibility; unused.
      name: accepted for compatibility; unused.
      cancel_op: not supported; warns and is ignored.

    Returns:
      A `tf.data.Dataset` of `[...]` rows; it ends after `num_epochs` epochs.

    Raises:
      ValueError: for an empty or scalar input, a bad `num_epochs`/`capacity`,
        or a row shape that is neither known nor given.
    """
    num_epochs = _check_common(num_epochs, capacity, shared_name, cancel_op)
    input_tensor = tf.convert_to_tensor(input_tensor)
    size = _static_size(input_tensor, "input_tensor")
    row_shape = input_tensor.shape[1:]
    if element_shape is not None:
        element_shape = tf.TensorShape(element_shape)
        if not row_shape.is_compatible_with(element_shape):
            raise ValueError(
                f"`element_shape` {element_shape} does not match the rows of "
                f"`input_tensor`, whose shape is {input_tensor.shape}."
            )
        row_shape = row_shape.merge_with(element_shape)
    elif not row_shape.is_fully_defined():
        raise ValueError(
            f"`input_tensor` rows have a partly unknown shape {_text(row_shape)}; pass "
            "`element_shape=` with the shape of one row."
        )
    dataset = tf.data.Dataset.from_tensor_slices(input_tensor)
    dataset = dataset.map(lambda row: tf.ensure_shape(row, row_shape))
    return _epochs(dataset, size, num_epochs, shuffle, seed)


def _raise_no_strings(received: str):
    raise ValueError(
        f"`string_tensor` is empty ({received}): there are no file names to read. "
        "If it came from a glob (tf.io.gfile.glob), the pattern matched no file; "
        "check the pattern and the data directory."
    )


def string_input_producer(
    string_tensor: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> tf.data.Dataset:
    """File names (or any strings), epoch after epoch.

    Like `train.string_input_producer`: every string once per epoch, in a new
    random order each epoch when `shuffle`.

    Args:
      string_tensor: `[n]` strings, e.g. a list of file names.
      num_epochs: epochs to produce; None repeats forever.
      shuffle: reshuffle at the start of every epoch.
      seed: shuffle seed.
      capacity: accepted for compatibility; unused.
      shared_name: not supported; warns and is ignored.
      name: accepted for compatibility; unused.
      cancel_op: not supported; warns and is ignored.

    Returns:
      A `tf.data.Dataset` of scalar `tf.string`.

    Raises:
      TypeError: if `string_tensor` does not hold strings.
      ValueError: if it is empty or not one-dimensional.
    """
    if isinstance(string_tensor, (list, tuple)) and not string_tensor:
        _raise_no_strings("an empty list")
    tensor = tf.convert_to_tensor(string_tensor)
    if tensor.dtype != tf.string:
        raise TypeError(
            f"`string_tensor` must hold strings; received dtype {tensor.dtype.name}. "
            "Use `input_producer` or `range_input_producer` for numbers."
        )
    if tensor.shape.rank not in (None, 1):
        raise ValueError(
            f"`string_tensor` must be one-dimensional; received shape {tensor.shape}."
        )
    if tensor.shape.rank == 1 and tensor.shape[0] == 0:
        _raise_no_strings(f"a tensor of shape {tensor.shape}")
    return input_producer(
        tensor,
        [],
        num_epochs,
        shuffle,
        seed,
        capacity,
        shared_name,
        None,
        name,
        cancel_op,
    )


def range_input_producer(
    limit: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> tf.data.Dataset:
    """The int32 integers `0 .. limit-1`, epoch after epoch.

    Args:
      limit: number of integers per epoch (an int or scalar int tensor).
      num_epochs: epochs to produce; None repeats forever.
      shuffle: reshuffle at the start of every epoch.
      seed: shuffle seed.
      capacity: accepted for compatibility; unused.
      shared_name: not supported; warns and is ignored.
      name: accepted for compatibility; unused.

    Returns:
      A `tf.data.Dataset` of scalar `tf.int32`.

    Raises:
      ValueError: if `limit` is a Python int < 1.
    """
    num_epochs = _check_common(num_epochs, capacity, shared_name)
    if not tf.is_tensor(limit):
        limit = _common.check_int(limit, "limit")
    dataset = tf.data.Dataset.range(tf.cast(limit, tf.int64), output_type=tf.int32)
    return _epochs(dataset, limit, num_epochs, shuffle, seed)


def slice_input_producer(
    tensor_list: Sequence[Any],
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> tf.data.Dataset:
    """Matching slices of several tensors, epoch after epoch.

    Args:
      tensor_list: tensors `[n, ...]` with the same first dimension.
      num_epochs: epochs to produce; None repeats forever.
      shuffle: reshuffle the slice order at the start of every epoch.
      seed: shuffle seed.
      capacity: accepted for compatibility; unused.
      shared_name: not supported; warns and is ignored.
      name: accepted for compatibility; unused.

    Returns:
      A `tf.data.Dataset` of tuples, one `[...]` slice of each tensor (the
      queue API returned a list; tf.data would stack a list into one tensor).

    Raises:
      ValueError: if `tensor_list` is empty or the first dimensions differ.
    """
    num_epochs = _check_common(num_epochs, capacity, shared_name)
    if isinstance(tensor_list, dict | tf.Tensor) or not tensor_list:
        raise ValueError(
            "`tensor_list` must be a non-empty list of tensors; received "
            f"{tensor_list!r}. Pass e.g. `[images, labels]`."
        )
    tensors = tuple(tf.convert_to_tensor(t) for t in tensor_list)
    size = _static_size(tensors[0], "tensor_list[0]")
    _check_same_length(tensors)
    dataset = tf.data.Dataset.from_tensor_slices(tensors)
    return _epochs(dataset, size, num_epochs, shuffle, seed)


def limit_epochs(
    tensor: Any, num_epochs: int | None = None, name: str | None = None
) -> tf.data.Dataset:
    """`tensor`, `num_epochs` times (forever when None), like `train.limit_epochs`.

    Args:
      tensor: any tensor.
      num_epochs: how many times to yield it; None yields it forever.
      name: accepted for compatibility; unused.

    Returns:
      A `tf.data.Dataset` whose every element is `tensor`.
    """
    num_epochs = _common.check_num_epochs(num_epochs)
    return _common.repeat(tf.data.Dataset.from_tensors(tensor), num_epochs)
