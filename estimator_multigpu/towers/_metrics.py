"""Merges the towers' `tf.compat.v1.metrics` exactly, by summing their state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context


def _check_pairs(eval_metric_ops: dict, index: int) -> None:
    for name, value in eval_metric_ops.items():
        if not (isinstance(value, tuple) and len(value) == 2):
            raise TypeError(
                f"eval_metric_ops[{name!r}] of tower {index} is a "
                f"{type(value).__name__}; with several devices, metrics must be "
                "(value, update_op) pairs from tf.compat.v1.metrics.*."
            )


def _check_same(towers: Sequence) -> None:
    first = towers[0]
    for tower in towers[1:]:
        index = tower.context.index
        if sorted(tower.spec.eval_metric_ops) != sorted(first.spec.eval_metric_ops):
            raise ValueError(
                f"Tower {index} returns eval_metric_ops {sorted(tower.spec.eval_metric_ops)}, "
                f"tower 0 {sorted(first.spec.eval_metric_ops)}; every tower must "
                "build the same metrics."
            )
        shapes = [v.shape for v in tower.metric_variables]
        if shapes != [v.shape for v in first.metric_variables]:
            raise ValueError(
                f"Tower {index} created metric variables of shapes {shapes}, "
                f"tower 0 {[v.shape for v in first.metric_variables]}; every "
                "tower must build the same metrics."
            )


def _contribution(variable: tf.Variable, count: Any) -> tf.Tensor:
    """A tower's copy of a metric variable; zeros when it ran on a stand-in."""
    value = variable.read_value()
    if not _context.may_be_empty(count):
        return value
    return tf.where(tf.convert_to_tensor(count) > 0, value, tf.zeros_like(value))


def _shadow(variable: tf.Variable) -> tf.Variable:
    """A local copy of `variable` as the previous merge left it (zeros first)."""
    with tf.control_dependencies(None):  # Its initializer must not run a step.
        return tf.compat.v1.Variable(
            tf.zeros(variable.shape, variable.dtype),
            trainable=False,
            # Reset with the metrics (initialising METRIC_VARIABLES resets both).
            collections=[
                tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
                tf.compat.v1.GraphKeys.METRIC_VARIABLES,
            ],
            name=variable.op.name.split("/")[-1] + "_before_step",
        )


def _sum_into_first(
    variables: Sequence[tf.Variable], counts: Sequence[Any], shadows: list
) -> list[tf.Operation]:
    """Adds the other towers' copies of a metric variable to tower 0's, zeroing them.

    When tower 0 may have run on a stand-in example, its copy goes back to
    the value the previous merge left (kept in a shadow variable, appended
    to `shadows`) on steps where it had no examples.
    """
    first, others = variables[0], variables[1:]
    with tf.device(first.device):
        added = tf.add_n([_contribution(o, c) for o, c in zip(others, counts[1:])])
        if _context.may_be_empty(counts[0]):
            shadow = _shadow(first)
            shadows.append(shadow)
            kept = tf.where(
                tf.convert_to_tensor(counts[0]) > 0,
                first.read_value(),
                shadow.read_value(),
            )
            total = tf.compat.v1.assign(first, kept + added)
            total = tf.compat.v1.assign(shadow, total)
        else:
            total = tf.compat.v1.assign_add(first, added)
    with tf.control_dependencies([total]):
        return [tf.compat.v1.assign(o, tf.zeros_like(o)).op for o in others]


def merge_metrics(towers: Sequence) -> tuple[dict, list]:
    """One `eval_metric_ops` dict whose values cover all towers' examples.

    Each step runs every tower's update ops, then adds the metric variables
    (totals, counts, confusion matrices) of towers 1..N-1 into tower 0's and
    zeroes them; tower 0's value tensors then read the state of all
    examples, exactly as one device would. This holds for metrics whose
    state is a sum over examples: every `tf.compat.v1.metrics` function.
    What a tower computed from a stand-in example (it had none) is left
    out exactly.

    Args:
      towers: the built towers; `towers[t].metric_variables[j]` = tower t's
        j-th metric variable.

    Returns:
      `({name: (tower 0's value, merged update_op)}, local variables the
      merge created)`.
    """
    for tower in towers:
        _check_pairs(tower.spec.eval_metric_ops, tower.context.index)
    _check_same(towers)
    updates = [up for tower in towers for _, up in tower.spec.eval_metric_ops.values()]
    counts = [tower.context.count for tower in towers]
    shadows = []
    with tf.name_scope("merge_tower_metrics"):
        with tf.control_dependencies(updates):
            zeroed = []
            for variables in zip(*[t.metric_variables for t in towers]):
                zeroed.extend(_sum_into_first(variables, counts, shadows))
            update = tf.group(*updates, *zeroed)
    ops = {
        name: (value, update)
        for name, (value, _) in towers[0].spec.eval_metric_ops.items()
    }
    return ops, shadows
