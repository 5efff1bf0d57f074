"""The training Saver: a checkpoint of NaN or Inf variables never becomes the latest.

NaN gradients can leave the loss of their own step finite (it is computed
before the update), so `NanTensorHook` stops training only one step later;
a checkpoint saved in between would hold NaN weights and become the latest,
and every restart would resume from it. A NaN batch can also reach only the
non-trainable state (batch-norm moving statistics, moving averages) while
the weights and the loss stay finite. This Saver checks every floating-point
variable it writes before each save, in one fused run, and refuses to write
when one is not finite.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

from estimator_multigpu.estimator import _disk_space


class NonFiniteVariablesError(tf.compat.v1.train.NanLossDuringTrainingError):
    """Training made a variable NaN or Inf; the checkpoint was not written.

    A `NanLossDuringTrainingError`, so code that catches tf.estimator's
    error for a NaN loss catches this one too.
    """

    def __init__(self, message: str):
        super().__init__()
        self.message = message

    def __str__(self) -> str:
        return self.message


def _non_finite_flags(variables: list) -> tf.Tensor:
    """bool `[2, len(variables)]`: whether each variable holds a NaN (row 0), an Inf (row 1)."""
    nan, inf = [], []
    for variable in variables:
        with tf.device(variable.device):
            nan.append(tf.reduce_any(tf.math.is_nan(variable)))
            inf.append(tf.reduce_any(tf.math.is_inf(variable)))
    return tf.stack([tf.stack(nan), tf.stack(inf)])


def _flatten(values) -> list:
    """The variables and tensors of a var_list (dicts, lists, partitioned variables)."""
    if isinstance(values, dict):
        values = list(values.values())
    if isinstance(values, (tf.Variable, tf.Tensor)):
        return [values]
    try:
        parts = list(values)  # A list, or a PartitionedVariable's parts.
    except TypeError:
        return []  # A SaveableObject (tables, iterators): no float values to check.
    return [leaf for part in parts for leaf in _flatten(part)]


def saved_variables(var_list) -> list:
    """The variables (and tensors) a Saver of `var_list` writes, each once.

    Args:
      var_list: a Saver's `var_list`; None: what the default Saver writes
        (the global variables and the `SAVEABLE_OBJECTS` collection).
    """
    if var_list is None:
        var_list = tf.compat.v1.global_variables() + tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS
        )
    found, seen = [], set()
    for value in _flatten(var_list):
        if id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    return found


def _byte_size(values: list) -> int:
    """The bytes of `values`' elements, for those of known shape and numeric dtype."""
    sizes = [
        v.shape.num_elements() * v.dtype.base_dtype.size
        for v in values
        if v.shape.is_fully_defined() and v.dtype.base_dtype != tf.string
    ]
    return int(sum(sizes))


class FiniteSaver(tf.compat.v1.train.Saver):
    """A `tf.compat.v1.train.Saver` that refuses to save non-finite variables.

    The check covers every floating-point variable the saver writes:
    trainable ones and the non-trainable state (batch-norm moving statistics,
    `ExponentialMovingAverage` shadows, other global variables). NaN is never
    saved. Inf is never saved in a trainable variable; a non-trainable one
    may hold Inf on purpose (a "best loss so far" starting at Inf), so there
    Inf stops the save only if the variable held none at this saver's first
    save.
    """

    def __init__(self, var_list=None, *args, **kwargs):
        self._checked_var_list = var_list  # Before super() may build.
        super().__init__(var_list, *args, **kwargs)

    def build(self):
        """Builds the saver and the finiteness check (before the graph is final)."""
        super().build()
        if getattr(self, "_finite_check", None) is None:
            saved = saved_variables(self._checked_var_list)
            self._variable_bytes = _byte_size(saved)
            variables = [v for v in saved if v.dtype.base_dtype.is_floating]
            trainable = {id(v) for v in tf.compat.v1.trainable_variables()}
            self._checked = variables
            self._trainable = np.array([id(v) in trainable for v in variables])
            self._inf_on_purpose = None  # Set at the first save.
            self._finite_check = _non_finite_flags(variables) if variables else None

    def save(self, sess, save_path, global_step=None, *args, **kwargs):
        """Saves as `Saver.save`, after checking every variable is finite.

        A save that fails removes what it wrote (the sharded saver's
        `<prefix>_temp/` folder); one that runs out of disk space says so.

        Raises:
          NonFiniteVariablesError: naming the variables and the checkpoint
            that stays the latest, instead of writing.
          disk_space.NoSpaceError: (a `ResourceExhaustedError`) naming the
            checkpoint, the space it needs and the space free.
        """
        check = getattr(self, "_finite_check", None)
        if check is not None:
            bad = self._non_finite(*sess.run(check))
            if bad:
                raise NonFiniteVariablesError(
                    _message(bad, save_path, global_step, sess)
                )
        prefix = save_path
        if global_step is not None:
            prefix = f"{save_path}-{_step_number(sess, global_step)}"

        def needed() -> int:
            variables = getattr(self, "_variable_bytes", 0)
            return variables + sess.graph.as_graph_def().ByteSize()

        with _disk_space.removing_partial_save(prefix, needed, _kept(save_path)):
            return super().save(sess, save_path, global_step, *args, **kwargs)

    def _non_finite(self, nan: np.ndarray, inf: np.ndarray) -> list:
        """The names of the variables that must not be saved."""
        if self._inf_on_purpose is None:
            self._inf_on_purpose = inf & ~self._trainable
        refused = nan | (inf & ~self._inf_on_purpose)
        return [v.op.name for v, no in zip(self._checked, refused) if no]


def _step_number(sess, global_step) -> int:
    if isinstance(global_step, (tf.Tensor, tf.Variable)):
        global_step = sess.run(global_step)
    return int(global_step)


def _step(sess, global_step) -> str:
    if global_step is None:
        return "this step"
    return f"step {_step_number(sess, global_step)}"


def _kept(save_path: str) -> str:
    """What stays the latest checkpoint when this save does not happen."""
    latest = tf.train.latest_checkpoint(os.path.dirname(save_path))
    if latest:
        return f"The latest checkpoint stays {latest}"
    return "No checkpoint was written before"


def _message(bad: list, save_path: str, global_step, sess) -> str:
    kept = _kept(save_path)
    return (
        f"Not saving the checkpoint of {_step(sess, global_step)}: variables "
        f"{bad[:5]!r}{' and more' if len(bad) > 5 else ''} hold NaN or Inf "
        "(the last update made them so, e.g. NaN gradients while the loss was "
        f"still finite). {kept}; training stops here. Resume from it with a "
        "lower learning rate, gradient clipping or the inputs checked."
    )
