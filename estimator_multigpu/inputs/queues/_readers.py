"""Reader specs and `read`: the queue readers as tf.data sources of (key, value)."""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any

import tensorflow as tf

from estimator_multigpu.inputs.queues import _common

_READ_ALREADY = weakref.WeakSet()


class _ReaderSpec:
    """Base of the reader specs; `read` on the spec explains the new call."""

    def read(self, queue: Any, name: str | None = None):
        raise TypeError(
            f"{type(self).__name__} here is a spec, not a queue reader: call "
            f"`queues.read(filenames, {type(self).__name__}(...))` to get a dataset "
            f"of (key, value). See {_common.guide('readers')}."
        )


@dataclasses.dataclass(frozen=True)
class FixedLengthRecordReader(_ReaderSpec):
    """Fixed-size records; same arguments as `tf.compat.v1.FixedLengthRecordReader`.

    Keys are `b'<file>:<record index>'` (from 0). Like the queue reader, a
    trailing partial record is skipped; each file is read whole into memory.
    `encoding` is None, 'ZLIB' or 'GZIP'.

    Attributes:
      record_bytes: bytes per record.
      header_bytes: bytes to skip at the start of each file.
      footer_bytes: bytes to skip at the end of each file.
      hop_bytes: bytes between record starts (default `record_bytes`).
      name: accepted for compatibility; unused.
      encoding: None, 'ZLIB' or 'GZIP' (each file is decompressed whole).
    """

    record_bytes: int
    header_bytes: int | None = None
    footer_bytes: int | None = None
    hop_bytes: int | None = None
    name: str | None = None
    encoding: str | None = None

    def __post_init__(self):
        _common.check_int(self.record_bytes, "record_bytes")
        for arg in ("header_bytes", "footer_bytes", "hop_bytes"):
            if getattr(self, arg) is not None:
                _common.check_int(getattr(self, arg), arg, minimum=0)
        if self.encoding not in (None, "", "ZLIB", "GZIP"):
            raise ValueError(
                f"`encoding` must be None, 'ZLIB' or 'GZIP'; received {self.encoding!r}."
            )


@dataclasses.dataclass(frozen=True)
class TFRecordReader(_ReaderSpec):
    """TFRecord files; same arguments as `tf.compat.v1.TFRecordReader`.

    Keys are `b'<file>:<byte offset of the record>'`. `options` is a
    `tf.io.TFRecordOptions`, a compression type string, or None.
    """

    name: str | None = None
    options: Any = None

    @property
    def compression_type(self) -> str:
        return tf.io.TFRecordOptions.get_compression_type_string(self.options) or ""


@dataclasses.dataclass(frozen=True)
class TextLineReader(_ReaderSpec):
    """Text lines; same arguments as `tf.compat.v1.TextLineReader`.

    Keys are `b'<file>:<line number>'`, counted from 1 including the skipped
    header lines. Lines are read with `tf.data.TextLineDataset`, which, unlike
    the queue reader, also drops a carriage return in the middle of a line
    (both drop the one of a CRLF line end).
    """

    skip_header_lines: int | None = None
    name: str | None = None

    def __post_init__(self):
        if self.skip_header_lines is not None:
            _common.check_int(self.skip_header_lines, "skip_header_lines", minimum=0)


@dataclasses.dataclass(frozen=True)
class WholeFileReader(_ReaderSpec):
    """Whole files; key is the file name, value its contents."""

    name: str | None = None


def _key(filename: tf.Tensor, index: tf.Tensor) -> tf.Tensor:
    return tf.strings.join([filename, tf.strings.as_string(index)], separator=":")


def _fixed_length(reader: FixedLengthRecordReader, filename: tf.Tensor):
    header, footer = reader.header_bytes or 0, reader.footer_bytes or 0
    hop = reader.hop_bytes or reader.record_bytes
    data = tf.io.read_file(filename)
    if reader.encoding:
        data = tf.io.decode_compressed(data, compression_type=reader.encoding)
    body = tf.cast(tf.strings.length(data), tf.int64) - header - footer
    count = tf.maximum((body - reader.record_bytes) // hop + 1, 0)

    def record(i):
        value = tf.strings.substr(data, header + i * hop, reader.record_bytes)
        return _key(filename, i), value

    return tf.data.Dataset.range(count).map(record)


def _tfrecord(reader: TFRecordReader, filename: tf.Tensor):
    values = tf.data.TFRecordDataset(filename, reader.compression_type)

    def with_offset(offset, value):
        # Each record is framed by an 8-byte length and two 4-byte CRCs.
        size = tf.cast(tf.strings.length(value), tf.int64) + 16
        return offset + size, (_key(filename, offset), value)

    return values.scan(tf.constant(0, tf.int64), with_offset)


def _text_line(reader: TextLineReader, filename: tf.Tensor):
    skip = reader.skip_header_lines or 0
    lines = tf.data.TextLineDataset(filename).skip(skip)
    return lines.enumerate(start=skip + 1).map(lambda i, v: (_key(filename, i), v))


def _whole_file(reader: WholeFileReader, filename: tf.Tensor):
    return tf.data.Dataset.from_tensors((filename, tf.io.read_file(filename)))


_SOURCES = {
    FixedLengthRecordReader: _fixed_length,
    TFRecordReader: _tfrecord,
    TextLineReader: _text_line,
    WholeFileReader: _whole_file,
}


def _filename_dataset(filenames: Any) -> tf.data.Dataset:
    """`filenames` as a dataset of scalar strings, warning on a second read."""
    if not isinstance(filenames, tf.data.Dataset):
        names = tf.convert_to_tensor(filenames, dtype=tf.string)
        return tf.data.Dataset.from_tensor_slices(tf.reshape(names, [-1]))
    spec = filenames.element_spec
    if not (
        isinstance(spec, tf.TensorSpec)
        and spec.dtype == tf.string
        and spec.shape.rank == 0
    ):
        raise TypeError(
            f"`filenames` must be a dataset of scalar tf.string; received element "
            f"spec {spec}. Use `queues.string_input_producer(files)`."
        )
    if filenames in _READ_ALREADY:
        _common.warn(
            "read() was called again on the same `filenames` dataset: each call "
            "reads every file, whereas readers sharing one filename queue split "
            "the files. Use one `read(filenames, reader, num_readers=n)`.",
            "readers",
        )
    _READ_ALREADY.add(filenames)
    return filenames


def read(
    filenames: Any,
    reader: Any,
    *,
    num_readers: int = 1,
    deterministic: bool | None = None,
) -> tf.data.Dataset:
    """Records of `filenames` as `(key, value)` pairs, like `reader.read(queue)`.

    Args:
      filenames: a dataset of scalar file names (e.g. from
        `string_input_producer`, which sets epochs and shuffling), or a list /
        1-D tensor of file names, read once in order.
      reader: a reader spec: `FixedLengthRecordReader(...)`,
        `TFRecordReader(...)`, `TextLineReader(...)` or `WholeFileReader()`.
      num_readers: files read at the same time, like `num_readers` queue
        readers sharing one filename queue (each file is still read once).
      deterministic: with `num_readers > 1`, whether records keep a fixed
        round-robin order; None means False (the queue order was random).

    Returns:
      A `tf.data.Dataset` of `(key, value)`, both scalar `tf.string`.

    Raises:
      TypeError: if `reader` is not a reader spec or `filenames` has the wrong
        element type.
    """
    source = _SOURCES.get(type(reader))
    if source is None:
        raise TypeError(
            f"`reader` must be one of {[c.__name__ for c in _SOURCES]} from "
            f"`queues`; received {reader!r}. Replace `tf.compat.v1.TFRecordReader()` "
            "with `queues.TFRecordReader()` (same arguments)."
        )
    num_readers = _common.check_int(num_readers, "num_readers")
    filenames = _filename_dataset(filenames)
    if num_readers == 1:
        return filenames.flat_map(lambda f: source(reader, f))
    return filenames.interleave(
        lambda f: source(reader, f),
        cycle_length=num_readers,
        num_parallel_calls=num_readers,
        deterministic=bool(deterministic),
    )
