"""`TPUEstimatorSpec`: eval_metrics, host_call and scaffold_fn as an EstimatorSpec."""

from __future__ import annotations

import collections
import inspect

import tensorflow as tf

from estimator_multigpu._model_fn import fn_args
from estimator_multigpu.estimator._spec import EstimatorSpec

_FIELDS = (
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metrics",
    "export_outputs",
    "scaffold_fn",
    "host_call",
    "training_hooks",
    "evaluation_hooks",
    "prediction_hooks",
)
_WRITER_OPS = ("CreateSummaryFileWriter", "CreateSummaryDbWriter")


def validate_host_calls(host_calls: dict) -> None:
    """TPUEstimator's checks of `eval_metrics` / `host_call`, with its messages.

    Args:
      host_calls: `{'eval_metrics' or 'host_call': (fn, tensors)}`.

    Raises:
      ValueError, TypeError, RuntimeError: as TPUEstimator raises them.
    """
    for name, host_call in host_calls.items():
        if not isinstance(host_call, (tuple, list)):
            raise ValueError(f"{name} should be tuple or list")
        if len(host_call) != 2:
            raise ValueError(f"{name} should have two elements.")
        if not callable(host_call[0]):
            raise TypeError(f"{name}[0] should be callable.")
        if not isinstance(host_call[1], (tuple, list, dict)):
            raise ValueError(f"{name}[1] should be tuple or list, or dict.")
        if isinstance(host_call[1], (tuple, list)):
            _check_arity(name, *host_call)


def _check_arity(name: str, fn, tensors) -> None:
    varargs = any(
        p.kind is inspect.Parameter.VAR_POSITIONAL
        for p in inspect.signature(fn).parameters.values()
    )
    if not varargs and len(tensors) != len(fn_args(fn)):
        raise RuntimeError(
            f"In TPUEstimatorSpec.{name}, length of tensors {len(tensors)} does "
            "not match method args of the function, which takes "
            f"{len(fn_args(fn))}."
        )


def call_host_fn(name: str, host_call) -> object:
    """Calls `fn(*tensors)` for a list, `fn(**tensors)` for a dict."""
    fn, tensors = host_call
    if isinstance(tensors, (tuple, list)):
        return fn(*tensors)
    try:
        return fn(**tensors)
    except TypeError as error:
        tf.get_logger().warning(
            "Exception while calling %s: %s. It is likely the tensors (%s[1]) "
            "do not match the function's arguments",
            name,
            error,
            name,
        )
        raise


class HostCallHook(tf.compat.v1.train.SessionRunHook):
    """Runs a `host_call`'s ops every step, as TPUEstimator does with use_tpu=False.

    Initialises the graph's summary writers once the session exists, fetches
    the host_call's result each step and flushes the writers at the end.
    """

    def __init__(self, tensors):
        self._tensors = tensors

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self._init_ops = [op for op in graph.get_operations() if op.type in _WRITER_OPS]
        self._flush_ops = [
            tf.raw_ops.FlushSummaryWriter(writer=op.inputs[0]) for op in self._init_ops
        ]

    def after_create_session(self, session, coord):
        del coord
        session.run(self._init_ops)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._tensors)

    def end(self, session):
        session.run(self._flush_ops)


def _check_hooks(hooks) -> tuple:
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(
                f"All hooks must be SessionRunHook instances, given: {hook} "
                "(pass e.g. tf.compat.v1.train.LoggingTensorHook objects)."
            )
    return hooks


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", _FIELDS)):
    """`tf.compat.v1.estimator.tpu.TPUEstimatorSpec`, for `emg.estimator.tpu.TPUEstimator`.

    Same fields and checks. `eval_metrics=(metric_fn, tensors)` with
    `tensors` a list (passed positionally) or a dict (by keyword);
    `host_call=(fn, tensors)` likewise, its ops run every step;
    `scaffold_fn()` returns the `Scaffold`. `as_estimator_spec()` gives the
    `EstimatorSpec` TPUEstimator(use_tpu=False) runs.

    Args:
      mode: a `ModeKeys` value.
      predictions: a tensor or dict of tensors (PREDICT).
      loss: the scalar loss (TRAIN, EVAL).
      train_op: the op of one step (TRAIN).
      eval_metrics: `(metric_fn, tensors)`, tensors a list or a dict (EVAL).
      export_outputs: `{signature name: ExportOutput}`.
      scaffold_fn: `() -> tf.compat.v1.train.Scaffold`.
      host_call: `(fn, tensors)`: `fn`'s result runs every step.
      training_hooks, evaluation_hooks, prediction_hooks: `SessionRunHook`s.

    Raises:
      ValueError, TypeError, RuntimeError: for a bad `eval_metrics` or
        `host_call`, or a hook that is not a `SessionRunHook`.
    """

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metrics=None,
        export_outputs=None,
        scaffold_fn=None,
        host_call=None,
        training_hooks=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        spec = super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metrics=eval_metrics,
            export_outputs=export_outputs,
            scaffold_fn=scaffold_fn,
            host_call=host_call,
            training_hooks=_check_hooks(training_hooks),
            evaluation_hooks=_check_hooks(evaluation_hooks),
            prediction_hooks=_check_hooks(prediction_hooks),
        )
        validate_host_calls(host_calls_of(spec))
        return spec

    def as_estimator_spec(self) -> EstimatorSpec:
        """The equivalent `EstimatorSpec`, as TPUEstimator builds it on CPU/GPU.

        `eval_metrics`' function gives `eval_metric_ops`; `host_call`'s
        result is run every step by a hook added to the training, evaluation
        and prediction hooks; `scaffold_fn()` gives the scaffold.
        """
        eval_metric_ops = None
        if self.eval_metrics is not None:
            eval_metric_ops = call_host_fn("eval_metrics", self.eval_metrics)
        hooks = ()
        if self.host_call is not None:
            hooks = (HostCallHook(call_host_fn("host_call", self.host_call)),)
        return to_estimator_spec(self, eval_metric_ops, hooks, call_scaffold(self))


def call_scaffold(spec: TPUEstimatorSpec):
    """`spec.scaffold_fn()`, or None without one."""
    return spec.scaffold_fn() if spec.scaffold_fn else None


def host_calls_of(spec: TPUEstimatorSpec) -> dict:
    """`{'eval_metrics': ..., 'host_call': ...}`, the ones `spec` gives."""
    calls = {"eval_metrics": spec.eval_metrics, "host_call": spec.host_call}
    return {name: call for name, call in calls.items() if call is not None}


def to_estimator_spec(spec: TPUEstimatorSpec, eval_metric_ops, hooks: tuple, scaffold):
    """The `EstimatorSpec` of `spec`'s fields, `hooks` added to each mode's."""
    return EstimatorSpec(
        mode=spec.mode,
        predictions=spec.predictions,
        loss=spec.loss,
        train_op=spec.train_op,
        eval_metric_ops=eval_metric_ops,
        export_outputs=spec.export_outputs,
        scaffold=scaffold,
        training_hooks=spec.training_hooks + hooks,
        evaluation_hooks=spec.evaluation_hooks + hooks,
        prediction_hooks=spec.prediction_hooks + hooks,
    )
