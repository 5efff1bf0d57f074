"""`all_towers_mean`: the global-batch value of a per-tower scalar, for logs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import _tf_internals
from estimator_multigpu.towers import _context, _losses


def _check_scalar(value: Any) -> tf.Tensor:
    value = tf.convert_to_tensor(value)
    if value.shape.rank != 0:
        raise ValueError(
            f"all_towers_mean takes a scalar (e.g. the tower's mean loss or "
            f"accuracy); received {value.name} of shape {value.shape}. Reduce it "
            "to the tower's mean first, e.g. tf.reduce_mean(x)."
        )
    if value.dtype.is_floating:
        return value
    if value.dtype.is_integer or value.dtype.is_bool:
        return tf.cast(value, tf.float32)
    raise TypeError(
        f"all_towers_mean takes a numeric scalar; received {value.name} of "
        f"dtype {value.dtype.name}."
    )


def all_towers_mean(value: Any, name: str = "all_towers_mean") -> tf.Tensor:
    """The example-weighted mean over all towers of a per-tower scalar.

    Inside a model_fn replicated by `emg.replicate_model_fn` (or a tower_fn of
    `emg.towers.minimize`), each tower computes its values on its own share
    of the batch, and hooks and summaries come from tower 0. Wrap a
    per-tower mean (loss, accuracy) to log or summarise the value over the
    whole global batch instead:

        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        tf.compat.v1.summary.scalar("loss", emg.towers.all_towers_mean(loss))

    Tower t's value weighs `examples[t] / sum(examples)` (a tower without
    examples weighs 0), so for a per-tower mean the result is the mean over
    the global batch, the value a single device would compute. Every tower
    gets the same tensor, computed once all towers are built. Outside towers
    (one device) it is `value` itself. Meant for logging and summaries: do
    not feed it back into a tower's loss.

    Args:
      value: a numeric scalar tensor computed in the tower; ints and bools
        are averaged as float32.
      name: name of the returned tensor's op (in tower 0).

    Returns:
      A scalar tensor, floating point.

    Raises:
      ValueError: for a value that is not a scalar, or towers that make
        different numbers of calls.
      TypeError: for a value that is not numeric.
    """
    value = _check_scalar(value)
    tower = _context.current()
    if tower is None:
        return tf.identity(value, name=name)
    if tower.index == 0:
        # Its input is rewired to the weighted sum in `finish`.
        merged = tf.identity(value, name=name)
        tower.means[0].append((value, merged))
        return merged
    mine, first = tower.means[tower.index], tower.means[0]
    if len(mine) >= len(first):
        raise ValueError(
            f"Tower {tower.index} called all_towers_mean more often than tower 0 "
            f"({len(first)} times); every tower must make the same calls."
        )
    mine.append((value, None))
    return first[len(mine) - 1][1]


def _weighted_sum(values: Sequence[tf.Tensor], counts: Sequence[Any]) -> tf.Tensor:
    weights = _losses.tower_weights(counts, "mean")
    dtype = values[0].dtype
    parts = []
    for value, weight, count in zip(values, weights, counts):
        value = tf.cast(value, dtype)
        if _context.may_be_empty(count):
            value = tf.where(
                tf.convert_to_tensor(count) > 0, value, tf.zeros_like(value)
            )
        parts.append(value * tf.cast(weight, dtype))
    return tf.add_n(parts)


def finish(means: Sequence[list], counts: Sequence[Any]) -> None:
    """Points every `all_towers_mean` result at the weighted sum of the towers.

    Args:
      means: `means[t][k]` = `(value, merged)` of tower t's k-th call.
      counts: `counts[t]` = tower t's examples (int or int32 scalar tensor).

    Raises:
      ValueError: if the towers made different numbers of calls.
    """
    calls = [len(m) for m in means]
    if len(set(calls)) > 1:
        raise ValueError(
            f"The towers called all_towers_mean {calls} times; every tower must "
            "make the same calls."
        )
    for k, (_, merged) in enumerate(means[0]):
        with tf.device(merged.device), tf.name_scope("all_towers_mean"):
            total = _weighted_sum([m[k][0] for m in means], counts)
        # The tensor handed to hooks and summaries must stay the same object,
        # so its Identity op is rewired (before any session runs the graph).
        _tf_internals.update_input(merged.op, 0, tf.cast(total, merged.dtype))
