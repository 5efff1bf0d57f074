"""Global vs per-device batch sizes, validated once."""

from __future__ import annotations

REMAINDERS = ("error", "uneven")


def per_device_batch_sizes(
    global_batch_size: int, num_devices: int, remainder: str
) -> list[int]:
    """Splits a global batch over devices.

    Args:
      global_batch_size: examples per step over all devices.
      num_devices: how many devices share the batch.
      remainder: `'error'` requires an even split; `'uneven'` gives the first
        `global_batch_size % num_devices` devices one example more.

    Returns:
      `sizes[d]`, the examples device d receives per full step.

    Raises:
      TypeError: if `global_batch_size` is not an int.
      ValueError: for a non-positive batch, a batch smaller than the device
        count, an uneven split with `remainder='error'`, or a bad `remainder`.
    """
    if isinstance(global_batch_size, bool) or not isinstance(global_batch_size, int):
        raise TypeError(
            f"`global_batch_size` must be an int; received {global_batch_size!r}."
        )
    if global_batch_size < 1:
        raise ValueError(
            f"`global_batch_size` must be >= 1; received {global_batch_size}."
        )
    if remainder not in REMAINDERS:
        raise ValueError(
            f"`remainder` must be one of {REMAINDERS}; received {remainder!r}."
        )
    if global_batch_size < num_devices:
        raise ValueError(
            f"`global_batch_size` ({global_batch_size}) is smaller than the number "
            f"of devices ({num_devices}); every device needs at least one example "
            "per step. Use a larger batch or fewer devices."
        )
    base, extra = divmod(global_batch_size, num_devices)
    if extra and remainder == "error":
        raise ValueError(
            f"`global_batch_size` ({global_batch_size}) must be divisible by the "
            f"number of devices ({num_devices}), or pass remainder='uneven'."
        )
    return [base + (1 if d < extra else 0) for d in range(num_devices)]
