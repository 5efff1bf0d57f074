"""estimator_multigpu: TF1-era Estimator and multi-GPU code on tf.data and modern TF."""

from estimator_multigpu import devices, estimator, inputs, per_device
from estimator_multigpu.per_device import PerDevice

__all__ = ["PerDevice", "devices", "estimator", "inputs", "per_device"]
