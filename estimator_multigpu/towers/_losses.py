"""Tower loss weights: the global loss is a weighted sum of tower losses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context


def _static(count: Any) -> int | None:
    if isinstance(count, int):
        return count
    value = tf.get_static_value(count)
    return None if value is None else int(value)


def tower_weights(counts: Sequence[Any], loss_reduction: str) -> list[Any]:
    """The multiplier of each tower's loss.

    For `'mean'` tower t weighs `counts[t] / sum(counts)` (0 when no tower
    has examples), so the weighted sum of per-tower mean losses is the mean
    over the global batch. For `'sum'` every tower weighs 1.

    Args:
      counts: examples per tower; ints or int32 scalar tensors.
      loss_reduction: `'mean'` or `'sum'`.

    Returns:
      Python floats when all counts are static, else float32 scalar tensors.
    """
    if loss_reduction == "sum":
        return [1.0] * len(counts)
    static = [_static(c) for c in counts]
    if all(s is not None for s in static):
        total = sum(static)
        return [s / total if total else 0.0 for s in static]
    with tf.name_scope("tower_weights"):
        floats = [tf.cast(c, tf.float32) for c in counts]
        total = tf.add_n(floats)
        return [tf.math.divide_no_nan(c, total) for c in floats]


_SCOPE = "/Regularizer/"


def _regularization_marks() -> tuple[set, tuple]:
    """Names of REGULARIZATION_LOSSES tensors, and name scopes of lazy ones.

    `get_variable(regularizer=...)` stores a lazy tensor that rebuilds its ops
    (under `<variable>/Regularizer/`) each time a tower reads it.
    """
    names, prefixes = set(), set()
    for tensor in tf.compat.v1.get_collection(
        tf.compat.v1.GraphKeys.REGULARIZATION_LOSSES
    ):
        names.add(tensor.name)
        if _SCOPE in tensor.name:
            prefixes.add(tensor.name[: tensor.name.index(_SCOPE) + len(_SCOPE)])
    return names, tuple(prefixes)


def _regularization_inputs(loss: tf.Tensor) -> list[tf.Tensor]:
    """The regularization-loss tensors that `loss` is computed from."""
    names, prefixes = _regularization_marks()
    if not names:
        return []
    found, seen, stack = {}, set(), [loss]
    while stack:
        tensor = stack.pop()
        if tensor.name in names or (prefixes and tensor.name.startswith(prefixes)):
            found[tensor.name] = tensor
        elif tensor.op.name not in seen:
            seen.add(tensor.op.name)
            stack.extend(tensor.op.inputs)
    return list(found.values())


def scale_loss(loss: tf.Tensor, context: _context.TowerContext) -> tf.Tensor:
    """This tower's share of the global loss.

    A tower without examples contributes exactly 0 (the loss is masked, not
    multiplied, since the mean of an empty batch is NaN and 0 * NaN is NaN).
    With `'sum'`, towers after the first drop the regularization losses they
    add (they are the first tower's, shared), so they count once.

    Args:
      loss: scalar loss of the tower's shard.
      context: the tower's context.

    Returns:
      A scalar tensor with `loss`'s dtype.
    """
    loss = tf.convert_to_tensor(loss)
    if context.loss_reduction == "sum" and context.index > 0:
        shared = _regularization_inputs(loss)
        if shared:
            loss = loss - tf.cast(tf.add_n(shared), loss.dtype)
    if _context.may_be_empty(context.count):
        loss = tf.where(context.count > 0, loss, tf.zeros_like(loss))
    if isinstance(context.weight, float) and context.weight == 1.0:
        return loss
    return loss * tf.cast(context.weight, loss.dtype)
