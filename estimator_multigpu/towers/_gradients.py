"""Gradients across towers: masking empty towers, summing per variable."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

GradsAndVars = list[tuple[Any, tf.Variable]]


def _mask(grad: Any, has_examples: tf.Tensor) -> Any:
    if grad is None:
        return None
    if isinstance(grad, tf.IndexedSlices):
        values = tf.where(has_examples, grad.values, tf.zeros_like(grad.values))
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    return tf.where(has_examples, grad, tf.zeros_like(grad))


def mask_empty(grads_and_vars: GradsAndVars, count: Any) -> GradsAndVars:
    """Zeroes the gradients of a tower whose shard has no examples.

    Args:
      grads_and_vars: the tower's `(gradient, variable)` pairs.
      count: int32 scalar, the tower's examples this step.

    Returns:
      Pairs whose gradients are exactly zero (never NaN) when `count == 0`.
    """
    has_examples = tf.convert_to_tensor(count) > 0
    return [(_mask(g, has_examples), v) for g, v in grads_and_vars]


def _sum(grads: Sequence[Any]) -> Any:
    """Sums one variable's gradients; `IndexedSlices` stay sparse."""
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        return tf.IndexedSlices(
            tf.concat([g.values for g in grads], axis=0),
            tf.concat([g.indices for g in grads], axis=0),
            grads[0].dense_shape,
        )
    return tf.add_n([tf.convert_to_tensor(g) for g in grads])


def _on_device_of(variable: tf.Variable):
    device = getattr(variable, "device", "")
    return tf.device(device) if device else contextlib.nullcontext()


def _by_variable(grads_and_vars: GradsAndVars, tower: int) -> dict:
    pairs = {}
    for grad, var in grads_and_vars:
        if var.ref() in pairs:
            raise ValueError(
                f"Tower {tower} passes variable {var.name!r} to apply_gradients "
                "twice; pass each variable once."
            )
        pairs[var.ref()] = grad
    return pairs


def aggregate(tower_grads: Sequence[GradsAndVars]) -> GradsAndVars:
    """Sums the towers' gradients, once per variable, on its device.

    Args:
      tower_grads: `tower_grads[t][k]` = tower t's k-th `(gradient, variable)`
        pair, gradients already weighted by the tower's loss weight.

    Returns:
      One `(gradient, variable)` pair per variable, in tower 0's order; the
      gradient is None where no tower has one.

    Raises:
      ValueError: if the towers pass different variables.
    """
    per_tower = [_by_variable(gv, t) for t, gv in enumerate(tower_grads)]
    names = sorted(v.name for _, v in tower_grads[0])
    for t, pairs in enumerate(per_tower[1:], start=1):
        theirs = sorted(ref.deref().name for ref in pairs)
        if theirs != names:
            raise ValueError(
                f"Tower {t} applies gradients to variables {theirs}, but tower 0 "
                f"to {names}; every tower must build the same model."
            )
    result = []
    for _, var in tower_grads[0]:
        grads = [p[var.ref()] for p in per_tower if p[var.ref()] is not None]
        with _on_device_of(var), tf.name_scope("aggregate_gradients"):
            result.append((_sum(grads) if grads else None, var))
    return result


def clip_by_global_norm(grads_and_vars: GradsAndVars, clip_norm: float) -> GradsAndVars:
    """Clips all gradients together so that their global norm is at most `clip_norm`."""
    grads = [g for g, _ in grads_and_vars]
    clipped, _ = tf.clip_by_global_norm(grads, clip_norm)
    return list(zip(clipped, [v for _, v in grads_and_vars]))
