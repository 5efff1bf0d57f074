"""Tower loss weights: the global loss is a weighted sum of tower losses."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context as context_lib


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


_SCALAR_FIX = (
    "A model_fn's loss is one value for the whole batch: reduce the "
    "per-example losses, e.g. loss = tf.reduce_mean(loss) (the "
    "tf.compat.v1.losses functions already return a scalar)."
)


def _more_than_one(shape: tf.TensorShape) -> bool:
    """Whether `shape` may hold more than one element."""
    return shape.rank is not None and any(d != 1 for d in shape.as_list())


def _non_scalar(loss: tf.Tensor) -> tf.Tensor | None:
    """The non-scalar tensor behind `loss`, or None if `loss` is one value.

    An EstimatorSpec reshapes a loss of unknown size (`[None, 1]`) to `[]`,
    which fails only when the step runs with more than one example; that
    reshape is looked through.
    """
    if _more_than_one(loss.shape):
        return loss
    if loss.shape.rank == 0 and loss.op.type == "Reshape":
        source = loss.op.inputs[0]
        if _more_than_one(source.shape):
            return source
    return None


def check_scalar_loss(loss: Any, where: str = "") -> None:
    """Raises ValueError, as tf.estimator does, for a loss that is not a scalar.

    Args:
      loss: the loss a model_fn computed (or passed to `compute_gradients`).
      where: where it was made, for the message (e.g. `'in tower 1'`).
    """
    if not isinstance(loss, tf.Tensor):
        return
    source = _non_scalar(loss)
    if source is not None:
        where = f" ({where})" if where else ""
        raise ValueError(
            f"Loss must be scalar, given: {source}{where}, of shape "
            f"{source.shape.as_list()}. {_SCALAR_FIX}"
        )


@contextlib.contextmanager
def explain_non_scalar_loss() -> Iterator[None]:
    """Adds the fix to an EstimatorSpec's own "Loss must be scalar" error."""
    try:
        yield
    except ValueError as error:
        text = str(error)
        if not text.startswith("Loss must be scalar") or _SCALAR_FIX in text:
            raise
        raise ValueError(f"{text}. {_SCALAR_FIX}") from error


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


def scale_loss(loss: tf.Tensor, context: context_lib.TowerContext) -> tf.Tensor:
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
    if context_lib.may_be_empty(context.count):
        loss = tf.where(context.count > 0, loss, tf.zeros_like(loss))
    if isinstance(context.weight, float) and context.weight == 1.0:
        return loss
    return loss * tf.cast(context.weight, loss.dtype)
