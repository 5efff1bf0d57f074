"""estimator_multigpu: TF1-era Estimator and multi-GPU code on tf.data and modern TF."""

from estimator_multigpu import devices, estimator, inputs, per_device
from estimator_multigpu.per_device import PerDevice
from estimator_multigpu.towers import TowerOptimizer, replicate_model_fn

__all__ = [
    "TowerOptimizer",
    "replicate_model_fn",
    "PerDevice",
    "devices",
    "estimator",
    "inputs",
    "per_device",
]
