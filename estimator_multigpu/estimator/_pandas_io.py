"""`pandas_input_fn`: tf.estimator.inputs.pandas_input_fn on tf.data."""

from __future__ import annotations

import uuid

import numpy as np

from estimator_multigpu.estimator import _feeding


def _pandas():
    try:
        import pandas  # noqa: PLC0415 (optional: only this function needs it)
    except ImportError:
        raise TypeError(
            "pandas_input_fn should not be called without pandas installed. "
            "Install it (pip install pandas), or pass numpy arrays to "
            "emg.estimator.inputs.numpy_input_fn."
        ) from None
    return pandas


def _unique_key(frame, name: str) -> str:
    """`name`, or `name` with a suffix when `frame` already has that column."""
    return f"{name}_{uuid.uuid4()}" if name in frame else name


def _check_target(pd, x, y, target_column) -> None:
    if not isinstance(target_column, str):
        raise TypeError(
            f"target_column must be a string type; got {target_column!r} "
            f"({type(target_column).__name__}). Pass the name to give y, e.g. "
            "target_column='target'."
        )
    if not isinstance(x, pd.DataFrame):
        raise TypeError(
            f"x must be a pandas DataFrame; got {type(x).__name__}. Pass "
            "pandas.DataFrame(x), or numpy arrays to numpy_input_fn."
        )
    if y is None:
        return
    if target_column in x:
        raise ValueError(
            f"Cannot use name {target_column} for target column: DataFrame "
            f"already has a column with that name: {x.columns}. Pass another "
            "target_column."
        )
    if not np.array_equal(x.index, y.index):
        raise ValueError(
            "Index for x and y are mismatched.\n"
            f"Index for x: {x.index}\nIndex for y: {y.index}\n"
            "Give y the index of x (y.index = x.index, or reset_index on both)."
        )


def _targets(pd, x, y, target_column) -> list[tuple[object, str]]:
    """(column of y, its column in the frame fed) for each column of `y`."""
    if y is None:
        return []
    if isinstance(y, pd.DataFrame):
        return [(c, _unique_key(x, c)) for c in list(y)]
    return [(None, target_column)]


def pandas_input_fn(
    x,
    y=None,
    batch_size=128,
    num_epochs=1,
    shuffle=None,
    queue_capacity=1000,
    num_threads=1,
    target_column="target",
):
    """Returns an input_fn that feeds a pandas DataFrame to a model.

    `tf.estimator.inputs.pandas_input_fn` on tf.data: the same batches, in
    the same order when `shuffle=False`, every row once per epoch when
    shuffled (see `numpy_input_fn`). The input_fn returns a
    `tf.data.Dataset` of `(features, target)` batches: features is a dict by
    column name; target a tensor (y a Series) or a dict by column (y a
    DataFrame); features alone without `y`.

    Args:
      x: a pandas `DataFrame`.
      y: a pandas `Series` or `DataFrame` with the index of `x`, or None.
      batch_size: rows per batch.
      num_epochs: passes over the data; None repeats for ever.
      shuffle: True to shuffle (train), False for the order of `x`; it must
        be given.
      queue_capacity: rows the queue held (the shuffle buffer); None: 4 times
        the rows of `x` when shuffled, else the rows of `x`.
      num_threads: feeding threads; each reads all the data `num_epochs` times.
      target_column: the name `y` (a Series) had in the queue; unused when `y`
        is a DataFrame.

    Returns:
      A function `() -> tf.data.Dataset`.

    Raises:
      TypeError: without pandas, or if `target_column` is not a string.
      ValueError: if `shuffle` is not a bool, `x` has a column named
        `target_column`, or the indexes of `x` and `y` differ.
    """
    pd = _pandas()
    _feeding.check_shuffle(shuffle)
    _check_target(pd, x, y, target_column)
    if queue_capacity is None:
        queue_capacity = max(1, (4 if shuffle else 1) * len(x))
    _feeding.check_counts(batch_size, num_epochs, queue_capacity, num_threads)
    targets = _targets(pd, x, y, target_column)
    frame = x.copy()
    for key, column in targets:
        frame[column] = y if key is None else y[key]
    if len(frame) == 0:
        raise ValueError("x cannot be an empty DataFrame. Pass at least one row.")
    names = [f"x[{c!r}]" for c in frame.columns]
    columns = [np.asarray(frame[c].to_numpy()) for c in frame.columns]
    _feeding.check_dtypes(columns, names)
    keys = list(frame.columns)
    series = isinstance(y, pd.Series)

    def pack(*tensors):
        features = dict(zip(keys, tensors))
        if y is None:
            return features
        target = {key: features.pop(column) for key, column in targets}
        return features, target[None] if series else target

    def input_fn():
        """Pandas input function: a dataset of (features, target) batches."""
        data = _feeding.dataset(
            columns, names, batch_size, num_epochs, shuffle, queue_capacity, num_threads
        )
        return data.map(pack)

    return input_fn
