"""Where tower ops and shared variables go."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf

from estimator_multigpu import devices as devices_lib

# Ops that create state: the ones `variable_device` places.
VARIABLE_OPS = frozenset(
    {
        "Variable",
        "VariableV2",
        "AutoReloadVariable",
        "VarHandleOp",
        "MutableHashTable",
        "MutableHashTableV2",
        "MutableHashTableOfTensors",
        "MutableHashTableOfTensorsV2",
        "MutableDenseHashTable",
        "MutableDenseHashTableV2",
    }
)
_CHOICES = ("auto", "cpu", "gpu")


def check_variable_device(variable_device: str) -> str:
    """Validates `variable_device`: `'auto'`, `'cpu'`, `'gpu'` or a device name."""
    if not isinstance(variable_device, str):
        raise TypeError(
            f"`variable_device` must be 'auto', 'cpu', 'gpu' or a device name "
            f"such as '/cpu:0'; received {variable_device!r}."
        )
    if variable_device.lower() in _CHOICES:
        return variable_device.lower()
    try:
        return devices_lib.canonical(variable_device)
    except ValueError as error:
        raise ValueError(
            f"`variable_device` must be 'auto', 'cpu', 'gpu' or a device name "
            f"such as '/cpu:0'; received {variable_device!r}."
        ) from error


def _is_gpu(device: str) -> bool:
    return "gpu:" in device.lower()


def host(device: str) -> str:
    """The CPU of the machine (job/task) that holds `device`."""
    prefix = device[: device.rfind("/")] if device.startswith("/job:") else ""
    return f"{prefix}/cpu:0"


def _size_of(op: tf.Operation) -> int:
    try:
        shape = tf.TensorShape(op.get_attr("shape"))
        dtype = tf.as_dtype(op.get_attr("dtype"))
    except (ValueError, TypeError):
        return 1
    elements = shape.num_elements() if shape.is_fully_defined() else 1
    return max(1, elements * dtype.size)


class _Greedy:
    """Puts each new variable on the device with the fewest bytes so far."""

    def __init__(self, devices: Sequence[str]):
        self._devices = list(devices)
        self._bytes = np.zeros(len(devices), dtype=np.int64)

    def __call__(self, op: tf.Operation) -> str:
        index = int(np.argmin(self._bytes))
        self._bytes[index] += _size_of(op)
        return self._devices[index]


def variable_placer(variable_device: str, devices: Sequence[str]) -> Callable:
    """Returns `fn(op) -> device` for the ops in `VARIABLE_OPS`.

    Args:
      variable_device: a value accepted by `check_variable_device`. `'auto'`
        is the host CPU for several GPUs, else the first compute device;
        `'gpu'` spreads variables over `devices` by size.
      devices: the compute devices of the towers.
    """
    if variable_device == "gpu":
        return _Greedy(devices)
    if variable_device == "cpu":
        device = host(devices[0])
    elif variable_device == "auto":
        several_gpus = len(devices) > 1 and _is_gpu(devices[0])
        device = host(devices[0]) if several_gpus else devices[0]
    else:
        device = variable_device
    return lambda op: device


def tower_device_fn(tower_device: str, placer: Callable) -> Callable:
    """A device function: variables by `placer`, other ops on `tower_device`.

    Device scopes the model_fn opens inside the tower win over both.
    """
    tower_spec = tf.DeviceSpec.from_string(tower_device)

    def device_fn(op) -> str:
        current = tf.DeviceSpec.from_string(op.device or "")
        if op.type in VARIABLE_OPS:
            base = tf.DeviceSpec.from_string(placer(op))
        else:
            base = tower_spec
        return base.make_merged_spec(current).to_string()

    return device_fn
