"""Record files: glob resolution, readers, and the choice of file vs record sharding."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import tensorflow as tf

COMPRESSION_TYPES = (None, "", "GZIP", "ZLIB")


@dataclasses.dataclass(frozen=True)
class FixedLengthRecords:
    """Files of fixed-size binary records (e.g. the CIFAR-10 binary files).

    Attributes:
      record_bytes: bytes per record.
      header_bytes: bytes to skip at the start of each file.
      footer_bytes: bytes to skip at the end of each file.
    """

    record_bytes: int
    header_bytes: int = 0
    footer_bytes: int = 0

    def __post_init__(self):
        for name, low in (
            ("record_bytes", 1),
            ("header_bytes", 0),
            ("footer_bytes", 0),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(
                    f"FixedLengthRecords `{name}` must be an int >= {low}; received "
                    f"{value!r}."
                )


def resolve_files(files: str | Sequence[str]) -> list[str]:
    """Expands file names and glob patterns into a sorted list of files.

    Every shard must see the same list in the same order, so the list is
    sorted and fixed when the pipeline is built (unlike `list_files`, which
    shuffles unless told otherwise).

    Args:
      files: a file name or glob pattern, or a list of them.

    Returns:
      Sorted, de-duplicated file names.

    Raises:
      TypeError: if `files` is not a string or a list of strings.
      ValueError: if nothing matches.
    """
    patterns = [files] if isinstance(files, (str, bytes)) else files
    if not isinstance(patterns, Sequence) or not all(
        isinstance(p, str) for p in patterns
    ):
        raise TypeError(
            "`files` must be a file name, a glob pattern or a list of them; "
            f"received {files!r}."
        )
    found = sorted({name for p in patterns for name in tf.io.gfile.glob(p)})
    if not found:
        raise ValueError(
            f"`files` {list(patterns)} matched no file; check the paths and "
            "patterns (e.g. '/data/train-*.tfrecord')."
        )
    return found


def make_reader(record_format, compression_type: str, buffer_size: int):
    """`reader(filename) -> Dataset of serialized records` for one format."""
    if record_format == "tfrecord":
        return lambda name: tf.data.TFRecordDataset(
            name, compression_type=compression_type, buffer_size=buffer_size
        )
    if isinstance(record_format, FixedLengthRecords):
        fmt = record_format
        return lambda name: tf.data.FixedLengthRecordDataset(
            name,
            fmt.record_bytes,
            header_bytes=fmt.header_bytes,
            footer_bytes=fmt.footer_bytes,
            buffer_size=buffer_size,
            compression_type=compression_type,
        )
    raise ValueError(
        "`record_format` must be 'tfrecord' or emg.inputs.FixedLengthRecords(...); "
        f"received {record_format!r}."
    )


def shard_by_file(shard_by: str, num_files: int, num_shards: int) -> bool:
    """Whether to shard by file (True) or by record (False).

    Sharding by file lets each shard open only its own files and read them
    in any order (non-deterministic, fastest), but needs at least one file
    per shard; shards then differ by up to one file's records. Sharding by
    record reads every file in every shard and keeps one record in
    `num_shards`: balanced to one record, but each shard does all the I/O
    and the read order must be deterministic for the shards to be disjoint.
    """
    if shard_by not in ("auto", "file", "record"):
        raise ValueError(
            f"`shard_by` must be 'auto', 'file' or 'record'; received {shard_by!r}."
        )
    if shard_by == "file" and num_files < num_shards:
        raise ValueError(
            f"shard_by='file' needs at least one file per shard, but there are "
            f"{num_files} file(s) for {num_shards} shards; pass "
            "reading=emg.inputs.RecordReading(shard_by='record') or 'auto', or "
            "write the data into more files."
        )
    return shard_by == "file" or (shard_by == "auto" and num_files >= num_shards)
