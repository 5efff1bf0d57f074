"""`numpy_input_fn`: tf.estimator.inputs.numpy_input_fn on tf.data."""

from __future__ import annotations

import collections

import numpy as np

from estimator_multigpu.estimator import _feeding


def _columns(value, argument: str) -> collections.OrderedDict:
    """`value` (an array or a dict of arrays) as arrays by name, in key order."""
    if isinstance(value, dict):
        if not value:
            use = "None" if argument == "y" else "a dict with at least one array"
            raise ValueError(
                f"{argument} cannot be an empty dict; got {{}}. Pass {use} instead."
            )
        return collections.OrderedDict(sorted(value.items(), key=lambda t: t[0]))
    if isinstance(value, np.ndarray):
        if value.size == 0:
            raise ValueError(
                f"{argument} cannot be an empty array; got shape {value.shape}. "
                "Pass an array with at least one example."
            )
        return collections.OrderedDict({argument: value})
    raise TypeError(
        f"{argument} must be a dict or array; got {type(value).__name__}. "
        f"Pass a numpy array or a dict of numpy arrays (np.asarray({argument}))."
    )


def _check_arrays(columns: dict, argument: str, is_dict: bool) -> None:
    for key, array in columns.items():
        name = f"{argument}[{key!r}]" if is_dict else argument
        if not isinstance(array, np.ndarray) or array.ndim == 0:
            got = array.shape if isinstance(array, np.ndarray) else type(array).__name__
            raise TypeError(
                f"{name} must be a numpy array with one row per example; got "
                f"{got}. Wrap it with np.asarray(...) (and give it a first, "
                "example dimension)."
            )


def _names(columns: dict, argument: str, value) -> list[str]:
    """How each column is named in errors: `x['age']`, or `x` for an array."""
    if isinstance(value, dict):
        return [f"{argument}[{k!r}]" for k in columns]
    return [argument] * len(columns)


def _shapes(columns: dict, is_dict: bool):
    shapes = {k: v.shape for k, v in columns.items()}
    return shapes if is_dict else next(iter(shapes.values()), None)


def _check_lengths(features: dict, targets: dict, x, y) -> None:
    """Raises unless every array of x and y has the same number of rows."""
    both = isinstance(x, dict) and isinstance(y, dict)
    duplicate = set(features) & set(targets) if both else set()
    if duplicate:
        raise ValueError(
            f"{len(duplicate)} duplicate keys are found in both x and y: "
            f"{duplicate}. Rename them in x or y; each key names one tensor."
        )
    lengths = {len(v) for v in [*features.values(), *targets.values()]}
    if len(lengths) != 1:
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x "
            "and y must have the same length.\n"
            f"Shapes in x: {_shapes(features, True)}\n"
            f"Shapes in y: {_shapes(targets, isinstance(y, dict))}\n"
            "Pass arrays with one row per example in each."
        )


def numpy_input_fn(
    x,
    y=None,
    batch_size=128,
    num_epochs=1,
    shuffle=None,
    queue_capacity=1000,
    num_threads=1,
):
    """Returns an input_fn that feeds a (dict of) numpy array(s) to a model.

    `tf.estimator.inputs.numpy_input_fn` on tf.data: the same batches, in the
    same order when `shuffle=False` (batches run across epoch ends; the last
    one may be short; then `OutOfRangeError`), every example once per epoch
    when shuffled. The input_fn returns a `tf.data.Dataset` of
    `(features, target)` batches (features alone without `y`) instead of
    queue tensors; the arrays are read from host memory per batch.

    Args:
      x: a numpy array `[num_examples, ...]` (one feature, returned as a
        tensor) or a dict of them (returned as a dict of tensors).
      y: a numpy array or a dict of them with as many rows, or None.
      batch_size: examples per batch.
      num_epochs: passes over the data; None repeats for ever (every batch
        then has `batch_size` rows).
      shuffle: True to shuffle (train), False for the order of `x`
        (evaluate, predict); it must be given.
      queue_capacity: rows the queue held: the shuffle buffer.
      num_threads: feeding threads; each reads all the data `num_epochs`
        times, as tf.estimator's threads did (it logs the same warnings).

    Returns:
      A function `() -> tf.data.Dataset`.

    Raises:
      ValueError: if `shuffle` is not a bool, `x` or `y` is empty, a key is
        in both `x` and `y`, or the arrays' lengths differ.
      TypeError: if `x` is not an array or a dict of arrays.
    """
    _feeding.check_shuffle(shuffle)
    _feeding.check_counts(batch_size, num_epochs, queue_capacity, num_threads)
    features = _columns(x, "x")
    _check_arrays(features, "x", isinstance(x, dict))
    targets = collections.OrderedDict() if y is None else _columns(y, "y")
    _check_arrays(targets, "y", isinstance(y, dict))
    _check_lengths(features, targets, x, y)
    names = _names(features, "x", x) + _names(targets, "y", y)
    columns = [*features.values(), *targets.values()]
    _feeding.check_dtypes(columns, names)

    def pack(*tensors):
        head = tensors[: len(features)]
        feature = dict(zip(features, head)) if isinstance(x, dict) else head[0]
        if y is None:
            return feature
        tail = tensors[len(features) :]
        return feature, dict(zip(targets, tail)) if isinstance(y, dict) else tail[0]

    def input_fn():
        """Numpy input function: a dataset of (features, target) batches."""
        data = _feeding.dataset(
            columns, names, batch_size, num_epochs, shuffle, queue_capacity, num_threads
        )
        return data.map(pack)

    return input_fn
