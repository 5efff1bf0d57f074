"""tf.contrib.training's parameter-server placement strategies for
`tf.compat.v1.train.replica_device_setter(ps_strategy=...)`."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

# Variable ops whose output is a handle: their size is in the `shape`/`dtype` attrs.
_HANDLE_OPS = ("VarHandleOp",)


def byte_size_load_fn(op) -> int:
    """The byte size of the variable `op` makes (its one output's size).

    Works for reference variables (`VariableV2`, output of the variable's shape)
    and resource variables (`VarHandleOp`, a scalar handle: the size comes
    from the op's `shape` and `dtype` attributes).

    Raises:
      ValueError: for an op with other than one output, or a size not fully
        known.
    """
    if len(op.outputs) != 1:
        raise ValueError(
            f"byte_size_load_fn: op {op.name!r} must have a single output; it "
            f"has {len(op.outputs)}."
        )
    output = op.outputs[0]
    if op.type in _HANDLE_OPS:
        dtype = tf.as_dtype(op.get_attr("dtype"))
        shape = tf.TensorShape(op.get_attr("shape"))
    else:
        dtype, shape = output.dtype, output.shape
        if not shape.is_fully_defined():
            # Scalar variables get their shape only after the op is made.
            shape = tf.TensorShape(op.get_attr("shape"))
    if not shape.is_fully_defined():
        raise ValueError(
            f"byte_size_load_fn: the shape of {op.name!r} is not fully known: {shape}."
        )
    return shape.num_elements() * dtype.size


class GreedyLoadBalancingStrategy:
    """Places each variable on the least loaded of `num_tasks` ps tasks.

    `load_fn(op)` measures what a variable adds to a task (e.g.
    `byte_size_load_fn`); called with the op, returns the task index.
    """

    def __init__(self, num_tasks: int, load_fn):
        if (
            isinstance(num_tasks, bool)
            or not isinstance(num_tasks, int)
            or num_tasks < 1
        ):
            raise ValueError(
                f"`num_tasks` must be an int >= 1; received {num_tasks!r}."
            )
        if not callable(load_fn):
            raise TypeError(f"`load_fn` must be callable; received {load_fn!r}.")
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task
