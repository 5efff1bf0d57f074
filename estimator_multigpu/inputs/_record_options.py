"""The option objects of `record_pipeline`: how files are read, and the cache.

`record_pipeline` takes the choices a training run makes every time (shards,
seed, epochs, shuffle) as keywords, and the two groups one tunes once as
objects: `RecordReading` (format, compression, parallel reads, file or
record sharding) and `RecordCache` (where and at which stage). The modes are
enums; their values are the strings earlier releases took, which still work.
"""

from __future__ import annotations

import dataclasses
import enum

from estimator_multigpu.inputs._contract import check_int
from estimator_multigpu.inputs._record_files import (
    COMPRESSION_TYPES,
    FixedLengthRecords,
)


class ShardBy(str, enum.Enum):
    """How a pipeline of one shard picks its records.

    AUTO: by file when there are at least as many files as shards, else by
    record. FILE: each shard reads only its own files (fastest; shards differ
    by up to one file's records). RECORD: each shard reads every file and
    keeps one record in `num_shards` (balanced to one record).
    """

    AUTO = "auto"
    FILE = "file"
    RECORD = "record"


class CacheStage(str, enum.Enum):
    """What `RecordCache` keeps after the first epoch.

    RECORDS: the shard's serialized records, before repeat and shuffle (later
    epochs are still reshuffled and parsed afresh). BATCHES: the parsed
    batches (no parse after the first epoch), only without a shuffle, since
    it freezes the batches: evaluation.
    """

    RECORDS = "records"
    BATCHES = "batches"


def _enum(kind: type[enum.Enum], name: str, value):
    """`value` as a member of `kind`, or a ValueError listing the choices."""
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in kind)
        raise ValueError(
            f"`{name}` must be one of {choices} (or emg.inputs.{kind.__name__}); "
            f"received {value!r}."
        ) from None


@dataclasses.dataclass(frozen=True)
class RecordReading:
    """How `record_pipeline` reads the files.

    Attributes:
      format: `'tfrecord'` or `FixedLengthRecords(record_bytes, ...)`.
      compression_type: None, `'GZIP'` or `'ZLIB'`.
      shard_by: a `ShardBy` (or its value: `'auto'`, `'file'`, `'record'`).
      cycle_length: files read in parallel; None: one per core (every file
        when sharding by record).
      block_length: consecutive records taken from each file in turn.
      buffer_size: read buffer per open file, in bytes.
    """

    format: str | FixedLengthRecords = "tfrecord"
    compression_type: str | None = None
    shard_by: ShardBy | str = ShardBy.AUTO
    cycle_length: int | None = None
    block_length: int = 1
    buffer_size: int = 8 << 20

    def __post_init__(self):
        if self.format != "tfrecord" and not isinstance(
            self.format, FixedLengthRecords
        ):
            raise ValueError(
                "RecordReading `format` must be 'tfrecord' or "
                f"emg.inputs.FixedLengthRecords(...); received {self.format!r}."
            )
        if self.compression_type not in COMPRESSION_TYPES:
            raise ValueError(
                f"RecordReading `compression_type` must be one of "
                f"{COMPRESSION_TYPES}; received {self.compression_type!r}."
            )
        shard_by = _enum(ShardBy, "shard_by", self.shard_by)
        object.__setattr__(self, "shard_by", shard_by)
        check_int("cycle_length", self.cycle_length, 1, allow_none=True)
        check_int("block_length", self.block_length, 1)
        check_int("buffer_size", self.buffer_size, 1)


@dataclasses.dataclass(frozen=True)
class RecordCache:
    """Where `record_pipeline` caches the shard's data after the first epoch.

    Attributes:
      location: `'memory'` (RAM: about the shard's size on disk,
        uncompressed) or a file path prefix (local disk; one file per shard).
      stage: a `CacheStage` (or its value: `'records'`, `'batches'`).
    """

    location: str
    stage: CacheStage | str = CacheStage.RECORDS

    def __post_init__(self):
        if not isinstance(self.location, str) or not self.location:
            raise TypeError(
                "RecordCache `location` must be 'memory' or a file path prefix; "
                f"received {self.location!r}."
            )
        object.__setattr__(self, "stage", _enum(CacheStage, "stage", self.stage))


def as_cache(cache) -> RecordCache | None:
    """`record_pipeline`'s `cache` argument as a `RecordCache` (or None)."""
    if cache is None or isinstance(cache, RecordCache):
        return cache
    if isinstance(cache, str):
        return RecordCache(cache)
    raise TypeError(
        "`cache` must be None, 'memory', a path prefix or "
        f"emg.inputs.RecordCache(...); received {cache!r}."
    )


def as_reading(reading) -> RecordReading:
    """`record_pipeline`'s `reading` argument as a `RecordReading`."""
    if reading is None:
        return RecordReading()
    if isinstance(reading, RecordReading):
        return reading
    raise TypeError(
        "`reading` must be None or emg.inputs.RecordReading(...); received "
        f"{reading!r}."
    )


# Keywords of earlier releases and where they went.
MOVED = {
    "record_format": "reading=emg.inputs.RecordReading(format=...)",
    "compression_type": "reading=emg.inputs.RecordReading(compression_type=...)",
    "shard_by": "reading=emg.inputs.RecordReading(shard_by=...)",
    "cycle_length": "reading=emg.inputs.RecordReading(cycle_length=...)",
    "block_length": "reading=emg.inputs.RecordReading(block_length=...)",
    "reader_buffer_size": "reading=emg.inputs.RecordReading(buffer_size=...)",
    "cache_stage": "cache=emg.inputs.RecordCache(location, stage=...)",
}


def check_moved(options: dict) -> None:
    """A TypeError naming the new spelling of a keyword that moved."""
    moved = sorted(set(options) & set(MOVED))
    if moved:
        fixes = "; ".join(f"`{name}=` -> {MOVED[name]}" for name in moved)
        raise TypeError(
            f"record_pipeline no longer takes {', '.join(map(repr, moved))}: {fixes}."
        )
