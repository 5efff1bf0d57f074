"""The training Saver: a checkpoint of NaN or Inf variables never becomes the latest.

NaN gradients can leave the loss of their own step finite (it is computed
before the update), so `NanTensorHook` stops training only one step later;
a checkpoint saved in between would hold NaN weights and become the latest,
and every restart would resume from it. This Saver checks the floating-point
variables before each save and refuses to write when one is not finite.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf


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


def _finite_flags(variables: list) -> tf.Tensor:
    """bool `[len(variables)]`: whether each variable holds only finite values."""
    flags = []
    for variable in variables:
        with tf.device(variable.device):
            flags.append(tf.reduce_all(tf.math.is_finite(variable)))
    return tf.stack(flags)


class FiniteSaver(tf.compat.v1.train.Saver):
    """A `tf.compat.v1.train.Saver` that refuses to save non-finite variables.

    The check covers the trainable floating-point variables that exist when
    the saver is built: a NaN update always reaches them, while other
    variables may hold Inf on purpose (a "best loss so far" starting at Inf).
    """

    def build(self):
        """Builds the saver and the finiteness check (before the graph is final)."""
        super().build()
        if getattr(self, "_finite_check", None) is None:
            variables = [
                v
                for v in tf.compat.v1.trainable_variables()
                if v.dtype.base_dtype.is_floating
            ]
            self._checked = variables
            self._finite_check = _finite_flags(variables) if variables else None

    def save(self, sess, save_path, global_step=None, *args, **kwargs):
        """Saves as `Saver.save`, after checking every variable is finite.

        Raises:
          NonFiniteVariablesError: naming the variables and the checkpoint
            that stays the latest, instead of writing.
        """
        check = getattr(self, "_finite_check", None)
        if check is not None:
            flags = sess.run(check)
            if not np.all(flags):
                bad = [v.op.name for v, ok in zip(self._checked, flags) if not ok]
                raise NonFiniteVariablesError(
                    _message(bad, save_path, global_step, sess)
                )
        return super().save(sess, save_path, global_step, *args, **kwargs)


def _step(sess, global_step) -> str:
    if global_step is None:
        return "this step"
    if isinstance(global_step, (tf.Tensor, tf.Variable)):
        global_step = sess.run(global_step)
    return f"step {int(global_step)}"


def _message(bad: list, save_path: str, global_step, sess) -> str:
    latest = tf.train.latest_checkpoint(os.path.dirname(save_path))
    kept = (
        f"The latest checkpoint stays {latest}"
        if latest
        else "No checkpoint was written before"
    )
    return (
        f"Not saving the checkpoint of {_step(sess, global_step)}: variables "
        f"{bad[:5]!r}{' and more' if len(bad) > 5 else ''} hold NaN or Inf "
        "(the last update made them so, e.g. NaN gradients while the loss was "
        f"still finite). {kept}; training stops here. Resume from it with a "
        "lower learning rate, gradient clipping or the inputs checked."
    )
