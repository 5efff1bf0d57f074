"""The stages of `record_pipeline`, driven by one resolved `Plan` per shard."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _sharding

AUTOTUNE = tf.data.AUTOTUNE


@dataclasses.dataclass(frozen=True)
class Plan:
    """The resolved choices of one shard's pipeline."""

    files: list[str]
    reader: Callable[[tf.Tensor], tf.data.Dataset]
    num_shards: int
    shard_index: int
    by_file: bool
    training: bool
    seed: int | None
    deterministic: bool
    cycle_length: int | None
    block_length: int
    per_device_batch_size: int
    drop_remainder: bool
    num_epochs: int | None
    shuffle_buffer_size: int
    cache: str | None
    cache_stage: str


def _shard(plan: Plan) -> _sharding.Shard:
    return _sharding.Shard(
        num_shards=plan.num_shards,
        shard_index=plan.shard_index,
        per_device_batch_size=plan.per_device_batch_size,
        seed=plan.seed,
    )


def read(plan: Plan) -> tf.data.Dataset:
    """Shard -> (file shuffle) -> parallel interleave; returns serialized records.

    Sharding (`sharding.shard`, of the files or of the records) comes before
    any shuffle, so the shards stay disjoint.
    """
    dataset = tf.data.Dataset.from_tensor_slices(plan.files)
    deterministic, cycle_length = plan.deterministic, plan.cycle_length
    if plan.by_file:
        dataset = _sharding.shard(dataset, _shard(plan))
        if plan.training:
            count = len(_sharding.shard_list(plan.files, _shard(plan)))
            dataset = dataset.shuffle(
                count, seed=plan.seed, reshuffle_each_iteration=True
            )
    else:  # Every shard must read the same order for the shards to be disjoint.
        deterministic, cycle_length = True, cycle_length or len(plan.files)
    dataset = dataset.interleave(
        plan.reader,
        cycle_length=cycle_length or AUTOTUNE,
        block_length=plan.block_length,
        num_parallel_calls=AUTOTUNE,
        deterministic=deterministic,
    )
    if plan.by_file:
        return dataset
    return _sharding.shard(dataset, _shard(plan))


def _cache(dataset: tf.data.Dataset, plan: Plan, stage: str) -> tf.data.Dataset:
    if plan.cache is None or plan.cache_stage != stage:
        return dataset
    if plan.cache == "memory":
        return dataset.cache()
    return dataset.cache(f"{plan.cache}.shard{plan.shard_index}")


def _repeat(dataset: tf.data.Dataset, plan: Plan) -> tf.data.Dataset:
    return _sharding.shuffle_and_repeat(
        dataset, shuffle_buffer_size=None, seed=None, num_epochs=plan.num_epochs
    )


def batches(records: tf.data.Dataset, plan: Plan, parse_fn) -> tf.data.Dataset:
    """(Cache) -> repeat -> shuffle -> batch -> batched parse -> prefetch.

    With `cache_stage='batches'` the parsed batches are cached and the
    repeat moves after them (there is no shuffle then).
    """
    dataset = _cache(records, plan, "records")
    dataset = _sharding.shuffle_and_repeat(
        dataset,
        shuffle_buffer_size=plan.shuffle_buffer_size,
        seed=plan.seed,
        num_epochs=plan.num_epochs if plan.cache_stage != "batches" else 1,
        repeat_first=True,
    )
    dataset = dataset.batch(
        plan.per_device_batch_size, drop_remainder=plan.drop_remainder
    )
    dataset = dataset.map(
        parse_fn, num_parallel_calls=AUTOTUNE, deterministic=plan.deterministic
    )
    if plan.cache_stage == "batches":
        dataset = _repeat(_cache(dataset, plan, "batches"), plan)
    options = tf.data.Options()
    options.deterministic = plan.deterministic
    return dataset.prefetch(AUTOTUNE).with_options(options)
