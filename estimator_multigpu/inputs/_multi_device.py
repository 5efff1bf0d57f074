"""`multi_device_input_fn`: one host pipeline dealt to devices."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence

import tensorflow as tf

from estimator_multigpu import (
    _sharding,
    _tf_internals,
    per_device,
)
from estimator_multigpu.inputs import _contract, _step
from estimator_multigpu.inputs._context import InputContext


@dataclasses.dataclass(frozen=True, kw_only=True)
class _HostOptions:
    """How the one host pipeline shuffles, repeats and batches."""

    shuffle_buffer_size: int | None
    seed: int | None
    num_epochs: int | None
    drop_remainder: bool


def _split_global_batch(batch, num_devices: int):
    """A Dataset of `num_devices` pieces of one global batch, split evenly.

    A short final batch of m examples is split as evenly as it goes
    (`sharding.split_sizes`, 'uneven'): the first `m % num_devices` pieces
    get one example more; pieces may be empty.
    """
    size = tf.shape(tf.nest.flatten(batch)[0], out_type=tf.int64)[0]
    lengths = tf.stack(_sharding.split_sizes(size, num_devices, "uneven"))
    starts = tf.cumsum(lengths, exclusive=True)

    def piece(index):
        start, length = starts[index], lengths[index]
        return tf.nest.map_structure(lambda t: t[start : start + length], batch)

    return tf.data.Dataset.range(num_devices).map(piece)


def _host_dataset(dataset, global_batch_size, num_devices, options: _HostOptions):
    dataset = _sharding.shuffle_and_repeat(
        dataset,
        shuffle_buffer_size=options.shuffle_buffer_size,
        seed=options.seed,
        num_epochs=options.num_epochs,
    )
    dataset = dataset.batch(global_batch_size, drop_remainder=options.drop_remainder)
    if num_devices == 1:
        return dataset
    split = lambda *batch: _split_global_batch(  # noqa: E731
        batch if len(batch) > 1 else batch[0], num_devices
    )
    return dataset.flat_map(split)


def multi_device_input_fn(
    dataset_fn: Callable[[InputContext], tf.data.Dataset],
    devices: Sequence[str] | None = None,
    *,
    global_batch_size: int,
    remainder: str = "uneven",
    shuffle_buffer_size: int | None = None,
    seed: int | None = None,
    num_epochs: int | None = 1,
    drop_remainder: bool | None = None,
    prefetch_buffer_size: int = 1,
    max_buffer_size: int = 1,
):
    """Builds an input_fn: one pipeline on the host, dealt to the devices.

    `dataset_fn(ctx)` returns unbatched, unshuffled examples (`(features,
    labels)` pairs or features). The builder shuffles them (when
    `shuffle_buffer_size` is set), repeats them `num_epochs` times, batches
    `global_batch_size` examples and splits each global batch into one piece
    per device; a `MultiDeviceIterator` copies piece d to device d, keeping
    `prefetch_buffer_size` pieces ready there. A short final batch is split
    as evenly as it goes; devices left without examples get zero-example
    shards, and the step after the last example raises `OutOfRangeError`.

    Args:
      dataset_fn: `dataset_fn(ctx) -> tf.data.Dataset`; `ctx.num_shards == 1`.
      devices: devices to feed; default `emg.devices.resolve()`.
      global_batch_size: examples per step over all devices.
      remainder: when `global_batch_size` does not divide by the device
        count: `'uneven'` (default) per-device batches, `'error'` to refuse
        it; `'drop'` (which needs one that divides) drops a short final
        global batch. The vocabulary of `estimator_multigpu._sharding`,
        shared with `replicate_model_fn`.
      shuffle_buffer_size: examples in the shuffle buffer; None: no shuffle.
      seed: shuffle seed; the same seed gives the same order.
      num_epochs: passes over the data; None repeats forever.
      drop_remainder: deprecated: `True` is `remainder='drop'` (and keeps
        `remainder`'s per-device split); warns.
      prefetch_buffer_size: batches buffered on each device.
      max_buffer_size: batches buffered per device on the host.

    Returns:
      `input_fn(params=None, config=None, mode=None, input_context=None)`
      returning `(features, labels)` as `emg.PerDevice` values.

    Raises:
      TypeError, ValueError: for bad arguments, before any graph is built.
    """
    devices, sizes = _contract.check_common(
        dataset_fn,
        devices,
        global_batch_size,
        remainder,
        shuffle_buffer_size,
        num_epochs,
    )
    _contract.check_int("prefetch_buffer_size", prefetch_buffer_size, 0)
    _contract.check_int("max_buffer_size", max_buffer_size, 1)
    options = _HostOptions(
        shuffle_buffer_size=shuffle_buffer_size,
        seed=seed,
        num_epochs=num_epochs,
        drop_remainder=_contract.drops_final_batch(remainder, drop_remainder),
    )

    def build(params, mode):
        ctx = InputContext(
            num_shards=1,
            shard_index=0,
            device="/cpu:0",
            per_device_batch_size=max(sizes),
            global_batch_size=global_batch_size,
            num_devices=len(devices),
            seed=seed,
            mode=mode,
            params=params,
        )
        with tf.device("/cpu:0"):
            dataset = _contract.call_dataset_fn(dataset_fn, ctx)
            _step.check_element_spec(dataset.element_spec)
            _contract.check_unbatched(
                dataset,
                "multi_device_input_fn",
                "or, for a pipeline that must batch (e.g. to parse whole batches), "
                "use emg.inputs.sharded_input_fn(..., user_batches=True).",
            )
            dataset = _host_dataset(dataset, global_batch_size, len(devices), options)
            with warnings.catch_warnings():  # It reads options in graph mode.
                warnings.simplefilter("ignore", UserWarning)
                iterator = _tf_internals.multi_device_iterator()(
                    dataset, devices, max_buffer_size, prefetch_buffer_size, "/cpu:0"
                )
        per_device.register_initializer(iterator.initializer)
        optionals = iterator.get_next_as_optional()
        return _step.per_device_step(optionals, devices, dataset.element_spec)

    return _contract.make_input_fn(build, "multi_device_input_fn")
