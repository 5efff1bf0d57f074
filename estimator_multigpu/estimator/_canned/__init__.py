"""tf.estimator's canned estimators and heads on emg's Estimator runner."""

from estimator_multigpu.estimator._canned._baseline import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from estimator_multigpu.estimator._canned._dnn import (
    DNNClassifier,
    DNNEstimator,
    DNNRegressor,
)
from estimator_multigpu.estimator._canned._dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from estimator_multigpu.estimator._canned._heads import (
    BinaryClassHead,
    MultiClassHead,
    MultiLabelHead,
    RegressionHead,
)
from estimator_multigpu.estimator._canned._linear import (
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
)

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BinaryClassHead",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "MultiClassHead",
    "MultiLabelHead",
    "RegressionHead",
]
