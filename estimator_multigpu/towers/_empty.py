"""Towers with no examples run on a one-example stand-in, masked out exactly.

A zero-example shard is part of the design (the last step of an epoch may not
reach every device), but some kernels cannot take an empty batch: oneDNN's
convolutions on CPU fail with "input depth must be evenly divisible by filter
depth". So a tower whose shard may be empty gets, when it is, one example of
zeros instead, and everything that example produces is masked out: its loss
and gradients (`losses.scale_loss`, `gradients.mask_empty`), its predictions
(`trim`) and its metric updates (`metrics.merge_metrics`).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context


def _stand_in(tensor: tf.Tensor) -> tf.Tensor:
    """One example of zeros (empty strings) shaped like `tensor`'s examples."""
    shape = tf.concat([[1], tf.shape(tensor, out_type=tf.int32)[1:]], axis=0)
    if tensor.dtype == tf.string:
        return tf.fill(shape, "")
    return tf.zeros(shape, tensor.dtype)


def _pad_sparse(value: tf.SparseTensor, has_examples: tf.Tensor) -> tf.SparseTensor:
    """An empty SparseTensor of one row (no values) when `value` has no rows."""
    one_row = tf.concat([[1], value.dense_shape[1:]], axis=0)
    dense_shape = tf.where(has_examples, value.dense_shape, one_row)
    padded = tf.SparseTensor(value.indices, value.values, dense_shape)
    if hasattr(padded, "set_shape"):  # Not on every TF 2.x SparseTensor.
        padded.set_shape(value.shape)
    return padded


def _pad_one(tensor: Any, has_examples: tf.Tensor) -> Any:
    if tensor is None:
        return None
    if isinstance(tensor, tf.SparseTensor):
        return _pad_sparse(tensor, has_examples)
    tensor = tf.convert_to_tensor(tensor)
    if tensor.shape.rank == 0:
        return tensor
    padded = tf.cond(has_examples, lambda: tensor, lambda: _stand_in(tensor))
    padded.set_shape(tf.TensorShape([None]).concatenate(tensor.shape[1:]))
    return padded


def pad_if_empty(shard: tuple, count: Any) -> tuple:
    """A tower's `(features, labels)`, with one stand-in example when empty.

    Args:
      shard: `(features, labels)`, nests of tensors `[count, ...]`.
      count: the shard's examples; int or int32 scalar tensor.

    Returns:
      `shard` unchanged when `count` is known to be positive, else the same
      structure whose tensors hold one example of zeros when `count == 0`.
    """
    if not _context.may_be_empty(count):
        return shard
    with tf.name_scope("stand_in_if_empty"):
        has_examples = tf.convert_to_tensor(count) > 0
        return tf.nest.map_structure(lambda t: _pad_one(t, has_examples), shard)


def trim(value: Any, count: Any) -> Any:
    """A tower output `[count or 1, ...]` cut back to its `count` examples.

    Scalars (no batch dimension) are returned as they are.
    """
    if not _context.may_be_empty(count):
        return value
    tensor = tf.convert_to_tensor(value)
    if tensor.shape.rank == 0:
        return tensor
    return tensor[: tf.convert_to_tensor(count)]
