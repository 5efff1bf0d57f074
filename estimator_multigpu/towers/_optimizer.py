"""`TowerOptimizer`: an optimizer whose update runs once for all towers."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _model_fn, _tf_internals
from estimator_multigpu.towers import (
    _context,
    _gradients,
    _losses,
    _plain,
    _shares,
)

GradientTransform = Callable[[_gradients.GradsAndVars], _gradients.GradsAndVars]


class TowerOptimizer(tf.compat.v1.train.Optimizer):
    """Wraps a `tf.compat.v1.train.Optimizer` for `replicate_model_fn`.

    Inside a replicated model_fn, `compute_gradients` differentiates the
    tower's share of the global loss (see `replicate_model_fn`), and
    `apply_gradients` records the tower's gradients and returns a no-op. Once
    every tower is built, the gradients of all towers are summed once per
    variable on the variable's device (`IndexedSlices` stay sparse), then
    clipped and transformed, and the wrapped optimizer applies them in one
    update; the no-op returned to tower 0 waits for that update. Outside a
    replicated model_fn (one device) it behaves as the wrapped optimizer,
    clipping and transform included.

    Use one `TowerOptimizer` per wrapped optimizer, created inside the
    model_fn; several in one model_fn work (they are matched by call order).
    Pass `apply_gradients` the pairs that `compute_gradients` returned; in a
    tower that never calls `compute_gradients`, pairs computed another way
    (`tf.gradients` of the tower's loss) are weighted by the tower's share of
    the global batch (see `shares.tower_share`). A plain
    `tf.compat.v1.train.Optimizer` called inside a tower is wrapped like this
    automatically (see `plain`).
    """

    def __init__(
        self,
        optimizer: tf.compat.v1.train.Optimizer,
        clip_global_norm: float | None = None,
        transform_gradients: GradientTransform | None = None,
    ):
        """Builds a `TowerOptimizer`.

        Args:
          optimizer: the optimizer to wrap, or a function with no arguments
          that returns it (called once, here, as tf.estimator's canned
          estimators call an optimizer factory).
          clip_global_norm: clip the gradients aggregated over all towers to
            this global norm before applying them; None: no clipping.
          transform_gradients: `fn(grads_and_vars) -> grads_and_vars`, applied
            to the aggregated (and clipped) gradients before the update.

        Raises:
          TypeError: for an optimizer that is not a `tf.compat.v1` one, or a
            transform that is not callable.
          ValueError: for a `clip_global_norm` that is not positive.
        """
        optimizer = _from_factory(optimizer)
        _check_args(optimizer, clip_global_norm, transform_gradients)
        super().__init__(use_locking=False, name=f"Tower{optimizer.get_name()}")
        self._optimizer = optimizer
        self._clip_global_norm = clip_global_norm
        self._transform = transform_gradients

    @property
    def optimizer(self) -> tf.compat.v1.train.Optimizer:
        """The wrapped optimizer."""
        return self._optimizer

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """The wrapped optimizer's gradients of this tower's share of `loss`."""
        tower = _context.current()
        where = "" if tower is None else f" in tower {tower.index}"
        _model_fn.check_scalar_loss(
            loss, f"the loss passed to compute_gradients{where}"
        )
        if tower is None:
            with _plain.delegating():
                return self._optimizer.compute_gradients(loss, var_list, **kwargs)
        scaled = _losses.scale_loss(loss, tower)
        with _plain.delegating():
            pairs = self._optimizer.compute_gradients(scaled, var_list, **kwargs)
        if _context.may_be_empty(tower.count):
            pairs = _gradients.mask_empty(pairs, tower.count)
        tower.record_gradients(self, pairs)
        return pairs

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies the gradients now (one device) or after all towers."""
        tower = _context.current()
        if tower is None:
            return self.apply_aggregated(list(grads_and_vars), global_step, name)
        pairs = _shares.tower_share(self, list(grads_and_vars), tower)
        placeholder = tf.no_op(name="apply_after_all_towers")
        call = _context.ApplyCall(self, pairs, global_step, name, placeholder)
        tower.calls[tower.index].append(call)
        return placeholder

    def apply_aggregated(self, grads_and_vars, global_step=None, name=None):
        """Clips, transforms and applies gradients already summed over towers."""
        if self._clip_global_norm is not None:
            grads_and_vars = _gradients.clip_by_global_norm(
                grads_and_vars, self._clip_global_norm
            )
        if self._transform is not None:
            grads_and_vars = list(self._transform(list(grads_and_vars)))
        with _plain.delegating():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


def _required_arguments(function) -> list[str]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in parameters if p.default is p.empty and p.kind not in kinds]


def _from_factory(optimizer):
    """`optimizer`, or what a factory function `optimizer()` returns.

    Raises:
      TypeError: for an optimizer class, a factory that takes arguments, or
        one that returns something else than a `tf.compat.v1` optimizer.
    """
    if isinstance(optimizer, type):
        raise TypeError(
            f"`optimizer` is the class {optimizer.__name__}, not an optimizer; "
            f"pass an instance, e.g. {optimizer.__name__}(learning_rate=0.1), "
            "or a function with no arguments that returns one."
        )
    plain_object = isinstance(optimizer, tf.compat.v1.train.Optimizer) or hasattr(
        optimizer, "apply_gradients"
    )
    if plain_object or not callable(optimizer):
        return optimizer
    required = _required_arguments(optimizer)
    if required:
        raise TypeError(
            f"`optimizer` {optimizer!r} is a function that takes arguments "
            f"({', '.join(required)}); pass an optimizer, or a function with no "
            "arguments that returns one, e.g. "
            "lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1)."
        )
    result = optimizer()
    if not isinstance(result, tf.compat.v1.train.Optimizer):
        raise TypeError(
            f"`optimizer` is a function that returned {result!r} of type "
            f"{type(result).__name__}; it must return a "
            "tf.compat.v1.train.Optimizer, e.g. "
            "tf.compat.v1.train.GradientDescentOptimizer(0.1)."
        )
    return result


def _check_args(optimizer, clip_global_norm, transform_gradients) -> None:
    if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        raise TypeError(
            "`optimizer` must be a tf.compat.v1.train.Optimizer, e.g. "
            "tf.compat.v1.train.MomentumOptimizer(0.1, 0.9); received "
            f"{optimizer!r} of type {type(optimizer).__name__}. Keras optimizers "
            "do not work with model_fn train ops; use the tf.compat.v1.train one."
        )
    if isinstance(optimizer, TowerOptimizer):
        raise TypeError(
            "`optimizer` is already a TowerOptimizer; wrap the plain optimizer once."
        )
    if clip_global_norm is not None and (
        isinstance(clip_global_norm, bool)
        or not isinstance(clip_global_norm, (int, float))
        or clip_global_norm <= 0
    ):
        raise ValueError(
            f"`clip_global_norm` must be a positive number or None; received "
            f"{clip_global_norm!r}."
        )
    if transform_gradients is not None and not callable(transform_gradients):
        raise TypeError(
            "`transform_gradients` must be a function grads_and_vars -> "
            f"grads_and_vars; received {transform_gradients!r}."
        )


def _gate(summed: list, losses: list) -> list[tf.Operation]:
    """What every update waits for: the towers' losses, and gradients where reads race.

    The losses: a part of a loss that no gradient needs (an L2 term reads
    the variable, its gradient does not need the term's value) could
    otherwise run after the update in the same step, so the reported loss
    would mix pre- and post-update values. A reference variable (v1
    behaviour) is also read in place: an update that ran before another
    gradient finished reading the variable would change that gradient. So
    with reference variables, or several optimizer calls, no update starts
    before every gradient is computed.
    """
    gate = [loss.op for loss in losses if isinstance(loss, tf.Tensor)]
    pairs = [pair for call in summed for pair in call]
    refs = any(not hasattr(v, "handle") for _, v in pairs)
    if len(summed) < 2 and not refs:
        return gate
    return gate + [g.op for g, _ in pairs if g is not None]


def _gated(pairs: list, waits: list) -> list:
    """`pairs` whose gradients are computed only after `waits`.

    The gradients carry the wait, not the whole `apply_gradients` call: ops
    an optimizer builds there that use no gradient (SyncReplicasOptimizer's
    `chief_init_op` and `local_step_init_op`, run once at session start)
    would otherwise run the towers' forward pass and consume a batch.
    """
    if not waits:
        return pairs
    with tf.control_dependencies(waits):
        return [(None if g is None else tf.identity(g), v) for g, v in pairs]


def apply_tower_gradients(calls: list, losses: list) -> list[tf.Operation]:
    """Applies the gradients recorded in all towers, once per optimizer call.

    Args:
      calls: `calls[t][k]` = the k-th `ApplyCall` of tower t.
      losses: the towers' losses; no update starts before they are computed,
        so the step's reported loss is the loss before the update.

    Returns:
      The update ops; each is also a control input of the no-op that tower
      0's `apply_gradients` returned, so tower 0's train_op runs it.

    Raises:
      ValueError: if the towers made different numbers of calls.
    """
    counts = [len(tower_calls) for tower_calls in calls]
    if len(set(counts)) > 1:
        raise ValueError(
            f"The towers called TowerOptimizer.apply_gradients/minimize {counts} "
            "times; every tower must build the same train op (no branching "
            "on anything but `mode`, `params` and `config`)."
        )
    summed = [
        _gradients.aggregate([tower_calls[k].grads_and_vars for tower_calls in calls])
        for k in range(len(calls[0]))
    ]
    gate = _gate(summed, losses)
    updates = []
    for first, pairs in zip(calls[0], summed):
        # The update waits for what the model_fn made apply_gradients wait for.
        waits = list(first.placeholder.control_inputs) + gate
        update = first.optimizer.apply_aggregated(
            _gated(pairs, waits), first.global_step, first.name
        )
        update = getattr(update, "op", update)
        _tf_internals.add_control_input(first.placeholder, update)
        updates.append(update)
    return updates
