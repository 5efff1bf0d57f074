"""`record_pipeline`: the tuned read-shuffle-batch-parse pipeline for record files."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from estimator_multigpu import _sharding
from estimator_multigpu.inputs import (
    _record_files,
    _record_options,
    _record_stages,
)
from estimator_multigpu.inputs._contract import check_int
from estimator_multigpu.inputs._record_options import (
    CacheStage,
    RecordCache,
    RecordReading,
)

ParseFn = Callable[[tf.Tensor], Any]


def _check(
    parse_fn,
    per_device_batch_size,
    num_shards,
    shard_index,
    num_epochs,
    shuffle_buffer_size,
):
    if not callable(parse_fn):
        raise TypeError(
            "`parse_fn` must be a callable parse_fn(serialized) taking a [batch] "
            f"string tensor (e.g. emg.inputs.example_parser(...)); received {parse_fn!r}."
        )
    check_int("per_device_batch_size", per_device_batch_size, 1)
    check_int("num_shards", num_shards, 1)
    check_int("shard_index", shard_index, 0)
    if shard_index >= num_shards:
        raise ValueError(
            f"`shard_index` ({shard_index}) must be < `num_shards` ({num_shards})."
        )
    check_int("num_epochs", num_epochs, 1, allow_none=True)
    check_int("shuffle_buffer_size", shuffle_buffer_size, 0, allow_none=True)


def _check_cache(cache: RecordCache | None, shuffles: bool) -> None:
    if cache is not None and cache.stage is CacheStage.BATCHES and shuffles:
        raise ValueError(
            "cache stage 'batches' caches parsed batches, which would freeze one "
            "shuffled order (and a shuffle after repeat never ends an epoch to "
            "cache); use stage 'records' for training, or pass "
            "shuffle_buffer_size=0 / training=False."
        )


def _refuse_moved(fn):
    """Keywords of earlier releases fail with their new spelling."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _record_options.check_moved(kwargs)
        return fn(*args, **kwargs)

    return wrapper


@_refuse_moved
def record_pipeline(
    files: str | Sequence[str],
    parse_fn: ParseFn,
    per_device_batch_size: int,
    *,
    training: bool = True,
    num_shards: int = 1,
    shard_index: int = 0,
    seed: int | None = None,
    num_epochs: int | None | str = "auto",
    shuffle_buffer_size: int | None = 10_000,
    deterministic: bool | None = None,
    drop_remainder: bool | None = None,
    reading: RecordReading | None = None,
    cache: RecordCache | str | None = None,
    device: str | None = None,
) -> tf.data.Dataset:
    """Builds files -> shard -> interleave -> repeat -> shuffle -> batch -> parse.

    The order every tf.data performance guide recommends, with the reasons:

    1. Shard first, by file when there are at least `num_shards` files (each
       shard opens only its files; shards can differ by one file's records),
       else by record (every shard reads every file, deterministically, and
       keeps one record in `num_shards`). `reading.shard_by` overrides the
       choice.
       Sharding before shuffling keeps shards disjoint.
    2. Read with a parallel `interleave` of `TFRecordDataset` /
       `FixedLengthRecordDataset` over `reading.cycle_length` files (default:
       one per core, or every file when sharding by record),
       `reading.block_length` records from each in turn. For training the shard's files are reshuffled each
       epoch.
    3. `cache` (optional) keeps this shard's serialized records after the
       first epoch: `'memory'` (RAM: about the shard's size on disk,
       uncompressed) or a file path prefix (local disk; one file per shard).
       With stage `CacheStage.RECORDS` (default) it sits before repeat and
       shuffle, so later epochs are still reshuffled and parsed afresh.
       `CacheStage.BATCHES` caches the parsed batches instead (no parse
       after the first epoch; memory is the parsed size): only without a
       shuffle, e.g. evaluation, since it freezes the batches.
    4. `repeat` before `shuffle`: the buffer never drains at an epoch end, so
       there is no stall, but epoch boundaries blur (an example of epoch e+1
       may come before the last of epoch e). Use `num_epochs` with
       evaluation, which does not shuffle.
    5. `shuffle(shuffle_buffer_size)`: uniform within a window of that many
       serialized records. Bigger mixes better (at least a few files' worth
       when files are sorted by label) but costs memory (buffer x record
       size) and start-up time to fill.
    6. `batch`, then a **batched** `parse_fn` on the whole `[per_device_batch_size]`
       string tensor (`tf.io.parse_example`): one op per batch instead of one
       function call per example, the biggest single speed-up.
    7. `prefetch`, then `prefetch_to_device(device)` as the final step when a
       device is given (leave it None where the caller places batches, e.g.
       `sharded_input_fn` or tf.distribute).

    `deterministic=False` (the training default) lets interleave and parse
    return whatever is ready first: faster, and the order varies between
    runs even with a seed. Evaluation defaults to deterministic order, one
    epoch, no shuffling and no dropped remainder.

    Args:
      files: file names or glob patterns; sorted and fixed at build time.
      parse_fn: `parse_fn(serialized)` with `serialized` a `[batch]` string
        tensor, returning the batch (e.g. `example_parser(...)`).
      per_device_batch_size: records per batch (per shard/device).
      training: shuffle, repeat forever, drop the remainder and run
        non-deterministically unless overridden; False for evaluation.
      num_shards, shard_index: this pipeline's shard of the data.
      seed: one seed; each shard's file and buffer shuffles derive theirs.
      num_epochs: passes over the data; None repeats forever; "auto": None
        when training, 1 otherwise.
      shuffle_buffer_size: records in the shuffle buffer; 0 or None: no
        shuffle (ignored when not training).
      deterministic: keep element order; default `not training`.
      drop_remainder: drop a short final batch; default `training`.
      reading: how the files are read (`RecordReading`: format,
        compression, file or record sharding, parallel reads); default
        TFRecords, uncompressed, `ShardBy.AUTO`.
      cache: None, `'memory'`, a cache file path prefix, or
        `RecordCache(location, stage)`.
      device: if set, `prefetch_to_device(device)` ends the pipeline.

    Returns:
      A dataset of parsed batches.

    Raises:
      TypeError, ValueError: for bad arguments or files that do not exist.
    """
    reading = _record_options.as_reading(reading)
    cache = _record_options.as_cache(cache)
    if num_epochs == "auto":
        num_epochs = None if training else 1
    _check(
        parse_fn,
        per_device_batch_size,
        num_shards,
        shard_index,
        num_epochs,
        shuffle_buffer_size,
    )
    shuffle_buffer_size = (shuffle_buffer_size or 0) if training else 0
    _check_cache(cache, bool(shuffle_buffer_size))
    names = _record_files.resolve_files(files)
    plan = _record_stages.Plan(
        files=names,
        reader=_record_files.make_reader(
            reading.format, reading.compression_type or "", reading.buffer_size
        ),
        num_shards=num_shards,
        shard_index=shard_index,
        by_file=_record_files.shard_by_file(
            reading.shard_by.value, len(names), num_shards
        ),
        training=training,
        seed=_sharding.derive_seed(seed, shard_index),
        deterministic=(not training) if deterministic is None else deterministic,
        cycle_length=reading.cycle_length,
        block_length=reading.block_length,
        per_device_batch_size=per_device_batch_size,
        drop_remainder=training if drop_remainder is None else drop_remainder,
        num_epochs=num_epochs,
        shuffle_buffer_size=shuffle_buffer_size,
        cache=None if cache is None else cache.location,
        cache_stage=CacheStage.RECORDS.value if cache is None else cache.stage.value,
    )
    tf.get_logger().info(
        "record_pipeline: shard %d/%d of %d file(s), by %s.",
        shard_index,
        num_shards,
        len(names),
        "file" if plan.by_file else "record",
    )
    dataset = _record_stages.batches(_record_stages.read(plan), plan, parse_fn)
    if device is None:
        return dataset
    return dataset.apply(tf.data.experimental.prefetch_to_device(device))
