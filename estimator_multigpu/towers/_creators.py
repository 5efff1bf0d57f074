"""Later towers reuse the variables tower 0 created outside get_variable.

Keras layers (tf_keras, Keras 3) and `tf.Variable` do not look at the
variable scope's `reuse`, so a model_fn that builds its Keras model on every
call would give each tower variables of its own. Under
`tf.compat.v1.variable_creator_scope`, tower 0's creations are recorded in
order, and a later tower's k-th creation returns tower 0's k-th variable
(checked for the same shape, dtype and trainability). Variables made by
`tf.compat.v1.get_variable` keep the variable scope's reuse; local variables
and ON_READ ones (metric accumulators) stay per tower.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from typing import Any

import tensorflow as tf

_LOCAL = threading.local()
_LIBRARY_PARTS = ("tensorflow", "keras", "tf_keras", "estimator_multigpu", "<frozen")


def _depth() -> int:
    return getattr(_LOCAL, "depth", 0)


def mark_get_variable(getter, *args, **kwargs):
    """Custom getter: creations while it runs come from `get_variable`."""
    _LOCAL.depth = _depth() + 1
    try:
        return getter(*args, **kwargs)
    finally:
        _LOCAL.depth = _depth() - 1


def _shared(kwargs: dict) -> bool:
    """Whether a creation outside get_variable is a model variable to share."""
    if _depth():
        return False
    collections = kwargs.get("collections")
    if collections is not None and tf.compat.v1.GraphKeys.GLOBAL_VARIABLES not in (
        collections
    ):
        return False
    on_read = tf.VariableSynchronization.ON_READ
    return kwargs.get("synchronization") != on_read


def _requested(kwargs: dict) -> tuple:
    """`(shape, dtype, trainable)` a creation asks for; None where unknown."""
    initial = kwargs.get("initial_value")
    shape, dtype = kwargs.get("shape"), kwargs.get("dtype")
    if shape is None and callable(initial):  # Keras 3 passes no shape.
        initial = initial()
    if shape is None and not callable(initial) and hasattr(initial, "shape"):
        shape = initial.shape
    if dtype is None and not callable(initial) and hasattr(initial, "dtype"):
        dtype = initial.dtype
    shape = None if shape is None else tf.TensorShape(shape)
    dtype = None if dtype is None else tf.as_dtype(dtype).base_dtype
    trainable = kwargs.get("trainable")
    return shape, dtype, True if trainable is None else bool(trainable)


def _describe(name: str, shape: Any, dtype: Any, trainable: bool) -> str:
    shape = "?" if shape is None else shape.as_list()
    dtype = "?" if dtype is None else dtype.name
    kind = "trainable" if trainable else "not trainable"
    return f"{name!r} (shape {shape}, {dtype}, {kind})"


def _user_line() -> str:
    for frame in reversed(traceback.extract_stack()):
        parts = frame.filename.replace("\\", "/").split("/")
        if not any(
            part in _LIBRARY_PARTS or part.startswith("<frozen") for part in parts
        ):
            return f"{frame.filename}:{frame.lineno}: {(frame.line or '').strip()}"
    return "(not found)"


def _matches(variable: tf.Variable, requested: tuple) -> bool:
    shape, dtype, trainable = requested
    if shape is not None and not shape.is_compatible_with(variable.shape):
        return False
    if dtype is not None and dtype != variable.dtype.base_dtype:
        return False
    return trainable == bool(variable.trainable)


def _mismatch(index: int, position: int, kwargs: dict, existing: Any) -> ValueError:
    scope = tf.compat.v1.get_default_graph().get_name_scope()
    name = f"{scope}/{kwargs.get('name') or 'Variable'}".lstrip("/")
    if existing is None:
        theirs = "tower 0 created only that many"
    else:
        theirs = "tower 0's is " + _describe(
            existing.op.name,
            existing.shape,
            existing.dtype.base_dtype,
            existing.trainable,
        )
    return ValueError(
        f"Tower {index} creates a variable outside tf.compat.v1.get_variable "
        f"(a Keras layer or tf.Variable) that does not match tower 0's: its "
        f"creation #{position + 1} is {_describe(name, *_requested(kwargs))}, "
        f"{theirs} (at {_user_line()}). Towers after the first reuse tower 0's "
        "variables in creation order, so every tower must build the same "
        "layers in the same order: branch on mode, params and config only."
    )


class CreationOrder:
    """The variables tower 0 created outside get_variable, in order."""

    def __init__(self):
        self.created: list = []

    @contextlib.contextmanager
    def record(self):
        """Tower 0: appends each model variable made outside get_variable."""

        def creator(next_creator, **kwargs):
            variable = next_creator(**kwargs)
            if _shared(kwargs):
                self.created.append(variable)
            return variable

        with tf.compat.v1.variable_creator_scope(creator):
            yield

    @contextlib.contextmanager
    def reuse(self, index: int):
        """Tower `index` > 0: its k-th such creation returns tower 0's k-th.

        Raises:
          ValueError: a creation that does not match tower 0's at the same
            position, one past tower 0's count, or (on exit) a tower that
            created some but not all of them.
        """
        used = []

        def creator(next_creator, **kwargs):
            if not _shared(kwargs):
                return next_creator(**kwargs)
            position = len(used)
            existing = self.created[position] if position < len(self.created) else None
            if existing is None or not _matches(existing, _requested(kwargs)):
                raise _mismatch(index, position, kwargs, existing)
            used.append(existing)
            return existing

        with tf.compat.v1.variable_creator_scope(creator):
            yield
        if used and len(used) < len(self.created):
            raise ValueError(
                f"Tower {index} created {len(used)} variables outside "
                f"tf.compat.v1.get_variable (Keras layers, tf.Variable) where "
                f"tower 0 created {len(self.created)}; the next one tower 0 "
                f"created is {self.created[len(used)].op.name!r}. Every tower "
                "must build the same layers in the same order (or reuse a model "
                "built once, creating none)."
            )
