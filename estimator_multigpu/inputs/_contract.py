"""The Estimator input_fn contract shared by the multi-device builders."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import tensorflow as tf

from estimator_multigpu import _sharding, _tf_internals
from estimator_multigpu import devices as devices_lib
from estimator_multigpu.inputs._context import InputContext


def check_dataset_fn(dataset_fn) -> None:
    if not callable(dataset_fn):
        raise TypeError(
            "`dataset_fn` must be a callable dataset_fn(ctx) -> tf.data.Dataset; "
            f"received {dataset_fn!r}."
        )


def check_common(
    dataset_fn, devices, global_batch_size, remainder, shuffle_buffer_size, num_epochs
):
    """Validates the arguments both builders take.

    Returns:
      `(devices, sizes)`: the resolved devices and `sizes[d]`, device d's
      examples per full step.
    """
    check_dataset_fn(dataset_fn)
    devices = devices_lib.resolve(devices=devices)
    sizes = _sharding.per_device_batch_sizes(global_batch_size, len(devices), remainder)
    check_int("shuffle_buffer_size", shuffle_buffer_size, 1, allow_none=True)
    check_int("num_epochs", num_epochs, 1, allow_none=True)
    return devices, sizes


def drops_final_batch(remainder: str, drop_remainder: bool | None) -> bool:
    """Whether a builder drops the short final global batch.

    `remainder='drop'` does; `drop_remainder`, the spelling of earlier
    releases, still works (True drops it, keeping `remainder`'s per-device
    split) with a DeprecationWarning.

    Raises:
      ValueError: for `drop_remainder=False` with `remainder='drop'`.
    """
    if drop_remainder is None:
        return remainder == "drop"
    if remainder == "drop" and not drop_remainder:
        raise ValueError(
            f"`drop_remainder={drop_remainder!r}` contradicts remainder='drop'; "
            "leave `drop_remainder` out (it is deprecated): remainder='drop' "
            "drops the short final global batch, 'uneven' keeps it."
        )
    warnings.warn(
        f"`drop_remainder` is deprecated; received drop_remainder={drop_remainder!r}. "
        "Pass remainder='drop' to drop the short final global batch (it needs a "
        "global_batch_size that divides by the device count), or leave "
        "drop_remainder out to keep it.",
        DeprecationWarning,
        stacklevel=3,
    )
    return bool(drop_remainder)


def check_int(name: str, value, low: int, allow_none: bool = False) -> None:
    """Raises ValueError unless `value` is an int >= `low` (or an allowed None)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        none = " or None" if allow_none else ""
        raise ValueError(f"`{name}` must be an int >= {low}{none}; received {value!r}.")


def call_dataset_fn(dataset_fn: Callable, ctx: InputContext) -> tf.data.Dataset:
    """Calls `dataset_fn(ctx)` and checks that it returned a Dataset."""
    dataset = dataset_fn(ctx)
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(
            "`dataset_fn(ctx)` must return a tf.data.Dataset; it returned "
            f"{type(dataset).__name__}. Build the pipeline with tf.data and return it."
        )
    return dataset


# Transformations after which the batching of the input is unknown.
_OPAQUE = ("unbatch", "flatmap", "interleave", "window", "groupby", "scan")


def _last_batch_transformation(dataset: tf.data.Dataset) -> str | None:
    """The batching transformation a pipeline ends in, through unary steps.

    Walks from `dataset` to its inputs by the `_input_dataset`/`_dataset`
    attributes that TensorFlow's unary dataset classes (and the v1 adapter)
    keep; no public API tells whether a dataset is batched. Returns the class
    name of the first `batch`-like transformation found, or None when the
    walk meets a source, a multi-input or an opaque transformation, or an
    unknown class layout.
    """
    current = dataset
    for _ in range(1000):  # A bound on a walk over unknown internals.
        name = type(current).__name__
        key = name.lower().replace("_", "")
        if any(word in key for word in _OPAQUE):
            return None
        if "batch" in key:
            return name
        current = _tf_internals.unary_input(current)
        if not isinstance(current, tf.data.Dataset):
            return None
    return None


def check_unbatched(dataset: tf.data.Dataset, builder: str, fix: str) -> None:
    """Raises ValueError if `dataset_fn` returned a batched pipeline.

    The builders batch themselves; batching twice would give the model
    batches of batches (`[per_device_batch_size, batch, ...]`) and end an
    epoch after a fraction of the steps.
    """
    found = _last_batch_transformation(dataset)
    if found is not None:
        raise ValueError(
            f"`dataset_fn` returned a batched dataset (it ends in {found}, "
            f"element_spec {dataset.element_spec}), but {builder} batches the "
            f"examples itself. Return unbatched examples (drop the .batch()), {fix}"
        )


def check_graph_mode(builder: str) -> None:
    if tf.executing_eagerly():
        raise RuntimeError(
            f"The input_fn from {builder} builds graph-mode iterators and must be "
            "called inside a tf.Graph (an Estimator, emg.estimator.Estimator or "
            "`with tf.Graph().as_default():` do that). For eager code and "
            "tf.distribute use strategy.distribute_datasets_from_function."
        )


def make_input_fn(build: Callable, builder: str) -> Callable:
    """Wraps `build(params, mode)` as an Estimator-contract input_fn.

    The real Estimator passes only the arguments an input_fn names, by
    keyword; the returned function names all four, so it works with
    `input_fn()`, `input_fn(params)` and `input_fn(params, config, mode)`.
    """

    def input_fn(params=None, config=None, mode=None, input_context=None):
        del config, input_context  # The builders' own options decide.
        check_graph_mode(builder)
        return build(params, mode)

    input_fn.__name__ = f"{builder}_input_fn"
    return input_fn
