"""The state shared by the towers of one replicated model_fn call."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import tensorflow as tf

_LOCAL = threading.local()


@dataclasses.dataclass
class ApplyCall:
    """One `TowerOptimizer.apply_gradients` call made inside a tower.

    Attributes:
      optimizer: the wrapped `TowerOptimizer`.
      grads_and_vars: the tower's `(gradient, variable)` pairs.
      global_step: the `global_step` argument, or None.
      name: the `name` argument, or None.
      placeholder: the no-op returned to the model_fn; the real update is
        added to its control inputs once all towers are built.
    """

    optimizer: Any
    grads_and_vars: list
    global_step: Any
    name: str | None
    placeholder: tf.Operation


@dataclasses.dataclass
class TowerContext:
    """What the tower being built knows about itself and the others.

    Attributes:
      index: the tower's index, 0-based.
      num_towers: how many towers the model runs on.
      weight: scalar multiplier of this tower's loss (examples share of the
        global batch for `'mean'`, 1 for `'sum'`); float or float32 tensor.
      count: examples in this tower's shard: int, or int32 scalar tensor.
      loss_reduction: `'mean'` or `'sum'`.
      calls: `calls[t]` = the `ApplyCall`s of tower t, in call order.
      means: `means[t][k]` = `(value, merged)` of tower t's k-th
        `all_towers_mean` call (shared by all towers, like `calls`).
      computed: `computed[id(optimizer)]` = `{id(gradient): gradient}` for
        the gradients the optimizer's `compute_gradients` returned in this
        tower (already this tower's share).
      wrappers: `wrappers[id(optimizer)]` = `(optimizer, wrapper)`: the
        `TowerOptimizer` that stands in for a plain optimizer called inside
        this tower.
    """

    index: int
    num_towers: int
    weight: Any
    count: Any
    loss_reduction: str
    calls: list
    means: list = dataclasses.field(default_factory=list)
    computed: dict = dataclasses.field(default_factory=dict)
    wrappers: dict = dataclasses.field(default_factory=dict)

    def record_gradients(self, optimizer: Any, grads_and_vars: list) -> None:
        """Remembers the gradients `optimizer.compute_gradients` returned."""
        own = self.computed.setdefault(id(optimizer), {})
        own.update({id(g): g for g, _ in grads_and_vars if g is not None})


def current() -> TowerContext | None:
    """The context of the tower being built, or None outside towers."""
    return getattr(_LOCAL, "context", None)


class active:
    """Context manager that makes `context` current while a tower is built."""

    def __init__(self, context: TowerContext):
        self._context = context

    def __enter__(self) -> TowerContext:
        self._previous = current()
        _LOCAL.context = self._context
        return self._context

    def __exit__(self, *exc_info) -> None:
        _LOCAL.context = self._previous


def may_be_empty(count: Any) -> bool:
    """Whether a shard count is not known to be positive when building."""
    static = count if isinstance(count, int) else tf.get_static_value(count)
    return static is None or int(static) <= 0
