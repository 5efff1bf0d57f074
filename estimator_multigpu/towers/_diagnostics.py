"""Checks that name the user's line of code when towers are misused."""

from __future__ import annotations

import linecache
import os
import re
from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu._model_fn import ModeKeys

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


def per_tower_variables(
    created: Sequence[tf.Variable], trainable: Sequence[tf.Variable], index: int
) -> list[tf.Variable]:
    """The variables a later tower may keep for itself; raises for the others.

    A tower after the first may create non-trainable variables under its own
    `tower_<index>/` scope (a moving average of its loss, a counter); model
    variables, trainable or outside that name scope, must be tower 0's.

    Args:
      created: the global variables tower `index` created.
      trainable: those of them that are trainable.
      index: the tower's index, > 0.

    Returns:
      `created`, all of them per tower.

    Raises:
      ValueError: naming the first variable that should have been shared.
    """
    trainable_refs = {v.ref() for v in trainable}
    scope = f"tower_{index}"
    shared = [
        v
        for v in created
        if v.ref() in trainable_refs or scope not in v.op.name.split("/")[:-1]
    ]
    if not shared:
        return list(created)
    names = [v.name for v in shared]
    raise ValueError(
        f"Tower {index} created new variables {names[:5]} instead of reusing "
        f"tower 0's (first at {user_line(shared[0].op)}). Every tower must "
        "create the same model variables: tf.compat.v1.get_variable ones are "
        "reused by name, Keras layers' and tf.Variable ones by creation order. "
        "A tower may keep non-trainable variables of its own only under its "
        f"name scope ({scope + '/'!r})."
    )


def _missing_variable_error(name: str, index: int) -> ValueError:
    return ValueError(
        f"Tower {index} creates the trainable variable {name!r}, which tower "
        "0 did not create; every tower must build the same model (branch on "
        "mode, params and config only, and do work meant for one tower under "
        "`if emg.towers.tower_index() == 0:` without creating trainable "
        "variables there). Variables that are not trained (trainable=False), "
        "such as tf.compat.v1.train.ExponentialMovingAverage's, may be created "
        "in any tower."
    )


def later_tower_getter(index: int):
    """A variable-scope custom getter for tower `index` > 0.

    Reuses tower 0's variables; a non-trainable variable that tower 0 did not
    create (e.g. `ExponentialMovingAverage(...).apply([tower_loss])`, named
    after the tower's ops) is created for this tower. A trainable one raises
    a ValueError that says why.
    """

    def custom_getter(getter, *args, **kwargs):
        try:
            return getter(*args, **kwargs)
        except ValueError as error:
            if "does not exist" not in str(error) or kwargs.get("reuse") is not True:
                raise
            if kwargs.get("trainable") is not False:
                name = kwargs.get("name", args[0] if args else "?")
                raise _missing_variable_error(name, index) from error
            kwargs["reuse"] = tf.compat.v1.AUTO_REUSE
            return getter(*args, **kwargs)

    return custom_getter


def _is_gradient_op(op: tf.Operation) -> bool:
    """Whether `op` was made by `tf.gradients` (a `gradients*/` name scope)."""
    return any(part.startswith("gradients") for part in op.name.split("/")[:-1])


def _clip_scope(op: tf.Operation) -> str | None:
    """The `clip_by_*` name scope `op` was made in, if any."""
    for part in op.name.split("/")[:-1]:
        if part.startswith("clip_by_"):
            return part.rstrip("_0123456789") or part
    return None


def _clip_between(tensors: Sequence[tf.Tensor]) -> tuple | None:
    """`(scope, op)` of a clip op between `tf.gradients` outputs and `tensors`."""
    stack, seen = [t.op for t in tensors], set()
    while stack:
        op = stack.pop()
        if op.name in seen or _is_gradient_op(op):
            continue
        seen.add(op.name)
        scope = _clip_scope(op)
        if scope:
            return scope, op
        stack.extend(t.op for t in op.inputs)
    return None


def check_not_clipped(grads_and_vars: Sequence, index: int) -> None:
    """Raises ValueError for gradients clipped inside a tower.

    Clipping is not linear: clipping each tower's share and summing is not
    clipping the sum, so the step would change with the number of devices.

    Args:
      grads_and_vars: the `(gradient, variable)` pairs a tower passed to
        `apply_gradients`, not computed by `compute_gradients`.
      index: the tower's index.
    """
    tensors = [g for g, _ in grads_and_vars if isinstance(g, tf.Tensor)]
    tensors += [g.values for g, _ in grads_and_vars if isinstance(g, tf.IndexedSlices)]
    found = _clip_between(tensors)
    if found is None:
        return
    scope, op = found
    raise ValueError(
        f"Tower {index}'s apply_gradients received gradients clipped inside "
        f"the tower ({scope}, at {user_line(op)}). Each tower would clip its own "
        "share of the gradients, so the step would change with the number of "
        "devices. Pass the unclipped gradients and clip their sum over all "
        "towers: emg.TowerOptimizer(optimizer, clip_global_norm=<your clip "
        "norm>).apply_gradients(zip(grads, variables), global_step) for "
        "tf.clip_by_global_norm; transform_gradients=fn for other clipping."
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
