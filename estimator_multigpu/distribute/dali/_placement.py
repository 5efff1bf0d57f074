"""DALI `device_id`s for TF devices, logical GPUs included."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf


def cuda_ordinal(
    logical_index: int, logical_per_physical: Sequence[tuple[int, int]]
) -> int:
    """The CUDA ordinal of logical GPU `logical_index`.

    Args:
      logical_index: N of `/gpu:N`.
      logical_per_physical: `(cuda_ordinal, number_of_logical_gpus)` of each
        visible physical GPU, in TF's order.
    """
    first = 0
    for ordinal, count in logical_per_physical:
        if logical_index < first + count:
            return ordinal
        first += count
    raise ValueError(
        f"There is no /gpu:{logical_index}: this process has {first} logical GPU(s)."
    )


def dali_device_id(device: str) -> int | None:
    """The DALI `device_id` for a TF device: None on a CPU, the CUDA ordinal on a GPU."""
    spec = tf.DeviceSpec.from_string(device)
    if (spec.device_type or "CPU").upper() != "GPU":
        return None
    layout = []
    for physical in tf.config.get_visible_devices("GPU"):
        logical = tf.config.get_logical_device_configuration(physical)
        layout.append((int(physical.name.rsplit(":", 1)[1]), len(logical or [None])))
    return cuda_ordinal(spec.device_index or 0, layout)
