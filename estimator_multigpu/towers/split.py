"""Splits a global batch into one shard per tower, unevenly if need be."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu import sharding
from estimator_multigpu.sharding import REMAINDERS, check_remainder

__all__ = ["REMAINDERS", "check_remainder", "split"]


def _dense(value: Any) -> tf.Tensor:
    if isinstance(value, (tf.SparseTensor, tf.RaggedTensor)):
        raise TypeError(
            f"Cannot split a {type(value).__name__} across towers; convert it to "
            "a dense tensor in the input_fn (tf.sparse.to_dense, "
            "RaggedTensor.to_tensor), or shard the input with "
            "emg.inputs.multi_device_input_fn."
        )
    return tf.convert_to_tensor(value)


def _batch_size(tensors: list[tf.Tensor]) -> tuple[int | None, tf.Tensor]:
    first = tensors[0]
    if first.shape.rank == 0:
        raise ValueError(
            f"Cannot split the features across towers: {first.name} is a scalar. "
            "Every feature and label needs a leading batch dimension."
        )
    return tf.compat.dimension_value(first.shape[0]), tf.shape(
        first, out_type=tf.int32
    )[0]


def _static_sizes(batch: int, num: int, remainder: str) -> list[int]:
    if remainder == "error" and batch % num:
        raise ValueError(
            f"The global batch ({batch} examples) does not divide by the number "
            f"of devices ({num}); pass remainder='uneven' or 'drop' to "
            "replicate_model_fn, or a batch size divisible by the device count."
        )
    return sharding.split_sizes(batch, num, remainder)


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
    return sharding.split_sizes(batch, num, remainder)


def split(features: Any, labels: Any, num: int, remainder: str):
    """Splits features and labels (nests of tensors) along their first axis.

    Args:
      features: a tensor or nest of tensors, each `[batch_size, ...]`.
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
    tensors = [_dense(t) for t in tf.nest.flatten(structure)]
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
            tf.split(t, sizes, num=len(counts) + (remainder == "drop")) for t in tensors
        ]
    shards = [
        tf.nest.pack_sequence_as(structure, [p[i] for p in pieces]) for i in range(num)
    ]
    if labels is None:
        return shards, [None] * num, counts
    return [s[0] for s in shards], [s[1] for s in shards], counts
