"""Splits a global batch into one shard per tower, unevenly if need be."""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from estimator_multigpu import _sharding
from estimator_multigpu._sharding import REMAINDERS, check_remainder

__all__ = ["REMAINDERS", "check_remainder", "lists_as_tensors", "split"]

_SCALARS = (bool, int, float, str, bytes, np.generic)


def _plain_values(value: Any) -> bool:
    """Whether `value` is a non-empty (nested) list of Python or numpy scalars."""
    if isinstance(value, list):
        return bool(value) and all(_plain_values(v) for v in value)
    return isinstance(value, _SCALARS)


def lists_as_tensors(value: Any) -> Any:
    """Features or labels with lists of plain values (`[0, 1, 1]`) as tensors.

    A model_fn on one device turns such a list into a constant where it uses
    it; towers need it as one tensor to split along its first axis. Lists
    of tensors stay lists (a nest, or per-device shards).
    """
    if isinstance(value, list) and _plain_values(value):
        return tf.convert_to_tensor(value)
    if isinstance(value, dict):
        return {key: lists_as_tensors(item) for key, item in value.items()}
    if type(value) is tuple:
        return tuple(lists_as_tensors(item) for item in value)
    return value


def _sparse_values_as_tensors(value: Any) -> Any:
    """A nest with each `tf.compat.v1.SparseTensorValue` as a `tf.SparseTensor`.

    A `SparseTensorValue` is a namedtuple, which `tf.nest` would flatten into
    its indices, values and dense shape; a `tf.SparseTensor` stays one leaf.
    """
    if isinstance(value, tf.compat.v1.SparseTensorValue):
        return tf.SparseTensor.from_value(value)
    if isinstance(value, dict):
        return {key: _sparse_values_as_tensors(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_sparse_values_as_tensors(item) for item in value)
    return value


def _leaf(value: Any) -> Any:
    """A tensor, or a `tf.SparseTensor` (split by rows)."""
    if isinstance(value, tf.SparseTensor):
        return value
    if isinstance(value, tf.RaggedTensor):
        raise TypeError(
            "Cannot split a RaggedTensor across towers; convert it in the "
            "input_fn (RaggedTensor.to_sparse() is split by rows, "
            "RaggedTensor.to_tensor() along the batch), or shard the input "
            "with emg.inputs.multi_device_input_fn."
        )
    return tf.convert_to_tensor(value)


def _batch_size(tensors: list[Any]) -> tuple[int | None, tf.Tensor]:
    """The static (or None) and dynamic batch size, from a dense tensor if any."""
    dense = [t for t in tensors if not isinstance(t, tf.SparseTensor)]
    first = dense[0] if dense else tensors[0]
    if first.shape.rank == 0:
        raise ValueError(
            f"Cannot split the features across towers: {first.name} is a scalar. "
            "Every feature and label needs a leading batch dimension."
        )
    static = tf.compat.dimension_value(first.shape[0])
    if isinstance(first, tf.SparseTensor):
        return static, tf.cast(first.dense_shape[0], tf.int32)
    return static, tf.shape(first, out_type=tf.int32)[0]


def _split_sparse(value: tf.SparseTensor, counts: list) -> list[tf.SparseTensor]:
    """Rows `[offset_t, offset_t + counts[t])` of `value`, for each tower t."""
    dense_shape = value.dense_shape
    zeros = tf.zeros_like(dense_shape[1:])
    pieces, offset = [], 0
    for count in counts:
        count = tf.cast(count, tf.int64)
        start = tf.concat([[tf.cast(offset, tf.int64)], zeros], axis=0)
        size = tf.concat([[count], dense_shape[1:]], axis=0)
        piece = tf.sparse.slice(value, start, size)
        rest = value.shape[1:] if value.shape.rank is not None else None
        if rest is not None and hasattr(piece, "set_shape"):
            piece.set_shape(tf.TensorShape([None]).concatenate(rest))
        pieces.append(piece)
        offset = offset + count
    return pieces


def _static_sizes(batch: int, num: int, remainder: str) -> list[int]:
    if remainder == "error" and batch % num:
        raise ValueError(
            f"The global batch ({batch} examples) does not divide by the number "
            f"of devices ({num}); pass remainder='uneven' or 'drop' to "
            "replicate_model_fn, or a batch size divisible by the device count."
        )
    return _sharding.split_sizes(batch, num, remainder)


def _dynamic_sizes(batch: tf.Tensor, num: int, remainder: str) -> list[tf.Tensor]:
    if remainder == "error":
        check = tf.debugging.assert_equal(
            batch % num,
            0,
            message=(
                f"The global batch does not divide by the number of devices "
                f"({num}); pass remainder='uneven' or 'drop' to replicate_model_fn."
            ),
        )
        with tf.control_dependencies([check]):
            batch = tf.identity(batch)
    return _sharding.split_sizes(batch, num, remainder)


def split(features: Any, labels: Any, num: int, remainder: str):
    """Splits features and labels (nests of tensors) along their first axis.

    A `tf.SparseTensor` (or `tf.compat.v1.SparseTensorValue`) is split by
    rows (`tf.sparse.slice`), as
    tf.contrib's replicate_model_fn did: tower t gets rows
    `[offset_t, offset_t + counts[t])`, renumbered from 0.

    Args:
      features: a tensor or nest of tensors (dense or `tf.SparseTensor`), each
        `[batch_size, ...]`.
      labels: the same, or None.
      num: number of towers.
      remainder: what to do when `batch_size % num != 0`: `'uneven'` gives
        the first `batch_size % num` towers one example more (towers may get
        none), `'drop'` leaves the last `batch_size % num` examples out,
        `'error'` raises (at graph construction when the batch size is
        static, else when the step runs).

    Returns:
      `(features_shards, labels_shards, counts)`, lists of length `num`;
      `counts[t]` is an int when the batch size is static, else an int32
      scalar tensor. `labels_shards` holds Nones when `labels` is None.
    """
    structure = features if labels is None else (features, labels)
    structure = _sparse_values_as_tensors(structure)
    tensors = [_leaf(t) for t in tf.nest.flatten(structure)]
    static, dynamic = _batch_size(tensors)
    with tf.name_scope("split_batch"):
        if static is not None:
            counts = _static_sizes(static, num, remainder)
            sizes = counts + ([static - sum(counts)] if remainder == "drop" else [])
        else:
            counts = _dynamic_sizes(dynamic, num, remainder)
            dropped = [dynamic - num * counts[0]] if remainder == "drop" else []
            sizes = tf.stack(counts + dropped)
        pieces = [
            _split_sparse(t, counts)
            if isinstance(t, tf.SparseTensor)
            else tf.split(t, sizes, num=len(counts) + (remainder == "drop"))
            for t in tensors
        ]
    shards = [
        tf.nest.pack_sequence_as(structure, [p[i] for p in pieces]) for i in range(num)
    ]
    if labels is None:
        return shards, [None] * num, counts
    return [s[0] for s in shards], [s[1] for s in shards], counts
