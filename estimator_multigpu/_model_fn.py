"""Spec types and the model_fn call: the contract between a model_fn and its runner.

`EstimatorSpec`, `ModeKeys`, `fn_args` and `call_model_fn` live here, below
both `towers` and `estimator` (as tensorflow_estimator keeps `model_fn.py` and
`mode_keys.py` under `estimator.py`), so the towers build on them without
importing the Estimator runner.

The real `tf.estimator.Estimator` (TF <= 2.15) rejects look-alikes, so where
`tensorflow_estimator` imports we re-export its classes (reached through
`tf_internals`). Elsewhere (TF 2.16+)
an identical namedtuple with the same fields, defaults and validation stands
in, built on the export helpers that TensorFlow itself still ships.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import tensorflow as tf

from estimator_multigpu import _tf_internals

try:  # TF <= 2.15 ships tf.estimator.
    ModeKeys, EstimatorSpec = _tf_internals.estimator_spec_classes()
    HAS_TF_ESTIMATOR = True
except ImportError:  # TF 2.16+: tf.estimator was removed.
    HAS_TF_ESTIMATOR = False

    class ModeKeys:
        """Standard names for model modes: the strings tf.estimator uses."""

        TRAIN = "train"
        EVAL = "eval"
        PREDICT = "infer"

    _FIELDS = (
        "mode",
        "predictions",
        "loss",
        "train_op",
        "eval_metric_ops",
        "export_outputs",
        "training_chief_hooks",
        "training_hooks",
        "scaffold",
        "evaluation_hooks",
        "prediction_hooks",
    )

    class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
        """Ops and objects returned from a `model_fn` and passed to an Estimator.

        Same fields, defaults and validation as `tf.estimator.EstimatorSpec`:
        TRAIN needs `loss` and `train_op`, EVAL needs `loss`, PREDICT needs
        `predictions`; hooks are tuples of `SessionRunHook`s; metric values are
        `(value, update_op)` pairs; PREDICT gets a default `PredictOutput`.

        Attributes:
          mode: a `ModeKeys` value.
          predictions: a tensor or dict of tensors (PREDICT).
          loss: a scalar loss tensor (TRAIN, EVAL).
          train_op: the op of one training step (TRAIN).
          eval_metric_ops: `{name: (value, update_op)}` or Keras `Metric`s.
          export_outputs: `{signature name: ExportOutput}` for exports.
          training_chief_hooks: hooks run on the chief only, in training.
          training_hooks: hooks run on every worker, in training.
          scaffold: a `tf.compat.v1.train.Scaffold` (init ops, saver).
          evaluation_hooks: hooks run in evaluation.
          prediction_hooks: hooks run in prediction.
        """

        def __new__(
            cls,
            mode,
            predictions=None,
            loss=None,
            train_op=None,
            eval_metric_ops=None,
            export_outputs=None,
            training_chief_hooks=None,
            training_hooks=None,
            scaffold=None,
            evaluation_hooks=None,
            prediction_hooks=None,
        ):
            train_op = _validate_train_op(train_op, mode)
            loss = _validate_loss(loss, mode)
            predictions = _validate_predictions(predictions, mode)
            if mode == ModeKeys.PREDICT:
                export_outputs = _tf_internals.export_utils().get_export_outputs(
                    export_outputs, predictions
                )
            return super().__new__(
                cls,
                mode=mode,
                predictions=predictions,
                loss=loss,
                train_op=train_op,
                eval_metric_ops=_validate_metrics(eval_metric_ops),
                export_outputs=export_outputs,
                training_chief_hooks=_validate_hooks(training_chief_hooks),
                training_hooks=_validate_hooks(training_hooks),
                scaffold=_validate_scaffold(scaffold),
                evaluation_hooks=_validate_hooks(evaluation_hooks),
                prediction_hooks=_validate_hooks(prediction_hooks),
            )

        def _replace(self, **kwds):
            if "mode" in kwds and self.mode != kwds["mode"]:
                raise ValueError("mode of EstimatorSpec cannot be changed.")
            new_fields = map(kwds.pop, self._fields, list(self))
            return EstimatorSpec(*new_fields)


_GRAPH_ERROR = (
    '{0} with "{1}" must be from the default graph. Possible causes: it was '
    "created outside the default graph, or it was not created in the most "
    'recent call to "model_fn".'
)


def _check_graph(value, what):
    if (
        not tf.executing_eagerly()
        and value.graph is not tf.compat.v1.get_default_graph()
    ):
        raise ValueError(_GRAPH_ERROR.format(what, value.name))


def _check_is_tensor(value, name):
    if not isinstance(value, tf.Tensor):
        raise TypeError(f"{name} must be Tensor, given: {value}")
    return value


def _validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, tf.Variable):
        train_op = train_op.op
    if not isinstance(train_op, (tf.Tensor, tf.Operation)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
    _check_graph(train_op, "train_op")
    return train_op


def _validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_is_tensor(loss, "loss")
    if loss.shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not loss.shape.is_compatible_with(tf.TensorShape([])):
        loss = tf.reshape(loss, [])
    _check_graph(loss, "loss")
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        predictions = {
            k: _check_is_tensor(v, f"predictions[{k}]") for k, v in predictions.items()
        }
        for key, value in predictions.items():
            _check_graph(value, f"prediction values {key}")
        return predictions
    predictions = _check_is_tensor(predictions, "predictions")
    _check_graph(predictions, "prediction values")
    return predictions


def _validate_hooks(hooks):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(
                f"All hooks must be SessionRunHook instances, given: {hook}"
            )
    return hooks


def _validate_metrics(eval_metric_ops):
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    eval_metric_ops = _metric_objects_as_tuples(eval_metric_ops)
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(
                "Values of eval_metric_ops must be (metric_value, update_op) "
                f"tuples, given: {value} for key: {key}"
            )
        for part in tf.nest.flatten(value):
            _check_graph(part, f"eval_metric_ops {key}")
    return eval_metric_ops


def is_metric_object(value) -> bool:
    """True for a Keras `Metric` object (tf.keras / tf_keras), as tf.estimator takes."""
    return all(
        callable(getattr(value, name, None))
        for name in ("result", "update_state", "reset_state")
    )


def _metric_objects_as_tuples(eval_metric_ops: dict) -> dict:
    """Keras `Metric` objects as `(result, update_op)`, as tf.estimator does.

    Their variables join LOCAL_VARIABLES (so evaluation initialises them)
    and METRIC_VARIABLES.

    Raises:
      ValueError: for a metric object whose `update_state` was not called.
    """
    converted = dict(eval_metric_ops)
    for key, value in eval_metric_ops.items():
        if not is_metric_object(value):
            continue
        updates = list(getattr(value, "updates", None) or [])
        if not updates:
            raise ValueError(
                f'Please call update_state(...) on the "{value.name}" metric '
                "(in the model_fn, with a Keras that runs in graph mode: "
                "tf_keras on TF 2.16+)."
            )
        converted[key] = (value.result(), updates[0])
        for collection in (
            tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
            tf.compat.v1.GraphKeys.METRIC_VARIABLES,
        ):
            _add_new(collection, value.variables)
    return converted


def _add_new(collection: str, variables) -> None:
    existing = set(tf.compat.v1.get_collection(collection))
    for variable in variables:
        if variable not in existing:
            tf.compat.v1.add_to_collection(collection, variable)


def _validate_scaffold(scaffold):
    scaffold = scaffold or tf.compat.v1.train.Scaffold()
    if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold


_POSITIONAL = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)


def fn_args(fn: Callable) -> tuple[str, ...]:
    """Names of the positional arguments of `fn`, as tf.estimator reads them.

    What TensorFlow's `function_utils.fn_args` returns, from public
    `inspect`: a `functools.partial` loses the arguments it binds
    (positionally or by keyword), a bound method or callable object loses
    `self`; keyword-only arguments, `*args` and `**kwargs` are not listed;
    a `functools.wraps` decorator is not looked through.

    Args:
      fn: a function, bound method, callable object or `functools.partial`.

    Returns:
      The argument names, in order.

    Raises:
      TypeError: if `fn` is not callable or has no readable signature.
    """
    if isinstance(fn, functools.partial):
        bound = set(fn.keywords or ())
        return tuple(a for a in fn_args(fn.func)[len(fn.args) :] if a not in bound)
    if not callable(fn):
        raise TypeError(f"`fn` must be callable; received {fn!r}.")
    try:
        parameters = inspect.signature(fn, follow_wrapped=False).parameters
    except ValueError as error:
        raise TypeError(f"Cannot read the arguments of {fn!r}: {error}") from error
    return tuple(p.name for p in parameters.values() if p.kind in _POSITIONAL)


def call_model_fn(
    model_fn: Callable,
    features: Any,
    labels: Any,
    mode: str,
    params: Any,
    config: Any,
    *,
    where: str = "",
) -> EstimatorSpec:
    """Calls `model_fn` with the arguments it takes; checks it returns a spec.

    Args:
      model_fn: `model_fn(features, labels, mode, params, config)`; it may omit
        all arguments but `features`.
      features: passed as `features`.
      labels: passed as `labels` if `model_fn` takes them.
      mode: a `ModeKeys` value, passed if `model_fn` takes `mode`.
      params: passed if `model_fn` takes `params`.
      config: passed if `model_fn` takes `config`.
      where: where the call happens, for error messages (e.g. `'in tower 1'`).

    Returns:
      The `EstimatorSpec` that `model_fn` returned.

    Raises:
      ValueError: as tf.estimator does, if `model_fn` takes no labels but
        `labels` is not None, or does not return an `EstimatorSpec`.
    """
    kwargs = _model_fn_kwargs(fn_args(model_fn), labels, mode, params, config)
    spec = model_fn(features=features, **kwargs)
    if not isinstance(spec, EstimatorSpec):
        where = f"{where} " if where else ""
        raise ValueError(
            f"model_fn should return an EstimatorSpec; {where}it returned "
            f"{type(spec).__name__}: {spec!r:.200}. Return "
            "emg.estimator.EstimatorSpec(mode, loss=..., train_op=..., ...)."
        )
    return spec


def _model_fn_kwargs(args, labels, mode, params, config) -> dict:
    """The keyword arguments a model_fn taking `args` gets (features aside)."""
    kwargs = {}
    if "labels" in args:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError(
            "model_fn does not take labels, but input_fn returns labels: the "
            "model_fn takes no `labels` argument. Add one to the model_fn, or "
            "return features only."
        )
    for name, value in (("mode", mode), ("params", params), ("config", config)):
        if name in args:
            kwargs[name] = value
    return kwargs


_SCALAR_FIX = (
    "A model_fn's loss is one value for the whole batch: reduce the "
    "per-example losses, e.g. loss = tf.reduce_mean(loss) (the "
    "tf.compat.v1.losses functions already return a scalar)."
)


def _more_than_one(shape: tf.TensorShape) -> bool:
    """Whether `shape` may hold more than one element."""
    return shape.rank is not None and any(d != 1 for d in shape.as_list())


def _non_scalar(loss: tf.Tensor) -> tf.Tensor | None:
    """The non-scalar tensor behind `loss`, or None if `loss` is one value.

    An EstimatorSpec reshapes a loss of unknown size (`[None, 1]`) to `[]`,
    which fails only when the step runs with more than one example; that
    reshape is looked through.
    """
    if _more_than_one(loss.shape):
        return loss
    if loss.shape.rank == 0 and loss.op.type == "Reshape":
        source = loss.op.inputs[0]
        if _more_than_one(source.shape):
            return source
    return None


def check_scalar_loss(loss: Any, where: str = "") -> None:
    """Raises ValueError, as tf.estimator does, for a loss that is not a scalar.

    Args:
      loss: the loss a model_fn computed (or passed to `compute_gradients`).
      where: where it was made, for the message (e.g. `'in tower 1'`).
    """
    if not isinstance(loss, tf.Tensor):
        return
    source = _non_scalar(loss)
    if source is not None:
        where = f" ({where})" if where else ""
        raise ValueError(
            f"Loss must be scalar, given: {source}{where}, of shape "
            f"{source.shape.as_list()}. {_SCALAR_FIX}"
        )


@contextlib.contextmanager
def explain_non_scalar_loss() -> Iterator[None]:
    """Adds the fix to an EstimatorSpec's own "Loss must be scalar" error."""
    try:
        yield
    except ValueError as error:
        text = str(error)
        if not text.startswith("Loss must be scalar") or _SCALAR_FIX in text:
            raise
        raise ValueError(f"{text}. {_SCALAR_FIX}") from error
