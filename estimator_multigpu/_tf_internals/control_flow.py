"""Names older libraries read from TensorFlow's internal `control_flow_ops`."""

from __future__ import annotations

import tensorflow as tf

from estimator_multigpu._tf_internals._access import private

_MODULE = "tensorflow.python.ops.control_flow_ops"


def _moved() -> dict:
    """The names TensorFlow moved out of `control_flow_ops`, at their public homes.

    `tf.compat.v1.case` and `tf.compat.v1.cond` are the very functions
    (`control_flow_case.case`, `cond.cond`) the old names were, with the same
    signatures; `tf.case` is the v2 form, so it is not used.
    """
    return {"case": tf.compat.v1.case, "cond": tf.compat.v1.cond}


def restore_control_flow_aliases() -> list[str]:
    """Puts `case` and `cond` back on `control_flow_ops` where missing.

    Why: tf_slim 1.1's `data/tfexample_decoder.py` calls
    `control_flow_ops.case` and `control_flow_ops.cond`, which TensorFlow
    moved to `control_flow_case` and `cond` (gone from `control_flow_ops`
    by 2.21), so decoding a tf.Example raises AttributeError. Public
    alternative: `tf.compat.v1.case` / `tf.compat.v1.cond` for one's own
    code; none for a library that reads the internal module. An existing
    attribute is never replaced.

    Returns:
      The names set now (empty when all were present).
    """
    module = private(_MODULE)
    added = []
    for name, function in _moved().items():
        if not hasattr(module, name):
            setattr(module, name, function)
            added.append(name)
    return added
