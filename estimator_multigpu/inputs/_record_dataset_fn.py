"""Batched `tf.train.Example` parsing, and `record_pipeline` as a per-shard dataset_fn."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import _sharding
from estimator_multigpu.inputs import (
    _record_files,
    _record_options,
)
from estimator_multigpu.inputs._records import ParseFn, record_pipeline

_EVAL_MODES = ("eval", "infer")
# record_pipeline keywords that record_dataset_fn sets from the input context.
_FROM_CONTEXT = ("num_shards", "shard_index")


def _passed_on() -> list[str]:
    """The `record_pipeline` keywords `**options` may hold."""
    parameters = inspect.signature(record_pipeline).parameters.values()
    own = {"training", "seed", "device", *_FROM_CONTEXT}
    return [
        p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name not in own
    ]


def _check_options(options: dict) -> None:
    """Refuses, when the dataset_fn is built, options record_pipeline would refuse.

    Raises:
      TypeError: for an option `record_pipeline` does not take (with the
        nearest name) or one set from the input context.
    """
    _record_options.check_moved(options)
    allowed = _passed_on()
    for name in options:
        if name in _FROM_CONTEXT:
            raise TypeError(
                f"record_dataset_fn sets {name!r} itself, from the input context "
                "(ctx.num_shards and ctx.shard_index, or a tf.distribute "
                "InputContext's pipelines); leave it out."
            )
        if name not in allowed and name != "device":
            near = difflib.get_close_matches(name, allowed, n=1)
            hint = f" did you mean {near[0]!r}?" if near else ""
            raise TypeError(
                f"record_dataset_fn got an unknown option {name!r};{hint} It "
                f"passes on to record_pipeline only {allowed}."
            )


def example_parser(
    features: Mapping[str, Any], label_key: str | None = None
) -> ParseFn:
    """A batched parse_fn for serialized `tf.train.Example`s.

    Args:
      features: feature spec, e.g. `{'image': tf.io.FixedLenFeature([32],
        tf.float32), 'label': tf.io.FixedLenFeature([], tf.int64)}`.
      label_key: if set, that feature is returned apart as the labels.

    Returns:
      `parse_fn(serialized)`: `serialized` a `[batch]` string tensor; returns
      the features dict (each value `[batch, *shape]`), or `(features,
      labels)` when `label_key` is set.

    Raises:
      TypeError: if `features` is not a non-empty mapping.
      ValueError: if `label_key` is not one of its keys.
    """
    if not isinstance(features, Mapping) or not features:
        raise TypeError(
            "`features` must be a non-empty dict of feature name -> "
            f"tf.io.FixedLenFeature(...) etc.; received {features!r}."
        )
    if label_key is not None and label_key not in features:
        raise ValueError(
            f"`label_key` {label_key!r} is not in `features` {sorted(features)}; "
            "add its spec to `features` or pass label_key=None."
        )
    spec = dict(features)

    def parse_fn(serialized: tf.Tensor):
        parsed = tf.io.parse_example(serialized, spec)
        if label_key is None:
            return parsed
        return parsed, parsed.pop(label_key)

    return parse_fn


def record_dataset_fn(
    files: str | Sequence[str],
    parse_fn: ParseFn,
    *,
    global_batch_size: int | None = None,
    seed: int | None = None,
    training: bool | None = None,
    **options,
) -> Callable[[Any], tf.data.Dataset]:
    """A `dataset_fn(ctx)` that builds one shard's `record_pipeline`.

    With an `emg.inputs.InputContext` (from `sharded_input_fn(...,
    user_batches=True)`) it builds shard `ctx.shard_index` of
    `ctx.num_shards`, batched by `ctx.per_device_batch_size` and seeded by
    `ctx.seed`; `training` defaults to `ctx.mode` not being eval or predict.
    With a `tf.distribute.InputContext` it builds shard `input_pipeline_id`
    of `num_input_pipelines`, batched by the equal per-replica share of
    `global_batch_size`, seeded from `seed`;
    `training` defaults to True. The caller places batches on devices, so
    `device` is not an option here.

    Args:
      files: file names or glob patterns (resolved once, now).
      parse_fn: batched parse function, e.g. `example_parser(...)`.
      global_batch_size: examples per step over all replicas (tf.distribute).
      seed: one seed for all shards (tf.distribute).
      training: training or evaluation pipeline; see above for the default.
      **options: further `record_pipeline` keyword arguments, checked now.

    Returns:
      `dataset_fn(ctx) -> tf.data.Dataset`.

    Raises:
      TypeError: for an option `record_pipeline` does not take, or one set
        from the input context (`num_shards`, `shard_index`).
      ValueError: for `device`.
    """
    _check_options(options)
    names = _record_files.resolve_files(files)
    if "device" in options:
        raise ValueError(
            "record_dataset_fn does not take `device`: sharded_input_fn and "
            "tf.distribute place the batches on devices themselves."
        )

    def dataset_fn(ctx) -> tf.data.Dataset:
        if isinstance(ctx, tf.distribute.InputContext):
            shard = _sharding.distribute_shard(
                ctx, global_batch_size, seed, "record_dataset_fn"
            )
            is_training = True if training is None else training
        else:
            shard = _sharding.Shard(
                num_shards=ctx.num_shards,
                shard_index=ctx.shard_index,
                per_device_batch_size=ctx.per_device_batch_size,
                seed=ctx.seed,
            )
            is_training = ctx.mode not in _EVAL_MODES if training is None else training
        return record_pipeline(
            names,
            parse_fn,
            shard.per_device_batch_size,
            training=is_training,
            num_shards=shard.num_shards,
            shard_index=shard.shard_index,
            seed=shard.seed,
            **options,
        )

    return dataset_fn
