"""`inputs` namespace: tf.estimator.inputs' numpy_input_fn and pandas_input_fn on tf.data."""

from estimator_multigpu.estimator._numpy_io import numpy_input_fn
from estimator_multigpu.estimator._pandas_io import pandas_input_fn

__all__ = ["numpy_input_fn", "pandas_input_fn"]
