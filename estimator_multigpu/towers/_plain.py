"""Plain `tf.compat.v1.train.Optimizer`s called inside a tower act as `TowerOptimizer`.

While towers are built, `Optimizer.compute_gradients` and `apply_gradients`
called on a plain optimizer go to a `TowerOptimizer` that wraps it (one per
optimizer and tower), so a model_fn written for one device trains with the
same step on several. `TowerOptimizer` calls its wrapped optimizer inside
`delegating()`, which passes such calls through unchanged. Outside towers
nothing changes.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import tensorflow as tf

from estimator_multigpu.towers import _context as context_lib

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


def _wrapper(tower: context_lib.TowerContext, optimizer: Any) -> Any:
    from estimator_multigpu.towers._optimizer import TowerOptimizer

    key = id(optimizer)
    if key not in tower.wrappers:
        tower.wrappers[key] = (optimizer, TowerOptimizer(optimizer))
    return tower.wrappers[key][1]


def _routed(name: str, original):
    def method(self, *args, **kwargs):
        tower = context_lib.current()
        if tower is None or getattr(_LOCAL, "depth", 0):
            return original(self, *args, **kwargs)
        return getattr(_wrapper(tower, self), name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = original.__doc__
    method.emg_original = original
    return method


def install() -> None:
    """Routes plain optimizers' calls inside towers (once per process)."""
    base = tf.compat.v1.train.Optimizer
    with _INSTALL_LOCK:
        for name in _ROUTED:
            original = base.__dict__[name]
            if not hasattr(original, "emg_original"):
                setattr(base, name, _routed(name, original))
