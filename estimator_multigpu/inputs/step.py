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


def _end_of_input_check(optionals) -> tf.Tensor:
    """A scalar that raises OutOfRangeError when no device got a value."""
    with tf.device("/cpu:0"):
        ended = tf.compat.v1.data.make_one_shot_iterator(
            tf.data.Dataset.range(0)
        )  # An exhausted iterator: reading it raises OutOfRangeError.
        has_any = tf.reduce_any(tf.stack([o.has_value() for o in optionals]))
        return tf.cond(
            has_any,
            lambda: tf.constant(-1, tf.int64),
            ended.get_next,
            name="end_of_input",
        )


def _split_features_labels(element):
    if isinstance(element, tuple) and len(element) == 2:
        return element
    return element, None


def per_device_step(optionals: Sequence, devices: Sequence[str], element_spec):
    """Reads one step from per-device optionals.

    Args:
      optionals: `optionals[d]`, a `tf.experimental.Optional` holding device
        d's batch (a `(features, labels)` pair or features only).
      devices: the device of each optional.
      element_spec: the batched element spec, with a leading batch dimension.

    Returns:
      `(features, labels)`: `PerDevice` values (labels None when the dataset
      yields features only), each shard on its device, with example counts.
    """
    check = _end_of_input_check(optionals)
    shards, counts = [], []
    for optional, device in zip(optionals, devices):
        with tf.device(device):
            value = _value_or_empty(optional, element_spec)
            with tf.control_dependencies([check]):
                value = tf.nest.map_structure(tf.identity, value)
            shards.append(value)
            first = tf.nest.flatten(value)[0]
            counts.append(tf.shape(first, out_type=tf.int32)[0])
    pairs = [_split_features_labels(s) for s in shards]
    features = PerDevice([f for f, _ in pairs], devices, counts)
    if pairs[0][1] is None:
        return features, None
    return features, PerDevice([lab for _, lab in pairs], devices, counts)
