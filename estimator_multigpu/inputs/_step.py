"""Turns per-device iterator optionals into one step of `PerDevice` shards.

Every device's iterator is read every step. A device whose input has ended
gets a zero-example batch (as `tf.distribute` does), so the devices stay in
step until the last example; the step after the last non-empty one raises
`OutOfRangeError`, which ends training loops and evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from estimator_multigpu.per_device import PerDevice


def check_element_spec(element_spec, argument: str = "dataset_fn") -> None:
    """Raises TypeError unless every component is a dense tensor."""
    for spec in tf.nest.flatten(element_spec):
        if not isinstance(spec, tf.TensorSpec):
            raise TypeError(
                f"The dataset from `{argument}` yields a {type(spec).__name__}; "
                "multi-device input needs dense tensors. Convert sparse or ragged "
                "features to dense (e.g. tf.sparse.to_dense, RaggedTensor.to_tensor) "
                "in the dataset."
            )


def _empty_batch(element_spec):
    """A batch of zero examples with the element's dtypes and inner shape."""

    def empty(spec: tf.TensorSpec) -> tf.Tensor:
        inner = [0 if dim is None else dim for dim in spec.shape.as_list()[1:]]
        return tf.zeros([0] + inner, dtype=spec.dtype)

    return tf.nest.map_structure(empty, element_spec)


def _value_or_empty(optional, element_spec):
    return tf.cond(
        optional.has_value(), optional.get_value, lambda: _empty_batch(element_spec)
    )


def _end_of_input_check(counts, min_examples: int) -> tf.Tensor:
    """A scalar that raises OutOfRangeError when the step has too few examples.

    Args:
      counts: int32 scalars, the examples each device got this step.
      min_examples: 1, or the global batch size when a short global batch is
        dropped.
    """
    with tf.device("/cpu:0"):
        ended = tf.compat.v1.data.make_one_shot_iterator(
            tf.data.Dataset.range(0)
        )  # An exhausted iterator: reading it raises OutOfRangeError.
        enough = tf.add_n(counts) >= min_examples
        return tf.cond(
            enough,
            lambda: tf.constant(-1, tf.int64),
            ended.get_next,
            name="end_of_input",
        )


def _split_features_labels(element):
    if isinstance(element, tuple) and len(element) == 2:
        return element
    return element, None


def _count(value) -> tf.Tensor:
    return tf.shape(tf.nest.flatten(value)[0], out_type=tf.int32)[0]


def _with_batch_size(value, size: int):
    """`value` with its known batch size set in every tensor's static shape."""

    def known(tensor):
        tensor.set_shape(tf.TensorShape([size]).concatenate(tensor.shape[1:]))
        return tensor

    return tf.nest.map_structure(known, value)


def per_device_step(
    optionals: Sequence,
    devices: Sequence[str],
    element_spec,
    full_sizes: Sequence[int] | None = None,
):
    """Reads one step from per-device optionals.

    Args:
      optionals: `optionals[d]`, a `tf.experimental.Optional` holding device
        d's batch (a `(features, labels)` pair or features only).
      devices: the device of each optional.
      element_spec: the batched element spec, with a leading batch dimension.
      full_sizes: with a short global batch dropped, `full_sizes[d]` is
        device d's examples in a full step: a step with fewer examples in all
        raises `OutOfRangeError`, and every step has exactly these (static)
        batch sizes. None: any step with at least one example runs.

    Returns:
      `(features, labels)`: `PerDevice` values (labels None when the dataset
      yields features only), each shard on its device, with example counts.
    """
    values = []
    for optional, device in zip(optionals, devices):
        with tf.device(device):
            values.append(_value_or_empty(optional, element_spec))
    min_examples = 1 if full_sizes is None else sum(full_sizes)
    check = _end_of_input_check([_count(v) for v in values], min_examples)
    shards, counts = [], []
    for index, (value, device) in enumerate(zip(values, devices)):
        with tf.device(device):
            with tf.control_dependencies([check]):
                value = tf.nest.map_structure(tf.identity, value)
                if full_sizes is None:
                    counts.append(_count(value))
                else:  # A constant, known when building; it still waits for check.
                    value = _with_batch_size(value, full_sizes[index])
                    counts.append(tf.constant(full_sizes[index], tf.int32))
            shards.append(value)
    pairs = [_split_features_labels(s) for s in shards]
    features = PerDevice([f for f, _ in pairs], devices, counts)
    if pairs[0][1] is None:
        return features, None
    return features, PerDevice([lab for _, lab in pairs], devices, counts)
