"""`tf.compat.v1.estimator.tpu` (tf.contrib.tpu) with use_tpu=False, on N devices."""

from estimator_multigpu.estimator.tpu._compat import (
    CrossShardOptimizer,
    bfloat16_scope,
)
from estimator_multigpu.estimator.tpu._config import (
    InputPipelineConfig,
    RunConfig,
    TPUConfig,
)
from estimator_multigpu.estimator.tpu._estimator import TPUEstimator
from estimator_multigpu.estimator.tpu._hooks import ExamplesPerSecondHook
from estimator_multigpu.estimator.tpu._spec import TPUEstimatorSpec

__all__ = [
    "CrossShardOptimizer",
    "ExamplesPerSecondHook",
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
    "bfloat16_scope",
]
