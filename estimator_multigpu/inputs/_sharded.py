"""`sharded_input_fn`: one pipeline per device, each feeding its device."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import tensorflow as tf

from estimator_multigpu import _sharding, per_device
from estimator_multigpu.inputs import _contract, _step
from estimator_multigpu.inputs._context import InputContext


@dataclasses.dataclass(frozen=True, kw_only=True)
class _ShardOptions:
    """How each device's pipeline shards, shuffles and repeats."""

    shuffle_buffer_size: int | None
    num_epochs: int | None
    user_shards: bool


def _shard_dataset(dataset, ctx: InputContext, options: _ShardOptions, offset: int):
    """Shards (by blocks), then shuffles, repeats and batches one device's examples.

    `sharding.shard_then_shuffle` keeps the shards disjoint. Shards batch
    without dropping: a short global batch is dropped by the step
    (`step.per_device_step`), so `remainder='drop'` means the same in both
    builders.
    """
    plan = _sharding.Shard(
        num_shards=ctx.num_shards,
        shard_index=ctx.shard_index,
        per_device_batch_size=ctx.per_device_batch_size,
        seed=ctx.seed,
    )
    dataset = _sharding.shard_then_shuffle(
        dataset,
        plan,
        shuffle_buffer_size=options.shuffle_buffer_size,
        num_epochs=options.num_epochs,
        sharder=None if options.user_shards else _block_sharder(ctx, offset),
    )
    return dataset.batch(ctx.per_device_batch_size)


def _block_sharder(ctx: InputContext, offset: int):
    """`sharding.shard_by_blocks`: keeps predictions in input order."""
    return lambda dataset, plan: _sharding.shard_by_blocks(
        dataset, plan, ctx.global_batch_size, offset
    )


def _device_iterator(dataset, device: str, prefetch_to_device: bool):
    """An initializable iterator on `device`; the pipeline ends in a prefetch."""
    if prefetch_to_device:
        dataset = dataset.apply(tf.data.experimental.prefetch_to_device(device))
    else:  # Still overlap the host pipeline with the step.
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
    with tf.device(device):
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
    per_device.register_initializer(iterator.initializer)
    return iterator


def sharded_input_fn(
    dataset_fn: Callable[[InputContext], tf.data.Dataset],
    devices: Sequence[str] | None = None,
    *,
    global_batch_size: int,
    remainder: str = "uneven",
    shuffle_buffer_size: int | None = None,
    seed: int | None = None,
    num_epochs: int | None = 1,
    drop_remainder: bool | None = None,
    prefetch_to_device: bool = True,
    user_shards: bool = False,
    user_batches: bool = False,
):
    """Builds an input_fn with one input pipeline per device.

    For each device d, `dataset_fn(ctx)` is called with `ctx.num_shards`
    (the device count), `ctx.shard_index` (d), `ctx.device`,
    `ctx.per_device_batch_size` and `ctx.seed` (derived for shard d from
    `seed`). By default it returns unbatched, unshuffled examples (`(features,
    labels)` pairs or features) and the builder takes shard d of them,
    shuffles with the shard's seed, repeats `num_epochs` times, batches, and
    prefetches onto the device (`prefetch_to_device` is the last
    transformation). Shard d is device d's slice of each block of
    `global_batch_size` consecutive examples, so without shuffling a step's
    shards, concatenated in device order, are the next global batch in input
    order: predictions come back in input order. Sharding before shuffling is
    what keeps every example in exactly one shard.

    `user_shards=True` leaves sharding to `dataset_fn` (e.g. by file, with
    `Dataset.shard(ctx.num_shards, ctx.shard_index)` on the file list);
    `user_batches=True` leaves sharding, shuffling, repeating and batching to
    it, for pipelines that must batch before parsing: it must then return
    batches of at most `ctx.per_device_batch_size` examples of shard
    `ctx.shard_index` only, shuffled with `ctx.seed`. Neither can promise
    input order, so PREDICT refuses them.

    Shards may hold different numbers of batches; a device whose shard has
    ended gets zero-example shards while others still have data, and the step
    after the last example raises `OutOfRangeError`. With `remainder='drop'`
    the first step with fewer than `global_batch_size` examples in all (the
    short global batch) raises it instead, as in `multi_device_input_fn`,
    and every step has each device's full, static batch size.

    Args:
      dataset_fn: `dataset_fn(ctx) -> tf.data.Dataset`, called once per device.
      devices: devices to feed; default `emg.devices.resolve()`.
      global_batch_size: examples per step over all devices.
      remainder: when `global_batch_size` does not divide by the device
        count: `'uneven'` (default) per-device batches, `'error'` to refuse
        it; `'drop'` (which needs one that divides) drops the short final
        global batch (see above). The vocabulary of
        `estimator_multigpu._sharding`, shared with `replicate_model_fn`.
      shuffle_buffer_size: examples in each shard's shuffle buffer; None: no
        shuffle.
      seed: one seed for all shards; the same seed gives the same order.
      num_epochs: passes over the data; None repeats forever.
      drop_remainder: deprecated: `True` is `remainder='drop'` (and keeps
        `remainder`'s per-device split); warns.
      prefetch_to_device: copy each shard's batches to its device ahead of
        the step.
      user_shards: `dataset_fn` shards the data itself.
      user_batches: `dataset_fn` shards, shuffles, repeats and batches itself.

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
    drop_final = _contract.drops_final_batch(remainder, drop_remainder)
    if user_batches and (shuffle_buffer_size or num_epochs != 1 or drop_final):
        raise ValueError(
            "With user_batches=True, `dataset_fn` shuffles, repeats and batches "
            f"itself; received shuffle_buffer_size={shuffle_buffer_size!r}, "
            f"num_epochs={num_epochs!r}, remainder={remainder!r}, "
            f"drop_remainder={drop_remainder!r}. Leave shuffle_buffer_size, "
            "num_epochs and drop_remainder at their defaults (None, 1, unset), "
            "pass remainder='uneven' or 'error', and use ctx.seed and "
            "ctx.per_device_batch_size in dataset_fn."
        )
    options = _ShardOptions(
        shuffle_buffer_size=shuffle_buffer_size,
        num_epochs=num_epochs,
        user_shards=user_shards,
    )
    full_sizes = sizes if drop_final else None

    def build(params, mode):
        _check_predict_order(mode, user_shards, user_batches)
        optionals, element_spec = [], None
        for index, device in enumerate(devices):
            ctx = InputContext(
                num_shards=len(devices),
                shard_index=index,
                device=device,
                per_device_batch_size=sizes[index],
                global_batch_size=global_batch_size,
                num_devices=len(devices),
                seed=_sharding.derive_seed(seed, index),
                mode=mode,
                params=params,
            )
            with tf.device("/cpu:0"):
                dataset = _contract.call_dataset_fn(dataset_fn, ctx)
                if not user_batches:
                    _step.check_element_spec(dataset.element_spec)
                    _contract.check_unbatched(dataset, "sharded_input_fn", _BATCHED_FIX)
                    dataset = _shard_dataset(dataset, ctx, options, sum(sizes[:index]))
                _step.check_element_spec(dataset.element_spec)
                element_spec = _common_spec(element_spec, dataset.element_spec)
                iterator = _device_iterator(dataset, device, prefetch_to_device)
            with tf.device(device):
                optionals.append(iterator.get_next_as_optional())
        return _step.per_device_step(optionals, devices, element_spec, full_sizes)

    return _contract.make_input_fn(build, "sharded_input_fn")


_BATCHED_FIX = (
    "or pass user_batches=True if dataset_fn must batch (e.g. to parse whole "
    "batches): it then returns batches of ctx.per_device_batch_size examples of "
    "shard ctx.shard_index."
)
_PREDICT = "infer"  # ModeKeys.PREDICT; inputs sit below the estimator package.


def _check_predict_order(mode, user_shards: bool, user_batches: bool) -> None:
    """PREDICT needs shards whose concatenation is the input order."""
    if mode != _PREDICT or not (user_shards or user_batches):
        return
    flag = "user_batches" if user_batches else "user_shards"
    raise ValueError(
        f"sharded_input_fn(..., {flag}=True) cannot keep predictions in input "
        "order: dataset_fn decides which examples each device gets. For "
        "predict, use sharded_input_fn without user_shards/user_batches or "
        "emg.inputs.multi_device_input_fn, which both return predictions in "
        "input order."
    )


def _common_spec(known, spec):
    """The spec all shards share (batch dims may differ between shards)."""
    if known is None:
        return spec
    try:
        tf.nest.assert_same_structure(known, spec)
        return tf.nest.map_structure(
            lambda a, b: tf.TensorSpec(
                a.shape.most_specific_compatible_shape(b.shape), a.dtype
            ),
            known,
            spec,
        )
    except (TypeError, ValueError) as error:
        raise TypeError(
            "`dataset_fn` returned datasets of different structures for "
            f"different shards: {known} vs {spec}. Every shard must yield the "
            "same structure and dtypes."
        ) from error
