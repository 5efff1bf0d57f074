"""Gradients handed to `apply_gradients` in a tower, as that tower's share."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import (
    _context,
    _diagnostics,
    _gradients,
)

_FIX = (
    "Pass apply_gradients the pairs that compute_gradients (or minimize) "
    "returned, unchanged, and clip or transform their sum over all towers "
    "with emg.TowerOptimizer(optimizer, clip_global_norm=..., "
    "transform_gradients=...).apply_gradients(pairs, global_step): a clip "
    "applied to one tower's gradients makes the step depend on the number of "
    "devices."
)


def _scale(grad: Any, weight: Any) -> Any:
    if grad is None or (isinstance(weight, float) and weight == 1.0):
        return grad
    if isinstance(grad, tf.IndexedSlices):
        values = grad.values * tf.cast(weight, grad.values.dtype)
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    grad = tf.convert_to_tensor(grad)
    return grad * tf.cast(weight, grad.dtype)


def _foreign(pairs: list, own: dict) -> list:
    return [v.name for g, v in pairs if g is not None and id(g) not in own]


def _check_foreign(pairs: list, tower: _context.TowerContext) -> None:
    """Raises when foreign gradients cannot be weighted without guessing."""
    if tower.loss_reduction == "sum" and tf.compat.v1.get_collection(
        tf.compat.v1.GraphKeys.REGULARIZATION_LOSSES
    ):
        raise ValueError(
            f"TowerOptimizer.apply_gradients in tower {tower.index} received "
            "gradients that its compute_gradients did not return, with "
            "loss_reduction='sum' and regularization losses in the graph: "
            "every tower's gradients would count the shared regularization "
            "again. Use TowerOptimizer.compute_gradients or minimize, which "
            "count it once."
        )


def tower_share(
    optimizer: Any, grads_and_vars: list, tower: _context.TowerContext
) -> list:
    """The tower's `(gradient, variable)` pairs as its share of the global step.

    Pairs that the optimizer's `compute_gradients` returned in this tower are
    already the tower's share and pass as they are. Pairs computed otherwise
    (e.g. `tf.gradients(tower_loss, variables)`, the cifar10_estimator style)
    are gradients of the tower's own loss: they are multiplied by the tower's
    loss weight (its share of the examples for `'mean'`) and masked to zero
    when the tower has no examples, so that summing the towers gives the
    single-device gradient of the global batch.

    Args:
      optimizer: the `TowerOptimizer` whose `apply_gradients` was called.
      grads_and_vars: the pairs passed to it.
      tower: the tower being built.

    Returns:
      The pairs to sum over towers.

    Raises:
      ValueError: for a mix of both kinds, or computed pairs changed after
        `compute_gradients` (they cannot be told from foreign ones).
    """
    own = tower.computed.get(id(optimizer))
    if own is not None:
        foreign = _foreign(grads_and_vars, own)
        if foreign:
            raise ValueError(
                f"TowerOptimizer.apply_gradients in tower {tower.index} received "
                f"gradients for {foreign[:5]} that are not the ones its "
                "compute_gradients returned (changed in between, or computed "
                "another way); they cannot be weighted by the tower's share "
                f"of the global batch. {_FIX}"
            )
        return grads_and_vars
    _check_foreign(grads_and_vars, tower)
    _diagnostics.check_not_clipped(grads_and_vars, tower.index)
    pairs = [(_scale(g, tower.weight), v) for g, v in grads_and_vars]
    if _context.may_be_empty(tower.count):
        pairs = _gradients.mask_empty(pairs, tower.count)
    return pairs
