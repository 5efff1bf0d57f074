"""The stages of `record_pipeline`, driven by one resolved `Plan` per shard."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

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
    batch_size: int
    drop_remainder: bool
    num_epochs: int | None
    shuffle_buffer_size: int
    cache: str | None
    cache_stage: str


def read(plan: Plan) -> tf.data.Dataset:
    """Shard -> (file shuffle) -> parallel interleave; returns serialized records."""
    dataset = tf.data.Dataset.from_tensor_slices(plan.files)
    deterministic, cycle_length = plan.deterministic, plan.cycle_length
    if plan.by_file:
        dataset = dataset.shard(plan.num_shards, plan.shard_index)
        if plan.training:
            count = len(plan.files[plan.shard_index :: plan.num_shards])
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
    return dataset.shard(plan.num_shards, plan.shard_index)


def _cache(dataset: tf.data.Dataset, plan: Plan, stage: str) -> tf.data.Dataset:
    if plan.cache is None or plan.cache_stage != stage:
        return dataset
    if plan.cache == "memory":
        return dataset.cache()
    return dataset.cache(f"{plan.cache}.shard{plan.shard_index}")


def _repeat(dataset: tf.data.Dataset, plan: Plan) -> tf.data.Dataset:
    return dataset if plan.num_epochs == 1 else dataset.repeat(plan.num_epochs)


def batches(records: tf.data.Dataset, plan: Plan, parse_fn) -> tf.data.Dataset:
    """(Cache) -> repeat -> shuffle -> batch -> batched parse -> prefetch.

    With `cache_stage='batches'` the parsed batches are cached and the
    repeat moves after them (there is no shuffle then).
    """
    dataset = _cache(records, plan, "records")
    if plan.cache_stage != "batches":
        dataset = _repeat(dataset, plan)
    if plan.shuffle_buffer_size:
        dataset = dataset.shuffle(plan.shuffle_buffer_size, seed=plan.seed)
    dataset = dataset.batch(plan.batch_size, drop_remainder=plan.drop_remainder)
    dataset = dataset.map(
        parse_fn, num_parallel_calls=AUTOTUNE, deterministic=plan.deterministic
    )
    if plan.cache_stage == "batches":
        dataset = _repeat(_cache(dataset, plan, "batches"), plan)
    options = tf.data.Options()
    options.deterministic = plan.deterministic
    return dataset.prefetch(AUTOTUNE).with_options(options)
