"""Estimator-compatible runner that works with or without tf.estimator."""

from estimator_multigpu.estimator.spec import HAS_TF_ESTIMATOR, EstimatorSpec, ModeKeys

__all__ = ["HAS_TF_ESTIMATOR", "EstimatorSpec", "ModeKeys"]
