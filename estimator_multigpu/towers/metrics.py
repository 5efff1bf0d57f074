"""Merges the towers' `tf.compat.v1.metrics` exactly, by summing their state."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf


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


def _sum_into_first(variables: Sequence[tf.Variable]) -> list[tf.Operation]:
    """Adds the other towers' copies of a metric variable to tower 0's, zeroing them."""
    first, others = variables[0], variables[1:]
    with tf.device(first.device):
        total = tf.compat.v1.assign_add(
            first, tf.add_n([o.read_value() for o in others])
        )
    with tf.control_dependencies([total]):
        return [tf.compat.v1.assign(o, tf.zeros_like(o)).op for o in others]


def merge_metrics(towers: Sequence) -> dict:
    """One `eval_metric_ops` dict whose values cover all towers' examples.

    Each step runs every tower's update ops, then adds the metric variables
    (totals, counts, confusion matrices) of towers 1..N-1 into tower 0's and
    zeroes them; tower 0's value tensors then read the state of all
    examples, exactly as one device would. This holds for metrics whose
    state is a sum over examples: every `tf.compat.v1.metrics` function.

    Args:
      towers: the built towers; `towers[t].metric_variables[j]` = tower t's
        j-th metric variable.

    Returns:
      `{name: (tower 0's value, merged update_op)}`.
    """
    for tower in towers:
        _check_pairs(tower.spec.eval_metric_ops, tower.context.index)
    _check_same(towers)
    updates = [up for tower in towers for _, up in tower.spec.eval_metric_ops.values()]
    with tf.name_scope("merge_tower_metrics"):
        with tf.control_dependencies(updates):
            zeroed = []
            for variables in zip(*[t.metric_variables for t in towers]):
                zeroed.extend(_sum_into_first(variables))
            update = tf.group(*updates, *zeroed)
    return {
        name: (value, update)
        for name, (value, _) in towers[0].spec.eval_metric_ops.items()
    }
