"""`TrainSpec`, `EvalSpec` and `train_and_evaluate` (local, or a TF_CONFIG cluster's task)."""

from __future__ import annotations

import collections

import tensorflow as tf

from estimator_multigpu.estimator import (
    _compat,
    _distributed,
    _eval_listener,
)
from estimator_multigpu.estimator._train import (
    SPEC_HOOKS_MESSAGE,
    SPEC_LISTENERS_MESSAGE,
    check_hooks,
    check_listeners,
)


def _check_input_fn(input_fn) -> None:
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")


def _check_exporters(exporters) -> tuple:
    """Returns `exporters` as a tuple of uniquely named exporters.

    Raises:
      TypeError: for something that is not an Exporter (or iterable of them).
      ValueError: for an empty, non-string or repeated name.
    """
    if not exporters:
        return ()
    if _is_exporter(exporters):
        exporters = [exporters]
    try:
        exporters = tuple(exporters)
    except TypeError:
        exporters = (exporters,)
    for exporter in exporters:
        if not _is_exporter(exporter):
            raise TypeError(
                "`exporters` must be an Exporter, an iterable of Exporter, or "
                f"`None`, found {exporters!r}."
            )
    names = [exporter.name for exporter in exporters]
    _check_exporter_names(names)
    return exporters


def _is_exporter(value) -> bool:
    return callable(getattr(value, "export", None)) and hasattr(value, "name")


def _check_exporter_names(names: list) -> None:
    for name in names:
        if not name:
            raise ValueError(
                "An Exporter cannot have a name that is `None` or empty. All "
                f"exporter names: {names}"
            )
        if not isinstance(name, str):
            raise ValueError(
                f"An Exporter must have a string name. Given: {type(name)} "
                f"(all exporter names: {names})."
            )
    if len(set(names)) != len(names):
        raise ValueError(
            f"`exporters` must have unique names. All exporter names: {names}"
        )


class TrainSpec(
    collections.namedtuple(
        "TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"]
    )
):
    """The "train" part of `train_and_evaluate`: input, duration, hooks.

    Attributes:
      input_fn: the training `input_fn`.
      max_steps: the global step to train to; None: until the input ends.
      hooks: `SessionRunHook`s for training.
      saving_listeners: `CheckpointSaverListener`s (chief only).

    Raises:
      TypeError, ValueError: for a non-callable `input_fn`, a `max_steps`
        <= 0, or hooks and listeners of the wrong type.
    """

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _check_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(
            cls,
            input_fn,
            max_steps,
            tuple(check_hooks(hooks, message=SPEC_HOOKS_MESSAGE)),
            tuple(check_listeners(saving_listeners, SPEC_LISTENERS_MESSAGE)),
        )


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        [
            "input_fn",
            "steps",
            "name",
            "hooks",
            "exporters",
            "start_delay_secs",
            "throttle_secs",
        ],
    )
):
    """The "eval" part of `train_and_evaluate`: input, steps, exporters, timing.

    Attributes:
      input_fn: the evaluation `input_fn`.
      steps: batches per evaluation; None: until the input ends.
      name: a name for the evaluation (its own `eval_<name>` folder).
      hooks: `SessionRunHook`s for evaluation.
      exporters: an `Exporter` or a list of them, run after each evaluation.
      start_delay_secs: seconds before the first evaluation (on a cluster).
      throttle_secs: the least seconds between two evaluations.

    Raises:
      TypeError, ValueError: for a non-callable `input_fn`, `steps` <= 0,
        a bad name, hooks, exporters or times.
    """

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        _check_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        for field, value in (
            ("start_delay_secs", start_delay_secs),
            ("throttle_secs", throttle_secs),
        ):
            if value < 0:
                raise ValueError(f"Must specify {field} >= 0, given: {value}")
        return super().__new__(
            cls,
            input_fn,
            steps,
            name,
            tuple(check_hooks(hooks, message=SPEC_HOOKS_MESSAGE)),
            _check_exporters(exporters),
            start_delay_secs,
            throttle_secs,
        )


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains, evaluating and exporting after checkpoints.

    Without a cluster in `TF_CONFIG` (`estimator.config.cluster_spec`) all of
    it runs in this process. On a cluster each task runs its part: see
    `distributed` (parameter servers serve, the chief and the workers train,
    the evaluator evaluates each new checkpoint), as tf.estimator did.

    Args:
      estimator: the `Estimator` to train.
      train_spec: a `TrainSpec` (or, on TF 2.15, tf.estimator's).
      eval_spec: an `EvalSpec` (or, on TF 2.15, tf.estimator's).

    Returns:
      Locally, `(metrics of the last evaluation, export results)` as
      tf.estimator; on a cluster None (as tf.estimator).

    Raises:
      TypeError: for an estimator or specs of the wrong type.
    """
    train_spec = _compat.as_emg_train_spec(train_spec)
    eval_spec = _compat.as_emg_eval_spec(eval_spec)
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            "`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
            f"{type(eval_spec)} (pass an emg.estimator.EvalSpec)."
        )
    if not hasattr(estimator, "train") or not hasattr(estimator, "config"):
        raise TypeError(
            "`estimator` must have type `tf.estimator.Estimator`. Got: "
            f"{type(estimator)} (pass an emg.estimator.Estimator)."
        )
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(
            "`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
            f"{type(train_spec)} (pass an emg.estimator.TrainSpec)."
        )
    if _distributed.is_distributed(estimator.config):
        _distributed.run(estimator, train_spec, eval_spec)
        return None
    tf.get_logger().info("Running training and evaluation locally (non-distributed).")
    return _run_local(estimator, train_spec, eval_spec)


def _run_local(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains in this process, evaluating and exporting after checkpoints."""
    config = estimator.config
    tf.get_logger().info(
        "Start train and evaluate loop. The evaluate will happen after every "
        "checkpoint. Checkpoint frequency is determined based on RunConfig "
        "arguments: save_checkpoints_steps %s or save_checkpoints_secs %s.",
        config.save_checkpoints_steps,
        config.save_checkpoints_secs,
    )
    evaluator = _eval_listener.Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _eval_listener.EvaluateAfterSave(evaluator, eval_spec.throttle_secs)
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=list(train_spec.saving_listeners) + [listener],
    )
    return listener.eval_result, listener.export_results
