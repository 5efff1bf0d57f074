"""input_fn builders that feed several devices from tf.data, and data sources."""

from estimator_multigpu.inputs import queues
from estimator_multigpu.inputs.context import InputContext
from estimator_multigpu.inputs.device_array import DeviceArray
from estimator_multigpu.inputs.device_array_dataset import (
    device_array_dataset,
    device_array_dataset_fn,
)
from estimator_multigpu.inputs.multi_device import multi_device_input_fn
from estimator_multigpu.inputs.sharded import sharded_input_fn

__all__ = [
    "DeviceArray",
    "InputContext",
    "device_array_dataset",
    "device_array_dataset_fn",
    "multi_device_input_fn",
    "queues",
    "sharded_input_fn",
]
