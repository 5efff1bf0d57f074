"""`tf.train.Feature`s of int64s, floats and bytes, for the cases that write
TFRecords of `tf.train.Example`s (TensorFlow imported on first use, as the
cases import it only to make their data)."""

from __future__ import annotations


def ints(values) -> object:
    import tensorflow as tf  # noqa: PLC0415

    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def floats(values) -> object:
    import tensorflow as tf  # noqa: PLC0415

    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def strings(values) -> object:
    import tensorflow as tf  # noqa: PLC0415

    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
