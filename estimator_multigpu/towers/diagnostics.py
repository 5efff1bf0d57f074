"""Checks that name the user's line of code when towers are misused."""

from __future__ import annotations

import linecache
import os
import re
from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu.model_fn import ModeKeys

# Ops that optimizers create to update a variable.
_APPLY_OP = re.compile(r"^(Resource)?(Sparse)?Apply[A-Z]")
_LIBRARY_DIRS = (
    f"{os.sep}tensorflow{os.sep}",
    f"{os.sep}tensorflow_estimator{os.sep}",
    f"{os.sep}keras{os.sep}",
    f"{os.sep}tf_keras{os.sep}",
    f"{os.sep}estimator_multigpu{os.sep}towers{os.sep}",
    f"{os.sep}contextlib.py",
    "<frozen ",
)


def user_line(op: tf.Operation) -> str:
    """`file:line: code` of the innermost user frame that created `op`."""
    for frame in reversed(list(op.traceback)):
        if any(part in frame.filename for part in _LIBRARY_DIRS):
            continue
        code = frame.line or linecache.getline(frame.filename, frame.lineno)
        return f"{frame.filename}:{frame.lineno}: {code.strip()}"
    return f"(the code that created op {op.name!r})"


def check_no_new_variables(created: Sequence[tf.Variable], index: int) -> None:
    """Raises ValueError if a tower after the first created global variables."""
    if not created:
        return
    names = [v.name for v in created]
    raise ValueError(
        f"Tower {index} created new variables {names[:5]} instead of reusing "
        f"tower 0's (first at {user_line(created[0].op)}). Create model "
        "variables with tf.compat.v1.get_variable (or layers that use it), not "
        "tf.Variable / tf.compat.v1.Variable, so that towers share them."
    )


def _wrap_hint(line: str) -> str:
    return (
        f"the model_fn updates variables itself (a Keras optimizer or assign "
        f"ops), at\n  {line}\nWith several devices every tower would apply its "
        "own update. Use a tf.compat.v1.train optimizer's minimize or "
        "apply_gradients (plain, or wrapped in emg.TowerOptimizer to clip or "
        "transform the aggregated gradients): the towers' gradients are then "
        "summed and applied once, e.g. train_op = "
        "tf.compat.v1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step)."
    )


def check_train_ops(towers: Sequence, mode: str) -> None:
    """Raises ValueError for train ops built without a compat.v1 optimizer.

    Plain `tf.compat.v1.train` optimizers act as `TowerOptimizer` in towers
    (see `plain`), so what is left is variables updated another way.

    Args:
      towers: the built towers (`build.Tower`).
      mode: the model_fn's mode; only TRAIN is checked.
    """
    if mode != ModeKeys.TRAIN:
        return
    for tower in towers:
        for op in tower.ops:
            if _APPLY_OP.match(op.type):
                raise ValueError(
                    f"In tower {tower.context.index}, {_wrap_hint(user_line(op))}"
                )
    first = towers[0]
    if first.spec.train_op is not None and not first.context.calls[0]:
        op = getattr(first.spec.train_op, "op", first.spec.train_op)
        raise ValueError(
            "The train_op was not built by emg.TowerOptimizer or a "
            "tf.compat.v1.train optimizer (no minimize/apply_gradients call in "
            f"the model_fn); {_wrap_hint(user_line(op))}"
        )
