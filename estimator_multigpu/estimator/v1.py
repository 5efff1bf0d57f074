"""tf.compat.v1.estimator's canned estimators: the v1 defaults (SUM loss, v1 optimizers).

`emg.estimator.v1.DNNClassifier` is `tf.compat.v1.estimator.DNNClassifier`
(loss summed over the batch, `tf.compat.v1.train` optimizers, partitioned
variables); `emg.estimator.DNNClassifier` is `tf.estimator.DNNClassifier`.
"""

from estimator_multigpu.estimator._canned import (
    _baseline,
    _dnn,
    _dnn_linear_combined,
    _linear,
)

BaselineClassifier = _baseline.BaselineClassifierV1
BaselineEstimator = _baseline.BaselineEstimatorV1
BaselineRegressor = _baseline.BaselineRegressorV1
DNNClassifier = _dnn.DNNClassifierV1
DNNEstimator = _dnn.DNNEstimatorV1
DNNLinearCombinedClassifier = _dnn_linear_combined.DNNLinearCombinedClassifierV1
DNNLinearCombinedEstimator = _dnn_linear_combined.DNNLinearCombinedEstimatorV1
DNNLinearCombinedRegressor = _dnn_linear_combined.DNNLinearCombinedRegressorV1
DNNRegressor = _dnn.DNNRegressorV1
LinearClassifier = _linear.LinearClassifierV1
LinearEstimator = _linear.LinearEstimatorV1
LinearRegressor = _linear.LinearRegressorV1

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
]
