"""Names tf_slim 1.1 reads from TensorFlow internals that TF 2.x moved or dropped."""

from __future__ import annotations

import importlib

import tensorflow as tf

from estimator_multigpu._tf_internals._access import private

_OPS = "tensorflow.python.framework.ops"
_VARIABLE_SCOPE = "tensorflow.python.ops.variable_scope"
_NORMALIZATION = "tensorflow.python.layers.normalization"
# Where tf-keras keeps the v1 BatchNormalization that `_NORMALIZATION` names
# under its old path, tf_keras.legacy_tf_layers.normalization.
_TF_KERAS_NORMALIZATION = "tf_keras.src.legacy_tf_layers.normalization"
_CLASSES = ("BatchNormalization", "BatchNorm")
_FUNCTIONS = ("batch_normalization", "batch_norm")


def restore_tensor_alias() -> list[str]:
    """Puts `Tensor` back on `framework.ops` where missing.

    Why: tf_slim 1.1 tests `isinstance(x, ops.Tensor)` (`layers/utils.py`'s
    `constant_value`, which `slim.batch_norm` calls on `is_training` when it
    fuses; `learning.py`; `layers/optimizers.py`), and TensorFlow 2.21 keeps
    the class only as `framework.tensor.Tensor`, so those raise
    AttributeError. Public alternative: `tf.Tensor`, the same class, for
    one's own code; none for a library that reads the internal module. An
    existing attribute is never replaced.

    Returns:
      The names set now (empty when it was present).
    """
    module = private(_OPS)
    if hasattr(module, "Tensor"):
        return []
    module.Tensor = tf.Tensor
    return ["Tensor"]


def restore_variable_alias() -> list[str]:
    """Puts `variable` back on `variable_scope` where missing.

    Why: tf_slim 1.1's `local_variable` and `global_variable` call
    `variable_scope.variable`, which TF 1.x defined as
    `variables.VariableV1` and TF 2.x dropped, so both raise AttributeError.
    Public alternative: `tf.compat.v1.Variable`, that class, for one's own
    code (`tf.compat.v1.Variable(value, trainable=False, collections=[
    tf.compat.v1.GraphKeys.LOCAL_VARIABLES])` is `local_variable(value)`);
    none for a library that reads the internal module. An existing attribute
    is never replaced.

    Returns:
      The names set now (empty when it was present).
    """
    module = private(_VARIABLE_SCOPE)
    if hasattr(module, "variable"):
        return []
    module.variable = tf.compat.v1.Variable
    return ["variable"]


def _loads(module) -> bool:
    try:
        getattr(module, _CLASSES[0])
    except (ImportError, AttributeError):
        return False
    return True


def _missing_tf_keras(error: ImportError):
    def refuse(*args, **kwargs):
        raise ImportError(
            "slim.batch_norm (and tf.compat.v1.layers.batch_normalization) "
            f"needs tf-keras on TensorFlow {tf.__version__}: its v1 "
            "BatchNormalization layer is tf-keras's. Install it with "
            f"`pip install tf-keras` ({error})."
        ) from error

    return refuse


def restore_legacy_batch_norm() -> list[str]:
    """Gives `tensorflow.python.layers.normalization` a BatchNormalization that loads.

    Why: tf_slim 1.1's `batch_norm` builds
    `tensorflow.python.layers.normalization.BatchNormalization`, which that
    module imports lazily from `tf_keras.legacy_tf_layers.normalization`; the
    tf-keras of TensorFlow 2.21 keeps it at `tf_keras.src.legacy_tf_layers.
    normalization`, so `slim.batch_norm` (and every `normalizer_fn=
    slim.batch_norm`) raises ModuleNotFoundError. The class is set from
    there; without tf-keras, calling it raises an ImportError naming the
    install. Public alternative: `tf.compat.v1.layers.BatchNormalization`
    with tf-keras and `TF_USE_LEGACY_KERAS=1` for one's own code; none for a
    library that imports the internal module. A module whose lazy import
    works is left alone.

    Returns:
      The names set now (empty when the module already loads them).
    """
    module = private(_NORMALIZATION)
    if _loads(module):
        return []
    try:
        source = importlib.import_module(_TF_KERAS_NORMALIZATION)
        found = {name: getattr(source, name) for name in _CLASSES + _FUNCTIONS}
    except (ImportError, AttributeError) as error:
        refuse = _missing_tf_keras(ImportError(str(error)))
        found = {name: refuse for name in _CLASSES + _FUNCTIONS}
    for name, value in found.items():
        setattr(module, name, value)
    return list(found)
