"""`EstimatorSpec` and `ModeKeys` for `emg.estimator`; defined in `model_fn`.

The spec types live in `estimator_multigpu._model_fn`, below both `towers`
and `estimator`; this module keeps the names importable from here.
"""

from estimator_multigpu._model_fn import (
    HAS_TF_ESTIMATOR,
    EstimatorSpec,
    ModeKeys,
    is_metric_object,
)

__all__ = [
    "HAS_TF_ESTIMATOR",
    "EstimatorSpec",
    "LearnModeKeys",
    "ModeKeys",
    "is_metric_object",
]


class LearnModeKeys(ModeKeys):
    """`tf.contrib.learn.ModeKeys`: TRAIN, EVAL and INFER.

    contrib.learn named the prediction mode INFER; its value, "infer", is
    `ModeKeys.PREDICT`'s, so a mode compared with either key matches.
    """

    INFER = ModeKeys.PREDICT
