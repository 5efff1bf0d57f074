"""`emg.tf_slim()`: the tf_slim module, with what its data modules need on today's TF.

tf_slim 1.1's `tfexample_decoder` (and so `dataset_data_provider`) reads
`case` and `cond` from TensorFlow's internal `control_flow_ops`, which no
longer has them, its `batch_norm` reads `ops.Tensor` and a
BatchNormalization layer from paths TensorFlow 2.21 moved, and its
`local_variable` calls `variable_scope.variable`, which TF 2.x dropped; `tf_slim()` puts
them back (only where missing) before handing out the module, so code
written for `tf.contrib.slim` runs as is::

    import estimator_multigpu as emg

    slim = emg.tf_slim()
"""

from __future__ import annotations

import importlib
import types

from estimator_multigpu import _tf_internals

INSTALL = "pip install estimator-multigpu[slim]"


def _import_tf_slim() -> types.ModuleType:
    """`import tf_slim`, with an error naming the install command when it is missing."""
    try:
        return importlib.import_module("tf_slim")
    except ImportError as error:
        raise ImportError(
            f"emg.tf_slim() needs the tf_slim package, which is not installed "
            f"({error}); install it with `{INSTALL}`."
        ) from error


def tf_slim() -> types.ModuleType:
    """The `tf_slim` module, after restoring the TensorFlow names it reads.

    Restores `control_flow_ops.case` / `control_flow_ops.cond` (see
    `estimator_multigpu._tf_internals.restore_control_flow_aliases`), so
    `slim.tfexample_decoder` and `slim.dataset_data_provider` decode records,
    and `ops.Tensor` and the v1 BatchNormalization layer (see
    `restore_tensor_alias`, `restore_legacy_batch_norm`), so `slim.batch_norm`
    builds, alone or as `normalizer_fn` (the layer needs tf-keras on TF 2.16+),
    and `variable_scope.variable` (`restore_variable_alias`), so
    `slim.local_variable` creates a local variable.

    Raises:
      ImportError: tf_slim is not installed (names the install command).
    """
    module = _import_tf_slim()
    _tf_internals.restore_control_flow_aliases()
    _tf_internals.restore_tensor_alias()
    _tf_internals.restore_variable_alias()
    _tf_internals.restore_legacy_batch_norm()
    return module
