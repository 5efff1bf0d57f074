"""Plain `tf.compat.v1.train.Optimizer`s called inside a tower act as `TowerOptimizer`.

While towers are built, `Optimizer.compute_gradients` and `apply_gradients`
called on a plain optimizer go to a `TowerOptimizer` that wraps it (one per
optimizer and tower), so a model_fn written for one device trains with the
same step on several. A subclass that overrides `apply_gradients` but not
`compute_gradients` (the widely copied AdamW, whose update is its own assign
ops) is routed the same way: the towers' summed gradients then go to its own
`apply_gradients` once. `TowerOptimizer` calls its wrapped optimizer inside
`delegating()`, which passes such calls through unchanged. A
`SyncReplicasOptimizer` (its own `apply_gradients`) is refused unwrapped in
a tower, with the `TowerOptimizer` wrap as the fix. Outside towers nothing
changes.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context

_LOCAL = threading.local()
_ROUTED = ("compute_gradients", "apply_gradients")
_INSTALL_LOCK = threading.Lock()


@contextlib.contextmanager
def delegating():
    """Calls made here on a plain optimizer run as they are, even in a tower."""
    depth = getattr(_LOCAL, "depth", 0)
    _LOCAL.depth = depth + 1
    try:
        yield
    finally:
        _LOCAL.depth = depth


def _wrapper(tower: _context.TowerContext, optimizer: Any) -> Any:
    from estimator_multigpu.towers._optimizer import TowerOptimizer

    key = id(optimizer)
    if key not in tower.wrappers:
        tower.wrappers[key] = (optimizer, TowerOptimizer(optimizer))
    return tower.wrappers[key][1]


def _routed(name: str, original):
    def method(self, *args, **kwargs):
        tower = _context.current()
        if tower is None or getattr(_LOCAL, "depth", 0):
            return original(self, *args, **kwargs)
        return getattr(_wrapper(tower, self), name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = original.__doc__
    method.emg_original = original
    return method


def _refused_in_towers(original):
    """`SyncReplicasOptimizer.apply_gradients`, refused unwrapped in a tower.

    It overrides `apply_gradients` and hands the wrapped optimizer the
    gradients its accumulators average, which are no tower's share: wrapped
    in a `TowerOptimizer` it gets the towers' sum once instead.
    """

    def apply_gradients(self, *args, **kwargs):
        tower = _context.current()
        if tower is None or getattr(_LOCAL, "depth", 0):
            return original(self, *args, **kwargs)
        raise TypeError(
            f"A tf.compat.v1.train.SyncReplicasOptimizer ({self.get_name()!r}) "
            f"was called unwrapped in tower {tower.index}; it averages "
            "gradients itself, so it cannot act as one tower's optimizer. In "
            "the model_fn, wrap it in emg.TowerOptimizer, e.g. "
            "emg.TowerOptimizer(sync_optimizer).minimize(loss, global_step="
            "tf.compat.v1.train.get_global_step()) with sync_optimizer = "
            "emg.estimator.sync_replicas_optimizer(optimizer, config): the "
            "towers' summed gradients then go to it once per step."
        )

    apply_gradients.__doc__ = original.__doc__
    apply_gradients.emg_original = original
    return apply_gradients


def _route_own_apply(cls: type) -> None:
    """Routes `cls.apply_gradients` if `cls` overrides it and only it.

    A class that overrides `compute_gradients` too (`TowerOptimizer`,
    `SyncReplicasOptimizer`, a loss-scale or cross-shard wrapper) computes
    gradients its own way, so its calls stay as they are.
    """
    own = cls.__dict__
    if "apply_gradients" not in own or "compute_gradients" in own:
        return
    if issubclass(cls, tf.compat.v1.train.SyncReplicasOptimizer):
        return  # Refused in towers by its base class's apply_gradients.
    if not hasattr(own["apply_gradients"], "emg_original"):
        cls.apply_gradients = _routed("apply_gradients", own["apply_gradients"])


def _subclasses(cls: type):
    for subclass in cls.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)


def _routing_subclasses(cls, **kwargs):
    """`Optimizer.__init_subclass__`: routes a later subclass's own apply."""
    super(tf.compat.v1.train.Optimizer, cls).__init_subclass__(**kwargs)
    _route_own_apply(cls)


def install() -> None:
    """Routes plain optimizers' calls inside towers (once per process)."""
    base = tf.compat.v1.train.Optimizer
    sync = tf.compat.v1.train.SyncReplicasOptimizer
    with _INSTALL_LOCK:
        for name in _ROUTED:
            original = base.__dict__[name]
            if not hasattr(original, "emg_original"):
                setattr(base, name, _routed(name, original))
        original = sync.__dict__["apply_gradients"]
        if not hasattr(original, "emg_original"):
            sync.apply_gradients = _refused_in_towers(original)
        if "__init_subclass__" not in base.__dict__:
            base.__init_subclass__ = classmethod(_routing_subclasses)
        for subclass in _subclasses(base):
            _route_own_apply(subclass)
