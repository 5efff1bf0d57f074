"""tf.estimator's classes (TF <= 2.15) and SavedModel export internals."""

from __future__ import annotations

import types

from estimator_multigpu._tf_internals._access import private


def estimator_spec_classes() -> tuple[type, type]:
    """tf.estimator's `(ModeKeys, EstimatorSpec)`.

    Why: on TF 2.15 the spec types re-export tf.estimator's own classes, so
    its Estimator accepts our specs; `tensorflow_estimator` is a separate
    package whose modules are not public. Public alternative:
    `tf.estimator.ModeKeys`/`EstimatorSpec` (TF <= 2.15 only, and importing
    `tf.estimator` loads the whole Estimator).

    Raises:
      ImportError: where `tensorflow_estimator` is not installed (TF 2.16+
        removed tf.estimator), naming this TensorFlow's version.
    """
    keys = private("tensorflow_estimator.python.estimator.mode_keys", "ModeKeys")
    spec = private("tensorflow_estimator.python.estimator.model_fn", "EstimatorSpec")
    return keys, spec


def export_output() -> types.ModuleType:
    """`tensorflow.python.saved_model.model_utils.export_output`.

    Why: the `ExportOutput` classes `tf.estimator.export` re-exported; TF
    2.16+ has no public name for them. Public alternative: none.
    """
    return private("tensorflow.python.saved_model.model_utils.export_output")


def export_utils() -> types.ModuleType:
    """`tensorflow.python.saved_model.model_utils.export_utils`.

    Why: the signature building, export-dir naming and default names of
    tf.estimator's SavedModel export. Public alternative: none.
    """
    return private("tensorflow.python.saved_model.model_utils.export_utils")
