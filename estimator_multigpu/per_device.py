"""The per-device value type that inputs produce and towers consume."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import devices as devices_lib


class PerDevice:
    """One value per device, each already on its device, with example counts.

    `values[i]` is the shard for `devices[i]` (a tensor or a nest of tensors
    whose leading dimension is that shard's batch), `counts[i]` a scalar int32
    tensor: the number of examples in that shard this step (0 at the end of
    the input for some devices). `PerDevice` is deliberately not a list or
    tuple: the Estimator reads a top-level list or tuple as
    `(features, labels)`. It implements tf.nest's custom-structure protocol,
    so `tf.nest.flatten` and `tf.nest.map_structure` traverse its values.
    """

    __slots__ = ("_values", "_devices", "_counts")

    def __init__(
        self,
        values: Sequence[Any],
        devices: Sequence[str],
        counts: Sequence[tf.Tensor] | None = None,
    ):
        """Builds a `PerDevice`.

        Args:
          values: one value per device.
          devices: device names, as many as `values`.
          counts: scalar example counts, one per device; by default the
            leading dimension of each value's first tensor.

        Raises:
          ValueError: if the lengths disagree or there are no values.
        """
        values, devices = tuple(values), tuple(devices)
        if not values or len(values) != len(devices):
            raise ValueError(
                f"PerDevice needs one value per device and at least one device; "
                f"received {len(values)} value(s) for devices {list(devices)}."
            )
        if counts is None:
            counts = tuple(_leading_dim(v) for v in values)
        counts = tuple(counts)
        if len(counts) != len(values):
            raise ValueError(
                f"PerDevice needs one count per device; received {len(counts)} "
                f"count(s) for {len(values)} value(s)."
            )
        self._values, self._devices, self._counts = values, devices, counts

    @property
    def values(self) -> tuple[Any, ...]:
        return self._values

    @property
    def devices(self) -> tuple[str, ...]:
        return self._devices

    @property
    def counts(self) -> tuple[tf.Tensor, ...]:
        return self._counts

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index: int) -> Any:
        return self._values[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def map(self, fn: Callable[[Any], Any]) -> PerDevice:
        """Applies `fn` to each shard, on its device; counts are kept."""
        mapped = []
        for value, device in zip(self._values, self._devices):
            with tf.device(device):
                mapped.append(fn(value))
        return PerDevice(mapped, self._devices, self._counts)

    def __tf_flatten__(self):
        return (self._devices, len(self._values)), self._values + self._counts

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        devices, n = metadata
        components = tuple(components)
        return cls(components[:n], devices, components[n:])

    def __repr__(self) -> str:
        shards = ", ".join(f"{d}: {v!r}" for d, v in zip(self._devices, self._values))
        return f"PerDevice({shards})"


def _leading_dim(value: Any) -> tf.Tensor:
    first = tf.nest.flatten(value)[0]
    return tf.shape(first, out_type=tf.int32)[0]


def is_per_device(value: Any) -> bool:
    """Whether `value` is a `PerDevice`."""
    return isinstance(value, PerDevice)


def check_devices(per_device: PerDevice, devices: Sequence[str], argument: str) -> None:
    """Checks that `per_device` was built for exactly `devices`, in order.

    Args:
      per_device: the value to check (e.g. the features an emg.inputs
        builder returned).
      devices: the devices the consumer runs on.
      argument: the argument's name, for the error message.

    Raises:
      ValueError: if the devices differ in number, names or order.
    """
    theirs = list(per_device.devices)
    if len(theirs) != len(devices) or not all(
        devices_lib.same_device(a, b) for a, b in zip(theirs, devices)
    ):
        raise ValueError(
            f"`{argument}` holds shards for devices {theirs}, but the model runs "
            f"on {list(devices)}; build the input_fn and the model_fn for the same "
            "devices (pass the same `devices=` to both)."
        )


# Initializers of the iterators that produce PerDevice values. They are also
# added to TABLE_INITIALIZERS, which the default Scaffold's local_init_op runs
# in every new session; `merge_into_scaffold` adds them to a user's own
# local_init_op.
INPUT_INITIALIZERS = "estimator_multigpu_input_initializers"


def register_initializer(op: tf.Operation) -> None:
    """Makes `op` run in every session's local initialisation."""
    tf.compat.v1.add_to_collection(INPUT_INITIALIZERS, op)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.TABLE_INITIALIZERS, op)


def merge_into_scaffold(scaffold):
    """Returns `scaffold` with the input initializers in its `local_init_op`.

    A scaffold without its own `local_init_op` picks the initializers up from
    TABLE_INITIALIZERS and is returned as is (also when it is None).

    Args:
      scaffold: a `tf.compat.v1.train.Scaffold` or None.
    """
    inits = tf.compat.v1.get_collection(INPUT_INITIALIZERS)
    if scaffold is None or scaffold.local_init_op is None or not inits:
        return scaffold
    local_init = tf.group(scaffold.local_init_op, *inits)
    return tf.compat.v1.train.Scaffold(
        copy_from_scaffold=scaffold, local_init_op=local_init
    )
