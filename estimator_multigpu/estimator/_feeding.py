"""The tf.data pipeline behind numpy_input_fn and pandas_input_fn, in the feeding queue's order."""

from __future__ import annotations

import numbers

import numpy as np
import tensorflow as tf

# The warnings tf.estimator's feeding queue logged, word for word.
_EPOCHS_PER_THREAD = (
    "enqueue_data was called with num_epochs and num_threads > 1. "
    "num_epochs is applied per thread, so this will produce more "
    "epochs than you probably intend. "
    "If you want to limit epochs, use one thread."
)
_SHUFFLED_THREADS = (
    "enqueue_data was called with shuffle=True, num_threads > 1, and "
    "num_epochs. This will create multiple threads, all reading the "
    "array/dataframe in order adding to the same shuffling queue; the "
    "results will likely not be sufficiently shuffled."
)
_ORDERED_THREADS = (
    "enqueue_data was called with shuffle=False and num_threads > 1. "
    "This will create multiple threads, all reading the "
    "array/dataframe in order. If you want examples read in order, use"
    " one thread; if you want multiple threads, enable shuffling."
)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_shuffle(shuffle) -> None:
    """Raises unless `shuffle` is a bool (tf.estimator had no default either)."""
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean "
            "(it is recommended to set it as True for training); "
            f"got {shuffle!r}. Pass shuffle=True to train and shuffle=False "
            "to evaluate or predict."
        )


def check_counts(batch_size, num_epochs, queue_capacity, num_threads) -> None:
    """Raises for a batch size, epoch count, capacity or thread count that cannot be.

    Raises:
      TypeError: for a value that is not an integer (`num_epochs` may be None).
      ValueError: for a batch size, capacity or thread count below 1, or a
        negative `num_epochs`.
    """
    for name, value, least in (
        ("batch_size", batch_size, 1),
        ("queue_capacity", queue_capacity, 1),
        ("num_threads", num_threads, 1),
        ("num_epochs", num_epochs, 0),
    ):
        if name == "num_epochs" and value is None:
            continue
        if not _is_int(value):
            hint = " or None to repeat for ever" if name == "num_epochs" else ""
            raise TypeError(
                f"`{name}` must be an integer{hint}; got {value!r} "
                f"({type(value).__name__}). Pass e.g. {name}={max(least, 1)}."
            )
        if value < least:
            raise ValueError(
                f"`{name}` must be at least {least}; got {value}. "
                f"Pass {name}={max(least, 1)} or more."
            )


def tf_dtype(column: np.ndarray, name: str) -> tf.DType:
    """The TensorFlow dtype a column is fed as (text of any kind as tf.string).

    Raises:
      TypeError: for a dtype TensorFlow has no type for (datetimes, ...).
    """
    if column.dtype.kind in "OUS":
        return tf.string
    try:
        return tf.as_dtype(column.dtype)
    except TypeError:
        raise TypeError(
            f"{name} has dtype {column.dtype}, which has no TensorFlow type. "
            "Convert it first, e.g. with .astype(np.float32) or .astype(str)."
        ) from None


def check_dtypes(columns: list, names: list) -> None:
    """Raises for the first column TensorFlow has no dtype for (see `tf_dtype`)."""
    for column, name in zip(columns, names):
        tf_dtype(column, name)


def _warn_threads(shuffle: bool, num_epochs, num_threads: int) -> None:
    if num_threads > 1 and num_epochs is not None:
        tf.get_logger().warning(_EPOCHS_PER_THREAD)
    if shuffle and num_threads > 1 and num_epochs is not None:
        tf.get_logger().warning(_SHUFFLED_THREADS)
    if not shuffle and num_threads > 1:
        tf.get_logger().warning(_ORDERED_THREADS)


def _reader(num_rows: int, num_epochs, shuffle: bool, capacity: int):
    """One feeding thread's rows: every row once per epoch, `num_epochs` times.

    Shuffled, each epoch starts at a random row (the thread's random start)
    and passes through a buffer of `capacity` rows (the RandomShuffleQueue).
    """
    rows = tf.data.Dataset.range(num_rows)
    if shuffle:
        starts = tf.data.Dataset.random().take(1)
        rows = starts.flat_map(
            lambda start: rows.map(lambda row: (row + start % num_rows) % num_rows)
        )
        rows = rows.shuffle(min(capacity, num_rows))
    return rows.repeat(num_epochs)


def row_batches(num_rows, batch_size, num_epochs, shuffle, capacity, num_threads):
    """A dataset of int64 row-number batches, in the order the queue gave them.

    Each of `num_threads` readers feeds every row `num_epochs` times (None:
    for ever) in chunks of `batch_size` rows, as tf.estimator's feeding
    threads did; batches run across epoch ends, the last one may be short,
    and with `num_epochs=None` every batch has `batch_size` rows (the static
    shape `dequeue_many` gave).

    Args:
      num_rows: the rows of the data, >= 1.
      batch_size: rows per batch.
      num_epochs: passes over the data per reader, or None.
      shuffle: whether each reader shuffles its rows.
      capacity: the queue's capacity in rows (the shuffle buffer).
      num_threads: the feeding threads (each reads all rows).

    Returns:
      A `tf.data.Dataset` of `[batch]` int64 row numbers.
    """
    _warn_threads(shuffle, num_epochs, num_threads)
    if num_threads == 1:
        rows = _reader(num_rows, num_epochs, shuffle, capacity)
    else:
        rows = tf.data.Dataset.range(num_threads).interleave(
            lambda _: _reader(num_rows, num_epochs, shuffle, capacity),
            cycle_length=num_threads,
            block_length=batch_size,
        )
    return rows.batch(batch_size, drop_remainder=num_epochs is None)


def gather(batches, columns: list, names: list, batch_size: int | None):
    """Maps row-number batches to the columns' rows (read from host memory).

    The arrays stay in host memory and are read per batch, as the feeding
    threads read them, so no array becomes a graph constant.

    Args:
      batches: from `row_batches`.
      columns: numpy arrays `[num_rows, ...]`, one per feature or target.
      names: how each column is named in errors (`"x['age']"`).
      batch_size: the static batch dimension, or None when a batch may be short.

    Returns:
      A dataset of tuples of tensors `[batch, ...]`, one per column.
    """
    dtypes = [tf_dtype(c, n) for c, n in zip(columns, names)]

    def fetch(rows):
        return [c[rows] for c in columns]

    def read(rows):
        out = tf.numpy_function(fetch, [rows], dtypes, stateful=False)
        for tensor, column in zip(out, columns):
            tensor.set_shape([batch_size, *column.shape[1:]])
        return tuple(out)

    return batches.map(read)


def dataset(columns, names, batch_size, num_epochs, shuffle, capacity, num_threads):
    """The columns' rows in batches, as tf.estimator's feeding queue gave them."""
    num_rows = len(columns[0])
    batches = row_batches(
        num_rows, batch_size, num_epochs, shuffle, capacity, num_threads
    )
    static = batch_size if num_epochs is None else None
    out = gather(batches, columns, names, static)
    return out.prefetch(max(1, capacity // batch_size))
