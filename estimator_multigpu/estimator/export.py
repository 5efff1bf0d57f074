"""`export` namespace: serving input receivers and export outputs.

Same names and behaviour as `tf.estimator.export`. The export output classes
are TensorFlow's own (`tf.estimator.export` re-exported the same ones).
"""

from __future__ import annotations

import collections
from typing import Any

import tensorflow as tf

from estimator_multigpu import _tf_internals

export_output = _tf_internals.export_output()
_export_utils = _tf_internals.export_utils()
SINGLE_FEATURE_DEFAULT_NAME = _export_utils.SINGLE_FEATURE_DEFAULT_NAME
SINGLE_LABEL_DEFAULT_NAME = _export_utils.SINGLE_LABEL_DEFAULT_NAME
SINGLE_RECEIVER_DEFAULT_NAME = _export_utils.SINGLE_RECEIVER_DEFAULT_NAME
ExportOutput = export_output.ExportOutput
ClassificationOutput = export_output.ClassificationOutput
RegressionOutput = export_output.RegressionOutput
PredictOutput = export_output.PredictOutput
EvalOutput = export_output.EvalOutput
TrainOutput = export_output.TrainOutput

_DEFAULT_NAMES = {
    "feature": SINGLE_FEATURE_DEFAULT_NAME,
    "label": SINGLE_LABEL_DEFAULT_NAME,
    "receiver_tensor": SINGLE_RECEIVER_DEFAULT_NAME,
    "receiver_tensors_alternative": SINGLE_RECEIVER_DEFAULT_NAME,
}
_TENSOR_TYPES = (tf.Tensor, tf.sparse.SparseTensor, tf.RaggedTensor)


def wrap_and_check_input_tensors(
    tensors: Any, field_name: str, allow_int_keys: bool = False
) -> dict:
    """Wraps a single tensor in a dict under its default name and checks types.

    Args:
      tensors: a tensor, or a dict of them.
      field_name: what the tensors are (`'feature'`, `'label'`,
        `'receiver_tensor'`, ...): the default key and the error's wording.
      allow_int_keys: accept int keys as well as strings (features, labels).

    Returns:
      A dict of tensors.

    Raises:
      ValueError: for None, non-string keys or non-tensor values.
    """
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        key_ok = isinstance(name, str) or (allow_int_keys and isinstance(name, int))
        if not key_ok:
            kinds = "strings or ints" if allow_int_keys else "strings"
            raise ValueError(f"{field_name} keys must be {kinds}: {name}.")
        if not _is_tensor_like(tensor):
            raise ValueError(
                f"{field_name} {name} must be a Tensor, SparseTensor, or "
                f"RaggedTensor; received {type(tensor).__name__}."
            )
    return tensors


def _is_tensor_like(value) -> bool:
    """A tensor, or a LabeledTensor-style wrapper (`.tensor`) that converts to one."""
    if isinstance(value, _TENSOR_TYPES):
        return True
    if not hasattr(value, "tensor"):
        return False
    try:
        tf.convert_to_tensor(value)
    except (TypeError, ValueError):
        return False
    return True


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """What a `serving_input_receiver_fn` returns.

    Attributes:
      features: a tensor or dict of them, e.g. `{'x': [batch_size, d]}`: what
        the model_fn gets.
      receiver_tensors: a tensor or dict of them (usually placeholders): the
        serving signature's inputs.
      receiver_tensors_alternatives: `{signature name: receiver tensors}` for
        extra signatures, or None.

    Raises:
      ValueError: for None, non-string keys or non-tensor values.
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(
            features, "feature", allow_int_keys=True
        )
        receiver_tensors = wrap_and_check_input_tensors(
            receiver_tensors, "receiver_tensor"
        )
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError(
                    "receiver_tensors_alternatives must be a dict: "
                    f"{receiver_tensors_alternatives}."
                )
            receiver_tensors_alternatives = {
                name: wrap_and_check_input_tensors(alt, "receiver_tensors_alternative")
                for name, alt in receiver_tensors_alternatives.items()
            }
        return super().__new__(
            cls, features, receiver_tensors, receiver_tensors_alternatives
        )


UnsupervisedInputReceiver = ServingInputReceiver


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """A `ServingInputReceiver` whose `features` is one tensor, passed as is.

    Attributes:
      features: one tensor (or SparseTensor): the model_fn gets it unwrapped.
      receiver_tensors: a tensor or dict of them: the signature's inputs.
      receiver_tensors_alternatives: `{signature name: receiver tensors}` for
        extra signatures, or None.
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        if not isinstance(features, _TENSOR_TYPES):
            raise ValueError(
                "feature must be a Tensor, SparseTensor, or RaggedTensor; "
                f"received {type(features).__name__}. TensorServingInputReceiver "
                "takes one tensor; pass a dict to ServingInputReceiver instead."
            )
        receiver = ServingInputReceiver(
            features, receiver_tensors, receiver_tensors_alternatives
        )
        return super().__new__(
            cls,
            receiver.features[SINGLE_FEATURE_DEFAULT_NAME],
            receiver.receiver_tensors,
            receiver.receiver_tensors_alternatives,
        )


class SupervisedInputReceiver(
    collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"]
    )
):
    """What a receiver fn for a train or eval export returns.

    Attributes:
      features: a tensor or a dict of them, passed to the model_fn as given.
      labels: a tensor or a dict of them, passed to the model_fn as given.
      receiver_tensors: a tensor or dict of them: the signature's inputs.
    """

    def __new__(cls, features, labels, receiver_tensors):
        wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        wrap_and_check_input_tensors(labels, "label", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(
            receiver_tensors, "receiver_tensor"
        )
        return super().__new__(cls, features, labels, receiver_tensors)


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """A receiver fn feeding raw features and labels, shaped as given.

    Args:
      features: a tensor `[batch_size, ...]` or a dict of them.
      labels: a tensor `[batch_size, ...]` or a dict of them.
      default_batch_size: the batch dimension of the placeholders (None:
        any).

    Raises:
      ValueError: if `features` and `labels` share a key.
    """
    overlap = set(_keys(features, SINGLE_RECEIVER_DEFAULT_NAME)) & set(
        _keys(labels, SINGLE_LABEL_DEFAULT_NAME)
    )
    if overlap:
        raise ValueError(
            "Features and labels must have distinct keys. Found overlapping "
            f"keys: {overlap}"
        )

    def supervised_input_receiver_fn():
        features_in, features_out = _raw_placeholders(
            features, SINGLE_RECEIVER_DEFAULT_NAME, default_batch_size
        )
        labels_in, labels_out = _raw_placeholders(
            labels, SINGLE_LABEL_DEFAULT_NAME, default_batch_size
        )
        return SupervisedInputReceiver(
            features_out, labels_out, {**features_in, **labels_in}
        )

    return supervised_input_receiver_fn


def _keys(tensors, default_name: str) -> list:
    return list(tensors) if isinstance(tensors, dict) else [default_name]


def _raw_placeholders(tensors, default_name: str, default_batch_size):
    """`(receiver tensors dict, what the model_fn gets)` for raw `tensors`."""
    if isinstance(tensors, dict):
        placeholders = {
            name: _placeholder_like(t, default_batch_size)
            for name, t in tensors.items()
        }
        return placeholders, placeholders
    placeholder = _placeholder_like(tensors, default_batch_size)
    return {default_name: placeholder}, placeholder


def build_parsing_serving_input_receiver_fn(
    feature_spec: dict, default_batch_size=None
):
    """A receiver fn that parses serialized `tf.Example`s with `feature_spec`.

    The signature input is `examples`: a string tensor `[default_batch_size]`.
    """

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor"
        )
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def _placeholder_like(tensor: tf.Tensor, default_batch_size=None) -> tf.Tensor:
    shape = tf.TensorShape([default_batch_size]).concatenate(tensor.shape[1:])
    name = getattr(getattr(tensor, "op", None), "name", None)
    return tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)


def build_raw_serving_input_receiver_fn(features: dict, default_batch_size=None):
    """A receiver fn feeding raw tensors shaped like `features`.

    Args:
      features: name -> tensor `[batch_size, ...]` (or `tf.TensorSpec`-like
        object with `dtype` and `shape`); the batch dimension becomes
        `default_batch_size`.
    """
    if not isinstance(features, dict):
        raise TypeError(
            "`features` must be a dict of name -> tensor; received "
            f"{type(features).__name__}. Wrap a single tensor: {{'x': tensor}}."
        )

    def serving_input_receiver_fn():
        receivers = {
            name: _placeholder_like(t, default_batch_size)
            for name, t in features.items()
        }
        return ServingInputReceiver(receivers, receivers)

    return serving_input_receiver_fn
